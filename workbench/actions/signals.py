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
from ..runners.reaper import REAPER
from ..runners.strays import stop_strays

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


def children_note(note: str | None = None) -> str:
    """What can truthfully be said about the targets' processes once the work was cancelled: processes
    that left their target's process group (setsid) are found and killed too, and any that survive
    are named. `note` replaces the default wording of the good case."""
    watchdog = REAPER.process.pid if REAPER.process is not None else None
    left = stop_strays([watchdog] if watchdog else [])
    if left is None:  # no /proc: strays can't be looked for
        return note or "the targets' process groups were stopped"
    if left:
        shown = ", ".join(str(pid) for pid in left[:10]) + (", ..." if len(left) > 10 else "")
        lead = f"{note}, but " if note else ""
        return (f"{lead}{len(left)} process{'es' * (len(left) != 1)} started by the target left its process "
                f"group and could not be stopped (pid {shown})")
    return note or "every child process was stopped"


def run_until_stopped(work: Coroutine[Any, Any, T], *, note: str | None = None,
                      signals: Iterable[int] = STOP_SIGNALS) -> T:
    """`asyncio.run(work)`, except that Ctrl-C or a stop signal cancels `work` (its finally blocks kill
    the children) and then raises Stopped saying what became of them (`children_note(note)`).

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
        raise Stopped(signal.SIGINT, children_note(note)) from None
    if received:
        raise Stopped(received[0], children_note(note))
    return box[0]
