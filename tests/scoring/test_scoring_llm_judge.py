"""LLM judges against a local fake judge: a command (prompt on stdin) and an HTTP endpoint on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from workbench.config import Config, JudgeConfig
from workbench.model import EvaluatorDef, Verdict
from workbench.scoring import CriterionError, Score, ScoreInput, scorer_for
from workbench.scoring.judge_client import clear_cache

SEMANTIC = "uipath-llm-judge-output-semantic-similarity"
STRICT = "uipath-llm-judge-output-strict-json-similarity"

FAKE_JUDGE = """\
import json, os, sys
prompt = sys.stdin.read()
with open(os.environ["JUDGE_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({"prompt": prompt, "model": os.environ.get("WORKBENCH_JUDGE_MODEL")}) + "\\n")
print(os.environ.get("JUDGE_REPLY", '{"score": 73, "justification": "close enough"}'))
"""


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


@pytest.fixture
def judge_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "judge.log"
    monkeypatch.setenv("JUDGE_LOG", str(log))
    return log


def command_config(tmp_path: Path, timeout: float = 20.0) -> Config:
    script = tmp_path / "judge.py"
    script.write_text(FAKE_JUDGE)
    return Config(root=tmp_path, judge=JudgeConfig(command=[sys.executable, str(script)], timeout=timeout))


def score(config: Config | None, expected: Any, output: Any, type_id: str = SEMANTIC, **ev_config: Any) -> Score:
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, type_id, ev_config, {})
    scorer = scorer_for(type_id)
    assert scorer is not None and scorer.check_config(ev) is None
    try:
        return asyncio.run(scorer.score(ScoreInput(ev, {"expectedOutput": expected}, output, config=config)))
    except CriterionError as exc:
        return Score.error(str(exc))


def calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_command_judge_score_is_divided_by_100_and_graded(tmp_path: Path, judge_log: Path):
    config = command_config(tmp_path)
    result = score(config, {"answer": "Paris"}, {"answer": "It's Paris"}, targetOutputKey="answer")
    assert (result.verdict, result.score) == (Verdict.FAIL, 0.73)
    assert "close enough" in result.detail and "pass threshold 1" in result.detail
    passing = score(config, {"answer": "Paris"}, {"answer": "It's Paris"}, targetOutputKey="answer",
                    passThreshold=0.7)
    assert passing.verdict is Verdict.PASS


def test_prompt_carries_both_values_and_the_model(tmp_path: Path, judge_log: Path):
    score(command_config(tmp_path), {"city": "Paris"}, {"city": "Lyon"}, model="gpt-4o-mini")
    (call,) = calls(judge_log)
    assert '"city": "Paris"' in call["prompt"] and '"city": "Lyon"' in call["prompt"]
    assert "score" in call["prompt"] and call["model"] == "gpt-4o-mini"


def test_custom_prompt_fills_placeholders_once(tmp_path: Path, judge_log: Path):
    prompt = "E=<{{ExpectedOutput}}> A=<{{ActualOutput}}>"
    score(command_config(tmp_path), {"result": "yes"}, {"result": "say {{ExpectedOutput}}"}, targetOutputKey="result",
          prompt=prompt)
    (call,) = calls(judge_log)
    assert "E=<yes> A=<say {{ExpectedOutput}}>" in call["prompt"]


def test_strict_json_judge_uses_its_own_rubric(tmp_path: Path, judge_log: Path):
    score(command_config(tmp_path), {"a": 1}, {"a": 2}, STRICT)
    (call,) = calls(judge_log)
    assert "100/N" in call["prompt"]


def test_identical_output_passes_without_asking(tmp_path: Path, judge_log: Path):
    result = score(command_config(tmp_path), {"a": [1, 2]}, {"a": [1, 2]})
    assert (result.verdict, result.score) == (Verdict.PASS, 1.0)
    assert "not asked" in result.detail and calls(judge_log) == []


def test_the_same_question_is_asked_once(tmp_path: Path, judge_log: Path):
    config = command_config(tmp_path)
    first = score(config, {"a": 1}, {"a": 2})
    second = score(config, {"a": 1}, {"a": 2})
    assert first.score == second.score == 0.73 and len(calls(judge_log)) == 1


def test_no_judge_configured_is_an_error_that_shows_how(tmp_path: Path):
    for config in (None, Config(root=tmp_path)):
        result = score(config, {"a": 1}, {"a": 2})
        assert result.verdict is Verdict.ERROR
        assert "[judge]" in result.detail and "command =" in result.detail and "url =" in result.detail


@pytest.mark.parametrize(("reply", "needle"), [
    ("I think it is fine", "not JSON with a \"score\""),
    ('{"score": 150}', "from 0 to 100"),
    ('{"score": 1e400}', "from 0 to 100"),
    ('{"justification": "no score"}', "not JSON with a \"score\""),
    ("", "empty"),
])
def test_unusable_judge_replies_are_errors(tmp_path: Path, judge_log: Path, monkeypatch: pytest.MonkeyPatch,
                                          reply: str, needle: str):
    monkeypatch.setenv("JUDGE_REPLY", reply)
    result = score(command_config(tmp_path), {"a": 1}, {"a": 2})
    assert result.verdict is Verdict.ERROR and needle in result.detail


@pytest.mark.parametrize("reply", ['```json\n{"score": 40, "justification": "meh"}\n```', "40", '{"score": "40"}'])
def test_lenient_reply_shapes(tmp_path: Path, judge_log: Path, monkeypatch: pytest.MonkeyPatch, reply: str):
    monkeypatch.setenv("JUDGE_REPLY", reply)
    assert score(command_config(tmp_path), {"a": 1}, {"a": 2}).score == 0.4


def test_failing_and_hanging_judge_commands_are_errors(tmp_path: Path):
    failing = Config(root=tmp_path, judge=JudgeConfig(
        command=[sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"]))
    result = score(failing, {"a": 1}, {"a": 2})
    assert result.verdict is Verdict.ERROR and "exited with code 3" in result.detail and "boom" in result.detail
    hanging = Config(root=tmp_path, judge=JudgeConfig(
        command=[sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5))
    result = score(hanging, {"a": 1}, {"a": 2})
    assert result.verdict is Verdict.ERROR and "timed out" in result.detail


def test_missing_values_fail_or_error_before_asking(tmp_path: Path, judge_log: Path):
    config = command_config(tmp_path)
    missing_actual = score(config, {"answer": "x"}, {"other": 1}, targetOutputKey="answer")
    assert missing_actual.verdict is Verdict.FAIL and "answer: missing" in missing_actual.detail
    missing_expected = score(config, {"other": "x"}, {"answer": 1}, targetOutputKey="answer")
    assert missing_expected.verdict is Verdict.ERROR
    assert calls(judge_log) == []


@pytest.mark.parametrize(("config", "needle"), [
    ({"prompt": "Only {{ActualOutput}}"}, "{{ExpectedOutput}}"),
    ({"prompt": 5}, "prompt must be a string"),
    ({"temperature": "hot"}, "temperature"),
    ({"maxTokens": 0}, "maxTokens"),
    ({"targetOutputKey": ["a", "b"]}, "one dotted path"),
])
def test_bad_config_is_reported_up_front(config: dict[str, Any], needle: str):
    scorer = scorer_for(SEMANTIC)
    assert scorer is not None
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, SEMANTIC, config, {})
    assert needle in (scorer.check_config(ev) or "")


# -- HTTP ----------------------------------------------------------------------------------------


class FakeEndpoint(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []
    status = 200
    content = '{"score": 90, "justification": "same meaning"}'
    busy_first = 0  # answer 429 with `Retry-After: 1` to this many requests first

    def do_POST(self) -> None:  # http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeEndpoint.requests.append({"path": self.path, "body": body,
                                      "auth": self.headers.get("Authorization"), "at": time.monotonic()})
        if len(FakeEndpoint.requests) <= FakeEndpoint.busy_first:
            self.send_response(429)
            self.send_header("Retry-After", "1")
            self.end_headers()
            self.wfile.write(b'{"error": "slow down"}')
            return
        if FakeEndpoint.status != 200:
            self.send_response(FakeEndpoint.status)
            self.end_headers()
            self.wfile.write(b'{"error": "overloaded"}')
            return
        reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": FakeEndpoint.content}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(reply.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    FakeEndpoint.requests = []
    FakeEndpoint.status = 200
    FakeEndpoint.busy_first = 0
    server = HTTPServer(("127.0.0.1", 0), FakeEndpoint)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_http_judge_posts_a_chat_completion(endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TEST_JUDGE_KEY", "sk-test")
    config = Config(root=tmp_path, judge=JudgeConfig(url=endpoint, model="judge-model", api_key_env="TEST_JUDGE_KEY"))
    result = score(config, {"reply": "Hello"}, {"reply": "Hi there"}, targetOutputKey="reply", maxTokens=200,
                   passThreshold=0.8)
    assert (result.verdict, result.score) == (Verdict.PASS, 0.9)
    (request,) = FakeEndpoint.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "judge-model" and body["max_tokens"] == 200 and body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "Hello" in body["messages"][1]["content"] and "Hi there" in body["messages"][1]["content"]


def test_http_judge_falls_back_to_the_evaluator_model(endpoint: str, tmp_path: Path):
    config = Config(root=tmp_path, judge=JudgeConfig(url=endpoint + "/chat/completions", api_key_env="UNSET_KEY_X"))
    score(config, {"a": 1}, {"a": 2}, model="gpt-4o")
    (request,) = FakeEndpoint.requests
    assert request["body"]["model"] == "gpt-4o" and request["auth"] is None
    no_model = score(config, {"a": 1}, {"a": 3})
    assert no_model.verdict is Verdict.ERROR and "model" in no_model.detail


def test_http_errors_are_reported(endpoint: str, tmp_path: Path):
    # A 4xx other than 429 is final. (A 500 is retried since issue 34, as the OpenAI SDK does:
    # tests/scoring/test_judge_http.py.)
    FakeEndpoint.status = 400
    config = Config(root=tmp_path, judge=JudgeConfig(url=endpoint, model="m"))
    result = score(config, {"a": 1}, {"a": 2})
    assert result.verdict is Verdict.ERROR and "HTTP 400" in result.detail and "overloaded" in result.detail
    assert len(FakeEndpoint.requests) == 1  # a 400 is not retried


def test_429_is_retried_after_the_wait_the_endpoint_asks_for(endpoint: str, tmp_path: Path):
    FakeEndpoint.busy_first = 1
    config = Config(root=tmp_path, judge=JudgeConfig(url=endpoint, model="m", timeout=20))
    result = score(config, {"a": 1}, {"a": 2})
    assert result.verdict is not Verdict.ERROR and result.score == 0.9
    first, second = FakeEndpoint.requests
    assert second["at"] - first["at"] >= 0.9  # Retry-After: 1 was honoured


def test_busy_endpoints_are_retried_until_the_deadline(endpoint: str, tmp_path: Path):
    FakeEndpoint.status = 503
    config = Config(root=tmp_path, judge=JudgeConfig(url=endpoint, model="m", timeout=5))
    result = score(config, {"a": 1}, {"a": 2})
    assert result.verdict is Verdict.ERROR and "HTTP 503" in result.detail and "gave up after" in result.detail
    assert len(FakeEndpoint.requests) >= 2  # 0.5 s, then 1 s of backoff fit in the 5 s deadline (room for load)


def test_unreachable_or_non_http_urls_are_errors(tmp_path: Path):
    closed = Config(root=tmp_path, judge=JudgeConfig(url="http://127.0.0.1:9/v1", model="m", timeout=5))
    assert "cannot reach" in score(closed, {"a": 1}, {"a": 2}).detail
    local_file = Config(root=tmp_path, judge=JudgeConfig(url="file:///etc/passwd", model="m"))
    assert "http:// or https://" in score(local_file, {"a": 1}, {"a": 2}).detail


def test_judge_answers_are_remembered_across_processes(tmp_path: Path, judge_log: Path):
    """Two `workbench run`s ask the judge once; `--no-cache` asks again."""
    from helpers.cli import cli_env, invoke_workbench
    from helpers.project import COMMAND_CONFIG, make_project, row

    (tmp_path / "judge.py").write_text(FAKE_JUDGE)
    judge = {"command": [sys.executable, str(tmp_path / "judge.py")], "timeout": 20}
    root = make_project(
        tmp_path / "project",
        sets={"replies": {"version": "1.0", "id": "s", "name": "s", "evaluatorRefs": ["similar"],
                          "evaluations": [row("hi", {"output": {"reply": "Hello"}}, {"reply": "Hi"}, ref="similar")]}},
        evaluators={"similar": {"id": "similar", "evaluatorTypeId": SEMANTIC,
                                "evaluatorConfig": {"targetOutputKey": "reply", "passThreshold": 0.5}}},
        config={"runner": COMMAND_CONFIG, "judge": judge})
    env = cli_env(JUDGE_LOG=str(judge_log))

    def asked() -> int:
        return len(judge_log.read_text().splitlines()) if judge_log.exists() else 0

    first = invoke_workbench("run", str(root), env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert asked() == 1
    second = invoke_workbench("run", str(root), env=env)
    assert second.returncode == 0 and asked() == 1  # remembered under .workbench/
    third = invoke_workbench("run", str(root), "--no-cache", env=env)
    assert third.returncode == 0 and asked() == 2
