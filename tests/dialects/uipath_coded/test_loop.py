"""Everything else works unchanged on a `uipath-coded` project (issue 26): the re-scoring proof (an eval-file-only
edit re-scores every row and runs none; an edit of main.py, or of a module it imports, runs every row), history,
the watch loop, `workbench check`, `run --brief` and the MCP `run`, the JUnit/HTML/Markdown reports, and Ray.

Most rows run in the test interpreter (main.py imports no `uipath`: the child's fallback calls main() with the
inputs dict). One test runs them in the SDK venv (`uipath_sdk`), where `uipath.tracing.traced` records real
spans: re-scoring a tool-call evaluator from the recorded trace must give exactly what a fresh run gives.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from coded_sdk import UiPathSdk
from coded_sdk_project import MAIN_PY as TRACED_MAIN_PY
from helpers.agent import mcp_session, text_of
from helpers.cli import cli_env, invoke_json, invoke_workbench, run_json
from helpers.rescoring import foreseen
from helpers.watch import watching

from workbench.events import IterationReport, Trigger, TriggerKind

SET_FILE = "evaluations/eval-sets/capitals.json"
EVALUATOR_FILE = "evaluations/evaluators/exact.json"

EXACT = {"version": "1.0", "id": "Capital", "name": "Capital matches", "evaluatorTypeId": "uipath-exact-match",
         "evaluatorConfig": {"name": "Capital matches", "targetOutputKey": "capital"}}
CONTAINS = {"version": "1.0", "id": "Mentions", "name": "Mentions the country", "evaluatorTypeId": "uipath-contains",
            "evaluatorConfig": {"name": "Mentions the country", "targetOutputKey": "answer",
                                "defaultEvaluationCriteria": {"searchText": "capital"}}}

MAIN_PY = '''\
from capitals import CAPITALS


def main(input):
    country = input["country"]
    capital = CAPITALS.get(country.lower(), "unknown")
    return {"capital": capital, "answer": f"The capital of {country} is {capital}."}
'''
CAPITALS_PY = 'CAPITALS = {"france": "Paris", "japan": "Tokyo", "kenya": "Mombasa"}\n'  # Kenya's is wrong


def capital_row(country: str, capital: str) -> dict[str, Any]:
    return {"id": country.lower(), "name": f"the capital of {country}", "inputs": {"country": country},
            "evaluationCriterias": {"Capital": {"expectedOutput": {"capital": capital}}, "Mentions": None}}


ROWS = [capital_row("France", "Paris"), capital_row("Japan", "Tokyo"), capital_row("Kenya", "Nairobi")]


def write(path: Path, content: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2) + "\n", encoding="utf-8")


def capitals_project(root: Path, *, toml: str | None = None, rows: list[dict[str, Any]] | None = None) -> Path:
    """uipath.json -> main.py:main, which imports capitals.py (Kenya's capital wrong), two evaluators, one set."""
    write(root / "uipath.json", {"functions": {"main": "main.py:main"}})
    write(root / "main.py", MAIN_PY)
    write(root / "capitals.py", CAPITALS_PY)
    write(root / EVALUATOR_FILE, EXACT)
    write(root / "evaluations/evaluators/contains.json", CONTAINS)
    write(root / SET_FILE, {"version": "1.0", "id": "capitals", "name": "Capitals",
                            "evaluatorRefs": ["Capital", "Mentions"],
                            "evaluations": rows if rows is not None else ROWS})
    if toml is not None:
        write(root / "workbench.toml", toml)
    return root


def edit_json(path: Path, change: Any) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    write(path, doc)


def run_reuse(root: Path, *extra: str) -> dict[str, Any]:
    proc, doc = invoke_json("run", str(root), "--reuse", *extra)
    assert "Traceback" not in proc.stderr, proc.stderr
    return doc


def outcomes(doc: dict[str, Any]) -> dict[tuple[str, str], tuple[str, bool]]:
    """{(row id, evaluator): (verdict, re-scored?)}"""
    return {(r["row_id"], r["evaluator"]): (r["verdict"], bool(r.get("reused"))) for r in doc["results"]}


def reused(doc: dict[str, Any]) -> set[bool]:
    return {bool(r.get("reused")) for r in doc["results"]}


def verdicts(doc: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {key: verdict for key, (verdict, _) in outcomes(doc).items()}


# -- the re-scoring proof ------------------------------------------------------------------------------


def test_eval_file_edits_are_rescored_and_code_edits_run_every_row(tmp_path: Path) -> None:
    root = capitals_project(tmp_path / "p")
    first = run_reuse(root)
    assert reused(first) == {False} and len(first["results"]) == 6
    assert verdicts(first)[("kenya", "Capital")] == "FAIL" and verdicts(first)[("france", "Capital")] == "PASS"

    # An eval-file-only edit (a set's expectation, an evaluator's config): re-scored, nothing runs.
    edit_json(root / SET_FILE, lambda doc: doc["evaluations"][2]["evaluationCriterias"]["Capital"].update(
        expectedOutput={"capital": "MOMBASA"}))
    edit_json(root / EVALUATOR_FILE, lambda doc: doc["evaluatorConfig"].update(caseSensitive=True))
    assert set(foreseen(root).values()) and all("re-scored" in why for why in foreseen(root).values())
    rescored = run_reuse(root, "--explain-reuse")
    assert reused(rescored) == {True}, outcomes(rescored)
    assert verdicts(rescored)[("kenya", "Capital")] == "FAIL", "case-sensitive now: 'Mombasa' != 'MOMBASA'"
    edit_json(root / EVALUATOR_FILE, lambda doc: doc["evaluatorConfig"].update(caseSensitive=False))
    assert verdicts(run_reuse(root))[("kenya", "Capital")] == "PASS"

    # main.py changed: every row runs.
    (root / "main.py").write_text(MAIN_PY.replace("The capital of", "The capital city of"), encoding="utf-8")
    assert reused(run_reuse(root)) == {False}
    assert reused(run_reuse(root)) == {True}, "unchanged since: re-scored again"

    # A module main.py imports changed: every row runs, with the new answer.
    (root / "capitals.py").write_text(CAPITALS_PY.replace("Mombasa", "Nairobi"), encoding="utf-8")
    after = run_reuse(root)
    assert reused(after) == {False}
    assert verdicts(after)[("kenya", "Capital")] == "FAIL", "Nairobi now, and the row expects MOMBASA"

    history = invoke_workbench("history", str(root), "--json")
    iterations = json.loads(history.stdout)
    assert [it["trigger"]["kind"] for it in iterations] == ["run"] * 6
    assert [(it["rows_total"], it["passed"]) for it in iterations] == [(3, 5), (3, 5), (3, 6), (3, 6), (3, 6), (3, 5)]


def test_the_uipath_json_entry_point_is_part_of_what_a_row_depends_on(tmp_path: Path) -> None:
    root = capitals_project(tmp_path / "p")
    write(root / "other.py", "def main(input):\n    return {'capital': 'Nairobi', 'answer': 'a capital'}\n")
    assert reused(run_reuse(root)) == {False}
    write(root / "uipath.json", {"functions": {"main": "other.py:main"}})
    moved = run_reuse(root)
    assert reused(moved) == {False}, "another function runs the rows: none may be re-scored"
    assert verdicts(moved)[("kenya", "Capital")] == "PASS" and verdicts(moved)[("france", "Capital")] == "FAIL"


def test_tool_call_scores_rescored_from_recorded_spans_equal_a_fresh_run(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    """With the SDK, `traced` records real spans: the trace is kept with the run, so changing a tool-call
    evaluator's expectation re-scores from it — the same scores a fresh run of every row gives."""
    order = {"version": "1.0", "id": "Order", "name": "Order", "evaluatorTypeId": "uipath-tool-call-order",
             "evaluatorConfig": {"name": "Order", "strict": False,
                                 "defaultEvaluationCriteria": {"toolCallsOrder": ["lookup", "weather", "book"]}}}
    rows = [{"id": f"r{n}", "name": f"r{n}", "inputs": {"order": tools, "answer": "x"},
             "evaluationCriterias": {"Order": None}}
            for n, tools in enumerate([["lookup", "weather", "book"], ["book", "weather", "lookup"], ["weather"]])]
    root = tmp_path / "traced"
    write(root / "uipath.json", {"functions": {"main": "main.py:main"}})
    write(root / "main.py", TRACED_MAIN_PY)
    write(root / "evaluations/evaluators/order.json", order)
    write(root / SET_FILE, {"version": "1.0", "id": "t", "name": "t", "evaluatorRefs": ["Order"], "evaluations": rows})
    write(root / "workbench.toml", f"[runner]\ncommand = [{json.dumps(str(uipath_sdk.python))}]\n")

    first = run_reuse(root)
    assert reused(first) == {False}
    assert [r["score"] for r in first["results"]] == pytest.approx([1.0, 1 / 3, 1 / 3])
    assert all(r["trace"] for r in first["results"]), "the spans became the rows' traces"

    edit_json(root / "evaluations/evaluators/order.json", lambda doc: doc["evaluatorConfig"].update(
        defaultEvaluationCriteria={"toolCallsOrder": ["book", "weather", "lookup"]}))
    rescored = run_reuse(root)
    assert reused(rescored) == {True}
    _, fresh = invoke_json("run", str(root))
    assert reused(fresh) == {False}
    assert [r["score"] for r in rescored["results"]] == [r["score"] for r in fresh["results"]]
    assert [r["score"] for r in fresh["results"]] == pytest.approx([1 / 3, 1.0, 1 / 3])


# -- the watch loop ------------------------------------------------------------------------------------


def report_verdicts(report: IterationReport) -> dict[tuple[str, str], str]:
    return {(r.row_id, r.evaluator): r.verdict.value for r in report.results}


async def test_a_watch_session_reruns_on_a_code_edit_and_rescores_an_eval_edit(tmp_path: Path) -> None:
    root = capitals_project(tmp_path / "p")
    async with watching(root) as loop:
        first, _ = loop.completed[0]
        assert report_verdicts(first)[("kenya", "Capital")] == "FAIL"

        (root / "capitals.py").write_text(CAPITALS_PY.replace("Mombasa", "Nairobi"), encoding="utf-8")
        fixed, summary = await loop.wait_for(2)
        assert fixed.trigger == Trigger(TriggerKind.CHANGE, ("capitals.py",))
        assert set(report_verdicts(fixed).values()) == {"PASS"} and summary.green
        assert fixed.reused_rows == 0 and fixed.ran_rows == 3

        edit_json(root / SET_FILE, lambda doc: doc["evaluations"][0]["evaluationCriterias"]["Capital"].update(
            expectedOutput={"capital": "Lyon"}))
        rescored, summary = await loop.wait_for(3)
        assert rescored.trigger == Trigger(TriggerKind.CHANGE, (SET_FILE,))
        assert rescored.reused_rows == 3 and rescored.ran_rows == 0
        assert report_verdicts(rescored)[("france", "Capital")] == "FAIL" and not summary.green


# -- check ---------------------------------------------------------------------------------------------


def test_check_passes_a_healthy_project_and_fails_a_broken_one_naming_the_file(tmp_path: Path) -> None:
    root = capitals_project(tmp_path / "p")
    healthy = invoke_workbench("check", str(root))
    assert healthy.returncode == 0 and "check passed: 0 errors" in healthy.stdout, healthy.stdout + healthy.stderr

    edit_json(root / SET_FILE, lambda doc: doc.update(evaluatorRefs=["Capital", "Nope"]))
    write(root / "evaluations/evaluators/broken.json", "{not json")
    broken = invoke_workbench("check", str(root))
    assert broken.returncode == 1, broken.stdout
    assert "evaluations/evaluators/broken.json: is not valid JSON at line 1" in broken.stdout
    assert "'Nope'" in broken.stdout and "check failed" in broken.stdout
    assert "Traceback" not in broken.stdout + broken.stderr


# -- the agent interface -------------------------------------------------------------------------------


def test_run_brief_names_the_failing_coded_row_and_its_difference(tmp_path: Path) -> None:
    root = capitals_project(tmp_path / "p")
    brief = invoke_workbench("run", str(root), "--brief")
    assert brief.returncode == 1
    assert "2/3 rows pass" in brief.stdout
    assert "FAIL  capitals › the capital of Kenya — [Capital]" in brief.stdout, brief.stdout
    assert "'Mombasa', expected 'Nairobi'" in brief.stdout


@pytest.mark.process("the MCP server on stdio, started as a coding agent starts it")
async def test_the_mcp_run_and_accept_tools_on_a_coded_project(tmp_path: Path) -> None:
    """The agent's loop: run (the digest names the coded row and its difference), accept (only the one
    expectation's line is written), run again (green, re-scored: nothing ran)."""
    root = capitals_project(tmp_path / "p")
    before = (root / SET_FILE).read_text(encoding="utf-8")
    async with mcp_session(root) as session:
        result = await session.call_tool("run", {})
        digest = result.structured_content
        assert not result.is_error and digest["complete"] and not digest["green"]
        assert digest["rows"] == {"total": 3, "passing": 2, "failing": 1, "erroring": 0}
        [failing] = digest["failing"]
        assert failing["row"] == "the capital of Kenya"
        [failure] = failing["failures"]
        assert failure["evaluator"] == "Capital" and "Nairobi" in failure["digest"]
        assert "the capital of Kenya" in text_of(result)

        accepted = await session.call_tool("accept", {"rows": ["the capital of Kenya"]})
        assert not accepted.is_error, text_of(accepted)
        [outcome] = accepted.structured_content["accepted"]
        assert outcome["written"] and outcome["file"] == SET_FILE, outcome
        after = (root / SET_FILE).read_text(encoding="utf-8")
        changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
        assert changed == [('            "capital": "Nairobi"', '            "capital": "Mombasa"')], changed

        rerun = await session.call_tool("run", {})
        assert rerun.structured_content["green"], text_of(rerun)
        assert rerun.structured_content["rescored_rows"] == 3, "only an expectation changed: nothing ran"


GUID = "ABCDEF01-2345-6789-ABCD-EF0123456789"


def test_a_row_is_selected_and_accepted_by_its_id_as_the_file_writes_it(tmp_path: Path) -> None:
    """The SDK compares GUIDs without case, and workbench tracks them lower-cased; a user copies the id from
    the file, upper case included: `--row` must find it for run and accept alike."""
    rows = [capital_row("France", "Paris"), {**capital_row("Kenya", "Nairobi"), "id": GUID}]
    root = capitals_project(tmp_path / "p", rows=rows)
    proc, doc = invoke_json("run", str(root), "--row", GUID)
    assert {r["row_name"] for r in doc["results"]} == {"the capital of Kenya"}, proc.stdout + proc.stderr
    accept = invoke_workbench("accept", str(root), "--set", "capitals", "--row", GUID)
    assert accept.returncode == 0, accept.stdout + accept.stderr
    assert '"capital": "Mombasa"' in (root / SET_FILE).read_text(encoding="utf-8")


# -- reports -------------------------------------------------------------------------------------------


def test_junit_html_and_markdown_reports_hold_the_coded_rows(tmp_path: Path) -> None:
    root = capitals_project(tmp_path / "p")
    junit, html, md = tmp_path / "out.xml", tmp_path / "out.html", tmp_path / "out.md"
    proc = invoke_workbench("run", str(root), "--junit", str(junit), "--html", str(html), "--md", str(md))
    assert proc.returncode == 1, proc.stdout + proc.stderr

    cases = {case.get("name"): case for case in ElementTree.parse(junit).getroot().iter("testcase")}
    assert set(cases) == {f"the capital of {country} [{evaluator}]" for country in ("France", "Japan", "Kenya")
                          for evaluator in ("Capital", "Mentions")}
    failure = cases["the capital of Kenya [Capital]"].find("failure")
    assert failure is not None and "Mombasa" in (failure.get("message") or "")
    assert cases["the capital of France [Capital]"].find("failure") is None

    page = html.read_text(encoding="utf-8")
    for words in ("the capital of Kenya", "Mombasa", "Capital", "Mentions", "uipath-exact-match"):
        assert words in page, words

    digest = md.read_text(encoding="utf-8")
    assert "2/3 rows pass" in digest and "the capital of Kenya" in digest and "Mombasa" in digest


# -- Ray -----------------------------------------------------------------------------------------------

WHERE_PY = '''\
import os


def main(input):
    return {"capital": "Paris" if input["country"] == "France" else "?", "answer": "capital",
            "file": os.path.abspath(__file__), "cwd": os.getcwd()}
'''


@pytest.mark.process("starts and stops a local Ray of its own, which must not stay in the test process")
@pytest.mark.xdist_group("ray")
def test_on_a_local_ray_the_rows_get_the_same_verdicts_and_run_the_shipped_project(tmp_path: Path) -> None:
    """`[cluster] engine = "ray"`: the rows run on the cluster in the project shipped there, so main.py must be
    the shipped copy (on a remote node the driver's path does not exist)."""
    pytest.importorskip("ray")
    root = capitals_project(tmp_path / "p", rows=ROWS[:2])
    write(root / "main.py", WHERE_PY)
    _, local = invoke_json("run", str(root))
    _, remote = run_json("run", str(root), "--cluster", "local", env=cli_env(), timeout=240)  # its own Ray, stopped
    assert verdicts(remote) == verdicts(local) and "FAIL" in verdicts(remote).values()
    for result in remote["results"]:
        actual = result["actual"]
        assert actual["cwd"] != str(root), "the row ran on the cluster, in the shipped project"
        assert Path(actual["file"]).parent == Path(actual["cwd"]), (
            f"the row ran the driver's {actual['file']}, not the shipped main.py in {actual['cwd']}")
