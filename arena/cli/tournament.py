"""Tournaments: `arena run` (play a tournament file, resumably, and publish), `arena rank`
(standings from a results store), `arena publish` (tables and web page) and `arena faults`.

Plain click commands, attached to the `arena` group by `arena.cli`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

import click
from tabulate import tabulate

from arena.cli.support import load_plugins, print_json, user_errors
from arena.errors import ConfigError
from arena.tournament import BOUNDS


def replays_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--replays N`` for `arena publish` (the command receives ``replays``: int or None)."""
    return click.option(
        "--replays", type=click.IntRange(min=0), default=None, metavar="N",
        help="How many games get a replay in the web page: default every game of a tournament of at most "
             "200 games, else a deterministic sample of 100; 0 for none. `arena serve` shows any game.")(command)


@click.command("run")
@click.argument("tournament_file", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--workers", type=click.IntRange(int(BOUNDS["workers"][0]), int(BOUNDS["workers"][1])), default=None,
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
@click.option("--report-every", type=click.IntRange(min=1), default=None, metavar="N",
              help="Print a progress line with each ruleset's leaders every N games stored (default: none on a "
                   "terminal, where the progress bar shows; otherwise every twentieth of the games).")
@user_errors
def run_command(tournament_file: Path, workers: int | None, out: Path | None, restart: bool,
                backend_name: str, address: str | None, replays: int, wheelhouse: Path | None,
                allow_network: bool, report_every: int | None) -> None:
    """Play a tournament FILE (TOML; see tournaments/README.md), resumably, and publish its standings.

    Running the same command again after an interruption resumes it.
    """
    from arena.publish import summary_text
    from arena.run_and_publish import run_and_publish
    from arena.runner import GameFailedError
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
        summary = run_and_publish(tournament, out, workers=workers, restart=restart, replays=replays,
                                  backend=backend, report_every=report_every,
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
    click.echo(summary_text(doc, out))
    with _results_store(out) as store:
        from arena.site.data import faults_rows

        lines = faults_summary(faults_rows(store, store.plan()), games_per_bot(store), out)
    for line in lines:
        click.echo(line)


def games_per_bot(store: Any) -> dict[str, int]:
    """How many stored games each entry played, by display name."""
    names = [e["bot"] for e in store.plan()["entries"]]
    games = dict.fromkeys(names, 0)
    for row in store.iter_rows():
        for entry in row.seats:
            games[names[entry]] += 1
    return games


def faults_summary(rows: list[dict[str, Any]], games: dict[str, int], results_dir: Path) -> list[str]:
    """A line per bot that faulted (in plan order): faults, their kinds, games with a
    fault of the games played; then the `arena faults` command that lists them ([] with
    no faults)."""
    from arena.publish import SUMMARY_WIDTH

    per_bot: dict[str, dict[str, Any]] = {}
    for r in rows:
        seen = per_bot.setdefault(r["bot"], {"faults": 0, "kinds": {}, "games": set()})
        seen["faults"] += 1
        seen["kinds"][r["kind"]] = seen["kinds"].get(r["kind"], 0) + 1
        seen["games"].add(r["game"])
    if not per_bot:
        return []
    lines = ["Faults (a faulting bot forfeits the game, unless the file's on_fault says otherwise):"]
    for bot in [name for name in games if name in per_bot]:
        seen = per_bot[bot]
        kinds = ", ".join(f"{kind}: {count:,}" for kind, count in sorted(seen["kinds"].items()))
        name = bot if len(bot) <= 40 else bot[:39] + "\N{HORIZONTAL ELLIPSIS}"
        lines.append(f"  {name}: {seen['faults']:,} fault{'' if seen['faults'] == 1 else 's'} in "
                     f"{len(seen['games']):,} of its {games[bot]:,} games ({kinds})")
    lines.append(f"See each one: arena faults {results_dir} (add --logs for what the bots wrote to stderr)")
    return [line if len(line) <= SUMMARY_WIDTH else line[:SUMMARY_WIDTH - 1] + "\N{HORIZONTAL ELLIPSIS}"
            for line in lines]


def _results_store(results_dir: Path) -> Any:
    from arena.store import Store, store_path

    return Store.open(store_path(results_dir))


@click.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the standings.json document instead of tables.")
@click.option("--wide", is_flag=True,
              help="Every column of the tables (uses, version, mu, sigma, wins, mean score, faults), as "
                   "standings.md has them; by default the tables fit 100 columns.")
@user_errors
def rank(results_dir: Path, as_json: bool, wide: bool) -> None:
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
    click.echo(text_tables(doc, wide=wide))


@click.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path))
@replays_option
@user_errors
def publish(results_dir: Path, replays: int | None) -> None:
    """Write standings.md, standings.csv, standings.json and the web page (site/) into
    RESULTS_DIR from its store, once every stored result is checked against its record
    and the seed commitment (a store that disagrees is refused)."""
    from arena.publish import publish as write_standings
    from arena.ratings import rate_store
    from arena.backends import cpu_count
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


