"""The Markdown digest (`run --md FILE`, `workbench report --md`): bounded whatever the run (about 60 lines,
the rest counted), user text escaped so a row name can't break the table or inject HTML (checked by rendering
it with markdown-it, which Rich already depends on), the gate and the flips said, and the commands end to end."""

from __future__ import annotations

import os
import shutil

from helpers.cli import invoke_workbench
from helpers.paths import EXAMPLES
from markdown_it import MarkdownIt

from workbench.actions.share_run import SharedRun
from workbench.model import Problem, Result, Verdict
from workbench.report.markdown import MAX_LINES, markdown_digest, md_text

HOSTILE = "a|b `c` <script>x</script> **b** [l](https://x.io) @octocat #12 ~~s~~\\| &amp;\nn"


def _render(text: str) -> str:
    return MarkdownIt("commonmark").enable("table").enable("strikethrough").render(text)


def result(name: str, verdict: Verdict = Verdict.FAIL, *, detail: str = "grade: expected \"A\", got \"B\"",
           set_file: str = "grading.json", evaluator: str = "exact") -> Result:
    return Result("default", set_file, f"id-{name}", name, evaluator, verdict,
                  1.0 if verdict is Verdict.PASS else 0.0, detail)


def test_bounded_whatever_the_run():
    results = [result(f"row {i} " + "long name " * 30, detail="line one\n" * 50) for i in range(500)]
    results += [result(f"ok {i}", Verdict.PASS) for i in range(100)]
    previous = [result(f"row {i} " + "long name " * 30, Verdict.PASS) for i in range(300)]
    problems = [Problem(f"evals/broken{i}.json", "is not valid JSON " * 20) for i in range(40)]
    text = markdown_digest(SharedRun(results, None, problems, iteration=9, gate_passed=False,
                                       gate_reasons=["pass rate low"] * 10, gate_lines=["a format's gate"] * 10,
                                       previous=previous, previous_number=8))
    lines = text.splitlines()
    assert len(lines) <= MAX_LINES
    shown = sum(1 for line in lines if line.startswith("| ❌"))
    assert shown > 10
    assert f"… and {500 - shown} more failing rows" in text
    assert "### Since iteration 8" in text and "newly failing (300)" in text and "and 292 more" in text
    assert "### File problems (40)" in text and "and 35 more" in text
    assert len(text.encode()) < 60 * 400  # every line is bounded too


def test_a_small_run_lists_every_failing_row_erroring_first():
    results = [result("fails"), result("errs", Verdict.ERROR, detail="target crashed"), result("ok", Verdict.PASS)]
    text = markdown_digest(SharedRun(results, None, gate_passed=False, gate_reasons=["2 rows failing"],
                                       iteration=3, duration_s=1.25))
    lines = text.splitlines()
    assert lines[0] == "## workbench: ❌ gate failed · iteration 3"
    assert "**1/3 rows pass** · 1 failing · 1 error · 1/3 results · 1.2s" in lines
    rows = [line for line in lines if line.startswith("| ❌") or line.startswith("| ⚠️")]
    assert rows[0].startswith("| ⚠️ ERROR | grading.json | errs | \\[exact\\] target crashed")
    assert rows[1].startswith("| ❌ FAIL | grading.json | fails |")
    assert "more failing rows" not in text


def test_green_run():
    text = markdown_digest(SharedRun([result("ok", Verdict.PASS)], None, gate_passed=True, iteration=1))
    assert text.startswith("## workbench: ✅ gate passed · iteration 1\n")
    assert "Failing rows" not in text


def test_hostile_names_and_digests_stay_in_their_cells_and_inject_no_html():
    results = [result(HOSTILE, detail=HOSTILE, set_file="s|t`<b>.json"), result("plain")]
    text = markdown_digest(SharedRun(results, None, gate_passed=False, gate_reasons=[HOSTILE]))
    html = _render(text)
    assert len(HOSTILE) < 80  # shown whole in its cell
    assert "<script" not in html and "<b>" not in html and "<a " not in html
    assert html.count("<strong>") == 1  # the head's count, nothing of the user's
    assert "<code>" not in html and "<s>" not in html and "<del>" not in html
    rows = html.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]
    assert len(rows) == 2
    for row in rows:
        assert row.count("<td>") == 4  # the pipes in the name did not add cells
    first = rows[0].split("<td>")
    shown = HOSTILE.replace("\n", "\\n")
    import html as html_module
    assert html_module.unescape(first[3].split("</td>")[0]) == shown  # the row's name, exactly as written
    assert html_module.unescape(first[2].split("</td>")[0]) == "s|t`<b>.json"


