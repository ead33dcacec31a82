"""`llm_judge` for conversations: the configured `[judge]` grades one reply against a criterion, 1–5.

The judge sees the conversation up to the reply (user messages, events and the bot's replies) and the
criterion; it answers `{"score": 1-5, "justification": "..."}` like any `[judge]` (a local command
on stdin, or an OpenAI-compatible endpoint; see `judge_client.py`, which also remembers answers).
"""

from __future__ import annotations

from typing import Any

from ... import jsonio
from ...compare import is_number
from ...config import Config
from ...model import Verdict
from ...scoring.judge_client import JudgeError, JudgeRequest, ask, is_configured

SYSTEM = """You grade one reply of a chatbot, in the conversation it belongs to, against a criterion.
Score from 1 to 5: 5 the reply fully meets the criterion, 4 it meets it with minor gaps, 3 it meets it
acceptably, 2 it mostly misses it, 1 it does not meet it at all or contradicts it.
Answer with one JSON object and nothing else: {"justification": "<your reasoning, briefly>", "score": <1-5>}."""


def conversation_text(turns: list[dict[str, Any]]) -> str:
    lines = []
    for turn in turns:
        if "user" in turn:
            lines.append(f"User: {turn['user']}")
        else:
            lines.append(f"(event) {jsonio.dumps(turn.get('event'))}")
        reply = turn.get("reply")
        lines.append(f"Bot: {reply}" if reply is not None else "Bot: (no reply)")
    return "\n".join(lines)


def judge_request(criterion: str, turns: list[dict[str, Any]]) -> JudgeRequest:
    last = turns[-1]
    user = (f"Criterion:\n{criterion}\n\nThe conversation so far:\n{conversation_text(turns[:-1]) or '(none)'}\n\n"
            f"The turn to grade (turn {last.get('turn')}):\n{conversation_text([last])}")
    return JudgeRequest(system=SYSTEM, user=user)


async def judge_reply(criterion: str, turns: list[dict[str, Any]], threshold: float,
                      config: Config | None) -> tuple[Verdict, str]:
    """The verdict of `criterion` on the last turn's reply, and what to say about it."""
    if turns[-1].get("reply") is None:
        return Verdict.FAIL, "the bot said nothing, so there is no reply to judge"
    if config is None or not is_configured(config.judge):
        return Verdict.ERROR, ("llm_judge needs an LLM judge, but none is configured: add a [judge] section to "
                               "workbench.toml (command = [...] reading the prompt on stdin, or url and model)")
    try:
        reply = await ask(config.judge, config.root, judge_request(criterion, turns))
    except JudgeError as exc:
        return Verdict.ERROR, f"llm_judge could not be answered: {exc}"
    score = reply.score
    if not is_number(score) or not 1 <= score <= 5:
        return Verdict.ERROR, f"the judge's score must be from 1 to 5, not {score:g}"
    passed = score >= threshold
    why = reply.justification.strip() or "(no justification given)"
    return (Verdict.PASS if passed else Verdict.FAIL,
            f"judge scored {score:g}/5 {'≥' if passed else '<'} {threshold:g} for {criterion!r} — {why}")
