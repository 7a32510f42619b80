"""The ladder under load (docs/ladder.md, "Under load, and at scale"): a worker's record is
checked with no lock held, results arriving together share a transaction, the pages are
served from a snapshot while the next one is built, a bot's cached page follows its games,
writes from two ladders on one database (as two server processes) take turns, and
`arena ladder serve --processes 2` serves one ladder from two processes. Fast cases; the
figures come from benchmarks/ladder_load.py."""

from __future__ import annotations

import os
import threading
import time

import pytest
from ladder_support import Server, inline_result, postgresql_messages, round_trips

from arena.cli.ladder import PAGES_NICE
from arena.ladder import service
from arena.ladder.config import decode_config
from arena.ladder.db import connect, database_url, generation
from arena.ladder.service import Ladder, LeaseError
from arena.ladder.worker import Client

pytest.importorskip("starlette")


def make_ladder(url: str) -> Ladder:
    doc = {"ladder": {"deals_per_table": 2, "batch_games": 2, "lease_seconds": 60, "scheduler": "round-robin"},
           "quotas": {"uploads_per_day": 5, "upload_bytes": 4096, "bots_per_author": 5}}
    return Ladder(connect(url), decode_config(doc, "test.toml"))


def gated(ladder: Ladder, names=("alpha", "beta")):
    """An admin, a worker, and `names` uploaded and through their gates; the games' tasks leased."""
    admin = ladder.caller(f"Bearer {ladder.create_admin('boss')}")
    worker = ladder.caller(f"Bearer {ladder.issue_token(admin, 'worker')}")
    for name in names:
        ladder.submit(admin, name, f"{name}.whl", f"{name} wheel".encode())
    for _ in names:
        task = ladder.lease(worker)["tasks"][0]
        assert task["kind"] == "gate"
        ladder.complete(worker, task["id"], inline_result(task))
    return admin, worker


def one_result_stored(url: str):
    """A gated ladder whose worker token has stored one result by `complete_request`: the ladder,
    the admin, the token and a second leased task not yet returned."""
    ladder = make_ladder(url)
    admin, worker = gated(ladder)
    token = ladder.issue_token(admin, "worker")
    first, second = ladder.lease(worker)["tasks"][:2]
    assert ladder.complete_request(f"Bearer {token}", first["id"], inline_result(first))["stored"]
    return ladder, admin, token, second


def test_a_record_is_checked_with_neither_the_process_nor_the_database_lock_held(tmp_path, monkeypatch):
    ladder = make_ladder(database_url(None, tmp_path))
    admin, worker = gated(ladder)
    task = ladder.lease(worker)["tasks"][0]
    during: dict[str, bool] = {}
    checked = service.record_problem_for

    def check_and_write_meanwhile(spec, record, cls):
        writer = threading.Thread(target=lambda: during.setdefault("invited", bool(ladder.invite(admin))))
        writer.start()  # another request's write: it would wait for either lock if the check held one
        writer.join(timeout=20)
        during["wrote"] = not writer.is_alive()
        return checked(spec, record, cls)

    monkeypatch.setattr(service, "record_problem_for", check_and_write_meanwhile)
    assert ladder.complete(worker, task["id"], inline_result(task)) == {"task": task["id"], "stored": True}
    assert during == {"invited": True, "wrote": True}


def test_a_result_stored_while_its_copy_was_checked_is_stored_once(tmp_path, monkeypatch):
    ladder = make_ladder(database_url(None, tmp_path))
    _, worker = gated(ladder)
    task = ladder.lease(worker)["tasks"][0]
    result = inline_result(task)
    checked = service.record_problem_for
    answers: list[dict] = []
    copies = []

    def check_while_the_copy_is_stored(spec, record, cls):
        if not copies:  # the first check: the second copy is checked and stored meanwhile
            copies.append(1)
            answers.append(ladder.complete(worker, task["id"], result))
        return checked(spec, record, cls)

    monkeypatch.setattr(service, "record_problem_for", check_while_the_copy_is_stored)
    first = ladder.complete(worker, task["id"], result)
    assert answers == [{"task": task["id"], "stored": True}]
    assert first == {"task": task["id"], "stored": False, "note": "already stored"}
    assert ladder.counts()["games"] == 2 * 2 + 1  # the gates' games and this one, once


