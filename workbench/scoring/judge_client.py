"""Asking the LLM judge configured in `[judge]`: a local command or an OpenAI-compatible endpoint.

Command: the prompt is written to its stdin as plain text; it prints JSON such as
`{"score": 85, "justification": "..."}` (0–100) on stdout. It runs like a target does: argv only, its
own process group, `[judge] timeout`, killed with its group. HTTP: one chat-completions POST per
question, made with urllib in a daemon thread. `[judge] timeout` is a deadline for the whole call (an
endpoint that trickles a byte a second doesn't get a fresh timeout per read), and a cancelled or late
call is abandoned, never waited for: Ctrl-C and shutdown don't wait on a slow endpoint. A `429` or
`503` is retried with backoff, honouring `Retry-After`, until that deadline; `[judge] concurrency`
bounds the calls in flight. Answers are remembered in memory and under `.workbench/` (see
`judge_memory.py`), so an unchanged question is not asked (or billed) again, in this process or the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import hashlib
import os
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .. import jsonio
from ..compare import is_number
from ..config import STATE_DIR, JudgeConfig
from ..runners.base import expand_argv, tail_lines
from ..runners.process import run_process
from .judge_memory import memory_for

REPLY_CAP = 1024 * 1024
_READ_CHUNK = 64 * 1024
T = TypeVar("T")
CACHE_SIZE = 2048
MODEL_ENV = "WORKBENCH_JUDGE_MODEL"

HOW_TO_CONFIGURE = """\
no LLM judge is configured. Add one to workbench.toml, either a local command
(it reads the prompt on stdin and prints {"score": 0-100, "justification": "..."}):

[judge]
command = ["python3", "judge.py"]
timeout = 60

or an OpenAI-compatible endpoint (the key is read from the environment variable named here):

[judge]
url = "https://api.openai.com/v1"   # /chat/completions is added when missing
model = "gpt-4o-mini"
api_key_env = "OPENAI_API_KEY\""""


