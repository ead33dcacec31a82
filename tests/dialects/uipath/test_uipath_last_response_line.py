"""Seed 003 §2: the raw output is the `response` of the LAST `Response task evaluated successfully` line.
When that line is not a JSON object — cut off, or followed by a non-JSON value — the row is an ERROR
naming the line, never scored on an earlier Response line's output (issue 22: that was a false green)."""

from __future__ import annotations

import json

import pytest
from helpers.cli import invoke_workbench
from helpers.project import EXACT, UIP_CONFIG, WORKFLOW_JSON, make_project, row
from helpers.runners import run_row

from workbench.config import load_config
from workbench.runners import make_runner
from workbench.runners.uip import UipError, raw_output_from_log

GOOD = {"response": {"grade": "PASS"}}
PREFIX = '2024-05-01 [debug] Response task evaluated successfully for "Response_1": '


def _log(last_payload: str) -> str:
    """A log whose earlier Response line is well-formed and whose last one ends with `last_payload`."""
    return "\n".join([f'{PREFIX.replace("_1", "_0")}{json.dumps(GOOD)}', "Evaluating Response_1",
                      f"{PREFIX}{last_payload}", "Workflow finished"])


@pytest.mark.parametrize(("payload", "words"), [
    ('{"response": {"grade": "PA', "is not a JSON object"),      # cut off
    ("null", "is followed by null, not a JSON object"),
    ('"done"', "is followed by a string, not a JSON object"),
    ("42", "is followed by a number, not a JSON object"),
    ('[{"response": 1}]', "is followed by an array, not a JSON object"),
    ("", "is followed by nothing"),
    ('{"response": 1} and more', "is not a JSON object"),       # a value with something after it
])
def test_a_last_response_line_that_is_not_an_object_is_an_error_naming_it(payload, words):
    with pytest.raises(UipError) as info:
        raw_output_from_log(_log(payload))
    message = str(info.value)
    assert words in message
    assert "line 3 of the debug log" in message, "it names the line"
    assert (PREFIX + payload)[-60:].strip() in message, "it shows the line"
    assert "an earlier Response line is not the output" in message


def test_a_well_formed_last_line_is_still_read():
    assert raw_output_from_log(_log(json.dumps({"response": {"sum": 5}}))) == {"sum": 5}


@pytest.mark.parametrize("last", ['{"response": {"grade": "PA', "null", "done"])
def test_the_row_is_an_error_not_a_pass_on_the_earlier_line(tmp_path, last):
    """End to end through the stand-in uip: the earlier line would make this row PASS."""
    earlier = {"decoy": "an earlier Response line, not the output"}  # what fake_uip logs first
    root = make_project(tmp_path / "p", config=UIP_CONFIG, files={"Workflow.json": WORKFLOW_JSON},
                        sets={"s": [row("cut", {"last_response": last}, earlier)]})
    proc = invoke_workbench("run", str(root), "--json")
    report = json.loads(proc.stdout)
    assert proc.returncode == 1, proc.stderr
    [result] = report["results"]
    assert result["verdict"] == "ERROR" and result["evaluator"] == EXACT
    assert "last 'Response task evaluated successfully' line" in result["detail"]
    assert last in result["detail"]


def test_the_runner_names_the_line_in_the_rows_error(tmp_path):
    make_project(tmp_path, config=UIP_CONFIG, files={"Workflow.json": WORKFLOW_JSON})
    outcome = run_row(make_runner(load_config(tmp_path)), {"last_response": "null"})
    assert not outcome.ok and outcome.output is None
    assert "line 5 of the debug log" in outcome.error  # Starting, Input arguments, decoy, Evaluating, here
