"""Tournament benchmark: quickstart games/s with 1 and N workers, and the time to rate
stored games.

    .venv/bin/python benchmarks/bench_tournament.py                  # both parts
    .venv/bin/python benchmarks/bench_tournament.py --skip-play --rate-games 100000

Play: runs the tournament file (default tournaments/quickstart.toml) from scratch
into a temporary folder with each worker count, and reports games/s, the
scaling factor, and the rating tail (the seconds spent rating after the last game
was stored: rating runs while the workers play, so it stays small).

Rating: synthesises a store of `--rate-games` 4-player games (8 entries, one
ruleset, random standings with some ties) and times rating all of them in
schedule order from the store (what `arena rank` does), per game and in total,
against the trueskill package alone on the same games.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import trueskill

from arena.plugins import load_registry
from arena.ratings import Rater
from arena.run_and_publish import run_and_publish
from arena.store import Store, StoredGame, encode
from arena.tournament import load_tournament


def _cpu_seconds() -> float:
    """CPU used by this process and its finished children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _machine_busy() -> float | None:
    """CPU seconds the whole machine has been busy (Linux), to tell how much others used."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return None
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def bench_play(path: Path, worker_counts: list[int]) -> None:
    registry = load_registry()
    tournament = load_tournament(path, registry)
    rates = {}
    for workers in worker_counts:
        with tempfile.TemporaryDirectory() as tmp:
            cpu, busy = _cpu_seconds(), _machine_busy()
            started = time.perf_counter()
            summary = run_and_publish(tournament, Path(tmp) / "out", workers=workers, progress=False,
                                      echo=lambda line: None)
            wall = time.perf_counter() - started
            cpu = _cpu_seconds() - cpu
            others = "" if busy is None else f"; other processes used {_machine_busy() - busy - cpu:.1f} CPU s meanwhile"
        assert summary.complete
        rates[workers] = summary.played / summary.play_seconds
        print(f"{path.name}: {summary.played} games, {workers} worker(s): play {summary.play_seconds:.2f} s "
              f"= {rates[workers]:.1f} games/s; rating tail after play {summary.rating_tail:.3f} s; "
              f"whole run incl. publish {wall:.2f} s; our CPU {cpu:.1f} s{others}")
    if len(rates) > 1:
        base = rates[worker_counts[0]]
        for workers in worker_counts[1:]:
            print(f"scaling {worker_counts[0]} -> {workers} workers: x{rates[workers] / base:.2f}")


def bench_rating(games: int, players: int = 4, entries: int = 8, seed: int = 1) -> dict[str, float]:
    """Prints the numbers; returns {games, seconds (rating from the store), trueskill_ms_per_game}."""
    rng = random.Random(seed)
    plan = {
        "name": "bench", "format": "round-robin", "deals": 1, "max_games": None, "total_games": games,
        "entries": [{"bot": f"bot-{i}", "uses": "random", "package": "p", "version": "1", "params": {}}
                    for i in range(entries)],
        "rulesets": [{"label": "four", "id": "four", "version": "1", "package": "p", "package_version": "1",
                      "players": players, "options": {}, "draw_probability": 0.1,
                      "entries": list(range(entries))}],
    }
    sequence = []
    for _ in range(games):
        seats = rng.sample(range(entries), players)
        scores = [rng.choice((0, 0, 1, 2, 3, 4, 5)) for _ in range(players)]
        standing = [1 + sum(1 for o in scores if o > s) for s in scores]
        sequence.append((seats, standing, scores))
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.create(Path(tmp) / "games.sqlite", {"plan": plan})
        started = time.perf_counter()
        chunk = 5000
        for start in range(0, games, chunk):
            store.add([StoredGame(i, 0, i, 0, 0, encode([seats, standing, scores, [0] * players]), "x" * 64,
                                  b'{"synthetic":true}')
                       for i, (seats, standing, scores) in enumerate(sequence[start:start + chunk], start)], run=1)
        print(f"synthesised {games:,} stored {players}-player games in {time.perf_counter() - started:.1f} s")

        started = time.perf_counter()
        rater = Rater(store.get("plan"))
        rater.drain(store, stop_at_gap=False)
        rater.standings()
        elapsed = time.perf_counter() - started
        print(f"rating {games:,} stored games from the store (one ruleset: per-ruleset = overall): "
              f"{elapsed:.1f} s = {elapsed / games * 1000:.3f} ms/game = {games / elapsed:,.0f} games/s")
        store.close()

    env = trueskill.TrueSkill(draw_probability=0.1)
    ratings = [env.create_rating() for _ in range(entries)]
    sample = sequence[: min(games, 20000)]
    started = time.perf_counter()
    for seats, standing, _ in sample:
        new = env.rate([(ratings[e],) for e in seats], ranks=standing)
        for seat, entry in enumerate(seats):
            ratings[entry] = new[seat][0]
    per_game = (time.perf_counter() - started) / len(sample)
    print(f"trueskill.rate alone: {per_game * 1000:.3f} ms per {players}-player game "
          f"(a tournament with several rulesets rates each game twice: its ruleset and overall)")
    return {"games": games, "seconds": elapsed, "trueskill_ms_per_game": per_game * 1000}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=Path(__file__).resolve().parents[1] / "tournaments" /
                        "quickstart.toml", help="tournament file to play (default: the quickstart)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to compare")
    parser.add_argument("--rate-games", type=int, default=100_000, help="stored games to rate")
    parser.add_argument("--skip-play", action="store_true")
    parser.add_argument("--skip-rating", action="store_true")
    args = parser.parse_args(argv)
    if not args.skip_play:
        bench_play(args.file, args.workers)
    if not args.skip_rating:
        bench_rating(args.rate_games)


if __name__ == "__main__":
    sys.exit(main())
