"""Flip 7: one scenario per ruling of shared/rules/flip-7.md, from stacked decks."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.errors import IllegalActionError, OptionError, PlayerCountError
from arena.rules.flip_7 import Flip7, deck_for, row_score


def table(players, top, totals=None, dealer=0, exact=False, **options):
    """A game whose deck starts with `top` (first card drawn first), dealt at once.
    Round 1 is dealt by `dealer`: the deal goes dealer+1, ..., dealer."""
    return Flip7.lay_out(players, options, deck_top=top, exact=exact, totals=totals, dealer=dealer)


def play(state, *moves):
    """Apply (seat, action) pairs, checking that each is that seat's decision."""
    for seat, action in moves:
        assert state.current_seat() == seat, (seat, action, state.view(seat))
        state.apply(action)


def events(state, kind):
    return [e for e in state.god_log if e["type"] == kind]


def row(state, seat):
    return state.view(seat)["rows"][seat]


def last_scores(state):
    return events(state, "round-end")[-1]["scores"]


# -- scoring -----------------------------------------------------------------------


def test_seed_scoring_examples_3_8_11_with_plus_4_is_26_and_with_x2_is_44():
    assert row_score([3, 8, 11], ["+4"]) == 26
    assert row_score([3, 8, 11], ["x2"]) == 44
    game = table(1, ["3", "8", "11", "+4"])
    play(game, (0, "hit"), (0, "hit"), (0, "hit"), (0, "stay"))
    assert last_scores(game) == [26]
    game = table(1, ["3", "x2", "8", "11"])
    play(game, (0, "hit"), (0, "hit"), (0, "hit"), (0, "stay"))
    assert last_scores(game) == [44]


def test_x2_doubles_numbers_only_not_plus_modifiers():
    assert row_score([3, 8, 11], ["+4", "x2"]) == 48
    assert row_score([3, 8, 11], ["x2", "+4"]) == 48


def test_a_lone_x2_scores_0_and_a_lone_plus_n_scores_n():
    game = table(1, ["x2"])
    assert game.legal_actions() == ["hit", "stay"]     # a modifier is a card in front of you
    play(game, (0, "stay"))
    assert last_scores(game) == [0]
    game = table(1, ["+6"])
    play(game, (0, "stay"))
    assert last_scores(game) == [6]


# -- bust and Flip 7 -----------------------------------------------------------------


def test_a_duplicate_number_busts_scores_0_and_the_cards_stay_until_the_round_ends():
    game = table(2, ["5", "7", "5"])          # seat 1 gets 5, seat 0 gets 7, seat 1 hits 5
    play(game, (1, "hit"))
    assert row(game, 1)["status"] == "busted" and row(game, 1)["numbers"] == [5, 5]
    assert row(game, 1)["score"] == 0
    assert events(game, "bust") == [{"type": "bust", "seat": 1, "card": "5"}]
    assert game.current_seat() == 0
    play(game, (0, "stay"))
    assert last_scores(game) == [7, 0]
    assert game.view(0)["set_aside"] == {"5": 2, "7": 1}


def test_flip_7_scores_plus_15_and_ends_the_round_at_once_for_everyone():
    # seat 1 collects 1..6 then 12; seat 2 stays on 12; seat 0 is still active (six numbers)
    game = table(3, ["1", "12", "10", "2", "9", "3", "8", "4", "7", "5", "11", "6", "0", "12"])
    play(game, (1, "hit"), (2, "stay"), (0, "hit"),
         (1, "hit"), (0, "hit"), (1, "hit"), (0, "hit"), (1, "hit"), (0, "hit"), (1, "hit"), (0, "hit"))
    assert game.round == 1 and row(game, 0)["status"] == "active" and len(row(game, 0)["numbers"]) == 6
    play(game, (1, "hit"))                              # the seventh different number
    assert events(game, "flip-7") == [{"type": "flip-7", "seat": 1}]
    assert events(game, "round-end")[0]["reason"] == "flip-7"
    assert last_scores(game) == [45, 33 + 15, 12]       # the active seat 0 banks its row
    assert game.round == 2


