"""Helpers for the TUI tests: fixture projects, a scripted fake runner, and waits that end in a failure
instead of a hang.

The fake runner makes the screens deterministic: it computes each row's output from its inputs
(`{"out": X}` outputs X; anything else echoes the inputs), always reports the same duration, and can
be told to block rows on an asyncio.Event, to error, or to write log lines. One `FakeTarget` serves
every iteration of an app (the engine asks the factory for a new runner per iteration), so it counts
every call across iterations:

    target = FakeTarget()
    app = make_app(config, watch=False, record=False, runner_factory=target.factory)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(app, pilot)
        assert target.calls == ["a", "b"]
"""

from __future__ import annotations

import asyncio
import html
import re
import runpy
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.css.query import NoMatches
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Static

from helpers.paths import EXAMPLES
from helpers.project import evaluator, make_project, row
from workbench.config import Config, load_config
from workbench.events import IterationReport, RowKey, Trigger
from workbench.history import HistoryStore
from workbench.model import Result, Verdict
from workbench.project import load_project
from workbench.runners.base import LogSink, Runner, RunOutcome, RunRequest
from workbench.tui.app import WorkbenchApp, make_app

SIZE = (150, 45)
WAIT_S = 30.0  # a guard against hangs, not a timing assertion: a passing test never gets near it
DURATION_MS = 12.0
FIXED_START = datetime(2025, 3, 14, 9, 30, 0, tzinfo=UTC)
RUN_START = datetime(2025, 3, 14, 10, 0, 0)  # the log headers' time in tests (see pinned_clock)
SCOPE = "default"
EXAMPLE = EXAMPLES / "grading"


# -- what the app told the user -------------------------------------------------------------------------

class Notices:
    """Every notification the app posted, in order: a `run_test(message_hook=...)` hook that keeps the
    message of each `Notify` (the app's toasts expire, and their list is Textual's own business).

        notices = Notices()
        async with app.run_test(message_hook=notices) as pilot:
            ...
            assert any("passes" in n for n in notices)
    """

    def __init__(self) -> None:
        self.messages: list[str] = []

    def __call__(self, message: Message) -> None:
        if isinstance(message, Notify):
            self.messages.append(message.notification.message)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.messages))


# -- the fake target ---------------------------------------------------------------------------------


def echo_out(inputs: dict[str, Any]) -> Any:
    return inputs.get("out", inputs)


@dataclass
class FakeTarget:
    """What every FakeRunner of one app does. Change its fields between iterations to change the
    target's behaviour (as a user would edit their code)."""

    compute: Callable[[dict[str, Any]], Any] = echo_out
    duration_ms: float = DURATION_MS
    outputs: dict[str, Any] = field(default_factory=dict)  # row id -> output, instead of compute()
    errors: dict[str, str] = field(default_factory=dict)  # row id -> error message
    logs: dict[str, list[str]] = field(default_factory=dict)  # row id -> lines written through on_log
    gate: asyncio.Event | None = None  # when set up, rows in `blocked` (or all, if empty) wait for it
    blocked: set[str] = field(default_factory=set)
    calls: list[str] = field(default_factory=list)  # row ids, in the order the runner got them
    waiting: set[str] = field(default_factory=set)  # row ids blocked on the gate right now

    def factory(self, config: Config) -> Runner:
        return FakeRunner(config, self)

    def block(self, *row_ids: str) -> asyncio.Event:
        """Make the given rows (every row when none given) wait until the returned event is set."""
        self.gate = asyncio.Event()
        self.blocked = set(row_ids)
        return self.gate

    def release(self) -> None:
        if self.gate is not None:
            self.gate.set()
        self.gate = None
        self.blocked = set()


class FakeRunner(Runner):
    def __init__(self, config: Config, target: FakeTarget) -> None:
        super().__init__(config)
        self.target = target

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        target = self.target
        target.calls.append(request.row_id)
        lines = list(target.logs.get(request.row_id, []))
        for line in lines:
            if on_log is not None:
                on_log(line)
        gate = target.gate
        if gate is not None and (not target.blocked or request.row_id in target.blocked):
            target.waiting.add(request.row_id)
            try:
                await gate.wait()
            finally:
                target.waiting.discard(request.row_id)
        else:
            await asyncio.sleep(0)  # let the UI breathe between rows, as a real target would
        log = "\n".join(lines)
        if request.row_id in target.errors:
            return RunOutcome(error=target.errors[request.row_id], duration_ms=target.duration_ms, log=log)
        output = target.outputs[request.row_id] if request.row_id in target.outputs else target.compute(request.inputs)
        return RunOutcome(output=output, duration_ms=target.duration_ms, log=log)


# -- projects ----------------------------------------------------------------------------------------


