"""`run --annotations github`: each failing row's annotation points at the line the row starts on in its eval
file — for every format (an eval-set's `evaluations`, a conversations `.eval.json` as an array, as
`{"evals": [...]}` and as one object, an `.eval.ts`, one-scenario-per-file, replay scripts) and for layouts a
naive search would get wrong (two identical rows, a row name inside an earlier row's string, several rows on
one line, a BOM, CRLF, braces inside strings). The expected lines are counted as the files are written."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers.cli import cli_env, invoke_workbench
from helpers.paths import EXAMPLES

from workbench.config import load_config
from workbench.model import Result, Verdict
from workbench.project import load_project
from workbench.report.annotations import github_annotations

_LINE = re.compile(r"^::error file=([^,]*),line=(\d+),title=([^:]*)::(.*)$")


def _json_rows(prefix: str, rows: list[object], suffix: str, *, one_line_rows: bool = False,
               newline: str = "\n") -> tuple[str, list[int]]:
    """`prefix` + the rows (each pretty-printed, or each on one line) + `suffix`, and the line each row starts on."""
    text = prefix
    starts: list[int] = []
    for index, row in enumerate(rows):
        if index:
            text += "," + ("" if one_line_rows else "\n")
        if not one_line_rows or not index:
            text += "    "
        starts.append(text.count("\n") + 1)
        dumped = json.dumps(row, indent=None if one_line_rows else 2, ensure_ascii=False)
        text += dumped.replace("\n", "\n    ")
    text += suffix
    return text.replace("\n", newline), starts


def _failing(project, *, only: set[str] | None = None) -> list[Result]:
    results = []
    for eval_set in project.sets:
        for row in eval_set.rows:
            if only is None or row.label in only:
                results.append(Result(eval_set.scope, eval_set.file_name, row.id, row.name, eval_set.evaluator_refs[0],
                                      Verdict.FAIL, 0.0, f"{row.label}: expected x, got y"))
    return results


def _lines(root: Path) -> dict[tuple[str, str], int]:
    """(file, row name) → the annotated line, for every row of the project failing (names unique)."""
    found = _all_lines(root)
    return {key: lines[0] for key, lines in found.items()}


def _all_lines(root: Path) -> dict[tuple[str, str], list[int]]:
    """(file, row name) → the annotated lines of the rows of that name, in the order they are annotated."""
    project = load_project(root, load_config(root))
    found: dict[tuple[str, str], list[int]] = {}
    for command in github_annotations(_failing(project), project, base=root):
        match = _LINE.match(command)
        assert match, command
        found.setdefault((match.group(1), match.group(3).split(" › ", 1)[1]), []).append(int(match.group(2)))
    return found


def _copy(example: str, tmp_path: Path) -> Path:
    root = tmp_path / example
    shutil.copytree(EXAMPLES / example, root, ignore=shutil.ignore_patterns(".workbench", "__pycache__"))
    return root


def _uipath_row(name: str, score: object, note: str = "") -> dict[str, object]:
    return {"id": f"id-{name}", "name": name, "inputs": {"score": score, "note": note},
            "evaluationCriterias": {"grade-only": {"expectedOutput": {"grade": "PASS"}}}}


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_eval_set_rows_lines(tmp_path, newline):
    root = _copy("grading", tmp_path)
    twin = _uipath_row("twin", 1)
    rows = [_uipath_row("first", 1, note='a "}" and a "]" and {"name": "second"} inside a string'),
            _uipath_row("second", 2), twin, dict(twin, id="id-twin-2"), _uipath_row("last", 3, note="ünï {[")]
    prefix = ('\ufeff{\n  "version": "1.0",\n  "name": "Bands",\n  "evaluatorRefs": ["grade-only"],\n'
              '  "evaluations": [\n')
    text, starts = _json_rows(prefix, rows, "\n  ]\n}\n", newline=newline)
    path = root / "evals/default/eval-sets/bands.json"
    path.write_bytes(text.encode())
    lines = _all_lines(root)
    shown = "evals/default/eval-sets/bands.json"
    assert [lines[(shown, name)] for name in ("first", "second", "twin", "last")] == [
        [starts[0]], [starts[1]], [starts[2], starts[3]], [starts[4]]]
    for start in starts:  # each line really is where a row's object opens
        assert text.replace("\r\n", "\n").splitlines()[start - 1].strip().startswith("{")


def test_identical_rows_each_get_their_own_line(tmp_path):
    """Two rows written alike (same id, so the loader tracks the second as another id): two lines, in order."""
    root = _copy("grading", tmp_path)
    same = _uipath_row("same", 5)
    text, starts = _json_rows('{"evaluatorRefs": ["grade-only"], "evaluations": [\n', [same, same], "\n]}\n")
    (root / "evals/default/eval-sets/bands.json").write_text(text)
    project = load_project(root, load_config(root))
    got = sorted(int(_LINE.match(c).group(2)) for c in github_annotations(
        [r for r in _failing(project) if r.set_file == "bands.json"], project, base=root))
    assert got == starts


def test_rows_on_one_line(tmp_path):
    root = _copy("grading", tmp_path)
    rows = [_uipath_row("a", 1), _uipath_row("b", 2), _uipath_row("c", 3)]
    text, starts = _json_rows('{"evaluatorRefs": ["grade-only"],\n"evaluations": [\n', rows, "]}",
                              one_line_rows=True)
    (root / "evals/default/eval-sets/bands.json").write_text(text)
    assert starts == [3, 3, 3]
    lines = _lines(root)
    assert [lines[("evals/default/eval-sets/bands.json", n)] for n in "abc"] == starts


def _conversation(name: str, says: str = "Hi") -> dict[str, object]:
    return {"name": name, "conversation": [{"user": says, "assert": {"response": [{"contains": "Hello"}]}}]}


@pytest.mark.parametrize("shape", ["array", "evals", "object"])
def test_conversation_json_lines(tmp_path, shape):
    root = _copy("support-bot", tmp_path)
    for path in (root / "evals").glob("*.eval.json"):
        path.unlink()
    if shape == "object":
        rows = [_conversation("only", 'say "name": "only"')]
        text = "\n\n" + json.dumps(rows[0], indent=2) + "\n"
        starts = [3]
    else:
        rows = [_conversation("one", '{"name": "two"}'), _conversation("two"), _conversation("three")]
        prefix = "[\n" if shape == "array" else '{\n  "evals": [\n'
        text, starts = _json_rows(prefix, rows, "\n]\n" if shape == "array" else "\n  ]\n}\n")
    (root / "evals/mixed.eval.json").write_text(text)
    lines = _lines(root)
    assert [lines[("evals/mixed.eval.json", r["name"])] for r in rows] == starts


def test_typescript_eval_lines(tmp_path):
    root = _copy("botpress-agent", tmp_path)
    lines = _lines(root)
    for file, name in [("evals/greeting.eval.ts", "greeting"), ("evals/support.eval.ts", "order-refund"),
                       ("evals/support.eval.ts", "urgent-ticket")]:
        source = (root / file).read_text().splitlines()
        opening = [i + 1 for i, line in enumerate(source) if "new Eval(" in line]
        named = next(i + 1 for i, line in enumerate(source) if f"name: '{name}'" in line)
        # the `new Eval(` that opens the eval holding this name: the last one before the name's line
        assert lines[(file, name)] == max(o for o in opening if o <= named)


def test_typescript_eval_after_comments_and_a_literal_that_is_not_one(tmp_path):
    root = _copy("botpress-agent", tmp_path)
    (root / "evals/support.eval.ts").unlink()
    (root / "evals/greeting.eval.ts").write_text(
        "import { Eval } from '@botpress/evals'\n"
        "// new Eval({ name: 'commented' })\n"
        "const s = \"new Eval({ name: 'in a string' })\"\n"
        "\n"
        "export const a = new Eval({ name: 'a', conversation: [{ user: 'hi', expectSilence: true }] })\n"
        "export const b = new Eval(\n"
        "  {\n"
        "    name: 'b',\n"
        "    conversation: [{ user: 'hi', expectSilence: true }],\n"
        "  })\n")
    lines = _lines(root)
    assert lines[("evals/greeting.eval.ts", "a")] == 5
    assert lines[("evals/greeting.eval.ts", "b")] == 6


def test_scenario_files_start_where_their_document_does(tmp_path):
    root = _copy("form-agent", tmp_path)
    folder = root / ".appilots/scenarios"
    path = folder / "submit-exactly.json"
    path.write_bytes(b"\xef\xbb\xbf\n\n  " + path.read_bytes())
    lines = _lines(root)
    by_file = {file: line for (file, _name), line in lines.items()}
    assert by_file[".appilots/scenarios/submit-exactly.json"] == 3
    for other in folder.glob("*.json"):
        if other != path:
            assert by_file[f".appilots/scenarios/{other.name}"] == 1


def test_replay_scripts_start_where_their_document_does(tmp_path):
    root = _copy("refund-agent", tmp_path)
    path = root / "evals/refund-held.script.json"
    path.write_text("\n" + path.read_text())
    lines = _lines(root)
    by_file = {file: line for (file, _name), line in lines.items()}
    assert by_file["evals/refund-held.script.json"] == 2
    assert by_file["evals/refund-denied.script.json"] == 1


def test_an_unreadable_row_file_is_annotated_at_its_start(tmp_path):
    root = _copy("refund-agent", tmp_path)
    (root / "evals/refund-held.script.json").write_text("{ not json\n")
    lines = _lines(root)
    assert {file: line for (file, _), line in lines.items()}["evals/refund-held.script.json"] == 1


def test_run_annotations_github_end_to_end(tmp_path):
    """The grading example's one failing row: `score 50 passes (boundary)` opens on line 27 of grading.json."""
    root = _copy("grading", tmp_path)
    source = (root / "evals/default/eval-sets/grading.json").read_text().splitlines()
    named = next(i for i, line in enumerate(source) if '"score 50 passes (boundary)"' in line)
    opening = max(i for i in range(named) if source[i].strip() == "{") + 1
    result = invoke_workbench("run", str(root), "--annotations", "github", "--no-history",
                              env=cli_env(GITHUB_WORKSPACE=str(root)))
    assert result.returncode == 1
    commands = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert commands == [
        f"::error file=evals/default/eval-sets/grading.json,line={opening},"
        "title=FAIL grading.json › score 50 passes (boundary)::[exact-match-evaluator] details.band: expected "
        '"pass", got "fail"%0Agrade: expected "PASS", got "FAIL"']


