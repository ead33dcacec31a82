"""Iteration history: what is recorded, how it is listed and compared, how long it is kept, and what is
never recorded (a cancelled iteration). The command-line side is in tests/cli/test_watch_and_history_commands.py."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.checks import process_alive, tree_digest
from helpers.project import make_project, row

from workbench.config import STATE_DIR, load_config
from workbench.events import IterationReport, Trigger
from workbench.history import DB_NAME, HistoryStore, compare_results
from workbench.model import Problem, Result, Verdict
from workbench.session import Session


def result(name: str, verdict: str = "PASS", **extra: object) -> Result:
    fields = {"scope": "default", "set_file": "qa.json", "row_id": name, "row_name": name, "evaluator": "exact",
              "verdict": Verdict(verdict), "score": 1.0 if verdict == "PASS" else 0.0,
              "detail": "" if verdict == "PASS" else f"{name} is wrong", "actual": {"answer": name},
              "expected": {"answer": name.upper()}, "duration_ms": 12.5}
    fields.update(extra)
    return Result(**fields)  # type: ignore[arg-type]


def report(*results: Result, trigger: Trigger | None = None, problems: list[Problem] | None = None
           ) -> IterationReport:
    return IterationReport(trigger=trigger or Trigger("manual"), results=list(results), problems=problems or [],
                           duration_s=0.25, complete=True)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HistoryStore]:
    with HistoryStore(tmp_path / STATE_DIR / DB_NAME) as opened:
        yield opened


def test_an_iteration_is_recorded_with_its_trigger_results_and_totals(store: HistoryStore) -> None:
    problem = Problem("evals/default/eval-sets/other.json", "not valid JSON", "error")
    logged = result("b", "FAIL", log="stderr line\n", trace=[{"type": "usage", "tokens": 7}])
    number = store.record(report(result("a"), logged, trigger=Trigger("change", ("target.py",)),
                                 problems=[problem]))
    assert number == 1
    [info] = store.iterations()
    assert (info.number, info.trigger, info.partial) == (1, Trigger("change", ("target.py",)), False)
    assert (info.total, info.passed, info.failed, info.errors, info.rows_total, info.rows_passed) == (2, 1, 1, 0,
                                                                                                     2, 1)
    assert info.duration_s == pytest.approx(0.25) and info.problems == [problem]
    a, b = store.results(1)
    assert (a.row_name, a.verdict, a.actual, a.expected) == ("a", Verdict.PASS, {"answer": "a"}, {"answer": "A"})
    assert (b.verdict, b.detail, b.duration_ms, b.log, b.trace) == (
        Verdict.FAIL, "b is wrong", 12.5, "stderr line\n", [{"type": "usage", "tokens": 7}])


def test_listing_shows_each_iteration_with_its_change_in_passes(store: HistoryStore) -> None:
    store.record(report(result("a", "FAIL"), result("b", "FAIL")))
    store.record(report(result("a"), result("b", "FAIL")))
    store.record(report(result("a"), result("b", "FAIL")))
    store.record(report(result("a", "FAIL"), result("b", "FAIL")))
    assert [(i.number, i.passed, i.change) for i in store.iterations()] == [(1, 0, None), (2, 1, 1), (3, 1, 0),
                                                                            (4, 0, -1)]
    # The newest N still compare against the iteration before them.
    assert [(i.number, i.change) for i in store.iterations(limit=2)] == [(3, 0), (4, -1)]
    info = store.iteration(2)
    assert info is not None and info.change == 1
    assert store.iteration(99) is None


def test_flips_between_two_iterations(store: HistoryStore) -> None:
    store.record(report(result("a", "FAIL"), result("b"), result("c", "FAIL"), result("gone")))
    store.record(report(result("a"), result("b", "ERROR"), result("c", "FAIL"), result("new")))
    flips = compare_results(store.results(1), store.results(2))
    assert [r.row_name for r in flips.newly_passing] == ["a"]
    assert [r.row_name for r in flips.newly_failing] == ["b"]
    assert [r.row_name for r in flips.still_failing] == ["c"]
    assert [r.row_name for r in flips.added] == ["new"]
    assert [r.row_name for r in flips.removed] == ["gone"]
    doc = flips.to_json()
    assert doc["newly_failing"] == [{"set": "qa.json", "scope": "default", "row_id": "b", "row_name": "b",
                                     "evaluator": "exact", "verdict": "ERROR"}]
    # A partial re-run does not report the rows it did not run as gone.
    assert compare_results(store.results(1), [result("a")], only_current=True).removed == []


def test_retention_keeps_only_the_newest_iterations(tmp_path: Path) -> None:
    with HistoryStore(tmp_path / DB_NAME, retention=3) as store:
        for index in range(6):
            store.record(report(result(f"r{index}")))
        assert [i.number for i in store.iterations()] == [4, 5, 6]
        assert store.results(3) == [] and [r.row_name for r in store.results(4)] == ["r3"]
        db = sqlite3.connect(tmp_path / DB_NAME)
        assert db.execute("SELECT COUNT(*) FROM results").fetchone() == (3,)  # pruned results are gone too
        db.close()


def test_history_survives_closing_and_reopening(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    with HistoryStore(path) as store:
        store.record(report(result("a", "FAIL")))
        store.record(report(result("a")))
    with HistoryStore(path) as store:
        assert [i.number for i in store.iterations()] == [1, 2]
        assert store.record(report(result("a"))) == 3


def test_a_partial_iteration_is_marked_and_skipped_by_the_change_column(store: HistoryStore) -> None:
    store.record(report(result("a", "FAIL"), result("b", "FAIL")))
    store.record(report(result("a")), partial=True)
    store.record(report(result("a"), result("b")))
    infos = store.iterations()
    assert [i.partial for i in infos] == [False, True, False]
    assert [i.change for i in infos] == [None, None, 2]  # against iteration 1, the last full one
    assert [n for n, _, _ in store.pass_counts()] == [1, 3]


def test_an_unfinished_iteration_is_refused(store: HistoryStore) -> None:
    unfinished = report(result("a"))
    unfinished.complete = False
    with pytest.raises(ValueError):
        store.record(unfinished)
    assert store.iterations() == []


def test_two_writers_never_reuse_a_number(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    with HistoryStore(path) as first, HistoryStore(path) as second:
        numbers = [first.record(report(result("a"))), second.record(report(result("a"))),
                   first.record(report(result("a")))]
    assert numbers == [1, 2, 3]


# -- through a Session: the loop's own recording ---------------------------------------------------

SLOW_TARGET = """\
import json, os, subprocess, sys, time
inputs = json.load(sys.stdin)
if os.path.exists("slow.flag"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.path.join({pids!r}, inputs["q"] + ".tmp"), "w") as handle:
        handle.write(f"{{os.getpid()}} {{child.pid}}")
    os.replace(os.path.join({pids!r}, inputs["q"] + ".tmp"), os.path.join({pids!r}, inputs["q"] + ".pid"))
    time.sleep(120)