def out_row(name: str, out: Any, expected: Any, /, **kwargs: Any) -> dict[str, Any]:
    """A row whose fake target outputs `out` and whose exact-match expects `expected`."""
    return row(name, {"out": out}, expected, **kwargs)


PASS, FAIL = {"grade": "PASS"}, {"grade": "FAIL"}


def grading_rows() -> list[dict[str, Any]]:
    """Five rows, two failing: alpha ✔, bravo ✘, charlie ✔, delta ✘, echo ✔."""
    return [out_row("alpha", PASS, PASS), out_row("bravo", FAIL, PASS), out_row("charlie", PASS, PASS),
            out_row("delta", FAIL, PASS), out_row("echo", PASS, PASS)]


def write_project(root: Path, sets: Mapping[str, Any] | None = None, **kwargs: Any) -> Config:
    """A fixture project (helpers.project.make_project) and its Config. The config names a command runner so it
    is valid on its own; tests replace the runner with a FakeTarget."""
    kwargs.setdefault("config", {"kind": "command", "command": ["{python}", "-c", "pass"], "timeout": 20})
    make_project(root, sets={"grading": grading_rows()} if sets is None else sets, **kwargs)
    return load_config(root)


def two_evaluator_project(root: Path) -> Config:
    """One set scored by two evaluators: `grade` compares the grade only, `detail` the band too."""
    both = ("grade", "detail")
    rows = [
        row("merit", {"out": {"grade": "PASS", "band": "merit"}}, criteria={
            "grade": {"expectedOutput": {"grade": "PASS"}},
            "detail": {"expectedOutput": {"grade": "PASS", "band": "distinction"}}}),
    ]
    doc = {"version": "1.0", "id": "set-two", "name": "Two evaluators", "evaluatorRefs": list(both),
           "evaluations": rows}
    return write_project(root, {"bands": doc}, evaluators={
        "grade": evaluator("grade", id="grade-eval"), "detail": evaluator("*", id="detail-eval")})


def example_project(tmp_path: Path) -> tuple[Config, FakeTarget]:
    """A copy of examples/grading (without its history) and a fake target that grades with the example's
    own grade.py, in-process: the real screens with fixed durations."""
    root = tmp_path / "grading"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    grade = runpy.run_path(str(root / "grade.py"))["grade"]  # runpy writes no bytecode into the copy
    return load_config(root), FakeTarget(compute=grade)


def pinned_clock(app: WorkbenchApp) -> WorkbenchApp:
    """Runs in the log start at a fixed time (naive, so shown as written whatever the time zone)."""
    app.state.clock = lambda: RUN_START
    return app


def app_for(config: Config, target: FakeTarget | None = None, **kwargs: Any) -> WorkbenchApp:
    kwargs.setdefault("watch", False)
    kwargs.setdefault("record", False)
    return pinned_clock(make_app(config, runner_factory=(target or FakeTarget()).factory, **kwargs))


def key_of(row_id: str, set_file: str = "grading.json", scope: str = SCOPE) -> RowKey:
    return (scope, set_file, row_id)


# -- waiting -----------------------------------------------------------------------------------------


def holds(predicate: Callable[[], bool]) -> bool:
    """`predicate()`, where a query for a widget not mounted yet (Textual's NoMatches) means "not yet":
    a pushed screen is `app.screen` before its children are composed."""
    try:
        return bool(predicate())
    except NoMatches:
        return False


async def wait_until(pilot: Pilot[Any], predicate: Callable[[], bool], what: str,
                     timeout: float = WAIT_S) -> None:
    """Pump the app until `predicate()` holds (a NoMatches is "not yet"); fail with `what` if it never does."""
    deadline = time.monotonic() + timeout
    while not holds(predicate):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await pilot.pause(0.01)


async def wait_idle(app: WorkbenchApp, pilot: Pilot[Any], iterations: int = 1, timeout: float = WAIT_S) -> None:
    """Wait until `iterations` iterations have finished, nothing runs or is queued, and the UI has
    applied every update (the last coalesced repaint included)."""
    await wait_until(pilot, lambda: app.main.iterations_done >= iterations, f"{iterations} iteration(s) finished",
                     timeout)
    await settled(app, pilot, timeout)


async def settled(app: WorkbenchApp, pilot: Pilot[Any], timeout: float = WAIT_S) -> None:
    """The app's public settled signal (nothing runs or is queued, the screen shows it), then a frame."""
    try:
        await asyncio.wait_for(app.settled(), timeout)
    except TimeoutError:
        raise AssertionError("timed out waiting until the app settled") from None
    await pilot.pause()


