"""The project's `.env*` files (`.env`, `.env.local`, `.envrc`, …, at its root) read for the redactor: a key a
target loads with python-dotenv lives there and nowhere in workbench's environment. Read safely — a link is
never followed (a `.env` pointing outside the project is not read), a FIFO or device never opened for long,
each file bounded in size and the number of files too — and parsed as dotenv does: `KEY=VALUE`,
`export KEY=VALUE`, single or double quotes (double-quoted escapes, values over several lines), `#` comments."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from ..regular_files import UnreadableFile, read_regular_file

DOTENV_LIMIT = 1024 * 1024
DOTENV_FILES = 32  # a root with more `.env*` files than this is read for its first ones, by name
_LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}


def dotenv_files(root: Path) -> list[Path]:
    """The regular files named `.env*` at the project's root (a link, a folder, a FIFO left out), by name."""
    try:
        with os.scandir(root) as entries:
            names = sorted(entry.name for entry in entries
                           if entry.name.startswith(".env") and entry.is_file(follow_symlinks=False))
    except OSError:
        return []
    return [root / name for name in names[:DOTENV_FILES]]


def parse_dotenv(text: str) -> dict[str, str]:
    """The variables a dotenv file sets (a line that isn't `KEY=VALUE` is skipped, as dotenv skips it)."""
    found: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if match:
            found[match.group(1)] = _value(match.group(2), lines)
    return found


def _value(raw: str, more: Iterator[str]) -> str:
    """A value: quoted (up to its closing quote, maybe on a later line) or bare (up to a ` #` comment)."""
    raw = raw.strip()
    if not raw or raw[0] not in "'\"":
        return re.split(r"\s+#", raw, maxsplit=1)[0].strip()
    quote, text = raw[0], raw[1:]
    while _closing(text, quote) < 0:
        following = next(more, None)
        if following is None:
            break
        text += "\n" + following
    end = _closing(text, quote)
    inside = text if end < 0 else text[:end]
    if quote == "'":
        return inside
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), inside)


def _closing(text: str, quote: str) -> int:
    """The index of the quote that closes `text` (a double-quoted value's `\\"` doesn't), or -1."""
    index = 0
    while index < len(text):
        if text[index] == "\\" and quote == '"':
            index += 2
            continue
        if text[index] == quote:
            return index
        index += 1
    return -1


def dotenv_secrets(root: Path, secret: Callable[[str], bool]) -> list[str]:
    """The values of the secret-named variables (`secret(name)`) the project's `.env*` files set; a file that
    can't be read safely (a link swapped in, too large, not UTF-8) is skipped."""
    values: list[str] = []
    for path in dotenv_files(root):
        try:
            text = read_regular_file(path, DOTENV_LIMIT, follow_links=False).decode("utf-8", errors="replace")
        except (OSError, UnreadableFile):
            continue
        values.extend(value for name, value in parse_dotenv(text).items() if secret(name))
    return values
