"""Writes to the user's files off the UI loop. A write takes its eval set's lock (`writeback/lock.py`),
which can wait up to 30 s for another workbench: in a thread worker the screen keeps answering keys
meanwhile. The outcome comes back on the UI loop: `done(value)` once written, `refused(error)` when the
write was refused (nothing written); any other failure is the app's worker-failure notification."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.dom import DOMNode

from ..actions.writing import Refused

T = TypeVar("T")


def write_in_thread(owner: DOMNode, write: Callable[[], T], *, done: Callable[[T], None],
                    refused: Callable[[Refused], None], description: str) -> None:
    """Run `write()` in a thread worker of `owner`; report its outcome on the UI loop."""
    app = owner.app

    def work() -> None:
        try:
            value = write()
        except Refused as exc:
            app.call_from_thread(refused, exc)
        else:
            app.call_from_thread(done, value)

    owner.run_worker(work, thread=True, group="write", exit_on_error=False, description=description)
