"""Issue 25: a format draws its rows in the HTML report through its `html_detail` (`HasHtmlDetail`) (a module of its own
package) and nothing else names it; without one it gets the default (inputs, expected | actual); a renderer
that raises costs its row's detail, never the report."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from helpers.html_report import synthetic_source

from workbench.dialects import all_dialects
from workbench.dialects.base import Dialect, HasHtmlDetail, detail_blocks
from workbench.dialects.detail import RowDetail, differing_paths
from workbench.report.html import data


class ToyDialect(Dialect):
    name: ClassVar[str] = "toy-html"
    html_detail: ClassVar[str] = "helpers.html_report:toy_detail_blocks"


class BrokenDialect(Dialect):
    name: ClassVar[str] = "broken-html"
    html_detail: ClassVar[str] = "helpers.html_report:no_such_function"


def test_a_format_draws_its_own_detail(tmp_path: Path) -> None:
    result = synthetic_source(tmp_path, 1).report.results[0]
    blocks = detail_blocks(ToyDialect(), RowDetail(result))
    assert blocks == [{"kind": "text", "title": "Toy", "text": f"toy says {result.actual!r}", "tone": ""}]


def test_without_a_renderer_a_format_gets_expected_beside_actual(tmp_path: Path) -> None:
    result = synthetic_source(tmp_path, 1).report.results[0]  # row 0 fails
    kinds = [b["kind"] for b in detail_blocks(Dialect(), RowDetail(result))]
    assert kinds == ["json", "sides"]


def test_a_broken_renderer_costs_only_its_rows_detail(tmp_path: Path) -> None:
    result = synthetic_source(tmp_path, 1).report.results[0]
    blocks = data.row_blocks(BrokenDialect(), RowDetail(result))
    assert blocks[0]["tone"] == "error" and "could not be drawn" in blocks[0]["text"]


def test_every_registered_format_with_a_renderer_names_a_function_of_its_own_package() -> None:
    for dialect in all_dialects():
        if isinstance(dialect, HasHtmlDetail):
            module = dialect.html_detail.partition(":")[0]
            assert module.startswith(type(dialect).__module__.rsplit(".", 1)[0]) or module.startswith(
                type(dialect).__module__), dialect.name


def test_differing_paths_follow_the_comparators_rules() -> None:
    assert differing_paths({"a": 85, "b": [1, 2]}, {"a": 85.0, "b": [1, 2]}) == []
    assert differing_paths({"a": True}, {"a": 1}) == [["a"]]
    assert differing_paths({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2, "c": 3}], "d": None}) == [["d"], ["a", 1, "c"]]
    assert len(differing_paths(list(range(200)), list(range(1, 201)))) == 50
