"""Watching under abuse: thousands of file events in about a second run a bounded number of iterations (the
last one on the final content), and deleting `evals/` and putting it back while watching recovers."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path

import pytest
from helpers.hardening import FixedRunner
from helpers.project import EXACT, make_project, row
from helpers.watch import WAIT_S, WatchHarness, watching

pytestmark = pytest.mark.hardening

def set_document(expected: int) -> str:
    return json.dumps({"version": "1.0", "evaluatorRefs": [EXACT],
                       "evaluations": [row("r", {}, {"v": expected}, id="r")]})


async def test_thousands_of_events_in_a_second_run_a_bounded_number_of_iterations(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"s": set_document(0)})
    set_file = root / "evals" / "default" / "eval-sets" / "s.json"
    scratch = root / "scratch"
    scratch.mkdir()
    async with watching(root, record=False, runner_factory=FixedRunner.factory({"r": {"v": 999}})) as loop:
        before = len(loop.requested)
        writes, started = 0, time.monotonic()
        while time.monotonic() - started < 1.0 or writes < 2000:
            for index in range(50):  # new files, rewrites and deletions, as a build or a checkout makes
                path = scratch / f"f{(writes + index) % 400}.txt"
                if index % 10 == 9:
                    path.unlink(missing_ok=True)
                else:
                    path.write_text(str(writes + index))
            set_file.write_text(set_document(writes))
            writes += 51
            await asyncio.sleep(0)  # the watcher shares this loop, as it does in the TUI
        storm_s = time.monotonic() - started
        set_file.write_text(set_document(999))  # the final content
        # An iteration sees the final file (however late a loaded machine hands the last batch over),
        # then nothing more comes.
        await loop.until(lambda: loop.reports and [r.verdict.value for r in loop.reports[-1].results] == ["PASS"],
                         "an iteration that saw the final file")
        await loop.settle()
    batches = len(loop.requested) - before
    # The watcher cuts a storm into batches at most a second apart: about one per second of storm.
    assert 1 <= batches <= storm_s + 3, (batches, storm_s, writes)
    last = loop.reports[-1]
    assert [r.verdict.value for r in last.results] == ["PASS"], "the last iteration did not see the final file"


async def delete_and_remake_evals(root: Path, loop: WatchHarness) -> None:
    """Delete the watched project's evals/, wait for the notice that it is gone, write the project again and
    wait for an iteration with results."""
    shutil.rmtree(root / "evals")
    await loop.until(lambda: any("no eval files in" in n for n in loop.notices), "a notice that evals/ is gone")
    done = len(loop.reports)
    make_project(root, sets={"s": set_document(1)})
    await loop.until(lambda: len(loop.reports) > done and loop.reports[-1].results, "an iteration again")


async def test_deleting_and_recreating_evals_while_watching_recovers(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"s": set_document(1)})
    async with watching(root, record=False, runner_factory=FixedRunner.factory({"r": {"v": 1}})) as loop:
        await delete_and_remake_evals(root, loop)
        assert [r.verdict.value for r in loop.reports[-1].results] == ["PASS"]
        assert not loop.task.done()  # type: ignore[union-attr]


async def test_deleting_a_watched_evals_folder_and_recreating_it_recovers(tmp_path: Path) -> None:
    """With `[watch] paths = ["evals"]` the folder being watched is itself deleted and made again."""
    root = make_project(tmp_path, sets={"s": set_document(1)}, config={"watch": {"paths": ["evals"]}})
    async with watching(root, record=False, runner_factory=FixedRunner.factory({"r": {"v": 1}})) as loop:
        await delete_and_remake_evals(root, loop)
        deadline = time.monotonic() + WAIT_S
        while not (loop.reports[-1].results and loop.reports[-1].results[0].verdict.value == "FAIL"):
            # saved again until seen: the new folder's watch may not have been live at the first save
            assert time.monotonic() < deadline, "edits in the new evals/ are never seen"
            (root / "evals" / "default" / "eval-sets" / "s.json").write_text(set_document(2))
            await asyncio.sleep(0.5)
