"""The MCP SDK is an extra: only `workbench/agent/server.py` imports it (and anyio, which comes with it), so
everything else — `run --brief` included — works without `pip install 'workbench-evals[mcp]'` (issue 23).
jsonschema, which the SDK also brings, is a core dependency since issue 34 (`dialects/schema_check.py`)."""

from __future__ import annotations

import ast
import subprocess
import sys

from helpers.paths import PACKAGE

SDK = ("mcp", "mcp_types", "anyio")


def test_only_the_server_module_imports_the_sdk() -> None:
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [(path.relative_to(PACKAGE).as_posix(), name) for name in names if name.split(".")[0] in SDK]
    assert {where for where, _ in found} == {"agent/server.py"}, found


def test_the_agent_package_loads_without_the_sdk() -> None:
    code = ("import sys; sys.modules['mcp'] = None; sys.modules['mcp_types'] = None\n"
            "import workbench.agent.tools, workbench.agent.brief, workbench.cli.run, workbench.cli.mcp\n"
            "assert \"pip install 'workbench-evals[mcp]'\" in workbench.cli.mcp.mcp_missing()\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PACKAGE.parent, timeout=60)
