"""The ismcts bot: legal in every ruleset that can be determinized, deterministic with
`iterations`, stronger than random, and playable through process isolation."""

from __future__ import annotations

import random

import pytest

from arena.match import Entrant, FaultPolicy, play_game
from arena.plugins import load_registry
from arena.seats import InlineHost, Limits, ProcessHost
from arena_bots.ismcts import ISMCTSBot, outcome_rewards, pairwise
from arena_bots.random_bot import RandomBot

REGISTRY = load_registry()
FAST = {"iterations": 8, "playout_depth": 6}
# short games: a single UNO Flip round, a Flip 7 race to 60, few Color Flush / Flip Hue turns
SHORT = {"flip-7": {"target_score": 60}, "uno-flip": {"target_score": 0, "max_turns": 40},
         "color-flush": {"max_turns": 20}, "flip-hue": {"max_turns": 20}}
DETERMINIZABLE = sorted(rid for rid, entry in REGISTRY.rulesets.items()
                        if callable(getattr(entry.cls, "sample_state", None)))


def play(ruleset_id, seat, players, seed, params=FAST, options=None):
    ruleset = REGISTRY.ruleset(ruleset_id).cls
    entrants = [Entrant(RandomBot)] * players
    entrants[seat] = Entrant(ISMCTSBot, params)
    return play_game(ruleset, entrants, deal_seed=seed, options=options or SHORT.get(ruleset_id))


def test_every_builtin_ruleset_can_be_determinized():
    assert {"flip-7", "uno-flip", "color-flush", "flip-hue"} <= set(DETERMINIZABLE)


@pytest.mark.parametrize("ruleset_id", DETERMINIZABLE)
def test_it_plays_only_legal_actions_and_never_falls_back(ruleset_id, capsys):
    # the default policy raises on an illegal action; a failed search would note it on stderr
    for seed, players in ((1, 2), (2, 3)):
        result = play(ruleset_id, seed % players, players, seed)
        assert result.record["faults"] == []
        assert result.state.is_terminal()
    assert "ismcts:" not in capsys.readouterr().err


def test_it_is_deterministic_with_a_fixed_iteration_count():
    first = play("flip-7", 0, 3, 11, {"iterations": 20})
    second = play("flip-7", 0, 3, 11, {"iterations": 20})
    assert first.record["decisions"] == second.record["decisions"]
    assert first.record["transcript_hash"] == second.record["transcript_hash"]


def test_a_different_bot_seed_changes_its_search():
    ruleset = REGISTRY.ruleset("flip-7").cls
    entrants = [Entrant(ISMCTSBot, {"iterations": 3, "playout_depth": 2, "prior_weight": 0.0}),
                Entrant(RandomBot)]
    runs = {tuple(map(tuple, play_game(ruleset, entrants, 5, options=SHORT["flip-7"],
                                       bot_seeds=[s, 0]).record["decisions"])) for s in range(6)}
    assert len(runs) > 1


def test_it_beats_random_at_flip_7():
    wins = 0
    for game in range(20):
        seat = game % 2
        standing = play("flip-7", seat, 2, 100 + game, {"iterations": 30},
                        {"target_score": 100}).record["outcome"]["standing"]
        wins += standing[seat] == 1
    assert wins >= 16


def test_it_runs_in_its_own_process():
    ruleset = REGISTRY.ruleset("flip-7").cls
    host = ProcessHost.for_bot("ismcts", Limits(time_per_decision=5.0, time_bank=30.0))
    entrants = [Entrant(ISMCTSBot, {"iterations": 10}), Entrant(RandomBot)]
    try:
        isolated = play_game(ruleset, entrants, deal_seed=3, options=SHORT["flip-7"],
                             hosts=[host, InlineHost(RandomBot)],
                             policy=FaultPolicy(on_fault="raise", time_per_decision=5.0, time_bank=30.0))
    finally:
        host.close()
    inline = play_game(ruleset, entrants, deal_seed=3, options=SHORT["flip-7"])
    assert isolated.record["faults"] == []
    assert isolated.record["decisions"] == inline.record["decisions"]


