"""What a settings section is made of: the `Section` base class and the value types its fields share.

A field is declared once — type, default, bounds, a one-line `description` — and that one declaration
checks `workbench.toml`, `[tool.workbench]`, a format's own settings file and the command-line flags,
and writes the JSON Schema and docs/settings.md's table. Checks that belong to one value live in the types
here (NUL characters, an argv given as a string); checks across a section's fields in its
`model_validator`.
A check refuses with `refuse(phrase)`: the phrase follows the key ("contains a NUL character ...").
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Annotated, Any, Self

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from . import no_plugins

no_plugins.install()  # before a validator is built (pydantic imports its plugin loader then): ~20 ms of a start

SETTING_ERROR = "workbench_setting"  # a refusal whose message is the phrase itself


@dataclass(frozen=True, slots=True)
class Note:
    """Words said after a field's bounds: `Note("seconds (a day)")` → "at most 86400 seconds (a day)"."""

    text: str


@dataclass(frozen=True, slots=True)
class Kind:
    """What a value of the field is, when its Python type doesn't say it well: `noun` for docs/settings.md's
    table, `phrase` for "must be <phrase>"."""

    noun: str
    phrase: str


class Section(BaseModel):
    """One `[section]` of workbench.toml. Values are taken as TOML types them (no "5" for 5, no true
    for 1); an unknown key is refused; assignment after loading (command-line overrides) is allowed.

    A section's validator is built when it first checks something (`defer_build`): a start reads one or two
    sections from a file, and the rest are their defaults (`defaults()`), which need no validator."""

    model_config = ConfigDict(strict=True, extra="forbid", defer_build=True)

    @classmethod
    def defaults(cls) -> Self:
        """The section with every field at its declared default: what `cls()` gives, without building the
        validator (tests/settings/test_section_defaults.py holds the two equal for every section)."""
        return cls.model_construct()


def empty_list() -> list[Any]:
    """`default_factory` for a list field. Not the builtin `list`: pydantic asks a factory's signature, and
    `inspect` reads a builtin's from its text with `tokenize`, whose pattern costs ~8 ms to compile at start."""
    return []


def empty_table() -> dict[str, Any]:
    """`default_factory` for a table field (not the builtin `dict`, as for `empty_list`)."""
    return {}


def refuse(phrase: str) -> PydanticCustomError:
    """The error a check raises; `phrase` completes "[section] key ..." (and "--flag ...")."""
    return PydanticCustomError(SETTING_ERROR, "{phrase}", {"phrase": phrase})


def _no_nul(value: str) -> str:
    """A NUL can't be part of a path, an argument or an environment variable: say so here, not in a traceback."""
    if "\x00" in value:
        raise refuse("contains a NUL character (\\u0000), which no path or argument can hold")
    return value


def _split_like_a_shell(value: Any) -> Any:
    """An argv may be written as one string, split as a shell would (never run by one)."""
    if not isinstance(value, str):
        return value
    try:
        return shlex.split(value)
    except ValueError as exc:
        raise refuse(f"can't be split like a shell would: {exc}") from None


def _a_program(argv: list[str]) -> list[str]:
    if not argv:
        raise refuse("is empty; give the program and its arguments")
    return argv


Text = Annotated[str, AfterValidator(_no_nul)]
TextList = list[Text]
TextTable = dict[Text, Text]
# A program and its arguments: a list, or one string split like a shell would.
Argv = Annotated[list[Text], BeforeValidator(_split_like_a_shell, json_schema_input_type=str | list[str]),
                 AfterValidator(_a_program), Field(json_schema_extra={"minItems": 1}),
                 Kind("argv", "a list of strings (an argv) or a string")]
PathText = Annotated[Text, Field(min_length=1), Kind("path", "a non-empty string (a path)")]
# Numbers: always finite; their bounds say what isn't a typo (a debounce of 2**63 ms would hang workbench).
Seconds = Annotated[float, Field(gt=0, le=86_400, allow_inf_nan=False), Note("seconds (a day)")]
Rate = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]  # a fraction of results
Increase = Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False), Note("(0.5 = +50%)")]  # 1000 = +100,000%


__all__ = ["SETTING_ERROR", "Argv", "Increase", "Kind", "Note", "PathText", "Rate", "Seconds",
           "Section", "Text", "TextList", "TextTable", "refuse"]
