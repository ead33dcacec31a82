"""Asking the LLM judge configured in `[judge]`: a local command or an OpenAI-compatible endpoint.

Command: the prompt is written to its stdin as plain text; it prints JSON such as
`{"score": 85, "justification": "..."}` (0–100) on stdout. It runs like a target does: argv only, its
own process group, `[judge] timeout`, killed with its group. HTTP: one chat-completions POST per
question, made by `judge_http.py` (httpx, retried by tenacity; imported only when an HTTP judge is asked):
`[judge] timeout` is a deadline for the whole call, retries included; a `429`, a `5xx` or a failed connection
is retried with backoff, honouring `Retry-After`, while the wait fits before it; a cancelled call is cancelled
in flight, so Ctrl-C and shutdown never wait on a slow endpoint. `[judge] concurrency`
bounds the calls in flight. Answers are remembered in memory and under `.workbench/` (see
`judge_memory.py`), so an unchanged question is not asked (or billed) again, in this process or the next.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import urllib.parse
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import jsonio
from ..compare import is_number
from ..config import STATE_DIR, JudgeConfig
from ..runners.base import expand_argv, tail_lines
from ..runners.process import run_process
from .judge_memory import memory_for

REPLY_CAP = 1024 * 1024
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
    if judge.command:
        async with in_flight(judge.concurrency):
            reply = await _ask_command(judge, root, request)
    else:
        reply = await _ask_http(judge, request)  # in flight once its connection is ready
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


# Keyed by the loop itself, held weakly: an entry goes with its loop. (Keyed by id(loop), a new loop given a
# collected one's id got that loop's semaphore, bound to the dead loop.)
_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary())


def in_flight(limit: int) -> asyncio.Semaphore:
    """The semaphore bounding judge calls on the running event loop to `limit` at once (one per loop and
    limit, shared by every call made on that loop with that limit; gone with its loop)."""
    per_limit = _limits.setdefault(asyncio.get_running_loop(), {})
    if limit not in per_limit:
        per_limit[limit] = asyncio.Semaphore(limit)
    return per_limit[limit]


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
    judge_http = _http_client()
    try:
        # Held while waiting for a turn too, so the calls queued behind the limit reuse its connections.
        async with judge_http.shared_client() as client, in_flight(judge.concurrency):
            raw = await judge_http.post_json(client, url, data, headers, judge.timeout, secrets=(key,))
    except judge_http.EndpointError as exc:
        raise JudgeError(str(exc)) from None
    try:
        document = jsonio.loads(raw)
        content = document["choices"][-1]["message"]["content"]
    except (jsonio.JsonError, KeyError, IndexError, TypeError):
        raise JudgeError(f"the judge endpoint's reply is not a chat completion: {raw[:200]!r}") from None
    if not isinstance(content, str):
        raise JudgeError("the judge endpoint's reply has no message content")
    return parse_reply(content, "reply")


HTTP_PACKAGES = ("httpx", "tenacity")


def _http_client() -> ModuleType:
    """`judge_http`, imported the first time an HTTP judge is asked; without httpx or tenacity installed, a
    JudgeError saying what to install (the row is an ERROR), never an ImportError's traceback."""
    try:
        from . import judge_http
    except ImportError as exc:
        missing = exc.name if exc.name in HTTP_PACKAGES else None
        if missing is None:
            raise
        raise JudgeError(f"the HTTP judge needs the {missing} package, which is not installed (workbench-evals "
                         f"depends on it: reinstall it with pip install -U workbench-evals)") from None
    return judge_http