def test_flip_7_during_a_flip_three_ends_the_round_and_discards_set_aside_cards():
    # solo: 1..5 then a Flip Three on itself: freeze (set aside), 6, 0 -> Flip 7
    game = table(1, ["1", "2", "3", "4", "5", "flip-three", "freeze", "6", "0", "7"])
    play(game, (0, "hit"), (0, "hit"), (0, "hit"), (0, "hit"), (0, "hit"))
    assert game.legal_actions() == ["flip-three:0"]
    play(game, (0, "flip-three:0"))
    assert events(game, "set-aside") == [{"type": "set-aside", "seat": 0, "card": "freeze"}]
    assert last_scores(game) == [21 + 15]
    assert game.view(0)["set_aside"]["freeze"] == 1      # discarded with the round
    assert game.view(0)["deck_size"] == 94 - 9 - 1       # round 2 dealt the stacked 7
    assert row(game, 0)["numbers"] == [7]


# -- Freeze ----------------------------------------------------------------------------


def test_freeze_banks_the_targets_points_and_takes_them_out_of_the_round():
    # deal: seat 1 gets 9, seat 2 gets 4, seat 0 gets 6; seat 1 hits a Freeze
    game = table(3, ["9", "4", "6", "freeze"])
    play(game, (1, "hit"))
    assert game.view(0)["decision"] == "freeze" and game.current_seat() == 1
    assert game.legal_actions() == ["freeze:0", "freeze:1", "freeze:2"]
    play(game, (1, "freeze:2"))
    assert row(game, 2)["status"] == "frozen" and row(game, 2)["actions"] == ["freeze"]
    assert events(game, "give")[-1] == {"type": "give", "seat": 1, "card": "freeze", "to": 2, "score": 4}
    assert game.current_seat() == 0                      # seat 2 is out, so seat 0 is next
    play(game, (0, "stay"), (1, "stay"))
    assert last_scores(game) == [6, 9, 4]


def test_freeze_may_only_target_active_players_and_the_last_active_player_must_take_it():
    game = table(3, ["9", "4", "6", "freeze"])
    play(game, (1, "stay"), (2, "stay"), (0, "hit"))
    assert game.legal_actions() == ["freeze:0"]
    with pytest.raises(IllegalActionError):
        game.apply("freeze:1")
    play(game, (0, "freeze:0"))
    assert last_scores(game) == [6, 9, 4]


# -- Flip Three --------------------------------------------------------------------------


def test_flip_three_makes_the_target_take_three_cards_and_modifiers_count():
    game = table(2, ["9", "4", "flip-three", "+2", "7", "x2", "11"])
    play(game, (1, "hit"), (1, "flip-three:0"))
    assert row(game, 0)["numbers"] == [4, 7] and row(game, 0)["modifiers"] == ["+2", "x2"]
    assert row(game, 1)["actions"] == [] and row(game, 0)["actions"] == ["flip-three"]
    sources = [e["source"] for e in events(game, "card") if e["seat"] == 0]
    assert sources == ["deal", "flip-three", "flip-three", "flip-three"]
    assert game.current_seat() == 0


def test_flip_three_stops_early_on_a_bust_and_discards_what_it_set_aside():
    game = table(2, ["9", "4", "flip-three", "freeze", "4", "12"])
    play(game, (1, "hit"), (1, "flip-three:0"))
    assert row(game, 0)["status"] == "busted"
    assert events(game, "discard") == [{"type": "discard", "seat": 0, "cards": ["freeze"], "reason": "bust"}]
    assert game.view(1)["deck_size"] == 94 - 5           # the 12 stays in the deck
    assert game.current_seat() == 1


def test_second_chance_inside_a_flip_three_is_kept_used_and_the_flip_three_goes_on():
    game = table(2, ["9", "4", "flip-three", "second-chance", "4", "6", "12"])
    play(game, (1, "hit"), (1, "flip-three:0"))
    got = [e["card"] for e in events(game, "card") if e["source"] == "flip-three"]
    assert got == ["second-chance", "4", "6"]            # the duplicate counted among the three
    assert row(game, 0)["status"] == "active" and row(game, 0)["numbers"] == [4, 6]
    assert row(game, 0)["second_chance"] is False
    assert events(game, "second-chance-used") == [{"type": "second-chance-used", "seat": 0, "card": "4"}]
    assert game.view(0)["set_aside"] == {"4": 1, "second-chance": 1}
    assert game.view(0)["deck_size"] == 94 - 6


