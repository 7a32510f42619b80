"""arena.envs.openspiel: OpenSpiel's own random_sim_test for every ruleset, explicit chance, the length
cap, ISMCTS through resample_from_infostate, and OpenSpiel bots entered as arena bots."""

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

import arena  # noqa: E402
from arena.envs.openspiel import ISMCTSBot, OpenSpielBot, load_game, short_name  # noqa: E402
from arena.match import replay  # noqa: E402
from arena.rules.flip_7 import Flip7  # noqa: E402

SHORT = {"flip-7": {"target_score": 40}, "uno-flip": {"max_turns": 40}, "color-flush": {"max_turns": 15},
         "flip-hue": {"max_turns": 15}}


@pytest.mark.parametrize("ruleset", sorted(SHORT))
def test_random_sim_test_passes(ruleset):
    game = load_game(ruleset, players=2, **SHORT[ruleset])
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_each_ruleset_is_registered_with_pyspiel_by_name():
    game = pyspiel.load_game(short_name("flip-7"), {"players": 3})
    assert game.num_players() == 3
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


def deal(outcomes_from):
    """Resolve the deal's chance nodes with outcome `outcomes_from(node, outcomes)`; the first decision."""
    state = load_game("flip-7", players=2).new_initial_state()
    nodes = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        assert len({p for _, p in outcomes}) == 1  # a uniform choice
        state.apply_action(outcomes_from(nodes, outcomes))
        nodes += 1
    return state, nodes


def test_the_deal_is_explicit_chance_nodes_that_decide_the_deck():
    first, nodes = deal(lambda node, outcomes: outcomes[0][0])
    again, _ = deal(lambda node, outcomes: outcomes[0][0])
    other, _ = deal(lambda node, outcomes: outcomes[-1][0])
    assert nodes == 93  # a shuffle of 94 cards: Fisher-Yates, one node per place but the last
    assert first.engine.deck == again.engine.deck
    assert first.engine.deck != other.engine.deck
    assert sorted(first.engine.all_cards()) == sorted(Flip7.new_game(2, Flip7.resolve_options({}),
                                                                      random.Random(0)).all_cards())


def test_a_game_that_reaches_max_game_length_ends_with_every_return_zero():
    game = load_game("flip-7", players=2, max_game_length=120)
    assert game.max_game_length() == 120
    state, rng = game.new_initial_state(), random.Random(3)
    while not state.is_terminal():
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(actions))
    assert len(state.history()) == 120 and state.returns() == [0.0, 0.0]


def test_resampled_states_keep_the_players_information_state_and_change_what_it_cannot_see():
    game = load_game("flip-7", players=2)
    state, rng = game.new_initial_state(), random.Random(5)
    while state.is_chance_node() or len(state.history()) < 110:
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(actions))
    player = state.current_player()
    decks = set()
    for k in range(5):
        sample = state.resample_from_infostate(player, random.Random(k).random)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.observation_tensor(player) == state.observation_tensor(player)
        decks.add(tuple(sample.engine.deck))
    assert len(decks) > 1


class SmallISMCTS(ISMCTSBot):
    name = "small-ismcts"

    def __init__(self):
        super().__init__(simulations=4)


def test_openspiels_ismcts_plays_every_ruleset_through_the_arena_and_replays_exactly():
    for ruleset, options in SHORT.items():
        result = arena.play(ruleset, [SmallISMCTS, "random"], seed=2, options=options)
        replay(result.record, arena.rulesets.get(ruleset))
    first = arena.play("flip-7", [SmallISMCTS, "random"], seed=5, options=SHORT["flip-7"])
    assert arena.play("flip-7", [SmallISMCTS, "random"], seed=5, options=SHORT["flip-7"]).record == first.record


def test_openspiel_ismcts_is_an_installed_bot():
    result = arena.play("flip-7", ["openspiel-ismcts", "random"], seed=1, options={"target_score": 30})
    assert result.names == ["openspiel-ismcts", "random"]
    assert arena.bots.get("openspiel-ismcts")().params["simulations"] == 50


class Spy(OpenSpielBot):
    """Records the deck of every state it is given; answers the first legal action."""

    name = "spy"
    seen: list = []

    def make_bot(self, game, rng):
        class First:
            def step(self, state):
                Spy.seen.append((len(Spy.seen), list(state.engine.deck), state.engine.view(state.current_player())))
                return state.legal_actions()[0]
        return First()


def test_an_openspiel_bot_gets_a_state_sampled_from_its_observation_never_the_true_one():
    Spy.seen = []
    result = arena.play("flip-7", [Spy, "random"], seed=4, options={"target_score": 60})
    true_decks = []
    state = Flip7.new_game(2, result.record["ruleset"]["options"], random.Random(4))
    for seat, action in result.record["decisions"]:
        if seat == 0 and len(state.legal_actions()) > 1:
            true_decks.append((list(state.deck), state.view(0)))
        state.apply(action)
    assert len(Spy.seen) == len(true_decks) > 3
    for (_, sampled_deck, sampled_view), (true_deck, true_view) in zip(Spy.seen, true_decks):
        assert sampled_view == true_view and sorted(sampled_deck) == sorted(true_deck)
    assert any(sampled != true for (_, sampled, _), (true, _) in zip(Spy.seen, true_decks))


@pytest.mark.parametrize("ruleset", sorted(SHORT))
def test_the_observation_tensor_is_the_encoding_of_the_players_observation(ruleset):
    import numpy as np

    game = load_game(ruleset, players=2, **SHORT[ruleset])
    state, rng, checked = game.new_initial_state(), random.Random(7), 0
    while not state.is_terminal() and checked < 40:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        for player in range(2):
            expected = game.encoding.encode(state.observation_for(player))
            assert np.array_equal(np.asarray(state.observation_tensor(player), dtype=np.float32), expected)
            checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked >= 20
