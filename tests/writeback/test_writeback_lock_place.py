"""The write lock lives in the project's own `.workbench/`, even when `evals/` is a link to a folder
elsewhere: write-back writes nothing outside the project but the set it edits."""

from __future__ import annotations

from helpers.writeback import EXACT, evaluators, fixture_bytes, load, project, recorded

from workbench.writeback import apply_plan
from workbench.writeback.accept import plan_accept

ACTUAL = {"grade": "FAIL", "details": {"rawScore": 40, "band": "fail"}}


def test_accepting_through_a_linked_evals_folder_locks_inside_the_project(tmp_path):
    root, _ = project(tmp_path, fixture_bytes("two_space"))
    shared = tmp_path / "shared"
    shared.mkdir()
    (root / "evals").rename(shared / "evals")
    (root / "evals").symlink_to(shared / "evals", target_is_directory=True)
    path = root / "evals" / "default" / "eval-sets" / "cases.json"

    apply_plan(plan_accept(root, path, [recorded("row-2", EXACT, ACTUAL, {"grade": "FAIL"})], evaluators(root)))

    assert load(path.read_bytes())["evaluations"][1]["evaluationCriterias"][EXACT]["expectedOutput"] == ACTUAL
    assert not (tmp_path / "shared" / ".workbench").exists()
    assert any((root / ".workbench" / "locks").iterdir())
