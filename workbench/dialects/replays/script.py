"""A scripted case as data: the steps of `evals/<name>.script.json` (seed 001), checked for shape.

Shape mistakes (an unknown step type, a `tool.call` without `toolName`, an `assistant.output` whose
`content` isn't a string, an artifact path that leads out of its folder, an `expect` key that isn't an
expectation) are found when the file is read and make the case an ERROR naming the step. What
depends on the project's tools (does the tool exist, do the arguments fit its schema, does it need
approval, is there a result) is decided while replaying, where it fails the case instead.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ...compare import type_name
from ...output_paths import MISSING

ASSISTANT_OUTPUT = "assistant.output"
TOOL_CALL = "tool.call"
APPROVAL_DECIDE = "approval.decide"
ARTIFACT_WRITE = "artifact.write"
STEP_TYPES = (ASSISTANT_OUTPUT, TOOL_CALL, APPROVAL_DECIDE, ARTIFACT_WRITE)
STATUSES = ("completed", "waiting", "failed")
EXPECT_KEYS = ("status", "outputContains")
SUFFIX = ".script.json"


class StepError(ValueError):
    """A step (or the case) has the wrong shape; the message names the step."""


@dataclass(frozen=True, slots=True)
class ArtifactFile:
    path: str
    content: str
    mime_type: str | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One step; only the fields of its `type` mean anything. `result` is MISSING when not given."""

    index: int
    type: str
    content: Any = None
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    result: Any = MISSING
    live: bool = False
    approved: bool = False
    files: tuple[ArtifactFile, ...] = ()

    @property
    def where(self) -> str:
        """`script[2] (tool.call issue_refund)`: how messages name the step."""
        what = f"{self.type} {self.tool}" if self.type == TOOL_CALL else self.type
        return f"script[{self.index}] ({what})"


@dataclass(frozen=True, slots=True)
class Case:
    """A case file read: its name, steps (as written and as parsed) and expectations."""

    name: str
    description: str
    script: list[Any]
    steps: tuple[Step, ...]
    expect: dict[str, Any]
    warnings: tuple[str, ...] = ()


def case_name(file_name: str) -> str:
    """`refund-held.script.json` → `refund-held`."""
    return file_name[: -len(SUFFIX)] if file_name.endswith(SUFFIX) else file_name


