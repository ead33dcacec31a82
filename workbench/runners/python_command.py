"""Which commands are a Python interpreter running a script or module, and how to start one so that its
reads are recorded: `python [OPTIONS] audited_main.py [-t] READS_FILE script.py ARGS...` (`audited_main.py`
hands over to `script_main.py`, which installs the read audit, `read_audit.py`, before the target's first
line runs; on a Python older than 3.7 it marks the reads unseen and runs the script).

Why here: every fresh Python process workbench starts for a row (a `kind = "command"` row with preload off
or after the warm parent's fallbacks, a Python `kind = "worker"`) must record its reads, or a recorded run
whose target read a changed file outside the project would be re-scored. One parser, used by all of them.

Interpreter options that only set the interpreter's own state are kept in front of `audited_main.py`, where
they mean what they meant in front of the script: `-b -bb -B -d -E -I -O -OO -P -q -R -s -S -u -v`, `-W arg`,
`-X opt` (combined as Python allows: `-uB`, `-Wignore`, `-Xdev`) and `--`; `-m` joined to other letters is
spelled apart (`-um pkg` as `-u -m pkg`, `-mpkg` as `-m pkg`: `sys.orig_argv` shows it so). Options that
change what runs (`-c`, `-i`, `-x`, a script read from stdin, long options) can't be watched through: such
a command runs as written and its rows' reads end with the unseen marker, so they are never re-scored.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

AUDITED_MAIN = Path(__file__).with_name("audited_main.py")
TRUST_FLAG = "-t"  # the bootstrap's own flag: programs the target starts are trusted ([cache] trust_subprocesses)
_PYTHON_NAME = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?$")
_FLAGS = frozenset("bBdEIOPqRsSu")  # interpreter options without an argument that the bootstrap runs under as is
_WITH_ARGUMENT = frozenset("WX")  # interpreter options whose argument follows (attached or as the next word)
UNWATCHABLE = "python was started with options workbench can't watch through"


def is_python(interpreter: str) -> bool:
    """Whether `interpreter` (a command's first word) is a Python interpreter, by its name."""
    return bool(_PYTHON_NAME.search(Path(interpreter).name)) or interpreter == sys.executable


@dataclass(frozen=True, slots=True)
class PythonCommand:
    """A Python command split where `audited_main.py` goes: interpreter, its options, then the target."""

    interpreter: str
    options: tuple[str, ...]  # kept in front of audited_main.py
    target: tuple[str, ...]  # `script.py ARGS...` or `-m module ARGS...`

    def audited(self, reads: str, *, trust_subprocesses: bool = False) -> list[str]:
        """The command that runs this one and records its reads into the file `reads`."""
        trust = (TRUST_FLAG,) if trust_subprocesses else ()
        return [self.interpreter, *self.options, str(AUDITED_MAIN), *trust, reads, *self.target]


def parse_python_command(argv: list[str]) -> PythonCommand | str | None:
    """`argv` split, a reason it is Python but can't be watched (for the unseen marker), or None when it
    is not a Python interpreter (`node`, `sh`, `uv run`, `poetry run`: their reads are not seen)."""
    if not argv or not is_python(argv[0]):
        return None
    at = 1
    while at < len(argv):
        word = argv[at]
        if word == "--":
            at += 1
            if at < len(argv) and not argv[at].startswith("-"):
                return PythonCommand(argv[0], tuple(argv[1:at]), tuple(argv[at:]))
            return f"{UNWATCHABLE} ({' '.join(argv[1:at + 1])})"
        if not word.startswith("-") or word == "-":
            break
        if word.startswith("--"):
            return f"{UNWATCHABLE} ({word})"
        letters = word[1:]
        for position, letter in enumerate(letters):
            if letter == "m":
                module = letters[position + 1:] or (argv[at + 1] if at + 1 < len(argv) else "")
                if not module:
                    return "python was started with `-m` but no module name"
                if position + 1 < len(letters) or position:  # `-mname` or `-um`: spelled out for the bootstrap
                    options = (*argv[1:at], *(("-" + letters[:position],) if position else ()))
                    rest = argv[at + 1:] if position + 1 < len(letters) else argv[at + 2:]
                    return PythonCommand(argv[0], options, ("-m", module, *rest))
                return PythonCommand(argv[0], tuple(argv[1:at]), tuple(argv[at:]))
            if letter in _WITH_ARGUMENT:
                if position + 1 == len(letters):
                    at += 1  # the argument is the next word
                    if at >= len(argv):
                        return f"{UNWATCHABLE} ({word} without its argument)"
                break
            if letter not in _FLAGS:
                return f"{UNWATCHABLE} (-{letter})"
        at += 1
    if at >= len(argv):
        return "python was started without a script (it reads its program from stdin)"
    if argv[at] == "-":
        return "python was started with `-` (it reads its program from stdin)"
    return PythonCommand(argv[0], tuple(argv[1:at]), tuple(argv[at:]))

