"""How much of the play_game loop builds observations, by taking parts away (and by cProfile).

    .venv/bin/python benchmarks/observation_share.py                     # every ruleset
    .venv/bin/python benchmarks/observation_share.py uno-flip --rounds 5 --peer .venv/bin/python

4 random bots through `arena.match.play_game` (UNO Flip: single rounds), CPU us a
decision. Each round times, interleaved and in alternating order, the loop as it is and
the loop with a part of the observation replaced by a stand-in that costs nothing; the
medians' differences are the parts' shares (a random bot reads only the legal actions, so
the games are the same in every variant):

- full: as shipped;
- no hands: `TwoFacedTable.hands_view` returns empty hands (UNO Flip, Color Flush, Flip Hue);
- shared cards: `hands_view` hands out the table's own card-view dicts instead of fresh
  copies, as a view of shared immutable card values would (what item 1's "share immutable
  card views" buys at most; it breaks the contract that every object handed out is fresh);
- no view: the state's `view` returns {};
- no events: `take_events` drops the seat's events;
- no observation: both (what is left: engine, legal actions, the harness, the bot).

``--hands-floor`` instead times, in one position, today's view of UNO Flip's hands against
an ideal incremental cache and against shared rows (`hands_floor`).

``--peer PYTHON`` (UNO Flip) also times RLCard's UNO once a round and prints how many
times faster than it each variant is: what each change to the observation would buy
against the issue-42 goal.

``--profile`` also prints cProfile's figure for the same loop: the cumulative time of the
state's `view` and `take_events` as a share of the whole (cProfile weighs Python calls
more than the loop does, so it reads higher than the ablation).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import statistics
import subprocess
import time
import timeit
from pathlib import Path
from typing import Any, Callable

from arena.match import Entrant, play_game
from arena.plugins import load_registry
from arena.rules.cards import TwoFacedTable
from arena_bots.random_bot import RandomBot

RULESETS = ("flip-7", "uno-flip", "color-flush", "flip-hue")
OPTIONS = {"uno-flip": {"target_score": 0}}
GAMES = {"flip-7": 40, "uno-flip": 60, "color-flush": 30, "flip-hue": 15}


def play(ruleset: type, games: int, options: Any) -> int:
    """Play `games` 4-random-bot games from seed 0; the number of decisions."""
    entrants = [Entrant(RandomBot)] * 4
    return sum(len(play_game(ruleset, entrants, seed, options=options).record["decisions"])
               for seed in range(games))


def _shared_hands(table: TwoFacedTable, viewer: int) -> list[list[dict[str, str | None]]]:
    views = table._view_table if table._view_faces is table.faces else table._build_views()
    side, seen = table.side, table.seen
    shift = 2 * viewer
    return [[views[card][side[card]][seen[card] >> shift & 3] for card in hand] for hand in table.hands]


def peer(python: str, games: int) -> float:
    """RLCard's UNO per decision, us of CPU (peer_rlcard_uno.py run by `python`)."""
    done = subprocess.run([python, str(Path(__file__).parent / "peer_rlcard_uno.py"), "--games", str(games),
                           "--players", "4"], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return 1e6 * result["cpu"] / result["decisions"]


def variants(state_class: type, two_faced: bool) -> dict[str, Callable[[], None]]:
    """Name -> a function that installs the variant (each first restores the originals)."""
    view, take_events, hands_view = state_class.view, state_class.take_events, TwoFacedTable.hands_view

    def restore() -> None:
        state_class.view, state_class.take_events, TwoFacedTable.hands_view = view, take_events, hands_view

    def drop_events(self: Any, seat: int) -> list:
        self._pending[seat] = []
        return []

    def no_view() -> None:
        restore()
        state_class.view = lambda self, seat: {}

    def no_events() -> None:
        restore()
        state_class.take_events = drop_events

    def no_observation() -> None:
        no_view()
        state_class.take_events = drop_events

    def no_hands() -> None:
        restore()
        TwoFacedTable.hands_view = lambda self, viewer: [[] for _ in self.hands]   # a view may index it

    def shared_cards() -> None:
        restore()
        TwoFacedTable.hands_view = _shared_hands

    found = {"full": restore, "no view": no_view, "no events": no_events, "no observation": no_observation}
    if two_faced:
        found.update({"no hands": no_hands, "shared cards": shared_cards})
    return found


def hands_floor(samples: int = 300) -> None:
    """What a view of UNO Flip's hands could cost at best, in one position (35 cards in hands):
    today's `hands_view` against an ideal incremental cache (per-viewer card views or rows of
    them kept up to date for free, handed out as fresh copies, as the contract asks) and
    against shared rows (no card copies: a contract change). Min of `samples` CPU timings
    of 200 calls each, variants alternating, so a loaded machine disturbs it little."""
    ruleset = load_registry().ruleset("uno-flip").cls
    state = ruleset.new_game(4, ruleset.resolve_options({"target_score": 0}), random.Random(5))
    rng = random.Random(5)
    table = state.table
    while sum(map(len, table.hands)) < 35:
        state.apply(rng.choice(state.legal_actions()))
    table.hands_view(0)
    views, side, seen = table._view_table, table.side, table.seen
    known = [views[card][side[card]][seen[card] & 3] for card in range(len(table.faces))]
    get, copy, hands = known.__getitem__, dict.copy, table.hands
    rows = [list(map(get, hand)) for hand in hands]
    found: dict[str, Callable[[], Any]] = {
        "today's hands_view": lambda: table.hands_view(0),
        "kept card views, gathered and copied": lambda: [list(map(copy, map(get, hand))) for hand in hands],
        "kept rows, copied": lambda: [list(map(copy, row)) for row in rows],
        "shared rows (no card copies)": lambda: [row.copy() for row in rows],
    }
    assert all(make() == table.hands_view(0) for make in found.values())
    best = dict.fromkeys(found, float("inf"))
    for sample in range(samples):
        for name in (list(found) if sample % 2 == 0 else list(found)[::-1]):
            timer = timeit.Timer(found[name], timer=time.process_time)
            best[name] = min(best[name], 1e6 * timer.timeit(number=200) / 200)
    print(f"uno-flip hands_view for seat 0, {sum(map(len, hands))} cards in hands, min of {samples} timings:")
    for name, value in best.items():
        print(f"  {name:<40}{value:6.2f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("rulesets", nargs="*", default=list(RULESETS))
    parser.add_argument("--games", type=int, help="games a timing (default: about a second's worth)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="also print cProfile's figure")
    parser.add_argument("--hands-floor", action="store_true",
                        help="instead: what a view of UNO Flip's hands could cost at best (hands_floor)")
    parser.add_argument("--peer", metavar="PYTHON", help="a Python with rlcard: UNO Flip's variants are also "
                        "set against RLCard's UNO (peer_rlcard_uno.py, 4 players), timed once a round")
    args = parser.parse_args()
    if args.hands_floor:
        hands_floor()
        return
    registry = load_registry()
    for rid in args.rulesets:
        ruleset = registry.ruleset(rid).cls
        games, options = args.games or GAMES[rid], OPTIONS.get(rid)
        sample = ruleset.new_game(4, ruleset.resolve_options(options), random.Random(0))
        found = variants(type(sample), isinstance(getattr(sample, "table", None), TwoFacedTable))
        times: dict[str, list[float]] = {name: [] for name in found}
        counts = set()
        try:
            play(ruleset, max(1, games // 10), options)   # warm up
            for round_ in range(args.rounds):
                if args.peer and rid == "uno-flip":
                    times.setdefault("RLCard", []).append(peer(args.peer, 150))
                for name in (list(found) if round_ % 2 == 0 else list(found)[::-1]):
                    found[name]()
                    start = time.process_time()
                    decisions = play(ruleset, games, options)
                    times[name].append(1e6 * (time.process_time() - start) / decisions)
                    counts.add(decisions)
        finally:
            found["full"]()
        assert len(counts) == 1, f"the variants played different games: {sorted(counts)}"
        median = {name: statistics.median(values) for name, values in times.items()}
        full = median["full"]
        print(f"{rid}: {full:.2f} us a decision ({counts.pop()} decisions, {games} games, "
              f"median of {args.rounds} interleaved rounds)")
        theirs = median.pop("RLCard", None)
        for name, value in median.items():
            against = f"   {theirs / value:.2f}x RLCard's {theirs:.2f} us" if theirs else ""
            share = f"   {100 * (full - value) / full:5.1f}% of the loop" if name != "full" else " " * 22
            print(f"  {name:<15}{value:8.2f} us{share}{against}")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(play, ruleset, games, options)
            stats = pstats.Stats(profiler).stats   # type: ignore[attr-defined]
            total = max(entry[3] for entry in stats.values())
            cumulative = {name: sum(entry[3] for (path, _, function), entry in stats.items()
                                    if function == name and "/rules/" in path)
                          for name in ("view", "take_events")}
            print(f"  cProfile: view {100 * cumulative['view'] / total:.1f}% + take_events "
                  f"{100 * cumulative['take_events'] / total:.1f}% of play_game's cumulative time")


if __name__ == "__main__":
    main()
