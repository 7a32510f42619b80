"""The ismcts bot: legal in every ruleset that can be determinized, deterministic with
`iterations`, stronger than random, and playable through process isolation."""

from __future__ import annotations

import random

import pytest

from arena.match import Entrant, FaultPolicy, play_game
from arena.plugins import load_registry
from arena.seats import InlineHost, Limits, ProcessHost
from arena_bots.ismcts import (NO_HINTS, ISMCTSBot, Node, PlayoutEvaluator, SearchHints, heuristic_bot,
                                neutral_evaluation, outcome_rewards, pairwise, search, search_hints)
from arena_bots.random_bot import RandomBot

import arena_bots.ismcts_search

# a compiled search (docs/compiled.md) calls its own functions directly: replacing one from
# outside, as these spies do, does not reach it; the ordinary install runs them on the same source
spies_on_the_search = pytest.mark.skipif(arena_bots.ismcts_search.__file__.endswith((".so", ".pyd")),
                                         reason="spies on the search's functions, which compiled code calls directly")

REGISTRY = load_registry()
FAST = {"iterations": 8, "playout_depth": 6}
# short games: a single UNO Flip round, a Flip 7 race to 60, few Color Flush / Flip Hue turns
SHORT = {"flip-7": {"target_score": 60}, "uno-flip": {"target_score": 0, "max_turns": 40},
         "color-flush": {"max_turns": 20}, "flip-hue": {"max_turns": 20}}
DETERMINIZABLE = sorted(rid for rid, entry in REGISTRY.rulesets.items()
                        if entry.cls.supports("sample_state"))


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


@pytest.mark.parametrize("prior_at", ["root", "own"])
@spies_on_the_search
def test_prior_at_own_gives_the_policys_favourite_the_bonus_at_the_bots_deeper_nodes(monkeypatch, prior_at):
    import arena_bots.ismcts_search as ismcts

    asked, bonused = [], []
    real_favourite_in, real_expand = PlayoutEvaluator.favourite_in, ismcts.expand

    def favourite_in(self, state, seat):
        action = real_favourite_in(self, state, seat)
        asked.append((seat, action))
        return action

    def expand(node, seat, untried, state, rng, favourite, prior):
        child = real_expand(node, seat, untried, state, rng, favourite, prior)
        if asked and favourite == asked[-1][1] and favourite is not None:
            bonused.append(child.prior)
        return child

    monkeypatch.setattr(PlayoutEvaluator, "favourite_in", favourite_in)
    monkeypatch.setattr(ismcts, "expand", expand)
    result = play("color-flush", 0, 2, 3, {"iterations": 40, "prior_weight": 1.5, "prior_at": prior_at,
                                           "opponents": "tree"})   # policy opponents would ask favourite_in too
    assert result.state.is_terminal()
    if prior_at == "root":
        assert asked == []          # the default: the bonus at the root only, as before
    else:
        assert len(asked) >= 5 and {seat for seat, _ in asked} == {0}   # only where ismcts (seat 0) moves
        assert bonused and set(bonused) == {1.5}


def test_iterations_may_be_given_per_ruleset_with_a_default():
    def count(ruleset_id, iterations):
        bot = ISMCTSBot(iterations=iterations)
        bot.rng = random.Random(0)
        bot.start({"ruleset": ruleset_id, "seat": 0, "players": 3, "options": {}})
        return bot.iterations
    table = {"flip-7": 4000, "*": 300}
    assert count("flip-7", table) == 4000 and count("uno-flip", table) == 300
    assert count("uno-flip", {"flip-7": 4000}) == 200 and count("flip-hue", 50) == 50
    # a table plays exactly as its count given alone
    by_table = play("flip-7", 0, 3, 7, {"iterations": {"flip-7": 12, "*": 99}})
    assert by_table.record["transcript_hash"] == play("flip-7", 0, 3, 7, {"iterations": 12}).record["transcript_hash"]


@pytest.mark.parametrize("iterations", [{}, {"flip-7": 0}, {"*": 1.5}, {"flip-7": True}])
def test_bad_iteration_tables_are_refused(iterations):
    with pytest.raises(ValueError, match="iterations"):
        ISMCTSBot(iterations=iterations)


