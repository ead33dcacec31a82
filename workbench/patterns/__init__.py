"""Regular expressions from users' files (`matches` in assertions, `pattern` in a tools file), matched
without ever hanging workbench.

Python's `re` backtracks: `^(a+)+$` against 34 `a`s and a `!` runs for hours, in C, holding the GIL, so
neither Ctrl-C nor SIGTERM gets through. Here a pattern means exactly what it means to Python's `re`
(Python decides whether it is valid, and its parse tree is what gets translated), but it runs on:

- RE2 (linear time, nothing to time out) whenever RE2 can say the same thing for the text at hand;
- otherwise `regex` (a backtracking engine with a `timeout`, which also lets signals through) for the
  constructs only backtracking has: backreferences, lookaround, atomic groups, possessive repeats and
  repeats over 1000, plus the few anchors RE2 reads differently for some texts (`translate.Needs`).

A match on `regex` that runs longer than `MATCH_TIMEOUT_S` is stopped and raises PatternError, which
the callers turn into an ERROR naming the file and the pattern. A Ctrl-C during it is acted on when it
stops (at most that long). Known difference left: a case-insensitive backreference compares with
`regex`'s case folding, which pairs a few characters Python's does not (`ſ` with `s`, `ς` with `σ`).
"""

from __future__ import annotations

import functools
import re
from re import _parser  # type: ignore[attr-defined]
from typing import Any

import re2
import regex

from .translate import RE2, REGEX, Needs, Untranslatable, write

MATCH_TIMEOUT_S = 1.0
CACHE_SIZE = 512


class PatternError(ValueError):
    """A pattern can't be used: it is not a regular expression, or it was stopped on a text. `reason` is
    the message without the pattern, for callers that name the pattern themselves."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


def _re2_options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print every pattern it refuses on stderr
    options.never_capture = True
    return options


class SafePattern:
    """One compiled pattern. `search(text)` says whether it matches anywhere in `text`, as `re.search`
    would, or raises PatternError when the backtracking engine had to be stopped."""

    __slots__ = ("_backtracker", "_fallback_reason", "_needs", "_re2", "_tree", "flags", "source")

    def __init__(self, source: str, flags: int, tree: Any) -> None:
        self.source, self.flags, self._tree = source, flags, tree
        self._re2: Any = None
        self._needs = Needs()
        self._fallback_reason = ""
        self._backtracker: Any = None
        try:
            text, self._needs = write(tree, RE2)
            self._re2 = re2.compile(text, _re2_options())
        except Untranslatable as exc:
            self._fallback_reason = str(exc)
        except re2.error as exc:  # too big for RE2's memory budget, say
            self._fallback_reason = f"a size RE2 refuses ({exc})"

    @property
    def on_re2(self) -> bool:
        """Whether RE2 compiled the pattern: it then matches every text it reads as `re` does (all of them when
        `linear`); the others go to the backtracking engine."""
        return self._re2 is not None

    @property
    def linear(self) -> bool:
        """Whether every text is matched by RE2 (in linear time)."""
        return self._re2 is not None and self._needs == Needs()

    def search(self, text: str) -> bool:
        reason = self._fallback_reason
        if self._re2 is not None:
            reason = self._needs.misfit(text) or ""
            if not reason:
                try:
                    return self._re2.search(text) is not None
                except UnicodeEncodeError:  # a lone surrogate (JSON allows them); RE2 reads UTF-8 only
                    reason = "a text holding a lone surrogate"
        return self._backtrack(text, reason)

    def _backtrack(self, text: str, reason: str) -> bool:
        if self._backtracker is None:
            try:
                self._backtracker = regex.compile(write(self._tree, REGEX)[0], regex.V0)
            except (Untranslatable, regex.error, RecursionError) as exc:
                raise PatternError(f"{self.source!r} cannot be matched safely ({reason}, and the backtracking "
                                   f"engine refused it: {exc})") from None
        try:
            return self._backtracker.search(text, timeout=MATCH_TIMEOUT_S) is not None
        except TimeoutError:
            raise PatternError(
                f"{self.source!r} ran longer than {MATCH_TIMEOUT_S:g} s on a {len(text):,}-character text and "
                f"was stopped. It needs a backtracking engine ({reason}), and it backtracks too much there "
                "(nested or overlapping repeats such as (a|a)+ take exponential time); simplify it") from None


@functools.lru_cache(maxsize=CACHE_SIZE)
def compile_pattern(source: str, flags: int = 0) -> SafePattern:
    """`source` compiled once (a bounded cache, so every row of every iteration reuses it); PatternError
    saying what is wrong when Python's `re` would not accept it."""
    try:
        re.compile(source, flags)
        tree = _parser.parse(source, flags)
        return SafePattern(source, flags, tree)
    except re.error as exc:
        raise PatternError(f"{source!r} is not a valid regular expression: {exc}", str(exc)) from None
    except (RecursionError, OverflowError) as exc:
        raise PatternError(f"{source!r} cannot be used: {exc}") from None


__all__ = ["MATCH_TIMEOUT_S", "PatternError", "SafePattern", "compile_pattern"]
