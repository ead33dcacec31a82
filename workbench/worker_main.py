"""The child side of `kind = "python"`: import the user's `module:function` and serve rows over the
worker protocol (one JSON line in on stdin, one JSON line out on stdout).

Run as a script (`python worker_main.py ROOT CALLABLE [READS_FILE [-t]]`); the engine never imports it.
With READS_FILE it records the files the process reads there (`runners/read_audit.py`, installed before the
user's module is imported; `-t` trusts the programs it starts, `[cache] trust_subprocesses`). It imports
as little as possible, so a worker is ready about 5 ms (CPU) after a bare interpreter would be: no
workbench modules, no Textual, no orjson and not even the `json` package (see `_Codec`), asyncio
only for async callables. Protocol output goes to a private copy of the original stdout; the user's
own prints, and anything a C library writes to fd 1, land on stderr, which is the row's log.

Started with WORKBENCH_WORKER_READY=1 (by workbench's worker pool), `serve` first prints `{"ready": true}`:
the user's module (or a format child's SDK) is imported, so the pool starts the first row's timeout and
duration there instead of counting the start-up. The variable is taken out of the environment when the
channel is made, before any of the project's code runs. Without it (a test, a person running it by hand)
nothing but replies is printed.
"""

from __future__ import annotations

import os
import sys

# Running as a script puts this file's folder (the workbench package) first on sys.path, where
# its modules could shadow the user's; the project root goes there instead.
_HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == _HERE:
    del sys.path[0]

TYPE_CHECKING = False  # typing itself costs startup time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

EXIT_FATAL = 3
TRACE_ENV = "WORKBENCH_TRACE"
READY_ENV = "WORKBENCH_WORKER_READY"  # runners/worker.py's READY_ENV


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _unserializable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class _Codec:
    """JSON lines through the C accelerator `_json` itself: importing the `json` package pulls in `re`
    and `enum`, which costs as much again as a bare interpreter's start-up. Falls back to `json`
    wherever `_json` is missing or behaves differently (another interpreter via `command`)."""

    # The attributes `_json.make_scanner` reads from its context object.
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_not_json)

    def __init__(self) -> None:
        try:
            import _json

            # typeshed wants a JSONDecoder-shaped context; the scanner reads only the attributes above
            self._scan = _json.make_scanner(self)  # type: ignore[arg-type]
            self._make_encoder = _json.make_encoder
            self._escape = _json.encode_basestring_ascii
            sample, text = {"a": [1, 2.5, "é\n", None, True, {}]}, '{"a":[1,2.5,"\\u00e9\\n",null,true,{}]}'
            if self.dumps(sample) != text or self.loads(text) != sample:
                raise ValueError("_json behaves differently here")
        except Exception:  # anything odd: the documented, slower path
            import json

            # the instance's methods become json's (mypy refuses replacing a method, and json.loads's keywords)
            self.loads = json.loads  # type: ignore[method-assign, assignment]
            self.dumps = self._json_dumps  # type: ignore[method-assign]

    def loads(self, text: str) -> Any:
        value, _end = self._scan(text.strip(), 0)
        return value

    def dumps(self, value: Any) -> str:
        # A fresh encoder per call, as `json` does: its circular-reference markers must start empty.
        encode = self._make_encoder({}, _unserializable, self._escape, None, ":", ",", False, False, False)
        return "".join(encode(value, 0))

    @staticmethod
    def _json_dumps(value: Any) -> str:
        import json

        return json.dumps(value, allow_nan=False, separators=(",", ":"))


def _any_size_ints(convert: Callable[[Any], Any], value: Any) -> Any:
    """`convert(value)`; if it stopped at Python's 4,300-digit limit for converting integers to or from
    text, again without the limit (JSON integers have any size, and workbench compares them exactly)."""
    try:
        return convert(value)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return convert(value)
    finally:
        sys.set_int_max_str_digits(limit)


class _Channel:
    """The protocol pipes, moved off fds 0 and 1 so user code can't read requests or garble replies."""

    def __init__(self) -> None:
        self.announce = os.environ.pop(READY_ENV, "") == "1"  # print the ready line before the first row
        self.codec = _Codec()
        self.reader = os.fdopen(os.dup(0), "rb")
        self.writer = os.fdopen(os.dup(1), "wb")
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
        sys.stdout = sys.stderr

    def receive(self) -> dict[str, Any] | None:
        """The next request, or None at end of input (workbench closed the pipe)."""
        while True:
            line = self.reader.readline()
            if not line:
                return None
            if line.strip():
                return _any_size_ints(self.codec.loads, line.decode("utf-8", "surrogatepass"))

    def send(self, message: dict[str, Any]) -> None:
        try:
            data = _any_size_ints(self.codec.dumps, message)
        except (TypeError, ValueError, RecursionError) as exc:
            why = ("it is nested too deeply (JSON readers stop at about 1000 levels)"
                   if isinstance(exc, RecursionError) else f"{type(exc).__name__}: {exc}")
            data = self.codec.dumps({"id": message.get("id"),
                                     "error": f"the function returned a value that is not JSON: {why}"})
        sys.stderr.flush()  # the row's log lines reach workbench before its reply
        self.writer.write(data.encode("ascii") + b"\n")
        self.writer.flush()


