"""`add-row --from-run`: a recorded run becomes a scripted case (or a row of a set) without running again,
and the new case replays to the same status and output — for a traced command target and for a replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.checks import tree_digest
from helpers.cli import invoke_json, invoke_workbench
from helpers.project import COMMAND_CONFIG, UIP_CONFIG, WORKFLOW_JSON, make_project, row
from helpers.replays import TOOLS, copy_example

AGENT = '''\
import json, os, sys
inputs = json.load(sys.stdin)
def trace(event):
    with open(os.environ["WORKBENCH_TRACE"], "a") as handle:
        handle.write(json.dumps(event) + "\\n")
order = inputs["orderId"]
trace({"type": "tool_call", "name": "lookup_order", "args": {"orderId": order}, "output": {"total": 39.0}})
trace({"type": "tool_call", "name": "issue_refund", "args": {"orderId": order}, "output": {"status": "refunded"}})
trace({"type": "approval.decided", "approved": True})
trace({"type": "usage", "tokens": 120})
print(json.dumps({"reply": f"Refunded order {order}.", "refunded": True}))
'''
AGENT_CONFIG = {"kind": "command", "command": ["{python}", "agent.py"], "timeout": 20}


def traced_project(root: Path) -> Path:
    make_project(root, sets={"support": [row("refund a kettle", {"orderId": "A-1001"},
                                             {"reply": "Refunded order A-1001.", "refunded": True}, id="r1")]},
                 config=AGENT_CONFIG, files={"agent.py": AGENT, "tools.json": json.dumps(TOOLS)})
    return root


def results_by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["row_name"]: r for r in doc["results"]}


def test_a_traced_command_targets_run_becomes_a_case_that_replays_the_same(tmp_path: Path) -> None:
    root = traced_project(tmp_path / "p")
    first, doc = invoke_json("run", str(root))
    assert first.returncode == 0, first.stdout + first.stderr
    recorded = results_by_name(doc)["refund a kettle"]

    proc = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", "refund a kettle", "--script",
                         "--name", "kettle")
    assert proc.returncode == 0, proc.stderr
    assert "added case 'kettle' as evals/kettle.script.json, from row 'refund a kettle'" in proc.stdout
    assert "files a tool wrote while it ran are not carried over" in proc.stderr
    case = json.loads((root / "evals" / "kettle.script.json").read_text())
    assert case["script"] == [
        {"type": "tool.call", "toolName": "lookup_order", "arguments": {"orderId": "A-1001"},
         "result": {"total": 39.0}},
        {"type": "tool.call", "toolName": "issue_refund", "arguments": {"orderId": "A-1001"},
         "result": {"status": "refunded"}},
        {"type": "approval.decide", "approved": True},
        {"type": "assistant.output", "content": '{"reply":"Refunded order A-1001.","refunded":true}'},
    ]  # the output as text: `content` is what the agent says, a string (seed 001)
    assert case["expect"] == {"status": "completed",
                              "outputContains": '{"reply":"Refunded order A-1001.","refunded":true}'}

    again, doc = invoke_json("run", str(root), "--set", "scripts")
    assert again.returncode == 0, again.stdout
    replayed = results_by_name(doc)["kettle"]
    assert replayed["verdict"] == "PASS"
    assert replayed["actual"]["status"] == "completed"
    assert json.loads(replayed["actual"]["output"]) == recorded["actual"]


def test_a_uipath_row_run_by_uip_becomes_a_case_with_the_same_output(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", sets={"grading": [row("Verdict: approved?", {"output": "approved"},
                                                              {"result": "approved"}, id="v1")]},
                        config=UIP_CONFIG, files={"Workflow.json": WORKFLOW_JSON})
    first, doc = invoke_json("run", str(root))
    assert first.returncode == 0, first.stdout + first.stderr
    recorded = results_by_name(doc)["Verdict: approved?"]["actual"]
    proc = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", "v1", "--script")
    assert proc.returncode == 0, proc.stderr
    # named by a readable slug of the row's name (issue 22 point 9), as the TUI's `c` dialog proposes — not its id
    case = json.loads((root / "evals" / "verdict-approved.script.json").read_text())
    assert case["script"] == [{"type": "assistant.output", "content": json.dumps(recorded, separators=(",", ":"))}]
    again, doc = invoke_json("run", str(root), "--set", "scripts")
    assert again.returncode == 0, again.stdout
    replayed = results_by_name(doc)["verdict-approved"]["actual"]
    assert replayed["status"] == "completed" and json.loads(replayed["output"]) == recorded


def test_replayed_cases_copied_from_a_run_replay_to_the_same_status_and_output(tmp_path: Path) -> None:
    root = copy_example(tmp_path / "refund-agent")
    _, doc = invoke_json("run", str(root))
    originals = results_by_name(doc)
    names = ("refund-approved", "refund-denied", "refund-held")
    for name in names:
        proc = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", name, "--script",
                             "--name", f"{name}-copy")
        assert proc.returncode == 0, proc.stderr
    copied = json.loads((root / "evals" / "refund-held-copy.script.json").read_text())
    assert copied["script"] == [{"type": "tool.call", "toolName": "issue_refund", "arguments": {"orderId": "A-1001"}}]
    assert copied["expect"] == {"status": "waiting"}
    approved = json.loads((root / "evals" / "refund-approved-copy.script.json").read_text())
    assert [s["type"] for s in approved["script"]] == ["tool.call", "tool.call", "approval.decide", "artifact.write",
                                                       "assistant.output"]
    assert "live" not in approved["script"][0] and approved["script"][0]["result"]["item"] == "Kettle"

    _, doc = invoke_json("run", str(root), "--set", "scripts")
    replayed = results_by_name(doc)
    for name in names:
        copy = replayed[f"{name}-copy"]
        assert copy["verdict"] == "PASS", copy["detail"]
        for key in ("status", "output", "detail", "artifacts"):
            assert copy["actual"].get(key) == originals[name]["actual"].get(key), (name, key)


def test_a_run_becomes_a_row_of_a_set_with_the_recorded_inputs_and_output(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", sets={"grading": [row("echo one", {"output": {"grade": "A"}},
                                                              {"grade": "A"}, id="r1")]}, config=COMMAND_CONFIG)
    assert invoke_workbench("run", str(root)).returncode == 0
    proc = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", "r1", "--set", "grading",
                         "--name", "echo again")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((root / "evals" / "default" / "eval-sets" / "grading.json").read_text())
    new = doc["evaluations"][-1]
    assert new["name"] == "echo again" and new["inputs"] == {"output": {"grade": "A"}}
    assert new["evaluationCriterias"] == {"exact-match-evaluator": {"expectedOutput": {"grade": "A"}}}
    again, result = invoke_json("run", str(root), "--row", "echo again")
    assert again.returncode == 0 and result["results"][0]["verdict"] == "PASS"


def test_refusals_name_what_is_wrong_and_write_nothing(tmp_path: Path) -> None:
    root = copy_example(tmp_path / "refund-agent")
    assert invoke_workbench("run", str(root)).returncode == 1  # one case fails on purpose; it is recorded
    before = tree_digest(root / "evals")

    def refused(*args: str) -> str:
        proc = invoke_workbench("add-row", str(root), "--from-run", *args)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        return proc.stderr

    assert "there is no iteration 9 in the history (the newest is 1)" in refused("9", "--row", "refund-held",
                                                                                 "--script")
    assert "iteration 1 did not run a row 'refund-hold' (its rows: 'refund-approved'" in refused(
        "1", "--row", "refund-hold", "--script")
    assert "evals/refund-held.script.json already exists; choose another --name" in refused(
        "1", "--row", "refund-held", "--script")
    named = root / "evals" / "other.script.json"
    named.write_text(json.dumps({"name": "taken", "script": []}))
    before = tree_digest(root / "evals")
    assert "a case named 'taken' already exists" in refused("1", "--row", "refund-held", "--script", "--name",
                                                            "taken")
    assert "failed its own case in that iteration" in refused("1", "--row", "refund-typo", "--script", "--name", "x")
    assert tree_digest(root / "evals") == before
    usage = invoke_workbench("add-row", str(root), "--from-run", "1", "--script")
    assert usage.returncode == 2 and "--from-run needs --row ROW" in usage.stderr


def test_a_taken_row_name_in_the_set_and_an_errored_run_are_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", sets={"grading": [row("ok", {"output": 1}, 1, id="r1"),
                                                          row("crash", {"exit": 3}, 1, id="r2")]},
                        config=COMMAND_CONFIG)
    invoke_workbench("run", str(root))
    before = tree_digest(root / "evals")
    taken = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", "r1", "--set", "grading")
    assert taken.returncode == 1 and "grading.json already has a row named 'ok'" in taken.stderr
    crashed = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", "crash", "--script")
    assert crashed.returncode == 1 and "row 'crash' ended in ERROR in that iteration" in crashed.stderr
    assert tree_digest(root / "evals") == before
