"""One game at a time: `arena match` (bots against bots), `arena play` (a person against
bots, in the terminal) and `arena replay` (a stored game, step by step).

Plain click commands, attached to the `arena` group by `arena.cli`.
"""

from __future__ import annotations

import json
import random
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import click
from tabulate import tabulate

from arena.bot import Bot
from arena.cli.support import SEED_RANGE, load_plugins, parse_assignment, print_json, seat_entrants, user_errors
from arena.errors import ConfigError, PlayerCountError
from arena.seats import LIMIT_BOUNDS, Limits
from arena.tournament import check_plain_values

COLOR_CHOICE = click.Choice(["auto", "always", "never"])


def _output() -> Any:
    """Where the commands print (the terminal test for color looks at it)."""
    return sys.stdout


def _style(color: str):
    from arena.render import Style, color_enabled

    return Style(color_enabled(_output(), color))


def _echo(style: Any):
    def write(text: str = "", nl: bool = True) -> None:
        click.echo(text, nl=nl, color=style.color)
        if not nl:
            sys.stdout.flush()
    return write


@dataclass
class Seated:
    """The bots of a `match` or `play`, in seat order: their entrants and how each is run."""

    entrants: list[Any]
    kinds: list[str]  # "installed", "local" or "command", by seat
    commands: dict[int, list[str]]  # seat -> argv of a --command bot


def seat_bots(registry: Any, ruleset: Any, bot_names: Sequence[str], commands: Sequence[str],
              params: Sequence[str]) -> Seated:
    """Installed bots and local files (`BOT...`), then `--command` programs, one per seat;
    --param applies to installed bots. Each bot must play `ruleset`."""
    from arena.api import bot_from_file, command_name, is_local_bot
    from arena.match import Entrant

    installed = [name for name in bot_names if not is_local_bot(name)]
    by_name = iter(seat_entrants(registry, installed, params))
    entrants: list[Any] = []
    kinds: list[str] = []
    argvs: dict[int, list[str]] = {}
    for name in bot_names:
        if is_local_bot(name):
            entrants.append(Entrant(bot_from_file(name), {}, "", "local", "-"))
            kinds.append("local")
        else:
            entrants.append(next(by_name))
            kinds.append("installed")
    for command in commands:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ConfigError(f"--command {command!r}: {exc}") from None
        if not argv:
            raise ConfigError("--command must not be empty")
        label = command_name(argv)
        stand_in = type("CommandBot", (Bot,), {"name": label, "rulesets": "*"})
        argvs[len(entrants)] = argv
        entrants.append(Entrant(stand_in, {}, label, "command", "-"))
        kinds.append("command")
    for seat, entrant in enumerate(entrants):
        if not entrant.cls.plays(ruleset.id):
            raise PlayerCountError(f"bot {entrant.display_name!r} (seat {seat}) does not play {ruleset.id}")
    return Seated(entrants, kinds, argvs)


@click.command()
@click.argument("ruleset_id", metavar="RULESET")
@click.argument("bot_names", metavar="BOT...", nargs=-1)
@click.option("--command", "commands", multiple=True, metavar="CMD",
              help="A bot program speaking the bot protocol, e.g. \"node bot.js\"; it takes the next seat after "
                   "the BOTs. Repeatable.")
@click.option("--seed", type=SEED_RANGE, default=0, show_default=True,
              help="Deal seed (0 to 2**63 - 1): the same seed deals the same game.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A ruleset option (value read as JSON, else as text). Repeatable.")
@click.option("--param", "params", multiple=True, metavar="BOT.KEY=VALUE",
              help="A parameter for every seat played by BOT, e.g. flip7-threshold.threshold=23. Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the game record as JSON.")
@click.option("--log", "show_log", is_flag=True, help="Print a turn-by-turn account from the god view.")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), help="Write the game record to FILE as JSON.")
@click.option("--isolation", type=click.Choice(["sandbox", "process", "inline"]), default="sandbox",
              show_default=True,
              help="Each bot in its own sandbox (where none can be made: its own process, with a warning), "
                   "each in its own process behind the bot protocol, or all in this process.")
@click.option("--time-per-decision", type=click.FloatRange(*LIMIT_BOUNDS["time_per_decision"]), default=None,
              help="With --isolation sandbox or process: seconds per decision before the bot is stopped "
                   f"(default: {Limits.time_per_decision}).")
