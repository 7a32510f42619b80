"""The results store: one SQLite file (``games.sqlite``) per tournament.

WAL journal, one committed row per finished game (committed per small batch),
so a killed run loses no stored game and a rerun resumes where it stopped. A game
is keyed by what was played (`arena.identity.GameIdentity`: ruleset label, the
entries in seat order with their versions, deal key, rotation): its ``game_key``
is the primary key, so a game cannot be stored twice, and extending the file,
stopping early or any scheduler only adds rows; none is ever renumbered or moved.
``meta`` holds the plan (entries, rulesets, versions), the tournament file and its
hash, and the seed; the file is created readable by its owner only, since a secret
seed lives in it until the tournament is complete.

Readers see the games in the order of the store's current plan, numbered by
schedule index (`arena.placement`; a per-connection table ``placed`` maps each
row to its place, and leaves out games past a stop's cut). Records are packed
(`pack_record`) with a preset dictionary made from the plan (meta
``record_zdict``); each game's `result_hash` covers its identity key, seating,
standing, scores, faults and forfeits (`arena.verify` checks it against a replay).
A luck-adjusted ruleset's corrections are in ``luck``, keyed by the game's key.

Schema version: ``PRAGMA user_version`` (`SCHEMA_VERSION` = 4). Stores of versions
1-3 (keyed by schedule index; arena.store_migration) are migrated: in place when a
run opens them to play (`Store.open(..., migrate=True)`), into a copy in memory when
they are only read, so a committed store is never rewritten by reading it.

A store that cannot be read as written (meta that is not JSON, a malformed
plan, a result row or record blob that does not decode) raises `StoreError`:
one line naming the store and, for a game, its schedule index.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
import zlib
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, NamedTuple, Sequence

import msgspec

from arena.errors import ConfigError
from arena.records import plan_problem, record_problem

if TYPE_CHECKING:
    from arena.placement import Placement

SCHEMA_VERSION = 4
READABLE_VERSIONS = (1, 2, 3, 4)
STORE_NAME = "games.sqlite"
ZDICT_KEY = "record_zdict"

_SCHEMA = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE games (
    game_key TEXT PRIMARY KEY,       -- arena.identity.GameIdentity.key: what was played
    identity TEXT NOT NULL,          -- its canonical text
    ruleset TEXT NOT NULL,           -- the ruleset's label
    table_entries TEXT NOT NULL,     -- JSON: the table's entry names in table order (the rotation undone)
    deal INTEGER NOT NULL,           -- the deal index
    repeat INTEGER NOT NULL,         -- 0, or n for the n-th repeat of a sampled table at this deal
    rotation INTEGER NOT NULL,
    result TEXT NOT NULL,            -- JSON [seats (entry names), standing, scores, faults]
    transcript_hash TEXT NOT NULL,
    record BLOB NOT NULL,            -- the full game record (arena.match), packed
    result_hash TEXT,                -- `result_hash` of the game
    run INTEGER NOT NULL,            -- which run of `arena run` played it (1, 2, ...)
    stored_at REAL NOT NULL
);
CREATE TABLE luck (
    game_key TEXT PRIMARY KEY,       -- the game's game_key in games
    corrections TEXT NOT NULL        -- JSON [[float]]: per ordered seat pair (a, b), the summed correction
);
"""

_PLACED = """
CREATE TEMP TABLE IF NOT EXISTS placed (
    row INTEGER PRIMARY KEY,         -- the game's rowid in games
    game_index INTEGER NOT NULL UNIQUE,  -- its place in the current plan's schedule
    ruleset INTEGER NOT NULL,
    table_index INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    counted INTEGER NOT NULL         -- 0: past its ruleset's stop (stored, but out of the standings)
);
"""

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


class StoreError(ConfigError):
    """A results store that cannot be read as written, or whose rows disagree with their records."""


