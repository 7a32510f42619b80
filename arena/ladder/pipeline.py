"""A batch of game results stored on PostgreSQL in one round trip (a psycopg pipeline).

`Ladder.store_results` stores a batch with a few statements; sent one by one, each is a round
trip to the server, and under load each is also a point where the storing thread gives up the
GIL and waits to get it back, with the database's write lock held (the other listener's
results wait for it). A batch of games needs no answer from one statement to send the next:
the tasks are marked done (``UPDATE ... RETURNING``, as `leases.finish_many`) and, in the same
pipeline, the games are inserted unless their key is stored already, with their seats (one
statement: the games' ``INSERT ... ON CONFLICT (key) DO NOTHING RETURNING`` feeds the seats'
insert), so the batch costs one round trip. The tasks the UPDATE marked are those stored now:
a task is done exactly when its game is stored (both in one transaction, under the write
lock), so a game found stored is that of a task done before, whose copy is answered "already
stored" and changes nothing, as on the statement-by-statement path. Gates (a version's state
depends on whether its task was marked) take that path.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection

from arena.ladder.db import game_seats, games
from arena.ladder.leases import finish_many_statement_for
from arena.ladder.prebuilt import prebuilt

GAME_COLUMNS = ("key", "ruleset", "seats", "deal", "rotation", "result", "record", "gate", "created")


def store_games(conn: Connection, tasks: Sequence[int], rows: Sequence[Mapping[str, Any]]) -> set[int]:
    """Mark `tasks` done unless they are, and store `rows` (their games as `service.game_row`
    makes them, `created` added; distinct keys), in `conn`'s transaction, in one round trip;
    the tasks this call marked done (`leases.finish_many`'s answer)."""
    driver = conn.connection.driver_connection
    assert driver is not None
    marked = driver.cursor()
    with driver.pipeline():
        finish_many_statement_for(conn, len(tasks)).send(marked, {f"id{k}": task for k, task in enumerate(tasks)})
        if rows:
            values: dict[str, Any] = {f"{c}_{k}": row["game"][c] for k, row in enumerate(rows) for c in GAME_COLUMNS}
            seats = [(row["game"]["key"], seat, version) for row in rows for seat, version in enumerate(row["seats"])]
            values.update(seat_keys=[s[0] for s in seats], seat_numbers=[s[1] for s in seats],
                          seat_versions=[s[2] for s in seats])
            _games_and_seats_for(conn, len(rows)).send(driver.cursor(), values)
    return {row[0] for row in marked.fetchall()}


def prepare_store(conn: Connection, size: int) -> None:
    """Compile `store_games`'s statements for `size` tasks of one game each (`prebuilt`), as its
    first batch of that size would."""
    finish_many_statement_for(conn, size)
    _games_and_seats_for(conn, size)


def _games_and_seats_for(conn: Connection, count: int) -> Any:
    return prebuilt(conn, ("games_and_seats", count), lambda: _games_and_seats(count))


def _games_and_seats(count: int) -> Any:
    """`count` games (row k's column c bound as ``c_k``) inserted unless their key is stored, and
    the seats of those inserted (bound as the arrays ``seat_keys``, ``seat_numbers``, ``seat_versions``)."""
    new = (postgresql.insert(games).values([{c: sa.bindparam(f"{c}_{k}") for c in GAME_COLUMNS} for k in range(count)])
           .on_conflict_do_nothing(index_elements=[games.c.key]).returning(games.c.id, games.c.key).cte("new"))
    listed = sa.func.unnest(sa.bindparam("seat_keys", type_=postgresql.ARRAY(sa.String)),
                            sa.bindparam("seat_numbers", type_=postgresql.ARRAY(sa.Integer)),
                            sa.bindparam("seat_versions", type_=postgresql.ARRAY(sa.Integer))
                            ).table_valued("key", "seat", "version").render_derived()
    return game_seats.insert().from_select(
        ["game", "seat", "version"],
        sa.select(new.c.id, listed.c.seat, listed.c.version).join_from(new, listed, listed.c.key == new.c.key))
