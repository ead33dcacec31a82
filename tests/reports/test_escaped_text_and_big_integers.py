"""Issue 12, point 17: bidi controls and zero-width characters in names are shown escaped (in the text
report and the TUI), and integers of more than 4,300 digits are read, compared and written exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.project import COMMAND_CONFIG, EXACT, make_project, row
from helpers.tui import FakeTarget, app_for, screen_text, settle, shown_rows, wait_idle

from workbench import jsonio
from workbench.config import load_config
from workbench.textsafe import one_line, printable

RLO_NAME = "abc\u202eLIAF"  # shows as "abcFAIL" when printed raw
ZW_NAME = "same\u200bname"
INVISIBLE = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"


def test_every_bidi_and_zero_width_character_is_made_visible():
    shown = printable(f"a{INVISIBLE}b")
    assert not set(INVISIBLE) & set(shown)
    assert shown.startswith("a\\u202a\\u202b") and shown.endswith("\\ufeffb")
    assert one_line(RLO_NAME) == "abc\\u202eLIAF"
    assert printable("déjà vu — ok ✔") == "déjà vu — ok ✔"  # ordinary text is left alone


def _names_project(root: Path) -> Path:
    rows = [row(RLO_NAME, {"output": {"a": 1}}, {"a": 2}, id="rlo"),
            row(ZW_NAME, {"output": {"a": 1}}, {"a": 1}, id="zw1"),
            row("samename", {"output": {"a": 1}}, {"a": 1}, id="zw2")]
    return make_project(root, sets={"names": rows}, config=COMMAND_CONFIG)


def test_the_text_report_shows_bidi_and_zero_width_characters_escaped(tmp_path):
    proc = invoke_workbench("run", str(_names_project(tmp_path)), env=cli_env())
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert not set(INVISIBLE) & set(proc.stdout + proc.stderr)
    assert "FAIL  names.json › abc\\u202eLIAF" in proc.stdout
    assert "same\\u200bname" in proc.stdout and "samename" in proc.stdout  # the two names look different


async def test_the_tui_shows_bidi_and_zero_width_characters_escaped(tmp_path):
    config = load_config(_names_project(tmp_path))
    app = app_for(config, FakeTarget())
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_idle(app, pilot)
        await settle(pilot)
        rows = shown_rows(app)
        assert "abc\\u202eLIAF" in rows["rlo"] and "same\\u200bname" in rows["zw1"]
        assert not set(INVISIBLE) & set(screen_text(app))


# -- integers of any size -------------------------------------------------------------------------------

BIG = "12345678901" * 500  # 5,500 digits: beyond Python's 4,300-digit conversion limit


@pytest.mark.parametrize("digits", ["1" * 4301, "-" + "9" * 9000, "7" + "0" * 20000, BIG])
def test_integers_beyond_the_conversion_limit_round_trip_exactly(digits):
    value = jsonio.loads(f'{{"n": [{digits}, 1]}}')
    assert value["n"][0] == jsonio.parse_int(digits) and value["n"][1] == 1
    assert jsonio.dumps(value) == f'{{"n":[{digits},1]}}'
    assert jsonio.loads(jsonio.dumps(value, indent=True)) == value
    assert jsonio.dumps_bytes(value) == f'{{"n":[{digits},1]}}'.encode()
    assert jsonio.int_text(value["n"][0]) == digits


def _big_project(root: Path) -> Path:
    def big_row(row_id: str, printed: str) -> str:
        stdout = '{\\"n\\": ' + printed + '}'
        return (f'{{"id": "{row_id}", "name": "{row_id}", "inputs": {{"stdout": "{stdout}"}}, '
                f'"evaluationCriterias": {{"{EXACT}": {{"expectedOutput": {{"n": {BIG}}}}}}}}}')
    document = (f'{{"version": "1.0", "id": "s", "name": "s", "evaluatorRefs": ["{EXACT}"], "evaluations": [\n'
                f'{big_row("same", BIG)},\n{big_row("one more digit", BIG + "1")}\n]}}\n')
    return make_project(root, sets={"big": document}, config=COMMAND_CONFIG)


def test_a_set_and_outputs_with_huge_integers_are_compared_exactly_and_accepted(tmp_path):
    root = _big_project(tmp_path)
    proc = invoke_workbench("run", str(root), env=cli_env())
    assert "not valid JSON" not in proc.stdout and "ERROR" not in proc.stdout, proc.stdout
    assert "PASS  big.json › same" in proc.stdout
    assert "FAIL  big.json › one more digit" in proc.stdout
    accepted = invoke_workbench("accept", str(root), "--set", "big", "--row", "one more digit", env=cli_env())
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    text = (root / "evals" / "default" / "eval-sets" / "big.json").read_text()
    assert f'"n": {BIG}1' in text
    again = invoke_workbench("run", str(root), env=cli_env())
    assert again.returncode == 0, again.stdout


async def test_a_python_target_takes_and_returns_integers_beyond_the_limit(tmp_path):
    from workbench.config import Config, RunnerConfig
    from workbench.runners import RunRequest, make_runner

    (tmp_path / "bigagent.py").write_text("def answer(inputs):\n    return {'n': inputs['n'] * 10 + 1}\n")
    config = Config(root=tmp_path, runner=RunnerConfig(kind="python", callable="bigagent:answer", timeout=60))
    runner = make_runner(config)
    value = jsonio.parse_int(BIG)
    try:
        outcome = await runner.run(RunRequest({"n": value}, "r", "r", "set.json", "default"))
    finally:
        await runner.aclose()
    assert outcome.error is None, outcome.error
    assert outcome.output == {"n": value * 10 + 1}
