"""A scripted replay's detail in the HTML report (`HasHtmlDetail.html_detail`): how the run ended, every step of
the script with the state it reached (`outline.py`, as the TUI draws it), then what the case expects beside
what the run produced."""

from __future__ import annotations

from ... import jsonio
from ..detail import Block, RowDetail, sides, step, steps_block, text_block
from .outline import DENIED, DONE, FAILED, NOT_REACHED, NOT_RUN, WAITING, Outline, outline

_MARKS = {DONE: ("✓", "pass"), WAITING: ("⏸", "wait"), DENIED: ("✗", "fail"), FAILED: ("✗", "fail"),
          NOT_REACHED: ("·", "dim"), NOT_RUN: ("·", "dim")}
_TONES = {"completed": "", "waiting": "dim", "failed": "fail"}


def _run(plan: Outline) -> Block:
    if plan.status is None:
        return text_block("Run", "not run yet", "dim")
    text = plan.status + (f" — stopped at script[{plan.stopped_at}]" if plan.stopped_at is not None else "")
    if plan.detail:
        text += f"\n{plan.detail}"
    shown = "(no output)" if plan.output is None else (
        plan.output if isinstance(plan.output, str) else jsonio.dumps(plan.output))
    return text_block("Run", f"{text}\noutput: {shown}", _TONES.get(plan.status, ""))


def _steps(plan: Outline) -> Block:
    items = []
    for line in plan.steps:
        mark, tone = _MARKS.get(line.state, ("?", ""))
        items.append(step(mark, tone, [f"[{line.index}] {line.kind}", line.summary,
                                       "" if line.state in (DONE, NOT_RUN) else line.state], line.note))
    return steps_block(f"Steps ({len(plan.steps)})", ["step", "what it does", ""], items)


def detail_blocks(detail: RowDetail) -> list[Block]:
    result = detail.result
    inputs = result.inputs or (detail.row.inputs if detail.row is not None else {})
    plan = outline(inputs.get("script"), result.trace if result.actual is not None else None, result.actual)
    return [_run(plan), _steps(plan), sides("Expect", result.expected, "Run", result.actual)]
