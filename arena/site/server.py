"""The web server of a results folder, for `arena serve`.

`make_server` serves ``RESULTS_DIR/site/`` (writing it first if there is none)
with the standard library's http.server; a game without a pre-generated replay
file is replayed on demand at ``/replays/<game>.js``, and ``/static/served.js`` tells
the pages so (they then link every game). The results store itself is
never served (it holds a secret seed until a tournament is complete); only the
site and the standings files (``/standings.md``, ``.csv``, ``.json``) are. A folder
without a store but with its published ``standings.json`` (a fresh clone's
``results/reference``) is served from the standings alone, the page saying what is
missing (`standings_only_note`).
"""

from __future__ import annotations

import functools
import json
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from arena.errors import ArenaError, ConfigError
from arena.site import (SITE_DIR, error_script, installed_rulesets, replay_file_text, write_site,
                        write_standings_site)
from arena.store import Store, store_path

REPLAY_PATH = re.compile(r"/replays/(\d+)\.js")
STANDINGS_FILES = ("standings.md", "standings.csv", "standings.json")
SERVED_PATH = "/static/served.js"
"""Says whether `arena serve` serves the pages (static/served.js: no; the server's: yes)."""


class SiteServer(ThreadingHTTPServer):
    """The HTTP server of `make_server`, with what its handler and `arena serve` read off it."""

    verbose: bool = False
    """Log each request (the handler asks)."""
    missing: str | None = None
    """What a results folder without a store lacks (None with a store)."""


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves a results folder's site; makes missing replay files on demand."""

    results_dir: Path = Path(".")
    rulesets: dict[str, Any] = {}
    missing: str | None = None
    lock = threading.Lock()

    def log_message(self, format: str, *args: Any) -> None:  # quiet unless asked
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def _extra(self) -> tuple[bytes, str] | None:
        path = unquote(urlsplit(self.path).path)
        match = REPLAY_PATH.fullmatch(path)
        if match and not (Path(self.directory) / "replays" / f"{match.group(1)}.js").is_file():
            index = int(match.group(1))
            if self.missing:
                return error_script(index, self.missing).encode("utf-8"), "text/javascript; charset=utf-8"
            try:
                with self.lock, Store.open(store_path(self.results_dir)) as store:
                    text = replay_file_text(store, index, self.rulesets)
            except ArenaError as exc:  # a corrupt record, or a store gone since: say so in the page
                text = error_script(index, str(exc))
            return text.encode("utf-8"), "text/javascript; charset=utf-8"
        if path == SERVED_PATH and not self.missing:  # the pages link every game: any replay is made on demand
            return b"window.ARENA_SERVED = true;\n", "text/javascript; charset=utf-8"
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
                verbose: bool = False) -> SiteServer:
    """An HTTP server for RESULTS_DIR's site (written first if missing); port 0 picks a free one.
    Without a store, the site of the published standings; ``server.missing`` then says
    what is not there (None with a store). ConfigError if there is neither."""
    results_dir = Path(results_dir)
    site = results_dir / SITE_DIR
    missing = None
    if store_path(results_dir).is_file() or not (results_dir / "standings.json").is_file():
        with Store.open(store_path(results_dir)) as store:
            if not (site / "index.html").is_file():
                write_site(results_dir, store)
            rulesets = installed_rulesets(store.plan())
    else:
        missing = standings_only_note(results_dir)
        try:
            write_standings_site(results_dir, missing)
        except (ValueError, KeyError, TypeError) as exc:  # json.JSONDecodeError is a ValueError
            raise ConfigError(f"{results_dir / 'standings.json'}: not a standings file ({exc})") from None
        rulesets = {}
    handler = type("BoundSiteHandler", (SiteHandler,), {"results_dir": results_dir, "rulesets": rulesets,
                                                         "missing": missing, "lock": threading.Lock()})
    server = SiteServer((host, port), functools.partial(handler, directory=str(site)))
    server.verbose = verbose
    server.missing = missing
    server.daemon_threads = True
    return server


def standings_only_note(results_dir: Path) -> str:
    """What a results folder without a store lacks, and how to get it."""
    try:
        source = json.loads((results_dir / "standings.json").read_text(encoding="utf-8"))["tournament"]["file"]
    except (OSError, ValueError, KeyError, TypeError):
        source = None
    again = f"`arena run {source}` makes it" if source else "`arena run` on its tournament file makes it"
    return (f"{results_dir} has no results store ({store_path(results_dir).name}): showing the published standings "
            f"only; the rating charts, fault details and replays need the store ({again}).")
