"""The scripted replays' section of workbench.toml, `[replay]` (found by `settings/discovery.py`)."""

from __future__ import annotations

from pydantic import Field

from ...settings.base import PathText, Section


class ReplayConfig(Section):
    """Scripted replays (evals/*.script.json)."""

    tools: PathText = Field(default="tools.json", description="The MCP-style tools file, relative to the project root")


SECTIONS = {"replay": ReplayConfig}

__all__ = ["SECTIONS", "ReplayConfig"]
