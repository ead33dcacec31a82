"""A Botpress project as it is: `evals/*.eval.ts` and `agent.config.ts` read without Node (issue 22, seed 002).

The must-show: examples/botpress-agent holds examples/support-bot's three evals as TypeScript (a default
export, two named exports in one file, comments, single quotes, trailing commas, a regex string, an
agent.config.ts) and runs with the same verdicts, scores and details. Rows from a .eval.ts are the rows of
the equivalent .eval.json (ids, inputs, criteria), re-score like them, re-load in the watch loop when the
file changes, and are never written into (accept, add-row). A construct that is not a literal is an ERROR
naming file, line and construct, in `check` and `run`. Also here: the idle-timeout and judge-threshold
cascades (eval options → workbench.toml [evals] → agent.config.ts → 30,000 ms / 3), an empty conversation
is an ERROR, and an evals/ of files no format reads says so."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.cli import invoke_json, invoke_workbench
from helpers.conversations import ScriptedTarget, config_for, eval_doc, judge_script, result_of, turn, write_evals
from helpers.conversations import play as play_in_process
from helpers.paths import EXAMPLES
from helpers.watch import watching

from workbench.config import Config, JudgeConfig, RunnerConfig
from workbench.dialects.conversations.settings import ConversationsConfig
from workbench.model import Verdict
from workbench.project import load_project

TS_EXAMPLE = EXAMPLES / "botpress-agent"
JSON_EXAMPLE = EXAMPLES / "support-bot"
HINT = "workbench reads literal evals (or convert it to .eval.json)"


def copy(example: Path, into: Path) -> Path:
    root = into / example.name
    shutil.copytree(example, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return copy(TS_EXAMPLE, tmp_path)


def outcome(doc: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """Per eval: verdict, score, detail and every assertion's verdict and message."""
    return {r["row_name"]: (r["verdict"], r["score"], r["detail"],
                            [(a["kind"], a["verdict"], a["message"]) for a in r["expected"]["assertions"]])
            for r in doc["results"]}


def test_the_botpress_example_runs_with_the_verdicts_of_its_json_twin(tmp_path: Path) -> None:
    """Must-show: the same evals written as .eval.ts (with agent.config.ts) and as .eval.json."""
    ts_root, json_root = copy(TS_EXAMPLE, tmp_path), copy(JSON_EXAMPLE, tmp_path)
    assert not list(ts_root.glob("evals/*.json")) and not list(json_root.glob("evals/*.ts"))
    ts_proc, ts_doc = invoke_json("run", str(ts_root), "--no-history")
    json_proc, json_doc = invoke_json("run", str(json_root), "--no-history")
    assert ts_proc.returncode == json_proc.returncode == 1  # order-refund fails on purpose in both
    assert outcome(ts_doc) == outcome(json_doc)
    assert {name: verdict for name, (verdict, *_) in outcome(ts_doc).items()} == {
        "greeting": "PASS", "order-refund": "FAIL", "urgent-ticket": "PASS"}
    assert ts_doc["problems"] == json_doc["problems"] == []
    by_name = {r["row_name"]: r for r in ts_doc["results"]}
    assert by_name["order-refund"]["set"] == "support.eval.ts" and by_name["greeting"]["set"] == "greeting.eval.ts"


def test_rows_from_typescript_are_the_rows_of_the_json_twin(tmp_path: Path) -> None:
    ts = load_project(copy(TS_EXAMPLE, tmp_path))
    plain = load_project(copy(JSON_EXAMPLE, tmp_path))
    assert ts.problems == plain.problems == []
    ts_rows = {row.name: row for s in ts.sets for row in s.rows}
    json_rows = {row.name: row for s in plain.sets for row in s.rows}
    assert ts_rows.keys() == json_rows.keys() == {"greeting", "order-refund", "urgent-ticket"}
    for name, row in ts_rows.items():
        twin = json_rows[name]
        assert (row.id, row.criteria, row.raw, row.tags, row.kind, row.problem) == \
               (twin.id, twin.criteria, twin.raw, twin.tags, twin.kind, twin.problem), name
        # agent.config.ts says 20,000 ms; support-bot has no agent config (30,000); urgent-ticket says 5,000
        assert {k: v for k, v in row.inputs.items() if k != "idleTimeout"} == \
               {k: v for k, v in twin.inputs.items() if k != "idleTimeout"}
    assert {n: r.inputs["idleTimeout"] for n, r in ts_rows.items()} == {
        "greeting": 20000, "order-refund": 20000, "urgent-ticket": 5000}
    assert {n: r.inputs["idleTimeout"] for n, r in json_rows.items()} == {
        "greeting": 30000, "order-refund": 30000, "urgent-ticket": 5000}
    assert [(s.short_name, [r.index for r in s.rows]) for s in ts.sets] == [("greeting", [0]), ("support", [0, 1])]


