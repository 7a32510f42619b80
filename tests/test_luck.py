"""Luck corrections (arena/luck.py) and the capabilities they rest on: a game's pairwise value
and its unrevealed cards (issue 43 item 2, issue 34 item 1; docs/luck.md)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.luck import _sampled, adjusted_comparisons, game_corrections, method_for, supports_luck
from arena.match import Entrant, play_game
from arena.rules.chance import shuffle
from arena.rules.flip_7.ruleset import Flip7
from arena.seeding import bot_seed, derive_seed
from arena.testing import ConformanceError, cases, check_pairwise_value, check_unrevealed_law
from arena_bots.flip7_threshold import Flip7ThresholdBot
from arena_bots.random_bot import RandomBot


def _biased_permute(state, rng):
    """Shuffles the deck, then puts a 12 on top 30% of the time: a wrong law."""
    shuffle(state.deck, rng)
    if rng.random() < 0.3:
        for i, card in enumerate(state.deck):
            if card == "12":
                state.deck[i], state.deck[-1] = state.deck[-1], state.deck[i]
                break


class _PeekingFlip7(Flip7):
    """A Flip 7 whose value reads the next card of the deck (what no seat knows)."""

    @classmethod
    def pairwise_value(cls, state):
        matrix = Flip7.pairwise_value(state)
        if state.deck and state.deck[-1] == "12" and state.players == 2 and not state.over:
            matrix[0][1], matrix[1][0] = matrix[0][1] * 0.9, 1 - matrix[0][1] * 0.9
        return matrix


class _BiasedFlip7(Flip7):
    """A Flip 7 whose permute_unrevealed favours a 12 on top."""

    @classmethod
    def permute_unrevealed(cls, state, rng):
        _biased_permute(state, rng)


# -- the capabilities and the kit -----------------------------------------------------------


def test_flip7_declares_the_luck_capabilities_and_names_its_value():
    assert supports_luck(Flip7)
    method = method_for(Flip7)
    assert (method.value_id, method.value_version) == Flip7.pairwise_value_identity


def test_flip7_pairwise_value_passes_the_kit():
    check_pairwise_value(Flip7, cases(Flip7, seeds=2, players=[2, 3]), points=4)


def test_a_value_that_reads_the_unrevealed_deck_is_refused_by_the_kit():
    with pytest.raises(ConformanceError, match="unrevealed cards were reordered"):
        check_pairwise_value(_PeekingFlip7, cases(_PeekingFlip7, seeds=4, players=[2]), points=10)


def test_flip7_reveals_its_cards_as_its_unrevealed_law_says():
    check_unrevealed_law(Flip7, players=2, games=300)


def test_a_biased_permute_is_caught_by_the_unrevealed_law_check():
    with pytest.raises(ConformanceError, match="not distributed as permute_unrevealed says"):
        check_unrevealed_law(_BiasedFlip7, players=2, games=300)


def test_flip7_value_is_exact_at_the_end_and_antisymmetric_before():
    state = Flip7.lay_out(2, {"target_score": 10}, seed=3, deck_top=["12", "11"])
    value = Flip7.pairwise_value(state)
    assert value[0][1] == pytest.approx(1 - value[1][0]) and value[0][0] == 0.5
    while not state.is_terminal():
        state.apply(random.Random(len(state.god_log)).choice(state.legal_actions()))
    standing = state.outcome()["standing"]
    expected = 1.0 if standing[0] < standing[1] else 0.5 if standing[0] == standing[1] else 0.0
    assert Flip7.pairwise_value(state)[0][1] == expected


def test_a_higher_banked_row_is_worth_more():
    low = Flip7.lay_out(2, seed=1, totals=[100, 100])
    high = Flip7.lay_out(2, seed=1, totals=[130, 100])
    assert Flip7.pairwise_value(high)[0][1] > Flip7.pairwise_value(low)[0][1]


# -- the corrections ---------------------------------------------------------------------------


def _game(deal: int, first, second, seed: int = 11) -> dict:
    deal_seed = derive_seed(seed, "test-luck", deal)
    return play_game(Flip7, [first, second], deal_seed,
                     bot_seeds=[bot_seed(deal_seed, s) for s in range(2)]).record


def test_corrections_are_recomputed_to_the_same_floats():
    record = _game(0, Entrant(RandomBot), Entrant(Flip7ThresholdBot, {"threshold": 23}))
    first, again = game_corrections(Flip7, record, clones=4), game_corrections(Flip7, record, clones=4)
    assert first.corrections == again.corrections
    assert 0 < first.corrected <= first.actions


def test_corrections_are_antisymmetric_and_zero_on_the_diagonal():
    record = _game(1, Entrant(Flip7ThresholdBot, {"threshold": 23}), Entrant(Flip7ThresholdBot, {"threshold": 31}))
    luck = game_corrections(Flip7, record, clones=4)
    c = luck.corrections
    assert c[0][0] == c[1][1] == 0.0
    assert c[0][1] == pytest.approx(-c[1][0], abs=1e-12)
    adjusted = adjusted_comparisons(record, c)
    assert adjusted[0][1] + adjusted[1][0] == pytest.approx(1.0)


def test_only_actions_that_draw_or_move_unrevealed_cards_are_corrected():
    record = _game(2, Entrant(RandomBot), Entrant(Flip7ThresholdBot, {"threshold": 23}))
    luck = game_corrections(Flip7, record, clones=4)
    state = Flip7.new_game(2, record["ruleset"]["options"], random.Random(record["deal_seed"]))
    drew = []
    for index, (_, action) in enumerate(record["decisions"]):
        before = (len(state.deck), state.chance.points)
        state.apply(action)
        if (len(state.deck), state.chance.points) != before:
            drew.append(index)
    assert luck.decisions == drew
    assert len(drew) < luck.actions   # stays and gives that end nothing are skipped


def _mean_correction(games: int, clones: int) -> tuple[float, float]:
    sums = []
    for deal in range(games):
        players = [Entrant(RandomBot), Entrant(Flip7ThresholdBot, {"threshold": 17 + 2 * (deal % 6)})]
        if deal % 2:
            players.reverse()
        record = _game(deal, *players, seed=23)
        sums.append(game_corrections(Flip7, record, clones=clones).corrections[0][1])
    return statistics.fmean(sums), statistics.stdev(sums) / math.sqrt(len(sums))


def test_mean_summed_correction_is_zero_within_its_interval_small_sample():
    mean, se = _mean_correction(30, clones=4)
    assert abs(mean) < 3.29 * se   # 99.9%: the corrections have mean zero whatever the bots do


@pytest.mark.slow
def test_mean_summed_correction_is_zero_within_its_interval_10000_games():
    mean, se = _mean_correction(10_000, clones=4)
    assert abs(mean) < 3.29 * se


def test_adjusted_and_raw_means_agree_within_their_intervals_on_a_known_pair():
    a, b = Entrant(Flip7ThresholdBot, {"threshold": 23}), Entrant(Flip7ThresholdBot, {"threshold": 17})
    raw, adjusted = [], []
    for deal in range(20):
        raw_deal = adjusted_deal = 0.0
        for seats in ((a, b), (b, a)):
            record = _game(deal, *seats, seed=31)
            ia, ib = (0, 1) if seats[0] is a else (1, 0)
            standing = record["outcome"]["standing"]
            raw_deal += 1.0 if standing[ia] < standing[ib] else 0.5 if standing[ia] == standing[ib] else 0.0
            adjusted_deal += adjusted_comparisons(record, game_corrections(Flip7, record, clones=4).corrections)[ia][ib]
        raw.append(raw_deal / 2)
        adjusted.append(adjusted_deal / 2)
    half = [2.05 * statistics.stdev(x) / math.sqrt(len(x)) for x in (raw, adjusted)]
    gap = abs(statistics.fmean(raw) - statistics.fmean(adjusted))
    assert gap < half[0] + half[1]
    assert statistics.stdev(adjusted) < statistics.stdev(raw)


def test_color_flush_pairwise_value_passes_the_kit_and_a_place_on_the_pile_is_corrected_by_zero():
    from arena.rules.color_flush.ruleset import ColorFlush

    check_pairwise_value(ColorFlush, cases(ColorFlush, seeds=2, players=[2, 3]), points=4)
    record = play_game(ColorFlush, [Entrant(RandomBot), Entrant(RandomBot)], 3).record
    luck = game_corrections(ColorFlush, record, clones=4)
    assert luck.corrected > 0
    state = ColorFlush.new_game(2, record["ruleset"]["options"], random.Random(record["deal_seed"]))
    for index, (_, action) in enumerate(record["decisions"]):
        if index in luck.decisions and action.startswith("place:"):
            before = state.clone()
            state.apply(action)
            # the pile changed (a card placed on it), nothing of chance did: every clone agrees
            expected = _sampled(ColorFlush, before, action, record["deal_seed"], index, 3)
            assert expected == ColorFlush.pairwise_value(state)
            return
        state.apply(action)
    raise AssertionError("no card was placed on the pile in this game")


def test_clones_that_all_agree_give_exactly_their_value_so_the_correction_is_exactly_zero():
    from arena.luck import _mean

    matrix = [[0.5, 0.123], [0.877, 0.5]]   # 0.123 / 3 summed three times is not 0.123
    assert _mean([matrix, [row[:] for row in matrix], [row[:] for row in matrix]]) == matrix
