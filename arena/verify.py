"""Cross-checking a results store: every stored result against its game record, and the seed.

`verify_store` is what `arena rank` and `arena publish` run before they rate. For the
store as a whole it checks the seed: a secret seed and its salt hash to the stored
commitment (`arena.runner.seed_commitment`); a published ``standings.json`` beside the
store names the same commitment, file hash and (once revealed) seed; a public seed is
the tournament file's. Then, for every stored game in schedule order:

- where it sits: its index is the one its (ruleset, table, deal, rotation) has in the
  schedule, and its seating is that table of the schedule (round-robin combinations, or
  the sampled tables drawn from the seed) in that rotation;
- its seeds: the record's deal seed is ``table_deal_seed(seed, ruleset label, the table's
  entry names, deal)`` (stores of seed derivation 1, before content keys:
  ``derive_seed(seed, "deal", ruleset, table, deal)``) and its bot seeds ``bot_seed(deal_seed, seat, rotation)`` (`arena.seeding`);
- its record: of the plan's ruleset (id, version, options), seats naming the plan's
  entries (display name, bot, package, version, params), a transcript hash equal to the
  row's and to the hash of the record's contents;
- its result: the row's standing and scores are the record's outcome, its fault counts
  the record's faults, every forfeited seat faulted, and its stored result hash
  (schema 3) is `arena.store.result_hash` of all that;
- its play: replayed with the installed ruleset (`arena.match.replay`), every decision
  is legal and the game ends in the recorded outcome (forfeits applied) and transcript;
  its faults and forfeits are what was played (`fault_problem`).

A record of a ruleset version that is not installed gets every check but the replay
and is counted as unverifiable (named in the summary), not refused. Any disagreement
is a `StoreError`: one line naming the store and the game id.

What this cannot catch: whoever can rewrite the whole store (and the published
files) can forge it, by playing or writing other games under another seed, salt and
commitment and recomputing every hash; the hashes are not signatures. It shows that
a store is self-consistent, that its games are the ones its seed deals and that they
replay to the stored results, not who wrote it. See tournaments/README.md.
"""

from __future__ import annotations

import itertools
import os
import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, NoReturn

from arena.errors import ArenaError
from arena.luck import check_planned_method, game_corrections, planned_method
from arena.store import (Store, StoreError, StoredRow, faults_per_seat, read_luck, read_luck_range,
                         stored_result_hash)

PARALLEL_FROM = 200
"""Stores of at least this many games are verified by several processes (one range each):
below it, starting them costs more than they save."""


@dataclass
class Verification:
    """What `verify_store` found (it raises on any disagreement, so all of this passed)."""

    games: int = 0
    replayed: int = 0
    unverifiable: dict[str, int] = field(default_factory=dict)  # "ruleset version" -> games not replayed
    without_result_hash: int = 0  # games of a store from before schema version 3
    luck_checked: int = 0  # games whose luck corrections were recomputed and matched

    def add(self, other: "Verification") -> None:
        self.games += other.games
        self.luck_checked += other.luck_checked
        self.replayed += other.replayed
        self.without_result_hash += other.without_result_hash
        for key, count in other.unverifiable.items():
            self.unverifiable[key] = self.unverifiable.get(key, 0) + count

    def summary(self) -> str:
        """One line for a terminal."""
        line = f"verified {self.games:,} stored games against their records: {self.replayed:,} replayed exactly"
        if self.unverifiable:
            parts = ", ".join(f"{key}: {count:,}" for key, count in sorted(self.unverifiable.items()))
            line += (f"; {sum(self.unverifiable.values()):,} unverifiable (their ruleset version is not "
                     f"installed, so they were checked but not replayed: {parts})")
        if self.without_result_hash:
            line += f"; {self.without_result_hash:,} stored before result hashes (schema < 3)"
        if self.luck_checked:
            line += f"; {self.luck_checked:,} games' luck corrections recomputed exactly"
        return line


