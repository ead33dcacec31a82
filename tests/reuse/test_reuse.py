"""Pay once: when nothing but evals/ changed, rows whose inputs and runner settings are unchanged are
re-scored from their last run instead of running again. A target that counts its invocations proves
how many rows ran."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from helpers.cli import invoke_json
from helpers.project import evaluator, make_project, row

from workbench.config import load_config
from workbench.events import IterationReport, Trigger
from workbench.session import Session

COUNTING_TARGET = """\
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs.log"), "a") as log:
    log.write(os.environ["WORKBENCH_ROW_ID"] + "\\n")
print(json.dumps({"double": data["x"] * 2}))
"""
SET_FILE = "evals/default/eval-sets/doubles.json"


def _project(tmp_path: Path, extra_config: str = "") -> Path:
    rows = [row(f"r{i}", {"x": i}, {"double": i * 2}) for i in range(3)]
    root = make_project(tmp_path, sets={"doubles": rows}, evaluators={"exact-match-evaluator": evaluator("*")},
                        config=f'[runner]\nkind = "command"\ncommand = ["{sys.executable}", "target.py"]\n'
                               f'timeout = 20\n{extra_config}\n[watch]\nignore = ["runs.log"]\n',
                        files={"target.py": COUNTING_TARGET})
    return root


def _runs(root: Path) -> list[str]:
    log = root / "runs.log"
    rows = log.read_text().split() if log.exists() else []
    log.unlink(missing_ok=True)
    return rows


def _edit_set(root: Path, change) -> None:  # type: ignore[no-untyped-def]
    path = root / SET_FILE
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2))


class Loop:
    """A Session driven by hand: one iteration per call, as the watcher would start them."""

    def __init__(self, root: Path) -> None:
        self.root = root

    async def __aenter__(self) -> Loop:
        self.session = Session(load_config(self.root), record=False)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.aclose()

    async def iterate(self, kind: str, *files: str) -> IterationReport:
        report = await self.session.request(Trigger(kind, files))
        assert report is not None
        return report


def _verdicts(report: IterationReport) -> dict[str, str]:
    return {r.row_id: r.verdict.value for r in report.results}


def _after_start(root: Path, body: Callable[[Loop, list[str]], Awaitable[None]]) -> None:
    """Open a Loop on `root`, run its start iteration, then hand `body` the loop and the rows that ran."""

    async def go() -> None:
        async with Loop(root) as loop:
            await loop.iterate("start")
            await body(loop, _runs(root))

    asyncio.run(go())


def test_expectation_edit_rescores_without_running(tmp_path: Path) -> None:
    root = _project(tmp_path)

    async def body(loop: Loop, first: list[str]) -> None:
        assert sorted(first) == ["r0", "r1", "r2"]
        _edit_set(root, lambda doc: doc["evaluations"][1]["evaluationCriterias"]["exact-match-evaluator"]
                  .update(expectedOutput={"double": 99}))
        report = await loop.iterate("change", SET_FILE)
        assert _runs(root) == []
        assert _verdicts(report) == {"r0": "PASS", "r1": "FAIL", "r2": "PASS"}
        assert all(r.reused for r in report.results)
        assert report.reused_rows == 3 and report.ran_rows == 0
        assert report.results[0].to_json()["reused"] is True

    _after_start(root, body)


def test_evaluator_edit_rescores_without_running(tmp_path: Path) -> None:
    root = _project(tmp_path)

    async def body(loop: Loop, first: list[str]) -> None:
        path = root / "evals/default/evaluators/exact-match-evaluator.json"
        path.write_text(json.dumps(evaluator("missing.path")))
        report = await loop.iterate("change", "evals/default/evaluators/exact-match-evaluator.json")
        assert _runs(root) == []
        assert set(_verdicts(report).values()) == {"FAIL"}  # the new path is in no output

    _after_start(root, body)


def test_a_new_row_runs_alone_and_an_inputs_edit_reruns_that_row(tmp_path: Path) -> None:
    root = _project(tmp_path)

    async def body(loop: Loop, first: list[str]) -> None:
        _edit_set(root, lambda doc: doc["evaluations"].append(row("r3", {"x": 3}, {"double": 6})))
        report = await loop.iterate("change", SET_FILE)
        assert _runs(root) == ["r3"]
        assert report.reused_rows == 3 and report.ran_rows == 1
        _edit_set(root, lambda doc: doc["evaluations"][0].update(inputs={"x": 10}))
        report = await loop.iterate("change", SET_FILE)
        assert _runs(root) == ["r0"]
        assert _verdicts(report)["r0"] == "FAIL"

    _after_start(root, body)


def test_a_target_edit_or_a_settings_edit_reruns_everything(tmp_path: Path) -> None:
    root = _project(tmp_path)

    async def body(loop: Loop, first: list[str]) -> None:
        (root / "target.py").write_text(COUNTING_TARGET + "\n# edited\n")
        await loop.iterate("change", "target.py")
        assert sorted(_runs(root)) == ["r0", "r1", "r2"]
        toml = root / "workbench.toml"
        toml.write_text(toml.read_text().replace("timeout = 20", "timeout = 21"))
        await loop.iterate("change", "workbench.toml", SET_FILE)
        assert sorted(_runs(root)) == ["r0", "r1", "r2"]
        await loop.iterate("manual")  # R
        assert sorted(_runs(root)) == ["r0", "r1", "r2"]

    _after_start(root, body)


def test_a_cancelled_code_change_is_not_forgotten(tmp_path: Path) -> None:
    """A target edit whose iteration was cancelled by an evals/ edit must still re-run every row."""
    root = _project(tmp_path)

    async def body(loop: Loop, first: list[str]) -> None:
        (root / "target.py").write_text(COUNTING_TARGET + "\n# edited\n")
        loop.session.request(Trigger("change", ("target.py",)))
        report = await loop.iterate("change", SET_FILE)  # cancels the one above
        assert report.reused_rows == 0
        assert sorted(_runs(root)) == ["r0", "r1", "r2"]

    _after_start(root, body)


def test_reuse_can_be_turned_off(tmp_path: Path) -> None:
    root = _project(tmp_path, "\n[cache]\nreuse = false\n")

    async def body(loop: Loop, first: list[str]) -> None:
        report = await loop.iterate("change", SET_FILE)
        assert sorted(_runs(root)) == ["r0", "r1", "r2"]
        assert report.reused_rows == 0

    _after_start(root, body)


def test_run_reuse_rescores_one_shot_runs_until_something_outside_evals_changes(tmp_path: Path) -> None:
    root = _project(tmp_path)
    proc, doc = invoke_json("run", str(root), "--reuse")
    assert proc.returncode == 0, proc.stderr
    assert sorted(_runs(root)) == ["r0", "r1", "r2"]  # nothing recorded yet: everything runs

    _edit_set(root, lambda doc: doc["evaluations"][1]["evaluationCriterias"]["exact-match-evaluator"]
              .update(expectedOutput={"double": 99}))
    proc, doc = invoke_json("run", str(root), "--reuse")
    assert proc.returncode == 1
    assert _runs(root) == []
    assert {r["row_id"]: (r["verdict"], r.get("reused")) for r in doc["results"]} == {
        "r0": ("PASS", True), "r1": ("FAIL", True), "r2": ("PASS", True)}

    proc, doc = invoke_json("run", str(root))  # without --reuse: everything runs
    assert sorted(_runs(root)) == ["r0", "r1", "r2"]

    (root / "data.txt").write_text("a new file outside evals/ changes the fingerprint")
    invoke_json("run", str(root), "--reuse")
    assert sorted(_runs(root)) == ["r0", "r1", "r2"]
    invoke_json("run", str(root), "--reuse")
    assert _runs(root) == []


PYTHON_TARGET = """\
import os