def test_a_forged_record_checked_outside_the_lock_is_still_refused_and_queued_again(tmp_path):
    ladder = make_ladder(database_url(None, tmp_path))
    _, worker = gated(ladder)
    task = ladder.lease(worker)["tasks"][0]
    record = inline_result(task)["record"]
    record["outcome"]["standing"] = list(reversed(record["outcome"]["standing"]))
    with pytest.raises(LeaseError, match="refused") as caught:
        ladder.complete(worker, task["id"], {"record": record})
    assert caught.value.status == 422
    assert ladder.counts().get("tasks_queued", 0) >= 1 and ladder.counts()["games"] == 2 * 2


def test_the_worker_listener_stores_results_once_refuses_forgeries_and_serves_no_page(tmp_path):
    from starlette.testclient import TestClient

    from arena.ladder.api import WORKERS_ONLY, make_worker_app

    ladder = make_ladder(database_url(None, tmp_path))
    admin, _ = gated(ladder)
    token = ladder.issue_token(admin, "worker")
    client = TestClient(make_worker_app(ladder), headers={"Authorization": f"Bearer {token}"})
    assert client.get("/api/status").json()["rulesets"] == ["flip-7"]  # what a worker checks first
    tasks = client.post("/api/work/lease", json={}).json()["tasks"]
    assert len(tasks) == 2
    answers = [client.post(f"/api/work/{task['id']}/result", json=inline_result(task)).json() for task in tasks]
    assert answers == [{"task": task["id"], "stored": True} for task in tasks]
    again = client.post(f"/api/work/{tasks[0]['id']}/result", json=inline_result(tasks[0]))
    assert again.json() == {"task": tasks[0]["id"], "stored": False, "note": "already stored"}
    forged = ladder.lease(ladder.caller(f"Bearer {token}"))["tasks"][0]
    record = inline_result(forged)["record"]
    record["outcome"]["scores"] = [s + 1 for s in record["outcome"]["scores"]]
    refused = client.post(f"/api/work/{forged['id']}/result", json={"record": record})
    assert refused.status_code == 422 and "refused" in refused.json()["error"]
    assert client.post(f"/api/work/{tasks[1]['id']}/result", json={}, headers={"Authorization": "Bearer no"}
                       ).status_code == 401
    for page in ("/standings/flip-7", "/api/standings", "/bots/alpha", "/api/admin"):
        answer = client.get(page)
        assert answer.status_code == 404 and answer.json() == {"error": WORKERS_ONLY}, page
    assert ladder.counts()["games"] == 2 * 2 + 2  # the gates' games and the two results, each once


def test_pages_are_served_from_the_last_snapshot_while_the_next_is_built(tmp_path, monkeypatch):
    from starlette.testclient import TestClient

    from arena.ladder import views
    from arena.ladder.api import make_app

    ladder = make_ladder(database_url(None, tmp_path))
    _, worker = gated(ladder)
    client = TestClient(make_app(ladder))
    ladder.snapshots.interval = 0.05
    ladder.snapshots.start()
    before = client.get("/api/standings/flip-7/board").json()
    assert {r["games"] for r in before["rows"]} == {0}
    building, release = threading.Event(), threading.Event()
    made = views.make_leaderboard

    def slow_rebuild(ladder_, label):
        building.set()
        assert release.wait(30)
        return made(ladder_, label)

    monkeypatch.setattr(views, "make_leaderboard", slow_rebuild)
    try:
        task = ladder.lease(worker)["tasks"][0]
        ladder.complete(worker, task["id"], inline_result(task))
        assert building.wait(30)  # the builder is inside the rebuild, held there
        started = time.monotonic()
        page, board = client.get("/standings/flip-7"), client.get("/api/standings/flip-7/board").json()
        assert time.monotonic() - started < 10  # answered without waiting for the rebuild (held for 30 s)
        assert page.status_code == 200 and board == before
    finally:
        release.set()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the next snapshot, once the rebuild is let go
        status = client.get("/api/status").json()
        if status["published"] == status["generation"] == 2 + 2 + 1:  # 2 uploads, 2 gates, 1 result
            break
        time.sleep(0.05)
    assert sum(r["games"] for r in client.get("/api/standings/flip-7/board").json()["rows"]) == 2
    ladder.snapshots.stop()


