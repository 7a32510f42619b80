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
    def register_playouts(self, register: Callable[..., None]) -> None:
        """Register search bots' playout policies, per ruleset: call
        ``register(ruleset_id, bot_class, fast_move=None)`` once per ruleset the plugin
        has a policy for. ``bot_class`` (an `arena.Bot` subclass) plays every seat of a
        search's playouts (ismcts); ``fast_move(bot, state, seat, legal_actions)``, if
        given, returns exactly what ``bot.act`` would play for `seat` in the full state
        `state` (a search's own sample), or None to ask `act`: a shortcut past building a
        view. A ruleset id with two policies is an error naming both plugins; a ruleset
        without one is searched with random playouts. The game names no bot: this is how
        bot knowledge reaches the search (`arena.plugins.Registry.playouts`)."""

    @hookspec
    def register_schedulers(self, register: Callable[..., None]) -> None:
        """Register schedulers (the `arena.scheduling.Scheduler` interface): call
        ``register(name, factory)`` once per scheduler; ``factory(context)`` gets an
        `arena.scheduling.tournament.TournamentContext` and returns the scheduler. A run
        plays with it when asked by name (``run_tournament(..., scheduler=name)``). A name
        registered twice, or a built-in one (`BUILTIN_SCHEDULERS`), is an error naming both."""

    @hookspec
    def register_run_observers(self, register: Callable[..., None]) -> None:
        """Register observers of every run: call ``register(factory)``; ``factory(tournament,
        out)`` returns an object whose methods named as `arena.run_hooks.RunHookSpecs`'
        hooks (``stored(games)``, ``completed(store, summary)``, ...) are called as the
        run's loop reaches them, beside the caller's own observer (progress, publishing)."""

    @hookspec
    def register_commands(self, cli: click.Group) -> None:
        """Add commands to the ``arena`` command line: decorate functions with
        ``@cli.command()`` (or call ``cli.add_command``). A name that a built-in command
        already has is refused with a warning. Only installed plugins are asked, the
        first time a command line names a verb that is not built in, or lists them
        (``arena --help``); tournament submissions never are."""
