"""Ray backend benchmark: games/s of the local backend and of the Ray backend on this
machine, for the quickstart and for a large tournament, and Ray's overhead per game.

    .venv/bin/python benchmarks/bench_ray.py                       # quickstart + 21,000-game file
    .venv/bin/python benchmarks/bench_ray.py --skip-large --repeat 3
    .venv/bin/python benchmarks/bench_ray.py --large benchmarks/flip7_ray_large.toml --workers 2

For each file it runs the whole tournament from scratch into a temporary folder,
alternating local and Ray runs (`--repeat` pairs), and reports for each run:

- games/s over the play (first batch sent to last game stored) and over the whole
  `run_and_publish` call (store, rating tail and publication included); the Ray
  instance is started once before the first Ray run and that start is reported
  separately (an existing cluster is already up);
- CPU seconds per game: the run's own processes (driver, rating followers and, for
  local, the worker processes; for Ray, the actors) and, for Ray, its own system
  processes (raylet, GCS, ...), read from /proc: less disturbed than wall time on a
  machine that other work shares.

Ray's overhead per game is the difference (Ray - local) of wall time per game and
of CPU time per game; the per-task round trip of an empty batch is measured too.
The goal of issue 9: Ray within 10% of local on the large tournament.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arena.plugins import load_registry
from arena.run_and_publish import run_and_publish
from arena.runner import cpu_count, make_job
from arena.tournament import load_tournament

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    """CPU seconds of this process and its waited-for children (pool workers, followers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _proc_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / TICK  # utime + stime + cutime + cstime (waited children)


def _descendants(roots: list[int]) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = set(roots), list(roots)
    while todo:
        pid = todo.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                found.add(child)
                todo.append(child)
    return sorted(found)


def ray_system_pids() -> list[int]:
    """The local Ray instance's processes (GCS, raylet, ...) and their children, but not
    the driver: actors are counted separately (they are children of the raylet)."""
    import ray

    node = ray._private.worker._global_node
    roots = [info.process.pid for infos in node.all_processes.values() for info in infos]
    return [pid for pid in _descendants(roots) if pid != os.getpid()]


def machine_busy() -> float:
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / TICK


def make_measured_backend(workers: int):
    """A RayBackend that reads its actors' CPU time just before it stops them."""
    from arena.ray_backend import RayBackend

    class Measured(RayBackend):
        actor_cpu = 0.0

        def stop(self, abandon: bool = False) -> None:
            # the actors and their bot processes (isolation = "process"), still alive here
            self.actor_cpu = sum(_proc_cpu(pid) for pid in _descendants(self.pids()))
            super().stop(abandon)

    return Measured(workers)


def one_run(tournament, kind: str, workers: int, batch_size: int | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        backend = make_measured_backend(workers) if kind == "ray" else None
        system = ray_system_pids() if kind == "ray" else []
        system_before = {pid: _proc_cpu(pid) for pid in system}
        driver = resource.getrusage(resource.RUSAGE_SELF)
        cpu, busy = _own_cpu(), machine_busy()
        started = time.perf_counter()
        summary = run_and_publish(tournament, Path(tmp) / "out", workers=workers, progress=False,
                                  echo=lambda line: None, backend=backend, batch_size=batch_size)
        wall = time.perf_counter() - started
        own = _own_cpu() - cpu
        after = resource.getrusage(resource.RUSAGE_SELF)
        driver_cpu = after.ru_utime + after.ru_stime - driver.ru_utime - driver.ru_stime
        machine = machine_busy() - busy
        actors = set(_descendants(backend.pids())) if backend else set()  # an idle Ray worker may become an actor
        system_cpu = sum(_proc_cpu(pid) - before for pid, before in system_before.items() if pid not in actors)
        standings = json.loads((Path(tmp) / "out" / "standings.json").read_text())
    assert summary.complete, summary
    standings.pop("tournament")
    games = summary.played
    actor_cpu = backend.actor_cpu if backend else 0.0
    return {"kind": kind, "games": games, "play": summary.play_seconds, "wall": wall,
            "cpu_run": own + actor_cpu, "cpu_driver": driver_cpu, "cpu_system": system_cpu, "machine": machine,
            "retries": backend.retries if backend else 0, "standings": standings}


def task_overhead(tournament, calls: int) -> tuple[float, float]:
    """Microseconds per empty batch: one at a time (round trip) and 2 actors x 8 in flight."""
    import ray

    from arena.ray_backend import ArenaWorker

    job = make_job(tournament)
    actor_class = ray.remote(ArenaWorker).options(num_cpus=1)
    actors = [actor_class.remote(job) for _ in range(2)]
    ray.get([a.ready.remote() for a in actors])
    started = time.perf_counter()
    for _ in range(calls):
        ray.get(actors[0].play.remote([]))
    serial = (time.perf_counter() - started) / calls
    started = time.perf_counter()
    pending = []
    for i in range(calls):
        pending.append(actors[i % 2].play.remote([]).future())
        if len(pending) >= 16:
            pending.pop(0).result()
    for future in pending:
        future.result()
    pipelined = (time.perf_counter() - started) / calls
    for actor in actors:
        ray.kill(actor)
    return serial * 1e6, pipelined * 1e6


def bench_file(path: Path, workers: int, repeat: int, batch_size: int | None) -> dict:
    tournament = load_tournament(path, load_registry())
    runs: dict[str, list[dict]] = {"local": [], "ray": []}
    for _ in range(repeat):
        for kind in ("local", "ray"):
            load = os.getloadavg()[0]
            r = one_run(tournament, kind, workers, batch_size)
            r["load"] = load
            runs[kind].append(r)
            others = r["machine"] - r["cpu_run"] - r["cpu_system"]
            print(f"  {path.name} {kind:5}: {r['games']:,} games, play {r['play']:.1f} s = "
                  f"{r['games'] / r['play']:.1f} games/s (whole run {r['games'] / r['wall']:.1f} games/s); "
                  f"CPU/game {1000 * r['cpu_run'] / r['games']:.2f} ms "
                  f"(driver {1000 * r['cpu_driver'] / r['games']:.2f})"
                  + (f" + Ray system {1000 * r['cpu_system'] / r['games']:.2f} ms" if kind == "ray" else "")
                  + f"; retries {r['retries']}; load avg {load:.1f}, other processes used "
                    f"{others:.0f} CPU s meanwhile", flush=True)
    same = all(r["standings"] == runs["local"][0]["standings"] for rs in runs.values() for r in rs)
    result = {}
    for kind, rs in runs.items():
        result[kind] = {
            "games_per_s": max(r["games"] / r["play"] for r in rs),
            "games_per_s_whole": max(r["games"] / r["wall"] for r in rs),
            "cpu_ms": statistics.median(1000 * r["cpu_run"] / r["games"] for r in rs),
            "cpu_system_ms": statistics.median(1000 * r["cpu_system"] / r["games"] for r in rs),
        }
    local, ray_ = result["local"], result["ray"]
    wall_overhead = 1000 / ray_["games_per_s"] - 1000 / local["games_per_s"]
    cpu_overhead = ray_["cpu_ms"] + ray_["cpu_system_ms"] - local["cpu_ms"]
    print(f"{path.name}: best of {repeat}: local {local['games_per_s']:.1f} games/s, Ray {ray_['games_per_s']:.1f} "
          f"games/s = {100 * ray_['games_per_s'] / local['games_per_s']:.1f}% of local "
          f"(whole run: {local['games_per_s_whole']:.1f} vs {ray_['games_per_s_whole']:.1f}); Ray overhead per game: "
          f"{wall_overhead:+.3f} ms wall with {workers} workers, {cpu_overhead:+.3f} ms CPU "
          f"(Ray system processes {ray_['cpu_system_ms']:.3f} ms); identical standings: {same}")
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quickstart", type=Path, default=ROOT / "tournaments" / "quickstart.toml")
    parser.add_argument("--large", type=Path, default=ROOT / "benchmarks" / "flip7_ray_large.toml")
    parser.add_argument("--workers", type=int, default=cpu_count(), help="workers for both backends")
    parser.add_argument("--repeat", type=int, default=1, help="local/Ray pairs per file (best is reported)")
    parser.add_argument("--batch-size", type=int, default=None, help="fixed batch size (default: adaptive)")
    parser.add_argument("--overhead-calls", type=int, default=2000, help="empty batches for the per-task cost")
    parser.add_argument("--skip-quickstart", action="store_true")
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args(argv)
    try:
        import ray
    except ImportError:
        sys.exit("bench_ray needs Ray: pip install 'flip-arena[ray]'")

    print(f"{cpu_count()} cores, {args.workers} workers, Ray {ray.__version__}, Python {sys.version.split()[0]}")
    started = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, logging_level="warning")
    print(f"starting a local Ray instance: {time.perf_counter() - started:.1f} s (once; not in the rates below)")
    try:
        quick = load_tournament(args.quickstart, load_registry())
        serial, pipelined = task_overhead(quick, args.overhead_calls)
        print(f"Ray per-task cost (empty batch): {serial:.0f} us round trip, {pipelined:.0f} us pipelined")
        if not args.skip_quickstart:
            bench_file(args.quickstart, args.workers, args.repeat, args.batch_size)
        if not args.skip_large:
            bench_file(args.large, args.workers, args.repeat, args.batch_size)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
