"""Make untrusted text (row names, outputs, logs, file names) safe to print on a terminal.

Control characters, including ESC, would let a row name or a model's output move the cursor, change
colours or set the window title. They are shown as visible escapes instead; lone surrogates (valid
in JSON strings, not in UTF-8) become `\\udXXX` escapes.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str, *, keep_newlines: bool = True) -> str:
    """`text` with every control character (but newlines and tabs, when kept) made visible."""
    text = _CONTROL.sub(_escape, text)
    if not keep_newlines:
        text = text.replace("\n", "\\n").replace("\t", " ")
    return text


def one_line(text: str, limit: int = 200) -> str:
    text = printable(text, keep_newlines=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
