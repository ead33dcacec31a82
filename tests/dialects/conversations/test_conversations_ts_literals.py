"""The TypeScript literal reader (`ts_literals.py`) on its own: every literal form a Botpress eval is written
in reads as JavaScript would read it, every construct that is not a literal is named with its line, and a
hostile file (deep nesting, a huge file, a comment or string that never ends) is a problem, never a hang,
a RecursionError or a wrong value. A property test writes random JSON values the way a person writes
TypeScript (single quotes, unquoted keys, trailing commas, comments) and reads them back exactly."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.dialects.conversations.ts_literals import (
    MAX_DEPTH,
    MAX_PROBLEMS,
    MAX_SOURCE_CHARS,
    read_config_evals,
    read_evals,
)


def one(source: str) -> Any:
    """The literal of the one `new Eval(...)` in `source` (no problems allowed)."""
    read = read_evals(source)
    assert read.problems == [], read.problems
    assert len(read.found) == 1
    return read.found[0].value


def value_of(literal: str) -> Any:
    return one(f"export default new Eval({{ v: {literal} }})")["v"]


@pytest.mark.parametrize(("literal", "expected"), [
    ("'single'", "single"),
    ('"double"', "double"),
    ("'it\\'s'", "it's"),
    ('"say \\"hi\\""', 'say "hi"'),
    ("'TKT-\\\\d{3}'", "TKT-\\d{3}"),  # '\\d' in the file is the regex \d
    ("'TKT-\\d{3}'", "TKT-d{3}"),  # JavaScript drops a useless escape: exactly what the ADK sees
    ("'a\\nb\\tc'", "a\nb\tc"),
    ("'\\x41\\u0042\\u{1F600}'", "AB\U0001F600"),
    ("'\\uD83D\\uDE00'", "\U0001F600"),  # a surrogate pair written as two escapes is one character
    ("'one \\\ntwo'", "one two"),  # a line continuation
    ("`template`", "template"),
    ("`two\nlines`", "two\nlines"),
    ("`crlf\r\nline`", "crlf\nline"),  # a template's raw line breaks are \n, as in JavaScript
    ("`costs $5 and {braces}`", "costs $5 and {braces}"),
    ("'// not a comment /* nor this */'", "// not a comment /* nor this */"),
    ("1_000", 1000), ("0x1F", 31), ("0b101", 5), ("0o17", 15), (".5", 0.5), ("5.", 5.0), ("1e3", 1000.0),
    ("-2", -2), ("+3", 3), ("-0.25", -0.25), ("49.99", 49.99),
    ("true", True), ("false", False), ("null", None),
    ("[]", []), ("{}", {}), ("[1, 2, 3,]", [1, 2, 3]), ("[ /* c */ 1, // c\n 2 ]", [1, 2]),
    ("{ a: 1, 'b-c': 2, \"d\": 3, 4: 'four', default: 5, $x_1: 6, }", {"a": 1, "b-c": 2, "d": 3, "4": "four",
                                                                         "default": 5, "$x_1": 6}),
    ("{ a: 1, a: 2 }", {"a": 2}),  # the last of a repeated key wins, as in JavaScript (and JSON here)
    ("{ ünïcode: 'ok' }", {"ünïcode": "ok"}),
])
def test_a_literal_reads_as_javascript_reads_it(literal: str, expected: Any) -> None:
    value = value_of(literal)
    assert value == expected and type(value) is type(expected)


def test_comments_trailing_commas_and_exports_around_the_evals() -> None:
    source = """import { Eval } from '@botpress/evals'
// a line comment with new Eval({ name: 'not-this' }) in it
/* a block comment: new Eval({ name: 'nor-this' }) */
const helper = (x: number) => x / 2 + `a ${ `b ${ 1 }` } c`  // division, nested templates
export default new Eval({ name: 'first', conversation: [{ user: 'hi', },], },)

