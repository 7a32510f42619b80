"""Color Flush information hiding: a seat's view and events depend only on what it saw.

Resampling: every side of every card that the seat has not seen is redrawn from the
deck (the cards it has not fully seen swap identities, keeping each side the seat
did see), the never-seen part of the draw pile is permuted and the other seats'
knowledge is scrambled. A resampled table stays consistent with what every seat
knows about the rules: no side that has faced a holder or lain up on the pile is
black (a black side there would have been flipped at once).
"""

from __future__ import annotations

import random

from arena.rules.color_flush import BLACK, ColorFlush


def seen_masks(state, seat):
    return [(bits >> (2 * seat)) & 3 for bits in state.table.seen]


def facing_sides(state):
    """(card, side) pairs now toward a holder or up on the pile."""
    table = state.table
    sides = {(card, table.side[card]) for hand in table.hands for card in hand}
    sides.update((card, table.side[card]) for card in table.piles["draw"])
    return sides


def resample(state, seat, rng, masks=None, no_black=None, scramble_others=True):
    """A copy of `state` differing only in what `seat` has not seen (None if the
    random assignment keeps failing). `masks`: the seat's seen sides per card to
    keep; `no_black`: (card, side) pairs that must not become black."""
    table = state.table
    masks = seen_masks(state, seat) if masks is None else masks
    no_black = facing_sides(state) if no_black is None else no_black
    free = [card for card, mask in enumerate(masks) if mask != 3]
    for _ in range(50):
        pool = [table.faces[card] for card in free]
        order = sorted(free, key=lambda card: (masks[card] == 0, rng.random()))
        new = {}
        for card in order:
            mask = masks[card]
            old = table.faces[card]
            choices = []
            for index, (a, b) in enumerate(pool):
                for pair in ((a, b), (b, a)):
                    if mask & 1 and pair[0] != old[0] or mask & 2 and pair[1] != old[1]:
                        continue
                    if any(pair[side] == BLACK and (card, side) in no_black
                           for side in (0, 1) if not mask >> side & 1):
                        continue
                    choices.append((index, pair))
            if not choices:
                break
            index, pair = rng.choice(choices)
            pool.pop(index)
            new[card] = pair
        else:
            break
    else:
        return None
    twin = state.clone()
    faces = list(table.faces)
    for card, pair in new.items():
        faces[card] = pair
    twin.table.faces = tuple(faces)
    twin._recode()
    pile = twin.table.piles["draw"]
    # permute the cards of the pile that the seat never saw (they lie below the rest)
    unseen = [i for i, card in enumerate(pile[:-1]) if masks[card] == 0]
    moved = [pile[i] for i in unseen]
    rng.shuffle(moved)
    for i, card in zip(unseen, moved):
        pile[i] = card
    if scramble_others:
        mine = 3 << (2 * seat)
        everyone = (1 << (2 * state.players)) - 1
        twin.table.seen = [(bits & mine) | (rng.getrandbits(2 * state.players) & everyone & ~mine)
                           for bits in twin.table.seen]
    return twin


def random_states(games, rng, every=7):
    for game in range(games):
        players = 2 + game % 5
        state = ColorFlush.new_game(players, ColorFlush.resolve_options({}), random.Random(500 + game))
        step = 0
        while not state.is_terminal():
            if step % every == 0:
                yield state
            state.apply(rng.choice(state.legal_actions()))
            step += 1
        yield state


def test_views_are_identical_after_resampling_everything_the_seat_has_not_seen():
    rng = random.Random(1)
    compared = changed = 0
    for state in random_states(40, rng):
        for seat in range(state.players):
            twin = resample(state, seat, rng)
            if twin is None:
                continue
            assert twin.view(seat) == state.view(seat)
            assert twin.legal_actions() == state.legal_actions()
            compared += 1
            changed += twin.table.faces != state.table.faces
    assert compared > 500 and changed > compared // 2  # the resampling really changes things


def test_resampling_would_catch_a_view_that_shows_an_unseen_face():
    rng = random.Random(2)
    state = next(random_states(1, rng))
    caught = 0
    for _ in range(20):
        twin = resample(state, 0, rng)
        god = [[twin.table.back(c) for c in hand] for hand in twin.table.hands]
        real = [[state.table.back(c) for c in hand] for hand in state.table.hands]
        caught += god[0] != real[0]  # seat 0's own backs are unseen: they do vary
    assert caught > 0


def _replay_trajectory(start, actions, seat):
    """Play `actions` from `start` and return, per step, seat's events and view
    (None once the game flow leaves the recorded one)."""
    state = start
    steps = []
    for action in actions:
        state.apply(action)
        steps.append((state.take_events(seat), state.view(seat), state.is_terminal(), state.winner))
    return steps