def test_a_surplus_second_chance_inside_a_flip_three_is_given_at_once():
    game = table(3, ["second-chance", "4", "9", "flip-three", "second-chance", "5", "6"])
    # deal: seat 1 SC, seat 2 4, seat 0 9; seat 1 hits flip-three, gives it to itself
    play(game, (1, "hit"), (1, "flip-three:1"))
    assert game.view(1)["decision"] == "second-chance"
    assert game.view(1)["pending"][-1] == {"kind": "flip-three", "target": 1, "cards_left": 2, "set_aside": []}
    assert game.legal_actions() == ["second-chance:0", "second-chance:2"]
    play(game, (1, "second-chance:2"))
    assert row(game, 2)["second_chance"] is True
    assert row(game, 1)["numbers"] == [5, 6]


def test_freeze_and_flip_three_inside_a_flip_three_are_handed_out_after_in_the_order_flipped():
    game = table(3, ["9", "4", "6", "flip-three", "freeze", "3", "flip-three", "10", "11", "12"])
    play(game, (1, "hit"), (1, "flip-three:2"))
    assert row(game, 2)["numbers"] == [4, 3]
    # after the three cards, seat 2 hands out the Freeze first, then the Flip Three
    assert game.current_seat() == 2 and game.view(2)["decision"] == "freeze"
    assert game.view(2)["pending"] == [{"kind": "hand-out", "seat": 2, "cards": ["flip-three"]}]
    play(game, (2, "freeze:0"))
    assert row(game, 0)["status"] == "frozen"
    assert game.view(2)["decision"] == "flip-three"
    assert game.legal_actions() == ["flip-three:1", "flip-three:2"]
    play(game, (2, "flip-three:1"))
    assert row(game, 1)["numbers"] == [9, 10, 11, 12]
    assert game.current_seat() == 2                       # turn passes on from seat 1 as usual


def test_a_flip_three_inside_a_flip_three_resolves_completely_before_the_next_hand_out():
    game = table(2, ["9", "4", "flip-three", "flip-three", "freeze", "1", "2", "3", "5"])
    play(game, (1, "hit"), (1, "flip-three:0"))          # seat 0 sets aside flip-three, freeze
    assert game.view(0)["decision"] == "flip-three"
    play(game, (0, "flip-three:0"))                       # nested: 2, 3, 5 on seat 0
    assert row(game, 0)["numbers"] == [4, 1, 2, 3, 5]
    assert game.view(0)["decision"] == "freeze"
    play(game, (0, "freeze:1"))
    assert row(game, 1)["status"] == "frozen"
    assert game.current_seat() == 0


def test_a_target_frozen_by_its_own_hand_out_still_hands_out_the_rest():
    game = table(3, ["9", "4", "6", "flip-three", "freeze", "flip-three", "1", "10", "11", "12"])
    play(game, (1, "hit"), (1, "flip-three:2"))
    play(game, (2, "freeze:2"))                           # seat 2 freezes itself ...
    assert row(game, 2)["status"] == "frozen"
    assert game.current_seat() == 2                       # ... and still hands out the Flip Three
    assert game.legal_actions() == ["flip-three:0", "flip-three:1"]
    play(game, (2, "flip-three:0"))
    assert row(game, 0)["numbers"] == [6, 10, 11, 12]


