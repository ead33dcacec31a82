"""A target that misbehaves on request, for every runner kind:

    faulty_target.py command   one process per row: inputs as JSON on stdin, output JSON on stdout
    faulty_target.py worker    JSON lines: {"id", "inputs"} in, {"id", "output"} out, many rows per process
    faulty_target.py uip       a stand-in for `uip api-workflow run ... --input-arguments J --log-file F`
    module:function            `as_function(inputs)` for `kind = "python"`

What a row does is chosen by `inputs["do"]` (default: echo the inputs back):

    crash         dies of SIGSEGV                  hang         starts a grandchild, then sleeps
    fork_exit     starts a grandchild that keeps the pipes open, answers, and returns/exits at once
    flood_stdout  writes `mb` MiB to stdout (no newline)   flood_stderr  writes `mb` MiB of log lines
    bad_utf8      prints bytes that are not UTF-8         close_stdin   closes its stdin, then answers
    exit          exits with code 3, printing nothing
    flood_log     (uip) writes `mb` MiB to the debug log before its Response line
    deep          answers with an array nested `levels` deep (default 100,000)

Every process it starts (itself included) is appended to the file named by $FAULTY_PIDS, so a test
can prove none of them outlives workbench.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

MIB = 1024 * 1024


def note_pid(*pids: int) -> None:
    path = os.environ.get("FAULTY_PIDS")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("".join(f"{pid}\n" for pid in pids))


def grandchild() -> int:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    note_pid(child.pid)
    return child.pid


def deep_json(inputs: dict) -> str:
    levels = int(inputs.get("levels", 100_000))
    return "[" * levels + '"bottom"' + "]" * levels


def deep_value(inputs: dict) -> list:
    value: list = ["bottom"]
    for _ in range(int(inputs.get("levels", 100_000)) - 1):
        value = [value]
    return value


def misbehave(inputs: dict, out, err) -> dict | None:
    """Do what the row asks; the output to answer with, or None when the answer was already written."""
    do = inputs.get("do", "echo")
    if do == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if do == "hang":
        grandchild()
        time.sleep(300)
    if do == "fork_exit":
        grandchild()
        return {"forked": True}
    if do == "exit":
        os._exit(3)
    if do == "flood_stdout":
        chunk = b"x" * MIB
        for _ in range(int(inputs.get("mb", 100))):
            out.write(chunk)
        out.flush()
        return None
    if do == "flood_stderr":
        line = b"log line " + b"y" * 1014 + b"\n"
        for _ in range(int(inputs.get("mb", 100)) * 1024):
            err.write(line)
        err.flush()
        return {"flooded": True}
    if do == "close_stdin":
        os.close(0)
        return {"closed": True}
    return {"echo": inputs}


def command() -> None:
    note_pid(os.getpid())
    if os.environ.get("WORKBENCH_ROW_NAME") == "close_stdin":
        os.close(0)  # without reading the (large) inputs
        inputs = {"do": "echo", "closed": True}
    else:
        inputs = json.loads(sys.stdin.buffer.read())
    if inputs.get("do") == "bad_utf8":
        sys.stderr.buffer.write(b"log \xff\xfe\x80 not utf-8\n")
        sys.stdout.buffer.write(b'{"v": "\xff\xfe"}\n')
        return
    if inputs.get("do") == "deep":
        sys.stdout.write(deep_json(inputs))
        return
    output = misbehave(inputs, sys.stdout.buffer, sys.stderr.buffer)
    if output is not None:
        sys.stdout.write(json.dumps(output) + "\n")
        sys.stdout.flush()


def worker() -> None:
    note_pid(os.getpid())
    out = sys.stdout.buffer
    while line := sys.stdin.buffer.readline():
        request = json.loads(line)
        inputs = request["inputs"]
        if inputs.get("do") == "bad_utf8":
            sys.stderr.buffer.write(b"log \xff\xfe\x80 not utf-8\n")
            out.write(b'{"id": ' + str(request["id"]).encode() + b', "output": "\xff\xfe"}\n')
            out.flush()
            continue
        if inputs.get("do") == "deep":
            out.write(f'{{"id": {request["id"]}, "output": {deep_json(inputs)}}}\n'.encode())
            out.flush()
            continue
        output = misbehave(inputs, out, sys.stderr.buffer)
        if output is not None:
            out.write(json.dumps({"id": request["id"], "output": output}).encode() + b"\n")
            out.flush()
        if inputs.get("do") == "close_stdin":
            time.sleep(300)  # alive, but deaf: it can never read another request
        if inputs.get("do") == "fork_exit":
            return


def uip() -> None:
    note_pid(os.getpid())
    argv = sys.argv[2:]
    inputs = json.loads(argv[argv.index("--input-arguments") + 1])
    log_file = argv[argv.index("--log-file") + 1]
    if inputs.get("do") == "bad_utf8":
        sys.stdout.buffer.write(b'{"Result": "Success\xff"}\n')
        return
    output = misbehave(inputs, sys.stdout.buffer, sys.stderr.buffer)
    if output is None:
        return
    with open(log_file, "w", encoding="utf-8") as log:
        if inputs.get("do") == "flood_log":  # a debug log of `mb` MiB before the Response line
            line = "[debug] " + "z" * 1015 + "\n"
            for _ in range(int(inputs.get("mb", 100)) * 1024):
                log.write(line)
        output = deep_json(inputs) if inputs.get("do") == "deep" else json.dumps(output)
        log.write(f'[debug] Response task evaluated successfully for "Response": {{"response": {output}}}\n')
    print(json.dumps({"Result": "Success", "Message": None, "Data": None}))


def as_function(inputs: dict):
    """`kind = "python"`: the same misbehaviour inside a function (its stdout is the row's log)."""
    note_pid(os.getpid())
    if inputs.get("do") == "bad_utf8":
        os.write(2, b"log \xff\xfe\x80 not utf-8\n")
        return {"v": "\udcff"}
    if inputs.get("do") == "deep":
        return deep_value(inputs)
    if inputs.get("do") == "fork_exit":
        grandchild()
        os._exit(0)  # the worker process itself goes, its grandchild stays
    return misbehave(inputs, sys.stdout.buffer, sys.stderr.buffer)


if __name__ == "__main__":
    {"command": command, "worker": worker, "uip": uip}[sys.argv[1]]()
