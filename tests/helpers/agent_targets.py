"""Targets for the agent tests, written into a test's project.

HELD: a command target. {"hold": "<file>"} writes "<pid>" to <file>.started, then waits until <file> exists
(a 120 s guard, not a timing window) and prints {"released": true}; other inputs print {"echo": inputs}.
NOISY: a `kind = "python"` callable that prints to stdout in every way it can (print, sys.stdout, fd 1, a
child process inheriting fd 1) before returning its output.
"""

HELD = '''
import json, os, sys, time
inputs = json.load(sys.stdin)
hold = inputs.get("hold")
if hold:
    with open(hold + ".started", "w") as handle:
        handle.write(str(os.getpid()))
    deadline = time.monotonic() + 120
    while not os.path.exists(hold) and time.monotonic() < deadline:
        time.sleep(0.02)
    print(json.dumps({"released": True}))
else:
    print(json.dumps({"echo": inputs}))
'''

NOISY = '''
import os, subprocess, sys

def answer(inputs):
    print("print() to stdout: not protocol")
    sys.stdout.write("{\\"jsonrpc\\": \\"2.0\\", \\"id\\": 99, \\"result\\": {}}\\n")
    sys.stdout.flush()
    os.write(1, b"raw bytes on fd 1\\n")
    subprocess.run([sys.executable, "-c", "print('a child inheriting fd 1')"], check=True)
    return {"echo": inputs}
'''

TEE = '''
import subprocess, sys
log, command = sys.argv[1], sys.argv[2:]
with open(log, "wb") as copy:
    child = subprocess.Popen(command, stdout=subprocess.PIPE)
    for line in child.stdout:
        copy.write(line)
        copy.flush()
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
    sys.exit(child.wait())
'''
