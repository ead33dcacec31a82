"""One redactor for every output that leaves the terminal — the HTML report, the Markdown digest, GitHub
annotations, `compare`, the MCP server's answers and `--json --redact`. It learns the project's secrets from
the values of settings and environment entries whose names look like a key, token, secret or password
(`[runner] env`, `[judge]`, a format's own sections, the process's environment, the project's `.env*` files,
the JSON settings files such as `.appilotsrc` and its `apiKey`) and from the values a target returned under
secret-named keys (`{"api_key": "sk-…"}`); `hidden` shows a secret-named setting as REDACTED, and `scrub` /
`text` replace every occurrence of a learnt value anywhere — a log, an output, an input, a trace — so a target
that prints its key does not publish it."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from .. import jsonio
from ..config import Config
from ..model import Result
from ..regular_files import UnreadableFile, read_regular_file
from ..settings.problems import SETTINGS_FILES
from ..settings.sections import CORE_SECTIONS
from .dotenv import dotenv_secrets

REDACTED = "••••••(redacted)"
CUT = "…"  # what every clip in workbench ends (or starts) a shortened text with
SECRET_NAME = re.compile(r"key|token|secret|passw(or)?d|pwd|credential", re.IGNORECASE)
# names that hold the *name* of a variable, or a flag, rather than a secret: `api_key_env = "OPENAI_API_KEY"`
NOT_A_SECRET_NAME = re.compile(r"(_env|_var|_file|_path)$", re.IGNORECASE)
MIN_SCRUBBED = 4  # a shorter value ("1", "on") would blot out ordinary text everywhere
MIN_SCRUBBED_FROM_ENVIRONMENT = 8  # the process environment holds many short values under such names
RC_LIMIT = 1024 * 1024
# An output's key: its words (`apiKey`, `api_key`, `API-KEY` alike). Stricter than a setting's name, since an
# output is the target's own data: `keywords`, `max_tokens` or a key/value pair's `key` hold no secret.
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SECRET_WORDS = frozenset({"secret", "secrets", "password", "passwd", "pwd", "passphrase", "token", "credential",
                           "credentials", "apikey", "authorization", "bearer"})
_NOT_SECRET_KEYS = frozenset({"row", "sort", "cache", "primary", "foreign", "partition", "group", "lookup", "index",
                              "map", "dict", "hash", "idempotency", "target", "output", "input", "result", "set",
                              "evaluator", "object", "route", "unique", "public", "hot", "dedup"})


def secret_name(name: str) -> bool:
    """Does a setting or variable called `name` hold a secret?"""
    return bool(SECRET_NAME.search(name)) and not NOT_A_SECRET_NAME.search(name)


def secret_output_key(name: str) -> bool:
    """Does a key called `name` in a target's output hold a secret? A secret word in it (`token`, `password`,
    `client_secret`, `Authorization`), or `key` after a word that isn't a key's ordinary kind (`api_key`,
    `accessKey`, `OPENAI_API_KEY`, not `row_key`, `sort_key` or a bare `key`)."""
    if NOT_A_SECRET_NAME.search(name):
        return False
    words = [word.lower() for word in _WORDS.findall(name)]
    if _SECRET_WORDS.intersection(words):
        return True
    return len(words) > 1 and words[-1] == "key" and words[-2] not in _NOT_SECRET_KEYS


@dataclass(slots=True)
class Redactor:
    """The secret values found for one project; `hidden`, `scrub` and `text` apply them."""

    values: set[str] = field(default_factory=set)
    _pattern: tuple[frozenset[str], re.Pattern[str]] | None = field(default=None, repr=False, compare=False)

    def add(self, value: Any, minimum: int = MIN_SCRUBBED) -> None:
        for text in _leaves(value):
            if len(text) >= minimum:
                self.values.add(text)

    def learn(self, doc: Any) -> None:
        """Learn the strings a target's output holds under secret-named keys (`secret_output_key`)."""
        for value in _output_secrets(doc):
            self.add(value)

    def knowing(self, results: Iterable[Result]) -> Redactor:
        """A copy that also knows the secrets the results' outputs hold (each sample's too)."""
        known = Redactor(set(self.values))
        for result in results:
            known.learn_result(result)
        return known

    def learn_result(self, result: Result) -> None:
        """Learn what one result's output (each sample's too) holds under secret-named keys."""
        self.learn(result.actual)
        for sample in result.samples:
            self.learn(sample.actual)

    def _compiled(self) -> re.Pattern[str] | None:
        if not self.values:
            return None
        values = frozenset(self.values)
        if self._pattern is None or self._pattern[0] != values:
            forms = {form for value in values for form in (value, jsonio.dumps(value)[1:-1])}
            self._pattern = (values, re.compile("|".join(re.escape(v) for v in sorted(forms, key=len, reverse=True))))
        return self._pattern[1]

    def text(self, text: str) -> str:
        """`text` with every secret value replaced, as written or as JSON escapes it (a diff of JSON lines), and
        the part of one that a clip left beside its `…` (`one_line`, a digest's account) too."""
        pattern = self._compiled()
        return text if pattern is None else self._cut_parts(pattern.sub(REDACTED, text))

    def _cut_parts(self, text: str, in_json: bool = False) -> str:
        """A secret's start just before a `…`, or its end just after one, replaced (MIN_SCRUBBED characters or
        more of it: less would match ordinary text). Looked for only around each `…`; in JSON text, only for
        secrets without a quote or backslash (which JSON writes escaped, and a bare one is JSON's own)."""
        if CUT not in text:
            return text
        values = sorted((v for v in self.values if not (in_json and ('"' in v or "\\" in v))), key=len, reverse=True)
        pieces: list[str] = []
        start = 0
        for at in [match.start() for match in re.finditer(CUT, text)]:
            if at < start:
                continue
            head = _part_at(text, start, at, values, before=True)
            tail = _part_at(text, at + 1, len(text), values, before=False)
            pieces += [text[start:at - head], REDACTED if head else "", CUT, REDACTED if tail else ""]
            start = at + 1 + tail
        return "".join([*pieces, text[start:]])

    def hidden(self, doc: Any) -> Any:
        """`doc` (settings, a mapping of variables) with every secret-named entry's value REDACTED."""
        if isinstance(doc, Mapping):
            return {key: (REDACTED if isinstance(key, str) and secret_name(key) and value not in (None, "", [], {})
                          else self.hidden(value)) for key, value in doc.items()}
        if isinstance(doc, list):
            return [self.hidden(item) for item in doc]
        return doc

    def scrub(self, doc: Any) -> Any:
        """`doc` with every secret value replaced wherever it occurs inside a string (longest first): done on
        its JSON text, where each secret is looked for as written and as JSON escapes it, then read back."""
        pattern = self._compiled()
        if pattern is None:
            return doc
        text = self._cut_parts(pattern.sub(REDACTED, jsonio.dumps(doc)), in_json=True)
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:  # an integer beyond 64 bits: workbench's reader keeps it exact, of any size
            return jsonio.loads(text)


