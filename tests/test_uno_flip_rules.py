"""UNO Flip: one scenario per ruling in shared/rules/uno-flip.md, on hand-set states."""

from __future__ import annotations

import csv
import random
from collections import Counter
from importlib import resources

import pytest

from arena.errors import OptionError, PlayerCountError
from arena.rules.cards import TwoFacedTable
from arena.rules.uno_flip import (DARK, DEFAULT_DECK, LIGHT, DeckFileError, UnoFlip, UnoFlipDeck,
                                  check_deck_rows, load_deck, parse_deck_csv)

EVERY_OPTION_DEFAULT = UnoFlip.resolve_options({})


# -- helpers -----------------------------------------------------------------------


def new_state(players=4, seed=0, **options):
    return UnoFlip.new_game(players, UnoFlip.resolve_options(options), random.Random(seed))


def find_card(deck, side, spec, used):
    """A card whose face on `side` is `spec` ("red-7"), or "active|inactive" for both."""
    active, _, inactive = spec.partition("|")
    for card in deck.canonical:
        if card in used:
            continue
        if deck.faces[card][side] == active and (not inactive or deck.faces[card][1 - side] == inactive):
            used.add(card)
            return card
    raise AssertionError(f"no free card {spec!r} on side {side}")


def rig(state, hands, discard, draw=(), side=LIGHT, color=None, seat=0, direction=1,
        rest="draw"):
    """Lay the table by hand: `hands[s]` in order, `discard` bottom first, `draw` top
    first, every other card at the bottom of the draw pile (or of the discard pile with
    rest="discard"). Each card is given by its face on the active `side`."""
    deck = state.deck
    players = state.players
    used: set[int] = set()
    hand_ids = [[find_card(deck, side, spec, used) for spec in hand] for hand in hands]
    hand_ids += [[] for _ in range(players - len(hand_ids))]
    discard_ids = [find_card(deck, side, spec, used) for spec in discard]
    draw_ids = [find_card(deck, side, spec, used) for spec in draw]
    others = [c for c in deck.canonical if c not in used]
    if rest == "discard":
        discard_ids = others + discard_ids
        pile = list(reversed(draw_ids))
    else:
        pile = others + list(reversed(draw_ids))
    table = TwoFacedTable(deck.faces, players)
    everyone = list(range(players))
    table.new_pile("discard", discard_ids, up_sides=[side] * len(discard_ids))
    for card in discard_ids:
        table.see(card, 0, everyone)
        table.see(card, 1, everyone)
    table.new_pile("draw", pile, up_sides=[1 - side] * len(pile))
    for seat_, ids in enumerate(hand_ids):
        for card in ids:
            table.side[card] = side
            table.add(seat_, card, transferred=False)
            table.see(card, 1 - side, [seat_])
    state.table = table
    state.active = side
    state.color = color if color is not None or not discard_ids else deck.color[side][discard_ids[-1]]
    state.seat = seat
    state.phase = "play"
    state.direction = direction
    state.turns = 1
    state.challenge_info = None
    state.color_reason = None
    state._legal = None
    drain(state)
    return state


def drain(state):
    for s in range(state.players):
        state.take_events(s)
    state.god_log.clear()


def hand(state, seat):
    return [state.table.face(c) for c in state.table.hands[seat]]


def top(state):
    return state.table.face(state.table.piles["discard"][-1])


def draw_top_faces(state, n):
    """The active faces of the top `n` cards of the draw pile, top first."""
    pile = state.table.piles["draw"]
    return [state.deck.faces[c][state.active] for c in reversed(pile[-n:])]


def events_of(state, seat, kind=None):
    events = state.take_events(seat)
    return [e for e in events if kind is None or e["type"] == kind]


def god_types(state):
    return [e["type"] for e in state.god_log]


# -- the deck ------------------------------------------------------------------------


def test_the_shipped_deck_has_112_cards_with_the_seed_composition_on_each_side():
    deck = load_deck()
    assert len(deck.faces) == 112
    for side, colors, actions, wild_draw in (
            (LIGHT, ("blue", "green", "red", "yellow"), ("draw-one", "reverse", "skip", "flip"), "wild-draw-two"),
            (DARK, ("pink", "teal", "orange", "purple"), ("draw-five", "reverse", "skip-everyone", "flip"),
             "wild-draw-color")):
        counts = Counter(pair[side] for pair in deck.faces)
        for color in colors:
            for n in range(1, 10):
                assert counts[f"{color}-{n}"] == 2
            for action in actions:
                assert counts[f"{color}-{action}"] == 2
        assert counts["wild"] == 4 and counts[wild_draw] == 4
        assert sum(counts.values()) == 112


def test_the_deck_pairs_faces_exactly_as_the_package_csv_lists_them():
    text = resources.files("arena.rules").joinpath("data", "uno-flip-deck.csv").read_text()
    rows = list(csv.reader(text.splitlines()))[1:]
    expected = Counter((r[1] if r[0] == "wild" else f"{r[0]}-{r[1]}",
                        r[3] if r[2] == "wild" else f"{r[2]}-{r[3]}") for r in rows)
    assert Counter(load_deck().faces) == expected


def good_rows():
    return list(load_deck().rows)


@pytest.mark.parametrize("breaking, message", [
    (lambda rows: rows[:-1], "expected 112 cards"),
    (lambda rows: rows + [rows[0]], "expected 112 cards"),
    (lambda rows: [("red", "7", "pink", "7")] + rows[1:], "wrong"),
    (lambda rows: [("red", "0", "pink", "7")] + rows[1:], "red,0 is not a light-side"),
    (lambda rows: [("pink", "7", "red", "7")] + rows[1:], "not a light-side"),
    (lambda rows: [("wild", "wild-draw-color")] + rows[1:], "expected 4 fields"),
])
def test_a_wrong_deck_file_raises_a_clear_error(breaking, message):
    with pytest.raises(DeckFileError, match=message):
        check_deck_rows(breaking(good_rows()))


def test_a_deck_file_with_a_wrong_header_is_refused():
    with pytest.raises(DeckFileError, match="header"):
        parse_deck_csv("color,value,color,value\nred,1,pink,3\n")


