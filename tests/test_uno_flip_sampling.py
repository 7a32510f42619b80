"""UNO Flip determinization: `UnoFlip.sample_state(observation, rng, events)`.

Hidden from a seat: the active faces of other players' cards it has not seen (each must
be the partner, in the real deck's fixed pairing, of the inactive face the seat does
see), the draw pile below its top, and the discard pile below its top (which the seat's
events tell it, when given). A sample must show the seat exactly its observation, be
playable, range over every possibility, and depend on nothing but the observation.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.rules.observation import make_observation
from arena.rules.uno_flip import (CHALLENGE, COLOR, WILD_DRAW, UnoFlip, load_deck,
                                  sample_uno_flip_state)

OPTIONS = UnoFlip.resolve_options({"target_score": 100, "max_turns": 150})
REDRAW = UnoFlip.resolve_options({"target_score": 100, "max_turns": 150, "opening_action": "redraw"})
DECK = load_deck()


def observation(state):
    seat = state.current_seat()
    return make_observation(UnoFlip, state, seat, [])


def positions(games, seed, chance=0.1, options=OPTIONS, players=(2, 10)):
    """(state, observation, events of that seat so far, rng) at random decision points
    of random games; events are accumulated as a bot would."""
    rng = random.Random(seed)
    for game in range(games):
        count = rng.randint(*players)
        state = UnoFlip.new_game(count, options, random.Random(seed * 1000 + game))
        events = [[] for _ in range(count)]
        while not state.is_terminal():
            for seat in range(count):
                events[seat].extend(state.take_events(seat))
            if rng.random() < chance:
                seat = state.current_seat()
                yield state, observation(state), list(events[seat]), rng
            state.apply(rng.choice(state.legal_actions()))


def pairs(table, cards):
    return [table.faces[card] for card in cards]


def hidden_places(state, seat):
    """(holder, position) of cards in other hands whose active face `seat` has not seen."""
    view = state.view(seat)
    return [(holder, p) for holder, hand in enumerate(view["hands"]) if holder != seat
            for p, card in enumerate(hand) if card["face"] is None]


def test_a_sample_keeps_everything_the_seat_knows_as_in_the_real_game():
    """Public state and the seat's own cards are the real ones; so is the pending Wild
    Draw's bluff record, given the events (the hand size when it was played)."""
    challenges = 0
    for n, (state, obs, events, _) in enumerate(positions(40, seed=2, chance=0.2)):
        seat = obs["seat"]
        sample = UnoFlip.sample_state(obs, random.Random(n), events)
        for name in ("active", "direction", "turns", "color", "seat", "phase", "scores",
                     "round", "dealer", "everyone", "max_turns", "uno_penalty", "reverse_skips"):
            assert getattr(sample, name) == getattr(state, name), name
        if state.phase == COLOR:
            assert sample.color_reason == state.color_reason
        if state.phase == CHALLENGE:
            assert sample.challenge_info == state.challenge_info
            challenges += 1
        assert pairs(sample.table, sample.table.hands[seat]) == pairs(state.table, state.table.hands[seat])
        assert [len(hand) for hand in sample.table.hands] == [len(hand) for hand in state.table.hands]
        for pile in ("draw", "discard"):
            assert len(sample.table.piles[pile]) == len(state.table.piles[pile])
            assert sample.table.top_view(pile, seat) == state.table.top_view(pile, seat)
    assert challenges > 20


def wild_draw_without_uno_call():
    """A position where a seat has just played a Wild Draw as its second-to-last card
    without calling UNO: it drew the penalty, and the next seat must accept or challenge."""
    for state, obs, events, rng in positions(200, seed=12, chance=1.0, players=(3, 3)):
        if state.phase != "play" or len(state.table.hands[state.seat]) != 2:
            continue
        hand, kinds = state.table.hands[state.seat], state.deck.kind[state.active]
        wild_draws = [a for a in state.legal_actions()
                      if a.count(":") == 2 and kinds[hand[int(a.split(":")[1])]] == WILD_DRAW]
        if not wild_draws or len(state.table.piles["draw"]) < 5:
            continue
        offender = state.seat
        state.apply(wild_draws[0])
        assert state.phase == CHALLENGE and len(state.table.hands[offender]) == 1 + OPTIONS["uno_penalty"]
        seat = state.current_seat()
        return state, observation(state), events + state.take_events(seat)
    raise AssertionError("no Wild Draw without an UNO call found")


