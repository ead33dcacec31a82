"""The project's tools for replays: `tools.json` at the project root (or `[replay] tools`), a list of
MCP-style tool definitions plus workbench's two keys:

    [{"name": "issue_refund", "description": "...", "inputSchema": {...JSON Schema...},
      "approval": "required", "handler": "refund_agent.tools:issue_refund"}]

`approval` is "required" or "never" (the default); `handler` (`package.module:function`) is only
called by `"live": true` steps. `{"tools": [...]}`, the shape of an MCP `tools/list` answer, is read
too. A broken entry is a file problem naming it; the other tools still load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...compare import type_name
from .schema import schema_mistakes, unchecked_keywords
from .settings import DEFAULT_TOOLS_FILE, tools_path

if TYPE_CHECKING:
    from ..base import LoadContext

APPROVALS = ("required", "never")


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str = ""
    input_schema: Any = field(default_factory=dict)
    approval: str = "never"
    handler: str | None = None

    @property
    def needs_approval(self) -> bool:
        return self.approval == "required"


@dataclass(slots=True)
class Toolbox:
    """The tools by name, and where they came from (for messages: `tools.json`, or that it is missing)."""

    tools: dict[str, Tool] = field(default_factory=dict)
    source: str = DEFAULT_TOOLS_FILE
    found: bool = False

    def get(self, name: str) -> Tool | None:
        return self.tools.get(name)

    def unknown(self, name: str) -> str:
        """Why there is no tool `name`, for a failing step."""
        if not self.found:
            return f"there is no tool {name!r}: the project has no {self.source}"
        known = ", ".join(sorted(self.tools)) or "none"
        return f"there is no tool {name!r} in {self.source} (tools: {known})"


def valid_handler(spec: str) -> bool:
    module, _, attr = spec.partition(":")
    return bool(attr) and all(part.isidentifier() for part in [*module.split("."), *attr.split(".")])


def _tool(entry: Any, where: str) -> tuple[Tool | None, list[str], list[str]]:
    """The tool of one entry, and the errors and warnings to report about it."""
    if not isinstance(entry, dict):
        return None, [f"{where} must be an object with a \"name\", not {type_name(entry)}"], []
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        return None, [f"{where} has no \"name\" (a non-empty string); the tool is skipped"], []
    where = f"{where} ({name!r})"
    errors: list[str] = []
    approval = entry.get("approval", "never")
    if approval not in APPROVALS:
        errors.append(f"{where}.approval must be \"required\" or \"never\", not {approval!r}")
    handler = entry.get("handler")
    if handler is not None and (not isinstance(handler, str) or not valid_handler(handler)):
        errors.append(f"{where}.handler must be \"package.module:function\", not {handler!r}")
    schema = entry.get("inputSchema", {})
    errors += [f"{where}.{mistake}" for mistake in schema_mistakes(schema)]
    if errors:
        return None, [*errors[:-1], f"{errors[-1]}; the tool is skipped"], []
    unchecked = unchecked_keywords(schema)
    warnings = [f"{where} uses {', '.join(unchecked)}, which replays do not check"] if unchecked else []
    description = entry.get("description")
    tool = Tool(name, description if isinstance(description, str) else "", schema, approval, handler)
    return tool, [], warnings


def load_toolbox(ctx: LoadContext) -> Toolbox:
    """The project's tools; trouble with the file or an entry is a problem on `ctx`."""
    path = tools_path(ctx.root, ctx.config)
    from ..base import UNREADABLE, relative

    toolbox = Toolbox(source=relative(ctx.root, path))
    if not path.exists():
        return toolbox
    refusal = ctx.refusal(path, "file", ctx.root)
    if refusal:
        ctx.problem(path, refusal)
        return toolbox
    doc = ctx.read_json(path)
    if doc is UNREADABLE:
        return toolbox
    toolbox.found = True
    entries = doc.get("tools") if isinstance(doc, dict) else doc
    if not isinstance(entries, list):
        ctx.problem(path, f"must be an array of tools (or {{\"tools\": [...]}}), not {type_name(doc)}")
        return toolbox
    for index, entry in enumerate(entries):
        tool, errors, warnings = _tool(entry, f"tools[{index}]")
        for message in errors:
            ctx.problem(path, message)
        for message in warnings:
            ctx.problem(path, message, "warning")
        if tool is None:
            continue
        if tool.name in toolbox.tools:
            ctx.problem(path, f"tools[{index}] has the same name as an earlier tool ({tool.name!r}); the first one "
                              "is used")
            continue
        toolbox.tools[tool.name] = tool
    return toolbox


__all__ = ["APPROVALS", "DEFAULT_TOOLS_FILE", "Tool", "Toolbox", "load_toolbox", "tools_path", "valid_handler"]
