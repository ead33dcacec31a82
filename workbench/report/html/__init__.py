"""The HTML report (`workbench report N --html FILE`, `run --html FILE`): one self-contained file to share a
run. `data.py` builds the embedded document (a run just judged, or an iteration read back from history),
each row's detail drawn by its format (`dialects.base.detail_blocks`); `report/redact.py` keeps secrets out;
`page.py` writes the page, whose style and script are `report.css` and `report.js`."""

from __future__ import annotations

from pathlib import Path

from ...actions.gate import GateRun
from ...config import Config
from ...history import HistoryStore
from ...model import Project
from .data import ReportSource, document, from_gate_run, from_history
from .page import embedded_json, render, write_report

__all__ = ["ReportSource", "document", "embedded_json", "from_gate_run", "from_history", "render",
           "write_gate_run_report", "write_history_report", "write_report"]


def write_gate_run_report(config: Config, run: GateRun, path: Path) -> int:
    """`run --html FILE`: the iteration just run; returns the file's size."""
    return write_report(path, document(from_gate_run(config, run)))


def write_history_report(config: Config, project: Project | None, store: HistoryStore, number: int,
                         path: Path) -> int:
    """`workbench report N --html FILE`: iteration N from history; returns the file's size."""
    return write_report(path, document(from_history(config, project, store, number)))