export const second = new Eval({
  name: 'second', // trailing comment
  conversation: [{ user: "hello" }],
})
export let third = new Eval({ name: 'third', conversation: [{ user: `yo` }] })
"""
    read = read_evals(source)
    assert read.problems == []
    assert [(f.value["name"], f.line, f.export) for f in read.found] == [
        ("first", 5, "default"), ("second", 7, "second"), ("third", 11, "third")]
    assert read.found[0].value == {"name": "first", "conversation": [{"user": "hi"}]}


@pytest.mark.parametrize(("body", "construct"), [
    ("name: greetingText", "the identifier `greetingText`"),
    ("...base, name: 'x'", "a spread `...base`"),
    ("name: makeName(3)", "a function call `makeName(...)`"),
    ("name: `hi ${who}`", "a template literal with a `${...}` substitution"),
    ("matches: /TKT-\\d{3}/", "the regular expression literal `/TKT-\\d{3}/`"),
    ("name", "the shorthand property `name`"),
    ("[key]: 1", "a computed key `[...]`"),
    ("name: 'a' + 'b'", "the expression `+` after a value"),
    ("name: config.name", "the expression `config....` (an identifier's property)"),
    ("name: undefined", "`undefined` (not a value an eval file can hold; leave the key out)"),
    ("n: 10n", "the BigInt `10n`"),
    ("f: () => 1", "a parenthesized expression or an arrow function"),
    ("f: x => 1", "a function `x => ...`"),
    ("f: new Date()", "a `new Date(...)` expression"),
    ("f() { return 1 }", "the method `f(...)`"),
    ("n: Infinity", "the identifier `Infinity`"),
    ("a: [1, , 2]", "an empty slot in an array"),
    ("name: 'x' as const", "the TypeScript expression `as ...`"),
    ("name: '\\1'", "\\1 is an octal escape"),
    ("name: '\\uD800'", "a lone surrogate"),
    ("`name`: 'x'", "a template literal (`name`) where a key was expected"),
    ("__proto__: { a: 1 }", "the key `__proto__`"),
])
def test_a_construct_that_is_not_a_literal_is_named_with_its_line(body: str, construct: str) -> None:
    source = f"import {{ Eval }} from '@botpress/evals'\n\nexport default new Eval({{\n  {body},\n}})\n"
    read = read_evals(source)
    assert read.found == []
    assert len(read.problems) == 1
    problem = read.problems[0]
    assert problem.line == 4
    assert construct in problem.message
    assert problem.message.endswith("workbench reads literal evals (or convert it to .eval.json)")
    assert "(the eval at line 3)" in problem.message


def test_a_non_literal_argument_and_the_evals_after_a_bad_one() -> None:
    source = ("export const a = new Eval(spec)\n"
              "export const b = new Eval({ name: 'b', conversation: turns(), extra: { deep: [ { x: f(1) } ] } })\n"
              "export const c = new Eval({ name: 'c', conversation: [{ user: 'still read' }] })\n")
    read = read_evals(source)
    assert [p.line for p in read.problems] == [1, 2]
    assert "the identifier `spec` as its argument, not an object literal" in read.problems[0].message
    assert "a function call `turns(...)`" in read.problems[1].message
    assert [f.value["name"] for f in read.found] == ["c"]


def test_new_eval_with_two_arguments_is_not_read() -> None:
    read = read_evals("export default new Eval({ name: 'x' }, options)")
    assert read.found == [] and "after its object (new Eval takes one object literal)" in read.problems[0].message


def test_a_file_reports_at_most_max_problems_and_counts_the_rest() -> None:
    source = "\n".join(f"export const e{i} = new Eval({{ name: x{i} }})" for i in range(MAX_PROBLEMS + 7))
    read = read_evals(source)
    assert len(read.problems) == MAX_PROBLEMS and read.more_problems == 7


# -- hostile input: bounded, never a hang or a RecursionError ----------------------------------------


@pytest.mark.parametrize("opener", ["[", "{ a: "], ids=["arrays", "objects"])
def test_nesting_deeper_than_the_limit_is_a_problem_not_a_recursion_error(opener: str) -> None:
    depth = 100_000
    closer = "]" if opener == "[" else "}"
    source = f"export default new Eval({{ v: {opener * depth}1{closer * depth} }})\nnew Eval({{ name: 'after' }})"
    read = read_evals(source)
    assert f"nesting deeper than {MAX_DEPTH} levels" in read.problems[0].message
    assert [f.value["name"] for f in read.found] == ["after"]  # skipped past by its brackets, iteratively


def test_nesting_up_to_the_limit_reads() -> None:
    depth = MAX_DEPTH - 1
    assert value_of("[" * depth + "]" * depth) is not None


def test_a_file_over_the_size_limit_is_not_read() -> None:
    read = read_evals(" " * (MAX_SOURCE_CHARS + 1))
    assert read.found == [] and "convert it to .eval.json" in read.problems[0].message


@pytest.mark.parametrize(("source", "words"), [
    ("new Eval({ name: 'x' }) /* never closed", "a block comment that never ends"),
    ("new Eval({ name: 'never closed })", "a string that never ends on its line"),
    ("new Eval({ name: `never closed })", "a template literal that never ends"),
    ("new Eval({ name: 'x'", "the end of the file (the literal is not closed)"),
])
def test_something_that_never_ends_is_a_problem_at_its_line(source: str, words: str) -> None:
    read = read_evals("\n" + source)
    assert any(words in p.message and p.line == 2 for p in read.problems), read.problems


PATHOLOGICAL = {
    "nested-template-substitutions": "`${" * 50_000,
    "backslashes-never-ending": "'" + "\\" * 1_000_001,
    "comment-of-stars-never-ending": "/*" + "*" * 1_000_000,
    "constructors-in-constructors": "new Eval(" * 100_000,
    "brackets-outside-evals": "{" * 100_000 + "}" * 100_000,
    "divisions-not-regexes": "x / " * 100_000,
    "many-minus-signs": "new Eval({ a: " + "-" * 100_000 + "1 })",
}


@pytest.mark.parametrize("source", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_sources_end_with_an_answer(source: str) -> None:
    read = read_evals(source)  # pytest-timeout fails a hang; the point is that this returns at all
    assert read.found == [] or all(isinstance(f.value, dict) for f in read.found)


# -- agent.config.ts ----------------------------------------------------------------------------------


def test_agent_config_evals_are_read_and_the_rest_of_the_config_may_be_code() -> None:
    source = """import { defineConfig } from '@botpress/runtime'
