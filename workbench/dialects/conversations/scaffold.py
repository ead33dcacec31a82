"""`workbench init --format botpress`: one example conversation eval to edit, never over an existing file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ... import jsonio
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
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return [], [relative], []
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(jsonio.dumps(example_eval(), indent=True) + "\n")
    return [relative], [], []


NEXT_STEPS = ("Next: say in workbench.toml how to run your bot ([runner]). It is asked once per turn with "
              "{\"eval\", \"turn\", \"user\" or \"event\", \"state\", \"history\"} and answers {\"reply\": ..., "
              "\"tools\": [...], \"state\": {...}, \"workflows\": [...]}. Then `workbench run`.")
