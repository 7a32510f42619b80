"""benchmarks/bench_ismcts.py --games: CPU per iteration over whole games, timing only the
searching seat's decisions and running them at the iteration count asked."""

import importlib.util
import sys
from pathlib import Path

from arena_bots.random_bot import RandomBot

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_ismcts.py"
_spec = importlib.util.spec_from_file_location("bench_ismcts", _PATH)
bench = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bench
_spec.loader.exec_module(bench)


def test_games_mode_times_only_the_candidates_decisions_at_the_iterations_asked():
    made = []
    asked = []

    class Counting(RandomBot):
        def __init__(self, iterations, **params):
            made.append((iterations, params))

        def act(self, observation):
            asked.append(observation["seat"])
            return super().act(observation)

    decisions, cost = bench.per_iteration_in_games(Counting, "flip-7", 2, 123, {"exploration": 0.5})
    assert made == [(123, {"exploration": 0.5})] * 2   # one instance a game, seat 0
    assert decisions == len(asked) > 0 and set(asked) == {0}
    assert cost >= 0.0
