"""Where the repository's own files are, so a test finds them wherever its module sits under `tests/`."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
PACKAGE = REPO / "workbench"
EXAMPLES = REPO / "examples"
FIXTURES = TESTS / "fixtures"
