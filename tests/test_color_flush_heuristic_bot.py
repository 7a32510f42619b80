"""The `color-flush-heuristic` bot: legal play, sensible choices, and it beats random."""

from __future__ import annotations

import random

import pytest

from arena.match import Entrant, play_game
from arena.rules.color_flush import ColorFlush
from arena.seeding import bot_seed
from arena_bots.color_flush_heuristic import ColorFlushHeuristicBot, distance, settle
from arena_bots.random_bot import RandomBot
from arena.rules.observation import make_observation

HERO, RANDOM = Entrant(ColorFlushHeuristicBot), Entrant(RandomBot)


def observe(state, seat):
    return make_observation(ColorFlush, state, seat)


def bot():
    hero = ColorFlushHeuristicBot()
    hero.rng = random.Random(0)
    return hero


def cards(text):
    return [tuple(card.split("/")) for card in text.split()]


@pytest.mark.parametrize("players, options", [(2, {}), (3, {"white_swap": "may"}), (4, {}), (5, {}),
                                              (6, {"white_swap": "may"})])
def test_it_only_plays_legal_actions_at_every_table_size(players, options):
    # play_game raises on an illegal answer (the default fault policy)
    for seed in range(6):
        seats = [HERO if s % 2 == 0 else RANDOM for s in range(players)]
        play_game(ColorFlush, seats, 300 + seed, options, ask_forced=True)
        play_game(ColorFlush, [HERO] * players, 400 + seed, options, ask_forced=True)


def test_it_beats_random_bots_duplicate_seated():
    wins = games = 0
    for deal in range(15):
        for hero in range(4):
            seats = [HERO if s == hero else RANDOM for s in range(4)]
            seeds = [bot_seed(deal, s, game=hero) for s in range(4)]
            outcome = play_game(ColorFlush, seats, 7000 + deal, bot_seeds=seeds).record["outcome"]
            games += 1
            wins += outcome["reason"] == "win" and outcome["standing"][hero] == 1
    assert wins / games > 0.6  # chance is 0.25; it wins over 90% in the benchmark


def test_it_plays_an_action_that_wins_at_once():
    st = ColorFlush.lay_out(3, hands=[cards("red/blue red/green red/yellow white/purple blue/purple"),
                                     cards("green/red blue/yellow yellow/green purple/blue green/purple"),
                                     cards("blue/green yellow/red purple/green green/yellow red/purple")],
                            pile=cards("green/yellow"))
    # seat 0 must first get rid of blue: placing it leaves red red red white -> a win
    assert bot().act(observe(st, 0)) == "place:4"


def test_it_flips_a_card_whose_back_it_knows_is_its_color():
    st = ColorFlush.lay_out(3, hands=[cards("red/blue red/green red/yellow blue/red green/purple"),
                                     cards("green/red blue/yellow yellow/green purple/blue green/purple"),
                                     cards("blue/green yellow/red purple/green green/yellow red/purple")],
                            pile=cards("green/yellow"))
    st.table.see_both(st.table.hands[0][3], 0)  # seat 0 has seen the red back of its blue card
    assert bot().act(observe(st, 0)) == "flip:3"


def test_after_placing_a_white_it_swaps_with_the_hand_whose_backs_it_wants():
    st = ColorFlush.lay_out(3, hands=[cards("white/red green/blue yellow/purple purple/yellow blue/green"),
                                     cards("green/red blue/yellow yellow/green purple/blue green/purple"),
                                     cards("green/blue yellow/blue purple/blue red/blue")],
                            pile=cards("green/yellow"))
    st.apply("place:0")
    assert bot().act(observe(st, 0)) == "swap:2"  # seat 2's backs are blue x4: an instant win


def test_distance_and_forced_flips_as_the_bot_models_them():
    assert distance(cards("red/blue red/green white/blue red/red")) == 0
    three = cards("red/blue red/green white/blue")  # 3 good faces: 0.3 short of the 4 needed
    assert distance(three + [("blue", "red")]) == pytest.approx(1.0 + 0.3)  # one known flip away
    assert distance(three + [("blue", None)]) == pytest.approx(1.3 + 0.3)  # an unknown back
    assert distance(three + [("blue", "green")]) == pytest.approx(1.6 + 0.3)  # must go
    assert settle(cards("black/red red/blue green/black")) == cards("red/black blue/red green/black")


def test_the_one_pass_win_checks_agree_with_wins_and_settle():
    # the bot checks every give, place and take for a win at once with these shortcuts
    # instead of settling and testing each resulting hand: they must agree exactly
    import random

    from arena_bots.color_flush_heuristic import (BLACK, WHITE, settle, take_wins, taken_face_wins, wins,
                                                  wins_without_each)

    rng = random.Random(3)
    palettes = (["red", "blue", WHITE, BLACK, None], ["red", "red", "red", WHITE], ["red", "blue", WHITE])
    taken = wins_seen = 0
    for _ in range(30000):
        sides = rng.choice(palettes)
        hand = [(rng.choice(sides), rng.choice(sides + [None])) for _ in range(rng.randint(1, 7))]
        assert wins_without_each(hand) == [wins(hand[:p] + hand[p + 1:]) for p in range(len(hand))], hand
        rule = take_wins(hand)
        card = (rng.choice(sides + [None]), rng.choice(sides + [None]))
        if rule is None or card[0] == BLACK:
            continue   # a black face: the bot settles and asks `wins` itself
        expected = wins(settle(hand + [card]))
        assert taken_face_wins(rule, card[0]) == expected, (hand, card)
        taken += 1
        wins_seen += expected
    assert taken > 10000 and wins_seen > 1000
