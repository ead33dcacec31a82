"""Issue 32, points 3 and 4: one redactor for every output that leaves the terminal. A key that lives only in
the project's `.env` (the target loads it itself, as python-dotenv does) and one that lives only under a
secret-named key of the target's output (`{"credentials": {"api_key": …}}`) reach the run — its log, its
output — and appear in none of the HTML report, the Markdown digest (`run --md`, `report --md`), the GitHub
annotations, `compare` (text and `--json`), the MCP answers, or `run --json --redact`."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.paths import EXAMPLES

from workbench.agent.digest import build_digest
from workbench.agent.loop import AgentLoop
from workbench.agent.tools import call_tool, digest_answer, redacted
from workbench.config import load_config
from workbench.history import HistoryStore
from workbench.model import Result, Verdict
from workbench.report.dotenv import parse_dotenv
from workbench.report.redact import MIN_SCRUBBED, REDACTED, Redactor, redactor_for, secret_output_key

DOTENV_KEY = "sk-dotenv-9f8e7d6c5b4a3921"
OUTPUT_KEY = "out-secret-5a4b3c2d1e0f"
SECRETS = (DOTENV_KEY, OUTPUT_KEY)

TARGET = f"""
import json, pathlib, sys

def dotenv_key():  # what python-dotenv would load: the key is in no environment workbench sees
    for line in pathlib.Path(".env").read_text().splitlines():
        if "OPENAI_API_KEY=" in line:
            return line.split("=", 1)[1].split("#")[0].strip().strip('"')

key, mode = dotenv_key(), pathlib.Path("notes.txt").read_text().strip()
inputs = json.load(sys.stdin)
print(f"OPENAI_API_KEY={{key}}", file=sys.stderr)
print("session opened with {OUTPUT_KEY}-" + mode, file=sys.stderr)
json.dump({{"grade": "PASS", "about": mode + " " + key, "credentials": {{"api_key": "{OUTPUT_KEY}-" + mode}},
           "details": {{"rawScore": inputs["score"]}}}}, sys.stdout)
