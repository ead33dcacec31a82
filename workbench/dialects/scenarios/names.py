"""Where scenarios live (seed 000): `.appilots/scenarios/*.json` beside `.appilotsrc`, and the names and
defaults the format's modules share."""

DIALECT = "appilots"  # the format's name (`EvalSet.dialect`), also its key in `Project.extras`
APPILOTS_DIR = ".appilots"
RC_FILE = ".appilotsrc"
DEFAULT_MIN_PASS_RATE = 0.95
SCOPE = "scenarios"  # the one set's scope
EXPECT_REF = "expect"  # the synthetic evaluator every scenario is scored by

__all__ = ["APPILOTS_DIR", "DEFAULT_MIN_PASS_RATE", "DIALECT", "EXPECT_REF", "RC_FILE", "SCOPE"]
