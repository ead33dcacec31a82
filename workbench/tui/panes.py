"""The main screen's parts, as its key mixins see them: the panes it composes, the RunState they show and
the Session the keys drive.

Each pane is a widget that owns its state (the filters and the cursor: `SetsTree`; the row, evaluator and
sample shown: `RowDetail`; the row whose log is shown: `RunLog`; the filters and the watcher as last
announced: `StatusBar`; the iterations read: `HistoryPane`) and draws itself from RunState when the screen
passes RunState's changes on (`state_changed`). `MainScreen` (main_screen.py) is `Panes` plus its keys
(`triage_rows.RowKeys`, `triage_writes.WriteKeys`) and the routing: engine messages and the panes' own
messages to the panes they concern. Each mixin is typed against this class, not against the app.

The layout is this class's too: the bottom tabs take two fifths of the room (history and evaluators are
tables), except the log, which is as tall as its lines up to that (a row's log of one header line leaves the
sets and the detail the rest: issue 38, at 160x48 it took half the screen for one line)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import TabbedContent, TabPane

from ..config import Config
from ..model import RowKey
from ..session import Session
from .detail_pane import RowDetail
from .evaluators_pane import EvaluatorsTable
from .filter_box import NameFilter
from .footer import FittedFooter
from .history_pane import HistoryPane
from .log_pane import RunLog
from .sets_pane import SetsTree
from .state import RunState
from .status_bar import StatusBar

BOTTOM_SHARE = 0.4  # of the rows between the status line and the footer, at most, for the bottom tabs
BOTTOM_MIN = 8  # rows the bottom tabs keep at least, whatever the log holds
LOG_CHROME = 4  # the tab strip (2 rows) and the log's border (2)
LOG_MIN = 6  # the log tab with no lines, or one: its border and two lines


class Panes(Screen[None]):
    """The layout and what the panes share; the keys and the routing are the subclass's."""

    class Ready(Message):
        """The screen and its panes are composed and mounted: the project can be loaded into them."""

    class Written(Message):
        """A write to the user's files finished (`row`: the one row it changed, if it was one row)."""

        def __init__(self, row: RowKey | None) -> None:
            super().__init__()
            self.row = row

    def __init__(self, config: Config, session: Session, state: RunState, *, watching: bool,
                 show_path: bool = False, welcome: str | None = None) -> None:
        super().__init__()
        self.config = config  # the launch settings (the session holds the current ones: `session.config`)
        self.session = session
        self.state = state
        self.watching = watching  # this TUI watches files (`workbench open` without --no-watch)
        self.show_path = show_path  # keep the project's folder on the sets pane's border (the demo's copy)
        self.welcome = welcome  # what the app said first (the demo: where its copy is); `p` says it again

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """As the app's: file and row names are never read as markup (Widget.notify's default is markup)."""
        self.app.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def compose(self) -> ComposeResult:
        yield StatusBar(self.state, self.session, project=self.config.root.name, watching=self.watching, id="status")
        with Horizontal(id="main"):
            with Vertical(id="sets-column"):
                yield SetsTree(self.state, path=self.config.root if self.show_path else None, id="sets")
                yield NameFilter(id="filter")
            yield RowDetail(self.state, id="detail")
        with TabbedContent(id="bottom", initial="log"):
            with TabPane("Log", id="log"):
                yield RunLog(self.state, id="run-log")
            with TabPane("History", id="history"):
                yield HistoryPane(id="history-pane")
            with TabPane("Evaluators", id="evaluators"):
                yield EvaluatorsTable(self.state, id="evaluators-table")
        yield FittedFooter()

    def fit_bottom(self) -> None:
        """Size the bottom tabs: the log by its lines (at least LOG_MIN rows), the others (and a long log) at
        BOTTOM_SHARE of the room (at least BOTTOM_MIN)."""
        bottom = self.query_one("#bottom", TabbedContent)
        room = max(self.size.height - 2, 0)  # the status line and the footer
        most = max(BOTTOM_MIN, round(room * BOTTOM_SHARE))
        height = most
        if bottom.active == "log":
            height = min(most, max(LOG_MIN, self.run_log.line_count + LOG_CHROME))
        if bottom.styles.height is None or bottom.styles.height.cells != height:
            bottom.styles.height = height

    def on_resize(self, _event: events.Resize) -> None:
        self.fit_bottom()

    def on_tabbed_content_tab_activated(self, _event: TabbedContent.TabActivated) -> None:
        self.fit_bottom()

    def on_run_log_lines_changed(self, _event: RunLog.LinesChanged) -> None:
        self.fit_bottom()

    @property
    def status(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    @property
    def evaluators(self) -> EvaluatorsTable:
        return self.query_one("#evaluators-table", EvaluatorsTable)

    @property
    def sets_tree(self) -> SetsTree:
        return self.query_one("#sets", SetsTree)

    @property
    def detail(self) -> RowDetail:
        return self.query_one("#detail", RowDetail)

    @property
    def history_pane(self) -> HistoryPane:
        return self.query_one("#history-pane", HistoryPane)

    @property
    def run_log(self) -> RunLog:
        return self.query_one("#run-log", RunLog)

    @property
    def name_box(self) -> NameFilter:
        return self.query_one("#filter", NameFilter)
