"""A write waiting for another writer's lock gives up when its front end closes (the TUI's `closing`
event), so quitting never waits out the 30 s lock timeout; nothing is written."""

from __future__ import annotations

import queue
import threading
from pathlib import Path

from workbench.writeback import WritebackError
from workbench.writeback.lock import waits_end_on, writing_lock

HANG_GUARD_S = 20  # far below the lock's own 30 s wait: reaching it means the wait did not end


def test_a_wait_for_a_held_lock_ends_when_its_event_is_set(tmp_path: Path) -> None:
    target = tmp_path / "set.json"
    target.write_text("{}", encoding="utf-8")
    (tmp_path / ".workbench").mkdir()
    give_up, outcome = threading.Event(), queue.Queue[str]()

    def second_writer() -> None:
        with waits_end_on(give_up):
            try:
                with writing_lock(tmp_path, target, "set.json"):
                    outcome.put("took the lock")
            except WritebackError as exc:
                outcome.put(str(exc))

    with writing_lock(tmp_path, target, "set.json"):  # the first writer holds it throughout
        waiter = threading.Thread(target=second_writer)
        waiter.start()
        give_up.set()
        said = outcome.get(timeout=HANG_GUARD_S)
    waiter.join(HANG_GUARD_S)
    assert "stopped waiting for another workbench" in said and "nothing was written" in said
    assert f"pid {threading.get_native_id()}" in said or "another workbench" in said


def test_outside_such_a_block_the_wait_is_the_usual_one(tmp_path: Path) -> None:
    target = tmp_path / "set.json"
    target.write_text("{}", encoding="utf-8")
    (tmp_path / ".workbench").mkdir()
    with writing_lock(tmp_path, target, "set.json"):
        try:
            with writing_lock(tmp_path, target, "set.json", wait_s=0):
                raise AssertionError("took a held lock")
        except WritebackError as exc:
            assert "for more than 0s" in str(exc)
