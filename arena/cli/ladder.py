"""`arena ladder ...`: the hosted ladder's commands (the service is `arena.ladder`).

`serve` runs a ladder (database, HTTP API, local workers); `admin create` makes the
first admin and prints their token; `submit` uploads a version; `worker` pulls work
from a ladder; `standings` prints a ladder's tables. A token is read from
``$ARENA_LADDER_TOKEN`` (or ``--token``), never printed but when it is made.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import click

from arena.cli.support import print_json, user_errors
from arena.errors import ConfigError

DEFAULT_FOLDER = Path("ladder")
PAGES_NICE = 10
"""How much nicer the processes serving pages run beside a worker listener (docs/ladder.md,
"Under load"): with 10 the listener is given ~9 times a page process's share of a busy core."""
WORKER_PROCESSES = 2
"""How many processes serve the worker port by default (docs/ladder.md, "Under load"): two
listeners get results more of a busy machine's CPU than one (a lower results p99 on both
databases in every one of 3 quiet interleaved rounds); SQLite's writers queue on a file lock
(`db.WriterQueue`)."""
TOKEN_HELP = "API token (default: $ARENA_LADDER_TOKEN)."


def _token(token: str | None) -> str:
    token = token or os.environ.get("ARENA_LADDER_TOKEN")
    if not token:
        raise ConfigError("no token: pass --token or set ARENA_LADDER_TOKEN")
    return token


def _need_extra() -> None:
    """A one-line error where the ladder's libraries are not installed."""
    import importlib.util

    wanted = ("sqlalchemy", "starlette", "uvicorn", "psycopg", "numpy")
    missing = [name for name in wanted if importlib.util.find_spec(name) is None]
    if missing:
        raise ConfigError(f"the ladder needs {', '.join(missing)}: pip install 'flip-arena[ladder]'")


def _ladder(folder: Path, db: str | None, config: Path | None) -> Any:
    _need_extra()
    from arena.ladder.config import load_config
    from arena.ladder.serve import open_ladder

    return open_ladder(folder, db, load_config(config))


folder_option = click.option("--folder", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_FOLDER,
                             show_default=True, help="The ladder's folder (its SQLite database, worker caches).")
db_option = click.option("--db", metavar="URL", help="postgresql://USER@HOST/DB (default: SQLite in the folder).")
config_option = click.option("--config", type=click.Path(dir_okay=False, path_type=Path),
                             help="The ladder's TOML file (default: embedded defaults; docs/ladder.md).")


@click.group()
def ladder() -> None:
    """A hosted ladder: versions uploaded over time, gated in the sandbox, played by pull workers."""


@ladder.command("serve")
@folder_option
@db_option
@config_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8100, show_default=True, help="TCP port.")
@click.option("--workers", type=click.IntRange(0, 256), default=1, show_default=True,
              help="Local sandboxed workers started with the server.")
