"""The main screen's row keys (re-run, failures only, next failure, filter, edit, copy, tabs): each reads
the selection, asks the Session or a pane to act, and tells the user what happened."""

from __future__ import annotations

import subprocess

from textual.widgets import TabbedContent

from .. import jsonio
from ..events import Trigger, TriggerKind
from ..model import RowKey
from ..rescoring import RowFilter
from ..runners.strays import unmarked_environ
from ..textsafe import one_line
from .editor import EDITOR_TIMEOUT_S, editor_argv, row_line
from .panes import Panes
from .path_text import shown_path


class RowKeys(Panes):
    def rerun_rows(self, keys: frozenset[RowKey], what: str) -> None:
        """Queue an iteration of just these rows after whatever runs now."""
        self.session.request(Trigger(TriggerKind.ROW, (what,)), RowFilter(row_keys=keys), replace=False)

    def action_rerun_row(self) -> None:
        """`r`: the selected row, or every row of the selected set."""
        tree = self.sets_tree
        key = tree.selected_row
        if key is not None:
            self.rerun_rows(frozenset({key}), key[1])
            self.notify(f"Re-running '{self.state.label_of(key)}'", timeout=2)
        elif tree.selected_set is not None:
            scope, file_name = tree.selected_set
            self.rerun_rows(self.state.set_row_keys(scope, file_name), file_name)
            self.notify(f"Re-running {shown_path(file_name, 60)}", timeout=2)
        else:
            self.notify("Select a row or a set to re-run it (R re-runs everything)", severity="warning")

    def action_rerun_all(self) -> None:
        self.session.request(Trigger(TriggerKind.MANUAL))
        self.notify("Re-running every row", timeout=2)

    def action_rerun_failures(self) -> None:
        keys = self.state.failing_keys()
        if not keys:
            self.notify("No failing rows to re-run")
            return
        self.rerun_rows(keys, "failing rows")

    def action_toggle_failures(self) -> None:
        """`f`: show failing rows only (refused while nothing fails)."""
        tree = self.sets_tree
        if not tree.failures_only and not self.state.any_failing():
            self.notify("No failing rows: every row passes (or has not run yet)")
            return
        tree.failures_only = not tree.failures_only  # the tree rebuilds itself and says its filters changed

    def action_next_failure(self) -> None:
        if self.sets_tree.jump_to_failure(forward=True) is None:
            self.notify("No failing rows")

    def action_previous_failure(self) -> None:
        if self.sets_tree.jump_to_failure(forward=False) is None:
            self.notify("No failing rows")

    def action_filter(self) -> None:
        self.name_box.open()

    def action_expand_all(self) -> None:
        self.sets_tree.root.expand_all()

    def action_collapse_all(self) -> None:
        for node in self.sets_tree.root.children:
            node.collapse()

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#bottom", TabbedContent).active = tab

    def action_edit(self) -> None:
        """`e`: suspend the TUI and open the row's file in $EDITOR at the row."""
        key = self.sets_tree.selected_row
        found = self.state.find_row(key) if key else None
        if found is None:
            self.notify("Select a row to open its eval-set file", severity="warning")
            return
        eval_set, row = found
        path = eval_set.source_of(row)
        argv = editor_argv(path, row_line(path, row.id, row.index))
        try:
            with self.app.suspend():
                subprocess.run(argv, timeout=EDITOR_TIMEOUT_S, check=False, env=unmarked_environ())
        except FileNotFoundError:
            self.notify(f"Editor not found: {one_line(argv[0], 60)} (set $EDITOR)", severity="error")
        except subprocess.TimeoutExpired:
            self.notify("The editor was still open after 12 hours and was stopped", severity="warning")
        except Exception as exc:  # SuspendNotSupported and friends: say so instead of crashing
            self.notify(f"Cannot open an editor here: {one_line(str(exc), 100)}", severity="error")
        self.app.refresh()

    def action_copy_actual(self) -> None:
        """`y`: the selected result's actual output as JSON on the clipboard."""
        self.copy_selected("actual", "actual output")

    def action_copy_expected(self) -> None:
        """(palette) the selected result's expected output as JSON on the clipboard."""
        self.copy_selected("expected", "expected output")

    def copy_selected(self, field: str, what: str) -> None:
        result = self.detail.current_result if self.sets_tree.selected_row else None
        value = None if result is None else getattr(result, field)
        if value is None:
            self.notify(f"No {what} to copy for the selected row", severity="warning")
            return
        text = jsonio.dumps(value, indent=True)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the {what} ({len(text)} characters)", timeout=2)