@user_errors
def match(ruleset_id: str, bot_names: tuple[str, ...], commands: tuple[str, ...], seed: int,
          options: tuple[str, ...], params: tuple[str, ...], as_json: bool, show_log: bool, save: Path | None,
          isolation: str, time_per_decision: float | None) -> None:
    """Play one seeded game of RULESET between BOTs (one per seat, in seat order).

    A BOT is an installed bot's name or a bot in a local file, PATH.py:ClassName (run in
    this process: it is your code). --command CMD adds a program in any language speaking
    the bot protocol (docs/protocol.md); it takes the next seat after the BOTs and runs
    in its own sandbox (or process, with --isolation process or inline).

    Examples: arena match flip-7 flip7-threshold random --seed 7 --log;
    arena match flip-7 ./bot.py:MyBot random --command "node bot.js"
    """
    from arena.match import FaultPolicy, play_game
    from arena.sandbox import sandbox_unavailable
    from arena.worker import HostPool, Job

    if not bot_names and not commands:
        raise ConfigError("name at least one BOT or give a --command")
    registry = load_plugins()
    ruleset = registry.ruleset(ruleset_id).cls
    ruleset.check_players(len(bot_names) + len(commands))
    chosen = dict(parse_assignment(o, "--option") for o in options)
    check_plain_values(chosen, "--option")
    seated = seat_bots(registry, ruleset, bot_names, commands, params)
    entrants = seated.entrants
    _check_params(seated)
    if save is not None and not save.parent.is_dir():
        raise ConfigError(f"--save {save}: folder {save.parent} does not exist")
    if isolation == "inline" and time_per_decision is not None and not commands:
        raise ConfigError("--time-per-decision needs --isolation sandbox or process (an inline bot cannot be "
                          "stopped)")
    if isolation == "sandbox" and (reason := sandbox_unavailable()):
        click.echo(f"warning: no sandbox can be made here ({reason}); bots run in their own processes", err=True)
        isolation = "process"
    limit = time_per_decision or Limits.time_per_decision
    limits = Limits(time_per_decision=limit)
    policy = FaultPolicy()
    if isolation != "inline" or commands:
        policy = FaultPolicy(on_fault="raise", time_per_decision=limit, time_bank=limits.time_bank)
    argvs = tuple(tuple(seated.commands[seat]) if seat in seated.commands else None for seat in range(len(entrants)))
    pool = HostPool(Job(((ruleset, chosen),), tuple(entrants), isolation, argvs, limits, policy,
                        local=tuple(kind == "local" for kind in seated.kinds)))
    try:
        result = play_game(ruleset, entrants, deal_seed=seed, options=chosen,
                           hosts=[pool.host(seat) for seat in range(len(entrants))], policy=policy)
    finally:
        pool.close()
    _show_match(result, ruleset, seed, as_json, show_log, save)


def _check_params(seated: Seated) -> None:
    """Every seat's params plain data, and accepted by its bot's constructor (but a command's)."""
    for entrant, kind in zip(seated.entrants, seated.kinds):
        if kind == "command":
            continue
        check_plain_values(dict(entrant.params), f"--param {entrant.display_name}")
        try:  # installed bots are trusted: their constructor checks their params here, as in `arena run`
            entrant.cls(**entrant.params)
        except Exception as exc:
            raise ConfigError(f"bot {entrant.cls.name!r} does not accept params {dict(entrant.params)!r}: "
                              f"{type(exc).__name__}: {exc}") from None


def _show_match(result: Any, ruleset: Any, seed: int, as_json: bool, show_log: bool, save: Path | None) -> None:
    """What `arena match` prints (and saves) of the game it played."""
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
    click.echo(f"\n{ruleset.id} (version {ruleset.version}), seed {seed}: {outcome['reason']}{extra}, "
               f"{len(record['decisions'])} decisions, transcript {record['transcript_hash'][:16]}")
    if save is not None:
        click.echo(f"record written to {save}")


@click.command()
@click.argument("ruleset_id", metavar="RULESET")
@click.argument("bot_names", metavar="[BOT]...", nargs=-1)
@click.option("--command", "commands", multiple=True, metavar="CMD",
              help="A bot program speaking the bot protocol, e.g. \"node bot.js\" (in its own process); it takes "
                   "the next seat after the BOTs. Repeatable.")
@click.option("--seat", type=int, default=0, show_default=True,
              help="Your seat (0 plays first); the bots fill the other seats in order.")
@click.option("--seed", type=SEED_RANGE, default=None,
              help="Deal seed, 0 to 2**63 - 1 (default: a fresh random one, shown at the start).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A ruleset option (value read as JSON, else as text). Repeatable.")
@click.option("--param", "params", multiple=True, metavar="BOT.KEY=VALUE",
              help="A parameter for every seat played by BOT, as for `arena match`. Repeatable.")