def verify_store(store: Store, workers: int = 1, rulesets: Mapping[str, Any] | None = None) -> Verification:
    """Check the seed and every stored game of `store` (see the module docstring);
    StoreError on the first disagreement (in schedule order). `rulesets`: installed
    ruleset classes by id (default: the registry's); `workers` > 1 (0: every core):
    that many processes, for a store of at least `PARALLEL_FROM` games."""
    if workers == 0:
        workers = cores()
    return start_verification(store, workers if workers > 1 else 0, rulesets).result()


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class PendingVerification:
    """A verification under way in other processes (`start_verification`): `result()`
    waits for it and returns the `Verification`, or raises its first StoreError."""

    def __init__(self, done: Verification | None = None, pool: Any = None, futures: list[Any] | None = None):
        self.done, self.pool, self.futures = done, pool, futures or []

    def __enter__(self) -> "PendingVerification":
        return self

    def __exit__(self, kind: Any, *rest: Any) -> None:
        if kind is not None and self.done is None and self.pool is not None:  # the caller failed: stop checking
            for process in list(getattr(self.pool, "_processes", {}).values()):
                process.terminate()
            self.pool.shutdown(wait=True, cancel_futures=True)

    def result(self) -> Verification:
        if self.done is None:
            try:
                found = Verification()
                for future in self.futures:  # in schedule order: the first disagreement is reported
                    found.add(future.result())
                self.done = found
            finally:
                self.pool.shutdown(wait=True, cancel_futures=True)
        return self.done


