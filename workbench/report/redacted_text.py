"""`run --redact` without `--json` or `--brief`: the text reporter's lines redacted as they are printed. The
stream redacts each write (the reporter writes whole lines), and the event sink teaches the redactor each
result's output secrets before the reporter sees that result, so a row's own `api_key` is hidden on its line."""

from __future__ import annotations

import io
from typing import TextIO, cast

from ..events import Event, EventSink, ResultReady
from .redact import Redactor


class RedactedStream(io.TextIOBase):
    """`stream`, every text written to it redacted by `redactor` (as it knows them at the time)."""

    def __init__(self, stream: TextIO, redactor: Redactor) -> None:
        super().__init__()
        self.stream = stream
        self.redactor = redactor

    def write(self, text: str) -> int:
        self.stream.write(self.redactor.text(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def writable(self) -> bool:
        return True


def redacted_stream(stream: TextIO, redactor: Redactor) -> TextIO:
    """`RedactedStream` typed as what the reporter writes to."""
    return cast(TextIO, RedactedStream(stream, redactor))


def learning(sink: EventSink, redactor: Redactor) -> EventSink:
    """`sink`, after `redactor` has learnt each arriving result's output secrets."""

    def on_event(event: Event) -> None:
        if isinstance(event, ResultReady):
            redactor.learn_result(event.result)
        sink(event)

    return on_event
