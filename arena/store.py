"""The results store: one SQLite file (``games.sqlite``) per tournament.

WAL journal, one committed row per finished game (committed per small batch),
so a killed run loses no stored game and a rerun resumes where it stopped. The
``games`` primary key is the game's index in the schedule: a game cannot be
stored twice. ``meta`` holds the plan (entries, rulesets, versions), the
tournament file and its hash, and the seed; the file is created readable by its
owner only, since a secret seed lives in it until the tournament is complete.

Schema version: ``PRAGMA user_version`` (`SCHEMA_VERSION`). Version 2 stores each
game's record packed (`pack_record`): its decisions as a table of the distinct
(seat, action) pairs plus one small integer per decision, the whole deflated
with a preset dictionary made from the plan (meta ``record_zdict``), about a
tenth of the JSON. Version 3 adds each game's `result_hash` (seating, standing,
scores, faults and forfeits; `arena.verify` checks it against a replay of the
record). Version 1 and 2 stores (no result hash; version 1 keeps the record as
JSON text) are still read and resumed.

A store that cannot be read as written (meta that is not JSON, a malformed
plan, a result row or record blob that does not decode) raises `StoreError`:
one line naming the store and, for a game, its id (schedule index).
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
from typing import Any, Iterable, Iterator, Mapping, NamedTuple, Sequence

import msgspec

from arena.errors import ConfigError
from arena.records import plan_problem, record_problem

SCHEMA_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
STORE_NAME = "games.sqlite"
ZDICT_KEY = "record_zdict"

_SCHEMA_V1 = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE games (
    game_index INTEGER PRIMARY KEY,  -- position in the schedule
    ruleset INTEGER NOT NULL,        -- index of the ruleset entry in the file
    table_index INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    result TEXT NOT NULL,            -- JSON [seats (entry indices), standing, scores, faults]
    transcript_hash TEXT NOT NULL,
    record TEXT NOT NULL,            -- the full game record (arena.match), JSON
    run INTEGER NOT NULL,            -- which run of `arena run` played it (1, 2, ...)
    stored_at REAL NOT NULL
);
"""
_SCHEMA_V2 = _SCHEMA_V1.replace("record TEXT NOT NULL,            -- the full game record (arena.match), JSON",
                                "record BLOB NOT NULL,            -- the full game record (arena.match), packed")
_SCHEMA = _SCHEMA_V2.replace("    run INTEGER NOT NULL,",
                             "    result_hash TEXT,                -- `result_hash` of the game (NULL: not computed)\n"
                             "    run INTEGER NOT NULL,")

_COLUMNS: dict[int, tuple[str, ...]] = {1: ("game_index", "ruleset", "table_index", "deal", "rotation", "result", "transcript_hash", "record",
                 "run", "stored_at")}
_COLUMNS[2] = _COLUMNS[1]
_COLUMNS[3] = _COLUMNS[1] + ("result_hash",)

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


