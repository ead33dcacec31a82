"""LLM judges: `uipath-llm-judge-output-semantic-similarity` and `-strict-json-similarity`. Graded.

As in the UiPath SDK, the prompt (evaluatorConfig.prompt, or a default) has `{{ActualOutput}}` and
`{{ExpectedOutput}}` filled in with the selected output and the row's `expectedOutput`; the judge
answers a 0–100 score and the result's score is that / 100, rounded to 2 places. `model`,
`temperature` and `maxTokens` come from evaluatorConfig (a `[judge] model` wins for endpoints).
An output identical to the expectation scores 1 without asking the judge. With no `[judge]`
configured the result is an ERROR that shows how to configure one.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .. import jsonio
from ..compare import is_number, strict_equal
from ..model import EvaluatorDef
from ..output_paths import MISSING, WHOLE, select
from .base import CriterionError, Score, ScoreInput, Scorer
from .common import check_single_target, check_threshold, graded, missing_output, selected, show
from .exact_match import expected_output
from .judge_client import HOW_TO_CONFIGURE, JudgeError, JudgeRequest, ask, is_configured

ACTUAL = "{{ActualOutput}}"
EXPECTED = "{{ExpectedOutput}}"

ANSWER_FORMAT = ('Answer with one JSON object and nothing else: {"justification": "<your reasoning, '
                 'briefly>", "score": <an integer from 0 to 100>}.')

SEMANTIC_SYSTEM = f"""You grade how well an AI agent's actual output matches the expected output.
Judge meaning, not wording: synonyms, paraphrases and equivalent values are fine; missing, wrong or
contradictory information is not. 100 means the actual output says everything the expected one does,
0 means it has nothing in common with it.
{ANSWER_FORMAT}"""

SEMANTIC_PROMPT = f"""Compare these two outputs and score their semantic similarity from 0 to 100.

Expected output:
{EXPECTED}

Actual output:
{ACTUAL}"""

STRICT_JSON_SYSTEM = f"""You grade an AI agent's JSON output against the expected JSON, key by key.
Let N be the number of top-level keys in the expected output. Start from 100 and subtract:
- 100/N for each expected key that is absent from the actual output (key names must match exactly,
  including case);
- 100/N for each key whose value is wrong or means something significantly different;
- 50/N for each key whose value is close but not equivalent;
- 10/N for each key in the actual output that the expected output does not have.
Keys whose values are equivalent cost nothing. The score never goes below 0. Work through every
expected key in your justification before giving the score; identical inputs must get identical scores.
{ANSWER_FORMAT}"""

STRICT_JSON_PROMPT = f"""Expected output (the ground truth):
{EXPECTED}

Actual output (the answer to grade):
{ACTUAL}"""


def render(value: Any) -> str:
    """How a value appears in the prompt: a string as itself, anything else as indented JSON."""
    return value if isinstance(value, str) else jsonio.dumps(value, indent=True)


def check_judge_options(config: dict[str, Any]) -> str | None:
    """`prompt` (with both placeholders), `model`, `temperature` and `maxTokens` of a judge's evaluatorConfig."""
    prompt = config.get("prompt")
    if prompt is not None:
        if not isinstance(prompt, str):
            return f"evaluatorConfig.prompt must be a string, not {show(prompt)}"
        missing = [p for p in (ACTUAL, EXPECTED) if p not in prompt]
        if missing:
            return f"evaluatorConfig.prompt must contain {' and '.join(missing)} (where the values go)"
    if "model" in config and not isinstance(config["model"], str):
        return f"evaluatorConfig.model must be a string, not {show(config['model'])}"
    temperature = config.get("temperature", 0)
    if not is_number(temperature) or not 0 <= temperature <= 2:
        return f"evaluatorConfig.temperature must be a number from 0 to 2, not {show(temperature)}"
    max_tokens = config.get("maxTokens")
    if max_tokens is not None and (not isinstance(max_tokens, int) or isinstance(max_tokens, bool)
                                   or max_tokens < 1):
        return f"evaluatorConfig.maxTokens must be a positive integer, not {show(max_tokens)}"
    return None


class _LlmJudge(Scorer):
    type_id: ClassVar[str]
    system: ClassVar[str]
    default_prompt: ClassVar[str]

    def check_config(self, evaluator: EvaluatorDef) -> str | None:
        return check_single_target(evaluator) or check_threshold(evaluator) or check_judge_options(evaluator.config)

    def request(self, evaluator: EvaluatorDef, actual: Any, expected: Any) -> JudgeRequest:
        config = evaluator.config
        prompt = config.get("prompt") or self.default_prompt
        # Fill both placeholders in one pass, so text inside the output can't be mistaken for one.
        parts = prompt.split(ACTUAL)
        user = render(actual).join(part.replace(EXPECTED, render(expected)) for part in parts)
        return JudgeRequest(system=self.system, user=user, model=config.get("model") or None,
                            temperature=float(config.get("temperature", 0)), max_tokens=config.get("maxTokens"))

    async def score(self, data: ScoreInput) -> Score:
        evaluator = data.evaluator
        expected_full = expected_output(data.criterion, evaluator.ref)
        path, actual = selected(data)
        expected = expected_full
        if path != WHOLE:
            if not isinstance(expected_full, dict):
                raise CriterionError(f"targetOutputKey is {path!r}, so expectedOutput must be an object "
                                     f"holding it, not {show(expected_full)}")
            expected = select(expected_full, path)
            if expected is MISSING:
                raise CriterionError(f"expectedOutput has no {path!r}, which targetOutputKey selects")
        if actual is MISSING:
            return missing_output(path, expected_full)
        if strict_equal(actual, expected):
            return graded(1.0, data, "the output is identical to expectedOutput; the judge was not asked",
                          expected_full)
        if data.config is None or not is_configured(data.config.judge):
            return Score.error(f"{evaluator.type_id} needs an LLM judge, but {HOW_TO_CONFIGURE}", expected_full)
        try:
            reply = await ask(data.config.judge, data.config.root, self.request(evaluator, actual, expected))
        except JudgeError as exc:
            return Score.error(str(exc), expected_full)
        score = max(0.0, min(1.0, round(reply.score / 100.0, 2)))
        justification = reply.justification.strip() or "(no justification given)"
        return graded(score, data, f"judge: {reply.score:g}/100 — {justification}", expected_full)


class SemanticSimilarityJudge(_LlmJudge):
    type_id: ClassVar[str] = "uipath-llm-judge-output-semantic-similarity"
    uses_expected_output: ClassVar[bool] = True
    system: ClassVar[str] = SEMANTIC_SYSTEM
    default_prompt: ClassVar[str] = SEMANTIC_PROMPT


class StrictJsonSimilarityJudge(_LlmJudge):
    type_id: ClassVar[str] = "uipath-llm-judge-output-strict-json-similarity"
    uses_expected_output: ClassVar[bool] = True
    structural: ClassVar[bool] = True
    system: ClassVar[str] = STRICT_JSON_SYSTEM
    default_prompt: ClassVar[str] = STRICT_JSON_PROMPT