@click.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--logs", "with_logs", is_flag=True,
              help="Also print what each faulting bot wrote to stderr in that game (the first 8 KiB a game).")
@user_errors
def faults(results_dir: Path, as_json: bool, with_logs: bool) -> None:
    """List every fault a bot committed in the tournament stored in RESULTS_DIR.

    Decisions are numbered from 1, as `arena replay` and the web viewer show them."""
    from arena.site.data import faults_rows

    with _results_store(results_dir) as store:
        rows = faults_rows(store, store.plan())
        logs = fault_logs(store, rows) if with_logs else {}
    if as_json:
        if with_logs:
            rows = [dict(r, log=logs.get((r["game"], r["seat"]))) for r in rows]
        print_json(rows)
        return
    if not rows:
        click.echo("no faults")
        return
    click.echo(tabulate([[r["game"], r["ruleset"], r["bot"], r["seat"],
                          "-" if r["decision_number"] is None else r["decision_number"], r["kind"], r["detail"]]
                         for r in rows],
                        headers=["game", "ruleset", "bot", "seat", "decision", "kind", "detail"],
                        maxcolwidths=[None] * 6 + [70]))
    per_bot: dict[str, int] = {}
    for r in rows:
        per_bot[r["bot"]] = per_bot.get(r["bot"], 0) + 1
    click.echo("\n" + ", ".join(f"{bot}: {count}" for bot, count in sorted(per_bot.items())))
    if with_logs:
        click.echo("\n" + fault_logs_text(rows, logs))


def fault_logs(store: Any, rows: list[dict[str, Any]]) -> dict[tuple[int, int], str | None]:
    """``(game, seat) -> `` the faulting seat's stderr in that game (None: it wrote nothing)."""
    from arena.decisions import seat_logs

    seats: dict[int, list[int]] = {}
    for r in rows:
        seats.setdefault(r["game"], []).append(r["seat"])
    out: dict[tuple[int, int], str | None] = {}
    for game in sorted(seats):
        logs = dict(seat_logs(store.record(game) or {}))
        for seat in sorted(set(seats[game])):
            out[game, seat] = logs.get(seat)
    return out


def fault_logs_text(rows: list[dict[str, Any]], logs: dict[tuple[int, int], str | None]) -> str:
    from arena.decisions import LOG_NOTE

    lines = [LOG_NOTE + "; per game and seat, not per decision"]
    bots = {(r["game"], r["seat"]): r["bot"] for r in rows}
    for (game, seat), text in logs.items():
        bot = bots[game, seat]
        lines.append(f"\n--- game {game}, seat {seat} ({bot}): stderr ---")
        lines.append(text.rstrip("\n") if text else "(nothing written)")
    return "\n".join(lines)
