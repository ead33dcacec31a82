"""Issue 34: the README is a newcomer's page and the reference lives in docs/. Every relative link and #anchor
in README.md and docs/*.md resolves (GitHub's anchor rules), every docs page is reachable from the README, the
README still starts with the two commands a newcomer types, and every section the long README had is found in
the docs page it moved to."""

from __future__ import annotations

import re
import sys
from collections import deque
from pathlib import Path

import pytest
from helpers.paths import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks (a link or heading in a code block is no link or heading)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its rendered text, lowercased, punctuation dropped, spaces to '-'."""
    text = CODE_SPAN.sub(lambda m: m.group(2), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("**", "").replace("__", "")
    text = re.sub(r"(?<!\w)[*_]|[*_](?!\w)", "", text)  # emphasis markers, not snake_case
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in _prose(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    """Every link's target; a link's text may run over a line break (a paragraph is read as one line)."""
    out = []
    paragraphs = "\n".join(_prose(path.read_text(encoding="utf-8"))).split("\n\n")
    for line in (paragraph.replace("\n", " ") for paragraph in paragraphs):
        # a code span is literal text (`[x](y)` in one is no link), but a link's text may be a code span
        line = CODE_SPAN.sub(lambda m: "x" if "](" in m.group(2) else m.group(2).replace("[", "").replace("]", ""),
                             line)
        out.extend(match.group(1) for match in LINK.finditer(line))
    return out


def _resolve(source: Path, target: str) -> tuple[Path, str | None]:
    path, _, anchor = target.partition("#")
    return ((source.parent / path).resolve() if path else source), (anchor or None)


def test_the_slug_follows_githubs_rules():
    assert slug("Headless: `workbench run`") == "headless-workbench-run"
    assert slug("Share a run: a Markdown digest, GitHub annotations") == \
        "share-a-run-a-markdown-digest-github-annotations"
    assert slug("Pay once: re-scoring, remembered judges") == "pay-once-re-scoring-remembered-judges"
    assert slug("What workbench keeps under `.workbench/`") == "what-workbench-keeps-under-workbench"
    assert slug("`[runner] max_output_mb`") == "runner-max_output_mb"


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page):
        if EXTERNAL.match(target):
            continue  # no network in the tests
        path, anchor = _resolve(page, target)
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor is not None and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: {path.name} has no heading with the anchor #{anchor}")
        elif anchor is not None and path.suffix != ".md":
            broken.append(f"{target}: an anchor into a file that is not Markdown")
    return broken


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_and_anchor_resolves(page: Path):
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)


def test_the_checker_finds_a_missing_page_a_missing_anchor_and_a_link_over_a_line_break(tmp_path: Path):
    (tmp_path / "b.md").write_text("# Page B\n\n## A `code` section\n", encoding="utf-8")
    (tmp_path / "a.md").write_text(
        "# A\n\n[fine](b.md#a-code-section) [self](#a) [gone](c.md) [no anchor](b.md#page-c) [split\n"
        "over lines](b.md#nowhere)\n\n```\n[in code](d.md)\n```\n`[in a span](e.md)` [web](https://example.com)\n",
        encoding="utf-8")
    assert links(tmp_path / "a.md") == ["b.md#a-code-section", "#a", "c.md", "b.md#page-c", "b.md#nowhere",
                                        "https://example.com"]
    assert [problem.split(":")[0] for problem in broken_links(tmp_path / "a.md")] == [
        "c.md", "b.md#page-c", "b.md#nowhere"]


def test_every_docs_page_is_reachable_from_the_readme():
    reached, queue = {README.resolve()}, deque([README.resolve()])
    while queue:
        page = queue.popleft()
        for target in links(page):
            if EXTERNAL.match(target):
                continue
            path, _ = _resolve(page, target)
            if path.suffix == ".md" and path.exists() and path not in reached:
                reached.add(path)
                queue.append(path)
    unreached = [page.name for page in PAGES if page.resolve() not in reached]
    assert PAGES and not unreached, f"docs pages no link from README.md leads to: {unreached}"


def test_the_readme_is_a_newcomers_length_and_starts_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 450, "the README is for a newcomer: reference goes to docs/"
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    assert blocks[:2] == ["python3 -m pip install . && workbench demo\n",
                          "python3 -m pip install -e '.[test]' && python3 -m pytest\n"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m pip install -e '.[test]' && python3 -m pytest" in ci  # .ci/run runs the test command
    assert '"not slow and not browser and not cluster and not sdk"' in text  # the quick lane
    assert re.search(r"!\[[^\]]*\]\(screenshots/[^)]+\)", text), "the tour shows a screenshot"


# Every section of the README before issue 34 (1,717 lines), and the docs page holding its words now.
MOVED = {
    "Commands": "README.md",
    "The workbench (TUI)": "docs/tui.md",
    "Headless: `workbench run`": "docs/run.md",
    "Share a run: the HTML report": "docs/reports.md",
    "Share a run: a Markdown digest, GitHub annotations": "docs/reports.md",
    "What is redacted, where": "docs/redaction.md",
    "`workbench check`: the contract without running anything": "docs/check.md",
    "The file contract": "docs/uipath.md",
    "`workbench init`": "docs/uipath.md",
    "`uipath-exact-match`": "docs/evaluators.md",
    "Running the target": "docs/running.md",
    "Settings": "docs/settings.md",
    "The loop: `workbench watch`": "docs/watch.md",  # was "The loop: watch, history, baselines"
    "History": "docs/history.md",
    "Baselines and gates": "docs/baselines.md",
    "Repeats and flaky rows": "docs/repeats.md",
    "Failing rows first": "docs/watch.md",
    "Comparing two runs: `workbench compare`": "docs/history.md",
    "What workbench keeps under `.workbench/`": "docs/history.md",
    "From a coding agent": "docs/agents.md",
    "Pay once: re-scoring": "docs/reuse.md",
    "What re-scoring looks at": "docs/reuse.md",
    "Remembered judges": "docs/judges.md",
    "A warm interpreter for Python scripts": "docs/running.md",
    "Speed": "docs/speed.md",
    "Evaluator types": "docs/evaluators.md",
    "`workbench-assertions`": "docs/evaluators.md",
    "Regular expressions (`matches`, a tools file's `pattern`)": "docs/evaluators.md",
    "LLM judges": "docs/judges.md",
    "Traces": "docs/traces.md",
    "Accepting outputs and adding rows": "docs/accept.md",
    "Fast targets: workers and Python callables": "docs/running.md",
    "Beyond one machine: rows on a Ray cluster": "docs/cluster.md",
    "A real multi-node cluster": "docs/cluster.md",
    "Formats": "docs/index.md",  # was "Other eval formats"
    "Conversations (multi-turn evals, the Botpress ADK format)": "docs/conversations.md",
    "Scenarios: given a screen, when the user says X (Appilots eval)": "docs/scenarios.md",
    "Scripted replays: tools and approvals with no model (`evals/*.script.json`)": "docs/replays.md",
    "Turn any run into a case": "docs/replays.md",
    "UiPath coded agents (`uipath.json` + `evaluations/`, scored as `uipath eval` scores them)": "docs/uipath-coded.md",
    "Hardening": "docs/hardening.md",
    "Developing workbench": "docs/development.md",  # the README's test lanes, process marker and CI notes
}


@pytest.mark.parametrize(("heading", "page"), sorted(MOVED.items()))
def test_every_section_of_the_old_readme_has_a_page(heading: str, page: str):
    assert slug(heading) in anchors(REPO / page), f"{page} has no section {heading!r}"


def test_the_settings_page_generator_check_passes(capsys: pytest.CaptureFixture[str]):
    """`scripts/gen_settings_docs.py --check` (what CI and a contributor run) finds docs/settings.md current."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import gen_settings_docs
    finally:
        sys.path.remove(str(REPO / "scripts"))
    assert gen_settings_docs.SETTINGS_PAGE == DOCS / "settings.md"
    assert gen_settings_docs.main(["--check"]) == 0, capsys.readouterr().err
