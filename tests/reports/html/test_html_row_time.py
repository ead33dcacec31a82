"""A row's time in the HTML report is its run's, not the sum of its evaluators' (a row scored by 9 evaluators
that ran once in 8.8 s showed 79 s): the longest of its results, as the TUI's labels show it."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from helpers.cli import invoke_json
from helpers.html_report import embedded_data, synthetic_source
from helpers.paths import EXAMPLES

from workbench.report.html import document


def test_a_row_scored_by_many_evaluators_shows_its_one_run_s_time(tmp_path: Path) -> None:
    source = synthetic_source(tmp_path, 1, failing_every=100)
    (only,) = source.report.results
    source.report.results = [dataclasses.replace(only, evaluator=f"ev{n}", duration_ms=8800.0 + n)
                             for n in range(9)]
    (row,) = document(source)["rows"]
    assert len(row["results"]) == 9
    assert row["ms"] == 8808.0  # the run's time (the longest result), not 79,236 ms
    assert [r["ms"] for r in row["results"]] == [8800.0 + n for n in range(9)]


def test_a_real_run_s_rows_show_the_longest_of_their_results(tmp_path: Path) -> None:
    root = tmp_path / "grading"  # bands.json's rows are scored by two evaluators
    shutil.copytree(EXAMPLES / "grading", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    rows = embedded_data(page)["rows"]
    several = [r for r in rows if len(r["results"]) > 1 and sum(x["ms"] for x in r["results"]) > 0]
    assert several, "the example should have rows scored by more than one evaluator"
    for row in rows:
        assert row["ms"] == max(r["ms"] for r in row["results"])
