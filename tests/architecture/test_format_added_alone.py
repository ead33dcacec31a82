"""A format added after the seam was made (issue 26) changed nothing outside its own files: its dialect
package, its TUI view module, its tests and one line of `REGISTRY`.

Two proofs, neither naming a format:
- from the history: every commit that touches such a format's package or view module touches nothing else
  but its tests and, in `workbench/dialects/__init__.py`, exactly one added line that is its registry entry;
- from the tree: workbench without the package, the view module and that line imports, lists the other
  formats and scores the bundled example exactly as the whole tree does.
(`test_dialect_packages.py` adds the third: nothing outside names the format.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES, PACKAGE, REPO

from workbench.dialects import REGISTRY, all_dialects
from workbench.dialects.base import HasView

# The last commit before the seam a format plugs into without touching anything else (own scorers of core
# type ids, `Dialect.criterion_for`, `RUNNER_DEFAULTS`; made in f0aef48): formats whose first commit comes
# after it are checked. The four before it were written before the seam existed.
SEAM_COMMIT = "c8d8dd712d135279030d15e8fceb1cf93e31948f"
REGISTRY_FILE = "workbench/dialects/__init__.py"
# Later changes of the seam itself, which touch a format because they change what every format shares —
# not steps of adding one. Each is named here with why; anything else touching a format and the core fails.
SEAM_CHANGES = {
    "ec8022ea94": "issue 34: the coded format's similarity, tool-call and classification maths moved into scoring/",
    "03ec65fcfe": "settings: every section's list and table defaults go through named factories (start-up cost)",
}
EXAMPLE = EXAMPLES / "refund-agent"  # a seed-003 project with its own target: the core format's rows


@dataclass(frozen=True, slots=True)
class Format:
    entry: str  # its REGISTRY line's string
    package: str  # workbench/dialects/<name>
    view: str | None  # workbench/tui/detail_views/<module>.py
    tests: str  # tests/dialects/<name>


def formats() -> list[Format]:
    found = []
    for entry, dialect in zip(REGISTRY, all_dialects(), strict=False):
        package = entry.partition(":")[0].replace(".", "/")
        view = dialect.view.partition(":")[0].replace(".", "/") + ".py" if isinstance(dialect, HasView) else None
        found.append(Format(entry, package, view, f"tests/dialects/{Path(package).name}"))
    return found


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True,
                          timeout=60).stdout


def history_or_skip() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the history proof needs the commits")
    if subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", SEAM_COMMIT + "^{commit}"],
                      capture_output=True, timeout=60).returncode != 0:
        pytest.skip(f"the seam commit {SEAM_COMMIT[:10]} is not in this clone (shallow or rewritten history)")


def added_after_the_seam(fmt: Format) -> list[str]:
    """The commits touching the format's package or view module, when its first one follows the seam."""
    paths = [fmt.package, *([fmt.view] if fmt.view else [])]
    commits = git("log", "--no-merges", "--format=%H", "--", *paths).split()  # a merge brings commits checked alone
    if not commits:
        return []
    first = commits[-1]
    after = subprocess.run(["git", "-C", str(REPO), "merge-base", "--is-ancestor", SEAM_COMMIT, first],
                           capture_output=True, timeout=60).returncode == 0
    return commits if after and first != SEAM_COMMIT else []


def outside_changes(fmt: Format, commit: str) -> list[str]:
    """What `commit` changed that is not the format's own: files, or a registry edit beyond its one line."""
    found = []
    for line in git("show", "--numstat", "--format=", commit).splitlines():
        added, removed, path = line.split("\t", 2)
        own = (path.startswith(fmt.package + "/") or path == fmt.view or path.startswith(fmt.tests + "/"))
        if own:
            continue
        if path == REGISTRY_FILE:
            diff = git("show", "--format=", "-U0", commit, "--", REGISTRY_FILE)
            plus = [d[1:].strip() for d in diff.splitlines() if d.startswith("+") and not d.startswith("+++")]
            if (added, removed) == ("1", "0") and plus == [json.dumps(fmt.entry) + ","]:
                continue
            found.append(f"{path}: +{added} -{removed} (only the line {json.dumps(fmt.entry)}, may be added)")
            continue
        found.append(path)
    return found


@pytest.mark.slow
def test_every_commit_of_a_format_added_after_the_seam_changed_only_its_own_files() -> None:
    history_or_skip()
    checked = 0
    problems = []
    for fmt in formats():
        for commit in added_after_the_seam(fmt):
            if commit[:10] in SEAM_CHANGES:
                continue
            checked += 1
            problems += [f"{commit[:10]} ({fmt.package}): {what}" for what in outside_changes(fmt, commit)]
    assert checked, "no format was added after the seam commit: nothing was checked"
    assert not problems, "a format's commits changed files outside it:\n" + "\n".join(problems)


def strip_format(tree: Path, fmt: Format) -> None:
    """`tree` (a copy of the repository's workbench/) without the format: its package, view and registry line."""
    shutil.rmtree(tree / Path(fmt.package).relative_to("workbench"))
    if fmt.view:
        (tree / Path(fmt.view).relative_to("workbench")).unlink()
    registry = tree / "dialects" / "__init__.py"
    lines = registry.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if line.strip() != json.dumps(fmt.entry) + ","]
    assert len(kept) == len(lines) - 1, f"the registry line of {fmt.entry} was not found exactly once"
    registry.write_text("".join(kept), encoding="utf-8")


def scored(python_path: Path, project: Path) -> tuple[list[str], dict[tuple[str, str], str]]:
    """The formats a workbench at `python_path` lists, and its (row, evaluator) verdicts on `project`."""
    env = {**os.environ, "PYTHONPATH": str(python_path), "NO_COLOR": "1"}
    listed = subprocess.run([sys.executable, "-c", "import workbench; from workbench.dialects import all_dialects; "
                             "print(workbench.__file__); print(' '.join(d.name for d in all_dialects()))"],
                            capture_output=True, text=True, env=env, timeout=120, cwd=python_path)
    assert listed.returncode == 0, listed.stderr
    where, names = listed.stdout.splitlines()
    assert Path(where).is_relative_to(python_path), f"imported {where}, not the copy under {python_path}"
    run = subprocess.run([sys.executable, "-m", "workbench", "run", str(project), "--json", "--no-history"],
                         capture_output=True, text=True, env=env, timeout=300, cwd=python_path)
    assert run.returncode in (0, 1), run.stderr
    doc = json.loads(run.stdout)
    return names.split(), {(r["row_id"], r["evaluator"]): r["verdict"] for r in doc["results"]}


@pytest.mark.slow
@pytest.mark.process("workbench from a tree without the format, in an interpreter of its own")
def test_workbench_without_a_format_added_after_the_seam_still_works_the_same(tmp_path: Path) -> None:
    history_or_skip()
    added = [fmt for fmt in formats() if added_after_the_seam(fmt)]
    if not added:
        pytest.skip("no format was added after the seam commit")
    whole, stripped = tmp_path / "whole", tmp_path / "stripped"
    for place in (whole, stripped):
        shutil.copytree(PACKAGE, place / "workbench", ignore=shutil.ignore_patterns("__pycache__"))
    for fmt in added:
        strip_format(stripped / "workbench", fmt)
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".workbench"))
    names_whole, verdicts_whole = scored(whole, project)
    names_stripped, verdicts_stripped = scored(stripped, project)
    assert len(names_stripped) == len(names_whole) - len(added)
    assert set(names_stripped) < set(names_whole)
    assert verdicts_whole and verdicts_stripped == verdicts_whole
