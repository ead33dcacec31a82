"""Benchmark 4: save-to-last-verdict latency in watch mode — SLOT for the lead (needs the watch loop).

What to measure: a project of 100 rows with a fast worker target (`kind = "python"`, e.g.
`common.TRIVIAL_TARGET` and `common.trivial_rows(100)` via `common.write_project`), the watch loop
running; touch the target file and time from the write to the last ResultReady of the iteration
that change triggered. Repeat (say 20 saves), report the median. Target: median < 300 ms.
"""

from __future__ import annotations

from common import Measure


def run(quick: bool = False) -> list[Measure]:
    return [Measure("4 save-to-verdict", "100 rows, python worker, median of repeated saves",
                    "not measured yet (slot for the watch loop)", "< 300 ms", None)]
