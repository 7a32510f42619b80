"""What the ladder's pages and its JSON API show, as plain data (the pages render it, the
API returns it as it is): a leaderboard with its verdict line, head to head, and a bot
version's page (gate, games, results per opponent, rating history, faults).

Reads only; what is the author's (gate logs, bots' logs) is given only to its author or
an admin (`viewer`). A version page lists its games from memory (`Ladder.games_of`, kept
with the ratings); head to head finds them through ``game_seats`` (indexed by version).
The leaderboards come from the latest snapshot (`arena.ladder.snapshots`): a reader never
recomputes the standings.
"""

from __future__ import annotations

import json
import weakref
import zlib
from typing import Any, Callable, Hashable

import sqlalchemy as sa

from arena.ladder.accounts import Caller
from arena.ladder.db import bots, game_seats, games, people, versions
from arena.ladder.service import Ladder, LeaseError

_CACHES: weakref.WeakKeyDictionary[Ladder, dict[Hashable, tuple[int, Any]]] = weakref.WeakKeyDictionary()
MAX_CACHED = 2000


def cached(ladder: Ladder, key: Hashable, make: Callable[[], Any]) -> Any:
    """`make()`, kept until the latest snapshot's generation changes (a result stored, a bot
    disabled, by any server process): a page read many times between two results is
    computed once. Callers must not change it."""
    cache = _CACHES.setdefault(ladder, {})
    generation = ladder.snapshots.latest().stamp.generation  # a change while making the value: stale, not wrong
    hit = cache.get(key)
    if hit is not None and hit[0] == generation:
        return hit[1]
    value = make()
    if len(cache) >= MAX_CACHED:
        cache.clear()
    cache[key] = (generation, value)
    return value


GAMES_SHOWN = 200
"""The newest games a version's page lists (all count in its results per opponent)."""
MAX_FAULTS_SHOWN = 100


def leaderboard(ladder: Ladder, label: str) -> dict[str, Any]:
    """Ruleset `label`'s leaderboard in the latest snapshot (`make_leaderboard`)."""
    board = ladder.snapshots.latest().boards.get(label)
    if board is None:
        raise LeaseError(f"no ruleset {label[:70]!r} on this ladder (it plays: {', '.join(ladder.rulesets)})", 404)
    return board


def make_leaderboard(ladder: Ladder, label: str) -> dict[str, Any]:
    """Ruleset `label`'s standings now (the refit's order) with the site's verdict line and
    each row's verdict against the next (``vs_next``): what a snapshot holds."""
    from arena.publish import verdict_line

    rows = ladder.standings_table(label)
    comparison = ladder.comparisons.get(label)
    return {"ruleset": label, "rows": rows, "verdict": verdict_line(label, rows, comparison),
            "settled": bool(rows) and all(r.get("vs_next") in ("separated", "equal") for r in rows[:-1])}


def _owner_may(viewer: Caller | None, owner: int) -> bool:
    return viewer is not None and (viewer.admin or viewer.person == owner)


def head_to_head(ladder: Ladder, label: str) -> dict[str, Any]:
    """Between the current versions of ruleset `label`: per ordered pair, games together
    and the share the row's finished ahead of the column's (ties a half)."""
    return cached(ladder, ("h2h", label), lambda: _head_to_head(ladder, label))


def _head_to_head(ladder: Ladder, label: str) -> dict[str, Any]:
    rows = leaderboard(ladder, label)["rows"]
    ids = [r["version_id"] for r in rows]
    with ladder.engine.connect() as conn:
        mine = sa.select(game_seats.c.game).where(game_seats.c.version.in_(ids))
        played = conn.execute(sa.select(games.c.seats, games.c.result).where(
            games.c.id.in_(mine), games.c.ruleset == label, games.c.gate.is_(None)).order_by(games.c.id)).all()
    tally: dict[tuple[int, int], list[float]] = {}
    for game in played:
        seats, standing = json.loads(game.seats), json.loads(game.result)["standing"]
        for i, a in enumerate(seats):
            for j, b in enumerate(seats):
                if i != j and a in ids and b in ids and a != b:
                    cell = tally.setdefault((a, b), [0.0, 0.0])
                    cell[0] += 1
                    cell[1] += 1.0 if standing[i] < standing[j] else 0.5 if standing[i] == standing[j] else 0.0
    names = [r["bot"] for r in rows]
    matrix = [[None if a == b or (a, b) not in tally else
               {"games": int(tally[a, b][0]), "score": round(tally[a, b][1] / tally[a, b][0], 3)} for b in ids]
              for a in ids]
    return {"ruleset": label, "bots": names, "matrix": matrix}


