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
tenth of the JSON. Version 1 stores (the record as JSON text) are still read
and resumed.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import zlib
from array import array
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

import msgspec

from arena.errors import ConfigError

SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)
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
_SCHEMA = _SCHEMA_V1.replace("record TEXT NOT NULL,            -- the full game record (arena.match), JSON",
                             "record BLOB NOT NULL,            -- the full game record (arena.match), packed")

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
        if self.version >= 2:
            zdict = self._zdict
            rows = [(g.index, g.ruleset, g.table, g.deal, g.rotation, g.result.decode(), g.transcript_hash,
                     pack_record(g.record, zdict), run, now) for g in games]
        else:
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
        if row is None:
            return None
        return unpack_record(row[0], self._zdict) if self.version >= 2 else _decoder.decode(row[0])

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
    inflate = zlib.decompressobj(zdict=zdict) if zdict else zlib.decompressobj()
    body = inflate.decompress(blob) + inflate.flush()
    line, data = body.split(b"\n", 1)
    head, position, flat, width = _decoder.decode(line)
    if position < 0:
        return head
    codes = array(width)
    codes.frombytes(data)
    if sys.byteorder == "big":
        codes.byteswap()
    pairs = [[flat[i], flat[i + 1]] for i in range(0, len(flat), 2)]
    decisions = [list(pairs[code]) for code in codes]
    items = list(head.items())
    items.insert(position, ("decisions", decisions))
    return dict(items)


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")
    # WAL + NORMAL: a committed game survives the process being killed; only an OS
    # crash or power loss may lose the last commits.
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA busy_timeout = 10000")
    return db
