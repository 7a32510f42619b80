"""Calibration and efficiency of a tournament's `stop`, measured on real games (issue 19 item 8).

Every run is a real `arena.runner.run_tournament` of a two-entry Flip 7 tournament (two
players, inline `flip7-threshold` bots, fast), its seed the run's number, its verdict read
from the last look recorded in its store; nothing here is simulated. Modes:

- ``measure A B --deals N``: one long fixed run of threshold A against B: the mean paired
  score of A against B over N deals, its 95% interval, and the deal-score sd;
- ``null 0 --runs R``: two copies of the random bot (0; a threshold bot is deterministic, so
  two copies of it tie every deal), R runs of ``stop = "settled"``: how many
  runs wrongly separate them (the error rate the settled stop promises: 1 - confidence);
- ``gap A B --runs R``: R runs of ``stop = "settled"`` on a pair with a known gap: how many
  separate them in the right order (A first, if A is the better one);
- ``sprt A B --runs R --margin M``: R runs of the SPRT of A against B (H1 = 0.5 + M): power,
  mean deals, and the ratio to the smallest fixed number of deals giving the fixed-sample
  test (the 95% t interval excludes 1/2, looked at once) the same power at the true mean
  and sd (``--true-mean``, ``--sd`` from ``measure``), and Wald's bound for any test.

- ``simulate A [B] --luck ...``: the same on a pool of deals each scored raw and
  luck-adjusted (`luck_pool`, corrections made inline as a run makes them; slow to record,
  about half a second a deal): raw scores with the betting intervals against adjusted ones
  with the asymptotic intervals, on the same bootstrapped deals (issue 43 item 2).
- ``simulate A [B] --test settled|null|sprt --runs R``: R runs of a stop simulated on deals
  drawn (a seeded bootstrap) from one recorded fixed run of ``--pool-deals`` deals (kept in
  ``--pool FILE``), for the classic and the betting intervals on the same deals at each seed
  (issue 43: fast enough for 200 runs of up to 3,000 deals per case; docs/statistics.md has
  the figures, the commands and how the simulation matches the real runs).

What README.md reported before issue 43 (classic intervals), measured 2026-12-01 on 2 cores shared with five other engineers'
work (seeds 1..R; deals are what matters, times are noisy)::

    $ bench_stopping.py measure 23 15 --deals 4000
    threshold 23 against 15 over 4000 deals: mean paired score 0.6480 (95% 0.6377-0.6583), deal-score sd 0.3330
    $ bench_stopping.py measure 23 17 --deals 4000
    threshold 23 against 17 over 4000 deals: mean paired score 0.5961 (95% 0.5858-0.6065), deal-score sd 0.3343
    $ bench_stopping.py null 0 --runs 200 --max-deals 100 --look-every 4               (479 s)
    two copies of random, 200 runs: wrongly separated 0/200, shown equal 0, unsettled at max_deals 200
    $ bench_stopping.py gap 23 15 --runs 200 --max-deals 600 --look-every 4            (225 s)
    separated in the right order 200/200, in the wrong order 0, not separated 0; mean deals 80.0, median 76.0
    $ bench_stopping.py gap 23 17 --runs 100 --max-deals 1000 --look-every 4           (314 s)
    separated in the right order 100/100; mean deals 177.4, median 152.0
    $ bench_stopping.py sprt 23 17 --runs 200 --margin 0.1 --look-every 1 --true-mean 0.596 --sd 0.334   (93 s)
    accepted H1 187/200, H0 13, mean deals 72.7, median 57.0
    fixed-sample test at true mean 0.596, sd 0.334, power 0.95: 158 deals (two-sided; 131 one-sided): 2.17x
    the SPRT's mean (1.80x one-sided); at the SPRT's measured power 0.935: 147 deals, 2.02x; Wald's bound 64.2
    deals, so no test could do better than 2.46x
    $ bench_stopping.py sprt 23 17 ... --look-every 4                                   (84 s)
    accepted H1 187/200, mean deals 78.0, median 64.0: 2.03x
    $ bench_stopping.py sprt 0 0 --runs 200 --margin 0.1 --look-every 4                (545 s)
    accepted H1 4/200, H0 196, mean deals 80.0, median 68.0

Usage::

    .venv/bin/python benchmarks/bench_stopping.py measure 23 15 --deals 4000
    .venv/bin/python benchmarks/bench_stopping.py null 0 --runs 200 --max-deals 100
    .venv/bin/python benchmarks/bench_stopping.py gap 23 15 --runs 200 --max-deals 600
    .venv/bin/python benchmarks/bench_stopping.py measure 23 17 --deals 4000
    .venv/bin/python benchmarks/bench_stopping.py sprt 23 17 --runs 200 --margin 0.1 --look-every 1 \
        --true-mean 0.596 --sd 0.334
    .venv/bin/python benchmarks/bench_stopping.py sprt 0 0 --runs 200 --margin 0.1   # the SPRT's false H1
    .venv/bin/python benchmarks/bench_stopping.py simulate 23 31 --runs 200 --max-deals 3000 --pool pools.json
    .venv/bin/python benchmarks/bench_stopping.py simulate 0 --test null --runs 200 --max-deals 1000 --pool pools.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any, Sequence

from arena import pairwise
from arena.confidence import BettingMonitor, iter_asymptotic_cs
from arena.luck import DEFAULT_CLONES, adjusted_comparisons, game_corrections
from arena.match import Entrant, play_game
from arena.seeding import bot_seed, derive_seed
from arena.plugins import load_registry
from arena.runner import RunObserver, run_tournament
from arena.store import Store, read_looks, store_path
from arena.tournament import parse_tournament


@dataclass
class Outcome:
    """One stopping run's verdict on the pair (first entry against second)."""

    status: str      # pairwise.SEPARATED / REVERSED / EQUAL / UNSETTLED, for first against second
    deals: int       # deals the run played before it stopped
    reason: str      # "settled" or "max_deals" (the SPRT: its decision)
    mean: float      # the first entry's mean paired score against the second


