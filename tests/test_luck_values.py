"""UNO Flip's and Flip Hue's pairwise values and unrevealed cards (rules/<game>/value.py):
written but not declared (declaring makes luck-adjusted scores the rulesets' default), so
checked here with the kit's checks called directly, and through `arena.luck` on a subclass
that declares them."""

from __future__ import annotations

import random

import pytest

from arena.luck import game_corrections, supports_luck
from arena.match import Entrant, play_game
from arena.rules.flip_hue import FlipHue
from arena.rules.flip_hue import value as hue_value
from arena.rules.uno_flip import UnoFlip
from arena.rules.uno_flip import value as uno_value
from arena.testing import (Case, ConformanceError, check_pairwise_value, check_unrevealed_law, low_rank_p_value,
                           unrevealed_law_ranks)
from arena_bots.random_bot import RandomBot

GAMES = {"uno-flip": (UnoFlip, uno_value), "flip-hue": (FlipHue, hue_value)}


def declared(cls):
    """`cls` with its value and unrevealed cards declared: the one line the rulesets leave commented."""
    return type(cls.__name__, (cls,), {"capabilities": cls.capabilities | {"pairwise_value", "permute_unrevealed"}})


def random_state(cls, players, seed, decisions, options=None):
    rng = random.Random(seed)
    state = cls.new_game(players, cls.resolve_options(options), random.Random(seed))
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


def test_neither_ruleset_declares_its_value_so_their_scores_stay_raw_by_default():
    assert not supports_luck(UnoFlip) and not supports_luck(FlipHue)
    assert supports_luck(declared(UnoFlip)) and supports_luck(declared(FlipHue))


@pytest.mark.parametrize("ruleset, options", [("uno-flip", {}), ("uno-flip", {"target_score": 0}),
                                              ("uno-flip", {"scoring": "lowest"}), ("flip-hue", {})])
def test_the_value_passes_the_kits_pairwise_check(ruleset, options):
    cls, _ = GAMES[ruleset]
    check_pairwise_value(cls, [Case(players, seed, options) for players in (2, 3, 5) for seed in range(2)],
                         points=6, permutations=2)


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_what_the_engine_reveals_next_follows_permute_unrevealeds_law(ruleset):
    cls, _ = GAMES[ruleset]
    check_unrevealed_law(cls, players=3, games=60)


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_a_permute_that_sorts_the_unrevealed_cards_is_caught_by_the_law_check(ruleset):
    cls, module = GAMES[ruleset]

    def sorting(state, rng):
        pile = state.table.piles["draw"]
        places = module.unrevealed_places(state)
        for place, card in zip(places, sorted(pile[i] for i in places)):
            pile[place] = card

    ranks = unrevealed_law_ranks(cls, players=3, games=40, permute=sorting)
    assert low_rank_p_value(ranks, 21) < 1e-6


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_a_permute_that_moves_the_visible_top_is_refused_for_giving_it_away(ruleset):
    cls, module = GAMES[ruleset]

    def top_too(state, rng):
        random.Random(0).shuffle(state.table.piles["draw"])

    leaky = type(cls.__name__, (cls,), {"permute_unrevealed": staticmethod(top_too)})
    with pytest.raises(ConformanceError, match="gave something away"):
        check_pairwise_value(leaky, [Case(3, seed, {}) for seed in range(3)], points=6, permutations=2)


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_permute_reorders_exactly_the_unseen_draw_pile_cards(ruleset):
    cls, module = GAMES[ruleset]
    state = random_state(cls, 3, seed=4, decisions=30)
    pile = state.table.piles["draw"]
    places = module.unrevealed_places(state)
    before = list(pile)
    assert places and len(places) < len(pile)   # the visible top is seen
    orders = set()
    for seed in range(5):
        twin = state.clone()
        module.permute_unrevealed(twin, random.Random(seed))
        after = twin.table.piles["draw"]
        assert [after[i] for i in range(len(after)) if i not in places] == \
            [before[i] for i in range(len(before)) if i not in places]
        assert sorted(after) == sorted(before)
        orders.add(tuple(after))
    assert len(orders) > 1


