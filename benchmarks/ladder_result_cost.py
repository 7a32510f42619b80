"""Benchmark: what one returned result costs the ladder's server, step by step (issue 40).

    .venv/bin/python benchmarks/ladder_result_cost.py [--db sqlite|postgresql|both] [--results 1000]
        [--profile N]

For each database (PostgreSQL: a private server, as `ladder_load.py` starts one): fills a small
ladder (`ladder_load.fill`: 50 bots, 2,000 stored games, `--results` real games leased and
played), then returns the results in this process one at a time, as the worker listener's
`Ladder.complete_request` does, timing each step: the body's JSON decoded, the token and task
read (`leases.result_read`), the check (the header and the replay: `Ladder._checked_task`) and
the store (`Ladder.commits`, a batch of one). Prints per result the wall time and this
process's CPU per step, and the database server's CPU (PostgreSQL: its processes' CPU from
/proc, Linux). With `--profile N`, the last N results run under cProfile and its 30 costliest
functions (own time) are printed. No HTTP: the load benchmark (`ladder_load.py`) measures that.
One result at a time shows the CPU each step needs, not the waits of a loaded server.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

STEPS = ("json", "read", "check", "store")


def server_cpu() -> float:
    """CPU seconds used so far by the processes named ``postgres`` (0 where there are none)."""
    found = subprocess.run(["pgrep", "-x", "postgres"], capture_output=True, text=True).stdout.split()
    total = 0
    for pid in found:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def measure(url: str, results: int, profiled: int) -> None:
    from ladder_load import fill

    from arena.ladder import accounts, leases
    from arena.ladder.config import decode_config
    from arena.ladder.db import connect
    from arena.ladder.service import Ladder

    _, played, token = fill(url, 50, 2000, results + profiled)
    ladder = Ladder(connect(url), decode_config({"ladder": {"deals_per_table": 20, "batch_games": 10}}, "bench"))
    ladder.warm_results()
    bodies = [(task, json.dumps(result).encode()) for task, result in played]
    authorization = f"Bearer {token}"
    wall = dict.fromkeys(STEPS, 0.0)
    cpu = dict.fromkeys(STEPS, 0.0)
    server_before = server_cpu()
    for task, body in bodies[:results]:
        marks = [(time.perf_counter(), time.process_time())]
        result = json.loads(body)
        marks.append((time.perf_counter(), time.process_time()))
        with ladder.single_reads.connect() as conn:
            row = leases.result_read(conn, accounts.bearer_digest(authorization), task)
        marks.append((time.perf_counter(), time.process_time()))
        checked = ladder._checked_task(accounts.caller_of(row), task, row, result)
        marks.append((time.perf_counter(), time.process_time()))
        ladder.commits.run(checked)
        marks.append((time.perf_counter(), time.process_time()))
        for step, (before, after) in zip(STEPS, zip(marks, marks[1:])):
            wall[step] += after[0] - before[0]
            cpu[step] += after[1] - before[1]
    server = server_cpu() - server_before

    def per_result(seconds: float) -> str:
        return f"{seconds / results * 1000:.3f}"

    print("  wall ms per result: " + ", ".join(f"{s} {per_result(wall[s])}" for s in STEPS)
          + f"; all {per_result(sum(wall.values()))}")
    print("  CPU ms per result:  " + ", ".join(f"{s} {per_result(cpu[s])}" for s in STEPS)
          + f"; all {per_result(sum(cpu.values()))}; the database server's {per_result(server)}", flush=True)
    if profiled:
        profile = cProfile.Profile()
        profile.enable()
        for task, body in bodies[results:]:
            ladder.complete_request(authorization, task, json.loads(body))
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
    ladder.engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--results", type=int, default=1000)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="profile N more results (cProfile)")
    args = parser.parse_args()
    from arena.ladder.db import database_url

    print(f"machine: load average {os.getloadavg()[0]:.1f}; {args.results} results, one at a time", flush=True)
    for kind in ["sqlite", "postgresql"] if args.db == "both" else [args.db]:
        print(f"[{kind}]", flush=True)
        with tempfile.TemporaryDirectory(prefix="ladder-cost-") as folder:
            if kind == "sqlite":
                measure(database_url(None, Path(folder)), args.results, args.profile)
                continue
            from ladder_support import PrivatePostgres, fresh_database

            private = PrivatePostgres()
            try:
                measure(database_url(fresh_database(private.start()), Path(folder)), args.results, args.profile)
            finally:
                private.stop()
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
