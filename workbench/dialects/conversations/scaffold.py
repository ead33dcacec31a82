"""`workbench init --format botpress`: one example conversation eval to edit, never over an existing file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...scaffold import SETTINGS_FILE, create_file, create_json, settings_source
from ..base import EVALS_DIR
from .layout import eval_files

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


STARTER_BOT = "bot.py"
STARTER_BOT_TEXT = '''"""A starter bot for workbench: make `reply` call your bot.

workbench calls `reply(request)` once per turn (workbench.toml, [runner]) with {"eval", "turn", "user" or
"event" (or "setup"), "state", "history"} and reads {"reply", "tools", "state", "workflows"} back: a null
reply is silence, and each scope in "state" replaces that scope for the next turn. What is printed on
stderr is the turn's log.
"""

import sys


def reply(request):
    text = request.get("user") or ""
    print(f"turn {request.get('turn')}: {text!r}", file=sys.stderr)  # shows in the row's log
    if "ignore" in text.lower():
        return {"reply": None}
    return {"reply": "Hello! How can I help you today?"}
'''
STARTER_BOT_SETTINGS = f'''# How workbench runs the bot (docs/conversations.md): {STARTER_BOT}'s reply(), once per turn,
# in a worker process that lives for the whole iteration.
[runner]
kind = "python"
callable = "bot:reply"
timeout = 30
'''


def _has_target(root: Path) -> bool:
    """Whether the project already says how to run something (or has eval files to go with one)."""
    return settings_source(root) is not None or next(eval_files(root / EVALS_DIR), None) is not None


def init_conversations(root: Path) -> tuple[list[str], list[str], list[str]]:
    """(created, kept because they exist, skipped) relative paths, like `scaffold.init_project`; in a folder
    with no target and no evals yet, also a starter bot.py and the workbench.toml that runs it, so
    `workbench run` passes at once."""
    starter = not _has_target(root)
    path = root / EVALS_DIR / EXAMPLE
    relative = path.relative_to(root).as_posix()
    created: list[str] = []
    kept: list[str] = []
    (created if create_json(path, example_eval()) else kept).append(relative)
    if starter:
        for name, text in ((STARTER_BOT, STARTER_BOT_TEXT), (SETTINGS_FILE, STARTER_BOT_SETTINGS)):
            (created if create_file(root, name, text.encode("utf-8")) else kept).append(name)
    return created, kept, []


def next_steps(created: list[str]) -> str:
    if STARTER_BOT in created:
        return (f"Next: `workbench run` plays {EVALS_DIR}/{EXAMPLE} against {STARTER_BOT} (it passes), or `workbench` "
                f"opens the TUI. Then make {STARTER_BOT}'s reply() call your bot and add evals.")
    return NEXT_STEPS


NEXT_STEPS = ("Next: say in workbench.toml how to run your bot ([runner]). It is asked once per turn with "
              "{\"eval\", \"turn\", \"user\" or \"event\", \"state\", \"history\"} and answers {\"reply\": ..., "
              "\"tools\": [...], \"state\": {...}, \"workflows\": [...]}. Then `workbench run`.")
