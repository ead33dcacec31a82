"""When the screen has settled: nothing the app deferred is still to do and every widget has handled what
was posted to it. `WorkbenchApp.settled` waits for that; tests and the screenshot script wait on it
instead of pausing for some number of frames.

Textual's `call_after_refresh` leaves no trace once posted (the callback waits in the screen), so the
widgets that defer work the screen depends on — the sets tree putting its cursor back after a rebuild or
opening on the first failing row, the row detail scrolling to a row's first difference — defer it with
`Settling.defer`, which counts what is still to run."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.dom import DOMNode
from textual.widget import Widget

if TYPE_CHECKING:
    _WidgetBase = Widget
else:
    # A plain mixin at run time: Textual finds a widget's component classes and default CSS through the
    # first DOM base of each class, so a Widget subclass here would hide the real base's (Tree's).
    _WidgetBase = object


class Settling(_WidgetBase):
    """A widget whose deferred steps the settled signal waits for (mix it in before the Textual base)."""

    _steps_due = 0  # deferred steps scheduled and not run yet

    def defer(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run `callback(*args)` after the next refresh (Textual's `call_after_refresh`), counted until it ran."""
        self._steps_due += 1

        def step() -> None:
            try:
                callback(*args)
            finally:
                self._steps_due -= 1

        if not self.call_after_refresh(step):  # the widget is closing: the step will never run
            self._steps_due -= 1

    @property
    def steps_due(self) -> bool:
        """Some deferred step has not run yet (a widget removed meanwhile owes nothing)."""
        return self._steps_due > 0 and self.is_attached


def quiet(app: App[Any]) -> bool:
    """No message waits in the queue of the app, of a screen or of a widget on one, and no deferred step is due."""
    nodes: list[DOMNode] = [app]
    for screen in app.screen_stack:
        nodes += screen.walk_children(with_self=True)
    return not any(node.message_queue_size or (isinstance(node, Settling) and node.steps_due) for node in nodes)
