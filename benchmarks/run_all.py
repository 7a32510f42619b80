"""The benchmark suite, in one command: prints a table and writes benchmarks/results.json.

    .venv/bin/python benchmarks/run_all.py               # ~5 minutes on 2 cores
    .venv/bin/python benchmarks/run_all.py --reps 5 --seconds 2
    .venv/bin/python benchmarks/run_all.py --quick       # a smoke run

What it measures (every figure is the median over --reps repetitions):

- Per ruleset, 4 random bots, one core, in-process bots: games/s, decisions/s and
  microseconds per decision. A decision is one entry of the record's `decisions`
  (one action applied); the bot is asked (and its observation built: options,
  view, events, legal actions) for every decision with more than one legal
  action. Each measurement runs in a fresh subprocess that plays games from seed 0
  up for --seconds, so its peak RSS (ru_maxrss) is that of the measurement alone;
  the RSS after imports is reported too. Times are CPU seconds of that process
  (robust to other load on the machine); wall-clock figures are in the JSON.
- The same with process isolation (each bot in its own process, 4 per worker),
  2 workers, against inline bots with 2 workers: games/s, and the added cost per
  decision at full load = 2 workers / (decisions/game) x (1/rate_process -
  1/rate_inline). Plus one act() round trip, inline vs process, per ruleset.
- Tournament throughput with 1 and 2 workers (the quickstart file with --deals
  deals per table, process isolation), the scaling factor, and store bytes per
  game (games.sqlite after the run / games stored, and the mean record size).
- Rating time per 100,000 games: --rate-games stored games rated from the store
  (benchmarks/bench_tournament.py), scaled to 100,000 when fewer (labelled).
- Driver memory for a 1,000,000-game schedule: peak RSS of a fresh process that
  plans it the way `arena run` does (schedule, done-bitmap, the lazy generator of
  pending games) and walks it to the end, against a 10,000-game one.
- The peer: RLCard's UNO environment with random agents (benchmarks/peer_rlcard_uno.py,
  run with benchmarks/.peer-venv/bin/python), counted the same way; the ratio
  of our UNO Flip us/decision to RLCard UNO's. Also UNO Flip with random bots that play
  a card whenever they can: RLCard's UNO makes "draw" legal only when no card can be
  played, so its random games are short with small hands, while uniform random UNO Flip
  bots draw by choice (35 cards in the view of an asked decision, against 21 when they
  play when able). Measured: both cost the same per decision (the smaller views are
  offset by a larger share of asked decisions), so hand size does not explain the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RULESETS = ("flip-7", "uno-flip", "color-flush", "flip-hue")
PEER_PYTHON = HERE / ".peer-venv" / "bin" / "python"


def _rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _child(argv: list[str]) -> dict:
    """Run this script in a fresh interpreter with `argv`; its one JSON line."""
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), *argv], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- children (each a fresh process) --------------------------------------------------


def child_inline(ruleset_id: str, seconds: float, players: int, policy: str = "random") -> dict:
    """Play 4-random-bot games from seed 0 up for `seconds` of CPU time (`policy`
    "plays-when-able": UNO Flip bots that draw only when they cannot play, see below)."""
    from arena.match import Entrant, play_game
    from arena.plugins import load_registry
    from arena_bots.random_bot import RandomBot

    ruleset = load_registry().ruleset(ruleset_id).cls
    entrants = [Entrant(RandomBot if policy == "random" else _plays_when_able())] * players
    for seed in range(3):  # warm up (imports, deck tables)
        play_game(ruleset, entrants, 10_000_000 + seed)
    rss_before = _rss_kb()
    games = decisions = 0
    cpu, wall = time.process_time(), time.perf_counter()
    while True:
        decisions += len(play_game(ruleset, entrants, games).record["decisions"])
        games += 1
        if games >= 5 and time.process_time() - cpu >= seconds:
            break
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"games": games, "decisions": decisions, "cpu": cpu, "wall": wall,
            "rss_after_imports_kb": rss_before, "peak_rss_kb": _rss_kb()}


def _plays_when_able() -> type:
    """A random UNO Flip bot that, like RLCard's UNO (where "draw" is legal only when no
    card can be played), plays a uniformly chosen playable card when it has one and
    otherwise picks uniformly."""
    import arena

    class PlaysWhenAble(arena.Bot):
        name = "plays-when-able"
        rulesets = ("uno-flip",)

        def act(self, observation):
            legal = observation["legal_actions"]
            plays = [action for action in legal if action.startswith("play")]
            return self.rng.choice(plays or legal)

    return PlaysWhenAble


def child_schedule(games: int) -> dict:
    """Plan a tournament of about `games` games as `arena run` does and walk its pending games."""
    from arena.plugins import load_registry
    from arena.tournament import parse_tournament

    text = (ROOT / "tournaments" / "quickstart.toml").read_text()
    per_deal = 21  # quickstart: 7 tables x 3 rotations (flip-7), 3 + 3 + 3 for the others, per deal
    deals = max(1, round(games / per_deal))
    text = text.replace("deals = 20 ", f"deals = {deals} ", 1)
    tournament = parse_tournament(text, load_registry())
    rss_before = _rss_kb()
    started = time.perf_counter()
    schedule = tournament.schedule(tournament.seed)
    total = schedule.total
    done = bytearray((total + 7) // 8)  # Store.done_mask of an empty store
    pending = (spec for spec in schedule if not done[spec.index >> 3] >> (spec.index & 7) & 1)
    count = sum(1 for _ in pending)
    return {"games": total, "walked": count, "seconds": time.perf_counter() - started,
            "rss_after_imports_kb": rss_before, "peak_rss_kb": _rss_kb()}


# -- measurements in this process ------------------------------------------------------


def warm_worker(job: tuple[str, str, list[int]]) -> tuple[int, float]:
    """Play `seeds` with 4 random bots, inline or each in its own process, after one
    warm-up game (process start-up is a once-per-tournament cost, not per decision);
    return (decisions, seconds)."""
    from arena.match import Entrant, FaultPolicy, play_game
    from arena.plugins import load_registry
    from arena.seats import InlineHost, Limits, ProcessHost
    from arena_bots.random_bot import RandomBot

    ruleset_id, mode, seeds = job
    ruleset = load_registry().ruleset(ruleset_id).cls
    hosts = ([ProcessHost.for_bot("random", Limits()) for _ in range(4)] if mode == "process"
             else [InlineHost(RandomBot) for _ in range(4)])
    policy = FaultPolicy(on_fault="random", time_per_decision=1.0, time_bank=10.0)
    try:
        play_game(ruleset, [Entrant(RandomBot)] * 4, deal_seed=10_000_000, hosts=hosts, policy=policy)
        started, decisions = time.perf_counter(), 0
        for seed in seeds:
            decisions += len(play_game(ruleset, [Entrant(RandomBot)] * 4, deal_seed=seed, hosts=hosts,
                                       policy=policy).record["decisions"])
        return decisions, time.perf_counter() - started
    finally:
        for host in hosts:
            host.close()


def two_workers(ruleset_id: str, mode: str, games: int) -> tuple[float, float]:
    """games/s and decisions/game of `games` games on 2 worker processes (warm hosts)."""
    import multiprocessing

    seeds = list(range(games))
    with multiprocessing.Pool(2) as pool:
        parts = pool.map(warm_worker, [(ruleset_id, mode, seeds[i::2]) for i in range(2)])
    return games / max(seconds for _, seconds in parts), sum(d for d, _ in parts) / games


def isolation(ruleset_id: str, games: int, acts: int) -> dict:
    from bench_isolation import sample_observation, time_acts

    from arena.plugins import load_registry
    from arena.seats import InlineHost, Limits, ProcessHost
    from arena_bots.random_bot import RandomBot

    ruleset = load_registry().ruleset(ruleset_id).cls
    observation = sample_observation(ruleset)
    inline_rt = time_acts(InlineHost(RandomBot), observation, acts)
    host = ProcessHost.for_bot("random", Limits())
    try:
        process_rt = time_acts(host, observation, acts)
    finally:
        host.close()
    inline_rate, per_game = two_workers(ruleset_id, "inline", games)
    process_rate, _ = two_workers(ruleset_id, "process", games)
    added = 2 / per_game * (1 / process_rate - 1 / inline_rate) * 1e6
    return {"roundtrip_inline_us": inline_rt, "roundtrip_process_us": process_rt,
            "roundtrip_added_us": process_rt - inline_rt, "games_per_s_inline_2w": inline_rate,
            "games_per_s_process_2w": process_rate, "decisions_per_game": per_game,
            "added_us_per_decision_full_load": added}


def tournament(deals: int, workers: int) -> dict:
    from arena.plugins import load_registry
    from arena.run_and_publish import run_and_publish
    from arena.store import Store
    from arena.tournament import parse_tournament

    text = (ROOT / "tournaments" / "quickstart.toml").read_text().replace("deals = 20 ", f"deals = {deals} ", 1)
    parsed = parse_tournament(text, load_registry())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        summary = run_and_publish(parsed, out, workers=workers, progress=False, echo=lambda line: None)
        assert summary.complete
        path = out / "games.sqlite"
        with Store.open(path) as store:
            count = store.count()
            record_bytes, result_bytes = store.db.execute(
                "SELECT AVG(LENGTH(record)), AVG(LENGTH(result)) FROM games").fetchone()
            decisions = sum(len(store.record(i)["decisions"]) for i in range(0, count, max(1, count // 50)))
            sampled = len(range(0, count, max(1, count // 50)))
        size = sum(os.path.getsize(f"{path}{suffix}") for suffix in ("", "-wal") if os.path.exists(f"{path}{suffix}"))
    return {"workers": workers, "games": summary.played, "play_seconds": summary.play_seconds,
            "games_per_s": summary.played / summary.play_seconds, "store_bytes": size,
            "store_bytes_per_game": size / count, "record_bytes_per_game": record_bytes,
            "result_bytes_per_game": result_bytes, "decisions_per_game_sampled": decisions / sampled}


def rating(games: int) -> dict:
    from bench_tournament import bench_rating

    result = bench_rating(games)
    result["seconds_per_100k"] = result["seconds"] * 100_000 / games
    result["extrapolated"] = games != 100_000
    return result


def peer(seconds: float, players: int) -> dict | None:
    if not PEER_PYTHON.exists():
        return None
    games = 50
    while True:  # size the run to about `seconds`
        out = subprocess.run([str(PEER_PYTHON), str(HERE / "peer_rlcard_uno.py"), "--games", str(games),
                              "--players", str(players)], capture_output=True, text=True, check=True)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        if result["cpu"] >= seconds * 0.7 or games > 1_000_000:
            return result
        games = int(games * seconds / max(result["cpu"], 0.01) * 1.05) + 1


# -- the run -------------------------------------------------------------------------------


def median_of(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each measurement (medians reported)")
    parser.add_argument("--seconds", type=float, default=1.5, help="CPU seconds per single-core measurement")
    parser.add_argument("--iso-games", type=int, default=0, help="games per isolation measurement (0: per ruleset)")
    parser.add_argument("--acts", type=int, default=5000, help="act() round trips per isolation measurement")
    parser.add_argument("--deals", type=int, default=10, help="quickstart deals per table for the tournament runs")
    parser.add_argument("--rate-games", type=int, default=20_000, help="stored games to rate (scaled to 100,000)")
    parser.add_argument("--schedule-games", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 rep, small sizes")
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        kind, *rest = args.child
        if kind == "inline":
            result = child_inline(rest[0], float(rest[1]), int(rest[2]), *rest[3:])
        else:
            result = child_schedule(int(rest[0]))
        print(json.dumps(result))
        return

    if args.quick:
        args.reps, args.seconds, args.acts, args.deals, args.rate_games = 1, 0.5, 1000, 2, 5000
        args.schedule_games = 100_000
    sys.path.insert(0, str(HERE))
    iso_games = {"flip-7": 200, "uno-flip": 16, "color-flush": 100, "flip-hue": 30}
    if args.iso_games:
        iso_games = dict.fromkeys(RULESETS, args.iso_games)
    if args.quick:
        iso_games = {k: max(4, v // 4) for k, v in iso_games.items()}

    results: dict = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                                 "platform": platform.platform()},
                     "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
                     "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "load_average_at_start": os.getloadavg()}

    print(f"benchmarks: {args.reps} repetition(s), medians; CPU seconds of the measuring process; "
          f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    single: dict = {}
    for ruleset_id in RULESETS:
        runs = [_child(["--child", "inline", ruleset_id, str(args.seconds), "4"]) for _ in range(args.reps)]
        for run in runs:
            run["us_per_decision"] = run["cpu"] / run["decisions"] * 1e6
            run["games_per_s"] = run["games"] / run["cpu"]
            run["decisions_per_s"] = run["decisions"] / run["cpu"]
        single[ruleset_id] = {"runs": runs, **{key: median_of(runs, key) for key in (
            "games_per_s", "decisions_per_s", "us_per_decision", "peak_rss_kb", "rss_after_imports_kb")}}
        s = single[ruleset_id]
        print(f"  {ruleset_id:12s} {s['games_per_s']:9.1f} games/s {s['decisions_per_s']:9.0f} decisions/s "
              f"{s['us_per_decision']:7.2f} us/decision  peak RSS {s['peak_rss_kb'] / 1024:.1f} MiB "
              f"(after imports {s['rss_after_imports_kb'] / 1024:.1f})", flush=True)
    results["single_core_inline"] = single

    # The peer, interleaved with our UNO Flip so that both see the same load: the
    # ratio is taken per repetition, and its median reported.
    peers: dict = {}
    pairs = []
    for _ in range(args.reps):
        ours = _child(["--child", "inline", "uno-flip", str(args.seconds), "4"])
        able = _child(["--child", "inline", "uno-flip", str(args.seconds), "4", "plays-when-able"])
        theirs = {players: peer(args.seconds, players) for players in (4, 2)}
        if theirs[4] is None:
            print("  peer: benchmarks/.peer-venv missing (python -m venv benchmarks/.peer-venv && "
                  "benchmarks/.peer-venv/bin/pip install rlcard)")
            break
        ours_us = ours["cpu"] / ours["decisions"] * 1e6
        able_us = able["cpu"] / able["decisions"] * 1e6
        for players, run in theirs.items():
            run["us_per_decision"] = run["cpu"] / run["decisions"] * 1e6
            peers.setdefault(players, []).append(run)
        pairs.append({"uno_flip_us": ours_us, "rlcard_4p_us": theirs[4]["us_per_decision"],
                      "rlcard_2p_us": theirs[2]["us_per_decision"],
                      "ratio_4p": ours_us / theirs[4]["us_per_decision"],
                      "ratio_2p": ours_us / theirs[2]["us_per_decision"],
                      "uno_flip_plays_when_able_us": able_us,
                      "ratio_plays_when_able_4p": able_us / theirs[4]["us_per_decision"]})
    if pairs:
        summary = {key: median_of(pairs, key) for key in pairs[0]}
        results["peer_rlcard_uno"] = {
            "pairs": pairs, **summary, "goal": "ratio <= 1/3",
            "players": {str(k): {"runs": v, "us_per_decision": median_of(v, "us_per_decision"),
                                 "decisions_per_game": v[0]["decisions"] / v[0]["games"]}
                        for k, v in peers.items()},
            "rlcard": peers[4][0]["rlcard"]}
        for players in (4, 2):
            print(f"  rlcard-uno {players}p {summary[f'rlcard_{players}p_us']:7.2f} us/decision "
                  f"({peers[players][0]['decisions'] / peers[players][0]['games']:.0f} decisions/game, "
                  f"rlcard {peers[4][0]['rlcard']}); uno-flip alongside {summary['uno_flip_us']:.2f}", flush=True)
        print(f"  ratio uno-flip / rlcard-uno, median of interleaved pairs: 4 players {summary['ratio_4p']:.2f}, "
              f"2 players {summary['ratio_2p']:.2f} (goal <= 0.33)", flush=True)
        print(f"  uno-flip with bots that play when they can (draw only when stuck, as RLCard's rules force): "
              f"{summary['uno_flip_plays_when_able_us']:.2f} us/decision, "
              f"ratio to rlcard-uno 4p {summary['ratio_plays_when_able_4p']:.2f}", flush=True)

    iso: dict = {}
    for ruleset_id in RULESETS:
        runs = [isolation(ruleset_id, iso_games[ruleset_id], args.acts) for _ in range(args.reps)]
        iso[ruleset_id] = {"runs": runs, **{key: median_of(runs, key) for key in runs[0]}}
        r = iso[ruleset_id]
        print(f"  isolation {ruleset_id:12s} round trip {r['roundtrip_inline_us']:6.1f} -> "
              f"{r['roundtrip_process_us']:6.1f} us (+{r['roundtrip_added_us']:.1f}); 2 workers "
              f"{r['games_per_s_inline_2w']:7.1f} -> {r['games_per_s_process_2w']:7.1f} games/s; added at full "
              f"load {r['added_us_per_decision_full_load']:6.1f} us/decision (goal <= 50)", flush=True)
    results["isolation"] = iso

    tour: dict = {1: [], 2: []}
    for _ in range(args.reps):  # interleaved, so that both worker counts see the same load
        for workers in (1, 2):
            tour[workers].append(tournament(args.deals, workers))
    for workers in (1, 2):
        runs = tour[workers]
        tour[workers] = {"runs": runs, **{key: median_of(runs, key) for key in runs[0]}}
        t = tour[workers]
        print(f"  tournament quickstart deals={args.deals} ({t['games']:.0f} games), {workers} worker(s): "
              f"{t['games_per_s']:7.1f} games/s; store {t['store_bytes_per_game']:.0f} bytes/game "
              f"(record column {t['record_bytes_per_game']:.0f})", flush=True)
    scaling = statistics.median(two["games_per_s"] / one["games_per_s"]
                                for one, two in zip(tour[1]["runs"], tour[2]["runs"]))
    print(f"  tournament scaling 1 -> 2 workers, median of interleaved pairs: x{scaling:.2f} (goal >= 1.8)")
    results["tournament"] = {"workers": {str(k): v for k, v in tour.items()}, "scaling_2_over_1": scaling}

    rate = rating(args.rate_games)
    label = f"extrapolated from {args.rate_games:,}" if rate["extrapolated"] else "measured"
    print(f"  rating: {rate['seconds_per_100k']:.1f} s per 100,000 games ({label})", flush=True)
    results["rating"] = rate

    small = _child(["--child", "schedule", "10000"])
    big = _child(["--child", "schedule", str(args.schedule_games)])
    print(f"  driver memory: schedule of {small['games']:,} games peak RSS {small['peak_rss_kb'] / 1024:.1f} MiB; "
          f"{big['games']:,} games {big['peak_rss_kb'] / 1024:.1f} MiB (walked in {big['seconds']:.1f} s)")
    results["driver_memory"] = {"small": small, "big": big}

    results["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    results["load_average_at_end"] = os.getloadavg()
    args.out.write_text(json.dumps(results, indent=1, default=str) + "\n")
    print_table(results)
    print(f"wrote {args.out}")


def print_table(results: dict) -> None:
    single, iso = results["single_core_inline"], results["isolation"]
    peer_us = results.get("peer_rlcard_uno", {}).get("rlcard_4p_us")
    print()
    header = (f"{'ruleset':14s}{'games/s':>9s}{'dec/s':>9s}{'us/dec':>8s}{'xRLCard':>8s}{'peakMiB':>8s}"
              f"{'iso+us':>8s}{'g/s in2w':>9s}{'g/s pr2w':>9s}")
    print(header)
    print("-" * len(header))
    for ruleset_id in RULESETS:
        s, r = single[ruleset_id], iso[ruleset_id]
        ratio = f"{s['us_per_decision'] / peer_us:.2f}" if peer_us else "-"
        if ruleset_id == "uno-flip" and peer_us:
            ratio = f"{results['peer_rlcard_uno']['ratio_4p']:.2f}"  # the interleaved pairs' median
        print(f"{ruleset_id:14s}{s['games_per_s']:9.1f}{s['decisions_per_s']:9.0f}{s['us_per_decision']:8.2f}"
              f"{ratio:>8s}{s['peak_rss_kb'] / 1024:8.1f}{r['added_us_per_decision_full_load']:8.1f}"
              f"{r['games_per_s_inline_2w']:9.1f}{r['games_per_s_process_2w']:9.1f}")
    if peer_us:
        print(f"{'rlcard-uno 4p':14s}{'':9s}{1e6 / peer_us:9.0f}{peer_us:8.2f}{1.0:8.2f}")
    t = results["tournament"]
    print(f"tournament games/s: 1 worker {t['workers']['1']['games_per_s']:.1f}, 2 workers "
          f"{t['workers']['2']['games_per_s']:.1f} (x{t['scaling_2_over_1']:.2f}); store "
          f"{t['workers']['2']['store_bytes_per_game']:.0f} bytes/game; rating "
          f"{results['rating']['seconds_per_100k']:.1f} s/100k games; driver peak RSS "
          f"{results['driver_memory']['big']['peak_rss_kb'] / 1024:.1f} MiB for "
          f"{results['driver_memory']['big']['games']:,} games")


if __name__ == "__main__":
    main()
