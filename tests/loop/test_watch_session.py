"""The watch loop in-process: `Session.watch()` on a temporary project, driven by real file edits.

Every test waits for the watcher to be live (the `ready` event) and for the start iteration before it
touches a file, so what it counts afterwards is caused by its own edits. Waits are generous and
nothing asserts on elapsed time: the machine is small and shared.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
import watchfiles
from helpers.checks import process_alive, tree_digest
from helpers.project import eval_set, make_project, row
from helpers.watch import WAIT_S, watching

from workbench.config import load_config
from workbench.events import IterationReport, Trigger
from workbench.history import HistoryStore
from workbench.progress import IterationSummary, progress_line
from workbench.session import Session
from workbench.watching import ChangeFilter

QUIET_S = 1.5  # for something that should NOT happen: longer than the watcher's longest batch (1 s)

TARGET_TEMPLATE = """\
import json, os, subprocess, sys, time

ANSWERS = {answers!r}
SLOW = {slow!r}

inputs = json.load(sys.stdin)
if SLOW:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    temp = os.path.join(SLOW, inputs["q"] + ".tmp")
    with open(temp, "w") as handle:
        handle.write(f"{{os.getpid()}} {{child.pid}}")
    os.replace(temp, os.path.join(SLOW, inputs["q"] + ".pid"))
    time.sleep(120)