def bot_summary(ladder: Ladder, name: str) -> dict[str, Any]:
    """A bot's owner, whether disabled, and its versions (newest last)."""
    return cached(ladder, ("bot", name), lambda: _bot_summary(ladder, name))


def _bot_summary(ladder: Ladder, name: str) -> dict[str, Any]:
    from arena.ladder.admin import disabled_sets

    with ladder.engine.connect() as conn:
        bot = conn.execute(sa.select(bots, people.c.name.label("owner_name"))
                           .join(people, people.c.id == bots.c.owner).where(bots.c.name == name)).first()
        if bot is None:
            raise LeaseError(f"no bot {name[:70]!r}", 404)
        rows = conn.execute(sa.select(versions.c.id, versions.c.number, versions.c.state, versions.c.label,
                                      versions.c.rulesets, versions.c.size, versions.c.created)
                            .where(versions.c.bot == bot.id).order_by(versions.c.number)).all()
        off_bots, off_versions = disabled_sets(conn)
    return {"bot": name, "owner": bot.owner_name, "owner_id": bot.owner, "disabled": bot.id in off_bots,
            "current": next((r.number for r in rows if r.id == bot.current), None),
            "versions": [{"version": r.number, "version_id": r.id, "state": r.state, "label": r.label,
                          "rulesets": json.loads(r.rulesets), "size": r.size, "created": r.created,
                          "disabled": r.id in off_versions} for r in rows]}


def version_page(ladder: Ladder, name: str, number: int | None, viewer: Caller | None) -> dict[str, Any]:
    """Bot `name`'s page at version `number` (None: its current, else its newest): the bot's
    summary, the version's gate (its log for the author or an admin), games, results per
    opponent, rating history per ruleset and faults."""
    summary = bot_summary(ladder, name)
    if not summary["versions"]:
        return dict(summary, version=None, author=_owner_may(viewer, summary["owner_id"]))
    chosen = number if number is not None else summary["current"] or summary["versions"][-1]["version"]
    version = next((v for v in summary["versions"] if v["version"] == chosen), None)
    if version is None:
        raise LeaseError(f"no version {chosen} of bot {name[:70]!r}", 404)
    author = _owner_may(viewer, summary["owner_id"])
    with ladder.engine.connect() as conn:
        log = conn.execute(sa.select(versions.c.gate_log).where(versions.c.id == version["version_id"])).scalar()
    vid = version["version_id"]
    return dict(summary, version=dict(version, gate_log=log if author else None), author=author,
                **cached(ladder, ("version", vid), lambda: _version_games(ladder, vid)))


def _version_games(ladder: Ladder, vid: int) -> dict[str, Any]:
    """Version `vid`'s games (the newest `GAMES_SHOWN`), results per opponent, faults and rating history."""
    ladder.snapshots.latest()  # the games listed and rated as of the latest snapshot
    played = ladder.games_of(vid)
    names = _version_names(ladder, {v for g in played for v in g["seats"] if v is not None})
    shown = [_game_row(g, vid, names) for g in played[::-1][:GAMES_SHOWN]]
    return {"games": shown, "games_total": len(played), "opponents": _per_opponent(played, vid, names),
            "faults": _faults(ladder, played, vid),
            "history": {label: [list(point) for point in ladder.history[label].get(vid, [])]
                        for label in ladder.rulesets}}


def _version_names(ladder: Ladder, ids: set[int]) -> dict[int, str]:
    with ladder.engine.connect() as conn:
        rows = conn.execute(sa.select(versions.c.id, versions.c.number, bots.c.name)
                            .join(bots, bots.c.id == versions.c.bot).where(versions.c.id.in_(sorted(ids)))).all()
    return {r.id: f"{r.name} v{r.number}" for r in rows}


def _game_row(game: dict[str, Any], vid: int, names: dict[int, str]) -> dict[str, Any]:
    seat = game["seats"].index(vid)
    standing = game["standing"]
    result = ("tie" if len(set(standing)) == 1 else "win" if standing[seat] == 1
              else "last" if standing[seat] == max(standing) else "middle")
    return {"game": game["game"], "ruleset": game["ruleset"], "seat": seat, "gate": game["gate"] is not None,
            "result": result, "score": game["scores"][seat], "faults": game["faults"][seat],
            "others": [names.get(v, "random") if v is not None else "random"
                       for i, v in enumerate(game["seats"]) if i != seat]}


