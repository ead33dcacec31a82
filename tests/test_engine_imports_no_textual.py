"""The engine is plain Python: importing every non-TUI module must not pull in Textual."""

import pkgutil
import subprocess
import sys

import workbench


def engine_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(workbench.__path__, "workbench."):
        if info.name.startswith("workbench.tui") or info.name == "workbench.__main__":
            continue
        names.append(info.name)
    return names


def test_engine_modules_do_not_import_textual():
    modules = engine_modules()
    assert "workbench.engine" in modules and "workbench.compare" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    # sys.executable, not the `python3` shim: the test runs in this interpreter's environment.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine modules imported Textual: {out.stdout}"
