"""Workflow commands escaped by the runner's rules (actions/toolkit command.ts): a row name or a digest can't
end the command early, start another one or smuggle a property; and the annotations are bounded."""

from __future__ import annotations

import re

from workbench.model import Result, Verdict
from workbench.report.annotations import MAX_ANNOTATIONS, command, escape_data, escape_property, github_annotations

HOSTILE = "50% done, a:b\r\n::error file=/etc/passwd::pwned\n%0A"


def _unescape_data(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _unescape_property(text: str) -> str:
    return _unescape_data(text.replace("%3A", ":").replace("%2C", ","))


def test_escaping_rules():
    assert escape_data("a%b\r\nc:d,e") == "a%25b%0D%0Ac:d,e"
    assert escape_property("a%b\r\nc:d,e") == "a%25b%0D%0Ac%3Ad%2Ce"


def test_a_hostile_name_and_message_stay_one_command_and_read_back_whole():
    line = command("error", HOSTILE, file="evals/a,b:c.json", line=3, title=HOSTILE)
    assert "\n" not in line and "\r" not in line
    head, _, message = line[2:].partition("::")  # the runner splits at the first '::' after the command
    kind, _, properties = head.partition(" ")
    assert kind == "error"
    fields = dict(part.split("=", 1) for part in properties.split(","))
    assert set(fields) == {"file", "line", "title"}
    assert _unescape_property(fields["file"]) == "evals/a,b:c.json"
    assert _unescape_property(fields["title"]) == HOSTILE
    assert fields["line"] == "3"
    assert _unescape_data(message) == HOSTILE


def test_a_row_name_with_commas_and_colons(tmp_path):
    result = Result("default", "set.json", "r1", "a, b: c", "exact", Verdict.ERROR, 0.0, "boom\nsecond line")
    (only,) = github_annotations([result], None, base=tmp_path, root=tmp_path)
    assert re.fullmatch(r"::error title=ERROR set\.json › a%2C b%3A c::\[exact\] boom%0Asecond line", only)


def test_annotations_are_bounded_and_the_rest_counted(tmp_path):
    results = [Result("default", "set.json", f"r{i}", f"row {i}", "exact", Verdict.FAIL, 0.0, "no")
               for i in range(MAX_ANNOTATIONS + 30)]
    lines = github_annotations(results, None, base=tmp_path, root=tmp_path)
    assert len(lines) == MAX_ANNOTATIONS
    assert lines[-1].startswith("::notice ") and "31 more failing rows" in lines[-1]
    assert all(line.startswith("::error ") for line in lines[:-1])


def test_erroring_rows_come_first(tmp_path):
    results = [Result("default", "set.json", "f", "fails", "exact", Verdict.FAIL, 0.0, "no"),
               Result("default", "set.json", "e", "errs", "exact", Verdict.ERROR, 0.0, "crash"),
               Result("default", "set.json", "p", "passes", "exact", Verdict.PASS, 1.0, "")]
    lines = github_annotations(results, None, base=tmp_path, root=tmp_path)
    assert [line.split("›")[1].split("::")[0].strip() for line in lines] == ["errs", "fails"]
