"""`workbench-conversation`: the evaluator named `conversation` that scores a conversation eval (seed 002).

The row's criterion is the eval object itself; the output is the transcript the conversation dialect
recorded turn by turn (`dialects/conversations/player.py`). Every assertion of every turn is checked
against that turn alone (its reply, its tool calls, its state before and after, its workflows, its
response time); `outcome` against the whole conversation, with the seeded state as "before". The row
passes when every assertion holds. The detail names each one that doesn't with its turn
(`turn 2 · tools: createTicket was not called (tools called: lookupUser)`); the result's `expected`
lists every assertion with its verdict, which the TUI shows beside its turn. The score is the fraction
of assertions that hold.

`llm_judge` asks the configured `[judge]` for a 1–5 score; it passes at `options.judgePassThreshold`,
else `[evals] judge_pass_threshold`, else 3. A judge that can't be asked makes the result an ERROR.
A target that failed mid-conversation makes it an ERROR naming the turn; the turns before it are
still checked and reported. So does an assertion that can't be decided (a `matches` pattern that had
to be stopped): that assertion is an ERROR naming it, the others are still checked.

A turn the player had to cut to keep the transcript bounded (`"cut"`, see
`dialects/conversations/keep.py`) carries the verdicts its assertions got on the whole turn
(`"checked"`), and the transcript those of the outcome (`"checked_outcome"`); those are taken as they
are. An assertion not among them (the eval changed since) is an ERROR, never a guess from the cut
record, and so is an `llm_judge` on a reply that was cut.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, ClassVar

from ... import jsonio
from ...model import EvaluatorDef, Verdict
from ...output_paths import MISSING
from ...scoring.base import CriterionError, Score, ScoreInput, Scorer
from ...trace import ToolCall, ToolCalls
from .checks import SILENCE, Check, Observed, compile_eval

CONVERSATION_TYPE = "workbench-conversation"


@dataclass(slots=True)
class Checked:
    """One assertion's verdict at one turn (None: the outcome)."""

    turn: int | None
    check: Check
    verdict: Verdict
    message: str = ""

    @property
    def where(self) -> str:
        return f"turn {self.turn}" if self.turn is not None else "outcome"

    def line(self) -> str:
        return f"{self.where} · {self.check.category}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "kind": self.check.category, "assertion": self.check.spec,
                "verdict": self.verdict.value, "message": self.message}


def _calls(tools: Any) -> ToolCalls:
    calls = [ToolCall(t["name"], t.get("params") or {}, t.get("output", MISSING), i)
             for i, t in enumerate(tools or []) if isinstance(t, dict) and isinstance(t.get("name"), str)]
    return ToolCalls(calls)


def observed_turn(record: dict[str, Any]) -> Observed:
    return Observed(reply=record.get("reply"), calls=_calls(record.get("tools")),
                    workflows=list(record.get("workflows") or []), before=record.get("state_before") or {},
                    after=record.get("state_after") or {}, response_time_ms=float(record.get("response_time_ms") or 0))


def observed_outcome(transcript: dict[str, Any]) -> Observed:
    """The whole conversation: every tool call and workflow, the seeded state before, the last state after."""
    records = [transcript["setup"]] if isinstance(transcript.get("setup"), dict) else []
    records += transcript["turns"]
    seeded = transcript.get("seeded_state") or {}
    return Observed(reply=None, calls=_calls([t for r in records for t in r.get("tools") or []]),
                    workflows=[w for r in records for w in r.get("workflows") or []], before=seeded,
                    after=records[-1].get("state_after", seeded) if records else seeded)


def judge_threshold(criterion: dict[str, Any], data: ScoreInput) -> float:
    """The eval's options.judgePassThreshold, else [evals] judge_pass_threshold, else agent.config.ts's, else 3."""
    from .defaults import AGENT_KEY  # here: the package imports this module
    from .defaults import judge_threshold as cascade

    agent = data.evaluator.config.get(AGENT_KEY) if isinstance(data.evaluator.config, dict) else None
    return cascade(criterion, data.config, agent if isinstance(agent, dict) else {})


