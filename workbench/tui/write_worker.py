"""Writes to the user's files off the UI loop. A write takes its eval set's lock (`writeback/lock.py`),
which can wait up to 30 s for another workbench: in a thread worker the screen keeps answering keys
meanwhile. The outcome comes back on the UI loop: `done(value)` once written, `refused(error)` when the
write was refused (nothing written); any other failure is the app's worker-failure notification."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from textual.dom import DOMNode

from ..actions.writing import Refused
from ..writeback.lock import waits_end_on

T = TypeVar("T")


def write_in_thread(owner: DOMNode, write: Callable[[], T], *, done: Callable[[T], None],
                    refused: Callable[[Refused], None], description: str) -> None:
    """Run `write()` in a thread worker of `owner`; report its outcome on the UI loop. A wait for another
    writer's lock ends when the app closes (its `closing` event), so quitting never waits 30 s for it."""
    app = owner.app
    closing = getattr(app, "closing", None)
    give_up = closing if isinstance(closing, threading.Event) else threading.Event()

    def work() -> None:
        try:
            with waits_end_on(give_up):
                value = write()
        except Refused as exc:
            if not give_up.is_set():  # a closing app awaits this worker: calling into it would deadlock
                app.call_from_thread(refused, exc)
        else:
            if not give_up.is_set():
                app.call_from_thread(done, value)

    owner.run_worker(work, thread=True, group="write", exit_on_error=False, description=description)
