"""A real browser for the HTML report's tests: headless Chromium (Debian's `chromium`, which `.ci/run`
installs) loading a file over file:// and giving back the DOM after the page's script ran. Its profile,
cache and home stay under the test's tmp_path; it runs in its own process group, killed on timeout."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
DOM_TIMEOUT = 90


def find_chromium() -> str | None:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def needs_chromium() -> str:
    """The browser, or skip with why (`.ci/run` installs it: CI never skips)."""
    found = find_chromium()
    if found is None and os.environ.get("WORKBENCH_TESTS_NEED_CHROMIUM"):
        pytest.fail("no chromium on PATH, and .ci/run was to install it (apt-get install -y chromium)")
    if found is None:
        pytest.skip("no chromium on PATH (.ci/run installs Debian's chromium with apt-get; here: "
                    "apt-get install -y chromium)")
    return found


def browser_argv(chromium: str, scratch: Path, *extra: str) -> tuple[list[str], dict[str, str]]:
    """Headless, no sandbox (CI runs as root), no first-run work, everything it writes under `scratch`."""
    scratch.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, HOME=str(scratch), XDG_CONFIG_HOME=str(scratch / "config"),
               XDG_CACHE_HOME=str(scratch / "cache"))
    argv = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--disable-background-networking", "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--mute-audio", f"--user-data-dir={scratch / 'profile'}", *extra]
    return argv, env


def run_browser(argv: list[str], env: dict[str, str], timeout: float = DOM_TIMEOUT) -> str:
    """Its stdout; the whole process group is killed when it outlasts `timeout`."""
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               encoding="utf-8", errors="replace", start_new_session=True)
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return out


def dump_dom(chromium: str, page: Path, fragment: str, scratch: Path, *, size: str = "1280,900") -> str:
    """The DOM of `page` opened at `#fragment` once its load event fired (the report draws synchronously)."""
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    argv, env = browser_argv(chromium, scratch, f"--window-size={size}", "--dump-dom", url)
    return run_browser(argv, env)


class RowsInDom(HTMLParser):
    """The rendered rows (`.row` elements: data-i, data-verdict) and the list's data-shown count."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, str]] = []
        self.shown: int | None = None
        self.attrs_of: dict[str, dict[str, Any]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        classes = found.get("class", "").split()
        if "row" in classes and "data-i" in found:
            self.rows.append(found)
        if found.get("id") == "list" and found.get("data-shown"):
            self.shown = int(found["data-shown"])
        if "id" in found:
            self.attrs_of[found["id"]] = found


def rows_in(dom: str) -> RowsInDom:
    parser = RowsInDom()
    parser.feed(dom)
    return parser


class DevTools:
    """Headless Chromium driven over the DevTools protocol on `--remote-debugging-pipe` (fd 3 in, fd 4 out,
    NUL-separated JSON): no websocket, no extra package. Open a page, navigate, evaluate; `close` kills it."""

    def __init__(self, binary: str, scratch: Path) -> None:
        commands_r, self._commands = os.pipe()
        self._replies, replies_w = os.pipe()

        def wire() -> None:  # in the child, before its fds are closed (3 and 4 are kept: pass_fds)
            a, b = os.dup(commands_r), os.dup(replies_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        argv = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--remote-debugging-pipe", f"--user-data-dir={scratch}", "--window-size=1360,980", "about:blank"]
        self.process = subprocess.Popen(argv, pass_fds=(3, 4, commands_r, replies_w), preexec_fn=wire,
                                        env=dict(os.environ, HOME=str(scratch)), stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(commands_r)
        os.close(replies_w)
        self._buffer = b""
        self._next = 0
        self.session: str | None = None
        self.errors: list[str] = []  # the page's uncaught exceptions and console errors, as they came

    def send(self, method: str, params: dict[str, Any] | None = None, *, in_page: bool = True) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if in_page and self.session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        reply = self.wait(lambda m: m.get("id") == self._next)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def wait(self, wanted: Any) -> dict[str, Any]:
        deadline = time.monotonic() + DOM_TIMEOUT
        while time.monotonic() < deadline:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message: dict[str, Any] = json.loads(raw)
                self._note_error(message)
                if wanted(message):
                    return message
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        raise TimeoutError("chromium did not answer")

    def open_page(self) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, in_page=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 in_page=False)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")

    def _note_error(self, message: dict[str, Any]) -> None:
        params = message.get("params", {})
        if message.get("method") == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(str(details.get("exception", {}).get("description") or details.get("text")))
        elif message.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == self.session)

    def evaluate(self, expression: str) -> Any:
        found = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True})
        return json.loads(found["result"]["value"])

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        os.close(self._commands)
        os.close(self._replies)
