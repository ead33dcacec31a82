"""Issue 20, case 14: a baseline named in a settings file (`[baseline] path`, `[scenarios] baseline`,
`.appilotsrc`'s `eval.baselinePath` or `outputDir`) that lies outside the project — absolute, `..` or
through a link — is refused with a ConfigError naming the file and key, for reading and for
`--update-baseline` writing; nothing outside is read or written. `--baseline PATH` on the command line
is the user's explicit choice and may point anywhere.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_workbench
from helpers.project import COMMAND_CONFIG, make_project, row

pytestmark = pytest.mark.hardening

FORM_AGENT = Path(__file__).resolve().parents[2] / "examples" / "form-agent"
PASSING = {"grade": "PASS"}


def snapshot(folder: Path) -> dict[str, Any]:
    """Every entry under `folder`, itself included (links not followed): bytes and mtime."""
    out: dict[str, Any] = {}
    for path in [folder, *sorted(folder.rglob("*"))]:
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        out[path.relative_to(folder).as_posix()] = (content, path.lstat().st_mtime_ns)
    return out


def outside(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / name).write_text(json.dumps(doc) + "\n")
    return folder


def plain_project(tmp_path: Path, baseline: str | None) -> Path:
    config: dict[str, Any] = {"runner": COMMAND_CONFIG}
    if baseline is not None:
        config["baseline"] = {"path": baseline}
    return make_project(tmp_path / "project", sets={"s": [row("r", {"output": PASSING}, PASSING)]}, config=config)


WORKBENCH_BASELINE = {"version": 1, "results": []}
# How `[baseline] path` leads out: `..`, an absolute path elsewhere, a folder inside that is a link out,
# the file itself a link out.
SHAPES = {"dotdot": "../outside/b.json", "absolute": "ABS/b.json", "linked folder": "linked/b.json",
          "linked file": "b.json"}


def place(root: Path, folder: Path, shape: str) -> str:
    value = SHAPES[shape].replace("ABS", str(folder))
    if shape == "linked folder":
        (root / "linked").symlink_to(folder, target_is_directory=True)
    elif shape == "linked file":
        (root / "b.json").symlink_to(folder / "b.json")
    return value


@pytest.mark.parametrize("update", [False, True], ids=["read", "update"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_baseline_path_in_workbench_toml_outside_the_project_is_refused(tmp_path: Path, shape: str,
                                                                          update: bool) -> None:
    folder = outside(tmp_path, "b.json", WORKBENCH_BASELINE)
    root = plain_project(tmp_path, None)
    value = place(root, folder, shape)
    (root / "workbench.toml").write_text((root / "workbench.toml").read_text()
                                         + f"\n[baseline]\npath = {json.dumps(value)}\n")
    before = snapshot(folder)
    proc = invoke_workbench("run", str(root), *(["--update-baseline"] if update else []))
    assert snapshot(folder) == before
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"workbench.toml: [baseline] path = {value!r}" in proc.stderr
    assert "--baseline PATH" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_same_file_given_with_baseline_on_the_command_line_is_read_and_written(tmp_path: Path) -> None:
    folder = outside(tmp_path, "b.json", WORKBENCH_BASELINE)
    root = plain_project(tmp_path, None)
    chosen = folder / "b.json"
    proc = invoke_workbench("run", str(root), "--update-baseline", "--baseline", str(chosen))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [r["row_name"] for r in json.loads(chosen.read_text())["results"]] == ["r"]
    assert invoke_workbench("run", str(root), "--baseline", str(chosen)).returncode == 0


ECHO = 'f"Thanks, I noted the card ending in {digits[-4:]}."'


def form_agent(tmp_path: Path, rc: dict[str, Any] | None = None, toml: str | None = None) -> Path:
    """examples/form-agent with its one failing scenario fixed (so --update-baseline would write)."""
    root = tmp_path / "form-agent"
    shutil.copytree(FORM_AGENT, root, ignore=shutil.ignore_patterns("__pycache__", ".workbench", "eval-baseline.json"))
    agent = (root / "agent.py").read_text(encoding="utf-8")
    assert ECHO in agent
    (root / "agent.py").write_text(agent.replace(ECHO, '"I never keep card numbers."'), encoding="utf-8")
    if rc is not None:
        (root / ".appilotsrc").write_text(json.dumps(rc), encoding="utf-8")
    if toml is not None:
        (root / "workbench.toml").write_text((root / "workbench.toml").read_text() + toml, encoding="utf-8")
    return root


SCENARIO_BASELINE = {"scenarios": {"fills-signup-from-one-sentence": {"passed": True}}}
EVAL = {"scenariosDir": ".appilots/scenarios"}


@pytest.mark.parametrize("update", [False, True], ids=["read", "update"])
@pytest.mark.parametrize("where", ["baselinePath", "baselinePath through a link", "outputDir", "[scenarios] baseline"])
def test_a_scenario_baseline_a_settings_file_puts_outside_the_project_is_refused(tmp_path: Path, where: str,
                                                                                 update: bool) -> None:
    folder = outside(tmp_path, "eval-baseline.json", SCENARIO_BASELINE)
    if where == "baselinePath":
        root = form_agent(tmp_path, {"eval": {**EVAL, "baselinePath": "../outside/eval-baseline.json"}})
        named = ".appilotsrc: eval.baselinePath = '../outside/eval-baseline.json'"
    elif where == "baselinePath through a link":
        root = form_agent(tmp_path, {"eval": {**EVAL, "baselinePath": "shared/eval-baseline.json"}})
        (root / "shared").symlink_to(folder, target_is_directory=True)
        named = ".appilotsrc: eval.baselinePath = 'shared/eval-baseline.json'"
    elif where == "outputDir":
        root = form_agent(tmp_path, {"outputDir": "../outside", "eval": EVAL})
        named = ".appilotsrc: outputDir = '../outside'"
    else:
        file = str(folder / "eval-baseline.json")
        root = form_agent(tmp_path, toml=f"\n[scenarios]\nbaseline = {json.dumps(file)}\n")
        named = f"workbench.toml: [scenarios] baseline = {file!r}"
    before = snapshot(folder)
    proc = invoke_workbench("run", str(root), *(["--update-baseline"] if update else []))
    assert snapshot(folder) == before
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert named in proc.stderr
    assert "outside the project" in proc.stderr or "link" in proc.stderr or "'..'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_scenario_baseline_outside_given_on_the_command_line_wins_over_the_refused_setting(tmp_path: Path) -> None:
    folder = outside(tmp_path, "eval-baseline.json", SCENARIO_BASELINE)
    root = form_agent(tmp_path, {"eval": {**EVAL, "baselinePath": "../outside/eval-baseline.json"}})
    chosen = folder / "chosen.json"
    proc = invoke_workbench("run", str(root), "--baseline", str(chosen))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "eval.baselinePath" not in proc.stderr
    assert os.listdir(folder) == ["eval-baseline.json"]  # nothing written without --update-baseline
