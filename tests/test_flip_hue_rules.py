"""Scenario tests for every Flip Hue ruling (shared/rules/flip-hue.md), from hand-set states."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.errors import IllegalActionError, OptionError, PlayerCountError
from arena.rules.flip_hue import (COLORS, DEFAULT_DECK, DISCARD, DRAW, FLIP, FlipHue, FlipHueState,
                                  fit_for_faction)

# Three seats whose factions share no color, so a scenario controls who can win.
FACTIONS3 = [("red", "blue"), ("green", "yellow"), ("orange", "purple")]
# Hands that win for nobody: mixed faces and mixed backs.
MIXED = [("red", "green"), ("blue", "orange"), ("yellow", "purple"), ("green", "red"), ("purple", "blue")]
FILLER = [("yellow", "orange"), ("purple", "green"), ("blue", "yellow"), ("orange", "red"),
          ("green", "blue"), ("red", "purple")]


def make(players=3, factions=None, hands=None, draw=None, discard=(), active=0, turn=0,
         max_turns=300, backs_seen=True) -> FlipHueState:
    """A game whose deal is replaced by a hand-set layout (see FlipHue.lay_out)."""
    factions = factions if factions is not None else FACTIONS3[:players]
    hands = hands if hands is not None else [list(MIXED) for _ in range(players)]
    draw = draw if draw is not None else list(FILLER)
    return FlipHue.lay_out(players, {"max_turns": max_turns}, factions=factions, hands=hands, draw=draw,
                           discard=discard, active=active, turn=turn, backs_seen=backs_seen)


def hand_faces(state, seat):
    return [state.table.face(c) for c in state.table.hands[seat]]


def hand_backs(state, seat):
    return [state.table.back(c) for c in state.table.hands[seat]]


def play(state, *actions):
    for action in actions:
        state.apply(action)


# -- the deck -----------------------------------------------------------------------


def test_default_deck_has_63_cards_45_two_color_6_one_color_12_flip():
    deck = [tuple(pair) for pair in DEFAULT_DECK]
    assert len(deck) == 63
    two_color = [p for p in deck if FLIP not in p and p[0] != p[1]]
    one_color = [p for p in deck if FLIP not in p and p[0] == p[1]]
    flips = [p for p in deck if FLIP in p]
    assert len(two_color) == 45 and len(one_color) == 6 and len(flips) == 12
    pairs = Counter(frozenset(p) for p in two_color)
    assert len(pairs) == 15 and set(pairs.values()) == {3}
    assert sorted(p[0] for p in one_color) == sorted(COLORS)
    assert Counter(p[1] if p[0] == FLIP else p[0] for p in flips) == {c: 2 for c in COLORS}
    assert not any(p == (FLIP, FLIP) for p in deck)


def test_custom_deck_is_used():
    deck = [["red", "blue"]] * 10 + [["green", "green"]] * 10
    state = FlipHue.new_game(2, FlipHue.resolve_options({"deck": deck}), random.Random(1))
    assert sorted(state.table.faces) == sorted(tuple(p) for p in deck)


# -- options --------------------------------------------------------------------------


@pytest.mark.parametrize("deck, message", [
    ("red", "list"),
    ([["red", "blue"]] * 12 + [["red"]], "pair"),
    ([["red", "blue"]] * 12 + [["red", 3]], "string"),
    ([["red", "blue"]] * 12 + [["red", ""]], "string"),
    ([["red", "blue"]] * 12 + [["flip", "flip"]], "Flip on both"),
    ([["red", "blue"]] * 12, "at least 13"),
    ([["red", "red"]] * 20 + [["red", "blue"]], "fit to be a faction"),
    ([["flip", "red"]] * 20 + [["red", "blue"]], "fit to be a faction"),
])
def test_bad_decks_are_rejected(deck, message):
    with pytest.raises(OptionError, match=message):
        FlipHue.resolve_options({"deck": deck})


def test_deck_is_checked_for_the_actual_player_count():
    deck = [["red", "blue"]] * 20  # enough for 2 or 3 players, not 4 (25 needed)
    options = FlipHue.resolve_options({"deck": deck})
    FlipHue.new_game(3, options, random.Random(0))
    with pytest.raises(OptionError, match="4 players need at least 25"):
        FlipHue.new_game(4, options, random.Random(0))
    few_fit = [["red", "red"]] * 40 + [["red", "blue"]] * 3
    with pytest.raises(OptionError, match="4 players need 4"):
        FlipHue.new_game(4, FlipHue.resolve_options({"deck": few_fit}), random.Random(0))


def test_max_turns_and_unknown_options_are_rejected():
    with pytest.raises(OptionError):
        FlipHue.resolve_options({"max_turns": 0})
    with pytest.raises(OptionError):
        FlipHue.resolve_options({"max_turns": "10"})
    with pytest.raises(OptionError):
        FlipHue.resolve_options({"hand_size": 4})
    assert FlipHue.resolve_options({})["max_turns"] == 300


def test_player_range_is_two_to_six():
    options = FlipHue.resolve_options({})
    for players in (1, 7):
        with pytest.raises(PlayerCountError):
            FlipHue.new_game(players, options, random.Random(0))
    for players in range(2, 7):
        assert FlipHue.new_game(players, options, random.Random(0)).current_seat() == 0


# -- setup -----------------------------------------------------------------------------


def test_faction_owner_sees_both_faces_others_only_the_top():
    state = FlipHue.new_game(4, FlipHue.resolve_options({}), random.Random(3))
    for seat in range(4):
        card = state.faction[seat]
        top, bottom = state.table.face(card), state.table.back(card)
        assert fit_for_faction((top, bottom))
        for viewer in range(4):
            seen = state.view(viewer)["factions"][seat]
            assert seen["top"] == top
            assert seen["bottom"] == (bottom if viewer == seat else None)


def _first_seed_with_rejection(players, deck=None):
    options = FlipHue.resolve_options({} if deck is None else {"deck": deck})
    for seed in range(500):
        state = FlipHue.new_game(players, options, random.Random(seed))
        if any(e["type"] == "faction" and not e["kept"] for e in state.god_log):
            return state
    raise AssertionError("no seed rejects a faction card")


def test_unfit_faction_cards_are_redealt_and_go_to_the_discard_pile():
    state = _first_seed_with_rejection(4)
    rejected = [e for e in state.god_log if e["type"] == "faction" and not e["kept"]]
    assert all(not fit_for_faction((e["top"], e["bottom"])) for e in rejected)
    kept = [e for e in state.god_log if e["type"] == "faction" and e["kept"]]
    assert [e["seat"] for e in kept] == [0, 1, 2, 3]
    # no reshuffle happened with the default deck: the rejected cards lie on the discard
    # pile, each with the top face it showed up
    discard = state.table.piles[DISCARD]
    assert len(discard) == len(rejected)
    assert [state.table.face(c) for c in discard] == [e["top"] for e in rejected]
    assert state.view(0)["discard_pile"]["top"]["up"] == rejected[-1]["top"]
    assert state.table.count() + 4 == 63


def test_redeal_repeats_until_fit_even_through_a_reshuffle():
    deck = [["red", "red"]] * 30 + [["flip", "green"]] * 10 + [["blue", "green"], ["red", "purple"]]
    for seed in range(20):
        state = FlipHue.new_game(2, FlipHue.resolve_options({"deck": deck}), random.Random(seed))
        faces = [state.table.faces[state.faction[s]] for s in range(2)]
        assert sorted(map(sorted, faces)) == [["blue", "green"], ["purple", "red"]]
        assert state.table.count() + 2 == len(deck)
        rejected = sum(1 for e in state.god_log if e["type"] == "faction" and not e["kept"])
        assert rejected >= 1
        # the others learn that a card was rejected, never its bottom face
        for event in state.take_events(1):
            if event["type"] == "faction" and event["seat"] == 0:
                assert "bottom" not in event


def test_deal_gives_five_cards_bottom_face_toward_each_player_who_sees_both_faces():
    state = FlipHue.new_game(3, FlipHue.resolve_options({}), random.Random(5))
    deals = [e for e in state.god_log if e["type"] == "deal"]
    assert [e["seat"] for e in deals] == [0, 1, 2] * 5
    for seat in range(3):
        assert len(state.table.hands[seat]) == 5
        view = state.view(seat)
        for card, known in zip(state.table.hands[seat], view["hand"]):
            assert known == {"face": state.table.face(card), "back": state.table.back(card)}
        for other in range(3):
            if other != seat:
                for known in view["hands"][other]:
                    assert known["face"] is None and known["back"] is not None
    # the back of a dealt card is the face it showed on the pile: seat 1 saw it there
    events = state.take_events(1)
    shown = [e["card"] for e in events if e["type"] == "deal" and e["seat"] == 0]
    assert [c["back"] for c in shown] == hand_backs(state, 0)
    assert all(c["face"] is None for c in shown)


def test_seat_zero_is_the_first_active_player_and_play_goes_clockwise():
    state = make()
    view = state.view(0)
    assert (view["turn"], view["to_act"], view["step"], view["turn_number"]) == (0, 0, "push", 1)
    play(state, "give:0:1", "pull:1:0", "allow")
    assert state.view(1)["turn"] == 1 and state.current_seat() == 1
    play(state, "give:0:2", "pull:2:0", "allow")
    assert state.current_seat() == 2


# -- orientation ------------------------------------------------------------------------


def test_a_drawn_card_has_its_bottom_face_toward_the_drawer():
    # the top card of the draw pile shows red up, blue down
    state = make(draw=list(FILLER) + [("red", "blue")])
    play(state, "give:0:1", "pull:2:0", "allow")
    # seat 1 (6 cards) discards, then seat 2 (4 cards) draws the top card
    assert state.current_seat() == 1 and state.step == "cleanup"
    state.apply("discard:0:face")
    assert len(state.table.hands[2]) == 5
    card = state.table.hands[2][-1]
    assert (state.table.face(card), state.table.back(card)) == ("blue", "red")
    assert state.view(2)["hand"][-1] == {"face": "blue", "back": "red"}  # the drawer recalls its back
    assert state.view(0)["hands"][2][-1] == {"face": None, "back": "red"}


def test_giving_swaps_face_and_back_for_the_receiver():
    state = make()
    # seat 0's card 0 is face red / back green
    state.apply("give:0:1")
    assert state.view(1)["hands"][1][-1] == {"face": "green", "back": None}
    card = state.table.hands[1][-1]
    assert (state.table.face(card), state.table.back(card)) == ("green", "red")
    # a third player now sees the giver's old face as the back, and remembers the other side
    assert state.view(2)["hands"][1][-1] == {"face": "green", "back": "red"}
    # the giver knows both
    assert state.view(0)["hands"][1][-1] == {"face": "green", "back": "red"}


def test_pulling_swaps_face_and_back_for_the_puller():
    state = make()
    # seat 2's card 1 is face blue / back orange: the puller sees orange and gets it as face
    assert state.view(0)["hands"][2][1] == {"face": None, "back": "orange"}
    play(state, "give:4:1", "pull:2:1")
    assert state.view(0)["pull"] == {"seat": 0, "target": 2, "pos": 1}
    assert state.current_seat() == 2 and state.legal_actions() == ["allow"]
    state.apply("allow")
    card = state.table.hands[0][-1]
    assert (state.table.face(card), state.table.back(card)) == ("orange", "blue")
    assert hand_faces(state, 2) == ["red", "yellow", "green", "purple"]  # the gap closes


def test_discarding_puts_the_chosen_side_up():
    hands = [list(MIXED), list(MIXED) + [("red", "purple")], list(MIXED)]
    for up, shown in (("face", "red"), ("back", "purple")):
        state = make(hands=hands, active=1)
        play(state, "give:0:2", "pull:0:0", "allow")
        # seat 1: 6 - 1 + 1 = 6 cards; it discards first (active), one decision per card
        assert state.current_seat() == 1 and state.step == "cleanup"
        assert state.legal_actions()[:2] == ["discard:0:face", "discard:0:back"]
        position = hand_faces(state, 1).index("red", 4)
        state.apply(f"discard:{position}:{up}")
        assert state.view(0)["discard_pile"]["top"]["up"] == shown
        assert state.table.face(state.table.top(DISCARD)) == shown


def test_discard_down_to_five_is_one_decision_per_card():
    hands = [list(MIXED), list(MIXED) + [("red", "purple"), ("blue", "blue")], list(MIXED)]
    state = make(hands=hands, active=0)
    play(state, "give:0:1", "pull:2:0", "allow")
    # seat 1 holds 8: three decisions of seat 1 before seat 2 draws
    for left in (8, 7, 6):
        assert state.current_seat() == 1 and len(state.table.hands[1]) == left
        assert len(state.table.hands[2]) == 4
        state.apply("discard:0:face")
    assert len(state.table.hands[1]) == 5 and len(state.table.hands[2]) == 5


# -- push -------------------------------------------------------------------------------


def test_push_gives_to_another_player_only():
    state = make()
    legal = state.legal_actions()
    assert "give:0:1" in legal and "give:4:2" in legal
    assert not any(a.startswith("give:") and a.endswith(":0") for a in legal)
    assert not any(a.startswith("flip:") for a in legal)  # no Flip face in hand
    with pytest.raises(IllegalActionError):
        state.apply("give:0:0")
    with pytest.raises(IllegalActionError):
        state.apply("pull:1:0")


def test_a_flip_card_is_one_whose_face_toward_its_holder_is_flip():
    hands = [[("red", FLIP)] + MIXED[:4], [(FLIP, "red")] + MIXED[:4], list(MIXED)]
    state = make(hands=hands)
    assert not any(a.startswith("flip:") for a in state.legal_actions())
    state = make(hands=hands, active=1)
    flips = [a for a in state.legal_actions() if a.startswith("flip:")]
    assert flips == ["flip:0:0", "flip:0:1", "flip:0:2"]  # any player, self included


def test_push_flip_discards_flip_face_up_and_flips_the_chosen_hand():
    hands = [[(FLIP, "green")] + MIXED[:4], list(MIXED), list(MIXED)]
    state = make(hands=hands)
    faces, backs = hand_faces(state, 2), hand_backs(state, 2)
    state.apply("flip:0:2")
    assert hand_faces(state, 2) == backs and hand_backs(state, 2) == faces
    # everyone saw the Flip face go up; the others had seen its back (green) in seat 0's hand
    for seat in range(3):
        assert state.view(seat)["discard_pile"]["top"] == {"up": FLIP, "down": "green"}
    assert len(state.table.hands[0]) == 4 and state.step == "pull"
    event = [e for e in state.take_events(1) if e["type"] == "push_flip"][0]
    assert event["target"] == 2 and event["hand"] == state.view(1)["hands"][2]


def test_push_flip_on_self_flips_own_hand():
    hands = [[(FLIP, "green")] + MIXED[:4], list(MIXED), list(MIXED)]
    state = make(hands=hands)
    backs = hand_backs(state, 0)[1:]
    state.apply("flip:0:0")
    assert hand_faces(state, 0) == backs


# -- pull and the Flip answer ------------------------------------------------------------------


def test_pull_targets_another_player_by_position():
    state = make()
    state.apply("give:0:1")
    legal = state.legal_actions()
    assert legal == [f"pull:1:{p}" for p in range(6)] + [f"pull:2:{p}" for p in range(5)]


def test_pulled_player_holding_flip_may_block_and_the_puller_flips_instead():
    hands = [list(MIXED), list(MIXED), [("blue", "red"), (FLIP, "yellow"), ("green", "green"),
                                        ("purple", FLIP), (FLIP, "orange")]]
    state = make(hands=hands)
    state.apply("give:0:1")
    state.apply("pull:2:0")
    assert state.current_seat() == 2 and state.step == "answer"
    assert state.legal_actions() == ["allow", "block:1", "block:4"]
    faces0, backs0 = hand_faces(state, 0), hand_backs(state, 0)
    state.apply("block:4")
    block = [e for e in state.god_log if e["type"] == "block"][0]
    assert [c["face"] for c in block["hand"]] == backs0 and [c["back"] for c in block["hand"]] == faces0
    assert not any(e["type"] == "take" for e in state.god_log)  # pulled nothing
    # cleanup: seat 0 (4 cards) draws one, seat 2 (4 cards) draws one
    assert hand_faces(state, 0)[:4] == backs0 and len(state.table.hands[0]) == 5
    assert hand_faces(state, 2)[:4] == ["blue", FLIP, "green", "purple"]
    # the used Flip card went to the discard pile Flip face up
    assert state.table.face(state.table.piles[DISCARD][0]) == FLIP


def test_block_is_offered_even_when_the_pulled_card_is_the_flip_card():
    hands = [list(MIXED), list(MIXED), [(FLIP, "red")] + MIXED[:4]]
    state = make(hands=hands)
    play(state, "give:0:1", "pull:2:0")
    assert state.legal_actions() == ["allow", "block:0"]


def test_pulled_player_without_flip_is_still_asked_with_allow_only():
    state = make()
    play(state, "give:0:1", "pull:2:3")
    assert state.current_seat() == 2 and state.legal_actions() == ["allow"]
    with pytest.raises(IllegalActionError):
        state.apply("block:0")


def test_pull_skipped_when_no_other_player_holds_a_card():
    hands = [[(FLIP, "red")] + MIXED[:2], []]
    state = make(players=2, factions=FACTIONS3[:2], hands=hands, draw=list(FILLER) * 2)
    state.apply("flip:0:1")  # the other hand is empty: nothing to pull, straight to cleanup
    skips = [e for e in state.god_log if e["type"] == "skip"]
    assert skips == [{"type": "skip", "seat": 0, "step": "pull"}]
    assert [len(h) for h in state.table.hands] == [5, 5]
    assert state.current_seat() == 1 and state.step == "push"


def test_push_skipped_with_no_card_to_give():
    state = make(hands=[[], list(MIXED), list(MIXED)], draw=list(FILLER) * 2)
    assert state.step == "pull" and state.current_seat() == 0
    assert {"type": "skip", "seat": 0, "step": "push"} in state.god_log


# -- cleanup ------------------------------------------------------------------------------------------


def test_cleanup_runs_in_turn_order_from_the_active_player():
    # active seat 2 discards a Flip at seat 1 (seat 2 down to 4), pulls at seat 0, who
    # blocks (seat 0 down to 4). Cleanup order 2, 0, 1: seat 2 draws the top card first.
    hands = [[(FLIP, "red")] + MIXED[:4], list(MIXED), [(FLIP, "blue")] + MIXED[:4]]
    draw = list(FILLER) + [("green", "green"), ("orange", "orange")]  # orange on top
    state = make(hands=hands, draw=draw, active=2)
    play(state, "flip:0:1", "pull:0:1", "block:0")
    assert [len(h) for h in state.table.hands] == [5, 5, 5]
    assert hand_faces(state, 2)[-1] == "orange"
    assert hand_faces(state, 0)[-1] == "green"
    draws = [e["seat"] for e in state.god_log if e["type"] == "draw"]
    assert draws == [2, 0]


def test_cleanup_discard_comes_before_a_later_players_draw():
    # active seat 1 gives to seat 2 (6 cards) and pulls from seat 0 (4 cards):
    # order 1, 2, 0 - seat 2 discards before seat 0 draws
    state = make(active=1, draw=[("red", "red")])
    play(state, "give:0:2", "pull:0:0", "allow")
    assert state.current_seat() == 2 and state.step == "cleanup"
    assert len(state.table.hands[0]) == 4
    state.apply("discard:5:back")
    # seat 0 draws the last card of the draw pile; the discard pile becomes the draw pile
    assert len(state.table.hands[0]) == 5


def test_draw_pile_running_out_is_refilled_from_the_discard_pile_at_once():
    discard = [("green", "blue"), ("yellow", "red"), ("purple", "orange")]
    state = make(active=1, draw=[("red", "red")], discard=discard)
    up_before = {c: state.table.side[c] for c in state.table.piles[DISCARD]}
    play(state, "give:0:2", "pull:0:0", "allow", "discard:5:face")
    reshuffles = [e for e in state.god_log if e["type"] == "reshuffle"]
    assert len(reshuffles) == 1
    # the discard pile (three cards, then seat 2's discard on top) became the draw pile at once
    assert len(state.table.piles[DISCARD]) == 0
    assert reshuffles[0]["size"] == 4 and len(state.table.piles[DRAW]) == 4
    # orientation kept
    for card, side in up_before.items():
        assert state.table.side[card] == side
    # seeded: the same game gives the same order
    twin = make(active=1, draw=[("red", "red")], discard=discard)
    play(twin, "give:0:2", "pull:0:0", "allow", "discard:5:face")
    assert twin.table.piles[DRAW] == state.table.piles[DRAW]


def test_hands_are_back_to_five_after_cleanup():
    state = FlipHue.new_game(4, FlipHue.resolve_options({}), random.Random(11))
    rng = random.Random(2)
    turns = state.turn
    while state.current_seat() is not None and state.turn < 40:
        state.apply(rng.choice(state.legal_actions()))
        if state.turn != turns and state.step == "push":
            turns = state.turn
            assert [len(h) for h in state.table.hands] == [5] * 4


# -- check for win ------------------------------------------------------------------------


def _quiet_turn(state):
    """Seat 0 gives to seat 2 and pulls it back: nobody's cards change but seat 2's order."""
    play(state, "give:0:2", "pull:2:5", "allow")


def test_win_by_own_faces_of_a_faction_color():
    hands = [list(MIXED), [("green", c) for c in ("red", "blue", "orange", "purple", "red")], list(MIXED)]
    state = make(hands=hands)
    _quiet_turn(state)
    assert state.is_terminal()
    assert state.outcome()["standing"] == [2, 1, 2] and state.outcome()["reason"] == "win"
    assert state.outcome()["scores"] == [0, 1, 0]
    assert state.god_log[-1] == {"type": "win", "seat": 1, "color": "green", "hand": 1, "side": "face"}


def test_win_by_the_backs_of_another_players_hand():
    # seat 2's backs are all yellow, a faction color of seat 1 (green/yellow)
    hands = [list(MIXED), list(MIXED), [(c, "yellow") for c in ("red", "blue", "green", "purple", "orange")]]
    state = make(hands=hands)
    play(state, "give:0:1", "pull:1:5", "allow")
    assert state.god_log[-1] == {"type": "win", "seat": 1, "color": "yellow", "hand": 2, "side": "back"}
    assert state.outcome()["standing"] == [2, 1, 2]


def test_never_a_win_by_ones_own_backs():
    # seat 1's own backs are all green (its faction color); nobody else has green
    hands = [list(MIXED), [(c, "green") for c in ("red", "blue", "orange", "purple", "red")], list(MIXED)]
    state = make(hands=hands)
    _quiet_turn(state)
    assert not state.is_terminal() and state.current_seat() == 1


def test_never_a_win_by_a_mix_of_the_two_faction_colors():
    # seat 1 (green/yellow): faces mixing green and yellow
    mix = [("green", "red"), ("yellow", "blue"), ("green", "purple"), ("green", "orange"), ("yellow", "red")]
    state = make(hands=[list(MIXED), mix, list(MIXED)])
    _quiet_turn(state)
    assert not state.is_terminal()
    # seat 2's backs mixing green and yellow
    backs_mix = [(b, f) for f, b in mix]
    state = make(hands=[list(MIXED), list(MIXED), backs_mix])
    play(state, "give:0:1", "pull:1:5", "allow")
    assert not state.is_terminal()


def test_a_win_needs_five_cards():
    # seat 1 holds four green faces and nothing is left to draw: no win
    hands = [list(MIXED), [("green", "red")] * 4, list(MIXED)]
    state = make(hands=hands, draw=[])
    _quiet_turn(state)
    assert len(state.table.hands[1]) == 4 and not state.is_terminal()
    # with a fifth green face drawn in cleanup, seat 1 wins
    hands = [list(MIXED), [("green", "red")] * 4 + [("blue", "blue")], list(MIXED)]
    state = make(hands=hands, draw=list(FILLER) + [("purple", "green")])
    play(state, "give:0:2", "pull:1:4", "allow")
    assert state.current_seat() == 2  # seat 2 (6 cards) discards, then seat 1 draws
    state.apply("discard:0:face")
    assert state.god_log[-1] == {"type": "win", "seat": 1, "color": "green", "hand": 1, "side": "face"}


def test_tie_goes_to_the_first_qualifying_player_from_the_active_one():
    green = [("green", c) for c in ("red", "blue", "orange", "purple", "red")]
    orange = [("orange", c) for c in ("red", "blue", "green", "purple", "red")]
    factions = [("green", "blue"), ("green", "yellow"), ("orange", "purple")]
    # seats 0 and 1 both qualify with green faces; active seat 1 -> seat 1 wins
    state = make(factions=factions, hands=[green, list(green), list(MIXED)], active=1)
    play(state, "give:0:2", "pull:2:5", "allow")
    assert state.outcome()["standing"] == [2, 1, 2]
    # active seat 2: order 2, 0, 1 -> seat 0 wins
    state = make(factions=factions, hands=[green, list(green), list(MIXED)], active=2)
    play(state, "give:0:1", "pull:1:5", "allow")
    assert state.outcome()["standing"] == [1, 2, 2]
    # the active player itself qualifies -> the active player wins
    state = make(factions=factions, hands=[green, list(green), orange], active=2)
    play(state, "give:0:1", "pull:1:5", "allow")
    assert state.outcome()["standing"] == [2, 2, 1]


def test_no_win_check_before_the_first_turn_and_wins_only_in_step_four():
    green = [("green", c) for c in ("red", "blue", "orange", "purple", "red")]
    state = make(hands=[list(MIXED), green, list(MIXED)])
    assert not state.is_terminal() and state.step == "push"


def test_a_hand_winning_from_the_deal_wins_only_at_step_four_of_the_first_turn():
    # Ruling turn 2 (confirming the engine): no win check after the deal or at a turn's start.
    green = [("green", c) for c in ("red", "blue", "orange", "purple", "red")]
    state = make(hands=[list(MIXED), green, list(MIXED)])
    play(state, "give:0:2")
    assert not state.is_terminal() and state.step == "pull"
    play(state, "pull:2:5")
    assert not state.is_terminal() and state.step == "answer"
    play(state, "allow")
    assert state.is_terminal() and state.outcome()["standing"] == [2, 1, 2]


def test_a_hand_winning_from_the_deal_but_not_at_step_four_does_not_win():
    green = [("green", c) for c in ("red", "blue", "orange", "purple", "red")]
    state = make(hands=[list(MIXED), green, list(MIXED)])
    play(state, "give:0:2", "pull:1:0", "allow")        # seat 1 is down to four cards
    assert not state.is_terminal()
    assert not any(e["type"] == "win" for e in state.god_log)


def test_max_turns_ends_the_game_with_everyone_tied():
    state = make(max_turns=2)
    play(state, "give:0:1", "pull:1:0", "allow")
    assert not state.is_terminal()
    play(state, "give:0:2", "pull:2:0", "allow")
    assert state.is_terminal()
    assert state.outcome() == {"standing": [1, 1, 1], "scores": [0, 0, 0], "reason": "max_turns", "turns": 2}
    assert state.legal_actions() == []


def test_a_winning_last_turn_is_a_win_not_a_stop():
    green = [("green", c) for c in ("red", "blue", "orange", "purple", "red")]
    state = make(hands=[list(MIXED), green, list(MIXED)], max_turns=1)
    _quiet_turn(state)
    assert state.outcome()["reason"] == "win"


def test_clone_is_independent():
    state = FlipHue.new_game(4, FlipHue.resolve_options({}), random.Random(8))
    twin = state.clone()
    assert twin.view(2) == state.view(2)
    rng_a, rng_b = random.Random(4), random.Random(4)
    while not twin.is_terminal():
        twin.apply(rng_a.choice(twin.legal_actions()))
    assert state.turn == 1 and len(state.table.hands[0]) == 5
    while not state.is_terminal():
        state.apply(rng_b.choice(state.legal_actions()))
    assert state.outcome() == twin.outcome()
