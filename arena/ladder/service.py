"""The ladder's operations in one object: what the API and the CLI call.

`Ladder` holds the database engine, the config, the live standings and one lock. Every
operation that writes runs in one transaction under the lock and the database's write
lock (`writing`), so leases and results happen one at a time and in one order, also
across server processes (docs/ladder.md). A worker's record is checked (replayed) before
the lock is taken: the check needs only the task's spec. What a worker returns is stored
once: a game by its identity key (UNIQUE), a gate by its version; a second copy of a
result is answered "already stored" and changes nothing. Ratings follow the stored games
in id order (`catch_up`): the standings' readers catch up, not the writers.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import zlib
from typing import Any, Iterator, Mapping, NamedTuple, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from arena.errors import ArenaError
from arena.ladder import accounts, admin, leases
from arena.ladder.accounts import AccessError, Caller
from arena.ladder.commits import GroupCommit
from arena.ladder.config import LadderConfig
from arena.ladder.db import (POOL_SIZE, VERSIONS_GENERATION, begin_writing, blobs, bots, bump_setting, changed_counters,
                             game_seats, games, people, prepare_writing, single_reads, tasks, versions,
                             write_transactions, WriterQueue)
from arena.ladder.games import Spec, faults_of, identity, make_spec, record_problem_for
from arena.ladder.information import make_scheduler
from arena.ladder.pipeline import GAME_COLUMNS, prepare_store, store_games
from arena.ladder.prebuilt import prebuilt
from arena.ladder.ranking import Ranking
from arena.ladder.scheduler import LadderGame
from arena.ladder.standings import LiveStandings, refit_rows, top_comparison
from arena.ladder.versions import add_version, gate_specs, version_seat
from arena.identity import GameIdentity, Seat
from arena.scheduling.base import FieldEntry, Play, StoredResult


class LeaseError(ArenaError):
    """A lease or task the server does not know (HTTP 404/409)."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


class DbState:
    """The scheduler's view (`arena.scheduling.base.SchedulerState`) of the ladder's database."""

    def __init__(self, conn: Connection):
        self._conn = conn
        self._tasks: tuple[frozenset[str], frozenset[str]] | None = None
        self._field = current_field(conn)

    def _stored_and_flying(self) -> tuple[frozenset[str], frozenset[str]]:
        """The keys of the games stored (or given up) and of those queued or leased: read on
        first use (every game's task: the standings never need them, the scheduler does)."""
        if self._tasks is None:
            rows = self._conn.execute(sa.select(tasks.c.key, tasks.c.state).where(tasks.c.kind == "game")).all()
            self._tasks = (frozenset(r.key for r in rows if r.state in ("done", "failed")),  # failed: given up
                           frozenset(r.key for r in rows if r.state in ("queued", "leased")))
        return self._tasks

    def field(self) -> list[FieldEntry]:
        return [entry for entry, _ in self._field]

    def seats(self) -> dict[str, dict[str, Any]]:
        return {entry.version: seat for entry, seat in self._field}

    def results(self, since: int = 0) -> list[StoredResult]:
        """The rated (not gate) games from the `since`-th on, in the order stored."""
        rows = self._conn.execute(sa.select(games.c.ruleset, games.c.seats, games.c.deal, games.c.rotation,
                                            games.c.result).where(games.c.gate.is_(None)).order_by(games.c.id)
                                  .offset(since)).all()
        if not rows:
            return []
        names = {r.id: (r.name, r.content) for r in self._conn.execute(
            sa.select(versions.c.id, bots.c.name, versions.c.content).join(bots, bots.c.id == versions.c.bot)).all()}
        out = []
        for row in rows:
            result = json.loads(row.result)
            seats = tuple(Seat(*names[v]) for v in json.loads(row.seats))
            out.append(StoredResult(GameIdentity(row.ruleset, seats, row.deal, row.rotation),
                                    tuple(result["standing"]), tuple(result["scores"]), tuple(result["faults"])))
        return out

    def result_count(self) -> int:
        return int(self._conn.execute(sa.select(sa.func.count()).select_from(games)
                                      .where(games.c.gate.is_(None))).scalar() or 0)

    def entered(self) -> dict[str, int]:
        """Content hash -> entry number of every version that passed the gate (1 = the first)."""
        rows = self._conn.execute(sa.select(versions.c.content).where(versions.c.state == "passed")
                                  .order_by(versions.c.gated, versions.c.id)).all()
        return {r.content: number for number, r in enumerate(rows, 1)}

    def flying_tables(self) -> list[tuple[str, tuple[str, ...], Any]]:
        """The games queued or leased as (ruleset label, versions by seat, deal)."""
        specs = [json.loads(r.spec) for r in self._conn.execute(sa.select(tasks.c.spec).where(
            tasks.c.kind == "game", tasks.c.state.in_(("queued", "leased"))).order_by(tasks.c.id)).all()]
        return [(s["ruleset"]["label"], tuple(seat["content"] for seat in s["seats"]), s["deal"]) for s in specs]

    def is_stored(self, key: str) -> bool:
        return key in self._stored_and_flying()[0]

    def in_flight(self) -> frozenset[str]:
        return self._stored_and_flying()[1]

    def looks(self) -> list[Any]:
        return []


