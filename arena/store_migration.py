"""Reading results stores of schema versions 1-3: migrated to version 4, keyed by identity.

Versions 1-3 keyed a game by its schedule index (``game_index``) and its seats by entry
number; version 1 kept records as JSON text, version 2 packed them, version 3 added a
result hash over the schedule index. A stopping run moved games past a stop to
``games_after_stop`` (their luck rows to ``luck_after_stop``); the luck tables exist only
where a run made them. `migrate_store` rewrites all that, in one transaction, to the
current schema (arena.store): each game's identity from its coordinates and the stored
plan (arena.placement), its seats by name, records packed, games past a stop back among
the others (the looks' cuts leave them out as before), luck rows keyed by the game.

A version-3 result hash is checked against the row before it is replaced by the
identity-keyed one; a row whose old hash does not match keeps a hash that cannot match
(``mismatch:<old>``), so `arena verify` still reports it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

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
_SCHEMA_V3 = _SCHEMA_V2.replace("    run INTEGER NOT NULL,",
                                "    result_hash TEXT,                -- `result_hash` of the game (NULL: not computed)\n"
                                "    run INTEGER NOT NULL,")
SCHEMAS = {1: _SCHEMA_V1, 2: _SCHEMA_V2, 3: _SCHEMA_V3}
"""What each older version's `arena run` created (tests make fixtures of each from these)."""

_OLD_COLUMNS = ("game_index", "ruleset", "table_index", "deal", "rotation", "result", "transcript_hash", "record",
                "run", "stored_at")
COLUMNS: dict[int, tuple[str, ...]] = {
    1: _OLD_COLUMNS, 2: _OLD_COLUMNS, 3: _OLD_COLUMNS + ("result_hash",),
    4: ("game_key", "identity", "ruleset", "table_entries", "deal", "repeat", "rotation", "result",
        "transcript_hash", "record", "result_hash", "run", "stored_at")}


def check_columns(db: sqlite3.Connection, version: int, tables: set[str]) -> str | None:
    """Why `db` is not a results store this arena reads (None if it is one)."""
    from arena.store import READABLE_VERSIONS

    if not {"meta", "games"} <= tables:
        return "not a results store (no meta and games tables)"
    if version not in READABLE_VERSIONS:
        return (f"results store schema version {version}; this arena reads versions "
                f"{', '.join(map(str, READABLE_VERSIONS))} (rerun with --restart to start it again)")
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    missing = [c for c in COLUMNS[version] if c not in columns]
    if missing:
        return f"not a results store of schema version {version} (its games table has no {', '.join(missing)})"
    return None


def migrate_store(db: sqlite3.Connection, path: Path, version: int) -> None:
    """Rewrite the version-`version` store open on `db` to the current schema, in one
    transaction (a kill leaves it as it was, or migrated); StoreError naming the game
    whose row does not fit its plan."""
    from arena.store import SCHEMA_VERSION, ZDICT_KEY, _SCHEMA, record_zdict

    meta = {key: json.loads(value) for key, value in db.execute("SELECT key, value FROM meta")}
    zdict = meta.get(ZDICT_KEY) if version >= 2 else record_zdict(meta.get("plan"))
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    with db:
        db.execute("BEGIN IMMEDIATE")  # the renames below would otherwise each commit on their own
        for table in ("games", "luck"):
            if table in tables:
                db.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
        games_sql = _SCHEMA[_SCHEMA.index("CREATE TABLE games"):]
        for statement in games_sql.split(";"):
            if statement.strip():
                db.execute(statement)
        if version < 2:
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (ZDICT_KEY, json.dumps(zdict)))
        keys = _copy_games(db, path, version, meta, (zdict or "").encode(), tables)
        _copy_luck(db, keys, tables)
        for table in ("old_games", "games_after_stop", "old_luck", "luck_after_stop"):
            db.execute(f"DROP TABLE IF EXISTS {table}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _old_rows(db: sqlite3.Connection, version: int, tables: set[str]) -> list[Any]:
    hashed = "result_hash" if version >= 3 else "NULL"
    columns = f"game_index, ruleset, table_index, deal, rotation, result, transcript_hash, record, {hashed}, run, stored_at"
    sql = f"SELECT {columns} FROM old_games"
    if "games_after_stop" in tables:
        sql += f" UNION ALL SELECT {columns} FROM games_after_stop"
    return db.execute(sql + " ORDER BY game_index").fetchall()


def _copy_games(db: sqlite3.Connection, path: Path, version: int, meta: dict[str, Any], zdict: bytes,
                tables: set[str]) -> dict[int, str]:
    """Every old game (with those past a stop) into the new games table; old index -> game key."""
    from arena.placement import Placement
    from arena.store import StoreError, _decoder, _pack, encode, record_result_hash, result_hash

    try:
        placement = Placement(meta["plan"], meta.get("seed", 0))
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError) as exc:
        raise StoreError(f"{path}: cannot migrate it from schema version {version}: its plan does not give a "
                         f"schedule ({exc})") from None
    keys: dict[int, str] = {}
    for index, ruleset, table, deal, rotation, result, transcript, record, hashed, run, stored_at in \
            _old_rows(db, version, tables):
        where = f"{path}: cannot migrate it from schema version {version}: game {index}"
        try:
            identity = placement.identity(ruleset, table, deal, rotation)
            seats, standing, scores, faults = _decoder.decode(result)
        except (IndexError, TypeError, ValueError) as exc:
            raise StoreError(f"{where} is not a game of its plan ({exc})") from None
        if [placement.entry_of.get(name) for name in identity.names] != seats:
            raise StoreError(f"{where}: its seats {seats} are not its table's in the plan")
        if version >= 2:
            from arena.store import _unpack

            decoded = _unpack(record, zdict)[0]
        else:
            decoded = _decoder.decode(record)
        if hashed is not None:
            old = result_hash(index, seats, decoded["seats"], decoded["outcome"]["standing"],
                              decoded["outcome"]["scores"], faults, decoded.get("forfeited") or [],
                              decoded["transcript_hash"])
            names = list(identity.names)
            hashed = record_result_hash(identity.key, names, decoded, faults) if old == hashed else f"mismatch:{hashed}"
        blob = record if version >= 2 else _pack(decoded, zdict)
        db.execute("INSERT INTO games (game_key, identity, ruleset, table_entries, deal, repeat, rotation, result, "
                   "transcript_hash, record, result_hash, run, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (identity.key, identity.canonical(), identity.ruleset, encode(list(identity.table())).decode(),
                    deal, placement.repeat(ruleset, table), rotation,
                    encode([list(identity.names), standing, scores, faults]).decode(), transcript, blob, hashed,
                    run, stored_at))
        keys[index] = identity.key
    return keys


def _copy_luck(db: sqlite3.Connection, keys: dict[int, str], tables: set[str]) -> None:
    """The old luck rows (and those past a stop), keyed by their game's key."""
    for table, was in (("old_luck", "luck"), ("luck_after_stop", "luck_after_stop")):
        if was in tables:
            db.executemany("INSERT OR REPLACE INTO luck (game_key, corrections) VALUES (?, ?)",
                           [(keys[index], text) for index, text in
                            db.execute(f"SELECT game_index, corrections FROM {table}").fetchall() if index in keys])
