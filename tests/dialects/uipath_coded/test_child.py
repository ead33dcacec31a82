"""child_main.py, the worker a coded agent project's rows run in, spoken to over the worker protocol as the pool
speaks to it: rows run through the SDK's own functions runtime (input and output converted its way, the module
executed afresh per row), the spans `traced` records become the row's trace in end order, an output that is not
JSON is the row's error, nothing reaches the network; without `uipath` a fallback calls the function directly."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from coded_sdk import UiPathSdk

from workbench.dialects.uipath_coded.settings import CHILD_MAIN

TIMEOUT = 120.0
HAS_UIPATH = importlib.util.find_spec("uipath") is not None


def serve(python: str, root: Path, rows: list[dict[str, Any]], *, function: str = "main",
          env: dict[str, str] | None = None, argv: list[str] | None = None) -> tuple[list[dict[str, Any]], str]:
    """Send every row (with a trace file each, as the pool does), close stdin; the replies and the log."""
    requests = [{"id": n, "inputs": inputs, "trace": str(root / f"trace-{n}.jsonl")} for n, inputs in
                enumerate(rows, 1)]
    command = argv or [python, str(CHILD_MAIN), str(root / "main.py"), function]
    proc = subprocess.run(command, input="".join(json.dumps(r) + "\n" for r in requests), cwd=root, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    replies = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return replies, proc.stderr


def trace_of(root: Path, n: int) -> list[dict[str, Any]]:
    path = root / f"trace-{n}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def project(root: Path, main_py: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "main.py").write_text(main_py, encoding="utf-8")
    return root


PLAIN = """\
import asyncio
RUNS = []  # a fresh module per row: never more than one entry

def main(input):
    RUNS.append(1)
    kind = input.get("kind")
    if kind == "text":
        return "hello"
    if kind == "none":
        return None
    if kind == "fail":
        return {}["missing"]
    if kind == "object":
        return {"when": object()}
    return {"runs": len(RUNS), "echo": input}

async def later(input):
    await asyncio.sleep(0)
    return {"async": input["x"]}
"""


@pytest.mark.skipif(HAS_UIPATH, reason="this interpreter has uipath: the fallback is not what runs")
def test_without_uipath_the_fallback_calls_the_function_with_the_dict(tmp_path: Path) -> None:
    root = project(tmp_path, PLAIN)
    rows = [{"x": 1}, {"kind": "text"}, {"kind": "none"}, {"kind": "fail"}, {"kind": "object"}, {"x": 2}]
    replies, log = serve(sys.executable, root, rows)
    assert replies[0] == {"id": 1, "output": {"runs": 1, "echo": {"x": 1}}}
    assert replies[1] == {"id": 2, "output": {"result": "hello"}}
    assert replies[2] == {"id": 3, "output": {}}
    assert replies[3] == {"id": 4, "error": "KeyError: 'missing'"}
    assert replies[4]["id"] == 5 and replies[4]["error"].startswith("the function returned a value that is not JSON")
    assert replies[5] == {"id": 6, "output": {"runs": 1, "echo": {"x": 2}}}
    assert "the uipath package is not importable" in log and "Traceback" in log
    async_replies, _ = serve(sys.executable, root, [{"x": 3}], function="later")
    assert async_replies == [{"id": 1, "output": {"async": 3}}]


def test_a_missing_entry_file_makes_every_row_fail_with_the_reason(tmp_path: Path) -> None:
    replies, _ = serve(sys.executable, tmp_path, [{}])
    assert len(replies) == 1 and "fatal" in replies[0]
    assert replies[0]["fatal"] == "uipath.json names main.py as the entry point, which does not exist"


def test_an_entry_file_outside_the_project_is_never_run(tmp_path: Path) -> None:
    outside = project(tmp_path / "outside", "open('ran', 'w')\ndef main(input):\n    return {}\n")
    root = project(tmp_path / "project", "")
    (root / "main.py").unlink()
    (root / "main.py").symlink_to(outside / "main.py")
    replies, log = serve(sys.executable, root, [{}])
    assert replies == [{"fatal": "uipath.json names main.py as the entry point, which leads outside the project; "
                                 "workbench runs only an entry point inside it"}]
    assert not (root / "ran").exists() and "Traceback" not in log


def test_usage_is_said_as_a_fatal_reply(tmp_path: Path) -> None:
    replies, _ = serve(sys.executable, tmp_path, [{}], argv=[sys.executable, str(CHILD_MAIN)])
    assert replies == [{"fatal": "usage: child_main.py ENTRY_FILE FUNCTION [MAX_OUTPUT_MB]"}]


TRACED = """\
from dataclasses import dataclass
from uipath.tracing import traced

