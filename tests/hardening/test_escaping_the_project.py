"""Refs, file names and links that try to leave the project are refused and never read.

"Never read" is proved by content: each file outside `evals/` is one that would change a verdict if
workbench read it (an evaluator that would make a row pass, a set whose rows would show up).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.checks import tree_digest
from helpers.cli import invoke_json, invoke_workbench
from helpers.hardening import assert_polite
from helpers.project import COMMAND_CONFIG, EXACT, evaluator, make_project, row

from workbench.project import load_project

pytestmark = pytest.mark.hardening

PASSING = {"grade": "PASS"}


def outside(tmp_path: Path) -> Path:
    """A folder next to the project holding an evaluator, a set and a scope that would all 'work'."""
    folder = tmp_path / "outside"
    (folder / "scope" / "eval-sets").mkdir(parents=True)
    (folder / "scope" / "evaluators").mkdir(parents=True)
    ev = json.dumps(evaluator("*", id="outside-eval"))
    (folder / "ev.json").write_text(ev)
    (folder / "scope" / "evaluators" / f"{EXACT}.json").write_text(ev)
    leaked = {"version": "1.0", "evaluatorRefs": [EXACT],
              "evaluations": [row("leaked row", {"output": PASSING}, PASSING)]}
    (folder / "set.json").write_text(json.dumps(leaked))
    (folder / "scope" / "eval-sets" / "leaked.json").write_text(json.dumps(leaked))
    return folder


@pytest.mark.parametrize("ref", ["../../../outside/ev", "../evaluators/../../../outside/ev", "/OUTSIDE/ev",
                                 "../../../../../../../../etc/passwd", "/etc/passwd", "..", ".", "",
                                 "ev\u0000.json"], ids=repr)
def test_a_ref_that_leaves_the_evaluators_folder_is_an_error_and_reads_nothing(tmp_path, ref):
    root = tmp_path / "project"
    folder = outside(tmp_path)
    ref = ref.replace("/OUTSIDE", str(folder))
    doc = {"version": "1.0", "evaluatorRefs": [ref],
           "evaluations": [row("r", {"output": PASSING}, PASSING, ref=ref)]}
    make_project(root, sets={"grading": doc}, config=COMMAND_CONFIG)
    proc, result_doc = invoke_json("run", str(root))
    assert_polite(proc)
    [result] = result_doc["results"]
    assert result["verdict"] == "ERROR", result  # the outside evaluator would have made it PASS
    assert "no evaluator file" in result["detail"]


def test_a_scope_folder_linked_outside_is_refused(tmp_path):
    root = make_project(tmp_path / "project", sets={"grading": [row("inside", {"output": PASSING}, PASSING)]},
                        config=COMMAND_CONFIG)
    (root / "evals" / "linked").symlink_to(outside(tmp_path) / "scope", target_is_directory=True)
    proc, doc = invoke_json("run", str(root))
    assert_polite(proc)
    assert [r["row_name"] for r in doc["results"]] == ["inside"]
    assert {"file": "evals/linked", "message": "is a link to a folder outside evals/; not read",
            "severity": "error"} in doc["problems"]


@pytest.mark.parametrize("folder_name", ["eval-sets", "evaluators"])
def test_a_sets_or_evaluators_folder_linked_outside_is_refused(tmp_path, folder_name):
    root = make_project(tmp_path / "project", sets={"grading": [row("inside", {"output": PASSING}, PASSING)]},
                        config=COMMAND_CONFIG)
    scope = root / "evals" / "other"
    scope.mkdir()
    (scope / folder_name).symlink_to(outside(tmp_path) / "scope" / folder_name, target_is_directory=True)
    project = load_project(root)
    assert [s.stem for s in project.sets] == ["grading"]
    assert ("other", EXACT) not in project.evaluators
    assert any("outside evals/" in p.message for p in project.problems)


def test_a_set_file_linked_outside_is_refused(tmp_path):
    root = make_project(tmp_path / "project", sets={"grading": [row("inside", {"output": PASSING}, PASSING)]},
                        config=COMMAND_CONFIG)
    link = root / "evals" / "default" / "eval-sets" / "leak.json"
    link.symlink_to(outside(tmp_path) / "set.json")
    proc, doc = invoke_json("run", str(root))
    assert_polite(proc)
    assert [r["row_name"] for r in doc["results"]] == ["inside"]  # "leaked row" never shows up
    assert any(p["file"] == "evals/default/eval-sets/leak.json" and "outside evals/" in p["message"]
               for p in doc["problems"])


def test_an_evaluator_file_linked_outside_is_refused_and_its_rows_say_why(tmp_path):
    root = make_project(tmp_path / "project", sets={"grading": [row("r", {"output": PASSING}, PASSING)]},
                        evaluators={}, config=COMMAND_CONFIG)
    evaluators = root / "evals" / "default" / "evaluators"
    evaluators.mkdir()
    (evaluators / f"{EXACT}.json").symlink_to(outside(tmp_path) / "ev.json")
    proc, doc = invoke_json("run", str(root))
    assert_polite(proc)
    [result] = doc["results"]
    assert result["verdict"] == "ERROR"  # read, the outside evaluator would make this row PASS
    assert "is a link to a file outside evals/; not read" in result["detail"]


def test_a_link_through_a_linked_parent_folder_is_judged_by_where_it_really_is(tmp_path):
    """`evals/default/eval-sets/x.json -> ../../../outside/set.json` written relative: still outside."""
    root = make_project(tmp_path / "project", sets={"grading": [row("inside", {"output": PASSING}, PASSING)]})
    outside(tmp_path)
    link = root / "evals" / "default" / "eval-sets" / "rel.json"
    link.symlink_to(Path("..", "..", "..", "..", "outside", "set.json"))
    assert link.resolve() == (tmp_path / "outside" / "set.json").resolve()
    project = load_project(root)
    assert [s.stem for s in project.sets] == ["grading"]


def test_a_link_loop_is_a_problem_not_a_hang(tmp_path):
    root = make_project(tmp_path, sets={"grading": [row("inside", {"output": PASSING}, PASSING)]})
    sets = root / "evals" / "default" / "eval-sets"
    (sets / "a.json").symlink_to("b.json")
    (sets / "b.json").symlink_to("a.json")
    project = load_project(root)
    assert [s.stem for s in project.sets] == ["grading"]
    assert sum("loops" in p.message for p in project.problems) == 2


def test_links_that_stay_inside_evals_are_followed(tmp_path):
    root = make_project(tmp_path, sets={"grading": [row("inside", {"output": PASSING}, PASSING)]})
    (root / "evals" / "default" / "eval-sets" / "alias.json").symlink_to("grading.json")
    project = load_project(root)
    assert sorted(s.stem for s in project.sets) == ["alias", "grading"]
    assert not project.problems


def test_accept_never_writes_through_a_link_that_leaves_evals(tmp_path):
    """Even with a recorded output, a set that is a link to a file outside is neither found nor written."""
    folder = outside(tmp_path)
    root = make_project(tmp_path / "project", sets={"grading": [row("r", {"output": {"grade": "NEW"}}, PASSING)]},
                        config=COMMAND_CONFIG)
    assert invoke_workbench("run", str(root)).returncode == 1  # records r's output in the history
    sets = root / "evals" / "default" / "eval-sets"
    os.replace(sets / "grading.json", folder / "grading.json")
    (sets / "grading.json").symlink_to(folder / "grading.json")
    before = tree_digest(folder)
    proc = invoke_workbench("accept", str(root), "--set", "grading", "--row", "r")
    assert_polite(proc)
    assert proc.returncode != 0 and "grading" in proc.stderr
    assert tree_digest(folder) == before


@pytest.mark.parametrize("name", ["../../outside/set", "/etc/passwd", "../grading"])
def test_set_names_on_the_command_line_select_only_sets_under_evals(tmp_path, name):
    root = make_project(tmp_path / "project", sets={"grading": [row("r", {"output": PASSING}, PASSING)]},
                        config=COMMAND_CONFIG)
    outside(tmp_path)
    for args in (("run", str(root), "--set", name), ("accept", str(root), "--set", name, "--row", "r")):
        proc = invoke_workbench(*args)
        assert_polite(proc)
        assert proc.returncode != 0 and "no eval set" in (proc.stdout + proc.stderr).lower().replace(
            "nothing matches eval set", "no eval set")