def test_a_bots_cached_page_follows_its_games_and_others_are_not_rendered_again(tmp_path):
    from starlette.testclient import TestClient

    from arena.ladder.api import make_app

    ladder = make_ladder(database_url(None, tmp_path))
    admin, worker = gated(ladder, ("alpha", "beta", "gamma"))
    client = TestClient(make_app(ladder))
    pages = ladder.snapshots.bot_pages
    for name in ("alpha", "beta", "gamma"):
        assert "Games (2)" in client.get(f"/bots/{name}").text  # its gate's games
    rendered = []
    for key, page in list(pages._pages.items()):
        pages._pages[key] = page._replace(make=lambda make=page.make, bot=page.bot: rendered.append(bot) or make())
    task = ladder.lease(worker)["tasks"][0]
    ladder.complete(worker, task["id"], inline_result(task))
    played = sorted(seat["name"] for seat in task["spec"]["seats"])
    idle = ({"alpha", "beta", "gamma"} - set(played)).pop()
    assert all("Games (3)" in client.get(f"/bots/{name}").text for name in played)
    assert "Games (2)" in client.get(f"/bots/{idle}").text
    assert sorted(rendered) == played


def test_writes_of_two_ladders_on_one_database_take_turns(db_url):
    first = make_ladder(db_url)
    _, worker = gated(first, ("alpha", "beta", "gamma"))
    second = make_ladder(db_url)  # as a second server process: its own lock, the same database
    leased: list[list[int]] = []
    problems: list[BaseException] = []

    def take(ladder: Ladder) -> None:
        try:
            for _ in range(20):
                tasks = ladder.lease(worker)["tasks"]
                if not tasks:
                    return
                leased.append([t["id"] for t in tasks])
                for task in tasks:
                    ladder.complete(worker, task["id"], inline_result(task))
        except BaseException as exc:  # noqa: B036 - reported below
            problems.append(exc)

    threads = [threading.Thread(target=take, args=(ladder,)) for ladder in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert problems == []
    ids = [task for batch in leased for task in batch]
    assert len(ids) == len(set(ids)) == 12  # 3 pairs x 2 deals x 2 rotations, each leased once
    with first.engine.connect() as conn:
        assert generation(conn) == 3 + 3 + 12  # uploads, gates, results: every change counted once
    assert first.counts()["games"] == 3 * 2 + 12
    assert first.standings_table("flip-7") == second.standings_table("flip-7")


def server_processes(pid: int) -> list[int]:
    """`pid`'s child processes running the same command (the server processes it forked)."""
    command = open(f"/proc/{pid}/cmdline", "rb").read()
    found = []
    for entry in os.listdir("/proc"):
        try:
            if (entry.isdigit() and open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1] == str(pid)
                    and open(f"/proc/{entry}/cmdline", "rb").read() == command):
                found.append(int(entry))
        except OSError:  # gone meanwhile
            continue
    return found


def niceness(pid: int) -> int:
    """The nice value of process `pid`'s main thread."""
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[16])