def test_set_aside_cards_are_discarded_when_nobody_is_left_active():
    # seat 1 stays; seat 0 hits a Flip Three (forced on itself): freeze, flip-three, 4
    game = table(2, ["9", "6", "flip-three", "freeze", "flip-three", "4"])
    play(game, (1, "stay"), (0, "hit"))
    assert game.legal_actions() == ["flip-three:0"]
    play(game, (0, "flip-three:0"))
    assert game.legal_actions() == ["freeze:0"]           # the only active player takes it
    play(game, (0, "freeze:0"))
    assert events(game, "discard") == [{"type": "discard", "seat": 0, "cards": ["flip-three"], "reason": "no-active"}]
    assert last_scores(game) == [10, 9]
    assert game.view(0)["set_aside"]["flip-three"] == 2


# -- the deal ---------------------------------------------------------------------------


def test_the_deal_starts_left_of_the_dealer_and_ends_with_the_dealer():
    game = table(4, ["1", "2", "3", "4"], dealer=2)
    assert [(e["seat"], e["card"]) for e in events(game, "card")] == [(3, "1"), (0, "2"), (1, "3"), (2, "4")]
    assert game.current_seat() == 3 and game.view(0)["phase"] == "play"


def test_a_flip_three_dealt_during_the_deal_is_played_at_once_then_the_deal_goes_on():
    game = table(3, ["flip-three", "4", "6", "+2", "8", "10"])
    assert game.current_seat() == 1 and game.view(1)["phase"] == "deal"
    assert game.view(1)["pending"] == [{"kind": "deal", "next": [2, 0]}]
    assert game.legal_actions() == ["flip-three:0", "flip-three:1", "flip-three:2"]
    play(game, (1, "flip-three:2"))                       # seat 2 has not been dealt yet
    assert row(game, 2)["numbers"] == [4, 6, 8] and row(game, 2)["modifiers"] == ["+2"]
    assert [e["source"] for e in events(game, "card") if e["seat"] == 2] == ["flip-three"] * 3 + ["deal"]
    assert row(game, 0)["numbers"] == [10]
    assert game.current_seat() == 1 and game.legal_actions() == ["hit"]   # no card: may not stay


def test_a_freeze_during_the_deal_on_a_player_not_yet_dealt_leaves_them_out_banking_nothing():
    game = table(3, ["freeze", "7", "11"])
    play(game, (1, "freeze:2"))
    assert row(game, 2)["status"] == "frozen" and row(game, 2)["numbers"] == []
    assert row(game, 0)["numbers"] == [7]                 # seat 2 was skipped by the deal
    assert game.current_seat() == 1 and game.legal_actions() == ["hit"]
    play(game, (1, "hit"), (0, "stay"), (1, "stay"))
    assert last_scores(game) == [7, 11, 0]


def test_a_player_frozen_before_their_deal_card_banks_the_cards_a_flip_three_dealt_them():
    # Ruling, amended turn 2. Deal order 1, 2, 3, 0. Seat 1 is dealt a Flip Three and gives
    # it to seat 3 (5, 7, +2); seat 2 is dealt a Freeze and gives it to seat 3, who has not
    # had a deal card yet: seat 3 banks 14 and is skipped by the rest of the deal.
    game = table(4, ["flip-three", "5", "7", "+2", "freeze", "9", "10", "12"])
    play(game, (1, "flip-three:3"), (2, "freeze:3"))
    assert row(game, 3)["status"] == "frozen" and row(game, 3)["numbers"] == [5, 7]
    assert events(game, "give")[-1] == {"type": "give", "seat": 2, "card": "freeze", "to": 3, "score": 14}
    assert row(game, 3)["score"] == 14
    assert row(game, 0)["numbers"] == [9]                 # seat 3 was skipped by the deal
    assert [e["source"] for e in events(game, "card") if e["seat"] == 3] == ["flip-three"] * 3
    play(game, (1, "hit"), (2, "hit"), (0, "stay"), (1, "stay"), (2, "stay"))
    assert last_scores(game) == [9, 10, 12, 14]


def test_a_player_busted_by_a_flip_three_before_their_deal_card_is_skipped_by_the_deal():
    # Deal order 1, 2, 3, 0: seat 1 gives its Flip Three to seat 3, who busts on the second 5.
    game = table(4, ["flip-three", "5", "5", "9", "11"])
    play(game, (1, "flip-three:3"))
    assert row(game, 3)["status"] == "busted" and row(game, 3)["numbers"] == [5, 5]
    assert [(e["seat"], e["card"]) for e in events(game, "card") if e["source"] == "deal"] == [
        (1, "flip-three"), (2, "9"), (0, "11")]
    assert row(game, 3)["score"] == 0