def steady_cursors(app: WorkbenchApp) -> None:
    """Every Input on the current screen shows its cursor without blinking: a focused Input toggles its
    cursor every 0.5 s, so a screenshot taken a little later (a loaded machine) would catch it hidden."""
    for widget in app.screen.query(Input):
        widget.cursor_blink = False


async def to_first_row(app: WorkbenchApp, pilot: Pilot[Any]) -> None:
    """Put the cursor on the first row shown. The app opens on the first failing row once the first
    iteration ends; tests that walk the rows from the top start here."""
    rows = app.main.sets_tree.visible_rows()
    assert rows, "no row is shown"
    app.main.sets_tree.select_row(rows[0])
    await settle(pilot)


async def press_and_wait(app: WorkbenchApp, pilot: Pilot[Any], *keys: str) -> None:
    """Press keys that start one iteration and wait for it to finish."""
    done = app.main.iterations_done
    await pilot.press(*keys)
    await wait_idle(app, pilot, done + 1)


# -- reading the screen ------------------------------------------------------------------------------


def plain(renderable: object) -> str:
    return renderable.plain if isinstance(renderable, Text) else str(renderable)


def shown_rows(app: WorkbenchApp) -> dict[str, str]:
    """{row id: its label as shown} for every row node in the sets tree, in order."""
    out: dict[str, str] = {}
    for set_node in app.main.sets_tree.root.children:
        for node in set_node.children:
            if node.data is not None and node.data.kind == "row":
                out[node.data.key[2]] = plain(node.label)
    return out


def tree_lines(app: WorkbenchApp) -> list[str]:
    """Every node label of the sets tree, depth-first (sets, rows, problems)."""
    lines: list[str] = []
    stack = list(reversed(app.main.sets_tree.root.children))
    while stack:
        node = stack.pop()
        lines.append(plain(node.label))
        stack.extend(reversed(node.children))
    return lines


def widget_text(widget: Widget) -> str:
    """The text a Static (its content) or a one-line widget (what it renders) shows."""
    content = widget.content if isinstance(widget, Static) else widget.render()
    return plain(content)


def status_text(app: WorkbenchApp) -> str:
    return widget_text(app.query_one("#status"))


def static_text(app: WorkbenchApp, selector: str) -> str:
    return widget_text(app.query_one(selector))


def selected_id(app: WorkbenchApp) -> str | None:
    key = app.main.sets_tree.selected_row
    return key[2] if key else None


# -- history -----------------------------------------------------------------------------------------


def seed_history(config: Config, passing_per_iteration: list[int]) -> None:
    """Record one completed iteration per entry: the project's first N results (in file order) pass, the
    rest fail. Iterations are a minute apart from FIXED_START and each takes 1.5 s."""
    project = load_project(config.root)
    keys = [(s, r, ref) for s in project.sets for r in s.rows for ref in s.evaluator_refs]
    with HistoryStore.open(config) as store:
        for index, passing in enumerate(passing_per_iteration):
            results = [Result(scope=s.scope, set_file=s.file_name, row_id=r.id, row_name=r.name, evaluator=ref,
                              verdict=Verdict.PASS if position < passing else Verdict.FAIL,
                              score=1.0 if position < passing else 0.0, detail="", actual=None, expected=None,
                              duration_ms=DURATION_MS, evaluator_type="uipath-exact-match")
                       for position, (s, r, ref) in enumerate(keys)]
            trigger = Trigger("start") if index == 0 else Trigger("change", ("grade.py",))
            store.record(IterationReport(trigger=trigger, started_at=FIXED_START + timedelta(minutes=index),
                                         duration_s=1.5, complete=True, results=results))


def fixed_clock_recording(monkeypatch: Any, start: datetime = FIXED_START + timedelta(hours=1)) -> None:
    """Make iterations the app records carry a fixed start time and duration (for snapshots)."""
    original = HistoryStore.record
    count = 0

    def record(self: HistoryStore, report: IterationReport, *, partial: bool = False) -> int:
        nonlocal count
        report.started_at = start + timedelta(minutes=count)
        report.duration_s = 0.25
        count += 1
        return original(self, report, partial=partial)

    monkeypatch.setattr(HistoryStore, "record", record)


async def settle(pilot: Pilot[Any]) -> None:
    """A few frames, so call_after_refresh callbacks (cursor moves) have run."""
    for _ in range(3):
        await pilot.pause()



def screen_text(app: WorkbenchApp) -> str:
    """What the terminal shows, as plain text (from the app's own SVG screenshot), one line per row."""
    svg = app.export_screenshot()
    lines: dict[str, list[str]] = {}
    for y, content in re.findall(r'<text [^>]*?y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        lines.setdefault(y, []).append(html.unescape(content).replace("\xa0", " "))
    return "\n".join("".join(parts) for _, parts in sorted(lines.items(), key=lambda item: float(item[0])))
