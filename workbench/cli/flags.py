"""Click options made from the `Option` declarations (`workbench/options.py` and each format's
`settings.py`): a flag's type, bounds, refusal and help are those of the settings it sets, so
`--timeout 1e9` is refused with the words `[runner] timeout = 1e9` is.

A flag without a `dest` is not a parameter of its command: its value is kept on the click context by
"section.key", and `load_project_config` turns it into the config's `Overrides`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..options import Option
from ..settings.discovery import declared
from ..settings.fields import FieldFacts, shown

F = TypeVar("F", bound=Callable[..., Any])

SETTINGS_META = "workbench.settings"  # ctx.meta key: {"section.key": value} from the flags given


class SettingType(click.ParamType):
    """A flag's text read as the settings it sets hold it, checked by each of their fields."""

    def __init__(self, facts: tuple[FieldFacts, ...]) -> None:
        self.facts = facts
        self.name = facts[0].noun

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        first = self.facts[0]
        parsed: Any = value
        if first.base in (int, float):
            try:
                parsed = first.base(value)
            except ValueError:
                self.fail(f"must be {first.phrase}, not {shown(value)}", param, ctx)
        checked = parsed
        for facts in self.facts:
            checked, problem = facts.check(parsed)
            if problem is not None:
                self.fail(f"{problem} (as {facts.where} in workbench.toml)", param, ctx)
        return checked


def _help(options: list[Option], facts: tuple[FieldFacts, ...]) -> str:
    """The declared help (or the first setting's description), the settings it sets, and its bounds."""
    first = options[0]
    text = (first.help or f"{facts[0].description}.").rstrip()
    if first.flag_value is not None:
        value = str(first.flag_value).lower() if isinstance(first.flag_value, bool) else shown(first.flag_value)
        return f"{text} Sets {', '.join(f'{f.where} = {value}' for f in facts)}."
    allowed = facts[0].bounds() or (facts[0].phrase if facts[0].choices else None)
    return f"{text} Overrides {', '.join(f.where for f in facts)}" + (f"; {allowed}." if allowed else ".")


def _remember(options: list[Option]) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """The callback keeping a flag's value on the context for every setting it sets."""

    def remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is None or value is False:
            return value
        for option in options:
            given = option.flag_value if option.flag_value is not None else value
            if option.path:
                given = str(Path(given).expanduser().resolve())  # from where it was typed
            for path in option.sets:
                ctx.meta.setdefault(SETTINGS_META, {})[path] = given
        return value

    return remember


def click_option(options: list[Option]) -> Callable[[F], F]:
    """One click option for the declarations of one flag (a format may add a setting to a core flag)."""
    first = options[0]
    facts = tuple(declared().setting(path) for option in options for path in option.sets)
    help_text = _help(options, facts)
    if first.flag_value is not None:
        return click.option(first.flag, is_flag=True, expose_value=False, callback=_remember(options),
                            help=help_text)
    if first.dest is not None:  # the command gets the value; a merged declaration without a dest keeps it too
        kept = [option for option in options if option.dest is None]
        return click.option(first.flag, first.dest, type=SettingType(facts), metavar=first.metavar, help=help_text,
                            callback=_remember(kept) if kept else None)
    return click.option(first.flag, type=SettingType(facts), metavar=first.metavar, expose_value=False,
                        callback=_remember(options), help=help_text)


def setting_options(command: str, *only: str) -> Callable[[F], F]:
    """Every declared option `command` takes (or just the flags in `only`), in declaration order."""
    by_flag: dict[str, list[Option]] = {}
    for option in declared().options:
        if command in option.commands and (not only or option.flag in only):
            by_flag.setdefault(option.flag, []).append(option)

    def decorate(func: F) -> F:
        for options in reversed(by_flag.values()):
            func = click_option(options)(func)
        return func

    return decorate


def given_settings(ctx: click.Context | None) -> dict[str, Any]:
    """{"section.key": value} of the flags given to this command."""
    return dict(ctx.meta.get(SETTINGS_META, {})) if ctx is not None else {}


__all__ = ["SETTINGS_META", "SettingType", "click_option", "given_settings", "setting_options"]
