"""The child side of a coded agent project's rows: serve rows over the worker protocol in the project's own
Python, each row run the way `uipath eval` runs one evaluation.

Run as a script (`python child_main.py ENTRY_FILE FUNCTION [MAX_OUTPUT_MB]`, the `[runner]` that
`settings.RUNNER_DEFAULTS` makes); the engine never imports it, and it imports nothing of workbench but
`worker_main.py` (loaded by file path: its channel, `serve` and tracebacks), so it parses on Python 3.9 and runs
on whatever the project has. A reply longer than MAX_OUTPUT_MB MiB (`[runner] max_output_mb`) is the row's error in
words naming the limit, not a line the pool refuses as a broken protocol.

Per row, as the SDK does per evaluation, a fresh `uipath.functions.runtime.UiPathFunctionsRuntime` executes the
entry point's module afresh (imports stay warm) and calls the function with the row's inputs, converted to the
dataclass or pydantic model its first parameter declares; its output is converted back the SDK's way. An output
that is not JSON is the row's error, never stringified. A row that raises is its error, named by the exception's
type even when its `str()` raises too; its log holds the traceback of the user's frames (from the entry file
down) and the exception's own chain, as `python main.py` prints it. Without `uipath` importable, a fallback
loads the file and calls the function with the inputs dict (the log says so).

The spans `uipath.tracing.traced` records go to OpenTelemetry's global tracer provider: one is installed before
the first row with a span processor that keeps every span ending during the row, in end order. They are written
to the row's trace file (`WORKBENCH_TRACE`) as one JSON object per line, each span's attributes complete, which
is all the coded scorers read. The SDK's telemetry is off (`UIPATH_TELEMETRY_ENABLED=false`), and running a
function needs no UiPath login, so nothing here reaches the network.
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder (the format's package: settings.py, layout.py, ...) comes first on
# sys.path, where its modules would shadow the project's; the project root (the cwd) goes there instead, as
# `uipath eval` puts it.
_HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.realpath(sys.path[0] or ".") == os.path.realpath(_HERE):
    del sys.path[0]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

WORKER_MAIN = os.path.normpath(os.path.join(_HERE, "..", "..", "worker_main.py"))
TELEMETRY_ENV = "UIPATH_TELEMETRY_ENABLED"
# The SDK's runtime errors whose cause is the user's own exception (shown as it is, like any Python target's).
_USER_FAULTS = ("MODULE_EXECUTION_ERROR", "FUNCTION_EXECUTION_ERROR")


def load_worker_main() -> Any:
    """workbench's `worker_main.py`, by file path under a name no project module has."""
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("_workbench_worker_main", WORKER_MAIN)
    assert spec is not None and spec.loader is not None  # a .py path always has a source loader
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class EntryError(Exception):
    """The SDK could not run the entry point (a missing function, inputs that don't fit its type): its words."""


def json_safe(value: Any) -> Any:
    """An OpenTelemetry attribute value as JSON: sequences as lists, a non-finite float as text."""
    if isinstance(value, (str, bool, int)) or value is None:
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return str(value)


def _parsed(text: Any) -> Any:
    """A span's `input.value` / `output.value` (JSON text, as `traced` writes it) as a value, else as is."""
    if not isinstance(text, str):
        return text
    import json

    try:
        return json_safe_tree(json.loads(text))
    except ValueError:
        return text


def json_safe_tree(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): json_safe_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe_tree(item) for item in value]
    return json_safe(value)


def span_event(span: Any) -> dict[str, Any]:
    """One ended span as a trace event: `tool_call` for a real tool invocation (`tool.name`, not
    `tool.synthesized`), else `span`; `span.attributes` holds every attribute, which the scorers read."""
    attributes = {str(key): json_safe(value) for key, value in dict(span.attributes or {}).items()}
    tool = attributes.get("tool.name")
    is_tool = bool(tool) and not attributes.get("tool.synthesized", False)
    args = _parsed(attributes.get("input.value"))
    event: dict[str, Any] = {"type": "tool_call" if is_tool else "span", "name": str(tool) if is_tool else span.name,
                             "args": args if isinstance(args, dict) else {}}
    if "output.value" in attributes:
        event["output"] = _parsed(attributes["output.value"])
    status = getattr(getattr(span, "status", None), "status_code", None)
    event["span"] = {"name": span.name, "attributes": attributes, "start_ns": span.start_time,
                     "end_ns": span.end_time, "status": getattr(status, "name", "UNSET")}
    return event


