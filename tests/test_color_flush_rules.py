"""Color Flush: one scenario per ruling in ../shared/rules/color-flush.md, on hand-set states."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.errors import IllegalActionError, OptionError, PlayerCountError
from arena.rules.color_flush import DEFAULT_DECK, ColorFlush


# -- helpers -----------------------------------------------------------------------

def cards(text):
    """'red/blue green/white' -> [("red", "blue"), ("green", "white")] (face/back, or up/down)."""
    return [tuple(card.split("/")) for card in text.split()]


def state(*hands, pile="", **kw):
    options, seed = kw.pop("options", None), kw.pop("seed", 0)
    return ColorFlush.lay_out(len(hands), options, seed, hands=[cards(h) for h in hands], pile=cards(pile), **kw)


def faces(st, seat):
    return [st.table.face(c) for c in st.table.hands[seat]]


def backs(st, seat):
    return [st.table.back(c) for c in st.table.hands[seat]]


def events(st, seat, kind=None):
    return [e for e in st.take_events(seat) if kind is None or e["type"] == kind]


def play(st, *actions):
    for action in actions:
        st.apply(action)


# Five cards, five different faces: no win, no black anywhere.
MIXED = "red/yellow green/blue blue/purple yellow/green purple/red"
MIXED4 = "red/yellow green/blue blue/purple yellow/green"
PILE = "green/yellow red/blue"


# -- deck and options ------------------------------------------------------------------

def test_default_deck_is_the_provisional_50_cards():
    assert len(DEFAULT_DECK) == 50
    pairs = Counter(tuple(sorted(card)) for card in DEFAULT_DECK)
    colors = ["red", "yellow", "green", "blue", "purple"]
    for i, a in enumerate(colors):
        for b in colors[i + 1:]:
            assert pairs[tuple(sorted((a, b)))] == 4
        assert pairs[tuple(sorted(("white", a)))] == 1
        assert pairs[tuple(sorted(("black", a)))] == 1
    assert sum(pairs.values()) == 40 + 5 + 5
    assert ColorFlush.resolve_options({})["deck"] == DEFAULT_DECK


def test_deck_option_rejects_a_card_black_on_both_faces():
    deck = [list(c) for c in DEFAULT_DECK]
    deck[3] = ["black", "black"]
    with pytest.raises(OptionError, match="black on both faces"):
        ColorFlush.resolve_options({"deck": deck})


@pytest.mark.parametrize("bad, message", [
    ([["red", "blue", "green"]] + [["red", "blue"]] * 20, "pair of faces"),
    ([["red"]] + [["red", "blue"]] * 20, "pair of faces"),
    ([["Red", "blue"]] + [["red", "blue"]] * 20, "bad face"),
    ([["red", 3]] + [["red", "blue"]] * 20, "bad face"),
    ([["red", "a:b"]] + [["red", "blue"]] * 20, "bad face"),
    ([["red", "blue"]] * 13, "14 to 1000"),
    ("red/blue", "must be a list"),
])
def test_deck_option_rejects_bad_decks(bad, message):
    with pytest.raises(OptionError, match=message):
        ColorFlush.resolve_options({"deck": bad})


def test_deck_must_hold_seven_cards_per_player_at_the_deal():
    options = ColorFlush.resolve_options({"deck": [["red", "blue"]] * 20})
    with pytest.raises(OptionError, match="too few"):
        ColorFlush.new_game(3, options, random.Random(1))
    ColorFlush.new_game(2, options, random.Random(1))


def test_deck_option_allows_a_card_with_the_same_color_twice_and_any_color_words():
    deck = [["red", "red"]] + [["teal", "white"]] * 13 + [["black", "teal"]] * 6
    options = ColorFlush.resolve_options({"deck": deck})
    ColorFlush.new_game(2, options, random.Random(5))


@pytest.mark.parametrize("given", [{"white_swap": "sometimes"}, {"max_turns": 0}, {"max_turns": "9"},
                                   {"colour": 1}])
def test_other_options_are_validated(given):
    with pytest.raises(OptionError):
        ColorFlush.resolve_options(given)


def test_two_to_six_players_may_play():
    for players in range(2, 7):
        ColorFlush.check_players(players)
        ColorFlush.new_game(players, ColorFlush.resolve_options({}), random.Random(players))
    for players in (1, 7):
        with pytest.raises(PlayerCountError):
            ColorFlush.check_players(players)


# -- setup and the deal ------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(30))
def test_setup_puts_every_black_face_down_and_nobody_is_dealt_a_black_face(seed):
    st = ColorFlush.new_game(3 + seed % 4, ColorFlush.resolve_options({}), random.Random(seed))
    table = st.table
    for card in table.piles["draw"]:
        assert table.face(card) != "black"  # the up side is never black
    for seat, hand in enumerate(table.hands):
        assert len(hand) == 7
        assert "black" not in faces(st, seat)
    assert table.count() == 50


def test_the_shuffle_keeps_orientation_and_other_cards_lie_either_way_up():
    ups = Counter()
    for seed in range(40):
        st = ColorFlush.new_game(3, ColorFlush.resolve_options({}), random.Random(seed))
        for card in range(50):
            first, second = st.table.faces[card]
            if "black" not in (first, second):
                ups[st.table.side[card]] += 1
    assert ups[0] > 500 and ups[1] > 500  # a fair coin per card, both ways seen


def test_the_deal_is_seeded():
    options = ColorFlush.resolve_options({})
    one = ColorFlush.new_game(4, options, random.Random(7))
    two = ColorFlush.new_game(4, options, random.Random(7))
    three = ColorFlush.new_game(4, options, random.Random(8))
    assert one.view(0) == two.view(0)
    assert one.table.hands == two.table.hands and one.table.side == two.table.side
    assert one.table.hands != three.table.hands


def test_the_deal_puts_the_up_face_toward_each_taker_so_everyone_knows_every_dealt_face():
    st = ColorFlush.new_game(4, ColorFlush.resolve_options({}), random.Random(3))
    deal = events(st, 2, "deal")[0]
    for seat in range(4):
        assert deal["faces"][seat] == faces(st, seat)
        own = st.view(seat)["hands"][seat]
        assert [c["face"] for c in own] == faces(st, seat)
        assert all(c["back"] is None for c in own)  # nobody looks at their own backs
        for other in range(4):
            seen = st.view(seat)["hands"][other]
            assert [c["face"] for c in seen] == faces(st, other)  # seen on the pile
            if other != seat:
                assert [c["back"] for c in seen] == backs(st, other)


def test_seat_zero_plays_first_then_clockwise():
    st = ColorFlush.new_game(3, ColorFlush.resolve_options({}), random.Random(11))
    order = []
    while len(order) < 5 and not st.is_terminal():
        seat = st.current_seat()
        if not order or order[-1] != seat:
            order.append(seat)
        st.apply(st.legal_actions()[-1])
    assert order[:4] == [0, 1, 2, 0]


def test_the_pile_top_shows_its_up_face_to_everyone():
    st = state(MIXED, MIXED, MIXED, pile=PILE)
    for seat in range(3):
        assert st.view(seat)["draw_pile"] == {"size": 2, "top": {"up": "red", "down": None}}


# -- orientation ----------------------------------------------------------------------

def test_taking_the_pile_top_puts_its_up_face_toward_the_taker():
    st = state(MIXED, MIXED, MIXED, pile=PILE)
    st.apply("take:pile")
    assert faces(st, 0)[-1] == "red" and backs(st, 0)[-1] == "blue"
    assert st.view(0)["hands"][0][-1] == {"face": "red", "back": None}
    assert st.view(1)["hands"][0][-1] == {"face": "red", "back": "blue"}
    assert st.view(2)["draw_pile"] == {"size": 1, "top": {"up": "green", "down": None}}


def test_placing_on_the_pile_puts_the_face_toward_the_placer_up():
    st = state("green/white " + MIXED4, MIXED, MIXED, pile=PILE)
    st.apply("place:0")
    assert st.view(0)["draw_pile"]["top"] == {"up": "green", "down": None}
    assert st.view(1)["draw_pile"]["top"] == {"up": "green", "down": "white"}
    assert faces(st, 0) == ["red", "green", "blue", "yellow"]  # the gap closes


def test_giving_swaps_face_and_back_and_third_players_see_the_side_they_had_not_seen():
    st = state("green/yellow " + MIXED4, MIXED, MIXED, pile=PILE)
    st.apply("give:0:1")
    assert faces(st, 1)[-1] == "yellow" and backs(st, 1)[-1] == "green"
    assert st.view(1)["hands"][1][-1] == {"face": "yellow", "back": None}
    assert st.view(0)["hands"][1][-1] == {"face": None, "back": "green"}
    assert st.view(2)["hands"][1][-1] == {"face": "yellow", "back": "green"}


def test_taking_from_a_player_puts_the_back_the_taker_saw_toward_the_taker():
    st = state(MIXED, "blue/purple " + MIXED4, MIXED, pile=PILE)
    st.apply("take:1:0")
    assert faces(st, 0)[-1] == "purple" and backs(st, 0)[-1] == "blue"
    assert st.view(0)["hands"][0][-1] == {"face": "purple", "back": None}
    assert st.view(1)["hands"][0][-1] == {"face": None, "back": "blue"}
    assert st.view(2)["hands"][0][-1] == {"face": "purple", "back": "blue"}
    assert len(st.table.hands[1]) == 4


def test_a_hand_swap_swaps_face_and_back_of_every_card_of_both_hands():
    mine = "red/green yellow/purple blue/red green/yellow"
    theirs = "purple/blue yellow/red green/purple red/blue blue/green"
    st = state("white/red " + mine, MIXED, theirs, pile=PILE)
    st.apply("place:0")
    assert st.legal_actions() == ["swap:1", "swap:2"]
    st.apply("swap:2")
    assert faces(st, 0) == [b for _, b in cards(theirs)]
    assert backs(st, 0) == [f for f, _ in cards(theirs)]
    assert faces(st, 2) == [b for _, b in cards(mine)]
    assert backs(st, 2) == [f for f, _ in cards(mine)]


# -- a turn -------------------------------------------------------------------------

def test_each_action_is_done_once_in_the_chosen_order_then_the_next_seat_plays():
    st = state(MIXED, MIXED, MIXED, pile=PILE)
    assert st.view(0)["actions_left"] == ["give", "take", "flip"]
    st.apply("flip:2")
    legal = st.legal_actions()
    assert not any(a.startswith("flip") for a in legal)
    assert st.view(0)["actions_left"] == ["give", "take"]
    st.apply("take:pile")
    legal = st.legal_actions()
    assert legal and all(a.startswith(("give", "place")) for a in legal)
    st.apply("give:0:2")
    assert st.current_seat() == 1
    assert st.view(1)["actions_left"] == ["give", "take", "flip"]
    assert st.view(1)["turn_number"] == 1


def test_legal_actions_name_positions_and_seats_in_the_documented_order():
    st = state(MIXED, MIXED, MIXED, pile=PILE)
    legal = st.legal_actions()
    gives = [a for a in legal if a.startswith(("place", "give"))]
    assert gives[:3] == ["place:0", "give:0:1", "give:0:2"]
    assert len(gives) == 5 * 3
    takes = [a for a in legal if a.startswith("take")]
    assert takes == [f"take:1:{p}" for p in range(5)] + [f"take:2:{p}" for p in range(5)] + ["take:pile"]
    assert [a for a in legal if a.startswith("flip")] == [f"flip:{p}" for p in range(5)]
    assert legal == gives + takes + [f"flip:{p}" for p in range(5)]


def test_an_illegal_action_raises_and_changes_nothing():
    st = state(MIXED, MIXED, MIXED, pile=PILE)
    before = st.view(0)
    for action in ("take:0:1", "give:0:0", "flip:5", "swap:1", "take:pile:1", "hit", ""):
        with pytest.raises(IllegalActionError):
            st.apply(action)
    assert st.view(0) == before


@pytest.mark.parametrize("hands, pile, absent, present", [
    # the giver holds 4: no give, no place
    ([MIXED4, MIXED, MIXED], PILE, ("place:", "give:"), ("take:1:0", "flip:0")),
    # a receiver holding 10 cannot be given to; placing is still fine
    ([MIXED, MIXED + " " + MIXED, MIXED], PILE, ("give:0:1",), ("give:0:2", "place:0")),
    # the taker holding 10 cannot take
    ([MIXED + " " + MIXED, MIXED, MIXED], PILE, ("take:",), ("give:0:1", "place:0")),
    # nobody may take from a player holding 4
    ([MIXED, MIXED4, MIXED], PILE, ("take:1:",), ("take:2:0", "take:pile")),
    # nobody may take from an empty draw pile
    ([MIXED, MIXED, MIXED], "", ("take:pile",), ("take:1:0",)),
])
def test_hand_limits_of_4_to_10_bind_every_player(hands, pile, absent, present):
    st = state(*hands, pile=pile)
    legal = st.legal_actions()
    for prefix in absent:
        assert not any(a.startswith(prefix) for a in legal), prefix
    for action in present:
        assert action in legal


def test_limits_hold_after_a_white_swap_too():
    st = state("white/red " + MIXED, MIXED4, MIXED + " " + MIXED, pile=PILE)
    play(st, "place:0", "swap:2")  # seat 0 now holds 10, seat 2 holds 5
    assert [len(h) for h in st.table.hands] == [10, 4, 5]
    legal = st.legal_actions()
    assert not any(a.startswith("take") for a in legal)


def test_an_action_impossible_now_is_postponed_until_another_action_allows_it():
    st = state(MIXED4, MIXED, MIXED, pile="")
    assert not any(a.startswith(("give", "place")) for a in st.legal_actions())
    st.apply("take:1:0")
    assert "give:0:1" in st.legal_actions() and "place:4" in st.legal_actions()


def test_a_take_impossible_now_is_postponed_not_dropped_when_a_give_first_makes_it_legal():
    # Ruling turn 2 (confirming the engine): seat 0 holds 10, the limit, and the pile is
    # empty, so no take is legal now; giving first brings it to 9 and makes a take legal.
    st = state(MIXED + " " + MIXED, MIXED, MIXED, pile="")
    legal = st.legal_actions()
    assert not any(a.startswith("take") for a in legal) and "give:0:1" in legal
    st.apply("give:0:1")
    assert events(st, 0, "dropped") == []
    assert st.view(0)["actions_left"] == ["take", "flip"]
    assert "take:1:0" in st.legal_actions()
    st.apply("take:1:0")
    assert [len(h) for h in st.table.hands] == [10, 5, 5]


def test_an_action_with_no_legal_form_left_is_dropped_and_the_turn_ends():
    st = state(MIXED4, MIXED4, MIXED4, pile="")
    assert st.legal_actions() == [f"flip:{p}" for p in range(4)]
    st.apply("flip:0")
    seen = events(st, 2)
    assert {"type": "dropped", "seat": 0, "actions": ["give", "take"]} in seen
    assert st.current_seat() == 1 and st.view(1)["actions_left"] == ["give", "take", "flip"]


# -- white --------------------------------------------------------------------------

def test_a_white_face_is_a_joker_for_the_win():
    st = state("red/blue red/green white/yellow red/purple yellow/red", MIXED, MIXED, pile=PILE)
    assert not st.hand_wins(0)
    st.apply("flip:4")  # yellow -> red
    assert st.is_terminal() and st.outcome()["standing"] == [1, 2, 2]


def test_an_all_white_hand_wins():
    st = state("white/blue white/green white/yellow white/purple yellow/white", MIXED, MIXED, pile=PILE)
    st.apply("flip:4")
    assert st.outcome()["reason"] == "win" and st.winner == 0


def test_placing_a_white_face_forces_a_swap_with_a_chosen_opponent():
    st = state("white/red " + MIXED, MIXED4, MIXED, pile=PILE)
    st.apply("place:0")
    assert st.view(1)["awaiting"] == "swap"
    assert st.legal_actions() == ["swap:1", "swap:2"]
    with pytest.raises(IllegalActionError):
        st.apply("no-swap")
    with pytest.raises(IllegalActionError):
        st.apply("flip:0")
    st.apply("swap:1")
    assert [len(h) for h in st.table.hands] == [4, 5, 5]
    assert st.view(0)["actions_left"] == ["take", "flip"]
    swap = events(st, 2, "swap")[0]
    assert swap["seat"] == 0 and swap["with"] == 1


def test_with_white_swap_may_the_placer_may_decline():
    st = state("white/red " + MIXED, MIXED, MIXED, pile=PILE, options={"white_swap": "may"})
    st.apply("place:0")
    assert st.legal_actions() == ["swap:1", "swap:2", "no-swap"]
    before = [list(h) for h in st.table.hands]
    st.apply("no-swap")
    assert st.table.hands == before
    assert st.view(0)["awaiting"] == "action"


def test_giving_a_white_face_or_placing_a_white_back_forces_no_swap():
    st = state("white/red red/white " + MIXED, MIXED, MIXED, pile=PILE)
    st.apply("give:0:1")
    assert st.view(0)["awaiting"] == "action" and not any(a.startswith("swap") for a in st.legal_actions())
    st = state("red/white " + MIXED, MIXED, MIXED, pile=PILE)
    st.apply("place:0")
    assert st.view(0)["awaiting"] == "action"


def test_a_white_swap_in_a_two_player_game_has_the_one_opponent():
    st = state("white/red " + MIXED, MIXED, pile=PILE)
    st.apply("place:0")
    assert st.legal_actions() == ["swap:1"]


def test_placing_the_only_card_of_another_color_wins_at_once():
    st = state("blue/white red/blue red/green white/yellow red/purple", MIXED, MIXED, pile=PILE)
    st.apply("place:0")
    assert st.is_terminal() and st.winner == 0


# -- black --------------------------------------------------------------------------

def test_taking_a_black_flips_the_whole_hand_then_each_newly_black_card_alone():
    st = state("red/yellow green/black blue/purple yellow/blue purple/green",
               "red/black " + MIXED4, MIXED, pile=PILE)
    st.apply("take:1:0")
    assert faces(st, 0) == ["yellow", "green", "purple", "blue", "green", "red"]
    seen = [e["type"] for e in events(st, 2)]
    assert seen == ["take", "hand_flip", "black_flip"]
    assert "black" not in faces(st, 0)


def test_giving_a_black_back_makes_the_receiver_flip_on_the_givers_turn():
    st = state("yellow/black " + MIXED4, "red/green blue/yellow green/purple purple/blue yellow/red",
               MIXED, pile=PILE)
    st.apply("give:0:1")
    assert faces(st, 1) == ["green", "yellow", "purple", "blue", "red", "yellow"]
    flips = events(st, 0, "hand_flip")
    assert len(flips) == 1 and flips[0]["seat"] == 1
    assert st.current_seat() == 0


def test_flipping_a_card_to_black_flips_the_whole_hand():
    st = state("red/black green/blue blue/purple yellow/black purple/red", MIXED, MIXED, pile=PILE)
    st.apply("flip:0")
    # flip -> black; whole hand: red, blue, purple, black, red; then card 3 alone -> yellow
    assert faces(st, 0) == ["red", "blue", "purple", "yellow", "red"]
    assert [e["type"] for e in events(st, 1)] == ["flip", "hand_flip", "black_flip"]


def test_after_a_swap_both_players_resolve_their_black_faces():
    # Only seat 0's remaining hand has a black back: seat 1 receives it facing black.
    st = state("white/red red/black green/blue blue/purple yellow/green",
               "green/red red/yellow red/blue yellow/purple purple/green", MIXED, pile=PILE)
    play(st, "place:0", "swap:1")
    assert [e["seat"] for e in events(st, 2, "hand_flip")] == [1]
    assert faces(st, 1) == ["red", "green", "blue", "yellow"]
    assert faces(st, 0) == ["red", "yellow", "blue", "purple", "green"]
    # Both hands have a black back: both players flip, the active player first.
    st = state("white/red red/black green/blue blue/purple yellow/green",
               "yellow/black green/red red/blue yellow/purple purple/green", MIXED, pile=PILE)
    play(st, "place:0", "swap:1")
    assert [e["seat"] for e in events(st, 2, "hand_flip")] == [0, 1]  # active player first
    for seat in range(3):
        assert "black" not in faces(st, seat)


def test_forced_flips_resolve_before_the_win_check():
    # Flipping the green card shows black: red x4 plus a black is no win (black is no
    # joker), and once resolved the faces are mixed.
    st = state("red/green red/yellow red/blue red/purple green/black", MIXED, MIXED, pile=PILE)
    st.apply("flip:4")
    assert not st.is_terminal()
    assert faces(st, 0) == ["green", "yellow", "blue", "purple", "green"]
    # The resolved hand is what wins: backs all blue.
    st = state("red/blue green/blue yellow/blue purple/blue", "blue/black " + MIXED4, MIXED, pile=PILE)
    st.apply("take:1:0")
    assert st.winner == 0
    assert [e["type"] for e in events(st, 2)] == ["take", "hand_flip", "win"]


# -- winning ------------------------------------------------------------------------

def test_a_win_in_the_middle_of_a_turn_ends_the_game_at_once():
    st = state("red/blue red/green red/yellow blue/red purple/yellow", MIXED, MIXED, pile=PILE)
    play(st, "place:4", "flip:3")
    assert st.is_terminal() and st.current_seat() is None and st.legal_actions() == []
    assert st.outcome() == {"standing": [1, 2, 2], "scores": [1, 0, 0], "reason": "win", "turns": 0}
    with pytest.raises(IllegalActionError):
        st.apply("take:pile")


def test_a_player_can_win_on_an_opponents_turn_when_a_card_is_taken():
    st = state(MIXED, MIXED, "green/red green/blue green/yellow green/purple blue/green", pile=PILE)
    st.apply("take:2:4")
    assert st.winner == 2


def test_a_player_can_win_on_an_opponents_turn_through_a_forced_flip():
    st = state("green/black " + MIXED4, "red/green blue/green yellow/green purple/green red/white",
               MIXED, pile=PILE)
    st.apply("give:0:1")  # black toward seat 1: whole hand flips to green x5 + green
    assert st.winner == 1


def test_simultaneous_wins_go_to_the_active_player():
    # After the swap seat 0 faces blue x4 and seat 1 faces red x4: both qualify.
    st = state("white/red green/red yellow/red purple/red blue/red",
               "red/blue green/blue yellow/blue purple/blue", MIXED, pile=PILE)
    play(st, "place:0", "swap:1")
    assert st.hand_wins(0) and st.hand_wins(1)
    assert st.winner == 0


@pytest.mark.parametrize("active, winners, expected", [(3, (0, 1), 0), (2, (0, 3), 3), (1, (0, 3), 3),
                                                       (0, (1, 2), 1)])
def test_simultaneous_wins_without_the_active_player_go_to_the_first_after_them(active, winners, expected):
    uniform = "blue/red blue/green white/yellow blue/purple"
    hands = [uniform if seat in winners else MIXED for seat in range(4)]
    st = state(*hands, pile=PILE, active=active)  # a hand-set position: two hands already qualify
    st.apply("flip:0")
    assert st.winner == expected


def test_simultaneous_wins_at_the_deal_go_to_seat_zero():
    options = ColorFlush.resolve_options({"deck": [["red", "white"]] * 21})
    st = ColorFlush.new_game(3, options, random.Random(2))
    assert st.is_terminal() and st.winner == 0 and st.turns == 0


def test_the_winner_reveals_their_hand_to_everyone():
    st = state(MIXED, MIXED, "green/red green/blue green/yellow green/purple blue/green", pile=PILE)
    st.apply("take:2:4")
    for seat in range(3):
        assert [c["face"] for c in st.view(seat)["hands"][2]] == ["green"] * 4
    win = events(st, 0, "win")[0]
    assert win == {"type": "win", "seat": 2, "hand": ["green"] * 4}


def test_max_turns_ends_the_game_with_everyone_tied():
    deck = [[f"c{2 * i}", f"c{2 * i + 1}"] for i in range(30)]  # all faces differ: no one can win
    options = ColorFlush.resolve_options({"deck": deck, "max_turns": 5})
    st = ColorFlush.new_game(3, options, random.Random(4))
    rng = random.Random(0)
    decisions = 0
    while not st.is_terminal():
        st.apply(rng.choice(st.legal_actions()))
        decisions += 1
    assert st.turns == 5 and decisions >= 5
    assert st.outcome() == {"standing": [1, 1, 1], "scores": [0, 0, 0], "reason": "max_turns", "turns": 5}
    assert st.take_events(1)[-1] == {"type": "end", "reason": "max_turns", "turns": 5}


# -- the view -------------------------------------------------------------------------

def test_view_fields_and_perfect_recall():
    st = state(MIXED, MIXED, MIXED, pile=PILE)
    view = st.view(0)
    assert set(view) == {"turn", "active", "turn_number", "max_turns", "awaiting", "actions_left",
                         "hands", "hand_sizes", "draw_pile", "winner"}
    assert view["turn"] == 0 and view["hand_sizes"] == [5, 5, 5] and view["max_turns"] == 200
    assert view["hands"][0][0] == {"face": "red", "back": None}
    assert view["hands"][1][0] == {"face": None, "back": "yellow"}
    st.apply("flip:0")  # seat 0 now knows both sides; so do the others
    assert st.view(0)["hands"][0][0] == {"face": "yellow", "back": "red"}
    assert st.view(1)["hands"][0][0] == {"face": "yellow", "back": "red"}


def test_view_is_fresh_plain_data():
    st = state(MIXED, MIXED, MIXED, pile=PILE)
    view = st.view(1)
    view["hands"][0].clear()
    view["draw_pile"]["top"]["up"] = "x"
    view["actions_left"].append("cheat")
    assert st.view(1)["hands"][0] and st.view(1)["draw_pile"]["top"]["up"] == "red"
    assert st.view(1)["actions_left"] == ["give", "take", "flip"]
    legal = st.legal_actions()
    legal.clear()
    assert st.legal_actions()


def test_clone_is_independent_and_plays_on_identically():
    st = ColorFlush.new_game(4, ColorFlush.resolve_options({}), random.Random(21))
    twin = st.clone()
    assert twin.take_events(0) == [] and st.take_events(0)
    rng = random.Random(3)
    while not st.is_terminal():
        action = rng.choice(st.legal_actions())
        st.apply(action)
        twin.apply(action)
        assert st.view(1) == twin.view(1)
    assert twin.outcome() == st.outcome()
    first = ColorFlush.new_game(4, ColorFlush.resolve_options({}), random.Random(21))
    copy = first.clone()
    copy.apply(copy.legal_actions()[0])
    assert first.view(0) == ColorFlush.new_game(4, ColorFlush.resolve_options({}), random.Random(21)).view(0)