"""


def leaky_project(tmp_path: Path) -> Path:
    root = tmp_path / "leaky"
    shutil.copytree(EXAMPLES / "grading", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    (root / "grade.py").write_text(TARGET, encoding="utf-8")
    (root / "notes.txt").write_text("one\n", encoding="utf-8")
    (root / ".env").write_text(f'# the agent\'s keys\nexport OPENAI_API_KEY="{DOTENV_KEY}"  # live\nDEBUG=1\n',
                               encoding="utf-8")
    return root


def assert_redacted(text: str, what: str) -> None:
    for secret in SECRETS:
        at = text.find(secret)
        assert at < 0, f"{secret} is in {what}: …{text[max(0, at - 200):at + 100]}…"
    assert REDACTED in text or json.dumps(REDACTED)[1:-1] in text, f"nothing was redacted in {what}:\n{text[:2000]}"


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    root = leaky_project(tmp_path)
    proc, doc = invoke_json("run", str(root))
    plain = json.dumps(doc, ensure_ascii=False)
    for secret in SECRETS:  # the run did leak both: into the log and the output
        assert secret in plain, proc.stderr
    with HistoryStore.open(load_config(root)) as store:
        logs = [result.log for result in store.results(1)]
    assert any(f"OPENAI_API_KEY={DOTENV_KEY}" in log and OUTPUT_KEY in log for log in logs), logs
    assert DOTENV_KEY not in os.environ.get("OPENAI_API_KEY", "")
    return root


def test_the_html_report(leaky: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    assert invoke_workbench("report", str(leaky), "--html", str(page)).returncode == 0
    assert_redacted(page.read_text(encoding="utf-8"), "the HTML report")


def test_the_html_report_of_a_run(tmp_path: Path) -> None:
    root = leaky_project(tmp_path)
    page = tmp_path / "run.html"
    invoke_workbench("run", str(root), "--html", str(page))
    assert_redacted(page.read_text(encoding="utf-8"), "run --html")


def test_the_markdown_digest_of_report_md(leaky: Path) -> None:
    proc = invoke_workbench("report", str(leaky), "--md")
    assert proc.returncode == 0, proc.stderr
    assert "Failing rows" in proc.stdout
    assert_redacted(proc.stdout, "report --md")


def test_the_markdown_digest_of_run_md(tmp_path: Path) -> None:
    root = leaky_project(tmp_path)
    digest = tmp_path / "digest.md"
    invoke_workbench("run", str(root), "--md", str(digest))
    assert_redacted(digest.read_text(encoding="utf-8"), "run --md")


def test_github_annotations(tmp_path: Path) -> None:
    root = leaky_project(tmp_path)
    proc = invoke_workbench("run", str(root), "--annotations", "github")
    annotations = "\n".join(line for line in proc.stdout.splitlines() if line.startswith("::"))
    assert "::error" in annotations
    assert_redacted(annotations, "the annotations")


def test_junit_xml(tmp_path: Path) -> None:
    root = leaky_project(tmp_path)
    junit = tmp_path / "junit.xml"
    invoke_workbench("run", str(root), "--junit", str(junit))
    assert "<failure" in junit.read_text(encoding="utf-8")
    assert_redacted(junit.read_text(encoding="utf-8"), "the JUnit XML")


def _second_run(root: Path) -> None:
    (root / "notes.txt").write_text(f"two {DOTENV_KEY}\n", encoding="utf-8")  # a file that holds the key changes
    invoke_json("run", str(root))


def test_compare_text(leaky: Path) -> None:
    _second_run(leaky)
    proc = invoke_workbench("compare", str(leaky))
    assert proc.returncode == 0, proc.stderr
    assert "notes.txt" in proc.stdout and "about" in proc.stdout  # the code diff and the output diff are there
    assert_redacted(proc.stdout, "compare")


def test_compare_json(leaky: Path) -> None:
    _second_run(leaky)
    proc, doc = invoke_json("compare", str(leaky))
    assert [d["path"] for d in doc["files"]] == ["notes.txt"]
    assert doc["still_failing"] and doc["still_failing"][0]["output_diff"]
    assert_redacted(proc.stdout, "compare --json")


def test_mcp_answers(leaky: Path) -> None:
    async def drive() -> list[str]:
        loop = AgentLoop(load_config(leaky), join_live=False)
        try:
            answers = []
            asks = (("run", {"reuse": False, "wait_s": 100}), ("row", {"name": "score 85 passes with distinction"}),
                    ("history", {}))
            for name, args in asks:
                answer, is_error = await call_tool(loop, name, args)
                assert not is_error, answer.text
                answers.append(json.dumps(answer.structured, ensure_ascii=False) + "\n" + answer.text)
            return answers
        finally:
            await loop.aclose()

    run, row, history = asyncio.run(drive())
    assert_redacted(run, "the MCP run answer")
    assert_redacted(row, "the MCP row answer")
    assert "credentials" in row and "OPENAI_API_KEY=" in row  # the output and the log are shown, the keys are not
    for secret in SECRETS:
        assert secret not in history


def test_run_json_redact(tmp_path: Path) -> None:
    root = leaky_project(tmp_path)
    proc, doc = invoke_json("run", str(root), "--redact")
    assert doc["results"]
    assert_redacted(proc.stdout, "run --json --redact")
    first = doc["results"][0]
    assert first["actual"]["credentials"]["api_key"] == REDACTED
    assert first["actual"]["details"] == {"rawScore": 85} or "rawScore" in json.dumps(first["actual"])


def test_history_json_redact(leaky: Path) -> None:
    proc = invoke_workbench("history", str(leaky), "1", "--json", "--redact")
    assert json.loads(proc.stdout)["results"]
    assert_redacted(proc.stdout, "history 1 --json --redact")
    assert_redacted(invoke_workbench("history", str(leaky), "1", "--redact").stdout, "history 1 --redact")


def test_run_brief_redact(tmp_path: Path) -> None:
    root = leaky_project(tmp_path)
    proc = invoke_workbench("run", str(root), "--brief", "--redact")
    assert "FAIL" in proc.stdout
    for secret in SECRETS:
        assert secret not in proc.stdout


def test_run_text_redact_and_plain_text_as_it_is(tmp_path: Path) -> None:
    """`run --redact` redacts the result lines as they stream; without it the terminal shows what ran."""
    root = leaky_project(tmp_path)
    redacted = invoke_workbench("run", str(root), "--redact")
    assert "FAIL" in redacted.stdout
    assert_redacted(redacted.stdout, "run --redact")
    plain = invoke_workbench("run", str(root))
    assert OUTPUT_KEY in plain.stdout and DOTENV_KEY in plain.stdout


def test_a_dotenv_link_out_of_the_project_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "workbench.toml").write_text("", encoding="utf-8")
    outside = tmp_path / "elsewhere.env"
    outside.write_text("OUTSIDE_TOKEN=outside-secret-123456\n", encoding="utf-8")
    (root / ".env").symlink_to(outside)
    (root / ".env.local").write_text("LOCAL_TOKEN=local-secret-123456\n", encoding="utf-8")
    os.mkfifo(root / ".env.production")  # a FIFO is never opened to wait on a writer
    (root / ".envrc").mkdir()  # nor is a folder
    redactor = redactor_for(load_config(root), {})
    assert redactor.values == {"local-secret-123456"}


def test_dotenv_lines_are_read_as_dotenv_reads_them() -> None:
    text = ("# comment\n\nexport A_TOKEN=bare-value # a comment\nB_KEY = 'single # not a comment'\n"
            'C_SECRET="double \\"quoted\\" \\n"\nD_PASSWORD="two\nlines"\nnot a line\nE_TOKEN=\nPLAIN=#x\n')
    assert parse_dotenv(text) == {"A_TOKEN": "bare-value", "B_KEY": "single # not a comment",
                                  "C_SECRET": 'double "quoted" \n', "D_PASSWORD": "two\nlines", "E_TOKEN": "",
                                  "PLAIN": "#x"}


def test_which_output_keys_hold_a_secret() -> None:
    for key in ("api_key", "apiKey", "OPENAI_API_KEY", "accessKey", "token", "access_token", "client_secret",
                "password", "Authorization", "credentials", "private-key"):
        assert secret_output_key(key), key
    for key in ("key", "keys", "keywords", "row_key", "sortKey", "max_tokens", "tokenizer", "monkey", "api_key_env",
                "public_key", "author"):
        assert not secret_output_key(key), key


def test_an_output_secret_is_hidden_under_its_key_and_everywhere_else() -> None:
    redactor = Redactor().knowing([Result("s", "set.json", "r1", "row", "exact", Verdict.FAIL, 0.0,
                                          "got out-secret-1234", actual={"auth": {"api_key": "out-secret-1234"},
                                                                         "max_tokens": 1234, "key": "color"})])
    assert redactor.values == {"out-secret-1234"}
    assert redactor.text("log: out-secret-1234 and color") == f"log: {REDACTED} and color"


def test_a_secret_cut_by_a_clip_is_still_redacted(tmp_path: Path) -> None:
    """The agent digest clips each account (240 characters) before the MCP answer is redacted: the part of the
    `.env` key left beside the clip's `…` is replaced too, not only whole occurrences."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "workbench.toml").write_text("", encoding="utf-8")
    (root / ".env").write_text(f"OPENAI_API_KEY={DOTENV_KEY}\n", encoding="utf-8")
    detail = "x" * 230 + f" {DOTENV_KEY} and more"
    failing = Result("default", "set.json", "r1", "row", "exact", Verdict.FAIL, 0.0, detail, actual={})
    answer = redacted(load_config(root), digest_answer(build_digest([failing], None, iteration=1)))
    shown = json.dumps(answer.structured, ensure_ascii=False) + answer.text
    assert "x" * 200 in shown and "…" in shown  # the account was clipped inside the key
    assert DOTENV_KEY[:MIN_SCRUBBED] not in shown and REDACTED in shown
    assert Redactor({DOTENV_KEY}).text(f"…{DOTENV_KEY[-6:]} and {DOTENV_KEY[:5]}…") == f"…{REDACTED} and {REDACTED}…"
