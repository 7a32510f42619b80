"""What bounds a ladder's throughput at 10,000 bots and 10 million games a day, measured
here (docs/ladder.md, "At scale"). Needs the `ladder` extra.

    .venv/bin/python benchmarks/ladder_scale.py                        # SQLite; a private PostgreSQL if installed
    .venv/bin/python benchmarks/ladder_scale.py --postgres postgresql://USER@HOST/DB
    .venv/bin/python benchmarks/ladder_scale.py --scheduler arena.ladder.scheduler:RoundRobinFirst --bots 200,2000

1. **Results stored per second**, through the service's real path (`Ladder.complete`: the
   record checked, the game and its task written in one transaction, the game rated),
   on SQLite (WAL, synchronous=FULL) and PostgreSQL; and the same with the record check
   switched off (`record_problem_for` replaced by "no problem"): the database's share.
2. **The record check per game** (`arena.ladder.games.record_problem_for`: form, seeds,
   replay), alone.
3. **Storage per game**: the database's growth over the games stored (games and task rows,
   their indexes; SQLite after a WAL checkpoint, PostgreSQL by pg_total_relation_size).
4. **A worker's seconds per game**: the fixture bot built once in the sandbox, then
   ``--worker-games`` games of it against itself played as a worker plays them.
5. **The scheduler's microseconds per game chosen** at each ``--bots`` count of synthetic
   bots, through the `arena.scheduling.base.Scheduler` interface (``next(state, room)``,
   ``room`` = the ladder's default ``batch_games``), the class named by ``--scheduler``
   (``module:Class``, built as ``Class([(label, players)], deals_per_table)``): the first
   ``--decisions`` decisions from a field where nothing is stored yet, each chosen game then
   stored. Each count runs in a child process stopped after ``--budget`` seconds.

The games are Flip 7 at tables of two, played in this process by ``random`` under the bots'
names (not timed); the record check replays them. Timing on a shared machine is noisy:
run it twice and quote the slower.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

DAY_GAMES = 10_000_000
PER_SECOND_NEEDED = DAY_GAMES / 86_400  # 115.7 games a second, every second
BATCH = 50  # results to a transaction, where batching is measured


# -- a ladder with synthetic bots ------------------------------------------------------------


def play_inline(spec: dict[str, Any]) -> dict[str, Any]:
    """The record of `spec` played here, every seat by ``random`` under its own name."""
    from arena.match import Entrant, FaultPolicy, play_game
    from arena.plugins import load_registry

    registry = load_registry()
    random_bot = registry.bots["random"].cls
    entrants = [Entrant(random_bot if "builtin" in s else type(f"B_{s['name']}", (random_bot,), {"name": s["name"]}),
                        {}, s["entry"], s.get("package") or "pkg", s["label"]) for s in spec["seats"]]
    return play_game(registry.rulesets[spec["ruleset"]["id"]].cls, entrants, spec["deal_seed"],
                     spec["ruleset"]["options"], bot_seeds=spec["bot_seeds"],
                     policy=FaultPolicy(on_fault="forfeit")).record


def honest_result(task: dict[str, Any]) -> dict[str, Any]:
    """What an honest worker returns for `task` (a gate passes)."""
    from arena.ladder.versions import gate_specs

    if task["kind"] == "game":
        return {"record": play_inline(task["spec"])}
    spec = task["spec"]
    seat = {"version": spec["version"], "name": spec["bot"], "content": spec["content"], "label": "1.0",
            "package": "pkg", "blob": spec["blob"], "filename": spec["filename"]}
    return {"passed": True, "label": "1.0", "package": "pkg", "rulesets": [r["label"] for r in spec["rulesets"]],
            "records": [play_inline(g) for g in gate_specs(seat, spec["rulesets"], spec["random"], spec["seed"])],
            "log": "gate passed (benchmark)"}


def make_ladder(url: str, bots: int) -> tuple[Any, Any]:
    """A ladder on `url` with `bots` synthetic bots through their gates; (ladder, worker caller)."""
    from arena.ladder.config import decode_config
    from arena.ladder.db import connect
    from arena.ladder.service import Ladder

    config = decode_config({"ladder": {"deals_per_table": 1000, "batch_games": 50, "lease_seconds": 3600},
                            "quotas": {"bots_per_author": bots, "uploads_per_day": bots}})
    ladder = Ladder(connect(url), config)
    admin = ladder.caller(f"Bearer {ladder.create_admin('boss')}")
    worker = ladder.caller(f"Bearer {ladder.issue_token(admin, 'worker')}")
    for number in range(bots):
        ladder.submit(admin, f"bot-{number}", f"bot{number}-1.0-py3-none-any.whl", f"bot {number}".encode())
    for _ in range(bots):
        for task in ladder.lease(worker)["tasks"]:
            ladder.complete(worker, task["id"], honest_result(task))
    return ladder, worker


def leased_and_played(ladder: Any, worker: Any, games: int) -> tuple[float, list[tuple[int, Any, Any]]]:
    """`games` games leased (the seconds that took: the scheduler's choice, the queue's writes)
    and then played (not timed): (seconds, [(task id, spec, result)])."""
    tasks: list[dict[str, Any]] = []
    start = time.perf_counter()
    while len(tasks) < games:
        tasks += ladder.lease(worker)["tasks"]
    seconds = time.perf_counter() - start
    return seconds, [(task["id"], task["spec"], honest_result(task)) for task in tasks]


def timed(work: Callable[[], None]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def database_bytes(ladder: Any) -> int:
    import sqlalchemy as sa

    with ladder.engine.connect() as conn:
        if ladder.engine.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
            size = conn.exec_driver_sql("PRAGMA page_size").scalar()
            return int(pages) * int(size) - int(conn.exec_driver_sql("PRAGMA freelist_count").scalar()) * int(size)
        return int(conn.execute(sa.text("SELECT pg_total_relation_size('games') + pg_total_relation_size('tasks')"))
                   .scalar())


def store_batched(ladder: Any, batch: list[tuple[int, Any, Any]], size: int) -> None:
    """The service's own store steps (the record checked, `leases.finish_once`, the game
    inserted, then rating), `size` results to a transaction: what returning results in
    batches would cost."""
    import json

    from arena.ladder import leases

    for start in range(0, len(batch), size):
        with ladder.writing(changes_pages=True) as conn:
            for task_id, _, result in batch[start:start + size]:
                spec = json.loads(leases.task_row(conn, task_id).spec)
                checked = ladder._checked_game(spec, result["record"])
                assert not isinstance(checked, str), checked
                assert leases.finish_once(conn, task_id)
                for row in checked.games:
                    ladder._insert_game(conn, row)
        ladder.catch_up()


def measure_store(url: str, games: int) -> dict[str, float]:
    """Results stored per second with and without the record check, the check alone, bytes per game."""
    import sqlalchemy as sa

    import arena.ladder.service as service
    from arena.ladder.db import tasks
    from arena.ladder.games import record_problem_for

    ladder, worker = make_ladder(url, 4)
    before = database_bytes(ladder)
    leasing, checked = leased_and_played(ladder, worker, games)
    full = timed(lambda: [ladder.complete(worker, task, result) for task, _, result in checked])
    grown = database_bytes(ladder) - before
    unchecked = leased_and_played(ladder, worker, games)[1]
    real_check = service.record_problem_for
    service.record_problem_for = lambda spec, record, cls: None  # type: ignore[assignment]
    try:
        bare = timed(lambda: [ladder.complete(worker, task, result) for task, _, result in unchecked])
    finally:
        service.record_problem_for = real_check
    with ladder.engine.connect() as conn:  # what every scheduling decision reads: each game task's key and state
        rows = conn.execute(sa.select(sa.func.count()).select_from(tasks)).scalar()
        state_read = min(timed(lambda: service.DbState(conn).in_flight()) for _ in range(5))
    batched = leased_and_played(ladder, worker, games)[1]
    in_batches = timed(lambda: store_batched(ladder, batched, BATCH))
    cls = ladder.rulesets["flip-7"]["cls"]
    check = timed(lambda: [record_problem_for(spec, result["record"], cls) for _, spec, result in checked])
    ladder.engine.dispose()
    return {"stored_per_s": games / full, "written_per_s": games / bare, "check_ms": 1000 * check / games,
            "bytes_per_game": grown / len(checked), "lease_ms": 1000 * leasing / len(checked),
            "state_us_per_task": 1e6 * state_read / int(rows), "tasks": int(rows),
            "batched_per_s": games / in_batches}


def measure_worker(games: int) -> dict[str, float]:
    """A worker's cost: one sandboxed build of the fixture bot (tests/submissions/fixture-bot),
    then `games` Flip 7 games of it against itself, each in sandboxes (`arena.ladder.worker.play`,
    what a worker does per game), the upload put in the cache as if fetched."""
    import hashlib

    from arena.ladder.games import make_spec
    from arena.ladder.versions import pack_folder, upload_content
    from arena.ladder.worker import Cache, Client, play

    filename, data = pack_folder(Path(__file__).resolve().parent.parent / "tests" / "submissions" / "fixture-bot")
    blob = hashlib.sha256(data).hexdigest()
    seat = {"version": 1, "name": "fixture-bot", "content": upload_content(filename, data), "label": "1.0",
            "package": "arena-fixture-bot", "blob": blob, "filename": filename}
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "uploads" / blob).mkdir(parents=True)
        (Path(folder) / "uploads" / blob / filename).write_bytes(data)
        cache = Cache(Path(folder), Client("http://127.0.0.1:9", ""))  # never asked: the upload is cached
        build = timed(lambda: cache.submission(seat))
        ruleset = {"label": "flip-7", "id": "flip-7", "options": {}}
        specs = [make_spec(ruleset, [seat, seat], deal, 0, 1) for deal in range(games)]
        policy = {"on_fault": "forfeit", "time_per_decision": 5.0}
        played = timed(lambda: [play(spec, cache, policy) for spec in specs])
    return {"build_s": build, "game_s": played / games}


# -- the scheduler ---------------------------------------------------------------------------


class SyntheticState:
    """A `SchedulerState` of `bots` synthetic current versions of one ruleset; games chosen
    are then stored (their results are not modelled: `results` is empty)."""

    def __init__(self, bots: int, label: str):
        from arena.scheduling.base import FieldEntry

        self.entries = [FieldEntry(f"bot-{n}", f"{n:064x}", (label,)) for n in range(bots)]
        self.stored: set[str] = set()

    def field(self) -> list[Any]:
        return list(self.entries)

    def seats(self) -> dict[str, dict[str, Any]]:
        return {e.version: {"name": e.name, "content": e.version} for e in self.entries}

    def results(self, since: int = 0) -> list[Any]:
        return []

    def result_count(self) -> int:
        return len(self.stored)

    def is_stored(self, key: str) -> bool:
        return key in self.stored

    def in_flight(self) -> frozenset[str]:
        return frozenset()

    def looks(self) -> list[Any]:
        return []


def scheduler_class(name: str) -> Any:
    module, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module), attribute)


def measure_scheduler(name: str, bots: int, decisions: int) -> dict[str, float]:
    """Microseconds per game chosen over the first `decisions` decisions (and the first alone)."""
    from arena.ladder.config import decode_config
    from arena.scheduling.base import Play

    ladder = decode_config({}).ladder
    scheduler = scheduler_class(name)([("flip-7", 2)], ladder.deals_per_table)
    state = SyntheticState(bots, "flip-7")
    chosen, seconds, first = 0, 0.0, 0.0
    for number in range(decisions):
        start = time.perf_counter()
        decision = scheduler.next(state, ladder.batch_games)
        took = time.perf_counter() - start
        first = took if number == 0 else first
        seconds += took
        games = decision.games if isinstance(decision, Play) else ()
        state.stored.update(game.identity.key for game in games)
        chosen += len(games)
    return {"us_per_game": 1e6 * seconds / max(chosen, 1), "first_decision_s": first, "games": chosen}


def scheduler_in_child(name: str, bots: int, decisions: int, budget: float) -> dict[str, Any] | None:
    """`measure_scheduler` in a child process, stopped after `budget` seconds (None then)."""
    child = subprocess.Popen([sys.executable, __file__, "--child-scheduler", name, str(bots), str(decisions)],
                             stdout=subprocess.PIPE, text=True)
    try:
        out, _ = child.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        return None
    return dict(json.loads(out))


# -- the report ------------------------------------------------------------------------------


def private_postgres() -> tuple[str | None, Any]:
    """A throwaway PostgreSQL as the tests start one but durable (fsync on, as in production),
    or (None, None) where none is installed."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from ladder_support import PG_BINARIES, PrivatePostgres, fresh_database

    if not PG_BINARIES:
        return None, None
    server = PrivatePostgres()
    user = "postgres" if server.as_user else os.environ.get("USER", "postgres")
    server.run(str(server.bin / "initdb"), "-D", str(server.data), "-U", user, "--auth=trust", "-E", "UTF8")
    server.run(str(server.bin / "pg_ctl"), "-D", str(server.data), "-w", "-t", "60", "-l", str(server.folder / "log"),
               "-o", f"-p {server.port} -k {server.folder} -c listen_addresses=''", "start")
    return fresh_database(f"postgresql://{user}@/postgres?host={server.folder}&port={server.port}"), server


