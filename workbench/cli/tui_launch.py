"""Opening the TUI from the command line; Textual is imported only here, and only when asked for."""

from __future__ import annotations

import sys

from ..config import Config
from .common import fail


def launch_tui(config: Config, *, watch: bool = True, welcome: str | None = None, show_path: bool = False) -> None:
    try:
        from ..tui.app import make_app
    except ImportError as exc:
        fail(f"the TUI cannot start ({exc}); `workbench watch --plain` runs the same loop without it")
    app = make_app(config, watch=watch, welcome=welcome, show_path=show_path)
    app.run()
    if app.return_code:  # it crashed (Textual has shown the traceback): never report success after that
        sys.exit(app.return_code)
