"""`workbench init --format appilots` in an empty folder makes a project that runs (found on a new user's pass:
it wrote only the example scenario, so `run` exited 2 with "no way to run the target"): a starter agent.py
and the workbench.toml that runs it, as `init` writes for the other formats. A folder that already says how to
run its agent gets the scenario only."""

from __future__ import annotations

from pathlib import Path

from helpers.cli import invoke_workbench


def test_init_format_appilots_in_an_empty_folder_makes_a_project_that_runs(tmp_path: Path) -> None:
    root = tmp_path / "ui-agent"
    init = invoke_workbench("init", str(root), "--format", "appilots")
    assert init.returncode == 0, init.stderr
    assert init.stdout.splitlines()[:3] == ["created .appilots/scenarios/example.json", "created agent.py",
                                            "created workbench.toml"]
    assert "`workbench run` plays .appilots/scenarios/example.json against agent.py (it passes)" in init.stdout
    check = invoke_workbench("check", str(root))
    assert check.returncode == 0 and check.stdout.splitlines()[-1].startswith("check passed: 0 errors, 0 warnings")
    run = invoke_workbench("run", str(root))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 0 failed, 0 errors" in run.stdout


def test_init_format_appilots_keeps_a_folder_that_already_runs_its_agent(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    settings = '[runner]\nkind = "python"\ncallable = "my_agent:respond"\n'
    (mine / "workbench.toml").write_text(settings)
    again = invoke_workbench("init", str(mine), "--format", "appilots")
    assert again.returncode == 0, again.stderr
    assert "agent.py" not in again.stdout and not (mine / "agent.py").exists()
    assert (mine / "workbench.toml").read_text() == settings
    assert (mine / ".appilots" / "scenarios" / "example.json").is_file()
