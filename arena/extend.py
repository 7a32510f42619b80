"""Extending a finished (or partly played) tournament: the same file with entries, rulesets
or deals added (issue 19 item 6).

Deal seeds are keyed by content (ruleset label, the table's entry names, deal index:
`arena.seeding.table_deal_seed`), so every stored game is also a game of the longer file,
with the same cards and seats. `plan_extension` checks that the new file only adds, and
that each stored game has a place in the new schedule; `apply_extension` stores the new
file and plan in one transaction. No stored row changes: games are keyed by what was
played (arena.identity), and readers place them in the new plan's schedule order
(arena.placement), so the store reads as exactly the games a fresh run of the new file
would have stored so far, and both rate to the same standings; the run plays only the
games that are new.

Refused, one line each: another seed or format; an entry removed, renamed, reordered or
changed (bot, params, version, files); a ruleset removed or changed; fewer deals; any other
`[tournament]` key changed (limits, isolation, `stop`, `confidence`, `margin`, ...); a file
with `stop` or the sampled format (its looks and sampled tables depend on the whole file);
and a store of the older seed derivation. A secret seed that has been revealed (the
tournament was complete) deals no new game: those get a fresh secret seed with its own
commitment, the revealed one staying in the plan's ``seed_history`` with the games it dealt
(`arena.tournament.epoch_seed`).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from typing import Any

from arena.errors import ConfigError
from arena.luck import planned_luck_mode
from arena.placement import Placement
from arena.store import Store
from arena.tournament import SEED_DERIVATION, Tournament

ADDABLE_KEYS = ("deals",)
"""The `[tournament]` keys an extension may change (only upwards)."""
FREE_KEYS = ("workers",)
"""The `[tournament]` keys that do not change any game, free to change at any time."""


@dataclass
class Extension:
    """What extending a store to a new file does."""

    plan: dict[str, Any]                        # the new file's plan
    added: list[str]                            # what is added, for `arena run` to say


def plan_extension(store: Store, tournament: Tournament, plan: dict[str, Any]) -> Extension:
    """Check that `tournament` (whose plan is `plan`) only adds to the store's file, and
    that every stored game has a place in the new schedule; ConfigError (one line) otherwise."""
    where = f"{tournament.path}: cannot extend {store.path}"
    old = store.plan()
    if old.get("seed_derivation", 1) != SEED_DERIVATION:
        raise ConfigError(f"{where}: it was made with seed derivation {old.get('seed_derivation', 1)} (deal seeds "
                          "by file position); rerun with --restart")
    _check_head(store, tournament, old, where)
    if plan["deals"] < old["deals"]:
        raise ConfigError(f"{where}: tournament.deals went down ({old['deals']} -> {plan['deals']}); "
                          "deals may only be added")
    entry_map = _entry_map(old, plan, where)
    ruleset_map = _ruleset_map(old, plan, entry_map, where)
    _check_places(store, plan, where)
    added = [f"entries {', '.join(repr(e['bot']) for i, e in enumerate(plan['entries']) if i not in entry_map)}"
             if len(plan["entries"]) > len(entry_map) else "",
             f"rulesets {', '.join(repr(r['label']) for i, r in enumerate(plan['rulesets']) if i not in ruleset_map)}"
             if len(plan["rulesets"]) > len(ruleset_map) else "",
             f"deals {old['deals']} -> {plan['deals']}" if plan["deals"] > old["deals"] else ""]
    if planned_luck_mode(old) != "adjusted":   # stored games without corrections: stay raw
        plan = dict(plan, luck={"mode": "raw", "rulesets": [None] * len(plan["rulesets"])})
    return Extension(plan, [a for a in added if a])


def _check_head(store: Store, tournament: Tournament, old: dict[str, Any], where: str) -> None:
    """Only `ADDABLE_KEYS` and `FREE_KEYS` of ``[tournament]`` may change (and challengers
    be added); no `stop` and no sampled format."""
    try:
        old_head = tomllib.loads(store.get("tournament_text") or "").get("tournament", {})
    except tomllib.TOMLDecodeError:
        raise ConfigError(f"{where}: its stored tournament file is not TOML") from None
    new_head = tomllib.loads(tournament.text).get("tournament", {})
    for key in sorted(set(old_head) | set(new_head)):
        if key in ADDABLE_KEYS or key in FREE_KEYS:
            continue
        if key == "challengers" and isinstance(old_head.get(key), list) and isinstance(new_head.get(key), list):
            old_names = {e["bot"] for e in old["entries"]}
            if set(old_head[key]) == {c for c in new_head[key] if c in old_names}:
                continue  # only new entries were made challengers
        if old_head.get(key) != new_head.get(key):
            raise ConfigError(f"{where}: tournament.{key} changed ({old_head.get(key)!r} -> {new_head.get(key)!r}); "
                              "only entries, rulesets and deals may be added")
    if tournament.stop is not None or tournament.format == "sampled":
        what = "stop" if tournament.stop is not None else 'format = "sampled"'
        raise ConfigError(f"{where}: a tournament with {what} cannot be extended (its looks or tables depend on "
                          "the whole file)")


def _entry_map(old: dict[str, Any], plan: dict[str, Any], where: str) -> list[int]:
    """Old entry index -> new entry index; ConfigError if an entry was removed, changed or reordered."""
    names = {e["bot"]: i for i, e in enumerate(plan["entries"])}
    entry_map = []
    for entry in old["entries"]:
        if entry["bot"] not in names:
            raise ConfigError(f"{where}: entry {entry['bot']!r} was removed; entries may only be added")
        new = plan["entries"][names[entry["bot"]]]
        for key in ("uses", "package", "version", "params", "files_sha256"):
            if entry.get(key) != new.get(key) and not (key == "files_sha256" and not entry.get(key)):
                raise ConfigError(f"{where}: entry {entry['bot']!r} changed ({key}: {entry.get(key)!r} -> "
                                  f"{new.get(key)!r}); entries may only be added")
        entry_map.append(names[entry["bot"]])
    if entry_map != sorted(entry_map):
        raise ConfigError(f"{where}: the entries {', '.join(e['bot'] for e in old['entries'])} are in another "
                          "order; keep their order (new ones may go anywhere)")
    return entry_map


def _ruleset_map(old: dict[str, Any], plan: dict[str, Any], entry_map: list[int], where: str) -> list[int]:
    """Old ruleset index -> new; ConfigError if a ruleset was removed or changed, or lost an entry."""
    labels = {r["label"]: i for i, r in enumerate(plan["rulesets"])}
    ruleset_map = []
    for r in old["rulesets"]:
        if r["label"] not in labels:
            raise ConfigError(f"{where}: ruleset {r['label']!r} was removed; rulesets may only be added")
        new = plan["rulesets"][labels[r["label"]]]
        for key in ("id", "version", "package", "package_version", "players", "options", "draw_probability"):
            if r.get(key) != new.get(key):
                raise ConfigError(f"{where}: ruleset {r['label']!r} changed ({key}: {r.get(key)!r} -> "
                                  f"{new.get(key)!r}); rulesets may only be added")
        dropped = [old["entries"][e]["bot"] for e in r["entries"] if entry_map[e] not in new["entries"]]
        if dropped:
            raise ConfigError(f"{where}: {', '.join(dropped)} no longer play {r['label']}")
        ruleset_map.append(labels[r["label"]])
    return ruleset_map


def _check_places(store: Store, plan: dict[str, Any], where: str) -> None:
    """Every stored game is a game of the new plan (it cannot fail once the checks above pass)."""
    placement = Placement(plan, store.get("seed"))
    for key, label, table, deal, repeat, rotation in store._read(
            "SELECT game_key, ruleset, table_entries, deal, repeat, rotation FROM games"):
        if placement.place(label, tuple(json.loads(table)), deal, repeat, rotation) is None:
            raise ConfigError(f"{where}: stored game {key[:12]} ({label}, deal {deal}) has no place in the new "
                              "schedule")


def apply_extension(store: Store, extension: Extension, tournament: Tournament) -> str | None:
    """Store the new file and plan, in one transaction (a kill leaves the store as it was,
    or extended); no stored game changes, each has its place in the new plan's schedule
    (arena.placement). A secret seed that has been revealed (the tournament was complete)
    moves to the plan's ``seed_history`` with the games it dealt, and a fresh secret seed
    deals the new ones: its commitment is returned (None when the seed stays)."""
    import secrets

    from arena.seeding import seed_commitment

    old = store.plan()
    plan = dict(extension.plan, seed_history=list(old.get("seed_history") or ()))
    plan.pop("intervals", None)  # an extended store keeps the intervals it was made with
    if "intervals" in old:
        plan["intervals"] = old["intervals"]
    meta: dict[str, Any] = {"plan": plan, "tournament_file": tournament.path, "tournament_text": tournament.text,
                            "tournament_sha256": tournament.sha256, "finished_at": None}
    fresh = None
    if store.get("seed_secret") and store.get("finished_at") is not None:
        plan["seed_history"].append({
            "seed": store.get("seed"), "salt": store.get("seed_salt"), "commitment": store.get("seed_commitment"),
            "deals": old["deals"],
            "rulesets": {r["label"]: [old["entries"][e]["bot"] for e in r["entries"]] for r in old["rulesets"]}})
        seed, salt = secrets.randbits(63), secrets.token_hex(16)
        fresh = seed_commitment(seed, salt)
        meta.update(seed=seed, seed_salt=salt, seed_commitment=fresh)
    if not plan["seed_history"]:
        del plan["seed_history"]
    store.set_many(meta)
    return fresh
