"""Information hiding in Flip Hue: a seat's observation depends only on what it has seen.

At many points of random games, for each seat, a twin state is built that differs only
in what that seat has not seen: every face it never saw is resampled consistently with
the deck (cards it never saw at all are dealt out again, which also reorders the unseen
part of the draw pile; a hidden side is swapped with the hidden side of another card
that showed the seat the same face), other seats' private knowledge is scrambled, and
the RNG of future shuffles is replaced. The seat's view must not change; and the
events the seat receives from the next transition must be identical in both states.
"""

from __future__ import annotations

import random

import pytest

from arena.rules.flip_hue import FLIP, FlipHue, FlipHueState, fit_for_faction

MIXED = [("red", "green"), ("blue", "orange"), ("yellow", "purple"), ("green", "red"), ("purple", "blue")]
FILLER = [("yellow", "orange"), ("purple", "green"), ("blue", "yellow"), ("orange", "red")]


def make(hands) -> FlipHueState:
    """Three seats with a hand-set layout (see FlipHue.lay_out)."""
    return FlipHue.lay_out(3, factions=[("red", "blue"), ("green", "yellow"), ("orange", "purple")], hands=hands,
                           draw=FILLER)


def resample(state: FlipHueState, seat: int, rng: random.Random, known: list[int] | None = None,
             keep_rng: bool = False) -> FlipHueState:
    """A clone of `state` that differs only in what `seat` has not seen.

    `known[card]` is the 2-bit mask of the sides `seat` has seen (default: now).
    """
    twin = state.clone()
    table = twin.table
    count = len(table.faces)
    players = state.players
    if known is None:
        known = [(table.seen[c] >> (2 * seat)) & 3 for c in range(count)]
    faces = [list(pair) for pair in table.faces]
    factions = set(state.faction)

    # Cards the seat never saw: deal them out again, each any way round.
    unseen = [c for c in range(count) if known[c] == 0]
    pairs = [faces[c] for c in unseen]
    rng.shuffle(pairs)
    for card, pair in zip(unseen, pairs):
        faces[card] = list(pair) if rng.random() < 0.5 else [pair[1], pair[0]]

    # Cards the seat saw one side of: swap hidden sides among cards showing the same face
    # (faction cards among themselves, keeping them fit to be faction cards).
    groups: dict[tuple[str, bool], list[tuple[int, int]]] = {}
    for card in range(count):
        if known[card] in (1, 2):
            side = 0 if known[card] == 1 else 1
            groups.setdefault((faces[card][side], card in factions), []).append((card, side))
    for (face, is_faction), members in sorted(groups.items()):
        original = [faces[c][1 - s] for c, s in members]
        hidden = list(original)
        for _ in range(20):
            rng.shuffle(hidden)
            if not is_faction or all(fit_for_faction((face, h)) for h in hidden):
                break
        else:
            hidden = original
        for (card, side), other in zip(members, hidden):
            faces[card][1 - side] = other
    table.faces = tuple((a, b) for a, b in faces)

    # Other seats' private knowledge.
    mine = 3 << (2 * seat)
    for card in range(count):
        table.seen[card] = (table.seen[card] & mine) | (rng.getrandbits(2 * players) & ~mine)
    if not keep_rng:
        twin.rng = random.Random(rng.getrandbits(64))
    twin._legal = None
    return twin


def _points(players, seed, every=23):
    """Yield states at decision points of a random game."""
    state = FlipHue.new_game(players, FlipHue.resolve_options({}), random.Random(seed))
    rng = random.Random(seed + 7)
    decision = 0
    while not state.is_terminal():
        if decision % every == 0:
            yield state
        state.apply(rng.choice(state.legal_actions()))
        decision += 1
    yield state


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_view_is_invariant_to_everything_the_seat_has_not_seen(players):
    rng = random.Random(players)
    checked = changed = 0
    for seed in range(6):
        for state in _points(players, 300 + seed):
            for seat in range(players):
                twin = resample(state, seat, rng)
                assert twin.view(seat) == state.view(seat)
                checked += 1
                changed += twin.table.faces != state.table.faces
    assert checked > 200
    assert changed > checked // 2  # the resampling really changes hidden faces


