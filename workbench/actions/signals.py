"""Stopping on SIGTERM / SIGHUP the way Ctrl-C stops: the running work is cancelled, so every target
(each in its own process group) is killed instead of being left orphaned by a `kill` or a closed
terminal. One helper for the CI run, the plain watch loop, add-row and the TUI."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

from ..errors import WorkbenchError

T = TypeVar("T")

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGHUP)

_HOW = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated", signal.SIGHUP: "the terminal hung up"}


class Stopped(WorkbenchError):
    """Ctrl-C or a stop signal ended the work after it was cancelled. Exits 128 + the signal number,
    as a shell reports a process killed by it."""

    def __init__(self, signum: int, note: str) -> None:
        how = _HOW.get(signal.Signals(signum), f"stopped by signal {signum}")
        super().__init__(f"{how}; {note}", exit_code=128 + signum)
        self.signum = signum


def on_stop_signals(callback: Callable[[int], None], signals: Iterable[int] = STOP_SIGNALS) -> Callable[[], None]:
    """Call `callback(signum)` on the running event loop when one of `signals` arrives; returns the
    function that removes the handlers. Where handlers can't be set (another platform, a thread that
    isn't the main one) this does nothing, and the signal keeps its default effect."""
    loop = asyncio.get_running_loop()
    handled: list[int] = []
    for signum in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, callback, signum)
            handled.append(signum)

    def remove() -> None:
        for signum in handled:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)
        handled.clear()

    return remove


def run_until_stopped(work: Coroutine[Any, Any, T], *, note: str = "every child process was stopped",
                      signals: Iterable[int] = STOP_SIGNALS) -> T:
    """`asyncio.run(work)`, except that Ctrl-C or a stop signal cancels `work` (its finally blocks kill
    the children) and then raises Stopped saying `note`.

    The value leaves through a list, not as asyncio.run's return value, which Python 3.11 formats
    (repr) on the way out: seconds for an iteration report of 100,000 results."""
    box: list[T] = []
    received: list[int] = []

    async def main() -> None:
        task = asyncio.current_task()

        def stop(signum: int) -> None:
            received.append(signum)
            if task is not None:
                task.cancel()

        remove = on_stop_signals(stop, signals)
        try:
            box.append(await work)
        except asyncio.CancelledError:
            if not received:
                raise
        finally:
            remove()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        raise Stopped(signal.SIGINT, note) from None
    if received:
        raise Stopped(received[0], note)
    return box[0]