def entry(name: str, threshold: int) -> str:
    """A `[[bots]]` entry: flip7-threshold at `threshold`, or the random bot for threshold 0."""
    if threshold == 0:
        return f'[[bots]]\nuse = "random"\nas = "{name}"\n\n'
    return f'[[bots]]\nuse = "flip7-threshold"\nas = "{name}"\nparams = {{ threshold = {threshold} }}\n\n'


def tournament_text(seed: int, a: int, b: int, stop: str, max_deals: int, look_every: int,
                    same: bool = False) -> str:
    """A two-entry Flip 7 tournament of flip7-threshold `a` against `b` (`same`: two copies of
    `a`; threshold 0 is the random bot: two copies of a deterministic bot tie every deal, as
    each plays both seats of the same cards, so the null case needs the random one)."""
    second = a if same else b
    return (f'[tournament]\nname = "calibration"\nseed = {seed}\nisolation = "inline"\n{stop}\n'
            f"max_deals = {max_deals}\nlook_every = {look_every}\n\n"
            + entry("first", a) + entry("second", second) + '[[rulesets]]\nuse = "flip-7"\nplayers = 2\n')


def stopping_run(text: str, folder: Path, registry=None) -> Outcome:
    """Run the tournament `text` to its stop in `folder`; its verdict on first against second."""
    registry = registry or load_registry()
    tournament = parse_tournament(text, registry, str(folder / "t.toml"))
    run_tournament(tournament, folder / "out", workers=1, observer=RunObserver(lambda line: None))
    with Store.open(store_path(folder / "out")) as store:
        look = read_looks(store)[-1]
    detail = look.detail
    if detail["test"] == "sprt":
        status = {pairwise.ACCEPT_H1: pairwise.SEPARATED, pairwise.ACCEPT_H0: pairwise.EQUAL}.get(
            detail["decision"], pairwise.UNSETTLED)
        return Outcome(status, look.deals, detail["decision"], detail["mean"])
    upper, lower, status, _, mean, _, _ = detail["verdicts"][0]
    if upper != "first":  # the verdict is for the ranking's order: turn it to first against second
        status = {pairwise.SEPARATED: pairwise.REVERSED, pairwise.REVERSED: pairwise.SEPARATED}.get(status, status)
        mean = 1 - mean
    return Outcome(status, look.deals, detail.get("reason", ""), mean)


