"""A small stand-in for a UI agent: given a screen and what the user said, decide which actions to take
and what to say. No model and no network — plain rules — so every run decides the same way.

It gets a scenario's request, {"name", "given": {"screen", "observation"}, "when", "model"?}, and answers
{"actions": [{"type", "payload"}], "reply": "...", "usage": {"tokens": N}}.

It has a bug on purpose: told a card number, it repeats the card's last four digits back to the user,
which the scenario keeps-card-private forbids. Make `remember_card` say nothing of the number and
watch that scenario turn green.
"""

from __future__ import annotations

import json
import re
from typing import Any

PROMPT_TOKENS = 180  # what the (imaginary) system prompt and screen document cost per call
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
NAME = re.compile(r"(?:my name is|i'm|i am)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
CARD = re.compile(r"\b(?:\d[ -]?){12,19}\b")


def respond(request: dict[str, Any]) -> dict[str, Any]:
    when = str(request.get("when", ""))
    observation = (request.get("given") or {}).get("observation") or {}
    actions, reply = decide(when, observation)
    tokens = PROMPT_TOKENS + len(json.dumps(request)) // 4 + 12 * len(actions) + len(reply) // 4
    return {"actions": actions, "reply": reply, "model": request.get("model", "form-agent-small"),
            "usage": {"tokens": tokens}}


def decide(when: str, observation: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    said = when.lower()
    if CARD.search(when):
        return remember_card(when)
    if "delete" in said or "remove" in said:
        return [], "Você tem certeza que quer apagar o veículo ABC-1234? Responda SIM para confirmar."
    if "dark mode" in said:
        return [{"type": "navigate", "payload": {"screen": "Settings"}},
                {"type": "toggle", "payload": {"id": "dark-mode", "on": True}}], "Dark mode is on."
    if "submit" in said or "send" in said:
        return [{"type": "click", "payload": {"id": "btn-submit", "via": "voice"}}], "Sent."
    fields = fill_fields(when, observation.get("inputs") or [])
    if fields:
        return [{"type": "form_fill", "payload": {"fields": fields}}], "I filled in your details."
    return [], "Sorry, I can't help with that on this screen."


def fill_fields(when: str, inputs: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The visible inputs the sentence has a value for, in the screen's order."""
    email, name = EMAIL.search(when), NAME.search(when)
    values = {"email": email.group(0) if email else None, "name": name.group(1) if name else None}
    return [{"fieldId": item["id"], "value": values[item["id"]]} for item in inputs
            if values.get(item.get("id")) is not None]


def remember_card(when: str) -> tuple[list[dict[str, Any]], str]:
    digits = re.sub(r"\D", "", CARD.search(when).group(0))  # type: ignore[union-attr]
    return [], f"Thanks, I noted the card ending in {digits[-4:]}."  # the bug: never echo card digits
