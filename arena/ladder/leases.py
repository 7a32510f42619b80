"""The work queue workers pull from: leases, heartbeats, expiry, and results stored once.

A worker asks for work (`take`) and gets a lease: one gate run, or up to
``ladder.batch_games`` games, held for ``ladder.lease_seconds``. It renews the lease
every ``ladder.heartbeat_seconds`` (`renew`); a lease not renewed in time expires and
its unfinished tasks go back to the queue (`expire`, run before every `take`), to be
leased again, to the same worker or another. A result is accepted from whoever returns
it first, under any lease (the game is the same game: same identity, same seeds); a
later copy finds its task done and changes nothing.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any, Callable, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena.ladder.accounts import VALID_TOKEN
from arena.ladder.db import tasks, versions
from arena.ladder.games import Spec
from arena.ladder.prebuilt import prebuilt

QUEUED, LEASED, DONE_STATE, FAILED = "queued", "leased", "done", "failed"
MAX_ATTEMPTS = 5
"""Leases of one task that may expire before it is given up (state ``failed``: a gate then
fails its version; a game is not scheduled again): a task no worker can finish must not
circle for ever."""


def expire(conn: Connection, now: float) -> int:
    """Put back in the queue every task whose lease has expired, or give it up after
    `MAX_ATTEMPTS` leases; how many were put back."""
    expired = (tasks.c.state == LEASED) & (tasks.c.expires < now)
    given_up = conn.execute(sa.select(tasks.c.id, tasks.c.kind, tasks.c.spec)
                            .where(expired, tasks.c.attempts >= MAX_ATTEMPTS)).all()
    for task in given_up:
        conn.execute(tasks.update().where(tasks.c.id == task.id).values(state=FAILED, lease=None, expires=None))
        if task.kind == "gate":
            conn.execute(versions.update().where(versions.c.id == json.loads(task.spec)["version"]).values(
                state="failed", gated=now, gate_log=f"no worker returned its gate in {MAX_ATTEMPTS} leases "
                                                    "(each expired: a worker crashed or timed out on it)"))
    return int(conn.execute(tasks.update().where(expired).values(state=QUEUED, lease=None, expires=None)).rowcount)


def enqueue_games(conn: Connection, specs: Sequence[tuple[str, Spec]]) -> None:
    """Queue games (identity key, spec) the scheduler chose."""
    now = time.time()
    for key, spec in specs:
        conn.execute(tasks.insert().values(key=key, kind="game", spec=json.dumps(spec), state=QUEUED, attempts=0,
                                           created=now))


def _queued(conn: Connection, kind: str, limit: int) -> list[Any]:
    return list(conn.execute(sa.select(tasks.c.id, tasks.c.kind, tasks.c.spec).where(
        tasks.c.state == QUEUED, tasks.c.kind == kind).order_by(tasks.c.id).limit(limit)).all())


def take(conn: Connection, room: int, lease_seconds: float, schedule: Callable[[Connection, int], None]
         ) -> dict[str, Any]:
    """A new lease on a gate run or up to `room` games (asking `schedule(conn, n)` to queue
    n more games when the queue has too few); no tasks: nothing to do now."""
    now = time.time()
    expire(conn, now)
    chosen = _queued(conn, "gate", 1)
    if not chosen:
        chosen = _queued(conn, "game", room)
        if len(chosen) < room:
            schedule(conn, room - len(chosen))
            chosen = _queued(conn, "game", room)
    lease = secrets.token_hex(16)
    expires = now + lease_seconds
    ids = [row.id for row in chosen]
    if ids:
        conn.execute(tasks.update().where(tasks.c.id.in_(ids)).values(
            state=LEASED, lease=lease, expires=expires, attempts=tasks.c.attempts + 1))
    return {"lease": lease if ids else None, "expires": expires if ids else None,
            "tasks": [{"id": row.id, "kind": row.kind, "spec": json.loads(row.spec)} for row in chosen]}


def renew(conn: Connection, lease: str, lease_seconds: float) -> dict[str, Any]:
    """Extend `lease` by `lease_seconds` from now; which of its tasks it still holds
    (none: it expired and they were leased again or done)."""
    now = time.time()
    expire(conn, now)
    held = [row.id for row in conn.execute(sa.select(tasks.c.id).where(tasks.c.lease == lease,
                                                                       tasks.c.state == LEASED)).all()]
    if held:
        conn.execute(tasks.update().where(tasks.c.id.in_(held)).values(expires=now + lease_seconds))
    return {"lease": lease, "expires": now + lease_seconds if held else None, "held": held}


def task_row(conn: Connection, task_id: int) -> Any:
    return conn.execute(sa.select(tasks).where(tasks.c.id == task_id)).first()


RESULT_READ = (VALID_TOKEN.add_columns(tasks.c.kind, tasks.c.spec, tasks.c.state)
               .outerjoin(tasks, tasks.c.id == sa.bindparam("task")))
"""What a returned result needs to read, in one statement: the token's person and scope (no
row: the token is unknown or revoked) and task ``task``'s kind, spec and state (None: no such
task). Built once (`accounts.VALID_TOKEN`); bound as ``digest`` and ``task``."""


def result_read(conn: Connection, token_digest: str, task_id: int) -> Any:
    """The `RESULT_READ` row for a token's hash and a task (None: the token is not valid), run
    as the driver's SQL (`prebuilt`; on PostgreSQL on the driver's cursor: `conn` in autocommit,
    `db.single_reads`)."""
    return prebuilt(conn, "result_read", lambda: RESULT_READ).first(conn, {"digest": token_digest, "task": task_id})


def finish_once(conn: Connection, task_id: int) -> bool:
    """Mark task `task_id` done unless it is; whether this call did (one statement: a result's
    store asks and marks at once)."""
    return bool(conn.execute(tasks.update().where(tasks.c.id == task_id, tasks.c.state != DONE_STATE)
                             .values(state=DONE_STATE, lease=None, expires=None)).rowcount)


def finish_many(conn: Connection, task_ids: Sequence[int]) -> set[int]:
    """Mark the tasks `task_ids` done unless they are; the ids this call marked (one statement:
    a batch of results' store asks and marks at once)."""
    if not task_ids:
        return set()
    statement = finish_many_statement_for(conn, len(task_ids))
    return set(statement.run(conn, {f"id{k}": task for k, task in enumerate(task_ids)}).scalars())


def finish_many_statement_for(conn: Connection, count: int) -> Any:
    """`finish_many`'s statement for `count` tasks as `conn`'s driver SQL (`prebuilt`: compiled on first use)."""
    return prebuilt(conn, ("finish_many", count), lambda: finish_many_statement(count))


def finish_many_statement(count: int) -> Any:
    """`finish_many`'s statement for `count` tasks (bound as ``id0``, ``id1``, ...)."""
    return (tasks.update().where(tasks.c.id.in_([sa.bindparam(f"id{k}") for k in range(count)]),
                                 tasks.c.state != DONE_STATE)
            .values(state=DONE_STATE, lease=None, expires=None).returning(tasks.c.id))


def finish(conn: Connection, task_id: int) -> None:
    conn.execute(tasks.update().where(tasks.c.id == task_id).values(state=DONE_STATE, lease=None, expires=None))


def requeue(conn: Connection, task_id: int) -> None:
    """A result the server refused: the task is played again (by a worker, from scratch)."""
    conn.execute(tasks.update().where(tasks.c.id == task_id, tasks.c.state != DONE_STATE)
                 .values(state=QUEUED, lease=None, expires=None))