def test_uno_flips_unseen_cards_include_the_cards_a_flip_did_not_show():
    state = UnoFlip.lay_out(2, seed=3)
    table = state.table
    table.turn_over("draw")   # the old top, seen, is now the bottom; the new top is shown
    draw = table.piles["draw"]
    places = uno_value.unrevealed_places(state)
    assert 0 not in places and len(draw) - 1 not in places and len(places) == len(draw) - 2


def test_flip_hues_deal_pile_gets_new_coins_and_a_reshuffled_pile_keeps_its_sides():
    state = random_state(FlipHue, 3, seed=1, decisions=10)
    assert hue_value.dealt_pile(state)
    places = hue_value.unrevealed_places(state)
    sides = {tuple(state.table.side[c] for c in state.table.piles["draw"])}
    for seed in range(4):
        twin = state.clone()
        hue_value.permute_unrevealed(twin, random.Random(seed))
        sides.add(tuple(twin.table.side[c] for c in twin.table.piles["draw"]))
    assert len(sides) > 1 and places
    state = _after_a_reshuffle()
    assert not hue_value.dealt_pile(state)
    table = state.table
    side_of = {card: table.side[card] for card in table.piles["draw"]}
    for seed in range(4):
        twin = state.clone()
        hue_value.permute_unrevealed(twin, random.Random(seed))
        assert {card: twin.table.side[card] for card in twin.table.piles["draw"]} == side_of


def _after_a_reshuffle():
    for seed in range(50):
        rng = random.Random(seed)
        state = FlipHue.new_game(3, FlipHue.resolve_options(), random.Random(seed))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            if any(event["type"] == "reshuffle" for event in state.god_log) and len(state.table.piles["draw"]) > 3:
                return state
    raise AssertionError("no reshuffle in 50 random games")


def test_uno_flips_value_favours_the_seat_with_fewer_cards_and_is_exact_at_the_end():
    state = UnoFlip.lay_out(2, {"target_score": 0}, seed=5)
    before = uno_value.pairwise_value(state)[0][1]
    table = state.table
    table.hands[1].extend(table.piles["draw"][:3])   # seat 1 holds three cards more
    del table.piles["draw"][:3]
    assert uno_value.pairwise_value(state)[0][1] > before + 0.1
    over = random_state(UnoFlip, 3, seed=2, decisions=100_000, options={"target_score": 0})
    standing = over.outcome()["standing"]
    value = uno_value.pairwise_value(over)
    assert all(value[a][b] == (1.0 if standing[a] < standing[b] else 0.5 if standing[a] == standing[b] else 0.0)
               for a in range(3) for b in range(3))


def test_flip_hues_value_favours_the_seat_nearer_a_line_of_its_colors():
    state = FlipHue.lay_out(2, seed=0, factions=[("red", "blue"), ("green", "orange")],
                            hands=[[("red", "purple")] * 4 + [("purple", "yellow")], [("yellow", "purple")] * 5],
                            draw=[("purple", "orange")] * 10)
    # seat 0: four red faces of five; seat 1: no green or orange face, nor such a back in seat 0's hand
    assert (hue_value.distance(state, 0), hue_value.distance(state, 1)) == (1, 5)
    assert hue_value.pairwise_value(state)[0][1] > 0.7


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_declared_the_luck_corrections_of_a_game_are_antisymmetric_and_not_all_zero(ruleset):
    cls = declared(GAMES[ruleset][0])
    options = {"target_score": 0} if ruleset == "uno-flip" else {"max_turns": 30}
    result = play_game(cls, [Entrant(RandomBot, {}), Entrant(RandomBot, {})], 7, options=options,
                       bot_seeds=[1, 2])
    luck = game_corrections(cls, result.record, clones=4)
    c = luck.corrections
    assert c[0][0] == c[1][1] == 0.0 and c[0][1] == -c[1][0]
    assert luck.corrected > 0 and c[0][1] != 0.0
