"""Scripted replays (seed 001, Plico evals): `evals/<name>.script.json` cases replayed against the
project's tools (`tools.json`) and approval rules, with no target, no model and no network.

Every case of the project is a row of one set, `scripts` (its path is the evals/ folder; each row's
`source` is its own file), scored by one evaluator, `expect` (status equals, outputContains). `scripts`
is the set's one name: its scope, its name in keys, history, the reports and the JSON, and `--set`'s. The
steps are the row's `inputs` (`{"script": [...]}`), so history keeps what ran. Rows run through
`execute`, which replays them (`executor.py`) and never asks for the runner.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...model import EvalSet, EvaluatorDef, EvaluatorKey, Project, Result, Row
from ...runners.base import RunOutcome
from ..base import EVALS_DIR, UNREADABLE, Dialect, LoadContext, NewCase, RowRun, Scaffolded, Words, run_error
from .script import SUFFIX, Case, StepError, case_name, parse_case

if TYPE_CHECKING:
    from ...config import Config
    from ...scoring.base import Scorer
    from .tools import Toolbox

# The replayer (executor.py, its live handlers and their processes), the expect scorer and the tools file's
# reader are imported by the methods that use them: a project without replays never loads them.

SCOPE = "scripts"
SET_NAME = "scripts"
EXPECT = "expect"
SCRATCH_DIR = "replays"
MAX_FOLDER_NAME = 100  # UTF-8 bytes of a case's own name kept in its folder's name (a file name's limit is 255)
_PLAIN_NAME = re.compile(r"\w[\w .+=@,#-]*")
_NOT_PLAIN = re.compile(r"[^\w .+=@,#-]+")


@dataclass(frozen=True, slots=True)
class ReplayRow:
    """What a replay row runs: its parsed case and the project's tools (kept on `Row.raw`)."""

    case: Case
    toolbox: Toolbox


def script_files(root: Path) -> list[Path]:
    evals = root / EVALS_DIR
    try:
        return sorted(p for p in evals.iterdir() if p.name.endswith(SUFFIX) and not p.name.startswith("."))
    except OSError:
        return []


def scratch_name(row_id: str) -> str:
    """The name of a row's folder in `.workbench/replays/`: the row id when it is a plain name (letters,
    digits, `_ .+=@,#-`, starting with a letter, digit or `_`, at most MAX_FOLDER_NAME bytes);
    otherwise its plain characters and a hash of the id, so `..`, `a/b`, `/abs`, a NUL or a very long
    id still name one folder of its own, right there."""
    encoded = row_id.encode("utf-8", "surrogatepass")
    if _PLAIN_NAME.fullmatch(row_id) and len(encoded) <= MAX_FOLDER_NAME:
        return row_id
    digest = hashlib.sha256(encoded).hexdigest()[:12]
    cut = _NOT_PLAIN.sub("_", row_id).lstrip("._ -").encode("utf-8", "surrogatepass")[:MAX_FOLDER_NAME]
    plain = cut.decode("utf-8", "ignore").rstrip()
    return f"{plain}-{digest}" if plain else f"case-{digest}"


def scratch_dir(config: Config, row_id: str) -> Path:
    """The row's own folder for artifacts and live handlers: one folder in `.workbench/replays/`, never
    in the project, whatever the row id holds."""
    return config.state_dir / SCRATCH_DIR / scratch_name(row_id)


