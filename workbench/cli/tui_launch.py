"""Opening the TUI from the command line; Textual is imported only here, and only when asked for."""

from __future__ import annotations

import sys

from ..config import Config
from .common import fail


def on_a_terminal() -> bool:
    """Whether the TUI can be shown and typed into: stdin and stdout are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def launch_tui(config: Config, *, watch: bool = True, welcome: str | None = None, show_path: bool = False) -> None:
    if not on_a_terminal():  # from a script, a pipe or an agent's shell the TUI would draw into nothing forever
        fail("the TUI needs a terminal (stdin and stdout are not one here): `workbench run` runs every row once, "
             "`workbench watch --plain` runs the loop, `workbench mcp` serves a coding agent")
    try:
        from ..tui.app import make_app
    except ImportError as exc:
        fail(f"the TUI cannot start ({exc}); `workbench watch --plain` runs the same loop without it")
    app = make_app(config, watch=watch, welcome=welcome, show_path=show_path)
    app.run()
    if app.return_code:  # it crashed (Textual has shown the traceback): never report success after that
        sys.exit(app.return_code)
