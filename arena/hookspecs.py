"""The hooks an `arena` plugin may implement, as pluggy specifications.

A plugin is a module named by an entry point in the group ``arena`` (see
`arena.plugins`), with functions of these names marked ``@arena.hookimpl``. Each
hook is a verb taking a callback or an object to add to; built-in bots and
rulesets register through the very same hooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import pluggy

if TYPE_CHECKING:
    import click

    from arena.bot import Bot
    from arena.rules.base import Ruleset

PROJECT = "arena"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class HookSpecs:
    """The hooks a plugin may implement."""

    @hookspec
    def register_bots(self, register: Callable[[type[Bot]], None]) -> None:
        """Register bots: call ``register(BotSubclass)`` once per bot class."""

    @hookspec
    def register_rulesets(self, register: Callable[[type[Ruleset]], None]) -> None:
        """Register rulesets: call ``register(RulesetSubclass)`` once per ruleset."""

    @hookspec
    def register_commands(self, cli: click.Group) -> None:
        """Add commands to the ``arena`` command line: decorate functions with
        ``@cli.command()`` (or call ``cli.add_command``). A name that a built-in command
        already has is refused with a warning. Only installed plugins are asked, the
        first time a command line names a verb that is not built in, or lists them
        (``arena --help``); tournament submissions never are."""
