"""The footer: the screen's keys, as many whole ones as the terminal's width holds, never one cut mid-word.

Textual's Footer lays every shown binding out in a row and cuts the last one at the edge (`A Accept al▏` at
80 columns, issue 38). This one keeps the bindings in their order (the screen lists them most useful first)
and stops before the first that would not fit whole beside the palette's `^p palette`; the ones left out
stay in `?` (help) and the palette. A resize lays the footer out again."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

PALETTE = "-command-palette"


def key_width(key: FooterKey) -> int:
    """The cells a compact footer key takes: `k Label` and the one-cell gap after it (the palette's key: its
    one-cell border on the left instead)."""
    label = len(key.key_display) + (1 + len(key.description) if key.description else 0)
    return label + 1


class FittedFooter(Footer):
    """A compact footer showing whole bindings only."""

    def __init__(self) -> None:
        super().__init__(compact=True)
        self._laid_out_for = 0  # the width the keys were chosen for

    def compose(self) -> ComposeResult:
        widgets = list(super().compose())
        width = self.app.size.width
        self._laid_out_for = width
        keys = [widget for widget in widgets if isinstance(widget, FooterKey)]
        room = width - sum(key_width(key) for key in keys if key.has_class(PALETTE))
        for widget in widgets:
            if isinstance(widget, FooterKey) and not widget.has_class(PALETTE):
                room -= key_width(widget)
                if room < 0:
                    continue  # and every key after it: the footer keeps the order, whole keys only
            yield widget

    def on_resize(self, event: events.Resize) -> None:
        if self.app.size.width != self._laid_out_for:
            self.call_after_refresh(self.recompose)

    @property
    def shown(self) -> list[FooterKey]:
        """The keys the footer shows now."""
        return list(self.query(FooterKey))

