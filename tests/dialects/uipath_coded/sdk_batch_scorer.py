"""Run in the SDK venv's python (not in the tests' own): score a batch of cases with UiPath's own evaluator
classes, as `uipath eval` builds and calls them, so one process answers thousands of cases.

Its argument: a file holding a JSON list of `{"evaluator": <an evaluator file's document>, "criterion": {...} |
null, "output": <the agent's output: an object or a string>, "spans": [{"name": str, "attributes": {...}}]}`.
stdout: a JSON list, one per case, of `{"score": float}` or `{"error": "..."}`: the evaluator raised (which
`uipath eval` reports as a score of 0 with the details "Exception thrown by evaluator: ..."), or the case was
refused before scoring (the evaluator document or the criterion did not validate).
"""

import asyncio
import json
import sys

from opentelemetry.sdk.trace import ReadableSpan
from uipath.eval.evaluators.evaluator_factory import EvaluatorFactory
from uipath.eval.models import ScoreType, WorkloadExecution


async def score(case):
    evaluator = EvaluatorFactory.create_evaluator(case["evaluator"])
    criterion = case["criterion"]
    if criterion:  # as the runtime does: the typed criterion, or None for the evaluator's default
        criterion = evaluator.evaluation_criteria_type(**criterion)
    spans = [ReadableSpan(name=span["name"], attributes=span["attributes"]) for span in case["spans"]]
    execution = WorkloadExecution(agent_input={}, workload_output=case["output"], workload_trace=spans)
    result = await evaluator.validate_and_evaluate_criteria(execution, criterion or None)
    if result.score_type == ScoreType.ERROR:  # the evaluator raised: uipath eval reports a 0 with this text
        return {"error": str(result.details)}
    return {"score": float(result.score)}


async def score_all(cases):
    answers = []
    for case in cases:
        try:
            answers.append(await score(case))
        except Exception as exc:  # the SDK's own refusal of this case: the answer says which
            answers.append({"error": f"refused: {type(exc).__name__}: {exc}"})
    return answers


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        cases = json.load(handle)
    json.dump(asyncio.run(score_all(cases)), sys.stdout)


if __name__ == "__main__":
    main()
