"""Secrets kept out of a report that is meant to be shared: the values of settings and environment entries
whose names look like a key, token, secret or password (`[runner] env`, `[judge]`, a format's own
sections, the process's environment, the JSON settings files such as `.appilotsrc` and its `apiKey`) are
shown as REDACTED, and every occurrence of one of those values anywhere in the report — a log, an output,
an input, a trace — is replaced too, so a target that prints its key does not publish it."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ... import jsonio
from ...config import Config
from ...regular_files import UnreadableFile, read_regular_file
from ...settings.problems import SETTINGS_FILES
from ...settings.sections import CORE_SECTIONS

REDACTED = "••••••(redacted)"
SECRET_NAME = re.compile(r"key|token|secret|passw(or)?d|pwd|credential", re.IGNORECASE)
# names that hold the *name* of a variable, or a flag, rather than a secret: `api_key_env = "OPENAI_API_KEY"`
NOT_A_SECRET_NAME = re.compile(r"(_env|_var|_file|_path)$", re.IGNORECASE)
MIN_SCRUBBED = 4  # a shorter value ("1", "on") would blot out ordinary text everywhere
MIN_SCRUBBED_FROM_ENVIRONMENT = 8  # the process environment holds many short values under such names
RC_LIMIT = 1024 * 1024


def secret_name(name: str) -> bool:
    """Does a setting or variable called `name` hold a secret?"""
    return bool(SECRET_NAME.search(name)) and not NOT_A_SECRET_NAME.search(name)


@dataclass(slots=True)
class Redactor:
    """The secret values found for one project; `settings` and `scrub` apply them."""

    values: set[str] = field(default_factory=set)

    def add(self, value: Any, minimum: int = MIN_SCRUBBED) -> None:
        for text in _leaves(value):
            if len(text) >= minimum:
                self.values.add(text)

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
        if not self.values:
            return doc
        forms = {form for value in self.values for form in (value, jsonio.dumps(value)[1:-1])}
        pattern = re.compile("|".join(re.escape(v) for v in sorted(forms, key=len, reverse=True)))
        text = pattern.sub(REDACTED, jsonio.dumps(doc))
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:  # an integer beyond 64 bits: workbench's reader keeps it exact, of any size
            return jsonio.loads(text)


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


def redactor_for(config: Config, environ: Mapping[str, str] | None = None) -> Redactor:
    """The secrets of the project at `config.root`: its settings' and settings files', and the environment's."""
    redactor = Redactor()
    for value in _secret_values(settings_of(config)):
        redactor.add(value)
    for doc in json_settings_files(config):
        for value in _secret_values(doc):
            redactor.add(value)
    for name, value in (os.environ if environ is None else environ).items():
        if secret_name(name):
            redactor.add(value, MIN_SCRUBBED_FROM_ENVIRONMENT)
    return redactor
