"""UiPath's real SDK (`uipath`, the pinned version) as the tests use it: found, run on a project, its scores read.

The SDK lives in a venv made by `scripts/uipath_sdk_venv.py` (an install step; tests never install). Found by
`WORKBENCH_UIPATH_SDK=/path/to/venv/bin/python`, else at the script's default cache location. `run_sdk_eval`
runs `uipath eval` in its own process group with a timeout (the group is killed when it expires) and returns
the `--output-file` document; `sdk_scores` turns it into {(row name, evaluator id): score}, `sdk_errors` the pairs
whose evaluator raised.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[3]
SDK_SCRIPT = REPO / "scripts" / "uipath_sdk_venv.py"
SDK_ENV = "WORKBENCH_UIPATH_SDK"
NEED_ENV = "WORKBENCH_TESTS_NEED_UIPATH"
EVAL_TIMEOUT = 180.0


def venv_script() -> ModuleType:
    """scripts/uipath_sdk_venv.py as a module: the pin and the default location are written there only."""
    spec = importlib.util.spec_from_file_location("uipath_sdk_venv", SDK_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PINNED_VERSION: str = venv_script().UIPATH_VERSION


@dataclass(frozen=True)
class UiPathSdk:
    """A venv with the pinned SDK: its python (not resolved: a venv's python is a link) and `uipath` CLI."""

    python: Path

    @property
    def cli(self) -> Path:
        return self.python.parent / "uipath"

    def env(self, **extra: str) -> dict[str, str]:
        """The environment for an SDK process: no telemetry, no workbench settings leaking in."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "UIPATH_"))}
        env.update({"UIPATH_TELEMETRY_ENABLED": "false", "PYTHONIOENCODING": "utf-8", "NO_COLOR": "1"})
        env.update(extra)
        return env


def find_sdk() -> UiPathSdk | str:
    """The SDK venv, or a sentence saying why there is none (and what to run)."""
    given = os.environ.get(SDK_ENV)
    script = venv_script()
    if given:
        sdk = UiPathSdk(Path(given))
    elif script.is_complete(script.default_dir()):
        sdk = UiPathSdk(script.venv_python(script.default_dir()))
    else:
        return (f"no UiPath SDK venv: run `python scripts/uipath_sdk_venv.py` (it makes "
                f"{script.default_dir()}) or set {SDK_ENV} to a python that has uipath=={PINNED_VERSION}")
    if not sdk.python.exists() or not sdk.cli.exists():
        return f"{SDK_ENV}={sdk.python}: no such python, or no `uipath` program beside it"
    version = subprocess.run([str(sdk.python), "-c", "import importlib.metadata as m; print(m.version('uipath'))"],
                             capture_output=True, text=True, timeout=60, env=sdk.env())
    if version.stdout.strip() != PINNED_VERSION:
        return (f"{sdk.python} has uipath {version.stdout.strip() or '(none)'}, not {PINNED_VERSION}: "
                "run `python scripts/uipath_sdk_venv.py`")
    return sdk


def run_in_group(argv: list[str], *, cwd: Path, env: dict[str, str],
                 timeout: float) -> subprocess.CompletedProcess[str]:
    """Run `argv` in a session of its own; on timeout its whole process group is killed and TimeoutExpired
    raised (so a hung SDK or workbench never outlives the test)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            encoding="utf-8", errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def run_sdk_eval(sdk: UiPathSdk, project: Path, set_file: str, *, entry: str = "main", workers: int | None = None,
                 timeout: float = EVAL_TIMEOUT) -> dict[str, Any]:
    """`uipath eval <entry> <set_file> --output-file out.json --no-report` in `project`; the parsed document.
    Raises AssertionError with the SDK's output when it fails or writes no document."""
    out = project.parent / f"{project.name}-sdk-out.json"  # beside the project: nothing more written in it
    out.unlink(missing_ok=True)
    argv = [str(sdk.cli), "eval", entry, set_file, "--output-file", str(out), "--no-report"]
    if workers is not None:
        argv += ["--workers", str(workers)]
    proc = run_in_group(argv, cwd=project, env=sdk.env(), timeout=timeout)
    if proc.returncode != 0 or not out.exists():
        raise AssertionError(f"uipath eval exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    doc: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    out.unlink()
    return doc


def sdk_scores(doc: dict[str, Any]) -> dict[tuple[str, str], float]:
    """{(row name, evaluator id): score} of an `--output-file` document (evaluationSetResults[].evaluationName,
    .evaluationRunResults[].evaluatorId, .result.score), without the per-line entries of a line-by-line evaluator
    (`isLineResult`: workbench, like the SDK's aggregate, gives one result). A pair seen twice is an error: names
    must be unique."""
    scores: dict[tuple[str, str], float] = {}
    for row in doc["evaluationSetResults"]:
        for result in row["evaluationRunResults"]:
            if result.get("isLineResult"):
                continue  # one line of a line-by-line evaluator ("<id>_line_<n>"); its aggregate follows
            key = (row["evaluationName"], result["evaluatorId"])
            assert key not in scores, f"the SDK reported {key} twice"
            scores[key] = float(result["result"]["score"])
    return scores


def sdk_errors(doc: dict[str, Any]) -> set[tuple[str, str]]:
    """The (row name, evaluator id) pairs whose evaluator raised: `uipath eval` reports them as a score of 0 whose
    details are the text "Exception thrown by evaluator: ..." (workbench: an ERROR)."""
    return {(row["evaluationName"], result["evaluatorId"]) for row in doc["evaluationSetResults"]
            for result in row["evaluationRunResults"] if not result.get("isLineResult")
            and str(result["result"].get("details") or "").startswith("Exception thrown by evaluator")}
