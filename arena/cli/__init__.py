"""The `arena` command line: thin click commands over the library.

User errors (bad options, unknown names, broken plugins) print one line and exit
with code 2; every table output has a `--json` twin.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

import arena
from arena.cli_play import SEED_RANGE, play, replay
from arena.cli_submit import docs, new_bot, validate
from arena.cli_web import replays_option, serve
from arena.cli_support import load_plugins, parse_assignment, print_json, seat_entrants, user_errors
from arena.errors import ConfigError
from arena.seats import LIMIT_BOUNDS
from arena.tournament import BOUNDS, check_plain_values


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
                   "(default: 1.0).")
@user_errors
def match(ruleset_id: str, bot_names: tuple[str, ...], seed: int, options: tuple[str, ...],
          params: tuple[str, ...], as_json: bool, show_log: bool, save: Path | None, isolation: str,
          time_per_decision: float | None) -> None:
    """Play one seeded game of RULESET between BOTs (one per seat, in seat order).

    Example: arena match flip-7 flip7-threshold random --seed 7 --log
    """
    from arena.match import FaultPolicy, play_game
    from arena.sandbox import SandboxHost, sandbox_unavailable
    from arena.seats import Limits, ProcessHost

    registry = load_plugins()
    ruleset = registry.check_seating(ruleset_id, bot_names)
    chosen = dict(parse_assignment(o, "--option") for o in options)
    check_plain_values(chosen, "--option")
    entrants = seat_entrants(registry, bot_names, params)
    for entrant in entrants:
        check_plain_values(dict(entrant.params), f"--param {entrant.display_name}")
        try:  # installed bots are trusted: their constructor checks their params here, as in `arena run`
            entrant.cls(**entrant.params)
        except Exception as exc:
            raise ConfigError(f"bot {entrant.cls.name!r} does not accept params {dict(entrant.params)!r}: "
                              f"{type(exc).__name__}: {exc}") from None
    if save is not None and not save.parent.is_dir():
        raise ConfigError(f"--save {save}: folder {save.parent} does not exist")
    hosts = None
    policy = FaultPolicy()
    if isolation == "sandbox" and (reason := sandbox_unavailable()):
        click.echo(f"warning: no sandbox can be made here ({reason}); bots run in their own processes", err=True)
        isolation = "process"
    if isolation in ("sandbox", "process"):
        limit = time_per_decision or 1.0
        limits = Limits(time_per_decision=limit)
        host_for = SandboxHost.for_bot if isolation == "sandbox" else ProcessHost.for_bot
        hosts = [host_for(entrant.cls.name, limits) for entrant in entrants]
        policy = FaultPolicy(on_fault="raise", time_per_decision=limit, time_bank=limits.time_bank)
    elif time_per_decision is not None:
        raise ConfigError("--time-per-decision needs --isolation sandbox or process (an inline bot cannot be "
                          "stopped)")
    try:
        result = play_game(ruleset, entrants, deal_seed=seed, options=chosen, hosts=hosts, policy=policy)
    finally:
        for host in hosts or ():
            host.close()
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


# -- tournaments ----------------------------------------------------------------


@main.command("run")
@click.argument("tournament_file", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--workers", type=click.IntRange(*BOUNDS["workers"]), default=None,
              help="Processes playing games (default: the file's `workers`; 0 = every core).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Results folder (default: results/<name>/).")
@click.option("--restart", is_flag=True,
              help="Discard a results store made from another file or other bot versions, and start again.")
@click.option("--backend", "backend_name", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where games are played: local processes, or a Ray cluster (pip install 'flip-arena[ray]').")
@click.option("--address", default=None, metavar="ADDRESS",
              help="With --backend ray: the cluster to join (HOST:6379, ray://HOST:10001 or auto; "
                   "default $RAY_ADDRESS, else a local Ray instance). --workers then counts Ray workers "
                   "(default: every CPU of the cluster).")
@click.option("--replays", type=click.IntRange(min=0), default=24, show_default=True, metavar="N",
              help="Games that get a replay file in the web page (arena publish --replays N for more; "
                   "arena serve shows any game).")
@click.option("--wheelhouse", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              metavar="DIR", help="Build submissions from the wheels and sdists in DIR, build backends included "
                                  "(default: the file's `wheelhouse`; without one, with this environment's "
                                  "setuptools).")
@click.option("--allow-network", is_flag=True,
              help="Let pip reach the network while it builds submissions (their sandboxes have none otherwise).")
@user_errors
def run_command(tournament_file: Path, workers: int | None, out: Path | None, restart: bool,
                backend_name: str, address: str | None, replays: int, wheelhouse: Path | None,
                allow_network: bool) -> None:
    """Play a tournament FILE (TOML; see tournaments/README.md), resumably, and publish its standings.

    Running the same command again after an interruption resumes it.
    """
    from arena.publish import text_tables
    from arena.runner import GameFailedError, run_tournament
    from arena.tournament import load_tournament

    backend = None
    if backend_name == "ray":
        from arena.ray_backend import make_ray_backend

        backend = make_ray_backend(workers, address)
    elif address is not None:
        raise ConfigError("--address needs --backend ray")
    from arena.submissions import Builder

    registry = load_plugins()
    builder = Builder(out, wheelhouse, allow_network, echo=lambda line: click.echo(line, err=True))
    try:  # submissions are built (in sandboxes) while the file is checked; kept only if it passes
        tournament = load_tournament(tournament_file, registry, submissions=builder)
        builder.install()
    finally:
        builder.discard()
    out = out if out is not None else Path("results") / tournament.name
    try:
        summary = run_tournament(tournament, out, workers=workers, restart=restart, replays=replays, backend=backend,
                                 echo=lambda line: click.echo(line, err=True))
    except GameFailedError as exc:
        raise click.ClickException(str(exc)) from None
    if summary.interrupted:
        sys.exit(130)
    if summary.played:
        click.echo(f"played {summary.played:,} games in {summary.elapsed:.1f} s "
                   f"({summary.played / max(summary.elapsed, 1e-9):.1f} games/s)", err=True)
    click.echo(f"published {', '.join(str(p) for p in summary.written)}", err=True)
    doc = json.loads((out / "standings.json").read_text())
    click.echo(text_tables(doc, overall_only=True))


def _results_store(results_dir: Path) -> Any:
    from arena.store import Store, store_path

    return Store.open(store_path(results_dir))


@main.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the standings.json document instead of tables.")
@user_errors
def rank(results_dir: Path, as_json: bool) -> None:
    """Recompute the standings of RESULTS_DIR from its results store and print them.

    Every stored result is first checked against its game record (replayed with the
    installed rulesets) and the seed commitment; a store that disagrees is refused."""
    from arena.publish import document, text_tables
    from arena.verify import start_verification

    with _results_store(results_dir) as store:
        checking = start_verification(store)  # in other processes while this one rates
        with checking:
            doc = document(store)
            click.echo(checking.result().summary(), err=True)
    if as_json:
        print_json(doc)
        return
    p = doc["tournament"]
    click.echo(f"{p['name']}: {p['games_stored']:,} of {p['games_total']:,} games\n")
    click.echo(text_tables(doc))


@main.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path))
@replays_option
@user_errors
def publish(results_dir: Path, replays: int | None) -> None:
    """Write standings.md, standings.csv, standings.json and the web page (site/) into
    RESULTS_DIR from its store, once every stored result is checked against its record
    and the seed commitment (a store that disagrees is refused)."""
    from arena.publish import publish as write_standings
    from arena.ratings import rate_store
    from arena.runner import cpu_count
    from arena.site import write_site
    from arena.verify import start_verification

    with _results_store(results_dir) as store:
        checking = start_verification(store)  # in other processes while this one rates
        with checking:
            standings = rate_store(store, cpu_count())
            click.echo(checking.result().summary(), err=True)  # nothing is written before it passed
        paths = write_standings(results_dir, store, standings)
        site = write_site(results_dir, store, replays=replays)
    click.echo(f"published {', '.join(str(p) for p in paths)}, {site / 'index.html'}")


@main.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@user_errors
def faults(results_dir: Path, as_json: bool) -> None:
    """List every fault a bot committed in the tournament stored in RESULTS_DIR."""
    from arena.site.data import faults_rows

    with _results_store(results_dir) as store:
        rows = faults_rows(store, store.plan())
    if as_json:
        print_json(rows)
        return
    if not rows:
        click.echo("no faults")
        return
    click.echo(tabulate([[r["game"], r["ruleset"], r["bot"], r["seat"], "-" if r["decision"] is None else r["decision"],
                          r["kind"], r["detail"][:60]] for r in rows],
                        headers=["game", "ruleset", "bot", "seat", "decision", "kind", "detail"]))
    per_bot: dict[str, int] = {}
    for r in rows:
        per_bot[r["bot"]] = per_bot.get(r["bot"], 0) + 1
    click.echo("\n" + ", ".join(f"{bot}: {count}" for bot, count in sorted(per_bot.items())))


main.add_command(play)
main.add_command(replay)
main.add_command(new_bot)
main.add_command(validate)
main.add_command(docs)
main.add_command(serve)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
