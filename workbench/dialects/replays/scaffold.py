"""`workbench init --format plico`: a project of scripted replays — a `tools.json` with one tool and one
case, `evals/smoke.script.json`, that passes as it is. Never over an existing file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...scaffold import create_json
from .script import SUFFIX
from .tools import DEFAULT_TOOLS_FILE

SMOKE = f"smoke{SUFFIX}"

TOOLS: list[dict[str, Any]] = [{
    "name": "ping",
    "description": "Answers pong: replace it with your agent's tools.",
    "inputSchema": {"type": "object", "properties": {"message": {"type": "string", "minLength": 1}},
                    "required": ["message"], "additionalProperties": False},
    "approval": "never",
}]

SMOKE_CASE: dict[str, Any] = {
    "description": "The agent calls ping and answers with what it returned.",
    "script": [
        {"type": "tool.call", "toolName": "ping", "arguments": {"message": "hello"}, "result": {"reply": "pong"}},
        {"type": "assistant.output", "content": "The tool said pong."},
    ],
    "expect": {"status": "completed", "outputContains": "pong"},
}

NEXT_STEPS = ("Next: list your agent's tools in tools.json (inputSchema, approval: \"required\" or \"never\"), "
              "write a case per behaviour in evals/<name>.script.json, then `workbench run` — no [runner] needed.")


def init_replays(root: Path) -> tuple[list[str], list[str], list[str]]:
    """(created, kept because they exist, skipped) relative paths, like `scaffold.init_project`."""
    created: list[str] = []
    kept: list[str] = []
    for relative, value in ((DEFAULT_TOOLS_FILE, TOOLS), (f"evals/{SMOKE}", SMOKE_CASE)):
        (created if create_json(root / relative, value) else kept).append(relative)
    return created, kept, []


__all__ = ["NEXT_STEPS", "SMOKE", "init_replays"]
