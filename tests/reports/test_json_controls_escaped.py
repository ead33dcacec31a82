"""`--json` on stdout escapes C1 controls as it does C0 ones (issue 20, case 22).

A JSON encoder writes U+0000–U+001F as `\\u` escapes but U+0080–U+009F (CSI is U+009B), DEL, bidi and
zero-width characters as they are, and terminals and log viewers obey some of them. Every `--json`
document workbench prints (`run`, `check`, `history`) writes them as `\\uXXXX` escapes instead: the
same JSON value, nothing a terminal interprets. `history --json` also no longer fails on a lone
surrogate (JSON allows `"\\ud800"`; UTF-8 can't hold it).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.project import COMMAND_CONFIG, make_project, row

from workbench.report.json_report import encode_document

HOSTILE = "a\x1b[31mb\u009b2Jc\u0085d\x7fe\u202ef\u200bg\x90h"
NAME = "row\u009b1m"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]")


def hostile_project(root: Path) -> Path:
    output = {"text": HOSTILE, "lone": "x\ud800y"}
    return make_project(root, sets={"s": [row(NAME, {"output": output}, {"text": "other"})]}, config=COMMAND_CONFIG)


def stdout_of(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, env=cli_env(),
                          timeout=60)
    assert proc.stderr.decode("utf-8", "replace").count("Traceback") == 0, proc.stderr
    text = proc.stdout.decode("utf-8")  # valid UTF-8: no raw surrogate either
    assert not UNSAFE.findall(text), sorted(set(UNSAFE.findall(text)))
    return text


def test_json_escaped_keeps_the_value_and_leaves_nothing_a_terminal_obeys() -> None:
    from workbench.textsafe import json_escaped  # the one rule for --json (imported here: new in case 22)

    value = {"k\u0085": [HOSTILE, "x\ud800", "tab\there", "line\nbreak", "é ✓"]}
    encoded = encode_document(value).decode("utf-8")
    assert not UNSAFE.findall(encoded)
    assert "\\u009b" in encoded and "\\u0085" in encoded and "\\u007f" in encoded and "\\u202e" in encoded
    assert "é ✓" in encoded  # ordinary non-ASCII text stays readable
    assert json.loads(encoded) == value
    assert json_escaped('"\u0090"') == '"\\u0090"'


@pytest.mark.process("stdout purity: the bytes the real process writes")
def test_run_json_escapes_c1_controls(tmp_path: Path) -> None:
    root = hostile_project(tmp_path)
    doc = json.loads(stdout_of("run", str(root), "--json"))
    result = doc["results"][0]
    assert result["row_name"] == NAME
    assert result["actual"] == {"text": HOSTILE, "lone": "x\ud800y"}


@pytest.mark.process("stdout purity: the bytes the real process writes")
def test_history_json_escapes_c1_controls_and_takes_a_lone_surrogate(tmp_path: Path) -> None:
    root = hostile_project(tmp_path)
    assert invoke_workbench("run", str(root)).returncode == 1
    listed = json.loads(stdout_of("history", str(root), "--json"))
    assert len(listed) == 1
    shown = json.loads(stdout_of("history", str(root), "1", "--json"))
    assert shown["results"][0]["row_name"] == NAME
    assert shown["results"][0]["actual"] == {"text": HOSTILE, "lone": "x\ud800y"}


@pytest.mark.process("stdout purity: the bytes the real process writes")
def test_check_json_escapes_c1_controls(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"bad\u009b": "{ not json"}, config=COMMAND_CONFIG)
    doc = json.loads(stdout_of("check", str(root), "--json"))
    assert any("bad\u009b" in problem["file"] for problem in doc["problems"])


def test_junit_xml_escapes_c1_controls_and_del_too(tmp_path: Path) -> None:
    """XML 1.0 may carry C1 controls, but a CI log viewer showing the report would obey them."""
    root = hostile_project(tmp_path)
    junit = tmp_path / "report.xml"
    invoke_workbench("run", str(root), "--junit", str(junit), env=cli_env())
    text = junit.read_text(encoding="utf-8")
    assert not re.findall("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    assert "\\x9b" in text and "\\x85" in text and "\\x7f" in text
