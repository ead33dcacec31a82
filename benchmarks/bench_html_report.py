"""Issue 25: the HTML report of 10,000 rows (20 sets, one row in 7 failing, each with its inputs, expected |
actual and a log line): how long workbench takes to build and write it, the file's size, and in headless
Chromium (Debian's `chromium`, driven over the DevTools protocol on a pipe: no network, no extra package)
the time to first contentful paint, the time until the rows are in the DOM (the page's own mark), and how
long the failing-only filter, a search keystroke and `n` (the next failing row, its detail drawn) take to
run and lay out. Skipped without chromium. `python benchmarks/bench_html_report.py [--rows N]`."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import Measure

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
  const failing = time(() => document.getElementById('failing-only').click());
  const search = time(() => { const q = document.getElementById('search'); q.value = 'refund';
                              q.dispatchEvent(new Event('input')); });
  const next = time(() => document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n', bubbles: true})));
  const clear = time(() => { const q = document.getElementById('search'); q.value = '';
                             q.dispatchEvent(new Event('input')); document.getElementById('failing-only').click(); });
  return JSON.stringify({failing, search, next, clear, shown: +document.getElementById('list').dataset.shown});
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


class Chromium:
    """Headless Chromium over `--remote-debugging-pipe` (fd 3 in, fd 4 out, NUL-separated JSON)."""

    def __init__(self, binary: str, scratch: Path) -> None:
        commands_r, self._commands = os.pipe()
        self._replies, replies_w = os.pipe()

        def wire() -> None:  # in the child, before its fds are closed (3 and 4 are kept: pass_fds)
            a, b = os.dup(commands_r), os.dup(replies_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        argv = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--remote-debugging-pipe", f"--user-data-dir={scratch}", "--window-size=1360,980", "about:blank"]
        self.process = subprocess.Popen(argv, pass_fds=(3, 4, commands_r, replies_w), preexec_fn=wire,
                                        env=dict(os.environ, HOME=str(scratch)), stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(commands_r)
        os.close(replies_w)
        self._buffer = b""
        self._next = 0
        self.session: str | None = None

    def send(self, method: str, params: dict[str, Any] | None = None, *, in_page: bool = True) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if in_page and self.session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        reply = self.wait(lambda m: m.get("id") == self._next)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def wait(self, wanted: Any) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message: dict[str, Any] = json.loads(raw)
                if wanted(message):
                    return message
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        raise TimeoutError("chromium did not answer")

    def open_page(self) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, in_page=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 in_page=False)["sessionId"]
        self.send("Page.enable")

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == self.session)

    def evaluate(self, expression: str) -> Any:
        found = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True})
        return json.loads(found["result"]["value"])

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        os.close(self._commands)
        os.close(self._replies)


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
        binary = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                       if (found := shutil.which(name))), None)
        if binary is None:
            out.append(Measure(BENCH, f"{case}: in a browser", "skipped: no chromium (apt-get install -y chromium)"))
            return out
        browser = Chromium(binary, root / "profile")
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
    for key, what in (("failing", "failing-only filter"), ("search", "a search keystroke"),
                      ("next", "`n`: next failing row + its detail")):
        value = float(keys[key])
        out.append(Measure(BENCH, f"{case}: {what}", f"{value:.1f} ms", f"< {INTERACTION_TARGET_MS:.0f} ms",
                           value < INTERACTION_TARGET_MS))
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
