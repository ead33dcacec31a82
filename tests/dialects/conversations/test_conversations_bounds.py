"""A conversation's recorded transcript is bounded, and a worker that answers a turn twice always gets
the same verdict (issue 20, case 21).

40 turns of 3 MB replies used to make a 126 MB history row and 613 MB of memory: every reply was kept
and sent back to the target in every later turn's `history`. Now the transcript keeps at most
`REPLY_KEEP_CHARS` of a reply (with a marker), a bounded rest per turn and `TRANSCRIPT_KEEP_BYTES` in
all, while each turn's assertions are still checked on the whole reply. A second reply to the same
request is an ERROR naming the breach whether it arrives with the first or later.
"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from helpers.conversations import ScriptedTarget, config_for, eval_doc, play, result_of, turn, write_evals

from workbench import jsonio
from workbench.config import Config, RunnerConfig
from workbench.dialects.conversations import ConversationsDialect
from workbench.dialects.conversations.scorer import ConversationScorer
from workbench.engine import Engine
from workbench.events import IterationReport, Trigger
from workbench.model import EvaluatorDef, Verdict
from workbench.runners.base import RunOutcome
from workbench.scoring.base import ScoreInput

TURNS = 20
REPLY_CHARS = 1_000_000
BOUND = 6 * 1024 * 1024  # TRANSCRIPT_KEEP_BYTES (4 MiB) + compact later turns + the markers


def big_reply(request: dict[str, Any]) -> dict[str, Any]:
    """A reply of REPLY_CHARS characters whose last word says which turn it answers."""
    return {"reply": "x" * REPLY_CHARS + f" END{request['turn']}", "tools": [{"name": "noop", "params": {}}],
            "state": {"conversation": {"turn": request["turn"]}}}


def long_conversation(tmp_path: Path) -> Path:
    turns = [turn(f"message {n}", response=[{"contains": f"END{n}"}, {"not_contains": "END99"}],
                  tools=[{"called": "noop"}], state=[{"path": "conversation.turn", "equals": n}])
             for n in range(1, TURNS + 1)]
    doc = eval_doc("long", turns, outcome={"state": [{"path": "conversation.turn", "equals": TURNS}]})
    return write_evals(tmp_path, {"long": doc})


def test_the_transcript_is_bounded_and_checked_on_the_whole_replies(tmp_path: Path) -> None:
    target = ScriptedTarget(big_reply)
    report = play(long_conversation(tmp_path), target)
    result = result_of(report, "long")
    # `contains END<n>` holds only on the whole reply: the kept one ends with the cut marker instead.
    assert result.verdict is Verdict.PASS, result.detail
    kept = result.actual
    assert len(jsonio.dumps(kept)) < BOUND
    assert len(jsonio.dumps(result.trace)) < BOUND and len(result.log) < BOUND
    first = kept["turns"][0]
    assert first["cut"]["reply_chars"] == REPLY_CHARS + len(" END1")
    assert first["reply"].endswith("the first 65,536 are kept]") and "END1" not in first["reply"]
    assert {entry["verdict"] for entry in first["checked"]} == {"PASS"}
    assert kept["cut"] is True and {entry["verdict"] for entry in kept["checked_outcome"]} == {"PASS"}
    # What the target is sent back as history is bounded too.
    assert len(jsonio.dumps(target.requests[-1])) < BOUND


def test_a_failing_assertion_on_the_whole_reply_still_fails(tmp_path: Path) -> None:
    doc = eval_doc("tail", [turn("hi", response=[{"not_contains": "END1"}])])
    report = play(write_evals(tmp_path, {"tail": doc}), big_reply)
    result = result_of(report, "tail")
    assert result.verdict is Verdict.FAIL, result.detail
    assert "contains \"END1\"" in result.detail


def test_a_cut_transcript_is_never_rescored_and_a_changed_assertion_is_an_error(tmp_path: Path) -> None:
    kept = result_of(play(long_conversation(tmp_path), big_reply), "long").actual
    assert ConversationsDialect().run_error(RunOutcome(output=kept)) is not None
    changed = eval_doc("long", [turn("message 1", response=[{"contains": "something else"}])])
    evaluator = EvaluatorDef(scope="evals", ref="conversation", path=tmp_path, id=None, name="conversation",
                             type_id="workbench-conversation", config={}, raw={})
    score = asyncio.run(ConversationScorer().score(ScoreInput(evaluator=evaluator, criterion=changed, output=kept)))
    assert score.verdict is Verdict.ERROR
    assert "turn 1 was cut to keep the transcript bounded" in score.detail


def test_a_judge_is_not_asked_about_a_cut_reply(tmp_path: Path) -> None:
    doc = eval_doc("judged", [turn("hi", response=[{"llm_judge": "Is it polite?"}])])
    report = play(write_evals(tmp_path, {"judged": doc}), big_reply, config=config_for(tmp_path, judge=["false"]))
    result = result_of(report, "judged")
    assert result.verdict is Verdict.ERROR
    assert "more than a transcript keeps, so it is not sent to the judge" in result.detail


# -- a worker that answers a turn twice ------------------------------------------------------------------

TOGETHER = '''
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    reply = json.dumps({"id": message["id"], "output": {"reply": "hello"}}) + "\\n"
    sys.stdout.write(reply + reply)  # both replies in one write: they arrive together
    sys.stdout.flush()
'''

LATER = '''
import json, sys
previous = None
for line in sys.stdin:
    message = json.loads(line)
    if previous is not None:  # the duplicate of the last answer, sent once the next request is read
        print(json.dumps({"id": previous, "output": {"reply": "hello"}}), flush=True)
    print(json.dumps({"id": message["id"], "output": {"reply": "hello"}}), flush=True)
    previous = message["id"]
'''


def run_worker(root: Path, source: str) -> IterationReport:
    (root / "worker.py").write_text(textwrap.dedent(source), encoding="utf-8")
    runner = RunnerConfig(kind="worker", command=[sys.executable, "worker.py"], timeout=20, concurrency=1)
    return asyncio.run(Engine(Config(root=root, runner=runner)).run_iteration(Trigger("test")))


def two_turns(tmp_path: Path) -> None:
    hello = [{"contains": "hello"}]
    write_evals(tmp_path, {"twice": eval_doc("twice", [turn("one", response=hello), turn("two", response=hello)])})


def test_two_replies_arriving_together_make_that_turn_an_error(tmp_path: Path) -> None:
    two_turns(tmp_path)
    for _ in range(3):  # the same verdict every time
        result = result_of(run_worker(tmp_path, TOGETHER), "twice")
        assert result.verdict is Verdict.ERROR, result.detail
        first = result.detail.splitlines()[0]
        assert first.startswith("turn 1: ") and "answered request 1 twice" in first, first


def test_a_duplicate_arriving_later_makes_the_next_turn_an_error_naming_it(tmp_path: Path) -> None:
    two_turns(tmp_path)
    result = result_of(run_worker(tmp_path, LATER), "twice")
    assert result.verdict is Verdict.ERROR, result.detail
    first = result.detail.splitlines()[0]
    assert first.startswith("turn 2: ") and "answered request 1 twice" in first, first
    assert json.dumps(result.actual["turns"][0]["reply"]) == '"hello"'
