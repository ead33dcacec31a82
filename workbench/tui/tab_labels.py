"""The detail pane's evaluator tabs fitted to its width, so every tab's ✔/✘ stays on screen (80 columns).

Names give way, never marks: first every name is cut (with `…`) to a common length; when that would leave
names too short to read, the tabs of passing evaluators (not the shown one) keep their mark alone and the
failing ones share the room; then only the shown tab keeps a name; at the last, every tab is its mark."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text

from ..model import Verdict
from ..textsafe import one_line
from .labels import verdict_text

TAB_PADDING = 2  # a Tab's `padding: 0 1`
LONGEST = 30  # a name never takes more than this, however wide the pane
SHORTEST = 6  # a name cut shorter than this (`band-…`) says too little: marks alone say more


def cut(name: str, cells: int) -> str:
    """`name` in at most `cells` cells, `…` marking a cut (nothing at 0)."""
    if cell_len(name) <= cells:
        return name
    if cells <= 0:
        return ""
    kept = ""
    for char in name:
        if cell_len(kept + char) > cells - 1:
            break
        kept += char
    return kept + "…"


def _cap(lengths: Sequence[int], room: int) -> int | None:
    """The largest length every name can be cut to so that they fit in `room` cells (None: not even 0)."""
    if sum(lengths) <= room:
        return max(lengths, default=0)
    best = None
    for cap in range(max(lengths, default=0) + 1):
        if sum(min(length, cap) for length in lengths) <= room:
            best = cap
        else:
            break
    return best


def fit_labels(refs: Sequence[str], marks: Sequence[Verdict | None], width: int, shown: int) -> list[Text]:
    """One label per evaluator (`name ✘`, `na… ✘` or `✘`), together no wider than `width` cells."""
    names = [one_line(ref, LONGEST) for ref in refs]
    lengths = [cell_len(name) for name in names]
    fixed = TAB_PADDING + 2  # padding, the space and the mark
    room = width - fixed * len(names)
    cap = _cap(lengths, room)
    if cap is not None and (cap >= SHORTEST or cap >= max(lengths, default=0)):
        kept = [cut(name, cap) for name in names]
    else:
        # passing tabs (but the shown one) become their mark alone and the others share what is left;
        # when that is too little, only the shown tab keeps a name
        kept = [""] * len(names)
        failing = [index == shown or mark is not Verdict.PASS for index, mark in enumerate(marks)]
        for keep in (failing, [index == shown for index in range(len(names))]):
            room = width - sum(fixed if k else TAB_PADDING + 1 for k in keep)
            cap = _cap([length for length, k in zip(lengths, keep, strict=True) if k], room)
            if cap is not None and cap >= SHORTEST:
                kept = [cut(name, cap) if k else "" for name, k in zip(names, keep, strict=True)]
                break
    labels = []
    for name, mark in zip(kept, marks, strict=True):
        label = Text(f"{name} " if name else "")
        label.append_text(verdict_text(mark))
        labels.append(label)
    return labels