def test_a_deck_with_a_swapped_pairing_but_right_composition_is_accepted():
    rows = good_rows()
    rows[0], rows[1] = (rows[0][0], rows[0][1], rows[1][2], rows[1][3]), (rows[1][0], rows[1][1], rows[0][2], rows[0][3])
    UnoFlipDeck(rows)  # composition per side is all the file check can know


# -- what each player sees ------------------------------------------------------------


def test_hands_hold_the_active_side_toward_their_holder_and_opponents_see_the_inactive_side():
    state = rig(new_state(3), [["red-7|orange-1"], ["blue-2"]], ["red-1"], draw=["green-4"])
    view0, view1 = state.view(0), state.view(1)
    assert view0["hands"][0] == [{"face": "red-7", "back": "orange-1"}]
    assert view1["hands"][0] == [{"face": None, "back": "orange-1"}]
    assert view0["discard"]["top"]["up"] == "red-1"
    top_card = state.table.piles["draw"][-1]
    inactive = state.deck.faces[top_card][DARK]
    assert view0["draw_pile"]["top"] == view1["draw_pile"]["top"] == {"up": inactive, "down": None}
    assert view0["side"] == "light"


def test_a_drawn_card_is_known_on_both_faces_to_its_taker_and_on_its_inactive_face_to_all():
    state = rig(new_state(3), [["red-7"], ["blue-2"], ["blue-3"]], ["red-1"], draw=["green-4"])
    back = state.deck.faces[state.table.piles["draw"][-1]][DARK]
    state.apply("draw")
    assert state.view(0)["hands"][0][-1] == {"face": "green-4", "back": back}
    assert state.view(1)["hands"][0][-1] == {"face": None, "back": back}
    mine = events_of(state, 0, "draw")[0]
    theirs = events_of(state, 1, "draw")[0]
    assert mine["cards"] == [{"face": "green-4", "back": back}]
    assert theirs["cards"] == [{"face": None, "back": back}]


def test_after_a_flip_every_seat_sees_the_faces_that_only_holders_knew():
    state = rig(new_state(3), [["red-flip", "red-7|orange-1", "blue-2"], ["blue-9|orange-5"]], ["red-1"])
    assert state.view(1)["hands"][0][1] == {"face": None, "back": "orange-1"}
    state.apply("play:0")
    assert state.view(1)["hands"][0][0] == {"face": "orange-1", "back": "red-7"}
    assert state.view(0)["hands"][1][0] == {"face": "orange-5", "back": "blue-9"}
    assert state.view(0)["side"] == "dark"


# -- setup ------------------------------------------------------------------------------


def test_seat_0_deals_seven_each_and_the_player_left_of_the_dealer_starts():
    state = new_state(4, seed=3, opening_action="redraw")
    assert state.dealer == 0
    assert [len(h) for h in state.table.hands] == [7, 7, 7, 7]
    assert state.current_seat() == 1
    assert state.view(2)["side"] == "light" and state.direction == 1
    assert state.table.count() == 112


def open_with(state, cards, dealer=0, hands=None):
    """Deal `hands` (default: 3 numbers each) with `cards` on top of the draw pile
    (top first), and run the opening."""
    players = state.players
    hands = hands or [[f"{color}-{n}" for n in (1, 2, 3)] for color in ("blue", "green", "yellow", "red")][:players]
    rig(state, hands, [], draw=cards)
    state.dealer = dealer
    state.turns = 0
    state.color = None
    state._open()
    return state


def test_opening_number_the_player_left_of_the_dealer_plays_it():
    state = open_with(new_state(4), ["yellow-5"])
    assert top(state) == "yellow-5" and state.color == "yellow"
    assert state.current_seat() == 1 and state.phase == "play"


def test_opening_draw_one_the_first_player_draws_one_and_is_skipped():
    state = open_with(new_state(4), ["red-draw-one", "blue-7"])
    assert hand(state, 1)[-1] == "blue-7" and len(hand(state, 1)) == 4
    assert state.current_seat() == 2


def test_opening_skip_the_first_player_is_skipped():
    state = open_with(new_state(4), ["red-skip"])
    assert state.current_seat() == 2 and [len(h) for h in state.table.hands] == [3, 3, 3, 3]


def test_opening_reverse_play_goes_the_other_way_starting_with_the_dealer():
    state = open_with(new_state(4), ["red-reverse"], dealer=2)
    assert state.current_seat() == 2 and state.direction == -1
    state.apply("draw")
    state.apply("keep")
    assert state.current_seat() == 1


def test_opening_wild_the_first_player_names_the_color_then_plays():
    state = open_with(new_state(4), ["wild"])
    assert state.current_seat() == 1
    assert state.legal_actions() == ["color:blue", "color:green", "color:red", "color:yellow"]
    state.apply("color:green")
    assert state.color == "green" and state.current_seat() == 1 and state.phase == "play"
    assert "play:0" in state.legal_actions()  # green-1


def test_opening_wild_draw_two_goes_back_into_the_draw_pile_and_the_next_card_is_turned():
    state = open_with(new_state(4), ["wild-draw-two", "red-4"])
    assert top(state) == "red-4" and len(state.table.piles["discard"]) == 1
    assert "wild-draw-two" in [state.deck.faces[c][LIGHT] for c in state.table.piles["draw"]]
    assert state.current_seat() == 1 and state.table.count() == 112
    assert "reinsert" in god_types(state)


def test_opening_wild_draw_two_goes_back_at_a_seeded_random_place():
    places = set()
    for seed in range(6):
        state = new_state(4, seed=seed)
        open_with(state, ["wild-draw-two", "red-4"])
        pile = state.table.piles["draw"]
        places.add([state.deck.faces[c][LIGHT] for c in pile].index("wild-draw-two"))
    assert len(places) > 1


