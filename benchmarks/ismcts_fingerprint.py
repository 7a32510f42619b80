"""Fingerprint of ismcts's moves: seeded games against `random` on every ruleset, several
parameter sets; prints (or saves) every game's decisions and transcript hash as JSON.

A refactor of bots/ismcts.py keeps behaviour if the fingerprint is unchanged. To compare
two versions in one process (same arena code), pass the other as a file:

    .venv/bin/python benchmarks/ismcts_fingerprint.py --out /tmp/after.json
    .venv/bin/python benchmarks/ismcts_fingerprint.py --module /tmp/ismcts_before.py --out /tmp/before.json
    .venv/bin/python benchmarks/ismcts_fingerprint.py --compare /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from typing import Any

from arena.match import Entrant, play_game
from arena.plugins import load_registry
from arena_bots.random_bot import RandomBot

# short games: a single UNO Flip round, a Flip 7 race to 60, few Color Flush / Flip Hue turns
SHORT = {"flip-7": {"target_score": 60}, "uno-flip": {"target_score": 0, "max_turns": 30},
         "color-flush": {"max_turns": 12}, "flip-hue": {"max_turns": 12}}
PARAMS = [
    {},                                            # the defaults (200 iterations)
    {"iterations": 50},
    {"iterations": 50, "prior_weight": 0},
    {"iterations": 50, "prior_weight": 2},
    {"iterations": 30, "playout": "random"},
    {"iterations": 30, "exploration": 1.4, "playout_depth": 5},
]
# (deal seed, players, ismcts's seat)
GAMES = [(1, 2, 0), (2, 3, 1), (3, 4, 3)]


def load_bot(module_path: str | None) -> type:
    if module_path is None:
        return importlib.import_module("arena_bots.ismcts").ISMCTSBot
    spec = importlib.util.spec_from_file_location("ismcts_under_test", module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module.ISMCTSBot


RULESETS = ("flip-7", "uno-flip", "color-flush", "flip-hue")


def fingerprint(bot: type, quick: bool = False, rulesets: tuple[str, ...] = RULESETS) -> dict[str, Any]:
    registry = load_registry()
    games = {}
    for ruleset_id in rulesets:
        ruleset = registry.ruleset(ruleset_id).cls
        for params in PARAMS[:2] if quick else PARAMS:
            for seed, players, seat in GAMES:
                entrants = [Entrant(RandomBot)] * players
                entrants[seat] = Entrant(bot, params)
                record = play_game(ruleset, entrants, deal_seed=seed, options=SHORT[ruleset_id]).record
                key = f"{ruleset_id} {json.dumps(params, sort_keys=True)} seed={seed} players={players} seat={seat}"
                games[key] = {"decisions": record["decisions"], "transcript_hash": record["transcript_hash"],
                              "ismcts_decisions": sum(1 for s, _ in record["decisions"] if s == seat),
                              "faults": record["faults"]}
    return games


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    differ = [key for key in before if before[key] != after.get(key)]
    decisions = sum(game["ismcts_decisions"] for game in before.values())
    total = sum(len(game["decisions"]) for game in before.values())
    print(f"{len(before)} games, {total} decisions ({decisions} by ismcts): "
          f"{len(differ)} games differ, {len(set(after) - set(before))} extra")
    for key in differ:
        print("  differs:", key)
    return 1 if differ or set(after) != set(before) else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", help="a file holding another ISMCTSBot (default: arena_bots.ismcts)")
    parser.add_argument("--out", help="write the fingerprint here (default: stdout)")
    parser.add_argument("--quick", action="store_true", help="two parameter sets only")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two saved fingerprints")
    args = parser.parse_args()
    if args.compare:
        with open(args.compare[0]) as a, open(args.compare[1]) as b:
            return compare(json.load(a), json.load(b))
    text = json.dumps(fingerprint(load_bot(args.module), args.quick), indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as file:
            file.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