def print_user_traceback(exc: BaseException) -> None:
    """The traceback on stderr (the row's log), without this file's own frames on top."""
    import traceback

    tb = exc.__traceback__
    plumbing = (__file__, os.sep + "asyncio" + os.sep)  # this file, and the loop an async callable runs on
    while tb is not None and any(part in tb.tb_frame.f_code.co_filename for part in plumbing):
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb)


def describe(exc: BaseException) -> str:
    """`Type: message`; when the exception's own `str()` raises (a user's `__str__`), the type and what `str()`
    raised: the row is an ERROR naming it, and the worker lives on to take the next row."""
    name = type(exc).__name__
    try:
        message = str.__str__(str(exc))  # a plain str, whatever str subclass a __str__ returned
    except BaseException as failure:  # whatever the user's __str__ raises
        try:
            why = f"{type(failure).__name__}: {str.__str__(str(failure))}"
        except BaseException:
            why = type(failure).__name__
        return f"{name} (its str() raised {why})"
    return f"{name}: {message}" if message else name


def _fatal(channel: _Channel, exc: BaseException) -> None:
    print_user_traceback(exc)
    channel.send({"fatal": describe(exc)})
    sys.exit(EXIT_FATAL)


def load(spec: str) -> Callable[[dict[str, Any]], Any]:
    """`package.module:function` (or `module:Class.method`) to the object it names."""
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise ValueError(f"callable must look like 'package.module:function', not {spec!r}")
    __import__(module_name)  # not importlib: importing that costs start-up time
    target: Any = sys.modules[module_name]
    for part in attr_path.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{spec} is a {type(target).__name__}, not a function")
    return target


class _Caller:
    """Calls the function; coroutines run on one loop that lives across rows (clients stay warm)."""

    def __init__(self, function: Callable[[dict[str, Any]], Any]) -> None:
        self.function = function
        self.loop: Any = None

    def __call__(self, inputs: dict[str, Any]) -> Any:
        result = self.function(inputs)
        if hasattr(result, "__await__"):
            if self.loop is None:
                import asyncio

                self.loop = asyncio.new_event_loop()
                asyncio.set_event_loop(self.loop)
            result = self.loop.run_until_complete(_awaited(result))
        return result


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def serve(channel: _Channel, call: _Caller) -> None:
    if channel.announce:
        channel.send({"ready": True})
    while (request := channel.receive()) is not None:
        request_id = request.get("id")
        trace = request.get("trace")
        if trace:
            os.environ[TRACE_ENV] = trace
        try:
            output = call(request.get("inputs", {}))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit too: one row's failure must not end the worker
            print_user_traceback(exc)
            channel.send({"id": request_id, "error": describe(exc)})
        else:
            channel.send({"id": request_id, "output": output})
        finally:
            os.environ.pop(TRACE_ENV, None)


def _record_reads(reads: str, trust_subprocesses: bool) -> None:
    """Install the read audit (loaded by file path under a name no user module has) before user code runs."""
    path = os.path.join(_HERE, "runners", "read_audit.py")
    try:
        from _frozen_importlib import module_from_spec
        from _frozen_importlib_external import spec_from_file_location
    except ImportError:  # not CPython
        from importlib.util import module_from_spec, spec_from_file_location
    spec = spec_from_file_location("_workbench_read_audit", path)
    assert spec is not None and spec.loader is not None  # a .py path always has a source loader
    audit = module_from_spec(spec)
    spec.loader.exec_module(audit)
    audit.install(reads, (os.path.abspath(__file__), path, _HERE, os.path.dirname(path)), trust_subprocesses)


def main(argv: list[str]) -> None:
    channel = _Channel()
    if len(argv) not in (2, 3, 4) or argv[3:] not in ([], ["-t"]):
        channel.send({"fatal": "usage: worker_main.py PROJECT_ROOT package.module:function [READS_FILE [-t]]"})
        sys.exit(EXIT_FATAL)
    root, spec = argv[:2]
    if len(argv) >= 3:
        _record_reads(argv[2], argv[3:] == ["-t"])
    sys.path.insert(0, root)
    try:
        function = load(spec)
    except BaseException as exc:  # anything the import raises (SyntaxError, SystemExit) is the user's to see
        _fatal(channel, exc)
        return
    serve(channel, _Caller(function))


if __name__ == "__main__":
    main(sys.argv[1:])