@pytest.mark.parametrize("opponents", ["tree", "policy"])
@spies_on_the_search
def test_opponents_policy_keeps_only_the_bots_own_moves_in_the_tree(monkeypatch, opponents):
    import arena_bots.ismcts_search as ismcts

    expanded_for, asked_for = set(), set()
    real_expand, real_favourite_in = ismcts.expand, PlayoutEvaluator.favourite_in

    def expand(node, seat, untried, state, rng, favourite, prior):
        expanded_for.add(seat)
        return real_expand(node, seat, untried, state, rng, favourite, prior)

    def favourite_in(self, state, seat):
        asked_for.add(seat)
        return real_favourite_in(self, state, seat)

    monkeypatch.setattr(ismcts, "expand", expand)
    monkeypatch.setattr(PlayoutEvaluator, "favourite_in", favourite_in)
    result = play("color-flush", 0, 3, 3, {"iterations": 40, "opponents": opponents})
    assert result.state.is_terminal() and result.record["faults"] == []
    if opponents == "tree":
        assert 0 in expanded_for and expanded_for - {0} and asked_for == set()   # others' moves searched too
    else:
        assert expanded_for == {0} and asked_for == {1, 2}         # the others play the policy


def test_the_opponent_model_defaults_to_the_rulesets_hint_and_a_given_one_wins(monkeypatch):
    import arena_bots.ismcts as ismcts

    def model(ruleset_id, **params):
        bot = ISMCTSBot(**params)
        bot.rng = random.Random(0)
        bot.start({"ruleset": ruleset_id, "seat": 0, "players": 3, "options": {}})
        return bot.opponent_model
    assert model("flip-7") == search_hints("flip-7").opponents
    monkeypatch.setattr(ismcts, "search_hints", lambda rid: SearchHints(opponents="policy"))
    assert model("flip-7") == "policy" and model("flip-7", opponents="tree") == "tree"


def test_opponents_must_be_tree_or_policy():
    with pytest.raises(ValueError, match="opponents"):
        ISMCTSBot(opponents="oracle")


def test_prior_at_must_be_root_or_own():
    with pytest.raises(ValueError, match="prior_at"):
        ISMCTSBot(prior_at="everywhere")


def test_a_given_evaluation_replaces_the_rulesets_declared_one():
    def cutoff(evaluation=None):
        bot = ISMCTSBot(evaluation=evaluation)
        bot.rng = random.Random(0)
        bot.start({"ruleset": "flip-hue", "seat": 0, "players": 3, "options": {}})
        return bot.cutoff
    assert cutoff() is search_hints("flip-hue").evaluation
    from arena_bots.flip_hue_value import evaluate_flip_hue_fitted
    assert cutoff("arena_bots.flip_hue_value:evaluate_flip_hue_fitted") is evaluate_flip_hue_fitted
    assert cutoff("arena_bots.ismcts:neutral_evaluation") is neutral_evaluation


@pytest.mark.parametrize("evaluation", ["evaluate_flip_hue", "a:b:c", ":f", 3])
def test_evaluation_must_be_a_module_function_name(evaluation):
    with pytest.raises(ValueError, match="evaluation"):
        ISMCTSBot(evaluation=evaluation)


