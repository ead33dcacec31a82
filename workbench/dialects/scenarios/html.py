"""A scenario's detail in the HTML report (`HasHtmlDetail.html_detail`): the request (screen, what the user said),
the listed actions aligned with the actual ones (`align.py`, as the TUI draws them), the reply against its
rules, then the expect block beside the response."""

from __future__ import annotations

from typing import Any

from ..detail import Block, RowDetail, sides, step, steps_block, text_block
from .align import ALLOWED, EXTRA, FORBIDDEN, MATCHED, MISSING, Alignment, align
from .expect import folded

_MARKS = {MATCHED: ("✓", "pass"), MISSING: ("✗", "fail"), EXTRA: ("+", "fail"), ALLOWED: ("+", "dim"),
          FORBIDDEN: ("⛔", "fail")}


def _request(inputs: dict[str, Any]) -> str:
    given = inputs.get("given") if isinstance(inputs.get("given"), dict) else {}
    screen = given.get("screen") if isinstance(given, dict) else None
    when = inputs.get("when")
    text = f"Given {screen if isinstance(screen, str) else '(no screen)'}\n"
    text += f"When  {when if isinstance(when, str) else '(nothing)'}"
    return text + (f"\nmodel {inputs['model']}" if isinstance(inputs.get("model"), str) else "")


def _actions(alignment: Alignment) -> Block:
    title = f"Actions — mode {alignment.mode}"
    if alignment.alternatives:
        which = "matched" if alignment.ok else "the closest"
        title += f" (anyOf[{alignment.alternative}] of {alignment.alternatives}, {which})"
    items = []
    for row in alignment.rows:
        mark, tone = _MARKS.get(row.state, ("?", ""))
        actual = f"[{row.actual_index}] {row.actual}" if row.actual is not None else "—"
        items.append(step(mark, tone, [row.expected if row.expected is not None else "—", actual,
                                       "" if row.state == MATCHED else row.state], row.note))
    return steps_block(title, ["expected", "actual", ""], items)


def _reply(alignment: Alignment) -> Block:
    lines = [f"\"{alignment.reply}\"" if alignment.reply else "(no reply)"]
    reply = folded(alignment.reply)
    if alignment.must_contain:
        found = any(folded(item) in reply for item in alignment.must_contain)
        lines.append(f"must contain one of: {', '.join(repr(i) for i in alignment.must_contain)}  "
                     + ("✔" if found else "✘ none found"))
    for item in alignment.must_not_contain:
        lines.append(f"must not contain: {item!r}  " + ("✘ found" if folded(item) in reply else "✔"))
    return text_block("Reply", "\n".join(lines))


def detail_blocks(detail: RowDetail) -> list[Block]:
    result = detail.result
    inputs = result.inputs or (detail.row.inputs if detail.row is not None else {})
    expect = result.expected
    blocks = [text_block("Request", _request(inputs))]
    if result.actual is not None:
        alignment = align(expect, result.actual)
        if alignment.problem:
            blocks.append(text_block("Actions", alignment.problem, "error"))
        else:
            blocks += [_actions(alignment), _reply(alignment)]
    blocks.append(sides("Expect", expect, "Response", result.actual))
    return blocks