def deck_with_flip_over(dark_face):
    """The real deck's composition with one light Flip re-paired to `dark_face`."""
    rows = [list(r) for r in load_deck().rows]
    flip = next(i for i, r in enumerate(rows) if r[1] == "flip")
    color, _, value = dark_face.partition("-") if not dark_face.startswith("wild") else ("wild", "", dark_face)
    other = next(i for i, r in enumerate(rows) if (r[2], r[3]) == (color, value))
    rows[flip][2:], rows[other][2:] = rows[other][2:], rows[flip][2:]
    return UnoFlipDeck(rows)


def flip_opening(players, dark_face, after=(), dealer=0):
    """Open with a light Flip whose dark face is `dark_face`; `after` are the cards
    (dark faces) that surface after the draw pile turns over, top first."""
    deck = deck_with_flip_over(dark_face)
    state = UnoFlip.lay_out(players, deck=deck)
    rig(state, [[f"{color}-{n}" for n in (1, 2, 3)] for color in ("blue", "green", "yellow", "red")][:players], [])
    used = set(c for h in state.table.hands for c in h)
    flip = next(c for c in deck.canonical if deck.faces[c][LIGHT].endswith("-flip")
                and deck.faces[c][DARK] == dark_face)
    used.add(flip)
    after_ids = [find_card(deck, DARK, spec, used) for spec in after]
    rest = [c for c in deck.canonical if c not in used]
    # Bottom first; the flip turns the pile over, so after_ids[0] surfaces first.
    pile = after_ids + rest + [flip]
    state.table.new_pile("draw", pile, up_sides=[DARK] * len(pile))
    state.dealer = dealer
    state.turns = 0
    state.color = None
    drain(state)
    state._open()
    return state


def test_opening_flip_flips_everything_and_a_dark_number_is_the_opening_card():
    state = flip_opening(4, "orange-5")
    assert state.active == DARK and top(state) == "orange-5" and state.color == "orange"
    assert state.current_seat() == 1
    assert all(state.table.side[c] == DARK for h in state.table.hands for c in h)
    assert god_types(state)[:2] == ["opening", "flip"]


def test_opening_flip_to_draw_five_the_first_player_draws_five_and_is_skipped():
    state = flip_opening(4, "pink-draw-five", after=["teal-1", "teal-2", "teal-3", "teal-4", "teal-5"])
    assert hand(state, 1)[-5:] == ["teal-1", "teal-2", "teal-3", "teal-4", "teal-5"]
    assert state.current_seat() == 2


def test_opening_flip_to_skip_everyone_skips_the_first_player():
    state = flip_opening(4, "teal-skip-everyone")
    assert state.current_seat() == 2


def test_opening_flip_to_wild_the_first_player_names_a_dark_color():
    state = flip_opening(4, "wild")
    assert state.current_seat() == 1
    assert state.legal_actions() == ["color:pink", "color:teal", "color:orange", "color:purple"]


def test_opening_flip_to_wild_draw_color_returns_it_and_turns_the_next_card_dark_side_up():
    state = flip_opening(4, "wild-draw-color", after=["purple-8"])
    assert top(state) == "purple-8" and state.active == DARK and state.current_seat() == 1
    assert "wild-draw-color" in [state.deck.faces[c][DARK] for c in state.table.piles["draw"]]


def test_redraw_opening_leaves_action_cards_at_the_bottom_until_a_number_shows():
    state = new_state(4, opening_action="redraw")
    open_with(state, ["red-skip", "wild-draw-two", "blue-flip", "yellow-3"])
    assert [state.deck.faces[c][LIGHT] for c in state.table.piles["discard"]] == \
        ["red-skip", "wild-draw-two", "blue-flip", "yellow-3"]
    assert state.current_seat() == 1 and state.active == LIGHT and state.color == "yellow"


# -- a turn ---------------------------------------------------------------------------------


def test_a_card_plays_on_color_number_or_symbol_and_wilds_always():
    state = rig(new_state(2), [["red-2", "blue-7", "green-skip", "yellow-9", "wild", "green-4", "blue-1"]],
                ["blue-skip"], color="green")
    # top is a blue skip but green is in force (as after a wild): green cards and skips match
    assert state.legal_actions() == ["play:2", "play:4:blue", "play:4:green", "play:4:red",
                                     "play:4:yellow", "play:5", "draw"]


def test_a_number_matches_a_number():
    state = rig(new_state(2), [["red-7", "blue-7", "blue-2"]], ["green-7"])
    assert state.legal_actions() == ["play:0", "play:1", "draw"]


def test_drawing_is_allowed_with_a_playable_card_and_a_playable_drawn_card_may_be_played_or_kept():
    state = rig(new_state(3), [["red-2", "blue-3"], ["blue-1"], ["blue-1"]], ["red-5"], draw=["red-9", "red-8"])
    assert "draw" in state.legal_actions() and "play:0" in state.legal_actions()
    state.apply("draw")
    assert state.current_seat() == 0 and state.legal_actions() == ["play-drawn", "keep"]
    state.apply("play-drawn")
    assert top(state) == "red-9" and state.current_seat() == 1 and len(hand(state, 0)) == 2


def test_a_drawn_card_is_drawn_once_never_until_playable():
    state = rig(new_state(3), [["red-2", "blue-3"], ["blue-1"], ["blue-1"]], ["red-5"], draw=["green-9", "red-8"])
    state.apply("draw")
    assert state.legal_actions() == ["keep"]
    state.apply("keep")
    assert hand(state, 0) == ["red-2", "blue-3", "green-9"] and state.current_seat() == 1


def test_keeping_a_playable_drawn_card_looks_the_same_to_others_as_being_unable_to_play_it():
    seen = []
    for drawn in ("red-9", "blue-8"):
        state = rig(new_state(3), [["red-2", "blue-3"], ["blue-1"], ["blue-1"]], ["red-5"], draw=[f"{drawn}|teal-reverse"])
        state.apply("draw")
        view_mid = state.view(1)
        state.apply("keep")
        seen.append((view_mid, events_of(state, 1), state.view(1), events_of(state, 2), state.view(2)))
    assert seen[0] == seen[1]


