"""`kind = "uip"` (seed 003 §2), against a stand-in `uip` (tests/fixtures/fake_uip.py) written from the seed.

The raw output is the `response` of the LAST `Response task evaluated successfully` line of the debug log;
the envelope's PascalCased `Data` is never used; a Result other than Success is an ERROR carrying Message.
"""

from __future__ import annotations

import json

import pytest
from helpers.checks import survivors
from helpers.project import UIP_CONFIG, WORKFLOW_JSON, make_project
from helpers.runners import row_error, run_row

from workbench.config import load_config
from workbench.runners import make_runner
from workbench.runners.uip import UipError, UipRunner, raw_output_from_log, read_envelope

RAW = {"grade": "PASS", "details": {"rawScore": 85, "band": "distinction"}, "items": [{"itemId": 1}]}


def uip_runner(root, **runner):
    make_project(root, config={**UIP_CONFIG, **runner}, files={"Workflow.json": WORKFLOW_JSON})
    runner_obj = make_runner(load_config(root))
    assert isinstance(runner_obj, UipRunner)
    return runner_obj


# -- the command line --------------------------------------------------------------------------------------


def test_the_command_line_is_exactly_the_seeds(tmp_path):
    runner = uip_runner(tmp_path)
    log = tmp_path / "row.log"
    argv = runner.argv({"score": 85}, log)
    assert argv[-12:] == ["api-workflow", "run", str((tmp_path / "Workflow.json").resolve()),
                          "--input-arguments", '{"score":85}', "--no-auth", "--output", "json",
                          "--log-level", "debug", "--log-file", str(log)]


def test_with_no_config_a_workflow_json_selects_the_uip_runner(tmp_path):
    make_project(tmp_path, files={"Workflow.json": WORKFLOW_JSON})
    runner = make_runner(load_config(tmp_path))
    assert isinstance(runner, UipRunner)
    assert runner.uip == ["uip"]


# -- a successful run -----------------------------------------------------------------------------------------


def test_the_raw_output_is_the_last_response_line_never_the_pascal_cased_data(tmp_path):
    outcome = run_row(uip_runner(tmp_path), {"output": RAW})
    assert outcome.ok, outcome.error
    assert outcome.output == RAW  # not {"Grade": ...} from Data, not the earlier decoy Response line
    assert "decoy" in outcome.log, "the earlier Response line is in the log, and was skipped"


def test_a_bare_response_is_returned_as_is(tmp_path):
    outcome = run_row(uip_runner(tmp_path), {"output": 42})
    assert outcome.ok and outcome.output == 42


def test_big_integers_in_the_response_stay_exact(tmp_path):
    outcome = run_row(uip_runner(tmp_path), {"output": {"id": 2**64 + 1}})
    assert outcome.output == {"id": 2**64 + 1}


def test_awkward_but_valid_json_inputs_reach_uip_exactly(tmp_path):
    inputs = {"lone surrogate": "\ud800x", "big": 2**70 + 1}
    outcome = run_row(uip_runner(tmp_path), {"output": inputs})
    assert outcome.ok, outcome.error
    assert outcome.output == inputs


def test_the_debug_log_is_the_rows_log_and_streams(tmp_path):
    lines: list[str] = []
    outcome = run_row(uip_runner(tmp_path), {"output": RAW}, on_log=lines.append)
    assert "Starting workflow" in outcome.log and "Workflow finished" in outcome.log
    # a run shorter than the log-polling interval still streams every line, the last one included
    assert lines[0].split("] ", 1)[1] == f"Starting workflow {tmp_path / 'Workflow.json'}"
    assert sum("Response task evaluated successfully" in line for line in lines) == 2
    assert lines[-1].endswith("Workflow finished")


def test_inputs_and_row_identity_reach_uip_as_data(tmp_path):
    canary = tmp_path / "pwned"
    nasty = f"$(touch {canary}); `touch {canary}` | & > '\" \\ *"
    outcome = run_row(uip_runner(tmp_path), {"output": {"s": nasty}}, row_name=nasty)
    assert outcome.output == {"s": nasty}
    env = run_row(uip_runner(tmp_path), {"env": True}, row_id="id-7", row_name=nasty).output
    assert env == {"WORKBENCH_ROW_ID": "id-7", "WORKBENCH_ROW_NAME": nasty, "WORKBENCH_SET": "s.json",
                   "WORKBENCH_SCOPE": "default"}
    assert not canary.exists()