def _per_opponent(played: list[dict[str, Any]], vid: int, names: dict[int, str]) -> list[dict[str, Any]]:
    """Per opponent version (rated games): games, finished ahead, tied, behind."""
    table: dict[int, list[int]] = {}
    for game in played:
        if game["gate"] is not None:
            continue
        seats, standing = game["seats"], game["standing"]
        mine = standing[seats.index(vid)]
        for other, place in zip(seats, standing):
            if other != vid:
                row = table.setdefault(other, [0, 0, 0])
                row[0 if mine < place else 1 if mine == place else 2] += 1
    rows = [{"opponent": names.get(v, "random"), "games": sum(c), "ahead": c[0], "tied": c[1], "behind": c[2]}
            for v, c in table.items()]
    return sorted(rows, key=lambda r: (-r["games"], r["opponent"]))


def _faults(ladder: Ladder, played: list[dict[str, Any]], vid: int) -> list[dict[str, Any]]:
    """The version's faults (newest games first, at most `MAX_FAULTS_SHOWN`), each with the
    decision it happened at (numbered from 1, as the replay viewer's address takes it)."""
    faulty = [g for g in reversed(played) if g["faults"][g["seats"].index(vid)]][:MAX_FAULTS_SHOWN]
    if not faulty:
        return []
    with ladder.engine.connect() as conn:
        records = dict(conn.execute(sa.select(games.c.id, games.c.record)
                                    .where(games.c.id.in_([g["game"] for g in faulty]))).all())
    shown = []
    for game in faulty:
        seat = game["seats"].index(vid)
        for fault in json.loads(zlib.decompress(records[game["game"]])).get("faults") or []:
            if isinstance(fault, dict) and fault.get("seat") == seat:
                decision = fault.get("decision")
                shown.append({"game": game["game"], "seat": seat, "kind": str(fault.get("kind", "")),
                              "detail": str(fault.get("detail", ""))[:500],
                              "decision": None if decision is None else int(decision) + 1})
    return shown[:MAX_FAULTS_SHOWN]


def game_records(ladder: Ladder, name: str) -> Any:
    """Every stored game of bot `name` (all its versions), oldest first, as records without
    the bots' logs: an iterator of JSON lines (the bulk download)."""
    summary = bot_summary(ladder, name)
    ids = [v["version_id"] for v in summary["versions"]]
    with ladder.engine.connect() as conn:
        numbers = [r.game for r in conn.execute(sa.select(game_seats.c.game).where(game_seats.c.version.in_(ids))
                                                .group_by(game_seats.c.game).order_by(game_seats.c.game)).all()]
    for start in range(0, len(numbers), 200):
        with ladder.engine.connect() as conn:
            rows = conn.execute(sa.select(games.c.id, games.c.record)
                                .where(games.c.id.in_(numbers[start:start + 200])).order_by(games.c.id)).all()
        for row in rows:
            record = json.loads(zlib.decompress(row.record))
            record.pop("logs", None)
            yield json.dumps({"game": row.id, "record": record}) + "\n"


def bots_of(ladder: Ladder, person: int | None) -> list[dict[str, Any]]:
    """The bots of `person` (None: every bot), by name: owner, current version, newest
    version and its gate state, disabled or not."""
    from arena.ladder.admin import disabled_sets

    with ladder.engine.connect() as conn:
        query = (sa.select(bots.c.id, bots.c.name, bots.c.current, people.c.name.label("owner"))
                 .join(people, people.c.id == bots.c.owner).order_by(bots.c.name))
        if person is not None:
            query = query.where(bots.c.owner == person)
        rows = conn.execute(query).all()
        newest = {r.bot: r for r in conn.execute(
            sa.select(versions.c.bot, versions.c.id, versions.c.number, versions.c.state)
            .where(versions.c.bot.in_([r.id for r in rows])).order_by(versions.c.number)).all()}
        numbers = dict(conn.execute(sa.select(versions.c.id, versions.c.number)
                                    .where(versions.c.id.in_([r.current for r in rows if r.current]))).all())
        off_bots, _ = disabled_sets(conn)
    return [{"bot": r.name, "owner": r.owner, "current": numbers.get(r.current),
             "newest": newest[r.id].number if r.id in newest else None,
             "state": newest[r.id].state if r.id in newest else None, "disabled": r.id in off_bots} for r in rows]