def report_store(label: str, found: dict[str, float]) -> None:
    print(f"{label}: {found['stored_per_s']:.0f} results stored/s (checked), {found['written_per_s']:.0f}/s "
          f"with the check off; leasing {found['lease_ms']:.2f} ms per game; {found['bytes_per_game']:,.0f} bytes "
          "per game (its task and game rows)")
    print(f"  {BATCH} results to a transaction (the same steps, checked): {found['batched_per_s']:.0f}/s")
    print(f"  each scheduling decision reads every task: {found['state_us_per_task']:.1f} us per task "
          f"({found['tasks']} tasks), {found['state_us_per_task'] * DAY_GAMES / 1e6:.0f} s per decision after a day "
          "of 10M games")
    print(f"  10M games/day need {PER_SECOND_NEEDED:.1f}/s: one server process on {label} stores "
          f"{found['stored_per_s'] * 86_400 / 1e6:.1f}M/day checked, {found['written_per_s'] * 86_400 / 1e6:.1f}M/day "
          f"unchecked; storage {found['bytes_per_game'] * DAY_GAMES / 1e9:.1f} GB/day")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="results stored per database and mode")
    parser.add_argument("--postgres", help="postgresql://... (default: a private server, where installed)")
    parser.add_argument("--scheduler", default="arena.ladder.scheduler:RoundRobinFirst")
    parser.add_argument("--bots", default="200,2000", help="synthetic field sizes, comma-separated")
    parser.add_argument("--decisions", type=int, default=5)
    parser.add_argument("--budget", type=float, default=600.0, help="seconds per field size")
    parser.add_argument("--skip-store", action="store_true")
    parser.add_argument("--worker-games", type=int, default=20, help="sandboxed games timed (0: none)")
    args = parser.parse_args()
    if not args.skip_store:
        with tempfile.TemporaryDirectory() as folder:
            sqlite = measure_store(f"sqlite:///{folder}/ladder.db", args.games)
        report_store("SQLite", sqlite)
        print(f"record check: {sqlite['check_ms']:.2f} ms per game (one core), so "
              f"{PER_SECOND_NEEDED * sqlite['check_ms'] / 1000:.2f} cores for 10M games/day")
        url, server = (args.postgres, None) if args.postgres else private_postgres()  # fsync on
        try:
            if url:
                report_store("PostgreSQL", measure_store(url, args.games))
            else:
                print("PostgreSQL: not installed here (pass --postgres URL)")
        finally:
            if server is not None:
                server.stop()
    if args.worker_games:
        found = measure_worker(args.worker_games)
        print(f"worker: a build {found['build_s']:.1f} s (once per version and worker), then "
              f"{found['game_s']:.2f} s per sandboxed Flip 7 game: {PER_SECOND_NEEDED * found['game_s']:.0f} "
              "worker cores for 10M games/day")
    for bots in (int(b) for b in args.bots.split(",")):
        found = scheduler_in_child(args.scheduler, bots, args.decisions, args.budget)
        tables = bots * (bots - 1) // 2
        if found is None:
            print(f"scheduler {args.scheduler} at {bots:,} bots ({tables:,} tables): over {args.budget:.0f} s "
                  f"for its first {args.decisions} decisions")
            continue
        print(f"scheduler {args.scheduler} at {bots:,} bots ({tables:,} tables): {found['us_per_game']:,.0f} us "
              f"per game chosen ({found['games']} games in {args.decisions} decisions; the first "
              f"{found['first_decision_s']:.2f} s)")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child-scheduler":
        print(json.dumps(measure_scheduler(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
    else:
        main()