# Pinned before ismcts was split along OpenSpiel's seams (Evaluator, Node, select / expand /
# evaluate / backpropagate): the same moves for the same seeds. 3 players, ismcts in seat 0.
GOLDEN = [
    # re-pinned when Flip 7's cut-off value became the fitted one (now rules/flip_7/data/value.json)
    ("flip-7", {"iterations": 12}, 7, "b4c90be6f2f4fd8d9f0f61f9ceeb69bd8cfebbc56af6eb5eede2d887dcf483b6"),
    ("flip-7", {"iterations": 12, "prior_weight": 2}, 7,
     "05a4f39782e635414ff8a5ff55670a5fdb2ae3a195e7e6ac8917b17e98f7313d"),
    ("uno-flip", {"iterations": 12}, 7, "5d99768d97b48f323bce2ce62d600b78a1545c9fe6ad894d43dc5a7f3d37cd1f"),
    ("uno-flip", {"iterations": 12, "playout": "random"}, 8,
     "e82f3b12f5615a8be512c425a3c207cd9d36d02dd84696f5863ce95a6704dd0f"),
    ("color-flush", {"iterations": 12}, 3, "69c521b957904462a7e18761bef772aa4817e596a71f75271b2159896c5b0333"),
    # re-pinned when color-flush declared opponents = "policy" (12 iterations cannot try every
    # first-turn action, so it now plays the favourite there, as prior_weight 0 does)
    ("color-flush", {"iterations": 12}, 5, "b54ed1199d7761bc222a4987e9396dfd32a64726ceb511efaf3b0e5395f2d992"),
    ("color-flush", {"iterations": 12, "prior_weight": 0}, 5,
     "b54ed1199d7761bc222a4987e9396dfd32a64726ceb511efaf3b0e5395f2d992"),
    ("flip-hue", {"iterations": 12}, 7, "46480e5f963f5d83f0e9961bffa999b8d04f04298e6d0b61d047e388dde70df7"),
]


def test_flip7_fitted_value_is_a_probability_of_finishing_ahead_that_grows_near_the_target():
    from arena.rules.flip_7.evaluation import flip7_ahead, flip7_value_model

    weights, cap = flip7_value_model()   # read from the package data
    assert len(weights) == 4 and cap > 1
    assert flip7_ahead([50.0, 50.0, 50.0], 200) == [0.5, 0.5, 0.5]
    a, b = flip7_ahead([120.0, 100.0], 200)
    assert a > 0.5 and abs(a + b - 1) < 1e-12          # P(A ahead) + P(B ahead) = 1
    early, late = flip7_ahead([40.0, 20.0], 200)[0], flip7_ahead([190.0, 170.0], 200)[0]
    assert 0.5 < early < late                            # the same lead weighs more near the target
    assert flip7_ahead([300.0, 0.0], 200)[0] < 1.0


@pytest.mark.parametrize("ruleset_id, params, seed, expected", GOLDEN)
def test_golden_transcripts(ruleset_id, params, seed, expected):
    result = play(ruleset_id, 0, 3, seed, params)
    assert result.record["transcript_hash"] == expected


def test_search_hints_are_one_frozen_record_per_ruleset():
    assert all(search_hints(rid) is not NO_HINTS for rid in ("flip-7", "uno-flip", "color-flush", "flip-hue"))
    assert search_hints("no-such-ruleset") == NO_HINTS == SearchHints()
    with pytest.raises(AttributeError):
        search_hints("flip-7").prior_weight = 1.0  # type: ignore[misc]
    assert [search_hints(rid).playout_depth for rid in ("flip-7", "uno-flip", "color-flush", "flip-hue")] \
        == [60, 20, 3, 3]
    assert search_hints("flip-7").playout_stop == "round-end"
    from arena_bots.flip7_threshold import Flip7ThresholdBot
    assert heuristic_bot("flip-7") is Flip7ThresholdBot and heuristic_bot("no-such-ruleset") is None


class _Constant:
    """An Evaluator that favours one action and values every state alike."""

    def __init__(self, favourite):
        self.calls = 0
        self._favourite = favourite

    def favourite(self, observation):
        return self._favourite

    def evaluate(self, state, seat):
        self.calls += 1
        return [0.5] * state.players


def test_search_takes_any_evaluator_and_plays_its_favourite_on_equal_counts():
    ruleset = REGISTRY.ruleset("flip-7").cls
    seen = {}

    class Capture(RandomBot):
        def act(self, observation):
            if len(observation["legal_actions"]) > 1 and "observation" not in seen:
                seen["observation"] = observation
            return super().act(observation)

    play_game(ruleset, [Entrant(Capture), Entrant(RandomBot)], 3, options=SHORT["flip-7"])
    observation = seen["observation"]
    for favourite in observation["legal_actions"]:
        evaluator = _Constant(favourite)
        # two iterations expand each of flip-7's two root actions once: a tie, the favourite wins
        action = search(observation, ruleset.sample_state, [], random.Random(0), evaluator, iterations=2)
        assert evaluator.calls == 2 and action == favourite


