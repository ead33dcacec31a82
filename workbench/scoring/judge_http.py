"""The LLM judge's HTTP call: one JSON POST made with httpx, retried by tenacity.

`post_json(url, data, headers, timeout)` keeps one deadline for the whole call, retries included: each attempt
gets only the time left (httpx's timeouts) and the call as a whole is cut at the deadline (`asyncio.timeout`),
so an endpoint trickling a byte a second gets no fresh timeout per read. A `429`, a `5xx` and a connection that
fails (refused, reset, closed before answering; at most CONNECT_ATTEMPTS times) are asked again after an
exponential backoff from 0.5 s with a little jitter — or after the wait a `Retry-After` asks for (seconds or an
HTTP date) — while that wait fits before the deadline. Any other answer is an `EndpointError` naming its status
with the first bytes of its body. Cancelling the awaiting task cancels the request in flight: nothing waits on
the endpoint, so Ctrl-C and shutdown are immediate. The secrets given (the API key) are cut out of every
message, whatever the endpoint echoes, and so is a password in the URL.

Only `judge_client._ask_http` imports this module, when an HTTP judge is asked: a run without one never loads
httpx or tenacity.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import functools
import re
import ssl
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass

import httpx
import tenacity

REPLY_CAP = 1024 * 1024  # a longer reply is cut (and is then no chat completion)
DETAIL_CAP = 300  # how much of a refusing answer's body an error shows
FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 30.0
JITTER_S = 0.25
CONNECT_ATTEMPTS = 3  # a refused or dropped connection is tried this often at most (a wrong url fails fast)


def retried_status(status: int) -> bool:
    """Too many requests, or the server's trouble (as the OpenAI SDK retries); any other answer is final."""
    return status == 429 or status >= 500


class EndpointError(Exception):
    """The endpoint could not be asked, or gave no 2xx answer in time; the message says which, in words."""


@dataclass(frozen=True, slots=True)
class Wiring:
    """What a call uses of the world. Tests replace it (`httpx.MockTransport`, a fake clock that `sleep`
    advances), so no test needs the network or the wall clock."""

    transport: httpx.AsyncBaseTransport | None = None  # None: the network, through the environment's proxies
    monotonic: Callable[[], float] = time.monotonic  # the deadline's clock
    wall: Callable[[], float] = time.time  # for a Retry-After that is an HTTP date
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # the wait between attempts


WIRING = Wiring()


class _Busy(Exception):
    """An answer worth asking again: a 429 or a 5xx, with what `Retry-After` said."""

    def __init__(self, message: str, retry_after: str | None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


_RETRIED = (_Busy, httpx.NetworkError, httpx.RemoteProtocolError)  # NetworkError: connect, read, write, close


class _Shared:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.users = 0


# The running loop's client (keyed by the loop itself, held weakly), while some call holds it.
_shared: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Shared] = weakref.WeakKeyDictionary()


@contextlib.asynccontextmanager
async def shared_client() -> AsyncIterator[httpx.AsyncClient]:
    """The running loop's client, shared by the calls that hold it (their connections kept alive between
    them); the last to leave closes it, so nothing is left open when the calls are done or cancelled."""
    loop = asyncio.get_running_loop()
    shared = _shared.get(loop)
    if shared is None:
        try:
            client = _client(WIRING)
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:  # an environment's proxy it can't use
            raise EndpointError(_scrub(f"the judge endpoint failed: {exc}", ())) from None
        shared = _shared[loop] = _Shared(client)
    shared.users += 1
    try:
        yield shared.client
    finally:
        shared.users -= 1
        if shared.users == 0:
            if _shared.get(loop) is shared:
                del _shared[loop]  # a call arriving now makes a new client
            await shared.client.aclose()


async def post_json(client: httpx.AsyncClient, url: str, data: bytes, headers: Mapping[str, str], timeout: float,
                    secrets: Iterable[str] = ()) -> bytes:
    """The 2xx answer's body (at most REPLY_CAP bytes) to POSTing `data` with `client`, within `timeout`
    seconds in all."""
    wiring = WIRING
    hidden = [secret for secret in secrets if secret]
    deadline = wiring.monotonic() + timeout
    within = f"the judge endpoint did not answer within {timeout:g}s"
    try:
        async with asyncio.timeout(timeout):
            return await _with_retries(client, url, data, headers, deadline, wiring)
    except (TimeoutError, httpx.TimeoutException):
        raise EndpointError(within) from None
    except EndpointError as exc:
        raise EndpointError(_scrub(str(exc), hidden)) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:  # a bad proxy, an unsupported scheme, a broken encoding
        raise EndpointError(_scrub(f"the judge endpoint failed: {exc}", hidden)) from None