def test_play_drawn_names_a_color_for_a_drawn_wild():
    state = rig(new_state(3), [["red-2", "blue-3"], ["blue-1"], ["blue-1"]], ["red-5"], draw=["wild"])
    state.apply("draw")
    assert state.legal_actions() == ["play-drawn:blue", "play-drawn:green", "play-drawn:red",
                                     "play-drawn:yellow", "keep"]
    state.apply("play-drawn:yellow")
    assert state.color == "yellow" and top(state) == "wild"


def wild_draw_table(offender_hand, players=3, side=LIGHT, color="red", draw=()):
    """Seat 0 holds `offender_hand` and plays its first card, a Wild Draw, naming blue."""
    top_card = f"{color}-5"
    hands = [offender_hand, ["green-1", "green-2"], ["green-3", "yellow-4"]][:players]
    if side == DARK:
        hands = [offender_hand, ["orange-1", "orange-2"], ["orange-3", "purple-4"]][:players]
    state = rig(new_state(players), hands, [top_card], draw=draw, side=side)
    return state


def test_wild_draw_two_is_legal_even_as_a_bluff_and_accepting_draws_two_and_loses_the_turn():
    state = wild_draw_table(["wild-draw-two", "red-9", "blue-1"], draw=["yellow-1", "yellow-2"])
    assert "play:0:blue" in state.legal_actions()  # a bluff: red-9 matches red
    state.apply("play:0:blue")
    assert state.current_seat() == 1 and state.legal_actions() == ["accept", "challenge"]
    assert state.view(2)["pending"] == {"type": "challenge", "card": "wild-draw-two", "offender": 0,
                                        "color": "blue", "prior_color": "red"}
    state.apply("accept")
    assert hand(state, 1)[-2:] == ["yellow-1", "yellow-2"]
    assert state.current_seat() == 2 and state.color == "blue"


def test_a_guilty_wild_draw_two_makes_the_offender_draw_two_and_the_challenger_plays_a_normal_turn():
    state = wild_draw_table(["wild-draw-two", "red-9", "blue-1"], draw=["yellow-1", "yellow-2"])
    state.apply("play:0:blue")
    state.apply("challenge")
    assert hand(state, 0) == ["red-9", "blue-1", "yellow-1", "yellow-2"]
    assert state.current_seat() == 1 and state.phase == "play" and state.color == "blue"
    assert len(hand(state, 1)) == 2


def test_a_held_wild_counts_as_a_match_so_the_wild_draw_is_guilty():
    state = wild_draw_table(["wild-draw-two", "wild", "blue-1"], draw=["yellow-1", "yellow-2"])
    state.apply("play:0:green")
    state.apply("challenge")
    assert len(hand(state, 0)) == 4 and state.current_seat() == 1 and state.color == "green"


@pytest.mark.parametrize("other, guilty", [("wild", True), ("wild-draw-color", False), ("teal-3", False),
                                           ("pink-3", True)])
def test_only_a_held_plain_wild_or_the_color_in_force_makes_a_dark_wild_draw_guilty(other, guilty):
    # Ruling turn 2 (confirming the engine): pink in force; another Wild Draw is no match.
    state = wild_draw_table(["wild-draw-color", other, "teal-1"], side=DARK, color="pink",
                            draw=["orange-1", "orange-2", "teal-2", "teal-4"])
    state.apply("play:0:orange")
    state.apply("challenge")
    assert [e["guilty"] for e in state.god_log if e["type"] == "challenge"] == [guilty]


def test_the_bluff_test_looks_at_the_hand_when_the_wild_draw_was_played():
    # A red card drawn as the missing-UNO penalty after the play does not make it a bluff.
    state = wild_draw_table(["wild-draw-two", "blue-1"], draw=["red-9", "yellow-2", "yellow-3", "yellow-4",
                                                             "yellow-5", "yellow-6"])
    state.apply("play:0:blue")                          # leaves one card, no UNO call
    assert hand(state, 0) == ["blue-1", "red-9", "yellow-2"]
    state.apply("challenge")
    assert [e["guilty"] for e in state.god_log if e["type"] == "challenge"] == [False]


def test_an_innocent_wild_draw_two_makes_the_challenger_draw_four_and_lose_the_turn():
    # red-5 in force; the offender holds a 5 (matches by number only) and another wild draw
    state = wild_draw_table(["wild-draw-two", "blue-5", "wild-draw-two"],
                            draw=["yellow-1", "yellow-2", "yellow-3", "yellow-4"])
    state.apply("play:0:blue")
    state.apply("challenge")
    assert hand(state, 1)[-4:] == ["yellow-1", "yellow-2", "yellow-3", "yellow-4"]
    assert state.current_seat() == 2 and state.color == "blue"


def test_a_challenge_shows_the_offenders_hand_to_the_challenger_alone():
    state = wild_draw_table(["wild-draw-two", "red-9|purple-5", "blue-1|purple-skip-everyone"], draw=["yellow-1", "yellow-2"])
    state.apply("play:0:blue")
    drain(state)
    state.apply("challenge")
    public = events_of(state, 2, "challenge")
    assert public == [{"type": "challenge", "seat": 1, "offender": 0, "guilty": True}]
    assert [e for e in state.god_log if e["type"] == "hand-shown"] != []
    shown = events_of(state, 1, "hand-shown")
    assert shown == [{"type": "hand-shown", "seat": 0, "hand": [{"face": "red-9", "back": "purple-5"},
                                                                 {"face": "blue-1", "back": "purple-skip-everyone"}]}]
    assert events_of(state, 2, "hand-shown") == [] and events_of(state, 0, "hand-shown") == []
    assert state.view(1)["hands"][0][:2] == [{"face": "red-9", "back": "purple-5"},
                                             {"face": "blue-1", "back": "purple-skip-everyone"}]
    assert state.view(2)["hands"][0][:2] == [{"face": None, "back": "purple-5"},
                                             {"face": None, "back": "purple-skip-everyone"}]


def test_wild_draw_color_accepted_draws_until_the_named_color_and_a_dark_wild_does_not_count():
    state = wild_draw_table(["wild-draw-color", "teal-1"], side=DARK, color="pink",
                            draw=["orange-1", "wild", "purple-2", "teal-9", "teal-8"])
    state.apply("play:0:teal:uno")
    state.apply("accept")
    assert hand(state, 1)[2:] == ["orange-1", "wild", "purple-2", "teal-9"]
    assert state.current_seat() == 2 and state.color == "teal"


