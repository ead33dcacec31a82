"""`workbench-assertions`: a list of checks on the output, the tool calls and the run. Boolean.

The row's criterion is `{"checks": [...]}`; every check must hold, and each one that doesn't is
named in the detail. Checks:

- `{"path": "reply", "contains": "ticket"}`: operators `equals contains not_contains matches in
  exists gte lte` (several may share a check) on the value at `path` (default: the whole output);
  `ignore_case` / `ignore_accents` make text checks forgiving (defaults: evaluatorConfig
  `ignoreCase` / `ignoreAccents`).
- `{"tool_called": "createTicket", "params": {"priority": {"in": ["high", "urgent"]}}}`: some call
  to the tool has args satisfying every param (a bare value means equals).
- `{"tool_not_called": "deleteTicket"}`, `{"tool_call_order": ["lookupUser", "createTicket"]}` (in
  that order, other calls may come between).
- `{"duration_ms": {"lte": 5000}}`, `{"tokens": {"lte": 2000}}` (usage from the trace).
- `{"anyOf": [[...checks], [...checks]]}`: holds when every check of some alternative holds.

Any check may carry a `"name"` that labels it in the detail. A check that can't be decided (a `matches`
pattern that had to be stopped, see `workbench.patterns`) makes the row an ERROR naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import jsonio
from ..model import EvaluatorDef
from ..trace import ToolCalls, tool_calls, trace_tokens
from .base import CriterionError, Score, ScoreInput, Scorer
from .common import boolean, check_flags, flag, show
from .match_ops import (
    OPERATORS,
    TEXT_FLAGS,
    Matcher,
    TextMode,
    is_operator_set,
    parse_matcher,
    parse_path,
    resolve,
)

_KINDS = ("path", "tool_called", "tool_not_called", "tool_call_order", "duration_ms", "tokens", "anyOf")


@dataclass(slots=True)
class Run:
    """What the checks look at."""

    output: Any
    calls: ToolCalls
    duration_ms: float
    trace: list[dict[str, Any]]


@dataclass(slots=True)
class Check:
    where: str  # e.g. checks[2] or checks[1].anyOf[0][3]
    label: str
    test: Callable[[Run], str | None]  # None when the check holds, else why not

    def failure(self, run: Run) -> str | None:
        return self.test(run)


@dataclass(slots=True)
class Parser:
    mode: TextMode

    def checks(self, items: Any, where: str) -> list[Check]:
        if not isinstance(items, list):
            raise CriterionError(f"{where} must be an array of checks, not {show(items)}")
        return [self.check(item, f"{where}[{i}]") for i, item in enumerate(items)]

    def check(self, spec: Any, where: str) -> Check:
        if not isinstance(spec, dict):
            raise CriterionError(f"{where} must be an object such as {{\"path\": \"reply\", \"contains\": "
                                 f"\"ticket\"}}, not {show(spec)}")
        name = spec.get("name")
        label = name if isinstance(name, str) else _label(spec)
        body = {k: v for k, v in spec.items() if k != "name"}
        kinds = [k for k in _KINDS if k in body]
        if not kinds and any(op in body for op in OPERATORS):
            kinds = ["path"]
        if len(kinds) != 1:
            what = "no recognised check" if not kinds else f"more than one check ({', '.join(kinds)})"
            raise CriterionError(f"{where} has {what}; a check is one of: path + operator ("
                                 f"{' '.join(OPERATORS)}), {', '.join(_KINDS[1:])}")
        kind = kinds[0]
        test = getattr(self, f"_{kind}")(body, where)
        return Check(where, label, test)

    def _allow(self, body: dict[str, Any], where: str, allowed: tuple[str, ...]) -> None:
        extra = [k for k in body if k not in allowed]
        if extra:
            raise CriterionError(f"{where} has unknown key(s) {', '.join(map(repr, extra))}; allowed here: "
                                 f"{', '.join(allowed)}")

    def _path(self, body: dict[str, Any], where: str) -> Callable[[Run], str | None]:
        self._allow(body, where, ("path", *OPERATORS, *TEXT_FLAGS))
        path = body.get("path", "*")
        tokens = parse_path(path, where)
        if not any(op in body for op in OPERATORS):
            raise CriterionError(f"{where} names a path but no operator ({' '.join(OPERATORS)})")
        matcher = parse_matcher(body, where, self.mode)
        shown = "the output" if not tokens else path

        def test(run: Run) -> str | None:
            reason = matcher.failure(resolve(run.output, tokens))
            return f"{shown} {reason}" if reason else None
        return test

    def _tool_called(self, body: dict[str, Any], where: str) -> Callable[[Run], str | None]:
        self._allow(body, where, ("tool_called", "params", *TEXT_FLAGS))
        name = _tool_name(body["tool_called"], f"{where}.tool_called")
        params = body.get("params", {})
        if not isinstance(params, dict):
            raise CriterionError(f"{where}.params must be an object of {{arg: operators}}, not {show(params)}")
        mode = parse_matcher({k: body[k] for k in TEXT_FLAGS if k in body}, where, self.mode).mode
        rules: list[tuple[str, list[str | int], Matcher]] = []
        for arg, spec in params.items():
            spot = f"{where}.params[{arg!r}]"
            matcher = (parse_matcher(spec, spot, mode) if is_operator_set(spec)
                       else Matcher((("equals", spec),), mode))
            rules.append((arg, parse_path(arg, spot), matcher))

        def test(run: Run) -> str | None:
            mine = [(i, c) for i, c in enumerate(run.calls.calls, 1) if c.name == name]
            if not mine:
                called = ", ".join(dict.fromkeys(run.calls.names)) or "none"
                return f"{name} was not called (tools called: {called})"
            reasons = []
            for number, call in mine:
                broken = [f"{arg} {why}" for arg, tokens, matcher in rules
                          if (why := matcher.failure(resolve(call.args, tokens)))]
                if not broken:
                    return None
                reasons.append(f"call #{number}: {'; '.join(broken)}")
            return f"no call to {name} had the expected params — " + " | ".join(reasons[:3])
        return test

    def _tool_not_called(self, body: dict[str, Any], where: str) -> Callable[[Run], str | None]:
        self._allow(body, where, ("tool_not_called",))
        name = _tool_name(body["tool_not_called"], f"{where}.tool_not_called")

        def test(run: Run) -> str | None:
            times = run.calls.names.count(name)
            return f"{name} was called {times} time(s)" if times else None
        return test

    def _tool_call_order(self, body: dict[str, Any], where: str) -> Callable[[Run], str | None]:
        self._allow(body, where, ("tool_call_order",))
        order = body["tool_call_order"]
        if not isinstance(order, list) or not order or not all(isinstance(n, str) for n in order):
            raise CriterionError(f"{where}.tool_call_order must be a non-empty array of tool names")

        def test(run: Run) -> str | None:
            position = 0
            for name in run.calls.names:
                if position < len(order) and name == order[position]:
                    position += 1
            if position == len(order):
                return None
            return (f"expected {' → '.join(order)} in that order; the calls were "
                    f"{' → '.join(run.calls.names) or 'none'} (stuck at {order[position]})")
        return test

    def _measure(self, body: dict[str, Any], where: str, key: str,
                 read: Callable[[Run], float | None], missing: str) -> Callable[[Run], str | None]:
        self._allow(body, where, (key,))
        spec = body[key]
        if not isinstance(spec, dict) or not spec or any(k not in ("gte", "lte") for k in spec):
            raise CriterionError(f"{where}.{key} must be an object such as {{\"lte\": 5000}} (gte / lte)")
        matcher = parse_matcher(spec, f"{where}.{key}", self.mode)

        def test(run: Run) -> str | None:
            value = read(run)
            if value is None:
                return missing
            reason = matcher.failure(round(value, 3))
            return f"{key} {reason}" if reason else None
        return test

    def _duration_ms(self, body: dict[str, Any], where: str) -> Callable[[Run], str | None]:
        return self._measure(body, where, "duration_ms", lambda run: run.duration_ms, "no duration")

    def _tokens(self, body: dict[str, Any], where: str) -> Callable[[Run], str | None]:
        return self._measure(body, where, "tokens", lambda run: trace_tokens(run.trace),
                             "the trace reports no token usage (a {\"type\": \"usage\", \"tokens\": N} line)")

    def _anyOf(self, body: dict[str, Any], where: str) -> Callable[[Run], str | None]:
        self._allow(body, where, ("anyOf",))
        options = body["anyOf"]
        if not isinstance(options, list) or not options:
            raise CriterionError(f"{where}.anyOf must be a non-empty array of alternatives (arrays of checks)")
        alternatives = [self.checks(option, f"{where}.anyOf[{i}]") for i, option in enumerate(options)]

        def test(run: Run) -> str | None:
            reasons = []
            for i, checks in enumerate(alternatives):
                failures = [f"{c.label}: {why}" for c in checks if (why := c.failure(run))]
                if not failures:
                    return None
                reasons.append(f"[{i}] " + "; ".join(failures))
            return "no alternative held — " + " | ".join(reasons)
        return test


def _tool_name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise CriterionError(f"{where} must be a tool name, not {show(value)}")
    return value


def _label(spec: dict[str, Any]) -> str:
    text = jsonio.dumps(spec)
    return text if len(text) <= 70 else text[:69] + "…"


class Assertions(Scorer):
    type_id: ClassVar[str] = "workbench-assertions"
    compares: ClassVar[str] = "the row's checks: on the output, the trace's tool calls, duration and tokens"

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        return check_flags(evaluator, "ignoreCase", "ignoreAccents")

    def parse(self, data: ScoreInput) -> list[Check]:
        ref = data.evaluator.ref
        criterion = data.criterion
        extra = [k for k in criterion if k not in ("checks", "anyOf")]
        if extra or not criterion:
            raise CriterionError(f"evaluationCriterias[{ref!r}] must be {{\"checks\": [...]}}"
                                 + (f"; unknown key(s) {', '.join(map(repr, extra))}" if extra else ""))
        mode = TextMode(flag(data.evaluator, "ignoreCase"), flag(data.evaluator, "ignoreAccents"))
        parser = Parser(mode)
        checks = parser.checks(criterion.get("checks", []), "checks")
        if "anyOf" in criterion:
            checks.append(parser.check({"anyOf": criterion["anyOf"]}, "anyOf"))
        if not checks:
            raise CriterionError(f"evaluationCriterias[{ref!r}].checks is empty: nothing to assert")
        return checks

    def score(self, data: ScoreInput) -> Score:
        checks = self.parse(data)
        run = Run(data.output, tool_calls(data.trace), data.duration_ms, data.trace)
        failures, undecided = [], []
        for check in checks:
            try:
                why = check.failure(run)
            except CriterionError as exc:  # a pattern that had to be stopped: the others still run
                undecided.append(str(exc))
                continue
            if why:
                failures.append(f"{check.where} {check.label}: {why}")
        expected = data.criterion.get("checks")
        note = run.calls.note()
        if undecided:
            lines = [f"{len(undecided)} of {len(checks)} checks could not be decided", *undecided, *failures]
            return Score.error("\n".join(lines), expected)
        if failures:
            lines = [f"{len(failures)} of {len(checks)} checks failed", *failures]
            return boolean(False, "\n".join([*lines, note] if note else lines), expected)
        return boolean(True, f"all {len(checks)} checks hold", expected)

