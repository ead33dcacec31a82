"""Hatch build hook: the wheel ships examples/ as workbench/_examples (what `workbench demo` copies), minus the
state and caches a run in place leaves there. `force-include` alone would take those: it ignores the build's
exclusions, and a `sources` rewrite instead breaks editable installs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SKIPPED = {".workbench", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache"}


class ExamplesHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":  # an editable install reads examples/ itself
            return
        examples = Path(self.root) / "examples"
        for path in sorted(examples.rglob("*")):
            relative = path.relative_to(examples)
            if (path.is_file() and not path.is_symlink() and path.suffix != ".pyc"
                    and not SKIPPED.intersection(relative.parts)):
                build_data["force_include"][str(path)] = f"workbench/_examples/{relative.as_posix()}"
