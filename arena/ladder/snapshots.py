"""What the ladder's pages show, rebuilt off the request path: the standings at most once
per `interval`, and the bot pages visited lately, by one background thread per server
process.

A `Snapshot` holds, per ruleset, the leaderboard (`arena.ladder.views.make_leaderboard`)
and what the pages render from it (`Snapshots.renderers`), all built at one
`db.generation` (the database's count of changes the pages show, kept by every server
process). Readers take the latest snapshot without a lock and never wait for a rebuild.
The builder (`Snapshots.start`) looks at the generation every `interval` seconds and
rebuilds when it moved, so what a page shows is at most `interval` plus one rebuild behind
the database. Without the builder running (a ladder used in-process, as the tests do), a
reader whose snapshot is behind the database builds the next one itself.

Bot pages (`PageCache`): a request serves the cached page of the bot (rendering it only if
it is not cached: never asked for, or not lately; `arena ladder serve` renders the ranked
bots' pages before it listens). Each rebuild marks the pages of
the bots whose games or versions changed out of date, and the builder renders them again,
those out of date longest first, spending at most `render_budget` of each interval on it
(a page costs milliseconds per thousand games), so a page lags its bot by about one
interval when few bots change at once and longer (`PageCache.stale_for`) under a flood of
results, without taking more than that share of a core from the requests.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Hashable, Mapping, NamedTuple

import sqlalchemy as sa

from arena.ladder.db import VERSIONS_GENERATION, game_seats, generation, setting_number, versions

if TYPE_CHECKING:
    from arena.ladder.service import Ladder

log = logging.getLogger(__name__)


class Stamp(NamedTuple):
    """Where the database was when a snapshot was built: its generation, its last game, and
    the generation of its versions (uploads, gates, disables)."""

    generation: int
    last_game: int
    versions: int


def stamp_of(conn: Any) -> Stamp:
    from arena.ladder.db import games

    return Stamp(generation(conn), int(conn.execute(sa.select(sa.func.max(games.c.id))).scalar() or 0),
                 setting_number(conn, VERSIONS_GENERATION))


class Snapshot(NamedTuple):
    """The pages' view of the ladder at `stamp` (see the module docstring)."""

    stamp: Stamp
    built: float  # time.time() when it was published
    boards: Mapping[str, dict[str, Any]]  # ruleset label -> leaderboard data
    rendered: Mapping[Hashable, Any]  # what `Snapshots.renderers` made of it


class _Page(NamedTuple):
    value: Any
    bot: str
    make: Callable[[], Any]
    used: float  # time.monotonic() of the last request
    stale: float | None  # since when its bot changed (None: up to date)


class PageCache:
    """Rendered pages by key, each tagged with the bot it shows (see the module docstring)."""

    keep = 600.0
    """Seconds a page stays cached without a request."""
    keep_stale = 30.0
    """A page whose bot changed is rendered again only if asked for in these last seconds
    (else forgotten: the next request renders it)."""
    most = 5000
    """Pages kept at most (the least lately asked for are forgotten first)."""

    def __init__(self) -> None:
        self._pages: dict[Hashable, _Page] = {}
        self._lock = threading.Lock()

    def peek(self, key: Hashable) -> Any:
        """The cached page `key` (up to date or not), or None: nothing blocks."""
        with self._lock:
            found = self._pages.get(key)
            if found is None:
                return None
            self._pages[key] = found._replace(used=time.monotonic())
            return found.value

    def get(self, key: Hashable, bot: str, make: Callable[[], Any]) -> Any:
        """The cached page `key` of bot `bot` (up to date or not), else `make()`, then cached."""
        now = time.monotonic()
        with self._lock:
            found = self._pages.get(key)
            if found is not None:
                self._pages[key] = found._replace(used=now)
                return found.value
        value = make()
        with self._lock:
            self._pages[key] = _Page(value, bot, make, now, None)
        return value

    def mark(self, changed: set[str] | None) -> None:
        """The `changed` bots' pages (None: every page) are out of date from now; pages not
        asked for lately are forgotten (`keep`, `keep_stale`, `most`)."""
        now = time.monotonic()
        with self._lock:
            by_use = sorted(self._pages.items(), key=lambda item: -item[1].used)
            for rank, (key, page) in enumerate(by_use):
                changes = changed is None or page.bot in changed
                if rank >= self.most or now - page.used > (self.keep_stale if changes else self.keep):
                    del self._pages[key]
                elif changes and page.stale is None:
                    self._pages[key] = page._replace(stale=now)

    def refresh(self, budget: float | None) -> int:
        """Render the out-of-date pages again, those out of date longest first, until `budget`
        seconds are spent (None: all of them); how many were rendered."""
        started = time.monotonic()
        with self._lock:
            due = sorted(((page.stale, key) for key, page in self._pages.items() if page.stale is not None),
                         key=lambda item: item[0])
        done = 0
        for _, key in due:
            if budget is not None and time.monotonic() - started >= budget:
                break
            with self._lock:
                page = self._pages.get(key)
            if page is None:
                continue
            try:
                value = page.make()
            except Exception:  # e.g. the bot is gone: the next request renders it and says why
                value = None
            with self._lock:
                if value is None:
                    self._pages.pop(key, None)
                elif key in self._pages:
                    self._pages[key] = self._pages[key]._replace(value=value, stale=None)
            done += 1
        return done

    def stale_for(self) -> float:
        """Seconds the longest out-of-date page has been so (0: none)."""
        now = time.monotonic()
        with self._lock:
            return max((now - page.stale for page in self._pages.values() if page.stale is not None), default=0.0)


