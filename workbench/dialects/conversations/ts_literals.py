"""Reading the object literals of a Botpress ADK project's TypeScript files without running Node.

A Botpress project writes its evals as `evals/*.eval.ts` files that export `new Eval({...})` (a default
export and/or named ones, several per file) and keeps agent-level defaults in `agent.config.ts`
(`defineConfig({ evals: { idleTimeout, judgePassThreshold } })`). workbench reads the object literal
each of those passes: unquoted keys, single or double quotes, trailing commas, line and block comments,
template literals without `${}`, numbers as JavaScript writes them (`1_000`, `0x1f`, `.5`), and strings
with JavaScript's escapes (so `'TKT-\\\\d{3}'` is the regex `TKT-\\d{3}`, exactly what the ADK sees).
Anything that is not a literal — an identifier, a spread, a call, a `${...}` substitution, a regex
literal, an operator — is a `LiteralProblem` naming the line and the construct: workbench reads
literal evals, and never guesses what code would compute.

Why a tokenizer of our own rather than a JSON5 library (`json5`, `pyjson5`): JSON5 has no template
literals, numeric separators or BigInt and can't say *which* construct is not a literal; the pure-Python
`json5` recurses per nesting level (a deep file blows the stack); and finding where `new Eval(` and its
argument are in a TypeScript file (past strings, comments, templates, regexes) needs a tokenizer anyway.

Bounds, so a hostile file never hangs or blows the stack: files over `MAX_SOURCE_CHARS` are not read,
the parser is iterative and refuses nesting deeper than `MAX_DEPTH`, every token is one regex match at
a position (no backtracking across the file), and a file reports at most `MAX_PROBLEMS` problems. A
source already read is remembered by its digest (`read_evals_cached`), so a watch loop pays for an
unchanged 1 MB file once (about a second to tokenize; a few milliseconds to take back).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

MAX_SOURCE_CHARS = 8 * 1024 * 1024
MAX_DEPTH = 200  # below orjson's 255 levels, so a file's literals can be remembered as JSON (`read_evals_cached`)
MAX_PROBLEMS = 20
CACHE_BYTES = 64 * 1024 * 1024
LITERAL_HINT = "workbench reads literal evals (or convert it to .eval.json)"

_SKIP = re.compile(r"(?:[\s\ufeff]+|//[^\n\r\u2028\u2029]*|/\*(?:[^*]|\*(?!/))*\*/)+")
_STRING = {"'": re.compile(r"'(?:[^'\\\n\r]|\\(?:\r\n|[\s\S]))*'"),
           '"': re.compile(r'"(?:[^"\\\n\r]|\\(?:\r\n|[\s\S]))*"')}
_TEMPLATE_CHUNK = re.compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*")
_NUMBER = re.compile(r"(?:0[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*|0[bB][01](?:_?[01])*|0[oO][0-7](?:_?[0-7])*"
                     r"|(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?)n?")
_IDENT = re.compile(r"(?:[^\W\d]|\$)(?:\w|\$)*")
_REGEX = re.compile(r"/(?:[^/\\\[\n\r]|\\.|\[(?:[^\]\\\n\r]|\\.)*\])+/[A-Za-z]*")
_MULTI_PUNCT = re.compile(r"\.\.\.|=>|\?\.|\?\?|===|!==|==|!=|<=|>=|&&|\|\||\*\*")
_SIMPLE_PUNCT = frozenset("()[],:;")
# The common tokens in one match, after any whitespace and comments (atomic: never backtracked into, so a
# long run of spaces before something else costs one pass): a word, simple punctuation, a string without
# escapes, an integer. Anything else goes the careful way (`Tokens._token`).
_FAST = re.compile(r"(?>(?:[\s\ufeff]+|//[^\n\r\u2028\u2029]*|/\*(?:[^*]|\*(?!/))*\*/)*)"
                   r"(?:(?P<ident>(?:[^\W\d]|\$)(?:\w|\$)*)|(?P<punct>[()\[\],:;])"
                   r"|(?P<string>'[^'\\\n\r]*'|\"[^\"\\\n\r]*\")|(?P<number>\d+(?![\w.$])))")
_REGEX_ONLY_ESCAPES = frozenset("dDwWsSpPkK.()[]{}+*?|^$")  # mean something in a regex, nothing in a string
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v"}
_ESCAPE = re.compile(r"\\(?:u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(\r\n|[\s\S]))")
_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^") | {"=>", "...", "&&", "||", "??", "==", "===", "!=", "!==",
                                                   "<=", ">=", "**"}
_REGEX_AFTER_WORDS = frozenset({"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void",
                                "throw", "await", "yield", "instanceof"})


class Token(NamedTuple):
    """One token: `kind` is "punct", "ident", "string", "template", "template-head" (a template with a
    `${` at `end`), "number", "regex", "error" (`value` says what) or "eof"; `value` is the cooked
    string, the number, the identifier or the punctuation."""

    kind: str
    value: Any
    start: int
    end: int

    def is_punct(self, *values: str) -> bool:
        return self.kind == "punct" and self.value in values

    def is_word(self, *values: str) -> bool:
        return self.kind == "ident" and self.value in values


@dataclass(frozen=True, slots=True)
class LiteralProblem:
    """Something a file holds that workbench does not read, at 1-based `line`."""

    line: int
    message: str


class NotLiteral(Exception):
    """Raised inside the parser: the construct at `pos` is not a literal."""

    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message


class _StringError(ValueError):
    pass


def cook(body: str, useless: list[str] | None = None) -> str:
    """A JavaScript string's (or template's) text with its escapes applied, as the ADK would see it.
    A template's raw line breaks are normalised to `\\n`, as JavaScript does. A regex escape JavaScript
    drops (`'\\d'` is `d`) goes to `useless`: it is almost always meant as the regex's `\\d`."""

    def one(match: re.Match[str]) -> str:
        braced, four, two, other = match.groups()
        if braced is not None:
            code = int(braced, 16)
            if code > 0x10FFFF:
                raise _StringError(f"\\u{{{braced}}} is beyond the last Unicode character")
            return chr(code)
        if four is not None:
            return chr(int(four, 16))
        if two is not None:
            return chr(int(two, 16))
        if other in ("\r\n", "\n", "\r", "\u2028", "\u2029"):
            return ""  # a line continuation
        if other == "0":
            return "\0"
        if other.isdigit():
            raise _StringError(f"\\{other} is an octal escape, which a module's strict mode refuses")
        if other in ("u", "x"):
            raise _StringError(f"\\{other} must be followed by hexadecimal digits")
        if useless is not None and other in _REGEX_ONLY_ESCAPES:
            useless.append(other)
        return _ESCAPES.get(other, other)

    text = _ESCAPE.sub(one, body) if "\\" in body else body
    return _pair_surrogates(text)


