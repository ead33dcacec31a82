"""`workbench-replay-expect`: the `expect` of a scripted case (seed 001). Boolean.

The output is the replay's `{"status", "output", "detail"?, "failure"?}`. A case whose replay hit a
wiring mistake (`failure`: unknown tool, arguments that break the schema, no result, a misplaced
approval) fails whatever it expects. Otherwise `expect.status` must equal the run's status and
`expect.outputContains` must be in its final output (searched as text; case matters); an absent
expectation isn't checked. The run's own detail (`Approval for issue_refund was denied.`) is kept on
the result, passing or not.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...model import EvaluatorDef
from ...scoring.base import CriterionError, Score, ScoreInput, Scorer
from ...scoring.common import as_text, boolean, show

EXPECT_TYPE = "workbench-replay-expect"


def _run(output: Any) -> dict[str, Any]:
    if not isinstance(output, dict) or not isinstance(output.get("status"), str):
        raise CriterionError(f"expect scores scripted replays; this output is not one: {show(output)}")
    return output


class ReplayExpect(Scorer):
    type_id: ClassVar[str] = EXPECT_TYPE
    compares: ClassVar[str] = "the replayed run (its status, steps and output) against the case's expect block"

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        return None

    def score(self, data: ScoreInput) -> Score:
        run = _run(data.output)
        expect = data.criterion
        if run.get("failure"):
            return Score.failed(f"the case failed: {run['failure']}", expect)
        lines: list[str] = []
        ok = True
        status = run["status"]
        wanted = expect.get("status")
        if wanted is not None:
            held = status == wanted
            ok &= held
            lines.append(f"status {status}, as expected" if held else f"status {status}, expected {wanted}")
        needle = expect.get("outputContains")
        if needle is not None:
            final = run.get("output")
            haystack = "" if final is None else as_text(final)
            found = needle in haystack
            ok &= found
            shown = show(final, 200) if final is not None else "there is no output"
            lines.append(f"the output contains {show(needle)}" if found else
                         f"the output does not contain {show(needle)}: {shown}")
        if not lines:
            lines.append(f"status {status} (nothing expected)")
        if run.get("detail"):
            lines.append(str(run["detail"]))
        return boolean(ok, "\n".join(lines), expect)


__all__ = ["EXPECT_TYPE", "ReplayExpect"]