def install_recorder() -> Any:
    """A span processor on OpenTelemetry's global tracer provider (installed when none is), or None when
    OpenTelemetry's SDK is not importable here."""
    try:
        from importlib import import_module

        trace_api = import_module("opentelemetry.trace")
        sdk_trace = import_module("opentelemetry.sdk.trace")
    except ImportError:
        return None
    provider = trace_api.get_tracer_provider()
    if not isinstance(provider, sdk_trace.TracerProvider):
        trace_api.set_tracer_provider(sdk_trace.TracerProvider())
        provider = trace_api.get_tracer_provider()
    if not isinstance(provider, sdk_trace.TracerProvider):
        return None
    recorder = _recorder_class(sdk_trace.SpanProcessor)()
    provider.add_span_processor(recorder)
    return recorder


def _recorder_class(base: Any) -> Any:
    class SpanRecorder(base):  # OpenTelemetry's SpanProcessor, found at run time
        """Keeps the spans that end between `start` and `stop` (one row), in the order they end."""

        def __init__(self) -> None:
            self.spans: list[Any] | None = None

        def start(self) -> None:
            self.spans = []

        def stop(self) -> list[Any]:
            spans, self.spans = self.spans or [], None
            return spans

        def on_start(self, span: Any, parent_context: Any = None) -> None:
            return None

        def on_end(self, span: Any) -> None:
            spans = self.spans
            if spans is not None:
                spans.append(span)

        def shutdown(self) -> None:
            return None

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return True

    return SpanRecorder


def write_trace(path: str | None, spans: list[Any]) -> None:
    if not path or not spans:
        return
    import json

    with open(path, "a", encoding="utf-8") as out:
        for span in spans:
            out.write(json.dumps(span_event(span), allow_nan=False, separators=(",", ":")) + "\n")


class SdkEntry:
    """The entry point run by the SDK's own functions runtime, afresh for every row (as `uipath eval` does)."""

    def __init__(self, file: str, function: str) -> None:
        import asyncio
        from importlib import import_module

        self.runtime_class = import_module("uipath.functions.runtime").UiPathFunctionsRuntime
        self.file = file
        self.function = function
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)

    def __call__(self, inputs: dict[str, Any]) -> Any:
        runtime = self.runtime_class(self.file, self.function, self.function)
        failure = None
        try:
            result = self.loop.run_until_complete(runtime.execute(inputs))
        except Exception as exc:
            failure = _unwrapped(exc, self.file, self.function)
        finally:
            self.loop.run_until_complete(runtime.dispose())
        if failure is not None:
            # raised outside the handler: the user's exception keeps its own cause and context (`raise ... from`
            # in the agent), and the SDK's wrapper is not chained to it
            raise failure
        output = result.output
        if hasattr(output, "model_dump"):
            output = output.model_dump()
        return output if output else {}


def _unwrapped(exc: BaseException, file: str, function: str) -> BaseException:
    """The user's own exception when the SDK wrapped one (module or function failed), else its words."""
    info = getattr(exc, "error_info", None)
    code = str(getattr(info, "code", ""))
    if exc.__cause__ is not None and code.endswith(_USER_FAULTS):
        return _undescribed(exc.__cause__)
    if info is None:
        return _undescribed(exc)
    if code.endswith("ENTRYPOINT_FUNCTION_MISSING"):
        return missing_function(file, function)
    detail = str(getattr(info, "detail", "")).split("\n\n", 1)[0].strip()
    title = str(getattr(info, "title", "")) or type(exc).__name__
    return EntryError(f"{title}: {detail}" if detail else title)


def _undescribed(exc: BaseException) -> BaseException:
    """The user's exception whose `str()` raised `exc` when the SDK put it into words (it wraps what a function
    raises in an error of its own made of `str(e)`), else `exc`: the row names what the agent raised."""
    context = exc.__context__
    if context is None or not isinstance(exc, Exception):
        return exc
    try:
        str(context)
    except BaseException as again:  # whatever the user's __str__ raises
        if type(again) is type(exc):
            return context
    return exc


def missing_function(file: str, function: str) -> EntryError:
    name = os.path.basename(file)
    return EntryError(f"uipath.json names {name}:{function} as the entry point, but {name} has no {function!r}")


