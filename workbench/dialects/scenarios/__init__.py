"""Scenarios (seed 000): given a screen, when the user says X, expect these actions and this reply.

Everything about the format is here: `dialect.py` (the `ScenariosDialect`), `loader.py` (files -> rows),
`settings.py` (`[scenarios]`, `.appilotsrc`, its flags), `spec.py` / `match.py` / `expect.py` (the expect block
and the `ScenarioExpect` evaluator it registers), `align.py` (listed vs actual actions, for the TUI's view),
`gate.py` (the scenario baseline and its gate) and `gate_run.py` (that gate in a `workbench run`:
`ScenariosDialect.gate`), `scaffold.py` (`workbench init --format appilots`). Its TUI view is
`tui/detail_views/scenario.py`.
"""

from __future__ import annotations

from typing import Any

from .dialect import ScenariosDialect
from .names import APPILOTS_DIR, DIALECT, EXPECT_REF, RC_FILE, SCOPE


def __getattr__(name: str) -> Any:
    """The settings' names, imported (with pydantic) when first asked for."""
    if name in ("ScenarioSettings", "resolve_settings"):
        from . import settings

        return getattr(settings, name)
    raise AttributeError(name)


__all__ = ["APPILOTS_DIR", "DIALECT", "EXPECT_REF", "RC_FILE", "SCOPE", "ScenarioSettings", "ScenariosDialect",
           "resolve_settings"]
