"""The scenario format as the rest of workbench asks it (`Dialect`). Its reader (`loader.py`), settings
(`settings.py`), expect scorer and gate are imported by the methods that use them, so naming the format
(`workbench --help`) or asking whether a project has scenarios costs little."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..base import Dialect, DialectGate, GateAsk, LoadContext, Scaffolded, Words
from .names import APPILOTS_DIR, DEFAULT_MIN_PASS_RATE, DIALECT, RC_FILE

if TYPE_CHECKING:
    from ...config import Config
    from ...model import Project
    from ...scoring.base import Scorer


class ScenariosDialect(Dialect):
    """Core; a gate of its own, scaffolds, a TUI view and an HTML detail."""

    name = DIALECT
    title = "scenarios"
    words = Words(
        expects=f"{APPILOTS_DIR}/scenarios/*.json",
        init_help=(f"{APPILOTS_DIR}/scenarios/example.json (one scenario: given a screen, when the user says X), "
                   "in a folder without a target also a starter agent.py and the workbench.toml that runs it"),
        gate_help=(f"Scenarios ({APPILOTS_DIR}/scenarios/*.json) have a gate of their own: at least "
                   f"{DEFAULT_MIN_PASS_RATE:.0%} of them pass, none that passed on {APPILOTS_DIR}/eval-baseline.json "
                   "fails now, and none costs more tokens than the baseline allows (--max-token-regression)."),
        baseline_help=(f"in a project with scenarios, the scenario baseline, default "
                       f"{APPILOTS_DIR}/eval-baseline.json"),
    )
    markers = (APPILOTS_DIR, RC_FILE)
    view = "workbench.tui.detail_views.scenario:ScenarioView"
    html_detail = "workbench.dialects.scenarios.html:detail_blocks"
    init_name = "appilots"

    def scorers(self) -> tuple[Scorer, ...]:
        from .expect import ScenarioExpect

        return (ScenarioExpect(),)

    def gate(self, project: Project, config: Config, ask: GateAsk) -> DialectGate | None:
        """The scenario gate (pass-rate minimum, newly failing, token regressions against the scenario
        baseline), when the project has scenarios."""
        if not any(eval_set.dialect == DIALECT for eval_set in project.sets):  # its gate isn't even imported
            return None
        from .gate_run import prepare_scenarios

        return prepare_scenarios(project, ask)

    def scaffold(self, root: Path) -> Scaffolded:
        from . import scaffold

        created, kept, skipped = scaffold.init_scenarios(root)
        return Scaffolded(created, kept, skipped, scaffold.next_steps(created))

    def present(self, root: Path, config: Config | None) -> bool:
        from .settings import resolve_settings

        settings, _ = resolve_settings(root, config)
        return settings.dir.is_dir() or settings.dir_named or (root / APPILOTS_DIR).is_dir()

    def load(self, ctx: LoadContext) -> None:
        from .loader import load_scenarios

        load_scenarios(ctx)