def test_check_and_run_name_the_file_line_and_construct_that_is_not_a_literal(agent: Path) -> None:
    path = agent / "evals" / "support.eval.ts"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    line = next(i for i, t in enumerate(lines, 1) if "I'd like a refund" in t)
    path.write_text(text.replace('user: "I\'d like a refund for that order"', "user: refundRequest"), encoding="utf-8")
    check = invoke_workbench("check", str(agent))
    assert check.returncode == 1
    expected = (f"evals/support.eval.ts: line {line}: new Eval({{...}}) (the eval at line 5) holds the identifier "
                f"`refundRequest`; {HINT}")
    assert expected in check.stdout + check.stderr
    proc, doc = invoke_json("run", str(agent), "--no-history")
    assert proc.returncode == 1
    assert [p["file"] for p in doc["problems"]] == ["evals/support.eval.ts"]
    assert doc["problems"][0]["message"].startswith(f"line {line}: ") and doc["problems"][0]["severity"] == "error"
    # the file's other eval and the other file still run
    assert {r["row_name"]: r["verdict"] for r in doc["results"]} == {"greeting": "PASS", "urgent-ticket": "PASS"}


def test_a_typescript_file_without_any_eval_is_an_error(agent: Path) -> None:
    (agent / "evals" / "helpers.eval.ts").write_text("export const turns = [{ user: 'hi' }]\n", encoding="utf-8")
    project = load_project(agent)
    [problem] = project.problems
    assert problem.file == "evals/helpers.eval.ts" and problem.is_error
    assert "has no `new Eval({...})`" in problem.message and HINT in problem.message


def test_several_evals_per_file_keep_their_order_and_a_repeated_name_is_an_error(tmp_path: Path) -> None:
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "many.eval.ts").write_text(
        "export default new Eval({ name: 'b', conversation: [{ user: 'x' }] })\n"
        "export const a = new Eval({ name: 'a', conversation: [{ user: 'x' }] })\n"
        "export const again = new Eval({ name: 'b', conversation: [{ user: 'y' }] })\n", encoding="utf-8")
    project = load_project(tmp_path)
    [eval_set] = project.sets
    assert [(r.id, r.name, r.index) for r in eval_set.rows] == [("b", "b", 0), ("a", "a", 1), ("b#2", "b", 2)]
    assert eval_set.rows[2].problem is not None
    assert "name 'b' is already used by the eval in evals/many.eval.ts" in eval_set.rows[2].problem


def test_a_typescript_eval_is_held_to_the_same_rules(tmp_path: Path) -> None:
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "rules.eval.ts").write_text(
        "export const a = new Eval({ name: 'silent-and-said', conversation: [\n"
        "  { user: 'hi', expectSilence: true, assert: { response: [{ contains: 'x' }] } },\n"
        "] })\n"
        "export const b = new Eval({ name: 'no-turns', conversation: [] })\n", encoding="utf-8")
    rows = {r.name: r for r in load_project(tmp_path).sets[0].rows}
    assert "expectSilence and assert.response can't be used together" in (rows["silent-and-said"].problem or "")
    assert (rows["no-turns"].problem or "").startswith("conversation is empty: an eval needs at least one turn")