def test_wild_draw_color_guilty_the_offender_draws_until_the_color():
    state = wild_draw_table(["wild-draw-color", "pink-1", "teal-3"], side=DARK, color="pink",
                            draw=["orange-1", "purple-2", "teal-9", "teal-8"])
    state.apply("play:0:purple")
    state.apply("challenge")
    assert hand(state, 0) == ["pink-1", "teal-3", "orange-1", "purple-2"]
    assert state.current_seat() == 1 and state.phase == "play" and state.color == "purple"


def test_wild_draw_color_innocent_the_challenger_draws_until_the_color_plus_two():
    state = wild_draw_table(["wild-draw-color", "teal-1", "purple-5"],
                            side=DARK, color="pink",
                            draw=["orange-1", "purple-2", "teal-9", "teal-8", "orange-2"])
    state.apply("play:0:purple")
    state.apply("challenge")
    assert hand(state, 1)[2:] == ["orange-1", "purple-2", "teal-9", "teal-8"]
    assert state.current_seat() == 2


def test_wild_draw_color_drawing_stops_when_both_piles_run_out():
    state = rig(new_state(2), [["wild-draw-color", "teal-1"], ["teal-2"]], ["pink-5"], side=DARK,
                draw=["orange-1", "orange-2"])
    # Move every other card into seat 1's hand, leaving the two orange cards to draw.
    table = state.table
    keep = table.piles["draw"][-2:]
    for card in table.piles["draw"][:-2]:
        table.side[card] = DARK
        table.hands[1].append(card)
    table.piles["draw"] = keep
    state._legal = None
    state.apply("play:0:teal:uno")
    state.apply("accept")
    assert table.piles["draw"] == [] and len(table.piles["discard"]) == 1
    # the two oranges, then the discard pile but its top, reshuffled: the pink-5
    assert hand(state, 1)[-3:] == ["orange-1", "orange-2", "pink-5"]
    assert state.table.count() == 112


def test_draw_one_makes_the_next_player_draw_one_and_miss_the_turn_without_stacking():
    state = rig(new_state(3), [["red-draw-one", "blue-1"], ["red-draw-one", "blue-2"], ["blue-3"]],
                ["red-5"], draw=["yellow-7"])
    state.apply("play:0:uno")
    assert hand(state, 1) == ["red-draw-one", "blue-2", "yellow-7"]
    assert state.current_seat() == 2


def test_draw_five_makes_the_next_player_draw_five_and_miss_the_turn():
    state = rig(new_state(3), [["pink-draw-five", "teal-1"], ["teal-2"], ["teal-3"]], ["pink-5"], side=DARK,
                draw=["orange-1", "orange-2", "orange-3", "orange-4", "orange-5"])
    state.apply("play:0:uno")
    assert hand(state, 1) == ["teal-2", "orange-1", "orange-2", "orange-3", "orange-4", "orange-5"]
    assert state.current_seat() == 2


def test_skip_makes_the_next_player_miss_the_turn():
    state = rig(new_state(4), [["red-skip", "blue-1"]], ["red-5"])
    state.apply("play:0:uno")
    assert state.current_seat() == 2


def test_skip_everyone_lets_the_player_play_again():
    state = rig(new_state(4), [["pink-skip-everyone", "teal-1"]], ["pink-5"], side=DARK)
    state.apply("play:0:uno")
    assert state.current_seat() == 0 and state.phase == "play"


def test_reverse_changes_the_direction():
    state = rig(new_state(4), [["red-reverse", "blue-1"]], ["red-5"])
    state.apply("play:0:uno")
    assert state.direction == -1 and state.current_seat() == 3


def test_with_two_players_reverse_acts_as_skip():
    state = rig(new_state(2), [["red-reverse", "blue-1"], ["green-1"]], ["red-5"])
    state.apply("play:0:uno")
    assert state.current_seat() == 0


def test_with_two_players_reverse_passes_the_turn_when_the_option_is_off():
    state = rig(new_state(2, two_player_reverse_skips=False), [["red-reverse", "blue-1"], ["green-1"]], ["red-5"])
    state.apply("play:0:uno")
    assert state.current_seat() == 1


def test_a_flip_plays_only_on_its_color_or_on_a_flip():
    state = rig(new_state(2), [["red-flip", "blue-flip", "green-1"]], ["red-5"])
    assert state.legal_actions() == ["play:0", "draw"]
    state = rig(new_state(2), [["red-flip", "blue-flip", "green-1"]], ["yellow-flip"])
    assert state.legal_actions() == ["play:0", "play:1", "draw"]


def test_turn_over_puts_the_flip_at_the_bottom_shows_the_former_bottom_cards_other_face_and_reverses_the_draw_pile():
    state = rig(new_state(3), [["red-flip", "blue-1"], ["blue-2"], ["blue-3"]],
                ["red-6|orange-9", "red-3", "red-5"])
    table = state.table
    draw_before = list(table.piles["draw"])
    discard_before = list(table.piles["discard"])
    state.apply("play:0:uno")
    flip_card = table.piles["discard"][0]
    assert state.deck.faces[flip_card][LIGHT] == "red-flip" and table.side[flip_card] == DARK
    assert table.piles["discard"] == list(reversed(discard_before + [flip_card]))
    assert top(state) == "orange-9" and state.color == "orange"
    assert table.piles["draw"] == list(reversed(draw_before))
    assert all(table.side[c] == LIGHT for c in table.piles["draw"])  # dark (now active) side down
    assert all(table.side[c] == DARK for h in table.hands for c in h)
    assert state.current_seat() == 1


def test_an_action_exposed_by_a_flip_has_no_effect():
    state = rig(new_state(3), [["red-flip", "blue-1"], ["blue-2"], ["blue-3"]],
                ["yellow-1|pink-skip-everyone", "red-5"])
    state.apply("play:0:uno")
    assert top(state) == "pink-skip-everyone" and state.color == "pink"
    assert state.current_seat() == 1
    assert [len(h) for h in state.table.hands] == [1, 1, 1]


