"""The eval sets pane: a tree of sets → rows with live verdicts, file problems on top, and filters.

It owns the filters (`name_filter`, `failures_only`: reactives that rebuild it and announce themselves in
`FiltersChanged`) and the cursor (whether the user moved it, putting it back after a rebuild, opening on the
first failing row once); RunState changes reach it through `state_changed`, recorded iterations through
`iteration_recorded`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ..model import Problem, RowKey
from ..textsafe import one_line, printable
from .filter_text import RowFilterText
from .labels import RowLabel, row_label, set_label
from .path_text import path_tail, shown_path
from .settling import Settling
from .state import Changes, RunState, SetKey


@dataclass(frozen=True, slots=True)
class NodeRef:
    kind: str  # "set", "row", "problems", "problem"
    key: tuple[str, ...] = ()


def problem_label(problem: Problem, path_room: int) -> Text:
    """A file problem's line: its file (cut at its start to `path_room`, so its name shows) and its message."""
    text = Text(shown_path(problem.file, max(path_room, 1)), "bold")
    text.append(f": {one_line(problem.message, 300)}", "yellow" if problem.severity == "error" else "dim")
    return text


class SetsTree(Settling, Tree[NodeRef]):
    """Sets and rows. Rebuilt when the project's shape or the filters change; relabelled otherwise."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    class CursorRestored(Message):
        """After a rebuild the cursor is on a row that still shows (or on nothing): the detail must follow
        even when the cursor's line number did not change (then Tree posts no NodeHighlighted)."""

    class FiltersChanged(Message):
        """The name filter or failures-only changed (the tree has rebuilt): the status line shows them."""

        def __init__(self, name_filter: str, failures_only: bool) -> None:
            super().__init__()
            self.name_filter = name_filter
            self.failures_only = failures_only

    moved_by_user = False  # the user moved the cursor: the app no longer moves it to the first failure
    name_filter = reactive("", init=False)  # the filter box's text: tag:/type: words and a name part
    failures_only = reactive(False, init=False)  # show failing rows only

    def __init__(self, state: RunState, *, path: Path | None = None, id: str | None = None) -> None:
        """`path`: keep the project's folder on the bottom border (the demo's is a temporary copy)."""
        super().__init__("eval sets", id=id)
        self._path = str(path) if path is not None else ""
        self.show_root = False
        self.guide_depth = 3
        self.state = state
        self._filter = RowFilterText()  # what `name_filter` means
        self._rows: dict[RowKey, TreeNode[NodeRef]] = {}
        self._labels: dict[RowKey, RowLabel] = {}  # each row node's label in parts, for cutting it to the pane
        self._row_position: dict[RowKey, int] = {}
        self._sets: dict[SetKey, TreeNode[NodeRef]] = {}

    # -- building ------------------------------------------------------------------------------------

    def validate_name_filter(self, text: str) -> str:
        return text.strip()

    def watch_name_filter(self, text: str) -> None:
        self._filter = RowFilterText.parse(text) if text else RowFilterText()
        self._filters_changed()

    def watch_failures_only(self) -> None:
        self._filters_changed()

    def _filters_changed(self) -> None:
        self.rebuild()
        self.post_message(self.FiltersChanged(self.name_filter, self.failures_only))

    def _wanted(self, key: RowKey, name: str) -> bool:
        if self.name_filter:
            found = self.state.find_row(key)
            if not self._filter.matches(name, found[1] if found else None):
                return False
        if self.failures_only:
            found = self.state.find_row(key)
            return found is not None and self.state.is_failing(*found)
        return True

    def rebuild(self) -> None:
        """Recreate every node, keeping the cursor on the same row or set when it still shows."""
        current = self.cursor_node.data if self.cursor_node is not None else None
        expanded = {key for key, node in self._sets.items() if not node.is_expanded}
        self.clear()
        self._rows.clear()
        self._labels.clear()
        self._row_position.clear()
        self._sets.clear()
        project = self.state.project
        if project is None:
            return
        problems = project.problems
        if problems:
            errors = sum(p.severity == "error" for p in problems)
            title = Text(f"⚠ {len(problems)} file problem{'s' if len(problems) != 1 else ''}",
                         "bold yellow" if errors else "yellow")
            if not errors:
                title.append(" (warnings)", "dim")
            group = self.root.add(title, NodeRef("problems"), expand=bool(errors))
            for index, problem in enumerate(problems):
                group.add_leaf(problem_label(problem, 80), NodeRef("problem", (str(index),)))
        show_scope = len(project.scopes) > 1
        for eval_set in project.sets:
            set_key = (eval_set.scope, eval_set.file_name)
            rows = [(eval_set.key_of(row), row) for row in eval_set.rows]
            rows = [(key, row) for key, row in rows if self._wanted(key, row.label)]
            if self.filtering and not rows:
                continue
            node = self.root.add(set_label(self.state, eval_set, show_scope), NodeRef("set", set_key),
                                 expand=set_key not in expanded)
            self._sets[set_key] = node
            for key, row in rows:
                self._row_position[key] = len(self._rows)
                label = self._labels[key] = row_label(self.state, eval_set, row)
                self._rows[key] = node.add_leaf(label.text, NodeRef("row", key))
        self._restore_cursor(current)

    def _restore_cursor(self, data: NodeRef | None) -> None:
        target = None
        if data is not None and data.kind == "row":
            target = self._rows.get(RowKey(*data.key))
        elif data is not None and data.kind == "set":
            target = self._sets.get((data.key[0], data.key[1]))
        if target is None:
            target = next(iter(self._rows.values()), None)
        self.defer(self._restored, target)

    def _restored(self, target: TreeNode[NodeRef] | None) -> None:
        if target is not None:
            self.move_cursor(target)
        self.post_message(self.CursorRestored())

    def render_label(self, node: TreeNode[NodeRef], base_style: Style, style: Style) -> Text:
        """A label wider than the pane is cut to it with `…`. A row's keeps every evaluator's mark: its name
        gives way, not its badges (`RowLabel.fitted`); a set's title keeps as much of itself as fits."""
        label = super().render_label(node, base_style, style)
        room = self.size.width - self.styles.scrollbar_size_vertical - self.guide_depth * self._depth(node)
        if self.size.width and label.cell_len > room > 1:
            data = node.data
            parts = self._labels.get(RowKey(*data.key)) if data is not None and data.kind == "row" else None
            problem = self._problem_at(data) if data is not None and data.kind == "problem" else None
            if parts is not None:
                label = parts.fitted(room)
                label.stylize(style)
            elif problem is not None:  # the file's path cut at its start (its name kept), then its message
                label = problem_label(problem, room)
                label.truncate(room, overflow="ellipsis")
                label.stylize(style)
            else:
                label.truncate(room, overflow="ellipsis")
        return label

    def _problem_at(self, data: NodeRef) -> Problem | None:
        project = self.state.project
        index = int(data.key[0]) if data.key else -1
        return project.problems[index] if project is not None and 0 <= index < len(project.problems) else None

    @staticmethod
    def _depth(node: TreeNode[NodeRef]) -> int:
        depth, parent = 0, node.parent
        while parent is not None and parent.parent is not None:  # the hidden root adds no guide
            depth, parent = depth + 1, parent.parent
        return depth

    # -- RunState, as the screen passes its changes on -----------------------------------------------

    def state_changed(self, changes: Changes) -> None:
        """The project's shape changed (rebuild, keeping the cursor) or some rows and set lines (relabel them)."""
        if changes.structure:
            self.rebuild()
        elif changes.rows or changes.sets:
            self.refresh_rows(changes.rows, changes.sets)

    def iteration_recorded(self, *, first: bool) -> None:
        """An iteration was recorded: a failures-only view shows the rows that fail now (ending once every
        shown row passes); the first one opens the tree where the work is, unless the user moved already."""
        if self.failures_only:
            shown = [self.state.find_row(key) for key in self.visible_rows()]
            if all(found is None or not self.state.is_failing(*found) for found in shown):
                self.app.notify("Every shown row passes — showing all rows again", timeout=4, markup=False)
                self.failures_only = False  # its watcher rebuilds the tree
            else:
                self.rebuild()
        if first and not self.moved_by_user:
            self.defer(self.select_first_failure)  # after any rebuild has put its cursor back

    # -- the project's path, on the bottom border ------------------------------------------------------

    def on_mount(self) -> None:
        self.border_title = "Eval sets"
        self._fit_path()

    def on_resize(self) -> None:
        self._fit_path()

    def _fit_path(self) -> None:
        path = self._path
        home = str(Path.home())
        if path.startswith(home + "/"):
            path = "~" + path[len(home):]
        room = self.size.width - 6  # the corners and a space either side
        path = path_tail(printable(path, keep_newlines=False), room)  # the end names the project: cut the start
        self.border_subtitle = Text(path, "dim") if path and room > 1 else ""

    # -- the user moving the cursor ------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self.moved_by_user = True
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        self.moved_by_user = True
        super().action_cursor_down()

    def action_page_up(self) -> None:
        self.moved_by_user = True
        super().action_page_up()

    def action_page_down(self) -> None:
        self.moved_by_user = True
        super().action_page_down()

    def action_scroll_home(self) -> None:
        self.moved_by_user = True
        super().action_scroll_home()

    def action_scroll_end(self) -> None:
        self.moved_by_user = True
        super().action_scroll_end()

    async def _on_click(self, event: events.Click) -> None:
        self.moved_by_user = True
        await super()._on_click(event)

    # -- updating ------------------------------------------------------------------------------------

    def refresh_rows(self, keys: set[RowKey], sets: set[SetKey] | None = None) -> None:
        """Relabel these rows, their sets, and the `sets` whose line changed on its own (a metric)."""
        project = self.state.project
        if project is None:
            return
        show_scope = len(project.scopes) > 1
        touched_sets: set[SetKey] = set(sets or ())
        for key in keys:
            node = self._rows.get(key)
            found = self.state.find_row(key) if node is not None else None
            if node is None or found is None:
                continue
            label = self._labels[key] = row_label(self.state, *found)
            node.set_label(label.text)
            touched_sets.add((key[0], key[1]))
        for eval_set in project.sets:
            set_key = (eval_set.scope, eval_set.file_name)
            if set_key in touched_sets and set_key in self._sets:
                self._sets[set_key].set_label(set_label(self.state, eval_set, show_scope))

    # -- navigation ----------------------------------------------------------------------------------

    @property
    def selected_row(self) -> RowKey | None:
        node = self.cursor_node
        if node is not None and node.data is not None and node.data.kind == "row":
            return RowKey(*node.data.key)
        return None

    @property
    def selected_problem(self) -> Problem | None:
        node = self.cursor_node
        project = self.state.project
        if node is None or node.data is None or node.data.kind != "problem" or project is None:
            return None
        index = int(node.data.key[0])
        return project.problems[index] if index < len(project.problems) else None

    @property
    def selected_set(self) -> SetKey | None:
        node = self.cursor_node
        if node is None or node.data is None:
            return None
        if node.data.kind in ("set", "row"):
            return node.data.key[0], node.data.key[1]
        return None

    def visible_rows(self) -> list[RowKey]:
        return list(self._rows)

    @property
    def filtering(self) -> bool:
        """Some rows are hidden by the name filter or by failures-only."""
        return bool(self.name_filter) or self.failures_only

    def select_first_failure(self) -> RowKey | None:
        """Put the cursor on the first failing row shown (where the work is), if there is one."""
        for key in self._rows:
            found = self.state.find_row(key)
            if found is not None and self.state.is_failing(*found):
                self.select_row(key)
                return key
        return None

    def select_row(self, key: RowKey) -> bool:
        node = self._rows.get(key)
        if node is None:
            return False
        parent = node.parent
        if parent is not None and not parent.is_expanded:
            parent.expand()
        self.move_cursor(node)
        self.scroll_to_node(node)
        return True

    def jump_to_failure(self, forward: bool) -> RowKey | None:
        """Move to the next (or previous) failing row after the cursor, wrapping around."""
        self.moved_by_user = True
        rows = list(self._rows)
        if not rows:
            return None
        current = self.selected_row
        position = self._row_position.get(current, -1) if current is not None else -1
        count = len(rows)
        if forward:
            order = [(position + step) % count for step in range(1, count + 1)]
        else:
            start = position if position >= 0 else 0
            order = [(start - step) % count for step in range(1, count + 1)]
        for index in order:
            found = self.state.find_row(rows[index])
            if found is not None and self.state.is_failing(*found):
                self.select_row(rows[index])
                return rows[index]
        return None