def test_an_empty_conversation_is_an_error_row(tmp_path: Path) -> None:
    """Seed 002: a conversation is turns; with none, the bot is never asked, so it must not pass."""
    write_evals(tmp_path, {"e": eval_doc("empty", []), "f": eval_doc("fine", [turn("hi")])})
    target = ScriptedTarget(lambda request: {"reply": "ok"})
    report = play_in_process(tmp_path, target)
    empty = result_of(report, "empty")
    assert empty.verdict is Verdict.ERROR and "conversation is empty" in empty.detail
    assert result_of(report, "fine").verdict is Verdict.PASS
    assert [r["eval"] for r in target.requests] == ["fine"]


# -- the cascades ------------------------------------------------------------------------------------


def agent_config(root: Path, evals: str) -> None:
    (root / "agent.config.ts").write_text(
        "import { defineConfig } from '@botpress/runtime'\n"
        f"export default defineConfig({{\n  name: 'bot',\n  evals: {{ {evals} }},\n}})\n", encoding="utf-8")


def config_with(root: Path, *, idle_ms: int | None = None, threshold: float | None = None,
                judge: list[str] | None = None) -> Config:
    return Config(root=root, runner=RunnerConfig(), judge=JudgeConfig(command=judge),
                  dialect_sections={"evals": ConversationsConfig(idle_timeout_ms=idle_ms,
                                                                 judge_pass_threshold=threshold)})


@pytest.mark.parametrize(("options", "setting", "agent_ms", "seconds"), [
    (None, None, None, 30.0),  # the ADK's default, not the runner's 60 s
    (None, None, 20000, 20.0),  # agent.config.ts
    (None, 45000, 20000, 45.0),  # workbench.toml's [evals] wins over agent.config.ts
    ({"idleTimeout": 1500}, 45000, 20000, 1.5),  # the eval's own options win over both
])
def test_the_idle_timeout_cascade(tmp_path: Path, options: dict[str, Any] | None, setting: int | None,
                                  agent_ms: int | None, seconds: float) -> None:
    write_evals(tmp_path, {"a": eval_doc("e", [turn("x"), turn("y")], **({"options": options} if options else {}))})
    if agent_ms is not None:
        agent_config(tmp_path, f"idleTimeout: {agent_ms}")
    target = ScriptedTarget(lambda request: {"reply": "ok"})
    play_in_process(tmp_path, target, config=config_with(tmp_path, idle_ms=setting))
    assert target.timeouts == [seconds, seconds]


@pytest.mark.parametrize(("setting", "agent_ms", "source"), [
    (None, None, "the default idle timeout is 30000 ms"),
    (None, 300, "agent.config.ts's evals.idleTimeout is 300 ms"),
    (300, 20000, "[evals] idle_timeout_ms is 300 ms"),
])
def test_a_turn_past_the_idle_timeout_says_where_the_timeout_came_from(tmp_path: Path, setting: int | None,
                                                                       agent_ms: int | None, source: str) -> None:
    write_evals(tmp_path, {"a": eval_doc("slow", [turn("x")])})
    if agent_ms is not None:
        agent_config(tmp_path, f"idleTimeout: {agent_ms}")

    def timed_out(request: dict[str, Any]) -> dict[str, Any]:
        raise TimeoutError("the turn timed out")

    config = config_with(tmp_path, idle_ms=setting)
    result = result_of(play_in_process(tmp_path, timed_out, config=config), "slow")
    assert result.verdict is Verdict.ERROR and f"({source})" in result.detail


@pytest.mark.parametrize(("setting", "agent_threshold", "score", "verdict"), [
    (None, None, 3, Verdict.PASS),  # the default 3
    (None, 4, 3, Verdict.FAIL),  # agent.config.ts's judgePassThreshold
    (None, 4, 4, Verdict.PASS),
    (2.0, 4, 3, Verdict.PASS),  # workbench.toml wins over agent.config.ts
])
def test_the_judge_threshold_cascade_takes_agent_config(tmp_path: Path, setting: float | None,
                                                        agent_threshold: int | None, score: int,
                                                        verdict: Verdict) -> None:
    write_evals(tmp_path, {"e": eval_doc("j", [turn("open a ticket", response=[{"llm_judge": "Confirms it"}])])})
    if agent_threshold is not None:
        agent_config(tmp_path, f"judgePassThreshold: {agent_threshold}, judgeModel: 'fast'")
    config = config_with(tmp_path, threshold=setting, judge=judge_script(tmp_path, score))
    result = result_of(play_in_process(tmp_path, lambda request: {"reply": "Ticket TKT-1 created"}, config=config), "j")
    assert result.verdict is verdict, result.detail


