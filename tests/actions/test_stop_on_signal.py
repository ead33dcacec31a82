"""One stop-on-signal helper: SIGTERM / SIGHUP cancel the work (so its finally blocks kill children)
and end it with an exit code a shell would report; the TUI's callback form removes itself cleanly."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from workbench.actions.signals import STOP_SIGNALS, Stopped, on_stop_signals, run_until_stopped


async def _answer() -> int:
    await asyncio.sleep(0)
    return 42


def test_work_that_ends_by_itself_returns_its_value() -> None:
    assert run_until_stopped(_answer()) == 42


@pytest.mark.parametrize(("signum", "code", "words"), [(signal.SIGTERM, 143, "terminated"),
                                                       (signal.SIGHUP, 129, "the terminal hung up")])
def test_a_stop_signal_cancels_the_work_and_says_how_it_ended(signum: int, code: int, words: str) -> None:
    cleaned: list[str] = []

    async def work() -> None:
        asyncio.get_running_loop().call_soon(os.kill, os.getpid(), signum)
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append("children killed")

    with pytest.raises(Stopped) as caught:
        run_until_stopped(work(), note="the target was stopped")
    assert cleaned == ["children killed"]
    assert caught.value.exit_code == code and caught.value.signum == signum
    assert str(caught.value) == f"{words}; the target was stopped"
    assert signal.getsignal(signum) == signal.SIG_DFL  # nothing left installed


def test_the_callback_form_gets_the_signal_and_can_be_removed() -> None:
    async def main() -> list[int]:
        got: list[int] = []
        arrived = asyncio.Event()

        def on_signal(signum: int) -> None:
            got.append(signum)
            arrived.set()

        remove = on_stop_signals(on_signal)
        os.kill(os.getpid(), signal.SIGHUP)
        await asyncio.wait_for(arrived.wait(), 30)  # a hang guard
        remove()
        return got

    assert asyncio.run(main()) == [signal.SIGHUP]
    assert all(signal.getsignal(sig) == signal.SIG_DFL for sig in STOP_SIGNALS)


def test_ctrl_c_is_reported_as_an_interruption() -> None:
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("Ctrl-C is handled by the test runner here")

    async def work() -> None:
        asyncio.get_running_loop().call_soon(os.kill, os.getpid(), signal.SIGINT)
        await asyncio.sleep(30)

    with pytest.raises(Stopped) as caught:
        run_until_stopped(work())
    assert caught.value.exit_code == 130
    assert str(caught.value) == "interrupted; every child process was stopped"