def test_a_wild_exposed_by_a_flip_lets_the_flip_player_name_the_color():
    state = rig(new_state(3), [["red-flip", "blue-1"], ["blue-2"], ["blue-3"]], ["blue-reverse|wild", "red-5"])
    state.apply("play:0:uno")
    assert top(state) == "wild" and state.current_seat() == 0
    assert state.legal_actions() == ["color:pink", "color:teal", "color:orange", "color:purple"]
    state.apply("color:teal")
    assert state.color == "teal" and state.current_seat() == 1
    assert all(state.view(s)["color"] == "teal" for s in range(3))


def test_while_the_color_of_a_wild_exposed_by_a_flip_is_named_no_color_is_in_force():
    # Ruling turn 2: `color` is null and `phase` says a color is being named (red was in
    # force on the light side before the Flip).
    state = rig(new_state(3), [["red-flip", "blue-1", "blue-4"], ["blue-2"], ["blue-3"]],
                ["blue-reverse|wild", "red-5"])
    state.apply("play:0")
    for seat in range(3):
        view = state.view(seat)
        assert view["color"] is None and view["phase"] == "color" and view["side"] == "dark"
        assert view["pending"] == {"type": "color", "reason": "flip"}


def test_an_empty_draw_pile_is_replaced_by_the_discard_pile_but_its_top_shuffled_active_side_down():
    state = rig(new_state(3), [["red-2", "blue-3"], ["blue-1"], ["blue-1"]], ["red-5"], rest="discard")
    table = state.table
    assert table.piles["draw"] == []
    under = sorted(table.piles["discard"][:-1])
    top_card = table.piles["discard"][-1]
    state.apply("draw")
    assert table.piles["discard"] == [top_card]
    assert sorted(table.piles["draw"] + [table.hands[0][-1]]) == under
    assert all(table.side[c] == DARK for c in table.piles["draw"])  # light (active) side down
    assert "reshuffle" in god_types(state)
    assert state.table.count() == 112


def test_drawing_with_both_piles_exhausted_takes_nothing_and_ends_the_turn():
    state = rig(new_state(2), [["red-2", "blue-3"], ["blue-1"]], ["red-5"])
    table = state.table
    for card in table.piles["draw"]:
        table.side[card] = LIGHT
        table.hands[1].append(card)
    table.piles["draw"] = []
    state._legal = None
    state.apply("draw")
    assert state.current_seat() == 1 and len(hand(state, 0)) == 2
    assert [e["cards"] for e in state.god_log if e["type"] == "draw"] == [[]]


# -- UNO -------------------------------------------------------------------------------------


def test_a_play_leaving_one_card_carries_an_uno_call():
    state = rig(new_state(3), [["red-2", "blue-3"], ["blue-1"], ["blue-1"]], ["red-5"])
    assert state.legal_actions() == ["play:0", "play:0:uno", "draw"]
    state.apply("play:0:uno")
    assert hand(state, 0) == ["blue-3"] and state.current_seat() == 1


def test_a_missing_uno_call_is_caught_and_costs_two_cards_before_the_next_turn():
    state = rig(new_state(3), [["red-2", "blue-3"], ["blue-1"], ["blue-1"]], ["red-5"],
                draw=["yellow-1", "yellow-2"])
    state.apply("play:0")
    assert hand(state, 0) == ["blue-3", "yellow-1", "yellow-2"] and state.current_seat() == 1
    assert god_types(state)[:3] == ["play", "uno-penalty", "draw"]


@pytest.mark.parametrize("penalty", [0, 3])
def test_the_uno_penalty_is_an_option(penalty):
    state = rig(new_state(3, uno_penalty=penalty), [["red-2", "blue-3"], ["blue-1"], ["blue-1"]], ["red-5"])
    state.apply("play:0")
    assert len(hand(state, 0)) == 1 + penalty


# -- end of a round and scoring ---------------------------------------------------------------


def test_a_round_ends_when_a_player_plays_the_last_card_and_the_winner_scores_the_others_cards():
    state = rig(new_state(3, target_score=0), [["red-2"], ["blue-9", "wild"], ["blue-skip", "green-draw-one"]],
                ["red-5"])
    state.apply("play:0")
    assert state.is_terminal()
    out = state.outcome()
    assert out["points"] == [0, 49, 30]
    assert out["scores"] == [79, 0, 0]
    assert out["standing"] == [1, 3, 2] and out["reason"] == "win"


def test_at_a_round_end_every_hand_is_shown_to_everyone_on_the_side_in_play():
    # Ruling turn 2: the round-end event carries each hand; its faces count as seen by all.
    state = rig(new_state(3, target_score=0), [["red-2"], ["blue-9|orange-5", "wild|pink-5"],
                                               ["blue-skip|teal-1", "green-draw-one|orange-6"]], ["red-5"])
    assert state.view(0)["hands"][1][0] == {"face": None, "back": "orange-5"}
    state.apply("play:0")
    shown = [[], ["blue-9", "wild"], ["blue-skip", "green-draw-one"]]
    ends = [events_of(state, seat, "round-end") for seat in range(3)]
    assert all(end == [{"type": "round-end", "round": 1, "winner": 0, "side": "light", "points": [0, 49, 30],
                        "scores": [79, 0, 0], "hands": shown}] for end in ends)
    ends[0][0]["hands"][1].clear()                      # each seat's copy is its own
    assert ends[1][0]["hands"] == shown
    assert state.outcome()["hands"] == shown            # how the bots see the last round's hands
    for seat in range(3):
        assert [[c["face"] for c in hand] for hand in state.view(seat)["hands"]] == shown


def test_hands_shown_after_a_last_flip_are_shown_on_the_dark_side():
    state = rig(new_state(2, target_score=0), [["red-flip"], ["blue-6|teal-skip-everyone", "red-3|wild-draw-color"]],
                ["red-5"])
    state.apply("play:0")
    assert state.outcome()["hands"] == [[], ["teal-skip-everyone", "wild-draw-color"]]


