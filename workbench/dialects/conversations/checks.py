"""The assertions of a conversation eval (seed 002), compiled once into checks on what a turn showed.

A turn's `assert` has up to five categories, each a list: `response` (`contains`, `not_contains`,
`matches`, `llm_judge`), `tools` (`called` with optional `params`, `not_called`, `call_order`),
`state` (`path` into bot./user./conversation. with match operators and/or `changed`), `workflow`
(`name` with `entered` / `completed`, optional `params` on the workflow's input) and `timing`
(`response_time` with `gte` / `lte`, in ms). `expectSilence: true` is one more check. The `outcome`
block takes `state` and `workflow` only and looks at the whole conversation.

The match operators and the tool checks are the ones `workbench-assertions` already implements
(`match_ops`, `assertions.Parser`); this module only maps the seed's spelling onto them and rejects
anything it doesn't know, because a misspelt assertion that silently passes is worse than an ERROR.
Problems are collected (not raised one at a time) so a file shows all of them at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ...compare import is_number, strict_equal
from ...output_paths import MISSING
from ...scoring.assertions import Parser, Run
from ...scoring.base import CriterionError
from ...scoring.common import show
from ...scoring.match_ops import OPERATORS, Matcher, TextMode, parse_matcher, parse_path, resolve
from ...trace import ToolCalls

RESPONSE_OPERATORS = ("contains", "not_contains", "matches")
LLM_JUDGE = "llm_judge"
TOOL_KINDS = ("called", "not_called", "call_order")
STATE_SCOPES = ("bot", "user", "conversation")
TURN_CATEGORIES = ("response", "tools", "state", "workflow", "timing")
OUTCOME_CATEGORIES = ("state", "workflow")
SILENCE = "expectSilence"
CACHE_SIZE = 4096
_PLAIN = TextMode()
_cache: dict[bytes, CompiledEval] = {}


@dataclass(slots=True)
class Observed:
    """What one turn showed (or, for `outcome`, the whole conversation): the checks' only input."""

    reply: str | None = None
    calls: ToolCalls = field(default_factory=lambda: ToolCalls([]))
    workflows: list[dict[str, Any]] = field(default_factory=list)
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    response_time_ms: float = 0.0


Test = Callable[[Observed], "str | None"]


@dataclass(slots=True)
class Check:
    """One assertion as written (`spec`) and how to test it: `test` answers None when it holds, else
    why not; an `llm_judge` assertion has no test but the `judge` criterion the scorer asks about."""

    category: str
    spec: Any
    test: Test | None = None
    judge: str | None = None


@dataclass(slots=True)
class CompiledEval:
    turns: list[list[Check]]
    outcome: list[Check]
    problems: list[str]

    @property
    def count(self) -> int:
        return sum(len(checks) for checks in self.turns) + len(self.outcome)


def compile_eval(spec: Any) -> CompiledEval:
    """Every turn's checks and the outcome's, plus every problem found on the way. Remembered by the
    eval's JSON text: the loader and the scorer both need it, in every iteration of a watch loop."""
    try:
        key = orjson.dumps(spec)
    except (TypeError, orjson.JSONEncodeError):  # too deep for orjson: compile it every time
        return _compile(spec)
    compiled = _cache.get(key)
    if compiled is None:
        compiled = _cache[key] = _compile(spec)
        if len(_cache) > CACHE_SIZE:
            del _cache[next(iter(_cache))]
    return compiled


def _compile(spec: Any) -> CompiledEval:
    compiler = _Compiler()
    turns: list[list[Check]] = []
    conversation = spec.get("conversation") if isinstance(spec, dict) else None
    for number, turn in enumerate(conversation if isinstance(conversation, list) else [], 1):
        turns.append(compiler.turn(turn, f"turn {number}") if isinstance(turn, dict) else [])
    outcome = spec.get("outcome") if isinstance(spec, dict) else None
    checks = compiler.outcome(outcome) if outcome is not None else []
    return CompiledEval(turns, checks, compiler.problems)


