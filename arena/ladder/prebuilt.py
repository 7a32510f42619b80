"""A result's statements as the driver's SQL: compiled once per dialect, run as plain SQL.

A Core statement executed through SQLAlchemy pays on every execution for its cache key, the
lookup of its compiled form and its parameters' processing (~0.05 ms a statement on the test
machine, as much as the statement itself on SQLite). A returned result runs one read
(`leases.RESULT_READ`) and its batch's store a handful of writes, so those are compiled once
per database dialect (and, for the statements with one placeholder per item, per batch size:
a handful) and run with `Connection.exec_driver_sql`: the same SQL, in the same transaction,
with SQLAlchemy's events, errors and rows, without the per-execution compiling work. Only
for statements whose parameters the driver takes as they are (strings, numbers, bytes, None).
A returned result's one read goes further on PostgreSQL (`Prebuilt.first`): it is sent on the
driver's own cursor, with no SQLAlchemy result built around the row (~0.1 ms of CPU a read).
"""

from __future__ import annotations

import threading
from collections import namedtuple
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
        self._row: Any = None
        """`first`'s rows' type (a named tuple of the statement's columns), once it read one."""

    def run(self, conn: Connection, values: Mapping[str, Any]) -> Any:
        """Execute on `conn` with `values` for the statement's named parameters (its CursorResult)."""
        return conn.exec_driver_sql(self.sql, self._parameters(values))

    def first(self, conn: Connection, values: Mapping[str, Any]) -> Any:
        """The first row of running it on `conn` with `values` (None: no row), its columns by name
        as a SQLAlchemy row's are. On PostgreSQL the driver's own cursor runs it (in `conn`'s
        transaction, if any): no SQLAlchemy result and no events, psycopg's errors; elsewhere
        `run`'s first row."""
        if conn.dialect.name != "postgresql":
            return self.run(conn, values).first()
        driver = conn.connection.driver_connection
        assert driver is not None
        with driver.cursor() as cursor:
            cursor.execute(self.sql, self._parameters(values))
            row = cursor.fetchone()
            if row is None:
                return None
            if self._row is None:  # its columns never change: named once
                self._row = _row_type([column.name for column in cursor.description])
            return self._row(*row)

    def send(self, cursor: Any, values: Mapping[str, Any]) -> None:
        """Execute on the driver's own `cursor` (one of a psycopg pipeline's: its rows are there
        once the pipeline synced); no SQLAlchemy events or error wrapping."""
        cursor.execute(self.sql, self._parameters(values))

    def _parameters(self, values: Mapping[str, Any]) -> Any:
        params = {**self._defaults, **values}
        return params if self._order is None else tuple(params[name] for name in self._order)


def _row_type(columns: list[str]) -> Any:
    """A named tuple type of `columns`, as SQLAlchemy's rows name theirs."""
    return namedtuple("Row", columns, rename=True)


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