def start_verification(store: Store, processes: int | None = None,
                       rulesets: Mapping[str, Any] | None = None) -> PendingVerification:
    """Check the plan and the seed now, and start checking every stored game: with
    `processes` (default: one per core but one, at least one) and at least
    `PARALLEL_FROM` games, in that many other processes (one range of the schedule
    each), so that the caller can rate meanwhile; else here, before returning."""
    plan = store.plan()
    seed = check_seed(store)
    stored, finished = store.count(), store.get("finished_at")
    if finished is not None and stored != plan["total_games"]:
        raise StoreError(f"{store.path}: its run finished ({finished}) with {plan['total_games']:,} games, but "
                         f"{stored:,} are stored: games were deleted or added since; the store is refused")
    if rulesets is None:
        rulesets = installed_rulesets()
    workers = max(1, cores() - 1) if processes is None else processes
    if workers < 1 or store.count() < PARALLEL_FROM:
        checker = _Checker(store.path, plan, seed, rulesets)
        corrections = read_luck(store)
        for row in store.stored_rows():
            checker.check(row, corrections.get(row.index))
        return PendingVerification(checker.found)
    import multiprocessing
    import sys
    from concurrent.futures import ProcessPoolExecutor

    total = max(plan["total_games"], 1)
    step = -(-total // workers)
    bounds: list[tuple[int | None, int | None]] = [(start, start + step) for start in range(0, total, step)]
    bounds[0] = (None, bounds[0][1])  # and any stored index before the schedule's first,
    bounds[-1] = (bounds[-1][0], None)  # or past its last
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pool = ProcessPoolExecutor(min(workers, len(bounds)), mp_context=context)
    futures = [pool.submit(_verify_range, str(store.path), plan, seed, dict(rulesets), start, end)
               for start, end in bounds]
    return PendingVerification(pool=pool, futures=futures)


def installed_rulesets() -> dict[str, Any]:
    """The installed ruleset classes by id (none if the plugins cannot be loaded)."""
    from arena.plugins import load_registry

    try:
        registry = load_registry()
    except Exception:  # a broken plugin environment: every record is then unverifiable
        return {}
    return {ruleset_id: entry.cls for ruleset_id, entry in registry.rulesets.items()}


def check_seed(store: Store) -> int:
    """The store's seed, once checked against its commitment, its tournament file and
    the standings published beside it; StoreError otherwise."""
    from arena.runner import seed_commitment

    path = store.path
    meta = store.meta()
    seed = meta.get("seed")
    if type(seed) is not int or seed < 0:
        raise StoreError(f"{path}: its seed {seed!r} is not a non-negative integer")
    commitment = meta.get("seed_commitment")
    if meta.get("seed_secret"):
        salt = meta.get("seed_salt")
        if not isinstance(salt, str) or not isinstance(commitment, str):
            raise StoreError(f"{path}: a secret seed without its salt and commitment")
        if seed_commitment(seed, salt) != commitment:
            raise StoreError(f"{path}: its seed and salt do not hash to its seed commitment {commitment[:16]}...: "
                             "the seed was changed after the commitment was published")
        for epoch in (meta.get("plan") or {}).get("seed_history") or ():  # earlier seeds of an extended store
            if not isinstance(epoch, dict) or type(old_seed := epoch.get("seed")) is not int or not isinstance(
                    old_salt := epoch.get("salt"), str) or seed_commitment(old_seed, old_salt) != epoch.get("commitment"):
                raise StoreError(f"{path}: an earlier seed of its seed history does not hash to its commitment")
    else:
        try:
            file_seed = tomllib.loads(meta.get("tournament_text") or "").get("tournament", {}).get("seed")
        except (tomllib.TOMLDecodeError, AttributeError):
            file_seed = None
        if file_seed is not None and file_seed != seed:
            raise StoreError(f"{path}: its seed {seed} is not the tournament file's seed {file_seed}")
    published = path.parent / "standings.json"
    try:
        import json

        shown = json.loads(published.read_text(encoding="utf-8"))["tournament"]
        shown_commitment, shown_seed, shown_file = shown["seed_commitment"], shown["seed"], shown["file_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return seed  # nothing (readable) published yet: nothing to compare with
    if shown_commitment != commitment:
        raise StoreError(f"{path}: its seed commitment {str(commitment)[:16]} is not the published one "
                         f"{str(shown_commitment)[:16]} ({published})")
    if shown_seed is not None and shown_seed != seed:
        raise StoreError(f"{path}: its seed {seed} is not the published seed {shown_seed} ({published})")
    if shown_file != meta.get("tournament_sha256"):
        raise StoreError(f"{path}: its tournament file hash is not the published one ({published})")
    return seed


class _Checker:
    """Checks stored games one by one (in schedule order) against the plan and seed."""

    def __init__(self, path: Path, plan: Mapping[str, Any], seed: int, rulesets: Mapping[str, Any]):
        self.path = path
        self.plan = plan
        self.seed = seed
        self.rulesets = rulesets
        self.found = Verification()
        self.deals = plan["deals"]
        offsets = [0]
        for r in plan["rulesets"]:
            offsets.append(offsets[-1] + r.get("games", 0))
        self.offsets = offsets
        self.has_counts = all("games" in r for r in plan["rulesets"])
        self.derivation = plan.get("seed_derivation", 1)  # 2: deal-major order, content-keyed deal seeds
        self.tables: dict[int, tuple[Iterator[tuple[int, ...]], list[tuple[int, ...]]]] = {}

    def _check_luck(self, index: int, ruleset: int, record: Mapping[str, Any], cls: Any,
                    stored: list[list[float]] | None) -> None:
        """A ruleset scored luck-adjusted: the stored corrections are the ones its record makes
        (recomputed, the very same floats) with the plan's value, which must be installed."""
        if stored is not None and planned_method(self.plan, ruleset) is None:
            self.fail(index, "it has luck corrections, but its ruleset is not scored luck-adjusted in the plan")
        try:
            method = check_planned_method(self.plan, ruleset, cls)
        except ArenaError as exc:
            self.fail(index, str(exc))
        if method is None:
            return
        if stored is None:
            self.fail(index, "its ruleset is scored luck-adjusted, but it has no luck corrections")
        again = game_corrections(cls, record, method["clones"]).corrections
        if again != stored:
            self.fail(index, "its stored luck corrections are not the ones its record makes")
        self.found.luck_checked += 1

    def fail(self, index: int, problem: str) -> NoReturn:
        raise StoreError(f"{self.path}: game {index}: {problem}; the store disagrees with its records, "
                         "so it is refused")

    def table(self, ruleset: int, number: int) -> tuple[int, ...] | None:
        """Table `number` of `ruleset` in the schedule (None if there is no such table)."""
        from arena.seeding import derive_seed
        from arena.tournament import balanced_tables

        if ruleset not in self.tables and self.derivation >= 2:
            from arena.tournament import plan_tables

            self.tables[ruleset] = (plan_tables(dict(self.plan), ruleset, self.seed), [])
        if ruleset not in self.tables:
            r = self.plan["rulesets"][ruleset]
            entries, players = tuple(r["entries"]), r["players"]
            if self.plan["format"] == "sampled":
                count = r["games"] // (self.deals * players) if self.deals and players else 0
                tables = balanced_tables(entries, players, count,
                                         random.Random(derive_seed(self.seed, "sample", ruleset)))
            else:
                tables = itertools.combinations(entries, players)
            self.tables[ruleset] = (tables, [])
        tables, seen = self.tables[ruleset]
        while len(seen) <= number:
            table = next(tables, None)
            if table is None:
                return None
            seen.append(tuple(table))
        return seen[number]

    def check(self, row: StoredRow, corrections: list[list[float]] | None = None) -> None:
        """One stored game against its record, the plan and the store's seed; StoreError at
        the first disagreement."""
        index, record, result = row.index, row.record, row.result
        rulesets = self.plan["rulesets"]
        if not 0 <= row.ruleset < len(rulesets):
            self.fail(index, f"ruleset entry {row.ruleset} is not in the plan")
        r = rulesets[row.ruleset]
        players = r["players"]
        self._check_place(row, r)
        if len(result.seats) != players or record["players"] != players:
            self.fail(index, f"it has {len(result.seats)} seats, its record {record['players']}; "
                             f"{r['label']} is played by {players}")
        self._check_seeds(row, r)
        self._check_entries(row, r)
        self._check_result(row, players)
        self._check_play(row, corrections)
        self.found.games += 1

    def _check_place(self, row: StoredRow, r: Mapping[str, Any]) -> None:
        """Where it sits in the schedule, and (for a plan with its game counts) who sat where."""
        index, players = row.index, r["players"]
        if not (0 <= row.deal < self.deals and 0 <= row.rotation < players and row.table >= 0):
            self.fail(index, f"table {row.table}, deal {row.deal}, rotation {row.rotation} are not in the schedule")
        if not self.has_counts:
            return
        if self.derivation >= 2:
            tables = r.get("games", 0) // (self.deals * players)
            position = self.offsets[row.ruleset] + (row.deal * tables + row.table) * players + row.rotation
        else:
            position = self.offsets[row.ruleset] + (row.table * self.deals + row.deal) * players + row.rotation
        if position != index or index >= self.offsets[row.ruleset + 1]:
            self.fail(index, f"its table {row.table}, deal {row.deal} and rotation {row.rotation} are game "
                             f"{position} of the schedule")
        table = self.table(row.ruleset, row.table)
        if table is None:
            self.fail(index, f"ruleset {r['label']} has no table {row.table} in the schedule")
        seating = [table[(seat + row.rotation) % players] for seat in range(players)]
        if row.result.seats != seating:
            self.fail(index, f"its seating (entries {row.result.seats}) is not the schedule's {seating}")

    def _check_seeds(self, row: StoredRow, r: Mapping[str, Any]) -> None:
        """Its deal seed and bot seeds, derived from the store's seed."""
        from arena.seeding import bot_seed, derive_seed

        record, players = row.record, r["players"]
        if self.derivation >= 2:
            from arena.seeding import table_deal_seed
            from arena.tournament import epoch_seed

            table_of_deal = [row.result.seats[(j - row.rotation) % players] for j in range(players)]
            names = [self.plan["entries"][e]["bot"] if 0 <= e < len(self.plan["entries"]) else "?"
                     for e in table_of_deal]
            deal_seed = table_deal_seed(epoch_seed(self.plan.get("seed_history"), self.seed, r["label"], names,
                                                   row.deal), r["label"], names, row.deal)
        else:
            deal_seed = derive_seed(self.seed, "deal", row.ruleset, row.table, row.deal)
        if record["deal_seed"] != deal_seed:
            self.fail(row.index, f"its record's deal seed {record['deal_seed']} is not the one the store's seed "
                                 "derives for it")  # (which is not shown: the seed may still be secret)
        if record.get("bot_seeds") != [bot_seed(deal_seed, seat, row.rotation) for seat in range(players)]:
            self.fail(row.index, "its record's bot seeds are not the ones the store's seed derives for it")

    def _check_entries(self, row: StoredRow, r: Mapping[str, Any]) -> None:
        """The record is of the plan's ruleset and entries."""
        index, record = row.index, row.record
        meta = record["ruleset"]
        if (meta["id"], meta["version"]) != (r["id"], r["version"]):
            self.fail(index, f"its record is of {meta['id']} {meta['version']}, the plan's ruleset "
                             f"{r['label']} is {r['id']} {r['version']}")
        if "options" in r and meta.get("options") != r["options"]:
            self.fail(index, f"its record's options are not the plan's for {r['label']}")
        entries = self.plan["entries"]
        for seat, (entry, who) in enumerate(zip(row.result.seats, record["seats"])):
            if not 0 <= entry < len(entries):
                self.fail(index, f"seat {seat} holds entry {entry}, which is not in the plan")
            e = entries[entry]
            if not isinstance(who, dict) or (who.get("display"), who.get("bot"), who.get("package"),
                                             who.get("version")) != (e["bot"], e["uses"], e["package"], e["version"]) \
                    or who.get("params", {}) != e.get("params", {}):
                self.fail(index, f"seat {seat} of its record is not entry {entry} ({e['bot']}: {e['uses']}, "
                                 f"{e['package']} {e['version']})")
        if len(record["seats"]) != r["players"]:
            self.fail(index, f"its record names {len(record['seats'])} seats, not {r['players']}")

    def _check_result(self, row: StoredRow, players: int) -> None:
        """The result: the row against the record."""
        index, record, result = row.index, row.record, row.result
        if row.transcript_hash != record["transcript_hash"]:
            self.fail(index, "its transcript hash is not its record's")
        outcome = record["outcome"]
        if result.standing != outcome["standing"]:
            self.fail(index, f"its standing {result.standing} is not its record's {outcome['standing']}")
        if result.scores != outcome["scores"]:
            self.fail(index, f"its scores {result.scores} are not its record's {outcome['scores']}")
        faults = faults_per_seat(record, players)
        if result.faults != faults:
            self.fail(index, f"its faults per seat {result.faults} are not its record's {faults}")
        forfeited = record.get("forfeited") or []
        if any(faults[seat] == 0 for seat in forfeited):
            self.fail(index, f"its record forfeits seats {forfeited} that committed no fault")
        if row.result_hash is None:
            self.found.without_result_hash += 1
        elif row.result_hash != stored_result_hash(row, record, faults):
            self.fail(index, "its result hash does not match its seating, standing, scores, faults and forfeits")

    def _check_play(self, row: StoredRow, corrections: list[list[float]] | None) -> None:
        """The play itself: replayed where its ruleset version is installed (faults and luck
        corrections too), else its transcript hash checked and the game counted unverifiable."""
        from arena.match import replay, transcript_hash

        index, record = row.index, row.record
        meta = record["ruleset"]
        cls = self.rulesets.get(meta["id"])
        if cls is None or getattr(cls, "version", None) != meta["version"]:
            if transcript_hash(record) != record["transcript_hash"]:
                self.fail(index, "its record's transcript hash does not match the record's contents")
            key = f"{meta['id']} version {meta['version']} (installed: {getattr(cls, 'version', 'none')})"
            self.found.unverifiable[key] = self.found.unverifiable.get(key, 0) + 1
            return
        try:
            replay(record, cls)
            problem = fault_problem(record, cls) if record.get("faults") else None
        except Exception as exc:  # ReplayMismatchError, or an engine that cannot take the record
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            self.fail(index, f"its record does not replay ({detail})")
        if problem:
            self.fail(index, f"its record's faults are not what was played: {problem}")
        self.found.replayed += 1
        self._check_luck(index, row.ruleset, record, cls, corrections)


def fault_problem(record: Mapping[str, Any], cls: Any) -> str | None:
    """What shows that `record`'s faults and forfeits were not what was played (None if
    nothing does), by playing it again: at a decision where a seat faulted, the action
    applied is the replacement action (`arena.match.replacement_action`); a forfeited seat
    plays only replacement actions from its first fault on (from the start if it faulted
    only outside decisions), and so does a seat from a fault marked ``fatal`` (from the
    start if that fault was outside a decision: at the end of a game none is marked).
    A fault or forfeit written into a record afterwards would
    have to rewrite the game too. Call it on a record that `arena.match.replay` accepted."""
    from arena.match import replacement_action

    decisions, deal_seed = record["decisions"], record["deal_seed"]
    faulted = {}  # decision index -> seat
    first: dict[int, int] = {}  # seat -> its first faulty decision (0: faulted outside decisions only)
    dead: dict[int, int] = {}  # seat -> the decision from which a fatal fault silenced it
    for fault in record.get("faults") or []:
        if type(fault) is not dict:
            return None  # old per-seat counts: nothing to check
        decision = fault.get("decision")
        if fault.get("fatal") is True:
            dead[fault["seat"]] = min(dead.get(fault["seat"], decision or 0), decision or 0)
        if decision is None:
            continue
        if type(decision) is not int or not 0 <= decision < len(decisions) or decisions[decision][0] != fault["seat"]:
            return f"seat {fault['seat']} has a fault at decision index {decision!r}, which is not one of its decisions"
        faulted[decision] = fault["seat"]
        first[fault["seat"]] = min(first.get(fault["seat"], decision), decision)
    forfeited = {seat: first.get(seat, 0) for seat in record.get("forfeited") or []}
    if not faulted and not forfeited and not dead:
        return None
    state = cls.new_game(record["players"], record["ruleset"]["options"], random.Random(deal_seed))
    for i, (seat, action) in enumerate(decisions):
        legal = state.legal_actions()
        forfeit_silenced = seat in forfeited and i >= forfeited[seat]
        fatal_silenced = seat in dead and i >= dead[seat]
        silenced = (forfeit_silenced or fatal_silenced) and len(legal) > 1
        if (i in faulted or silenced) and action != replacement_action(deal_seed, i, legal):
            why = (f"a fault at decision {i + 1}" if i in faulted
                   else f"its forfeit from decision {forfeited[seat] + 1}" if forfeit_silenced
                   else f"its fatal fault at decision {dead[seat] + 1}")
            return f"seat {seat} played {action!r} at decision {i + 1}, not the replacement action {why} implies"
        state.apply(action)
    return None


def _verify_range(path: str, plan: Mapping[str, Any], seed: int, rulesets: Mapping[str, Any], start: int | None,
                  end: int | None) -> Verification:
    """Check the stored games with index in [start, end) (a process pool task)."""
    checker = _Checker(Path(path), plan, seed, rulesets)
    with Store.open(path) as store:
        corrections = read_luck_range(store, start or 0, end if end is not None else 2 ** 62)
        for row in store.stored_rows(start=start, end=end):
            checker.check(row, corrections.get(row.index))
    return checker.found
