"""benchmarks/bench_strength.py, the strength comparison of issue 22 item 4: its scoring, its
resumable file, and its all-seeing ceiling, which must read the true game without touching it."""

import importlib.util
import json
import random
import sys
from pathlib import Path

from arena.match import Entrant, play_game, replay
from arena.plugins import load_registry

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_strength.py"
_spec = importlib.util.spec_from_file_location("bench_strength", _PATH)
bench = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bench
_spec.loader.exec_module(bench)

REGISTRY = load_registry()


def _game(deal, rotation, entries, standing):
    return {"deal": deal, "rotation": rotation, "entries": entries, "standing": standing}


def test_a_deal_scores_the_candidate_against_both_heuristic_seats_in_all_three_rotations():
    games = [_game(0, 0, ["candidate", "heuristic-a", "heuristic-b"], [1, 2, 2]),   # beats both: 1, 1
             _game(0, 1, ["heuristic-a", "heuristic-b", "candidate"], [1, 2, 2]),   # loses, ties: 0, 1/2
             _game(0, 2, ["heuristic-b", "candidate", "heuristic-a"], [2, 1, 3]),   # beats both: 1, 1
             _game(1, 0, ["candidate", "heuristic-a", "heuristic-b"], [3, 1, 2])]   # deal 1 incomplete
    assert bench.deal_scores(games) == {0: (1 + 1 + 0 + 0.5 + 1 + 1) / 6}


def test_compare_pairs_two_files_by_deal():
    won = [_game(d, r, ["candidate", "heuristic-a", "heuristic-b"], [1, 2, 3]) for d in range(3) for r in range(3)]
    lost = [_game(d, r, ["candidate", "heuristic-a", "heuristic-b"], [3, 1, 2]) for d in range(3) for r in range(3)]
    assert "over 3 common deals: 1.000 against 0.000, difference +1.000" in bench.compare(won, lost)


def test_a_run_appends_each_game_and_a_second_run_plays_only_what_is_missing(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    args = ["flip-7", "--iterations", "3", "--deals", "1", "--workers", "1", "--options",
            '{"target_score": 20}', "--out", str(out)]
    assert bench.main(args) == 0
    games = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((g["deal"], g["rotation"]) for g in games) == [(0, 0), (0, 1), (0, 2)]
    assert all(g["candidate_asked"] > 0 and g["entries"].count("candidate") == 1 for g in games)
    bench.main(args[:4] + ["2"] + args[5:])     # --deals 2: only deal 1 is new
    assert len(out.read_text().splitlines()) == 6
    assert "3 games to play (3 already in" in capsys.readouterr().err


def test_the_all_seeing_ceiling_searches_the_true_state_without_changing_the_game(monkeypatch):
    ruleset = REGISTRY.ruleset("flip-7").cls
    dealt = ruleset.new_game
    searched = []

    def remembering_new_game(players, options, rng):
        bench._TRUE_STATE[0] = dealt(players, options, rng)
        return bench._TRUE_STATE[0]

    monkeypatch.setattr(ruleset, "new_game", remembering_new_game)
    seeing = bench.seeing(REGISTRY.bot("ismcts").cls)
    real_search = sys.modules["arena_bots.ismcts"].search

    def spying_search(observation, sample_state, *rest):
        state = sample_state(observation, random.Random(1), [])
        searched.append(state.deck == bench._TRUE_STATE[0].deck and state is not bench._TRUE_STATE[0])
        return real_search(observation, sample_state, *rest)

    monkeypatch.setattr(sys.modules["arena_bots.ismcts"], "search", spying_search)
    heuristic = REGISTRY.bot("flip7-threshold").cls
    result = play_game(ruleset, [Entrant(seeing, {"iterations": 30}), Entrant(heuristic), Entrant(heuristic)],
                       5, {"target_score": 60})
    assert searched and all(searched)           # every search saw the real deck, in a copy
    monkeypatch.setattr(ruleset, "new_game", dealt)
    # replaying the decisions on a fresh deal gives the same game: the search drew nothing from it
    assert replay(result.record, ruleset).outcome() == result.record["outcome"]


def test_the_flip_7_totals_value_reads_the_totals_and_not_the_rows():
    # benchmarks/flip7_value_variants.py, judged on the strength benchmark: the fitted value
    # of the totals alone, whatever this round's rows hold (the declared value adds them)
    sys.path.insert(0, str(_PATH.parent))
    from flip7_value_variants import evaluate_flip_7_totals

    from arena.rules.flip_7.evaluation import evaluate_flip_7, flip7_ahead

    ruleset = REGISTRY.ruleset("flip-7").cls
    state = ruleset.new_game(3, ruleset.resolve_options({}), random.Random(4))
    state.totals = [120, 80, 100]
    expected = flip7_ahead([120.0, 80.0, 100.0], state.target_score)
    assert evaluate_flip_7_totals(state, 0) == expected
    assert any(state.numbers) and evaluate_flip_7(state, 0) != expected   # the opening cards count there
