"""Issue 20, case 12: a replay never deletes or writes outside `.workbench/`, whatever stands in the way.

A link at `.workbench`, `.workbench/replays` or a case's folder makes the case an ERROR that names the
link and where it points; an artifact path that meets a link (or a hard link a live handler left) is
refused or written as a file of its own; a hostile row id still names one folder in
`.workbench/replays/`. Every "outside" folder lives in tmp_path and is checked byte for byte and
mtime for mtime afterwards.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest
from helpers.replays import TOOLS, call, case, replay, replay_project, say, write

from workbench.config import load_config
from workbench.dialects.base import RowRun
from workbench.dialects.replays import ReplaysDialect, scratch_dir
from workbench.model import Verdict
from workbench.project import load_project

pytestmark = pytest.mark.hardening

LINK_TOOLS = [*TOOLS, {"name": "leave", "inputSchema": {}, "handler": "leaver:leave"}]
# A live handler (user code, in the row's folder) that leaves a link or a hard link behind.
LEAVER = '''\
import os

def leave(arguments):
    if arguments["kind"] == "symlink":
        os.symlink(arguments["to"], arguments["name"])
    else:
        os.link(arguments["to"], arguments["name"])
    return {"left": arguments["name"]}
'''


def snapshot(folder: Path) -> dict[str, Any]:
    """Everything under `folder` (itself included), links not followed: kind, bytes or target, mtime."""
    out: dict[str, Any] = {}
    for path in [folder, *sorted(folder.rglob("*"))]:
        info = path.lstat()
        if path.is_symlink():
            what: Any = ("link", os.readlink(path))
        elif path.is_dir():
            what = ("dir",)
        else:
            what = ("file", path.read_bytes())
        out[path.relative_to(folder).as_posix()] = (*what, info.st_mtime_ns)
    return out


def outside(tmp_path: Path) -> Path:
    """The user's own folder next to the project: a dotfile and a `Documents` folder worth keeping."""
    notes = tmp_path / "notes"
    (notes / "Documents").mkdir(parents=True)
    (notes / "Documents" / "thesis.md").write_text("four years of work\n")
    (notes / ".bashrc").write_text("export KEEP=me\n")
    (notes / "replays" / "Documents").mkdir(parents=True)
    (notes / "replays" / "Documents" / "kept.txt").write_text("kept\n")
    return notes


WRITES = case(write({"path": ".bashrc", "content": "rm -rf ~\n"}), say("done"), status="completed")


def test_a_linked_replays_folder_is_refused_and_the_folder_it_points_to_untouched(tmp_path: Path) -> None:
    notes = outside(tmp_path)
    root = replay_project(tmp_path / "project", {"Documents": WRITES})
    (root / ".workbench").mkdir()
    (root / ".workbench" / "replays").symlink_to(notes, target_is_directory=True)
    before = snapshot(notes)
    result = replay(root)["Documents"]
    assert snapshot(notes) == before  # ~/notes/Documents was deleted here before
    assert result.verdict is Verdict.ERROR
    assert f"{root / '.workbench' / 'replays'} is a link to {notes}" in result.detail


def test_a_linked_case_folder_is_refused_and_nothing_is_written_through_it(tmp_path: Path) -> None:
    notes = outside(tmp_path)
    root = replay_project(tmp_path / "project", {"notes": WRITES})
    (root / ".workbench" / "replays").mkdir(parents=True)
    (root / ".workbench" / "replays" / "notes").symlink_to(notes, target_is_directory=True)
    before = snapshot(notes)
    result = replay(root)["notes"]
    assert snapshot(notes) == before  # ~/notes/.bashrc was overwritten here before
    assert result.verdict is Verdict.ERROR
    assert f"{root / '.workbench' / 'replays' / 'notes'} is a link to {notes}" in result.detail


def test_a_linked_workbench_folder_is_refused_for_replays(tmp_path: Path) -> None:
    notes = outside(tmp_path)
    root = replay_project(tmp_path / "project", {"Documents": WRITES})
    (root / ".workbench").symlink_to(notes, target_is_directory=True)
    before = snapshot(notes)
    result = replay(root)["Documents"]
    assert snapshot(notes) == before  # notes/replays/Documents was deleted here before
    assert result.verdict is Verdict.ERROR
    assert f"{root / '.workbench'} is a link to {notes}" in result.detail


