"""Opening the TUI from the command line; Textual is imported only here, and only when asked for."""

from __future__ import annotations

from ..config import Config
from .common import fail


def launch_tui(config: Config) -> None:
    try:
        from ..tui.app import run_app
    except ImportError:
        fail("the TUI is not available in this build yet; use `workbench watch --plain`")
    run_app(config)
