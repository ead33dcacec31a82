"""Where UiPath evals live in a project (seed 003 §1): `evals/<SCOPE>/eval-sets/*.json` rows scored by
`evals/<SCOPE>/evaluators/*.json`, with `eval-files/` for the files rows refer to."""

SETS_DIR = "eval-sets"
EVALUATORS_DIR = "evaluators"
EVAL_FILES_DIR = "eval-files"
