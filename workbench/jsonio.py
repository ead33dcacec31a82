"""JSON in and out: orjson for speed, Python's json wherever orjson would be wrong.

Where the two differ, and what we do about it:

* Integers beyond 64 bits: orjson silently turns them into floats (losing digits); we re-parse with
  ``json`` whenever the text holds a run of 19+ digits, so integers always keep their exact value.
  Python refuses to convert integers of more than 4,300 digits to or from text (a guard against slow
  conversions); we split such numbers into chunks below that limit, in both directions, so an integer
  of any size is read and written exactly without lifting the guard for the whole process.
* Numbers too large for a double (``1e400``): orjson refuses them, ``json`` makes ``inf``; we keep
  their exact value as a ``Decimal`` so two different huge numbers never compare equal.
* ``NaN`` / ``Infinity``: not JSON. ``json`` accepts them; we refuse them with a clear message.
* Lone surrogates (``"\\ud800"``): orjson refuses, ``json`` accepts; we accept (the text is valid JSON).
* A UTF-8 byte order mark: orjson refuses; we accept it and report it (``had_bom``).
* Nesting deeper than ~1000 levels: both refuse to parse it; we turn that into a clear error, never a
  RecursionError. Writing never refuses: values nested deeper than either encoder goes (orjson stops at
  255 levels, ``json`` at the recursion limit) are written by a small iterative encoder, so a deep
  output is recorded and reported as what it is, never replaced by a placeholder.
* Duplicate keys: both keep the last one, as JavaScript does.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import orjson

UTF8_BOM = b"\xef\xbb\xbf"
_LONG_DIGITS = re.compile(rb"\d{19}")
MAX_DEPTH_HINT = 1000


class JsonError(ValueError):
    """Invalid JSON, with a human message and (when known) the 1-based line and column, and `excerpt`: that
    line's text and a caret under the column (`excerpt_at`), to print under the message."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 excerpt: tuple[str, ...] = ()) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.excerpt = excerpt
        where = f" (line {line}, column {column})" if line is not None else ""
        super().__init__(f"{message}{where}")


@dataclass(frozen=True, slots=True)
class Parsed:
    value: Any
    had_bom: bool = False


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_INT_CHUNK = 4000  # digits converted in one piece: below Python's 4,300-digit limit
_INT_CHUNK_BITS = 13_000  # an integer of at most this many bits has fewer than 4,000 digits


def _digits_value(digits: str) -> int:
    if len(digits) <= _INT_CHUNK:
        return int(digits)
    half = len(digits) // 2
    return _digits_value(digits[:half]) * 10 ** (len(digits) - half) + _digits_value(digits[half:])


def parse_int(text: str) -> int:
    """`int(text)` for a JSON integer of any length (Python's own conversion stops at 4,300 digits)."""
    if len(text) <= _INT_CHUNK:
        return int(text)
    if text.startswith("-"):
        return -_digits_value(text[1:])
    return _digits_value(text)


def _digits_text(value: int, width: int) -> str:
    """Decimal digits of `value` (>= 0), zero-padded to `width` (0: no padding)."""
    if value.bit_length() <= _INT_CHUNK_BITS:
        text = str(value)
        return text.zfill(width) if width else text
    low_digits = int(value.bit_length() * 0.30102999566398) // 2
    high, low = divmod(value, 10**low_digits)
    return _digits_text(high, width - low_digits if width else 0) + _digits_text(low, low_digits)


def int_text(value: int) -> str:
    """`str(value)` for an integer of any size (Python's own conversion stops at 4,300 digits)."""
    if value.bit_length() <= _INT_CHUNK_BITS:
        return str(value)
    return ("-" if value < 0 else "") + _digits_text(abs(value), 0)


def _exact_float(text: str) -> float | Decimal:
    value = float(text)
    return Decimal(text) if math.isinf(value) else value


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


_EXCERPT_WIDTH = 100  # characters of the line shown around the column (a minified file is one long line)