class Snapshots:
    """The latest `Snapshot` of a ladder and the thread that rebuilds it (module docstring)."""

    def __init__(self, ladder: "Ladder", interval: float = 1.0, render_budget: float = 0.25):
        self.ladder, self.interval, self.render_budget = ladder, interval, render_budget
        self.renderers: dict[str, Callable[[Snapshot], Mapping[Hashable, Any]]] = {}
        """By name, each makes values a snapshot carries (e.g. a leaderboard's HTML) from its boards."""
        self.bot_pages = PageCache()
        self.current: Snapshot | None = None
        self.builds = 0
        self._build_lock = threading.RLock()  # a renderer may read the snapshot it is building
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add_renderer(self, name: str, render: Callable[[Snapshot], Mapping[Hashable, Any]]) -> None:
        """Carry `render(snapshot)`'s values in every snapshot from the next one on (made now)."""
        with self._build_lock:
            self.renderers[name] = render
            self.current = None
        if self._thread is not None:
            self.build()

    def running(self) -> bool:
        """Whether the builder runs (then `latest` never waits)."""
        return self._thread is not None

    def latest(self) -> Snapshot:
        """The latest snapshot (built now if there is none, or, without the builder running,
        if the database moved since)."""
        current = self.current
        if current is None or self._thread is None:
            return self.build()
        return current

    def build(self) -> Snapshot:
        """A new snapshot if the database moved since the latest (else the latest), published."""
        from arena.ladder.views import make_leaderboard

        with self._build_lock:
            with self.ladder.engine.connect() as conn:
                stamp = stamp_of(conn)  # read first: a change while building makes it stale, not wrong
            previous = self.current
            if previous is not None and previous.stamp == stamp:
                return previous
            boards = {label: make_leaderboard(self.ladder, label) for label in self.ladder.rulesets}
            rendered: dict[Hashable, Any] = {}
            snapshot = Snapshot(stamp, time.time(), boards, rendered)
            for render in list(self.renderers.values()):
                rendered.update(render(snapshot))
            self.current = snapshot
            self.builds += 1
            if previous is not None:
                self.bot_pages.mark(self._changed_bots(previous.stamp, stamp))
            if self._thread is None:  # no builder: the caller waits for every page to be up to date
                self.bot_pages.refresh(None)
        return snapshot

    def _changed_bots(self, before: Stamp, after: Stamp) -> set[str] | None:
        """The bots whose games changed between two stamps (None: every bot, versions changed)."""
        from arena.ladder.db import bots

        if after.versions != before.versions:
            return None
        with self.ladder.engine.connect() as conn:
            rows = conn.execute(sa.select(bots.c.name).distinct()
                                .join(versions, versions.c.bot == bots.c.id)
                                .join(game_seats, game_seats.c.version == versions.c.id)
                                .where(game_seats.c.game > before.last_game)).all()
        return {r.name for r in rows}

    def start(self) -> None:
        """Build the first snapshot now, then keep rebuilding on a daemon thread."""
        self.build()
        self._thread = threading.Thread(target=self._run, name="ladder-snapshots", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.build()
                self.bot_pages.refresh(self.render_budget * self.interval)
            except Exception:  # a database hiccup: the pages keep the last snapshot; try again
                log.exception("the ladder's snapshot was not rebuilt")
            self._stop.wait(max(0.0, started + self.interval - time.monotonic()))
