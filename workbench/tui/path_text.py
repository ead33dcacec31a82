"""Paths as the TUI shows them: never cut or wrapped in the middle of a name (issue 38 point 9).

A path that must fit one line (a tree node, a border, a notice's first line) is cut at its START, at a `/`,
so the file name stays: `…/eval-sets/grading.json` (`path_tail`). A path that may take several lines (a
notice, the detail pane) is broken after its `/`s (`path_lines`), and `fold_paths` does that to every word of
a text that is a path too long for its line, before Rich's wrapping would cut it anywhere."""

from __future__ import annotations

import re

from rich.cells import cell_len

from ..textsafe import printable

ELLIPSIS = "…"
_WORD = re.compile(r"\S+")


def path_tail(path: str, limit: int) -> str:
    """`path` in at most `limit` cells: whole when it fits, else its end from a `/` on (`…/sets/a.json`), the
    file name kept; a file name that alone is too long keeps its end (`…long-name.json`)."""
    if cell_len(path) <= limit:
        return path
    if limit <= 1:
        return ELLIPSIS[:limit]
    for at, char in enumerate(path):
        if char == "/" and path[at + 1:].strip("/") and cell_len(path[at:]) + 1 <= limit:
            return ELLIPSIS + path[at:]
    return ELLIPSIS + _last_cells(path, limit - 1)


def shown_path(path: str, limit: int) -> str:
    """A path from the project or the user, made printable on one line, cut at its start (`path_tail`)."""
    return path_tail(printable(path, keep_newlines=False), limit)


def path_lines(path: str, width: int) -> list[str]:
    """`path` as lines of at most `width` cells, broken after a `/` (each line but the last ends with `/`);
    a name longer than a line alone is cut at its start (`path_tail`)."""
    if width < 1 or cell_len(path) <= width:
        return [path]
    parts = re.findall(r"[^/]*/|[^/]+$", path)
    lines: list[str] = []
    line = ""
    for part in parts:
        if line and cell_len(line + part) > width:
            lines.append(line)
            line = ""
        line += part
        if cell_len(line) > width:
            lines.append(path_tail(line, width))
            line = ""
    if line:
        lines.append(line)
    return lines


def fold_paths(text: str, width: int) -> str:
    """`text` with every word that is a path (it has a `/`) and is wider than `width` broken onto lines after
    its `/`s (`path_lines`): Rich wraps the rest at spaces, so no name is cut."""
    if width < 1:
        return text

    def fold(match: re.Match[str]) -> str:
        word = match.group(0)
        return "\n".join(path_lines(word, width)) if "/" in word and cell_len(word) > width else word

    return "\n".join(_WORD.sub(fold, line) for line in text.split("\n"))


def _last_cells(text: str, cells: int) -> str:
    """The end of `text` that fits in `cells` cells."""
    kept = ""
    for char in reversed(text):
        if cell_len(char + kept) > cells:
            break
        kept = char + kept
    return kept