class ReplaysDialect(Dialect):
    """Core (rows replayed, not run on the target); makes cases from runs, scaffolds, has a TUI view and an
    HTML detail, runs without the target, and says what a run depends on and when it failed."""

    name = "replays"
    title = "scripted replays"
    words = Words(
        expects=f"{EVALS_DIR}/*{SUFFIX}",
        init_help=f"tools.json and {EVALS_DIR}/smoke{SUFFIX} (scripted replays, no target)",
        accept_refusal=("is a scripted replay: its expect (status, outputContains) is written by hand and there is "
                        "no expectedOutput to accept; `workbench add-row --from-run N --row ROW --script` copies a "
                        "run into a new case"),
    )
    markers = ("tools.json",)
    init_name = "plico"
    view = "workbench.tui.detail_views.replay:ReplayView"
    html_detail = "workbench.dialects.replays.html:detail_blocks"

    def scaffold(self, root: Path) -> Scaffolded:
        from . import scaffold

        created, kept, skipped = scaffold.init_replays(root)
        return Scaffolded(created, kept, skipped, scaffold.NEXT_STEPS)

    def needs_runner(self, root: Path, config: Config | None) -> bool:
        """Never: a case replays its steps against the tools, with no target."""
        return False

    def scorers(self) -> tuple[Scorer, ...]:
        from .expect import ReplayExpect

        return (ReplayExpect(),)

    def case_from_run(self, project: Project, config: Config, result: Result, name: str, where: str) -> NewCase:
        """`evals/<name>.script.json`: the run's tool calls, approvals and outputs as steps (`from_run.py`)."""
        from .from_run import new_case

        return new_case(project, config, result, name, where, self.name)

    def present(self, root: Path, config: Config | None) -> bool:
        if script_files(root):
            return True
        from .settings import tools_path

        return tools_path(root, config).is_file()

    def load(self, ctx: LoadContext) -> None:
        from .expect import EXPECT_TYPE
        from .tools import load_toolbox

        toolbox = load_toolbox(ctx)
        rows: list[Row] = []
        names: dict[str, str] = {}
        for index, path in enumerate(ctx.json_files(ctx.evals, suffix=SUFFIX)):
            row = self._row(ctx, path, index, toolbox)
            if row.name in names:
                ctx.problem(path, f"has the same name {row.name!r} as {names[row.name]}; select it by its file name "
                                  f"({row.id})", "warning")
            names.setdefault(row.name, path.name)
            rows.append(row)
        if not rows:
            return
        ctx.project.sets.append(EvalSet(scope=SCOPE, path=ctx.evals, id=None, name=None, evaluator_refs=[EXPECT],
                                        rows=rows, dialect=self.name, short_name=SET_NAME, own_name=SET_NAME))
        ctx.project.evaluators[EvaluatorKey(SCOPE, EXPECT)] = EvaluatorDef(
            scope=SCOPE, ref=EXPECT, path=ctx.evals, id=None, name="expect", type_id=EXPECT_TYPE, config={},
            raw={})

    def _row(self, ctx: LoadContext, path: Path, index: int, toolbox: Toolbox) -> Row:
        row_id = case_name(path.name)
        doc = ctx.read_json(path)
        if doc is UNREADABLE:
            return Row(row_id, row_id, {}, {EXPECT: {}}, index, None, source=path,
                       problem=f"{path.name} could not be loaded (see the file's problem)")
        try:
            case = parse_case(doc, path.name)
        except StepError as exc:
            ctx.problem(path, str(exc))
            return Row(row_id, row_id, {}, {EXPECT: {}}, index, None, source=path, problem=f"{path.name}: {exc}")
        for warning in case.warnings:
            ctx.problem(path, warning, "warning")
        return Row(row_id, case.name, {"script": case.script}, {EXPECT: case.expect}, index,
                   ReplayRow(case, toolbox), source=path, kind="replay")

    def run_fingerprint(self, row: Row) -> Any:
        """The steps and the tools they are checked against (a tools file may live under evals/, where
        a change would otherwise only re-score)."""
        replay = row.raw
        if not isinstance(replay, ReplayRow):
            return row.inputs
        tools = [[t.name, t.input_schema, t.approval, t.handler] for t in replay.toolbox.tools.values()]
        return {"script": row.inputs.get("script"), "tools": tools, "toolsFound": replay.toolbox.found}

    def run_error(self, outcome: RunOutcome) -> str | None:
        """A case stopped by a live handler that timed out, crashed, gave no answer, could not be loaded or
        raised failed as a run, not as a case: it runs again next time, as a target's ERROR does."""
        from .executor import LIVE_FAILED, RUN_STATUS

        status = outcome.trace[-1] if outcome.trace and isinstance(outcome.trace[-1], dict) else {}
        if status.get("type") == RUN_STATUS and status.get(LIVE_FAILED):
            lines = str(status.get("detail") or "").strip().splitlines()
            return f"its live handler failed: {lines[0] if lines else 'no detail'}"
        return run_error(outcome)

    async def execute(self, run: RowRun) -> RunOutcome:
        replay = run.row.raw
        if not isinstance(replay, ReplayRow):
            return RunOutcome(error=f"row {run.row.label!r} is not a scripted case")
        from .executor import replay_case

        return await replay_case(replay.case, replay.toolbox, config=run.config,
                                 scratch=scratch_dir(run.config, run.row.id), row_id=run.row.id, on_log=run.on_log)


__all__ = ["EXPECT", "SCOPE", "SET_NAME", "ReplayRow", "ReplaysDialect", "scratch_dir", "scratch_name", "script_files"]