def _pair_surrogates(text: str) -> str:
    """`\\uD83D\\uDE00` written as two escapes is one character; a surrogate left alone can't be kept."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        raise _StringError("holds a lone surrogate (half of a \\uD800-\\uDFFF pair), which can't be kept as "
                           "text") from None


class Tokens:
    """The tokens of a TypeScript source, one at a time (`peek` looks one ahead). `depth` counts the
    brackets `([{` consumed and not yet closed, so a caller can skip to where a construct ends."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0
        self.braces: list[str] = []  # "{" or "${" for every open brace: a `}` may resume a template
        self.last: Token | None = None  # the last significant token, to tell a regex from a division
        self.ahead: Token | None = None
        self.useless: list[tuple[int, str]] = []  # (position, words) of a string whose regex escapes JS drops
        self._lines: list[int] | None = None

    def line(self, pos: int) -> int:
        if self._lines is None:
            self._lines = [m.start() for m in re.finditer("\n", self.text)]
        from bisect import bisect_right

        return bisect_right(self._lines, pos - 1) + 1

    def peek(self) -> Token:
        if self.ahead is None:
            self.ahead = self._scan()
        return self.ahead

    def next(self) -> Token:
        token = self.peek()
        self.ahead = None
        if token.kind == "punct":
            if token.value in ("(", "[", "{", "${"):
                self.depth += 1
            elif token.value in (")", "]", "}"):
                self.depth -= 1
        return token

    def _scan(self) -> Token:
        text = self.text
        fast = _FAST.match(text, self.pos)
        if fast is not None and fast.lastgroup is not None:
            kind = fast.lastgroup
            start, end = fast.span(kind)
            value = fast.group(kind)
            token = Token(kind, value[1:-1] if kind == "string" else value, start, end)
            self.pos = end
            self.last = token
            return token
        skipped = _SKIP.match(text, self.pos)
        if skipped:
            self.pos = skipped.end()
        start = self.pos
        if start >= len(text):
            return Token("eof", None, start, start)
        ch = text[start]
        if text.startswith("/*", start):
            return self._error(start, "a block comment that never ends (no */)")
        token = self._token(ch, start)
        self.pos = token.end
        if token.kind != "error":
            self.last = token
        return token

    def _error(self, start: int, message: str) -> Token:
        self.pos = len(self.text)
        return Token("error", message, start, start)

    def _token(self, ch: str, start: int) -> Token:
        text = self.text
        if ch in _SIMPLE_PUNCT:
            return Token("punct", ch, start, start + 1)
        if ch in "'\"":
            match = _STRING[ch].match(text, start)
            if match is None:
                return self._error(start, "a string that never ends on its line")
            return self._string(match.group()[1:-1], "string", start, match.end())
        if ch == "`":
            return self._template(start + 1, start)
        if ch == "}" and self.braces and self.braces[-1] == "${":
            self.braces.pop()
            return self._template(start + 1, start, middle=True)
        if ch.isdigit() or (ch == "." and start + 1 < len(text) and text[start + 1].isdigit()):
            match = _NUMBER.match(text, start)
            assert match is not None
            return Token("number", match.group(), start, match.end())
        match = _IDENT.match(text, start)
        if match:
            return Token("ident", match.group(), start, match.end())
        if ch == "/" and self._regex_allowed():
            match = _REGEX.match(text, start)
            if match:
                return Token("regex", match.group(), start, match.end())
        multi = _MULTI_PUNCT.match(text, start)
        if multi:
            return Token("punct", multi.group(), start, multi.end())
        if ch == "{":
            self.braces.append("{")
        elif ch == "}" and self.braces:
            self.braces.pop()
        return Token("punct", ch, start, start + 1)

    def _regex_allowed(self) -> bool:
        last = self.last
        if last is None:
            return True
        if last.kind == "punct":
            return last.value in _REGEX_AFTER
        return last.kind == "ident" and last.value in _REGEX_AFTER_WORDS

    def _string(self, body: str, kind: str, start: int, end: int) -> Token:
        useless: list[str] = []
        try:
            token = Token(kind, cook(body, useless), start, end)
            if useless:
                escapes = "".join(dict.fromkeys(useless))
                wrote = ", ".join(f"\\{c}" for c in escapes)
                meant = ", ".join(f"\\\\{c}" for c in escapes)
                self.useless.append((start, (
                    f"{_clip(self.text[start:end])} is {json.dumps(_clip(token.value), ensure_ascii=False)} in "
                    f"JavaScript (and to the ADK): the backslash of {wrote} is dropped; for the regex's {wrote} write "
                    f"{meant}")))
            return token
        except _StringError as exc:
            return Token("bad-string", str(exc), start, end)

    def _template(self, at: int, start: int, middle: bool = False) -> Token:
        text = self.text
        chunk = _TEMPLATE_CHUNK.match(text, at)
        assert chunk is not None
        end = chunk.end()
        if end >= len(text):
            return self._error(start, "a template literal that never ends (no closing `)")
        body = chunk.group().replace("\r\n", "\n").replace("\r", "\n")
        if text[end] == "`":
            if middle:  # the end of a template with substitutions: nothing a literal reader uses
                return Token("template-tail", None, start, end + 1)
            return self._string(body, "template", start, end + 1)
        self.braces.append("${")  # text[end:end + 2] == "${"
        return Token("template-head", None, start, end + 2)