def test_with_json_the_annotations_go_to_stderr(tmp_path):
    root = _copy("grading", tmp_path)
    result = invoke_workbench("run", str(root), "--annotations", "github", "--json", "--no-history")
    json.loads(result.stdout)
    assert "::error file=" in result.stderr


def test_a_file_edited_after_loading_points_at_the_row_where_it_now_is_or_nowhere(tmp_path):
    """The run loaded the rows; before the annotations are written someone inserts a row above one and deletes
    another: the moved row is found where it now is, the deleted one gets no line (never a wrong one)."""
    root = _copy("botpress-agent", tmp_path)
    (root / "evals/support.eval.ts").unlink()
    ts = root / "evals/greeting.eval.ts"
    ts.write_text("export const a = new Eval({ name: 'a', conversation: [{ user: 'hi', expectSilence: true }] })\n"
                  "export const b = new Eval({ name: 'b', conversation: [{ user: 'hi', expectSilence: true }] })\n")
    project = load_project(root, load_config(root))
    results = _failing(project)
    ts.write_text("export const z = new Eval({ name: 'z', conversation: [{ user: 'yo', expectSilence: true }] })\n\n"
                  "export const a = new Eval({ name: 'a', conversation: [{ user: 'hi', expectSilence: true }] })\n")
    commands = github_annotations(results, project, base=root)
    assert [c.split("::")[1] for c in commands] == [
        "error file=evals/greeting.eval.ts,line=3,title=FAIL greeting.eval.ts › a",
        "error file=evals/greeting.eval.ts,title=FAIL greeting.eval.ts › b"]


