"""Issue 25, in a real browser: an example's report opened over file:// by headless Chromium draws its rows,
the failing-only filter (selected by the URL fragment) leaves only the failing ones, a failing row's detail
marks its differing paths; 10,000 rows open with only the rows in view in the DOM. `.ci/run` installs
Debian's chromium, so CI never skips these."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers.browser import DevTools, dump_dom, needs_chromium, rows_in
from helpers.cli import invoke_json
from helpers.html_report import embedded_data, synthetic_document
from helpers.paths import EXAMPLES

from workbench.report.html import write_report


@pytest.fixture(scope="module")
def chromium() -> str:
    return needs_chromium()


@pytest.fixture
def grading_report(tmp_path: Path) -> Path:
    root = tmp_path / "grading"
    shutil.copytree(EXAMPLES / "grading", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    return page


def test_the_rows_render_and_failing_only_leaves_the_failing(chromium: str, grading_report: Path,
                                                             tmp_path: Path) -> None:
    data = embedded_data(grading_report)
    failing = {str(r["i"]) for r in data["rows"] if r["verdict"] != "PASS"}
    assert failing and len(failing) < len(data["rows"])

    every = rows_in(dump_dom(chromium, grading_report, "", tmp_path / "browser"))
    assert [r["data-i"] for r in every.rows] == [str(r["i"]) for r in data["rows"]]
    assert [r["data-verdict"] for r in every.rows] == [r["verdict"] for r in data["rows"]]

    dom = dump_dom(chromium, grading_report, "failing", tmp_path / "browser")
    only = rows_in(dom)
    assert only.shown == len(failing)
    assert {r["data-i"] for r in only.rows} == failing
    assert all(r["data-verdict"] != "PASS" for r in only.rows)
    assert 'id="failing-only"' in dom and re.search(r'id="shown-count"[^>]*>showing 1 of 5 rows<', dom)
    # the first failing row opens: its name, the verdict, the differing lines marked
    name = next(r["name"] for r in data["rows"] if r["verdict"] != "PASS")
    assert f"<h2>{name}</h2>" in dom
    assert dom.count('class="l diff"') >= 4  # grade and details.band, on both sides


def test_a_search_and_a_set_from_the_fragment(chromium: str, grading_report: Path, tmp_path: Path) -> None:
    data = embedded_data(grading_report)
    searched = rows_in(dump_dom(chromium, grading_report, "q=distinction", tmp_path / "browser"))
    assert [r["data-i"] for r in searched.rows] == [str(r["i"]) for r in data["rows"] if "distinction" in r["name"]]
    one_set = rows_in(dump_dom(chromium, grading_report, "set=bands.json", tmp_path / "browser"))
    assert {r["data-i"] for r in one_set.rows} == {str(r["i"]) for r in data["rows"] if r["set"] == "bands.json"}


def test_ten_thousand_rows_open_with_only_the_rows_in_view_drawn(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    doc = synthetic_document(tmp_path / "project", 10_000)
    page = tmp_path / "big.html"
    write_report(page, doc)
    failing = sum(1 for r in doc["rows"] if r["verdict"] != "PASS")
    dom = dump_dom(chromium, page, "failing", tmp_path / "browser")
    shown = rows_in(dom)
    assert shown.shown == failing
    assert 0 < len(shown.rows) <= 120  # virtual: what fits the window and a few around it
    assert all(r["data-verdict"] == "FAIL" for r in shown.rows)
    rendered = re.search(r'data-rendered-ms="(\d+)"', dom)
    assert rendered is not None


KEYS = """
(() => {
  const key = k => document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
  const selected = () => { const r = document.querySelector('.row.selected');
                           return r ? {i: r.dataset.i, verdict: r.dataset.verdict} : null; };
  const title = () => document.querySelector('#detail h2').textContent;
  const out = {opened: selected(), opened_title: title()};
  key('j'); out.after_j = selected();
  key('k'); out.after_k = selected();
  key('n'); out.after_n = selected(); out.after_n_title = title();
  key('/'); out.focused = document.activeElement.id;
  const q = document.getElementById('search'); q.value = 'boundary'; q.dispatchEvent(new Event('input'));
  out.searched = [...document.querySelectorAll('.row')].map(r => r.dataset.i);
  q.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
  out.escaped = document.activeElement.id;
  q.value = ''; q.dispatchEvent(new Event('input'));
  document.getElementById('failing-only').click();
  out.failing = [...document.querySelectorAll('.row')].map(r => r.dataset.verdict);
  out.hash = location.hash;
  return JSON.stringify(out);
})()
"""


def test_the_keys_and_the_filters_respond(chromium: str, grading_report: Path, tmp_path: Path) -> None:
    """j / k move, n goes to the next failing row and opens it, / focuses the search, Escape leaves it, the
    failing-only box filters and the fragment follows: driven over the DevTools protocol."""
    data = embedded_data(grading_report)
    rows = data["rows"]
    failing = [str(r["i"]) for r in rows if r["verdict"] != "PASS"]
    browser = DevTools(chromium, tmp_path / "devtools")
    try:
        browser.open_page()
        browser.navigate(grading_report.resolve().as_uri())
        found = browser.evaluate(KEYS)
    finally:
        browser.close()
    assert found["opened"] == {"i": failing[0], "verdict": "FAIL"}  # it opens on the first failing row
    assert found["opened_title"] == rows[int(failing[0])]["name"]
    assert int(found["after_j"]["i"]) == (int(failing[0]) + 1) % len(rows)
    assert found["after_k"]["i"] == failing[0]
    assert found["after_n"]["verdict"] != "PASS" and found["after_n_title"] == rows[int(found["after_n"]["i"])]["name"]
    assert found["focused"] == "search" and found["escaped"] == "list"
    assert found["searched"] == [str(r["i"]) for r in rows if "boundary" in r["name"]]
    assert found["failing"] == ["FAIL"] * len(failing)
    assert found["hash"].startswith("#failing")
    assert browser.errors == []


WALK = """
(() => {
  const seen = [];
  const rows = +document.getElementById('list').dataset.shown;
  for (let i = 0; i < rows; i++) {
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'j', bubbles: true}));
    const detail = document.getElementById('detail');
    seen.push({i: document.querySelector('.row.selected').dataset.i, title: detail.querySelector('h2').textContent,
               results: detail.querySelectorAll('.result').length, blocks: detail.querySelectorAll('.block').length});
  }
  return JSON.stringify(seen);
})()
"""


@pytest.mark.parametrize("name", ["grading", "support-bot", "form-agent", "refund-agent"])
def test_every_rows_detail_draws_without_an_error(name: str, chromium: str, tmp_path: Path) -> None:
    """Each format's detail, every row of its example (the grading one against a baseline, with a trend):
    drawn, each result with blocks, and no exception or console error in the page."""
    root = tmp_path / name
    shutil.copytree(EXAMPLES / name, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    if name == "grading":
        invoke_json("run", str(root), "--update-baseline", "--min-pass-rate", "0")
    page = tmp_path / "report.html"
    invoke_json("run", str(root), "--html", str(page))
    rows = embedded_data(page)["rows"]
    browser = DevTools(chromium, tmp_path / "devtools")
    try:
        browser.open_page()
        browser.navigate(page.resolve().as_uri())
        seen = browser.evaluate(WALK)
    finally:
        browser.close()
    assert browser.errors == []
    assert sorted(int(s["i"]) for s in seen) == [r["i"] for r in rows]
    for shown in seen:
        row = rows[int(shown["i"])]
        assert shown["title"] == row["name"] and shown["results"] == len(row["results"]) and shown["blocks"] >= 1


def test_the_tag_filter_from_the_fragment(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    doc = synthetic_document(tmp_path / "project", 30)
    for row in doc["rows"]:
        row["tags"] = ["smoke"] if row["i"] % 4 == 0 else ["slow"]
    doc["tags"] = ["slow", "smoke"]
    page = tmp_path / "tags.html"
    write_report(page, doc)
    shown = rows_in(dump_dom(chromium, page, "tag=smoke", tmp_path / "browser"))
    assert [r["data-i"] for r in shown.rows] == [str(i) for i in range(0, 30, 4)]


def test_the_marks_show_in_the_list_and_the_detail(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    doc = synthetic_document(tmp_path / "project", 4)
    doc["rows"][0].update(flaky="3/5 samples passed", rescored=True, flip="newly failing")
    doc["rows"][0]["results"][0].update(samples="3/5", sample_verdicts=["PASS", "PASS", "FAIL", "PASS", "FAIL"])
    page = tmp_path / "marks.html"
    write_report(page, doc)
    dom = dump_dom(chromium, page, "row=0", tmp_path / "browser")
    first_row = dom[dom.index('data-i="0"'):dom.index('data-i="1"')]
    assert ">re-scored<" in first_row and ">flaky<" in first_row and "▼ new" in first_row
    detail = dom[dom.index('id="detail"'):]
    assert "3/5 samples passed" in detail
    assert re.search(r"samples: (<span class=\"(ok|bad)\">[✔✘]</span>){5}", detail)


def test_light_and_dark_follow_the_browsers_colour_scheme(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    page = tmp_path / "scheme.html"
    write_report(page, synthetic_document(tmp_path / "project", 3))
    browser = DevTools(chromium, tmp_path / "devtools")
    colours = {}
    try:
        browser.open_page()
        for scheme in ("light", "dark"):
            wanted = [{"name": "prefers-color-scheme", "value": scheme}]
            browser.send("Emulation.setEmulatedMedia", {"features": wanted})
            browser.navigate(page.resolve().as_uri())
            colours[scheme] = browser.evaluate("JSON.stringify(getComputedStyle(document.body).backgroundColor)")
    finally:
        browser.close()
    assert colours == {"light": "rgb(255, 255, 255)", "dark": "rgb(13, 17, 23)"}
    assert browser.errors == []
