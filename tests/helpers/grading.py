"""The two-row grading project whose verdicts follow `grade.py`: a fix in the project's code flips a row,
for the tests that compare an iteration with the one before (the history tab's `d`, the compare dialog)."""

from __future__ import annotations

from pathlib import Path

from helpers.project import evaluator, make_project, row
from workbench.config import Config, load_config
from workbench.runners.base import LogSink, Runner, RunOutcome, RunRequest


class GradeRunner(Runner):
    """A target whose answer depends on `grade.py` in the project: fixed once it says `>=`."""

    async def run(self, request: RunRequest, on_log: LogSink | None = None) -> RunOutcome:
        code = (self.config.root / "grade.py").read_text()
        score = request.inputs["score"]
        passed = score >= 60 if ">=" in code else score > 60
        return RunOutcome(output={"grade": "PASS" if passed else "FAIL"}, duration_ms=1.0)


def graded_project(tmp_path: Path) -> Config:
    """`grading/`: '85 passes' passes, '60 passes' fails until grade.py says `>=`."""
    root = tmp_path / "grading"
    rows = [row("85 passes", {"score": 85}, {"grade": "PASS"}), row("60 passes", {"score": 60}, {"grade": "PASS"})]
    make_project(root, sets={"grading": rows}, evaluators={"exact-match-evaluator": evaluator("grade")},
                 config={"kind": "command", "command": ["true"]},
                 files={"grade.py": "def grade(score):\n    return score > 60\n"})
    return load_config(root)
