"""Issue 25: a report meant to be shared carries no secret — the `.appilotsrc` key, the values of settings and
environment entries whose names look like KEY, TOKEN, SECRET or PASSWORD — neither where the settings are
shown nor anywhere a target printed or returned one (a log, an output, a trace)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers.cli import cli_env, invoke_json, invoke_workbench
from helpers.html_report import embedded_data
from helpers.paths import EXAMPLES

from workbench.config import load_config
from workbench.report.redact import REDACTED, redactor_for, secret_name

RC_KEY = "sk-live-7f3a9c1e5b2d4f60"
ENV_TOKEN = "tok-1234567890abcdef"
JUDGE_PASSWORD = "hunter2-correct-horse"
PROCESS_SECRET = "proc-secret-value-42"
PLAIN = "plain-visible-value"

LEAKY = """
import json, os, sys
inputs = json.load(sys.stdin)
print("using key", os.environ.get("APPILOTS_KEY"), "token", os.environ["SERVICE_TOKEN"], file=sys.stderr)
print(os.environ.get("MY_SECRET"), file=sys.stderr)
json.dump({"grade": "PASS" if inputs["score"] >= 50 else "FAIL", "echo": os.environ["SERVICE_TOKEN"],
           "plain": os.environ["PLAIN_SETTING"], "details": {"rawScore": inputs["score"]}}, sys.stdout)
"""


def leaky_project(tmp_path: Path) -> Path:
    root = tmp_path / "leaky"
    shutil.copytree(EXAMPLES / "grading", root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    (root / "leak.py").write_text(LEAKY, encoding="utf-8")
    (root / "workbench.toml").write_text(f"""
[runner]
kind = "command"
command = ["{{python}}", "leak.py"]
timeout = 10
env = {{ SERVICE_TOKEN = "{ENV_TOKEN}", PLAIN_SETTING = "{PLAIN}", APPILOTS_KEY = "{RC_KEY}" }}

[judge]
url = "http://127.0.0.1:9/v1"
api_key_env = "JUDGE_KEY_VARIABLE"
""", encoding="utf-8")
    (root / ".appilotsrc").write_text(json.dumps({"apiKey": RC_KEY, "user": {"password": JUDGE_PASSWORD}}),
                                      encoding="utf-8")
    return root


def test_no_secret_reaches_the_report(tmp_path: Path) -> None:
    root = leaky_project(tmp_path)
    page = tmp_path / "report.html"
    proc, doc = invoke_json("run", str(root), "--html", str(page), env=cli_env(MY_SECRET=PROCESS_SECRET))
    assert doc["results"], proc.stderr
    assert any(ENV_TOKEN in r.get("actual", {}).get("echo", "") for r in doc["results"])  # it did leak into the run
    text = page.read_text(encoding="utf-8")
    for secret in (RC_KEY, ENV_TOKEN, JUDGE_PASSWORD, PROCESS_SECRET):
        assert secret not in text, f"{secret} is in the report"
    data = embedded_data(page)
    assert data["settings"]["runner"]["env"]["SERVICE_TOKEN"] == REDACTED
    assert data["settings"]["runner"]["env"]["PLAIN_SETTING"] == PLAIN  # what is not a secret stays readable
    assert data["settings"]["judge"]["api_key_env"] == "JUDGE_KEY_VARIABLE"  # a variable's name, not its value
    first = data["rows"][0]["results"][0]
    assert REDACTED in first["log"] and PLAIN in json.dumps(first["blocks"])
    assert any(REDACTED in json.dumps(b, ensure_ascii=False) for b in first["blocks"])  # the output's echo of the token


def test_the_report_from_history_is_redacted_too(tmp_path: Path) -> None:
    root = leaky_project(tmp_path)
    invoke_json("run", str(root))
    page = tmp_path / "again.html"
    assert invoke_workbench("report", str(root), "--html", str(page)).returncode == 0
    text = page.read_text(encoding="utf-8")
    assert ENV_TOKEN not in text and RC_KEY not in text and REDACTED in text


def test_which_names_are_secret() -> None:
    for name in ("apiKey", "API_KEY", "OPENAI_API_KEY", "token", "GITHUB_TOKEN", "client_secret", "password",
                 "DB_PASSWD", "aws_credentials"):
        assert secret_name(name), name
    for name in ("api_key_env", "timeout", "command", "keep_files_mb", "PLAIN", "monkey_path", "author"):
        assert not secret_name(name), name


def test_short_environment_values_are_not_scrubbed_everywhere(tmp_path: Path) -> None:
    (tmp_path / "workbench.toml").write_text("", encoding="utf-8")
    redactor = redactor_for(load_config(tmp_path), {"SOME_TOKEN": "1", "LONG_TOKEN": "abcdefgh-long"})
    assert redactor.values == {"abcdefgh-long"}
    assert redactor.scrub({"a": "x abcdefgh-long y 1"}) == {"a": f"x {REDACTED} y 1"}


def test_scrubbing_keeps_an_integer_of_any_size(tmp_path: Path) -> None:
    """An output holding an integer past Python's 4,300-digit text limit (10**5000) is in the report as it is:
    the scrubbed text is read back exactly, never a traceback instead of the report."""
    (tmp_path / "workbench.toml").write_text("", encoding="utf-8")
    redactor = redactor_for(load_config(tmp_path), {"LONG_TOKEN": "abcdefgh-long"})
    doc = {"huge": 10**5000, "negative": -(2**70), "said": "x abcdefgh-long"}
    assert redactor.scrub(doc) == {"huge": 10**5000, "negative": -(2**70), "said": f"x {REDACTED}"}
