"""Plays one conversation eval against the target, turn by turn, and records the transcript.

The transcript is the row's output (so history, JSON/JUnit reports and baselines keep it as they keep
any output), and the `conversation` scorer checks the eval's assertions against it:

    {"eval": NAME, "seeded_state": {...}, "setup": TURN?, "turns": [TURN, ...], "stopped": {"turn", "error"}?}

with TURN = {"turn", "user" | "event" | "setup", "reply", "tools", "workflows", "state_before",
"state_after", "response_time_ms", "trace"}. `response_time_ms` is measured here, around the
runner's call. A turn whose target fails (error, timeout, an answer that breaks the protocol) ends the
conversation: `stopped` says where and why, and the later turns don't run.

What the transcript keeps is capped per turn and per transcript (`keep.py`). A turn that has to be cut
has its assertions checked first, on the whole turn, and their verdicts recorded in it (`checked`), as
are the outcome's (`checked_outcome`) once any turn was cut; the scorer takes those instead of judging
the cut record.
"""

from __future__ import annotations

import time
from typing import Any

from ...runners.base import RUNNER_FAULTS, Runner, RunOutcome, RunRequest, outcome_from_exception
from ...runners.read_audit import merged, merged_stats
from ..base import RowRun
from .checks import compile_eval
from .keep import Keeper
from .protocol import ProtocolError, TurnReply, next_state, read_reply, seeded_state
from .scorer import Checked, observed_outcome, observed_turn, tested


def idle_timeout(run: RowRun) -> tuple[float, str]:
    """One turn's time limit in seconds, and where it came from: the row's `idleTimeout` input (the cascade
    of `defaults.idle_timeout`, taken when the row loaded), else the cascade now."""
    from .defaults import idle_timeout as cascade  # here: the package imports this module

    spec = run.row.criteria.get("conversation")
    ms, source = cascade(spec, run.config, {})
    loaded = run.row.inputs.get("idleTimeout")
    if isinstance(loaded, (int, float)) and not isinstance(loaded, bool) and loaded > 0 and loaded != ms:
        ms, source = float(loaded), "agent.config.ts's evals.idleTimeout"
    return ms / 1000, source