def test_a_player_frozen_by_their_own_flip_three_before_their_deal_card_banks_and_is_skipped():
    # Seat 3 turns 5, Freeze (set aside), 7, then hands the Freeze to itself: it banks 12 and
    # the deal passes it by.
    game = table(4, ["flip-three", "5", "freeze", "7", "9", "11"])
    play(game, (1, "flip-three:3"), (3, "freeze:3"))
    assert row(game, 3)["status"] == "frozen" and row(game, 3)["score"] == 12
    assert events(game, "give")[-1]["score"] == 12
    assert [(e["seat"], e["card"]) for e in events(game, "card") if e["source"] == "deal"] == [
        (1, "flip-three"), (2, "9"), (0, "11")]


def test_a_player_dealt_cards_by_a_flip_three_and_still_active_gets_their_deal_card():
    game = table(4, ["flip-three", "4", "6", "+2", "9", "8", "11"])
    play(game, (1, "flip-three:3"))
    assert [(e["seat"], e["card"]) for e in events(game, "card") if e["source"] == "deal"] == [
        (1, "flip-three"), (2, "9"), (3, "8"), (0, "11")]
    assert row(game, 3)["numbers"] == [4, 6, 8] and row(game, 3)["status"] == "active"


def test_a_player_frozen_after_their_deal_card_banks_their_row():
    game = table(3, ["6", "freeze", "7"])
    play(game, (2, "freeze:1"))                           # seat 1 already holds its 6
    assert events(game, "give")[-1]["score"] == 6


def test_a_player_with_no_card_in_front_may_not_stay():
    game = table(2, ["freeze", "5"])
    play(game, (1, "freeze:0"))                           # seat 0 frozen before its card
    assert game.current_seat() == 1 and game.legal_actions() == ["hit"]
    with pytest.raises(IllegalActionError):
        game.apply("stay")


# -- turn order ---------------------------------------------------------------------------


def test_after_a_flip_three_the_next_turn_goes_to_the_player_after_the_one_whose_turn_it_was():
    game = table(4, ["1", "2", "3", "4", "flip-three", "5", "6", "7"])
    play(game, (1, "hit"))
    play(game, (1, "flip-three:3"))
    assert row(game, 3)["numbers"] == [3, 5, 6, 7]
    assert game.current_seat() == 2
    assert game.view(2)["turn_seat"] == 2


def test_after_a_freeze_the_next_turn_skips_the_frozen_player():
    game = table(4, ["1", "2", "3", "4", "freeze"])
    play(game, (1, "hit"), (1, "freeze:2"))
    assert game.current_seat() == 3


def test_after_freezing_oneself_the_turn_passes_on():
    game = table(4, ["1", "2", "3", "4", "freeze"])
    play(game, (1, "hit"), (1, "freeze:1"))
    assert game.current_seat() == 2
    play(game, (2, "stay"), (3, "stay"), (0, "stay"))
    assert last_scores(game) == [4, 1, 2, 3]


# -- Second Chance -----------------------------------------------------------------------------


def test_second_chance_discards_the_duplicate_and_itself_and_the_player_stays():
    game = table(2, ["5", "9", "second-chance", "5"])
    play(game, (1, "hit"))                                # seat 1 holds 5 and a Second Chance
    assert row(game, 1)["second_chance"] is True
    play(game, (0, "stay"), (1, "hit"))                   # the duplicate 5
    assert row(game, 1)["status"] == "active" and row(game, 1)["numbers"] == [5]
    assert row(game, 1)["second_chance"] is False
    assert game.view(1)["set_aside"] == {"5": 1, "second-chance": 1}
    assert events(game, "card")[-1]["card"] == "5"        # no replacement card was dealt
    assert game.current_seat() == 1                       # the only active player goes again


