"""`workbench init --format appilots`: one example scenario to edit, never over an existing file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...scaffold import create_json
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


def init_scenarios(root: Path) -> tuple[list[str], list[str], list[str]]:
    """(created, kept because they exist, skipped) relative paths, like `scaffold.init_project`."""
    path = root / APPILOTS_DIR / "scenarios" / EXAMPLE
    relative = path.relative_to(root).as_posix()
    return ([relative], [], []) if create_json(path, example_scenario()) else ([], [relative], [])


NEXT_STEPS = ("Next: edit .appilots/scenarios/example.json to match a real screen, and say in workbench.toml how "
              "to run your agent ([runner]): it gets {\"name\", \"given\", \"when\", \"model\"} as JSON and answers "
              "{\"actions\": [...], \"reply\": \"...\"}. Then `workbench run --update-baseline`.")

__all__ = ["EXAMPLE", "NEXT_STEPS", "example_scenario", "init_scenarios"]
