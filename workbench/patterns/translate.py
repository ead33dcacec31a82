"""A Python pattern, as Python's own parser reads it, written out for RE2 or for `regex` with the same
meaning.

Writing from the parse tree instead of passing the text on means the other engine never sees Python
syntax it reads differently (`{,3}`, `\\Z`, `[[:alpha:]]`, `\\u00e9`, verbose mode, octal escapes,
inline flags): every character node becomes the exact set of code points Python matches
(`charsets.py`), every anchor the form that means what Python's does. Only a yes/no "is there a match"
is needed, so groups need not capture for RE2 and lazy repeats may be greedy there.

RE2 has no backreferences, lookaround, atomic groups, possessive repeats or repeats over 1000; those
raise `Untranslatable` for RE2 and are written for `regex`. Three anchors mean Python's thing in RE2 only
for some texts, which `Needs` records: `$` without MULTILINE (Python's also matches before a final
newline), a Unicode `\\b`/`\\B` (RE2's is ASCII), and `\\B` in an empty text (Python's never matches).
"""

from __future__ import annotations

from dataclasses import dataclass
from re import _constants as C  # type: ignore[attr-defined]
from typing import Any

from . import charsets
from .charsets import Ranges

RE2, REGEX = "re2", "regex"
RE2_MAX_REPEAT = 1000
_SURROGATES: Ranges = ((0xD800, 0xDFFF),)
_NO_SURROGATES = charsets.complement(_SURROGATES)


class Untranslatable(Exception):
    """This engine can't say what Python means here; the message names the construct."""


@dataclass(slots=True)
class Needs:
    """What a text must be like for the RE2 form to mean what Python's pattern means."""

    no_final_newline: bool = False
    ascii_text: bool = False
    nonempty_text: bool = False

    def misfit(self, text: str) -> str | None:
        """Why the RE2 form can't decide for `text`, or None when it can."""
        if self.no_final_newline and text.endswith("\n"):
            return "a $ (which also matches before a final newline) on a text that ends in a newline"
        if self.ascii_text and not text.isascii():
            return "a \\b or \\B (a Unicode word boundary) on a text that is not all ASCII"
        if self.nonempty_text and not text:
            return "a \\B on an empty text"
        return None


def _escape(point: int, engine: str) -> str:
    if engine == RE2:
        return f"\\x{{{point:x}}}"
    return f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"


def render(ranges: Ranges, engine: str) -> str:
    """A character class (or one escaped character) matching exactly `ranges`."""
    if engine == RE2:
        ranges = charsets.intersect(ranges, _NO_SURROGATES)  # RE2 sees UTF-8; it has no lone surrogates
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _escape(ranges[0][0], engine)
    if not ranges:
        return f"[^{_escape(0, engine)}-{_escape(charsets.TOP, engine)}]"
    body = "".join(_escape(lo, engine) if lo == hi else f"{_escape(lo, engine)}-{_escape(hi, engine)}"
                   for lo, hi in ranges)
    return f"[{body}]"


def _quantifier(low: int, high: int) -> str:
    if high == C.MAXREPEAT:
        return {0: "*", 1: "+"}.get(low, f"{{{low},}}")
    if (low, high) == (0, 1):
        return "?"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