def test_the_bluff_record_after_an_uno_penalty_comes_from_the_events():
    """The bluff test looks at the offender's hand when the Wild Draw was played (1
    card), not at the penalty cards drawn after it: the events tell the sampler so.
    Without events, it takes the whole hand (the view cannot tell)."""
    state, obs, events = wild_draw_without_uno_call()
    offender = obs["view"]["pending"]["offender"]
    assert state.challenge_info[3] == 1
    with_events = UnoFlip.sample_state(obs, random.Random(0), events)
    assert with_events.challenge_info == state.challenge_info
    view_only = UnoFlip.sample_state(obs, random.Random(0))
    assert view_only.challenge_info[3] == len(state.table.hands[offender])


def test_with_events_the_buried_discard_pile_is_the_real_one():
    """The events show every card played onto the discard pile (both faces) and every
    opening card (its up face), in order: the sample's discard pile is the real one,
    but for the hidden face of an opening card still in it."""
    positions_checked = cards_checked = 0
    for n, (state, obs, events, _) in enumerate(positions(40, seed=3, chance=0.2)):
        sample = UnoFlip.sample_state(obs, random.Random(n), events)
        real = pairs(state.table, state.table.piles["discard"])
        got = pairs(sample.table, sample.table.piles["discard"])
        start = max(i for i, e in enumerate(events) if e["type"] == "deal")
        openings = sum(1 for e in events[start:] if e["type"] == "opening")
        wrong = sum(1 for a, b in zip(real, got) if a != b)
        assert wrong <= openings
        positions_checked += 1
        cards_checked += len(real)
    assert positions_checked > 300 and cards_checked > 3000


def test_without_events_the_discard_pile_below_its_top_is_unknown_and_resampled():
    state, obs, events, _ = next(p for p in positions(5, seed=4, chance=0.05)
                                 if p[1]["view"]["discard"]["size"] > 10)
    rng = random.Random(0)
    bottoms = Counter(pairs(s.table, s.table.piles["discard"][:1])[0]
                      for s in (UnoFlip.sample_state(obs, rng) for _ in range(200)))
    assert len(bottoms) > 30


def test_a_sample_plays_to_the_end_with_the_deck_intact():
    for n, (state, obs, events, rng) in enumerate(positions(25, seed=5, chance=0.1)):
        sample = UnoFlip.sample_state(obs, random.Random(n), events if n % 2 else None)
        table = sample.table
        assert table.faces == DECK.faces
        everything = ([card for hand in table.hands for card in hand]
                      + table.piles["draw"] + table.piles["discard"])
        assert sorted(everything) == list(range(len(DECK.faces)))
        while not sample.is_terminal():
            sample.apply(rng.choice(sample.legal_actions()))
            assert sample.table.count() == len(DECK.faces)
        assert sample.outcome()["reason"] in ("target", "max_turns")


def expected_faces(obs):
    """For a card of another hand with a hidden face and back X: the chance of each
    active face, from the deck's pairs with X on the inactive side that are not
    accounted for by a card the view shows on both faces (view-only sampling)."""
    view = obs["view"]
    a = 0 if view["side"] == "light" else 1
    known = Counter()
    for hand in view["hands"]:
        for card in hand:
            if card["face"] is not None and card["back"] is not None:
                known[(card["face"], card["back"])] += 1          # (active, inactive)
    for name, up_active in (("draw_pile", False), ("discard", True)):
        top = view[name]["top"]
        if top and top["up"] is not None and top["down"] is not None:
            known[(top["up"], top["down"]) if up_active else (top["down"], top["up"])] += 1
    free = Counter((pair[a], pair[1 - a]) for pair in DECK.faces) - known
    chances = {}
    for (active, inactive), count in free.items():
        chances.setdefault(inactive, Counter())[active] += count
    return {back: {face: count / sum(c.values()) for face, count in c.items()}
            for back, c in chances.items()}