class _Compiler:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def turn(self, turn: dict[str, Any], label: str) -> list[Check]:
        checks: list[Check] = []
        silence = turn.get(SILENCE, False)
        assertions = turn.get("assert")
        if not isinstance(silence, bool):
            self.problems.append(f"{label}: expectSilence must be true or false, not {show(silence)}")
        elif silence:
            checks.append(Check(SILENCE, True, _silent))
            if isinstance(assertions, dict) and "response" in assertions:
                self.problems.append(f"{label}: expectSilence and assert.response can't be used together "
                                     "(a silent turn has no response to check); keep one of them")
        if assertions is None:
            return checks
        if not isinstance(assertions, dict):
            self.problems.append(f"{label}: assert must be an object such as {{\"response\": [...]}}, "
                                 f"not {show(assertions)}")
            return checks
        return checks + self.block(assertions, f"{label}: assert", TURN_CATEGORIES)

    def outcome(self, outcome: Any) -> list[Check]:
        if not isinstance(outcome, dict):
            self.problems.append(f"outcome must be an object such as {{\"state\": [...]}}, not {show(outcome)}")
            return []
        for key in ("response", "tools"):
            if key in outcome:
                self.problems.append(f"outcome: {key} assertions are per turn; outcome takes only state and "
                                     "workflow")
        return self.block({k: v for k, v in outcome.items() if k not in ("response", "tools")}, "outcome",
                          OUTCOME_CATEGORIES)

    def block(self, block: dict[str, Any], label: str, allowed: tuple[str, ...]) -> list[Check]:
        checks: list[Check] = []
        for key, items in block.items():
            if key not in allowed:
                self.problems.append(f"{label} has unknown assertion category {key!r} (allowed: "
                                     f"{', '.join(allowed)})")
                continue
            if not isinstance(items, list):
                self.problems.append(f"{label}.{key} must be an array of assertions, not {show(items)}")
                continue
            for index, item in enumerate(items):
                where = f"{label}.{key}[{index}]"
                try:
                    if not isinstance(item, dict) or not item:
                        raise CriterionError(f"{where} must be a non-empty object, not {show(item)}")
                    checks.append(_BUILDERS[key](item, where))
                except CriterionError as exc:
                    self.problems.append(str(exc))
        return checks


# -- one builder per category ---------------------------------------------------------------------


def _allow(item: dict[str, Any], where: str, allowed: tuple[str, ...], what: str = "key") -> None:
    extra = [key for key in item if key not in allowed]
    if extra:
        raise CriterionError(f"{where} has unknown {what}{'s' if len(extra) > 1 else ''} "
                             f"{', '.join(map(repr, extra))} (allowed: {', '.join(allowed)})")


def _operators(spec: Any, where: str) -> Matcher:
    """A match-operator object (`{"equals": ...}`, `{"in": [...]}`, ...); unknown operators are refused."""
    if not isinstance(spec, dict) or not spec:
        raise CriterionError(f"{where} must be an object of match operators such as {{\"equals\": ...}} "
                             f"({', '.join(OPERATORS)}), not {show(spec)}")
    _allow(spec, where, OPERATORS, "operator")
    return parse_matcher(spec, where, _PLAIN)


def _silent(seen: Observed) -> str | None:
    if seen.reply is None:
        return None
    note = " (an empty string is a reply; silence is a null or absent reply)" if seen.reply == "" else ""
    return f"expected silence, but the bot replied {show(seen.reply, 120)}{note}"


def _response(item: dict[str, Any], where: str) -> Check:
    _allow(item, where, (*RESPONSE_OPERATORS, LLM_JUDGE), "operator")
    if LLM_JUDGE in item:
        criterion = item[LLM_JUDGE]
        if len(item) > 1:
            raise CriterionError(f"{where}: llm_judge stands alone in its assertion; put the other operators "
                                 "in an assertion of their own")
        if not isinstance(criterion, str) or not criterion.strip():
            raise CriterionError(f"{where}: llm_judge needs the criterion as text, not {show(criterion)}")
        return Check("response", item, judge=criterion)
    for op in ("contains", "not_contains"):
        if op in item and not isinstance(item[op], str):
            raise CriterionError(f"{where}: {op} needs text, not {show(item[op])}")
    matcher = parse_matcher(item, where, _PLAIN)

    def test(seen: Observed) -> str | None:
        if seen.reply is None:
            return f"the bot said nothing (expected a reply matching {show(item)})"
        reason = matcher.failure(seen.reply)
        return f"reply {reason}" if reason else None
    return Check("response", item, test)


def _tools(item: dict[str, Any], where: str) -> Check:
    kinds = [kind for kind in TOOL_KINDS if kind in item]
    _allow(item, where, (*TOOL_KINDS, "params"))
    if len(kinds) != 1:
        raise CriterionError(f"{where} needs exactly one of {', '.join(TOOL_KINDS)}, not "
                             f"{' and '.join(kinds) if kinds else 'none'}")
    kind = kinds[0]
    if "params" in item and kind != "called":
        raise CriterionError(f"{where}: params goes with called, not with {kind}")
    value = item[kind]
    if kind == "call_order":
        if not isinstance(value, list) or not value or not all(isinstance(n, str) and n for n in value):
            raise CriterionError(f"{where}: call_order needs a non-empty array of tool names, not {show(value)}")
        spec: dict[str, Any] = {"tool_call_order": value}
    else:
        if not isinstance(value, str) or not value:
            raise CriterionError(f"{where}: {kind} needs a tool name, not {show(value)}")
        spec = {"tool_called": value} if kind == "called" else {"tool_not_called": value}
        if "params" in item:
            params = item["params"]
            if not isinstance(params, dict):
                raise CriterionError(f"{where}.params must be an object of {{param: operators}}, not {show(params)}")
            for name, operators in params.items():
                _operators(operators, f"{where}.params[{name!r}]")
            spec["params"] = params
    check = Parser(_PLAIN).check(spec, where)
    return Check("tools", item, lambda seen: check.failure(Run(None, seen.calls, seen.response_time_ms, [])))


