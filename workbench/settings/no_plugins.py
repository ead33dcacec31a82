"""Pydantic's plugins are not looked up in workbench's process: no plugin has anything to do with workbench's
own settings models, and looking costs a start ~20 ms of CPU (measured: `importlib.metadata` imported,
~14 ms, then every installed distribution's entry points read, ~9 ms) on the first validator built.

Pydantic asks `pydantic.plugin._loader.get_plugins()` when it builds a validator, importing that module
then (not at `import pydantic`). `install()` puts a module of that name in `sys.modules` first whose
`get_plugins` answers "none"; any other name asked of it is the real module's (loaded on that first
question), so a pydantic that reaches further into its loader still works. The environment is left alone
(`PYDANTIC_DISABLE_PLUGINS` would reach every target workbench starts, and the user's pydantic there keeps
its plugins). When the loader is imported already (another library built a validator first), nothing
changes. tests/settings/test_no_plugins.py holds it.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable
from typing import Any

LOADER = "pydantic.plugin._loader"


class NoPlugins(types.ModuleType):
    """`pydantic.plugin._loader` with no plugins to load."""

    _real: types.ModuleType | None = None

    @staticmethod
    def get_plugins() -> Iterable[Any]:
        return ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if self._real is None:
            self._real = _load_real()
        return getattr(self._real, name)


def _load_real() -> types.ModuleType:
    """The real loader module, executed under another name (the stub keeps its place in `sys.modules`)."""
    import importlib.machinery
    import importlib.util

    import pydantic.plugin

    spec = importlib.machinery.PathFinder.find_spec(LOADER, list(pydantic.plugin.__path__))
    if spec is None or spec.loader is None:
        raise ImportError(f"{LOADER} not found")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def install() -> None:
    """Answer "no plugins" to pydantic in this process, unless its loader is imported already."""
    if LOADER not in sys.modules:
        sys.modules[LOADER] = NoPlugins(LOADER)