class JudgeError(Exception):
    """The judge could not be asked or its answer could not be used; the result is an ERROR."""


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    system: str
    user: str
    model: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None

    def prompt_text(self) -> str:
        """What a command judge reads on stdin: the instructions, then the question."""
        return f"{self.system.strip()}\n\n{self.user.strip()}\n"

    def cache_key(self, where: str) -> str:
        parts = [where, self.system, self.user, self.model or "", repr(self.temperature), repr(self.max_tokens)]
        return hashlib.sha256("\x00".join(parts).encode("utf-8", errors="surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class JudgeReply:
    score: float  # 0..100, as the judge gave it
    justification: str = ""


_cache: OrderedDict[str, JudgeReply] = OrderedDict()


def is_configured(judge: JudgeConfig | None) -> bool:
    return judge is not None and bool(judge.command or judge.url)


async def ask(judge: JudgeConfig, root: Path, request: JudgeRequest) -> JudgeReply:
    """The judge's reply, from memory when this exact question was answered before (unless the cache
    is off), else asked with at most `[judge] concurrency` calls in flight."""
    where = f"command:{judge.command!r}" if judge.command else f"url:{judge.url}:{judge.model}"
    key = request.cache_key(where)
    if judge.cache:
        remembered = _remembered(key, root)
        if remembered is not None:
            return remembered
    async with _in_flight(judge.concurrency):
        reply = await (_ask_command(judge, root, request) if judge.command else _ask_http(judge, request))
    _cache[key] = reply
    while len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    if judge.cache:
        memory_for(root / STATE_DIR).put(key, reply.score, reply.justification)
    return reply


def _remembered(key: str, root: Path) -> JudgeReply | None:
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    stored = memory_for(root / STATE_DIR).get(key)
    if stored is None:
        return None
    reply = _cache[key] = JudgeReply(*stored)
    return reply


_limits: dict[tuple[int, int], asyncio.Semaphore] = {}


def _in_flight(limit: int) -> asyncio.Semaphore:
    """The semaphore bounding judge calls on the running event loop (one per loop and limit)."""
    loop_id = id(asyncio.get_running_loop())
    for stale in [k for k in _limits if k[0] != loop_id]:
        del _limits[stale]
    return _limits.setdefault((loop_id, limit), asyncio.Semaphore(limit))


def clear_cache() -> None:
    """Forget the answers this process remembers in memory (the file under .workbench/ stays)."""
    _cache.clear()


# -- replies -------------------------------------------------------------------------------------

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_reply(text: str, source: str) -> JudgeReply:
    """`{"score": N, "justification": "..."}` (or a bare number), tolerating text or ``` fences around it."""
    stripped = text.strip()
    if not stripped:
        raise JudgeError(f"the judge's {source} was empty; it must be JSON such as "
                         "{\"score\": 85, \"justification\": \"...\"}")
    value: Any = None
    try:
        value = jsonio.loads(stripped)
    except jsonio.JsonError:
        match = _OBJECT.search(stripped)
        if match:
            try:
                value = jsonio.loads(match.group())
            except jsonio.JsonError:
                value = None
    if is_number(value):
        value = {"score": value}
    if not isinstance(value, dict) or "score" not in value:
        raise JudgeError(f"the judge's {source} is not JSON with a \"score\": {stripped[:200]!r}")
    score = value["score"]
    if isinstance(score, str):
        try:
            score = float(score.strip())
        except ValueError:
            score = None
    if not is_number(score) or not 0 <= score <= 100:
        raise JudgeError(f"the judge's score must be a number from 0 to 100, not {value['score']!r}")
    justification = value.get("justification", value.get("reason", ""))
    return JudgeReply(float(score), justification if isinstance(justification, str) else jsonio.dumps(justification))


# -- command -------------------------------------------------------------------------------------


async def _ask_command(judge: JudgeConfig, root: Path, request: JudgeRequest) -> JudgeReply:
    assert judge.command
    env = dict(os.environ)
    if request.model:
        env[MODEL_ENV] = request.model
    result = await run_process(expand_argv(judge.command), stdin=request.prompt_text().encode("utf-8", "replace"),
                               cwd=root, env=env, timeout=judge.timeout, stdout_cap=REPLY_CAP)
    failure = result.failure(judge.timeout, REPLY_CAP)
    if failure:
        tail = tail_lines(result.log, 6)
        raise JudgeError(f"the judge command {failure}" + (f"\nits stderr (last lines):\n{tail}" if tail else ""))
    return parse_reply(result.stdout.decode("utf-8", errors="replace"), "stdout")


# -- HTTP ----------------------------------------------------------------------------------------


def chat_url(url: str) -> str:
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise JudgeError(f"[judge] url must be an http:// or https:// address, not {url!r}")
    trimmed = url.rstrip("/")
    return trimmed if trimmed.endswith("/chat/completions") else f"{trimmed}/chat/completions"


async def _ask_http(judge: JudgeConfig, request: JudgeRequest) -> JudgeReply:
    assert judge.url
    url = chat_url(judge.url)
    model = judge.model or request.model
    if not model:
        raise JudgeError("the judge endpoint needs a model: set model in [judge] (or evaluatorConfig.model)")
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "system", "content": request.system}, {"role": "user", "content": request.user}],
        "temperature": request.temperature,
    }
    if request.max_tokens:
        body["max_tokens"] = request.max_tokens
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    key = os.environ.get(judge.api_key_env, "") if judge.api_key_env else ""
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = jsonio.dumps(body).encode("utf-8", errors="surrogatepass")
    deadline = time.monotonic() + judge.timeout
    try:
        raw = await asyncio.wait_for(_in_daemon_thread(_post, url, data, headers, deadline), judge.timeout)
    except TimeoutError:
        raise JudgeError(f"the judge endpoint did not answer within {judge.timeout:g}s") from None
    try:
        document = jsonio.loads(raw)
        content = document["choices"][-1]["message"]["content"]
    except (jsonio.JsonError, KeyError, IndexError, TypeError):
        raise JudgeError(f"the judge endpoint's reply is not a chat completion: {raw[:200]!r}") from None
    if not isinstance(content, str):
        raise JudgeError("the judge endpoint's reply has no message content")
    return parse_reply(content, "reply")


