"""A ladder game: its spec (what a worker needs to play it), its identity and seeds,
and the check of a record a worker returns.

A seat is a ladder version (``{"version": id, "name": bot name, "content": content hash,
"label": record version, "blob": upload hash}``) or, in the gate, a built-in bot
(``{"builtin": "random", "name": "random", "label": its distribution version}``). The
game's identity (`arena.identity.GameIdentity`) is (the ruleset's label; per seat its
entry name and the version's content hash; the deal; the rotation). The deal seed is
``table_deal_seed(ladder seed, label, the table's names, deal)`` and the bot seeds
``bot_seed(deal_seed, seat, rotation)`` (`arena.seeding`), as a tournament's.

`record_problem_for` checks a returned record as `arena rank` checks a stored game
(arena.verify): the record's form, ruleset, options, seats and seeds, then a replay with the
installed ruleset (`arena.match.replay_checked`: the header not checked again; it checks the
transcript hash) and its faults against what was played. Each check runs once a result.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from arena.identity import GameIdentity
from arena.seeding import bot_seed, table_deal_seed

Spec = dict[str, Any]


def entry_names(names: Sequence[str]) -> list[str]:
    """A table's entry names, distinct: the n-th copy (n >= 2) of a name gets ``~n``."""
    out: list[str] = []
    for name in names:
        copies = names[:len(out)].count(name)
        out.append(f"{name}~{copies + 1}" if copies else name)
    return out


def table_names(seats: Sequence[Mapping[str, Any]]) -> list[str]:
    """The table's entry names, in table order (a version playing itself: its copies suffixed)."""
    return entry_names([str(seat["name"]) for seat in seats])


def make_spec(ruleset: Mapping[str, Any], table: Sequence[Mapping[str, Any]], deal: int, rotation: int,
              seed: int, gate: int | None = None) -> Spec:
    """The spec of deal `deal` of `table` (entries in table order) seated in `rotation`.
    `ruleset`: {"label", "id", "options"}."""
    names = table_names(table)
    players = len(table)
    deal_seed = table_deal_seed(seed, ruleset["label"], names, deal)
    order = [(s + rotation) % players for s in range(players)]
    seats = [dict(table[i], entry=names[i]) for i in order]
    return {"ruleset": dict(ruleset), "seats": seats, "deal": deal, "rotation": rotation, "deal_seed": deal_seed,
            "bot_seeds": [bot_seed(deal_seed, s, rotation) for s in range(players)], "gate": gate}


def identity(spec: Spec) -> GameIdentity:
    return GameIdentity.of(spec["ruleset"]["label"], [(s["entry"], s.get("content") or s["label"])
                                                     for s in spec["seats"]], spec["deal"], spec["rotation"])


def _header_problem(spec: Spec, record: Mapping[str, Any], cls: Any) -> str | None:
    """What in the record's header (ruleset, seats, seeds) is not the spec's."""
    meta, players = record["ruleset"], len(spec["seats"])
    if (meta["id"], meta["version"]) != (cls.id, cls.version):
        return f"it is a record of {meta['id']} {meta['version']}, not the installed {cls.id} {cls.version}"
    if meta.get("options") != _resolved_options(cls, spec["ruleset"].get("options") or {}):
        return "its options are not the ladder's for this ruleset"
    if record["players"] != players or len(record["seats"]) != players:
        return f"it has {record['players']} players, not {players}"
    for s, (want, got) in enumerate(zip(spec["seats"], record["seats"])):
        if (got.get("bot"), got.get("version"), got.get("display")) != (want["name"], want["label"], want["entry"]):
            return f"seat {s} is {got.get('bot')!r} {got.get('version')!r}, not {want['name']!r} {want['label']!r}"
    if record["deal_seed"] != spec["deal_seed"] or record.get("bot_seeds") != spec["bot_seeds"]:
        return "its seeds are not the ones the ladder's seed derives for it"
    return None  # the transcript hash: checked by the replay (`arena.match.replay_checked`), not twice


_RESOLVED: dict[tuple[Any, str], dict[str, Any]] = {}


def _resolved_options(cls: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """`cls.resolve_options(options)`, once per ruleset class and options (the ladder's, from a
    task's spec: a handful); ~0.09 ms a call (it deep-copies every default), once per result.
    Callers only compare it."""
    key = (cls, json.dumps(options, sort_keys=True))
    if key not in _RESOLVED:
        _RESOLVED[key] = cls.resolve_options(options)
    return _RESOLVED[key]


def record_problem_for(spec: Spec, record: Any, cls: Any) -> str | None:
    """Why `record` is not a faithful record of the game `spec` of ruleset `cls` (the
    installed class of the spec's ruleset id) (None: it is)."""
    from arena.match import record_problem, replay_checked
    from arena.verify import fault_problem

    problem = record_problem(record)
    if problem:
        return f"not a game record: {problem}"
    problem = _header_problem(spec, record, cls)
    if problem:
        return problem
    forfeited = record.get("forfeited") or []
    faults = faults_of(record)
    if any(faults[seat] == 0 for seat in forfeited):
        return f"it forfeits seats {forfeited} that committed no fault"
    try:
        replay_checked(record, cls)  # the form, ruleset, options and players: checked above
        problem = fault_problem(record, cls) if record.get("faults") else None
    except Exception as exc:  # ReplayMismatchError, or an engine that cannot take the record
        return f"it does not replay ({str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__})"
    return f"its faults are not what was played: {problem}" if problem else None


def faults_of(record: Mapping[str, Any]) -> list[int]:
    from arena.store import faults_per_seat

    return faults_per_seat(dict(record), record["players"])
