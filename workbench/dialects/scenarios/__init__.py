"""Scenarios (seed 000): given a screen, when the user says X, expect these actions and this reply."""

from __future__ import annotations

from .loader import DIALECT, EXPECT_REF, SCOPE, ScenariosDialect
from .settings import APPILOTS_DIR, RC_FILE, ScenarioSettings, resolve_settings

__all__ = ["APPILOTS_DIR", "DIALECT", "EXPECT_REF", "RC_FILE", "SCOPE", "ScenarioSettings", "ScenariosDialect",
           "resolve_settings"]
