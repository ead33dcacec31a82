"""The report as one self-contained HTML file: the page's style and script (`report.css`, `report.js`, beside
this module) inlined, the data embedded as JSON in a `<script type="application/json">` — `<`, `>`, `&` and
the JavaScript line separators written as `\\u` escapes, so nothing in a user's data can close the element or
open another — and nothing fetched: no external script, style, font or image (`src`/`href` are `data:` or
`#` only), so it opens over `file://` in any current browser, offline."""

from __future__ import annotations

import html
from importlib import resources
from pathlib import Path
from typing import Any

from ... import jsonio
from ..output_file import write_output_file

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_TABLE = str.maketrans(_ESCAPES)


def embedded_json(doc: Any) -> str:
    """`doc` as JSON text safe inside a `<script>` element (the escapes stay inside JSON strings: outside them
    JSON has none of these characters)."""
    return jsonio.dumps(doc).translate(_TABLE)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def render(doc: dict[str, Any]) -> str:
    """The whole page for report document `doc` (`data.document`)."""
    number = doc.get("summary", {}).get("number")
    title = f"workbench report — {doc.get('project', '')}" + (f" — iteration {number}" if number else "")
    css, script = _asset("report.css"), _asset("report.js")
    if "</style" in css.lower() or "</script" in script.lower():  # our own files: a bug, never user data
        raise ValueError("report assets may not close their own element")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">",
        '<link rel="icon" href="data:,">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{css}</style></head>",
        '<body><noscript><p class="noscript">This report draws its rows with JavaScript; '
        "enable it to see them (the data is in the page's report-data element).</p></noscript>",
        '<div id="app"></div>',
        f'<script type="application/json" id="report-data">{embedded_json(doc)}</script>',
        f"<script>{script}</script>",
        "</body></html>",
    ]) + "\n"


def write_report(path: Path, doc: dict[str, Any]) -> int:
    """Write the page for `doc` to `path` (whole or not at all; a link or FIFO there is refused:
    `output_file.py`); returns its size in bytes. OutputFileError when it can't be written."""
    data = render(doc).encode("utf-8", errors="backslashreplace")
    write_output_file(path, data, "the HTML report")
    return len(data)
