"""`workbench mcp`: the agent tools as a Model Context Protocol server over stdio, on the official `mcp`
SDK (its low-level `Server`: the tools' schemas are ours, every answer carries structured content and a
short text). The only module that imports `mcp`.

stdout carries nothing but protocol: the SDK's stdio transport serves the wire from a private duplicate of
fd 1 and points fd 1 at stderr while it runs, so a stray print, or a child that inherited fd 1, lands on
stderr; targets' output is captured by the runners into the results (and `.workbench/` history).

A line that is not a JSON-RPC message is answered as the spec asks (`-32700` Parse error for one that is not
JSON, `-32600` Invalid Request for JSON that is no message, both with id null) and the server goes on: the
SDK's stdio transport hands such a line to the server as an exception, which its dispatcher only logs
(`ErrorAnswering` turns it into the reply).
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any

import anyio
import jsonschema
import mcp_types as types
import pydantic
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

from .. import __version__
from ..config import Config
from .loop import AgentLoop
from .tools import TOOLS, Answer, call_tool, schema_of

INSTRUCTIONS = """workbench runs this project's eval rows against its target and scores them. Loop: run() → read the
failing rows (each with its failing evaluator and why) → fix the code or the expectation → run() again; stop when
the result says all green, or stalled. row(name) gives one row's full diff; accept(rows) writes a row's actual
output as its expectation (only when the output is right); history() shows past iterations."""


def _result(answer: Answer, is_error: bool) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)],
                                structured_content=answer.structured, is_error=is_error)


def build_server(loop: AgentLoop) -> Server[Any]:
    """The server for `loop`'s project: lists the tools and answers their calls."""

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name=tool.name, description=tool.description,
                                                       input_schema=tool.input_schema) for tool in TOOLS])

    async def call(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        args = dict(params.arguments or {})
        schema = schema_of(params.name)
        if schema is not None:
            problems = sorted(jsonschema.Draft202012Validator(schema).iter_errors(args), key=lambda e: list(e.path))
            if problems:
                where = "/".join(str(p) for p in problems[0].absolute_path) or "arguments"
                text = f"{params.name}: {where}: {problems[0].message}"
                return _result(Answer({"error": text}, text), True)

        async def progress(done: int, total: int) -> None:
            await ctx.session.report_progress(done, total, f"{done}/{total} rows")

        answer, is_error = await call_tool(loop, params.name, args, progress)
        return _result(answer, is_error)

    return Server("workbench", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call)


def error_reply(exc: Exception) -> SessionMessage | None:
    """The JSON-RPC error answering a line the transport could not read as a message (None for a blank line,
    which is no message at all): Parse error when it is not JSON, Invalid Request when it is JSON but no
    JSON-RPC message. The id is null: it could not be read from the line (JSON-RPC 2.0 §5)."""
    if isinstance(exc, pydantic.ValidationError):
        errors = exc.errors(include_url=False)
        if errors and errors[0]["type"] == "json_invalid":
            raw = errors[0]["input"]
            if isinstance(raw, str | bytes) and not raw.strip():
                return None
            error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error")
        else:
            error = types.ErrorData(code=types.INVALID_REQUEST, message="Invalid Request")
    else:
        error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


class ErrorAnswering:
    """The stdio transport's read stream, minus the exceptions it yields for unreadable lines: each is answered
    on `write` with `error_reply` instead of reaching the server (whose dispatcher would drop it unanswered).
    Everything else, the sender's context included, passes through untouched."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], write: WriteStream[SessionMessage]) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> contextvars.Context | None:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            reply = error_reply(item)
            if reply is not None:
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    await self._write.send(reply)  # (closed: the server is going, nobody is left to answer)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> ErrorAnswering:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> ErrorAnswering:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


@asynccontextmanager
async def _loop(config: Config) -> AsyncIterator[AgentLoop]:
    loop = AgentLoop(config)
    try:
        yield loop
    finally:
        await loop.aclose()


async def serve(config: Config) -> None:
    """Serve `config`'s project on stdin/stdout until the client closes the connection."""
    async with _loop(config) as loop, stdio_server() as (read_stream, write_stream):
        server = build_server(loop)
        print(f"workbench mcp: serving {config.root}", file=sys.stderr, flush=True)
        await server.run(ErrorAnswering(read_stream, write_stream), write_stream,
                         server.create_initialization_options())

