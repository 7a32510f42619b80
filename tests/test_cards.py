"""The shared two-faced card model: orientation, transfers, piles and perfect recall."""

import copy
import pickle
import random

from arena.rules.cards import TwoFacedTable

FACES = [("red", "blue"), ("green", "yellow"), ("white", "black"), ("pink", "teal")]


def table_with_pile(players=3):
    table = TwoFacedTable(FACES, players)
    table.new_pile("draw", [0, 1, 2, 3], up_sides=[0, 0, 0, 0])  # card 3 on top, "pink" up
    return table


def test_top_of_pile_is_seen_by_everyone_and_nothing_below_it():
    table = table_with_pile()
    assert [table.top_view("draw", s) for s in range(3)] == [{"up": "pink", "down": None}] * 3
    assert table.seen[2] == 0


def test_dealing_up_puts_the_shown_side_toward_the_taker_and_others_see_the_other_side():
    table = table_with_pile()
    table.deal("draw", 0, toward="up")
    assert table.hand_view(0, 0) == [{"face": "pink", "back": None}]
    assert table.hand_view(0, 1) == [{"face": "pink", "back": "teal"}]


def test_dealing_down_lets_the_taker_remember_the_side_everyone_saw_on_the_pile():
    table = table_with_pile()
    table.deal("draw", 0, toward="down")
    assert table.hand_view(0, 0) == [{"face": "teal", "back": "pink"}]
    assert table.hand_view(0, 2) == [{"face": None, "back": "pink"}]


def test_transfer_swaps_face_and_back_and_third_players_see_the_side_they_had_not():
    table = table_with_pile()
    table.deal("draw", 0, toward="up")  # seat 0 faces pink, others saw teal (and pink on the pile)
    table.shuffle("draw", random.Random(1))  # the rest is shuffled: no effect on the held card
    table.give(0, 0, 1)
    assert table.face(table.hands[1][0]) == "teal"
    assert table.hand_view(1, 1) == [{"face": "teal", "back": "pink"}]
    assert table.hand_view(1, 2) == [{"face": "teal", "back": "pink"}]


def test_a_side_never_seen_stays_unknown_through_flips_by_others():
    table = TwoFacedTable(FACES, 2)
    table.new_pile("deck", [0], up_sides=[1])  # blue up
    table.deal("deck", 0, toward="down")  # seat 0 sees red, remembers blue
    assert table.hand_view(0, 1) == [{"face": None, "back": "blue"}]
    table.flip_card(0, 0)  # now blue toward seat 0, red toward seat 1
    assert table.hand_view(0, 1) == [{"face": "blue", "back": "red"}]


def test_swap_hands_exchanges_without_flipping():
    table = TwoFacedTable(FACES, 2)
    table.new_pile("deck", [0, 1], up_sides=[0, 0])
    table.deal("deck", 0, toward="up")  # green toward seat 0
    table.deal("deck", 1, toward="up")  # red toward seat 1
    table.swap_hands(0, 1)
    assert [table.face(c) for c in table.hands[0]] == ["blue"]
    assert [table.face(c) for c in table.hands[1]] == ["yellow"]


def test_turning_a_pile_over_reverses_it_and_shows_the_former_bottoms_other_side():
    table = table_with_pile()
    table.turn_over("draw")
    assert table.piles["draw"] == [3, 2, 1, 0]
    assert table.top_view("draw", 1) == {"up": "blue", "down": None}


def test_shuffle_forgets_what_was_seen_and_keeps_orientation_unless_told():
    table = table_with_pile(2)
    table.deal("draw", 0, toward="up")
    card = table.hands[0][0]
    table.place(0, 0, "draw", up="back")
    assert table.face(card) == "teal"
    table.shuffle("draw", random.Random(3))
    assert table.side[card] == 1
    top = table.top("draw")
    assert all(table.seen[c] == 0 for c in table.piles["draw"] if c != top)


def test_place_with_face_up_puts_the_side_toward_the_holder_up():
    table = table_with_pile()
    table.new_pile("discard", [])
    table.deal("draw", 2, toward="down")
    table.place(2, 0, "discard", up="face")
    assert table.top_view("discard", 0) == {"up": "teal", "down": "pink"}


def test_clone_is_independent():
    table = table_with_pile()
    twin = table.clone()
    twin.deal("draw", 0, toward="up")
    assert table.hands[0] == [] and len(table.piles["draw"]) == 4
    assert table.count() == twin.count() == 4


def test_views_by_seat_agree_with_card_view_for_every_seat_and_show_both_sides_to_god():
    table = TwoFacedTable([("red", "blue"), ("green", "white")], 3)
    table.hands[1] = [0]
    table.show_held(1, 0)
    table.see(1, 0, [2])
    for card in (0, 1):
        views, god = table.views_by_seat(card)
        assert views == [table.card_view(card, seat) for seat in range(3)]
        assert god == {"face": table.face(card), "back": table.back(card)}
        on_pile, god_on_pile = table.views_by_seat(card, pile=True)
        assert [(v["up"], v["down"]) for v in on_pile] == [(v["face"], v["back"]) for v in views]
        assert god_on_pile == {"up": table.face(card), "down": table.back(card)}
        assert len({id(v) for v in views}) == 3


def test_a_table_pickles_and_deep_copies_to_an_independent_table_showing_the_same():
    # both rebuild through TwoFacedTable.__reduce__ (a compiled table has no default for either)
    table = table_with_pile()
    table.deal("draw", 0, toward="up")
    table.deal("draw", 1, toward="down")
    table.hands_view(2)                          # its view table built: not part of the copy
    for twin in (pickle.loads(pickle.dumps(table)), copy.deepcopy(table)):
        assert (twin.faces, twin.players, twin.side, twin.seen, twin.hands, twin.piles) == \
            (table.faces, table.players, table.side, table.seen, table.hands, table.piles)
        assert [twin.hands_view(s) for s in range(3)] == [table.hands_view(s) for s in range(3)]
        assert twin.top_view("draw", 2) == table.top_view("draw", 2)
        twin.give(0, 0, 2)
        twin.deal("draw", 2, toward="up")
        assert table.hands == [[3], [2], []] and table.piles == {"draw": [0, 1]}
