"""Row inputs full of shell syntax reach every kind of target as data: byte for byte, and nothing runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.hardening import RUNNER_KINDS, faulty_project, run_iteration
from helpers.project import row

from workbench.model import Verdict

pytestmark = pytest.mark.hardening


def payload(canary: Path) -> dict:
    c = str(canary)
    text = (f"; touch {c}; $(touch {c}) `touch {c}` | touch {c} && touch {c} || touch {c} & > {c} < /dev/null "
            f"2>&1 * ? ~ $HOME ${{PATH}} !! \\ ' \" \n\t {c}* -rf --output x --input-arguments {{}}")
    return {
        "do": "echo",
        "text": text,
        "starts with a dash": "--no-auth --log-file /tmp/x",
        f"key `touch {c}`": "$(touch " + c + ")",
        "list": ["|", "&&", ";", "$(", "`", "'", '"', "\\", "\x00", "\u2028"],
        "nested": {"$(touch " + c + ")": {"`x`": "'; touch " + c + " #"}},
    }


@pytest.mark.parametrize("kind", RUNNER_KINDS)
def test_shell_syntax_in_inputs_and_names_is_only_data(tmp_path, kind):
    canary = tmp_path / "canary"
    inputs = payload(canary)
    name = f"$(touch {canary}); `touch {canary}` | & > {canary}"
    config = faulty_project(tmp_path / "project", kind, [row(name, inputs, {"echo": inputs}, id="meta")])
    report = run_iteration(config)
    [result] = report.results
    assert result.verdict is Verdict.PASS, result.detail  # the target saw exactly the inputs it was given
    assert result.actual == {"echo": inputs}
    assert not canary.exists() and not list(tmp_path.glob("canary*"))  # and nothing was run by a shell