def test_a_case_whose_folder_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    root = replay_project(tmp_path / "project", {"odd": WRITES})
    (root / ".workbench" / "replays").mkdir(parents=True)
    (root / ".workbench" / "replays" / "odd").write_text("a file, not a folder")
    result = replay(root)["odd"]
    assert result.verdict is Verdict.ERROR
    assert "odd is a file, not a folder" in result.detail
    assert (root / ".workbench" / "replays" / "odd").read_text() == "a file, not a folder"


def leave_then_write(kind: str, to: Path, name: str, artifact: str) -> dict[str, Any]:
    return case(call("leave", {"kind": kind, "to": str(to), "name": name}, live=True),
                write({"path": artifact, "content": "overwritten\n"}), say("done"), status="completed")


def test_an_artifact_over_a_hard_link_a_handler_left_never_reaches_the_linked_file(tmp_path: Path) -> None:
    notes = outside(tmp_path)
    root = replay_project(tmp_path / "project", {"hard": leave_then_write("hard", notes / ".bashrc", "rc", "rc")},
                          tools=LINK_TOOLS, files={"leaver.py": LEAVER})
    before = snapshot(notes)
    result = replay(root)["hard"]
    assert snapshot(notes) == before  # the write went through the second hard link here before
    assert result.verdict is Verdict.PASS, result.detail
    assert (root / ".workbench" / "replays" / "hard" / "rc").read_text() == "overwritten\n"


@pytest.mark.parametrize("name, artifact", [("out", "out/.bashrc"), (".bashrc", ".bashrc")],
                         ids=["a linked folder on the way", "a link at the file's name"])
def test_an_artifact_through_a_link_a_handler_left_is_refused(tmp_path: Path, name: str, artifact: str) -> None:
    notes = outside(tmp_path)
    to = notes if name == "out" else notes / ".bashrc"
    root = replay_project(tmp_path / "project", {"soft": leave_then_write("symlink", to, name, artifact)},
                          tools=LINK_TOOLS, files={"leaver.py": LEAVER})
    before = snapshot(notes)
    result = replay(root)["soft"]
    assert snapshot(notes) == before
    assert result.verdict is Verdict.FAIL
    assert f"{artifact} leads out of the run's folder" in result.detail
    assert f"is a link to {to}" in result.detail


@pytest.mark.parametrize("path", ["../../notes/.bashrc", "/NOTES/.bashrc", "~/.bashrc", "a/../../x", "",
                                  "nul\x00byte"], ids=repr)
def test_an_artifact_path_that_leaves_the_folder_is_refused_when_the_case_is_read(tmp_path: Path, path: str) -> None:
    notes = outside(tmp_path)
    path = path.replace("/NOTES", str(notes))
    root = replay_project(tmp_path / "project", {"escape": case(write({"path": path, "content": "x"}))})
    before = snapshot(notes)
    result = replay(root)["escape"]
    assert snapshot(notes) == before
    assert result.verdict is Verdict.ERROR
    assert "path" in (result.detail or "")


HOSTILE_IDS = ["..", ".", "", "../../../notes", "../../../notes/Documents", "a/b", "/NOTES/Documents", "nul\x00id",
               "x" * 400, "é" * 200]


@pytest.mark.parametrize("row_id", HOSTILE_IDS, ids=lambda value: repr(value[:24]))
def test_a_hostile_row_id_names_one_folder_in_the_replays_folder(tmp_path: Path, row_id: str) -> None:
    notes = outside(tmp_path)
    row_id = row_id.replace("/NOTES", str(notes))
    root = replay_project(tmp_path / "project", {"plain": WRITES})
    config = load_config(root)
    state = root / ".workbench"
    (state / "replays").mkdir(parents=True)
    (state / "history.sqlite3").write_text("not the replay's to delete")
    project = load_project(root, config)
    [eval_set] = project.sets
    row = dataclasses.replace(eval_set.rows[0], id=row_id)
    watched = {"notes": snapshot(notes), "project": snapshot(root / "evals"), "state": (state / "history.sqlite3")
               .read_text()}

    def no_runner() -> Any:
        raise AssertionError("a replay never asks for the runner")

    outcome = asyncio.run(ReplaysDialect().execute(RowRun(eval_set, row, config, lambda _line: None, no_runner)))
    assert outcome.error is None, outcome.error
    assert outcome.output["status"] == "completed"
    assert {"notes": snapshot(notes), "project": snapshot(root / "evals"),
            "state": (state / "history.sqlite3").read_text()} == watched
    assert scratch_dir(config, row_id).parent == state / "replays"
    [folder] = (state / "replays").iterdir()
    assert (folder / ".bashrc").read_text() == "rm -rf ~\n"
    assert len(folder.name.encode()) <= 120