class GameRow(NamedTuple):
    """What ratings need from one stored game. `table` and `deal` name the game's deal
    (with its ruleset: all rotations of one deal share them); None where unknown, and
    then the game counts as a deal of its own."""

    index: int  # type: ignore[assignment]  # a NamedTuple field may shadow tuple.index
    ruleset: int
    seats: list[int]
    standing: list[int]
    scores: list[float]
    faults: list[int]
    table: int | None = None
    deal: int | None = None


class StoredGame(NamedTuple):
    """A finished game as a worker hands it back: compact result plus the encoded record."""

    index: int  # type: ignore[assignment]  # a NamedTuple field may shadow tuple.index
    ruleset: int
    table: int
    deal: int
    rotation: int
    result: bytes  # JSON [seats, standing, scores, faults]
    transcript_hash: str
    record: bytes  # JSON record
    result_hash: str | None = None  # `result_hash` of the game (stored from schema version 3 on)
    luck: bytes | None = None  # JSON of its luck corrections (arena.luck), for a ruleset played "adjusted"


class StoredRow(NamedTuple):
    """One stored game as it is in the store, for checking it (`arena.verify`):
    `result_hash` is None in stores before schema version 3."""

    index: int  # type: ignore[assignment]  # a NamedTuple field may shadow tuple.index
    ruleset: int
    table: int
    deal: int
    rotation: int
    result: GameRow
    transcript_hash: str
    result_hash: str | None
    record: dict[str, Any]
    key: str | None = None       # the game's identity key (None: a row of a store before schema version 4)
    names: tuple[str, ...] = ()  # the seats' entry names


def stored_result_hash(row: StoredRow, record: Mapping[str, Any], faults: Sequence[int]) -> str:
    """The `result_hash` a stored row should hold, from its record: over its identity key
    and seats' entry names (schema version 4 on), else its schedule index and entry numbers."""
    if row.key is not None:
        return record_result_hash(row.key, row.names, record, faults)
    return record_result_hash(row.index, row.result.seats, record, faults)


