"""`add-row --from-run` reaches a format only through its Dialect: a row goes only into a set of a
format whose sets workbench writes (`row_sets`), a case only from a format that makes cases
(`case_from_run`), and either refusal writes nothing."""

from __future__ import annotations

from pathlib import Path

from helpers.checks import tree_digest
from helpers.cli import invoke_workbench
from helpers.replays import copy_example


def test_a_row_goes_only_into_a_set_workbench_writes_and_a_case_only_under_a_plain_name(tmp_path: Path) -> None:
    root = copy_example(tmp_path / "refund-agent")
    invoke_workbench("run", str(root))  # one case fails on purpose; the run is recorded all the same
    before = tree_digest(root)

    into_replays = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", "refund-held", "--set", "scripts")
    assert into_replays.returncode == 1, into_replays.stdout + into_replays.stderr
    assert "is not an eval set rows are added to (evals/<scope>/eval-sets/*.json" in into_replays.stderr
    assert "; use --script" in into_replays.stderr

    for name in ("../escape", ".hidden", "a/b"):
        bad = invoke_workbench("add-row", str(root), "--from-run", "1", "--row", "refund-held", "--script",
                               "--name", name)
        assert bad.returncode == 1 and "can't name a case file" in bad.stderr, (name, bad.stderr)
    assert tree_digest(root) == before