def test_a_ruleset_without_sample_state_is_played_at_random(capsys):
    bot = ISMCTSBot()
    bot.rng = random.Random(0)
    bot.start({"ruleset": "no-such-ruleset"})
    assert "no sample_state" in capsys.readouterr().err
    observation = {"ruleset": "no-such-ruleset", "seat": 0, "events": [], "legal_actions": ["a", "b", "c"]}
    assert bot.act(observation) in ("a", "b", "c")
    assert bot.act(observation) in ("a", "b", "c")
    assert capsys.readouterr().err == ""          # the note is written once, at the start


def test_time_per_move_bounds_the_search_and_marks_the_instance():
    bot = ISMCTSBot(time_per_move=0.05)
    assert bot.time_dependent and not ISMCTSBot.time_dependent
    result = play_game(REGISTRY.ruleset("flip-7").cls, [Entrant(ISMCTSBot, {"time_per_move": 0.02}),
                                                        Entrant(RandomBot)], 4, options={"target_score": 30})
    assert result.state.is_terminal()


@pytest.mark.parametrize("params", [{"iterations": 0}, {"iterations": 1.5}, {"time_per_move": 0},
                                    {"playout": "greedy"}, {"exploration": -1}, {"playout_depth": -1},
                                    {"prior_weight": -0.5}, {"prior_weight": True}])
def test_bad_params_are_refused(params):
    with pytest.raises(ValueError):
        ISMCTSBot(**params)


def test_rewards_rank_seats_and_count_ties_as_half():
    assert outcome_rewards({"standing": [1, 2, 3]}) == [1.0, 0.5, 0.0]
    assert outcome_rewards({"standing": [1, 1]}) == [0.5, 0.5]
    assert outcome_rewards({"standing": [2, 1, 2]}) == [0.25, 1.0, 0.25]
    values = pairwise([10.0, 0.0, 0.0], 5.0)
    assert values[0] > 0.5 > values[1] == values[2]


@pytest.mark.parametrize("ruleset_id", ["color-flush", "uno-flip"])
def test_random_playouts_also_play_legally(ruleset_id):
    result = play(ruleset_id, 1, 3, 21, {"iterations": 6, "playout": "random"})
    assert result.record["faults"] == [] and result.state.is_terminal()


class _Witness(ISMCTSBot):
    """ismcts that also notes what flip7-threshold (deterministic) would play."""

    def act(self, observation):
        from arena_bots.flip7_threshold import Flip7ThresholdBot

        adviser = Flip7ThresholdBot()
        adviser.rng = random.Random(0)
        adviser.start({"ruleset": observation["ruleset"], "seat": observation["seat"],
                       "players": observation["players"], "options": observation["options"]})
        expected = adviser.act(dict(observation, events=[]))
        action = super().act(observation)
        if len(observation["legal_actions"]) > 1:
            WITNESSED.append((expected, action))
        return action


WITNESSED: list[tuple[str, str]] = []


@pytest.mark.parametrize("weight, agrees", [(1e9, True), (0.0, False)])
def test_the_prior_weight_pulls_the_search_toward_the_heuristic_choice(weight, agrees):
    WITNESSED.clear()
    for seed in range(4):
        ruleset = REGISTRY.ruleset("flip-7").cls
        play_game(ruleset, [Entrant(_Witness, {"iterations": 30, "prior_weight": weight}), Entrant(RandomBot)],
                  seed, options=SHORT["flip-7"])
    assert len(WITNESSED) >= 10
    same = sum(expected == action for expected, action in WITNESSED)
    # an overwhelming bonus: always the heuristic's move; none: the search disagrees sometimes
    assert (same == len(WITNESSED)) is agrees


def test_the_default_prior_weight_is_per_ruleset_and_a_given_one_wins():
    def bias(ruleset_id, **params):
        bot = ISMCTSBot(**params)
        bot.rng = random.Random(0)
        bot.start({"ruleset": ruleset_id, "seat": 0, "players": 3, "options": {}})
        return bot.bias
    assert bias("color-flush") == bias("flip-hue") == 1.0
    assert bias("flip-7") == bias("uno-flip") == 0.0
    assert bias("flip-7", prior_weight=2) == 2.0 and bias("color-flush", prior_weight=0) == 0.0
