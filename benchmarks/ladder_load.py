"""Benchmark: the ladder's server under load, and its pages at scale (issue 40).

    .venv/bin/python benchmarks/ladder_load.py [--db sqlite|postgresql|both] [--bots 200]
        [--games 100000] [--clients 50] [--seconds 20] [--results 1000] [--processes 1]
        [--results-to workers|main] [--pages-nice N] [--worker-processes N] [--records FILE]

For each database (PostgreSQL: ``--postgres URL``, else a private server started as the
ladder's tests start one, tests/ladder_support.py):

1. fills a ladder: `--bots` bots with one passed version each and `--games` stored games
   between them (synthetic rows: random pairs and outcomes, each with one real Flip 7
   record as its stored record), plus `--results` real games leased and played in this
   process (the tests' stand-in worker) for the load phase to return;
2. starts `arena ladder serve` (no local workers) on it, in a process of its own, and
   times its start (it rates every stored game); with `--results-to workers` (the default)
   it is given `--worker-port`, as a deployment whose workers return results to the worker
   listener (docs/ladder.md), and `--results-to main` has the workers use the main port,
   as every worker did before that listener existed (the pages' processes then run at
   serve's default `--pages-nice`, 10, unless `--pages-nice` says otherwise; 0: as before it;
   the worker port is served by serve's default number of processes, 2, unless
   `--worker-processes` says otherwise; 1: as before);
3. **scale**: 30 sequential GETs of the leaderboard page (/standings/flip-7) and of a
   bot's page (/bots/<bot>, ~2 x games / bots games): median and p99 in ms;
4. **load**: `--clients` concurrent clients on loopback for at most `--seconds`: a
   third GET the leaderboard page, a third GET bot pages, a third POST the played games'
   results as workers (`/api/work/<task>/result`, each record checked and replayed by
   the server, as in production; at the address `--results-to` says) until those run out;
   per kind: requests, errors,
   median, p99 and max latency in ms, and the server's own median and p99 (its Server-Timing
   header: `serve --server-timing`, which the benchmark turns on; the rest of a latency is
   the wait for the server process's event loop, the network and the client's own
   scheduling, on a machine the clients share); the results also per phase: the first wave (each
   poster's first result, all sent at once) and the steady state (the rest), with how many
   took over 100 ms (`--records FILE`: each result's request as a JSON line); and the worker
   listeners' CPU during the load and the time their threads waited for a core (schedstat).

The default 1,000 results make the results' p99 their 10th slowest (with 300 it was the
3rd, and one stall of a listener moved it by tens of milliseconds between runs of the same
code); the 16 posters return them in a few seconds, inside the run's `--seconds`.

Latencies are measured by the clients (http.client, one keep-alive connection each).
The machine's load is printed with the figures: on a shared, loaded machine they are
upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from arena.ladder.server_timing import app_milliseconds  # noqa: E402

CONFIG = """[ladder]
name = "load"
deals_per_table = 20
batch_games = 10
lease_seconds = 3600
heartbeat_seconds = 60
"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def fill(url: str, bots: int, games: int, results: int) -> tuple[list[str], list[tuple[int, dict[str, Any]]], str]:
    """The ladder at `url` filled (see the module docstring); (bot names, (task, result) pairs
    to return, a worker token)."""
    import sqlalchemy as sa
    from ladder_support import inline_result

    from arena.ladder.config import decode_config
    from arena.ladder.db import blobs, bots as bots_table, connect, game_seats, games as games_table, versions
    from arena.ladder.service import Ladder

    engine = connect(url)
    names = [f"bot-{i:03d}" for i in range(bots)]
    ladder = Ladder(engine, decode_config({"ladder": {"deals_per_table": 20, "batch_games": 10,
                                                      "lease_seconds": 3600, "heartbeat_seconds": 60}}, "bench"))
    admin = ladder.caller(f"Bearer {ladder.create_admin('boss')}")
    worker_token = ladder.issue_token(admin, "worker")
    now = time.time()
    with engine.begin() as conn:
        for i, name in enumerate(names):
            sha = uuid.uuid4().hex * 2
            conn.execute(blobs.insert().values(sha256=sha, filename=f"{name}.whl", data=b"x"))
            bot = conn.execute(bots_table.insert().values(name=name, owner=admin.person, created=now)
                               ).inserted_primary_key[0]
            version = conn.execute(versions.insert().values(
                bot=bot, number=1, content=uuid.uuid4().hex * 2, blob=sha, size=1, state="passed",
                label="1.0+bench", package="pkg", rulesets='["flip-7"]', gate_log="", created=now, gated=now + i)
            ).inserted_primary_key[0]
            conn.execute(bots_table.update().where(bots_table.c.id == bot).values(current=version))
    worker = ladder.caller(f"Bearer {worker_token}")
    played: list[tuple[int, dict[str, Any]]] = []
    while len(played) < results:
        lease = ladder.lease(worker)
        assert lease["tasks"], "the scheduler queued no games"
        played += [(task["id"], inline_result(task)) for task in lease["tasks"]]
    record = zlib.compress(json.dumps(played[0][1]["record"]).encode())
    rng = random.Random(1)
    with engine.begin() as conn:
        ids = [r.id for r in conn.execute(sa.select(versions.c.id).order_by(versions.c.id)).all()]
        for start in range(0, games, 5000):
            rows, seats = [], []
            for n in range(start, min(games, start + 5000)):
                pair = rng.sample(ids, 2)
                standing = rng.choice([[1, 2], [2, 1], [1, 1]])
                rows.append({"key": uuid.uuid4().hex * 2, "ruleset": "flip-7", "seats": json.dumps(pair), "deal": n,
                             "rotation": 0, "result": json.dumps({"standing": standing, "scores": [0, 0],
                                                                  "faults": [0, 0]}),
                             "record": record, "gate": None, "created": now})
            conn.execute(games_table.insert(), rows)
            first = conn.execute(sa.select(sa.func.max(games_table.c.id))).scalar() - len(rows) + 1
            for offset, row in enumerate(rows):
                seats += [{"game": first + offset, "seat": s, "version": v}
                          for s, v in enumerate(json.loads(row["seats"]))]
            conn.execute(game_seats.insert(), seats)
    engine.dispose()
    return names, played[:results], worker_token


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    def __init__(self, folder: Path, db: str | None, processes: int, worker_listener: bool,
                 pages_nice: int | None = None, worker_processes: int | None = None):
        from arena.cli.ladder import WORKER_PROCESSES

        self.port = free_port()
        self.worker_port = free_port() if worker_listener else self.port
        (folder / "ladder.toml").write_text(CONFIG)
        args = ["--folder", str(folder), "--config", str(folder / "ladder.toml")] + (["--db", db] if db else [])
        args += ["--processes", str(processes)] if processes > 1 else []
        args += ["--worker-port", str(self.worker_port)] if worker_listener else []
        args += ["--pages-nice", str(pages_nice)] if worker_listener and pages_nice is not None else []
        args += ["--worker-processes", str(worker_processes)] if worker_listener and worker_processes else []
        self.worker_processes = worker_processes or WORKER_PROCESSES
        self.started = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, "-m", "arena", "ladder", "serve", *args, "--port",
                                         str(self.port), "--workers", "0", "--server-timing"], stdout=subprocess.DEVNULL,
                                        start_new_session=True)  # its forked processes: one group to end
        for port in dict.fromkeys((self.port, self.worker_port)):
            while True:
                try:
                    HTTPConnection("127.0.0.1", port, timeout=5).request("GET", "/api/status")
                    break
                except OSError:
                    assert self.process.poll() is None, "the server exited"
                    time.sleep(0.2)
        self.start_seconds = time.perf_counter() - self.started

    def result_processes(self) -> list[int] | None:
        """The pids of the processes the result posters reach: the worker listeners (the last
        processes the server forked) with `--results-to workers`; None otherwise or where /proc is missing."""
        if self.worker_port == self.port:
            return None
        try:
            folder = Path(f"/proc/{self.process.pid}/task")
            forked = [int(pid) for task in folder.iterdir() for pid in (task / "children").read_text().split()]
        except OSError:
            return None
        return sorted(forked)[-self.worker_processes:] if forked else None

    def stop(self) -> None:
        """End the server and every process it forked (they end after the first otherwise, and
        would still be reading the database when a private PostgreSQL server is stopped)."""
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=60)
        deadline = time.monotonic() + 30
        while True:
            try:
                os.killpg(self.process.pid, signal.SIGKILL if time.monotonic() > deadline else 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


def cpu_seconds(pids: list[int] | None) -> float | None:
    """The CPU time (user + system) processes `pids` have used so far (None: unknown)."""
    if pids is None:
        return None
    try:
        fields = [Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split() for pid in pids]
    except OSError:
        return None
    return sum(int(f[11]) + int(f[12]) for f in fields) / os.sysconf("SC_CLK_TCK")


def waited_seconds(pids: list[int] | None) -> float | None:
    """The time the threads of processes `pids` (those alive now) have spent runnable but waiting
    for a core so far (/proc/PID/task/TID/schedstat; None: unknown)."""
    if pids is None:
        return None
    try:
        return sum(int((task / "schedstat").read_text().split()[1])
                   for pid in pids for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9
    except (OSError, IndexError, ValueError):
        return None


Sample = tuple[float, int, float, int, int, float]
"""One request: (latency ms, HTTP status, seconds after the load started that it was sent, how
many its client had sent before it, the task whose result it returned or 0, the server's own
ms or NaN)."""


def timed(conn: HTTPConnection, method: str, path: str, body: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[float, int, float]:
    """(latency ms, HTTP status, the server's own ms from its Server-Timing header or NaN)."""
    started = time.perf_counter()
    conn.request(method, path, body=body, headers=headers or {})
    answer = conn.getresponse()
    answer.read()
    latency = (time.perf_counter() - started) * 1000
    server = app_milliseconds(answer.getheader("server-timing"))
    return latency, answer.status, float("nan") if server is None else server


def scale(port: int, bot: str, rounds: int = 30) -> dict[str, Any]:
    conn = HTTPConnection("127.0.0.1", port, timeout=120)
    out = {}
    for label, path in (("leaderboard page", "/standings/flip-7"), ("bot page", f"/bots/{bot}"),
                        ("leaderboard JSON", "/api/standings/flip-7")):
        times = []
        for _ in range(rounds):
            ms, status, _ = timed(conn, "GET", path)
            assert status == 200, (path, status)
            times.append(ms)
        out[label] = {"median": statistics.median(times), "p99": percentile(times, 0.99)}
    return out


def _client_process(ports: tuple[int, int], names: list[str], work: list[tuple[int, str, list[Any]]], token: str,
                    start: Any, seconds: float, out: Any) -> None:
    """One client process: a thread per (client number, kind, its results to return), all
    starting at the barrier `start` (every client of every process) and stopping `seconds`
    after it; pages from `ports[0]`, results to `ports[1]`; puts {kind: [Sample, ...]} on `out`."""
    lock = threading.Lock()
    seen: dict[str, list[Sample]] = {"leaderboard": [], "bot": [], "result": []}

    def client(number: int, kind: str, mine: list[Any]) -> None:
        rng = random.Random(number)
        conn = HTTPConnection("127.0.0.1", ports[1] if kind == "result" else ports[0], timeout=120)
        start.wait()
        began = time.monotonic()
        deadline = began + seconds
        sent = task = 0
        while time.monotonic() < deadline:
            at = time.monotonic() - began
            if kind == "result":
                if not mine:
                    return
                task, result = mine.pop()
                ms, status, server = timed(conn, "POST", f"/api/work/{task}/result", json.dumps(result).encode(),
                                   {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            else:
                path = "/standings/flip-7" if kind == "leaderboard" else f"/bots/{rng.choice(names)}"
                ms, status, server = timed(conn, "GET", path)
            with lock:
                seen[kind].append((ms, status, at, sent, task, server))
            sent += 1

    threads = [threading.Thread(target=client, args=item) for item in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put(seen)


def load(ports: tuple[int, int], names: list[str], played: list[tuple[int, dict[str, Any]]], token: str,
         clients: int, seconds: float, processes: int, posters_apart: bool) -> dict[str, Any]:
    """`clients` concurrent clients for at most `seconds`, spread over `processes` client
    processes, or with `posters_apart` the page clients over `processes` and the result
    posters in one more (see the module docstring)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    kinds = [("leaderboard", "bot", "result")[n % 3] for n in range(clients)]
    posters = [n for n in range(clients) if kinds[n] == "result"]
    results = {n: played[k::len(posters)] for k, n in enumerate(posters)}  # each poster its own share
    start, out = context.Barrier(clients), context.Queue()
    groups = [[n for n in range(clients) if n % processes == p] for p in range(processes)]
    if posters_apart:
        pages = [n for n in range(clients) if kinds[n] != "result"]
        groups = [pages[p::processes] for p in range(processes)] + [posters]
    running = []
    for group in groups:
        work = [(n, kinds[n], results.get(n, [])) for n in group]
        running.append(context.Process(target=_client_process, args=(ports, names, work, token, start,
                                                                      seconds, out)))
    for process in running:
        process.start()
    stats: dict[str, list[Sample]] = {"leaderboard": [], "bot": [], "result": []}
    for _ in running:
        for kind, seen in out.get().items():
            stats[kind] += seen
    for process in running:
        process.join()
    return stats


def summary(samples: list[Sample]) -> dict[str, Any]:
    """Requests, errors (not 200), median, p99 and max latency (ms) of `samples`, and the
    server's own median and p99 (NaN where no response said it)."""
    ms = [sample[0] for sample in samples]
    server = [sample[5] for sample in samples if sample[5] == sample[5]]  # NaN: not said
    return {"requests": len(samples), "errors": sum(1 for sample in samples if sample[1] != 200),
            "median": statistics.median(ms), "p99": percentile(ms, 0.99), "max": max(ms),
            "over 100 ms": sum(1 for t in ms if t > 100),
            "server median": statistics.median(server) if server else float("nan"),
            "server p99": percentile(server, 0.99)}


def result_phases(samples: list[Sample]) -> dict[str, list[Sample]]:
    """The results in two phases: the first wave (each poster's first result: all of them sent
    at once when the load starts, to listeners that have served none) and the steady state (the rest)."""
    return {"first wave": [s for s in samples if s[3] == 0], "steady state": [s for s in samples if s[3] > 0]}


def run(kind: str, args: argparse.Namespace, folder: Path, postgres: str | None) -> None:
    from arena.ladder.db import database_url

    db = None
    if kind == "postgresql":
        from ladder_support import fresh_database

        db = fresh_database(postgres)
    url = database_url(db, folder)
    started = time.perf_counter()
    names, played, token = fill(url, args.bots, args.games, args.results)
    print(f"[{kind}] filled: {args.bots} bots, {args.games:,} games, {len(played)} results to return, "
          f"in {time.perf_counter() - started:.0f} s", flush=True)
    server = Server(folder, db, args.processes, args.results_to == "workers", args.pages_nice, args.worker_processes)
    try:
        print(f"[{kind}] server started (rating {args.games:,} games) in {server.start_seconds:.1f} s", flush=True)
        for label, t in scale(server.port, names[len(names) // 2]).items():
            print(f"[{kind}] scale, {label}: median {t['median']:.0f} ms, p99 {t['p99']:.0f} ms", flush=True)
        listener = server.result_processes()
        cpu_before, waited_before = cpu_seconds(listener), waited_seconds(listener)
        measured = load((server.port, server.worker_port), names, played, token, args.clients, args.seconds,
                        args.client_processes, args.posters == "apart")
        cpu_after, waited_after = cpu_seconds(listener), waited_seconds(listener)
        for label, samples in measured.items():
            if not samples:
                continue
            t = summary(samples)
            print(f"[{kind}] load ({args.clients} clients), {label}: {t['requests']} requests, {t['errors']} errors, "
                  f"median {t['median']:.0f} ms, p99 {t['p99']:.0f} ms, max {t['max']:.0f} ms "
                  f"(the server's own: median {t['server median']:.0f} ms, p99 {t['server p99']:.0f} ms)", flush=True)
        if measured["result"]:
            for phase, samples in result_phases(measured["result"]).items():
                if samples:
                    t = summary(samples)
                    print(f"[{kind}] results, {phase}: {t['requests']} requests, median {t['median']:.0f} ms, "
                          f"p99 {t['p99']:.0f} ms, max {t['max']:.0f} ms, {t['over 100 ms']} over 100 ms "
                          f"(the server's own p99 {t['server p99']:.0f} ms)", flush=True)
            last = max(sample[2] for sample in measured["result"])
            print(f"[{kind}] results sent over {last:.1f} s", flush=True)
        if args.records:
            with open(args.records, "a") as records:
                for label, samples in measured.items():
                    for ms, status, at, before, task, server_ms in samples if label == "result" else ():
                        records.write(json.dumps({"db": kind, "task": task, "ms": round(ms, 2), "status": status,
                                                  "sent": round(at, 4), "before": before,
                                                  "server_ms": server_ms if server_ms == server_ms else None}) + "\n")
        if cpu_before is not None and cpu_after is not None and measured["result"]:
            used = cpu_after - cpu_before
            waited = "" if waited_before is None or waited_after is None else \
                f"; they waited {waited_after - waited_before:.2f} s for a core"
            print(f"[{kind}] worker listener CPU during the load: {used:.2f} s, "
                  f"{used / len(measured['result']) * 1000:.1f} ms per result{waited}", flush=True)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--postgres", help="postgresql://... of a server to use (default: a private one)")
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--results", type=int, default=1000,
                        help="played games whose results the posters return (1,000: the p99 is the 10th slowest)")
    parser.add_argument("--records", help="append each result's request (JSON lines: latency, status, when "
                                          "sent, how many its poster sent before) to this file")
    parser.add_argument("--processes", type=int, default=1, help="server processes (arena ladder serve --processes)")
    parser.add_argument("--results-to", choices=["workers", "main"], default="workers",
                        help="where the result posters send: the worker listener (--worker-port, a deployment's "
                             "workers) or the main port (the pages' processes, as before it existed)")
    parser.add_argument("--posters", choices=["apart", "mixed"], default="apart",
                        help="the result posters in a client process of their own (as workers are not in a "
                             "browser's process) or mixed with the page clients (the benchmark's first form)")
    parser.add_argument("--client-processes", type=int, default=5,
                        help="processes the clients are spread over (threads in each; one keep-alive connection each)")
    parser.add_argument("--pages-nice", type=int, default=None,
                        help="with --results-to workers: serve's --pages-nice (default: serve's own, 10)")
    parser.add_argument("--worker-processes", type=int, default=None,
                        help="with --results-to workers: serve's --worker-processes (processes on the worker port; "
                             "default: serve's own, 2)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} "
          f"(shared: figures are upper bounds); --processes {args.processes}, results to {args.results_to}"
          f"{f' (--worker-processes {args.worker_processes})' if args.worker_processes else ''}, posters {args.posters}",
          flush=True)
    kinds = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    for kind in kinds:
        with tempfile.TemporaryDirectory(prefix="ladder-load-") as folder:
            if kind == "postgresql" and not args.postgres:
                from ladder_support import PrivatePostgres

                private = PrivatePostgres()
                try:
                    run(kind, args, Path(folder), private.start())
                finally:
                    private.stop()
            else:
                run(kind, args, Path(folder), args.postgres)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
