"""Bulk accept (issue 12, point 2): several `--row`, `--all-failing [--set]`, every diff shown before
anything is written, a question (or `--yes`), and one surgical write per eval set."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest
from helpers.cli import cli_env, invoke_json, invoke_workbench, verdicts
from helpers.project import COMMAND_CONFIG, EXACT, make_project, row

from workbench.actions import accept_bulk
from workbench.actions.accept_bulk import preview_failing, preview_recorded_failing, write_accepted
from workbench.config import load_config
from workbench.project import load_project


def _rows(prefix: str) -> list[dict]:
    return [
        row(f"{prefix} passes", {"output": {"grade": "PASS"}}, {"grade": "PASS"}, id=f"{prefix}-ok"),
        row(f"{prefix} one", {"output": {"grade": "NEW-1"}}, {"grade": "OLD-1"}, id=f"{prefix}-1"),
        row(f"{prefix} two", {"output": {"grade": "NEW-2"}}, {"grade": "OLD-2"}, id=f"{prefix}-2"),
        row(f"{prefix} crashes", {"exit": 3}, {"grade": "PASS"}, id=f"{prefix}-x"),
    ]


@pytest.fixture
def project(tmp_path):
    """Two sets, each with a passing row, two rows whose output changed on purpose, and a crashing row; run once."""
    root = make_project(tmp_path, sets={"alpha": _rows("a"), "beta": _rows("b")}, config=COMMAND_CONFIG)
    invoke_json("run", str(root))
    return root


def _set(root, name):
    return root / "evals" / "default" / "eval-sets" / f"{name}.json"


def _expected(root, name):
    doc = json.loads(_set(root, name).read_text())
    return {r["id"]: r["evaluationCriterias"][EXACT]["expectedOutput"]["grade"] for r in doc["evaluations"]}


def test_two_rows_are_both_accepted_instead_of_the_second_dropping_the_first(project):
    proc = invoke_workbench("accept", str(project), "--set", "alpha", "--row", "a one", "--row", "a-2", "--yes")

    assert proc.returncode == 0, proc.stderr
    assert "1/2: 'a one'" in proc.stdout and "2/2: 'a two'" in proc.stdout  # both diffs shown first
    assert "accepted 2 rows in evals/default/eval-sets/alpha.json: 'a one', 'a two'" in proc.stdout
    assert _expected(project, "alpha") == {"a-ok": "PASS", "a-1": "NEW-1", "a-2": "NEW-2", "a-x": "PASS"}
    _, doc = invoke_json("run", str(project), "--set", "alpha")
    assert verdicts(doc)[f"a one [{EXACT}]"] == "PASS" and verdicts(doc)[f"a two [{EXACT}]"] == "PASS"


def test_without_a_terminal_and_without_yes_it_shows_the_diffs_and_refuses(project):
    before = _set(project, "alpha").read_bytes()

    proc = invoke_workbench("accept", str(project), "--set", "alpha", "--row", "a-1", "--row", "a-2")

    assert proc.returncode == 1
    assert '+            "grade": "NEW-1"' in proc.stdout and '+            "grade": "NEW-2"' in proc.stdout
    assert "no terminal to confirm on" in proc.stderr and "--yes" in proc.stderr
    assert _set(project, "alpha").read_bytes() == before


def _accept_on_a_terminal(root, answer: str) -> subprocess.CompletedProcess[str]:
    """`accept --all-failing` with stdin a terminal (a pty) that types `answer`."""
    leader, follower = pty.openpty()
    try:
        os.write(leader, answer.encode() + b"\n")
        return subprocess.run([sys.executable, "-m", "workbench", "accept", str(root), "--all-failing"],
                              stdin=follower, capture_output=True, text=True, env=cli_env(), timeout=60)
    finally:
        os.close(leader)
        os.close(follower)


@pytest.mark.process("a real terminal (a pty) for the question")
def test_on_a_terminal_it_asks_once_and_writes_only_on_yes(project):
    before = {name: _set(project, name).read_bytes() for name in ("alpha", "beta")}

    declined = _accept_on_a_terminal(project, "n")
    assert declined.returncode == 1 and "Accept 4 rows in 2 files?" in declined.stdout
    assert "declined" in declined.stderr
    assert {name: _set(project, name).read_bytes() for name in before} == before

    accepted = _accept_on_a_terminal(project, "y")
    assert accepted.returncode == 0, accepted.stderr
    assert _expected(project, "alpha")["a-1"] == "NEW-1" and _expected(project, "beta")["b-2"] == "NEW-2"


def test_all_failing_offers_every_failing_row_and_names_the_ones_it_skips(project):
    proc = invoke_workbench("accept", str(project), "--all-failing", "--yes")

    assert proc.returncode == 0, proc.stderr
    assert [line.split(": ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("──")] == [
        "'a one' (output of iteration 1)", "'a two' (output of iteration 1)",
        "'b one' (output of iteration 1)", "'b two' (output of iteration 1)"]
    assert "skipped 'a crashes' (alpha.json)" in proc.stderr and "ERROR" in proc.stderr
    assert _expected(project, "alpha") == {"a-ok": "PASS", "a-1": "NEW-1", "a-2": "NEW-2", "a-x": "PASS"}
    assert _expected(project, "beta") == {"b-ok": "PASS", "b-1": "NEW-1", "b-2": "NEW-2", "b-x": "PASS"}

    again = invoke_workbench("accept", str(project), "--all-failing", "--yes")
    assert again.returncode == 0 and "nothing to accept" in again.stdout


def test_all_failing_with_set_touches_only_that_set_and_dry_run_nothing(project):
    beta = _set(project, "beta").read_bytes()
    alpha = _set(project, "alpha").read_bytes()

    dry = invoke_workbench("accept", str(project), "--all-failing", "--set", "alpha", "--dry-run")
    assert dry.returncode == 0 and "(dry run: 2 rows in 1 file shown, nothing written)" in dry.stdout
    assert _set(project, "alpha").read_bytes() == alpha

    proc = invoke_workbench("accept", str(project), "--all-failing", "--set", "alpha", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "'b one'" not in proc.stdout and _set(project, "beta").read_bytes() == beta
    assert _expected(project, "alpha")["a-2"] == "NEW-2"


def test_usage_errors(project):
    both = invoke_workbench("accept", str(project), "--set", "alpha", "--row", "a-1", "--all-failing")
    assert both.returncode == 2 and "not both" in both.stderr
    no_set = invoke_workbench("accept", str(project), "--row", "a-1", "--row", "a-2")
    assert no_set.returncode == 2 and "--row needs --set" in no_set.stderr
    nothing = invoke_workbench("accept", str(project), "--set", "alpha")
    assert nothing.returncode == 2 and "--all-failing" in nothing.stderr
    unknown = invoke_workbench("accept", str(project), "--set", "alpha", "--row", "a-1", "--row", "nope", "--yes")
    assert unknown.returncode == 2 and "no row 'nope'" in unknown.stderr


def test_a_named_row_that_cannot_be_accepted_refuses_the_whole_request(project):
    before = _set(project, "alpha").read_bytes()

    proc = invoke_workbench("accept", str(project), "--set", "alpha", "--row", "a-1", "--row", "a crashes", "--yes")

    assert proc.returncode == 1 and "row 'a crashes'" in proc.stderr and "ERROR" in proc.stderr
    assert _set(project, "alpha").read_bytes() == before


def test_each_file_is_written_once_with_only_the_accepted_rows_lines_changed(project, monkeypatch):
    config = load_config(project)
    bulk = preview_recorded_failing(config)
    before = {name: _set(project, name).read_bytes() for name in ("alpha", "beta")}
    writes: list[str] = []
    real = accept_bulk.write_plan

    def counting(plan):
        writes.append(plan.display)
        return real(plan)

    monkeypatch.setattr(accept_bulk, "write_plan", counting)

    outcomes = write_accepted(bulk.project, bulk.previews)

    assert writes == ["evals/default/eval-sets/alpha.json", "evals/default/eval-sets/beta.json"]
    assert [(o.display.rsplit("/", 1)[1], o.labels, o.refused) for o in outcomes] == [
        ("alpha.json", ["a one", "a two"], None), ("beta.json", ["b one", "b two"], None)]
    for name in before:
        old, new = before[name].splitlines(), _set(project, name).read_bytes().splitlines()
        assert [(a, b) for a, b in zip(old, new, strict=True) if a != b] == [
            (b'            "grade": "OLD-1"', b'            "grade": "NEW-1"'),
            (b'            "grade": "OLD-2"', b'            "grade": "NEW-2"')]


def test_a_file_edited_since_the_preview_keeps_all_its_bytes_and_the_other_file_is_written(project):
    bulk = preview_recorded_failing(load_config(project))
    alpha = _set(project, "alpha")
    alpha.write_text(alpha.read_text().replace('"OLD-2"', '"EDITED"'))  # someone changed row a-2 meanwhile
    edited = alpha.read_bytes()

    outcomes = write_accepted(bulk.project, bulk.previews)

    assert outcomes[0].written is None and "changed since this output was recorded" in (outcomes[0].refused or "")
    assert alpha.read_bytes() == edited
    assert outcomes[1].written is not None and _expected(project, "beta")["b-1"] == "NEW-1"


def test_preview_failing_uses_the_results_given_and_skips_what_it_cannot_accept(project):
    config = load_config(project)
    recorded = preview_recorded_failing(config)
    results = [r for preview in recorded.previews for r in preview.results]
    results += [r for r in results if r.row_id == "a-1"]  # duplicates don't matter

    bulk = preview_failing(load_project(project, config), results)

    assert [p.label for p in bulk.previews] == ["a one", "a two", "b one", "b two"]
    assert all(p.changed and p.eval_set is not None for p in bulk.previews)
