"""The `arena` command line: thin click commands over the library.

One module per group of verbs: `game` (match, play, replay), `tournament` (run,
rank, publish, faults), `submit` (new-bot, validate), `ladder` (the hosted
ladder: serve, admin, submit, worker, standings), `listing` (bots list,
rulesets list, docs), `web` (serve); `support` holds what they share. User errors
(bad options, unknown names, broken plugins) print one line and exit with code 2;
every table output has a `--json` twin.

Installed plugins may add verbs through the ``register_commands(cli)`` hook
(`arena.hookspecs`). They are asked only when a command line names a verb that is
not built in, or lists the verbs (``arena --help``), so that the built-in verbs
import no more plugins than before.
"""

from __future__ import annotations

import warnings

import click

import arena
from arena.cli.listing import bots, docs, rulesets
from arena.cli.game import match, play, replay
from arena.cli.ladder import ladder
from arena.cli.submit import new_bot, validate
from arena.cli.tournament import faults, publish, rank, run_command
from arena.cli.web import serve
from arena.compiled import build_kind, stale_warning

BUILTIN_COMMANDS = (bots, rulesets, docs, match, play, replay, run_command, rank, publish, faults, new_bot,
                    validate, serve, ladder)


class ArenaGroup(click.Group):
    """The `arena` group: the built-in verbs, and those installed plugins add (looked up
    once per invocation, and only when needed)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        return self.plugin_commands(ctx).get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*self.commands, *self.plugin_commands(ctx)])

    def plugin_commands(self, ctx: click.Context) -> dict[str, click.Command]:
        """The verbs of every installed plugin's ``register_commands`` hook. A verb that
        would replace a built-in one, or a hook that raises, is a warning."""
        meta = ctx.find_root().meta
        if "arena.plugin_commands" not in meta:
            meta["arena.plugin_commands"] = self._ask_plugins()
        return meta["arena.plugin_commands"]

    def _ask_plugins(self) -> dict[str, click.Command]:
        from arena.plugins import build_plugin_manager

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            manager, _, _ = build_plugin_manager()
        for warning in caught:
            click.echo(f"warning: {warning.message}", err=True)
        found: dict[str, click.Command] = {}
        for impl in manager.hook.register_commands.get_hookimpls():
            offered = click.Group()  # each plugin adds to a group of its own: it cannot replace a verb
            try:
                impl.function(cli=offered)
            except Exception as exc:
                click.echo(f"warning: arena plugin {impl.plugin_name}: register_commands raised "
                           f"{type(exc).__name__}: {exc}", err=True)
                continue
            for name, command in offered.commands.items():
                if name in self.commands or name in found:
                    click.echo(f"warning: arena plugin {impl.plugin_name}: command {name!r} is already taken; "
                               "ignored", err=True)
                else:
                    found[name] = command
        return found


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(arena.__version__, prog_name="arena",
                      message=f"%(prog)s, version %(version)s, {build_kind()}")
def main() -> None:
    """Flip Arena: tournaments for card-game bots (UNO Flip, Flip 7, Color Flush, Flip Hue)."""
    stale = stale_warning()
    if stale is not None:
        click.echo(stale, err=True)


for _command in BUILTIN_COMMANDS:
    main.add_command(_command)
