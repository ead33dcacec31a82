"""Where a UiPath coded agent project keeps its evals (the `uipath` SDK's layout): `uipath.json` at the root
names the entry points, `evaluations/eval-sets/*.json` hold the rows and `evaluations/evaluators/*.json` the
evaluators they refer to by id."""

from .names import DEFAULT_ENTRY, EVALUATIONS_DIR, PROJECT_FILE, SECTION

SETS_DIR = "eval-sets"
EVALUATORS_DIR = "evaluators"
SCOPE = EVALUATIONS_DIR  # every set's and evaluator's scope: `EvaluatorKey(SCOPE, <evaluator id>)`
DIALECT = SECTION  # the format's name (`EvalSet.dialect`) is its section's
VERSION = "1.0"  # the only eval set and evaluator version the SDK reads as the current format

# The evaluator types the SDK knows (`uipath.eval.models.models.EvaluatorType`); any other is an
# "UnknownEvaluator" that `uipath eval` can't score either.
SDK_TYPES = frozenset({
    "uipath-contains", "uipath-exact-match", "uipath-json-similarity",
    "uipath-llm-judge-output-semantic-similarity", "uipath-llm-judge-output-strict-json-similarity",
    "uipath-llm-judge-trajectory-similarity", "uipath-llm-judge-trajectory-simulation",
    "uipath-llm-judge-trajectory", "uipath-llm-judge-output",
    "uipath-tool-call-args", "uipath-tool-call-count", "uipath-tool-call-order", "uipath-tool-call-output",
    "uipath-binary-classification", "uipath-multiclass-classification",
})


__all__ = ["DEFAULT_ENTRY", "DIALECT", "EVALUATIONS_DIR", "EVALUATORS_DIR", "PROJECT_FILE", "SCOPE", "SDK_TYPES",
           "SECTION", "SETS_DIR", "VERSION"]