def ended(pid: int) -> bool:
    """Whether process `pid` is gone (or a zombie, waiting to be reaped)."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_serve_with_two_processes_and_two_worker_listeners_stores_each_result_once(tmp_path):
    from ladder_support import _free_port

    from arena.ladder.worker import WorkerError

    server = Server(tmp_path / "ladder", None, '[ladder]\ndeals_per_table = 2\nscheduler = "round-robin"\n'
                                               'batch_games = 2\n')
    token, worker_port = server.admin(), _free_port()
    server.args = lambda: ["--folder", str(server.folder), "--config", str(server.config), "--processes", "2",
                           "--worker-port", str(worker_port), "--worker-processes", "2"]
    server.start()
    try:
        children = server_processes(server.process.pid)
        assert len(children) == 3  # the second server process and the two worker listeners
        # serve's default beside a worker listener: the pages' processes (the first, and the one
        # forked first) nicer by PAGES_NICE, the worker listeners (forked last) not
        assert [niceness(pid) for pid in [server.process.pid, *sorted(children)]] == [PAGES_NICE, PAGES_NICE, 0, 0]
        admin = Client(server.url, token)
        worker_token = admin.call("POST", "/api/tokens", {"scope": "worker"})["token"]
        worker = Client(f"http://127.0.0.1:{worker_port}", worker_token)
        with pytest.raises(WorkerError, match="worker listener"):
            worker.call("GET", "/api/standings/flip-7")  # the pages are on the main port only
        for name in ("alpha", "beta"):
            admin.upload(f"/api/bots/{name}/versions?filename={name}.whl", f"{name} wheel".encode())
        stored = 0
        for _ in range(20):
            tasks = worker.call("POST", "/api/work/lease", {})["tasks"]
            if not tasks:
                break
            for task in tasks:  # a connection a request (urllib): either listener may take each
                stored += worker.call("POST", f"/api/work/{task['id']}/result", inline_result(task))["stored"]
        assert stored == 2 + 4  # 2 gates, 2 deals x 2 rotations
        deadline, table = time.monotonic() + 30, []
        reader = Client(server.url, worker_token)
        while time.monotonic() < deadline:  # each process publishes its own snapshot: ask until both did
            status = reader.call("GET", "/api/status")
            if status["published"] == status["generation"] == 2 + 2 + 4:
                table = reader.call("GET", "/api/standings/flip-7")["flip-7"]
                # the status and the table may come from the two processes' snapshots: an empty
                # table is the other process's older one, not the answer
                if table and all(row["games"] == 4 for row in table):
                    break
            time.sleep(0.1)
        assert sorted((row["bot"], row["games"]) for row in table) == [("alpha", 4), ("beta", 4)]
        assert status["games"] == 4 + 4  # the gates' 2 x 2 and the 4 rated, each once
    finally:
        server.stop()
    deadline = time.monotonic() + 30
    while not all(ended(child) for child in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(ended(child) for child in children)  # the forked processes ended with the first


def results_queued_behind_the_lock(ladder: Ladder, worker, tasks) -> list:
    """Each task's result returned by a thread of its own while the test holds the ladder's
    lock, released once all are queued for the next transaction; each thread's answer (or error)."""
    answers: list = [None] * len(tasks)

    def post(k: int) -> None:
        try:
            answers[k] = ladder.complete(worker, tasks[k]["id"], inline_result(tasks[k]))
        except Exception as exc:  # reported in the answers
            answers[k] = exc

    threads = [threading.Thread(target=post, args=(k,)) for k in range(len(tasks))]
    with ladder.lock:
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while len(ladder.commits._queue) < len(tasks) and time.monotonic() < deadline:
            time.sleep(0.01)  # each checked its record, then queued behind the lock
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_results_arriving_together_share_one_transaction_each_stored_once(tmp_path):
    ladder = make_ladder(database_url(None, tmp_path))
    _, worker = gated(ladder, ("alpha", "beta", "gamma"))
    tasks = ladder.lease(worker)["tasks"] + ladder.lease(worker)["tasks"]
    before = ladder.commits.transactions
    answers = results_queued_behind_the_lock(ladder, worker, tasks)
    assert answers == [{"task": task["id"], "stored": True} for task in tasks]
    assert ladder.commits.transactions == before + 1
    assert ladder.counts()["games"] == 3 * 2 + len(tasks)


def test_a_store_failing_in_a_shared_transaction_fails_only_its_own_request(tmp_path, monkeypatch):
    ladder = make_ladder(database_url(None, tmp_path))
    _, worker = gated(ladder, ("alpha", "beta", "gamma"))
    tasks = ladder.lease(worker)["tasks"] + ladder.lease(worker)["tasks"]
    broken = service.identity(tasks[1]["spec"]).key
    insert = Ladder._insert_games

    def failing_for_one(conn, rows):
        if any(row["game"]["key"] == broken for row in rows):
            raise RuntimeError("the disk said no")
        insert(conn, rows)

    monkeypatch.setattr(Ladder, "_insert_games", staticmethod(failing_for_one))
    answers = results_queued_behind_the_lock(ladder, worker, tasks)
    assert isinstance(answers[1], RuntimeError)
    assert [a for k, a in enumerate(answers) if k != 1] == [{"task": t["id"], "stored": True}
                                                            for k, t in enumerate(tasks) if k != 1]
    assert ladder.counts()["games"] == 3 * 2 + len(tasks) - 1


