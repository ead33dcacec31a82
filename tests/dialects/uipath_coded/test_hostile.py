"""A `uipath-coded` project attacked as a hostile or careless user would: every broken input gets an error that
names the file and says what is wrong — never obedience (code outside the project run, a file outside it read),
never a traceback of workbench's own, never a hang, never a stringified output passing (promise 1: no false
green) — and a run writes nothing into evaluations/ or outside the project.

The rows run in the test interpreter (no `uipath` here: the child's fallback calls main() with the inputs dict),
so these tests need no SDK venv. Each agent writes a marker file when it runs, so "not obeyed" is checked, not
assumed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.checks import process_alive, survivors, tree_digest, wait_until
from helpers.cli import cli_env, invoke_json, invoke_workbench, run_workbench

SETS = Path("evaluations/eval-sets")
EVALUATORS = Path("evaluations/evaluators")
SET_FILE = (SETS / "s.json").as_posix()

EXACT = {"version": "1.0", "id": "EM", "name": "Answer matches", "evaluatorTypeId": "uipath-exact-match",
         "evaluatorConfig": {"name": "Answer matches", "targetOutputKey": "answer"}}

# Answers `inputs["answer"]` (default "A"); marks that it ran in `inputs["marker"]` when given.
MAIN_PY = '''\
def main(input):
    if input.get("marker"):
        open(input["marker"], "a").write("ran\\n")
    return {"answer": input.get("answer", "A")}
'''


def coded_row(ident: str, inputs: dict[str, Any] | Any, expected: Any = "A", **extra: Any) -> dict[str, Any]:
    return {"id": ident, "name": ident, "inputs": inputs,
            "evaluationCriterias": {"EM": {"expectedOutput": {"answer": expected}}}, **extra}


def coded_set(rows: list[dict[str, Any]], refs: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"version": "1.0", "id": "s", "name": "s", "evaluatorRefs": refs or ["EM"], "evaluations": rows, **extra}


def write(path: Path, content: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2) + "\n", encoding="utf-8")


def coded_project(root: Path, *, rows: list[dict[str, Any]] | None = None, main_py: str = MAIN_PY,
                  uipath: Any = None, toml: str | None = None, evaluators: dict[str, Any] | None = None) -> Path:
    """uipath.json (main -> main.py:main unless `uipath` says otherwise), main.py, the evaluator EM and one
    set, evaluations/eval-sets/s.json, of `rows` (one passing row by default)."""
    write(root / "uipath.json", uipath if uipath is not None else {"functions": {"main": "main.py:main"}})
    write(root / "main.py", main_py)
    for name, doc in (evaluators if evaluators is not None else {"exact.json": EXACT}).items():
        write(root / EVALUATORS / name, doc)
    write(root / SET_FILE, coded_set(rows if rows is not None else [coded_row("r1", {"answer": "A"})]))
    if toml is not None:
        write(root / "workbench.toml", toml)
    return root


def said(proc: Any) -> str:
    return proc.stdout + proc.stderr


def no_traceback(text: str) -> None:
    assert "Traceback" not in text and "child_main.py" not in text, text


def problems(doc: dict[str, Any]) -> list[str]:
    """Each file problem of a --json document as `<file>: <message>`."""
    return [f"{p['file']}: {p['message']}" for p in doc["problems"]]


def by_row(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["row_id"]: r for r in doc["results"]}


# -- uipath.json ------------------------------------------------------------------------------------------


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _link_out(path: Path) -> None:
    outside = path.parent.parent / "elsewhere-uipath.json"
    write(outside, {"functions": {"main": "main.py:main"}})
    path.unlink()
    path.symlink_to(outside)


UIPATH_JSON_REFUSED = {
    "a link out of the project": (_link_out, "uipath.json is a link to a file outside the project"),
    "a FIFO": (_fifo, "uipath.json cannot be read: a named pipe"),
    "not JSON": (lambda p: p.write_text("{nope", encoding="utf-8"), "uipath.json is not valid JSON at line 1"),
    "not an object": (lambda p: write(p, [1]), "uipath.json must be a JSON object"),
    "no functions": (lambda p: write(p, {}), 'uipath.json has no "functions"'),
    "empty functions": (lambda p: write(p, {"functions": {}}), 'uipath.json has no "functions"'),
    "functions not an object": (lambda p: write(p, {"functions": ["main.py:main"]}),
                                'uipath.json: "functions" must be an object'),
    "a function not a string": (lambda p: write(p, {"functions": {"main": 1}}),
                                'uipath.json: functions["main"] must be a string'),
    "no colon": (lambda p: write(p, {"functions": {"main": "main.py"}}), 'uipath.json: functions["main"] is'),
}


@pytest.mark.parametrize("case", list(UIPATH_JSON_REFUSED))
def test_a_uipath_json_that_cant_say_what_runs_stops_run_and_check_naming_it(tmp_path: Path, case: str) -> None:
    marker = tmp_path / "ran"
    root = coded_project(tmp_path / "p", rows=[coded_row("r1", {"marker": str(marker)})])
    spoil, words = UIPATH_JSON_REFUSED[case]
    spoil(root / "uipath.json")
    run = invoke_workbench("run", str(root))
    assert run.returncode == 2 and words in run.stderr, said(run)
    no_traceback(said(run))
    check = invoke_workbench("check", str(root))
    once = "problem: " + words.replace("uipath.json ", "uipath.json: ", 1)  # check names the file once, in front
    assert check.returncode != 0 and once in said(check), said(check)
    assert said(check).count("problem: ") == 1, said(check)  # not again as "workbench.toml: uipath.json ..."
    assert not marker.exists(), "a row ran although uipath.json says nothing runnable"


def _outside_entry(root: Path) -> str:
    write(root.parent / "outside.py", MAIN_PY)
    return "../outside.py:main"


def _absolute_entry(root: Path) -> str:
    write(root.parent / "abs_agent.py", MAIN_PY)
    return f"{root.parent / 'abs_agent.py'}:main"


def _linked_entry(root: Path) -> str:
    write(root.parent / "linked.py", MAIN_PY)
    (root / "agent.py").symlink_to(root.parent / "linked.py")
    return "agent.py:main"


ENTRY_OUTSIDE = {"../outside.py:main": _outside_entry, "an absolute path": _absolute_entry,
                 "a link out of the project": _linked_entry}


@pytest.mark.parametrize("case", list(ENTRY_OUTSIDE))
def test_an_entry_point_outside_the_project_is_never_run(tmp_path: Path, case: str) -> None:
    """`workbench check` already calls it an error; `run` must not execute it either (promise 2)."""
    marker = tmp_path / "ran"
    root = coded_project(tmp_path / "p", rows=[coded_row("r1", {"marker": str(marker)})])
    write(root / "uipath.json", {"functions": {"main": ENTRY_OUTSIDE[case](root)}})
    check = invoke_workbench("check", str(root))
    assert check.returncode == 1 and "leads outside the project" in check.stdout, said(check)
    run = invoke_workbench("run", str(root))
    assert not marker.exists(), f"run executed an entry point outside the project:\n{said(run)}"
    assert run.returncode != 0 and "uipath.json" in said(run), said(run)


# the words the error must hold: the file to fix and what is wrong in it
ENTRY_BROKEN = {
    "missing.py:main": ("uipath.json", "missing.py"),
    "main.py:not-an-identifier": ("uipath.json", "not-an-identifier"),
    "main.py:absent": ("main.py", "absent"),
}


@pytest.mark.parametrize("spec", list(ENTRY_BROKEN))
def test_an_entry_point_that_does_not_exist_is_an_error_naming_uipath_json_not_a_workbench_traceback(
        tmp_path: Path, spec: str) -> None:
    root = coded_project(tmp_path / "p", uipath={"functions": {"main": spec}})
    proc, doc = invoke_json("run", str(root))
    text = json.dumps(doc) + proc.stderr
    assert all(words in text for words in ENTRY_BROKEN[spec]), text
    assert all(r["verdict"] == "ERROR" for r in doc["results"]) and doc["passed"] is False
    no_traceback(text)


@pytest.mark.process("a hang or an escaped process is bounded by the real process's timeout and end")
def test_an_entry_file_that_is_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p", uipath={"functions": {"main": "agent.py:main"}})
    os.mkfifo(root / "agent.py")
    check = invoke_workbench("check", str(root))
    assert check.returncode == 1 and "agent.py" in check.stdout and "not a regular file" in check.stdout, said(check)
    run = run_workbench("run", str(root), env=cli_env(), timeout=60)
    assert run.returncode != 0 and "agent.py" in said(run), said(run)


# -- the eval files ------------------------------------------------------------------------------------


def _huge(path: Path) -> None:
    with path.open("wb") as handle:  # sparse: 300 MB said by its size, nothing written
        handle.truncate(300 * 1024 * 1024)


def _spoil(root: Path, relative: Path, how: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "link":
        outside = root.parent / f"outside-{relative.name}"
        write(outside, coded_set([coded_row("sneaky", {"answer": "A"})]) if relative.parent == SETS else EXACT)
        path.symlink_to(outside)
    elif how == "fifo":
        os.mkfifo(path)
    else:
        _huge(path)


EVAL_FILE_REFUSED = {
    ("set", "link"): (SETS / "linked.json", "is a link to a file outside evaluations/"),
    ("set", "fifo"): (SETS / "pipe.json", "not a regular file"),
    ("set", "huge"): (SETS / "huge.json", "files over 256 MiB are not read"),
    ("evaluator", "link"): (EVALUATORS / "linked.json", "is a link to a file outside evaluations/"),
    ("evaluator", "fifo"): (EVALUATORS / "pipe.json", "not a regular file"),
    ("evaluator", "huge"): (EVALUATORS / "huge.json", "files over 256 MiB are not read"),
}


@pytest.mark.parametrize("case", list(EVAL_FILE_REFUSED), ids="-".join)
def test_an_eval_file_that_must_not_be_read_is_a_problem_naming_it_and_the_rest_still_runs(
        tmp_path: Path, case: tuple[str, str]) -> None:
    root = coded_project(tmp_path / "p")
    relative, words = EVAL_FILE_REFUSED[case]
    _spoil(root, relative, case[1])
    proc, doc = invoke_json("run", str(root))
    found = [p for p in problems(doc) if p.startswith(relative.as_posix())]
    assert found and words in found[0], (problems(doc), proc.stderr)
    assert [(r["row_id"], r["verdict"]) for r in doc["results"]] == [("r1", "PASS")], "the good set still runs"
    no_traceback(said(proc))


def test_two_evaluators_with_one_id_are_an_error_naming_both_files_and_nothing_passes(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p", evaluators={"exact.json": EXACT, "exact-copy.json": EXACT})
    _, doc = invoke_json("run", str(root))
    [problem] = [p for p in problems(doc) if "'EM'" in p]
    assert problem.startswith("evaluations/evaluators/exact") and "exact.json" in problem, problem
    assert "exact-copy.json" in problem, problem
    [result] = doc["results"]
    assert result["verdict"] == "ERROR" and "exact.json" in result["detail"] and "exact-copy.json" in result["detail"]


def test_refs_that_name_evaluator_files_are_errors_that_say_refs_are_ids(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p")
    write(root / SET_FILE, coded_set([{"id": "r1", "name": "r1", "inputs": {},
                                       "evaluationCriterias": {"exact": {"expectedOutput": {"answer": "A"}}}}],
                                     refs=["exact"]))
    _, doc = invoke_json("run", str(root))
    [result] = doc["results"]
    assert result["verdict"] == "ERROR", result
    assert "'exact' is the file name of evaluators/exact.json, whose id is 'EM': refs are evaluator ids" \
        in result["detail"]


def test_a_row_whose_criteria_name_no_evaluator_of_the_set_does_not_vanish_into_a_green_run(tmp_path: Path) -> None:
    """`{"em": ...}` for the evaluator `EM`: the SDK skips such a row (no score at all), so a typo makes a failing
    row disappear. A warning scrolls by; the run must not be green (exit 0) with that row silently gone."""
    root = coded_project(tmp_path / "p", rows=[
        coded_row("passes", {"answer": "A"}),
        {"id": "typo", "name": "typo", "inputs": {"answer": "B"},
         "evaluationCriterias": {"em": {"expectedOutput": {"answer": "A"}}}}])
    proc, doc = invoke_json("run", str(root))
    assert any("('typo').evaluationCriterias['em']" in p for p in problems(doc)), problems(doc)
    assert proc.returncode != 0 and doc["passed"] is False, (
        "green although the row 'typo' (which would fail) was neither run nor scored")


def test_a_legacy_eval_set_is_refused_by_name_not_guessed(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p")
    legacy = coded_set([coded_row("old", {"answer": "A"})])
    del legacy["version"]
    write(root / SETS / "legacy.json", legacy)
    _, doc = invoke_json("run", str(root))
    assert any(p.startswith("evaluations/eval-sets/legacy.json: is a legacy eval file") for p in problems(doc))
    assert "old" not in by_row(doc) and by_row(doc)["r1"]["verdict"] == "PASS"


def test_a_criterion_that_is_a_string_is_an_error_naming_the_file_and_the_row(tmp_path: Path) -> None:
    """The preamble's own example of a user-fixable error: the file and the JSON path of what is wrong."""
    root = coded_project(tmp_path / "p", rows=[
        {"id": "r1", "name": "r1", "inputs": {}, "evaluationCriterias": {"EM": "A"}},
        coded_row("r2", {"answer": "A"})])
    _, doc = invoke_json("run", str(root))
    results = by_row(doc)
    assert results["r1"]["verdict"] == "ERROR" and results["r2"]["verdict"] == "PASS"
    assert "evaluationCriterias['EM'] must be an object or null" in results["r1"]["detail"]
    wanted = f"{SET_FILE}: evaluations[0]"
    assert any(p.startswith(wanted) and "evaluationCriterias['EM']" in p for p in problems(doc)), problems(doc)


