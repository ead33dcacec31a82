"""Opening the TUI from the command line; Textual is imported only here, and only when asked for."""

from __future__ import annotations

from ..config import Config
from .common import fail


def launch_tui(config: Config, *, watch: bool = True, welcome: str | None = None) -> None:
    try:
        from ..tui.app import run_app
    except ImportError as exc:
        fail(f"the TUI cannot start ({exc}); `workbench watch --plain` runs the same loop without it")
    run_app(config, watch=watch, welcome=welcome)
