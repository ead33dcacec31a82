"""`run --annotations github`: a GitHub Actions workflow command per failing or erroring row, pointing at the
line the row starts on in its eval file (`::error file=evals/x.json,line=12,title=FAIL grading › row::…`),
and one per file problem; GitHub shows them on the pull request's diff and in the run's summary.

Escaping follows the runner's rules (actions/toolkit `command.ts`): in the message `%`, `\\r`, `\\n` become
`%25`, `%0D`, `%0A`; in a property also `:` and `,` (`%3A`, `%2C`) — so a row name or an output can never end
the command early or start another. The file is named relative to `$GITHUB_WORKSPACE` (the repository's
root, where GitHub looks for it) when it is inside it, else to the current folder. A title or message is
redacted (`redact.py`) before it is clipped or escaped: a job's log is often public.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..dialects import dialect_for
from ..dialects.base import row_line_of
from ..model import Problem, Project, Result, Severity
from ..textsafe import one_line
from .failing_rows import FailingRow, failing_rows
from .redact import Redactor
from .row_lines import RowLines

MAX_ANNOTATIONS = 50  # GitHub shows 10 errors per step and 50 per job; more is noise
_MESSAGE_CHARS = 1500
_LINE_IN_MESSAGE = re.compile(r"(?:^|\bat )line (\d+)\b")


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as the runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value (`file=`, `title=`): the message's escapes plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **properties: str | int | None) -> str:
    """One workflow command line: `::kind key=value,...::message` (properties that are None left out)."""
    given = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{kind}{' ' + given if given else ''}::{escape_data(message)}"


def github_annotations(results: Sequence[Result], project: Project | None, problems: Iterable[Problem] = (),
                       *, root: Path | None = None, base: Path | None = None,
                       redactor: Redactor | None = None) -> list[str]:
    """The workflow commands for a run: its failing rows (ERROR first), then its file problems; at most
    MAX_ANNOTATIONS, then a notice counting the rest. `base`: what file names are relative to (default
    `$GITHUB_WORKSPACE`, else the current folder). `redactor`: the project's secrets (`redact.redactor_for`),
    to which those the results' outputs hold under secret-named keys are added."""
    known = (redactor or Redactor()).knowing(results)
    base = base or Path(os.environ.get("GITHUB_WORKSPACE") or os.getcwd())
    root = root or (project.root if project is not None else Path.cwd())
    lines_of = RowLines()
    commands: list[str] = []
    rows = failing_rows(results, project)
    for row in rows:
        commands.append(_row_command(row, lines_of, base, known))
    for problem in problems:
        commands.append(_problem_command(problem, root, base, known))
    if len(commands) <= MAX_ANNOTATIONS:
        return commands
    rest = len(commands) - MAX_ANNOTATIONS + 1
    return [*commands[:MAX_ANNOTATIONS - 1],
            command("notice", f"{rest} more failing rows or file problems not annotated (see the job's log)",
                    title="workbench")]


def _row_command(row: FailingRow, lines_of: RowLines, base: Path, redactor: Redactor) -> str:
    title = redactor.text(f"{row.verdict.value} {row.set_name} › {one_line(redactor.text(row.name), 120)}")
    message = redactor.text("\n".join(f"[{ref}] {text.strip()}" for ref, text in row.failures))
    if len(message) > _MESSAGE_CHARS:
        message = message[:_MESSAGE_CHARS - 1] + "…"
    if row.eval_set is None or row.row is None:  # the row is gone from the project since it ran
        return command("error", message, title=title)
    line = row_line(row, lines_of)
    return command("error", message, file=_shown(row.eval_set.source_of(row.row), base), line=line, title=title)


def row_line(row: FailingRow, lines_of: RowLines) -> int | None:
    """The row's line: its format's answer (`LocatesRows.row_line`), else found in the JSON file."""
    assert row.eval_set is not None and row.row is not None
    try:
        dialect = dialect_for(row.eval_set.dialect)
    except LookupError:
        dialect = None
    line = row_line_of(dialect, row.eval_set, row.row) if dialect is not None else None
    return line if line is not None else lines_of.line(row.eval_set, row.row)


def _problem_command(problem: Problem, root: Path, base: Path, redactor: Redactor) -> str:
    kind = "error" if problem.severity is Severity.ERROR else "warning"
    found = _LINE_IN_MESSAGE.search(problem.message)
    path = Path(problem.file)
    return command(kind, redactor.text(problem.message), file=_shown(path if path.is_absolute() else root / path, base),
                   line=int(found.group(1)) if found else None, title="workbench: file problem")


def _shown(path: Path, base: Path) -> str:
    """`path` as GitHub finds it: relative to `base` when inside it."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path(os.path.abspath(base))).as_posix()
    except ValueError:
        return absolute.as_posix()