def _text(step: dict[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = step.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        have = "has no" if key not in step else f"has {type_name(value)} as"
        raise StepError(f"{where} {have} \"{key}\" (a non-empty string)")
    return value


def _artifact_path(path: str, where: str) -> str:
    pure = PurePosixPath(path.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or not pure.parts or path.startswith("~"):
        raise StepError(f"{where} path {path!r} must be a relative path inside the run's folder (no '..')")
    if "\x00" in path:
        raise StepError(f"{where} path {path!r} has a NUL character, which no file name can hold")
    return pure.as_posix()


def _files(step: dict[str, Any], where: str) -> tuple[ArtifactFile, ...]:
    files = step.get("files")
    if not isinstance(files, list) or not files:
        raise StepError(f"{where} needs \"files\": [{{\"path\": ..., \"content\": ...}}, ...]")
    out: list[ArtifactFile] = []
    for number, item in enumerate(files):
        here = f"{where} files[{number}]"
        if not isinstance(item, dict):
            raise StepError(f"{here} must be an object with \"path\" and \"content\", not {type_name(item)}")
        path = _artifact_path(_text(item, "path", here) or "", here)
        content = item.get("content")
        if not isinstance(content, str):
            raise StepError(f"{here} \"content\" must be a string, not {type_name(content)}")
        out.append(ArtifactFile(path, content, _text(item, "mimeType", here, required=False)))
    return tuple(out)


def parse_step(index: int, raw: Any) -> Step:
    where = f"script[{index}]"
    if not isinstance(raw, dict):
        raise StepError(f"{where} must be an object with a \"type\", not {type_name(raw)}")
    kind = raw.get("type")
    if kind not in STEP_TYPES:
        shown = "no \"type\"" if "type" not in raw else f"type {kind!r}"
        raise StepError(f"{where} has {shown}; a step is one of {', '.join(STEP_TYPES)}")
    where = f"{where} ({kind})"
    if kind == ASSISTANT_OUTPUT:
        if "content" not in raw:
            raise StepError(f"{where} has no \"content\" (the text the agent says)")
        if not isinstance(raw["content"], str):  # seed 001: "`content`, the text the agent says"
            raise StepError(f"{where} \"content\" must be a string (the text the agent says), not "
                            f"{type_name(raw['content'])}")
        return Step(index, kind, content=raw["content"])
    if kind == APPROVAL_DECIDE:
        if not isinstance(raw.get("approved"), bool):
            raise StepError(f"{where} needs \"approved\": true or false")
        return Step(index, kind, approved=raw["approved"])
    if kind == ARTIFACT_WRITE:
        return Step(index, kind, files=_files(raw, where))
    tool = _text(raw, "toolName", where) or ""
    arguments = raw.get("arguments", {})
    if not isinstance(arguments, dict):
        raise StepError(f"{where} \"arguments\" must be an object, not {type_name(arguments)}")
    live = raw.get("live", False)
    if not isinstance(live, bool):
        raise StepError(f"{where} \"live\" must be true or false, not {type_name(live)}")
    return Step(index, kind, tool=tool, arguments=arguments, result=raw.get("result", MISSING), live=live)


def _expect(doc: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    expect = doc.get("expect", {})
    if expect is None:
        expect = {}
    if not isinstance(expect, dict):
        raise StepError(f"\"expect\" must be an object such as {{\"status\": \"completed\"}}, not {type_name(expect)}")
    status = expect.get("status")
    if status is not None and status not in STATUSES:
        raise StepError(f"expect.status must be one of {', '.join(STATUSES)}, not {status!r}")
    contains = expect.get("outputContains")
    if contains is not None and not isinstance(contains, str):
        raise StepError(f"expect.outputContains must be a string, not {type_name(contains)}")
    for key in expect:
        if key not in EXPECT_KEYS:  # a misspelt expectation would pass unchecked: refused, as every format does
            close = difflib.get_close_matches(str(key), EXPECT_KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (expectations: {', '.join(EXPECT_KEYS)})"
            raise StepError(f"expect has {str(key)!r}, which is not an expectation{hint}")
    return expect, []


def parse_case(doc: Any, file_name: str) -> Case:
    """A case from a parsed file (an object with `script`, or only the array of steps); StepError names
    what is wrong."""
    if isinstance(doc, list):
        doc = {"script": doc}
    if not isinstance(doc, dict):
        raise StepError(f"must be an object with \"script\" (or an array of steps), not {type_name(doc)}")
    script = doc.get("script")
    if not isinstance(script, list):
        have = "has no \"script\"" if "script" not in doc else f"\"script\" is {type_name(script)}"
        raise StepError(f"{have}; it must be the array of steps")
    name = doc.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise StepError(f"\"name\" must be a non-empty string, not {type_name(name)}")
    description = doc.get("description")
    description = description if isinstance(description, str) else ""
    steps = tuple(parse_step(index, raw) for index, raw in enumerate(script))
    expect, warnings = _expect(doc)
    if not steps:
        warnings.append("\"script\" is empty: the run completes with no output")
    return Case(name or case_name(file_name), description, script, steps, expect, tuple(warnings))


__all__ = ["APPROVAL_DECIDE", "ARTIFACT_WRITE", "ASSISTANT_OUTPUT", "STATUSES", "STEP_TYPES", "SUFFIX", "TOOL_CALL",
           "ArtifactFile", "Case", "Step", "StepError", "case_name", "parse_case", "parse_step"]