class Conversation:
    """One eval's conversation in progress: the state the next turn sees, the history, the transcript."""

    def __init__(self, run: RowRun, target: Runner) -> None:
        self.run = run
        self.target = target
        self.spec: dict[str, Any] = run.row.criteria["conversation"]
        self.name = run.row.name or run.row.id
        self.timeout, self.timeout_source = idle_timeout(run)
        self.state = seeded_state(self.spec.get("setup"))
        self.history: list[dict[str, Any]] = []
        self.transcript: dict[str, Any] = {"eval": self.name, "seeded_state": self.state, "turns": []}
        self.logs: list[str] = []
        self.trace: list[dict[str, Any]] = []
        self.keeper = Keeper()
        self.checks = compile_eval(self.spec)
        self.flows: list[list[dict[str, Any]]] = []  # every turn's workflows in full, for the outcome
        self.reads: tuple[str, ...] = ()  # what the target read over every turn (`RunOutcome.reads`)
        self.read_stats: dict[str, tuple[int, ...]] = {}

    async def play(self) -> RunOutcome:
        started = time.perf_counter()
        setup = self.spec.get("setup")
        workflow = setup.get("workflow") if isinstance(setup, dict) else None
        ok = True
        if isinstance(workflow, dict):
            record = await self.ask(0, {"setup": {"workflow": workflow}}, "setup workflow")
            ok = record is not None
            if record is not None:
                self.transcript["setup"] = record
        for number, turn in enumerate(self.spec.get("conversation") or [], 1):
            if not ok:
                break
            trigger = {"user": turn["user"]} if "user" in turn else {"event": turn["event"]}
            record = await self.ask(number, trigger, "user" if "user" in turn else "event")
            if record is None:
                break
            self.transcript["turns"].append(record)
            self.history.append({"turn": number, **trigger, "reply": record["reply"]})
        if self.transcript.get("cut") and "stopped" not in self.transcript:
            self.transcript["checked_outcome"] = self.checked_outcome()
        duration = (time.perf_counter() - started) * 1000
        return RunOutcome(output=self.transcript, duration_ms=duration, log="\n".join(self.logs), trace=self.trace,
                          reads=self.reads, read_stats=self.read_stats)

    async def ask(self, number: int, trigger: dict[str, Any], what: str) -> dict[str, Any] | None:
        """One request to the target; its turn record, or None after recording why the conversation stops."""
        request = {"eval": self.name, "turn": number, **trigger, "state": self.state, "history": self.history}
        header = f"── turn {number} · {what} ──" if number else f"── {what} ──"
        self.run.on_log(header)
        self.logs.append(header)
        started = time.perf_counter()
        try:
            outcome = await self.target.run(self.request(request), self.run.on_log)
        except RUNNER_FAULTS as exc:
            outcome = outcome_from_exception(exc)
        elapsed = (time.perf_counter() - started) * 1000
        self.reads = merged(self.reads, outcome.reads)
        self.read_stats = merged_stats(self.read_stats, outcome.read_stats)
        if outcome.log:
            self.keeper.log(outcome.log, self.logs)
        self.keeper.trace(outcome.trace, self.trace)
        if not outcome.ok:
            self.stop(number, self.failure_text(outcome.error or "no output"))
            return None
        try:
            answer = read_reply(outcome.output, outcome.trace)
        except ProtocolError as exc:
            self.stop(number, f"the target's answer breaks the turn protocol: {exc}")
            return None
        return self.record(number, trigger, answer, elapsed, outcome.trace)

    def request(self, inputs: dict[str, Any]) -> RunRequest:
        request = self.run.request(inputs)
        request.timeout = self.timeout
        return request

    def record(self, number: int, trigger: dict[str, Any], answer: TurnReply, elapsed: float,
               trace: list[dict[str, Any]]) -> dict[str, Any]:
        before = self.state
        self.state = next_state(before, answer.state)
        full = {"turn": number, **trigger, "reply": answer.reply, "tools": answer.tools,
                "workflows": answer.workflows, "state_before": before, "state_after": self.state,
                "response_time_ms": round(elapsed, 3), "trace": trace}
        self.flows.append(answer.workflows)
        kept = self.keeper.turn(full)
        if "cut" in kept:
            self.transcript["cut"] = True
            if number:
                kept["checked"] = [verdict(c) for c in self.checked_turn(number, full)]
        return kept

    def checked_turn(self, number: int, full: dict[str, Any]) -> list[Checked]:
        """The turn's assertions (but llm_judge, which the scorer asks) checked on the whole turn."""
        checks = self.checks.turns[number - 1] if number <= len(self.checks.turns) else []
        seen = observed_turn(full)
        return [tested(check, number, seen) for check in checks if check.judge is None]

    def checked_outcome(self) -> list[dict[str, Any]]:
        """The outcome's assertions on every workflow in full and the last state."""
        records: list[dict[str, Any]] = [{"workflows": flows} for flows in self.flows]
        if records:
            records[-1]["state_after"] = self.state
        seen = observed_outcome({"seeded_state": self.transcript["seeded_state"], "turns": records})
        return [verdict(tested(check, None, seen)) for check in self.checks.outcome]

    def failure_text(self, error: str) -> str:
        if "timed out" in error:
            return f"{error} ({self.timeout_source} is {self.timeout * 1000:g} ms)"
        return error

    def stop(self, number: int, error: str) -> None:
        self.transcript["stopped"] = {"turn": number, "error": error}
        self.logs.append(f"[workbench] the conversation stopped at {'turn ' + str(number) if number else 'setup'}")


def verdict(checked: Checked) -> dict[str, Any]:
    return {"assertion": checked.check.spec, "verdict": checked.verdict.value, "message": checked.message}


async def play(run: RowRun) -> RunOutcome:
    """The row's conversation, all its turns on one target process when the runner keeps processes."""
    async with run.runner().hold() as target:
        return await Conversation(run, target).play()
