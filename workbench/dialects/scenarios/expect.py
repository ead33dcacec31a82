"""The `expect` evaluator of scenarios (seed 000): did the agent decide what the scenario expects?

- `mode` (default `any`): `any` — every listed action appears somewhere, extras allowed; `first` — the
  first actual action matches the first listed one, the others appear somewhere after it; `exact` —
  one for one, in order, nothing extra; `none` — no actions at all. Matching rules: `match.py`.
- `replyMustContain`: at least one appears in the reply; `replyMustNotContain`: none does (both
  ignore case and accents: "Tem certeza" is found in "tem CERTÉZA").
- `forbidActionTypes`: any action of those types fails, whatever the mode.
- `anyOf`: alternatives laid over the outer block (rule in `spec.py`); passes when one does.

Boolean. The detail says exactly what failed (`mode exact: 3 actual actions for 2 expected (extra:
click btn-cancel)`, `form_fill: no field 'email' (fields: name)`, `reply contains forbidden "9012"`).
`evaluate` is public so a view can show which actual action answered which listed one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ...model import EvaluatorDef
from ...scoring.base import CriterionError, Score, ScoreInput, Scorer
from ...scoring.common import boolean, fold, show
from .match import describe, maximum_matching, mismatch
from .spec import (
    ActualAction,
    ExpectBlock,
    ExpectedAction,
    ExpectError,
    Response,
    ResponseError,
    parse_expect,
    read_response,
)

SCENARIO_EXPECT = "workbench-scenario-expect"

Pairs = list[tuple[int, int]]  # (listed action index, actual action index), matched


@dataclass(slots=True)
class Evaluation:
    """One judgement: `lines` are the failures when not `ok`, else what matched. `block` is the block
    judged (for `anyOf`, the alternative that matched, or the closest one) and `pairs` its matches."""

    ok: bool
    lines: list[str]
    block: ExpectBlock
    pairs: Pairs = field(default_factory=list)
    alternative: int | None = None


def judge(expect: Any, output: Any) -> Evaluation:
    """Evaluate a raw `expect` block against a raw response (ExpectError / ResponseError when unusable)."""
    return evaluate(parse_expect(expect), read_response(output))


def evaluate(block: ExpectBlock, response: Response) -> Evaluation:
    if block.alternatives:
        return _any_of(block, response)
    pairs, failures = MODES[block.mode](list(block.actions), list(response.actions))
    failures += _forbidden(block, response)
    failures += _reply(block, response.reply)
    if failures:
        return Evaluation(False, failures, block, pairs)
    return Evaluation(True, _passed(block, response, pairs), block, pairs)


def _any_of(block: ExpectBlock, response: Response) -> Evaluation:
    judged = [evaluate(alternative, response) for alternative in block.alternatives]
    for index, result in enumerate(judged):
        if result.ok:
            return Evaluation(True, [f"anyOf[{index}] matched: {result.lines[0]}", *result.lines[1:]],
                              result.block, result.pairs, index)
    lines = [f"no alternative of anyOf matched ({len(judged)}):"]
    for index, result in enumerate(judged):
        lines += [f"  anyOf[{index}]: {line}" for line in result.lines]
    closest = min(range(len(judged)), key=lambda i: len(judged[i].lines))
    return Evaluation(False, lines, judged[closest].block, judged[closest].pairs, closest)


# -- modes -------------------------------------------------------------------------------------------------


def _match_any(listed: list[ExpectedAction], actual: list[ActualAction], offset: int = 0) -> tuple[Pairs, list[str]]:
    """Every listed action answered by a distinct actual one (indices in the pairs are + offset)."""
    matched = maximum_matching(len(listed), len(actual), lambda i, j: mismatch(listed[i], actual[j]) is None)
    pairs = [(i + offset, actual[j].index) for i, j in sorted(matched.items())]
    lines = [why_missing(action, actual, used={actual[j].index for j in matched.values()})
             for i, action in enumerate(listed) if i not in matched]
    return pairs, lines


def why_missing(action: ExpectedAction, actual: list[ActualAction], used: set[int]) -> str:
    """Why no actual action answers the listed `action` (`used`: actual indices other listed ones took)."""
    same = [a for a in actual if a.type == action.type]
    if not same:
        shown = ", ".join(describe(a) for a in actual) or "none"
        return f"no {action.type} action for the listed {describe(action)} (actions: {shown})"
    reasons = [(a, mismatch(action, a)) for a in same]
    failing = [(a, reason) for a, reason in reasons if reason]
    if len(failing) < len(reasons):
        taken = ", ".join(f"actions[{a.index}]" for a, reason in reasons if not reason and a.index in used)
        return (f"{action.type}: the listed {describe(action)} only matches actions already matched by other "
                f"listed actions ({taken}); each listed action needs its own")
    where = f" (actions[{failing[0][0].index}], the first of {len(same)})" if len(same) > 1 else ""
    return f"{action.type}: {failing[0][1]}{where}"


def _match_first(listed: list[ExpectedAction], actual: list[ActualAction]) -> tuple[Pairs, list[str]]:
    head = listed[0]
    if not actual:
        return [], [f"mode first: no actions; the first should be {describe(head)}"]
    lines: list[str] = []
    pairs: Pairs = []
    reason = mismatch(head, actual[0])
    if reason is None:
        pairs.append((0, actual[0].index))
    elif actual[0].type != head.type:
        lines.append(f"mode first: the first action is {describe(actual[0])}, expected {describe(head)}")
    else:
        lines.append(f"mode first: the first action {describe(actual[0])} does not match: {head.type}: {reason}")
    rest_pairs, rest_lines = _match_any(listed[1:], actual[1:], offset=1)
    return pairs + rest_pairs, lines + rest_lines


def _match_exact(listed: list[ExpectedAction], actual: list[ActualAction]) -> tuple[Pairs, list[str]]:
    if len(listed) != len(actual):
        pairs, _ = _match_any(listed, actual)
        answered, used = {i for i, _ in pairs}, {j for _, j in pairs}
        extra = [describe(a) for a in actual if a.index not in used]
        missing = [describe(action) for i, action in enumerate(listed) if i not in answered]
        line = f"mode exact: {len(actual)} actual action{_s(actual)} for {len(listed)} expected"
        line += f" (extra: {', '.join(extra)})" if extra else ""
        line += f" (missing: {', '.join(missing)})" if missing else ""
        return pairs, [line]
    pairs, lines = [], []
    for index, (want, got) in enumerate(zip(listed, actual, strict=True)):
        reason = mismatch(want, got)
        if reason is None:
            pairs.append((index, got.index))
        elif want.type != got.type:
            lines.append(f"mode exact: action {index + 1} is {describe(got)}, expected {describe(want)}")
        else:
            lines.append(f"mode exact: action {index + 1} {describe(got)} does not match: {want.type}: {reason}")
    if lines and not _match_any(listed, actual)[1]:
        lines.append("mode exact: the listed actions are all there, in another order")
    return pairs, lines


def _match_none(listed: list[ExpectedAction], actual: list[ActualAction]) -> tuple[Pairs, list[str]]:
    if not actual:
        return [], []
    return [], [f"mode none: expected no actions, got {len(actual)}: {', '.join(describe(a) for a in actual)}"]


MODES: dict[str, Callable[[list[ExpectedAction], list[ActualAction]], tuple[Pairs, list[str]]]] = {
    "any": _match_any, "first": _match_first, "exact": _match_exact, "none": _match_none,
}


# -- forbidden types and the reply ---------------------------------------------------------------------


def _forbidden(block: ExpectBlock, response: Response) -> list[str]:
    banned = set(block.forbid_action_types)
    return [f"forbidden action {describe(a)} (actions[{a.index}]; forbidActionTypes: "
            f"{', '.join(block.forbid_action_types)})" for a in response.actions if a.type in banned]


def folded(text: str) -> str:
    """Text as the reply rules compare it: no case, no accents."""
    return fold(text, ignore_case=True, ignore_accents=True)


def _reply(block: ExpectBlock, reply: str) -> list[str]:
    lines = []
    text = folded(reply)
    if block.reply_must_contain and not any(folded(item) in text for item in block.reply_must_contain):
        wanted = " or ".join(show(item) for item in block.reply_must_contain)
        lines.append(f"reply contains none of {wanted}: {show(reply, 160)}" if reply
                     else f"there is no reply; expected one containing {wanted}")
    lines += [f"reply contains forbidden {show(item)}" for item in block.reply_must_not_contain
              if folded(item) in text]
    return lines


def _passed(block: ExpectBlock, response: Response, pairs: Pairs) -> list[str]:
    if block.mode == "none":
        head = "mode none: no actions"
    elif not block.actions:
        head = f"mode {block.mode}: no actions listed ({len(response.actions)} emitted)"
    else:
        shown = ", ".join(f"{describe(block.actions[i])} = actions[{j}]" for i, j in pairs)
        head = f"mode {block.mode}: every listed action matched ({shown})"
    lines = [head]
    text = folded(response.reply)
    found = [item for item in block.reply_must_contain if folded(item) in text]
    if found:
        lines.append(f"reply contains {show(found[0])}")
    return lines


def _s(items: list[Any]) -> str:
    return "" if len(items) == 1 else "s"


class ScenarioExpect(Scorer):
    """The scorer the scenario dialect's synthetic `expect` evaluator names."""

    type_id: ClassVar[str] = SCENARIO_EXPECT

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        return None

    def score(self, data: ScoreInput) -> Score:
        try:
            block = parse_expect(data.criterion)
        except ExpectError as exc:
            raise CriterionError(str(exc)) from None
        try:
            response = read_response(data.output)
        except ResponseError as exc:
            return Score.error(str(exc), data.criterion)
        result = evaluate(block, response)
        return boolean(result.ok, "\n".join(result.lines), data.criterion)


__all__ = ["SCENARIO_EXPECT", "Evaluation", "ScenarioExpect", "evaluate", "folded", "judge", "why_missing"]