def excerpt_at(text: str, line: int, column: int) -> tuple[str, ...]:
    """Line `line` of `text` and a caret under `column` (both 1-based), as two lines to print under a message:
    `   12 |     ],` / `      |     ^`. A long line is cut around the column (`…` where it is cut); tabs and
    characters a terminal would act on are shown as one space or `·` each, so the caret stays under its
    character. () when the line is not in `text`."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return ()
    shown = "".join(" " if ch == "\t" else "·" if not ch.isprintable() else ch for ch in lines[line - 1].rstrip("\r"))
    at = min(max(column - 1, 0), len(shown))
    start = max(0, min(at - _EXCERPT_WIDTH // 2, len(shown) - _EXCERPT_WIDTH))
    end = start + _EXCERPT_WIDTH
    window = ("…" if start else "") + shown[start:end] + ("…" if end < len(shown) else "")
    caret = at - start + (1 if start else 0)
    gutter = f"{line:>5} | "
    return (gutter + window, " " * (len(gutter) - 2) + "| " + " " * caret + "^")


def _explained(exc: json.JSONDecodeError) -> tuple[str, int]:
    """json's message, with a hint for the mistakes people make most (a trailing comma before `]` or `}`), and
    the index the mistake is at (the comma's, for a trailing comma: the one to remove)."""
    before = exc.doc[:exc.pos].rstrip()
    if exc.msg in ("Expecting value", "Expecting property name enclosed in double quotes") and \
            before.endswith(",") and exc.doc[exc.pos:exc.pos + 1] in ("]", "}"):
        return (f"{exc.msg} — a trailing comma before `{exc.doc[exc.pos]}` (JSON allows none; remove the comma "
                f"after the last item)"), len(before) - 1
    return exc.msg, exc.pos


def _located(message: str, text: str, index: int) -> JsonError:
    line, column = _position(text, index)
    return JsonError(message, line, column, excerpt_at(text, line, column))


def _slow_loads(text: str) -> Any:
    """Python's json with our strictness rules; raises JsonError with a position and the line's excerpt."""
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_exact_float, parse_int=parse_int)
    except json.JSONDecodeError as exc:
        message, index = _explained(exc)
        raise _located(message, text, index) from None
    except RecursionError:
        raise JsonError(f"nested more than about {MAX_DEPTH_HINT} levels deep; not supported") from None
    except ValueError as exc:  # NaN / Infinity from parse_constant
        line, column = _constant_position(text)
        excerpt = excerpt_at(text, line, column) if line is not None and column is not None else ()
        raise JsonError(str(exc), line, column, excerpt) from None


# A string literal (skipped) or a bare NaN / Infinity token outside any string.
_CONSTANT_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|(-?(?:NaN|Infinity))')


def _constant_position(text: str) -> tuple[int | None, int | None]:
    """Where the first NaN / Infinity outside a string literal is (not one inside `"NaN"`)."""
    for match in _CONSTANT_OR_STRING.finditer(text):
        if match.group(1):
            return _position(text, match.start(1))
    return None, None


def decode_utf8(data: bytes) -> tuple[str, bool]:
    """Decode strictly, stripping a UTF-8 BOM. Raises JsonError naming the bad byte."""
    had_bom = data.startswith(UTF8_BOM)
    if had_bom:
        data = data[len(UTF8_BOM):]
    try:
        return data.decode("utf-8"), had_bom
    except UnicodeDecodeError as exc:
        text = data[: exc.start].decode("utf-8", errors="replace")
        line, column = _position(text, len(text))
        raise JsonError(f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                        line, column) from None


def parse(data: bytes | str) -> Parsed:
    """Parse one JSON document exactly; raise JsonError (never anything else) when it is not JSON."""
    had_bom = False
    if isinstance(data, str):
        raw = data.encode("utf-8", errors="surrogatepass")
        if data.startswith("\ufeff"):
            had_bom, data = True, data[1:]
            raw = raw[len(UTF8_BOM):]
    else:
        raw = data
        if raw.startswith(UTF8_BOM):
            had_bom, raw = True, raw[len(UTF8_BOM):]
    if not raw.strip():
        raise JsonError("empty document: expected a JSON value", 1, 1)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = data if isinstance(data, str) else decode_utf8(raw)[0]
        return Parsed(_slow_loads(text), had_bom)
    if _LONG_DIGITS.search(raw):
        text = data if isinstance(data, str) else raw.decode("utf-8")
        value = _slow_loads(text)
    return Parsed(value, had_bom)


def loads(data: bytes | str) -> Any:
    return parse(data).value


_PYTHON_LITERAL_LIMIT = 256 * 1024  # longer text is not tried as a Python literal (this is the failure path only)


def python_literal_hint(data: bytes | str) -> str:
    """For text that is not JSON: the hint when it is a Python dict's or list's repr (`{'a': 1, 'ok': True}`,
    what `print(result)` writes) — its whole text or its last line — else "". Only literals are read
    (`ast.literal_eval`: nothing runs), and nothing longer than 256 KiB."""
    import ast

    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = text.strip()
    if not text or len(text) > _PYTHON_LITERAL_LIMIT:
        return ""
    for candidate in dict.fromkeys((text, text.splitlines()[-1].strip())):
        try:
            value = ast.literal_eval(candidate)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, (dict, list)):
            kind = "dict" if isinstance(value, dict) else "list"
            return (f"it is a Python {kind} as print() writes it (single quotes, True/None): print(json.dumps(...)) "
                    f"instead of print({kind})")
    return ""


