"""Make untrusted text (row names, outputs, logs, file names) safe to print on a terminal, as text
(`printable`) or inside a JSON document (`json_escaped`): one set of unsafe characters for both.

Control characters, including ESC, would let a row name or a model's output move the cursor, change
colours or set the window title. Bidirectional controls (U+202A–U+202E, U+2066–U+2069) would reorder
what follows them (`abc\\u202eLIAF` shows as "abcFAIL"), and zero-width characters (U+200B–U+200F,
U+2060, U+FEFF) make two different names look the same or shift a border. All of them are shown as
visible escapes instead; lone surrogates (valid in JSON strings, not in UTF-8) become `\\udXXX` escapes.

In JSON output (`--json`) the same characters are written as `\\uXXXX` escapes: a JSON encoder escapes
C0 controls (U+0000–U+001F) but writes DEL, the C1 controls (U+0080–U+009F, which many terminals and
log viewers obey: U+009B is CSI), bidi and zero-width characters as they are.
"""

from __future__ import annotations

import re
import unicodedata

_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str, *, keep_newlines: bool = True) -> str:
    """`text` with every control, bidi and zero-width character (but newlines and tabs, when kept) made
    visible."""
    text = _CONTROL.sub(_escape, text)
    if not keep_newlines:
        text = text.replace("\n", "\\n").replace("\t", " ")
    return text


def json_escaped(json_text: str) -> str:
    """Encoded JSON with every character `printable` escapes written as its `\\uXXXX` escape instead:
    the same JSON value (outside strings JSON has only ASCII), which no terminal interprets."""
    return _CONTROL.sub(lambda match: f"\\u{ord(match.group()):04x}", json_text)


def one_line(text: str, limit: int = 200) -> str:
    text = printable(text, keep_newlines=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 error`, `2 errors`, `0 errors`: every count workbench prints agrees with its number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def slug(text: str, limit: int = 60) -> str:
    """A readable file-name part for a row's name: `score 50 passes (boundary)` → `score-50-passes-boundary`
    (ASCII letters, digits and dashes; accents dropped; empty when nothing of it is left)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:limit].rstrip("-")