def check_transition_events(seeds, every):
    """Apply the same action to the state and to a twin resampled for `seat` (with the
    same shuffle RNG, and keeping every side the seat sees before or after the
    transition): the seat's events and its view afterwards are identical. Returns how
    many transitions were compared and how many answers differed in their options."""
    rng = random.Random(99)
    compared = blocked_or_not = wins = 0
    for players in (2, 3, 4, 5, 6):
        for seed in seeds:
            game_rng = random.Random(seed)
            state = FlipHue.new_game(players, FlipHue.resolve_options({}), random.Random(1000 * players + seed))
            decision = 0
            while not state.is_terminal():
                action = game_rng.choice(state.legal_actions())
                decision += 1
                after = state.clone()
                after.apply(action)
                # answers are where hidden options live: always check them
                sampled = decision % every == 0 or state.step == "answer"
                if sampled and not any(e["type"] == "reshuffle" for e in after.god_log):
                    for seat in range(players):
                        before_seen = state.table.seen
                        known = [((before_seen[c] | after.table.seen[c]) >> (2 * seat)) & 3
                                 for c in range(len(before_seen))]
                        twin = resample(state, seat, rng, known=known, keep_rng=True)
                        if action not in twin.legal_actions():
                            # a Flip card the seat could not see: the twin's owner answers "allow"
                            assert state.step == "answer" and action.startswith("block")
                            continue
                        if state.step == "answer" and twin.legal_actions() != state.legal_actions():
                            blocked_or_not += 1
                        probe = state.clone()
                        probe.apply(action)
                        twin.apply(action)
                        mine, theirs = twin.take_events(seat), probe.take_events(seat)
                        if any(e["type"] == "win" for e in mine + theirs):
                            # a win shows the winning hand: whether a hand the seat could
                            # not see wins is the one thing the game reveals
                            wins += 1
                            mine = [e for e in mine if e["type"] not in ("win", "turn", "max_turns")]
                            theirs = [e for e in theirs if e["type"] not in ("win", "turn", "max_turns")]
                            assert mine == theirs
                            continue
                        assert mine == theirs, (action, seat)
                        assert twin.view(seat) == probe.view(seat)
                        compared += 1
                state.apply(action)
                state.take_events(0)
    return compared, blocked_or_not


def test_events_of_a_transition_are_invariant_to_what_the_seat_has_not_seen():
    compared, blocked_or_not = check_transition_events(seeds=range(2), every=4)
    assert compared > 2000
    assert blocked_or_not > 0


@pytest.mark.slow
def test_events_of_every_transition_are_invariant_over_many_games():
    compared, blocked_or_not = check_transition_events(seeds=range(40), every=1)
    assert compared > 100_000 and blocked_or_not > 0


def test_others_cannot_tell_a_declined_block_from_no_flip_card():
    # seat 2 is pulled twice in two games that differ only in seat 2's faces: one hand
    # with a Flip face (seat 2 answers allow), one without (allow is its only action).
    with_flip = [("blue", "red"), (FLIP, "yellow"), ("green", "green"), ("purple", "red"), ("red", "orange")]
    without = [("blue", "red"), ("orange", "yellow"), ("green", "green"), ("purple", "red"), ("red", "orange")]
    runs = []
    for hand in (with_flip, without):
        state = make(hands=[list(MIXED), list(MIXED), hand])
        for seat in range(3):
            state.take_events(seat)
        state.apply("give:0:1")
        state.apply("pull:2:0")
        assert state.current_seat() == 2
        legal = state.legal_actions()
        state.apply("allow")
        runs.append((legal, state))
    (legal_a, a), (legal_b, b) = runs
    assert legal_a == ["allow", "block:1"] and legal_b == ["allow"]
    for seat in (0, 1):
        assert a.take_events(seat) == b.take_events(seat)
        assert a.view(seat) == b.view(seat)
    assert a.view(2) != b.view(2)