def _client(wiring: Wiring) -> httpx.AsyncClient:
    if wiring.transport is not None:
        return httpx.AsyncClient(transport=wiring.transport, follow_redirects=False)
    # The system's certificates, as urllib used (a company's own CA keeps working), made once per process.
    return httpx.AsyncClient(verify=_tls_context(), follow_redirects=False)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


async def _with_retries(client: httpx.AsyncClient, url: str, data: bytes, headers: Mapping[str, str],
                        deadline: float, wiring: Wiring) -> bytes:
    retrying = tenacity.AsyncRetrying(
        retry=tenacity.retry_if_exception_type(_RETRIED),
        wait=functools.partial(_wait, wiring),
        stop=_Stop(deadline, wiring),
        sleep=wiring.sleep,
        retry_error_callback=functools.partial(_gave_up, url),
    )
    reply: bytes = await retrying(_attempt, client, url, data, headers, deadline, wiring)
    return reply


async def _attempt(client: httpx.AsyncClient, url: str, data: bytes, headers: Mapping[str, str], deadline: float,
                   wiring: Wiring) -> bytes:
    left = max(0.001, deadline - wiring.monotonic())
    async with client.stream("POST", url, content=data, headers=dict(headers), timeout=left) as response:
        if response.is_success:
            return await _read(response, REPLY_CAP)
        detail = (await _read(response, DETAIL_CAP)).decode("utf-8", errors="replace").strip()
        message = (f"the judge endpoint answered HTTP {response.status_code} {response.reason_phrase}".rstrip()
                   + (f": {detail}" if detail else ""))
        if retried_status(response.status_code):
            raise _Busy(message, response.headers.get("Retry-After"))
        raise EndpointError(message)


async def _read(response: httpx.Response, cap: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= cap:
            break
    return b"".join(chunks)[:cap]


_backoff = tenacity.wait_exponential(multiplier=FIRST_BACKOFF_S, max=MAX_BACKOFF_S) + tenacity.wait_random(0, JITTER_S)


def _wait(wiring: Wiring, state: tenacity.RetryCallState) -> float:
    """The wait `Retry-After` asks for, else the backoff for this attempt (0.5 s, 1 s, 2 s, … up to 30 s)."""
    failure = state.outcome.exception() if state.outcome else None
    if isinstance(failure, _Busy):
        asked = retry_after_seconds(failure.retry_after, wiring.wall())
        if asked is not None:
            return asked
    return float(_backoff(state))


class _Stop:
    """Tenacity's stop for one call: at the deadline (the wait to come would pass it; tenacity computes the wait
    before it asks), or at the CONNECT_ATTEMPTS-th failed connection."""

    def __init__(self, deadline: float, wiring: Wiring) -> None:
        self.deadline = deadline
        self.wiring = wiring
        self.failed_connections = 0

    def __call__(self, state: tenacity.RetryCallState) -> bool:
        failure = state.outcome.exception() if state.outcome else None
        if not isinstance(failure, _Busy):
            self.failed_connections += 1
            if self.failed_connections >= CONNECT_ATTEMPTS:
                return True
        return self.wiring.monotonic() + (state.upcoming_sleep or 0.0) >= self.deadline


def _gave_up(url: str, state: tenacity.RetryCallState) -> bytes:
    failure = state.outcome.exception() if state.outcome else None
    attempts = f"gave up after {state.attempt_number} attempt{'s' if state.attempt_number > 1 else ''}"
    wait = state.upcoming_sleep or 0.0
    if isinstance(failure, _Busy):
        raise EndpointError(f"{failure} (retrying in {wait:.1f}s would pass the [judge] timeout; {attempts})")
    why = str(failure) or type(failure).__name__
    raise EndpointError(f"cannot reach the judge endpoint {url}: {why} ({attempts})")


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """`Retry-After` in seconds from `now` (time.time()): a number of seconds or an HTTP date; None when it
    says neither."""
    if not value:
        return None
    value = value.strip()
    with contextlib.suppress(ValueError):
        seconds = float(value)
        return seconds if seconds >= 0 and seconds == seconds else None  # not negative, not NaN
    with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - now)
    return None


_USERINFO = re.compile(r"(?<=://)[^/@\s]*@")


def _scrub(text: str, secrets: Iterable[str]) -> str:
    """`text` without the secrets and without a URL's user:password."""
    for secret in secrets:
        text = text.replace(secret, "***")
    return _USERINFO.sub("***@", text)