def result_hash(index: int, seats: Sequence[int], seat_records: Sequence[Any], standing: Sequence[int],
                scores: Sequence[float], faults: Sequence[int], forfeited: Sequence[int],
                transcript_hash: str) -> str:
    """SHA-256 over a game's result: its schedule index, the seating (entry index
    and the record's bot identity at each seat), standing, scores, faults per seat,
    forfeited seats, and the transcript hash that ties it to the game played.
    Canonical JSON, so it is the same on every platform."""
    essence = {"game": index, "seating": [[entry, who] for entry, who in zip(seats, seat_records)],
               "standing": list(standing), "scores": list(scores), "faults": list(faults),
               "forfeited": list(forfeited), "transcript_hash": transcript_hash}
    text = json.dumps(essence, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def record_result_hash(index: int, seats: Sequence[int], record: Mapping[str, Any], faults: Sequence[int]) -> str:
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
    """An open results store."""

    def __init__(self, path: Path, connection: sqlite3.Connection):
        self.path = path
        self.db = connection
        self.version = connection.execute("PRAGMA user_version").fetchone()[0]
        self._zdict = self.get(ZDICT_KEY, "").encode() if self.version >= 2 else b""

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
    def open(cls, path: str | Path) -> "Store":
        """Open an existing store; ConfigError if it is not one, or of another schema version."""
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"{path}: no results store here (run `arena run` first)")
        try:
            db = _connect(path)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{path}: not a results store ({exc})") from None
        if not {"meta", "games"} <= tables:
            db.close()
            raise ConfigError(f"{path}: not a results store (no meta and games tables)")
        if version in READABLE_VERSIONS:
            columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            missing = [c for c in _COLUMNS[version] if c not in columns]
            if missing:
                db.close()
                raise ConfigError(f"{path}: not a results store of schema version {version} (its games table has no "
                                  f"{', '.join(missing)})")
        if version not in READABLE_VERSIONS:
            db.close()
            raise ConfigError(f"{path}: results store schema version {version}; this arena reads versions "
                              f"{', '.join(map(str, READABLE_VERSIONS))} (rerun with --restart to start it again)")
        return cls(path, db)

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
        with self.db:
            self.db.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, json.dumps(value)))

    # -- games ---------------------------------------------------------------

    def add(self, games: Iterable[StoredGame], run: int) -> int:
        """Store finished games in one transaction; return how many. A game already
        stored is an error (sqlite3.IntegrityError): the runner never plays one twice.
        Games with luck corrections get their luck rows in the same transaction (a reader
        never sees such a game without them)."""
        games = list(games)
        lucky = [(g.index, g.luck.decode()) for g in games if g.luck is not None]
        if lucky:
            prepare_luck(self)
        now = time.time()
        rows: list[tuple[Any, ...]]
        if self.version >= 3:
            zdict = self._zdict
            rows = [(g.index, g.ruleset, g.table, g.deal, g.rotation, g.result.decode(), g.transcript_hash,
                     pack_record(g.record, zdict), g.result_hash, run, now) for g in games]
            sql = ("INSERT INTO games (game_index, ruleset, table_index, deal, rotation, result, "
                   "transcript_hash, record, result_hash, run, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        else:
            if self.version == 2:
                zdict = self._zdict
                rows = [(g.index, g.ruleset, g.table, g.deal, g.rotation, g.result.decode(), g.transcript_hash,
                         pack_record(g.record, zdict), run, now) for g in games]
            else:
                rows = [(g.index, g.ruleset, g.table, g.deal, g.rotation, g.result.decode(), g.transcript_hash,
                         g.record.decode(), run, now) for g in games]
            sql = ("INSERT INTO games (game_index, ruleset, table_index, deal, rotation, result, "
                   "transcript_hash, record, run, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        with self.db:
            self.db.executemany(sql, rows)
            if lucky:
                self.db.executemany("INSERT OR REPLACE INTO luck (game_index, corrections) VALUES (?, ?)", lucky)
        return len(rows)

    def count(self) -> int:
        return self._read("SELECT COUNT(*) FROM games")[0][0]

    def done_mask(self, total: int) -> bytearray:
        """A bitmap of the scheduled games (bit ``i % 8`` of byte ``i // 8``): set if stored.
        An eighth of a byte per game, so even a schedule of millions stays small."""
        mask = bytearray((total + 7) // 8)
        try:
            for (index,) in self.db.execute("SELECT game_index FROM games"):
                if 0 <= index < total:
                    mask[index >> 3] |= 1 << (index & 7)
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        return mask

    def rows(self, start: int = 0, limit: int = 2000, ruleset: int | None = None,
             end: int | None = None) -> list[GameRow]:
        """Stored games with schedule index from `start` (to `end`, excluded), in
        schedule order, at most `limit`; only those of ruleset entry `ruleset` if given."""
        out = []
        where, args = "game_index >= ?", [start]
        if end is not None:
            where, args = where + " AND game_index < ?", args + [end]
        if ruleset is not None:
            where, args = where + " AND ruleset = ?", args + [ruleset]
        query = (f"SELECT game_index, ruleset, result, table_index, deal FROM games WHERE {where} "
                 "ORDER BY game_index LIMIT ?", (*args, limit))
        for index, ruleset, result, table, deal in self._read(*query):
            out.append(self._game_row(index, ruleset, result)._replace(table=table, deal=deal))
        return out

    def _game_row(self, index: int, ruleset: Any, result: Any) -> GameRow:
        try:
            seats, standing, scores, faults = _decoder.decode(result)
            if not (type(ruleset) is int and type(seats) is list and seats and
                    len(seats) == len(standing) == len(scores) == len(faults) and
                    all(type(entry) is int for entry in seats)):
                raise ValueError("not four lists of one length")
        except (TypeError, ValueError, msgspec.DecodeError) as exc:
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
        rows = self._read("SELECT record FROM games WHERE game_index = ?", (index,))
        return None if not rows else self._record(index, rows[0][0])

    def _record(self, index: int, blob: Any) -> dict[str, Any]:
        try:
            record, pairs = _unpack(blob, self._zdict) if self.version >= 2 else (_decoder.decode(blob), None)
        except Exception as exc:  # zlib.error, msgspec.DecodeError, ValueError, TypeError: all a corrupt blob
            raise StoreError(f"{self.path}: game {index}: its record blob is corrupt "
                             f"({type(exc).__name__}: {_first_line(exc)})") from None
        # Decisions unpacked from a table of pairs are checked once per pair, not per decision.
        problem = record_problem(record, decisions=pairs is None) or _pairs_problem(pairs, record["players"])
        if problem:
            raise StoreError(f"{self.path}: game {index}: its record is malformed: {problem}")
        return record

    def stored_rows(self, chunk: int = 500, start: int | None = None, end: int | None = None) -> Iterator[StoredRow]:
        """Every stored game with schedule index in [start, end) (None: no bound; a
        negative index is a stored game too), in schedule order, as stored (decoded and
        shape-checked; StoreError naming the game otherwise)."""
        column = "result_hash" if self.version >= 3 else "NULL"
        start = -(1 << 63) if start is None else start
        while True:
            where, args = "game_index >= ?", [start]
            if end is not None:
                where, args = where + " AND game_index < ?", args + [end]
            batch = self._read(
                f"SELECT game_index, ruleset, table_index, deal, rotation, result, transcript_hash, {column}, record "
                f"FROM games WHERE {where} ORDER BY game_index LIMIT ?", (*args, chunk))
            for index, ruleset, table, deal, rotation, result, transcript, hashed, blob in batch:
                game = self._game_row(index, ruleset, result)._replace(table=table, deal=deal)
                yield StoredRow(index, ruleset, table, deal, rotation, game, transcript, hashed,
                                self._record(index, blob))
            if len(batch) < chunk:
                return
            start = batch[-1][0] + 1

    def faults(self) -> Iterator[dict[str, Any]]:
        """Every recorded fault, in schedule order: the record's fault with the game
        index, the ruleset label index and the entry (bot) of the faulty seat."""
        for index, ruleset, result in self._read("SELECT game_index, ruleset, result FROM games ORDER BY game_index"):
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


# -- looks of a stopping run (arena.stopping) -------------------------------------------
#
# A run with a `stop` looks at each ruleset's results at batch boundaries and records each
# look here, so that a resumed run stops where the first one did. Games of a ruleset that
# were played past the deal where it stopped (in flight when it stopped) are kept in
# ``games_after_stop``: stored, but out of the standings and the schedule's count.

_LOOKS_SCHEMA = """
CREATE TABLE IF NOT EXISTS looks (
    ruleset INTEGER NOT NULL,        -- index of the ruleset entry in the file
    look INTEGER NOT NULL,           -- 1, 2, ... in schedule order
    deals INTEGER NOT NULL,          -- the look is at the first `deals` deals of the ruleset
    stopped INTEGER NOT NULL,        -- 1: the ruleset stops here (its games end at `deals` deals)
    detail TEXT NOT NULL,            -- JSON: the verdicts or the test's state at this look
    PRIMARY KEY (ruleset, look)
);
CREATE TABLE IF NOT EXISTS games_after_stop AS SELECT * FROM games WHERE 0;
"""


class Look(NamedTuple):
    """One recorded look of a stopping run."""

    ruleset: int
    look: int
    deals: int
    stopped: bool
    detail: dict[str, Any]


def prepare_looks(store: Store) -> None:
    """Make the looks and games_after_stop tables of `store` if it has none yet."""
    with store.db:
        store.db.executescript(_LOOKS_SCHEMA)


def read_looks(store: Store) -> list[Look]:
    """Every recorded look, by ruleset then look number ([] for a store without looks)."""
    tables = {row[0] for row in store._read("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "looks" not in tables:
        return []
    return [Look(ruleset, look, deals, bool(stopped), store._json("look", detail)) for ruleset, look, deals, stopped, detail
            in store._read("SELECT ruleset, look, deals, stopped, detail FROM looks ORDER BY ruleset, look")]


def record_look(store: Store, look: Look, plan: dict[str, Any] | None = None) -> int:
    """Record `look` in one transaction; if it stops its ruleset, also move the ruleset's
    stored games of deal `look.deals` on to games_after_stop and store `plan` (the plan
    with its counts after the stop). Returns how many games were moved."""
    moved = 0
    with store.db:
        store.db.execute("INSERT INTO looks (ruleset, look, deals, stopped, detail) VALUES (?, ?, ?, ?, ?)",
                         (look.ruleset, look.look, look.deals, int(look.stopped), json.dumps(look.detail)))
        if look.stopped:
            store.db.execute("INSERT INTO games_after_stop SELECT * FROM games WHERE ruleset = ? AND deal >= ?",
                             (look.ruleset, look.deals))
            moved = store.db.execute("DELETE FROM games WHERE ruleset = ? AND deal >= ?",
                                     (look.ruleset, look.deals)).rowcount
            _move_luck_past_stops(store)
        if plan is not None:
            store.db.execute("UPDATE meta SET value = ? WHERE key = 'plan'", (json.dumps(plan),))
    return moved


def add_after_stop(store: Store, games: Iterable[StoredGame], run: int) -> int:
    """Store games played past their ruleset's stop (in flight when it stopped) in
    games_after_stop, not in games."""
    games = list(games)
    if not games:
        return 0
    prepare_looks(store)
    store.add(games, run)  # the same packing and columns as any game, then moved (a kill between: see below)
    move_past_stops(store)
    return len(games)


def move_past_stops(store: Store) -> int:
    """Move every stored game past its ruleset's recorded stop to games_after_stop (what
    `record_look` and `add_after_stop` do; run again on resume, after a kill between)."""
    moved = 0
    with store.db:
        for ruleset, deals in store._read("SELECT ruleset, deals FROM looks WHERE stopped = 1"):
            store.db.execute("INSERT INTO games_after_stop SELECT * FROM games WHERE ruleset = ? AND deal >= ?",
                             (ruleset, deals))
            moved += store.db.execute("DELETE FROM games WHERE ruleset = ? AND deal >= ?", (ruleset, deals)).rowcount
        _move_luck_past_stops(store)
    return moved


def count_games(store: Store, ruleset: int, below_deal: int) -> int:
    """Stored games (in games) of ruleset entry `ruleset` with deal below `below_deal`."""
    return store._read("SELECT COUNT(*) FROM games WHERE ruleset = ? AND deal < ?", (ruleset, below_deal))[0][0]


def after_stop_count(store: Store) -> int:
    """Games kept in games_after_stop (0 for a store without the table)."""
    tables = {row[0] for row in store._read("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return store._read("SELECT COUNT(*) FROM games_after_stop")[0][0] if "games_after_stop" in tables else 0


def renumber_games(store: Store, moves: Mapping[int, tuple[int, int, int]], entry_map: Sequence[int],
                   meta: Mapping[str, Any]) -> None:
    """Give stored games new places (arena.extend): game `old` becomes schedule index
    `moves[old][0]` of ruleset entry `moves[old][1]`, table number `moves[old][2]`, its
    seats' entry numbers mapped by `entry_map`, its result hash recomputed for them; and
    set `meta`'s keys. One transaction: a kill leaves the store as it was, or renumbered."""
    changed = []
    for row in store.stored_rows():
        new_index, ruleset, table = moves[row.index]
        seats = [entry_map[e] for e in row.result.seats]
        result = encode([seats, row.result.standing, row.result.scores, row.result.faults]).decode()
        hashed = record_result_hash(new_index, seats, row.record, row.result.faults) if store.version >= 3 else None
        changed.append((new_index, ruleset, table, result, hashed, -1 - row.index))
    with store.db:
        store.db.execute("UPDATE games SET game_index = -1 - game_index")  # frees every new index first
        if _has_table(store, "luck"):   # a game's luck corrections keep its index
            store.db.execute("UPDATE luck SET game_index = -1 - game_index")
            store.db.executemany("UPDATE luck SET game_index = ? WHERE game_index = ?",
                                 [(c[0], c[5]) for c in changed])
        if store.version >= 3:
            store.db.executemany("UPDATE games SET game_index = ?, ruleset = ?, table_index = ?, result = ?, "
                                 "result_hash = ? WHERE game_index = ?", changed)
        else:
            store.db.executemany("UPDATE games SET game_index = ?, ruleset = ?, table_index = ?, result = ? "
                                 "WHERE game_index = ?", [c[:4] + c[5:] for c in changed])
        store.db.executemany("INSERT INTO meta (key, value) VALUES (?, ?) "
                             "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                             [(key, json.dumps(value)) for key, value in meta.items()])


# -- luck corrections (arena.luck) ------------------------------------------------------------
#
# A ruleset played with luck = "adjusted" stores each game's summed luck corrections, per
# ordered seat pair, in a table of its own, created when first needed (no schema version
# change), keyed by the game's index as `games` is: renumbered with it (`renumber_games`) and
# moved with it past a stop (to luck_after_stop). Floats are stored as JSON (repr: exact).

_LUCK_SCHEMA = """
CREATE TABLE IF NOT EXISTS luck (
    game_index INTEGER PRIMARY KEY,  -- the game's game_index in games
    corrections TEXT NOT NULL        -- JSON [[float]]: per ordered seat pair (a, b), the summed correction
);
CREATE TABLE IF NOT EXISTS luck_after_stop AS SELECT * FROM luck WHERE 0;
"""


def _has_table(store: Store, name: str) -> bool:
    return bool(store._read("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))


def prepare_luck(store: Store) -> None:
    """Make the luck and luck_after_stop tables of `store` if it has none yet."""
    with store.db:
        store.db.executescript(_LUCK_SCHEMA)


def read_luck(store: Store) -> dict[int, list[list[float]]]:
    """Every stored game's luck corrections, by game index ({} for a store without them);
    only those of games in `games` (not past a stop)."""
    if not _has_table(store, "luck"):
        return {}
    return {index: store._json("luck", text) for index, text in
            store._read("SELECT luck.game_index, luck.corrections FROM luck JOIN games "
                        "ON games.game_index = luck.game_index ORDER BY luck.game_index")}


def read_luck_range(store: Store, start: int, end: int) -> dict[int, list[list[float]]]:
    """The luck corrections of the games of index [start, end) in `games` ({} without any)."""
    if not _has_table(store, "luck"):
        return {}
    return {index: store._json("luck", text) for index, text in
            store._read("SELECT game_index, corrections FROM luck WHERE game_index >= ? AND game_index < ?",
                        (start, end))}


def _move_luck_past_stops(store: Store) -> None:
    """Inside a transaction: luck rows of games now in games_after_stop go to luck_after_stop."""
    if not _has_table(store, "luck"):
        return
    store.db.execute("INSERT INTO luck_after_stop SELECT * FROM luck WHERE game_index IN "
                     "(SELECT game_index FROM games_after_stop)")
    store.db.execute("DELETE FROM luck WHERE game_index IN (SELECT game_index FROM games_after_stop)")


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
    record = _decoder.decode(record_json)
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
