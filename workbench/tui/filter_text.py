"""What the `/` filter box means: words `tag:NAME` and `type:NAME` select rows by their tags and type (a
row with any of the tags, of any of the types — as `--tag` / `--type` do), and the rest of the text is a
case-insensitive part of the row's name. `tag:smoke refund` shows the rows tagged smoke whose name has
"refund" in it."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Row

TAG, TYPE = "tag:", "type:"


@dataclass(frozen=True, slots=True)
class RowFilterText:
    name: str = ""
    tags: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> RowFilterText:
        tags: list[str] = []
        kinds: list[str] = []
        rest: list[str] = []
        for word in text.split():
            lowered = word.lower()
            if lowered.startswith(TAG) and len(word) > len(TAG):
                tags.append(word[len(TAG):])
            elif lowered.startswith(TYPE) and len(word) > len(TYPE):
                kinds.append(lowered[len(TYPE):])
            else:
                rest.append(word)
        return cls(" ".join(rest).lower(), tuple(tags), tuple(kinds))

    def matches(self, name: str, row: Row | None) -> bool:
        if self.name and self.name not in name.lower():
            return False
        if self.tags and (row is None or not any(tag in row.tags for tag in self.tags)):
            return False
        return not self.kinds or (row is not None and row.kind in self.kinds)


def filter_text(tags: tuple[str, ...], kinds: tuple[str, ...]) -> str:
    """The filter that shows what `--tag` / `--type` selected (for the TUI launched with them)."""
    return " ".join([*(f"{TAG}{tag}" for tag in tags), *(f"{TYPE}{kind}" for kind in kinds)])
