"""The ladder's database: SQLAlchemy Core tables, the engine, and schema migrations.

SQLite (a file in the ladder's folder, WAL) by default; PostgreSQL through psycopg 3
with ``postgresql://...``. Migrations are a versioned table of our own
(``ladder_schema``): `MIGRATIONS` is an ordered list of functions, each run once, in
one transaction with the version row it bumps. (Alembic would need a script folder and
env.py shipped as package data for what is, so far, one migration; a later move to
Alembic stamps its baseline revision at `SCHEMA_VERSION`.)

Every write of the service runs under the database's write lock (`begin_writing`, `take_write_lock`:
SQLite's ``BEGIN IMMEDIATE``, a PostgreSQL advisory lock), so writes from several server processes
(``arena ladder serve --processes N``) happen one at a time and games commit in id order.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Engine

from arena.errors import ConfigError
from arena.ladder.prebuilt import prebuilt

metadata = sa.MetaData()

people = sa.Table(
    "people", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("admin", sa.Boolean, nullable=False, default=False),
    sa.Column("created", sa.Float, nullable=False),
)

tokens = sa.Table(
    "tokens", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("person", sa.Integer, sa.ForeignKey("people.id"), nullable=False),
    sa.Column("scope", sa.String(16), nullable=False),
    sa.Column("digest", sa.String(64), nullable=False, unique=True),  # sha256 of the secret, never the secret
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("revoked", sa.Float, nullable=True),
)

invitations = sa.Table(
    "invitations", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("digest", sa.String(64), nullable=False, unique=True),
    sa.Column("invited_by", sa.Integer, sa.ForeignKey("people.id"), nullable=False),
    sa.Column("used_by", sa.Integer, sa.ForeignKey("people.id"), nullable=True),
    sa.Column("created", sa.Float, nullable=False),
)

bots = sa.Table(
    "bots", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("owner", sa.Integer, sa.ForeignKey("people.id"), nullable=False),
    sa.Column("current", sa.Integer, nullable=True),  # the version scheduling plays (its last passing one)
    sa.Column("created", sa.Float, nullable=False),
)

blobs = sa.Table(
    "blobs", metadata,  # uploads, content-addressed
    sa.Column("sha256", sa.String(64), primary_key=True),
    sa.Column("filename", sa.String(200), nullable=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
)

versions = sa.Table(
    "versions", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("bot", sa.Integer, sa.ForeignKey("bots.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("content", sa.String(64), nullable=False, unique=True),  # arena.submissions.content_sha256
    sa.Column("blob", sa.String(64), sa.ForeignKey("blobs.sha256"), nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("state", sa.String(16), nullable=False),  # pending, passed, failed
    sa.Column("label", sa.String(200), nullable=False, default=""),  # "<declared version>+sha256.<12>" once built
    sa.Column("package", sa.String(200), nullable=False, default=""),  # its distribution, as its probe reported
    sa.Column("rulesets", sa.Text, nullable=False, default="[]"),  # JSON: the ladder rulesets it plays
    sa.Column("gate_log", sa.Text, nullable=False, default=""),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("gated", sa.Float, nullable=True),
    sa.UniqueConstraint("bot", "number"),
)

tasks = sa.Table(
    "tasks", metadata,  # the work queue: gate runs and games, leased to workers in batches
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("key", sa.String(80), nullable=False, unique=True),  # a game's identity key, or "gate-<content>"
    sa.Column("kind", sa.String(8), nullable=False),  # gate, game
    sa.Column("spec", sa.Text, nullable=False),  # JSON: what the worker needs to play it
    sa.Column("state", sa.String(8), nullable=False),  # queued, leased, done, failed
    sa.Column("lease", sa.String(64), nullable=True),
    sa.Column("expires", sa.Float, nullable=True),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),
    sa.Column("created", sa.Float, nullable=False),
)

games = sa.Table(
    "games", metadata,  # one row per game identity; id is the arrival order ratings follow
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("key", sa.String(64), nullable=False, unique=True),
    sa.Column("ruleset", sa.String(100), nullable=False),
    sa.Column("seats", sa.Text, nullable=False),  # JSON: version id per seat
    sa.Column("deal", sa.Integer, nullable=False),
    sa.Column("rotation", sa.Integer, nullable=False),
    sa.Column("result", sa.Text, nullable=False),  # JSON: standing, scores, faults per seat
    sa.Column("record", sa.LargeBinary, nullable=False),  # zlib of the record's JSON
    sa.Column("gate", sa.Integer, nullable=True),  # the version whose gate played it (not rated)
    sa.Column("created", sa.Float, nullable=False),
)

sa.Index("tasks_state", tasks.c.state, tasks.c.id)
sa.Index("games_ruleset", games.c.ruleset, games.c.id)
games_rated = sa.Index("games_rated", games.c.gate, games.c.id)
"""The rated games (gate NULL) in arrival order: the refit counts and reads them on every
standings change, which scanned every stored record without it (schema step 3)."""

# -- schema version 2: the web pages (issue 40) ---------------------------------------------

passwords = sa.Table(
    "passwords", metadata,  # a person's sign-in password for the web pages, as its argon2 hash
    sa.Column("person", sa.Integer, sa.ForeignKey("people.id"), primary_key=True),
    sa.Column("hash", sa.String(200), nullable=False),
    sa.Column("changed", sa.Float, nullable=False),  # sessions signed in before this are refused
)

settings = sa.Table(
    "settings", metadata,  # the ladder's switches (paused, frozen) and its session-signing key
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

disabled = sa.Table(
    "disabled", metadata,  # bots and versions an admin took out of play ("bot" or "version", its id)
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("ref", sa.Integer, primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
)

game_seats = sa.Table(
    "game_seats", metadata,  # each stored game's versions by seat: a bot page reads its games by index
    sa.Column("game", sa.Integer, sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("version", sa.Integer, nullable=True),  # None: a built-in (random in a gate game)
)

lease_holders = sa.Table(
    "lease_holders", metadata,  # who took each lease (the admin page's workers)
    sa.Column("lease", sa.String(64), primary_key=True),
    sa.Column("person", sa.Integer, sa.ForeignKey("people.id"), nullable=False),
    sa.Column("taken", sa.Float, nullable=False),
)

sa.Index("game_seats_version", game_seats.c.version, game_seats.c.game)
sa.Index("lease_holders_taken", lease_holders.c.taken)

schema = sa.Table(
    "ladder_schema", metadata,
    sa.Column("version", sa.Integer, nullable=False),
)


def inserted_id(result: Any) -> int:
    """The primary key of the row an INSERT made."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def _create_v1(conn: Connection) -> None:
    metadata.create_all(conn, tables=[t for t in metadata.sorted_tables if t is not schema])


