"""Render the real app headless on a copy of the bundled example and save SVGs into screenshots/.

Run after any UI change:  python scripts/make_screenshots.py

Every shot waits on the app's settled signal (nothing runs, everything posted is painted), never a pause.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench.config import load_config  # noqa: E402
from workbench.tui.app import WorkbenchApp, make_app  # noqa: E402
from workbench.tui.bulk_accept_screen import BulkAcceptScreen  # noqa: E402
from workbench.tui.help_screen import HelpScreen  # noqa: E402

SIZE = (150, 44)
SMALL = (80, 24)  # the smallest terminal workbench supports
OUT = ROOT / "screenshots"
BUG, FIX = "if score > 50:", "if score >= 50:"


WAIT_S = 60.0  # a guard against a hang, never a pause to wait something out


async def settled(app: WorkbenchApp, pilot) -> None:
    """The app's public settled signal (nothing runs, every update is painted), then a frame."""
    await asyncio.wait_for(app.settled(), WAIT_S)
    await pilot.pause()


async def settle(app: WorkbenchApp, pilot, iterations: int) -> None:
    """Wait until `iterations` iterations have finished and the screen shows them."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while app.main.iterations_done < iterations:
        if loop.time() > deadline:
            raise TimeoutError(f"{iterations} iteration(s) did not finish")
        await pilot.pause(0.02)  # pump the app until the iteration is recorded
    await settled(app, pilot)


async def until_screen(app: WorkbenchApp, pilot, screen_type: type) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not isinstance(app.screen, screen_type):
        if loop.time() > deadline:
            raise TimeoutError(f"{screen_type.__name__} did not open")
        await pilot.pause(0.02)
    await settled(app, pilot)


def save(app: WorkbenchApp, name: str) -> None:
    app.save_screenshot(str(OUT / f"{name}.svg"))
    print(f"wrote screenshots/{name}.svg")


def copy_example() -> Path:
    project = Path(tempfile.mkdtemp(prefix="workbench-shots-")) / "grading"
    shutil.copytree(ROOT / "examples" / "grading", project,
                    ignore=shutil.ignore_patterns(".workbench", "__pycache__", "workbench-baseline.json"))
    return project


async def small_terminal() -> None:
    """At 80x24 the failing row's detail opens scrolled to its first difference."""
    project = copy_example()
    app = make_app(load_config(project), watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot, 1)
        app.clear_notifications()
        await settled(app, pilot)
        save(app, "detail-scrolled")
        await pilot.press("q")
    shutil.rmtree(project.parent, ignore_errors=True)


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    project = copy_example()
    grade = project / "grade.py"
    app = make_app(load_config(project), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot, 1)
        await pilot.press("home", "down")  # the top row: the app itself opens on the failing one
        await settled(app, pilot)
        save(app, "overview")
        await pilot.press("n")
        await settled(app, pilot)
        save(app, "fail-diff")
        await pilot.press("A")  # bulk accept: the walk shows each failing row's diff; Esc leaves it unwritten
        await until_screen(app, pilot, BulkAcceptScreen)
        save(app, "bulk-accept")
        await pilot.press("escape")
        await settled(app, pilot)
        # A few iterations of the loop: fix the bug, break it again, fix it for good.
        for number, (old, new) in enumerate([(BUG, FIX), (FIX, BUG), (BUG, FIX)], start=2):
            grade.write_text(grade.read_text().replace(old, new))
            await pilot.press("R")
            await settle(app, pilot, number)
        await pilot.press("2")
        await settled(app, pilot)
        save(app, "history")
        await pilot.press("question_mark")
        await until_screen(app, pilot, HelpScreen)
        save(app, "help")
        await pilot.press("escape")
        (project / "evals" / "default" / "eval-sets" / "broken.json").write_text('{"evaluations": [\n')
        await pilot.press("R")
        await settle(app, pilot, 5)
        await pilot.press("home")
        await settled(app, pilot)
        save(app, "problem")
        await pilot.press("q")
    shutil.rmtree(project.parent, ignore_errors=True)
    await small_terminal()


if __name__ == "__main__":
    asyncio.run(main())
