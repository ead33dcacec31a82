"""What of the project is shipped to a Ray cluster, checked on the package itself (no Ray needed):
issue 20, case 15 (secrets, `.gitignore`d files and `[cluster] ship_ignore` stay on this machine) and
case 20a (FIFOs, sockets, devices and links to them are skipped, links leading outside the project are
not followed, nothing blocks). The same on a real local Ray: tests/cluster/test_cluster_ray_behaves.py."""

from __future__ import annotations

import io
import os
import socket
import threading
import zipfile
from pathlib import Path

import pytest
from helpers.project import make_project, row

from workbench.cluster.package import PackingError, pack, package_uri, shipped_entries
from workbench.config import load_config

LIMIT = 64 * 2**20
SECRETS = [".appilotsrc", ".env", ".env.local", ".env.production", "app/.env", "app/.env.test", "app/.appilotsrc"]


def project(root: Path, *, config: dict | None = None, files: dict[str, str] | None = None) -> Path:
    runner = {"kind": "command", "command": ["{python}", "target.py"], "timeout": 20}
    return make_project(root, sets={"s": [row("one", {"n": 1}, {"n": 1})]},
                        config={"runner": runner, **(config or {})}, files={"target.py": "", **(files or {})})


def shipped(root: Path) -> set[str]:
    return {entry.rel for entry in shipped_entries(load_config(root))}


def unpacked(root: Path) -> dict[str, bytes]:
    """{path: content} of the package as the workers unpack it (folders end in /)."""
    data = pack(shipped_entries(load_config(root)), LIMIT)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


# -- case 15: secrets, .gitignore, ship_ignore ------------------------------------------------------------


def test_secrets_are_never_shipped_whatever_the_settings_say(tmp_path: Path) -> None:
    root = project(tmp_path, files={**dict.fromkeys(SECRETS, "API_KEY=sk-live\n"), "app/main.py": "",
                                    ".gitignore": "!.env\n!.appilotsrc\n"},
                   config={"cluster": {"ship_ignore": ["!.env*"]}})
    files = unpacked(root)
    assert "app/main.py" in files and "target.py" in files
    assert not [name for name in files if name.rsplit("/", 1)[-1].startswith((".env", ".appilotsrc"))]
    assert not [name for name, content in files.items() if b"sk-live" in content]


def test_files_the_gitignore_ignores_are_not_shipped(tmp_path: Path) -> None:
    root = project(tmp_path, files={
        ".gitignore": "secret.txt\n*.key\n!public.key\nbuild/\n/top-only.txt\n",
        "secret.txt": "s", "id.key": "k", "public.key": "p", "build/out.js": "b", "top-only.txt": "t",
        "deep/top-only.txt": "kept: the pattern is anchored to the root", "deep/secret.txt": "s",
        "app/.gitignore": "local.cfg\n!id.key\n", "app/local.cfg": "l", "app/id.key": "re-included below",
        "app/main.py": "", ".git/info/exclude": "private/\n", "private/notes.md": "n",
    })
    files = shipped(root)
    assert {"public.key", "deep/top-only.txt", "app/main.py", "app/id.key", ".gitignore", "target.py"} <= files
    for left_out in ("secret.txt", "id.key", "build/out.js", "top-only.txt", "deep/secret.txt", "app/local.cfg",
                     "private/notes.md"):
        assert left_out not in files


def test_ship_ignore_leaves_out_more_and_no_gitignore_brings_it_back(tmp_path: Path) -> None:
    root = project(tmp_path, config={"cluster": {"ship_ignore": ["datasets/", "*.bin"]}},
                   files={"datasets/big.csv": "x", "model.bin": "x", "src/model.bin": "x", "src/app.py": "",
                          ".gitignore": "!model.bin\n"})
    assert shipped(root) & {"datasets/big.csv", "model.bin", "src/model.bin"} == set()
    assert "src/app.py" in shipped(root)


