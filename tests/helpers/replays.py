"""Scripted-replay projects for tests: `evals/<name>.script.json` cases, a `tools.json`, and one in-process
iteration to read the results from.

    root = replay_project(tmp_path, {"held": [call("issue_refund", {"orderId": "A-1"}, result={})]})
    results = replay(root)          # {case name: Result}
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

from workbench.config import load_config
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.model import Result
from workbench.rescoring import RowFilter

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "refund-agent"

ORDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"orderId": {"type": "string", "pattern": "^[A-Z]-\\d{4}$"},
                   "amount": {"type": "number", "minimum": 0, "maximum": 500}},
    "required": ["orderId"],
    "additionalProperties": False,
}
TOOLS: list[dict[str, Any]] = [
    {"name": "lookup_order", "description": "find an order", "inputSchema": ORDER_SCHEMA, "approval": "never",
     "handler": "shop:lookup_order"},
    {"name": "issue_refund", "description": "refund an order", "inputSchema": ORDER_SCHEMA, "approval": "required",
     "handler": "shop:issue_refund"},
]
SHOP = '''\
import os, subprocess, sys, time

def lookup_order(arguments):
    print("looking up", arguments["orderId"], file=sys.stderr)
    return {"orderId": arguments["orderId"], "total": 39.0, "cwd": os.getcwd()}

def issue_refund(arguments):
    return {"orderId": arguments["orderId"], "status": "refunded", "live": True}

def broken(arguments):
    raise ValueError("the payment provider is down")

def hang(arguments):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(arguments["pidfile"], "w") as handle:
        handle.write(f"{os.getpid()} {child.pid}\\n")
    time.sleep(600)
'''


def say(content: Any) -> dict[str, Any]:
    return {"type": "assistant.output", "content": content}


def call(tool: str, arguments: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    return {"type": "tool.call", "toolName": tool, "arguments": arguments or {}, **fields}


def decide(approved: bool) -> dict[str, Any]:
    return {"type": "approval.decide", "approved": approved}


def write(*files: dict[str, Any]) -> dict[str, Any]:
    return {"type": "artifact.write", "files": list(files)}


def case(*steps: dict[str, Any], **expect: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"description": "test case", "script": list(steps)}
    if expect:
        doc["expect"] = expect
    return doc


def replay_project(root: Path, cases: dict[str, Any], *, tools: Any = TOOLS, config: str | None = None,
                   files: dict[str, str] | None = None) -> Path:
    """A project of scripted cases (a dict/list is written as JSON, a str as-is) and `tools.json`
    (`tools=None`: none). `shop.py` (the handlers of TOOLS) is always there."""
    (root / "evals").mkdir(parents=True, exist_ok=True)
    for name, doc in cases.items():
        text = doc if isinstance(doc, str) else json.dumps(doc, indent=2)
        (root / "evals" / f"{name}.script.json").write_text(text, encoding="utf-8")
    if tools is not None:
        (root / "tools.json").write_text(json.dumps(tools, indent=2), encoding="utf-8")
    if config is not None:
        (root / "workbench.toml").write_text(config, encoding="utf-8")
    for relative, text in {"shop.py": SHOP, **(files or {})}.items():
        (root / relative).write_text(text, encoding="utf-8")
    return root


def iterate(root: Path, selection: RowFilter | None = None) -> IterationReport:
    return asyncio.run(Engine(load_config(root)).run_iteration(Trigger("run"), selection))


def replay(root: Path) -> dict[str, Result]:
    """One iteration; the result of every case by its name."""
    return {result.label: result for result in iterate(root).results}


def copy_example(root: Path) -> Path:
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root
