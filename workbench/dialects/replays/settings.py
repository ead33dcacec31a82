"""The scripted replays' section of workbench.toml, `[replay]` (found by `settings/discovery.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from ...settings.base import PathText, Section

if TYPE_CHECKING:
    from ...config import Config

DEFAULT_TOOLS_FILE = "tools.json"


class ReplayConfig(Section):
    """Scripted replays (evals/*.script.json)."""

    tools: PathText = Field(default=DEFAULT_TOOLS_FILE,
                            description="The MCP-style tools file, relative to the project root")


SECTIONS = {"replay": ReplayConfig}


def tools_path(root: Path, config: Config | None) -> Path:
    """The project's tools file: `[replay] tools`, else tools.json (also what says a project has replays)."""
    return root / (config.section(ReplayConfig).tools if config is not None else DEFAULT_TOOLS_FILE)

__all__ = ["DEFAULT_TOOLS_FILE", "SECTIONS", "ReplayConfig", "tools_path"]
