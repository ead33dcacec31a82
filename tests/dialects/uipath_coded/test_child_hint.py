"""The child's word when its interpreter can't import uipath: in the project's .venv (or another virtualenv)
it says to install uipath there, not to name `.venv/bin/python` in [runner] command (it already runs it)."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

from workbench.dialects.uipath_coded import child_main
from workbench.dialects.uipath_coded.settings import CHILD_MAIN

NAME_IT = "[runner] command = [\".venv/bin/python\"]"


def test_the_projects_venv_without_uipath_is_told_to_install_it_there(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("def main(inputs):\n    return inputs\n", encoding="utf-8")
    venv.create(tmp_path / ".venv", with_pip=False)
    python = tmp_path / ".venv" / "bin" / "python"
    proc = subprocess.run([str(python), str(CHILD_MAIN), "main.py", "main"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    if "the uipath package is not importable" not in proc.stderr:
        pytest.skip(f"this venv sees uipath: {proc.stderr}")
    assert NAME_IT not in proc.stderr, proc.stderr
    assert (f"This interpreter is the project's .venv and lacks uipath: install it there ({python} -m pip install "
            "uipath).") in proc.stderr, proc.stderr


def test_another_virtualenv_is_told_to_install_it_there_and_a_plain_python_to_name_one(tmp_path: Path) -> None:
    other = str(tmp_path / "elsewhere")
    hint = child_main.missing_sdk_hint(f"{other}/bin/python", other, sys.base_prefix, str(tmp_path))
    assert hint == f"This interpreter (a virtualenv) lacks uipath: install it there ({other}/bin/python -m pip " \
                   "install uipath)."
    plain = child_main.missing_sdk_hint("/usr/bin/python3", sys.base_prefix, sys.base_prefix, str(tmp_path))
    assert plain.startswith(f"Name the project's interpreter in workbench.toml: {NAME_IT}, or install uipath")
