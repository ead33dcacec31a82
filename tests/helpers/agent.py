"""Drive `workbench mcp` the way an agent's client does: the MCP SDK's own stdio client against the real
command in a fresh interpreter. `mcp_session(root)` yields an initialized `ClientSession`; the server's
stderr goes to a file beside the project (`server_log(root)`), so a failing test can show it."""

from __future__ import annotations

import contextlib
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from helpers.paths import EXAMPLES, PACKAGE

REPO = PACKAGE.parent


def server_log(root: Path) -> Path:
    return root.parent / f"{root.name}-mcp-stderr.log"


def copy_example(name: str, into: Path) -> Path:
    root = into / name
    shutil.copytree(EXAMPLES / name, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root


def server_command(root: Path) -> tuple[str, list[str], dict[str, str]]:
    """The command, its arguments and the environment a client starts the server with."""
    return sys.executable, ["-m", "workbench", "mcp", str(root)], {"PYTHONPATH": str(REPO), "NO_COLOR": "1",
                                                                    "PYTHONIOENCODING": "utf-8"}


@contextlib.asynccontextmanager
async def mcp_session(root: Path) -> AsyncIterator[Any]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command, args, env = server_command(root)
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(root))
    with server_log(root).open("w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def text_of(result: Any) -> str:
    """The text rendering of a tool result (its one text block)."""
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
