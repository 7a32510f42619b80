"""The web commands: `arena serve`, and the ``--replays`` option that `arena publish`
takes to write the static site (arena.site) next to the standings.

`make_server` serves ``RESULTS_DIR/site/`` (writing it first if there is none)
with the standard library's http.server; a game without a pre-generated replay
file is replayed on demand at ``/replays/<game>.js``. The results store itself is
never served (it holds a secret seed until a tournament is complete); only the
site and the standings files (``/standings.md``, ``.csv``, ``.json``) are.
"""

from __future__ import annotations

import functools
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

import click

from arena.cli_support import user_errors
from arena.errors import ConfigError

REPLAY_PATH = re.compile(r"/replays/(\d+)\.js")
STANDINGS_FILES = ("standings.md", "standings.csv", "standings.json")


def replays_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--replays N`` for `arena publish` (the command receives ``replays``: int or None)."""
    return click.option(
        "--replays", type=click.IntRange(min=0), default=None, metavar="N",
        help="How many games get a replay in the web page: default every game of a tournament of at most "
             "200 games, else a deterministic sample of 100; 0 for none. `arena serve` shows any game.")(command)


def publish_site(results_dir: Path, store: Any, replays: int | None = None,
                 standings: Any = None) -> Path:
    """Write RESULTS_DIR/site/ (what `arena publish` and the runner's publish step call)."""
    from arena.site import write_site

    return write_site(results_dir, store, replays=replays, standings=standings)


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves a results folder's site; makes missing replay files on demand."""

    results_dir: Path = Path(".")
    rulesets: dict[str, Any] = {}
    lock = threading.Lock()

    def log_message(self, format: str, *args: Any) -> None:  # quiet unless asked
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def _extra(self) -> tuple[bytes, str] | None:
        path = unquote(urlsplit(self.path).path)
        match = REPLAY_PATH.fullmatch(path)
        if match and not (Path(self.directory) / "replays" / f"{match.group(1)}.js").is_file():
            from arena.site import replay_file_text
            from arena.store import Store, store_path

            from arena.errors import ArenaError
            from arena.site import error_script

            index = int(match.group(1))
            try:
                with self.lock, Store.open(store_path(self.results_dir)) as store:
                    text = replay_file_text(store, index, self.rulesets)
            except ArenaError as exc:  # a corrupt record, or a store gone since: say so in the page
                text = error_script(index, str(exc))
            return text.encode("utf-8"), "text/javascript; charset=utf-8"
        name = path.lstrip("/")
        if name in STANDINGS_FILES and (self.results_dir / name).is_file():
            kind = {"md": "text/markdown", "csv": "text/csv", "json": "application/json"}[name.rsplit(".", 1)[1]]
            return (self.results_dir / name).read_bytes(), kind + "; charset=utf-8"
        return None

    def _send(self, body: bytes, kind: str, head: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def do_GET(self) -> None:
        extra = self._extra()
        if extra is not None:
            self._send(*extra, head=False)
        else:
            super().do_GET()

    def do_HEAD(self) -> None:
        extra = self._extra()
        if extra is not None:
            self._send(*extra, head=True)
        else:
            super().do_HEAD()


def make_server(results_dir: str | Path, host: str = "127.0.0.1", port: int = 8000,
                verbose: bool = False) -> ThreadingHTTPServer:
    """An HTTP server for RESULTS_DIR's site (written first if missing); port 0 picks a free one."""
    from arena.site import SITE_DIR, installed_rulesets
    from arena.store import Store, store_path

    results_dir = Path(results_dir)
    with Store.open(store_path(results_dir)) as store:
        site = results_dir / SITE_DIR
        if not (site / "index.html").is_file():
            publish_site(results_dir, store)
        rulesets = installed_rulesets(store.plan())
    handler = type("BoundSiteHandler", (SiteHandler,), {"results_dir": results_dir, "rulesets": rulesets,
                                                         "lock": threading.Lock()})
    server = ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(site)))
    server.verbose = verbose  # type: ignore[attr-defined]
    server.daemon_threads = True
    return server


@click.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="TCP port (0: any free one).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--verbose", is_flag=True, help="Log every request.")
@user_errors
def serve(results_dir: Path, port: int, host: str, verbose: bool) -> None:
    """Serve RESULTS_DIR's web page (standings and replays) at http://HOST:PORT/.

    Writes RESULTS_DIR/site/ first if it is missing; any stored game can be
    replayed, not only those with a replay file. Ctrl-C stops it.
    """
    try:
        server = make_server(results_dir, host, port, verbose)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    click.echo(f"serving {results_dir / 'site'} at http://{shown}:{server.server_address[1]}/ (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        server.server_close()