@dataclass(slots=True)
class _Frame:
    container: dict[str, Any] | list[Any]
    key: str | None = None
    keys_at: dict[str, int] = field(default_factory=dict)


def _describe(tokens: Tokens, token: Token) -> str:
    """Words for a construct that is not a literal, starting at `token` (only peeks one further)."""
    if token.kind == "ident":
        name = token.value
        if name == "undefined":
            return "`undefined` (not a value an eval file can hold; leave the key out)"
        if name in ("function", "async", "class"):
            return f"a function or class (`{name} ...`)"
        if name == "new":
            after = tokens.peek()
            return f"a `new {after.value if after.kind == 'ident' else '...'}(...)` expression"
        after = tokens.peek()
        if after.is_punct("("):
            return f"a function call `{name}(...)`"
        if after.is_punct("=>"):
            return f"a function `{name} => ...`"
        if after.is_punct(".", "?.", "["):
            return f"the expression `{name}{after.value}...` (an identifier's property)"
        return f"the identifier `{name}`"
    if token.kind == "template":
        return f"a template literal ({_clip(tokens.text[token.start:token.end])})"
    if token.kind == "template-head":
        return "a template literal with a `${...}` substitution"
    if token.kind == "regex":
        return (f"the regular expression literal `{_clip(token.value)}` (write the pattern as a string, e.g. "
                "matches: 'TKT-\\\\d{3}')")
    if token.is_punct("..."):
        after = tokens.peek()
        return f"a spread `...{after.value if after.kind == 'ident' else ''}`"
    if token.is_punct("("):
        return "a parenthesized expression or an arrow function `(...)`"
    if token.kind == "number" and token.value.endswith("n"):
        return f"the BigInt `{token.value}`"
    if token.kind == "eof":
        return "the end of the file (the literal is not closed)"
    if token.kind == "error":
        return str(token.value)
    shown = token.value if isinstance(token.value, str) else tokens.text[token.start:token.end]
    return f"`{_clip(shown)}`"


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(raw: str) -> int | float:
    digits = raw.replace("_", "")
    if digits[:2].lower() in ("0x", "0b", "0o"):
        return int(digits, 0)
    if re.fullmatch(r"\d+", digits):
        value = int(digits)
        return value if value < 2**63 else float(value)  # JavaScript has doubles only
    return float(digits)


