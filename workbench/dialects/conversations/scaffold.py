"""`workbench init --format botpress`: one example conversation eval to edit, never over an existing file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...scaffold import create_json
from ..base import EVALS_DIR

EXAMPLE = "greeting.eval.json"


def example_eval() -> dict[str, Any]:
    """Two turns: the bot greets, then stays quiet when asked to; one of each common assertion."""
    return {
        "name": "greeting",
        "description": "The bot greets the user and stays quiet when told to",
        "type": "capability",
        "tags": ["smoke"],
        "setup": {"state": {"user": {"plan": "pro"}}},
        "conversation": [
            {
                "user": "Hi there!",
                "assert": {
                    "response": [{"contains": "Hello"}, {"not_contains": "error"}],
                    "state": [{"path": "user.plan", "changed": False}],
                    "timing": [{"response_time": {"lte": 5000}}],
                },
            },
            {"user": "Please ignore this.", "expectSilence": True},
        ],
        "options": {"idleTimeout": 30000},
    }


def init_conversations(root: Path) -> tuple[list[str], list[str], list[str]]:
    """(created, kept because they exist, skipped) relative paths, like `scaffold.init_project`."""
    path = root / EVALS_DIR / EXAMPLE
    relative = path.relative_to(root).as_posix()
    return ([relative], [], []) if create_json(path, example_eval()) else ([], [relative], [])


NEXT_STEPS = ("Next: say in workbench.toml how to run your bot ([runner]). It is asked once per turn with "
              "{\"eval\", \"turn\", \"user\" or \"event\", \"state\", \"history\"} and answers {\"reply\": ..., "
              "\"tools\": [...], \"state\": {...}, \"workflows\": [...]}. Then `workbench run`.")
