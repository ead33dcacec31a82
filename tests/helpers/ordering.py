"""Projects whose target logs the order it is asked for rows in (issue 24, failing rows first): rows a..d
in two set files, the rows named in `failing` answering wrongly, a target for every runner kind. The log is
outside the project, so writing it changes nothing workbench fingerprints."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from helpers.project import FAKE_UIP, WORKFLOW_JSON, make_project, row
from workbench.config import Config, RunnerConfig
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger, TriggerKind
from workbench.history import HistoryStore

ANSWER = '''
import json

def answer(inputs):
    with open(inputs["log"], "a") as handle:
        handle.write(inputs["name"] + "\\n")
    return {"name": "broken" if inputs.get("fail") else inputs["name"]}
'''
COMMAND = "import json, sys\nfrom agent import answer\nprint(json.dumps(answer(json.load(sys.stdin))))\n"
WORKER = '''
import json, sys
from agent import answer

for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"id": message["id"], "output": answer(message["inputs"])}), flush=True)
'''
# A `uip` that logs the row, then is the stand-in uip of the other tests.
UIP = f'''
import json, runpy, sys
inputs = json.loads(sys.argv[5])
with open(inputs["log"], "a") as handle:
    handle.write(inputs["name"] + "\\n")
if inputs.get("fail"):
    sys.argv[5] = json.dumps({{"output": {{"name": "broken"}}}})
else:
    sys.argv[5] = json.dumps({{"output": {{"name": inputs["name"]}}}})
runpy.run_path({str(FAKE_UIP)!r}, run_name="__main__")
'''
RUNNERS: dict[str, dict[str, Any]] = {
    "command": {"kind": "command", "command": [sys.executable, "command.py"]},
    "python": {"kind": "python", "callable": "agent:answer"},
    "worker": {"kind": "worker", "command": [sys.executable, "worker.py"]},
    "uip": {"kind": "uip", "uip": [sys.executable, "uip.py"]},
}
NAMES = ("a", "b", "c", "d")


def project(tmp_path: Path, kind: str, failing: set[str]) -> tuple[Path, Path]:
    """Rows a..d in one set (and `d` in a second set file); the rows in `failing` answer wrongly."""
    root, log = tmp_path / "project", tmp_path / "order.log"
    rows = [row(name, {"name": name, "log": str(log), "fail": name in failing}, {"name": name}) for name in NAMES]
    make_project(root, sets={"first": rows[:3], "second": rows[3:]}, config=None,
                 files={"agent.py": ANSWER, "command.py": COMMAND, "worker.py": WORKER, "uip.py": UIP,
                        "Workflow.json": WORKFLOW_JSON})
    return root, log


def config_of(root: Path, kind: str) -> Config:
    settings = {**RUNNERS[kind], "timeout": 30, "concurrency": 1}
    if kind == "uip":
        settings["workflow"] = "Workflow.json"
    return Config(root=root, runner=RunnerConfig(**settings))


def run_and_record(config: Config) -> IterationReport:
    """What `workbench run` does: a fresh engine (no session), the iteration recorded in history."""
    report = asyncio.run(Engine(config).run_iteration(Trigger(TriggerKind.RUN)))
    with HistoryStore.open(config) as store:
        store.record(report)
    return report


def order(log: Path) -> list[str]:
    names = log.read_text().split()
    log.unlink()
    return names