def test_using_a_second_chance_ends_the_turn_and_the_next_player_goes():
    game = table(3, ["5", "8", "9", "second-chance", "3", "5"])
    play(game, (1, "hit"), (2, "hit"), (0, "stay"), (1, "hit"))
    assert row(game, 1)["numbers"] == [5] and row(game, 1)["status"] == "active"
    assert game.current_seat() == 2 and len(events(game, "card")) == 6


def test_a_second_second_chance_must_be_given_to_an_active_player_without_one():
    # deal: seat 1 and seat 2 get a Second Chance, seat 3 a 3, seat 0 a 6; seat 1 hits another
    game = table(4, ["second-chance", "second-chance", "3", "6", "second-chance"])
    play(game, (1, "hit"))
    assert game.view(1)["decision"] == "second-chance"
    assert game.legal_actions() == ["second-chance:0", "second-chance:3"]   # not 1, not 2
    play(game, (1, "second-chance:3"))
    assert row(game, 3)["second_chance"] is True
    assert events(game, "give")[-1] == {"type": "give", "seat": 1, "card": "second-chance", "to": 3}
    assert game.current_seat() == 2


def test_a_surplus_second_chance_is_discarded_when_nobody_can_take_it():
    game = table(2, ["second-chance", "second-chance", "second-chance"])
    # seat 1 gets SC, seat 0 gets SC, seat 1 hits an SC: nobody qualifies
    play(game, (1, "hit"))
    assert events(game, "discard") == [{"type": "discard", "seat": 1, "cards": ["second-chance"],
                                         "reason": "no-recipient"}]
    assert game.current_seat() == 0
    game = table(1, ["second-chance", "second-chance"])
    play(game, (0, "hit"))
    assert game.view(0)["set_aside"] == {"second-chance": 1} and row(game, 0)["second_chance"]


def test_unused_second_chances_are_discarded_at_the_end_of_the_round():
    game = table(1, ["4", "second-chance"])
    play(game, (0, "hit"), (0, "stay"))
    assert last_scores(game) == [4]
    assert game.round == 2
    assert game.view(0)["set_aside"] == {"4": 1, "second-chance": 1}


# -- the deck between rounds --------------------------------------------------------------------


def test_cards_of_a_round_are_set_aside_and_the_deck_carries_on_with_the_next_dealer():
    game = table(2, ["3", "4", "5", "6"])
    play(game, (1, "stay"), (0, "stay"))                  # round 1: seat 1 gets 3, seat 0 gets 4
    view = game.view(0)
    assert view["round"] == 2 and view["dealer"] == 1
    assert view["set_aside"] == {"3": 1, "4": 1}
    # round 2 is dealt from the same deck, left of the new dealer: seat 0 gets 5, seat 1 gets 6
    assert row(game, 0)["numbers"] == [5] and row(game, 1)["numbers"] == [6]
    assert view["deck_size"] == 90 and view["totals"] == [4, 3]
    assert game.current_seat() == 0


def test_when_the_deck_runs_out_mid_round_the_set_aside_cards_become_the_deck():
    game = table(2, ["5", "6", "7"], exact=True)
    assert game.view(0)["deck_size"] == 1 and sum(game.view(0)["set_aside"].values()) == 91
    play(game, (1, "hit"))                                # the last card of the deck
    assert game.view(0)["deck_size"] == 0
    play(game, (0, "hit"))                                # the deck is empty: reshuffle
    assert events(game, "reshuffle") == [{"type": "reshuffle", "cards": 91}]
    view = game.view(0)
    assert view["set_aside"] == {} and view["deck_size"] == 90
    assert row(game, 1)["numbers"] == [5, 7]              # the cards in front stay
    assert row(game, 0)["numbers"][0] == 6
    assert Counter(game.all_cards()) == Counter(deck_for(2))


def test_a_reshuffle_includes_cards_discarded_earlier_in_the_round():
    game = table(1, ["5", "second-chance", "5"], exact=True)
    play(game, (0, "hit"), (0, "hit"))                    # SC used: 5 and SC discarded
    assert game.view(0)["deck_size"] == 0
    play(game, (0, "hit"))
    assert events(game, "reshuffle") == [{"type": "reshuffle", "cards": 91 + 2}]


