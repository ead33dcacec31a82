"""Opening a row in the user's editor: which line it starts on, and the argv that jumps there."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from .. import jsonio

# Editors that take `file:line` with a flag instead of `+line file`.
_GOTO_FLAG = {"code": "-g", "code-insiders": "-g", "codium": "-g", "cursor": "-g"}
_COLON_STYLE = {"subl", "zed", "hx", "helix"}
EDITOR_TIMEOUT_S = 12 * 3600


def row_line(path: Path, row_id: str, row_index: int) -> int:
    """The 1-based line of the row's `"id": "<id>"`, else of its position among the rows; 1 if unknown."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 1
    needle = jsonio.dumps(row_id)
    for marker in (f'"id": {needle}', f'"id":{needle}'):
        at = text.find(marker)
        if at >= 0:
            return text.count("\n", 0, at) + 1
    seen = -1
    at = text.find('"evaluations"')
    while at >= 0:
        at = text.find('"inputs"', at + 1)
        seen += 1
        if seen == row_index and at >= 0:
            return text.count("\n", 0, at) + 1
    return 1


def editor_argv(path: Path, line: int, editor: str | None = None) -> list[str]:
    """$VISUAL / $EDITOR (split like a shell would, never run by one) with the right jump-to-line form."""
    command = editor or os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    argv = shlex.split(command) or ["vi"]
    name = Path(argv[0]).name
    if name in _GOTO_FLAG:
        return [*argv, _GOTO_FLAG[name], f"{path}:{line}", *([] if "--wait" in argv else ["--wait"])]
    if name in _COLON_STYLE:
        return [*argv, f"{path}:{line}"]
    return [*argv, f"+{line}", str(path)]