# -- errors -------------------------------------------------------------------------------------------------


def test_a_result_other_than_success_is_an_error_carrying_the_message(tmp_path):
    error = row_error(uip_runner(tmp_path), {"fail": "Activity 'Http' failed: 404 Not Found"})
    assert error.startswith("the run's Result is 'Failure', not 'Success': "
                            "Activity 'Http' failed: 404 Not Found")
    assert "debug log (last lines)" in error


def test_a_missing_response_line_is_an_error(tmp_path):
    outcome = run_row(uip_runner(tmp_path), {"no_response": True})
    assert not outcome.ok
    assert "no 'Response task evaluated successfully' line" in outcome.error
    assert outcome.output is None, "Data must never stand in for the raw output"


def test_output_that_is_not_json_is_an_error_showing_it(tmp_path):
    error = row_error(uip_runner(tmp_path), {"not_json": "Error: not logged in"})
    assert "uip printed output that is not JSON" in error
    assert "Error: not logged in" in error


def test_success_with_a_non_zero_exit_is_an_error(tmp_path):
    error = row_error(uip_runner(tmp_path), {"output": RAW, "exit": 2})
    assert "uip reported Success but exited with code 2" in error


def test_uip_that_cannot_be_started_is_an_error(tmp_path):
    error = row_error(uip_runner(tmp_path, uip=["/no/such/uip-binary"]), {})
    assert "could not start '/no/such/uip-binary'" in error


def test_a_hanging_uip_times_out_and_its_process_group_dies(tmp_path):
    pidfile = tmp_path / "pids"
    # 5 s: the stand-in must start and write its pids before the timeout, also on a loaded machine.
    error = row_error(uip_runner(tmp_path, timeout=5), {"hang": str(pidfile)})
    assert error.startswith("uip timed out after 5s")
    pids = [int(p) for p in pidfile.read_text().split()]
    assert not survivors(pids, 30)  # a hang guard: it stops as soon as they are gone


# -- reading the log and the envelope ---------------------------------------------------------------------


def _line(key, payload):
    return f'2024-05-01 [debug] Response task evaluated successfully for "{key}": {json.dumps(payload)}'


def test_only_the_last_response_line_counts():
    log = "\n".join([_line("A", {"response": {"first": 1}}), "other line",
                     _line("B", {"response": {"second": 2}}), "trailing"])
    assert raw_output_from_log(log) == {"second": 2}


def test_a_response_line_with_trailing_whitespace_and_crlf_is_read():
    assert raw_output_from_log(_line("A", {"response": {"a": 1}}) + "  \r\n") == {"a": 1}


@pytest.mark.parametrize("response", [None, 0, "text", [1, 2], {"Sum": 5}])
def test_any_json_response_is_returned_raw(response):
    assert raw_output_from_log(_line("A", {"response": response})) == response


@pytest.mark.parametrize(
    ("log", "words"),
    [
        ("", "no 'Response task evaluated successfully' line"),
        ('Response task evaluated successfully for "A": {not json}', "is not JSON"),
        (_line("A", {"output": 1}), 'has no "response" field'),
    ],
)
def test_unusable_logs_say_why(log, words):
    with pytest.raises(UipError) as info:
        raw_output_from_log(log)
    assert words in str(info.value)


def test_the_envelope_must_be_a_json_object():
    assert read_envelope(b'{"Result": "Success", "Data": {"Grade": "PASS"}}')["Result"] == "Success"
    for bad in (b"", b"[1]", b"Success"):
        with pytest.raises(UipError) as info:
            read_envelope(bad)
        if bad == b"[1]":
            assert str(info.value) == 'uip printed JSON that is not an object with "Result"'
        else:
            assert str(info.value).startswith("uip printed output that is not JSON (")