class Storing(NamedTuple):
    """A checked result waiting for its transaction (`Ladder.store_results`): its task, what to
    store, and for a gate the version it gated."""

    task: int
    checked: "Checked"
    version: int | None


class Checked(NamedTuple):
    """A result that passed its checks: the game rows to store (`game_row`) and, for a gate,
    its version's new values (state, log, label, ...)."""

    games: list[dict[str, Any]]
    version: dict[str, Any] | None


def game_row(spec: Spec, record: Mapping[str, Any]) -> dict[str, Any]:
    """The stored form of a checked game: its `games` row (but `created`) and its versions by seat."""
    outcome = record["outcome"]
    result = {"standing": outcome["standing"], "scores": outcome["scores"], "faults": faults_of(record)}
    seats = [s.get("version") for s in spec["seats"]]
    return {"game": {"key": identity(spec).key, "ruleset": spec["ruleset"]["label"], "seats": json.dumps(seats),
                     "deal": spec["deal"], "rotation": spec["rotation"], "result": json.dumps(result),
                     "record": zlib.compress(json.dumps(record).encode()), "gate": spec.get("gate")},
            "seats": seats}


def _insert_many(conn: Connection, table: sa.Table, rows: Sequence[Mapping[str, Any]],
                 returning: Sequence[Any] = ()) -> Any:
    """INSERT `rows` (each with the same columns, in the same order) into `table` in one
    statement, the driver's SQL for that many rows of those columns (`prebuilt`: row k's value
    of column c bound as ``c_k``); its result, one row of `returning` per row inserted."""
    columns = tuple(rows[0])
    return _insert_statement(conn, table, columns, len(rows), returning).run(
        conn, {f"{c}_{k}": row[c] for k, row in enumerate(rows) for c in columns})


def _insert_statement(conn: Connection, table: sa.Table, columns: tuple[str, ...], count: int,
                      returning: Sequence[Any] = ()) -> Any:
    """`_insert_many`'s statement for `count` rows of `columns` (`prebuilt`: compiled on first use)."""

    def build() -> Any:
        statement = table.insert().values([{c: sa.bindparam(f"{c}_{k}") for c in columns} for k in range(count)])
        return statement.returning(*returning) if returning else statement

    key = ("insert", table.name, columns, count, tuple(column.name for column in returning))
    return prebuilt(conn, key, build)


def current_field(conn: Connection) -> list[tuple[FieldEntry, dict[str, Any]]]:
    """Each bot's current version, in the order they entered (passed the gate); disabled
    bots and versions left out."""
    off_bots, off_versions = admin.disabled_sets(conn)
    rows = conn.execute(
        sa.select(versions, bots.c.name.label("bot_name"), blobs.c.filename)
        .join(bots, bots.c.current == versions.c.id).join(blobs, blobs.c.sha256 == versions.c.blob)
        .order_by(versions.c.gated, versions.c.id)).all()
    return [(FieldEntry(r.bot_name, r.content, tuple(json.loads(r.rulesets))), version_seat(r, r.bot_name))
            for r in rows if r.bot not in off_bots and r.id not in off_versions]