def test_a_playout_evaluator_without_bots_plays_uniformly_and_cuts_off():
    state = REGISTRY.ruleset("uno-flip").cls.new_game(2, REGISTRY.ruleset("uno-flip").cls.resolve_options(),
                                                      random.Random(1))
    evaluator = PlayoutEvaluator(None, 0, lambda s, me: [0.25, 0.75], random.Random(0), None, {})
    assert evaluator.favourite({"seat": 0}) is None
    assert evaluator.evaluate(state, 0) == [0.25, 0.75]   # depth 0: the cut-off right away


def test_backpropagation_credits_each_node_with_its_choosers_reward():
    from arena_bots.ismcts import backpropagate

    root, first, second = Node(0), Node(0), Node(1)
    backpropagate(root, [first, second], [1.0, 0.25])
    assert (root.visits, first.visits, second.visits) == (1, 1, 1)
    assert (first.reward, second.reward) == (1.0, 0.25)


def _flip7_states(games=6, players=3):
    """Every non-terminal state of a few random Flip 7 games (each a fresh clone)."""
    ruleset = REGISTRY.ruleset("flip-7").cls
    rng = random.Random(9)
    for game in range(games):
        state = ruleset.new_game(players, ruleset.resolve_options({"target_score": 100}), random.Random(game))
        while not state.is_terminal():
            yield state.clone()
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])


def test_the_flip_7_fast_paths_match_the_view_based_originals():
    # the playout reads flip7-threshold's move and the cut-off evaluation off the state
    # instead of a view: both must be exactly what the view-based code gives
    from arena.rules.flip_7.evaluation import evaluate_flip_7, flip7_ahead
    from arena_bots.flip7_threshold import Flip7ThresholdBot

    bot = Flip7ThresholdBot()
    bot.rng = random.Random(0)
    move = search_hints("flip-7").fast_move
    assert move is not None and search_hints("flip-7").playout_bot is Flip7ThresholdBot
    asked = 0
    for state in _flip7_states():
        seat = state.current_seat()
        view = state.view(seat)
        values = [total + (0.75 * row["score"] if row["status"] == "active" else row["score"])
                  for total, row in zip(view["totals"], view["rows"])]
        assert evaluate_flip_7(state, seat) == flip7_ahead(values, max(1, view["target_score"]))
        actions = state.legal_actions()
        fast = move(bot, state, seat, actions)
        if fast is not None and len(actions) > 1:
            asked += 1
            assert fast == bot.act({"ruleset": "flip-7", "seat": seat, "players": 3, "view": view,
                                    "legal_actions": actions, "events": [], "options": {}})
    assert asked > 100


def test_the_uno_flip_fast_path_plays_and_draws_exactly_as_the_heuristic_does():
    # the playout asks uno-flip-heuristic's play-or-draw off the state (a TableReading)
    # instead of a view: same move and same draws of its rng as `act`, on the states of
    # real games and on the search's own samples of them (their cards are dealt anew)
    from arena.rules.uno_flip import UnoFlip
    from arena_bots.uno_flip_heuristic import UnoFlipHeuristicBot

    move = search_hints("uno-flip").fast_move
    assert move is not None and search_hints("uno-flip").playout_bot is UnoFlipHeuristicBot
    rng = random.Random(8)
    asked = colors = 0
    for game in range(12):
        players = 2 + game % 3
        state = UnoFlip.new_game(players, UnoFlip.resolve_options({"target_score": 0}), random.Random(game))
        events = [[] for _ in range(players)]
        mover = UnoFlipHeuristicBot()
        mover.rng = random.Random(game)
        while not state.is_terminal():
            seat = state.current_seat()
            for s in range(players):
                events[s].extend(state.take_events(s))
            actions = state.legal_actions()
            observation = {"ruleset": "uno-flip", "seat": seat, "players": players, "view": state.view(seat),
                           "legal_actions": actions, "events": [], "options": state.options}
            candidates = [state]
            if len(actions) > 1:
                candidates.append(UnoFlip.sample_state(observation, rng, events[seat]))
            for where in candidates:
                fast_bot, slow_bot = UnoFlipHeuristicBot(), UnoFlipHeuristicBot()
                fast_bot.rng, slow_bot.rng = random.Random(asked), random.Random(asked)
                fast = move(fast_bot, where, seat, where.legal_actions())
                if fast is None:
                    colors += 1
                    continue
                slow = slow_bot.act(dict(observation, view=where.view(seat), legal_actions=where.legal_actions()))
                assert fast == slow
                assert fast_bot.rng.getstate() == slow_bot.rng.getstate()
                asked += 1
            state.apply(mover.act(observation) if seat % 2 == 0 else actions[rng.randrange(len(actions))])
    assert asked > 500 and colors > 10