def _part_at(text: str, lo: int, hi: int, values: list[str], *, before: bool) -> int:
    """How many characters (MIN_SCRUBBED or more) of some secret's start end at `hi` (before), or of its end
    start at `lo` (after), within text[lo:hi]: found from where the secret's first (last) characters occur."""
    for value in values:
        if before:
            window = text[max(lo, hi - len(value) + 1):hi]
            at = window.find(value[:MIN_SCRUBBED])
            while at >= 0:
                if value.startswith(window[at:]):
                    return len(window) - at
                at = window.find(value[:MIN_SCRUBBED], at + 1)
        else:
            window = text[lo:min(hi, lo + len(value) - 1)]
            at = window.rfind(value[-MIN_SCRUBBED:])
            while at >= 0:
                if value.endswith(window[:at + MIN_SCRUBBED]):
                    return at + MIN_SCRUBBED
                at = window.rfind(value[-MIN_SCRUBBED:], 0, at + MIN_SCRUBBED - 1)
    return 0


def _leaves(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)


def _secret_values(doc: Any) -> Iterable[Any]:
    """The values under secret-looking names anywhere in `doc`."""
    if isinstance(doc, Mapping):
        for key, value in doc.items():
            if isinstance(key, str) and secret_name(key):
                yield value
            else:
                yield from _secret_values(value)
    elif isinstance(doc, list):
        for item in doc:
            yield from _secret_values(item)


def _output_secrets(doc: Any) -> Iterable[str]:
    """The strings under secret-named keys anywhere in a target's output (a number is a count, not a key);
    walked with a stack, not recursion: an output may be nested thousands deep."""
    stack = [doc]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and isinstance(item, str) and secret_output_key(key):
                    yield item
                else:
                    stack.append(item)
        elif isinstance(value, list | tuple):
            stack.extend(value)


def settings_of(config: Config) -> dict[str, Any]:
    """Every section of the project's settings as JSON data (core and the formats' own)."""
    sections = {name: config.section_named(name) for name in CORE_SECTIONS}
    sections.update(config.dialect_sections)
    return {name: section.model_dump(mode="json") for name, section in sections.items()}


def json_settings_files(config: Config) -> list[Any]:
    """The project's JSON settings files (`.appilotsrc`), parsed; one that can't be read is left out."""
    docs = []
    for name in SETTINGS_FILES:
        path = config.root / name
        if path.suffix in (".toml",):
            continue
        try:
            docs.append(jsonio.loads(read_regular_file(path, RC_LIMIT)))
        except (OSError, UnreadableFile, jsonio.JsonError, ValueError):
            continue
    return docs


def redactor_for(config: Config, environ: Mapping[str, str] | None = None,
                 results: Iterable[Result] = ()) -> Redactor:
    """The secrets of the project at `config.root`: its settings' and settings files', the environment's, its
    `.env*` files', and those the `results`' outputs hold under secret-named keys."""
    redactor = Redactor()
    for value in _secret_values(settings_of(config)):
        redactor.add(value)
    for doc in json_settings_files(config):
        for value in _secret_values(doc):
            redactor.add(value)
    for name, value in (os.environ if environ is None else environ).items():
        if secret_name(name):
            redactor.add(value, MIN_SCRUBBED_FROM_ENVIRONMENT)
    for value in dotenv_secrets(config.root, secret_name):
        redactor.add(value, MIN_SCRUBBED_FROM_ENVIRONMENT)
    return redactor.knowing(results)
