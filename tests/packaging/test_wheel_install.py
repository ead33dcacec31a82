"""The distribution as a user gets it: the sdist and wheel built from a copy of the sources (offline:
`python -m build --no-isolation`, hatchling from the test extra) hold the examples and nothing of `.workbench/`
or caches — even when a run in place left them in an example — and the wheel, installed into a fresh venv,
gives a `workbench` command that shows `demo --help` and runs the bundled example it carries."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers.cli import cli_env
from helpers.paths import EXAMPLES, REPO

pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("packaging")]  # one build per run

SOURCES = ("pyproject.toml", "README.md", "docs", "hatch_build.py", "workbench", "examples")
CACHES = shutil.ignore_patterns(".workbench", "__pycache__", "*.pyc", ".pytest_cache", ".hypothesis",
                                ".ruff_cache", ".mypy_cache")
LEFT_BEHIND = (".workbench/history.sqlite3", "__pycache__/grade.cpython-311.pyc", ".pytest_cache/README.md")


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    kwargs.setdefault("env", cli_env())
    return subprocess.run(args, capture_output=True, text=True, timeout=300, check=False, **kwargs)  # type: ignore


def _example_files() -> set[str]:
    """The repository's example files, less what a run or a test leaves in them."""
    skipped = {".workbench", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache"}
    return {path.relative_to(EXAMPLES).as_posix() for path in EXAMPLES.rglob("*")
            if path.is_file() and path.suffix != ".pyc" and not skipped.intersection(path.relative_to(EXAMPLES).parts)}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and wheel of a copy of the sources in which an example was run in place."""
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        origin = REPO / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=CACHES)
        else:
            shutil.copy2(origin, source / name)
    for left in LEFT_BEHIND:  # what `workbench run examples/grading` and a test run leave there
        path = source / "examples" / "grading" / left
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("state\n")
    (source / "workbench" / "__pycache__").mkdir(exist_ok=True)
    (source / "workbench" / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"\0")
    out = tmp_path_factory.mktemp("dist")
    built = _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)])
    assert built.returncode == 0, built.stdout + built.stderr
    return out


def _one(folder: Path, pattern: str) -> Path:
    (found,) = folder.glob(pattern)
    return found


def test_the_wheel_holds_the_examples_and_no_state_or_caches(dist: Path):
    names = zipfile.ZipFile(_one(dist, "*.whl")).namelist()
    shipped = {name.removeprefix("workbench/_examples/") for name in names if name.startswith("workbench/_examples/")}
    assert shipped == _example_files()
    assert "workbench/cli/__init__.py" in names and "workbench/report/markdown.py" in names
    assert not [n for n in names if ".workbench" in n.split("/") or "__pycache__" in n or n.endswith(".pyc")
                or ".pytest_cache" in n or n.startswith("tests/")]


def test_the_sdist_holds_the_examples_and_no_state_or_caches(dist: Path):
    sdist = _one(dist, "*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]
    shipped = {name.removeprefix("examples/") for name in names if name.startswith("examples/")}
    assert _example_files() <= shipped
    assert {"pyproject.toml", "README.md", "hatch_build.py", "workbench/cli/__init__.py"} <= set(names)
    assert {"docs/index.md", "docs/settings.md"} <= set(names)  # the pages the README links to
    assert not [n for n in names if ".workbench" in n.split("/") or "__pycache__" in n or n.endswith(".pyc")
                or ".pytest_cache" in n or n.startswith("tests/")]


def test_twine_check_passes(dist: Path):
    checked = _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))])
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow
@pytest.mark.process("the installed wheel's console script")
def test_the_wheel_installed_in_a_fresh_venv_runs_its_bundled_example(dist: Path, tmp_path: Path):
    venv = tmp_path / "venv"
    # The venv sees this interpreter's packages (the dependencies, offline) but gets workbench from the wheel.
    made = _run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)])
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                      "--force-reinstall", str(_one(dist, "*.whl"))], cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    env = cli_env()
    env.pop("PYTHONPATH", None)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    where = _run([str(python), "-c", "import workbench, workbench.cli.demo as d; print(workbench.__file__); "
                  "print(d.bundled_example())"], cwd=tmp_path, env=env)
    module, example = where.stdout.split()
    assert Path(module).is_relative_to(venv) and Path(example).is_relative_to(venv), where.stdout + where.stderr
    command = str(venv / "bin" / "workbench")
    shown = _run([command, "demo", "--help"], cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "bundled example" in shown.stdout
    project = tmp_path / "grading"
    shutil.copytree(example, project)
    ran = _run([command, "run", str(project)], cwd=tmp_path, env=env)
    # The example fails one row on purpose (the boundary bug the README fixes): 6 of its 7 results pass.
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "6 passed, 1 failed, 0 errors (7 results" in ran.stdout
    assert "FAIL  grading.json › score 50 passes (boundary)" in ran.stdout
