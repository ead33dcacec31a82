"""The TUI serves its session too: an agent's request is answered from it, the screen says
`iteration N · asked by agent`, and an iteration the agent started shows in history as asked by it."""

from __future__ import annotations

from pathlib import Path

from helpers.session_link import Counted
from helpers.tui import wait_idle, wait_until

from workbench.config import load_config
from workbench.history import HistoryStore
from workbench.session_link import ask_live_session
from workbench.tui.app import make_app


async def test_the_tui_answers_an_agent_and_says_so(tmp_path: Path) -> None:
    project = Counted(tmp_path)
    app = make_app(load_config(project.root), watch=False, record=True)
    shown: list[str] = []
    notify = app.notify

    def spy(message: str, **kwargs: object) -> None:
        shown.append(message)
        notify(message, **kwargs)  # type: ignore[arg-type]

    app.notify = spy  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_idle(app, pilot)
        await wait_until(pilot, lambda: app.link.server is not None and app.link.server.serving, "the link served")
        held = await ask_live_session(project.root)
        assert held is not None and held.how == "recorded"
        await wait_until(pilot, lambda: any("asked by agent" in text for text in shown), "the notification")
        assert f"iteration {held.number} · asked by agent (its results still hold: nothing ran again)" in shown

        project.expect(a="not A")  # not watching: the agent's request runs an iteration of its own
        ran = await ask_live_session(project.root)
        assert ran is not None and ran.how == "ran"
        await wait_idle(app, pilot, iterations=2)
        assert ran.number == held.number + 1 and project.count() == 2
    with HistoryStore.open(load_config(project.root)) as store:  # what the history pane lists, by trigger
        assert [info.trigger.describe() for info in store.iterations()] == ["start", "asked by agent"]
