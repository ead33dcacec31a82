"""The settings each format declares in its own package: `workbench/dialects/<name>/settings.py` with
`SECTIONS = {"<section>": ItsConfig}` (its sections of workbench.toml), `OPTIONS` (the
command-line options that set them) and, for a format whose projects say themselves how their rows run,
`RUNNER_DEFAULTS(root, config) -> RunnerConfig | None` (the `[runner]` a project of it gets when its
settings don't say; `config.load_config` asks each format in turn). They are found here by looking, so
nothing in the settings layer names a format; a format added as a package with a settings module is picked up as it is.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..options import CORE_OPTIONS, Option
from .base import Section
from .fields import FieldFacts, field_of
from .sections import CORE_SECTIONS, RunnerConfig

# (project root, its `config.Config` as the files say) -> the [runner] to use, or None (the config layer
# imports this module, so the type is not named here)
RunnerDefaults = Callable[[Path, Any], RunnerConfig | None]

DIALECTS_PACKAGE = "workbench.dialects"


@dataclass(frozen=True)
class DeclaredSettings:
    """Every section and option: the core's first, then each format's (by package name)."""

    sections: dict[str, type[Section]]
    options: tuple[Option, ...]
    runner_defaults: tuple[RunnerDefaults, ...] = ()

    def section_class(self, name: str) -> type[Section]:
        return self.sections[name]

    def name_of(self, cls: type[Section]) -> str:
        for name, declared in self.sections.items():
            if declared is cls:
                return name
        raise LookupError(f"{cls.__qualname__} is not a declared settings section: list it in its package's "
                          "settings.py SECTIONS")

    def setting(self, path: str) -> FieldFacts:
        """The declaration of "section.key"."""
        section, _, key = path.partition(".")
        return field_of(section, self.sections[section], key)

    def options_setting(self, path: str) -> list[Option]:
        return [option for option in self.options if path in option.sets]


def dialect_settings_modules() -> list[str]:
    """`workbench.dialects.<package>.settings` for every format package that has one."""
    locations = list(importlib.import_module(DIALECTS_PACKAGE).__path__)  # its __init__ loads no format
    found = []
    for module in sorted(pkgutil.iter_modules(locations), key=lambda m: m.name):
        name = f"{DIALECTS_PACKAGE}.{module.name}.settings"
        if module.ispkg and importlib.util.find_spec(name) is not None:
            found.append(name)
    return found


@cache
def declared() -> DeclaredSettings:
    """The core's settings and every format's, imported on first use (after config.py itself, which each
    format's package imports)."""
    sections: dict[str, type[Section]] = dict(CORE_SECTIONS)
    options: list[Option] = list(CORE_OPTIONS)
    runner_defaults: list[Any] = []
    for name in dialect_settings_modules():
        module = importlib.import_module(name)
        for section, cls in getattr(module, "SECTIONS", {}).items():
            if section in sections:
                raise RuntimeError(f"{name} declares [{section}], which {sections[section].__module__} declares too")
            sections[section] = cls
        options.extend(getattr(module, "OPTIONS", ()))
        if callable(hook := getattr(module, "RUNNER_DEFAULTS", None)):
            runner_defaults.append(hook)
    return DeclaredSettings(sections, tuple(options), tuple(runner_defaults))


__all__ = ["DeclaredSettings", "RunnerDefaults", "declared", "dialect_settings_modules"]