def answer(inputs):
    return {"double": inputs["x"] * 2, "pid": os.getpid()}
"""


def test_python_target_processes_outlive_an_evals_only_change(tmp_path: Path) -> None:
    rows = [row(f"r{i}", {"x": i}, {"double": i * 2}) for i in range(2)]
    root = make_project(tmp_path, sets={"doubles": rows}, evaluators={"exact-match-evaluator": evaluator("double")},
                        config={"kind": "python", "callable": "agent:answer", "concurrency": 1, "timeout": 20},
                        files={"agent.py": PYTHON_TARGET})

    def pids(report: IterationReport) -> set[int]:
        return {r.actual["pid"] for r in report.results if not r.reused}

    async def go() -> None:
        async with Loop(root) as loop:
            first = pids(await loop.iterate("start"))
            _edit_set(root, lambda doc: doc["evaluations"].append(row("r2", {"x": 2}, {"double": 4})))
            second = await loop.iterate("change", SET_FILE)
            assert second.ran_rows == 1 and pids(second) == first  # the same process served the new row
            (root / "agent.py").write_text(PYTHON_TARGET + "\n# edited\n")
            third = await loop.iterate("change", "agent.py")
            assert pids(third).isdisjoint(first)  # code changed: new processes

    asyncio.run(go())


def test_history_remembers_which_results_were_rescored(tmp_path: Path) -> None:
    from workbench.history import HistoryStore

    root = _project(tmp_path)

    async def go() -> None:
        session = Session(load_config(root))
        try:
            await session.request(Trigger("start"))
            _edit_set(root, lambda doc: doc["evaluations"][0]["evaluationCriterias"]["exact-match-evaluator"]
                      .update(expectedOutput={"double": 5}))
            report = await session.request(Trigger("change", (SET_FILE,)))
            assert report is not None and report.number is not None
            number = report.number
        finally:
            await session.aclose()
        with HistoryStore.open(load_config(root)) as store:
            assert all(r.reused for r in store.results(number))
            assert not any(r.reused for r in store.results(number - 1))

    asyncio.run(go())


def test_the_text_report_marks_rescored_results() -> None:
    from workbench.model import Result, Verdict
    from workbench.report.text import format_result

    result = Result("default", "s.json", "r1", "row one", "exact", Verdict.PASS, 1.0, "", duration_ms=12)
    assert "↺" not in format_result(result)
    result.reused = True
    assert format_result(result).startswith("PASS  s.json › row one [exact]  12ms ↺")


def test_run_reuse_without_history_reads_what_is_recorded_and_records_nothing(tmp_path: Path) -> None:
    """docs/history.md: `--no-history` skips recording this run; `--reuse` re-scores from whatever ran last. So the two
    together re-score from the recorded iterations, and leave history and the reuse records as they were."""
    root = _project(tmp_path)
    invoke_json("run", str(root))
    assert sorted(_runs(root)) == ["r0", "r1", "r2"]
    records = (root / ".workbench" / "reuse.json").read_bytes()
    proc, doc = invoke_json("run", str(root), "--reuse", "--explain-reuse", "--no-history")
    assert proc.returncode == 0, proc.stderr
    assert _runs(root) == []  # re-scored from iteration 1, not run
    assert all(r.get("reused") for r in doc["results"])
    assert all(entry["reused"] and entry["reason"].startswith("re-scored from iteration 1")
               for entry in doc["reuse"]["rows"]), doc["reuse"]
    assert (root / ".workbench" / "reuse.json").read_bytes() == records  # nothing of this run was recorded
    history, listed = invoke_json("history", str(root))
    assert history.returncode == 0 and [i["number"] for i in listed] == [1]