def test_a_json_set_edited_after_loading(tmp_path):
    root = _copy("grading", tmp_path)
    path = root / "evals/default/eval-sets/bands.json"
    first, second = _uipath_row("first", 1), _uipath_row("second", 2)
    text, _ = _json_rows('{"evaluatorRefs": ["grade-only"], "evaluations": [\n', [first, second], "\n]}\n")
    path.write_text(text)
    project = load_project(root, load_config(root))
    results = [r for r in _failing(project) if r.set_file == "bands.json"]
    moved, starts = _json_rows('{"evaluatorRefs": ["grade-only"], "evaluations": [\n',
                               [_uipath_row("new", 0), second], "\n]}\n")
    path.write_text(moved)
    commands = github_annotations(results, project, base=root)
    assert [c.split("::")[1] for c in commands] == [
        "error file=evals/default/eval-sets/bands.json,title=FAIL bands.json › first",
        f"error file=evals/default/eval-sets/bands.json,line={starts[1]},title=FAIL bands.json › second"]


def test_a_file_problem_is_annotated_at_the_line_it_names(tmp_path):
    root = _copy("grading", tmp_path)
    (root / "evals/default/eval-sets/bands.json").write_text('{\n  "evaluations": [\n    {,\n  ]\n}\n')
    result = invoke_workbench("run", str(root), "--annotations", "github", "--no-history", "-q",
                              env=cli_env(GITHUB_WORKSPACE=str(root)))
    problems = [line for line in result.stdout.splitlines() if line.startswith("::") and "file problem" in line]
    assert problems == ["::error file=evals/default/eval-sets/bands.json,line=3,title=workbench%3A file problem::"
                        "is not valid JSON at line 3, column 6: Expecting property name enclosed in double quotes"]