class TurnLock:
    """A lock granted in the order it was asked for (a ticket each), so a test decides who gets it next."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.asked = 0
        self._serving = 0

    def __enter__(self) -> None:
        with self._changed:
            ticket, self.asked = self.asked, self.asked + 1
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._serving == ticket)

    def __exit__(self, *exc: object) -> None:
        with self._changed:
            self._serving += 1
            self._changed.notify_all()

    def wait_asked(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: self.asked >= count, timeout=30)


def test_a_result_stored_in_a_shared_transaction_is_answered_before_the_lock_is_free_again():
    import contextlib

    from arena.ladder.commits import GroupCommit

    lock, other_write_done = TurnLock(), threading.Event()
    stored: list[list[str]] = []

    @contextlib.contextmanager
    def writing(**_: object):
        yield None

    def store(conn, items):
        stored.append(list(items))
        return [f"{item} stored" for item in items]

    commits = GroupCommit(writing, lock, store)
    answers: dict[str, object] = {}

    def post(item: str) -> None:
        answers[item] = commits.run(item)

    def other_write() -> None:  # a lease or heartbeat: holds the lock until the test lets go
        with lock:
            other_write_done.wait(30)

    with lock:  # ticket 0: the test's
        first = threading.Thread(target=post, args=("first",))
        first.start()
        lock.wait_asked(2)  # the first result leads: it waits for the lock (ticket 1)
        writer = threading.Thread(target=other_write)
        writer.start()
        lock.wait_asked(3)  # the other write is next after it (ticket 2)
        second = threading.Thread(target=post, args=("second",))
        second.start()
        deadline = time.monotonic() + 30
        while len(commits._queue) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    # the first result's batch stores both; the other write then holds the lock
    first.join(timeout=30)
    second.join(timeout=5)
    try:
        assert stored == [["first", "second"]]
        assert not second.is_alive()  # answered once its batch committed, not after the other write
        assert answers == {"first": "first stored", "second": "second stored"}
    finally:
        other_write_done.set()
        writer.join(timeout=30)
        second.join(timeout=30)


def test_results_queued_while_a_store_waits_for_the_database_write_lock_join_its_transaction():
    import contextlib

    from arena.ladder.commits import GroupCommit

    waiting, other_process_done = threading.Event(), threading.Event()
    stored: list[list[str]] = []

    @contextlib.contextmanager
    def writing(**_: object):
        waiting.set()
        assert other_process_done.wait(30)  # another process's transaction holds the database's write lock
        yield None

    def store(conn, items):
        stored.append(list(items))
        return [f"{item} stored" for item in items]

    commits = GroupCommit(writing, threading.RLock(), store)
    answers: dict[str, object] = {}
    threads = [threading.Thread(target=lambda item=item: answers.update({item: commits.run(item)}))
               for item in ("first", "second")]
    threads[0].start()
    assert waiting.wait(30)  # the first leads, and waits for the write lock
    threads[1].start()
    deadline = time.monotonic() + 30
    while not any(job.item == "second" for job in commits._queue) and time.monotonic() < deadline:
        time.sleep(0.01)
    other_process_done.set()
    for thread in threads:
        thread.join(timeout=30)
    assert stored == [["first", "second"]]  # one transaction: the second was queued before the lock was held
    assert answers == {"first": "first stored", "second": "second stored"}


def test_sqlite_writers_of_two_processes_queue_on_the_writers_file_and_store_each_result_once(tmp_path):
    url = database_url(None, tmp_path)
    first = make_ladder(url)
    _, worker = gated(first, ("alpha", "beta", "gamma"))
    second = Ladder(connect(url), first.config)  # as another process has it: its own engine, lock and descriptor
    tasks = first.lease(worker)["tasks"] + first.lease(worker)["tasks"]
    answers: dict[int, object] = {}

    def post(ladder: Ladder, task: dict) -> None:
        try:
            answers[task["id"]] = ladder.complete(worker, task["id"], inline_result(task))
        except Exception as exc:  # reported in the answers
            answers[task["id"]] = exc

    threads = [threading.Thread(target=post, args=((first, second)[k % 2], task)) for k, task in enumerate(tasks)]
    with first.lock, first.writers.turn():  # the first process's turn, before its BEGIN: SQLite itself is free
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        assert answers == {}  # the second process's stores wait for the turn, not only the first's
    for thread in threads:
        thread.join(timeout=60)
    assert answers == {task["id"]: {"task": task["id"], "stored": True} for task in tasks}
    assert first.counts()["games"] == 3 * 2 + len(tasks)


def test_a_batch_of_results_is_stored_with_the_statements_of_one(db_url):
    import sqlalchemy as sa

    ladder = make_ladder(db_url)
    _, worker = gated(ladder, ("alpha", "beta", "gamma"))
    tasks = ladder.lease(worker)["tasks"] + ladder.lease(worker)["tasks"]
    tasks.append(tasks[0])  # a second copy of one result in the same batch
    statements: list[str] = []

    def seen(conn, cursor, statement, *rest):
        if threading.current_thread() is not threading.main_thread():  # the posting threads' statements
            statements.append(statement.split()[0])

    sa.event.listen(ladder.engine, "before_cursor_execute", seen)
    before = ladder.commits.transactions
    with postgresql_messages(ladder.engine) as checkouts:  # PostgreSQL's store is the driver's (arena.ladder.pipeline)
        answers = results_queued_behind_the_lock(ladder, worker, tasks)
    statements += [message.statement for checkout in checkouts for message in checkout]
    assert ladder.commits.transactions == before + 1
    assert answers[1:-1] == [{"task": task["id"], "stored": True} for task in tasks[1:-1]]
    copies = sorted((answers[0], answers[-1]), key=lambda answer: answer["stored"])  # whichever queued first
    assert copies == [{"task": tasks[0]["id"], "stored": False, "note": "already stored"},
                      {"task": tasks[0]["id"], "stored": True}]
    writes = [s for s in statements if s.upper() in ("UPDATE", "INSERT", "WITH")]
    # the tasks marked done, the games, their seats, the change counter: 4 for 4 results and a copy
    # (storing them one by one in the shared transaction took 3 each plus the counter: 13); on
    # PostgreSQL the games and their seats are one statement (arena.ladder.pipeline): 3
    assert len(writes) == (4 if ladder.engine.dialect.name == "sqlite" else 3), statements
    assert ladder.counts()["games"] == 3 * 2 + len(tasks) - 1


def test_a_result_reads_its_token_and_task_in_one_statement_on_one_connection(db_url):
    import sqlalchemy as sa

    ladder = make_ladder(db_url)
    admin, worker = gated(ladder)
    token = ladder.issue_token(admin, "worker")
    task = ladder.lease(worker)["tasks"][0]
    statements: list[str] = []
    checkouts: list[int] = []
    sa.event.listen(ladder.engine, "before_cursor_execute", lambda conn, cursor, statement, *rest:
                    statements.append(statement.split()[0].upper()))
    sa.event.listen(ladder.engine.pool, "checkout", lambda *args: checkouts.append(1))
    with postgresql_messages(ladder.engine) as sent:  # PostgreSQL's statements, as its driver sent them
        answer = ladder.complete_request(f"Bearer {token}", task["id"], inline_result(task))
    assert answer == {"task": task["id"], "stored": True}
    if sent:
        statements = [message.statement for checkout in sent for message in checkout if message.statement]
        statements = [s for s in statements if s not in ("BEGIN", "COMMIT", "ROLLBACK")]
    # before the store: one SELECT (token, person and task) on one connection; then the store's own
    # (the write lock, the tasks marked done, the game, its seats, the change counter) on one more
    # (PostgreSQL: the game and its seats in one statement, arena.ladder.pipeline)
    assert statements[0] == "SELECT" and "SELECT" not in statements[2:], statements
    assert statements.count("UPDATE") + statements.count("INSERT") + statements.count("WITH") == \
        (4 if ladder.engine.dialect.name == "sqlite" else 3), statements
    assert len(checkouts) == 2


def test_a_result_s_read_and_store_run_as_driver_sql_compiled_once(db_url):
    import sqlalchemy as sa

    from arena.ladder import prebuilt

    ladder, _, token, second = one_result_stored(db_url)
    built = len(prebuilt._BUILT)
    ran: list[tuple[str, bool]] = []
    sa.event.listen(ladder.engine, "before_cursor_execute", lambda conn, cursor, statement, parameters, context, many:
                    ran.append((statement.split()[0].upper(), context.compiled is not None)))
    assert ladder.complete_request(f"Bearer {token}", second["id"], inline_result(second))["stored"]
    # the read, then the store (the write lock, the change counter, the tasks marked done, the game, its
    # seats), each as plain SQL that SQLAlchemy did not compile for this result, and none compiled anew
    # (on PostgreSQL the read and the store are sent by the driver itself, not through SQLAlchemy:
    # prebuilt.Prebuilt.first, arena.ladder.pipeline)
    sqlite = ladder.engine.dialect.name == "sqlite"
    assert [kind for kind, _ in ran] == (["SELECT", "BEGIN", "UPDATE", "UPDATE", "INSERT", "INSERT"] if sqlite
                                         else []), ran
    assert not any(compiled for _, compiled in ran), ran
    assert len(prebuilt._BUILT) == built
    assert ladder.counts()["games"] >= 2


def test_a_result_s_read_gives_the_row_sqlalchemy_gives_on_its_driver_s_cursor(db_url):
    from arena.ladder import accounts, leases
    from arena.ladder.db import single_reads

    ladder, _, token, second = one_result_stored(db_url)
    digest = accounts.bearer_digest(f"Bearer {token}")
    columns = ("id", "name", "admin", "scope", "kind", "spec", "state")
    with single_reads(ladder.engine).connect() as conn:
        for task, kind in ((second["id"], "game"), (999999, None)):  # a task, and no such task
            row = leases.result_read(conn, digest, task)
            expected = conn.execute(leases.RESULT_READ, {"digest": digest, "task": task}).first()
            assert row.kind == kind
            assert tuple(row) == tuple(expected)
            assert [getattr(row, name) for name in columns] == [getattr(expected, name) for name in columns]
        assert leases.result_read(conn, accounts.bearer_digest("Bearer nonsense"), second["id"]) is None


def test_a_revoked_token_is_refused_on_its_next_result_and_the_task_stays_unstored(db_url):
    from arena.ladder.accounts import AccessError

    ladder, admin, token, second = one_result_stored(db_url)
    [listed] = [t for t in ladder.tokens(admin) if t["scope"] == "worker" and t["revoked"] is None][-1:]
    assert ladder.revoke(admin, listed["id"]) == 1
    with pytest.raises(AccessError, match="unknown or revoked") as refused:
        ladder.complete_request(f"Bearer {token}", second["id"], inline_result(second))
    assert refused.value.status == 401
    with pytest.raises(AccessError, match="needs a worker token"):  # the scope still checked, in the same read
        ladder.complete_request(f"Bearer {ladder.issue_token(admin, 'submit')}", second["id"], inline_result(second))
    with pytest.raises(LeaseError, match="no task 999999"):
        ladder.complete_request(f"Bearer {ladder.issue_token(admin, 'worker')}", 999999, {})
    before = ladder.counts()["games"]
    assert ladder.complete_request(f"Bearer {ladder.issue_token(admin, 'worker')}", second["id"],
                                   inline_result(second))["stored"]
    assert ladder.counts()["games"] == before + 1


def engine_counting_pings(pg_server, tmp_path, monkeypatch):
    """An engine on a fresh PostgreSQL database whose pings are counted (the list), and the
    backend pid of its one pooled connection."""
    import sqlalchemy as sa
    from ladder_support import fresh_database

    engine = connect(database_url(fresh_database(pg_server), tmp_path))
    pings: list[int] = []
    real_ping = engine.dialect.do_ping
    monkeypatch.setattr(engine.dialect, "do_ping", lambda dbapi: pings.append(1) or real_ping(dbapi))
    with engine.connect() as conn:
        backend = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar()
    return engine, pings, backend


def test_postgresql_connections_are_pinged_only_after_idling_and_a_dead_one_is_replaced(pg_server, tmp_path,
                                                                                       monkeypatch):
    import sqlalchemy as sa

    from arena.ladder import db

    engine, pings, backend = engine_counting_pings(pg_server, tmp_path, monkeypatch)
    for _ in range(3):  # back and out again at once: no ping
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT pg_backend_pid()")).scalar() == backend
    assert pings == []
    other = sa.create_engine(engine.url, poolclass=sa.pool.NullPool)
    with other.connect() as conn:  # the server ends the pooled connection while it idles
        conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})
    other.dispose()
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 0.0)
    time.sleep(0.05)
    with engine.connect() as conn:  # pinged, found dead, replaced: the request does not fail
        assert conn.execute(sa.text("SELECT pg_backend_pid()")).scalar() != backend
    assert pings
    engine.dispose()


def test_a_postgresql_connection_ended_while_it_idled_briefly_is_replaced_without_failing(pg_server, tmp_path,
                                                                                           monkeypatch):
    """A server restart (or a terminated backend) shorter than the idle-ping delay: the closed
    socket is seen at checkout, the connection pinged and replaced, the request served."""
    import sqlalchemy as sa

    engine, pings, backend = engine_counting_pings(pg_server, tmp_path, monkeypatch)
    other = sa.create_engine(engine.url, poolclass=sa.pool.NullPool)
    with other.connect() as conn:
        conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})
    other.dispose()
    deadline = time.monotonic() + 1.0  # well within IDLE_PING_SECONDS (2 s)
    while time.monotonic() < deadline:  # wait until the backend is gone, as the restart test's stop does
        with other.connect() as conn:
            if not conn.execute(sa.text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"),
                                {"pid": backend}).scalar():
                break
    other.dispose()
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT pg_backend_pid()")).scalar() != backend
    assert pings == [1]
    engine.dispose()


def test_a_burst_of_sixteen_connections_is_kept_open_for_the_next_burst(db_url):
    import sqlalchemy as sa

    ladder = make_ladder(db_url)
    opened: list[int] = []
    sa.event.listen(ladder.engine, "connect", lambda *args: opened.append(1))
    for burst in range(2):
        held = [ladder.engine.connect() for _ in range(16)]  # a burst of results in 16 threads
        for conn in held:
            conn.execute(sa.text("SELECT 1"))
            conn.close()
        if burst == 0:
            first = len(opened)
    assert first <= 16 and len(opened) == first  # the second burst opened none (SQLAlchemy's default kept 5)


def test_a_warmed_worker_listener_opens_no_connection_for_its_first_burst_of_results(db_url):
    import sqlalchemy as sa

    from arena.ladder.db import POOL_SIZE

    ladder = make_ladder(db_url)
    admin, worker = gated(ladder)
    tasks = ladder.lease(worker)["tasks"] + ladder.lease(worker)["tasks"]
    token = ladder.issue_token(admin, "worker")
    ladder.engine.dispose()  # as a forked listener starts: no connection of its own yet
    opened: list[int] = []
    sa.event.listen(ladder.engine, "connect", lambda *args: opened.append(1))
    ladder.warm_results()
    assert len(opened) == POOL_SIZE
    answers: list[dict] = []
    threads = [threading.Thread(target=lambda t=t: answers.append(
        ladder.complete_request(f"Bearer {token}", t["id"], inline_result(t)))) for t in tasks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a["task"] for a in answers if a["stored"]) == sorted(t["id"] for t in tasks)
    assert len(opened) == POOL_SIZE  # the burst used the warmed connections


def test_a_batch_of_games_on_postgresql_is_stored_in_one_round_trip_each_once_as_on_sqlite(pg_server, tmp_path):
    """The batch's write transaction on PostgreSQL makes 3 round trips (BEGIN with the write lock
    and the change counter; the tasks marked done with the games and their seats; COMMIT: it made
    7, a statement each), and stores what the statement-by-statement path stores on SQLite: the
    same games, seats, answers and ratings, a copy returned in the same batch stored once."""
    import sqlalchemy as sa

    from arena.ladder.db import game_seats, games
    from ladder_support import fresh_database

    stored = {}
    for url in (database_url(None, tmp_path), database_url(fresh_database(pg_server), tmp_path)):
        ladder = make_ladder(url)
        _, worker = gated(ladder, ("alpha", "beta", "gamma"))
        tasks = ladder.lease(worker)["tasks"] + ladder.lease(worker)["tasks"]
        tasks.append(tasks[0])  # a second copy of one result in the same batch
        batch = [ladder.checked_result(worker, task["id"], inline_result(task)) for task in tasks]
        with postgresql_messages(ladder.engine) as checkouts:
            with ladder.writing(changes_pages=True) as conn:  # as `commits.GroupCommit` stores a batch
                answers = ladder.store_results(conn, batch)
        assert answers == [{"task": task["id"], "stored": True} for task in tasks[:-1]] + [
            {"task": tasks[0]["id"], "stored": False, "note": "already stored"}]
        if ladder.engine.dialect.name == "postgresql":
            [store] = [c for c in checkouts if "COMMIT" in [message.statement for message in c]]
            assert round_trips(store) == 3, store
        with ladder.engine.connect() as conn:
            rows = conn.execute(sa.select(games.c.id, games.c.key, games.c.seats, games.c.result, games.c.gate)
                                .order_by(games.c.id)).all()
            seats = conn.execute(sa.select(game_seats).order_by(game_seats.c.game, game_seats.c.seat)).all()
        ladder.catch_up()
        ratings = {label: {v: (round(r.mu, 9), round(r.sigma, 9)) for v, r in table.items()}
                   for label, table in ladder.standings.ratings.items()}
        stored[ladder.engine.dialect.name] = ([tuple(r) for r in rows], [tuple(r) for r in seats], ratings)
    assert len(stored["sqlite"][0]) == 3 * 2 + len(tasks) - 1
    assert stored["postgresql"] == stored["sqlite"]


def test_a_warmed_worker_listener_compiles_no_statement_for_its_first_batches_of_results(db_url, monkeypatch):
    from arena.ladder import prebuilt

    ladder = make_ladder(db_url)
    _, worker = gated(ladder, ("alpha", "beta", "gamma"))
    tasks = ladder.lease(worker)["tasks"] + ladder.lease(worker)["tasks"]
    monkeypatch.setattr(prebuilt, "_BUILT", {})  # as a fresh listener process: nothing compiled yet
    ladder.warm_results()
    warmed = dict(prebuilt._BUILT)
    answers = results_queued_behind_the_lock(ladder, worker, tasks[:3])  # a batch of 3, then one of 1
    answers += results_queued_behind_the_lock(ladder, worker, tasks[3:])
    assert answers == [{"task": task["id"], "stored": True} for task in tasks]
    assert prebuilt._BUILT == warmed  # each batch's statements were compiled before it came
