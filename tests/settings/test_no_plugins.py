"""Pydantic's plugin lookup is skipped in workbench's process (`settings/no_plugins.py`): the loader pydantic
asks answers "no plugins" without reading every distribution's metadata, the rest of the real loader is still
there for a pydantic that asks for more, and nothing is put in the environment the targets inherit."""

from __future__ import annotations

import os
import sys

import pytest

from workbench.settings import no_plugins
from workbench.settings.sections import RunnerConfig


def test_the_loader_pydantic_asks_has_no_plugins():
    import pydantic.plugin._loader as loader

    if not isinstance(loader, no_plugins.NoPlugins):
        pytest.skip("pydantic's loader was imported before workbench's settings (by the test session)")
    assert list(loader.get_plugins()) == []
    assert loader.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"  # any other name: the real module's
    with pytest.raises(AttributeError):
        getattr(loader, "__no_such_dunder__")  # noqa: B009


def test_sections_still_validate_and_refuse():
    assert RunnerConfig.model_validate({"kind": "command", "command": ["python", "a.py"]}).kind == "command"
    with pytest.raises(Exception, match="timeout"):
        RunnerConfig.model_validate({"timeout": "soon"})


def test_the_environment_is_left_alone():
    assert "PYDANTIC_DISABLE_PLUGINS" not in os.environ or os.environ["PYDANTIC_DISABLE_PLUGINS"] != "__all__"


def test_install_leaves_an_imported_loader_in_place(monkeypatch: pytest.MonkeyPatch):
    real = object()
    monkeypatch.setitem(sys.modules, no_plugins.LOADER, real)
    no_plugins.install()
    assert sys.modules[no_plugins.LOADER] is real