def test_events_and_views_along_a_game_depend_only_on_what_the_seat_saw():
    rng = random.Random(3)
    compared = rejected = 0
    for game in range(60):
        players = 2 + game % 5
        start = ColorFlush.new_game(players, ColorFlush.resolve_options({}), random.Random(900 + game))
        state = start.clone()
        no_black = facing_sides(state)
        actions = []
        length = rng.randrange(5, 120)
        while not state.is_terminal() and len(actions) < length:
            action = rng.choice(state.legal_actions())
            state.apply(action)
            actions.append(action)
            no_black |= facing_sides(state)
        for seat in range(players):
            recorded = _replay_trajectory(start.clone(), actions, seat)
            twin = resample(start, seat, rng, masks=seen_masks(state, seat), no_black=no_black)
            if twin is None:
                continue
            assert twin.view(seat) == start.view(seat)
            replayed = []
            flow_differs = False
            for action in actions:
                if twin.is_terminal():
                    flow_differs = True
                    break
                twin.apply(action)
                replayed.append((twin.take_events(seat), twin.view(seat), twin.is_terminal(), twin.winner))
            # A hidden hand that happens to win earlier contradicts what everybody saw
            # (nobody won): such a sample is not a state the seat thinks possible.
            if flow_differs or [r[2:] for r in replayed] != [r[2:] for r in recorded]:
                rejected += 1
                continue
            assert replayed == recorded
            compared += 1
    assert compared > 150 and rejected < compared // 4


# -- no card ids in observations -----------------------------------------------------

def permuted(state, rng):
    """The same physical game with the engine's card ids permuted."""
    table = state.table
    n = len(table.faces)
    perm = list(range(n))
    rng.shuffle(perm)  # old id -> new id
    twin = state.clone()
    t = twin.table
    faces = [None] * n
    side = [0] * n
    seen = [0] * n
    for old, new in enumerate(perm):
        faces[new] = table.faces[old]
        side[new] = table.side[old]
        seen[new] = table.seen[old]
    t.faces, t.side, t.seen = tuple(faces), side, seen
    t.hands = [[perm[c] for c in hand] for hand in table.hands]
    t.piles = {name: [perm[c] for c in pile] for name, pile in table.piles.items()}
    twin._recode()
    return twin


def test_observations_do_not_change_when_card_ids_are_permuted():
    rng = random.Random(4)
    for game in range(25):
        players = 2 + game % 5
        state = ColorFlush.new_game(players, ColorFlush.resolve_options({}), random.Random(game))
        twin = permuted(state, rng)
        for seat in range(players):
            state.take_events(seat)
        while not state.is_terminal():
            for seat in range(players):
                assert twin.view(seat) == state.view(seat)
                assert twin.take_events(seat) == state.take_events(seat)
            assert twin.legal_actions() == state.legal_actions()
            action = rng.choice(state.legal_actions())
            state.apply(action)
            twin.apply(action)
        assert twin.outcome() == state.outcome()


INT_FIELDS = {"turn", "active", "turn_number", "max_turns", "seat", "pos", "to", "from", "with", "turns",
              "size", "winner", "hand_sizes"}


def _walk(value, key, strings, ints):
    if isinstance(value, dict):
        for k, v in value.items():
            _walk(v, k, strings, ints)
    elif isinstance(value, list):
        for v in value:
            _walk(v, key, strings, ints)
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int):
        ints.append(key)
    elif isinstance(value, str):
        strings.append(value)
    else:
        raise AssertionError(f"not plain JSON: {value!r}")


def test_observations_contain_no_card_ids_and_only_faces_the_seat_has_seen():
    # Every colored face in this deck is unique, so a face string names one side of one card.
    deck = [[f"c{2 * i}", f"c{2 * i + 1}"] for i in range(40)]
    deck += [["white", f"c{100 + i}"] for i in range(5)] + [["black", f"c{200 + i}"] for i in range(5)]
    owner = {face: (card, side) for card, pair in enumerate(deck) for side, face in enumerate(pair)
             if face not in ("white", "black")}
    options = ColorFlush.resolve_options({"deck": deck, "max_turns": 60})
    rng = random.Random(5)
    observed = 0
    for game in range(30):
        players = 2 + game % 5
        state = ColorFlush.new_game(players, options, random.Random(game))
        while True:
            for seat in range(players):
                strings, ints = [], []
                _walk({"view": state.view(seat), "events": state.take_events(seat)}, None, strings, ints)
                assert set(ints) <= INT_FIELDS, set(ints) - INT_FIELDS
                for face in strings:
                    if face in owner:
                        card, side = owner[face]
                        assert state.table.has_seen(seat, card, side), (seat, face)
                observed += 1
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
    assert observed > 1000