class PlainEntry:
    """Without the SDK: the entry's module executed afresh per row and its function called with the inputs
    dict; the output converted as the SDK converts one (a dict as is, a scalar or list as {"result": ...})."""

    def __init__(self, file: str, function: str, worker_main: Any) -> None:
        self.file = file
        self.function = function
        self.caller = worker_main._Caller(None)  # its loop lives across rows, for async functions

    def __call__(self, inputs: dict[str, Any]) -> Any:
        from importlib.util import module_from_spec, spec_from_file_location

        spec = spec_from_file_location("dynamic_module", self.file)
        if spec is None or spec.loader is None:
            raise EntryError(f"Module import failed: could not load {self.file}")
        module = module_from_spec(spec)
        sys.modules["dynamic_module"] = module
        try:
            spec.loader.exec_module(module)
            if not hasattr(module, self.function):
                raise missing_function(self.file, self.function)
            self.caller.function = getattr(module, self.function)
            return plain_output(self.caller(inputs))
        finally:
            sys.modules.pop("dynamic_module", None)


def plain_output(value: Any) -> Any:
    """The SDK's `convert_from_class`, for the fallback: what a function's return value becomes."""
    if value is None:
        return {}
    if isinstance(value, (str, int, float, bool, list, tuple)):
        return {"result": value}
    if isinstance(value, dict):
        return value
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True)
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {key: item for key, item in vars(value).items() if not key.startswith("_")}
    return {}


class RowRunner:
    """One row: the entry run with the spans that end meanwhile recorded and written to its trace file."""

    def __init__(self, entry: Any, recorder: Any, trace_env: str) -> None:
        self.entry = entry
        self.recorder = recorder
        self.trace_env = trace_env

    def __call__(self, inputs: dict[str, Any]) -> Any:
        if self.recorder is None:
            return self.entry(inputs)
        self.recorder.start()
        try:
            return self.entry(inputs)
        finally:
            write_trace(os.environ.get(self.trace_env), self.recorder.stop())


def entry_refusal(file: str, root: str) -> str | None:
    """Why the entry's file is not run: it is missing, not a regular file (a FIFO would hang the import), or
    it leads out of the project (through `..`, an absolute path or a link): workbench runs only what is in it."""
    import stat

    shown = f"uipath.json names {os.path.relpath(file, root) if file.startswith(root) else file} as the entry point"
    try:
        mode = os.stat(file).st_mode
    except OSError:
        return f"{shown}, which does not exist"
    real, inside = os.path.realpath(file), os.path.realpath(root)
    if os.path.commonpath([real, inside]) != inside:
        return f"{shown}, which leads outside the project; workbench runs only an entry point inside it"
    if not stat.S_ISREG(mode):
        return f"{shown}, which is not a regular file"
    return None


def make_entry(file: str, function: str, worker_main: Any) -> Any:
    """The SDK's runtime when `uipath` is importable here, else the fallback (said in the log)."""
    try:
        return SdkEntry(file, function)
    except ImportError as exc:
        if (getattr(exc, "name", None) or "").split(".")[0] != "uipath":
            raise
    sys.stderr.write(f"[workbench] the uipath package is not importable by {sys.executable}; rows call "
                     f"{os.path.basename(file)}:{function} with the inputs dict, without the SDK's input and output "
                     f"conversion. {missing_sdk_hint(sys.executable, sys.prefix, sys.base_prefix, os.getcwd())}\n")
    return PlainEntry(file, function, worker_main)


def missing_sdk_hint(executable: str, prefix: str, base_prefix: str, root: str) -> str:
    """How to give the rows the SDK: install it into this interpreter when it is a virtualenv (the project's
    .venv, or one [runner] command names), else name the project's interpreter."""
    install = f"{executable} -m pip install uipath"
    if os.path.realpath(prefix) == os.path.realpath(os.path.join(root, ".venv")):
        return f"This interpreter is the project's .venv and lacks uipath: install it there ({install})."
    if os.path.realpath(prefix) != os.path.realpath(base_prefix):
        return f"This interpreter (a virtualenv) lacks uipath: install it there ({install})."
    return ("Name the project's interpreter in workbench.toml: [runner] command = [\".venv/bin/python\"], or "
            f"install uipath into this one ({install}).")


