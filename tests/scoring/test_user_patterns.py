"""`workbench.patterns`: a user's regex gives the verdict Python's `re` gives, on RE2 (linear time)
whenever RE2 can say the same thing, else on `regex` with a timeout (issue 20, case 16).

The table below is the list of places where RE2 (or `regex`) reads a pattern differently from `re`;
each must still give `re`'s answer. The property test compares random patterns on random short texts.
"""

from __future__ import annotations

import re
import warnings
from re import _parser  # type: ignore[attr-defined]  # the stdlib parser whose nodes charsets.node_set reads

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.patterns import CACHE_SIZE, PatternError, charsets, compile_pattern

DIFFERENCES: list[tuple[str, list[str]]] = [
    (r"^abc$", ["abc", "abc\n", "abc\n\n", "xabc"]),  # $ also matches before a final newline
    (r"abc\Z", ["abc", "abc\n"]),  # \Z: RE2 has none (its \z)
    (r"a{,3}b", ["aaab", "b", "a{,3}b"]),  # {,n}: a literal in RE2
    (r"[[:alpha:]]", ["a", ":", "[", "b]"]),  # a POSIX class in RE2 and regex, a plain set in re
    (r"\d+", ["١٢٣", "123", "x"]),  # Unicode digits
    (r"^\w+$", ["héllo", "e\u0301", "a_b", "①"]),  # Unicode word characters (no combining marks)
    (r"\s", ["\x1c", "\v", "\x85", "\xa0", "a"]),  # Python's whitespace
    (r"(?i)k", ["K", "\u212a", "k"]),  # the Kelvin sign
    (r"(?i)i", ["ı", "İ", "I"]),  # re's extra case pairs
    (r"(?i)[a-z]+", ["ſ", "K", "É"]),
    (r"(?i)ſ", ["s", "S"]),
    (r"(?i)straße", ["STRASSE", "strasse", "STRAßE"]),
    (r"\bfoo\b", ["foo", "éfoo", "foo bar", "xfoo", ""]),  # a Unicode word boundary
    (r"\B", ["", "a", "ab", "é"]),  # never in an empty text
    (r"(?a)\w", ["é", "e"]),
    (r"(?a)\bé", ["é", "xé"]),
    (r"(?m)^b$", ["a\nb\nc", "ab"]),
    (r"(?m)^$", ["a\n", "a"]),
    (r"(?s)a.b", ["a\nb"]),
    (r"a.b", ["a\nb", "axb"]),
    (r"(?x) a b # comment", ["ab", "a b"]),
    (r"\u00e9", ["é"]),
    (r"\0", ["\x00"]),
    (r"[]a]", ["]", "a"]),
    (r"(?i:A)b", ["ab", "aB"]),
    (r"$", ["", "\n"]),
    (r"[^a]", ["\ud800", "a"]),  # a lone surrogate (valid in a JSON string)
    (r"a\ud800", ["a\ud800"]),
    (r"(a)\1", ["aa", "ab"]),  # the backtracking-only constructs, on regex
    (r"(?<=a)b", ["ab", "cb"]),
    (r"(?<!a)b", ["ab", "cb"]),
    (r"a++a", ["aaa"]),
    (r"(?>a+)a", ["aaa"]),
    (r"(a)?(?(1)b|c)", ["ab", "c", "b"]),
    (r"a{1001}", ["a" * 1001, "a" * 1000]),
    (r"(?=.*\bfoo\b)", ["a foo", "éfoo", "foo\n"]),
    (r"(?i)(a)\1", ["aA", "ab"]),
]