def test_faction_bottom_is_hidden_from_the_others_in_views_and_events():
    state = FlipHue.new_game(3, FlipHue.resolve_options({}), random.Random(4))
    for seat in range(3):
        for event in state.take_events(seat):
            if event["type"] == "faction":
                assert ("bottom" in event) == (event["seat"] == seat)
        view = state.view(seat)
        assert [f["bottom"] is not None for f in view["factions"]] == [s == seat for s in range(3)]


# -- no card ids in observations -------------------------------------------------------------

ALLOWED_INT_KEYS = {"turn", "to_act", "turn_number", "max_turns", "size", "seat", "target", "pos",
                    "winner", "to", "from", "puller", "hand"}


def _ints(value, key=None):
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield key
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _ints(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _ints(v, key)


def _relabel(state: FlipHueState, rng: random.Random) -> FlipHueState:
    """A clone whose card ids are permuted (same physical game)."""
    twin = state.clone()
    table, source = twin.table, state.table
    count = len(source.faces)
    perm = list(range(count))
    rng.shuffle(perm)
    faces = [None] * count
    side = [0] * count
    seen = [0] * count
    for card in range(count):
        faces[perm[card]] = source.faces[card]
        side[perm[card]] = source.side[card]
        seen[perm[card]] = source.seen[card]
    table.faces = tuple(faces)
    table.side = side
    table.seen = seen
    table.hands = [[perm[c] for c in hand] for hand in source.hands]
    table.piles = {name: [perm[c] for c in pile] for name, pile in source.piles.items()}
    twin.faction = [perm[c] for c in state.faction]
    return twin


def test_observations_do_not_depend_on_card_ids():
    rng = random.Random(5)
    for players in (2, 4, 6):
        for state in _points(players, 77, every=17):
            twin = _relabel(state, rng)
            for seat in range(players):
                assert twin.view(seat) == state.view(seat)
            if not state.is_terminal():
                action = state.legal_actions()[0]
                probe = state.clone()
                probe.apply(action)
                twin.apply(action)
                for seat in range(players):
                    assert twin.take_events(seat) == probe.take_events(seat)


def test_no_integer_in_views_or_events_could_be_a_card_id():
    for state in _points(4, 12, every=11):
        for seat in range(4):
            assert set(_ints(state.view(seat))) <= ALLOWED_INT_KEYS
            assert set(_ints(state.take_events(seat))) <= ALLOWED_INT_KEYS


def test_unique_faces_deck_shows_only_seen_faces():
    # every card has its own two face strings: a face in a view names one physical card,
    # so every face a seat is shown must be one it has seen
    deck = [[f"x{i}a", f"x{i}b"] for i in range(50)] + [[FLIP, f"x{i}f"] for i in range(50, 63)]
    state = FlipHue.new_game(3, FlipHue.resolve_options({"deck": deck}), random.Random(2))
    rng = random.Random(3)
    for _ in range(400):
        if state.is_terminal():
            break
        for seat in range(3):
            shown = set()
            stack = [state.view(seat)]
            while stack:
                item = stack.pop()
                if isinstance(item, dict):
                    stack.extend(item.values())
                elif isinstance(item, list):
                    stack.extend(item)
                elif isinstance(item, str) and item.startswith("x"):
                    shown.add(item)
            seen = {state.table.faces[c][s] for c in range(63) for s in (0, 1)
                    if state.table.has_seen(seat, c, s)}
            assert shown <= seen
        state.apply(rng.choice(state.legal_actions()))


# -- observations are fresh plain data ------------------------------------------------------------
