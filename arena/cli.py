"""The `arena` command line: thin click commands over the library.

User errors (bad options, unknown names, broken plugins) print one line and exit
with code 2; every table output has a `--json` twin.
"""

from __future__ import annotations

import functools
import json
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

import click
from tabulate import tabulate

import arena
from arena.errors import ArenaError, BotError, ConfigError, IllegalActionError, PluginError
from arena.plugins import Registry, load_registry


class UserError(click.ClickException):
    """A problem with what the user asked for: one line, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True, file=file)


def user_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn arena's user-facing exceptions into one-line errors with exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (ConfigError, PluginError) as exc:
            raise UserError(str(exc)) from None
        except (IllegalActionError, BotError) as exc:
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(arena.__version__, prog_name="arena")
def main() -> None:
    """Flip Arena: tournaments for card-game bots (UNO Flip, Flip 7, Color Flush, Flip Hue)."""


# -- listings -----------------------------------------------------------------


@main.group()
def bots() -> None:
    """Bots that the installed plugins provide."""


@bots.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@user_errors
def bots_list(as_json: bool) -> None:
    """List every registered bot with its package, version and rulesets."""
    registry = load_plugins()
    rows = [{"name": e.name, "package": e.origin.package, "version": e.origin.version,
             "rulesets": "*" if e.cls.rulesets == "*" else list(e.cls.rulesets), "status": "ok"}
            for e in registry.bots.values()]
    rows += [{"name": None, "package": b.package, "version": b.version, "rulesets": None,
              "status": f"broken plugin {b.plugin}: {b.error}"} for b in registry.broken]
    if as_json:
        print_json(rows)
        return
    table = [[r["name"] or "-", r["package"], r["version"],
              r["rulesets"] if isinstance(r["rulesets"], str) else ", ".join(r["rulesets"] or []),
              r["status"]] for r in rows]
    click.echo(tabulate(table, headers=["bot", "package", "version", "rulesets", "status"]))


@main.group()
def rulesets() -> None:
    """Rulesets that the installed plugins provide."""


@rulesets.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@user_errors
def rulesets_list(as_json: bool) -> None:
    """List every registered ruleset with its version, players and options."""
    registry = load_plugins()
    rows = []
    for entry in registry.rulesets.values():
        cls = entry.cls
        rows.append({
            "id": cls.id, "title": getattr(cls, "title", cls.id), "version": cls.version,
            "players": [cls.min_players, cls.max_players],
            "package": entry.origin.package,
            "options": {name: {"default": o.default, "help": o.help} for name, o in cls.options.items()},
        })
    if as_json:
        print_json(rows)
        return
    table = [[r["id"], r["version"], f"{r['players'][0]}-{r['players'][1]}",
              "\n".join(f"{n}={_short(o['default'])}" for n, o in r["options"].items())] for r in rows]
    click.echo(tabulate(table, headers=["ruleset", "version", "players", "options (defaults)"]))
    for broken in registry.broken:
        click.echo(f"broken plugin {broken.plugin}: {broken.error}", err=True)


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else f"<{type(value).__name__} of {len(value)}>"


# -- playing ------------------------------------------------------------------


@main.command()
@click.argument("ruleset_id", metavar="RULESET")
@click.argument("bot_names", metavar="BOT...", nargs=-1, required=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Deal seed: the same seed deals the same game.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A ruleset option (value read as JSON, else as text). Repeatable.")
@click.option("--param", "params", multiple=True, metavar="BOT.KEY=VALUE",
              help="A parameter for every seat played by BOT, e.g. flip7-threshold.threshold=23. Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the game record as JSON.")
@click.option("--log", "show_log", is_flag=True, help="Print a turn-by-turn account from the god view.")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), help="Write the game record to FILE as JSON.")
@user_errors
def match(ruleset_id: str, bot_names: tuple[str, ...], seed: int, options: tuple[str, ...],
          params: tuple[str, ...], as_json: bool, show_log: bool, save: Path | None) -> None:
    """Play one seeded game of RULESET between BOTs (one per seat, in seat order).

    Example: arena match flip-7 flip7-threshold random --seed 7 --log
    """
    from arena.match import Entrant, play_game

    registry = load_plugins()
    ruleset = registry.check_seating(ruleset_id, bot_names)
    chosen = dict(parse_assignment(o, "--option") for o in options)
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
        entrants.append(Entrant(entry.cls, bot_params.get(name, {}), name, entry.origin.package, entry.origin.version))
    result = play_game(ruleset, entrants, deal_seed=seed, options=chosen)
    record = result.record

    if save is not None:
        save.write_text(json.dumps(record, indent=1) + "\n")
    if as_json:
        print_json(record)
        return
    if show_log:
        for event in result.state.god_log:
            click.echo(ruleset.describe_event(event))
        click.echo()
    outcome = record["outcome"]
    rows = sorted(((outcome["standing"][s], s, record["seats"][s]["display"], outcome["scores"][s])
                   for s in range(record["players"])))
    click.echo(tabulate(rows, headers=["position", "seat", "bot", "score"]))
    extra = f", rounds {outcome['rounds']}" if "rounds" in outcome else ""
    click.echo(f"\n{ruleset.id} {ruleset.version}, seed {seed}: {outcome['reason']}{extra}, "
               f"{len(record['decisions'])} decisions, transcript {record['transcript_hash'][:16]}")
    if save is not None:
        click.echo(f"record written to {save}")


@main.command()
@click.argument("record_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@user_errors
def replay(record_file: Path) -> None:
    """Replay a saved game record and check its transcript hash."""
    from arena.errors import ReplayMismatchError
    from arena.match import replay as replay_record

    try:
        record = json.loads(record_file.read_text())
        ruleset_id = record["ruleset"]["id"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ConfigError(f"{record_file}: not a game record ({exc})") from None
    ruleset = load_plugins().ruleset(ruleset_id).cls
    try:
        replay_record(record, ruleset)
    except ReplayMismatchError as exc:
        raise click.ClickException(f"{record_file}: {exc}") from None
    click.echo(f"{record_file}: replays exactly ({len(record['decisions'])} decisions, "
               f"transcript {record['transcript_hash'][:16]})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