def test_hidden_faces_follow_the_deck_pairing_with_the_right_frequencies():
    """Every active face the pairing allows behind a back the seat sees turns up, as
    often as the free cards with that back say (exact uniform sampling)."""
    checked = 0
    for state, obs, _, _ in positions(30, seed=6, chance=0.03, players=(2, 4)):
        hidden = hidden_places(state, obs["seat"])
        if len(hidden) < 3:
            continue
        expected = expected_faces(obs)
        rng = random.Random(checked)
        samples = 1500
        tallies = {place: Counter() for place in hidden}
        for _ in range(samples):
            sample = UnoFlip.sample_state(obs, rng)
            a = sample.active
            for holder, p in hidden:
                card = sample.table.hands[holder][p]
                tallies[(holder, p)][DECK.faces[card][a]] += 1
        view = obs["view"]
        for (holder, p), tally in tallies.items():
            back = view["hands"][holder][p]["back"]
            want = expected[back]
            assert set(tally) == set(want)
            for face, chance in want.items():
                assert abs(tally[face] / samples - chance) < 0.05, (back, face)
        checked += 1
        if checked == 6:
            break
    assert checked == 6


def test_the_real_hidden_faces_are_always_among_the_samples():
    checked = 0
    for state, obs, events, _ in positions(15, seed=7, chance=0.05):
        hidden = hidden_places(state, obs["seat"])
        if not hidden:
            continue
        rng = random.Random(checked)
        seen = {place: set() for place in hidden}
        for _ in range(50):
            sample = UnoFlip.sample_state(obs, rng, events)
            for holder, p in hidden:
                seen[(holder, p)].add(sample.table.faces[sample.table.hands[holder][p]])
        for holder, p in hidden:
            assert state.table.faces[state.table.hands[holder][p]] in seen[(holder, p)]
        checked += 1
    assert checked > 40


def test_unknown_cards_are_in_random_order_everywhere():
    """Without events, the cards below both pile tops are one unknown pool: the bottom
    of the draw pile and of the discard pile have the same distribution."""
    state, obs, _, _ = next(p for p in positions(5, seed=8, chance=0.05)
                            if p[1]["view"]["discard"]["size"] > 5 and p[1]["view"]["draw_pile"]["size"] > 5)
    rng = random.Random(0)
    draw_bottom, discard_bottom = Counter(), Counter()
    samples = 3000
    for _ in range(samples):
        sample = UnoFlip.sample_state(obs, rng)
        draw_bottom[sample.table.faces[sample.table.piles["draw"][0]]] += 1
        discard_bottom[sample.table.faces[sample.table.piles["discard"][0]]] += 1
    assert len(draw_bottom) > 40
    for pair in set(draw_bottom) | set(discard_bottom):
        assert abs(draw_bottom[pair] - discard_bottom[pair]) / samples < 0.02


def swap_hidden(state, viewer, rng, rounds=300):
    """Change, in place, what `viewer` has not seen: swap the cards of two places among
    other hands' cards with a hidden active face (same inactive face) and the draw pile
    below its top (anything); each place keeps its orientation and seen-record."""
    table = state.table
    b = 1 - state.active
    places = [(hand, i) for seat, hand in enumerate(table.hands) if seat != viewer
              for i, card in enumerate(hand) if not table.has_seen(viewer, card, state.active)]
    draw = table.piles["draw"]
    places += [(draw, i) for i, card in enumerate(draw[:-1]) if not table.seen[card]]
    swaps = 0
    for _ in range(rounds if len(places) > 1 else 0):
        (la, i), (lb, j) = rng.sample(places, 2)
        x, y = la[i], lb[j]
        if not (la is draw and lb is draw) and table.faces[x][b] != table.faces[y][b]:
            continue
        la[i], lb[j] = y, x
        table.side[x], table.side[y] = table.side[y], table.side[x]
        table.seen[x], table.seen[y] = table.seen[y], table.seen[x]
        swaps += 1
    state._legal = None
    return swaps