class LiteralParser:
    """Parses one literal value from `tokens`, iteratively (nesting costs no Python stack)."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens

    def fail(self, token: Token, what: str | None = None) -> NotLiteral:
        return NotLiteral(token.start, what or _describe(self.tokens, token))

    def value(self) -> Any:
        tokens = self.tokens
        stack: list[_Frame] = []
        while True:
            token = tokens.next()
            value: Any
            if token.is_punct("{", "["):
                if len(stack) >= MAX_DEPTH:
                    raise NotLiteral(token.start, f"nesting deeper than {MAX_DEPTH} levels")
                frame = _Frame({} if token.value == "{" else [])
                stack.append(frame)
                if not self.opened(frame):
                    continue  # the first value of the container comes next
                value = stack.pop().container
            else:
                value = self.scalar(token)
            while True:
                if not stack:
                    return value
                frame = stack[-1]
                if isinstance(frame.container, dict):
                    assert frame.key is not None
                    frame.container[frame.key] = value
                else:
                    frame.container.append(value)
                if self.after_value(frame):
                    break  # another value of this container comes next
                value = stack.pop().container

    def opened(self, frame: _Frame) -> bool:
        """Just after `{` / `[`: True when the container closes at once, else ready for its first value."""
        closer = "}" if isinstance(frame.container, dict) else "]"
        if self.tokens.peek().is_punct(closer):
            self.tokens.next()
            return True
        self.member(frame)
        return False

    def after_value(self, frame: _Frame) -> bool:
        """After a value in `frame`: True when another one follows (its key read), False when it closed."""
        tokens = self.tokens
        closer = "}" if isinstance(frame.container, dict) else "]"
        token = tokens.next()
        if token.is_punct(closer):
            return False
        if not token.is_punct(","):
            if token.kind in ("eof", "error"):
                raise self.fail(token)
            if token.kind == "ident" and token.value in ("as", "satisfies"):
                raise self.fail(token, f"the TypeScript expression `{token.value} ...`")
            raise self.fail(token, f"the expression `{_clip(tokens.text[token.start:token.end])}` after a value "
                                   "(an operator or a missing comma)")
        if tokens.peek().is_punct(closer):  # a trailing comma
            tokens.next()
            return False
        self.member(frame)
        return True

    def member(self, frame: _Frame) -> None:
        """Before a value of `frame`: an object's `key:` (read here), or an array's hole check."""
        tokens = self.tokens
        if isinstance(frame.container, list):
            ahead = tokens.peek()
            if ahead.is_punct(","):
                raise self.fail(ahead, "an empty slot in an array (`[a, , b]`)")
            return
        token = tokens.next()
        if token.kind in ("ident", "string"):
            key = token.value
            if key == "__proto__":
                raise self.fail(token, "the key `__proto__` (JavaScript makes its value the object's prototype, "
                                       "not a key of it)")
        elif token.kind == "number" and not token.value.endswith("n"):
            number = _number(token.value)
            key = str(int(number)) if float(number).is_integer() else repr(number)
        elif token.is_punct("["):
            raise self.fail(token, "a computed key `[...]`")
        elif token.is_punct("..."):
            raise self.fail(token)
        else:
            raise self.fail(token, f"{_describe(tokens, token)} where a key was expected")
        colon = tokens.peek()
        if not colon.is_punct(":"):
            if token.kind == "ident" and colon.is_punct(",", "}"):
                raise self.fail(token, f"the shorthand property `{key}` (the identifier `{key}`)")
            if colon.is_punct("("):
                raise self.fail(token, f"the method `{key}(...)`")
            raise self.fail(colon, f"{_describe(tokens, colon)} after the key `{_clip(str(key))}` (expected `:`)")
        tokens.next()
        frame.key = key

    def scalar(self, token: Token) -> Any:
        kind = token.kind
        if kind in ("string", "template"):
            return token.value
        if kind == "bad-string":
            raise NotLiteral(token.start, f"a string that JavaScript would not read: it {token.value}")
        if kind == "error":
            raise NotLiteral(token.start, token.value)
        if kind == "number" and not token.value.endswith("n"):
            return self.numeric(token)
        if kind == "ident" and token.value in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[token.value]
        if token.is_punct("-", "+"):
            after = self.tokens.peek()
            if after.kind == "number" and not after.value.endswith("n"):
                number = self.numeric(self.tokens.next())
                return -number if token.value == "-" else number
        raise self.fail(token)

    def numeric(self, token: Token) -> int | float:
        ahead = self.tokens.peek()
        if ahead.kind == "ident" and ahead.start == token.end:  # `3in`, `1px`: not a number
            raise self.fail(ahead, f"`{token.value}{ahead.value}` (a number followed by letters)")
        return _number(token.value)


@dataclass(slots=True)
class FoundLiteral:
    """A literal found in a file: its value, the line it starts on, and how the file exports it."""

    value: Any
    line: int
    export: str | None = None  # "default", the export's name, or None (not exported where it is made)


@dataclass(slots=True)
class SourceRead:
    """What a TypeScript source held: the literals found, and every problem (at most MAX_PROBLEMS)."""

    found: list[FoundLiteral] = field(default_factory=list)
    problems: list[LiteralProblem] = field(default_factory=list)
    more_problems: int = 0
    warnings: list[LiteralProblem] = field(default_factory=list)

    def warn(self, line: int, message: str) -> None:
        if len(self.warnings) < MAX_PROBLEMS:
            self.warnings.append(LiteralProblem(line, message))

    def problem(self, line: int, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(LiteralProblem(line, message))
        else:
            self.more_problems += 1


def _skip_to(tokens: Tokens, depth: int) -> bool:
    """Consume tokens until the bracket open at `depth` is closed; False at the end of the file."""
    while tokens.depth > depth:
        token = tokens.next()
        if token.kind in ("eof", "error"):
            return False
    return True


def _too_large(text: str) -> SourceRead | None:
    if len(text) <= MAX_SOURCE_CHARS:
        return None
    read = SourceRead()
    read.problem(1, f"is {len(text):,} characters long; workbench reads TypeScript evals up to "
                    f"{MAX_SOURCE_CHARS:,} characters (convert it to .eval.json)")
    return read


def read_evals(text: str, constructor: str = "Eval") -> SourceRead:
    """Every `new Eval(<literal>)` in `text`, in order; a construct that is not a literal is a problem
    naming its line, and that eval is skipped (the others are still read)."""
    read = _too_large(text)
    if read is not None:
        return read
    read = SourceRead()
    tokens = Tokens(text)
    export: str | None = None  # what the tokens just before are exporting
    recent: list[Token] = []
    while True:
        token = tokens.next()
        if token.kind == "eof":
            return read
        if token.kind == "error":
            read.problem(tokens.line(token.start), f"{token.value}; the rest of the file is not read")
            return read
        recent = [*recent[-4:], token]
        if token.is_word("new") and tokens.peek().is_word(constructor):
            export = _export_of(recent[:-1])
            tokens.next()
            opening = tokens.peek()
            if not opening.is_punct("("):
                read.problem(tokens.line(opening.start), f"`new {constructor}` is not called with an object "
                                                        f"literal; {LITERAL_HINT}")
                continue
            base = tokens.depth
            tokens.next()
            line = tokens.line(opening.start)
            noted = len(tokens.useless)
            try:
                value = _argument(tokens, constructor)
            except NotLiteral as exc:
                at = tokens.line(exc.pos)
                starts = f" (the eval at line {line})" if at != line else ""
                read.problem(at, f"new {constructor}({{...}}){starts} holds {exc.message}; {LITERAL_HINT}")
                if not _skip_to(tokens, base):
                    return read
                recent = []
                continue
            read.found.append(FoundLiteral(value, line, export))
            for pos, message in tokens.useless[noted:]:
                read.warn(tokens.line(pos), message)
            recent = []


def _export_of(before: list[Token]) -> str | None:
    """`export default new ...` → "default"; `export const NAME = new ...` → NAME; else None."""
    if len(before) >= 2 and before[-2].is_word("export") and before[-1].is_word("default"):
        return "default"
    if (len(before) >= 4 and before[-4].is_word("export") and before[-3].is_word("const", "let", "var")
            and before[-2].kind == "ident" and before[-1].is_punct("=")):
        return str(before[-2].value)
    return None


def _argument(tokens: Tokens, constructor: str) -> Any:
    """The one object-literal argument of `new Eval(`, up to and including the closing `)`."""
    first = tokens.peek()
    if not first.is_punct("{"):
        tokens.next()
        raise NotLiteral(first.start, _describe(tokens, first) + " as its argument, not an object literal")
    value = LiteralParser(tokens).value()
    closing = tokens.next()
    if closing.is_punct(",") and tokens.peek().is_punct(")"):
        closing = tokens.next()
    if not closing.is_punct(")"):
        raise NotLiteral(closing.start, f"{_describe(tokens, closing)} after its object (new {constructor} takes "
                                        "one object literal)")
    return value


_cache: dict[bytes, bytes] = {}  # digest of a source -> its SourceRead as JSON, oldest first


def read_evals_cached(text: str) -> SourceRead:
    """`read_evals`, remembered by the source's digest (a watch loop re-reads an unchanged file every
    iteration; JSON is parsed back far faster than the source is tokenized). Each call gets new values."""
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    frozen = _cache.get(key)
    if frozen is not None:
        doc = orjson.loads(frozen)
        return SourceRead([FoundLiteral(v, line, export) for v, line, export in doc["found"]],
                          [LiteralProblem(line, message) for line, message in doc["problems"]], doc["more"],
                          [LiteralProblem(line, message) for line, message in doc["warnings"]])
    read = read_evals(text)
    try:
        frozen = orjson.dumps({"found": [[f.value, f.line, f.export] for f in read.found],
                               "problems": [[p.line, p.message] for p in read.problems], "more": read.more_problems,
                               "warnings": [[p.line, p.message] for p in read.warnings]})
    except (TypeError, orjson.JSONEncodeError):  # a value orjson can't write: read it again next time
        return read
    if len(frozen) <= CACHE_BYTES // 4:
        _cache[key] = frozen
        while sum(map(len, _cache.values())) > CACHE_BYTES:
            del _cache[next(iter(_cache))]
    return read


def read_config_evals(text: str, wanted: tuple[str, ...]) -> tuple[dict[str, Any], SourceRead]:
    """The `wanted` keys of `evals: {...}` in an `agent.config.ts` (`export default defineConfig({...})` or
    `export default {...}`); the config's other keys may be any code. A wanted key that is not a literal
    is a problem; an `evals` that is not an object literal too."""
    read = _too_large(text)
    if read is not None:
        return {}, read
    read = SourceRead()
    tokens = Tokens(text)
    found: dict[str, Any] = {}
    while True:
        token = tokens.next()
        if token.kind in ("eof", "error"):
            return found, read
        if token.is_word("defineConfig") and tokens.peek().is_punct("("):
            tokens.next()
        elif not (token.is_word("default") and tokens.peek().is_punct("{")):
            continue
        if not tokens.peek().is_punct("{"):
            return found, read
        tokens.next()
        try:
            _walk_object(tokens, lambda key: key == "evals", lambda key: _evals_block(tokens, wanted, found, read))
        except NotLiteral as exc:
            read.problem(tokens.line(exc.pos), f"evals holds {exc.message}; {LITERAL_HINT.split(' (')[0]} "
                                               "(or set them in workbench.toml's [evals] section)")
        return found, read


def _evals_block(tokens: Tokens, wanted: tuple[str, ...], found: dict[str, Any], read: SourceRead) -> None:
    first = tokens.next()
    if not first.is_punct("{"):
        raise NotLiteral(first.start, f"{_describe(tokens, first)}, not an object literal")

    def take(key: str) -> None:
        found[key] = LiteralParser(tokens).value()

    _walk_object(tokens, lambda key: key in wanted, take)


def _walk_object(tokens: Tokens, wants: Callable[[str], bool], take: Callable[[str], None]) -> None:
    """Just after an object's `{`: `take(key)` reads the value of each wanted `key:`; every other member
    (any code: methods, spreads, expressions) is skipped by its brackets, up to the `,` or `}` ending it."""
    depth = tokens.depth
    while True:
        token = tokens.peek()
        if token.kind in ("eof", "error") or (token.is_punct("}") and tokens.depth == depth):
            tokens.next()
            return
        key_token = tokens.next()
        if key_token.kind in ("ident", "string") and tokens.peek().is_punct(":") and wants(key_token.value):
            tokens.next()
            take(key_token.value)
        _skip_member(tokens, depth)


def _skip_member(tokens: Tokens, depth: int) -> None:
    """Consume up to and including the `,` that ends the current member at `depth` (not the `}`)."""
    for token in _until_member_end(tokens, depth):
        if token.kind in ("eof", "error"):
            return


def _until_member_end(tokens: Tokens, depth: int) -> Iterator[Token]:
    while True:
        ahead = tokens.peek()
        if ahead.kind in ("eof", "error"):
            yield ahead
            return
        if tokens.depth == depth and ahead.is_punct("}"):
            return
        token = tokens.next()
        if tokens.depth == depth and token.is_punct(","):
            return
        yield token


__all__ = ["LITERAL_HINT", "MAX_DEPTH", "MAX_SOURCE_CHARS", "FoundLiteral", "LiteralParser", "LiteralProblem",
           "NotLiteral", "SourceRead", "Tokens", "cook", "read_config_evals", "read_evals", "read_evals_cached"]
