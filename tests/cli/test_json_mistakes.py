"""Issue 38 (7): a JSON mistake in an eval file is said with a hint a new user can act on."""

from helpers.cli import invoke_workbench
from helpers.project import COMMAND_CONFIG, make_project, row


def test_a_trailing_comma_is_named(tmp_path):
    root = make_project(tmp_path, config=COMMAND_CONFIG, sets={"evaluation-set": [row("a", {"output": {"x": 1}},
                                                                                        {"x": 1})]})
    broken = next((root / "evals").rglob("eval-sets/*.json"))
    text = broken.read_text()
    end = text.rindex("]")
    broken.write_text(text[:text.rindex("}", 0, end) + 1] + "," + text[text.rindex("}", 0, end) + 1:])
    result = invoke_workbench("check", str(root))
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout + result.stderr
    assert "is not valid JSON at line" in out
    assert "a trailing comma before `]` (JSON allows none; remove the comma after the last item)" in out
