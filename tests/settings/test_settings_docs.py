"""Issue 21: the JSON Schema of workbench.toml and the settings table (docs/settings.md since issue 34 moved
the reference out of the README) are generated from the settings' declarations, are current, and the schema
checks real files as workbench does."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest
from helpers.paths import EXAMPLES, PACKAGE, REPO

from workbench.config import ConfigError, load_config, sections
from workbench.settings.docs import SCHEMA_FILE, TABLE_END, TABLE_START, json_schema, schema_text, with_table
from workbench.settings.fields import fields_of

REGENERATE = "stale: run python scripts/gen_settings_docs.py"


def test_the_committed_schema_is_what_the_declarations_generate():
    assert SCHEMA_FILE == PACKAGE / "settings.schema.json"  # inside the package: it ships in the wheel
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), f"{SCHEMA_FILE.name} is {REGENERATE}"


SETTINGS_PAGE = REPO / "docs" / "settings.md"


def test_the_settings_page_table_is_what_the_declarations_generate():
    page = SETTINGS_PAGE.read_text(encoding="utf-8")
    assert TABLE_START in page and TABLE_END in page
    assert page == with_table(page), f"docs/settings.md's settings table is {REGENERATE}"


def test_the_settings_page_table_lists_every_declared_setting():
    page = SETTINGS_PAGE.read_text(encoding="utf-8")
    table = page[page.index(TABLE_START):page.index(TABLE_END)]
    missing = [f"[{name}] {f.key}" for name, cls in sections().items() for f in fields_of(name, cls)
               if f"| `[{name}]` | `{f.key}` |" not in table]
    assert not missing, missing
    assert "| `[runner]` | `timeout` | number | `60` | more than 0 and at most 86400 seconds (a day) | `--timeout` |" \
        in table


def test_every_setting_is_declared_with_a_one_line_description_and_numbers_with_both_bounds():
    for name, cls in sections().items():
        assert (cls.__doc__ or "").strip(), f"[{name}] ({cls.__qualname__}) has no docstring"
        for facts in fields_of(name, cls):
            assert facts.description and "\n" not in facts.description, f"{facts.where}: one-line description"
            if facts.base in (int, float):
                low, high = facts.limits()
                assert low is not None and high is not None, f"{facts.where}: a number needs both bounds"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*/workbench.toml")), ids=lambda p: p.parent.name)
def test_the_schema_accepts_every_examples_workbench_toml(path):
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(json_schema()).validate(doc)
    load_config(path.parent)  # and workbench agrees


def test_the_schema_is_a_valid_json_schema_and_names_every_section():
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert list(schema["properties"]) == list(sections())
    assert schema["properties"]["runner"]["properties"]["timeout"] == {
        "description": "Per-row time limit; the row's process group is killed after it",
        "exclusiveMinimum": 0, "maximum": 86400, "type": "number", "default": 60.0}
    assert "null" not in SCHEMA_FILE.read_text(encoding="utf-8")  # TOML has none: unset is a missing key


@pytest.mark.parametrize("text", [
    "[runer]\n",
    "[runner]\nconcurency = 3\n",
    "[runner]\ntimeout = 1e12\n",
    "[runner]\ntimeout = \"5\"\n",
    "[runner]\nkind = \"shell\"\n",
    "[runner]\ncommand = []\n",
    "[watch]\ndebounce_ms = 30000\n",
    "[watch]\npaths = []\n",
    "[baseline]\npath = \"\"\n",
    "[scenarios]\nmax_token_regression = 500\n",
    "[evals]\njudge_pass_threshold = 6\n",
    "[cluster]\nengine = \"spark\"\n",
])
def test_what_workbench_refuses_the_schema_refuses_too(tmp_path: Path, text: str):
    """An editor checking against the schema flags what `load_config` would refuse (the bounds, the types,
    the keys), so a typo shows while typing."""
    (tmp_path / "workbench.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(tmp_path)
    errors = list(jsonschema.Draft202012Validator(json_schema()).iter_errors(tomllib.loads(text)))
    assert errors, f"the schema accepts {text!r}"


def test_a_pyproject_tool_workbench_table_is_checked_by_the_same_schema(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.workbench.runner]\ncommand = "python3 agent.py"\ntimeout = 5\n')
    table = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["workbench"]
    jsonschema.Draft202012Validator(json_schema()).validate(table)
    assert load_config(tmp_path).runner.command == ["python3", "agent.py"]
