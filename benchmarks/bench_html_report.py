"""Issue 25: the HTML report of 10,000 rows (20 sets, one row in 7 failing, each with its inputs, expected |
actual and a log line): how long workbench takes to build and write it, the file's size, and in headless
Chromium (Debian's `chromium`, driven over the DevTools protocol on a pipe: no network, no extra package)
the time to first contentful paint, the time until the rows are in the DOM (the page's own mark), and how
long the failing-only filter, a search keystroke and `n` (the next failing row, its detail drawn) take to
run and lay out. Skipped without chromium. `python benchmarks/bench_html_report.py [--rows N]`."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, Measure

sys.path.insert(0, str(ROOT / "tests"))

from helpers.browser import DevTools, find_chromium

from workbench.config import load_config
from workbench.events import IterationReport, Trigger, TriggerKind
from workbench.model import Result, Verdict
from workbench.report.html import ReportSource, document, write_report

BENCH = "html report"
ROWS = 10_000
QUICK_ROWS = 1_000
FIRST_PAINT_TARGET_MS = 1500.0  # a page that opens "without a stall"
INTERACTION_TARGET_MS = 100.0  # a filter or a key that responds within a frame or few
TIMEOUT_S = 120

_MEASURE_PAINT = """
new Promise(resolve => {
  const give = () => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    if (!fcp) return false;
    const nav = performance.getEntriesByType('navigation')[0];
    resolve(JSON.stringify({fcp: fcp.startTime, rendered: +document.documentElement.dataset.renderedMs,
                            dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
                            dom_rows: document.querySelectorAll('.row').length}));
    return true;
  };
  if (!give()) new PerformanceObserver(() => give()).observe({type: 'paint', buffered: true});
  setTimeout(() => resolve(JSON.stringify({fcp: null})), 20000);
})
"""

_MEASURE_KEYS = """
(() => {
  const time = f => {
    const t = performance.now(); f(); void document.body.offsetHeight; return performance.now() - t;
  };
  const median = xs => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const box = document.getElementById('failing-only'), q = document.getElementById('search');
  const failing = [], search = [], next = [];
  for (let i = 0; i < 6; i++) failing.push(time(() => box.click()));  // on, off, on, ...: ends off
  for (const text of ['r', 're', 'ref', 'refu', 'refun', 'refund', '']) {
    search.push(time(() => { q.value = text; q.dispatchEvent(new Event('input')); }));
  }
  for (let i = 0; i < 7; i++) {
    next.push(time(() => document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n', bubbles: true}))));
  }
  return JSON.stringify({failing: median(failing), search: median(search), next: median(next),
                         worst: Math.max(...failing, ...search, ...next)});
})()
"""


def synthetic_source(root: Path, rows: int) -> ReportSource:
    results = []
    for index in range(rows):
        fails = index % 7 == 0
        actual = {"answer": index, "label": f"row {index}", "details": {"tokens": index % 97, "ok": not fails}}
        results.append(Result(
            scope="default", set_file=f"set-{index % 20:02d}.json", row_id=f"row-{index:05d}",
            row_name=f"case {index}: {'refund' if index % 3 else 'greeting'} flow", evaluator="exact",
            verdict=Verdict.FAIL if fails else Verdict.PASS, score=0.0 if fails else 1.0,
            detail="answer: expected 1, got 0" if fails else "", actual=actual,
            expected=dict(actual, answer=index + 1) if fails else actual, duration_ms=10.0 + index % 50,
            inputs={"question": f"q{index}"}, log=f"log line of row {index}\n"))
    report = IterationReport(Trigger(TriggerKind.RUN), results=results, duration_s=12.5, complete=True, number=1)
    return ReportSource(load_config(root), report)


def measure(rows: int) -> list[Measure]:
    out: list[Measure] = []
    with tempfile.TemporaryDirectory(prefix="bench-html-") as temp:
        root = Path(temp)
        source = synthetic_source(root, rows)
        started = time.perf_counter()
        size = write_report(root / "report.html", document(source))
        built = time.perf_counter() - started
        case = f"{rows:,} rows"
        out.append(Measure(BENCH, f"{case}: build and write", f"{built:.2f} s"))
        out.append(Measure(BENCH, f"{case}: file size", f"{size / 1e6:.1f} MB ({size / rows:.0f} B/row)"))
        binary = find_chromium()
        if binary is None:
            out.append(Measure(BENCH, f"{case}: in a browser", "skipped: no chromium (apt-get install -y chromium)"))
            return out
        browser = DevTools(binary, root / "profile")
        try:
            browser.open_page()
            browser.navigate((root / "report.html").as_uri())
            paint = browser.evaluate(_MEASURE_PAINT)
            keys = browser.evaluate(_MEASURE_KEYS)
        finally:
            browser.close()
    fcp = paint.get("fcp")
    out.append(Measure(BENCH, f"{case}: first contentful paint", f"{fcp:.0f} ms" if fcp is not None else "none",
                       f"< {FIRST_PAINT_TARGET_MS:.0f} ms", fcp is not None and fcp < FIRST_PAINT_TARGET_MS))
    out.append(Measure(BENCH, f"{case}: rows in the DOM (page mark)",
                       f"{paint.get('rendered', 0):.0f} ms, {paint.get('dom_rows')} row elements"))
    for key, what in (("failing", "failing-only filter on/off (median of 6)"),
                      ("search", "a search keystroke (median of 7)"),
                      ("next", "`n`: next failing row + its detail (median of 7)")):
        value = float(keys[key])
        out.append(Measure(BENCH, f"{case}: {what}", f"{value:.1f} ms", f"< {INTERACTION_TARGET_MS:.0f} ms",
                           value < INTERACTION_TARGET_MS))
    out.append(Measure(BENCH, f"{case}: the slowest of those 20", f"{float(keys['worst']):.1f} ms"))
    return out


def run(quick: bool = False) -> list[Measure]:
    return measure(QUICK_ROWS if quick else ROWS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    for m in measure(parser.parse_args().rows):
        print(f"{m.case:48} {m.value:34} {m.target:10} {m.status}")


if __name__ == "__main__":
    sys.exit(main())
