"""Issue 12, point 16: settings that used to slip through validation are refused with the key named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.config import ConfigError, Overrides, load_config, reload_config, sections
from workbench.settings.fields import fields_of


def _load(root: Path, text: str, name: str = "workbench.toml") -> None:
    (root / name).write_text(text, encoding="utf-8")
    load_config(root)


@pytest.mark.parametrize(("text", "named"), [
    ("[runner]\nmax_output_mb = inf", "max_output_mb must be a finite number, not inf"),
    ("[runner]\nmax_output_mb = nan", "max_output_mb must be a finite number, not nan"),
    ("[runner]\ntimeout = nan", "timeout must be a finite number, not nan"),
    ("[runner]\ntimeout = -inf", "timeout must be a finite number"),
    ("[judge]\ntimeout = inf", "timeout must be a finite number"),
    ("[baseline]\nmin_pass_rate = nan", "min_pass_rate must be a finite number"),
    ("[evals]\njudge_pass_threshold = nan", "judge_pass_threshold must be a finite number"),
    ("[cluster]\ncpus_per_row = inf", "cpus_per_row must be a finite number"),
    ("[runner]\ntimeout = 1e12", "[runner] timeout must be more than 0 and at most 86400"),
    ("[judge]\ntimeout = 1e9", "[judge] timeout must be more than 0 and at most 86400"),
    ("[runner]\nconcurrency = 9223372036854775807", "[runner] concurrency must be between 1 and 1024"),
    ("[runner]\nmax_output_mb = 1e9", "[runner] max_output_mb must be more than 0 and at most"),
    ("[watch]\ndebounce_ms = 30000", "[watch] debounce_ms must be between 0 and 10000"),
    ("[watch]\ndebounce_ms = 9223372036854775807", "[watch] debounce_ms must be between 0 and 10000"),
    ("[watch]\nstall_after = 9223372036854775807", "[watch] stall_after must be between 1 and"),
    ("[history]\nretention = 9223372036854775807", "[history] retention must be between 1 and"),
    ("[baseline]\nmax_slowdown = -1", "[baseline] max_slowdown must be between 0 and 1000"),
    ('[watch]\npaths = ["a\\u0000b"]', "paths[0] contains a NUL character"),
    ("[watch]\npaths = []", "[watch] paths is empty, so nothing would be watched"),
    ('[runner]\ncommand = ["prog", "a\\u0000b"]', "command[1] contains a NUL character"),
    ('[runner]\nenv = { A = "x\\u0000y" }', "env.A contains a NUL character"),
    # a wrong value in a table or a list is named with its key or index, and said by the value's own type
    ('[runner]\ncommand = ["prog", 5]', "[runner] command[1] must be a string, not 5"),
    ('[runner]\nenv = { A = 5 }', "[runner] env.A must be a string, not 5"),
])
def test_a_setting_out_of_range_or_not_finite_is_refused_naming_the_key(tmp_path, text, named):
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    assert named in str(caught.value)
    assert "workbench.toml" in str(caught.value)


@pytest.mark.parametrize(("text", "named"), [
    ('tool = "x"\n', "pyproject.toml: tool must be a table"),
    ("[tool]\nworkbench = 5\n", "pyproject.toml: [tool.workbench] must be a table of settings, not 5"),
    ('[tool]\nworkbench = "x"\n', "[tool.workbench] must be a table of settings"),
])
def test_a_wrong_type_for_the_tool_tables_of_pyproject_is_named(tmp_path, text, named):
    with pytest.raises(ConfigError, match=None) as caught:
        _load(tmp_path, text, "pyproject.toml")
    assert named in str(caught.value)


def _numeric_settings():
    """Every number of every section, the formats' own included (found as config.py finds them)."""
    for section, cls in sections().items():
        for setting in fields_of(section, cls):
            if setting.base is float:
                yield from ((section, setting.key, value) for value in ("inf", "-inf", "nan", "1e300"))
            elif setting.base is int:
                yield from ((section, setting.key, value) for value in (str(2**63 - 1), str(-(2**63))))


@pytest.mark.parametrize(("section", "key", "value"), list(_numeric_settings()))
def test_every_numeric_setting_refuses_values_out_of_any_sane_range(tmp_path, section, key, value):
    """Every number in every section, including ones added later: non-finite or absurd values are refused."""
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, f"[{section}]\n{key} = {value}\n")
    assert key in str(caught.value)


def test_a_pyproject_without_workbench_settings_still_means_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n')
    assert load_config(tmp_path).source is None


def test_a_byte_order_mark_in_workbench_toml_is_read(tmp_path):
    (tmp_path / "workbench.toml").write_bytes(b"\xef\xbb\xbf[runner]\ntimeout = 7\n")
    assert load_config(tmp_path).runner.timeout == 7


def test_a_workbench_toml_that_is_not_utf8_says_so(tmp_path):
    (tmp_path / "workbench.toml").write_bytes(b"[runner]\n# caf\xe9\n")
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 0xe9"):
        load_config(tmp_path)


def test_a_workbench_toml_that_is_a_fifo_or_a_device_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "workbench.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="named pipe"):
        load_config(tmp_path)
    fifo.unlink()
    fifo.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="a device, not a regular file"):
        load_config(tmp_path)


@pytest.mark.parametrize(("overrides", "named"), [
    (Overrides(timeout=float("nan")), "--timeout must be more than 0"),
    (Overrides(timeout=float("inf")), "--timeout must be more than 0"),
    (Overrides(concurrency=10**6), "--concurrency must be between 1 and 1024"),
])
def test_command_line_overrides_are_checked_like_the_file(tmp_path, overrides, named):
    (tmp_path / "workbench.toml").write_text('[runner]\ncommand = ["prog"]\n')
    config = load_config(tmp_path)
    config.overrides = overrides
    with pytest.raises(ConfigError) as caught:
        reload_config(config)
    assert named in str(caught.value)


@pytest.mark.parametrize("args", [["--timeout", "nan"], ["--timeout", "inf"], ["--timeout", "1e9"],
                                  ["--min-pass-rate", "nan"], ["--max-slowdown", "inf"],
                                  ["--max-token-increase", "nan"]])
def test_numeric_flags_refuse_non_finite_values(tmp_path, args):
    from helpers.cli import cli_env, invoke_workbench

    proc = invoke_workbench("run", str(tmp_path), *args, env=cli_env())
    assert proc.returncode == 2 and f"Invalid value for '{args[0]}'" in proc.stderr, proc.stderr
