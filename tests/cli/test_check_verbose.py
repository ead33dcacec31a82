"""`workbench check`'s default output is the problems and the verdict, nothing else (issue 38 point 4): what
re-scoring doesn't look at, the folders fingerprinted by what is installed in them and each row's re-scoring
reason are internals, printed only with `-v/--verbose` (and always in `--json`)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.cli import invoke_workbench

INTERNALS = ("not watched or fingerprinted", "fingerprinted by what is installed", "re-scoring:")


def initialised(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    made = invoke_workbench("init", str(root))
    assert made.returncode == 0, made.stderr
    return root


def test_check_on_the_init_project_says_the_verdict_and_nothing_else(tmp_path: Path) -> None:
    proc = invoke_workbench("check", str(initialised(tmp_path)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == ["check passed: 0 errors, 0 warnings (1 set, 1 row, 1 evaluator)"]
    assert proc.stderr == ""


def test_check_v_still_shows_what_re_scoring_looks_at_before_the_verdict(tmp_path: Path) -> None:
    root = initialised(tmp_path)
    for flag in ("-v", "--verbose"):
        proc = invoke_workbench("check", str(root), flag)
        assert proc.returncode == 0, proc.stdout
        lines = proc.stdout.splitlines()
        assert lines[0].startswith("not watched or fingerprinted: .workbench/ .git/")
        assert lines[1].startswith("fingerprinted by what is installed in them, not file by file: node_modules/")
        assert lines[2:] == ["re-scoring:", "  evaluation-set › greets Ada by name: runs: no earlier run of it is "
                             "recorded", "check passed: 0 errors, 0 warnings (1 set, 1 row, 1 evaluator)"]


def test_problems_still_come_before_the_verdict_without_v(tmp_path: Path) -> None:
    root = initialised(tmp_path)
    (root / "evals/default/eval-sets/broken.json").write_text("[", encoding="utf-8")
    proc = invoke_workbench("check", str(root))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("problem: evals/default/eval-sets/broken.json: is not valid JSON")
    assert lines[-1].startswith("check failed: 1 error, 0 warnings")
    assert not any(line.startswith(INTERNALS) for line in lines)


def test_json_keeps_the_reuse_view_without_v(tmp_path: Path) -> None:
    doc = json.loads(invoke_workbench("check", str(initialised(tmp_path)), "--json").stdout)
    assert doc["passed"] is True and doc["reuse"]["rows"]


def test_check_help_explains_v() -> None:
    text = invoke_workbench("check", "--help").stdout
    assert "-v, --verbose" in text and "re-score" in text
