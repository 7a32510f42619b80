"""Luck-adjusted against raw scores on real games (issue 43 item 2): per-deal SD, mean, bias, cost.

Plays `--deals` deals of a two-entry table inline (each deal in both seatings, bot seeds
derived from the deal seed), then makes each game's luck corrections (`arena.luck`) and
prints, per pair, the raw and adjusted per-deal mean and SD, the SD's reduction, the mean
summed correction with its standard error (it must be 0 within it), and the time of the
games against the time of the corrections.

Usage::

    .venv/bin/python benchmarks/bench_luck.py flip-7 "flip7-threshold:threshold=23" \\
        "flip7-threshold:threshold=31" --deals 500 --clones 16

A ruleset that defines a value but does not declare it (UNO Flip, Flip Hue) is measured
with ``--declare``; ``--option key=json`` sets a ruleset option (repeatable)::

    .venv/bin/python benchmarks/bench_luck.py uno-flip uno-flip-heuristic random --declare \
        --option target_score=0 --deals 200
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

from arena.luck import DEFAULT_CLONES, adjusted_comparisons, game_corrections
from arena.match import Entrant, play_game
from arena.plugins import load_registry
from arena.seeding import bot_seed, derive_seed


def entrant(registry, text: str) -> Entrant:
    """``name[:key=int,...]`` -> an inline Entrant."""
    name, _, params = text.partition(":")
    kwargs = {}
    for item in filter(None, params.split(",")):
        key, _, value = item.partition("=")
        kwargs[key] = int(value)
    return Entrant(registry.bot(name).cls, kwargs, display=text)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--clones", type=int, default=DEFAULT_CLONES)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sampled", action="store_true", help="sample k clones even where outcomes can be enumerated")
    parser.add_argument("--declare", action="store_true",
                        help="declare the pairwise_value and permute_unrevealed the ruleset defines only")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=JSON", help="a ruleset option")
    args = parser.parse_args(argv)
    registry = load_registry()
    ruleset = registry.ruleset(args.ruleset).cls
    options = {key: json.loads(value) for key, _, value in (item.partition("=") for item in args.option)}
    if args.declare:
        ruleset = type(ruleset.__name__, (ruleset,),
                       {"capabilities": ruleset.capabilities | {"pairwise_value", "permute_unrevealed"}})
    if args.sampled:
        ruleset = type(ruleset.__name__, (ruleset,), {"unrevealed_is_draw_pile": False})
    a, b = entrant(registry, args.a), entrant(registry, args.b)
    raw, adjusted, sums = [], [], []
    game_time = luck_time = 0.0
    corrected = actions = 0
    for deal in range(args.deals):
        deal_seed = derive_seed(args.seed, "bench-luck", deal)
        raw_deal = adj_deal = 0.0
        for game, seats in enumerate(((a, b), (b, a))):
            started = time.perf_counter()
            result = play_game(ruleset, list(seats), deal_seed, options=options,
                               bot_seeds=[bot_seed(deal_seed, s, game) for s in range(2)])
            game_time += time.perf_counter() - started
            started = time.perf_counter()
            luck = game_corrections(ruleset, result.record, clones=args.clones)
            luck_time += time.perf_counter() - started
            corrected += luck.corrected
            actions += luck.actions
            ia, ib = (0, 1) if seats[0] is a else (1, 0)
            comparisons = adjusted_comparisons(result.record, luck.corrections)
            standing = result.record["outcome"]["standing"]
            raw_deal += 1.0 if standing[ia] < standing[ib] else 0.5 if standing[ia] == standing[ib] else 0.0
            adj_deal += comparisons[ia][ib]
            sums.append(luck.corrections[ia][ib])
        raw.append(raw_deal / 2)
        adjusted.append(adj_deal / 2)
    sd_raw, sd_adj = statistics.stdev(raw), statistics.stdev(adjusted)
    se = statistics.stdev(sums) / math.sqrt(len(sums))
    print(f"{args.ruleset} {options or ''} {args.a} against {args.b}, {args.deals} deals ({2 * args.deals} games), "
          f"k = {args.clones}{' sampled' if args.sampled else ''}:")
    print(f"  raw      mean {statistics.fmean(raw):.4f}  per-deal SD {sd_raw:.4f}")
    print(f"  adjusted mean {statistics.fmean(adjusted):.4f}  per-deal SD {sd_adj:.4f}  "
          f"({f'{100 * (1 - sd_adj / sd_raw):.1f}% lower' if sd_raw else 'raw SD 0'})")
    print(f"  mean summed correction per game {statistics.fmean(sums):+.4f} +- {se:.4f} (one standard error)")
    print(f"  games {1000 * game_time / (2 * args.deals):.2f} ms a game; corrections "
          f"{1000 * luck_time / (2 * args.deals):.2f} ms a game ({luck_time / game_time:.1f}x); "
          f"{corrected} of {actions} actions corrected")


if __name__ == "__main__":
    main()
