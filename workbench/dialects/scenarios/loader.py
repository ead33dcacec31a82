"""The scenario dialect (seed 000, Appilots eval): one `*.json` file per scenario — given a screen,
when the user says X, expect these actions (or none), this reply and never that.

The scenarios folder is one eval set (scope `scenarios`); each file is a row whose one result is scored
by a synthetic evaluator named `expect`. A scenario that can't run (no `when`, an unknown `mode`, a
file that is not JSON) is still a row — an ERROR naming its file and field — so it counts against the
pass rate instead of vanishing from the suite.

The row's inputs are the request the agent gets: `{"name", "given", "when", "model"?}`, where `model`
is the scenario's `modelOverride`, else `--model`, else absent.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from ... import jsonio
from ...compare import type_name
from ...model import EvalSet, EvaluatorDef, EvaluatorKey, Row
from ..base import MAX_FILE_BYTES, LoadContext, relative
from .expect import SCENARIO_EXPECT
from .names import DIALECT, EXPECT_REF, RC_FILE, SCOPE
from .settings import ScenarioSettings, resolve_settings
from .spec import ExpectError, parse_expect

KIND = "scenario"
FIELDS = ("name", "description", "given", "when", "modelOverride", "expect")


def load_scenarios(ctx: LoadContext) -> None:
    """The scenarios folder as one eval set, each file a row scored by the synthetic `expect` evaluator."""
    settings, rc = resolve_settings(ctx.root, ctx.config)
    for message, severity in rc.problems:
        ctx.problem(RC_FILE, message, severity)
    ctx.project.extras[DIALECT] = settings
    folder = settings.dir
    if not folder.is_dir():
        named = settings.dir_named
        ctx.problem(folder, "is not a folder of scenarios" + (
            "" if named else "; put one *.json file per scenario there (`workbench init --format appilots` "
                             "writes an example)"), "error" if named else "warning")
        return
    rows = [scenario_row(ctx, path, index, settings) for index, path
            in enumerate(ctx.json_files(folder, inside=folder))]
    _mark_duplicates(ctx, rows)
    if not rows:
        ctx.problem(folder, "has no scenarios yet (*.json files, one scenario each)", "warning")
    ctx.project.sets.append(EvalSet(scope=SCOPE, path=folder, id=None, name=folder.name,
                                    evaluator_refs=[EXPECT_REF], rows=rows, dialect=DIALECT))
    ctx.project.evaluators[EvaluatorKey(SCOPE, EXPECT_REF)] = EvaluatorDef(
        scope=SCOPE, ref=EXPECT_REF, path=folder, id=None, name="expect", type_id=SCENARIO_EXPECT,
        config={}, raw={})


def scenario_row(ctx: LoadContext, path: Path, index: int, settings: ScenarioSettings) -> Row:
    """The row of one scenario file; a file that can't run is a row whose `problem` says why."""
    where = relative(ctx.root, path)
    doc, problem = _read(path)
    if _is_scenario_file(ctx, path, doc, problem):
        ctx.loaded(path)
    if problem is None and not isinstance(doc, dict):
        problem = f"must be a JSON object (one scenario), not {type_name(doc)}"
    if problem is not None:
        return Row(id=path.stem, name="", inputs={}, criteria={}, index=index, raw=None,
                   problem=f"{where}: {problem}", source=path, kind=KIND)
    name = doc.get("name")
    row_id = name if isinstance(name, str) and name else path.stem
    inputs, criteria, problem = _request(doc, settings)
    for key in doc:
        if key not in FIELDS:
            close = difflib.get_close_matches(str(key), FIELDS, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"fields: {', '.join(FIELDS)}"
            ctx.problem(path, f"{key!r} is not a scenario field and is ignored ({hint})", "warning")
    if "description" in doc and not isinstance(doc["description"], str):
        ctx.problem(path, f"description should be text, not {type_name(doc['description'])}", "warning")
    return Row(id=row_id, name=row_id if row_id == name else "", inputs=inputs, criteria=criteria, index=index,
               raw=doc, problem=f"{where}: {problem}" if problem else None, source=path, kind=KIND)


def _is_scenario_file(ctx: LoadContext, path: Path, doc: Any, problem: str | None) -> bool:
    """Whether `path` is one of this format's eval files, which re-scoring compares row by row instead of as
    a file: a scenario object, or a file that doesn't parse in a folder kept for scenarios. A folder that
    also holds the project's own files (`[scenarios] dir = "."`) may hold other JSON (`config.json`, which
    a target reads): such a file stays part of the project."""
    if isinstance(doc, dict):
        return any(key in doc for key in ("when", "expect", "given"))
    return problem is not None and path.parent.resolve() != ctx.root.resolve()


def _read(path: Path) -> tuple[Any, str | None]:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, f"is {size / 1e6:.0f} MB; files over {MAX_FILE_BYTES // 2**20} MiB are not read"
        return jsonio.loads(path.read_bytes()), None
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    except jsonio.JsonError as exc:
        at = f" at line {exc.line}, column {exc.column}" if exc.line is not None else ""
        return None, f"is not valid JSON{at}: {exc.message}"


def _request(doc: dict[str, Any], settings: ScenarioSettings) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """(inputs, criteria, the first problem or None) of a scenario document."""
    name, when, given, model = doc.get("name"), doc.get("when"), doc.get("given", {}), doc.get("modelOverride")
    inputs: dict[str, Any] = {"name": name if isinstance(name, str) else "", "given": given, "when": when}
    if isinstance(model, str) and model:
        inputs["model"] = model
    elif settings.model:
        inputs["model"] = settings.model
    expect = doc.get("expect")
    criteria = {EXPECT_REF: expect} if expect is not None else {}
    problem = (_required_text(doc, "name", "a unique name; the baseline tracks the scenario by it")
               or _required_text(doc, "when", "the user's prompt for this turn")
               or _given_problem(given)
               or (f"modelOverride must be a non-empty string (a model id), not {type_name(model)}"
                   if "modelOverride" in doc and not (isinstance(model, str) and model) else None)
               or _expect_problem(doc))
    return inputs, criteria, problem


def _required_text(doc: dict[str, Any], key: str, meaning: str) -> str | None:
    if key not in doc:
        return f"{key} is missing ({meaning})"
    value = doc[key]
    if not isinstance(value, str):
        return f"{key} must be a string ({meaning}), not {type_name(value)}"
    return f"{key} is empty ({meaning})" if not value.strip() else None


def _given_problem(given: Any) -> str | None:
    if not isinstance(given, dict):
        return f"given must be an object ({{\"screen\", \"observation\"}}), not {type_name(given)}"
    if "screen" in given and not isinstance(given["screen"], str):
        return f"given.screen must be a string (a screen name), not {type_name(given['screen'])}"
    if "observation" in given and not isinstance(given["observation"], dict):
        return f"given.observation must be an object (a snapshot of the screen), not {type_name(given['observation'])}"
    return None


def _expect_problem(doc: dict[str, Any]) -> str | None:
    if "expect" not in doc:
        return "expect is missing (what the agent should do, e.g. {\"mode\": \"none\"})"
    try:
        parse_expect(doc["expect"])
    except ExpectError as exc:
        return str(exc)
    return None


def _mark_duplicates(ctx: LoadContext, rows: list[Row]) -> None:
    """A name used twice can't be told apart in the baseline: the later files are ERRORs."""
    first: dict[str, Row] = {}
    for row in rows:
        if row.id not in first:
            first[row.id] = row
            continue
        owner = first[row.id]
        clash = relative(ctx.root, owner.source) if owner.source else "another scenario"
        where = relative(ctx.root, row.source) if row.source else row.id
        if row.problem is None:
            row.problem = f"{where}: name {row.id!r} is already the name of {clash}; names must be unique"
        row.id = f"{row.id} ({row.source.name if row.source else row.index})"


__all__ = ["DIALECT", "EXPECT_REF", "SCOPE", "load_scenarios", "scenario_row"]
