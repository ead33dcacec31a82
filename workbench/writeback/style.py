"""How a file is written (line endings, indent unit, spacing), read from the file itself.

New text is written the way the surrounding text already is, so a `git diff` shows only the change
and the file keeps looking like its author (or Studio Web) wrote it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from ..jsonio import UTF8_BOM

_LEADING = re.compile(rb"^([ \t]*)\S", re.MULTILINE)
_INLINE_OBJECT = re.compile(rb'\{[ \t]*"[^\r\n]*\}')
_INLINE_ARRAY = re.compile(rb"\[[ \t]*[^\s\]][^\r\n]*\]")
_ESCAPED_NON_ASCII = re.compile(rb"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})")
_COLON = re.compile(rb'(?<!\\)"([ \t]*):([ \t]*)(?=["\[{0-9tfn-])')
MIN_LINE, MAX_LINE = 100, 160
SAMPLE_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class Style:
    newline: str = "\n"
    indent: str = "  "
    colon: str = ": "
    comma: str = ", "
    object_pad: str = " "
    array_pad: str = ""
    ensure_ascii: bool = False
    line_limit: int = MIN_LINE
    single_line: bool = False
    inline_objects: bool = True
    inline_arrays: bool = True


def _newline(data: bytes) -> str:
    crlf = data.count(b"\r\n")
    return "\r\n" if crlf and crlf * 2 >= data.count(b"\n") else "\n"


def _indent(data: bytes) -> str:
    """The indent unit: a tab when most indented lines start with one, else the usual step in spaces."""
    leads = [m.group(1) for m in _LEADING.finditer(data)]
    tabs = sum(1 for lead in leads if lead.startswith(b"\t"))
    spaces = sum(1 for lead in leads if lead.startswith(b" "))
    if tabs > spaces:
        return "\t"
    steps: Counter[int] = Counter()
    for before, after in pairwise(leads):
        step = len(after) - len(before)
        if 0 < step <= 8 and not after.strip(b" "):
            steps[step] += 1
    return " " * (steps.most_common(1)[0][0] if steps else 2)


def _more(data: bytes, spaced: bytes, tight: re.Pattern[bytes]) -> bool:
    return data.count(spaced) >= len(tight.findall(data))


def detect(data: bytes) -> Style:
    """The style of `data` (an eval-set file's bytes)."""
    data = data.removeprefix(UTF8_BOM)
    whole, data = data, data[:SAMPLE_BYTES]  # a file is written one way throughout: a sample shows how
    colons = Counter((m.group(1), m.group(2)) for m in _COLON.finditer(data))
    before, after = colons.most_common(1)[0][0] if colons else (b"", b" ")
    longest = max((len(line) for line in data.splitlines()), default=0)
    return Style(
        newline=_newline(whole),
        indent=_indent(data),
        colon=(before + b":" + after).decode(),
        comma=", " if _more(data, b', "', re.compile(rb',"')) else ",",
        object_pad=" " if _more(data, b'{ "', re.compile(rb'\{"')) else "",
        array_pad=" " if data.count(b"[ ") > len(re.findall(rb"\[[^\s\]]", data)) else "",
        ensure_ascii=whole.isascii() and bool(_ESCAPED_NON_ASCII.search(whole)),
        line_limit=max(MIN_LINE, min(MAX_LINE, longest)),
        single_line=b"\n" not in whole.strip(),
        inline_objects=bool(_INLINE_OBJECT.search(data)),
        inline_arrays=bool(_INLINE_ARRAY.search(data)),
    )
