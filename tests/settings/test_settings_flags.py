"""Issue 21: the command-line flags that set a setting are made from its declaration, so the flag, the
file and `.appilotsrc` refuse the same values with the same words (before, `--max-token-regression 500`
passed the CLI while the same value in workbench.toml was refused)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from helpers.cli import invoke_workbench

from workbench.config import ConfigError, load_config
from workbench.settings.discovery import declared
from workbench.settings.fields import FieldFacts


def _file_refusal(root: Path, facts: FieldFacts, value: str) -> str:
    """What workbench.toml says about `key = value`, after "[section] key "."""
    (root / "workbench.toml").write_text(f"[{facts.section}]\n{facts.key} = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    return str(caught.value).split(f"{facts.where} ", 1)[1]


def test_max_token_regression_500_is_refused_by_the_flag_as_by_the_file(tmp_path: Path):
    facts = declared().setting("scenarios.max_token_regression")
    in_file = _file_refusal(tmp_path, facts, "500")
    assert in_file == "must be between 0 and 100 (0.25 = +25%), not 500"
    proc = invoke_workbench("run", str(tmp_path), "--max-token-regression", "500")
    assert proc.returncode == 2
    assert f"Invalid value for '--max-token-regression': {in_file} (as [scenarios] max_token_regression" \
        in proc.stderr, proc.stderr


def _past_the_bounds() -> list[tuple[str, str, str, str]]:
    """(command, flag, "section.key", value) for each bound of each setting a flag sets: just past it."""
    cases = []
    for option in declared().options:
        for path in option.sets:
            facts = declared().setting(path)
            low, high = facts.limits()
            step = 1 if facts.base is int else 0.5
            for limit, beyond in ((low, -step), (high, step)):
                if limit is not None:
                    value = limit[1] + (beyond if limit[0] in (">=", "<=") else 0)
                    shown = str(int(value)) if facts.base is int else repr(float(value))
                    cases.append((option.commands[0], option.flag, path, shown))
    return cases


@pytest.mark.parametrize(("command", "flag", "path", "value"), _past_the_bounds())
def test_every_flag_refuses_what_its_setting_refuses_with_the_same_words(tmp_path, command, flag, path, value):
    facts = declared().setting(path)
    in_file = _file_refusal(tmp_path, facts, value)
    proc = invoke_workbench(command, str(tmp_path), flag, value)
    assert proc.returncode == 2 and f"Invalid value for '{flag}': {in_file}" in proc.stderr, proc.stderr


def test_a_flag_a_format_adds_to_a_core_flag_is_checked_against_both():
    """--min-pass-rate sets [baseline] min_pass_rate and the scenarios' own; both declarations check it."""
    flags = [option for option in declared().options if option.flag == "--min-pass-rate"]
    assert {path for option in flags for path in option.sets} == {"baseline.min_pass_rate",
                                                                  "scenarios.min_pass_rate"}


def test_the_help_of_a_flag_is_its_settings_description_and_bounds():
    proc = invoke_workbench("run", "--help")
    text = " ".join(proc.stdout.split())
    assert "--max-token-regression FRACTION A passing scenario fails past (1 + this) × its baseline tokens" in text
    assert "Overrides [scenarios] max_token_regression; between 0 and 100 (0.25 = +25%)." in text
    assert "--timeout SECONDS Per-row time limit; the row's process group is killed after it. Overrides [runner] " \
           "timeout; more than 0 and at most 86400 seconds (a day)." in text
    assert "--no-cache" in text and "Sets [judge] cache = false." in text


def test_a_flag_without_a_parameter_reaches_the_config_as_an_override_kept_across_re_reads(tmp_path: Path):
    from workbench.cli.common import load_project_config, setting_options
    from workbench.config import reload_config

    (tmp_path / "workbench.toml").write_text('[runner]\ncommand = ["prog"]\ntimeout = 5\n')
    seen = {}

    @click.command()
    @setting_options("watch")  # run's gate flags are parameters of its own
    def command() -> None:
        config = reload_config(load_project_config(tmp_path))
        seen.update(timeout=config.runner.timeout, kind=config.runner.kind, cache=config.judge.cache,
                    command=config.runner.command, cluster=(config.cluster.engine, config.cluster.address))

    result = CliRunner().invoke(command, ["--timeout", "7", "--no-cache", "--command", "agent --fast",
                                          "--cluster", " local "], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert seen == {"timeout": 7.0, "kind": "command", "cache": False, "command": ["agent", "--fast"],
                    "cluster": ("ray", "local")}


def test_appilotsrc_values_are_checked_by_the_same_declaration(tmp_path: Path):
    from workbench.dialects.scenarios.settings import read_rc

    facts = declared().setting("scenarios.max_token_regression")
    in_file = _file_refusal(tmp_path, facts, "500")
    (tmp_path / ".appilotsrc").write_text('{"eval": {"maxTokenRegression": 500, "minPassRate": 0.5}}')
    rc = read_rc(tmp_path)
    # the same words, without the value: .appilotsrc holds secrets and is never quoted
    assert rc.problems == [(f"eval.maxTokenRegression {in_file.removesuffix(', not 500')}; not used", "error")]
    assert rc.values == {"minPassRate": 0.5}
