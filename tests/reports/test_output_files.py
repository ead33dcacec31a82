"""The reports a user names a file for (`--html`, `--md`, `--junit`, and `report --html/--md`) follow one rule
(`report/output_file.py`): a link, a FIFO or a folder there is refused by name and left as it was, never written
through; a missing folder is made; the file is written whole (a temp file renamed: no temp left beside it)."""

from __future__ import annotations

import os
import shutil

import pytest
from helpers.cli import invoke_workbench
from helpers.paths import EXAMPLES

FLAGS = {"--html": "the HTML report", "--md": "the Markdown digest", "--junit": "the JUnit XML"}


@pytest.fixture(scope="module")
def grading(tmp_path_factory):
    """The grading example, run once (so `report` has an iteration); the tests only read it."""
    root = tmp_path_factory.mktemp("outputs") / "grading"
    shutil.copytree(EXAMPLES / "grading", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    first = invoke_workbench("run", str(root), "-q")
    assert first.returncode in (0, 1), first.stderr
    return root


def _hostile(tmp_path):
    """A link to a file outside, a FIFO and a folder, each where a report is asked to go."""
    kept = tmp_path / "kept.txt"
    kept.write_text("keep me\n")
    (tmp_path / "link.out").symlink_to(kept)
    os.mkfifo(tmp_path / "fifo.out")
    (tmp_path / "folder.out").mkdir()
    return kept, {"link.out": "a link", "fifo.out": "a FIFO", "folder.out": "a folder"}


@pytest.mark.parametrize("flag", list(FLAGS))
def test_run_refuses_a_link_a_fifo_and_a_folder(grading, tmp_path, flag):
    kept, cases = _hostile(tmp_path)
    for name, kind in cases.items():
        result = invoke_workbench("run", str(grading), flag, str(tmp_path / name), "--no-history", "-q")
        if name == "folder.out" and result.returncode == 2:  # --html and --junit: click refuses a folder itself
            assert "is a directory" in result.stderr
            continue
        assert result.returncode == 1, result.stderr
        assert f"cannot write {FLAGS[flag]} to {tmp_path / name}: it is {kind}, so workbench leaves it alone" \
            in result.stderr
    assert (tmp_path / "link.out").is_symlink() and kept.read_text() == "keep me\n"
    assert (tmp_path / "fifo.out").is_fifo() and list((tmp_path / "folder.out").iterdir()) == []


@pytest.mark.parametrize("flag", ["--html", "--md"])
def test_report_refuses_a_link(grading, tmp_path, flag):
    kept, _ = _hostile(tmp_path)
    result = invoke_workbench("report", str(grading), flag, str(tmp_path / "link.out"))
    assert result.returncode == 1
    assert f"cannot write {FLAGS[flag]} to {tmp_path / 'link.out'}: it is a link" in result.stderr
    assert kept.read_text() == "keep me\n"


@pytest.mark.parametrize("flag", list(FLAGS))
def test_run_makes_a_missing_folder_and_leaves_no_temp_file(grading, tmp_path, flag):
    target = tmp_path / "new" / "deeper" / "out.file"
    result = invoke_workbench("run", str(grading), flag, str(target), "--no-history", "-q")
    assert result.returncode in (0, 1), result.stderr
    assert target.is_file() and target.stat().st_size > 0
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.file"]


def test_report_md_makes_a_missing_folder(grading, tmp_path):
    target = tmp_path / "summaries" / "digest.md"
    result = invoke_workbench("report", str(grading), "--md", str(target))
    assert result.returncode == 0, result.stderr
    assert target.read_text().startswith("#")


def test_md_file_is_said_like_html(grading, tmp_path):
    """Issue 38 (9): `--md FILE` says what it wrote as `--html FILE` does; printing the digest (`--md`, `--md -`)
    adds nothing to it; with --json the line goes to stderr so stdout stays the document."""
    md, html = tmp_path / "digest.md", tmp_path / "report.html"
    result = invoke_workbench("run", str(grading), "--md", str(md), "--html", str(html), "-q")
    assert result.returncode in (0, 1), result.stderr
    assert f"wrote {md} (" in result.stdout and f"wrote {html} (" in result.stdout
    as_json = invoke_workbench("run", str(grading), "--md", str(md), "--json")
    assert f"wrote {md} (" in as_json.stderr and "wrote" not in as_json.stdout
    report = invoke_workbench("report", str(grading), "--md", str(md), "--html", str(html))
    assert report.returncode == 0, report.stderr
    assert f"wrote {md} (" in report.stdout and f"wrote {html} (" in report.stdout
    printed = invoke_workbench("report", str(grading), "--md")
    assert "wrote" not in printed.stdout and printed.stdout.startswith("## workbench:")