import { helper } from './helper'

export default defineConfig({
  name: 'agent',
  dependencies: { integrations: { chat: { version: helper('x'), enabled: true } } },
  ...spreadOfThings,
  hooks: { onStart() { return { evals: { idleTimeout: 1 } } } },
  compute: (a) => ({ evals: a }),
  evals: {
    idleTimeout: 20_000, // ms
    judgePassThreshold: 4,
    judgeModel: process.env.JUDGE ?? 'fast',
  },
  after: `still ${'skipped'}`,
})
"""
    found, read = read_config_evals(source, ("idleTimeout", "judgePassThreshold"))
    assert read.problems == []
    assert found == {"idleTimeout": 20000, "judgePassThreshold": 4}


@pytest.mark.parametrize(("source", "line", "words"), [
    ("export default defineConfig({\n  evals: {\n    idleTimeout: TIMEOUT,\n  },\n})", 3, "the identifier `TIMEOUT`"),
    ("export default defineConfig({\n  evals: defaults,\n})", 2, "the identifier `defaults`, not an object literal"),
])
def test_agent_config_evals_that_are_not_literal_are_named(source: str, line: int, words: str) -> None:
    found, read = read_config_evals(source, ("idleTimeout", "judgePassThreshold"))
    assert found == {}
    assert [p.line for p in read.problems] == [line] and words in read.problems[0].message
    assert "[evals] section" in read.problems[0].message


def test_agent_config_as_a_plain_default_export_and_without_evals() -> None:
    assert read_config_evals("export default { evals: { idleTimeout: 5 } }", ("idleTimeout",))[0] == {"idleTimeout": 5}
    found, read = read_config_evals("export default defineConfig({ name: 'x' })", ("idleTimeout",))
    assert found == {} and read.problems == []


# -- a property: JSON written as TypeScript reads back exactly ----------------------------------------

_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12)
    | st.floats(allow_nan=False, allow_infinity=False, width=64) | _texts,
    # `__proto__` is refused on purpose (a computed-prototype key, tested above), so it is no key of a literal here
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_texts.filter(lambda k: k != "__proto__"), inner,
                                                                max_size=4),
    max_leaves=20)


def _ts_string(text: str, quote: str) -> str:
    out = []
    for ch in text:
        if ch in (quote, "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch in "\u2028\u2029" or ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return quote + "".join(out) + quote


def _as_typescript(value: Any, draw: Any) -> str:
    """`value` written the way a person writes TypeScript: either quote, bare keys, comments, trailing commas."""
    if isinstance(value, str):
        return _ts_string(value, draw(st.sampled_from(["'", '"'])))
    if isinstance(value, (bool, type(None), int, float)):
        return json.dumps(value)
    comma = draw(st.sampled_from([",", ", ", " /* c */ ,", ",\n  // line\n"]))
    trailing = draw(st.sampled_from(["", ","]))
    if isinstance(value, list):
        return "[" + comma.join(_as_typescript(item, draw) for item in value) + (trailing if value else "") + "]"
    members = []
    for key, item in value.items():
        bare = _KEY.fullmatch(key) and draw(st.booleans())
        members.append(f"{key if bare else _ts_string(key, chr(39))}: {_as_typescript(item, draw)}")
    return "{" + comma.join(members) + (trailing if members else "") + "}"


@settings(max_examples=150, deadline=None)
@given(value=_json, data=st.data())
def test_json_written_as_typescript_reads_back_exactly(value: Any, data: Any) -> None:
    source = f"export default new Eval({{ v: {_as_typescript(value, data.draw)} }})"
    got = one(source)["v"]
    assert json.dumps(got, sort_keys=True) == json.dumps(value, sort_keys=True)


def test_a_regex_escape_javascript_drops_is_read_as_javascript_reads_it_and_warned_about() -> None:
    """`'TKT-\\d{3}'` is "TKT-d{3}" to the ADK too (so the verdict is the ADK's), but it is almost always a
    mistake for `'TKT-\\\\d{3}'`: a warning names the line and the fix."""
    read = read_evals("new Eval({\n  name: 'x',\n  a: 'TKT-\\d{3}\\.x',\n  b: 'fine \\\\d',\n})")
    assert read.found[0].value == {"name": "x", "a": "TKT-d{3}.x", "b": "fine \\d"}
    assert [(w.line, w.message) for w in read.warnings] == [
        (3, "'TKT-\\d{3}\\.x' is \"TKT-d{3}.x\" in JavaScript (and to the ADK): the backslash of \\d, \\. is "
            "dropped; for the regex's \\d, \\. write \\\\d, \\\\.")]
