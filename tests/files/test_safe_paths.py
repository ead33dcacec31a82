"""`workbench/safe_paths.py`: folder walks, clearing and writing that never follow a link, and the
read-only "is this configured path inside the project" check."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from workbench.safe_paths import (
    UnsafePath,
    open_folder,
    open_private,
    outside_reason,
    private_database,
    private_file,
    remove_tree_at,
    write_file_at,
)


def test_open_folder_creates_missing_folders_and_refuses_a_link_at_any_depth(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    os.close(open_folder(root, ["a", "b", "c"], create=True))
    assert (root / "a" / "b" / "c").is_dir()
    (root / "a" / "b" / "c").rmdir()
    (root / "a" / "b" / "c").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePath, match=f"{root}/a/b/c is a link to {elsewhere}"):
        open_folder(root, ["a", "b", "c", "d"], create=True)
    assert list(elsewhere.iterdir()) == []  # nothing was created through the link
    with pytest.raises(FileNotFoundError):
        open_folder(root, ["missing"], create=False)
    assert not (root / "missing").exists()


def test_open_folder_refuses_a_file_where_a_folder_should_be(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(UnsafePath, match="is a file, not a folder"):
        open_folder(tmp_path, ["f"], create=True)


def test_remove_tree_deletes_links_inside_as_links_and_refuses_a_linked_top(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "precious.txt").write_text("keep")
    (tmp_path / "tree" / "sub").mkdir(parents=True)
    (tmp_path / "tree" / "sub" / "link").symlink_to(kept, target_is_directory=True)
    (tmp_path / "linked").symlink_to(kept, target_is_directory=True)
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        remove_tree_at(fd, "tree", "tree")
        with pytest.raises(UnsafePath, match="is a link to"):
            remove_tree_at(fd, "linked", "linked")
        remove_tree_at(fd, "absent", "absent")  # nothing there: nothing to do
    finally:
        os.close(fd)
    assert not (tmp_path / "tree").exists()
    assert (kept / "precious.txt").read_text() == "keep"


def test_write_file_replaces_a_hard_link_and_a_fifo_and_refuses_a_link(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.txt"
    theirs.write_text("theirs")
    folder = tmp_path / "folder"
    folder.mkdir()
    os.link(theirs, folder / "hard")
    os.mkfifo(folder / "pipe")
    (folder / "soft").symlink_to(theirs)
    fd = os.open(folder, os.O_RDONLY)
    try:
        write_file_at(fd, "hard", b"mine", "hard")
        write_file_at(fd, "pipe", b"mine", "pipe")  # never opened: no reader needed, no hang
        with pytest.raises(UnsafePath, match=f"soft is a link to {theirs}"):
            write_file_at(fd, "soft", b"mine", "soft")
    finally:
        os.close(fd)
    assert theirs.read_text() == "theirs"
    assert (folder / "hard").read_text() == "mine" and (folder / "pipe").read_text() == "mine"


@pytest.mark.parametrize("value, reason", [
    ("b.json", None), ("sub/new/b.json", None), ("../b.json", "leads out of the project"),
    ("/elsewhere/b.json", "is outside the project"), ("linked/b.json", "goes through a link"),
    ("file-link.json", "goes through a link"), (".", "is the project folder itself"),
])
def test_outside_reason(tmp_path: Path, value: str, reason: str | None) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "linked").symlink_to(tmp_path, target_is_directory=True)
    (root / "file-link.json").symlink_to(tmp_path / "b.json")
    found = outside_reason(root, root / value)
    assert (found is None) if reason is None else (reason in (found or ""))
    assert outside_reason(root, root / "sub" / "b.json") is None
    assert outside_reason(root, Path(os.path.abspath(root)) / "b.json") is None  # absolute, but inside


def test_a_state_file_is_created_0600_and_a_link_or_fifo_in_its_place_is_refused(tmp_path: Path) -> None:
    before = os.umask(0)
    try:
        (tmp_path / "project").mkdir()
        history = tmp_path / "project" / ".workbench" / "history.sqlite3"
        private_database(history)
        assert stat.S_IMODE(history.stat().st_mode) == 0o600
        assert stat.S_IMODE(history.parent.stat().st_mode) == 0o700
    finally:
        os.umask(before)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("someone's")
    elsewhere.chmod(0o644)
    lock = history.parent / "a.lock"
    lock.symlink_to(elsewhere)
    with pytest.raises(UnsafePath, match=f"{lock} is a link to {elsewhere}"):
        open_private(lock, os.O_RDWR)
    os.mkfifo(history.parent / "pipe")
    with pytest.raises(UnsafePath, match=r"pipe is a named pipe \(FIFO\), not a file"):
        private_file(history.parent / "pipe")
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o644 and elsewhere.read_text() == "someone's"
