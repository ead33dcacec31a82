"""The judge cache never makes two samples share one answer unless their prompts are identical: its key is
the judge, the model and the whole prompt (`JudgeRequest.cache_key`), and a sample's output is in its prompt.
So a repeated row whose samples answer differently asks the judge once per distinct answer — and samples that
answer the very same ask one question, which is the same question."""

from __future__ import annotations

import sys
from pathlib import Path

from helpers.cli import cli_env, invoke_json
from helpers.project import make_project, row

SEMANTIC = "uipath-llm-judge-output-semantic-similarity"

JUDGE = """\
import json, os, sys
prompt = sys.stdin.read()
with open(os.environ["JUDGE_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(prompt) + "\\n")
print('{"score": 90, "justification": "fine"}')
"""

TARGET = """\
import json, os, sys
inputs = json.load(sys.stdin)
sample = os.environ["WORKBENCH_SAMPLE"]
print(json.dumps({"reply": f"hello {sample}" if inputs["vary"] else "hello"}))
"""


def judged_project(tmp_path: Path, vary: bool) -> Path:
    (tmp_path / "judge.py").write_text(JUDGE)
    return make_project(
        tmp_path / "proj",
        sets={"replies": {"version": "1.0", "id": "s", "name": "s", "evaluatorRefs": ["similar"],
                          "evaluations": [row("hi", {"vary": vary}, {"reply": "Hi"}, ref="similar")]}},
        evaluators={"similar": {"id": "similar", "evaluatorTypeId": SEMANTIC,
                                "evaluatorConfig": {"targetOutputKey": "reply", "passThreshold": 0.5}}},
        config={"runner": {"kind": "command", "command": ["{python}", "target.py"], "timeout": 20, "repeat": 3},
                "judge": {"command": [sys.executable, str(tmp_path / "judge.py")], "timeout": 20}},
        files={"target.py": TARGET})


def test_samples_with_different_outputs_each_get_their_own_answer(tmp_path: Path) -> None:
    root = judged_project(tmp_path, vary=True)
    log = tmp_path / "judge.log"
    proc, doc = invoke_json("run", str(root), env=cli_env(JUDGE_LOG=str(log)))
    assert proc.returncode == 0, proc.stdout
    prompts = log.read_text().splitlines()
    assert len(prompts) == 3 and len(set(prompts)) == 3  # one question per sample: each holds its own output
    assert all(any(f"hello {i}" in p for p in prompts) for i in range(3))
    assert doc["results"][0]["passed_samples"] == 3


def test_samples_with_the_same_output_share_the_one_identical_question(tmp_path: Path) -> None:
    root = judged_project(tmp_path, vary=False)
    log = tmp_path / "judge.log"
    proc, doc = invoke_json("run", str(root), env=cli_env(JUDGE_LOG=str(log)))
    assert proc.returncode == 0, proc.stdout
    assert len(log.read_text().splitlines()) == 1
    assert doc["results"][0]["sample_count"] == 3
