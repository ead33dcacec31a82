"""A repeated conversation is that many whole conversations: every turn of it again, per sample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.conversations import ScriptedTarget, config_for, eval_doc, play, result_of, turn, write_evals

from workbench.model import Verdict


def test_a_conversation_repeated_three_times_plays_every_turn_three_times(tmp_path: Path) -> None:
    root = write_evals(tmp_path, {"greeting": eval_doc("hi", [
        turn("Hi", response=[{"contains": "Hello"}]), turn("Bye", response=[{"contains": "Goodbye"}])])})
    seen: list[Any] = []

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        conversation, turn_index = divmod(len(seen) - 1, 2)
        if turn_index == 0:
            return {"reply": "Hello!"}
        return {"reply": "whatever" if conversation == 2 else "Goodbye!"}  # the third one fails its 2nd turn

    report = play(root, ScriptedTarget(answer), config=config_for(root, repeat=3))
    result = result_of(report, "hi")
    assert len(seen) == 6  # 3 conversations × 2 turns
    assert result.samples_text == "2/3" and result.sample_flaky and result.verdict is Verdict.FAIL
    assert [s.verdict for s in result.samples] == [Verdict.PASS, Verdict.PASS, Verdict.FAIL]