print(json.dumps({{"answer": ANSWERS.get(inputs["q"], "?")}}))
"""


def write_target(root: Path, answers: dict[str, str], slow: Path | None = None) -> None:
    """The project's target: answers question `q` from ANSWERS; with `slow`, hangs (and a grandchild
    too) after writing "<pid> <grandchild pid>" to `slow`/<q>.pid."""
    (root / "target.py").write_text(TARGET_TEMPLATE.format(answers=answers, slow=str(slow) if slow else None),
                                    encoding="utf-8")


def qa_rows(questions: str = "ab") -> list[dict[str, Any]]:
    return [row(f"question {q}", {"q": q}, {"answer": q.upper()}) for q in questions]


def qa_project(tmp_path: Path, answers: dict[str, str], *, questions: str = "ab", slow: Path | None = None,
               extra: dict[str, dict[str, Any]] | None = None) -> Path:
    config: dict[str, dict[str, Any]] = {
        "runner": {"kind": "command", "command": ["{python}", "target.py"], "timeout": 60, "concurrency": 4}}
    config.update(extra or {})
    root = make_project(tmp_path / "project", sets={"qa": qa_rows(questions)}, config=config)
    write_target(root, answers, slow)
    return root


def verdicts(report: IterationReport) -> dict[str, str]:
    return {r.row_name: r.verdict.value for r in report.results}




def recorded(root: Path) -> list[Trigger]:
    with HistoryStore.open(load_config(root)) as store:
        return [info.trigger for info in store.iterations()]


async def wait_for_pids(folder: Path, count: int) -> list[int]:
    deadline = time.monotonic() + WAIT_S
    while len(files := sorted(folder.glob("*.pid"))) < count:
        assert time.monotonic() < deadline, f"the slow target never started {count} rows"
        await asyncio.sleep(0.05)
    return [int(pid) for path in files for pid in path.read_text().split()]


async def wait_all_gone(pids: list[int]) -> None:
    """SIGKILL lands asynchronously; give it time, then name the survivors."""
    deadline = time.monotonic() + WAIT_S
    while (alive := [pid for pid in pids if process_alive(pid)]) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not alive, f"processes of the cancelled iteration still run: {alive}"


# -- a save becomes one iteration ------------------------------------------------------------------


async def test_editing_the_target_runs_exactly_one_new_iteration_with_the_new_verdicts(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"})
    async with watching(root) as loop:
        first, _ = loop.completed[0]
        assert first.trigger.kind == "start"
        assert verdicts(first) == {"question a": "PASS", "question b": "FAIL"}

        write_target(root, {"a": "A", "b": "B"})
        report, summary = await loop.wait_for(2)
        await asyncio.sleep(QUIET_S)

        assert len(loop.completed) == 2, [r.trigger for r, _ in loop.completed]
        assert report.trigger == Trigger("change", ("target.py",))
        assert verdicts(report) == {"question a": "PASS", "question b": "PASS"}
        assert summary.fixed == ["question b"] and summary.green
    assert [t.kind for t in recorded(root)] == ["start", "change"]


async def test_a_burst_of_saves_runs_one_iteration_on_the_last_content(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"})
    async with watching(root) as loop:
        for attempt in range(15):  # an editor's save storm; the last save is the fix
            write_target(root, {"a": "A", "b": "B" if attempt == 14 else f"draft {attempt}"})
        report, _ = await loop.wait_for(2)
        await asyncio.sleep(QUIET_S)

        assert len(loop.completed) == 2, [r.trigger for r, _ in loop.completed]
        assert verdicts(report) == {"question a": "PASS", "question b": "PASS"}
    assert [t.kind for t in recorded(root)] == ["start", "change"]


async def test_files_are_reread_for_every_iteration(tmp_path: Path) -> None:
    """The eval set is read again on a change: a new expectation shows up without restarting."""
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    async with watching(root) as loop:
        assert verdicts(loop.completed[0][0]) == {"question a": "PASS", "question b": "PASS"}
        rows = [*qa_rows(), row("question c", {"q": "c"}, {"answer": "C"})]
        (root / "evals/default/eval-sets/qa.json").write_text(json.dumps(eval_set(rows)), encoding="utf-8")
        report, summary = await loop.wait_for(2)
        assert report.trigger.files == ("evals/default/eval-sets/qa.json",)
        assert verdicts(report) == {"question a": "PASS", "question b": "PASS", "question c": "FAIL"}
        assert summary.rows_total == 3 and summary.rows_passed == 2


# -- a change during an iteration cancels it ----------------------------------------------------------


async def test_a_change_mid_iteration_cancels_it_kills_its_children_and_records_only_the_new_one(
        tmp_path: Path) -> None:
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    root = qa_project(tmp_path, {"a": "A", "b": "B"}, slow=pids_dir)
    async with watching(root, wait_first=False) as loop:
        pids = await wait_for_pids(pids_dir, 2)  # both rows of the start iteration are hanging
        assert all(process_alive(pid) for pid in pids)

        write_target(root, {"a": "A", "b": "wrong"})  # the fast version
        report, summary = await loop.wait_for(1)
        await wait_all_gone(pids)
        await asyncio.sleep(QUIET_S)

        assert [t.kind for t in loop.requested] == ["start", "change"]
        assert len(loop.completed) == 1  # the cancelled start iteration never reported
        assert report.trigger == Trigger("change", ("target.py",))
        assert verdicts(report) == {"question a": "PASS", "question b": "FAIL"}
        assert "still failing: 'question b'" in progress_line(summary)
    assert recorded(root) == [Trigger("change", ("target.py",))]


# -- malformed files ---------------------------------------------------------------------------------


async def test_a_malformed_save_is_reported_and_the_next_good_save_recovers(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    set_file = root / "evals" / "default" / "eval-sets" / "qa.json"
    good = set_file.read_text(encoding="utf-8")
    async with watching(root) as loop:
        set_file.write_text(good[: len(good) // 2], encoding="utf-8")  # caught half-written
        report, summary = await loop.wait_for(2)
        assert [Path(p.file).name for p in report.error_problems] == ["qa.json"], report.problems
        assert "problem: evals/default/eval-sets/qa.json: is not valid JSON" in progress_line(summary)
        assert not loop.task.done()  # still watching

        set_file.write_text(good, encoding="utf-8")
        report, summary = await loop.wait_for(3)
        assert report.error_problems == []
        assert verdicts(report) == {"question a": "PASS", "question b": "PASS"}
        assert summary.green


async def test_evals_folder_gone_for_a_moment_is_a_notice_and_the_loop_keeps_watching(tmp_path: Path) -> None:
    """`git checkout` of a branch without evals/, or a rename: no iteration, a notice, then recovery."""
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    async with watching(root) as loop:
        (root / "evals").rename(tmp_path / "evals.away")
        await loop.until(lambda: loop.notices, "a notice")
        assert loop.notices[0].startswith("iteration not run: no eval files in ")
        assert len(loop.completed) == 1

        (tmp_path / "evals.away").rename(root / "evals")
        report, _ = await loop.wait_for(2)
        assert verdicts(report) == {"question a": "PASS", "question b": "PASS"}
        assert not loop.task.done()


async def test_a_broken_target_is_an_error_row_and_fixing_it_recovers(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    target = root / "target.py"
    good = target.read_text(encoding="utf-8")
    async with watching(root) as loop:
        target.write_text(good + "\nthis is not python(\n", encoding="utf-8")
        report, _ = await loop.wait_for(2)
        assert set(verdicts(report).values()) == {"ERROR"}
        assert "SyntaxError" in report.results[0].detail

        target.write_text(good, encoding="utf-8")
        report, summary = await loop.wait_for(3)
        assert set(verdicts(report).values()) == {"PASS"}
        assert sorted(summary.fixed) == ["question a", "question b"]


# -- what does not start an iteration ----------------------------------------------------------------

IGNORED_WRITES = [
    ".workbench/scratch.txt",
    ".git/index",
    ".git/refs/heads/main",
    "__pycache__/target.cpython-311.pyc",
    "stray.pyc",
    "myenv/lib/python3.11/site-packages/pkg/__init__.py",
    "myenv/bin/tool",
    "node_modules/left-pad/index.js",
    ".target.py.swp",
    "4913",
    "target.py~",
]


async def test_ignored_paths_do_not_start_iterations(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "B"})
    (root / "myenv").mkdir()
    (root / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    evals_before = tree_digest(root / "evals")
    async with watching(root) as loop:
        for relative in IGNORED_WRITES:
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n", encoding="utf-8")
        (root / "4913").unlink()  # vim's write probe comes and goes
        await asyncio.sleep(QUIET_S)
        assert [t.kind for t in loop.requested] == ["start"], loop.requested

        write_target(root, {"a": "A", "b": "wrong"})  # the watcher is still alive
        report, _ = await loop.wait_for(2)
        assert report.trigger == Trigger("change", ("target.py",))
        assert [t.kind for t in loop.requested] == ["start", "change"]
    assert tree_digest(root / "evals") == evals_before  # the loop never writes into evals/


async def test_watch_ignore_globs_from_the_config_are_honoured(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "B"}, extra={"watch": {"ignore": ["notes/*", "*.log"]}})
    (root / "notes").mkdir()
    async with watching(root) as loop:
        (root / "notes" / "todo.md").write_text("later\n", encoding="utf-8")
        (root / "run.log").write_text("log\n", encoding="utf-8")
        await asyncio.sleep(QUIET_S)
        assert [t.kind for t in loop.requested] == ["start"], loop.requested


def _allowed(root: Path, relative: str, watch_filter: ChangeFilter | None = None) -> bool:
    watch_filter = watch_filter or ChangeFilter(root, [])
    return watch_filter(watchfiles.Change.modified, str(root / relative))


@pytest.mark.parametrize("relative", [
    *IGNORED_WRITES, ".hg/store/data", "venv/lib/x.py", ".venv/bin/python", "src/__pycache__/m.cpython-311.pyc",
    "web/node_modules/react/index.js", "notes.txt.swo", ".#target.py", "#target.py#", ".workbench",
])
def test_the_filter_ignores_tool_state_vcs_caches_virtualenvs_and_editor_files(tmp_path: Path,
                                                                                relative: str) -> None:
    (tmp_path / "myenv").mkdir()
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    assert not _allowed(tmp_path, relative)


@pytest.mark.parametrize("relative", ["target.py", "evals/default/eval-sets/qa.json", "src/pkg/module.py",
                                      "workbench.toml", "data/env.json", "builder.py", "git_notes.md"])
def test_the_filter_lets_project_files_through(tmp_path: Path, relative: str) -> None:
    assert _allowed(tmp_path, relative)


def test_a_virtualenv_created_while_watching_is_ignored_once_it_has_pyvenv_cfg(tmp_path: Path) -> None:
    """`python -m venv` makes bin/ before it writes pyvenv.cfg; pip's files after that are ignored."""
    watch_filter = ChangeFilter(tmp_path, [])
    (tmp_path / "newenv" / "bin").mkdir(parents=True)
    assert _allowed(tmp_path, "newenv/bin/python", watch_filter)  # not a virtualenv (yet)
    (tmp_path / "newenv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    assert not _allowed(tmp_path, "newenv/bin/pip", watch_filter)
    assert not _allowed(tmp_path, "newenv", watch_filter)


# -- progress and stall --------------------------------------------------------------------------------


async def test_the_progress_line_names_the_changed_file_the_fixed_rows_and_what_still_fails(
        tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong", "c": "wrong"}, questions="abc")
    async with watching(root) as loop:
        first = progress_line(loop.completed[0][1])
        assert first.startswith("iteration 1 (start): 1/3 rows pass in ")
        write_target(root, {"a": "A", "b": "B", "c": "wrong"})
        _, summary = await loop.wait_for(2)
    line = progress_line(summary)
    assert line.startswith("iteration 2 (changed target.py): 2/3 rows pass (+1) in ")
    assert "fixed: 'question b'" in line
    assert "still failing: 'question c' (answer: expected \"C\", got \"wrong\")" in line
    assert "stalled" not in line


async def test_the_loop_says_it_is_stalled_after_iterations_without_more_passes(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"}, extra={"watch": {"stall_after": 2}})
    async with watching(root) as loop:
        lines = [progress_line(loop.completed[0][1])]
        for attempt in range(1, 3):
            write_target(root, {"a": "A", "b": f"still wrong {attempt}"})
            lines.append(progress_line((await loop.wait_for(attempt + 1))[1]))
        write_target(root, {"a": "A", "b": "B"})
        lines.append(progress_line((await loop.wait_for(4))[1]))
    assert ["stalled" in line for line in lines] == [False, False, True, False], lines
    assert "stalled: no improvement in passes for 2 iterations" in lines[2]
    assert "all green" in lines[3]


async def test_stall_defaults_to_three_iterations_without_more_passes(tmp_path: Path) -> None:
    root = qa_project(tmp_path, {"a": "A", "b": "wrong"})
    summaries: list[IterationSummary] = []
    session = Session(load_config(root), on_iteration=lambda _report, summary: summaries.append(summary))
    try:
        for _ in range(5):
            await session.iterate_now(Trigger("manual"))
    finally:
        await session.aclose()
    stalled = ["stalled: no improvement in passes for" in progress_line(s) for s in summaries]
    assert stalled == [False, False, False, True, True]
