"""Issue 20, case 4 for conversations: what the target read over a conversation's turns is the row's reads,
so a file outside the project it read changing reruns the conversation instead of re-scoring its old
transcript (the player used to drop every turn's reads)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.conversations import eval_doc, turn, write_evals
from helpers.rescoring import run_reuse

BOT = '''\
import json, sys

def answer(request):
    with open(request["state"]["conversation"].get("path") or PATH) as handle:
        return {"reply": handle.read().strip()}
'''

WORKER = '''\
import json, sys
from bot import answer

for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"id": message["id"], "output": answer(message["inputs"])}), flush=True)
'''


@pytest.mark.parametrize("kind", ["python", "worker", "command"])
def test_run_reuse_reruns_a_conversation_whose_target_read_a_changed_file(tmp_path: Path, kind: str) -> None:
    data = tmp_path / "outside" / "reply.txt"
    data.parent.mkdir()
    data.write_text("on\n")
    root = tmp_path / "project"
    write_evals(root, {"chat": eval_doc("chat", [turn("hi", response=[{"contains": "on"}]), turn("again")])})
    (root / "bot.py").write_text(BOT.replace("PATH", json.dumps(str(data))))
    (root / "worker.py").write_text(WORKER)
    (root / "command.py").write_text("import json, sys\nfrom bot import answer\n"
                                     "print(json.dumps(answer(json.load(sys.stdin))))\n")
    runner = {"python": 'kind = "python"\ncallable = "bot:answer"\n',
              "worker": 'kind = "worker"\ncommand = ["{python}", "worker.py"]\n',
              "command": 'kind = "command"\ncommand = ["{python}", "command.py"]\n'}[kind]
    (root / "workbench.toml").write_text(f"[runner]\n{runner}timeout = 30\n")
    assert run_reuse(root)[0] == [("PASS", False)]
    assert run_reuse(root)[0] == [("PASS", True)]  # nothing changed: re-scored
    data.write_text("off\n")  # the target now replies "off": a fresh run FAILs
    verdicts, why = run_reuse(root)
    assert verdicts == [("FAIL", False)]
    assert "a file it read changed" in why["chat"] and "reply.txt" in why["chat"]