@click.option("--color", type=COLOR_CHOICE, default="auto", show_default=True,
              help="Color the cards: auto = only on a terminal and when NO_COLOR is not set.")
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), help="Write the game record to FILE as JSON.")
@user_errors
def play(ruleset_id: str, bot_names: tuple[str, ...], commands: tuple[str, ...], seat: int, seed: int | None,
         options: tuple[str, ...], params: tuple[str, ...], color: str, save: Path | None) -> None:
    """Play RULESET yourself against BOTs in the terminal.

    You see exactly what your seat sees; type the number of an action, or q to quit.
    With no BOT you play alone (where the ruleset allows it, e.g. solo Flip 7). A BOT
    is an installed bot's name or PATH.py:ClassName (a local file); --command CMD adds
    a protocol program, seated after the BOTs.

    Example: arena play flip-7 flip7-threshold random --seat 1 --seed 7
    """
    from arena.seats import InlineHost, ProcessHost
    from arena.terminal import QuitGame, play_human

    registry = load_plugins()
    ruleset = registry.ruleset(ruleset_id).cls
    bots = len(bot_names) + len(commands)
    players = bots + 1
    ruleset.check_players(players)
    if not 0 <= seat < players:
        raise ConfigError(f"--seat must be 0 to {players - 1} with {bots} bots, not {seat}")
    chosen = dict(parse_assignment(o, "--option") for o in options)
    check_plain_values(chosen, "--option")
    ruleset.resolve_options(chosen)  # a bad option is an error before the game starts
    seated = seat_bots(registry, ruleset, bot_names, commands, params)
    entrants = seated.entrants
    for entrant in entrants:
        check_plain_values(dict(entrant.params), f"--param {entrant.display_name}")
    hosts = [ProcessHost(seated.commands[i], name=e.display_name) if kind == "command" else InlineHost(e.cls)
             for i, (e, kind) in enumerate(zip(entrants, seated.kinds))]
    if save is not None and not save.parent.is_dir():
        raise ConfigError(f"--save {save}: folder {save.parent} does not exist")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    style = _style(color)
    write = _echo(style)
    write(f"{ruleset.title if hasattr(ruleset, 'title') else ruleset.id} (ruleset {ruleset.id}, version "
          f"{ruleset.version}), seed {seed}, {players} player{'' if players == 1 else 's'}; you are seat {seat}.")
    write("Type a number to choose, ? for the rules in short, ?? for the whole rules page, q to quit.")

    def read_line() -> str:
        return sys.stdin.readline()

    try:
        result = play_human(ruleset, entrants, seat, seed, chosen, read_line, write, style, hosts)
    except (QuitGame, KeyboardInterrupt):
        write("")
        write(f"You left the game. (Play it again with --seed {seed}.)")
        return
    finally:
        for host in hosts:
            host.close()
    if save is not None:
        save.write_text(json.dumps(result.record, indent=1) + "\n")
        write(f"record written to {save}")
    _offer_replay(result.record, ruleset, read_line, write, style)


def _offer_replay(record: dict[str, Any], ruleset: Any, read_line: Callable[[], str], write: Callable[..., None],
                  style: Any) -> None:
    """After a game of `arena play`: the rules on ? or ??, the god view's replay on y."""
    from arena.terminal import replay_lines, rules_summary

    while True:
        write("Show the whole game from the god view (every card)? [y/N, ? or ?? for the rules] ", nl=False)
        answer = read_line()
        if answer.strip().lower() not in ("?", "help", "rules", "??"):
            break
        for line in rules_summary(ruleset.id, full=answer.strip() == "??"):
            write(line)
    if answer.strip().lower() in ("y", "yes"):
        write("")
        for line in replay_lines(record, ruleset, None, style):
            write(line)
    elif answer == "":
        write("")


@click.command()
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.argument("game_id", required=False)
@click.option("--seat", type=int, default=None,
              help="Show what this seat saw at each of its decisions (default: the god view).")
@click.option("--color", type=COLOR_CHOICE, default="auto", show_default=True,
              help="Color the cards: auto = only on a terminal and when NO_COLOR is not set.")
@click.option("--logs", "with_logs", is_flag=True,
              help="Also print what the bots wrote to stderr (with --seat, that seat's only; the first 8 KiB a game).")
@user_errors
def replay(source: Path, game_id: str | None, seat: int | None, color: str, with_logs: bool) -> None:
    """Print a stored game step by step, and check that it replays exactly.

    SOURCE is a record file (from `arena match --save`) or a results folder, then
    GAME_ID is the game's number in it. With --seat N you see what seat N saw.
    Decisions are numbered from 1; faults and replacement actions are marked.
    """
    from arena.errors import ReplayMismatchError
    from arena.match import replay as replay_record
    from arena.terminal import load_record, replay_lines

    record = load_record(source, game_id)
    ruleset = load_plugins().ruleset(record["ruleset"]["id"]).cls
    where = f"{source}" + (f" game {game_id}" if game_id is not None else "")
    try:
        replay_record(record, ruleset)
    except ReplayMismatchError as exc:
        raise click.ClickException(f"{where}: {exc}") from None
    style = _style(color)
    write = _echo(style)
    for line in replay_lines(record, ruleset, seat, style):
        write(line)
    if with_logs:
        write_bot_logs(record, seat, write)
    write(f"\n{where}: replays exactly ({len(record['decisions'])} decisions, "
          f"transcript {record['transcript_hash'][:16]})")


def write_bot_logs(record: dict[str, Any], seat: int | None, write: Any) -> None:
    """The bots' stderr of a recorded game (one seat's with `seat`), and the cap on it."""
    from arena.decisions import LOG_NOTE, log_lines

    lines = log_lines(record, None if seat is None else (seat,))
    write("")
    write(LOG_NOTE + "; per game and seat, not per decision")
    for line in lines or ["(no bot wrote to stderr in this game)" if seat is None else
                          f"(seat {seat}'s bot wrote nothing to stderr in this game)"]:
        write(line)
