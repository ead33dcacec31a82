"""The tools an agent calls: each one's name, description and input schema (JSON Schema, as MCP lists them),
and the call itself — arguments in, an `Answer` (structured content + short text) out. No MCP here: the
server (`server.py`) turns these into protocol messages, and a test can call them directly."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..config import Config
from ..errors import WorkbenchError
from ..report.redact import redactor_for
from .digest import Digest
from .loop import AgentLoop, AgentRefusal, ProgressSink, RunAsk
from .queries import Answer, check_answer, history_answer, row_answer
from .writes import accept_answer, add_row_answer

_NAME = {"type": "string", "minLength": 1, "maxLength": 500}
_NAMES = {"type": "array", "items": _NAME, "maxItems": 200}
_WAIT = {"type": "number", "minimum": 0, "maximum": 110,
         "description": "Seconds to wait before returning a handle (default 60; coding agents cap a call near 120 s)"}


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("check", "Check the project without running anything: every problem (file, row, message, severity).",
             _object({})),
    ToolSpec("run", "Run one iteration (re-scoring rows whose recorded run is proven unchanged) and return the "
             "digest: counts, failing rows first with each failing evaluator's compact account, what flipped "
             "since the previous iteration, the stall status, iterations since the last green, and a next hint. "
             "Returns a handle with the progress so far when the iteration outlasts wait_s; status(handle) waits on.",
             _object({"sets": _NAMES | {"description": "Only these eval sets (file base names)"},
                      "rows": _NAMES | {"description": "Only these rows (ids or exact names)"},
                      "tags": _NAMES | {"description": "Only rows with one of these tags"},
                      "failing_only": {"type": "boolean", "description": "Only rows that failed in their last run"},
                      "reuse": {"type": "boolean", "description": "Re-score unchanged rows instead of running them "
                                "(default true); false runs every selected row"},
                      "repeat": {"type": "integer", "minimum": 1, "maximum": 1000, "description": (
                          "Run each row this many independent times (default: [runner] repeat); a row passes when "
                          "[gate] row_pass_rate of them do, and 0 < k < N passing is flaky")},
                      "wait_s": _WAIT})),
    ToolSpec("status", "Wait up to wait_s for the iteration a run() left running under `handle`; the same result "
             "shape as run().", _object({"handle": _NAME, "wait_s": _WAIT}, ("handle",))),
    ToolSpec("row", "One row's whole story from its newest recorded run (or `iteration`): inputs, expected, "
             "actual, every difference, the error, the log tail, the trace summary and warnings.",
             _object({"name": _NAME | {"description": "The row's exact name or its id"},
                      "id": _NAME | {"description": "The row's id (instead of name)"},
                      "set": _NAME | {"description": "The eval set, when several have a row of that name"},
                      "iteration": {"type": "integer", "minimum": 1}})),
    ToolSpec("history", "The last iterations: counts, what triggered each (files changed) and what flipped.",
             _object({"last": {"type": "integer", "minimum": 1, "maximum": 50, "description": "default 10"}})),
    ToolSpec("accept", "Write each row's recorded actual output as its expected output (the surgical write of "
             "`workbench accept`); returns the diff written per row, or why it was refused (a refused row makes the "
             "answer an error; the other rows are still written).",
             _object({"rows": _NAMES | {"minItems": 1, "description": "Row names or ids"},
                      "set": _NAME, "evaluator": _NAME, "iteration": {"type": "integer", "minimum": 1}}, ("rows",))),
    ToolSpec("add_row", "Run the target once on `inputs` and append a row built from its output to the set "
             "(`workbench add-row`); returns the diff written.",
             _object({"set": _NAME, "name": _NAME, "inputs": {"type": "object"},
                      "criteria": {"type": "object", "description": "Criteria for evaluators that don't compare "
                                   "with expectedOutput, by evaluator ref"}}, ("set", "name", "inputs"))),
)

TOOL_NAMES = tuple(tool.name for tool in TOOLS)


def schema_of(name: str) -> dict[str, Any] | None:
    return next((tool.input_schema for tool in TOOLS if tool.name == name), None)


def _strings(args: dict[str, Any], key: str) -> tuple[str, ...]:
    value = args.get(key) or ()
    return tuple(str(item) for item in value)


def _wait(args: dict[str, Any]) -> float:
    return float(args.get("wait_s", 60.0))


def digest_answer(digest: Digest) -> Answer:
    return Answer(digest.to_json(), digest.text(), secrets=digest.secrets)


def redacted(config: Config, answer: Answer) -> Answer:
    """`answer` as it leaves for the agent: the project's secrets (`report.redact.redactor_for`), the values its
    results' outputs hold under secret-named keys, and those in the answer itself, replaced wherever they occur."""
    redactor = redactor_for(config)
    redactor.values |= answer.secrets
    redactor.learn(answer.structured)
    return Answer(redactor.scrub(answer.structured), redactor.text(answer.text), answer.refused)