async def _in_daemon_thread(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` in a daemon thread. Unlike `asyncio.to_thread`, a cancelled call is abandoned:
    neither the event loop's shutdown nor the interpreter's exit waits for the thread to finish."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def work() -> None:
        try:
            value = function(*args)
        except BaseException as exc:  # handed to the awaiting task, which re-raises it
            error = exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
                loop.call_soon_threadsafe(settle, lambda: future.set_exception(error))
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(settle, lambda: future.set_result(value))

    threading.Thread(target=work, name="workbench-judge-http", daemon=True).start()
    return await future


def _read_until(response: Any, deadline: float) -> bytes:
    """The reply body, up to REPLY_CAP, read in chunks so the deadline is checked between them."""
    chunks: list[bytes] = []
    size = 0
    while size <= REPLY_CAP:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = response.read1(_READ_CHUNK)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)[:REPLY_CAP]


RETRY_STATUSES = (429, 503)
_FIRST_BACKOFF_S = 0.5
_MAX_BACKOFF_S = 30.0


def retry_after(value: str | None, attempt: int, now: float | None = None) -> float:
    """Seconds to wait before retrying: the `Retry-After` header (seconds or an HTTP date) when it
    gives one, else an exponential backoff from 0.5 s."""
    backoff = min(_MAX_BACKOFF_S, _FIRST_BACKOFF_S * 2 ** attempt)
    if not value:
        return backoff
    value = value.strip()
    if value.isdigit():
        return float(value)
    with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    return backoff


def _post(url: str, data: bytes, headers: dict[str, str], deadline: float) -> bytes:
    """The POST, bounded by `deadline` (time.monotonic()): each socket read gets only the time left;
    429 / 503 answers are retried after the wait they ask for, while it fits before the deadline."""
    attempt = 0
    while True:
        try:
            return _post_once(url, data, headers, deadline)
        except urllib.error.HTTPError as exc:
            if exc.code not in RETRY_STATUSES:
                raise _http_error(exc) from None
            wait = retry_after(exc.headers.get("Retry-After") if exc.headers else None, attempt)
            if time.monotonic() + wait >= deadline:
                raise JudgeError(f"{_http_error(exc)} (retrying in {wait:g}s would pass the [judge] timeout; "
                                 f"gave up after {attempt + 1} attempt{'s' if attempt else ''})") from None
            time.sleep(wait)
            attempt += 1


def _http_error(exc: urllib.error.HTTPError) -> JudgeError:
    try:
        detail = exc.read(300).decode("utf-8", errors="replace").strip()
    except OSError:
        detail = ""
    return JudgeError(f"the judge endpoint answered HTTP {exc.code} {exc.reason}" + (f": {detail}" if detail else ""))


def _post_once(url: str, data: bytes, headers: dict[str, str], deadline: float) -> bytes:
    http_request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    timeout = max(0.001, deadline - time.monotonic())
    try:
        with urllib.request.urlopen(http_request, timeout=timeout) as response:  # the scheme was checked in chat_url
            return _read_until(response, deadline)
    except urllib.error.HTTPError:
        raise  # the caller decides: retry 429 / 503, report the rest
    except urllib.error.URLError as exc:
        raise JudgeError(f"cannot reach the judge endpoint {url}: {exc.reason}") from None
    except TimeoutError:
        raise JudgeError("the judge endpoint did not answer in time") from None
    except OSError as exc:
        raise JudgeError(f"the judge endpoint failed: {exc}") from None