def test_the_hands_shown_at_a_round_end_are_unseen_again_once_the_next_round_is_dealt():
    state = rig(new_state(3, target_score=500), [["red-2"], ["blue-9", "wild"], ["blue-skip"]], ["red-5"])
    state.apply("play:0")
    assert state.round == 2 and state.outcome()["hands"] == [[], ["blue-9", "wild"], ["blue-skip"]]
    view = state.view(0)
    assert all(card["face"] is None for hand in view["hands"][1:] for card in hand)


def test_a_round_stopped_by_max_turns_shows_no_hands():
    state = rig(new_state(2, target_score=0, max_turns=1), [["red-2", "blue-3"], ["blue-1"]], ["red-5"])
    state.apply("draw")
    state.apply("keep")
    assert state.is_terminal() and state.outcome()["hands"] is None
    assert "round-end" not in god_types(state)


def test_a_last_draw_card_still_makes_the_next_player_draw_and_those_cards_count():
    state = rig(new_state(3, target_score=0), [["red-draw-one"], ["blue-9"], ["blue-2"]], ["red-5"],
                draw=["wild-draw-two"])
    state.apply("play:0")
    assert hand(state, 1) == ["blue-9", "wild-draw-two"]
    assert state.outcome()["points"] == [0, 59, 2]


def test_a_last_wild_draw_is_not_challenged_and_the_next_player_draws():
    state = rig(new_state(3, target_score=0), [["wild-draw-two"], ["blue-9"], ["blue-2"]], ["red-5"],
                draw=["yellow-1", "yellow-2"])
    state.apply("play:0:green")
    assert state.is_terminal() and hand(state, 1) == ["blue-9", "yellow-1", "yellow-2"]


def test_points_are_counted_on_the_side_the_round_ended_on_even_after_a_last_flip():
    state = rig(new_state(2, target_score=0), [["red-flip"], ["blue-6|teal-skip-everyone", "red-3|wild-draw-color"]],
                ["red-5"])
    state.apply("play:0")
    assert state.is_terminal() and state.active == DARK
    assert state.outcome()["points"] == [0, 90]


@pytest.mark.parametrize("name, value, points", [
    ("blue-7", "7", 7), ("red-draw-one", None, 10), ("red-reverse", None, 20), ("red-skip", None, 20),
    ("red-flip", None, 20), ("wild", None, 40), ("wild-draw-two", None, 50)])
def test_light_card_points(name, value, points):
    state = rig(new_state(2, target_score=0), [["red-2"], [name]], ["red-5"])
    state.apply("play:0")
    assert state.outcome()["points"][1] == points


@pytest.mark.parametrize("name, points", [
    ("teal-7", 7), ("pink-draw-five", 20), ("pink-reverse", 20), ("pink-skip-everyone", 30),
    ("pink-flip", 20), ("wild", 40), ("wild-draw-color", 60)])
def test_dark_card_points(name, points):
    state = rig(new_state(2, target_score=0), [["pink-2"], [name]], ["pink-5"], side=DARK)
    state.apply("play:0")
    assert state.outcome()["points"][1] == points


def test_the_game_goes_on_to_the_target_with_the_deal_passing_left():
    for seed in range(12):
        state = rig(new_state(3, seed=seed, opening_action="redraw"), [["red-2"], ["blue-9"], ["blue-2"]], ["red-5"])
        state.apply("play:0")
        assert not state.is_terminal()
        assert state.scores == [11, 0, 0] and state.round == 2 and state.dealer == 1
        assert [len(h) for h in state.table.hands] == [7, 7, 7] and state.active == LIGHT
        assert state.table.count() == 112 and state.direction == 1
        assert state.current_seat() == 2  # left of the new dealer (redraw: the opening never moves it)
        assert any(e["type"] == "deal" and e["dealer"] == 1 for e in state.god_log)


def test_the_game_ends_after_the_round_in_which_someone_reaches_the_target_highest_first():
    state = rig(new_state(3, target_score=100), [["red-2"], ["blue-9"], ["blue-2"]], ["red-5"])
    state.scores = [90, 95, 10]
    state.apply("play:0")
    out = state.outcome()
    assert state.is_terminal() and out["reason"] == "target"
    assert out["scores"] == [101, 95, 10] and out["standing"] == [1, 2, 3]


def test_lowest_scoring_adds_each_losers_own_points_and_ranks_lowest_first():
    state = rig(new_state(3, scoring="lowest", target_score=100), [["red-2"], ["blue-9"], ["wild"]], ["red-5"])
    state.scores = [50, 20, 70]
    state.apply("play:0")
    out = state.outcome()
    assert out["scores"] == [50, 29, 110] and out["standing"] == [2, 1, 3] and out["reason"] == "target"


def test_lowest_scoring_continues_while_nobody_reached_the_target():
    state = rig(new_state(3, scoring="lowest"), [["red-2"], ["blue-9"], ["wild"]], ["red-5"])
    state.apply("play:0")
    assert not state.is_terminal() and state.scores == [0, 9, 40]


def test_a_single_round_ranks_the_winner_first_then_fewest_points_with_ties_shared():
    state = rig(new_state(4, target_score=0), [["red-2"], ["blue-9"], ["wild"], ["yellow-9"]], ["red-5"])
    state.apply("play:0")
    assert state.outcome()["standing"] == [1, 2, 4, 2]


def test_a_single_round_with_lowest_scoring_ranks_the_same_way():
    state = rig(new_state(4, target_score=0, scoring="lowest"), [["red-2"], ["blue-9"], ["wild"], ["yellow-3"]],
                ["red-5"])
    state.apply("play:0")
    out = state.outcome()
    assert out["standing"] == [1, 3, 4, 2] and out["scores"] == [0, 9, 40, 3]


def test_max_turns_stops_the_round_and_the_game_ends_with_everyone_tied():
    state = rig(new_state(3, max_turns=3), [["red-2", "red-3"], ["blue-9"], ["wild"]], ["red-5"])
    state.turns = 2
    state.apply("draw")
    state.apply("keep")
    assert state.current_seat() == 1
    state.apply("draw")
    state.apply("keep")
    assert state.is_terminal()
    out = state.outcome()
    assert out["reason"] == "max_turns" and out["standing"] == [1, 1, 1]


