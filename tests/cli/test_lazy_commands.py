"""`workbench --help` lists the commands from `cli.COMMANDS` without importing them: the table's short help must be
each command's own (click's shortening of its help), and the listing what click would print from the commands."""

from __future__ import annotations

import click
import pytest
from helpers.cli import invoke_workbench

from workbench.cli import COMMANDS, WorkbenchGroup, load_command, main


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_tables_short_help_is_the_commands_own(name: str):
    command = load_command(name)
    assert command.name == name
    short = COMMANDS[name][2]
    for limit in (20, 45, 60, 80, 200, 10_000):
        assert click.utils.make_default_short_help(short, limit) == command.get_short_help_str(limit), (
            f"cli.COMMANDS[{name!r}]'s short help drifted from the command's help: write its first sentence there")


class _InOrder(click.Group):
    """A plain click group of the imported commands, listed in the table's order (click's own sorts them)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


@pytest.mark.parametrize("width", [60, 80, 100])
def test_the_listing_is_what_click_prints_from_the_commands_themselves(width: int):
    """Our `format_commands` (from the table) against click's own (from the imported commands)."""
    ours = click.HelpFormatter(width=width)
    ctx = click.Context(main)
    main.format_commands(ctx, ours)
    eager = _InOrder(commands={name: load_command(name) for name in COMMANDS})
    theirs = click.HelpFormatter(width=width)
    click.Group.format_commands(eager, click.Context(eager), theirs)
    assert ours.getvalue() == theirs.getvalue()
    assert all(name in ours.getvalue() for name in COMMANDS)


def test_help_lists_every_command_and_exits_0():
    result = invoke_workbench("--help")
    assert result.returncode == 0, result.stderr
    listing = result.stdout.split("Commands:", 1)[1].splitlines()
    names = [line.split()[0] for line in listing if line.startswith("  ") and not line.startswith("   ")]
    assert names == list(COMMANDS)


def test_a_command_still_loads_when_run_and_unknown_words_still_open():
    assert isinstance(main, WorkbenchGroup)
    assert main.get_command(click.Context(main), "history") is load_command("history")
    assert main.get_command(click.Context(main), "no-such-command") is None
    assert invoke_workbench("history", "--help").stdout.startswith("Usage: ")
