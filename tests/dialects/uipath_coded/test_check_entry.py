"""`workbench check` reads the entry point's file with `ast` (never imports it): an error when the function
uipath.json names is bound by nothing at its top level (every row would be `EntryError: ... has no 'nope'`), a
warning when the module makes names dynamically, an error naming line and column when it isn't Python; and an
unknown evaluator id in `[uipath-coded] thresholds` is a warning naming it and the ids there are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_workbench
from test_hostile import coded_project


def checked(root: Path) -> tuple[int, list[dict[str, Any]]]:
    proc = invoke_workbench("check", str(root), "--json")
    doc = json.loads(proc.stdout)
    return proc.returncode, [p for p in doc["problems"] if "import" not in p["message"] or "uipath" not in
                             p["message"] or "main.py" in p["message"]]


def test_an_entry_naming_a_function_the_file_lacks_is_an_error(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p", uipath={"functions": {"main": "main.py:nope"}})
    code, found = checked(root)
    assert code != 0, found
    [problem] = [p for p in found if "nope" in p["message"]]
    assert problem["severity"] == "error" and problem["file"] == "uipath.json", problem
    assert problem["message"].startswith("functions[\"main\"] names main.py:nope, but main.py has no top-level "
                                         "'nope'"), problem


def test_a_close_name_is_suggested(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p", uipath={"functions": {"main": "main.py:mian"}})
    _, found = checked(root)
    [problem] = [p for p in found if "mian" in p["message"]]
    assert "did you mean 'main'?" in problem["message"], problem


@pytest.mark.parametrize("source", [
    "def main(x):\n    return x\n",
    "async def main(x):\n    return x\n",
    "class main:\n    pass\n",
    "main = lambda x: x\n",
    "from json import loads as main\n",
    "try:\n    from fast import main\nexcept ImportError:\n    def main(x):\n        return x\n",
    "if True:\n    main, other = print, print\n",
    "import os\ndef setup():\n    global main\n    main = os.getcwd\n",
])
def test_whatever_binds_the_name_at_the_top_level_passes(tmp_path: Path, source: str) -> None:
    root = coded_project(tmp_path / "p", main_py=source)
    _, found = checked(root)
    assert not [p for p in found if p["file"] == "main.py" or "main.py:main" in p["message"]], found


@pytest.mark.parametrize("source, said", [
    ("from helpers import *\n", "from helpers import *"),
    ("def __getattr__(name):\n    return print\n", "a module-level __getattr__"),
    ("globals()['main'] = print\n", "globals()"),
])
def test_a_module_making_names_dynamically_is_a_warning(tmp_path: Path, source: str, said: str) -> None:
    root = coded_project(tmp_path / "p", main_py=source)
    code, found = checked(root)
    [problem] = [p for p in found if "main.py:main" in p["message"]]
    assert problem["severity"] == "warning" and said in problem["message"], problem
    assert code == 0, found


def test_an_entry_file_that_is_not_python_is_an_error_naming_line_and_column(tmp_path: Path) -> None:
    root = coded_project(tmp_path / "p", main_py="def main(x):\n    return (x\n\nprint(1]\n")
    code, found = checked(root)
    [problem] = [p for p in found if p["file"] == "main.py"]
    assert code != 0 and problem["severity"] == "error", problem
    assert problem["message"].startswith("is not valid Python at line 4, column 8:"), problem


def test_an_unknown_id_in_thresholds_is_a_warning_naming_it_and_the_ids(tmp_path: Path) -> None:
    """The project's one evaluator has the id EM: `EMM` is a typo of it, `Nope` is nothing like any."""
    toml = "[uipath-coded]\nthresholds = { EM = 0.9, EMM = 0.5, Nope = 0.3 }\n"
    root = coded_project(tmp_path / "p", toml=toml)
    code, found = checked(root)
    said = [p for p in found if "thresholds" in p["message"]]
    assert code == 0 and len(said) == 2 and {p["severity"] for p in said} == {"warning"}, found
    assert {p["file"] for p in said} == {"workbench.toml"}, said
    typo, nope = sorted(said, key=lambda p: "Nope" in p["message"])
    assert typo["message"] == ("[uipath-coded] thresholds names 'EMM', which is no evaluator's id, so it sets "
                               "nothing; did you mean 'EM'? the evaluator ids: EM"), typo
    assert nope["message"] == ("[uipath-coded] thresholds names 'Nope', which is no evaluator's id, so it sets "
                               "nothing; the evaluator ids: EM"), nope