# -- options --------------------------------------------------------------------------------


def test_defaults():
    assert EVERY_OPTION_DEFAULT == {"target_score": 500, "scoring": "highest", "opening_action": "apply",
                                    "two_player_reverse_skips": True, "uno_penalty": 2, "max_turns": 1000,
                                    "deck": DEFAULT_DECK, "hand_size": 7}


def test_the_default_deck_option_is_the_shipped_deck_as_light_dark_face_pairs():
    # Ruling turn 2: the pairing is public, as the option `deck`.
    assert EVERY_OPTION_DEFAULT["deck"] == [list(pair) for pair in load_deck().faces]
    assert len(DEFAULT_DECK) == 112 and ["red-1", "pink-3"] in DEFAULT_DECK
    assert new_state(3).deck is load_deck()


def swapped_deck():
    """The real cards with the dark faces of the first two cards exchanged."""
    deck = [list(pair) for pair in DEFAULT_DECK]
    deck[0][1], deck[1][1] = deck[1][1], deck[0][1]
    return deck


def test_a_custom_deck_is_the_cards_of_the_game():
    deck = swapped_deck() + [["wild", "wild"]]
    state = new_state(4, deck=deck)
    assert Counter(state.deck.faces) == Counter(tuple(pair) for pair in deck)
    assert state.table.count() == 113
    rng = random.Random(1)
    while not state.is_terminal():   # it plays to the end
        state.apply(rng.choice(state.legal_actions()))


def test_the_order_of_the_deck_list_does_not_change_the_game():
    reordered = list(reversed(DEFAULT_DECK))
    games = []
    for deck in (DEFAULT_DECK, reordered):
        state, rng, actions = new_state(3, seed=5, deck=deck), random.Random(2), []
        while not state.is_terminal() and len(actions) < 300:
            actions.append(rng.choice(state.legal_actions()))
            state.apply(actions[-1])
        games.append((actions, state.view(0)))
    assert games[0] == games[1]


def test_a_custom_deck_may_hold_more_cards_than_the_real_one():
    deck = DEFAULT_DECK * 2
    state = new_state(2, deck=deck)
    assert state.table.count() == 224
    hand = state.table.hands[0]
    hand.extend(state.table.piles["draw"][:150])   # a hand longer than the real deck
    del state.table.piles["draw"][:150]
    state._legal = None
    assert state.legal_actions()[-1] == "draw"


@pytest.mark.parametrize("deck, message", [
    ("red-1", r"option 'deck' must be a list, not 'red-1'"),
    ([["red-1", "pink-3"]] * 20 + [["red-1"]], r"option 'deck': card 20 must be a pair"),
    ([["red-1", "pink-3"]] * 20 + [["red-0", "pink-3"]], r"card 20 has 'red-0', not a light-side face"),
    ([["red-1", "pink-3"]] * 20 + [["pink-1", "pink-3"]], r"card 20 has 'pink-1', not a light-side face"),
    ([["red-1", "pink-3"]] * 20 + [["red-1", "wild-draw-two"]], r"card 20 has 'wild-draw-two', not a dark-side"),
    ([["red-1", "pink-3"]] * 20 + [["red-1", 3]], r"card 20 has 3, not a dark-side face"),
    ([["red-1", "pink-3"]] * 20 + [["Red-1", "pink-3"]], r"card 20 has 'Red-1'"),
    ([["red-1", "pink-3"]] * 14, r"has 14 cards with a number on the light side; 2 players need at least 15"),
    ([["red-1", "pink-skip-everyone"]] * 40, r"has 0 cards with a number on the dark side"),
    ([["red-1", "pink-3"]] * 1001, r"at most 1000 cards, not 1001"),
])
def test_a_bad_custom_deck_is_refused_with_a_one_line_error_naming_the_problem(deck, message):
    with pytest.raises(OptionError, match=message) as caught:
        UnoFlip.resolve_options({"deck": deck})
    assert "\n" not in str(caught.value)


def test_a_custom_deck_too_small_for_the_table_is_refused_when_the_game_is_dealt():
    options = UnoFlip.resolve_options({"deck": [["red-1", "pink-3"]] * 20})   # enough for 2
    with pytest.raises(OptionError, match="3 players need at least 22"):
        UnoFlip.new_game(3, options, random.Random(0))


@pytest.mark.parametrize("options, message", [
    ({"target_score": -1}, "target_score.*at least 0"),
    ({"target_score": "500"}, "target_score.*integer"),
    ({"target_score": True}, "target_score.*integer"),
    ({"scoring": "most"}, "scoring.*'highest', 'lowest'"),
    ({"opening_action": "ignore"}, "opening_action.*'apply', 'redraw'"),
    ({"two_player_reverse_skips": 1}, "two_player_reverse_skips.*true or false"),
    ({"uno_penalty": -2}, "uno_penalty.*at least 0"),
    ({"uno_penalty": 1000}, "uno_penalty.*at most 112"),
    ({"uno_penalty": 2.5}, "uno_penalty.*integer"),
    ({"max_turns": 0}, "max_turns.*at least 1"),
    ({"max_turn": 10}, "unknown option 'max_turn'"),
])
def test_bad_options_are_refused_with_a_clear_error(options, message):
    with pytest.raises(OptionError, match=message):
        UnoFlip.resolve_options(options)


@pytest.mark.parametrize("players", [1, 11])
def test_player_count_is_2_to_10(players):
    with pytest.raises(PlayerCountError):
        UnoFlip.new_game(players, EVERY_OPTION_DEFAULT, random.Random(0))


def test_an_illegal_action_is_refused():
    state = rig(new_state(2), [["red-2", "blue-3"]], ["red-5"])
    for bad in ("play:1", "play:0:uno:uno", "keep", "play:9", "challenge", "color:red"):
        with pytest.raises(ValueError, match="not a legal action"):
            state.apply(bad)
