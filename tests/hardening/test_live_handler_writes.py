"""Issue 20, case 13: a live handler runs in its scratch folder under `.workbench/replays/`, and what it
writes by a relative path stays there: `../../../x` (the project root, from that folder) and deeper
climbs are refused with a PermissionError naming the path; the project and a folder beside it are
untouched. What is not contained (absolute paths, subprocesses) is stated in docs/replays.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.replays import TOOLS, call, case, replay, replay_project, say

from workbench.model import Verdict

pytestmark = pytest.mark.hardening

ESCAPES = ["../../../escaped.txt", "../../../../outside/new.txt", "../../../evals/plain.script.json", "../../x.txt"]
TRIES = '''\
import os, shutil
from pathlib import Path

ATTEMPTS = {
    "open": lambda p: open(p, "w").write("x"),
    "append": lambda p: open(p, "a").write("x"),
    "pathlib": lambda p: Path(p).write_text("x"),
    "os.open": lambda p: os.close(os.open(p, os.O_WRONLY | os.O_CREAT)),
    "mkdir": lambda p: os.mkdir(p + ".d"),
    "remove": lambda p: os.remove(p),
    "rename": lambda p: os.rename(p, "taken.txt"),
    "rename-to": lambda p: (open("mine.txt", "w").close(), os.replace("mine.txt", p)),
    "symlink": lambda p: os.symlink("/etc/hostname", p),
    "chmod": lambda p: os.chmod(p, 0o600),
    "truncate": lambda p: os.truncate(p, 0),
    "rmtree": lambda p: shutil.rmtree(os.path.dirname(p) or "."),
    "copyfile": lambda p: (open("mine.txt", "w").close(), shutil.copyfile("mine.txt", p)),
}

def escape(arguments):
    refused = {}
    for path in arguments["paths"]:
        for name, attempt in ATTEMPTS.items():
            try:
                attempt(path)
            except PermissionError as exc:
                refused[f"{name} {path}"] = str(exc)
            except OSError as exc:
                refused[f"{name} {path}"] = "not refused: " + type(exc).__name__
            else:
                refused[f"{name} {path}"] = "not refused"
    open("inside.txt", "w").write("stays here")
    os.makedirs("sub/deeper", exist_ok=True)
    open("sub/deeper/../ok.txt", "w").write("also here")
    return {"refused": refused, "cwd": os.getcwd()}

def absolute(arguments):
    Path(arguments["path"]).write_text("the user's code may write where it likes")
    return {"wrote": arguments["path"]}
'''
ESCAPE_TOOLS = [*TOOLS, {"name": "escape", "inputSchema": {}, "handler": "tries:escape"},
                {"name": "absolute", "inputSchema": {}, "handler": "tries:absolute"}]


def snapshot(folder: Path, skip: str | None = None) -> dict[str, Any]:
    """Every entry under `folder` (links not followed): bytes and mtime; `skip` and the bytecode cache
    that importing the handler writes (by an absolute path) left out, and so the mtime of `folder`."""
    out: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if (skip and rel.parts[:1] == (skip,)) or "__pycache__" in rel.parts:
            continue
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        out[rel.as_posix()] = (content, path.lstat().st_mtime_ns)
    return out


def project(tmp_path: Path, steps: list[dict[str, Any]]) -> tuple[Path, Path]:
    beside = tmp_path / "outside"
    beside.mkdir()
    (beside / "new.txt").write_text("the user's\n")
    root = replay_project(tmp_path / "project", {"escape": case(*steps, say("done"), status="completed"),
                                                 "plain": case(say("hi"))},
                          tools=ESCAPE_TOOLS, files={"tries.py": TRIES})
    (root / "escaped.txt").write_text("a project file\n")
    (root / ".workbench" / "replays").mkdir(parents=True)
    (root / ".workbench" / "x.txt").write_text("workbench's own\n")
    return root, beside


def test_relative_writes_that_climb_out_of_the_scratch_folder_are_refused(tmp_path: Path) -> None:
    root, beside = project(tmp_path, [call("escape", {"paths": ESCAPES}, live=True)])
    before = {"project": snapshot(root, skip=".workbench"), "beside": snapshot(beside),
              "state": (root / ".workbench" / "x.txt").read_text()}
    result = replay(root)["escape"]
    assert result.verdict is Verdict.PASS, result.detail
    after = {"project": snapshot(root, skip=".workbench"), "beside": snapshot(beside),
             "state": (root / ".workbench" / "x.txt").read_text()}
    assert after == before
    [answer] = [e["output"] for e in result.trace if e["type"] == "tool_call"]
    not_refused = {what: why for what, why in answer["refused"].items() if not why.startswith("[Errno 13]")}
    assert not_refused == {}
    assert "workbench refused to write '../../../escaped.txt'" in answer["refused"]["open ../../../escaped.txt"]
    scratch = root / ".workbench" / "replays" / "escape"
    assert answer["cwd"] == str(scratch.resolve())
    assert (scratch / "inside.txt").read_text() == "stays here"
    assert (scratch / "sub" / "ok.txt").read_text() == "also here"


def test_an_absolute_path_is_the_handlers_own_choice_and_is_not_held(tmp_path: Path) -> None:
    target = tmp_path / "chosen" / "out.txt"
    target.parent.mkdir()
    root, _ = project(tmp_path, [call("absolute", {"path": str(target)}, live=True)])
    result = replay(root)["escape"]
    assert result.verdict is Verdict.PASS, result.detail
    assert target.read_text() == "the user's code may write where it likes"
