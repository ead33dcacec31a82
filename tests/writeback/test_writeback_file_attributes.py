"""Issue 12, point 13: rewriting an eval set keeps its owner, group and mode, refuses what a rename can't
carry over (other hard links, an owner this user can't give), and workbench's writers take turns on a
set through its lock under `.workbench/locks/`."""

from __future__ import annotations

import os
import stat
import threading

import pytest
from helpers.writeback import EXACT, clock, evaluators, fixture_bytes, project, recorded

from workbench.writeback import WritebackError, apply_plan
from workbench.writeback import atomic as atomic_module
from workbench.writeback.accept import plan_accept
from workbench.writeback.lock import lock_path, writing_lock

ACTUAL = {"grade": "FAIL", "details": {"rawScore": 40, "band": "fail"}}


def _plan(root, path):
    return plan_accept(root, path, [recorded("row-2", EXACT, ACTUAL, {"grade": "FAIL"})], evaluators(root),
                       clock=clock)


@pytest.fixture
def eval_set(tmp_path):
    return project(tmp_path, fixture_bytes("two_space"))


def test_the_mode_is_kept(eval_set):
    root, path = eval_set
    path.chmod(0o640)
    apply_plan(_plan(root, path))
    assert b'"rawScore": 40' in path.read_bytes()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_the_owner_and_group_are_kept_when_root_writes_another_users_set(eval_set):
    root, path = eval_set
    os.chown(path, 12345, 23456)
    apply_plan(_plan(root, path))
    info = path.stat()
    assert b'"rawScore": 40' in path.read_bytes()
    assert (info.st_uid, info.st_gid) == (12345, 23456)


def test_a_set_owned_by_another_user_is_refused_when_its_owner_cant_be_kept(eval_set, monkeypatch):
    root, path = eval_set
    before = path.read_bytes()
    owner = path.stat().st_uid
    monkeypatch.setattr(atomic_module.os, "geteuid", lambda: owner + 1)  # as a user who can't chown
    with pytest.raises(WritebackError, match=rf"owned by another user \(uid {owner}\).*nothing written"):
        apply_plan(_plan(root, path))
    assert path.read_bytes() == before


def test_a_set_with_several_hard_links_is_refused_and_both_links_stay_the_same(eval_set):
    root, path = eval_set
    before = path.read_bytes()
    other = root / "elsewhere.json"
    os.link(path, other)
    with pytest.raises(WritebackError, match=r"has 2 hard links.*does not write it"):
        apply_plan(_plan(root, path))
    assert path.read_bytes() == before and other.read_bytes() == before
    assert path.stat().st_ino == other.stat().st_ino


def test_a_writer_waits_for_the_lock_and_then_patches_the_newer_file(eval_set):
    """While another workbench holds the set's lock, a write waits; it then patches what that writer left."""
    root, path = eval_set
    plan = _plan(root, path)
    released = threading.Event()
    holding = threading.Event()

    def other_workbench():
        with writing_lock(root, path, "cases.json"):
            holding.set()
            path.write_bytes(path.read_bytes().replace(b'"score 85 passes"', b'"renamed meanwhile"', 1))
            released.wait(30)

    thread = threading.Thread(target=other_workbench)
    thread.start()
    holding.wait(30)
    threading.Timer(0.2, released.set).start()
    written = apply_plan(plan)
    thread.join(30)
    after = path.read_bytes()
    assert b'"renamed meanwhile"' in after and b'"rawScore": 40' in after
    assert written.after == after
    assert lock_path(root, path).parent == root / ".workbench" / "locks"


def test_a_lock_held_too_long_is_a_refusal_naming_the_holder(eval_set):
    root, path = eval_set
    before = path.read_bytes()
    with writing_lock(root, path, "cases.json"):
        failure: list[BaseException] = []

        def second_writer():
            try:
                with writing_lock(root, path, "evals/default/eval-sets/cases.json", wait_s=0.2):
                    pass
            except WritebackError as exc:
                failure.append(exc)

        thread = threading.Thread(target=second_writer)
        thread.start()
        thread.join(30)
    assert failure, "the second writer did not wait for the lock"
    message = str(failure[0])
    assert f"another workbench (pid {os.getpid()})" in message and "nothing was written" in message
    assert path.read_bytes() == before
