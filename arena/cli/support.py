"""Helpers shared by the command modules: one-line user errors, plugin loading,
``key=value`` parsing, seed ranges and JSON output."""

from __future__ import annotations

import functools
import json
import warnings
from typing import Any, Callable, Sequence

import click

from arena.errors import ArenaError, ConfigError, PluginError
from arena.plugins import Registry, load_registry
from arena.seeding import SEED_BITS

SEED_RANGE = click.IntRange(0, 2 ** SEED_BITS - 1)
"""The seeds a command line accepts (as a tournament file does)."""


class UserError(click.ClickException):
    """A problem with what the user asked for: one line, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True, file=file)


def user_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn arena's exceptions into one-line errors: exit code 2 for what the user
    asked (options, files, names), 1 for anything else arena reports."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (ConfigError, PluginError) as exc:
            raise UserError(str(exc)) from None
        except ArenaError as exc:
            raise click.ClickException(str(exc)) from None

    return wrapper


def load_plugins() -> Registry:
    """The registry, with plugin load warnings shown as one line each on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        registry = load_registry()
    for warning in caught:
        click.echo(f"warning: {warning.message}", err=True)
    return registry


def parse_assignment(text: str, what: str) -> tuple[str, Any]:
    """Parse ``key=value``; the value is read as JSON when it parses, else as a string."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise ConfigError(f"{what} {text!r} is not of the form key=value")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))


def seat_entrants(registry: Registry, bot_names: Sequence[str], params: Sequence[str]) -> list[Any]:
    """One `Entrant` per seat from registered bot names, with ``--param BOT.KEY=VALUE``
    values applied to every seat that BOT plays."""
    from arena.match import Entrant

    bot_params: dict[str, dict[str, Any]] = {}
    for text in params:
        key, value = parse_assignment(text, "--param")
        bot, dot, param = key.partition(".")
        if not dot or bot not in bot_names:
            raise ConfigError(f"--param {text!r} must be BOT.KEY=VALUE with BOT one of the seated bots")
        bot_params.setdefault(bot, {})[param] = value
    entrants = []
    for name in bot_names:
        entry = registry.bot(name)
        entrants.append(Entrant(entry.cls, bot_params.get(name, {}), name, entry.origin.package,
                                entry.origin.version))
    return entrants
