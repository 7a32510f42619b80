"""What organisers switch: play paused, submissions frozen, bots and versions disabled; and
the workers' leases they watch.

``paused``: workers get no new work (leases already held finish; their results are stored).
``frozen``: no uploads but an admin's (for finals). A disabled bot or version leaves the
field: scheduling plays it no more and the standings list it no more (its games stay
stored and rated). The switches live in the ``settings`` table, so a restarted server
keeps them.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena.ladder.accounts import AccessError, Caller
from arena.ladder.db import bots, disabled, lease_holders, people, settings, tasks, versions

SWITCHES = ("paused", "frozen")
HOLDERS_KEPT = 7 * 86_400.0


def setting(conn: Connection, name: str) -> str | None:
    return conn.execute(sa.select(settings.c.value).where(settings.c.name == name)).scalar()


def put_setting(conn: Connection, name: str, value: str) -> None:
    if setting(conn, name) is None:
        conn.execute(settings.insert().values(name=name, value=value))
    else:
        conn.execute(settings.update().where(settings.c.name == name).values(value=value))


def switched(conn: Connection, name: str) -> bool:
    """Whether switch `name` (one of `SWITCHES`) is on."""
    return setting(conn, name) == "on"


def set_switch(conn: Connection, caller: Caller, name: str, on: bool) -> None:
    if not caller.admin:
        raise AccessError("only an admin pauses play or freezes submissions")
    if name not in SWITCHES:
        raise AccessError(f"no switch {name[:40]!r} (switches: {', '.join(SWITCHES)})", 404)
    put_setting(conn, name, "on" if on else "off")


def session_key(conn: Connection) -> str:
    """The key that signs the web pages' session cookies: made once, kept in the database,
    so sessions survive a restart (and a leaked cookie dies with a new key)."""
    key = setting(conn, "session_key")
    if key is None:
        key = secrets.token_urlsafe(48)
        put_setting(conn, "session_key", key)
    return key


def set_disabled(conn: Connection, caller: Caller, bot: str, number: int | None, off: bool) -> dict[str, Any]:
    """Disable (`off`) or enable bot `bot`, or only its version `number`."""
    if not caller.admin:
        raise AccessError("only an admin disables a bot or version")
    bot_id = conn.execute(sa.select(bots.c.id).where(bots.c.name == bot)).scalar()
    if bot_id is None:
        raise AccessError(f"no bot {bot[:70]!r}", 404)
    kind, ref = "bot", int(bot_id)
    if number is not None:
        found = conn.execute(sa.select(versions.c.id).where(versions.c.bot == bot_id, versions.c.number == number)
                             ).scalar()
        if found is None:
            raise AccessError(f"no version {number} of bot {bot[:70]!r}", 404)
        kind, ref = "version", int(found)
    conn.execute(disabled.delete().where(disabled.c.kind == kind, disabled.c.ref == ref))
    if off:
        conn.execute(disabled.insert().values(kind=kind, ref=ref, created=time.time()))
    return {"bot": bot, "version": number, "disabled": off}


def disabled_sets(conn: Connection) -> tuple[frozenset[int], frozenset[int]]:
    """The ids of the disabled bots and of the disabled versions."""
    rows = conn.execute(sa.select(disabled.c.kind, disabled.c.ref)).all()
    return (frozenset(r.ref for r in rows if r.kind == "bot"), frozenset(r.ref for r in rows if r.kind == "version"))


def note_lease(conn: Connection, lease: str, caller: Caller) -> None:
    """Remember who took `lease` (the admin page's workers); holders of leases taken more than
    `HOLDERS_KEPT` seconds ago are forgotten (a lease outlives no heartbeat that long)."""
    now = time.time()
    conn.execute(lease_holders.delete().where(lease_holders.c.taken < now - HOLDERS_KEPT))
    conn.execute(lease_holders.insert().values(lease=lease, person=caller.person, taken=now))


def workers_view(conn: Connection, now: float) -> list[dict[str, Any]]:
    """The leases held now: the worker (its token's person), the lease's first 8
    characters, when taken and when it expires, and its tasks by kind."""
    rows = conn.execute(sa.select(tasks.c.lease, tasks.c.kind, tasks.c.expires, people.c.name, lease_holders.c.taken)
                        .join(lease_holders, lease_holders.c.lease == tasks.c.lease, isouter=True)
                        .join(people, people.c.id == lease_holders.c.person, isouter=True)
                        .where(tasks.c.state == "leased").order_by(lease_holders.c.taken, tasks.c.id)).all()
    held: dict[str, dict[str, Any]] = {}
    for r in rows:
        lease = held.setdefault(r.lease, {"worker": r.name or "?", "lease": r.lease[:8], "taken": r.taken,
                                          "expires_in": round(float(r.expires or now) - now, 1), "games": 0,
                                          "gates": 0})
        lease["games" if r.kind == "game" else "gates"] += 1
    return list(held.values())
