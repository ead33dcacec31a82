"""Issue 25: the report is one self-contained file — nothing it names is fetched (every src/href is `data:`
or `#`, no external style, font or script; a CSP that allows nothing from elsewhere) — and what a user's
rows hold can't break out of the embedded data (`</script>`, `<!--`, U+2028 come back as they were)."""

from __future__ import annotations

import re
from pathlib import Path

from helpers.html_report import embedded_data, parse_page, synthetic_source

from workbench.report.html import document, embedded_json, render, write_report

HOSTILE = ["</script><script>alert(1)</script>", "<!-- <script>", "</SCRIPT >", "\u2028\u2029", "&lt;b&gt; & <b>",
           "]]>", "<style></style><link rel=stylesheet href=https://evil.example/x.css>"]


def hostile_page(tmp_path: Path) -> tuple[str, dict]:
    source = synthetic_source(tmp_path, 12)
    for index, result in enumerate(source.report.results):
        text = HOSTILE[index % len(HOSTILE)]
        result.row_name = text
        result.actual = {"reply": text, text: [text]}
        result.log = text
        result.detail = text
    doc = document(source)
    return render(doc), doc


def test_user_text_cannot_close_the_data_element(tmp_path: Path) -> None:
    text, doc = hostile_page(tmp_path)
    page = parse_page(text)
    assert len(page.scripts) == 2  # the data and the page's own script: nothing a row said became one
    assert page.scripts[0] == {"type": "application/json", "id": "report-data"}
    assert "link" in page.tags and page.tags.count("link") == 1  # only our data: icon
    assert embedded_data(text) == doc
    names = [r["name"] for r in embedded_data(text)["rows"]]
    assert names[:len(HOSTILE)] == HOSTILE


def test_the_embedded_json_has_no_markup_characters() -> None:
    encoded = embedded_json({"a": "</script>", "b": "<!--", "c": "&", "d": "\u2028"})
    assert not set("<>&") & set(encoded) and "\u2028" not in encoded


def test_nothing_is_fetched_from_anywhere(tmp_path: Path) -> None:
    text, _ = hostile_page(tmp_path)
    page = parse_page(text)
    assert page.links, "the icon link is expected"
    for tag, attribute, value in page.links:
        assert value.startswith(("data:", "#")), f"<{tag} {attribute}={value!r}> names something outside the file"
    markup = re.sub(r'<script type="application/json" id="report-data">.*?</script>', "", text, flags=re.S)
    assert "://" not in markup, "the page's own markup, style and script name no URL at all"
    for css in page.styles:
        assert "@import" not in css and "url(" not in css and "@font-face" not in css
    assert "default-src 'none'" in text  # and the browser is told to fetch nothing even if something slipped in
    script = page.script_texts[1]
    assert script.count("innerHTML") == 1  # the trend chart, built from numbers alone
    for call in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "EventSource", ".src =", "document.write"):
        assert call not in script


def test_the_page_is_written_whole(tmp_path: Path) -> None:
    doc = document(synthetic_source(tmp_path, 3))
    target = tmp_path / "out" / "report.html"
    size = write_report(target, doc)
    assert target.stat().st_size == size
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]  # no temp file left


def test_the_page_follows_the_colour_scheme(tmp_path: Path) -> None:
    text = render(document(synthetic_source(tmp_path, 1)))
    assert "@media (prefers-color-scheme: dark)" in text and 'name="color-scheme" content="light dark"' in text


def test_a_huge_output_is_cut_so_the_page_stays_small(tmp_path: Path) -> None:
    source = synthetic_source(tmp_path, 2)
    huge = {"items": [{"n": i, "text": "x" * 100} for i in range(20_000)]}  # about 2.4 MB of JSON
    source.report.results[0].actual = huge
    source.report.results[0].trace = [{"type": "tool_call", "name": "t", "args": huge}]
    text = render(document(source))
    assert len(text) < 600_000
    row = embedded_data(text)["rows"][0]["results"][0]
    sides = next(b for b in row["blocks"] if b["kind"] == "sides")
    assert isinstance(sides["right"]["value"], str) and "cut:" in sides["right"]["value"]
    assert "cut:" in row["trace"][0]
