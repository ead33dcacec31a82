"""A new user's first hour, message by message (H12's pass over issues 22 and 23): what workbench tells
a user to type or paste must work as given, and a message that names a file or a setting names the one
that is really at fault."""

from __future__ import annotations

from pathlib import Path

from helpers.cli import invoke_workbench
from helpers.project import make_project, row


def test_the_config_run_asks_for_runs_when_pasted_as_given(tmp_path: Path) -> None:
    """No workbench.toml: the snippet `run` prints, pasted into the file it names, runs the rows — its
    interpreter needs no `python3` on PATH, and it pins no concurrency below the default."""
    root = make_project(tmp_path / "p", sets={"s": [row("a", {"output": {"n": 1}}, {"n": 1})]},
                        files={"agent.py": "import json, sys\nprint(json.dumps(json.load(sys.stdin)['output']))\n"})
    first = invoke_workbench("run", str(root))
    assert first.returncode == 2
    head, _, snippet = first.stderr.partition(f"Add this to {root / 'workbench.toml'}:\n\n")
    assert snippet and "no way to run the target" in head
    assert "concurrency =" not in snippet
    (root / "workbench.toml").write_text(snippet.strip() + "\n")
    second = invoke_workbench("run", str(root))
    assert second.returncode == 0, second.stdout + second.stderr
    assert "1 passed, 0 failed, 0 errors" in second.stdout


def test_run_says_beside_the_row_that_it_has_no_inputs_as_check_does(tmp_path: Path) -> None:
    """`check` calls a row without "inputs" an error; `run` gave only the target's own `KeyError` traceback
    (the row ran on {}). Now the row's ERROR carries the same words as a warning, and `check` says them once."""
    target = "import json, sys\nprint(json.dumps({'n': json.load(sys.stdin)['n']}))\n"
    root = make_project(tmp_path / "p", config={"kind": "command", "command": ["{python}", "agent.py"]},
                        files={"agent.py": target},
                        sets={"s": [row("has inputs", {"n": 1}, {"n": 1}),
                                    {"id": "r2", "name": "no inputs",
                                     "evaluationCriterias": {"exact-match-evaluator": {"expectedOutput": {"n": 2}}}}]})
    words = "evaluations[1] ('no inputs') has no \"inputs\"; the target would get {}"
    run = invoke_workbench("run", str(root))
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    error_at = next(i for i, line in enumerate(lines) if line.startswith("ERROR") and "no inputs" in line)
    following = lines[error_at + 1:]
    row_lines = following[:next((i for i, line in enumerate(following) if not line.startswith(" ")), len(following))]
    assert any(line.strip().startswith(f"warning: {words}") for line in row_lines), run.stdout
    check = invoke_workbench("check", str(root))
    assert check.returncode == 1
    assert check.stdout.count(words) == 1, check.stdout
    assert "1 error, 0 warnings" in check.stdout


def test_a_typo_in_set_row_or_tag_gets_a_did_you_mean_and_tag_lists_the_tags(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", config={"kind": "command", "command": ["{python}", "agent.py"]},
                        files={"agent.py": "print('{}')\n"},
                        sets={"greeting": [row("says hello", {}, {})], "support": [row("order-refund", {}, {})]})
    cases = {("--set", "greting"): "nothing matches eval set 'greting' (did you mean 'greeting'? eval sets: "
                                   "greeting, support)",
             ("--row", "order-refnd"): "nothing matches row 'order-refnd' (did you mean 'order-refund'? eval sets: "
                                       "greeting, support; rows: 'says hello', 'order-refund')",
             ("--tag", "smoke"): "nothing matches tag 'smoke' (eval sets: greeting, support; tags: none (no row "
                                 "of these sets has tags))"}
    for args, message in cases.items():
        run = invoke_workbench("run", str(root), *args)
        assert run.returncode == 2 and run.stderr.strip() == f"workbench: {message}", run.stderr


def test_workbench_help_names_every_format_it_reads() -> None:
    """`workbench --help` named only UiPath's layout: a Botpress user read it as not for them."""
    from workbench.dialects import all_dialects

    shown = " ".join(invoke_workbench("--help").stdout.split())
    for dialect in all_dialects():
        assert dialect.words.expects.split(" or ")[0] in shown, dialect.name
    assert ".eval.ts" in shown and "workbench init" in shown