Handler = Callable[[AgentLoop, dict[str, Any], ProgressSink | None], Awaitable[Answer]]


async def _run(loop: AgentLoop, args: dict[str, Any], progress: ProgressSink | None) -> Answer:
    ask = RunAsk(_strings(args, "sets"), _strings(args, "rows"), _strings(args, "tags"),
                 bool(args.get("failing_only", False)), bool(args.get("reuse", True)), _wait(args),
                 int(args["repeat"]) if args.get("repeat") is not None else None)
    return digest_answer(await loop.run(ask, progress))


async def _status(loop: AgentLoop, args: dict[str, Any], progress: ProgressSink | None) -> Answer:
    return digest_answer(await loop.status(str(args["handle"]), _wait(args), progress))


async def _check(loop: AgentLoop, args: dict[str, Any], progress: ProgressSink | None) -> Answer:
    return await asyncio.to_thread(check_answer, loop.live_config)


async def _row(loop: AgentLoop, args: dict[str, Any], progress: ProgressSink | None) -> Answer:
    name = args.get("name") or args.get("id")
    if not name:
        raise AgentRefusal("give the row's name (or id)")
    return await asyncio.to_thread(row_answer, loop.live_config, str(name), args.get("set"), args.get("iteration"))


async def _history(loop: AgentLoop, args: dict[str, Any], progress: ProgressSink | None) -> Answer:
    return await asyncio.to_thread(history_answer, loop.live_config, int(args.get("last", 10)))


async def _accept(loop: AgentLoop, args: dict[str, Any], progress: ProgressSink | None) -> Answer:
    return await asyncio.to_thread(accept_answer, loop.live_config, list(_strings(args, "rows")), args.get("set"),
                                   args.get("evaluator"), args.get("iteration"))


async def _add_row(loop: AgentLoop, args: dict[str, Any], progress: ProgressSink | None) -> Answer:
    return await add_row_answer(loop.live_config, str(args["set"]), str(args["name"]), dict(args["inputs"]),
                                args.get("criteria"))


HANDLERS: dict[str, Handler] = {"run": _run, "status": _status, "check": _check, "row": _row, "history": _history,
                                "accept": _accept, "add_row": _add_row}


async def call_tool(loop: AgentLoop, name: str, args: dict[str, Any],
                    progress: ProgressSink | None = None) -> tuple[Answer, bool]:
    """(answer, is_error): a WorkbenchError (a refusal, a name that matches nothing) is an error answer in
    words, and so is an answer that refused part of what it was asked (`Answer.refused`); anything else
    propagates. Every answer is redacted (`redacted`)."""
    handler = HANDLERS.get(name)
    if handler is None:
        return Answer({"error": f"no tool {name!r}"}, f"no tool {name!r} (tools: {', '.join(TOOL_NAMES)})"), True
    try:
        answer = await handler(loop, args, progress)
    except WorkbenchError as exc:
        answer = Answer({"error": str(exc)}, str(exc), refused=True)
    return await asyncio.to_thread(redacted, loop.live_config, answer), answer.refused