@pytest.mark.parametrize("inputs", [["q"], "q", 5], ids=["array", "string", "number"])
def test_inputs_that_are_not_an_object_skip_the_row_with_a_problem_naming_it(tmp_path: Path, inputs: Any) -> None:
    marker = tmp_path / "ran"
    root = coded_project(tmp_path / "p", rows=[coded_row("bad", inputs), coded_row("r2", {"marker": str(marker)})])
    _, doc = invoke_json("run", str(root))
    assert any(p.startswith(f"{SET_FILE}: evaluations[0] ('bad').inputs must be an object") for p in problems(doc))
    assert list(by_row(doc)) == ["r2"] and marker.read_text() == "ran\n", "the other row runs, once"


# -- what the agent does at run time -------------------------------------------------------------------

HANGS = '''\
import os, subprocess, sys, time


def main(input):
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(input["pids"] + ".tmp", "w") as handle:
        handle.write(f"{os.getpid()} {helper.pid}")
    os.replace(input["pids"] + ".tmp", input["pids"])
    time.sleep(600)
'''


def _pids(path: Path) -> list[int]:
    return [int(word) for word in path.read_text().split()] if path.exists() else []


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_a_hanging_agent_times_out_at_the_runner_timeout_and_its_process_group_is_killed(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    root = coded_project(tmp_path / "p", main_py=HANGS, rows=[coded_row("hangs", {"pids": str(pids)})],
                         toml="[runner]\ntimeout = 5\n")
    try:
        _, doc = invoke_json("run", str(root))
        [result] = doc["results"]
        assert result["verdict"] == "ERROR" and "timed out after 5s" in result["detail"], result
        assert "process group was killed" in result["detail"]
        assert len(_pids(pids)) == 2 and survivors(_pids(pids)) == []
    finally:
        _kill(_pids(pids))


ESCAPES = '''\
import subprocess, sys


def main(input):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    with open(input["pids"] + ".tmp", "w") as handle:
        handle.write(str(sleeper.pid))
    import os
    os.replace(input["pids"] + ".tmp", input["pids"])
    return {"answer": "A"}
'''


@pytest.mark.process("a hang or an escaped process is bounded by the real process's timeout and end")
def test_a_process_the_agent_moves_out_of_its_group_is_stopped_when_the_run_ends(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    root = coded_project(tmp_path / "p", main_py=ESCAPES, rows=[coded_row("escapes", {"pids": str(pids)})])
    try:
        proc = run_workbench("run", str(root), env=cli_env(), timeout=120)
        assert proc.returncode == 0, said(proc)
        [sleeper] = _pids(pids)
        wait_until(lambda: not process_alive(sleeper), f"the escaped sleeper (pid {sleeper}) to be stopped")
    finally:
        _kill(_pids(pids))


NOT_JSON = '''\
import datetime


def main(input):
    kind = input["kind"]
    values = {"datetime": datetime.datetime(2020, 1, 1), "set": {1}, "nan": float("nan"), "inf": float("inf"),
              "bytes": b"A", "tuple key": {(1, 2): "A"}}
    return {"answer": values[kind]}
'''

# what each value reads as through str(), which a stringified output would make exact-match pass on
STRINGIFIED = {"datetime": "2020-01-01 00:00:00", "set": "{1}", "nan": "nan", "inf": "inf", "bytes": "b'A'",
               "tuple key": "{(1, 2): 'A'}"}


def test_an_output_that_is_not_json_is_an_error_never_a_stringified_pass(tmp_path: Path) -> None:
    rows = [coded_row(kind, {"kind": kind}, expected) for kind, expected in STRINGIFIED.items()]
    root = coded_project(tmp_path / "p", main_py=NOT_JSON, rows=rows)
    _, doc = invoke_json("run", str(root))
    verdicts = {row: (r["verdict"], r["detail"]) for row, r in by_row(doc).items()}
    assert set(verdicts) == set(STRINGIFIED)
    for kind, (verdict, detail) in verdicts.items():
        assert verdict == "ERROR" and "not JSON" in detail, (kind, verdict, detail)
    assert doc["passed"] is False and doc["summary"]["passed"] == 0


HUGE = '''\
def main(input):
    return {"answer": 10 ** 5000 if input.get("huge") else input.get("answer", "A")}
'''


@contextlib.contextmanager
def any_size_ints() -> Iterator[None]:
    """The json module reads and writes integers of any size (Python stops at 4,300 digits), as workbench does;
    lifted only around the test's own reads and writes, so workbench (run in this process) meets the limit as it
    does anywhere."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)


def loads_any_size(text: str) -> Any:
    with any_size_ints():
        return json.loads(text)


def test_an_integer_too_large_for_json_readers_is_a_clear_error_kept_exactly_in_json_history_and_html(
        tmp_path: Path) -> None:
    """10**5000 is a JSON number, but past what Python turns into text (4,300 digits) and floats carry: the SDK
    compares numbers as floats, so the row is an ERROR saying so, never a traceback or a PASS; the output itself
    stays exact in --json and the history, and --html writes its report."""
    expected = 10 ** 5000
    with any_size_ints():
        root = coded_project(tmp_path / "p", main_py=HUGE, rows=[coded_row("huge", {"huge": True}, expected),
                                                                coded_row("fine", {"answer": "A"})])
    html = tmp_path / "report.html"
    proc = invoke_workbench("run", str(root), "--json", "--html", str(html))
    doc = loads_any_size(proc.stdout)
    results = by_row(doc)
    assert results["huge"]["verdict"] == "ERROR" and results["huge"]["actual"] == {"answer": expected}, proc.stderr
    assert results["huge"]["detail"] == ("EM: the output holds the integer 1.0000e+5000 (5,001 digits), too large "
                                         "for a float, which is what the SDK compares numbers as (its evaluator "
                                         "fails on it too)")
    assert results["fine"]["verdict"] == "PASS" and doc["passed"] is False and proc.returncode == 1
    assert html.stat().st_size > 0 and "Traceback" not in said(proc)
    shown = invoke_workbench("history", str(root), "1")
    assert shown.returncode == 0 and "1.0000e+5000 (5,001 digits)" in shown.stdout, said(shown)
    recorded = by_row(loads_any_size(invoke_workbench("history", str(root), "1", "--json").stdout))
    assert recorded["huge"]["verdict"] == "ERROR" and recorded["huge"]["actual"] == {"answer": expected}


LARGE = '''\
import os


def main(input):
    return {"answer": "A" * input.get("size", 1), "pid": os.getpid()}
'''


def test_an_output_larger_than_max_output_mb_is_an_error_naming_the_limit_and_the_next_row_runs_in_the_same_worker(
        tmp_path: Path) -> None:
    """Not "the worker broke the protocol: it printed a stdout line longer than ... Print logs to stderr" (the agent
    printed nothing; its output was large), and no worker replaced for the rows after it."""
    root = coded_project(tmp_path / "p", main_py=LARGE, toml="[runner]\nmax_output_mb = 0.01\nconcurrency = 1\n",
                         rows=[coded_row("first", {"size": 1}, "A"), coded_row("large", {"size": 20_000}),
                               coded_row("small", {"size": 1}, "A")])
    _, doc = invoke_json("run", str(root))
    results = by_row(doc)
    assert results["first"]["actual"]["pid"] == results["small"]["actual"]["pid"], "the worker was replaced"
    assert results["large"]["verdict"] == "ERROR", results["large"]
    assert results["large"]["detail"].splitlines()[0] == (
        "the worker reported an error: this row's output is 19.6 KiB as JSON, more than the 10.2 KiB workbench reads "
        "from a row ([runner] max_output_mb = 0.01); return less, or raise max_output_mb in workbench.toml if that "
        "is expected")
    assert results["small"]["verdict"] == "PASS"


CHATTY = '''\
import sys


def main(input):
    print("thinking out loud")
    print('{"id": 1, "output": {"answer": "FORGED"}}')
    sys.stdout.write('{"id": "1", "result": {"answer": "FORGED"}, "ok": true}\\n')
    sys.stdout.flush()
    sys.stderr.write("a warning on stderr\\n")
    return {"answer": input.get("answer", "A")}
'''


def test_an_agent_printing_to_stdout_even_protocol_lookalikes_keeps_its_real_output(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p", main_py=CHATTY,
                         rows=[coded_row("right", {"answer": "A"}), coded_row("wrong", {"answer": "B"})])
    _, doc = invoke_json("run", str(root))
    results = by_row(doc)
    assert results["right"]["verdict"] == "PASS" and results["right"]["actual"] == {"answer": "A"}
    assert results["wrong"]["verdict"] == "FAIL" and results["wrong"]["actual"] == {"answer": "B"}


RUDE = '''\
import os, sys


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no words")


def main(input):
    kind = input["kind"]
    if kind == "sys.exit":
        sys.exit(3)
    if kind == "os._exit":
        os._exit(1)
    if kind == "KeyboardInterrupt":
        raise KeyboardInterrupt
    if kind == "unprintable":
        raise Unprintable()
    if kind == "stdin":
        return {"answer": sys.stdin.read() or "A"}
    if kind == "list":
        return ["A"]
    return {"answer": "A"}
'''


def test_an_agent_that_exits_is_interrupted_reads_stdin_or_returns_no_object_never_passes(tmp_path: Path) -> None:
    """Each is its row's ERROR (a new worker takes the rest), except reading stdin, which finds it empty: the
    protocol is not on the agent's stdin."""
    kinds = ["sys.exit", "os._exit", "KeyboardInterrupt", "unprintable", "list", "stdin", "fine"]
    root = coded_project(tmp_path / "p", main_py=RUDE, rows=[coded_row(kind, {"kind": kind}) for kind in kinds])
    proc, doc = invoke_json("run", str(root))
    verdicts = {row: r["verdict"] for row, r in by_row(doc).items()}
    assert verdicts == {**dict.fromkeys(kinds[:5], "ERROR"), "stdin": "PASS", "fine": "PASS"}, by_row(doc)
    assert "SystemExit: 3" in by_row(doc)["sys.exit"]["detail"]
    assert "Traceback" not in proc.stderr


# -- nothing written where it must not be --------------------------------------------------------------


def _outside(tmp_path: Path) -> dict[str, str]:
    return {name: digest for name, digest in tree_digest(tmp_path).items() if not name.startswith("p/")
            and name != "p"}


@pytest.fixture
def busy_project(tmp_path: Path) -> Iterator[Path]:
    """Rows that pass, fail, raise and return what isn't JSON, with a helper module main.py imports."""
    main_py = ('import helper\n\n\ndef main(input):\n    if input.get("raise"):\n        raise ValueError("no")\n'
               '    if input.get("set"):\n        return {"answer": {1}}\n'
               '    return {"answer": helper.answer(input)}\n')
    root = coded_project(tmp_path / "p", main_py=main_py, rows=[
        coded_row("pass", {"answer": "A"}), coded_row("fail", {"answer": "B"}), coded_row("raise", {"raise": True}),
        coded_row("set", {"set": True})])
    write(root / "helper.py", 'def answer(input):\n    return input.get("answer", "A")\n')
    yield root


@pytest.mark.process("a hang or an escaped process is bounded by the real process's timeout and end")
def test_runs_write_nothing_into_evaluations_or_outside_the_project(tmp_path: Path, busy_project: Path) -> None:
    evaluations, project_files = tree_digest(busy_project / "evaluations"), _project_files(busy_project)
    outside = _outside(tmp_path)
    for args in (["run"], ["run", "--reuse"], ["check"], ["run", "--json"]):
        invoke_workbench(*args, str(busy_project))
    run_workbench("run", str(busy_project), env=cli_env(), timeout=120)
    assert tree_digest(busy_project / "evaluations") == evaluations
    assert _project_files(busy_project) == project_files, "only .workbench/ may change"
    assert _outside(tmp_path) == outside


def _project_files(root: Path) -> dict[str, str]:
    return {name: digest for name, digest in tree_digest(root).items() if not name.startswith(".workbench")}