def test_the_default_settings_of_a_project_without_evals_section(tmp_path: Path) -> None:
    config = config_for(tmp_path)  # the helpers' default config sets judge_pass_threshold = 3 explicitly
    assert config.section(ConversationsConfig).idle_timeout_ms is None
    assert ConversationsConfig().judge_pass_threshold is None


@pytest.mark.parametrize(("evals", "words"), [
    ("idleTimeout: TIMEOUT_MS", "line 4: evals holds the identifier `TIMEOUT_MS`"),
    ("idleTimeout: -5", "evals.idleTimeout must be a number of milliseconds above 0, not -5"),
    ("judgePassThreshold: 9", "evals.judgePassThreshold must be a number from 1 to 5, not 9"),
    ("idleTimeout: '20000'", "evals.idleTimeout must be a number of milliseconds above 0, not \"20000\""),
])
def test_an_agent_config_value_workbench_cannot_use_is_an_error_of_agent_config(agent: Path, evals: str,
                                                                                words: str) -> None:
    agent_config(agent, evals)
    check = invoke_workbench("check", str(agent))
    assert check.returncode == 1
    assert f"agent.config.ts: {words}" in check.stdout + check.stderr


def test_agent_config_refuses_a_link_out_of_the_project_and_a_fifo(agent: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.ts"
    outside.write_text("export default defineConfig({ evals: { idleTimeout: 1 } })", encoding="utf-8")
    (agent / "agent.config.ts").unlink()
    (agent / "agent.config.ts").symlink_to(outside)
    [problem] = load_project(agent).problems
    assert problem.file == "agent.config.ts" and "is a link to a file outside ./; not read" in problem.message
    (agent / "agent.config.ts").unlink()
    os.mkfifo(agent / "agent.config.ts")
    [problem] = load_project(agent).problems  # returns at once: a FIFO is never opened for reading blocking
    assert problem.file == "agent.config.ts" and "not a regular file" in problem.message


def test_an_eval_ts_link_out_of_evals_and_a_fifo_are_refused(agent: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.eval.ts"
    outside.write_text("export default new Eval({ name: 'outside', conversation: [{ user: 'x' }] })",
                       encoding="utf-8")
    (agent / "evals" / "linked.eval.ts").symlink_to(outside)
    os.mkfifo(agent / "evals" / "pipe.eval.ts")
    problems = {p.file: p.message for p in load_project(agent).problems}
    assert "is a link to a file outside evals/; not read" in problems["evals/linked.eval.ts"]
    assert "not a regular file" in problems["evals/pipe.eval.ts"]


def test_a_typescript_file_that_is_not_utf8_is_an_error(agent: Path) -> None:
    (agent / "evals" / "latin1.eval.ts").write_bytes("export default new Eval({ name: 'café' })".encode("latin-1"))
    problems = {p.file: p.message for p in load_project(agent).problems}
    assert problems["evals/latin1.eval.ts"].startswith("is not UTF-8 text")


# -- like a .eval.json everywhere: re-scoring, the watch loop, never written into ----------------------


def test_re_scoring_follows_the_typescript_row_not_the_file(agent: Path) -> None:
    assert invoke_workbench("run", str(agent)).returncode == 1
    path = agent / "evals" / "support.eval.ts"
    # an assertion changed: every row is re-scored from its recorded run, urgent-ticket now fails
    path.write_text(path.read_text(encoding="utf-8").replace("{ contains: 'welcome' }", "{ contains: 'farewell' }"),
                    encoding="utf-8")
    _, doc = invoke_json("run", str(agent), "--reuse")
    by_name = {r["row_name"]: r for r in doc["results"]}
    assert {n: (r["verdict"], r.get("reused", False)) for n, r in by_name.items()} == {
        "greeting": ("PASS", True), "order-refund": ("FAIL", True), "urgent-ticket": ("FAIL", True)}
    assert "does not contain \"farewell\"" in by_name["urgent-ticket"]["detail"]
    # a message changed: that row runs again, the others are still re-scored
    path.write_text(path.read_text(encoding="utf-8").replace("Thanks, that\\'s all", "Thanks, that is all"),
                    encoding="utf-8")
    _, doc = invoke_json("run", str(agent), "--reuse")
    assert {r["row_name"]: r.get("reused", False) for r in doc["results"]} == {
        "greeting": True, "order-refund": True, "urgent-ticket": False}


def test_the_watch_loop_reloads_a_changed_typescript_eval(agent: Path) -> None:
    async def scenario() -> None:
        async with watching(agent) as harness:
            first = {r.row_name: r.verdict for r in harness.reports[0].results}
            assert first["order-refund"] is Verdict.FAIL
            path = agent / "evals" / "support.eval.ts"
            text = path.read_text(encoding="utf-8")
            fixed = text.replace("tools: [{ called: 'issueRefund', params: { orderId: { equals: 'ORD-001' } } }],",
                                 "tools: [{ called: 'lookupOrder' }],")
            assert fixed != text
            path.write_text(fixed, encoding="utf-8")
            report, _ = await harness.wait_for(2)
            assert {r.row_name: r.verdict for r in report.results}["order-refund"] is Verdict.PASS

    asyncio.run(scenario())


def test_accept_and_add_row_never_write_into_a_typescript_file(agent: Path) -> None:
    before = {p.name: p.read_bytes() for p in (agent / "evals").iterdir()}
    assert invoke_workbench("run", str(agent)).returncode == 1
    accept = invoke_workbench("accept", str(agent), "--set", "support", "--row", "order-refund")
    assert accept.returncode == 1
    assert "'order-refund' is a conversation eval" in accept.stderr
    assert "workbench never writes into a .eval.ts file" in accept.stderr
    criterion = json.dumps({"name": "new", "conversation": [{"user": "hi"}]})
    add = invoke_workbench("add-row", str(agent), "--set", "support", "--name", "new", "--inputs", "{}",
                           "--criterion", f"conversation={criterion}")
    assert add.returncode == 1
    # the formats it does add rows to are the registry's, so the list is checked by what it holds, not its order
    assert ("support.eval.ts is a file of conversation evals, which workbench never writes (it adds rows only to "
            "evals/<scope>/eval-sets/") in add.stderr
    assert "); add the row to the file by hand" in add.stderr
    assert {p.name: p.read_bytes() for p in (agent / "evals").iterdir()} == before


# -- an evals/ workbench can't read says so ------------------------------------------------------------


def test_an_evals_folder_of_files_no_format_reads_fails_check_and_run(tmp_path: Path) -> None:
    """Issue 22: `check` passed and `run` asked for UiPath's eval-sets/*.json."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "greeting.eval.js").write_text("module.exports = {}", encoding="utf-8")
    (tmp_path / "evals" / "notes.md").write_text("# notes", encoding="utf-8")
    (tmp_path / "workbench.toml").write_text('[runner]\nkind = "command"\ncommand = ["cat"]\n', encoding="utf-8")
    words = "evals: holds only files workbench can't read (greeting.eval.js, notes.md); it reads "
    check = invoke_workbench("check", str(tmp_path))
    assert check.returncode == 1 and words in check.stdout + check.stderr
    assert "conversation evals: evals/**/*.eval.json or *.eval.ts" in check.stdout + check.stderr
    run = invoke_workbench("run", str(tmp_path), "--no-history")
    assert run.returncode != 0 and words in run.stdout + run.stderr


def test_an_empty_evals_folder_is_still_only_a_warning(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    [problem] = load_project(tmp_path).problems
    assert not problem.is_error and problem.message.startswith("no eval sets found")