@pytest.mark.parametrize(("pattern", "texts"), DIFFERENCES)
def test_the_verdict_is_what_python_re_says(pattern: str, texts: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        compiled = re.compile(pattern)
        safe = compile_pattern(pattern)
    for text in texts:
        assert safe.search(text) == (compiled.search(text) is not None), text


@pytest.mark.parametrize("pattern", [r"^(a+)+$", r"^[A-Z]-\d{4}$", r"(?i)ticket\s+#?\d+", r"\bTKT-\d{3}\b",
                                     r"(?m)^total: \d+$", r"^(\w+\s?)*$"])
def test_common_patterns_run_on_re2(pattern: str) -> None:
    assert compile_pattern(pattern).on_re2


def test_the_issues_pattern_is_decided_at_once() -> None:
    assert compile_pattern(r"^(a+)+$").search("a" * 34 + "!") is False
    assert compile_pattern(r"^(a+)+$").search("a" * 100_000) is True


def test_a_pattern_that_backtracks_too_long_is_stopped_with_an_error_naming_it() -> None:
    pattern = compile_pattern(r"^(?=(a|a)+$)")
    with pytest.raises(PatternError) as caught:
        pattern.search("a" * 34 + "!")
    message = str(caught.value)
    assert message.startswith("'^(?=(a|a)+$)' ran longer than") and "35-character text" in message
    assert "a lookahead or lookbehind" in message


def test_an_invalid_pattern_is_an_error_as_python_says() -> None:
    with pytest.raises(PatternError, match=r"'\(' is not a valid regular expression: missing \)"):
        compile_pattern("(")
    with pytest.raises(PatternError, match="not a valid regular expression"):
        compile_pattern(r"\p{L}")  # RE2 and regex would take it; Python's re does not


def test_the_cache_is_bounded() -> None:
    assert compile_pattern.cache_info().maxsize == CACHE_SIZE
    assert compile_pattern("x+y") is compile_pattern("x+y")


CASE_NODES = [r"(?i)k", r"(?i)[a-z]", r"(?i)[^a-z]", r"(?i)[\w]", r"(?i)[\W]", r"(?i)\u0130", r"(?i)[\u00c0-\u024f]",
              r"(?ai)[a-z]", r"(?i)[\U00010400-\U0001044f]", r"(?i)[^\d]"]


@pytest.mark.parametrize("source", CASE_NODES)
def test_a_case_insensitive_node_is_the_set_python_matches_over_every_code_point(source: str) -> None:
    """The translation tests only cased characters case-insensitively; an uncased one must match
    exactly when it matches case-sensitively. Checked here over all of Unicode."""
    tree = _parser.parse(source, 0)
    (op, av), = list(tree)
    everything = charsets.every_character()
    full = tuple((m.start(), m.end() - 1) for m in re.finditer(f"(?:{source[source.index(')') + 1:]})+",
                                                               everything, tree.state.flags & ~re.UNICODE))
    assert charsets.node_set(op, av, tree.state.flags) == full


ATOMS = ["a", "b", "A", "k", "s", "ſ", "K", "ı", "é", "e\u0301", ".", r"\d", r"\w", r"\s", r"\W", r"\S", "[a-c]",
         "[^a]", "[[:a]]", r"\b", r"\B", "^", "$", r"\A", r"\Z", r"\n", r"[ab\s]", r"[\w-]", "(?i:a)", "(?-i:a)",
         "(?s:.)", "(?m:^)", "(?m:$)", "x{,2}", r"\u00e9", "[]a]", "١", "_", " ", r"\1", "(?(1)a|b)", "(a)"]
FLAGS = ["", "(?i)", "(?m)", "(?s)", "(?a)", "(?im)", "(?ai)", "(?x)"]
TEXTS = st.text(st.sampled_from(list("abAkKsSſıIié\u0301\u212a\n _1١-[]:\x1c\v\xa0")), max_size=8)


@st.composite
def patterns(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9 if depth < 2 else 5))
        if kind <= 5:
            parts.append(draw(st.sampled_from(ATOMS)))
        elif kind == 6:
            parts.append(f"({draw(patterns(depth + 1))})" + draw(st.sampled_from(["", "*", "+", "?", "{1,2}", "*?"])))
        elif kind == 7:
            parts.append(f"(?:{draw(patterns(depth + 1))}|{draw(patterns(depth + 1))})")
        elif kind == 8:
            parts.append(draw(st.sampled_from(["(?=", "(?!", "(?<=", "(?<!"])) + draw(st.sampled_from(ATOMS)) + ")")
        else:
            parts.append(f"(?>{draw(patterns(depth + 1))})")
    return "".join(parts)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(FLAGS), patterns(), st.lists(TEXTS, min_size=1, max_size=4))
def test_random_patterns_agree_with_python_re(flag: str, body: str, texts: list[str]) -> None:
    pattern = flag + body
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compiled = re.compile(pattern)
        except re.error:
            return
        safe = compile_pattern(pattern)
    for text in texts:
        assert safe.search(text) == (compiled.search(text) is not None), (pattern, text)
