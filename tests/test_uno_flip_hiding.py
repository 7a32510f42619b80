"""UNO Flip: information hiding.

A seat's observation must not change when everything it has not seen is resampled:
the active faces of other players' cards (consistently with the deck and with the
faces the seat did see) and the order of the draw pile below its top. And no
observation may carry a card id: two games dealt from the same deck listed in a
different row order (so every card has another id) must look identical to every seat.
"""

from __future__ import annotations

import random

from arena.rules.uno_flip import UnoFlip, UnoFlipDeck, UnoFlipState, load_deck

OPTIONS = UnoFlip.resolve_options({"target_score": 100, "max_turns": 150})


def swap_places(table, place_a, place_b):
    """Exchange the cards at two places (a list and an index); each place keeps its
    orientation and the record of who has seen which side there."""
    (list_a, i), (list_b, j) = place_a, place_b
    a, b = list_a[i], list_b[j]
    list_a[i], list_b[j] = b, a
    table.side[a], table.side[b] = table.side[b], table.side[a]
    table.seen[a], table.seen[b] = table.seen[b], table.seen[a]


def resample(state, viewer, rng, draw_pile=True, rounds=400):
    """Change, at random, everything `viewer` has not seen (in place); return how many
    swaps were made."""
    table = state.table
    active = state.active
    faces = table.faces
    # Places of cards whose active face the viewer has not seen: held by others (the
    # viewer sees their inactive face), or below the top of the draw pile (unseen).
    held = [(hand, i) for seat, hand in enumerate(table.hands) if seat != viewer
            for i, c in enumerate(hand) if not table.has_seen(viewer, c, active)]
    draw = table.piles["draw"]
    buried = [(draw, i) for i, c in enumerate(draw[:-1])
              if not table.has_seen(viewer, c, 0) and not table.has_seen(viewer, c, 1)]
    if not draw_pile:
        buried = []
    places = held + buried
    if len(places) < 2:
        return 0
    swaps = 0
    for _ in range(rounds):
        place_a, place_b = rng.sample(places, 2)
        a, b = place_a[0][place_a[1]], place_b[0][place_b[1]]
        both_buried = place_a[0] is draw and place_b[0] is draw
        # A held card shows its inactive face to the viewer: the replacement must have it too.
        if not both_buried and faces[a][1 - active] != faces[b][1 - active]:
            continue
        swap_places(table, place_a, place_b)
        swaps += 1
    state._legal = None
    return swaps


def random_states(games, seed, stride=13, players_range=(2, 10)):
    """Yield states at every `stride`-th decision of random games."""
    rng = random.Random(seed)
    for game in range(games):
        players = rng.randint(*players_range)
        state = UnoFlip.new_game(players, OPTIONS, random.Random(seed * 1000 + game))
        step = 0
        while state.current_seat() is not None:
            if step % stride == 0:
                yield state, rng
            state.apply(rng.choice(state.legal_actions()))
            step += 1


def invariance(games, seed, view=lambda state, seat: state.view(seat)):
    """Resample what each seat has not seen at points of random games; return (states
    checked, those where hidden things really changed, views that changed)."""
    checked = changed = leaks = 0
    for state, rng in random_states(games, seed=seed):
        for viewer in range(state.players):
            twin = state.clone()
            if resample(twin, viewer, rng) == 0:
                continue
            leaks += view(twin, viewer) != view(state, viewer)
            if state.current_seat() == viewer:
                leaks += twin.legal_actions() != state.legal_actions()
            checked += 1
            other = (viewer + 1) % state.players
            changed += twin.view(other) != state.view(other) or twin.table.hands != state.table.hands
    return checked, changed, leaks


def test_observations_do_not_change_when_unseen_faces_and_the_unseen_pile_order_are_resampled():
    checked, changed, leaks = invariance(30, seed=1)
    assert leaks == 0
    assert checked > 500 and changed > 100  # the resampling really changes hidden things


def leaky_view(state, seat):
    """A view that leaks one hidden face: the active face of the next seat's last card
    (as a bug that forgot the seen-bits check would)."""
    view = state.view(seat)
    hand = state.table.hands[(seat + 1) % state.players]
    if hand:
        view["hands"][(seat + 1) % state.players][-1]["face"] = state.table.face(hand[-1])
    return view


def test_the_resampling_check_catches_a_view_that_leaks_a_hidden_face():
    checked, _, leaks = invariance(3, seed=1, view=leaky_view)
    assert checked > 50 and leaks > 5


def test_what_others_witness_of_an_action_does_not_depend_on_what_they_cannot_see():
    """After the same action, each other seat's events and view are the same in the
    real game and in a resampled one. Actions that reveal a resampled card (plays,
    challenges) are left out; the draw pile is kept so draws take the same cards."""
    checked = keep_with_other_options = 0
    for state, rng in random_states(30, seed=2, stride=4):
        actor = state.current_seat()
        legal = state.legal_actions()
        quiet = [a for a in legal if a in ("draw", "keep", "accept") or a.startswith("color:")]
        if not quiet:
            continue
        action = rng.choice(quiet)
        for viewer in range(state.players):
            if viewer == actor:
                continue
            twin = state.clone()
            original = state.clone()
            resample(twin, viewer, rng, draw_pile=False, rounds=150)
            if action not in twin.legal_actions():
                continue
            keep_with_other_options += action == "keep" and twin.legal_actions() != original.legal_actions()
            original.apply(action)
            twin.apply(action)
            assert twin.take_events(viewer) == original.take_events(viewer)
            assert twin.view(viewer) == original.view(viewer)
            checked += 1
    assert checked > 300
    # keeping a playable drawn card was compared with a drawn card that could not be played
    assert keep_with_other_options > 5


def permuted_deck(rng):
    rows = list(load_deck().rows)
    rng.shuffle(rows)
    return UnoFlipDeck(rows)


def test_no_observation_carries_a_card_id():
    rng = random.Random(3)
    for game in range(12):
        players = 2 + game % 9
        real = UnoFlipState(players, OPTIONS, random.Random(game))
        relabelled = UnoFlip.lay_out(players, OPTIONS, game, deck=permuted_deck(rng))
        assert real.table.hands != relabelled.table.hands  # the same cards under other ids
        while real.current_seat() is not None:
            assert relabelled.current_seat() == real.current_seat()
            legal = real.legal_actions()
            assert relabelled.legal_actions() == legal
            for seat in range(players):
                assert relabelled.view(seat) == real.view(seat)
                assert relabelled.take_events(seat) == real.take_events(seat)
            action = rng.choice(legal)
            real.apply(action)
            relabelled.apply(action)
        assert relabelled.outcome() == real.outcome()
