"""What a conversation's transcript keeps, so a row's history entry and workbench's memory stay bounded
whatever the target answers (40 turns of 3 MB replies used to make a 126 MB history row and 613 MB of
memory: every reply was kept, and sent back to the target in every later turn's `history`).

Caps, per turn and per transcript:

- a reply keeps its first `REPLY_KEEP_CHARS` (65,536) characters, then `CUT_MARK` saying how long it
  was; the `history` sent to the target holds the reply as kept;
- the rest of a turn (tools, workflows, state before and after, trace) keeps up to `TURN_KEEP_BYTES`
  (256 KiB) of JSON; past that its trace is dropped and tool params and outputs, workflow inputs and
  the states become short previews;
- once the transcript holds `TRANSCRIPT_KEEP_BYTES` (4 MiB), each later turn keeps only
  `COMPACT_REPLY_CHARS` (1,000) characters of its reply and `COMPACT_TURN_BYTES` (4 KiB) of the rest;
- the row's trace keeps `TRACE_KEEP_BYTES` (1 MiB) of events and its log `LOG_KEEP_CHARS` (1 MiB).

A turn that was cut says so in `"cut"`. Its assertions were checked on the whole turn before it was cut
(`"checked"`, see `player.py`), so cutting never changes a verdict; a cut transcript is never re-scored
(`ConversationsDialect.run_error`): the row runs again.
"""

from __future__ import annotations

from typing import Any

from ... import jsonio

REPLY_KEEP_CHARS = 65_536
TURN_KEEP_BYTES = 256 * 1024
TRANSCRIPT_KEEP_BYTES = 4 * 1024 * 1024
COMPACT_REPLY_CHARS = 1_000
COMPACT_TURN_BYTES = 4 * 1024
TRACE_KEEP_BYTES = 1024 * 1024
LOG_KEEP_CHARS = 1024 * 1024
PREVIEW_CHARS = 200
CUT_MARK = "… [workbench: the reply was cut here; it had {total:,} characters, the first {kept:,} are kept]"
BULKY = ("tools", "workflows", "state_before", "state_after", "trace")


def json_size(value: Any) -> int:
    return len(jsonio.dumps(value))


def _preview(value: Any) -> str:
    return f"[cut: {json_size(value):,} characters of JSON] {jsonio.preview(value, PREVIEW_CHARS)}"


class Keeper:
    """Cuts each turn record to what the transcript may still hold; `used` is what it holds so far."""

    def __init__(self) -> None:
        self.used = 0
        self.trace_used = 0
        self.trace_dropped = 0
        self.log_used = 0
        self.log_dropped = False

    @property
    def compact(self) -> bool:
        return self.used >= TRANSCRIPT_KEEP_BYTES

    def reply(self, reply: Any) -> Any:
        """The reply as the transcript (and the target's `history`) keeps it."""
        limit = COMPACT_REPLY_CHARS if self.compact else REPLY_KEEP_CHARS
        if not isinstance(reply, str) or len(reply) <= limit:
            return reply
        return reply[:limit] + CUT_MARK.format(total=len(reply), kept=limit)

    def turn(self, record: dict[str, Any]) -> dict[str, Any]:
        """`record` as kept (a new dict when anything was cut, with `"cut"` saying what)."""
        limit = COMPACT_TURN_BYTES if self.compact else TURN_KEEP_BYTES
        kept, cut = dict(record), {}
        reply = self.reply(record.get("reply"))
        if reply is not record.get("reply"):
            kept["reply"], cut["reply_chars"] = reply, len(record["reply"])
        rest = json_size({key: record.get(key) for key in BULKY})
        if rest > limit:
            cut["detail_chars"] = rest
            kept["trace"] = []
            kept["tools"] = [{"name": t.get("name"), "params": _preview(t.get("params")),
                              **({"output": _preview(t["output"])} if "output" in t else {})}
                             for t in record.get("tools") or []]
            kept["workflows"] = [{**{k: v for k, v in w.items() if k != "input"},
                                  **({"input": _preview(w["input"])} if "input" in w else {})}
                                 for w in record.get("workflows") or []]
            for key in ("state_before", "state_after"):
                kept[key] = {scope: _preview(value) for scope, value in (record.get(key) or {}).items()}
        if cut:
            kept["cut"] = cut
        self.used += json_size(kept)
        return kept

    def trace(self, events: list[dict[str, Any]], into: list[dict[str, Any]]) -> None:
        """Add a turn's trace events to the row's trace while it holds less than TRACE_KEEP_BYTES."""
        for event in events:
            size = json_size(event)
            if self.trace_used + size > TRACE_KEEP_BYTES:
                self.trace_dropped += 1
                continue
            self.trace_used += size
            into.append(event)

    def log(self, text: str, into: list[str]) -> None:
        """Add a turn's log to the row's log while it holds less than LOG_KEEP_CHARS."""
        if self.log_used + len(text) > LOG_KEEP_CHARS:
            if not self.log_dropped:
                into.append(f"[workbench] the log was cut here: a conversation keeps {LOG_KEEP_CHARS:,} characters "
                            "of log")
                self.log_dropped = True
            return
        self.log_used += len(text)
        into.append(text)
