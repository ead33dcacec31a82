"""Issue 22, Appilots (seed 000): `--update-baseline` names the baseline it found (or that there was none),
in the gate's line, in what it wrote or refused to write, and in `--json`; and a baseline of the wrong
shape gets a well-formed message naming the file, what is wrong and the shape expected."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.paths import EXAMPLES

from workbench.baseline import BaselineError
from workbench.dialects.scenarios.gate import load_scenario_baseline

BASELINE = Path(".appilots") / "eval-baseline.json"
SHOWN = BASELINE.as_posix()  # as the report names it: relative to the project


def copy_example(where: Path) -> Path:
    """examples/form-agent: five scenarios, `keeps-card-number-private` failing on purpose."""
    root = where / "form-agent"
    shutil.copytree(EXAMPLES / "form-agent", root,
                    ignore=shutil.ignore_patterns("__pycache__", ".workbench", "eval-baseline.json"))
    return root


def fix_the_agent(root: Path) -> None:
    agent = root / "agent.py"
    text = agent.read_text(encoding="utf-8")
    echo = 'f"Thanks, I noted the card ending in {digits[-4:]}."'
    assert echo in text
    agent.write_text(text.replace(echo, '"Thanks, but I never keep card numbers; enter it at checkout."'),
                     encoding="utf-8")


def gate_of(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["gate"]["scenarios"]


def test_update_baseline_with_none_there_says_so_and_that_it_made_one(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    fix_the_agent(root)
    proc, doc = invoke_json("run", str(root), "--update-baseline")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert gate_of(doc)["baseline_found"] is False and gate_of(doc)["baseline_written"] is True
    (root / BASELINE).unlink()
    proc = invoke_workbench("run", str(root), "--update-baseline")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"scenarios: 5/5 pass (100.0%, minimum 95.0%), no baseline yet ({SHOWN})" in proc.stdout
    assert f"scenario baseline written: {SHOWN} (a new file; 5 scenarios, pass rate 100.0%)" in proc.stdout


def test_update_baseline_names_the_baseline_it_found_and_replaced(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    fix_the_agent(root)
    assert invoke_workbench("run", str(root), "--update-baseline").returncode == 0
    proc, doc = invoke_json("run", str(root), "--update-baseline")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert gate_of(doc)["baseline_found"] is True and gate_of(doc)["baseline"] == SHOWN
    text = invoke_workbench("run", str(root), "--update-baseline")
    assert "no baseline yet" not in text.stdout, text.stdout
    assert f"scenarios: 5/5 pass (100.0%, minimum 95.0%), updating the baseline found at {SHOWN}" in text.stdout
    assert (f"scenario baseline written: {SHOWN} (replaced the baseline found there; 5 scenarios, pass rate "
            "100.0%)") in text.stdout


def test_a_refused_update_names_the_baseline_it_kept_or_that_there_was_none(tmp_path: Path) -> None:
    root = copy_example(tmp_path)  # one scenario fails: 4/5 is below the minimum
    none = invoke_workbench("run", str(root), "--update-baseline")
    assert none.returncode == 1 and not (root / BASELINE).exists()
    assert f"scenario baseline NOT updated (there is none at {SHOWN}; none written): scenario pass rate 4/5" \
        in none.stderr, none.stderr
    assert "left as it was" not in none.stderr
    original = b'{ "scenarios": {"keeps-card-number-private": {"passed": true, "tokens": 1}} }\n'
    (root / BASELINE).write_bytes(original)
    kept = invoke_workbench("run", str(root), "--update-baseline")
    assert kept.returncode == 1
    assert f"scenario baseline NOT updated (the baseline found at {SHOWN} is left as it was): scenario pass rate 4/5" \
        in kept.stderr, kept.stderr
    assert (root / BASELINE).read_bytes() == original


def _balanced(text: str) -> bool:
    depth = 0
    for ch in re.sub(r'"[^"]*"', "", text):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.parametrize(("content", "what"), [
    (b'{"results": []}', 'it has no "scenarios"'),
    (b'{"scenarios": 3}', '"scenarios" is number'),
    (b'[1, 2]', "it is array"),
    (b'"x"', "it is string"),
])
def test_the_baseline_shape_error_is_well_formed(tmp_path: Path, content: bytes, what: str) -> None:
    path = tmp_path / "eval-baseline.json"
    path.write_bytes(content)
    with pytest.raises(BaselineError) as caught:
        load_scenario_baseline(path)
    message = str(caught.value)
    assert message == (f"{path}: not a scenario baseline: {what}; expected an object such as "
                       '{"scenarios": {"<scenario name>": {"passed": true, "tokens": 120}}}; regenerate it with '
                       "`workbench run --update-baseline`")
    assert _balanced(message), message


def test_a_listed_entry_without_a_name_is_named_by_its_position(tmp_path: Path) -> None:
    path = tmp_path / "eval-baseline.json"
    path.write_text(json.dumps({"scenarios": [{"name": "a", "passed": True}, {"passed": False}]}))
    with pytest.raises(BaselineError, match=re.escape('scenarios[1] has no "name" (a string)')):
        load_scenario_baseline(path)


def test_run_prints_the_shape_error_once_and_exits_2(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    (root / BASELINE).write_text('{"scenarios": 3}')
    proc = invoke_workbench("run", str(root))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("not a scenario baseline") == 1
    assert '"scenarios" is number; expected an object such as {"scenarios": ' in proc.stderr
    assert "}}}}" not in proc.stderr


def test_a_partial_update_says_it_kept_the_other_entries(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    fix_the_agent(root)
    assert invoke_workbench("run", str(root), "--update-baseline").returncode == 0
    proc = invoke_workbench("run", str(root), "--update-baseline", "--row", "submits-and-does-nothing-else")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"updating the baseline found at {SHOWN}" in proc.stdout
    assert (f"scenario baseline written: {SHOWN} (updated the baseline found there, 4 other scenarios kept; "
            "1 scenario, pass rate 100.0%)") in proc.stdout
    assert len(json.loads((root / BASELINE).read_text())["scenarios"]) == 5