print(json.dumps({{"answer": inputs["q"].upper()}}))
"""


def slow_project(tmp_path: Path) -> tuple[Path, Path]:
    pids = tmp_path / "pids"
    pids.mkdir()
    root = make_project(tmp_path / "project",
                        sets={"qa": [row(f"question {q}", {"q": q}, {"answer": q.upper()}) for q in "ab"]},
                        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 60},
                        files={"target.py": SLOW_TARGET.format(pids=str(pids)), "slow.flag": ""})
    return root, pids


async def test_a_cancelled_iteration_leaves_nothing_in_history_and_no_process_behind(tmp_path: Path) -> None:
    root, pids_dir = slow_project(tmp_path)
    session = Session(load_config(root))
    try:
        task = session.request(Trigger("start"))
        deadline = time.monotonic() + 60
        while len(list(pids_dir.glob("*.pid"))) < 2:
            assert time.monotonic() < deadline, "the slow rows never started"
            await asyncio.sleep(0.05)
        pids = [int(p) for path in pids_dir.glob("*.pid") for p in path.read_text().split()]
        await session.cancel()
        assert task.cancelled()
        with HistoryStore.open(load_config(root)) as store:
            assert store.iterations() == []
        deadline = time.monotonic() + 60  # a hang guard: it stops as soon as they are gone
        while any(process_alive(pid) for pid in pids) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert not [pid for pid in pids if process_alive(pid)]

        (root / "slow.flag").unlink()
        finished = await session.iterate_now(Trigger("manual"))
        assert finished is not None and finished.number == 1  # the cancelled one took no number
    finally:
        await session.aclose()


async def test_the_loop_records_under_dot_workbench_and_never_under_evals(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("question a", {"q": "a"}, {"answer": "A"})]},
                        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 30},
                        files={"target.py": "import json; print(json.dumps({'answer': 'A'}))\n"})
    evals_before = tree_digest(root / "evals")
    session = Session(load_config(root))
    try:
        await session.iterate_now(Trigger("manual"))
        await session.iterate_now(Trigger("change", ("target.py",)))
    finally:
        await session.aclose()
    assert tree_digest(root / "evals") == evals_before
    assert (root / STATE_DIR / DB_NAME).is_file()
    with HistoryStore.open(load_config(root)) as store:
        assert [i.trigger.kind for i in store.iterations()] == ["manual", "change"]


async def test_a_session_without_recording_writes_nothing(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("question a", {"q": "a"}, {"answer": "A"})]},
                        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 30},
                        files={"target.py": "import json; print(json.dumps({'answer': 'A'}))\n"})
    session = Session(load_config(root), record=False)
    try:
        finished = await session.iterate_now(Trigger("manual"))
    finally:
        await session.aclose()
    assert finished is not None and finished.number is None
    assert not (root / STATE_DIR).exists()


async def test_an_unwritable_history_is_a_notice_not_a_crash(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"qa": [row("question a", {"q": "a"}, {"answer": "A"})]},
                        config={"kind": "command", "command": ["{python}", "target.py"], "timeout": 30},
                        files={"target.py": "import json; print(json.dumps({'answer': 'A'}))\n",
                               STATE_DIR: "a file where the state folder should be\n"})
    notices: list[str] = []
    session = Session(load_config(root), on_notice=notices.append)
    try:
        finished = await session.iterate_now(Trigger("manual"))
    finally:
        await session.aclose()
    assert finished is not None and [r.verdict for r in finished.results] == [Verdict.PASS]
    assert len(notices) == 1 and notices[0].startswith("history is off: ")