class ConversationScorer(Scorer):
    type_id: ClassVar[str] = CONVERSATION_TYPE
    compares: ClassVar[str] = "each turn of the conversation against that turn's assertions"

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        return None

    async def score(self, data: ScoreInput) -> Score:
        compiled = compile_eval(data.criterion)
        if compiled.problems:
            raise CriterionError("\n".join(compiled.problems))
        transcript = data.output
        if not isinstance(transcript, dict) or not isinstance(transcript.get("turns"), list):
            raise CriterionError("the output is not a conversation transcript (no \"turns\")")
        turns: list[dict[str, Any]] = transcript["turns"]
        stopped = transcript.get("stopped") if isinstance(transcript.get("stopped"), dict) else None
        results: list[Checked] = []
        for number, checks in enumerate(compiled.turns, 1):
            if number > len(turns):
                break
            record = turns[number - 1]
            seen = observed_turn(record)
            recorded = _recorded(record.get("checked")) if isinstance(record.get("cut"), dict) else None
            for check in checks:
                if check.judge is not None:
                    results.append(await self.judged(check, number, turns, data))
                elif recorded is not None:
                    results.append(from_record(check, number, recorded))
                else:
                    results.append(tested(check, number, seen))
            await asyncio.sleep(0)  # a stop signal is acted on between turns, not after the whole transcript
        if stopped is None and len(turns) < len(compiled.turns):
            stopped = {"turn": len(turns) + 1, "error": f"the transcript has {len(turns)} turns; the eval has "
                                                         f"{len(compiled.turns)}"}
        if stopped is None and "checked_outcome" in transcript:
            recorded = _recorded(transcript["checked_outcome"])
            results += [from_record(check, None, recorded) for check in compiled.outcome]
        elif stopped is None:
            seen = observed_outcome(transcript)
            results += [tested(check, None, seen) for check in compiled.outcome]
        return summarize(results, stopped, len(compiled.turns), compiled.count)

    async def judged(self, check: Check, turn: int, turns: list[dict[str, Any]], data: ScoreInput) -> Checked:
        assert check.judge is not None
        cut = turns[turn - 1].get("cut")
        if isinstance(cut, dict) and "reply_chars" in cut:
            return Checked(turn, check, Verdict.ERROR, f"the reply has {cut['reply_chars']:,} characters, more than a "
                                                       "transcript keeps, so it is not sent to the judge")
        from .judge import judge_reply  # the judge's client is imported only when an assertion asks it

        verdict, message = await judge_reply(check.judge, turns[:turn], judge_threshold(data.criterion, data),
                                             data.config)
        return Checked(turn, check, verdict, message)


def tested(check: Check, turn: int | None, seen: Observed) -> Checked:
    assert check.test is not None
    try:
        why = check.test(seen)
    except CriterionError as exc:  # e.g. a pattern stopped on this reply: undecided, never a PASS or FAIL
        return Checked(turn, check, Verdict.ERROR, str(exc))
    return Checked(turn, check, Verdict.PASS if why is None else Verdict.FAIL, why or "")


def _key(spec: Any) -> str:
    return jsonio.dumps(spec, sort_keys=True)


def _recorded(entries: Any) -> dict[str, tuple[str, str]]:
    """{assertion: (verdict, message)} from a turn's `checked` list."""
    found: dict[str, tuple[str, str]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("verdict") in {v.value for v in Verdict}:
            found[_key(entry.get("assertion"))] = (entry["verdict"], str(entry.get("message") or ""))
    return found


def from_record(check: Check, turn: int | None, recorded: dict[str, tuple[str, str]]) -> Checked:
    """The verdict the assertion got on the whole turn, before the turn was cut."""
    found = recorded.get(_key(check.spec))
    if found is None:
        what = f"turn {turn}" if turn is not None else "the conversation"
        return Checked(turn, check, Verdict.ERROR, f"{what} was cut to keep the transcript bounded and this assertion "
                                                   "was not checked when it ran, so it can't be checked from the "
                                                   "record; run the row again")
    return Checked(turn, check, Verdict(found[0]), found[1])


def summarize(results: list[Checked], stopped: dict[str, Any] | None, turn_count: int, total: int) -> Score:
    """The row's verdict and detail: every assertion that didn't hold, with its turn."""
    bad = [r for r in results if r.verdict is not Verdict.PASS]
    expected = {"assertions": [r.to_json() for r in results]}
    held = len(results) - len(bad)
    score = held / total if total else (0.0 if stopped else 1.0)
    lines: list[str] = []
    if stopped is not None:
        number = stopped.get("turn")
        where = f"turn {number}" if number else "setup workflow"
        lines.append(f"{where}: {stopped.get('error')}")
        rest = ""
        if isinstance(number, int) and number < turn_count:
            rest = f"turn {turn_count} and " if number + 1 == turn_count else f"turns {number + 1}–{turn_count} and "
        lines.append(f"{rest}the outcome did not run; {held} of {len(results)} assertions checked before it hold")
    elif bad:
        lines.append(f"{len(bad)} of {len(results)} assertions failed")
    lines += [r.line() for r in bad]
    detail = "\n".join(lines) or (f"all {total} assertions hold over {turn_count} turns" if total
                                  else f"no assertions; {turn_count} turns ran")
    if stopped is not None or any(r.verdict is Verdict.ERROR for r in bad):
        return Score(Verdict.ERROR, score, detail, expected)
    return Score(Verdict.FAIL if bad else Verdict.PASS, score, detail, expected)


__all__ = ["CONVERSATION_TYPE", "SILENCE", "ConversationScorer", "observed_outcome", "observed_turn"]