class NotAnObject(JsonError):
    """Valid JSON whose top level is not the object the reader needs (`loads_object`)."""


def loads_object(data: bytes | str) -> dict[str, Any]:
    """A document that must be a JSON object: JsonError when it is not JSON, NotAnObject (a JsonError,
    so catch it first) when it is JSON of another type; each caller says which in its own words."""
    value = loads(data)
    if not isinstance(value, dict):
        raise NotAnObject("the top level is not a JSON object")
    return value


_DECIMAL_MARK = "\x00workbench-decimal:"
_DECIMAL_TOKEN = re.compile(r'"\\u0000workbench-decimal:([^"\\]+)"')


def _default(value: Any) -> Any:
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return _DECIMAL_MARK + str(value)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def dumps(value: Any, *, indent: bool = False, sort_keys: bool = False) -> str:
    """Serialize to JSON text; exact for huge integers and Decimals (which orjson refuses)."""
    option = (orjson.OPT_INDENT_2 if indent else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    try:
        return orjson.dumps(value, option=option, default=_default).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        pass
    try:
        text = json.dumps(value, indent=2 if indent else None, sort_keys=sort_keys, ensure_ascii=False,
                          default=_json_default)
    except RecursionError:
        return _dumps_deep(value, indent=indent, sort_keys=sort_keys)
    except ValueError as exc:  # an integer of more than 4,300 digits, which `json` can't write
        if "integer string conversion" not in str(exc):
            raise
        return _dumps_deep(value, indent=indent, sort_keys=sort_keys)
    return _DECIMAL_TOKEN.sub(lambda m: m.group(1), text) if _DECIMAL_MARK[1:] in text else text


_END = object()
_PRETTY_DEPTH = 64  # deeper than this, indented output goes on one line (indentation would be quadratic)


def _scalar_text(value: Any) -> str:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int_text(value)
    if isinstance(value, (str, bool, float)) or value is None:
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def preview(value: Any, limit: int = 80) -> str:
    """The start of `value` as compact JSON, at most `limit` characters (ending in … when cut). Cheap for
    values too deep for the encoders: only what is shown is written."""
    try:
        text = orjson.dumps(value, default=_default).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        text = _dumps_deep(value, indent=False, sort_keys=False, limit=limit)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dumps_deep(value: Any, *, indent: bool, sort_keys: bool, limit: int | None = None) -> str:
    """JSON text for a value of any depth, without recursion (only used past the encoders' limits).
    With `limit`, it stops soon after that many characters (for a preview)."""
    out: list[str] = []
    stack: list[list[Any]] = []  # [items iterator, closer, depth of the items, first item still to come]

    def begin(node: Any, depth: int) -> None:
        if isinstance(node, dict) and node:
            items: Any = sorted(node.items()) if sort_keys else node.items()
            out.append("{")
            stack.append([iter(items), "}", depth + 1, True])
        elif isinstance(node, list) and node:
            out.append("[")
            stack.append([iter(node), "]", depth + 1, True])
        else:
            out.append("{}" if isinstance(node, dict) else "[]" if isinstance(node, list) else _scalar_text(node))

    begin(value, 0)
    while stack:
        if limit is not None and len(out) > limit:  # every piece holds a character at least
            break
        frame = stack[-1]
        iterator, closer, depth, first = frame
        pretty = indent and depth <= _PRETTY_DEPTH
        item: Any = next(iterator, _END)
        if item is _END:
            stack.pop()
            out.append(f"\n{'  ' * (depth - 1)}{closer}" if pretty else closer)
            continue
        frame[3] = False
        if not first:
            out.append(",")
        if pretty:
            out.append("\n" + "  " * depth)
        if closer == "}":
            key, item = item
            out.append(json.dumps(key, ensure_ascii=False) + (": " if indent else ":"))
        begin(item, depth)
    return "".join(out)


def dumps_bytes(value: Any) -> bytes:
    """Compact JSON as valid UTF-8 bytes, for a target's stdin or command line. A lone surrogate (legal
    in a JSON string, impossible in UTF-8) is written as its `\\udXXX` escape, which means the same."""
    try:
        return orjson.dumps(value, default=_default)
    except (TypeError, orjson.JSONEncodeError):
        return dumps(value).encode("utf-8", errors="backslashreplace")
