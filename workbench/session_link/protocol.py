"""The wire: newline-delimited JSON objects, each at most `MAX_LINE` bytes, each read with a deadline.

client → session   {"type": "ask", "version": 1, "project": <real path>, "selection": {...}, "asked_by": "agent"}
session → client   {"type": "progress", "done": 3, "total": 10}   (the iteration the answer waits on)
                   {"type": "alive"}                               (at least every HEARTBEAT_S while it works)
                   {"type": "answer", "number": 12, "how": "joined" | "recorded" | "ran", "rows": 10}
                   {"type": "declined", "reason": "..."}           (the client then runs itself)
"""

from __future__ import annotations

import asyncio
from typing import Any

from .. import jsonio
from ..model import RowKey
from ..rescoring import RowFilter

VERSION = 1
MAX_LINE = 64 * 1024  # a request names sets, rows and row keys; 64 KiB is thousands of them
MAX_NAMES = 2000  # per list in a selection
HEARTBEAT_S = 1.0  # the session says it is alive at least this often while a request waits
STALL_S = 20.0  # a client gives a session this long without a word before it presumes it dead
REQUEST_S = 5.0  # a session gives a connection this long to send its request
CONNECT_S = 2.0  # a client gives the connect this long


class ProtocolError(Exception):
    """A message that is not one: too long, not JSON, not an object, the wrong shape."""


def encode(message: dict[str, Any]) -> bytes:
    data = jsonio.dumps(message).encode("utf-8") + b"\n"
    if len(data) > MAX_LINE:
        raise ProtocolError(f"message of {len(data)} bytes is over the {MAX_LINE}-byte limit")
    return data


async def read_message(reader: asyncio.StreamReader, timeout: float) -> dict[str, Any] | None:
    """The next message, or None at end of stream. TimeoutError after `timeout` seconds without one."""
    try:
        line = await asyncio.wait_for(reader.readuntil(b"\n"), timeout)
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise ProtocolError("the stream ended inside a message") from None
        return None
    except asyncio.LimitOverrunError:
        raise ProtocolError(f"a message over the {MAX_LINE}-byte limit") from None
    try:
        doc = jsonio.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, jsonio.JsonError) as exc:
        raise ProtocolError(f"not a JSON message: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("type"), str):
        raise ProtocolError("a message must be a JSON object with a \"type\"")
    return doc


def selection_to_json(selection: RowFilter | None) -> dict[str, Any]:
    chosen = selection or RowFilter()
    doc: dict[str, Any] = {"sets": list(chosen.sets), "rows": list(chosen.rows), "tags": list(chosen.tags),
                           "kinds": list(chosen.kinds)}
    if chosen.row_keys is not None:
        doc["row_keys"] = sorted([key.scope, key.set_file, key.row_id] for key in chosen.row_keys)
    return doc


def _names(doc: dict[str, Any], name: str) -> tuple[str, ...]:
    value = doc.get(name, [])
    if not isinstance(value, list) or len(value) > MAX_NAMES or not all(isinstance(v, str) for v in value):
        raise ProtocolError(f"selection.{name} must be a list of at most {MAX_NAMES} strings")
    return tuple(value)


def selection_from_json(doc: Any) -> RowFilter:
    if not isinstance(doc, dict):
        raise ProtocolError("selection must be an object")
    keys = doc.get("row_keys")
    row_keys: frozenset[RowKey] | None = None
    if keys is not None:
        if (not isinstance(keys, list) or len(keys) > MAX_NAMES
                or not all(isinstance(k, list) and len(k) == 3 and all(isinstance(p, str) for p in k) for k in keys)):
            raise ProtocolError("selection.row_keys must be a list of [scope, set file, row id]")
        row_keys = frozenset(RowKey(*key) for key in keys)
    return RowFilter(sets=_names(doc, "sets"), rows=_names(doc, "rows"), row_keys=row_keys,
                     tags=_names(doc, "tags"), kinds=_names(doc, "kinds"))
