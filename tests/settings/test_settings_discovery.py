"""Issue 21: a format declares its own section of workbench.toml (and the flags that set it) in its package,
`dialects/<name>/settings.py`; config.py finds it without naming the format, and everything made from the
declarations — the checks, the flags, the schema, the table — picks it up."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from helpers.paths import PACKAGE

import workbench.dialects
from workbench.config import ConfigError, load_config
from workbench.settings import discovery
from workbench.settings.docs import json_schema, settings_table

# The settings layer's own code, and the CLI's machinery for flags: none of it may name a format.
GENERIC = [PACKAGE / "config.py", PACKAGE / "options.py", PACKAGE / "cli" / "flags.py",
           *sorted((PACKAGE / "settings").glob("*.py"))]

TOY_SETTINGS = '''
from pydantic import Field

from workbench.options import Option
from workbench.settings.base import Section


class ToyConfig(Section):
    """A toy format's settings."""

    level: int = Field(default=1, ge=1, le=9, description="How loud the toy is")


SECTIONS = {"toy": ToyConfig}
OPTIONS = (Option("--toy-level", ("toy.level",), "N"),)
'''


@pytest.fixture
def toy_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    """A format package `toyformat` with a settings module, in a folder of its own laid beside
    workbench/dialects/ (the way a package there is found)."""
    package = tmp_path / "formats" / "toyformat"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "settings.py").write_text(TOY_SETTINGS)
    monkeypatch.setattr(workbench.dialects, "__path__", [*workbench.dialects.__path__, str(package.parent)])
    discovery.declared.cache_clear()
    try:
        from workbench.dialects.toyformat.settings import ToyConfig  # type: ignore[import-not-found]

        yield ToyConfig
    finally:
        for name in [m for m in sys.modules if m.startswith("workbench.dialects.toyformat")]:
            del sys.modules[name]
        monkeypatch.undo()
        discovery.declared.cache_clear()


def test_the_formats_sections_are_found_in_their_packages():
    found = discovery.dialect_settings_modules()
    assert "workbench.dialects.scenarios.settings" in found and "workbench.dialects.conversations.settings" in found
    assert {"evals", "scenarios"} <= set(discovery.declared().sections)


def test_nothing_in_the_settings_layer_names_a_format():
    names: set[str] = set()
    for module_name in discovery.dialect_settings_modules():
        module = sys.modules.get(module_name) or __import__(module_name, fromlist=["SECTIONS"])
        names.add(module_name.split(".")[2])  # the package: scenarios, conversations, ...
        for section, cls in module.SECTIONS.items():
            names.update({f"[{section}]", f'"{section}"', cls.__name__})
    found = [f"{path.relative_to(PACKAGE.parent)}: {name}" for path in GENERIC for name in sorted(names)
             if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", path.read_text(encoding="utf-8"), re.IGNORECASE)]
    assert not found, "the settings layer must find formats, not name them:\n" + "\n".join(found)


def test_a_new_formats_section_is_checked_reached_documented_and_flagged(tmp_path: Path, toy_format: type):
    project = tmp_path / "project"
    project.mkdir()
    (project / "workbench.toml").write_text("[toy]\nlevel = 3\n")
    assert load_config(project).section(toy_format).level == 3
    (project / "workbench.toml").write_text("[toy]\nlevel = 12\n")
    with pytest.raises(ConfigError, match=r"\[toy\] level must be between 1 and 9, not 12"):
        load_config(project)
    (project / "workbench.toml").write_text("[toy]\nlevl = 2\n")
    with pytest.raises(ConfigError, match=r"\[toy\] unknown key 'levl'; did you mean 'level'\?"):
        load_config(project)
    assert json_schema()["properties"]["toy"]["properties"]["level"]["maximum"] == 9
    assert "| `[toy]` | `level` | integer | `1` | between 1 and 9 | `--toy-level` | How loud the toy is |" \
        in settings_table()


def test_a_new_formats_flag_is_made_from_its_setting(tmp_path: Path, toy_format: type):
    from workbench.cli.common import load_project_config, setting_options

    seen = {}

    @click.command()
    @setting_options("watch")
    def command() -> None:
        seen["level"] = load_project_config(tmp_path).section(toy_format).level

    refused = CliRunner().invoke(command, ["--toy-level", "12"])
    assert refused.exit_code == 2 and "must be between 1 and 9, not 12 (as [toy] level" in refused.output
    assert CliRunner().invoke(command, ["--toy-level", "4"], catch_exceptions=False).exit_code == 0
    assert seen == {"level": 4}
