"""Turn what history recorded for one row into a scripted case, without running anything again.

Every recorded tool call becomes a `tool.call` step keeping its arguments and output (as `result`),
approvals become `approval.decide`, outputs `assistant.output`, artifacts `artifact.write`, and
`expect` records the run's status and final output. The trace is read in order; a replay's own
trace (`approval.requested` before the call it gates) folds back into the steps it came from, so a
replayed row round-trips to the same status and output. Any other run (a command target, a UiPath
row) completed with its output, which becomes the final `assistant.output` as text (seed 001: `content`
is "the text the agent says"; an object output is written as its compact JSON, the text `outputContains`
searches), so the new case replays to that text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ... import jsonio
from ...errors import WorkbenchError
from ...model import Project, Result
from ...output_paths import MISSING
from ...scoring.common import as_text
from ...trace import TOOL_CALL as TRACE_TOOL_CALL
from ..base import EVALS_DIR, LoadContext, NewCase
from .executor import APPROVAL_DECIDED, APPROVAL_REQUESTED, ARTIFACT_EVENT, OUTPUT_EVENT, RUN_STATUS
from .script import APPROVAL_DECIDE, ARTIFACT_WRITE, ASSISTANT_OUTPUT, STATUSES, SUFFIX, TOOL_CALL
from .tools import load_toolbox

if TYPE_CHECKING:
    from ...config import Config

FILES_NOTE = ("files a tool wrote while it ran are not carried over (only artifact.write steps of a replay "
              "are); the case gives each call's recorded output as its result")


class NotACase(ValueError):
    """The recorded run can't become a case (it ended in ERROR, or failed its own case)."""


@dataclass(slots=True)
class _Builder:
    steps: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pending: dict[str, Any] | None = None  # a tool.call awaiting its approval / its output
    pending_step: Any = None
    last_output: Any = MISSING

    def tool_call(self, event: dict[str, Any]) -> None:
        name, args = event.get("name"), event.get("args", event.get("arguments", {}))
        if not isinstance(name, str) or not isinstance(args, dict):
            self.notes.append(f"a tool_call event without a usable name or args was left out: {event!r:.120}")
            return
        pending = self.pending
        if pending is not None and pending["toolName"] == name and self.pending_step == event.get("step"):
            step = pending  # the call an approval was asked for, now with its output
        else:
            step = {"type": TOOL_CALL, "toolName": name, "arguments": args}
            self.steps.append(step)
        self.pending = None
        if "output" in event:
            step["result"] = event["output"]
        else:
            self.notes.append(f"the trace has no output for a call to {name}; give it a \"result\" before the case "
                              "can pass")

    def approval_requested(self, event: dict[str, Any]) -> None:
        tool, args = event.get("tool"), event.get("args", {})
        if isinstance(tool, str):
            step = {"type": TOOL_CALL, "toolName": tool, "arguments": args if isinstance(args, dict) else {}}
            self.steps.append(step)
            self.pending, self.pending_step = step, event.get("step")

    def approval_decided(self, event: dict[str, Any]) -> None:
        approved = event.get("approved")
        if isinstance(approved, bool):
            self.steps.append({"type": APPROVAL_DECIDE, "approved": approved})
        if not approved:
            self.pending = None  # a denied call never ran

    def said(self, content: Any) -> None:
        """An `assistant.output` step: its content is always text (a traced object as its JSON)."""
        text = as_text(content)
        self.steps.append({"type": ASSISTANT_OUTPUT, "content": text})
        self.last_output = text

    def artifact(self, event: dict[str, Any]) -> None:
        path, content = event.get("path"), event.get("content")
        if not isinstance(path, str) or not isinstance(content, str):
            self.notes.append(f"an artifact without recorded content was left out ({path!r})")
            return
        file = {"path": path, "content": content}
        if isinstance(event.get("mimeType"), str):
            file["mimeType"] = event["mimeType"]
        previous = self.steps[-1] if self.steps else None
        if previous and previous["type"] == ARTIFACT_WRITE and previous.get("_step") == event.get("step"):
            previous["files"].append(file)
        else:
            self.steps.append({"type": ARTIFACT_WRITE, "files": [file], "_step": event.get("step")})

    def read(self, trace: list[Any]) -> None:
        handlers = {TRACE_TOOL_CALL: self.tool_call, APPROVAL_REQUESTED: self.approval_requested,
                    APPROVAL_DECIDED: self.approval_decided, ARTIFACT_EVENT: self.artifact,
                    "approval_decided": self.approval_decided}
        for event in trace:
            if not isinstance(event, dict):
                continue
            kind = event.get("type")
            if kind == OUTPUT_EVENT and "content" in event:
                self.said(event["content"])
            elif kind in handlers:
                handlers[kind](event)
        for step in self.steps:
            step.pop("_step", None)


