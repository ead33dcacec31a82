"""Reading an HTML report back: its embedded data, its script and style elements, every attribute that
names a resource; and a synthetic iteration of many rows (the 10,000-row checks)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from workbench.config import load_config
from workbench.events import IterationReport, Trigger, TriggerKind
from workbench.model import Result, Verdict
from workbench.report.html import ReportSource, document


class Page(HTMLParser):
    """The parts of a report page the tests look at."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str]] = []  # attributes of each <script>
        self.script_texts: list[str] = []
        self.styles: list[str] = []
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value) of src/href/...
        self.tags: list[str] = []
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        found = {k: v or "" for k, v in attrs}
        for name in ("src", "href", "srcset", "action", "formaction", "poster", "data", "xlink:href"):
            if name in found:
                self.links.append((tag, name, found[name]))
        if tag == "script":
            self.scripts.append(found)
            self.script_texts.append("")
        if tag in ("script", "style"):
            self._open = tag
            if tag == "style":
                self.styles.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._open:
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open == "script":
            self.script_texts[-1] += data
        elif self._open == "style":
            self.styles[-1] += data


def parse_page(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


def embedded_data(path_or_text: Path | str) -> dict[str, Any]:
    """The report's data, read back from its `<script type="application/json" id="report-data">`."""
    text = path_or_text.read_text(encoding="utf-8") if isinstance(path_or_text, Path) else path_or_text
    page = parse_page(text)
    found = [t for a, t in zip(page.scripts, page.script_texts, strict=True)
             if a.get("type") == "application/json" and a.get("id") == "report-data"]
    assert len(found) == 1, f"expected one report-data element, found {len(found)}"
    doc: dict[str, Any] = json.loads(found[0])
    return doc


def synthetic_source(root: Path, rows: int, *, failing_every: int = 7) -> ReportSource:
    """An iteration of `rows` one-result rows over 20 sets (every `failing_every`-th failing) in the
    project at `root` (a folder with a workbench.toml, or none)."""
    config = load_config(root)
    results = []
    for index in range(rows):
        fails = index % failing_every == 0
        actual = {"answer": index, "label": f"row {index}", "details": {"tokens": index % 97, "ok": not fails}}
        expected = dict(actual, answer=index + 1) if fails else actual
        results.append(Result(scope="default", set_file=f"set-{index % 20:02d}.json", row_id=f"row-{index:05d}",
                              row_name=f"case {index}: {'refund' if index % 3 else 'greeting'} flow",
                              evaluator="exact", verdict=Verdict.FAIL if fails else Verdict.PASS,
                              score=0.0 if fails else 1.0, detail="answer: expected 2, got 1" if fails else "",
                              actual=actual, expected=expected, duration_ms=10.0 + index % 50,
                              evaluator_type="uipath-exact-match", inputs={"question": f"q{index}"},
                              log=f"log line of row {index}\n"))
    report = IterationReport(Trigger(TriggerKind.RUN), results=results, duration_s=12.5, complete=True, number=1)
    return ReportSource(config, report)


def synthetic_document(root: Path, rows: int) -> dict[str, Any]:
    return document(synthetic_source(root, rows))


def toy_detail_blocks(detail: Any) -> list[dict[str, Any]]:
    """A format's own renderer for the HTML report, named by a test dialect's `html_detail`."""
    return [{"kind": "text", "title": "Toy", "text": f"toy says {detail.result.actual!r}", "tone": ""}]