class Writer:
    """Writes one parsed pattern for one engine; `needs` collects the RE2 form's conditions."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.needs = Needs()

    def sequence(self, items: Any, flags: int) -> str:
        return "".join(self.node(op, av, flags) for op, av in items)

    def node(self, op: Any, av: Any, flags: int) -> str:
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN):
            return render(charsets.node_set(op, av, flags), self.engine)
        if op is C.BRANCH:
            return "(?:" + "|".join(self.sequence(branch, flags) for branch in av[1]) + ")"
        if op is C.SUBPATTERN:
            group, add, remove, body = av
            inner = self.sequence(body, (flags | add) & ~remove)
            return f"(?P<g{group}>{inner})" if group is not None and self.engine == REGEX else f"(?:{inner})"
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            return self.repeat(op, av, flags)
        if op is C.AT:
            return self.anchor(av, flags)
        return self.backtracking(op, av, flags)

    def repeat(self, op: Any, av: Any, flags: int) -> str:
        low, high, body = av
        if self.engine == RE2:
            if op is C.POSSESSIVE_REPEAT:
                raise Untranslatable("a possessive repeat (*+, ++, ?+)")
            if low > RE2_MAX_REPEAT or (high != C.MAXREPEAT and high > RE2_MAX_REPEAT):
                raise Untranslatable(f"a repeat count over {RE2_MAX_REPEAT}")
            return f"(?:{self.sequence(body, flags)}){_quantifier(low, high)}"  # a match exists either way
        suffix = {C.MIN_REPEAT: "?", C.POSSESSIVE_REPEAT: "+"}.get(op, "")
        return f"(?:{self.sequence(body, flags)}){_quantifier(low, high)}{suffix}"

    def anchor(self, code: Any, flags: int) -> str:
        multiline = bool(flags & C.SRE_FLAG_MULTILINE)
        if code is C.AT_BEGINNING_STRING or (code is C.AT_BEGINNING and not multiline):
            return r"\A"
        if code is C.AT_BEGINNING:
            return "(?m:^)"
        if code is C.AT_END and multiline:
            return "(?m:$)"
        if code is C.AT_END:
            if self.engine == RE2:
                self.needs.no_final_newline = True
                return r"\z"
            return "$"  # `regex` reads a bare $ as Python does: the end, or before a final newline
        if code is C.AT_END_STRING:
            return r"\z" if self.engine == RE2 else r"\Z"
        if code in (C.AT_BOUNDARY, C.AT_NON_BOUNDARY):
            return self.boundary(code is C.AT_BOUNDARY, bool(flags & C.SRE_FLAG_ASCII))
        raise Untranslatable(f"the anchor {code}")

    def boundary(self, at: bool, ascii_only: bool) -> str:
        if self.engine == RE2:
            self.needs.ascii_text |= not ascii_only
            self.needs.nonempty_text |= not at
            return r"\b" if at else r"\B"
        word = render(charsets.word(ascii_only), REGEX)
        if at:
            return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
        anything = render(charsets.EVERYTHING, REGEX)
        return f"(?:(?<={word})(?={word})|(?<!{word})(?!{word})(?:(?<={anything})|(?={anything})))"

    def backtracking(self, op: Any, av: Any, flags: int) -> str:
        """The constructs only a backtracking engine has."""
        if self.engine == RE2:
            names = {C.GROUPREF: "a backreference", C.GROUPREF_EXISTS: "a conditional group (?(1)...)",
                     C.ASSERT: "a lookahead or lookbehind", C.ASSERT_NOT: "a negative lookahead or lookbehind",
                     C.ATOMIC_GROUP: "an atomic group (?>...)"}
            raise Untranslatable(names.get(op, f"the construct {op}"))
        if op is C.GROUPREF:
            ref = f"(?P=g{av})"
            return f"(?i:{ref})" if flags & C.SRE_FLAG_IGNORECASE else ref
        if op is C.GROUPREF_EXISTS:
            group, yes, no = av
            other = f"|{self.sequence(no, flags)}" if no is not None else ""
            return f"(?(g{group}){self.sequence(yes, flags)}{other})"
        if op in (C.ASSERT, C.ASSERT_NOT):
            direction, body = av
            kind = ("=" if op is C.ASSERT else "!")
            return f"(?{'<' if direction < 0 else ''}{kind}{self.sequence(body, flags)})"
        if op is C.ATOMIC_GROUP:
            return f"(?>{self.sequence(av, flags)})"
        raise Untranslatable(f"the construct {op}")


def write(tree: Any, engine: str) -> tuple[str, Needs]:
    """`tree` (from `re._parser.parse`) for `engine`; Untranslatable when that engine can't say it."""
    writer = Writer(engine)
    return writer.sequence(tree, tree.state.flags), writer.needs
