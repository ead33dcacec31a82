"""`workbench init --format appilots`: one example scenario to edit, never over an existing file; in a folder
that doesn't yet say how to run its agent, also a starter agent.py and the workbench.toml that runs it, so
`workbench run` passes at once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...scaffold import SETTINGS_FILE, STARTER_TARGET, create_file, create_json, settings_source
from .settings import APPILOTS_DIR

EXAMPLE = "example.json"


def example_scenario() -> dict[str, Any]:
    """A signup screen and one spoken sentence: the agent should fill both visible fields."""
    return {
        "name": "fills-the-create-account-form",
        "description": "From one sentence, the agent fills the two visible fields of the create-account form.",
        "given": {
            "screen": "CreateAccountScreen",
            "observation": {
                "route": "CreateAccountScreen",
                "texts": ["Open your free account"],
                "inputs": [
                    {"id": "fullName", "label": "Your name", "required": True},
                    {"id": "email", "label": "E-mail address", "required": True},
                ],
                "buttons": [{"id": "btn-create-account", "label": "Create account"}],
            },
        },
        "when": "Sign me up: I'm Maria Silva and my address is maria.silva@example.net",
        "expect": {
            "mode": "any",
            "actions": [{"type": "form_fill", "payload": {"fields": [
                {"fieldId": "fullName"},
                {"fieldId": "email", "value": "maria.silva@example.net"},
            ]}}],
            "forbidActionTypes": ["submit_form"],
        },
    }


STARTER_AGENT_TEXT = '''"""A starter agent for workbench: make `respond` call your UI agent.

workbench calls `respond(request)` once per scenario (workbench.toml, [runner]) with {"name", "given":
{"screen", "observation"}, "when", "model"?} and reads {"actions": [{"type", "payload"}], "reply": "..."}
back (add "usage": {"tokens": N} and the scenario gate watches the cost). What is printed on stderr is the
scenario's log.
"""

import re
import sys

EMAIL = re.compile(r"[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+")
NAME = re.compile(r"(?:my name is|I'm|I am)\\s+([A-Z][\\w'-]*(?:\\s+[A-Z][\\w'-]*)*)")


def respond(request):
    when = request.get("when") or ""
    inputs = ((request.get("given") or {}).get("observation") or {}).get("inputs") or []
    print(f"{request.get('name')}: {when!r}", file=sys.stderr)  # shows in the scenario's log
    email, name = EMAIL.search(when), NAME.search(when)
    fields = []
    for field in inputs:
        field_id = str(field.get("id", ""))
        if "mail" in field_id.lower() and email:
            fields.append({"fieldId": field_id, "value": email.group(0)})
        elif "name" in field_id.lower() and name:
            fields.append({"fieldId": field_id, "value": name.group(1)})
    if not fields:
        return {"actions": [], "reply": "Sorry, I can't help with that on this screen."}
    return {"actions": [{"type": "form_fill", "payload": {"fields": fields}}], "reply": "I filled in your details."}
'''
STARTER_SETTINGS_TEXT = f'''# How workbench asks the agent (docs/scenarios.md): {STARTER_TARGET}'s respond(), once per
# scenario, in a worker process that lives for the whole iteration.
[runner]
kind = "python"
callable = "agent:respond"
timeout = 30
'''


def _has_target(root: Path) -> bool:
    """Whether the project already says how to run its agent (or has scenarios to go with one)."""
    folder = root / APPILOTS_DIR / "scenarios"
    return settings_source(root) is not None or os.path.lexists(root / STARTER_TARGET) or (
        folder.is_dir() and any(folder.glob("*.json")))


def init_scenarios(root: Path) -> tuple[list[str], list[str], list[str]]:
    """(created, kept because they exist, skipped) relative paths, like `scaffold.init_project`; in a folder
    with no target and no scenarios yet, also the starter agent.py and the workbench.toml that runs it."""
    starter = not _has_target(root)
    path = root / APPILOTS_DIR / "scenarios" / EXAMPLE
    relative = path.relative_to(root).as_posix()
    created: list[str] = []
    kept: list[str] = []
    (created if create_json(path, example_scenario()) else kept).append(relative)
    if starter:
        for name, text in ((STARTER_TARGET, STARTER_AGENT_TEXT), (SETTINGS_FILE, STARTER_SETTINGS_TEXT)):
            (created if create_file(root, name, text.encode("utf-8")) else kept).append(name)
    return created, kept, []


def next_steps(created: list[str]) -> str:
    if STARTER_TARGET in created:
        return (f"Next: `workbench run` plays {APPILOTS_DIR}/scenarios/{EXAMPLE} against {STARTER_TARGET} (it "
                f"passes), or `workbench` opens the TUI. Then make {STARTER_TARGET}'s respond() call your agent, "
                "add scenarios, and `workbench run --update-baseline` records the scenario baseline.")
    return NEXT_STEPS


NEXT_STEPS = ("Next: edit .appilots/scenarios/example.json to match a real screen, and say in workbench.toml how "
              "to run your agent ([runner]): it gets {\"name\", \"given\", \"when\", \"model\"} as JSON and answers "
              "{\"actions\": [...], \"reply\": \"...\"}. Then `workbench run --update-baseline`.")

__all__ = ["EXAMPLE", "NEXT_STEPS", "example_scenario", "init_scenarios", "next_steps"]