@dataclass
class Ask:
    city: str
    order: list

@traced(span_type="tool")
def lookup(city):
    return {"capital": city}

@traced(span_type="tool", name="weather")
def forecast(city):
    return "sunny"

@traced()
def plan(ask):
    for name in ask.order:
        {"lookup": lookup, "weather": forecast}[name](ask.city)
    return len(ask.order)

def main(ask: Ask) -> dict:
    if ask.city == "boom":
        raise ValueError("no such city")
    return {"city": ask.city, "steps": plan(ask)}
"""


def test_rows_run_through_the_sdks_runtime_with_spans_in_end_order(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    root = project(tmp_path, TRACED)
    rows = [{"city": "Paris", "order": ["weather", "lookup"]}, {"city": "Rome", "order": []}, {"city": "boom",
                                                                                            "order": []},
            {"town": "Oslo"}]
    replies, log = serve(str(uipath_sdk.python), root, rows, env=uipath_sdk.env())
    assert replies[0] == {"id": 1, "output": {"city": "Paris", "steps": 2}}
    assert replies[1] == {"id": 2, "output": {"city": "Rome", "steps": 0}}
    assert replies[2] == {"id": 3, "error": "ValueError: no such city"}
    assert replies[3]["id"] == 4 and replies[3]["error"].startswith("EntryError: Invalid input")
    events = trace_of(root, 1)
    assert [(e["type"], e["name"]) for e in events] == [("tool_call", "weather"), ("tool_call", "lookup"),
                                                        ("span", "plan")]
    weather = events[0]
    assert weather["args"] == {"city": "Paris"} and weather["output"] == "sunny"
    assert weather["span"]["attributes"]["tool.name"] == "weather"
    assert weather["span"]["attributes"]["input.value"] == '{"city": "Paris"}'
    assert weather["span"]["start_ns"] <= weather["span"]["end_ns"] <= events[1]["span"]["end_ns"]
    assert [(e["type"], e["name"]) for e in trace_of(root, 2)] == [("span", "plan")]
    assert "Traceback" in log and "no such city" in log


NETWORK_GUARD = """\
import runpy, socket, sys
def refuse(*args, **kwargs):
    sys.stderr.write("NETWORK ATTEMPT %r\\n" % (args,))
    raise OSError("network refused by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_nothing_reaches_the_network_and_telemetry_is_off(tmp_path: Path, uipath_sdk: UiPathSdk) -> None:
    root = project(tmp_path, TRACED.replace('return {"city": ask.city, "steps": plan(ask)}',
                                            'import os\n    return {"telemetry": os.environ.get('
                                            '"UIPATH_TELEMETRY_ENABLED"), "steps": plan(ask)}'))
    guard = tmp_path / "guard.py"
    guard.write_text(NETWORK_GUARD, encoding="utf-8")
    env = {key: value for key, value in uipath_sdk.env().items() if key != "UIPATH_TELEMETRY_ENABLED"}
    argv = [str(uipath_sdk.python), str(guard), str(CHILD_MAIN), str(root / "main.py"), "main"]
    replies, log = serve(str(uipath_sdk.python), root, [{"city": "Paris", "order": ["lookup"]}], env=env, argv=argv)
    assert replies == [{"id": 1, "output": {"telemetry": "false", "steps": 1}}]
    assert "NETWORK ATTEMPT" not in log


@pytest.fixture(params=["fallback", "sdk"])
def child_python(request: pytest.FixtureRequest) -> tuple[str, dict[str, str] | None]:
    """The interpreter the child runs in and its environment: this one (no uipath: the fallback), or the SDK's."""
    if request.param == "fallback":
        if HAS_UIPATH:
            pytest.skip("this interpreter has uipath: the fallback is not what runs")
        return sys.executable, None
    sdk: UiPathSdk = request.getfixturevalue("uipath_sdk")
    return str(sdk.python), sdk.env()


FAILS = """\
class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no words")


class NotText(Exception):
    def __str__(self):
        return 5


def lookup(key):
    try:
        return {}[key]
    except KeyError as exc:
        raise ValueError(f"no {key}") from exc


def main(input):
    kind = input.get("kind")
    if kind == "chained":
        return lookup("city")
    if kind == "unprintable":
        raise Unprintable()
    if kind == "not text":
        raise NotText()
    return {"ok": kind}
"""


def tracebacks(log: str) -> list[list[str]]:
    """Each traceback of the log (from a "Traceback" line to the exception line after its frames), as lines."""
    found: list[list[str]] = []
    for line in log.splitlines():
        if line.startswith("Traceback (most recent call last):"):
            found.append([line])
        elif found and (line.startswith(" ") or len(found[-1]) == 1 or found[-1][-1].startswith(" ")):
            found[-1].append(line)
    return found


def frames(traceback: list[str]) -> list[str]:
    return [line for line in traceback if line.startswith("  File ")]


def test_a_failed_rows_traceback_shows_the_users_frames_only_as_python_would(
        tmp_path: Path, child_python: tuple[str, dict[str, str] | None]) -> None:
    """As `python main.py` shows it: the frames from the entry file down, the exception chain the agent made
    (`raise ... from`), the exception line; none of the child's, worker_main's, asyncio's or the SDK's frames."""
    python, env = child_python
    root = project(tmp_path, FAILS)
    replies, log = serve(python, root, [{"kind": "chained"}, {"kind": "fine"}], env=env)
    assert replies == [{"id": 1, "error": "ValueError: no city"}, {"id": 2, "output": {"ok": "fine"}}]
    for plumbing in ("child_main.py", "worker_main.py", f"{os.sep}asyncio{os.sep}", f"uipath{os.sep}functions"):
        assert plumbing not in log, log
    cause, error = tracebacks(log)
    main_py = str(root / "main.py")
    assert frames(cause) == [f'  File "{main_py}", line 13, in lookup'] and cause[-1] == "KeyError: 'city'", log
    assert "The above exception was the direct cause of the following exception:" in log
    assert frames(error) == [f'  File "{main_py}", line 21, in main', f'  File "{main_py}", line 15, in lookup']
    assert error[-1] == "ValueError: no city"


def test_an_exception_whose_str_raises_is_the_rows_error_naming_it_and_the_worker_lives_on(
        tmp_path: Path, child_python: tuple[str, dict[str, str] | None]) -> None:
    python, env = child_python
    root = project(tmp_path, FAILS)
    replies, log = serve(python, root, [{"kind": "unprintable"}, {"kind": "not text"}, {"kind": "fine"}], env=env)
    assert replies == [
        {"id": 1, "error": "Unprintable (its str() raised RuntimeError: no words)"},
        {"id": 2, "error": "NotText (its str() raised TypeError: __str__ returned non-string (type int))"},
        {"id": 3, "output": {"ok": "fine"}}], log
    assert "Unprintable: <exception str() failed>" in log and "child_main.py" not in log, log


BIG = """\
def main(input):
    if input.get("fails"):
        raise ValueError("é" * input["size"])
    return {"text": "x" * input["size"]}
"""


def test_a_reply_longer_than_the_pool_reads_is_the_rows_error_naming_the_limit_and_the_worker_lives_on(
        tmp_path: Path) -> None:
    """MAX_OUTPUT_MB ([runner] max_output_mb): an output over it is the row's error in words (the pool would
    otherwise refuse the line as a broken protocol and replace the worker); an error message over it is cut."""
    root = project(tmp_path, BIG)
    limit = 4096
    argv = [sys.executable, str(CHILD_MAIN), str(root / "main.py"), "main", repr(limit / 2**20)]
    replies, _ = serve(sys.executable, root, [{"size": 10_000}, {"size": 10, "fails": True}, {"size": 100_000,
                                                                                            "fails": True},
                                              {"size": 10}], argv=argv)
    assert replies[0] == {"id": 1, "error": "this row's output is 9.8 KiB as JSON, more than the 4.0 KiB workbench "
                                            "reads from a row ([runner] max_output_mb = 0.00390625); return less, or "
                                            "raise max_output_mb in workbench.toml if that is expected"}
    assert replies[1] == {"id": 2, "error": "ValueError: " + "é" * 10}
    cut = replies[2]["error"]
    assert cut.startswith("ValueError: éé") and cut.endswith("workbench reads from a row ([runner] max_output_mb = "
                                                             "0.00390625): the rest is cut)"), cut
    assert len(json.dumps(replies[2])) <= limit
    assert replies[3]["id"] == 4 and replies[3]["output"]["text"] == "x" * 10, "the same worker takes the next row"