class Ladder:
    """A ladder on `engine` configured by `config` (see the module docstring)."""

    def __init__(self, engine: Engine, config: LadderConfig):
        from arena.plugins import load_registry

        self.engine, self.config = engine, config
        self.single_reads = single_reads(engine)
        """`engine` for reads of one statement (`db.single_reads`)."""
        self.write_engine = write_transactions(engine)
        """`engine` for `writing`'s transactions (`db.write_transactions`)."""
        self.lock = threading.RLock()
        """Held by every write (`writing`)."""
        self.writers = WriterQueue(engine)
        """Taken after `lock` by every write: SQLite's writers in several processes queue on it."""
        self.commits = GroupCommit(self.writing, self.lock, self.store_results)
        """Stores results that arrive together in one transaction (arena.ladder.commits)."""
        self.standings_lock = threading.RLock()
        """Guards the in-memory standings, rating history and refits; taken alone (readers,
        the snapshot builder) or before `lock` (a lease's scheduling reads the refits), never
        after it: a store never waits for a rebuild."""
        registry = load_registry()
        self.rulesets: dict[str, dict[str, Any]] = {
            r.name: {"label": r.name, "id": r.id, "options": dict(r.options), "players": r.players,
                     "cls": registry.rulesets[r.id].cls} for r in config.rulesets}
        self.random_label = registry.bots["random"].origin.version
        self.rankings = {r.name: Ranking(r.name, 1 - config.ladder.confidence, config.ladder.margin,
                                         config.ladder.refit_every, config.ladder.seed_games) for r in config.rulesets}
        self.scheduler = make_scheduler(config, self.rankings)
        self.comparisons: dict[str, dict[str, Any]] = {}
        """Per ruleset, the top pair's verdict as the site's verdict line reads it (`standings_table`)."""
        self.standings = LiveStandings([(k, v["cls"], v["players"]) for k, v in self.rulesets.items()])
        self.history: dict[str, dict[int, list[tuple[int, float, float]]]] = {k: {} for k in self.rulesets}
        """Per ruleset, per version: (game id, mu, sigma) after each of its rated games."""
        self.played: dict[int, list[dict[str, Any]]] = {}
        """Per version, its stored games (gate games too) in the order stored (`games_of`)."""
        self._last_listed = 0
        self.generation = 0
        """Bumped by every change of what the pages show this process makes (a stored result,
        an upload, a bot disabled), as `db.generation` is by every process's."""
        from arena.ladder.snapshots import Snapshots

        self.snapshots = Snapshots(self)
        """What the pages show, rebuilt off the request path (`Snapshots.start`)."""
        self.rebuild()

    @contextlib.contextmanager
    def writing(self, changes_pages: bool = False, versions: bool = False) -> Iterator[Connection]:
        """A write transaction under this process's lock and the database's write lock
        (`db.begin_writing`); `changes_pages`: it changes what the pages show (counted in
        `db.generation`, and `generation` bumped once it committed); `versions`: more than
        new games (`db.changed_counters`)."""
        with self.lock, self.writers.turn():
            with self.write_engine.begin() as conn:
                begin_writing(conn, changed_counters(versions) if changes_pages or versions else ())
                yield conn
            if changes_pages or versions:
                self.generation += 1

    # -- people and tokens ----------------------------------------------------------

    def create_admin(self, name: str) -> str:
        with self.writing() as conn:
            return accounts.issue_token(conn, accounts.create_person(conn, name, admin=True), "admin")

    def caller(self, header: str | None) -> Caller:
        with self.engine.connect() as conn:
            return accounts.authenticate(conn, header)

    def sign_up(self, name: str, code: str | None) -> str:
        with self.writing() as conn:
            return accounts.sign_up(conn, name, code, self.config.ladder.signup)

    def invite(self, caller: Caller) -> str:
        with self.writing() as conn:
            return accounts.invite(conn, caller)

    def issue_token(self, caller: Caller, scope: str) -> str:
        """A new token of `scope` for the caller (worker and admin tokens: admins only)."""
        if scope != "submit" and not caller.admin:
            raise AccessError(f"only an admin makes {scope} tokens")
        with self.writing() as conn:
            return accounts.issue_token(conn, caller.person, scope)

    def tokens(self, caller: Caller) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            return accounts.list_tokens(conn, caller)

    def revoke(self, caller: Caller, prefix: str) -> int:
        with self.writing() as conn:
            return accounts.revoke_token(conn, prefix, caller)

    # -- versions ----------------------------------------------------------------

    def submit(self, caller: Caller, bot: str, filename: str, data: bytes) -> dict[str, Any]:
        """A new version of `bot` from an upload, queued for its gate."""
        with self.writing(versions=True) as conn:
            if admin.switched(conn, "frozen") and not caller.admin:
                raise AccessError("submissions are frozen (finals): an admin reopens them")
            added = add_version(conn, caller, bot, filename, data, self.config.quotas)
            spec = {"version": added["version_id"], "bot": bot, "content": added["content"],
                    "blob": conn.execute(sa.select(versions.c.blob).where(versions.c.id == added["version_id"]))
                    .scalar(), "filename": filename,
                    "rulesets": [{k: v for k, v in r.items() if k != "cls"} for r in self.rulesets.values()],
                    "random": self.random_label, "seed": self.config.ladder.seed}
            conn.execute(tasks.insert().values(key=f"gate-{added['content']}", kind="gate", spec=json.dumps(spec),
                                               state="queued", attempts=0, created=time.time()))
        return added

    def blob(self, sha256: str) -> tuple[str, bytes]:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(blobs.c.filename, blobs.c.data).where(blobs.c.sha256 == sha256)).first()
        if row is None:
            raise LeaseError(f"no upload {sha256[:12]}", 404)
        return row.filename, bytes(row.data)

    # -- workers -----------------------------------------------------------------

    def _schedule(self, conn: Connection, room: int) -> None:
        """Queue up to `room` games the scheduler chooses now."""
        state = DbState(conn)
        decision = self.scheduler.next(state, room)
        if not isinstance(decision, Play):
            return
        seats = state.seats()
        chosen = []
        for game in decision.games:
            spec = self.game_spec(game, seats)
            chosen.append((identity(spec).key, spec))
        leases.enqueue_games(conn, chosen)

    def game_spec(self, game: LadderGame, seats: Mapping[str, dict[str, Any]]) -> Spec:
        ruleset = {k: v for k, v in self.rulesets[game.ruleset].items() if k in ("label", "id", "options")}
        spec = make_spec(ruleset, [seats[e.version] for e in game.table], game.deal, game.rotation,
                         self.config.ladder.seed)
        assert identity(spec).key == game.identity.key
        return spec

    def lease(self, caller: Caller) -> dict[str, Any]:
        """Work for a worker: a lease on a gate run or a batch of games (see arena.ladder.leases)."""
        if not caller.may("worker"):
            raise AccessError("leasing work needs a worker token")
        ladder = self.config.ladder
        # the scheduler reads the refits: their lock first, so no store waits behind a rebuild
        with self.standings_lock, self.writing() as conn:
            if admin.switched(conn, "paused"):
                found: dict[str, Any] = {"lease": None, "expires": None, "tasks": [], "paused": True}
            else:
                found = leases.take(conn, ladder.batch_games, ladder.lease_seconds, self._schedule)
            if found["lease"] is not None:
                admin.note_lease(conn, found["lease"], caller)
        return dict(found, lease_seconds=ladder.lease_seconds, heartbeat_seconds=ladder.heartbeat_seconds,
                    policy={"on_fault": ladder.on_fault, "time_per_decision": ladder.time_per_decision})

    def heartbeat(self, caller: Caller, lease: str) -> dict[str, Any]:
        if not caller.may("worker"):
            raise AccessError("heartbeats need a worker token")
        with self.writing() as conn:
            return leases.renew(conn, lease, self.config.ladder.lease_seconds)

    def complete(self, caller: Caller, task_id: int, result: Mapping[str, Any]) -> dict[str, Any]:
        """A worker's result for task `task_id`: checked (replayed) before the lock is taken,
        then stored once under it, in one transaction with the results that arrived meanwhile
        (`commits`; LeaseError 422 if refused: the task is queued again)."""
        checked = self.checked_result(caller, task_id, result)
        if not isinstance(checked, Storing):
            return checked
        return dict(self.commits.run(checked))

    def complete_request(self, authorization: str | None, task_id: int, result: Mapping[str, Any]) -> dict[str, Any]:
        """`complete` for the ``Authorization`` header of a request: the token's caller and the
        task read by one statement on one connection (`leases.RESULT_READ`; nothing cached, so a
        revoked token is refused from its next request on), then checked and stored as `complete`."""
        token_digest = accounts.bearer_digest(authorization)
        with self.single_reads.connect() as conn:
            row = leases.result_read(conn, token_digest, task_id)
        caller = accounts.caller_of(row)
        checked = self._checked_task(caller, task_id, row if row.kind is not None else None, result)
        if not isinstance(checked, Storing):
            return checked
        return dict(self.commits.run(checked))

    def warm_results(self) -> None:
        """Make this process's first results cost what its later ones do (a worker listener's
        first result took ~50 ms of CPU, and a burst of results arriving at a fresh listener
        shared that): import the modules the check loads on first use, run the result's read
        once (its statement compiled), open the pool's connections (`db.POOL_SIZE`: a burst
        of results at a fresh listener opened one per thread, a PostgreSQL backend each) and
        compile the store's statements for batches of games of up to `db.POOL_SIZE` results
        (`prebuilt`: each size's SQL is compiled on its first use, 3-5 ms on a quiet machine and
        20-45 ms in the load benchmark's first wave, with the write lock held)."""
        import arena.match  # noqa: F401 - imported by the check (games.record_problem_for) on first use
        import arena.store  # noqa: F401
        import arena.verify  # noqa: F401

        with contextlib.ExitStack() as held:
            for _ in range(POOL_SIZE):
                conn = held.enter_context(self.single_reads.connect())
                leases.result_read(conn, "", 0)
            prepare_writing(conn)
            players = sorted({ruleset["players"] for ruleset in self.rulesets.values()})
            for size in range(1, POOL_SIZE + 1):
                if conn.dialect.name == "postgresql":
                    prepare_store(conn, size)
                    continue
                leases.finish_many_statement_for(conn, size)
                _insert_statement(conn, games, GAME_COLUMNS, size, (games.c.key, games.c.id))
                for seats in players:
                    _insert_statement(conn, game_seats, ("game", "seat", "version"), size * seats)

    def checked_result(self, caller: Caller, task_id: int, result: Mapping[str, Any]) -> "Storing | dict[str, Any]":
        """`complete` up to the store: what to store (`Storing`, for `commits`), or the answer
        when there is nothing to store (already stored); LeaseError 422 if refused (the task
        is queued again)."""
        if not caller.may("worker"):
            raise AccessError("returning results needs a worker token")
        with self.engine.connect() as conn:
            task = leases.task_row(conn, task_id)
        return self._checked_task(caller, task_id, task, result)

    def _checked_task(self, caller: Caller, task_id: int, task: Any, result: Mapping[str, Any]
                      ) -> "Storing | dict[str, Any]":
        """`checked_result` once the task was read (`task`: its kind, spec and state; None: no such task)."""
        if not caller.may("worker"):
            raise AccessError("returning results needs a worker token")
        if task is None:
            raise LeaseError(f"no task {task_id}", 404)
        if task.state == leases.DONE_STATE:
            return {"task": task_id, "stored": False, "note": "already stored"}
        spec = json.loads(task.spec)  # a task's spec never changes: the check needs nothing else
        checked = self._checked_game(spec, result.get("record")) if task.kind == "game" else \
            self._checked_gate(spec, result)
        if isinstance(checked, str):
            with self.writing() as conn:
                leases.requeue(conn, task_id)
            raise LeaseError(f"task {task_id}: the result was refused: {checked}", 422)
        return Storing(task_id, checked, spec.get("version"))

    def store_results(self, conn: Connection, items: Sequence["Storing"]) -> list[dict[str, Any]]:
        """Store checked results (`commits.GroupCommit`'s batch) in `conn`'s transaction, each once,
        in the order given, with the same statements for one as for many: the tasks marked done
        (one UPDATE), the games and their seats (one INSERT each), and a gate's version (two per
        gate, and the versions' change counter once); on PostgreSQL a batch of games sends its
        statements at once, one round trip (`pipeline.store_games`). A task already done, or
        given twice, is answered "already stored" after its first."""
        at_once = conn.dialect.name == "postgresql" and all(item.checked.version is None for item in items)
        if at_once:
            first = {item.task: item for item in reversed(items)}  # each task's first copy (the one stored)
            tasks_once = list(dict.fromkeys(item.task for item in items))
            rows_once = [row for task in tasks_once for row in first[task].checked.games]
            fresh = store_games(conn, tasks_once, self._stored_rows(rows_once))
        else:
            fresh = leases.finish_many(conn, [item.task for item in items])  # those done by no one before
        answers, rows, gated = [], [], False
        for item in items:
            if item.task not in fresh:  # stored while this one was checked
                answers.append({"task": item.task, "stored": False, "note": "already stored"})
                continue
            fresh.discard(item.task)
            rows += item.checked.games
            if item.checked.version is not None:
                assert item.version is not None  # a gate's spec names its version
                self._store_version(conn, item.version, item.checked.version)
                gated = True
            answers.append({"task": item.task, "stored": True})
        if not at_once:
            self._insert_games(conn, rows)
        if gated:  # more than new games (the batch's `writing` counts the change itself: `db.changed_counters`)
            bump_setting(conn, VERSIONS_GENERATION)
        return answers

    def _checked_game(self, spec: Spec, record: Any) -> "Checked | str":
        problem = record_problem_for(spec, record, self.rulesets[spec["ruleset"]["label"]]["cls"])
        return problem if problem is not None else Checked([game_row(spec, record)], None)

    def _checked_gate(self, spec: Mapping[str, Any], result: Mapping[str, Any]) -> "Checked | str":
        """The gate's report checked: a passing version's games all replayed (none stored yet)."""
        log = str(result.get("log", ""))[-100_000:]
        claimed = [r for r in spec["rulesets"] if r["label"] in (result.get("rulesets") or [])]
        passed = bool(result.get("passed")) and bool(claimed)
        records = result.get("records") or []
        values: dict[str, Any] = {"state": "passed" if passed else "failed", "gate_log": log, "gated": time.time()}
        if not passed:
            return Checked([], values)
        seat = {"version": spec["version"], "name": spec["bot"], "content": spec["content"],
                "label": str(result.get("label", "")), "package": str(result.get("package", "")),
                "blob": spec["blob"], "filename": spec["filename"]}
        specs = gate_specs(seat, claimed, spec["random"], spec["seed"])
        if len(records) != len(specs):
            return f"the gate returned {len(records)} game records, not {len(specs)}"
        for number, (game, record) in enumerate(zip(specs, records), 1):
            cls = self.rulesets[game["ruleset"]["label"]]["cls"]
            if (problem := record_problem_for(game, record, cls)) is not None:
                return f"gate game {number}: {problem}"
        values.update(label=seat["label"], package=seat["package"], rulesets=json.dumps([r["label"] for r in claimed]))
        return Checked([game_row(game, record) for game, record in zip(specs, records)], values)

    @staticmethod
    def _insert_games(conn: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Checked games (`game_row`) stored: one INSERT for the games, one for their seats, each
        the driver's SQL for that many rows (`prebuilt`)."""
        if not rows:
            return
        rows = Ladder._stored_rows(rows)
        # ids mapped back by key (UNIQUE): the order of ids within one transaction is whatever the database gave
        ids = {key: game_id for key, game_id in _insert_many(conn, games, [row["game"] for row in rows],
                                                             (games.c.key, games.c.id))}
        _insert_many(conn, game_seats, [{"game": ids[row["game"]["key"]], "seat": seat, "version": version}
                                        for row in rows for seat, version in enumerate(row["seats"])])

    @staticmethod
    def _stored_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """`game_row`s as stored now: their games' `created` set."""
        now = time.time()
        return [{"game": dict(row["game"], created=now), "seats": row["seats"]} for row in rows]

    @classmethod
    def _insert_game(cls, conn: Connection, row: Mapping[str, Any]) -> None:
        cls._insert_games(conn, [row])

    @staticmethod
    def _store_version(conn: Connection, version: int, values: Mapping[str, Any]) -> None:
        """A gate's outcome: the version's state and log; a passing version made its bot's current."""
        if values["state"] == "passed":
            bot_id = conn.execute(sa.select(versions.c.bot).where(versions.c.id == version)).scalar()
            conn.execute(bots.update().where(bots.c.id == bot_id).values(current=version))
        conn.execute(versions.update().where(versions.c.id == version).values(**values))

    # -- standings and reads -------------------------------------------------------

    def _rate_new(self) -> None:
        """Rate the stored games not yet rated, in the order they were stored, and list every
        new game (gate games too) under its versions (`played`)."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(games.c.id, games.c.ruleset, games.c.seats, games.c.result, games.c.gate)
                                .where(games.c.id > self._last_listed).order_by(games.c.id)).all()
        for row in rows:
            result, seats = json.loads(row.result), json.loads(row.seats)
            self._last_listed = row.id
            listed = {"game": row.id, "ruleset": row.ruleset, "seats": seats, "gate": row.gate, **result}
            for version in dict.fromkeys(v for v in seats if v is not None):
                self.played.setdefault(version, []).append(listed)
            if row.gate is not None:
                continue
            self.standings.add(row.id, row.ruleset, seats, result["standing"], result["faults"])
            rated = self.standings.ratings.get(row.ruleset, {})
            for version in seats:
                if version in rated:
                    self.history[row.ruleset].setdefault(version, []).append(
                        (row.id, round(rated[version].mu, 3), round(rated[version].sigma, 3)))

    def games_of(self, version: int) -> list[dict[str, Any]]:
        """Version `version`'s stored games as of the last catch-up, oldest first ({"game",
        "ruleset", "seats", "gate", "standing", "scores", "faults"}; callers must not change them)."""
        return list(self.played.get(version, ()))

    def rebuild(self) -> None:
        """Ratings from every stored game, in the order stored (a restarted server's)."""
        self.catch_up()

    def catch_up(self) -> None:
        """Rate the games stored since the last call (by any process), in the order stored."""
        with self.standings_lock:
            self._rate_new()

    def standings_table(self, label: str) -> list[dict[str, Any]]:
        if label not in self.rulesets:
            raise LeaseError(f"no ruleset {label!r} on this ladder (it plays: {', '.join(self.rulesets)})", 404)
        with self.standings_lock, self.engine.connect() as conn:
            self._rate_new()
            state = DbState(conn)
            self.rankings[label].catch_up(state)
            published = self.rankings[label].published(state.field(), state.entered())
            rows = conn.execute(sa.select(versions.c.id, versions.c.number, bots.c.name)
                                .join(bots, bots.c.id == versions.c.bot)).all()
            order = published.order
            top = self.rankings[label].verdict(order[0], order[1], state.entered()) if len(order) > 1 else None
        names = {r.id: (r.name, r.number) for r in rows}
        seats = state.seats()
        ids = {e.version: seats[e.version]["version"] for e in state.field() if label in e.rulesets}
        live = self.standings.table(label, names, list(ids.values()))
        table = refit_rows(live, [ids[v] for v in published.order], published)
        self.comparisons[label] = top_comparison(table, top)
        return table

    def bot_page(self, name: str) -> dict[str, Any]:
        """A bot's owner, current version, versions (with gate state) and games."""
        with self.engine.connect() as conn:
            bot = conn.execute(sa.select(bots, people.c.name.label("owner_name"))
                               .join(people, people.c.id == bots.c.owner).where(bots.c.name == name)).first()
            if bot is None:
                raise LeaseError(f"no bot {name!r}", 404)
            rows = conn.execute(sa.select(versions).where(versions.c.bot == bot.id).order_by(versions.c.number)).all()
            mine = sa.select(game_seats.c.game).where(game_seats.c.version.in_([r.id for r in rows]))
            played = conn.execute(sa.select(games.c.id, games.c.ruleset, games.c.seats, games.c.result, games.c.gate)
                                  .where(games.c.id.in_(mine)).order_by(games.c.id)).all()
        return {"bot": name, "owner": bot.owner_name, "current": bot.current,
                "versions": [{"version": r.number, "version_id": r.id, "state": r.state, "label": r.label,
                              "rulesets": json.loads(r.rulesets), "content": r.content, "size": r.size}
                             for r in rows],
                "games": [{"game": g.id, "ruleset": g.ruleset, "seats": json.loads(g.seats), "gate": g.gate,
                           **json.loads(g.result)} for g in played]}

    def gate_log(self, caller: Caller, name: str, number: int) -> dict[str, Any]:
        """A version's gate state and log: its author's (or an admin's) to read."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(versions.c.state, versions.c.gate_log, bots.c.owner)
                               .join(bots, bots.c.id == versions.c.bot)
                               .where(bots.c.name == name, versions.c.number == number)).first()
        if row is None:
            raise LeaseError(f"no version {number} of bot {name!r}", 404)
        if row.owner != caller.person and not caller.admin:
            raise AccessError(f"the gate log of {name} is its author's to read")
        return {"bot": name, "version": number, "state": row.state, "log": row.gate_log}

    def game_record(self, game_id: int) -> dict[str, Any]:
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(games.c.record).where(games.c.id == game_id)).first()
        if row is None:
            raise LeaseError(f"no game {game_id}", 404)
        record: dict[str, Any] = json.loads(zlib.decompress(row.record))
        record.pop("logs", None)  # a bot's logs are its author's (not served here)
        return record

    def game_logs(self, caller: Caller, game_id: int) -> dict[str, Any]:
        """What the bots of game `game_id` wrote to stderr, for the seats whose bot the caller
        owns (an admin: every seat)."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(games.c.record, games.c.seats).where(games.c.id == game_id)).first()
            if row is None:
                raise LeaseError(f"no game {game_id}", 404)
            seats = json.loads(row.seats)
            owners = dict(conn.execute(sa.select(versions.c.id, bots.c.owner).join(bots, bots.c.id == versions.c.bot)
                                       .where(versions.c.id.in_([v for v in seats if v is not None]))).all())
        logs = json.loads(zlib.decompress(row.record)).get("logs") or {}
        mine = {str(seat) for seat, version in enumerate(seats) if caller.admin or owners.get(version) == caller.person}
        return {"game": game_id, "logs": {seat: text for seat, text in logs.items() if seat in mine}}

    # -- organisers (arena.ladder.admin) ----------------------------------------------

    def set_switch(self, caller: Caller, name: str, on: bool) -> dict[str, bool]:
        """Pause or resume play, freeze or reopen submissions (an admin's)."""
        with self.writing() as conn:
            admin.set_switch(conn, caller, name, on)
            return {n: admin.switched(conn, n) for n in admin.SWITCHES}

    def switches(self) -> dict[str, bool]:
        with self.engine.connect() as conn:
            return {n: admin.switched(conn, n) for n in admin.SWITCHES}

    def set_disabled(self, caller: Caller, bot: str, number: int | None, off: bool) -> dict[str, Any]:
        with self.writing(versions=True) as conn:
            return admin.set_disabled(conn, caller, bot, number, off)

    def counts(self) -> dict[str, int]:
        """Games stored and tasks by state (for the CLI, tests and the status endpoint)."""
        with self.engine.connect() as conn:
            out = {f"tasks_{r.state}": int(r.n) for r in conn.execute(
                sa.select(tasks.c.state, sa.func.count().label("n")).group_by(tasks.c.state)).all()}
            out["games"] = int(conn.execute(sa.select(sa.func.count()).select_from(games)).scalar() or 0)
        return out
