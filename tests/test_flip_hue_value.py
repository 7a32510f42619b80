"""Flip Hue's fitted position value (bots/flip_hue_value.py): its features read the full
state as the rulebook's win check does, and its rewards are expected outcome rewards."""

from __future__ import annotations

import random

import pytest

from arena.plugins import load_registry
from arena_bots.flip_hue_value import (FEATURES, evaluate_flip_hue_fitted, seat_features, weights,
                                       win_chances)

FLIP_HUE = load_registry().ruleset("flip-hue").cls
DRAW = [("red", "blue"), ("green", "orange")] * 10


def layout(hands, active=0):
    """3 players: seat 0's factions red/blue, seat 1's green/orange, seat 2's yellow/purple."""
    return FLIP_HUE.lay_out(3, factions=[("red", "blue"), ("green", "orange"), ("yellow", "purple")],
                            hands=hands, draw=DRAW, active=active)


def feature(rows, seat, name):
    return rows[seat][FEATURES.index(name)]


def test_a_seat_with_five_faces_of_its_color_has_a_full_line_of_its_own():
    state = layout([[("red", "green")] * 5, [("blue", "yellow")] * 5, [("flip", "red"), ("orange", "red")]
                    + [("purple", "blue")] * 3])
    rows = seat_features(state)
    assert feature(rows, 0, "best=5") == 1.0 and feature(rows, 0, "best is own faces") == 1.0
    assert feature(rows, 0, "is active") == 1.0 and feature(rows, 1, "is next") == 1.0
    # seat 1 (green/orange) reads seat 0's backs: five greens, a line of another hand's backs
    assert feature(rows, 1, "best=5") == 1.0 and feature(rows, 1, "best is own faces") == 0.0
    # seat 2 (yellow/purple): three purple faces, five yellow backs on seat 1's hand
    assert feature(rows, 2, "best/5") == 1.0 and feature(rows, 2, "flips held") == 1.0


def test_lines_of_four_are_counted_over_colors_and_hands():
    state = layout([[("red", "green")] * 4 + [("blue", "green")], [("green", "yellow")] * 4 + [("orange", "red")],
                    [("purple", "yellow")] * 5])
    rows = seat_features(state)
    # seat 0 (red/blue): four red faces; no other hand's backs hold more than one red or blue
    assert feature(rows, 0, "best/5") == 0.8 and feature(rows, 0, "best>=4") == 1.0
    assert feature(rows, 0, "best=5") == 0.0 and feature(rows, 0, "lines>=4") == 1.0
    # seat 1 (green/orange): four green faces, and seat 0's backs are five greens
    assert feature(rows, 1, "best=5") == 1.0 and feature(rows, 1, "lines>=4") == 2.0
    # seat 2 (yellow/purple): five purple faces and four yellow backs on seat 1; its own
    # yellow backs do not count (nobody wins with the backs of their own hand)
    assert feature(rows, 2, "best is own faces") == 1.0 and feature(rows, 2, "lines>=4") == 2.0


def test_win_chances_are_a_distribution_favouring_the_larger_utility():
    chances = win_chances([[1.0], [0.0], [0.0]], (2.0,))
    assert abs(sum(chances) - 1) < 1e-12 and chances[0] > chances[1] == chances[2]


def test_the_fitted_rewards_are_expected_outcome_rewards_and_favour_a_complete_line():
    assert len(weights()) == len(FEATURES)   # the package data matches the features
    state = layout([[("red", "green")] * 5, [("blue", "yellow")] * 4 + [("green", "purple")],
                    [("purple", "blue")] * 2 + [("orange", "red")] * 3])
    rewards = evaluate_flip_hue_fitted(state, 0)
    # 3 players: 1 for the winner, 1/4 for a loser; the expectation lies between
    assert all(0.25 <= r <= 1.0 for r in rewards)
    assert abs(sum(rewards) - (1 + 2 * 0.25)) < 1e-9      # the expected rewards add up like an outcome's
    assert rewards[0] == max(rewards)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_fitted_evaluation_reads_any_dealt_state(players):
    state = FLIP_HUE.new_game(players, FLIP_HUE.resolve_options({}), random.Random(players))
    rewards = evaluate_flip_hue_fitted(state, 0)
    assert len(rewards) == players and all(0 <= r <= 1 for r in rewards)