@pytest.mark.parametrize("ruleset_id", ["color-flush", "flip-hue"])
def test_a_sample_carries_the_view_table_cards_py_would_build(ruleset_id):
    # the samplers assemble the table of card views from per-pair entries (cheaper than a
    # rebuild per sample): it must equal the one cards.py builds for the sampled faces
    from arena.rules.cards import _views_for

    seen = {}

    class Capture(RandomBot):
        def act(self, observation):
            if len(observation["legal_actions"]) > 1 and observation["seat"] == 0:
                seen.setdefault("observation", observation)
            return super().act(observation)

    ruleset = REGISTRY.ruleset(ruleset_id).cls
    play_game(ruleset, [Entrant(Capture), Entrant(RandomBot), Entrant(RandomBot)], 4, options=SHORT[ruleset_id])
    rng = random.Random(2)
    for _ in range(5):
        table = ruleset.sample_state(seen["observation"], rng, []).table
        assert table._view_faces is table.faces
        assert table._view_table == _views_for(table.faces)


def _view_based_color_flush(state, me):
    from arena_bots.color_flush_heuristic import distance

    return pairwise([-distance([(c["face"], c["back"]) for c in state.view(seat)["hands"][seat]])
                     for seat in range(state.players)], 1.0)


def _view_based_flip_hue(state, me):
    view = state.view(me)
    values = []
    for seat in range(state.players):
        own = state.view(seat) if seat != me else view
        faction = own["factions"][seat]
        best = 0
        for color in [c for c in (faction.get("top"), faction.get("bottom")) if c is not None]:
            best = max(best, sum(1 for card in own["hands"][seat] if card["face"] == color))
            for other, hand in enumerate(view["hands"]):
                if other != seat:
                    best = max(best, sum(1 for card in hand if card["back"] == color))
        values.append(best * best / 5.0)
    return pairwise(values, 1.0)


def _view_based_uno_flip(state, me):
    view = state.view(me)
    values = [-6.0 * len(hand) for hand in view["hands"]]
    target = state.options.get("target_score", 0)
    if target:
        sign = -1.0 if state.options.get("scoring") == "lowest" else 1.0
        values = [v + sign * 360.0 * total / target for v, total in zip(values, view["scores"])]
    return pairwise(values, 12.0)


@pytest.mark.parametrize("ruleset_id, reference", [("uno-flip", _view_based_uno_flip),
                                                   ("color-flush", _view_based_color_flush),
                                                   ("flip-hue", _view_based_flip_hue)])
def test_the_cut_off_evaluations_read_what_the_views_show(ruleset_id, reference):
    # they read hands and factions off the table instead of building whole views
    evaluation = search_hints(ruleset_id).evaluation
    ruleset = REGISTRY.ruleset(ruleset_id).cls
    rng = random.Random(5)
    checked = 0
    for game in range(3):
        options = dict(SHORT[ruleset_id], target_score=500) if ruleset_id == "uno-flip" else SHORT[ruleset_id]
        state = ruleset.new_game(3, ruleset.resolve_options(options), random.Random(game))
        while not state.is_terminal():
            me = state.current_seat()
            assert evaluation(state, me) == reference(state, me)
            checked += 1
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
    assert checked > 30


def test_the_inlined_shuffle_draws_like_random_shuffle():
    # the samplers' and engines' orders (hence transcripts and ismcts's moves) must not
    # depend on which one runs
    from arena.rules.chance import shuffle

    for seed in range(300):
        ours, theirs = random.Random(seed), random.Random(seed)
        items = list(range(seed % 97))
        expected = list(items)
        theirs.shuffle(expected)
        shuffle(items, ours)
        assert items == expected and ours.random() == theirs.random()