def many_runs(runs: int, a: int, b: int, stop: str, max_deals: int, look_every: int, same: bool = False,
              first_seed: int = 1, echo=print) -> list[Outcome]:
    """`runs` stopping runs, seeds first_seed, first_seed + 1, ..."""
    registry = load_registry()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="arena-calibration-") as scratch:
        for i in range(runs):
            folder = Path(scratch) / f"run{i}"
            folder.mkdir()
            text = tournament_text(first_seed + i, a, b, stop, max_deals, look_every, same)
            outcomes.append(stopping_run(text, folder, registry))
            if echo and (i + 1) % max(1, runs // 10) == 0:
                echo(f"  {i + 1}/{runs} runs", file=sys.stderr)
    return outcomes


def measure(a: int, b: int, deals: int, seed: int = 1) -> tuple[float, float, pairwise.PairSummary]:
    """One fixed run of `deals` deals: (mean paired score of a against b, deal-score sd, summary)."""
    registry = load_registry()
    text = (f'[tournament]\nname = "measure"\nseed = {seed}\nisolation = "inline"\ndeals = {deals}\n\n'
            + entry("first", a) + entry("second", b) + '[[rulesets]]\nuse = "flip-7"\nplayers = 2\n')
    with tempfile.TemporaryDirectory(prefix="arena-measure-") as scratch:
        tournament = parse_tournament(text, registry, str(Path(scratch) / "t.toml"))
        schedule = tournament.schedule(seed)
        run_tournament(tournament, Path(scratch) / "out", workers=0, observer=RunObserver(lambda line: None))
        with Store.open(store_path(Path(scratch) / "out")) as store:
            per_deal = schedule.table_counts[0] * 2
            games = [(row.index // per_deal, ["first" if e == 0 else "second" for e in row.seats], row.standing)
                     for row in store.iter_rows()]
    scores = [d.score for d in pairwise.paired_scores(games)[("first", "second")]]
    return statistics.fmean(scores), statistics.stdev(scores), pairwise.summarize(scores)


def fixed_sample_deals(true_mean: float, sd: float, power: float = 0.95, confidence: float = 0.95,
                       two_sided: bool = True) -> int:
    """The smallest number of deals with which the fixed-sample test (the interval excludes
    1/2, looked at once) has `power` at `true_mean` and deal-score `sd` (normal formula)."""
    z = NormalDist().inv_cdf
    alpha = 1 - confidence
    z_alpha = z(1 - alpha / 2) if two_sided else z(1 - alpha)
    return math.ceil(((z_alpha + z(power)) * sd / (true_mean - 0.5)) ** 2)


def wald_bound(true_mean: float, sd: float, alpha: float = 0.05, beta: float = 0.05) -> float:
    """Wald's lower bound on the mean number of deals ANY sequential test with error rates
    alpha and beta needs at `true_mean` (normal deal scores of sd `sd`, H0 at 1/2)."""
    kl = (true_mean - 0.5) ** 2 / (2 * sd * sd)
    return ((1 - beta) * math.log((1 - beta) / alpha) + beta * math.log(beta / (1 - alpha))) / kl


def deal_pool(a: int, b: int, deals: int, seed: int = 1000, same: bool = False) -> list[float]:
    """The deal scores, in deal order, of first (threshold `a`) against second (`b`, or a
    second copy of `a` with `same`) over one fixed run of `deals` deals (workers 0)."""
    registry = load_registry()
    text = (f'[tournament]\nname = "pool"\nseed = {seed}\nisolation = "inline"\ndeals = {deals}\n\n'
            + entry("first", a) + entry("second", a if same else b) + '[[rulesets]]\nuse = "flip-7"\nplayers = 2\n')
    with tempfile.TemporaryDirectory(prefix="arena-pool-") as scratch:
        tournament = parse_tournament(text, registry, str(Path(scratch) / "t.toml"))
        per_deal = tournament.schedule(seed).table_counts[0] * 2
        run_tournament(tournament, Path(scratch) / "out", workers=0, observer=RunObserver(lambda line: None))
        with Store.open(store_path(Path(scratch) / "out")) as store:
            games = [(row.index // per_deal, ["first" if e == 0 else "second" for e in row.seats], row.standing)
                     for row in store.iter_rows()]
    return [d.score for d in pairwise.paired_scores(games)[("first", "second")]]


def load_pool(path: Path | None, a: int, b: int, deals: int, same: bool) -> list[float]:
    """`deal_pool`, kept in the JSON file `path` (keyed by the pair and size) if given."""
    key = f"{a}-{a if same else b}-{deals}"
    stored = json.loads(path.read_text()) if path is not None and path.exists() else {}
    if key not in stored:
        stored[key] = deal_pool(a, b, deals, same=same)
        if path is not None:
            path.write_text(json.dumps(stored))
    pool = stored[key]
    # Two copies of one bot: the true score is exactly 1/2 by symmetry, so the null is
    # simulated from the pool made symmetric (each deal also with the seats' roles swapped).
    return pool + [1 - x for x in pool] if same else pool


def luck_pool(a: int, b: int, deals: int, seed: int = 1000, same: bool = False) -> dict[str, list[float]]:
    """The raw and the luck-adjusted deal scores (``{"raw": [...], "adjusted": [...]}``, the
    same deals, in deal order) of first (threshold `a`) against second (`b`, or a second
    copy of `a` with `same`): each deal played inline in both seatings, bot seeds derived
    from the deal seed, each game's corrections made as a run makes them (`arena.luck`,
    k = `DEFAULT_CLONES`, the next card enumerated)."""
    registry = load_registry()
    ruleset = registry.ruleset("flip-7").cls

    def entrant(threshold: int) -> Entrant:
        if threshold == 0:
            return Entrant(registry.bot("random").cls, {}, display="random")
        return Entrant(registry.bot("flip7-threshold").cls, {"threshold": threshold}, display=str(threshold))

    first, second = entrant(a), entrant(a if same else b)
    raw, adjusted = [], []
    for deal in range(deals):
        deal_seed = derive_seed(seed, "bench-stopping-luck", deal)
        raw_deal = adjusted_deal = 0.0
        for game, seats in enumerate(((first, second), (second, first))):
            result = play_game(ruleset, list(seats), deal_seed, bot_seeds=[bot_seed(deal_seed, s, game) for s in range(2)])
            corrections = game_corrections(ruleset, result.record, clones=DEFAULT_CLONES).corrections
            i, j = (0, 1) if game == 0 else (1, 0)   # first's seat, second's
            standing = result.record["outcome"]["standing"]
            raw_deal += 1.0 if standing[i] < standing[j] else 0.5 if standing[i] == standing[j] else 0.0
            adjusted_deal += adjusted_comparisons(result.record, corrections)[i][j]
        raw.append(raw_deal / 2)
        adjusted.append(adjusted_deal / 2)
    return {"raw": raw, "adjusted": adjusted}


def load_luck_pool(path: Path | None, a: int, b: int, deals: int, same: bool) -> dict[str, list[float]]:
    """`luck_pool`, kept in the JSON file `path` (keyed by the pair and size) if given; two
    copies of one bot made symmetric as `load_pool` does (adjusted scores too: a deal's two
    adjusted scores sum to 1)."""
    key = f"luck-{a}-{a if same else b}-{deals}"
    stored = json.loads(path.read_text()) if path is not None and path.exists() else {}
    if key not in stored:
        stored[key] = luck_pool(a, b, deals, same=same)
        if path is not None:
            latest = json.loads(path.read_text()) if path.exists() else {}   # another process may have added one
            latest[key] = stored[key]
            path.write_text(json.dumps(latest))
    pool = stored[key]
    return {kind: pool[kind] + [1 - x for x in pool[kind]] for kind in pool} if same else pool


def simulated_run(pool: Sequence[float], seed: int, test: str, max_deals: int, look_every: int,
                  intervals: str, confidence: float = 0.95, margin: float = 0.05, alpha: float = 0.05,
                  beta: float = 0.05) -> Outcome:
    """One run of a two-entry `stop` on deals drawn independently from `pool` (a seeded
    bootstrap: the same deals for every `intervals` at one seed), looked at every
    `look_every` deals as `arena.stopping` looks: `test` "settled" (the pair ranked by its
    mean so far, as TrueSkill ranks two entries; the statistics kept up to date a deal at
    a time: `pairwise.iter_confidence_sequence` for the classic intervals,
    `confidence.BettingMonitor` for betting, the same verdicts as `pairwise.judge`'s up to
    float rounding: both are symmetric in the two entries) or "sprt" (first against
    second; `pairwise.iter_sprt`, or `iter_betting_sprt` with `intervals` "betting"). With
    `intervals` "asymptotic" (luck-adjusted pools): `confidence.iter_asymptotic_cs` at
    `pairwise.ASYMPTOTIC_T_STAR`, no verdict before `pairwise.ASYMPTOTIC_MIN_DEALS` deals,
    as `pairwise.judge` reads it; the SPRT `pairwise.iter_asymptotic_sprt`."""
    rng = random.Random(seed)
    values: list[float] = []
    boundaries = set(itertools.chain(range(look_every, max_deals, look_every), [max_deals]))
    stream = (rng.choice(pool) for _ in range(max_deals))

    def tee():
        for x in stream:
            values.append(x)
            yield x

    if test == "sprt":
        steps = {pairwise.BETTING: pairwise.iter_betting_sprt, pairwise.ASYMPTOTIC: pairwise.iter_asymptotic_sprt,
                 pairwise.CLASSIC: pairwise.iter_sprt}[intervals](tee(), margin, alpha, beta)
        for result in steps:
            if result.deals in boundaries and (result.decision != pairwise.CONTINUE or result.deals == max_deals):
                status = {pairwise.ACCEPT_H1: pairwise.SEPARATED, pairwise.ACCEPT_H0: pairwise.EQUAL}.get(
                    result.decision, pairwise.UNSETTLED)
                return Outcome(status, result.deals, result.decision, result.mean)
        raise AssertionError("unreachable: the last deal is a boundary")
    alpha_pair = 1 - confidence  # K = 1 pair
    if intervals == pairwise.BETTING:
        monitor = BettingMonitor((0.5 - margin, 0.5, 0.5 + margin), alpha_pair)
        steps = ((monitor.add(x), monitor)[1] for x in tee())
    elif intervals == pairwise.ASYMPTOTIC:
        steps = iter_asymptotic_cs(tee(), alpha_pair, pairwise.ASYMPTOTIC_T_STAR)
    else:
        steps = pairwise.iter_confidence_sequence(tee(), alpha_pair)
    for step in steps:
        deals = len(values)
        if deals not in boundaries:
            continue
        if intervals == pairwise.BETTING:
            first_better, second_better = step.excludes_below(0.5), step.excludes_above(0.5)
            equal = margin > 0 and step.excludes_below(0.5 - margin) and step.excludes_above(0.5 + margin)
        else:
            low, high = (step.low, step.high) if intervals == pairwise.ASYMPTOTIC else \
                (step.interval.low, step.interval.high)
            first_better, second_better = low > 0.5, high < 0.5
            equal = 0.5 - margin <= low and high <= 0.5 + margin
            if intervals == pairwise.ASYMPTOTIC and deals < pairwise.ASYMPTOTIC_MIN_DEALS:
                first_better = second_better = equal = False
        mean = statistics.fmean(values)
        first_upper = mean >= 0.5  # the ranking's order
        status = (pairwise.SEPARATED if first_better else pairwise.REVERSED if second_better else
                  pairwise.EQUAL if equal else pairwise.UNSETTLED)
        settled = status == pairwise.EQUAL or (first_better if first_upper else second_better)
        if settled or deals == max_deals:
            return Outcome(status, deals, "settled" if settled else "max_deals", mean)
    raise AssertionError("unreachable: the last deal is a boundary")


def simulated_runs(pool: Sequence[float], runs: int, first_seed: int = 1, **kwargs: Any) -> list[Outcome]:
    """`simulated_run` at seeds first_seed, first_seed + 1, ..."""
    return [simulated_run(pool, first_seed + i, **kwargs) for i in range(runs)]


def simulate(args: argparse.Namespace) -> None:
    """The `simulate` mode: `--runs` bootstrap runs per interval family from one deal pool."""
    same = args.test == "null" or args.b in (None, args.a)
    if args.luck:
        simulate_luck(args, same)
        return
    pool = load_pool(args.pool, args.a, args.b if args.b is not None else args.a, args.pool_deals, same)
    sd = statistics.pstdev(pool)
    what = f"two copies of {'random' if args.a == 0 else args.a}" if same else f"threshold {args.a} against {args.b}"
    print(f"{what}: pool of {len(pool)} deals, mean {statistics.fmean(pool):.4f}, sd {sd:.4f}; {args.runs} "
          f"simulated runs of stop {args.test if args.test != 'null' else 'settled'} (max_deals {args.max_deals}, "
          f"look_every {args.look_every}{f', H1 0.5 + {args.margin}' if args.test == 'sprt' else ''})")
    families = (pairwise.CLASSIC, pairwise.BETTING) if args.intervals == "both" else (args.intervals,)
    for intervals in families:
        started = time.perf_counter()
        out = simulated_runs(pool, args.runs, args.first_seed, test="sprt" if args.test == "sprt" else "settled",
                             max_deals=args.max_deals, look_every=args.look_every, intervals=intervals,
                             confidence=args.confidence, margin=args.margin, alpha=args.alpha, beta=args.beta)
        right = sum(o.status == pairwise.SEPARATED for o in out)
        wrong = sum(o.status == pairwise.REVERSED for o in out)
        equal = sum(o.status == pairwise.EQUAL for o in out)
        deals = [o.deals for o in out]
        label = {"betting": "betting", "classic": "classic (today)", "asymptotic": "asymptotic"}[intervals]
        report(args, label, out, started)


def report(args: argparse.Namespace, label: str, out: Sequence[Outcome], started: float) -> None:
    """One line of `simulate`'s results for one family of intervals."""
    right = sum(o.status == pairwise.SEPARATED for o in out)
    wrong = sum(o.status == pairwise.REVERSED for o in out)
    equal = sum(o.status == pairwise.EQUAL for o in out)
    deals = [o.deals for o in out]
    if args.test == "sprt":
        print(f"  {label}: accepted H1 {right}/{args.runs}, H0 {equal}, undecided {args.runs - right - equal}; "
              f"mean deals {statistics.fmean(deals):.1f}, median {statistics.median(deals)} "
              f"({time.perf_counter() - started:.0f} s)")
    else:
        to_right = statistics.fmean(o.deals if o.status == pairwise.SEPARATED else args.max_deals for o in out)
        print(f"  {label}: separated right {right}/{args.runs}, wrong {wrong}, equal {equal}, unsettled "
              f"{args.runs - right - wrong - equal}; mean deals {statistics.fmean(deals):.1f}, median "
              f"{statistics.median(deals)}; mean deals to the right separation (any other end counted as "
              f"max_deals) {to_right:.1f} ({time.perf_counter() - started:.0f} s)")


def simulate_luck(args: argparse.Namespace, same: bool) -> None:
    """`simulate --luck`: raw scores with the betting intervals against luck-adjusted scores
    with the asymptotic ones, bootstrapped from one `luck_pool` (the same deals at each seed)."""
    pools = load_luck_pool(args.pool, args.a, args.b if args.b is not None else args.a, args.pool_deals, same)
    what = f"two copies of {'random' if args.a == 0 else args.a}" if same else f"threshold {args.a} against {args.b}"
    raw_sd, adjusted_sd = statistics.pstdev(pools["raw"]), statistics.pstdev(pools["adjusted"])
    print(f"{what}: pool of {len(pools['raw'])} deals, raw mean {statistics.fmean(pools['raw']):.4f} sd {raw_sd:.4f}, "
          f"adjusted mean {statistics.fmean(pools['adjusted']):.4f} sd {adjusted_sd:.4f} "
          f"({100 * (1 - adjusted_sd / raw_sd):.1f}% lower); {args.runs} simulated runs of stop "
          f"{args.test if args.test != 'null' else 'settled'} (max_deals {args.max_deals}, look_every "
          f"{args.look_every}{f', H1 0.5 + {args.margin}' if args.test == 'sprt' else ''})")
    for kind, intervals in (("raw", pairwise.BETTING), ("adjusted", pairwise.ASYMPTOTIC)):
        started = time.perf_counter()
        out = simulated_runs(pools[kind], args.runs, args.first_seed, test="sprt" if args.test == "sprt" else "settled",
                             max_deals=args.max_deals, look_every=args.look_every, intervals=intervals,
                             confidence=args.confidence, margin=args.margin, alpha=args.alpha, beta=args.beta)
        report(args, f"{kind}, {intervals}", out, started)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["measure", "null", "gap", "sprt", "simulate"])
    parser.add_argument("a", type=int, help="the first entry's threshold (0: the random bot)")
    parser.add_argument("b", type=int, nargs="?", default=None, help="the second entry's threshold")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--deals", type=int, default=4000, help="measure: deals of the long run")
    parser.add_argument("--max-deals", type=int, default=400)
    parser.add_argument("--look-every", type=int, default=4)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--margin", type=float, default=0.05)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--true-mean", type=float, default=None)
    parser.add_argument("--sd", type=float, default=None)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--test", choices=["settled", "sprt", "null"], default="settled",
                        help="simulate: the stop simulated (null: settled on two copies of the first bot)")
    parser.add_argument("--intervals", default="both", choices=[*pairwise.INTERVALS, "both"],
                        help="simulate: which intervals (and SPRT) to simulate")
    parser.add_argument("--pool", type=Path, default=None, help="simulate: a JSON file keeping the deal pools")
    parser.add_argument("--pool-deals", type=int, default=10000, help="simulate: deals in the pool")
    parser.add_argument("--luck", action="store_true",
                        help="simulate: raw (betting) against luck-adjusted (asymptotic) scores of the same deals")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    settled = f'stop = "settled"\nconfidence = {args.confidence}\nmargin = {args.margin}'
    if args.mode == "simulate":
        simulate(args)
    elif args.mode == "measure":
        mean, sd, summary = measure(args.a, args.b, args.deals)
        print(f"threshold {args.a} against {args.b} over {summary.deals} deals: mean paired score {mean:.4f} "
              f"(95% {summary.interval.low:.4f}-{summary.interval.high:.4f}), deal-score sd {sd:.4f}, "
              f"LOS {summary.los:.4f}")
    elif args.mode == "null":
        out = many_runs(args.runs, args.a, args.a, settled, args.max_deals, args.look_every, same=True,
                        first_seed=args.first_seed)
        wrong = sum(o.status in (pairwise.SEPARATED, pairwise.REVERSED) for o in out)
        equal = sum(o.status == pairwise.EQUAL for o in out)
        print(f"two copies of {'random' if args.a == 0 else f'threshold {args.a}'}, {args.runs} runs of stop = \"settled\" (confidence "
              f"{args.confidence}, margin {args.margin}, max_deals {args.max_deals}, look_every {args.look_every}): "
              f"wrongly separated {wrong}/{args.runs}, shown equal {equal}, unsettled at max_deals "
              f"{args.runs - wrong - equal}; mean deals {statistics.fmean(o.deals for o in out):.1f}")
    elif args.mode == "gap":
        out = many_runs(args.runs, args.a, args.b, settled, args.max_deals, args.look_every,
                        first_seed=args.first_seed)
        right = sum(o.status == pairwise.SEPARATED for o in out)
        wrong = sum(o.status == pairwise.REVERSED for o in out)
        print(f"threshold {args.a} against {args.b}, {args.runs} runs of stop = \"settled\" (max_deals "
              f"{args.max_deals}, look_every {args.look_every}): separated in the right order {right}/{args.runs}, "
              f"in the wrong order {wrong}, not separated {args.runs - right - wrong}; mean deals "
              f"{statistics.fmean(o.deals for o in out):.1f}, median {statistics.median(o.deals for o in out)}")
    else:
        stop = (f'stop = {{ test = "sprt", bot = "first", baseline = "second", margin = {args.margin}, '
                f'alpha = {args.alpha}, beta = {args.beta} }}')
        out = many_runs(args.runs, args.a, args.b, stop, args.max_deals, args.look_every,
                        first_seed=args.first_seed)
        accepted = sum(o.reason == pairwise.ACCEPT_H1 for o in out)
        mean_deals = statistics.fmean(o.deals for o in out)
        line = (f"SPRT threshold {args.a} against {args.b} (H1 = 0.5 + {args.margin}, alpha {args.alpha}, beta "
                f"{args.beta}, look_every {args.look_every}), {args.runs} runs: accepted H1 {accepted}/{args.runs}, "
                f"H0 {sum(o.reason == pairwise.ACCEPT_H0 for o in out)}, mean deals {mean_deals:.1f}, median "
                f"{statistics.median(o.deals for o in out)}")
        print(line)
        if args.true_mean is not None and args.sd is not None:
            power = 1 - args.beta
            two = fixed_sample_deals(args.true_mean, args.sd, power, 1 - args.alpha)
            one = fixed_sample_deals(args.true_mean, args.sd, power, 1 - args.alpha, two_sided=False)
            bound = wald_bound(args.true_mean, args.sd, args.alpha, args.beta)
            print(f"fixed-sample test at true mean {args.true_mean}, sd {args.sd}, power {power}: {two} deals "
                  f"(two-sided 95% interval; {one} one-sided): {two / mean_deals:.2f}x the SPRT's mean "
                  f"({one / mean_deals:.2f}x one-sided); no sequential test can average fewer than {bound:.1f} "
                  f"deals here (Wald), so at most {two / bound:.2f}x")
            measured = accepted / len(out)
            if 0.5 < measured < 1:
                same = fixed_sample_deals(args.true_mean, args.sd, measured, 1 - args.alpha)
                print(f"at the SPRT's measured power {measured:.3f}: the fixed-sample test needs {same} deals, "
                      f"{same / mean_deals:.2f}x the SPRT's mean")
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
