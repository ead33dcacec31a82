"""One planning function (issue 34): the engine, the session link and `run --reuse` select the same rows, on a
project whose format skips some (`Dialect.criterion_for` answering None: the toy named-refs format scores a row
only by the evaluators its criteria name, so a row naming none is not run at all).

Before the planning moved into `workbench/rescoring/`, the session link planned rows without `criterion_for`:
it counted the row no evaluator scores among those the request selects, found no decision for it, and ran a
new iteration where the last one was the answer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from helpers.cli import cli_env, invoke_json
from helpers.named_format import named_format, write_named_project
from helpers.session_link import linked_session

from workbench.config import Config, load_config
from workbench.events import Event, IterationStarted, Trigger, TriggerKind
from workbench.model import RowKey
from workbench.session_link import ask_live_session

TARGET = """\
import json, sys

inputs = json.load(sys.stdin)
with open({calls!r}, "a") as handle:
    handle.write(inputs["out"]["grade"] + "\\n")
print(json.dumps(inputs["out"]))
"""

SCORED = {"Grade": {"expectedOutput": {"grade": "A"}}}


def skipping_project(root: Path, calls: Path) -> Config:
    """Set `marks` (Grade and Echo): `first` and `third` name Grade only (Echo is skipped for them), `unscored`
    names no evaluator (every one skipped: not run). Set `none` has no row any evaluator scores."""
    rows = [{"id": "first", "inputs": {"out": {"grade": "A"}}, "criteria": SCORED},
            {"id": "unscored", "inputs": {"out": {"grade": "U"}}, "criteria": {}},
            {"id": "third", "inputs": {"out": {"grade": "B"}}, "criteria": SCORED}]
    write_named_project(root, {"grade": {"id": "Grade", "targetOutputKey": "grade"}},
                        {"marks": {"evaluatorRefs": ["Grade", "Echo"], "rows": rows},
                         "none": {"evaluatorRefs": ["Grade"],
                                  "rows": [{"id": "alone", "inputs": {"out": {"grade": "N"}}, "criteria": {}}]}})
    (root / "target.py").write_text(TARGET.format(calls=str(calls)), encoding="utf-8")
    (root / "workbench.toml").write_text('[runner]\nkind = "command"\ncommand = ["{python}", "target.py"]\n'
                                         'timeout = 60\n', encoding="utf-8")
    return load_config(root)


RUN = {RowKey("named", "marks.named.json", "first"), RowKey("named", "marks.named.json", "third")}


def test_the_engine_the_session_link_and_run_reuse_select_the_same_rows(tmp_path: Path) -> None:
    root, calls = tmp_path / "project", tmp_path / "calls.log"
    root.mkdir()
    with named_format():
        skipping_project(root, calls)

        # run --reuse (in this process, as a user runs it): the rows it ran, and those it explains.
        _, doc = invoke_json("run", str(root), "--reuse", "--explain-reuse", env=cli_env())
        ran_by_run = {RowKey(r["scope"], r["set"], r["row_id"]) for r in doc["results"]}
        explained = {RowKey(r["scope"], r["set"], r["row_id"]) for r in doc["reuse"]["rows"]}
        assert ran_by_run == explained == RUN
        assert sorted(calls.read_text().split()) == ["A", "B"]

        asyncio.run(_engine_and_link_agree(root))
        # (the session's environment is this process's, not the CLI's: its world differs, so it ran both again)
        assert sorted(calls.read_text().split()) == ["A", "A", "B", "B"]
        assert json.loads((root / ".workbench" / "reuse.json").read_text())["rows"].keys() == {
            "\x1f".join(key) for key in RUN}


async def _engine_and_link_agree(root: Path) -> None:
    """The engine, through a session with its link server: the rows its iteration plans; then the session link
    asked with nothing changed: the iteration it has is the answer, and nothing runs."""
    started: list[IterationStarted] = []

    def seen(event: Event) -> None:
        if isinstance(event, IterationStarted):
            started.append(event)

    async with linked_session(root) as (session, _server, asked):
        session.listeners.append(seen)
        first = await session.request(Trigger(TriggerKind.START))
        assert first is not None
        assert set(started[0].rows) == RUN
        # The session link: nothing changed, so the iteration it has is the answer and nothing runs.
        linked = await ask_live_session(root)
    assert linked is not None
    assert (linked.number, linked.how, linked.rows) == (first.number, "recorded", 2)
    assert len(started) == 1, "the session ran an iteration where the last one was the answer"
    assert asked[0].line() == f"iteration {first.number} · asked by agent (its results still hold: nothing ran again)"
