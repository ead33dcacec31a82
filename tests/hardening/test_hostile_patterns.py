"""Regexes from eval files can't hang workbench (issue 20, case 16).

`^(a+)+$` against 34 `a`s and a `!` used to run for hours inside Python's `re`, holding the GIL, so
neither Ctrl-C nor SIGTERM stopped workbench. Now a pattern RE2 can run gives its true verdict at once,
and one only a backtracking engine can run (a lookahead, a backreference) is stopped after
`MATCH_TIMEOUT_S` and the row is an ERROR naming the file and the pattern. Every run here is a real
`workbench` subprocess with a generous bound: a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import cli_env, run_json
from helpers.conversations import eval_doc, turn, write_evals
from helpers.project import COMMAND_CONFIG, evaluator, make_project, row
from helpers.replays import call, case, replay_project, say

# A pattern that hangs holds the GIL of the interpreter it runs in: the bound is kept from outside it.
pytestmark = [pytest.mark.hardening, pytest.mark.process("a hanging pattern holds its interpreter's GIL")]

EVIL_TEXT = "a" * 34 + "!"
NESTED = "^(a+)+$"  # the issue's pattern: RE2 decides it in linear time
BACKTRACKING = "^(?=(a|a)+$)"  # a lookahead RE2 lacks, and exponential for a backtracking engine
BOUND_S = 60
ASSERTIONS = "assertions"

BOT = """\
import json, sys
request = json.load(sys.stdin)
print(json.dumps({"reply": request.get("user")}))
"""


def assertion_project(root: Path, patterns: list[str], text: str = EVIL_TEXT) -> Path:
    """A UiPath-style set: each row's target answers {"reply": text}; a workbench-assertions check
    `matches` one pattern."""
    rows = [row(f"row{i}", {"output": {"reply": text}},
                criteria={ASSERTIONS: {"checks": [{"path": "reply", "matches": pattern}]}})
            for i, pattern in enumerate(patterns)]
    return make_project(root, sets={"patterns": {"version": "1.0", "id": "s", "name": "patterns",
                                                 "evaluatorRefs": [ASSERTIONS], "evaluations": rows}},
                        evaluators={ASSERTIONS: evaluator(type_id="workbench-assertions")},
                        config={**COMMAND_CONFIG, "concurrency": 1})


def only_result(doc: dict[str, Any]) -> dict[str, Any]:
    assert len(doc["results"]) == 1, doc["results"]
    return doc["results"][0]


def test_the_issues_pattern_gets_its_true_verdict_at_once(tmp_path: Path) -> None:
    root = assertion_project(tmp_path, [NESTED])
    _proc, doc = run_json("run", str(root), "--no-history", timeout=BOUND_S)
    result = only_result(doc)
    assert result["verdict"] == "FAIL", result["detail"]
    assert "does not match /^(a+)+$/" in result["detail"]


def test_a_backtracking_pattern_in_an_assertion_is_an_error_naming_file_and_pattern(tmp_path: Path) -> None:
    root = assertion_project(tmp_path, [BACKTRACKING])
    proc, doc = run_json("run", str(root), "--no-history", timeout=BOUND_S)
    result = only_result(doc)
    assert result["verdict"] == "ERROR", result["detail"]
    assert result["set"] == "patterns.json"
    assert f"checks[0]: matches {BACKTRACKING!r} ran longer than" in result["detail"]
    assert "was stopped" in result["detail"] and "a lookahead or lookbehind" in result["detail"]
    assert proc.returncode == 1


def test_a_backtracking_pattern_in_a_conversation_is_an_error_naming_file_and_pattern(tmp_path: Path) -> None:
    assertions = [{"matches": BACKTRACKING}, {"contains": "aaa"}]
    write_evals(tmp_path, {"evil": eval_doc("evil", [turn(EVIL_TEXT, response=assertions)])})
    (tmp_path / "bot.py").write_text(BOT, encoding="utf-8")
    (tmp_path / "workbench.toml").write_text('[runner]\nkind = "command"\ncommand = ["{python}", "bot.py"]\n',
                                             encoding="utf-8")
    _proc, doc = run_json("run", str(tmp_path), "--no-history", timeout=BOUND_S)
    result = only_result(doc)
    assert result["verdict"] == "ERROR", result["detail"]
    assert result["set"] == "evil.eval.json"
    assert f"turn 1: assert.response[0]: matches {BACKTRACKING!r} ran longer than" in result["detail"]
    checked = {json.dumps(a["assertion"]): a["verdict"] for a in result["expected"]["assertions"]}
    assert checked == {json.dumps({"matches": BACKTRACKING}): "ERROR", json.dumps({"contains": "aaa"}): "PASS"}


def tools_pattern_result(tmp_path: Path, pattern: str) -> dict[str, Any]:
    """The one result of a replay whose tool's input schema constrains its argument by `pattern`, called with
    the evil text."""
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": pattern}}}
    tools = [{"name": "search", "inputSchema": schema, "approval": "never"}]
    replay_project(tmp_path, {"evil": case(call("search", {"q": EVIL_TEXT}, result={"hits": 0}), say("done"))},
                   tools=tools)
    _proc, doc = run_json("run", str(tmp_path), "--no-history", timeout=BOUND_S)
    return only_result(doc)


def test_a_backtracking_pattern_in_a_tools_file_is_an_error_naming_file_and_pattern(tmp_path: Path) -> None:
    result = tools_pattern_result(tmp_path, BACKTRACKING)
    assert result["verdict"] == "ERROR", result["detail"]
    assert "tools.json: tool 'search'" in result["detail"]
    assert f"inputSchema.properties.q.pattern {BACKTRACKING!r} ran longer than" in result["detail"]


def test_the_issues_pattern_in_a_tools_file_decides_at_once(tmp_path: Path) -> None:
    result = tools_pattern_result(tmp_path, NESTED)
    assert result["verdict"] == "FAIL", result["detail"]
    assert "does not match" in result["detail"] and "inputSchema.properties.q.pattern" in result["detail"]


def _lines(stream: Any, into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_signal_during_backtracking_patterns_ends_the_run(tmp_path: Path, signum: int, code: int) -> None:
    """Rows one at a time, each with a pattern that has to be stopped; once the first row's verdict is
    printed the second is running, and the signal ends the run with 128 + its number."""
    root = assertion_project(tmp_path, [BACKTRACKING] * 20)
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "run", str(root), "--no-history"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env())
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stdout, lines), daemon=True).start()
    try:
        first = lines.get(timeout=BOUND_S)  # the first row's verdict: scoring it did not hang
        assert first is not None and first.startswith("ERROR"), first
        proc.send_signal(signum)
        assert proc.wait(timeout=BOUND_S) == code
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
