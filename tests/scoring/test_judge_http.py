"""The HTTP judge's call (issue 34: httpx with tenacity's retries), against `httpx.MockTransport` and a fake
clock: retries and their backoff, `Retry-After` (seconds and an HTTP date) capped by `[judge] timeout`, final
answers reported with their status and body, the concurrency limit and its loop, cancellation, and keys kept out
of every message. No network, no wall-clock sleep: the fake `sleep` only moves the fake clock.
(The loopback server tests are tests/scoring/test_scoring_llm_judge.py and test_llm_judge_deadline.py.)"""

from __future__ import annotations

import asyncio
import email.utils
import gc
import json
import sys
import weakref
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import workbench.scoring
from workbench.config import Config, JudgeConfig
from workbench.model import EvaluatorDef, Verdict
from workbench.scoring import ScoreInput, judge_http, scorer_for
from workbench.scoring.judge_client import JudgeError, JudgeReply, JudgeRequest, ask, clear_cache, in_flight

URL = "http://judge.test/v1"
WALL = 1_800_000_000.0  # the fake wall clock's start, a whole second (HTTP dates have no fractions)
SEMANTIC = "uipath-llm-judge-output-semantic-similarity"

Handler = Callable[[httpx.Request], Awaitable[httpx.Response]]


class FakeClock:
    """monotonic/wall clocks that only `sleep` moves; every wait asked for is kept in `slept`."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return WALL + self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class Endpoint:
    """A scripted chat-completions endpoint: each request gets the next answer of `answers` (the last one
    repeats); an answer is a Response, an exception to raise, or a coroutine function to await."""

    def __init__(self) -> None:
        self.answers: list[Any] = [completion(90)]
        self.requests: list[httpx.Request] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            answer = await answer(request)
        assert isinstance(answer, httpx.Response)
        return answer


def completion(score: int) -> httpx.Response:
    content = json.dumps({"score": score, "justification": "fine"})
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": content}}]})


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> Endpoint:
    served = Endpoint()
    monkeypatch.setattr(judge_http, "WIRING", judge_http.Wiring(transport=httpx.MockTransport(served),
                                                                monotonic=clock.monotonic, wall=clock.wall,
                                                                sleep=clock.sleep))
    return served


def judge(**settings: Any) -> JudgeConfig:
    return JudgeConfig(**{"url": URL, "model": "m", "cache": False, "api_key_env": "UNSET_JUDGE_KEY_X", **settings})


async def asked(config: JudgeConfig, question: str = "user") -> JudgeReply:
    return await ask(config, Path("."), JudgeRequest("system", question))


async def test_a_busy_answer_or_a_dropped_connection_is_retried_after_a_backoff(endpoint: Endpoint,
                                                                                 clock: FakeClock):
    endpoint.answers = [httpx.Response(503, text="overloaded"), httpx.Response(500),
                        httpx.ConnectError("connection refused"), completion(80)]
    reply = await asked(judge(timeout=60))
    assert reply.score == 80 and len(endpoint.requests) == 4
    first, second, third = clock.slept  # 0.5 s, 1 s, 2 s, each with up to JITTER_S more
    assert 0.5 <= first <= 0.5 + judge_http.JITTER_S and 1 <= second <= 1 + judge_http.JITTER_S
    assert 2 <= third <= 2 + judge_http.JITTER_S


async def test_retry_after_in_seconds_is_honoured(endpoint: Endpoint, clock: FakeClock):
    endpoint.answers = [httpx.Response(429, headers={"Retry-After": "7"}), completion(90)]
    assert (await asked(judge(timeout=60))).score == 90
    assert clock.slept == [7.0]


async def test_retry_after_as_an_http_date_is_honoured(endpoint: Endpoint, clock: FakeClock):
    when = email.utils.formatdate(WALL + 30, usegmt=True)
    endpoint.answers = [httpx.Response(503, headers={"Retry-After": when}), completion(90)]
    assert (await asked(judge(timeout=60))).score == 90
    assert clock.slept == [30.0]


async def test_a_retry_after_beyond_the_deadline_gives_up_at_once(endpoint: Endpoint, clock: FakeClock):
    endpoint.answers = [httpx.Response(429, headers={"Retry-After": "120"}, text="slow down")]
    with pytest.raises(JudgeError) as raised:
        await asked(judge(timeout=60))
    message = str(raised.value)
    assert "HTTP 429 Too Many Requests: slow down" in message
    assert "retrying in 120.0s would pass the [judge] timeout; gave up after 1 attempt)" in message
    assert clock.slept == [] and len(endpoint.requests) == 1


async def test_the_deadline_holds_across_retries_and_the_row_is_an_error(endpoint: Endpoint, clock: FakeClock,
                                                                        tmp_path: Path):
    endpoint.answers = [httpx.Response(503, text="overloaded")]
    ev = EvaluatorDef("default", "ev", Path("ev.json"), None, None, SEMANTIC, {}, {})
    scorer = scorer_for(SEMANTIC)
    assert scorer is not None
    config = Config(root=tmp_path, judge=judge(timeout=5))
    result = await scorer.score(ScoreInput(ev, {"expectedOutput": {"a": 1}}, {"a": 2}, config=config))
    assert result.verdict is Verdict.ERROR  # never a pass, nor a fail the judge did not give
    assert "HTTP 503 Service Unavailable: overloaded" in result.detail
    # 0.5 s, 1 s and 2 s of backoff fit in the 5 s, 4 s more would not
    assert "would pass the [judge] timeout; gave up after 4 attempts" in result.detail
    assert len(endpoint.requests) == 4 and len(clock.slept) == 3 and sum(clock.slept) < 5


async def test_connections_that_keep_failing_are_tried_a_few_times(endpoint: Endpoint, clock: FakeClock):
    endpoint.answers = [httpx.ConnectError("[Errno 111] Connection refused")]
    with pytest.raises(JudgeError, match=r"cannot reach the judge endpoint http://judge.test/v1/chat/completions: "
                                         r"\[Errno 111\] Connection refused \(gave up after 3 attempts\)"):
        await asked(judge(timeout=600))
    assert len(endpoint.requests) == judge_http.CONNECT_ATTEMPTS == 3


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_a_final_answer_is_reported_with_its_status_and_body_excerpt(endpoint: Endpoint, clock: FakeClock,
                                                                          status: int):
    endpoint.answers = [httpx.Response(status, text='{"error": "no such model"}' + "x" * 1000)]
    with pytest.raises(JudgeError) as raised:
        await asked(judge())
    message = str(raised.value)
    assert message.startswith(f"the judge endpoint answered HTTP {status} {httpx.codes.get_reason_phrase(status)}: "
                              '{"error": "no such model"}xxx')
    assert len(message) < 400  # the body's first bytes, not all of it
    assert len(endpoint.requests) == 1 and clock.slept == []


async def test_a_reply_that_is_no_chat_completion_is_an_error(endpoint: Endpoint):
    endpoint.answers = [httpx.Response(200, text="<html>a login page</html>")]
    with pytest.raises(JudgeError, match="not a chat completion: b'<html>a login page"):
        await asked(judge())


async def test_the_key_is_sent_but_never_shown(endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-live-0123456789abcdef")

    async def echoing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, text=f"bad key: {request.headers['Authorization']}")

    endpoint.answers = [echoing]
    with pytest.raises(JudgeError) as raised:
        await asked(judge(api_key_env="MY_JUDGE_KEY"))
    assert endpoint.requests[0].headers["Authorization"] == "Bearer sk-live-0123456789abcdef"
    assert "sk-live" not in str(raised.value) and "bad key: Bearer ***" in str(raised.value)

    endpoint.requests.clear()
    endpoint.answers = [httpx.ConnectError("refused")]
    with pytest.raises(JudgeError) as unreachable:
        await asked(judge(url="http://someone:hunter2@judge.test/v1"))
    assert "hunter2" not in str(unreachable.value) and "http://***@judge.test/v1" in str(unreachable.value)


async def test_concurrent_calls_share_the_limit(endpoint: Endpoint):
    entered = asyncio.Condition()
    release = asyncio.Event()
    inside = peak = 0

    async def held(request: httpx.Request) -> httpx.Response:
        nonlocal inside, peak
        async with entered:
            inside += 1
            peak = max(peak, inside)
            entered.notify_all()
        await release.wait()
        inside -= 1
        return completion(70)

    endpoint.answers = [held]
    calls = [asyncio.create_task(asked(judge(concurrency=2), f"question {i}")) for i in range(6)]
    async with entered:
        await entered.wait_for(lambda: inside == 2)
    for _ in range(20):  # every other call gets its turn to start (and must wait for the limit)
        await asyncio.sleep(0)
    assert inside == 2
    release.set()
    replies = await asyncio.gather(*calls)
    assert [r.score for r in replies] == [70] * 6 and peak == 2 and len(endpoint.requests) == 6


class ClosingTransport(httpx.MockTransport):
    """A MockTransport that counts the clients closed over it."""

    closed = 0

    async def aclose(self) -> None:
        ClosingTransport.closed += 1


async def test_calls_share_one_client_which_the_last_one_closes(endpoint: Endpoint, clock: FakeClock,
                                                                monkeypatch: pytest.MonkeyPatch):
    ClosingTransport.closed = 0
    monkeypatch.setattr(judge_http, "WIRING", judge_http.Wiring(transport=ClosingTransport(endpoint),
                                                                monotonic=clock.monotonic, sleep=clock.sleep))
    arrived = asyncio.Event()

    async def slow(request: httpx.Request) -> httpx.Response:
        if len(endpoint.requests) < 2:
            await arrived.wait()  # the first answers wait for the second call: the calls overlap
        arrived.set()
        return completion(90)

    endpoint.answers = [slow]
    replies = await asyncio.gather(*(asked(judge(concurrency=2), f"q{i}") for i in range(5)))
    assert len(replies) == 5 and ClosingTransport.closed == 1  # one client for the five, closed once they are done
    await asked(judge(), "one more")
    assert ClosingTransport.closed == 2  # a call alone: its own client, closed after it


def test_each_event_loop_has_its_own_limiter(endpoint: Endpoint):
    """Two loops in sequence: the second gets a limiter of its own, and the first loop is not held alive by its
    limiter. (Keyed by id(loop), a new loop given a collected one's id got its semaphore, bound to a dead loop.)"""
    seen: list[asyncio.Semaphore] = []
    loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def contended() -> list[float]:
        loops.append(weakref.ref(asyncio.get_running_loop()))
        seen.append(in_flight(1))
        replies = await asyncio.gather(*(asked(judge(concurrency=1), f"q{i}") for i in range(3)))
        return [r.score for r in replies]

    assert asyncio.run(contended()) == [90, 90, 90]
    gc.collect()
    assert loops[0]() is None  # the first loop is gone: nothing of the limits keeps it
    assert asyncio.run(contended()) == [90, 90, 90]
    assert seen[0] is not seen[1]


async def test_a_cancelled_call_is_cancelled_in_flight(endpoint: Endpoint):
    arrived = asyncio.Event()
    cancelled = asyncio.Event()

    async def silent(request: httpx.Request) -> httpx.Response:
        arrived.set()
        try:
            await asyncio.Event().wait()  # the endpoint never answers
        except asyncio.CancelledError:
            cancelled.set()
            raise
        raise AssertionError("unreachable")

    endpoint.answers = [silent]
    call = asyncio.create_task(asked(judge(timeout=600)))
    await arrived.wait()
    call.cancel()  # what Ctrl-C does to a running iteration
    with pytest.raises(asyncio.CancelledError):
        await call
    assert cancelled.is_set()


async def test_without_httpx_installed_the_judge_says_what_to_install(endpoint: Endpoint,
                                                                     monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(sys.modules, "workbench.scoring.judge_http")
    monkeypatch.delattr(workbench.scoring, "judge_http")
    monkeypatch.setitem(sys.modules, "httpx", None)  # `import httpx` fails as if it were not installed
    with pytest.raises(JudgeError, match=r"the HTTP judge needs the httpx package, which is not installed "
                                         r"\(workbench-evals depends on it: reinstall it with pip install -U "
                                         r"workbench-evals\)"):
        await asked(judge())


@pytest.mark.parametrize(("value", "seconds"), [("7", 7.0), (" 2.5 ", 2.5), ("0", 0.0), ("-3", None), ("soon", None),
                                                (None, None), (email.utils.formatdate(WALL - 10, usegmt=True), 0.0)])
def test_retry_after_values(value: str | None, seconds: float | None):
    assert judge_http.retry_after_seconds(value, WALL) == seconds