def test_with_no_card_left_anywhere_the_round_ends_and_players_bank():
    game = table(2, ["5", "6"], exact=True)
    game.set_aside.clear()                                # a table where every card is in play
    play(game, (1, "hit"))
    assert events(game, "deck-empty") and events(game, "round-end")[0]["reason"] == "no-cards"
    assert game.totals == [6, 5]


# -- the end of the game ------------------------------------------------------------------------


def test_the_game_ends_after_a_round_where_someone_reaches_the_target_and_leads_alone():
    game = table(3, ["12", "2", "10"], totals=[190, 150, 195])
    play(game, (1, "stay"), (2, "stay"), (0, "stay"))
    assert game.is_terminal()
    out = game.outcome()
    assert out["scores"] == [200, 162, 197] and out["standing"] == [1, 3, 2]
    assert out["reason"] == "target" and out["rounds"] == 1


def test_a_tie_at_the_top_above_the_target_makes_everyone_play_another_round():
    game = table(3, ["10", "5", "10", "4", "3", "12"], totals=[190, 190, 20])
    play(game, (1, "stay"), (2, "stay"), (0, "stay"))
    assert game.totals == [200, 200, 25] and not game.is_terminal()
    assert game.round == 2 and game.view(0)["dealer"] == 1
    assert [row(game, s)["numbers"] for s in range(3)] == [[3], [12], [4]]   # everyone is dealt in
    play(game, (2, "stay"), (0, "stay"), (1, "stay"))
    out = game.outcome()
    assert game.is_terminal() and out["scores"] == [203, 212, 29] and out["standing"] == [2, 1, 3]
    assert out["rounds"] == 2


def test_solo_challenge_counts_rounds_to_reach_the_target():
    game = table(1, ["12", "11"], target_score=20)
    play(game, (0, "stay"))
    assert not game.is_terminal() and game.round == 2
    play(game, (0, "stay"))
    assert game.outcome() == {"standing": [1], "scores": [23], "reason": "target", "rounds": 2}


def test_max_rounds_stops_the_game_with_everyone_tied():
    game = table(2, ["3", "4"], max_rounds=1)
    play(game, (1, "stay"), (0, "stay"))
    assert game.outcome() == {"standing": [1, 1], "scores": [4, 3], "reason": "max_rounds", "rounds": 1}


# -- options and players --------------------------------------------------------------------------


def test_options_have_defaults():
    assert Flip7.resolve_options() == {"target_score": 200, "max_rounds": 1000, "deck": list(deck_for(1))}


@pytest.mark.parametrize("given, message", [
    ({"target_score": 0}, "at least 1"),
    ({"target_score": "lots"}, "must be an integer"),
    ({"target_score": True}, "must be an integer"),
    ({"target_score": 2.5}, "must be an integer"),
    ({"max_rounds": 0}, "at least 1"),
    ({"colour": "red"}, "unknown option 'colour' for flip-7"),
])
def test_bad_options_are_rejected(given, message):
    with pytest.raises(OptionError, match=message):
        Flip7.resolve_options(given)


def test_player_range_is_1_to_36_with_a_second_deck_above_18():
    with pytest.raises(PlayerCountError):
        Flip7.check_players(0)
    with pytest.raises(PlayerCountError):
        Flip7.check_players(37)
    assert len(deck_for(18)) == 94 and len(deck_for(19)) == 188
    game = Flip7.new_game(19, Flip7.resolve_options(), random.Random(1))
    assert Counter(game.all_cards()) == Counter(deck_for(19))
    assert Counter(deck_for(1)) == Counter({**{str(n): n for n in range(1, 13)}, "0": 1,
                                             "+2": 1, "+4": 1, "+6": 1, "+8": 1, "+10": 1, "x2": 1,
                                             "freeze": 3, "flip-three": 3, "second-chance": 3})


def test_lay_out_refuses_a_card_the_deck_lacks():
    with pytest.raises(ValueError, match="no '1' left"):
        Flip7.lay_out(2, deck_top=["1", "1"])
