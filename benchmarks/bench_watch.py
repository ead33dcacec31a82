"""Benchmark 4: save-to-last-verdict latency in watch mode: 100 rows with a fast target, the watch loop
running; time from writing a file to the last verdict of the iteration that change triggered, over
repeated saves (watch_latency.py does the measuring). Target: median < 300 ms with a worker target."""

from __future__ import annotations

from common import Measure
from watch_latency import available, measure

TARGET_S = 0.3


def run(quick: bool = False) -> list[Measure]:
    saves = 5 if quick else 20
    measures = []
    for kind, label in (("python", "python callable"), ("worker", "JSON-lines worker")):
        why_not = available(kind)
        if why_not:
            measures.append(Measure("4 save-to-verdict", f"100 rows, {label}", f"skipped: {why_not}", "< 300 ms"))
            continue
        latency = measure(kind, 100, saves)
        measures.append(Measure(
            "4 save-to-verdict", f"100 rows, {label}, {saves} saves",
            f"median {latency.median * 1000:.0f} ms, p90 {latency.p90 * 1000:.0f} ms",
            "< 300 ms median", latency.median < TARGET_S))
    return measures