def test_md_text_leaves_plain_words_alone():
    assert md_text("score 50 passes (boundary)") == "score 50 passes (boundary)"
    assert md_text("a|b") == "a\\|b"
    assert md_text("costs $5 and $6") == "costs \\$5 and \\$6"  # no math on GitHub
    assert md_text("x\x1b[2Jy") == "x\\\\x1b\\[2Jy"  # control characters made visible (as \x1b), then escaped


def test_flips_against_the_previous_iteration():
    previous = [result("was failing"), result("was passing", Verdict.PASS), result("steady", Verdict.PASS)]
    current = [result("was failing", Verdict.PASS), result("was passing"), result("steady", Verdict.PASS)]
    text = markdown_digest(SharedRun(current, None, previous=previous, previous_number=4, iteration=5))
    assert "- fixed (1): was failing" in text
    assert "- newly failing (1): was passing" in text


def _grading(tmp_path):
    root = tmp_path / "grading"
    shutil.copytree(EXAMPLES / "grading", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root


def test_run_md_file_and_report_md(tmp_path):
    root = _grading(tmp_path)
    digest = tmp_path / "summary.md"
    run = invoke_workbench("run", str(root), "--md", str(digest))
    assert run.returncode == 1
    text = digest.read_text()
    assert text.startswith("## workbench: ❌ gate failed · iteration 1\n")
    assert "**4/5 rows pass** · 1 failing · 6/7 results" in text
    assert ('| ❌ FAIL | grading.json | score 50 passes (boundary) | \\[exact\\-match\\-evaluator\\]' not in text)
    assert "| ❌ FAIL | grading.json | score 50 passes (boundary) | \\[exact-match-evaluator\\] details.band&#58; " \
           "expected \"pass\", got \"fail\" · grade&#58; expected \"PASS\", got \"FAIL\" |" in text
    assert "Gate failed: pass rate 6/7 (85.7%) is below the minimum 100.0%" in text
    again = invoke_workbench("run", str(root), "--md", "-", "--quiet")
    assert "### Since iteration 1" in again.stdout and "No row flipped." in again.stdout
    report = invoke_workbench("report", str(root), "--md")
    assert report.returncode == 0, report.stderr
    assert report.stdout.startswith("## workbench: ❌ gate failed · iteration 2\n")
    assert "### Since iteration 1" in report.stdout
    first = invoke_workbench("report", str(root), "1", "--md", str(tmp_path / "one.md"))
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "one.md").read_text() == text


def test_report_md_without_history(tmp_path):
    root = _grading(tmp_path)
    result = invoke_workbench("report", str(root), "--md")
    assert result.returncode != 0
    assert "run `workbench run` first" in result.stderr


def test_md_dash_is_refused_with_json(tmp_path):
    root = _grading(tmp_path)
    result = invoke_workbench("run", str(root), "--md", "-", "--json")
    assert result.returncode == 2
    assert "give --md a FILE" in result.stderr


def test_md_refuses_a_link_or_a_fifo_and_leaves_it_alone(tmp_path):
    root = _grading(tmp_path)
    target = tmp_path / "elsewhere.md"
    target.write_text("keep me\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    fifo = tmp_path / "fifo.md"
    os.mkfifo(fifo)
    for path, kind in ((link, "a link"), (fifo, "a FIFO")):
        result = invoke_workbench("run", str(root), "--md", str(path), "--no-history", "-q")
        assert result.returncode == 1
        assert f"it is {kind}, so workbench leaves it alone" in result.stderr
    assert link.is_symlink() and target.read_text() == "keep me\n"
    assert fifo.is_fifo()