def _web_v2(conn: Connection) -> None:
    """The web pages' tables, and `game_seats` filled from the games already stored."""
    metadata.create_all(conn, tables=[passwords, settings, disabled, game_seats, lease_holders])  # checkfirst
    import json

    done = conn.execute(sa.select(sa.func.count()).select_from(game_seats)).scalar()
    if done:
        return
    for row in conn.execute(sa.select(games.c.id, games.c.seats).order_by(games.c.id)).all():
        conn.execute(game_seats.insert(), [{"game": row.id, "seat": seat, "version": version}
                                           for seat, version in enumerate(json.loads(row.seats))])


def _rated_v3(conn: Connection) -> None:
    """The index of the rated games in arrival order (`games_rated`)."""
    games_rated.create(conn, checkfirst=True)


MIGRATIONS: list[Callable[[Connection], None]] = [_create_v1, _web_v2, _rated_v3]
SCHEMA_VERSION = len(MIGRATIONS)


WRITE_LOCK = 40_040
"""The PostgreSQL advisory lock key every write transaction of the ladder takes."""


def take_write_lock(conn: Connection) -> None:
    """Hold the database's write lock until `conn`'s transaction ends: the first statement of
    every write transaction, so that writes from several processes run one at a time and a
    game's id order is its commit order (ratings read games in id order)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")  # pysqlite has not begun one yet: no statement ran
    else:
        prebuilt(conn, "write_lock", lambda: _ADVISORY_LOCK).run(conn, {"key": WRITE_LOCK})


_ADVISORY_LOCK = sa.text("SELECT pg_advisory_xact_lock(:key)")


def begin_writing(conn: Connection, counters: Sequence[str] = ()) -> None:
    """Begin `conn`'s write transaction holding the database's write lock (`take_write_lock`),
    with one added to each `settings` counter named in `counters` (`bump_setting`): the first
    statements of every write transaction (`Ladder.writing`). On PostgreSQL `conn` is in
    autocommit (`write_transactions`) and its BEGIN, the advisory lock and the counters are sent
    at once, in a psycopg pipeline: one round trip, where the driver's own BEGIN, the lock and
    each counter took one each (under load each round trip is a point where the storing thread
    gives up the GIL and waits to get it back, with the write lock held)."""
    if conn.dialect.name == "sqlite":
        take_write_lock(conn)
        for name in counters:
            bump_setting(conn, name)
        return
    driver = conn.connection.driver_connection
    assert driver is not None and driver.autocommit, "a write transaction's connection is in autocommit"
    lock, counted = prepare_writing(conn)
    with driver.pipeline():
        driver.execute("BEGIN")
        lock.send(driver.cursor(), {"key": WRITE_LOCK})
        for name in counters:
            counted.send(driver.cursor(), {"setting": name})


def prepare_writing(conn: Connection) -> tuple[Any, Any]:
    """The write lock's and a counter's statements as `conn`'s driver SQL (`prebuilt`: compiled
    on first use, so a process may compile them before its first write)."""
    if conn.dialect.name == "sqlite":
        return None, prebuilt(conn, "bump", lambda: _BUMP)
    return prebuilt(conn, "write_lock", lambda: _ADVISORY_LOCK), prebuilt(conn, "count_change", lambda: _COUNT_CHANGE)


class WriterQueue:
    """SQLite: an exclusive lock (flock) on a file beside the database, taken before a write
    transaction's ``BEGIN IMMEDIATE`` (`Ladder.writing`), so that writers in several processes
    wait in the kernel's queue, each woken as the one before it lets go, instead of retrying in
    SQLite's busy handler, whose sleeps grow to 100 ms (two worker listeners' results waited for
    them: p99 204 ms). PostgreSQL: nothing (its advisory lock queues writers already). Callers
    hold their process's own write lock around it (one thread at a time); each process opens
    the file for itself (a lock held through a descriptor inherited by fork would be shared)."""

    def __init__(self, engine: Engine):
        database = engine.url.database if engine.dialect.name == "sqlite" else None
        self.path = f"{database}-writers" if database and database != ":memory:" else None
        self._descriptor: tuple[int, int] | None = None  # (pid, fd) of this process's open file
        self._held = 0  # turns taken and not given back (nested: the outer one holds the lock)

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Hold this process's turn to write (at once where there is no file to queue on)."""
        if self.path is None or self._held:
            self._held += 1
            try:
                yield
            finally:
                self._held -= 1
            return
        if self._descriptor is None or self._descriptor[0] != os.getpid():
            self._descriptor = (os.getpid(), os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
        descriptor = self._descriptor[1]
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        self._held = 1
        try:
            yield
        finally:
            self._held = 0
            fcntl.flock(descriptor, fcntl.LOCK_UN)


GENERATION = "generation"
"""The `settings` row counting changes of what the pages show (results, uploads, gates, disables)."""
VERSIONS_GENERATION = "versions_generation"
"""The `settings` row counting the changes among them that are not only new games."""


def setting_number(conn: Connection, name: str) -> int:
    return int(conn.execute(sa.select(settings.c.value).where(settings.c.name == name)).scalar() or 0)


def changed_counters(versions: bool = False) -> tuple[str, ...]:
    """The `settings` counters a change of what the pages show adds one to (`begin_writing`);
    `versions`: more than new games (a version uploaded, gated or disabled)."""
    return (GENERATION, VERSIONS_GENERATION) if versions else (GENERATION,)


def bump_setting(conn: Connection, name: str) -> None:
    """Add one to the `settings` counter `name` (in the writing transaction)."""
    counted = prebuilt(conn, "bump", lambda: _BUMP).run(conn, {"setting": name}).rowcount
    if not counted:
        conn.execute(settings.insert().values(name=name, value="1"))


_BUMP = settings.update().where(settings.c.name == sa.bindparam("setting")).values(
    value=sa.cast(sa.cast(settings.c.value, sa.Integer) + 1, sa.String))
_COUNT_CHANGE = postgresql.insert(settings).values(name=sa.bindparam("setting"), value="1").on_conflict_do_update(
    index_elements=[settings.c.name], set_={"value": sa.cast(sa.cast(settings.c.value, sa.Integer) + 1, sa.String)})
"""`bump_setting` in one statement (PostgreSQL's upsert): a pipeline's statements cannot depend on
one another's row counts."""


def generation(conn: Connection) -> int:
    """The count of changes of what the pages show (0: none yet)."""
    return setting_number(conn, GENERATION)


def database_url(db: str | None, folder: Path) -> str:
    """The SQLAlchemy URL of `db` (None: SQLite in `folder`; ``postgresql://`` uses psycopg 3)."""
    if db is None:
        return f"sqlite:///{(folder / 'ladder.db').resolve()}"
    if db.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + db.split("://", 1)[1]
    if db.startswith(("sqlite:///", "postgresql+psycopg://")):
        return db
    raise ConfigError(f"--db {db.split(':', 1)[0]}:...: give postgresql://... or sqlite:///PATH")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")  # a committed game survives a power cut, not only kill -9
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


IDLE_PING_SECONDS = 2.0
"""A pooled PostgreSQL connection idle for longer than this is pinged before it is used again."""


def _ping_after_idle(engine: Engine) -> None:
    """Ping a PostgreSQL connection at checkout only if it sat in the pool for more than
    `IDLE_PING_SECONDS` or the server sent it something while it sat there; a dead one is
    replaced (the pool's documented pessimistic handling: `DisconnectionError` at checkout
    makes it connect again). A ping at every checkout (``pool_pre_ping``) cost a round trip
    per statement group under load, where connections go back and out within milliseconds.
    What it guards against, a server restarted or a backend ended while the connection sat in
    the pool, is still caught however short the wait: the server's end closes the socket, which
    is then readable (`_server_spoke`, one poll, no round trip). (A connection that breaks while
    in use fails its request, as with ``pool_pre_ping``, and SQLAlchemy then discards the
    pool's connections.)"""
    import time

    def returned(dbapi_connection: Any, record: Any) -> None:
        record.info["returned"] = time.monotonic()

    def checked_out(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        since = record.info.pop("returned", None)
        if since is None or (time.monotonic() - since <= IDLE_PING_SECONDS and not _server_spoke(dbapi_connection)):
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:  # the driver's error: the connection is gone
            raise sa.exc.DisconnectionError(str(exc)) from exc

    sa.event.listen(engine, "checkin", returned)
    sa.event.listen(engine, "checkout", checked_out)


def _server_spoke(dbapi_connection: Any) -> bool:
    """Whether an idle connection's socket has something to read: with no query out, that is the
    server's end (EOF, a termination notice) or a notice; either way worth a ping. True when the
    socket cannot be polled (closed: the ping then finds it dead)."""
    import select

    try:
        poller = select.poll()
        poller.register(dbapi_connection.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except Exception:  # OSError, ValueError, or psycopg's OperationalError on a closed connection
        return True


POOL_SIZE = 16
"""Connections a process keeps open (SQLAlchemy's default is 5, with up to 10 more opened for a
burst and closed after it): the worker listener checks a burst of results in up to 16 threads
at once, and with 5 kept each burst opened and closed connections again, a new PostgreSQL
backend each (27 in 160 results under the load benchmark)."""


def connect(url: str) -> Engine:
    """An engine on `url`, its schema migrated to `SCHEMA_VERSION`. SQLite connections are
    never pinged (a file: nothing to lose); PostgreSQL ones after they sat idle (`_ping_after_idle`)."""
    engine = sa.create_engine(url, pool_size=POOL_SIZE)
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_pragmas)
    else:
        _ping_after_idle(engine)
    try:
        migrate(engine)
    except sa.exc.OperationalError as exc:
        raise ConfigError(f"cannot open the ladder database {engine.url.render_as_string()}: "
                          f"{str(exc.orig).strip().splitlines()[0]}") from None
    return engine


def single_reads(engine: Engine) -> Engine:
    """`engine` for reads of one statement: on PostgreSQL in autocommit, so that a lone SELECT
    is one round trip (no BEGIN before it, no ROLLBACK when the connection goes back); SQLite's
    as it is (no round trips to save, and its isolation reset would cost a PRAGMA)."""
    return _autocommit_on_postgresql(engine)


def write_transactions(engine: Engine) -> Engine:
    """`engine` for write transactions, each begun by `begin_writing` itself: on PostgreSQL in
    autocommit (the driver sends no BEGIN of its own; ours goes with the write lock, and
    SQLAlchemy's commit or rollback ends the transaction as before); SQLite's as it is (its
    ``BEGIN IMMEDIATE`` is ours already)."""
    return _autocommit_on_postgresql(engine)


def _autocommit_on_postgresql(engine: Engine) -> Engine:
    return engine if engine.dialect.name == "sqlite" else engine.execution_options(isolation_level="AUTOCOMMIT")


def migrate(engine: Engine) -> int:
    """Run the migrations `engine`'s database has not had; its schema version after."""
    with engine.begin() as conn:
        schema.create(conn, checkfirst=True)
        found = conn.execute(sa.select(schema.c.version)).scalar()
        if found is None:
            conn.execute(schema.insert().values(version=0))
            found = 0
        if found > SCHEMA_VERSION:
            raise ConfigError(f"the ladder database has schema version {found}, newer than this arena's "
                              f"{SCHEMA_VERSION}: upgrade flip-arena")
        for step in MIGRATIONS[found:]:
            step(conn)
        conn.execute(schema.update().values(version=SCHEMA_VERSION))
    return SCHEMA_VERSION