@click.option("--processes", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes sharing the listening socket (the database is their only shared state).")
@click.option("--worker-port", type=click.IntRange(0, 65535), default=None,
              help="Serve the worker API (leases, results, uploads' bytes) alone on this port too, from a process "
                   "of its own that serves no pages: give workers this address (0: any free port).")
@click.option("--pages-nice", type=click.IntRange(0, 19), default=None,
              help="With --worker-port: how much nicer (lower CPU priority) the processes serving pages run than "
                   "the worker listener, so that a flood of page requests does not queue workers' results "
                   f"[default: {PAGES_NICE} with --worker-port].")
@click.option("--worker-processes", type=click.IntRange(1, 16), default=None,
              help="With --worker-port: how many processes serve the worker API on it "
                   f"[default: {WORKER_PROCESSES}].")
@click.option("--server-timing", is_flag=True,
              help="Add a Server-Timing header to every response: the server's own milliseconds on the "
                   "request (for measuring; it tells every client how long its requests took).")
@user_errors
def serve_command(folder: Path, db: str | None, config: Path | None, host: str, port: int, workers: int,
                  processes: int, worker_port: int | None, pages_nice: int | None,
                  worker_processes: int | None, server_timing: bool) -> None:
    """Run a ladder: its database, its HTTP API and local workers (Ctrl-C stops all)."""
    from arena.ladder.serve import serve

    if pages_nice is not None and worker_port is None:
        raise ConfigError("--pages-nice needs --worker-port: without a worker listener, results are served by "
                          "the pages' own processes")
    if worker_processes is not None and worker_port is None:
        raise ConfigError("--worker-processes needs --worker-port: they are the processes serving it")
    try:
        serve(_ladder(folder, db, config), host, port, workers, folder, echo=click.echo, processes=processes,
              worker_port=worker_port, pages_nice=(PAGES_NICE if pages_nice is None else pages_nice)
              if worker_port is not None else 0, worker_processes=worker_processes or WORKER_PROCESSES,
              server_timing=server_timing)
    except OSError as exc:
        where = port if worker_port is None else f"{port} or {worker_port}"
        raise ConfigError(f"cannot listen on {host}:{where}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        click.echo("stopped")


@ladder.group()
def admin() -> None:
    """Administer a ladder's database directly (on the server's machine)."""


@admin.command("create")
@click.argument("name")
@folder_option
@db_option
@config_option
@user_errors
def admin_create(name: str, folder: Path, db: str | None, config: Path | None) -> None:
    """Make admin NAME and print their token (shown once: keep it)."""
    click.echo(_ladder(folder, db, config).create_admin(name))


@ladder.command("submit")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--to", "url", required=True, help="The ladder's URL (http://HOST:PORT).")
@click.option("--bot", "bot", help="The bot's name on the ladder (default: a folder's name).")
@click.option("--token", help=TOKEN_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the server's answer as JSON.")
@user_errors
def submit(path: Path, url: str, bot: str | None, token: str | None, as_json: bool) -> None:
    """Upload PATH (a project folder, wheel or sdist) as a new version of a bot."""
    import urllib.parse

    from arena.ladder.versions import pack_folder
    from arena.ladder.worker import Client

    from arena.ladder.worker import WorkerError

    name = bot or (path.name if path.is_dir() else None)
    if name is None:
        raise ConfigError(f"{path}: name the bot with --bot NAME (needed for a wheel or sdist)")
    if path.is_dir():
        filename, data = pack_folder(path)
    else:
        filename, data = path.name, path.read_bytes()
    client = Client(url, _token(token))
    query = urllib.parse.urlencode({"filename": filename})
    try:
        answer = client.upload(f"/api/bots/{urllib.parse.quote(name)}/versions?{query}", data)
    except WorkerError as exc:  # refused (too large, a duplicate, a quota, not the author's): the user's to fix
        raise ConfigError(f"{path}: {exc}") from None
    if as_json:
        print_json(answer)
    else:
        click.echo(f"{answer['bot']} version {answer['version']}: uploaded ({len(data):,} bytes), waiting for its gate")


@ladder.command("worker")
@click.option("--to", "url", required=True, help="The ladder's URL (http://HOST:PORT).")
@click.option("--cache", type=click.Path(file_okay=False, path_type=Path),
              help="Where uploads and their builds are kept [default: ./ladder-worker; with --ray, "
                   "~/.cache/arena-ladder-worker on each node, a folder ray-N per worker].")
@click.option("--token", help=TOKEN_HELP)
@click.option("--wait", type=click.FloatRange(0), default=10.0, show_default=True,
              help="Seconds to keep trying to reach the ladder at start before giving up.")
@click.option("--ray", "ray_address", metavar="ADDRESS",
              help="Run the workers as Ray actors on the cluster at ADDRESS (HOST:6379, ray://HOST:10001, "
                   "auto; 'local': a Ray instance on this machine).")
@click.option("--workers", type=click.IntRange(1, 10_000), default=1, show_default=True,
              help="How many workers (Ray actors; needs --ray).")
@click.option("--parent", type=int, hidden=True, help="Exit when this process is gone (local workers).")
@user_errors
def worker_command(url: str, cache: Path | None, token: str | None, wait: float, ray_address: str | None,
                   workers: int, parent: int | None) -> None:
    """Pull work from a ladder and play it in sandboxes (needs a worker token); on this
    machine, or as Ray actors with --ray."""
    from arena.ladder.worker import Client, WorkerError, work
    from arena.worker import watch_parent

    secret = _token(token)
    Client(url, secret)  # a malformed URL: one line, before anything starts
    if ray_address is None and workers != 1:
        raise ConfigError("--workers N starts Ray actors: pass --ray ADDRESS too (or start N workers)")
    if parent is not None:
        watch_parent(parent)
    try:
        if ray_address is not None:
            from arena.ladder.ray_workers import DEFAULT_CACHE, work_on_ray

            work_on_ray(url, secret, None if ray_address == "local" else ray_address, workers,
                        str(cache.resolve()) if cache else DEFAULT_CACHE, echo=lambda line: click.echo(line, err=True))
        else:
            work(url, secret, (cache or Path("ladder-worker")).resolve(), threading.Event(),
                 echo=lambda line: click.echo(line, err=True), wait=None if parent is not None else wait)
    except KeyboardInterrupt:
        pass
    except WorkerError as exc:  # unreachable at start, or its token refused: the user's to fix
        raise ConfigError(f"{exc} (check --to and the token)") from None


@ladder.command("standings")
@click.option("--to", "url", required=True, help="The ladder's URL.")
@click.option("--json", "as_json", is_flag=True, help="Print them as JSON.")
@user_errors
def standings(url: str, as_json: bool) -> None:
    """Print a ladder's standings, per ruleset: the refit's order and marks, live TrueSkill beside."""
    from arena.ladder.worker import Client, WorkerError

    try:
        tables = Client(url, "").call("GET", "/api/standings")
    except WorkerError as exc:  # a wrong URL: the user's to fix
        raise ConfigError(str(exc)) from None
    if as_json:
        print_json(tables)
        return
    from tabulate import tabulate

    for label, rows in tables.items():
        click.echo(f"{label}:")
        click.echo(tabulate([[r["rank"], r["bot"], r["version"], r.get("strength"), r.get("mark") or "", r["mu"],
                              r["sigma"], r["games"], r["faults"]] for r in rows],
                            headers=["#", "bot", "version", "strength", "vs next", "mu", "sigma", "games", "faults"]))
