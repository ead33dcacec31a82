"""Reading a Botpress project's TypeScript sources (`evals/*.eval.ts`, `agent.config.ts`) as text, with the
same refusals as every eval file: no link out of the project, no FIFO or device, nothing over the size a
TypeScript literal is read up to, UTF-8 only (a leading BOM is skipped)."""

from __future__ import annotations

from pathlib import Path

from ...regular_files import read_regular_file
from ..base import LoadContext
from .ts_literals import MAX_SOURCE_CHARS, read_evals_cached

MAX_SOURCE_BYTES = MAX_SOURCE_CHARS  # a text of at most this many bytes has at most as many characters


def read_source(ctx: LoadContext, path: Path, inside: Path | None = None, hint: str = "") -> str | None:
    """The text of `path`, or None after a problem naming the file (and `hint`, if it can't be read) was
    recorded."""
    refusal = ctx.refusal(path, "file", inside)
    if refusal:
        ctx.problem(path, refusal)
        return None
    try:
        data = read_regular_file(path, MAX_SOURCE_BYTES)
    except OSError as exc:
        ctx.problem(path, f"cannot be read: {exc.strerror or exc}{hint}")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        ctx.problem(path, f"is not UTF-8 text (byte {exc.start}); not read")
        return None
    return text[1:] if text.startswith("\ufeff") else text


def ts_row_line(path: Path, index: int, raw: object) -> int | None:
    """The line of the `new Eval(` literal of an `.eval.ts` file whose value is `raw` (a row's, for CI
    annotations): the `index`-th when it still is, else the first equal one; None when the file no longer
    holds it (edited since it was loaded) or can't be read."""
    try:
        text = read_regular_file(path, MAX_SOURCE_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = read_evals_cached(text[1:] if text.startswith("\ufeff") else text).found
    if 0 <= index < len(found) and found[index].value == raw:
        return found[index].line
    return next((literal.line for literal in found if literal.value == raw), None)
