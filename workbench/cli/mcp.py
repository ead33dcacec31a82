"""`workbench mcp [PATH]`: serve the project's loop to a coding agent as an MCP server over stdio."""

from __future__ import annotations

import importlib.util

import click

from ..actions.signals import run_until_stopped
from .common import fail, load_project_config, project_argument, resolve_root

INSTALL_HINT = "pip install 'workbench-evals[mcp]' (from a clone of workbench: pip install -e '.[mcp]')"


def mcp_missing() -> str | None:
    """Why the server can't start (the `mcp` extra is not installed), or None."""
    if importlib.util.find_spec("mcp") is None:
        return f"`workbench mcp` needs the MCP SDK, which is not installed: {INSTALL_HINT}"
    return None


@click.command("mcp")
@project_argument
def mcp_command(path: str | None) -> None:
    """Serve this project to a coding agent: a Model Context Protocol server on stdin/stdout.

    Tools: check, run, status, row, history, accept, add_row (see docs/agents.md).
    Register it with `claude mcp add workbench -- workbench mcp` (or give PATH). Only protocol goes to
    stdout; workbench's and the targets' output go to stderr and .workbench/. The tools touch only
    this project.

    Needs the MCP SDK: pip install 'workbench-evals[mcp]' (from a clone of workbench: pip install -e '.[mcp]').
    """
    missing = mcp_missing()
    if missing:
        fail(missing, 1)
    config = load_project_config(resolve_root(path))
    from ..agent.server import serve

    # The client closing stdin is the normal end. Ctrl-C, SIGTERM (a client stopping its server) and SIGHUP cancel
    # the server like `run`: a running iteration's processes are killed, then it exits 128 + the signal.
    run_until_stopped(serve(config), note="the server stopped and every child process with it")
