"""A result's statements as the driver's SQL: compiled once per dialect, run as plain SQL.

A Core statement executed through SQLAlchemy pays on every execution for its cache key, the
lookup of its compiled form and its parameters' processing (~0.05 ms a statement on the test
machine, as much as the statement itself on SQLite). A returned result runs one read
(`leases.RESULT_READ`) and its batch's store a handful of writes, so those are compiled once
per database dialect (and, for the statements with one placeholder per item, per batch size:
a handful) and run with `Connection.exec_driver_sql`: the same SQL, in the same transaction,
with SQLAlchemy's events, errors and rows, without the per-execution compiling work. Only
for statements whose parameters the driver takes as they are (strings, numbers, bytes, None).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Hashable, Mapping, cast

from sqlalchemy.engine import Connection
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement


class Prebuilt:
    """`statement` compiled for one dialect: its SQL and how to order its parameters."""

    def __init__(self, statement: ClauseElement, dialect: Any):
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))  # a statement's, not DDL's
        self.sql = str(compiled)
        self._defaults = {name: bind.value for name, bind in compiled.binds.items()}  # its own literals
        self._order = list(compiled.positiontup or ()) if compiled.positional else None

    def run(self, conn: Connection, values: Mapping[str, Any]) -> Any:
        """Execute on `conn` with `values` for the statement's named parameters (its CursorResult)."""
        return conn.exec_driver_sql(self.sql, self._parameters(values))

    def send(self, cursor: Any, values: Mapping[str, Any]) -> None:
        """Execute on the driver's own `cursor` (one of a psycopg pipeline's: its rows are there
        once the pipeline synced); no SQLAlchemy events or error wrapping."""
        cursor.execute(self.sql, self._parameters(values))

    def _parameters(self, values: Mapping[str, Any]) -> Any:
        params = {**self._defaults, **values}
        return params if self._order is None else tuple(params[name] for name in self._order)


_BUILT: dict[tuple[str, str, str, Hashable], Prebuilt] = {}
_BUILDING = threading.Lock()


def prebuilt(conn: Connection, key: Hashable, build: Callable[[], ClauseElement]) -> Prebuilt:
    """The statement `build()` makes, compiled once for `conn`'s kind of database and driver and
    cached under `key` (the statement's name, with the batch size where its SQL depends on it:
    as many as the largest batch, a few dozen)."""
    dialect = conn.dialect
    cached = (dialect.name, dialect.driver, dialect.paramstyle, key)
    found = _BUILT.get(cached)
    if found is None:
        with _BUILDING:
            found = _BUILT.setdefault(cached, Prebuilt(build(), dialect))
    return found