def _state(item: dict[str, Any], where: str) -> Check:
    _allow(item, where, ("path", "changed", *OPERATORS))
    path = item.get("path")
    if not isinstance(path, str) or path.split(".", 1)[0] not in STATE_SCOPES:
        raise CriterionError(f"{where}: path must start with bot., user. or conversation. (e.g. "
                             f"\"conversation.topic\"), not {show(path)}")
    tokens = parse_path(path, where)
    changed = item.get("changed")
    if changed is not None and not isinstance(changed, bool):
        raise CriterionError(f"{where}: changed must be true or false, not {show(changed)}")
    operators = {k: v for k, v in item.items() if k in OPERATORS}
    if not operators and changed is None:
        raise CriterionError(f"{where} names a path but asserts nothing: add changed or an operator "
                             f"({', '.join(OPERATORS)})")
    matcher = parse_matcher(operators, where, _PLAIN) if operators else None

    def test(seen: Observed) -> str | None:
        after = resolve(seen.after, tokens)
        reason = matcher.failure(after) if matcher else None
        if reason:
            return f"{path} {reason}"
        if changed is None:
            return None
        before = resolve(seen.before, tokens)
        same = (before is MISSING) == (after is MISSING) and (after is MISSING or strict_equal(before, after))
        if changed and same:
            return f"{path} did not change (still {show(after)})"
        if not changed and not same:
            return f"{path} changed from {show(before)} to {show(after)}"
        return None
    return Check("state", item, test)


def _workflow(item: dict[str, Any], where: str) -> Check:
    _allow(item, where, ("name", "entered", "completed", "params"))
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise CriterionError(f"{where}: name must be the workflow's name, not {show(name)}")
    flags = {key: item[key] for key in ("entered", "completed") if key in item}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise CriterionError(f"{where}: {key} must be true or false, not {show(value)}")
    params = item.get("params", {})
    if not isinstance(params, dict):
        raise CriterionError(f"{where}.params must be an object of {{input field: operators}}, not {show(params)}")
    rules = [(key, parse_path(key, where), _operators(ops, f"{where}.params[{key!r}]")) for key, ops in params.items()]
    if not flags and not rules:
        raise CriterionError(f"{where} asserts nothing about {name}: add entered or completed")

    def test(seen: Observed) -> str | None:
        runs = [w for w in seen.workflows if w.get("name") == name]
        for key, expected in flags.items():
            actual = any(w.get(key) for w in runs)
            if actual != expected:
                seen_names = ", ".join(dict.fromkeys(str(w.get("name")) for w in seen.workflows)) or "none"
                verb = "was entered" if key == "entered" else "completed"
                return (f"{name} {verb}" if actual else
                        f"{name} {'was not entered' if key == 'entered' else 'did not complete'} "
                        f"(workflows: {seen_names})")
        if rules and not any(all(not m.failure(resolve(w.get("input"), t)) for _, t, m in rules) for w in runs):
            first = runs[0].get("input") if runs else MISSING
            broken = [f"{key} {why}" for key, t, m in rules if (why := m.failure(resolve(first, t)))]
            return f"no run of {name} had the expected params — " + ("; ".join(broken) or "it never ran")
        return None
    return Check("workflow", item, test)


def _timing(item: dict[str, Any], where: str) -> Check:
    _allow(item, where, ("response_time",))
    spec = item.get("response_time")
    if not isinstance(spec, dict) or not spec:
        raise CriterionError(f"{where}: response_time must be an object such as {{\"lte\": 5000}} (ms)")
    _allow(spec, f"{where}.response_time", ("gte", "lte"), "operator")
    for op, bound in spec.items():
        if not is_number(bound):
            raise CriterionError(f"{where}.response_time: {op} needs a number of milliseconds, not {show(bound)}")
    matcher = parse_matcher(spec, where, _PLAIN)

    def test(seen: Observed) -> str | None:
        reason = matcher.failure(round(seen.response_time_ms, 1))
        return f"response_time (ms) {reason}" if reason else None
    return Check("timing", item, test)


_BUILDERS: dict[str, Callable[[dict[str, Any], str], Check]] = {
    "response": _response,
    "tools": _tools,
    "state": _state,
    "workflow": _workflow,
    "timing": _timing,
}
