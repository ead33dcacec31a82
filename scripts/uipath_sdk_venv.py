"""Make the venv with UiPath's real SDK that the `uipath-coded` conformance tests score against, and print its
python.

An install step, like `.ci/run`'s apt-get of chromium: the tests never install anything or use the network, they
look for this venv (tests/dialects/uipath_coded/conftest.py) and skip, naming this script, when it is absent.
Idempotent: a venv already made (its `.complete` mark holds the pin) is only printed; a half-made one (no mark,
e.g. an interrupted install) is made again. A lock file beside it keeps two concurrent runs from building it
at once. The venv lives outside any project, in a cache folder:

    python scripts/uipath_sdk_venv.py              # $XDG_CACHE_HOME/workbench-tests/uipath-sdk-<pin>, else ~/.cache/...
    python scripts/uipath_sdk_venv.py --dir DIR    # somewhere else
    export WORKBENCH_UIPATH_SDK="$(python scripts/uipath_sdk_venv.py)"

It runs `<this python> -m venv` and the venv's own `pip install uipath==<pin>` from the package index.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

# The one place the SDK version the conformance tests pin is written.
UIPATH_VERSION = "2.14.44"
REQUIREMENT = f"uipath=={UIPATH_VERSION}"
COMPLETE_MARK = ".complete"
INSTALL_TIMEOUT = 900.0


def default_dir() -> Path:
    """`$XDG_CACHE_HOME/workbench-tests/uipath-sdk-<pin>`, else under `~/.cache`: shared by every checkout."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "workbench-tests" / f"uipath-sdk-{UIPATH_VERSION}"


def venv_python(venv: Path) -> Path:
    """The venv's interpreter, not resolved: a venv's python is a link on purpose."""
    return venv / "bin" / "python"


def is_complete(venv: Path) -> bool:
    """True when `venv` was fully made for this pin (the mark is written last)."""
    mark = venv / COMPLETE_MARK
    try:
        return mark.read_text(encoding="utf-8").strip() == REQUIREMENT and venv_python(venv).exists()
    except OSError:
        return False


def build(venv: Path) -> None:
    """Make `venv` afresh with the pinned SDK; the mark goes in only after pip succeeded. A half-made venv is
    removed first; a folder that is not a venv (no pyvenv.cfg) and not empty is never touched."""
    if venv.is_symlink() or (venv.exists() and not venv.is_dir()):
        raise OSError(f"{venv} is not a folder")
    if venv.is_dir() and any(venv.iterdir()):
        if not (venv / "pyvenv.cfg").is_file():
            raise OSError(f"{venv} is not empty and not a venv; refusing to replace it")
        shutil.rmtree(venv)
    print(f"uipath_sdk_venv: installing {REQUIREMENT} into {venv}", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=INSTALL_TIMEOUT)
    pip = [str(venv_python(venv)), "-m", "pip", "--disable-pip-version-check", "--no-input"]
    subprocess.run([*pip, "install", "--quiet", REQUIREMENT], check=True, timeout=INSTALL_TIMEOUT,
                   stdout=sys.stderr)
    (venv / COMPLETE_MARK).write_text(REQUIREMENT + "\n", encoding="utf-8")


def ensure(venv: Path) -> Path:
    """The venv's python, making the venv first unless a complete one is there; serialized by a lock file."""
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f".{venv.name}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not is_complete(venv):
            build(venv)
    return venv_python(venv)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=None, help=f"where the venv goes (default: {default_dir()})")
    args = parser.parse_args(argv)
    venv = (args.dir or default_dir()).absolute()
    try:
        python = ensure(venv)
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"uipath_sdk_venv: could not make {venv}: {exc}", file=sys.stderr)
        return 1
    print(python)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