def result_hash(index: int | str, seats: Sequence[int | str], seat_records: Sequence[Any], standing: Sequence[int],
                scores: Sequence[float], faults: Sequence[int], forfeited: Sequence[int],
                transcript_hash: str) -> str:
    """SHA-256 over a game's result: the game (its identity key from schema version 4 on;
    before, its schedule index), the seating (the entry's name, before: its number, and
    the record's bot identity at each seat), standing, scores, faults per seat, forfeited
    seats, and the transcript hash that ties it to the game played. Canonical JSON, so
    it is the same on every platform."""
    essence = {"game": index, "seating": [[entry, who] for entry, who in zip(seats, seat_records)],
               "standing": list(standing), "scores": list(scores), "faults": list(faults),
               "forfeited": list(forfeited), "transcript_hash": transcript_hash}
    text = json.dumps(essence, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def record_result_hash(index: int | str, seats: Sequence[int | str], record: Mapping[str, Any],
                       faults: Sequence[int]) -> str:
    """`result_hash` of a game from its record (outcome, seats, forfeits) and its seating."""
    outcome = record["outcome"]
    return result_hash(index, seats, record["seats"], outcome["standing"], outcome["scores"], faults,
                       record.get("forfeited") or [], record["transcript_hash"])


def encode(value: Any) -> bytes:
    """Compact JSON (msgspec)."""
    return _encoder.encode(value)


def decode(data: bytes | str) -> Any:
    return _decoder.decode(data)


def store_path(results_dir: str | Path) -> Path:
    return Path(results_dir) / STORE_NAME


class Store:
    """An open results store (always of schema version `SCHEMA_VERSION`: an older one is
    migrated when opened; `migrated_from` then says which version it was)."""

    def __init__(self, path: Path, connection: sqlite3.Connection, migrated_from: int | None = None):
        self.path = path
        self.db = connection
        self.version = connection.execute("PRAGMA user_version").fetchone()[0]
        self.migrated_from = migrated_from
        self._zdict = self.get(ZDICT_KEY, "").encode()
        self._placement: Placement | None = None
        self._last_row = 0              # the last games rowid placed
        self._cuts: dict[int, int] = {}  # ruleset -> deals it stopped at, as placed

    # -- opening -------------------------------------------------------------

    @classmethod
    def create(cls, path: str | Path, meta: dict[str, Any]) -> "Store":
        """Make a new store at `path` (which must not exist) holding `meta`."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Owner-only from the first byte: a secret seed goes in. SQLite gives the
        # -wal and -shm files the same permissions as the database file.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        db = _connect(path)
        meta = dict(meta)
        meta.setdefault(ZDICT_KEY, record_zdict(meta.get("plan")))
        with db:
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                           [(k, json.dumps(v)) for k, v in meta.items()])
        return cls(path, db)

    @classmethod
    def open(cls, path: str | Path, migrate: bool = False) -> "Store":
        """Open an existing store; ConfigError if it is not one, or of an unknown schema
        version. A store of version 1-3 is migrated (arena.store_migration): in place
        if `migrate` (a run that will add to it), else into a copy in memory."""
        from arena.store_migration import check_columns, migrate_store

        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"{path}: no results store here (run `arena run` first)")
        try:
            db = sqlite3.connect(str(path), check_same_thread=False)  # no WAL switch yet: reading rewrites nothing
            db.execute("PRAGMA busy_timeout = 10000")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{path}: not a results store ({exc})") from None
        problem = check_columns(db, version, tables)
        if problem:
            db.close()
            raise ConfigError(f"{path}: {problem}")
        if version == SCHEMA_VERSION or migrate:
            db.close()
            db = _connect(path)
        if version == SCHEMA_VERSION:
            return cls(path, db)
        if not migrate:
            copy = sqlite3.connect(":memory:", check_same_thread=False)
            db.backup(copy)
            db.close()
            db = copy
        try:
            migrate_store(db, path, version)
        except BaseException:
            db.close()
            raise
        return cls(path, db, migrated_from=version)

    @staticmethod
    def remove(path: str | Path) -> None:
        """Delete a store and its WAL files."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.remove(f"{path}{suffix}")
            except FileNotFoundError:
                pass

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- meta ----------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """Every meta value; StoreError if one is not JSON."""
        return {key: self._json(key, value) for key, value in self._read("SELECT key, value FROM meta")}

    def get(self, key: str, default: Any = None) -> Any:
        """One meta value (`default` if absent); StoreError if it is not JSON."""
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return default if not rows else self._json(key, rows[0][0])

    def _json(self, key: str, text: Any) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{self.path}: meta {key!r} is not JSON ({_first_line(exc)})") from None

    def plan(self) -> dict[str, Any]:
        """The plan (see arena.runner.make_plan), checked for what rating and
        publishing read; StoreError naming the first problem otherwise."""
        plan = self.get("plan")
        problem = plan_problem(plan)
        if problem:
            raise StoreError(f"{self.path}: its plan is malformed: {problem}")
        return plan

    def set(self, key: str, value: Any) -> None:
        self.set_many({key: value})

    def set_many(self, values: Mapping[str, Any]) -> None:
        """Set meta values in one transaction. A new plan or seed places every game anew
        (an extended file: the same rows, their places in the new schedule)."""
        with self.db:
            self.db.executemany("INSERT INTO meta (key, value) VALUES (?, ?) "
                                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                                [(key, json.dumps(value)) for key, value in values.items()])
        if "plan" in values or "seed" in values:
            self.replace_placement()

    # -- where games sit in the plan's schedule ---------------------------------

    def placement(self) -> "Placement":
        """The identities and places of the current plan's games (arena.placement)."""
        if self._placement is None:
            from arena.placement import Placement

            try:
                self._placement = Placement(self.plan(), self.get("seed", 0))
            except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
                raise StoreError(f"{self.path}: its plan does not give a schedule ({_first_line(exc)})") from None
        return self._placement

    def replace_placement(self) -> None:
        """Forget every game's place: the next read places them by the plan as it is now."""
        self._placement = None
        self._last_row = 0
        self._cuts = {}
        with self.db:
            self.db.execute("DROP TABLE IF EXISTS temp.placed")

    def _sync(self) -> None:
        """Place the games stored since the last read (by any connection), and mark those
        past a stop (arena.stopping) as not counted."""
        placement = self.placement()
        with self.db:
            self.db.executescript(_PLACED) if self._last_row == 0 else None
            new = self._read("SELECT rowid, game_key, ruleset, table_entries, deal, repeat, rotation FROM games "
                             "WHERE rowid > ? ORDER BY rowid", (self._last_row,))
            cuts = _stopped(self)
            rows = []
            for rowid, key, label, table, deal, repeat, rotation in new:
                place = placement.place(label, tuple(self._json("table_entries", table)), deal, repeat, rotation)
                if place is None:
                    raise StoreError(f"{self.path}: game {key[:12]} ({label}, table {table}, deal {deal}, rotation "
                                     f"{rotation}) has no place in its plan's schedule")
                cut = cuts.get(place.ruleset)
                rows.append((rowid, *place, int(cut is None or deal < cut)))
            self.db.executemany("INSERT INTO placed (row, game_index, ruleset, table_index, deal, rotation, counted) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            for ruleset, deals in cuts.items():
                if self._cuts.get(ruleset) != deals:
                    self.db.execute("UPDATE placed SET counted = (deal < ?) WHERE ruleset = ?", (deals, ruleset))
        self._cuts = cuts
        if new:
            self._last_row = new[-1][0]

    def _placed(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """`_read` after placing the games stored since the last read."""
        self._sync()
        return self._read(sql, args)

    # -- games ---------------------------------------------------------------

    def add(self, games: Iterable[StoredGame], run: int) -> int:
        """Store finished games in one transaction; return how many. A game already
        stored is an error (sqlite3.IntegrityError): the runner never plays one twice.
        Each game's identity and result hash come from its place in the plan; games with
        luck corrections get their luck rows in the same transaction."""
        placement = self.placement()
        now = time.time()
        rows, lucky = [], []
        for g in games:
            identity = placement.identity(g.ruleset, g.table, g.deal, g.rotation)
            seats, standing, scores, faults = self._result(g.index, g.result, placement)
            if [placement.names[e] for e in seats] != list(identity.names):
                raise StoreError(f"{self.path}: game {g.index}: its seats {seats} are not its place's "
                                 f"{list(identity.names)}")
            record = _decoder.decode(g.record)
            names = list(identity.names)
            hashed = record_result_hash(identity.key, names, record, faults) if _is_record(record) else None
            rows.append((identity.key, identity.canonical(), identity.ruleset, encode(list(identity.table())).decode(),
                         g.deal, placement.repeat(g.ruleset, g.table), g.rotation,
                         encode([names, standing, scores, faults]).decode(), g.transcript_hash,
                         _pack(record, self._zdict), hashed, run, now))
            if g.luck is not None:
                lucky.append((identity.key, g.luck.decode()))
        with self.db:
            self.db.executemany("INSERT INTO games (game_key, identity, ruleset, table_entries, deal, repeat, rotation, "
                                "result, transcript_hash, record, result_hash, run, stored_at) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            self.db.executemany("INSERT OR REPLACE INTO luck (game_key, corrections) VALUES (?, ?)", lucky)
        return len(rows)

    def _result(self, index: int, result: bytes, placement: "Placement") -> tuple[list[int], Any, Any, Any]:
        try:
            seats, standing, scores, faults = _decoder.decode(result)
            if not all(type(e) is int and 0 <= e < len(placement.names) for e in seats):
                raise ValueError("its seats are not entries of the plan")
        except (TypeError, ValueError, msgspec.DecodeError) as exc:
            raise StoreError(f"{self.path}: game {index}: its result is malformed ({_first_line(exc)})") from None
        return seats, standing, scores, faults

    def count(self) -> int:
        """Stored games the standings count (those past a stop's cut left out)."""
        return self._placed("SELECT COUNT(*) FROM placed WHERE counted")[0][0]

    def done_mask(self, total: int) -> bytearray:
        """A bitmap of the scheduled games (bit ``i % 8`` of byte ``i // 8``): set if stored.
        An eighth of a byte per game, so even a schedule of millions stays small."""
        mask = bytearray((total + 7) // 8)
        self._sync()
        try:
            for (index,) in self.db.execute("SELECT game_index FROM placed"):
                if 0 <= index < total:
                    mask[index >> 3] |= 1 << (index & 7)
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        return mask

    def rows(self, start: int = 0, limit: int = 2000, ruleset: int | None = None,
             end: int | None = None) -> list[GameRow]:
        """Stored games with schedule index from `start` (to `end`, excluded), in
        schedule order, at most `limit`; only those of ruleset entry `ruleset` if given."""
        where, args = "p.counted AND p.game_index >= ?", [start]
        if end is not None:
            where, args = where + " AND p.game_index < ?", args + [end]
        if ruleset is not None:
            where, args = where + " AND p.ruleset = ?", args + [ruleset]
        found = self._placed(f"SELECT p.game_index, p.ruleset, g.result, p.table_index, p.deal FROM placed p "
                             f"JOIN games g ON g.rowid = p.row WHERE {where} ORDER BY p.game_index LIMIT ?",
                             (*args, limit))
        return [self._game_row(index, ruleset, result)._replace(table=table, deal=deal)
                for index, ruleset, result, table, deal in found]

    def _game_row(self, index: int, ruleset: Any, result: Any) -> GameRow:
        entry_of = self.placement().entry_of
        try:
            names, standing, scores, faults = _decoder.decode(result)
            if not (type(ruleset) is int and type(names) is list and names and
                    len(names) == len(standing) == len(scores) == len(faults)):
                raise ValueError("not four lists of one length")
            seats = [entry_of[name] for name in names]
        except (TypeError, ValueError, KeyError, msgspec.DecodeError) as exc:
            raise StoreError(f"{self.path}: game {index}: its result row is malformed ({_first_line(exc)})") from None
        return GameRow(index, ruleset, seats, standing, scores, faults)

    def iter_rows(self, chunk: int = 5000) -> Iterator[GameRow]:
        start = 0
        while batch := self.rows(start, chunk):
            yield from batch
            start = batch[-1].index + 1

    def record(self, index: int) -> dict[str, Any] | None:
        """Stored game `index`'s record (None if not stored); StoreError if its blob does
        not unpack to a game record."""
        rows = self._placed("SELECT g.record FROM placed p JOIN games g ON g.rowid = p.row WHERE p.game_index = ?",
                            (index,))
        return None if not rows else self._record(index, rows[0][0])

    def key(self, index: int) -> str | None:
        """The identity key of the game at schedule index `index` (None if not stored)."""
        rows = self._placed("SELECT g.game_key FROM placed p JOIN games g ON g.rowid = p.row WHERE p.game_index = ?",
                            (index,))
        return rows[0][0] if rows else None

    def _record(self, index: int, blob: Any) -> dict[str, Any]:
        try:
            record, pairs = _unpack(blob, self._zdict)
        except Exception as exc:  # zlib.error, msgspec.DecodeError, ValueError, TypeError: all a corrupt blob
            raise StoreError(f"{self.path}: game {index}: its record blob is corrupt "
                             f"({type(exc).__name__}: {_first_line(exc)})") from None
        # Decisions unpacked from a table of pairs are checked once per pair, not per decision.
        problem = record_problem(record, decisions=pairs is None) or _pairs_problem(pairs, record["players"])
        if problem:
            raise StoreError(f"{self.path}: game {index}: its record is malformed: {problem}")
        return record

    def stored_rows(self, chunk: int = 500, start: int | None = None, end: int | None = None) -> Iterator[StoredRow]:
        """Every counted stored game with schedule index in [start, end) (None: no bound),
        in schedule order, as stored (decoded and shape-checked; StoreError naming the game otherwise)."""
        start = 0 if start is None else start
        while True:
            where, args = "p.counted AND p.game_index >= ?", [start]
            if end is not None:
                where, args = where + " AND p.game_index < ?", args + [end]
            batch = self._placed(
                "SELECT p.game_index, p.ruleset, p.table_index, p.deal, p.rotation, g.result, g.transcript_hash, "
                f"g.result_hash, g.record, g.game_key FROM placed p JOIN games g ON g.rowid = p.row WHERE {where} "
                "ORDER BY p.game_index LIMIT ?", (*args, chunk))
            for index, ruleset, table, deal, rotation, result, transcript, hashed, blob, key in batch:
                if self.placement().identity(ruleset, table, deal, rotation).key != key:
                    raise StoreError(f"{self.path}: game {index}: its key {key[:12]} is not its identity's")
                game = self._game_row(index, ruleset, result)._replace(table=table, deal=deal)
                names = tuple(self.placement().names[e] for e in game.seats)
                yield StoredRow(index, ruleset, table, deal, rotation, game, transcript, hashed,
                                self._record(index, blob), key, names)
            if len(batch) < chunk:
                return
            start = batch[-1][0] + 1

    def faults(self) -> Iterator[dict[str, Any]]:
        """Every recorded fault, in schedule order: the record's fault with the game
        index, the ruleset label index and the entry (bot) of the faulty seat."""
        for index, ruleset, result in self._placed("SELECT p.game_index, p.ruleset, g.result FROM placed p JOIN games g "
                                                   "ON g.rowid = p.row WHERE p.counted ORDER BY p.game_index"):
            seats, _, _, counts = self._game_row(index, ruleset, result)[2:6]
            if any(counts):  # only then is the (larger) record worth reading
                for fault in (self.record(index) or {}).get("faults") or []:
                    if type(fault) is dict:  # (old records may hold bare per-seat counts instead)
                        yield dict(fault, game=index, ruleset=ruleset, entry=seats[fault["seat"]])

    def max_run(self) -> int:
        return self._read("SELECT COALESCE(MAX(run), 0) FROM games")[0][0]

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """The rows of a query; StoreError if the database file is damaged."""
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def _damaged(self, exc: Exception) -> StoreError:
        return StoreError(f"{self.path}: cannot read it ({_first_line(exc)}): the file is damaged, or not of "
                          f"its schema version {self.version}")


def _is_record(record: Any) -> bool:
    """Whether a decoded record has what a result hash covers (a test's stand-in may not)."""
    return type(record) is dict and isinstance(record.get("outcome"), dict) and "seats" in record and \
        "transcript_hash" in record


def _stopped(store: Store) -> dict[int, int]:
    """Ruleset -> the deals it stopped at, from the recorded looks ({} without looks)."""
    if not _has_table(store, "looks"):
        return {}
    return {ruleset: deals for ruleset, deals in store._read("SELECT ruleset, deals FROM looks WHERE stopped = 1")}


# -- looks of a stopping run (arena.stopping) -------------------------------------------
#
# A run with a `stop` looks at each ruleset's results at batch boundaries and records each
# look here, so that a resumed run stops where the first one did. Games of a ruleset that
# were played past the deal where it stopped (in flight when it stopped) stay in ``games``
# like any other: the stop's cut leaves them out of the standings and the schedule's count.

_LOOKS_SCHEMA = """
CREATE TABLE IF NOT EXISTS looks (
    ruleset INTEGER NOT NULL,        -- index of the ruleset entry in the file
    look INTEGER NOT NULL,           -- 1, 2, ... in schedule order
    deals INTEGER NOT NULL,          -- the look is at the first `deals` deals of the ruleset
    stopped INTEGER NOT NULL,        -- 1: the ruleset stops here (its games end at `deals` deals)
    detail TEXT NOT NULL,            -- JSON: the verdicts or the test's state at this look
    PRIMARY KEY (ruleset, look)
);
"""


class Look(NamedTuple):
    """One recorded look of a stopping run."""

    ruleset: int
    look: int
    deals: int
    stopped: bool
    detail: dict[str, Any]


def prepare_looks(store: Store) -> None:
    """Make the looks table of `store` if it has none yet."""
    with store.db:
        store.db.executescript(_LOOKS_SCHEMA)


def read_looks(store: Store) -> list[Look]:
    """Every recorded look, by ruleset then look number ([] for a store without looks)."""
    if not _has_table(store, "looks"):
        return []
    return [Look(ruleset, look, deals, bool(stopped), store._json("look", detail)) for ruleset, look, deals, stopped, detail
            in store._read("SELECT ruleset, look, deals, stopped, detail FROM looks ORDER BY ruleset, look")]


def record_look(store: Store, look: Look, plan: dict[str, Any] | None = None) -> int:
    """Record `look` in one transaction, with `plan` (the plan with its counts after a
    stop) if given. Returns how many stored games a stop leaves out (deal past its cut)."""
    with store.db:
        store.db.execute("INSERT INTO looks (ruleset, look, deals, stopped, detail) VALUES (?, ?, ?, ?, ?)",
                         (look.ruleset, look.look, look.deals, int(look.stopped), json.dumps(look.detail)))
        if plan is not None:
            store.db.execute("UPDATE meta SET value = ? WHERE key = 'plan'", (json.dumps(plan),))
    if not look.stopped:
        return 0
    return store._placed("SELECT COUNT(*) FROM placed WHERE ruleset = ? AND deal >= ?", (look.ruleset, look.deals))[0][0]


def count_games(store: Store, ruleset: int, below_deal: int) -> int:
    """Stored games of ruleset entry `ruleset` with deal below `below_deal`."""
    return store._placed("SELECT COUNT(*) FROM placed WHERE ruleset = ? AND deal < ?", (ruleset, below_deal))[0][0]


def after_stop_count(store: Store) -> int:
    """Stored games past their ruleset's stop (in flight when it came): not counted."""
    return store._placed("SELECT COUNT(*) FROM placed WHERE NOT counted")[0][0]


# -- luck corrections (arena.luck) ------------------------------------------------------------
#
# A ruleset played with luck = "adjusted" stores each game's summed luck corrections, per
# ordered seat pair, in ``luck``, keyed by the game's key as `games` is. Floats are stored as
# JSON (repr: exact). Read by schedule index, as the games are.


def _has_table(store: Store, name: str) -> bool:
    return bool(store._read("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))


def read_luck(store: Store) -> dict[int, list[list[float]]]:
    """Every counted stored game's luck corrections, by schedule index ({} without any)."""
    return read_luck_range(store, 0, 1 << 62)


def read_luck_range(store: Store, start: int, end: int) -> dict[int, list[list[float]]]:
    """The luck corrections of the counted games of schedule index [start, end) ({} without any)."""
    return {index: store._json("luck", text) for index, text in
            store._placed("SELECT p.game_index, l.corrections FROM placed p JOIN games g ON g.rowid = p.row "
                          "JOIN luck l ON l.game_key = g.game_key WHERE p.counted AND p.game_index >= ? AND "
                          "p.game_index < ? ORDER BY p.game_index", (start, end))}


def faults_per_seat(record: dict[str, Any], players: int) -> list[int]:
    """How many faults each seat committed: the record's ``faults`` are one dict
    (with a ``seat``) per fault; a plain per-seat count is accepted too."""
    counts = [0] * players
    faults = record.get("faults") or []
    if len(faults) == players and all(isinstance(f, int) and not isinstance(f, bool) for f in faults):
        return list(faults)
    for fault in faults:
        if isinstance(fault, dict) and isinstance(fault.get("seat"), int) and 0 <= fault["seat"] < players:
            counts[fault["seat"]] += 1
    return counts


# -- shapes --------------------------------------------------------------------------

def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


# -- the packed record (schema version 2) ---------------------------------------------

_WIDTHS = ((1 << 8, "B"), (1 << 16, "H"), (1 << 32, "I"))


def record_zdict(plan: Any) -> str:
    """The preset deflate dictionary of a store: the plan as JSON (bot names, packages,
    ruleset ids and options, decks), which records repeat, plus the record keys."""
    skeleton = {"format": 1, "ruleset": {"id": "", "version": "1", "options": {}}, "players": 0, "deal_seed": 0,
                "bot_seeds": [], "seats": [{"bot": "", "display": "", "package": "", "version": "", "params": {}}],
                "outcome": {"standing": [], "scores": [], "reason": ""}, "faults": [], "forfeited": [],
                "transcript_hash": ""}
    text = encode(skeleton).decode() + (encode(plan).decode() if plan is not None else "")
    return text[-32768:]  # deflate's window: the dictionary's end is what it can use


def pack_record(record_json: bytes, zdict: bytes = b"") -> bytes:
    """A game record (JSON bytes) packed for the store: deflated JSON of
    ``[record without "decisions", position of "decisions" among its keys, pairs,
    code width]``, a newline, then one little-endian code per decision indexing the
    flat ``pairs`` list (seat, action, seat, action, ...). A record without a
    well-formed decisions list is kept whole (position -1). Lossless: see `unpack_record`."""
    return _pack(_decoder.decode(record_json), zdict)


def _pack(record: Any, zdict: bytes = b"") -> bytes:
    """`pack_record` of a decoded record."""
    decisions = record.get("decisions") if type(record) is dict else None
    if type(decisions) is list and all(type(d) is list and len(d) == 2 and type(d[0]) is int and type(d[1]) is str
                                       for d in decisions):
        ids: dict[tuple[int, str], int] = {}
        codes = [ids.setdefault((seat, action), len(ids)) for seat, action in decisions]
        width = next(code for limit, code in _WIDTHS if len(ids) <= limit)
        packed = array(width, codes)
        if sys.byteorder == "big":
            packed.byteswap()
        position = list(record).index("decisions")
        head = {key: value for key, value in record.items() if key != "decisions"}
        body = encode([head, position, [x for pair in ids for x in pair], width]) + b"\n" + packed.tobytes()
    else:
        body = encode([record, -1, [], "B"]) + b"\n"
    deflate = zlib.compressobj(9, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY, zdict) if zdict else \
        zlib.compressobj(9)
    return deflate.compress(body) + deflate.flush()


def unpack_record(blob: bytes, zdict: bytes = b"") -> Any:
    """The record `pack_record` packed, equal to the original (same keys, same order)."""
    return _unpack(blob, zdict)[0]


def _unpack(blob: bytes, zdict: bytes) -> tuple[Any, list[list[Any]] | None]:
    """The record `pack_record` packed and its table of distinct decisions (None: kept whole)."""
    inflate = zlib.decompressobj(zdict=zdict) if zdict else zlib.decompressobj()
    body = inflate.decompress(blob) + inflate.flush()
    line, data = body.split(b"\n", 1)
    head, position, flat, width = _decoder.decode(line)
    if position < 0:
        return head, None
    codes = array(width)
    codes.frombytes(data)
    if sys.byteorder == "big":
        codes.byteswap()
    pairs = [[flat[i], flat[i + 1]] for i in range(0, len(flat), 2)]
    decisions = [list(pairs[code]) for code in codes]
    items = list(head.items())
    items.insert(position, ("decisions", decisions))
    return dict(items), pairs


def _pairs_problem(pairs: list[list[Any]] | None, players: int) -> str | None:
    """What makes a packed record's table of decisions not [seat, action] pairs of its game."""
    for pair in pairs or ():
        if not (type(pair[0]) is int and 0 <= pair[0] < players and type(pair[1]) is str):
            return f"decisions: its table of [seat, action] pairs holds {pair!r}, not a seat below {players}"
    return None


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")
    # WAL + NORMAL: a committed game survives the process being killed; only an OS
    # crash or power loss may lose the last commits.
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA busy_timeout = 10000")
    return db