def god_view(state):
    table = state.table
    return ([pairs(table, hand) for hand in table.hands],
            {name: pairs(table, pile) for name, pile in table.piles.items()},
            [table.side[c] for hand in table.hands for c in hand],
            state.challenge_info, state.color, state.rng.getstate())


def test_samples_depend_only_on_the_observation_the_events_and_the_rng():
    compared = differ = 0
    for n, (state, obs, events, rng) in enumerate(positions(25, seed=9, chance=0.1)):
        twin = state.clone()
        if not swap_hidden(twin, obs["seat"], rng):
            continue
        assert observation(twin) == obs
        for given in (events, None):
            a = UnoFlip.sample_state(obs, random.Random(n), given)
            b = UnoFlip.sample_state(observation(twin), random.Random(n), given)
            assert god_view(a) == god_view(b)
        c = UnoFlip.sample_state(obs, random.Random(n + 10_000), events)
        differ += god_view(c) != god_view(a)
        compared += 1
    assert compared > 100 and differ == compared


def test_a_sample_is_built_on_any_deck_listing_of_the_same_cards():
    """The `deck` hook: the same cards under other ids give the same faces everywhere."""
    from arena.rules.uno_flip import UnoFlipDeck
    rows = list(DECK.rows)
    random.Random(0).shuffle(rows)
    other = UnoFlipDeck(rows)
    state, obs, events, _ = next(positions(1, seed=11, chance=0.2))
    sample = sample_uno_flip_state(obs, random.Random(0), events, deck=other)
    assert sample.view(obs["seat"]) == obs["view"]
    assert sample.legal_actions() == obs["legal_actions"]


def test_a_sample_uses_the_deck_of_the_observations_options():
    """Option `deck` (ruling turn 2): a custom pairing, with more cards than the real
    deck, is what the sampler deals from; the real deck could not fit the view."""
    deck = [list(pair) for pair in DECK.faces]
    deck[0][1], deck[1][1] = deck[1][1], deck[0][1]
    deck += [["wild", "wild"]] * 3
    options = UnoFlip.resolve_options({"target_score": 0, "max_turns": 150, "deck": deck})
    checked = 0
    for state, obs, events, _ in positions(4, seed=12, chance=0.2, options=options, players=(2, 5)):
        sample = UnoFlip.sample_state(obs, random.Random(checked), events)
        assert Counter(sample.deck.faces) == Counter(tuple(pair) for pair in deck)
        assert Counter(sample.table.faces[c] for c in range(sample.table.count())) == Counter(state.table.faces)
        assert sample.view(obs["seat"]) == obs["view"]
        checked += 1
        with pytest.raises(ValueError, match="the deck 112"):
            sample_uno_flip_state(obs, random.Random(0), events, deck=DECK)
    assert checked > 10


def test_a_finished_game_cannot_be_sampled():
    state = UnoFlip.new_game(2, OPTIONS, random.Random(0))
    obs = observation(state)
    obs["view"] = dict(obs["view"], phase="over", turn=None)
    with pytest.raises(ValueError):
        UnoFlip.sample_state(obs, random.Random(0))


@pytest.mark.slow
@pytest.mark.parametrize("options", [OPTIONS, REDRAW], ids=["apply", "redraw"])
def test_many_samples_show_their_observation_and_play_on(options):
    checked = 0
    for state, obs, events, rng in positions(400, seed=13, chance=0.2, options=options):
        sample = UnoFlip.sample_state(obs, random.Random(checked), events if checked % 2 else None)
        assert sample.view(obs["seat"]) == obs["view"]
        assert sample.legal_actions() == obs["legal_actions"]
        for _ in range(60):
            if sample.is_terminal():
                break
            sample.apply(rng.choice(sample.legal_actions()))
            assert sample.table.count() == len(DECK.faces)
        checked += 1
    assert checked > 10_000