def _is_replay(result: Result) -> bool:
    actual = result.actual
    return (isinstance(actual, dict) and actual.get("status") in STATUSES
            and any(isinstance(e, dict) and e.get("type") == RUN_STATUS for e in result.trace))


def case_from_result(result: Result, *, description: str) -> tuple[dict[str, Any], list[str]]:
    """The case document for the run `result` recorded (any of the row's results: they share the run's
    output and trace), and notes on what could not be carried over. Raises NotACase."""
    if result.actual is None:
        raise NotACase(f"row {result.label!r} ended in ERROR in that iteration, so there is no run to turn "
                       f"into a case: {result.detail.splitlines()[0] if result.detail else 'no output'}")
    builder = _Builder()
    builder.read(result.trace)
    if _is_replay(result):
        if result.actual.get("failure"):
            raise NotACase(f"row {result.label!r} failed its own case in that iteration "
                           f"({result.actual['failure']}); fix it before copying it")
        status, final = result.actual["status"], result.actual.get("output")
    else:
        status, final = "completed", result.actual
    if final is not None and (builder.last_output is MISSING or builder.last_output != as_text(final)):
        builder.said(final)
    expect: dict[str, Any] = {"status": status}
    if final is not None:
        expect["outputContains"] = as_text(final)
    if any(step["type"] == TOOL_CALL for step in builder.steps):
        builder.notes.append(FILES_NOTE)
    doc = {"description": description, "script": builder.steps, "expect": expect}
    return doc, builder.notes


def _check_case_name(name: str) -> None:
    if not name.strip() or name.startswith(".") or any(ch in name for ch in "/\\\x00") or len(name) > 200:
        raise WorkbenchError(f"{name!r} can't name a case file; use letters, digits, '-' or '_' "
                             "(e.g. --name refund-held)", exit_code=1)


def _tool_notes(project: Project, config: Config, doc: dict[str, object]) -> list[str]:
    """A note per tool the case calls that the project's tools file doesn't define."""
    ctx = LoadContext(project.root, Project(root=project.root), config)
    toolbox = load_toolbox(ctx)
    script = doc.get("script")
    called = {step["toolName"] for step in script if isinstance(step, dict) and step.get("type") == TOOL_CALL} \
        if isinstance(script, list) else set()
    missing = sorted(name for name in called if toolbox.get(name) is None)
    if not missing:
        return []
    return [f"{toolbox.source} has no tool {', '.join(missing)}; add {'it' if len(missing) == 1 else 'them'} "
            "(with an inputSchema) or the case fails"]


def new_case(project: Project, config: Config, result: Result, name: str, where: str, dialect: str) -> NewCase:
    """`evals/<name>.script.json` for the run `result` recorded. Raises WorkbenchError (exit 1) when the
    file or a case of that name (a row of a `dialect` set) exists, or the run can't be a case."""
    _check_case_name(name)
    display = f"{EVALS_DIR}/{name}{SUFFIX}"
    path = project.root / EVALS_DIR / f"{name}{SUFFIX}"
    if path.exists() or path.is_symlink():
        raise WorkbenchError(f"{display} already exists; choose another --name", exit_code=1)
    for eval_set in project.sets:
        if eval_set.dialect == dialect and any(row.name == name or row.id == name for row in eval_set.rows):
            raise WorkbenchError(f"a case named {name!r} already exists in {EVALS_DIR}/; choose another --name",
                                 exit_code=1)
    try:
        doc, notes = case_from_result(result, description=f"Recorded from {where}.")
    except NotACase as exc:
        raise WorkbenchError(str(exc), exit_code=1) from None
    notes += _tool_notes(project, config, doc)
    return NewCase(name, path, display, jsonio.dumps(doc, indent=True) + "\n", notes)


__all__ = ["FILES_NOTE", "NotACase", "case_from_result", "new_case"]
