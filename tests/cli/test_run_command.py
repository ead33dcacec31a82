"""`workbench run` end to end, as a user runs it: in this process on fixture projects, for both runners (a real
process where signals are the point).
Asserts what a user sees: verdicts, the text report, the --json document, JUnit XML and exit codes."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest
from helpers.checks import process_alive, tree_digest
from helpers.cli import cli_env, invoke_json, invoke_workbench, result_for, verdicts
from helpers.project import COMMAND_CONFIG, EXACT, TARGET, UIP_CONFIG, WORKFLOW_JSON, make_project, row

from workbench.project import load_project

BROKEN_SET = '{\n  "evaluatorRefs": ["exact-match-evaluator"],\n  "evaluations": [,]\n}\n'
ENV_EXPECTED = {"WORKBENCH_ROW_ID": "env-row", "WORKBENCH_ROW_NAME": "env row", "WORKBENCH_SET": "grading.json",
                "WORKBENCH_SCOPE": "default"}
WAIT_S = 60.0  # a hang guard, never a timing assertion: a passing test returns as soon as the thing happens
# The hanging rows' timeout: it also bounds the quick row beside them, which must start Python and answer in
# time on a loaded machine (0.5 s did not always suffice); the hanging target sleeps 120 s.
HANG_TIMEOUT_S = "5"
NASTY = "$(touch pwned) `touch pwned`; rm -rf / | cat > pwned && echo 'q' \"dq\" \\ *"

GRADING_ROWS = [
    row("passes", {"output": {"grade": "PASS", "score": 85}}, {"score": 85.0, "grade": "PASS"}),
    row("casing", {"output": {"sum": 5}}, {"Sum": 5}),
    row("crashes", {"stderr": "KeyError: 'score'", "exit": 3}, {"grade": "PASS"}),
    row("bare output", {"output": [1, 2]}, {"result": [1, 2]}),
    row("env row", {"env": True}, ENV_EXPECTED, id="env-row"),
    row("shell metacharacters", {"s": NASTY}, {"echo": {"s": NASTY}}),
]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """One command-runner project with a PASS, a FAIL, an ERROR, a broken file and a second set; run
    once as text (with --junit) and once as --json."""
    root = make_project(tmp_path_factory.mktemp("mixed"), config=COMMAND_CONFIG, sets={
        "grading": GRADING_ROWS,
        "other": [row("other row", {"output": {"ok": True}}, {"ok": True})],
        "broken": BROKEN_SET,
    })
    before = tree_digest(root / "evals")
    junit = root / "reports" / "junit.xml"
    text = invoke_workbench("run", str(root), "--junit", str(junit))
    proc, doc = invoke_json("run", str(root))
    return {"root": root, "text": text, "json": (proc, doc), "junit": junit, "evals_before": before}


# -- the mixed project: verdicts, text, json, junit ------------------------------------------------------------


def test_verdicts(mixed):
    _, doc = mixed["json"]
    assert verdicts(doc) == {
        f"passes [{EXACT}]": "PASS",
        f"casing [{EXACT}]": "FAIL",
        f"crashes [{EXACT}]": "ERROR",
        f"bare output [{EXACT}]": "PASS",
        f"env row [{EXACT}]": "PASS",
        f"shell metacharacters [{EXACT}]": "PASS",
        f"other row [{EXACT}]": "PASS",
    }
    assert not (mixed["root"] / "pwned").exists()


def test_exit_code_is_1_when_anything_failed(mixed):
    assert mixed["text"].returncode == 1
    assert mixed["json"][0].returncode == 1


def test_text_report_has_a_line_per_result_with_reasons_and_a_summary(mixed):
    out = mixed["text"].stdout
    lines = out.splitlines()
    assert any(line.startswith(f"PASS  grading.json › passes [{EXACT}]") for line in lines)
    assert any(line.startswith(f"PASS  other.json › other row [{EXACT}]") for line in lines)
    fail_at = next(i for i, line in enumerate(lines) if line.startswith(f"FAIL  grading.json › casing [{EXACT}]"))
    assert lines[fail_at + 1].strip() == 'inputs: {"output":{"sum":5}}', "a failing row shows its inputs"
    assert lines[fail_at + 2].strip().startswith("Sum: missing from the actual output (expected 5)")
    assert "case-sensitive" in lines[fail_at + 2]
    error_at = next(i for i, line in enumerate(lines) if line.startswith(f"ERROR grading.json › crashes [{EXACT}]"))
    assert lines[error_at + 1].strip().startswith("inputs: ")
    assert lines[error_at + 2].strip() == "the target exited with code 3"
    assert "KeyError: 'score'" in out
    assert ("problem: evals/default/eval-sets/broken.json: is not valid JSON at line 3, column 19: "
            "Expecting value") in out
    assert lines[-1].startswith("5 passed, 1 failed, 1 error, 1 file problem (7 results in ")
    assert "\x1b[" not in out, "no colour codes when stdout is not a terminal"
    shown = [line.split(" ", 1)[1].strip().split(" [", 1)[0] for line in lines
             if line.split(" ", 1)[0] in ("PASS", "FAIL", "ERROR")]
    in_files = [f"{s.file_name} › {r.name}" for s in load_project(mixed["root"]).sets for r in s.rows]
    assert shown == in_files, "results print in file order, whatever finished first"


def test_json_document_shape(mixed):
    proc, doc = mixed["json"]
    assert proc.stdout.lstrip().startswith("{") and proc.stdout.rstrip().endswith("}"), "one document only"
    assert doc["summary"] == {"total": 7, "passed": 5, "failed": 1, "errors": 1}
    required = {"set", "scope", "row_id", "row_name", "evaluator", "verdict", "actual", "expected", "detail",
                "duration_ms"}
    for result in doc["results"]:
        assert required <= set(result), result
        assert result["verdict"] in ("PASS", "FAIL", "ERROR")
        assert isinstance(result["duration_ms"], (int, float)) and result["duration_ms"] > 0
        assert result["scope"] == "default"
    casing = result_for(doc, "casing")
    assert casing["set"] == "grading.json" and casing["row_id"] == "casing" and casing["evaluator"] == EXACT
    assert casing["actual"] == {"sum": 5} and casing["expected"] == {"Sum": 5}
    assert "Sum: missing from the actual output" in casing["detail"]
    bare = result_for(doc, "bare output")
    assert bare["actual"] == {"result": [1, 2]}, "a bare output is reported as compared: wrapped"
    assert result_for(doc, "crashes")["detail"].startswith("the target exited with code 3")
    assert result_for(doc, "passes")["detail"] == ""
    assert [p["file"] for p in doc["problems"]] == ["evals/default/eval-sets/broken.json"]
    assert "line 3, column 19" in doc["problems"][0]["message"]


def test_junit_xml_is_valid_and_counts_match(mixed):
    tree = ET.parse(mixed["junit"])
    root = tree.getroot()
    assert root.tag == "testsuites"
    cases = root.findall(".//testcase")
    assert len(cases) == 8, "7 results + 1 file problem"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("8", "1", "2")
    failure = root.find(".//testcase[failure]")
    assert failure.get("name") == f"casing [{EXACT}]"
    assert "Sum: missing" in failure.find("failure").text
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert suites["default/grading.json"].get("tests") == "6"
    assert suites["default/other.json"].get("tests") == "1"
    assert suites["workbench.problems"].find("testcase").get("name") == "evals/default/eval-sets/broken.json"


def test_nothing_under_evals_was_written(mixed):
    assert tree_digest(mixed["root"] / "evals") == mixed["evals_before"]


# -- exit codes -------------------------------------------------------------------------------------------------


def test_all_passing_exits_0(tmp_path):
    root = make_project(tmp_path, config=COMMAND_CONFIG, sets={"s": [row("a", {"output": {"x": 1}}, {"x": 1.0})]})
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("1 passed, 0 failed, 0 errors (1 result in ")


def test_nothing_ran_exits_1_and_says_why_unless_allow_empty(tmp_path):
    root = make_project(tmp_path, config=COMMAND_CONFIG, sets={"evaluation-set": []})
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 1
    assert "nothing ran" in proc.stdout + proc.stderr and "--allow-empty" in proc.stdout + proc.stderr
    proc = invoke_workbench("run", str(root), "--allow-empty")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_file_problem_alone_fails_the_run_even_when_every_result_passed(tmp_path):
    root = make_project(tmp_path, config=COMMAND_CONFIG,
                        sets={"good": [row("a", {"output": {}}, {})], "broken": BROKEN_SET})
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 1
    assert "1 passed, 0 failed, 0 errors, 1 file problem" in proc.stdout


def test_no_config_and_no_workflow_json_exits_2_showing_the_config_to_add(tmp_path):
    root = make_project(tmp_path, sets={"s": [row("a", {}, {})]})
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"Add this to {root / 'workbench.toml'}" in proc.stderr
    assert '[runner]\nkind = "command"\ncommand = ["{python}", "agent.py"]' in proc.stderr


def test_a_folder_without_evals_exits_2_and_says_so(tmp_path):
    proc = invoke_workbench("run", str(tmp_path))
    assert proc.returncode == 2
    assert "no eval files in" in proc.stderr and "workbench init" in proc.stderr


def test_a_missing_folder_exits_2(tmp_path):
    proc = invoke_workbench("run", str(tmp_path / "nope"))
    assert proc.returncode == 2 and "no such folder" in proc.stderr


def test_a_bad_config_exits_2_naming_the_key(tmp_path):
    root = make_project(tmp_path, config={**COMMAND_CONFIG, "concurency": 4}, sets={"s": [row("a", {}, {})]})
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 2
    assert "unknown key 'concurency'" in proc.stderr and "workbench.toml" in proc.stderr


# -- selection ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_sets(tmp_path_factory):
    return make_project(tmp_path_factory.mktemp("two-sets"), config=COMMAND_CONFIG, sets={
        "grading": [row("alpha", {"output": 1}, {"result": 1}, id="id-a"),
                    row("beta", {"output": 2}, {"result": 2}, id="id-b")],
        "bands": [row("gamma", {"output": 3}, {"result": 3}, id="id-c")],
    })


def test_set_and_row_filters(two_sets):
    _, doc = invoke_json("run", str(two_sets), "--set", "bands")
    assert [r["row_name"] for r in doc["results"]] == ["gamma"]
    _, doc = invoke_json("run", str(two_sets), "--set", "grading.json", "--row", "id-b")
    assert [r["row_name"] for r in doc["results"]] == ["beta"]
    proc, doc = invoke_json("run", str(two_sets), "--row", "alpha", "--row", "gamma")
    assert sorted(r["row_name"] for r in doc["results"]) == ["alpha", "gamma"]
    assert proc.returncode == 0


def test_a_set_typo_exits_2_listing_the_sets(two_sets):
    proc = invoke_workbench("run", str(two_sets), "--set", "gradng")
    assert proc.returncode == 2
    assert "nothing matches eval set 'gradng'" in proc.stderr
    assert "bands, grading" in proc.stderr


def test_a_row_typo_exits_2_listing_the_rows(two_sets):
    proc = invoke_workbench("run", str(two_sets), "--set", "grading", "--row", "alpah")
    assert proc.returncode == 2
    assert "nothing matches row 'alpah'" in proc.stderr
    assert "'alpha', 'beta'" in proc.stderr


# -- overrides ----------------------------------------------------------------------------------------------------


def test_command_and_timeout_on_the_command_line_override_the_file(tmp_path):
    root = make_project(tmp_path, config={"kind": "command", "command": ["/no/such/program"], "timeout": 60},
                        sets={"s": [row("a", {"output": {"via": "cli"}}, {"via": "cli"})]})
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(TARGET))}"
    proc, doc = invoke_json("run", str(root), "--command", command, "--timeout", "5", "--concurrency", "1")
    assert proc.returncode == 0, doc
    assert verdicts(doc) == {f"a [{EXACT}]": "PASS"}


def test_the_command_option_works_without_any_config(tmp_path):
    root = make_project(tmp_path, sets={"s": [row("a", {"output": {}}, {})]})
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(TARGET))}"
    assert invoke_workbench("run", str(root), "--command", command).returncode == 0


def test_awkward_output_still_gets_a_report_and_never_a_traceback(tmp_path):
    odd = {"lone surrogate": "\ud800", "big": 2**70 + 1, "escape": "\x1b[2J"}
    root = make_project(tmp_path, config=COMMAND_CONFIG, sets={"s": [row("odd", {"output": odd}, odd),
                                                                      row("odd fail", {"output": odd}, {})]})
    text = invoke_workbench("run", str(root))
    assert "Traceback" not in text.stderr, text.stderr
    assert text.returncode == 1
    assert "PASS  s.json › odd [exact-match-evaluator]" in text.stdout
    assert "\x1b[2J" not in text.stdout, "terminal escapes from a target are shown, not executed"
    proc, doc = invoke_json("run", str(root))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert result_for(doc, "odd")["actual"] == odd


# -- a hanging target -----------------------------------------------------------------------------------------------


def _gone(pids, seconds=WAIT_S):
    deadline = time.monotonic() + seconds
    while any(process_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not any(process_alive(p) for p in pids)


@pytest.mark.parametrize("kind", ["command", "uip"])
def test_a_hanging_target_times_out_as_an_error_and_leaves_no_processes(tmp_path, kind):
    pidfile = tmp_path / "pids"
    config = COMMAND_CONFIG if kind == "command" else UIP_CONFIG
    root = make_project(tmp_path / "project", config=config, files={"Workflow.json": WORKFLOW_JSON}, sets={
        "s": [row("hangs", {"hang": str(pidfile)}, {}), row("quick", {"output": {}}, {})]})
    started = time.monotonic()
    proc, doc = invoke_json("run", str(root), "--timeout", HANG_TIMEOUT_S)
    assert time.monotonic() - started < 100, "the run waited for the target's 120 s sleep"  # a hang guard only
    assert proc.returncode == 1
    assert verdicts(doc) == {f"hangs [{EXACT}]": "ERROR", f"quick [{EXACT}]": "PASS"}
    assert f"timed out after {HANG_TIMEOUT_S}s" in result_for(doc, "hangs")["detail"]
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) == 2
    assert _gone(pids), f"still running after workbench exited: {[p for p in pids if process_alive(p)]}"


# -- the uip runner end to end ---------------------------------------------------------------------------------------


def test_the_uip_runner_end_to_end(tmp_path):
    raw = {"grade": "PASS", "details": {"rawScore": 85}}
    root = make_project(tmp_path, config=UIP_CONFIG, files={"Workflow.json": WORKFLOW_JSON}, sets={"grading": [
        row("raw keys pass", {"output": raw}, raw),
        row("copied from Data", {"output": raw}, {"Grade": "PASS", "Details": {"RawScore": 85}}),
        row("run fails", {"fail": "Http activity returned 500"}, raw),
        row("no response", {"no_response": True}, raw),
        row("env row", {"env": True}, ENV_EXPECTED, id="env-row"),
    ]})
    before = tree_digest(root / "evals")
    proc, doc = invoke_json("run", str(root))
    assert proc.returncode == 1
    assert verdicts(doc) == {
        f"raw keys pass [{EXACT}]": "PASS",
        f"copied from Data [{EXACT}]": "FAIL",
        f"run fails [{EXACT}]": "ERROR",
        f"no response [{EXACT}]": "ERROR",
        f"env row [{EXACT}]": "PASS",
    }
    assert result_for(doc, "raw keys pass")["actual"] == raw
    assert "case-sensitive" in result_for(doc, "copied from Data")["detail"]
    assert "Http activity returned 500" in result_for(doc, "run fails")["detail"]
    assert "no 'Response task evaluated successfully' line" in result_for(doc, "no response")["detail"]
    text = invoke_workbench("run", str(root))
    assert "ERROR grading.json › run fails [exact-match-evaluator]" in text.stdout
    assert "the run's Result is 'Failure', not 'Success': Http activity returned 500" in text.stdout
    assert tree_digest(root / "evals") == before


def test_with_no_config_a_workflow_json_means_the_uip_runner(tmp_path):
    root = make_project(tmp_path, files={"Workflow.json": WORKFLOW_JSON}, sets={"s": [row("a", {}, {})]})
    # no `uip` anywhere on PATH: the run stops before any row, saying uip can't start (issue 22 point 6;
    # before, every row was an ERROR saying so)
    proc = invoke_workbench("run", str(root), env=cli_env(PATH="/nonexistent-bin"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert "[runner] uip (its default) can't start: 'uip' is not on PATH" in proc.stderr
    assert "UiPath CLI installed" in proc.stderr and "[runner] uip = " in proc.stderr


@pytest.mark.process("a signal sent to the real process, and its exit code")
@pytest.mark.parametrize(("signum", "code", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                       (signal.SIGTERM, 143, "terminated")])
def test_stopping_workbench_stops_every_target_and_grandchild(tmp_path, signum, code, word):
    """Ctrl-C, or a CI job being cancelled (SIGTERM): targets run in their own process groups, so only
    workbench itself can clean them up."""
    pidfiles = [tmp_path / f"pids{i}" for i in range(2)]
    root = make_project(tmp_path / "project", config=COMMAND_CONFIG,
                        sets={"s": [row(f"hangs {i}", {"hang": str(p)}, {}) for i, p in enumerate(pidfiles)]})
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "run", str(root)], env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT_S
        while not all(p.exists() and p.read_text() for p in pidfiles) and time.monotonic() < deadline:
            time.sleep(0.02)
        pids = [int(x) for p in pidfiles for x in p.read_text().split()]
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code
    assert f"workbench: {word}; every child process was stopped" in err
    assert _gone(pids), f"orphans left running: {[p for p in pids if process_alive(p)]}"


@pytest.mark.process("Ctrl-C (SIGINT) sent to the real process, and its exit code")
def test_ctrl_c_prints_every_finished_result_and_names_the_rows_that_did_not_finish(tmp_path):
    """Results print in file order, so the rows that finished behind a hung one wait for it; Ctrl-C printed
    only those already out and dropped the rest. Two at a time: `a` hangs, `b` and `c` finish on the other
    slot, which then takes `d` (hangs too): `d` started means `b` and `c` are done. `e` never starts."""
    hang_a, hang_d = tmp_path / "pids-a", tmp_path / "pids-d"
    rows = [row("a", {"hang": str(hang_a)}, {}), row("b", {"output": 1}, {"result": 1}),
            row("c", {"output": 2}, {"result": 3}),
            row("d", {"hang": str(hang_d)}, {}), row("e", {"output": 5}, {"result": 5})]
    root = make_project(tmp_path / "project", config={**COMMAND_CONFIG, "concurrency": 2}, sets={"s": rows})
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "run", str(root)], env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT_S
        while not all(p.exists() and p.read_text() for p in (hang_a, hang_d)) and time.monotonic() < deadline:
            time.sleep(0.02)
        pids = [int(x) for p in (hang_a, hang_d) for x in p.read_text().split()]
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    lines = out.splitlines()
    assert [line.rsplit("  ", 1)[0] for line in lines if line.startswith(("PASS", "FAIL"))] == [
        f"PASS  s.json › b [{EXACT}]", f"FAIL  s.json › c [{EXACT}]"], out
    assert "still running when stopped: 2 rows (s.json › a, s.json › d)" in lines, out
    assert "not run: 1 row (s.json › e)" in lines, out
    assert "workbench: interrupted; every child process was stopped" in err
    assert _gone(pids), f"orphans left running: {[p for p in pids if process_alive(p)]}"


def test_nothing_ran_because_of_a_broken_file_points_at_the_file_not_allow_empty(tmp_path):
    """Issue 38 (7): after a JSON syntax error the gate names the file problem, not --allow-empty; still fails."""
    root = make_project(tmp_path, config=COMMAND_CONFIG, sets={"evaluation-set": [row("a", {"output": {"x": 1}},
                                                                                        {"x": 1})]})
    broken = next((root / "evals").rglob("eval-sets/*.json"))
    broken.write_text(broken.read_text().replace('"', "", 1))
    for extra in ((), ("--allow-empty",)):
        proc = invoke_workbench("run", str(root), *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        out = proc.stdout + proc.stderr
        assert "is not valid JSON" in out
        assert "gate failed: nothing ran because of 1 file problem" in out and "--allow-empty" not in out
