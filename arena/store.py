"""The results store: one SQLite file (``games.sqlite``) per tournament.

WAL journal, one committed row per finished game (committed per small batch),
so a killed run loses no stored game and a rerun resumes where it stopped. The
``games`` primary key is the game's index in the schedule: a game cannot be
stored twice. ``meta`` holds the plan (entries, rulesets, versions), the
tournament file and its hash, and the seed; the file is created readable by its
owner only, since a secret seed lives in it until the tournament is complete.

Schema version: ``PRAGMA user_version`` (`SCHEMA_VERSION`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

import msgspec

from arena.errors import ConfigError

SCHEMA_VERSION = 1
STORE_NAME = "games.sqlite"

_SCHEMA = """
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

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


class GameRow(NamedTuple):
    """What ratings need from one stored game."""

    index: int
    ruleset: int
    seats: list[int]
    standing: list[int]
    scores: list[float]
    faults: list[int]


class StoredGame(NamedTuple):
    """A finished game as a worker hands it back: compact result plus the encoded record."""

    index: int
    ruleset: int
    table: int
    deal: int
    rotation: int
    result: bytes  # JSON [seats, standing, scores, faults]
    transcript_hash: str
    record: bytes  # JSON record


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
        if version != SCHEMA_VERSION:
            db.close()
            raise ConfigError(f"{path}: results store schema version {version}; this arena reads version "
                              f"{SCHEMA_VERSION} (rerun with --restart to start it again)")
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
        return {key: json.loads(value) for key, value in self.db.execute("SELECT key, value FROM meta")}

    def get(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def set(self, key: str, value: Any) -> None:
        with self.db:
            self.db.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, json.dumps(value)))

    # -- games ---------------------------------------------------------------

    def add(self, games: Iterable[StoredGame], run: int) -> int:
        """Store finished games in one transaction; return how many. A game already
        stored is an error (sqlite3.IntegrityError): the runner never plays one twice."""
        now = time.time()
        rows = [(g.index, g.ruleset, g.table, g.deal, g.rotation, g.result.decode(), g.transcript_hash,
                 g.record.decode(), run, now) for g in games]
        with self.db:
            self.db.executemany("INSERT INTO games (game_index, ruleset, table_index, deal, rotation, result, "
                                "transcript_hash, record, run, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                rows)
        return len(rows)

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def done_mask(self, total: int) -> bytearray:
        """A bitmap of the scheduled games (bit ``i % 8`` of byte ``i // 8``): set if stored.
        An eighth of a byte per game, so even a schedule of millions stays small."""
        mask = bytearray((total + 7) // 8)
        for (index,) in self.db.execute("SELECT game_index FROM games"):
            if 0 <= index < total:
                mask[index >> 3] |= 1 << (index & 7)
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
        query = (f"SELECT game_index, ruleset, result FROM games WHERE {where} ORDER BY game_index LIMIT ?",
                 (*args, limit))
        for index, ruleset, result in self.db.execute(*query):
            seats, standing, scores, faults = _decoder.decode(result)
            out.append(GameRow(index, ruleset, seats, standing, scores, faults))
        return out

    def iter_rows(self, chunk: int = 5000) -> Iterator[GameRow]:
        start = 0
        while batch := self.rows(start, chunk):
            yield from batch
            start = batch[-1].index + 1

    def record(self, index: int) -> dict[str, Any] | None:
        row = self.db.execute("SELECT record FROM games WHERE game_index = ?", (index,)).fetchone()
        return None if row is None else _decoder.decode(row[0])

    def faults(self) -> Iterator[dict[str, Any]]:
        """Every recorded fault, in schedule order: the record's fault with the game
        index, the ruleset label index and the entry (bot) of the faulty seat."""
        games = self.db.execute("SELECT game_index, ruleset, result FROM games ORDER BY game_index")
        for index, ruleset, result in games.fetchall():
            seats, _, _, counts = _decoder.decode(result)
            if any(counts):  # only then is the (larger) record worth reading
                for fault in self.record(index).get("faults") or []:
                    yield dict(fault, game=index, ruleset=ruleset, entry=seats[fault["seat"]])

    def max_run(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(run), 0) FROM games").fetchone()[0]


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")
    # WAL + NORMAL: a committed game survives the process being killed; only an OS
    # crash or power loss may lose the last commits.
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA busy_timeout = 10000")
    return db
