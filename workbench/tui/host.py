"""The app as the TUI's action modules see it. `WorkbenchApp` is the one implementation; the modules
type against this instead of importing `app.py` (which imports them)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar, overload

from textual.widget import Widget

from ..config import Config
from ..progress import IterationSummary
from ..session import Session
from .detail_pane import RowDetail
from .history_pane import HistoryPane
from .sets_pane import SetsTree
from .state import RunState

QueryType = TypeVar("QueryType", bound=Widget)


class WorkbenchHost(Protocol):
    config: Config  # the launch settings (the session holds the current ones: `session.config`)
    state: RunState
    session: Session
    watching: bool  # this TUI watches files (`workbench open` without --no-watch)
    last_summary: IterationSummary | None
    iterations_done: int  # iterations finished in this session

    @property
    def sets_tree(self) -> SetsTree: ...

    @property
    def detail(self) -> RowDetail: ...

    @property
    def history_pane(self) -> HistoryPane: ...

    @property
    def watch_stopped(self) -> bool: ...

    # the parts of textual.App they use
    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = False) -> None: ...

    @overload
    def query_one(self, selector: str) -> Widget: ...

    @overload
    def query_one(self, selector: type[QueryType]) -> QueryType: ...

    @overload
    def query_one(self, selector: str, expect_type: type[QueryType]) -> QueryType: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def push_screen(self, screen: Any, callback: Any = None, *args: Any, **kwargs: Any) -> Any: ...

    def suspend(self) -> AbstractContextManager[None]: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def refresh(self, *args: Any, **kwargs: Any) -> Any: ...

    def refresh_bindings(self) -> None: ...

    def set_interval(self, interval: float, callback: Any = None, *args: Any, **kwargs: Any) -> Any: ...

    def call_from_thread(self, callback: Any, *args: Any, **kwargs: Any) -> Any: ...
