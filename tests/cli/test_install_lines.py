"""Issue 22 point 1 / issue 25: every install line works. The distribution is `workbench-evals` (`workbench` on
the package index is an unrelated project), the import package and the command stay `workbench`; an install
line names that distribution or a path from a clone, with extras that exist."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from workbench.cluster import INSTALL_HINT

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# `pip install X` (optionally `python3 -m`, `-e`, `-q`), X quoted or not, up to the end of the argument
INSTALL = re.compile(r"pip install((?: -[a-zA-Z]+)*) ('[^']+'|\"[^\"]+\"|[^\s`'\")]+)")
ALLOWED_TARGETS = re.compile(r"^(?:workbench-evals|\.)(?:\[([a-z,]+)\])?$")


def _texts() -> list[tuple[str, str]]:
    """What a user reads install lines in: the README and docs/, help texts and messages in the code, CI,
    benchmarks."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / ".ci" / "run",
             *sorted((ROOT / "workbench").rglob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py")),
             *sorted((ROOT / "scripts").glob("*.py"))]
    return [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in files if path.is_file()]


def test_the_distribution_is_workbench_evals_and_the_command_and_package_stay_workbench() -> None:
    assert PYPROJECT["project"]["name"] == "workbench-evals"
    assert PYPROJECT["project"]["scripts"] == {"workbench": "workbench.cli:main"}
    assert PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["workbench"]


def test_every_install_line_names_the_distribution_or_the_clone_with_extras_that_exist() -> None:
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    seen = 0
    for name, text in _texts():
        for match in INSTALL.finditer(text):
            target = match.group(2).strip("'\"")
            if name == "workbench/watching.py" or target.split("==")[0] in ("newpkg", "uipath"):
                continue  # prose about a user's own `pip install` (a coded agent's SDK, into its own Python)
            allowed = ALLOWED_TARGETS.match(target)
            assert allowed, f"{name}: `{match.group(0)}` installs {target!r}, not workbench-evals or the clone"
            for extra in filter(None, (allowed.group(1) or "").split(",")):
                assert extra in extras, f"{name}: `{match.group(0)}` asks for an extra pyproject.toml lacks"
            seen += 1
        assert "'workbench[" not in text and "workbench[ray]" not in text, f"{name} names the taken distribution"
    assert seen >= 5  # the README's two commands, the Ray lines, the missing-Ray message


def test_the_missing_ray_message_says_both_ways_to_install() -> None:
    assert "pip install 'workbench-evals[ray]'" in INSTALL_HINT
    assert "pip install -e '.[ray]'" in INSTALL_HINT