def user_frames(tb: Any, entry: str) -> Any:
    """The traceback from the entry file's first frame down, as `python main.py` shows it (the SDK's, asyncio's
    and this child's frames above it left out); where no frame is the entry's (the SDK failed before calling
    it), without this child's, worker_main's and asyncio's frames on top."""
    start = tb
    while start is not None and os.path.realpath(start.tb_frame.f_code.co_filename) != entry:
        start = start.tb_next
    if start is not None:
        return start
    plumbing = (os.path.abspath(__file__), WORKER_MAIN)
    while tb is not None and (tb.tb_frame.f_code.co_filename in plumbing
                              or os.sep + "asyncio" + os.sep in tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return tb


def install_user_tracebacks(worker_main: Any, file: str) -> None:
    """The traceback `serve` prints in a failed row's log: the user's own frames (`user_frames`) and the
    exception line; none for the SDK's refusals (EntryError), whose message is all there is to say."""
    entry = os.path.realpath(file)

    def print_user_traceback(exc: BaseException) -> None:
        if isinstance(exc, EntryError):
            return
        import traceback

        try:
            traceback.print_exception(type(exc), exc, user_frames(exc.__traceback__, entry))
        except BaseException:  # an exception hostile to the traceback module too: its type is still said
            sys.stderr.write(f"[workbench] the traceback of {type(exc).__name__} could not be printed\n")

    worker_main.print_user_traceback = print_user_traceback


def cap_replies(channel: Any, max_output_mb: str) -> None:
    """A row's reply longer than the line workbench reads at most (`[runner] max_output_mb`, as the setting
    says it) is sent as the row's error naming the size and the setting, instead of a line workbench would
    refuse as a broken protocol (and replace the worker for); the JSON is made once, as before."""
    dumps = channel.codec.dumps
    limit = int(float(max_output_mb) * 2**20)  # as the pool reckons it

    def capped(message: dict[str, Any]) -> str:
        data = dumps(message)
        if len(data) <= limit or "id" not in message:
            return data
        error = message.get("error")
        if "output" in message or not isinstance(error, str):
            return dumps({"id": message["id"], "error": too_large("output", len(data), max_output_mb)})
        # an error message that long (the agent's exception's): its start, which a JSON escape makes at most 12
        # bytes a character
        cut = too_large("error", len(data), max_output_mb)
        return dumps({"id": message["id"], "error": f"{error[:limit // 16]}… ({cut})"})

    channel.codec.dumps = capped


def too_large(what: str, size: int, max_output_mb: str) -> str:
    limit = int(float(max_output_mb) * 2**20)
    said = (f"this row's {what} is {_size(size)} as JSON, more than the {_size(limit)} workbench reads from a row "
            f"([runner] max_output_mb = {max_output_mb})")
    return f"{said}; return less, or raise max_output_mb in workbench.toml if that is expected" \
        if what == "output" else f"{said}: the rest is cut"


def _positive(text: str) -> bool:
    try:
        return 0 < float(text) < float("inf")
    except ValueError:
        return False


def _size(count: int) -> str:
    return f"{count / 2**20:.1f} MiB" if count >= 2**20 else f"{count / 2**10:.1f} KiB"


def main(argv: list[str]) -> None:
    worker_main = load_worker_main()
    channel = worker_main._Channel()
    if len(argv) not in (2, 3) or not all(_positive(arg) for arg in argv[2:]):
        channel.send({"fatal": "usage: child_main.py ENTRY_FILE FUNCTION [MAX_OUTPUT_MB]"})
        sys.exit(worker_main.EXIT_FATAL)
    if argv[2:]:
        cap_replies(channel, argv[2])
    os.environ[TELEMETRY_ENV] = "false"
    root = os.getcwd()
    file = os.path.abspath(argv[0])  # uipath.json's path, relative to the project root (the cwd)
    refusal = entry_refusal(file, root)
    if refusal:
        channel.send({"fatal": refusal})
        sys.exit(worker_main.EXIT_FATAL)
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        entry = make_entry(file, argv[1], worker_main)
        recorder = install_recorder()
    except BaseException as exc:  # whatever stops the SDK from loading is the user's to see
        worker_main._fatal(channel, exc)
        return
    install_user_tracebacks(worker_main, file)
    worker_main.serve(channel, RowRunner(entry, recorder, worker_main.TRACE_ENV))


if __name__ == "__main__":
    main(sys.argv[1:])