def test_a_gitignored_file_the_command_names_is_still_shipped(tmp_path: Path) -> None:
    root = make_project(tmp_path, sets={"s": [row("one", {"n": 1}, {"n": 1})]},
                        config={"kind": "command", "command": ["{python}", "dist/agent.py"], "timeout": 20},
                        files={".gitignore": "dist/\n", "dist/agent.py": "print(1)", "dist/other.js": "x"})
    files = shipped(root)
    assert "dist/agent.py" in files and "dist/other.js" not in files


def test_the_setting_is_checked(tmp_path: Path) -> None:
    root = project(tmp_path, config={"cluster": {"ship_ignore": "data/"}})
    with pytest.raises(Exception, match="ship_ignore must be a list of strings"):
        load_config(root)


# -- case 20a: special files and links -----------------------------------------------------------------


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A project holding a FIFO, a socket, links to them and to a device, links leading outside the
    project (to a file and a folder), a link looping back to the root, and links that stay inside."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "private.txt").write_text("outside the project")
    root = project(tmp_path / "p", files={"src/app.py": "print('app')", "data/prices.csv": "a,b\n"})
    os.mkfifo(root / "pipe")
    os.symlink(root / "pipe", root / "link-to-pipe")
    os.symlink("/dev/null", root / "link-to-device")
    os.symlink(outside / "private.txt", root / "link-to-outside-file")
    os.symlink(outside, root / "link-to-outside-folder")
    os.symlink("..", root / "src" / "link-up")  # the root again, from below
    os.symlink("src/app.py", root / "app-link.py")
    os.symlink("data", root / "data-link")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    yield root
    server.close()


def test_special_files_links_to_them_and_links_outside_are_not_shipped(hostile: Path) -> None:
    files = unpacked(hostile)
    assert files["app-link.py"] == b"print('app')"  # a link inside the project: what it points to
    assert files["data-link/prices.csv"] == b"a,b\n"
    assert files["src/app.py"] == b"print('app')"
    for left_out in ("pipe", "link-to-pipe", "link-to-device", "sock", "link-to-outside-file"):
        assert left_out not in files
    assert not [name for name in files if name.startswith(("link-to-outside-folder", "src/link-up"))]
    assert not [name for name, content in files.items() if b"outside the project" in content]


def test_a_file_swapped_for_a_fifo_after_the_walk_is_skipped_not_waited_on(tmp_path: Path) -> None:
    root = project(tmp_path, files={"swapped.txt": "x", "kept.txt": "y"})
    entries = shipped_entries(load_config(root))
    (root / "swapped.txt").unlink()
    os.mkfifo(root / "swapped.txt")
    done: list[bytes] = []
    packer = threading.Thread(target=lambda: done.append(pack(entries, LIMIT)), daemon=True)
    packer.start()
    packer.join(30)
    if packer.is_alive():  # unblock the reader before failing, so nothing is left hanging
        os.close(os.open(root / "swapped.txt", os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("packing blocked on a FIFO")
    names = zipfile.ZipFile(io.BytesIO(done[0])).namelist()
    assert "kept.txt" in names and "swapped.txt" not in names


def test_the_same_files_give_the_same_package_and_an_edit_a_new_one(tmp_path: Path) -> None:
    root = project(tmp_path, files={"a.txt": "one"})
    first = package_uri(pack(shipped_entries(load_config(root)), LIMIT))
    os.utime(root / "a.txt", (1, 1))  # times are not part of the package
    assert package_uri(pack(shipped_entries(load_config(root)), LIMIT)) == first
    (root / "a.txt").write_text("two")
    assert package_uri(pack(shipped_entries(load_config(root)), LIMIT)) != first


def test_a_project_too_large_to_ship_names_its_largest_files(tmp_path: Path) -> None:
    root = project(tmp_path, files={"huge.bin": "x" * 4096, "small.txt": "y"})
    with pytest.raises(PackingError, match=r"huge\.bin .*ship_ignore"):
        pack(shipped_entries(load_config(root)), 1024)
