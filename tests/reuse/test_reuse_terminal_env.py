"""The terminal workbench runs in is no part of what a target sees, so it is no part of the re-scoring proof: a
target has no terminal (pipes for stdin, stdout and stderr, a session of its own), and every runner kind gives it
TERM=dumb and none of the terminal's name and colour variables. Then the TUI in tmux and `run` in another
terminal re-score each other's rows, and a target can't answer by the terminal either. `[runner] env` may still
set TERM: then the target sees that value and the proof covers it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import cli_env, invoke_json
from helpers.project import evaluator, make_project, row
from helpers.runners import rows_in_turn

from workbench.config import Config, RunnerConfig
from workbench.rescoring.world import environment
from workbench.runners import RunRequest, make_runner
from workbench.runners.base import TERMINAL_ENV_LEFT_OUT, TERMINAL_TERM, target_env

KEY = b"k" * 32
TERMINALS = [
    {"TERM": "tmux-256color", "TERM_PROGRAM": "tmux", "TERM_PROGRAM_VERSION": "3.4", "COLORTERM": "truecolor"},
    {"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app", "TERM_PROGRAM_VERSION": "3.5.0",
     "LC_TERMINAL": "iTerm2", "LC_TERMINAL_VERSION": "3.5.0"},
    {"TERM": "xterm-kitty"},
]
NAMES = ("TERM", *TERMINAL_ENV_LEFT_OUT)

# What the target sees of a terminal: the variables, whether its stdio are terminals, whether it has one at all.
SEES = '''
import json, os, sys
try:
    os.close(os.open("/dev/tty", os.O_RDWR))
    tty = True
except OSError:
    tty = False
seen = {{"env": {{name: os.environ.get(name) for name in {names!r}}},
        "isatty": [os.isatty(fd) for fd in (0, 1, 2)], "controlling_tty": tty}}
'''
COMMAND = 'sys.stdin.read()\nprint(json.dumps(seen))\n'
WORKER = '''
for line in sys.stdin:
    print(json.dumps({"id": json.loads(line)["id"], "output": seen}), flush=True)
'''
FUNCTION = '''
def answer(inputs):
    return seen
'''
UNSEEN = {"env": {"TERM": TERMINAL_TERM, **dict.fromkeys(TERMINAL_ENV_LEFT_OUT)}, "isatty": [False] * 3,
          "controlling_tty": False}


def in_terminal(monkeypatch: pytest.MonkeyPatch, terminal: dict[str, str]) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in terminal.items():
        monkeypatch.setenv(name, value)


def test_the_target_environment_says_no_terminal_whatever_workbench_runs_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config(root=tmp_path)
    prints = set()
    for terminal in TERMINALS:
        in_terminal(monkeypatch, terminal)
        env = target_env(config)
        assert env["TERM"] == TERMINAL_TERM
        assert not set(TERMINAL_ENV_LEFT_OUT) & set(env)
        prints.add(json.dumps(environment(config, KEY), sort_keys=True))
    assert len(prints) == 1, "the terminal workbench ran in changed the world"


def test_a_term_the_settings_give_reaches_the_target_and_the_proof(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    in_terminal(monkeypatch, TERMINALS[0])
    config = Config(root=tmp_path)
    plain = environment(config, KEY)
    config.runner.env = {"TERM": "xterm-256color"}
    assert target_env(config)["TERM"] == "xterm-256color"
    assert environment(config, KEY) != plain
    config.runner.env = {"TERM_PROGRAM": "mine"}
    assert target_env(config)["TERM_PROGRAM"] == "mine"
    assert environment(config, KEY) != plain


def kinds(tmp_path: Path) -> dict[str, Config]:
    for name, source in (("command.py", COMMAND), ("worker.py", WORKER), ("sees.py", FUNCTION)):
        (tmp_path / name).write_text(SEES.format(names=NAMES) + source)
    python = sys.executable
    return {
        "command, forked from a warm parent": Config(root=tmp_path, runner=RunnerConfig(
            kind="command", command=[python, "command.py"])),
        "command, a fresh process": Config(root=tmp_path, runner=RunnerConfig(
            kind="command", command=[python, "command.py"], preload=False)),
        "command, not python": Config(root=tmp_path, runner=RunnerConfig(
            kind="command", command=["/bin/sh", "-c", f"exec {python} command.py"])),
        "worker": Config(root=tmp_path, runner=RunnerConfig(kind="worker", command=[python, "worker.py"])),
        "python": Config(root=tmp_path, runner=RunnerConfig(kind="python", callable="sees:answer")),
    }


@pytest.mark.parametrize("terminal", TERMINALS[:2], ids=["tmux", "iterm"])
def test_every_runner_kinds_target_sees_no_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    terminal: dict[str, str]) -> None:
    in_terminal(monkeypatch, terminal)
    for kind, config in kinds(tmp_path).items():
        (outcome,) = rows_in_turn(config, [{}])
        assert outcome.output == UNSEEN, (kind, outcome.error, outcome.output)


def test_a_uip_target_sees_no_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`uip` rows run through the same child environment (`Runner.child_env`)."""
    in_terminal(monkeypatch, TERMINALS[0])
    config = Config(root=tmp_path, runner=RunnerConfig(kind="uip", uip=["uip"]))
    runner = make_runner(config)
    env = runner.child_env(RunRequest({}, "r", "r", "s.json", "default"))
    asyncio.run(runner.aclose())
    assert env["TERM"] == TERMINAL_TERM and not set(TERMINAL_ENV_LEFT_OUT) & set(env)


ECHO = """\
import json, os, sys
inputs = json.load(sys.stdin)
with open(os.environ["RUNS_LOG"], "a") as log:
    log.write(os.environ["WORKBENCH_ROW_ID"] + "\\n")
print(json.dumps({"x": inputs["x"], "term": os.environ.get("TERM")}))
"""


def test_a_run_in_another_terminal_re_scores_the_rows(tmp_path: Path) -> None:
    toml = '[runner]\nkind = "command"\ncommand = ["{python}", "agent.py"]\ntimeout = 30\n'
    root = make_project(tmp_path / "project", sets={"echo": [row("r", {"x": 1}, {"x": 1, "term": "dumb"})]},
                        evaluators={"exact-match-evaluator": evaluator("*")}, config=toml, files={"agent.py": ECHO})
    runs = tmp_path / "runs.log"

    def run_in(terminal: dict[str, str]) -> dict[str, Any]:
        env = {k: v for k, v in cli_env(RUNS_LOG=str(runs)).items() if k not in NAMES}
        proc, doc = invoke_json("run", str(root), "--reuse", env={**env, **terminal})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return {r["row_id"]: (r["verdict"], bool(r.get("reused"))) for r in doc["results"]}

    assert run_in(TERMINALS[0]) == {"r": ("PASS", False)}
    assert run_in(TERMINALS[1]) == {"r": ("PASS", True)}  # the TUI in tmux, then `run` in iTerm: re-scored
    assert run_in({}) == {"r": ("PASS", True)}  # and with no terminal at all (CI)
    assert runs.read_text().split() == ["r"]