def test_the_tui_without_a_terminal_says_what_to_run_instead_of_drawing_into_a_pipe(tmp_path: Path) -> None:
    """From a script or an agent's shell (no terminal), `workbench`, `open`, `watch` and `demo` used to start
    the TUI anyway and never return. Now they stop at once (exit 2) naming the headless commands; `demo`
    stops before copying the example, so nothing is left behind."""
    root = make_project(tmp_path / "p", config={"kind": "command", "command": ["{python}", "agent.py"]},
                        files={"agent.py": "print('{}')\n"}, sets={"s": [row("a", {}, {})]})
    for args in ([str(root)], ["open", str(root)], ["watch", str(root)]):
        shown = invoke_workbench(*args)
        assert shown.returncode == 2, (args, shown.stdout, shown.stderr)
        assert shown.stderr.startswith("workbench: the TUI needs a terminal"), shown.stderr
        assert "`workbench watch --plain` runs the loop" in shown.stderr
    demo = invoke_workbench("demo", "--into", str(tmp_path / "demo"))
    assert demo.returncode == 2 and "`workbench demo --plain`" in demo.stderr
    assert not (tmp_path / "demo").exists()


def test_mcp_help_says_how_to_install_what_it_needs() -> None:
    from workbench.cli.mcp import INSTALL_HINT

    shown = " ".join(invoke_workbench("mcp", "--help").stdout.split())
    assert INSTALL_HINT in shown and "workbench-evals[mcp]" in shown


def test_a_bare_init_in_a_botpress_project_writes_nothing_and_says_what_is_there(tmp_path: Path) -> None:
    """`workbench init` in examples/botpress-agent seeded UiPath files beside its .eval.ts evals (a second
    format, an empty set in the run); now it writes nothing and names the format that is there. --format
    uipath still does it on purpose."""
    import shutil

    from helpers.paths import EXAMPLES

    root = tmp_path / "bot"
    shutil.copytree(EXAMPLES / "botpress-agent", root, ignore=shutil.ignore_patterns(".workbench"))
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    init = invoke_workbench("init", str(root))
    assert init.returncode == 1 and init.stdout == ""
    assert init.stderr.strip() == (f"workbench: {root} already holds conversation evals (evals/**/*.eval.json or "
                                   "*.eval.ts): `workbench run` runs them as they are. `init` would add UiPath API "
                                   "workflow evals beside them; give --format uipath to do that anyway, or --format "
                                   "botpress for a starter file of the format that is there.")
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
    forced = invoke_workbench("init", str(root), "--format", "uipath")
    assert forced.returncode == 0 and "created evals/default/eval-sets/evaluation-set.json" in forced.stdout


def test_init_format_botpress_in_an_empty_folder_makes_a_project_that_runs(tmp_path: Path) -> None:
    """Point 7 for the Botpress format: `init --format botpress && run` used to stop with "no way to run the
    target" (and a [runner] snippet for a one-shot command, not a per-turn bot). Now a starter bot.py and the
    workbench.toml that runs it come with the example eval, and the eval passes at once; a folder that
    already says how to run its target gets the eval only."""
    root = tmp_path / "bot"
    init = invoke_workbench("init", str(root), "--format", "botpress")
    assert init.returncode == 0, init.stderr
    assert init.stdout.splitlines()[:3] == ["created evals/greeting.eval.json", "created bot.py",
                                            "created workbench.toml"]
    assert "`workbench run` plays evals/greeting.eval.json against bot.py (it passes)" in init.stdout
    run = invoke_workbench("run", str(root))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1].startswith("1 passed, 0 failed, 0 errors")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "workbench.toml").write_text('[runner]\nkind = "command"\ncommand = ["{python}", "my_bot.py"]\n')
    again = invoke_workbench("init", str(mine), "--format", "botpress")
    assert again.returncode == 0 and "bot.py" not in again.stdout and not (mine / "bot.py").exists()
