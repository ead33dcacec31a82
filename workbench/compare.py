"""The strict deep-equal of `uipath-exact-match`, and the explanation of where two values differ.

Equality follows seed 003 rule 4: key order is ignored; key names, casing, value types and shape
must match; booleans are never numbers; `85 == 85.0`; arrays compare in order; numbers compare by
exact value (two different integers are never equal, however large). Everything here is iterative,
so values nested far deeper than Python's recursion limit still get an answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeGuard

import orjson

from . import jsonio
from .output_paths import MISSING

_NUMBER = (int, float, Decimal)
_SORT = orjson.OPT_SORT_KEYS
_NUMBER_CHARS = b"0123456789.+-eE"  # every byte orjson may spell a number with
# Subtrees larger than this (in serialized bytes) are split further before deepdiff sees them.
_DEEPDIFF_BUDGET = 64 * 1024
_MAX_DIFFERENCES = 20
# deepdiff recurses (and slows down quadratically with depth); deeper pairs are walked iteratively.
_DEEPDIFF_MAX_DEPTH = 64
_PATH_SHOWN = 12

Path = tuple[str | int, ...]


def is_number(value: object) -> TypeGuard[int | float | Decimal]:
    """A JSON number (Decimal: orjson's exact parse of a long one); never a bool."""
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def _leaf_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    return type(a) is type(b) and a == b


def first_mismatch(a: Any, b: Any) -> tuple[Path, Any, Any] | None:
    """The first place where the rules say the values differ, or None. Iterative: any depth works."""
    stack: list[tuple[Any, Any, Any]] = [(None, a, b)]  # (trail, x, y); trail = (key, parent trail)
    while stack:
        trail, x, y = stack.pop()
        if isinstance(x, dict):
            if isinstance(y, dict) and x.keys() == y.keys():
                stack.extend(((k, trail), x[k], y[k]) for k in x)
                continue
        elif isinstance(x, list):
            if isinstance(y, list) and len(x) == len(y):
                stack.extend(((i, trail), xi, yi) for i, (xi, yi) in enumerate(zip(x, y, strict=True)))
                continue
        elif not isinstance(y, (dict, list)) and _leaf_equal(x, y):
            continue
        path: list[str | int] = []
        while trail is not None:
            key, trail = trail
            path.append(key)
        return tuple(reversed(path)), x, y
    return None


def strict_equal(actual: Any, expected: Any) -> bool:
    """True when the two JSON values are equal under the exact-match rules.

    Fast paths first: Python's `==` is necessary for strict equality (so `!=` settles a FAIL at C
    speed), and identical sorted-key orjson bytes are sufficient (they spell `true` and `1`
    differently). When `==` holds the only possible rule break is a boolean facing a number, so
    bytes that differ only in how numbers are spelled (`85` vs `85.0`) are compared with every
    number character deleted: equal strings delete identically, and `true`/`false` leave `tru`/
    `fals` where a number leaves nothing. Huge integers and deep nesting take the slow walk.
    """
    try:
        if actual != expected:
            return False
    except RecursionError:
        return first_mismatch(actual, expected) is None
    try:
        left, right = orjson.dumps(actual, option=_SORT), orjson.dumps(expected, option=_SORT)
    except (TypeError, orjson.JSONEncodeError):
        return first_mismatch(actual, expected) is None
    return left == right or left.translate(None, _NUMBER_CHARS) == right.translate(None, _NUMBER_CHARS)


# --------------------------------------------------------------------------------------------
# Explaining a difference


@dataclass(frozen=True, slots=True)
class Difference:
    """One place where actual and expected disagree. `path` is relative to the compared values."""

    path: Path
    kind: str  # "value", "type", "missing", "unexpected", "extra_item", "missing_item"
    expected: Any = MISSING
    actual: Any = MISSING
    hint: str = ""

    def describe(self, prefix: str = "") -> str:
        where = format_path(self.path, prefix)
        if self.kind == "missing":
            text = f"{where}: missing from the actual output (expected {_show(self.expected)})"
        elif self.kind == "unexpected":
            text = f"{where}: not in expectedOutput (actual has {_show(self.actual)})"
        elif self.kind == "missing_item":
            text = f"{where}: item missing from the actual output (expected {_show(self.expected)})"
        elif self.kind == "extra_item":
            text = f"{where}: extra item in the actual output ({_show(self.actual)})"
        elif self.kind == "type":
            text = (f"{where}: expected {_show(self.expected)} ({type_name(self.expected)}), "
                    f"got {_show(self.actual)} ({type_name(self.actual)})")
        else:
            text = f"{where}: expected {_show(self.expected)}, got {_show(self.actual)}"
        return f"{text} — {self.hint}" if self.hint else text


    def describe_change(self) -> str:
        """The same place said as a change from `expected` (before) to `actual` (after), for `compare`."""
        where = format_path(self.path)
        if self.kind in ("missing", "missing_item"):
            return f"{where}: removed (was {_show(self.expected)})"
        if self.kind in ("unexpected", "extra_item"):
            return f"{where}: added ({_show(self.actual)})"
        if self.kind == "type":
            return (f"{where}: {_show(self.expected)} ({type_name(self.expected)}) → {_show(self.actual)} "
                    f"({type_name(self.actual)})")
        return f"{where}: {_show(self.expected)} → {_show(self.actual)}"


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def fits_schema_type(value: Any, name: str) -> bool | None:
    """Whether `value` is of JSON Schema type `name` (an "integer" may be written `3.0`); None for a name
    JSON Schema doesn't have, which each caller judges its own way."""
    if name == "integer":
        return is_number(value) and (isinstance(value, int) or float(value).is_integer())
    if name == "number":
        return is_number(value)
    if name in ("string", "boolean", "object", "array", "null"):
        return type_name(value) == name
    return None


def _show(value: Any, limit: int = 80) -> str:
    if value is MISSING:
        return "nothing"
    return jsonio.preview(value, limit)


def _is_identifier(key: str) -> bool:
    return key.replace("_", "a").replace("$", "a").isalnum() and not key[:1].isdigit()


def format_path(path: Path, prefix: str = "") -> str:
    """`details.rawScore`, `items[2].name`, `["odd key"]`; the whole value is `(whole output)`."""
    if len(path) > 2 * _PATH_SHOWN:
        head = format_path(path[:_PATH_SHOWN], prefix)
        tail = format_path(path[-_PATH_SHOWN:], "…")
        return f"{head}{tail} (depth {len(path)})"
    text = prefix
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _is_identifier(part):
            text += f".{part}" if text else part
        else:
            text += f"[{jsonio.dumps(part)}]"
    return text or "(whole output)"


def _casing_hint(key: str, keys: Any, other_side: str) -> str:
    matches = [k for k in keys if isinstance(k, str) and k.lower() == key.lower() and k != key]
    return f"{other_side} has {matches[0]!r}; key names are case-sensitive" if matches else ""


def _serialized_size(value: Any) -> int | None:
    """Bytes as JSON, or None when orjson can't say (huge integers, nesting deeper than 255)."""
    try:
        return len(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):
        return None


def _focus(actual: Any, expected: Any, limit: int) -> list[tuple[Path, Any, Any]]:
    """Split a differing pair into small differing subtrees, descending only where the shapes agree.

    Equal children are skipped with `strict_equal`, so a nearly-equal 1 MB output is narrowed to
    the few small places that differ before deepdiff looks at them.
    """
    found: list[tuple[Path, Any, Any]] = []
    stack: list[tuple[Path, Any, Any]] = [((), actual, expected)]
    while stack and len(found) < limit:
        path, a, e = stack.pop()
        same_dict = isinstance(a, dict) and isinstance(e, dict) and a.keys() == e.keys()
        same_list = isinstance(a, list) and isinstance(e, list) and len(a) == len(e)
        sizes = (_serialized_size(a), _serialized_size(e))
        small = None in sizes or sum(sizes) <= _DEEPDIFF_BUDGET  # type: ignore[arg-type]
        if not (same_dict or same_list) or small:
            found.append((path, a, e))
            continue
        children = [(k, a[k], e[k]) for k in a] if same_dict else list(zip(range(len(a)), a, e, strict=True))
        for key, x, y in reversed(children):
            if not strict_equal(x, y):
                stack.append(((*path, key), x, y))
    return found


def warm_up() -> None:
    """Import deepdiff ahead of the first FAIL (the loop calls this in a thread at start, so the first
    failing verdict after a save doesn't wait ~0.2 s for the import)."""
    import deepdiff  # noqa: F401


def _deepdiff_differences(base: Path, actual: Any, expected: Any) -> list[Difference]:
    from deepdiff import DeepDiff  # imported on the first FAIL: it costs ~70 ms at start-up

    tree = DeepDiff(expected, actual, view="tree", ignore_order=False, verbose_level=2,
                    threshold_to_diff_deeper=0).tree
    out: list[Difference] = []
    for kind, items in tree.items():
        for item in items:
            path = (*base, *item.path(output_format="list"))
            exp, act = item.t1, item.t2
            exp = MISSING if type(exp).__name__ == "NotPresent" else exp
            act = MISSING if type(act).__name__ == "NotPresent" else act
            if kind == "dictionary_item_removed":
                out.append(Difference(path, "missing", exp, MISSING,
                                      _casing_hint(str(path[-1]), _parent_keys(actual, path[len(base):]),
                                                   "the output")))
            elif kind == "dictionary_item_added":
                out.append(Difference(path, "unexpected", MISSING, act,
                                      _casing_hint(str(path[-1]), _parent_keys(expected, path[len(base):]),
                                                   "expectedOutput")))
            elif kind == "iterable_item_removed":
                out.append(Difference(path, "missing_item", exp, MISSING))
            elif kind == "iterable_item_added":
                out.append(Difference(path, "extra_item", MISSING, act))
            elif kind == "type_changes":
                if is_number(exp) and is_number(act):
                    if exp == act:
                        continue  # 85 and 85.0 are the same number
                    out.append(Difference(path, "value", exp, act))  # int vs float: both are numbers
                    continue
                out.append(Difference(path, "type", exp, act))
            else:
                out.append(Difference(path, "value", exp, act))
    out.sort(key=lambda d: [str(p) for p in d.path])
    return out


def _parent_keys(root: Any, rel_path: Path) -> Any:
    node = root
    for part in rel_path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return ()
    return node.keys() if isinstance(node, dict) else ()


def _deeper_than(value: Any, limit: int) -> bool:
    """True when `value` nests containers more than `limit` levels deep. Iterative; stops early."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth >= limit and children:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _diff_pair(path: Path, actual: Any, expected: Any) -> list[Difference]:
    """deepdiff's account of one pair, or [] when the pair is too deep for it (it recurses, and slows
    down quadratically with depth long before Python's recursion limit)."""
    if _deeper_than(actual, _DEEPDIFF_MAX_DEPTH) or _deeper_than(expected, _DEEPDIFF_MAX_DEPTH):
        return []
    try:
        return _deepdiff_differences(path, actual, expected)
    except RecursionError:
        return []


def differences(actual: Any, expected: Any, limit: int = _MAX_DIFFERENCES) -> list[Difference]:
    """Where `actual` and `expected` differ (empty when they are strictly equal), at most `limit`."""
    if strict_equal(actual, expected):
        return []
    out: list[Difference] = []
    for path, a, e in _focus(actual, expected, limit):
        found = _diff_pair(path, a, e)
        if not found:  # too deep for deepdiff: walk to the first place that disagrees, explain it there
            mismatch = first_mismatch(a, e)
            if mismatch is not None:
                rel, x, y = mismatch
                found = _diff_pair((*path, *rel), x, y) if rel else []
                if not found:
                    kind = "value" if type_name(x) == type_name(y) else "type"
                    found = [Difference((*path, *rel), kind, y, x)]
        out.extend(found)
        if len(out) >= limit:
            break
    return out[:limit]


def explain(actual: Any, expected: Any, prefix: str = "", limit: int = _MAX_DIFFERENCES) -> list[str]:
    """Human-readable lines, one per difference."""
    found = differences(actual, expected, limit + 1)
    lines = [d.describe(prefix) for d in found[:limit]]
    if len(found) > limit:
        lines.append(f"… and more differences (showing the first {limit})")
    return lines


def explain_change(before: Any, after: Any, limit: int = _MAX_DIFFERENCES) -> list[str]:
    """What changed from `before` to `after`, one line per place in workbench's words (`greeting: "hi" →
    "yo"`, `items[2]: removed (was 3)`); [] when they are strictly equal."""
    found = differences(after, before, limit + 1)
    lines = [d.describe_change() for d in found[:limit]]
    if len(found) > limit:
        lines.append(f"… and more changes (showing the first {limit})")
    return lines
