"""Color Flush determinization: `ColorFlush.sample_state(observation, rng)`.

The contract (briefs: sample_state): a sampled state shows the observing seat exactly
its observation and offers the same legal actions; it plays to the end; over many
samples every hidden possibility consistent with the observation occurs; it is
deterministic given the rng and depends on nothing but the observation.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from arena.match import Entrant, play_game
from arena.rules.color_flush import BLACK, HAND_MAX, HAND_MIN, PILE, ColorFlush, _recall
from arena_bots.random_bot import RandomBot
from arena.rules.observation import make_observation


def observe(state, seat=None):
    """The observation the harness would hand the seat to act (events aside)."""
    seat = state.current_seat() if seat is None else seat
    return make_observation(ColorFlush, state, seat, [], legal_actions=state.legal_actions())


def positions(games, seed, every=5, max_turns=200):
    """Decision points of random games over 2..6 players."""
    rng = random.Random(seed)
    options = ColorFlush.resolve_options({"max_turns": max_turns})
    for game in range(games):
        players = 2 + game % 5
        state = ColorFlush.new_game(players, options, random.Random(seed * 1000 + game))
        step = 0
        while not state.is_terminal():
            if step % every == 0:
                yield state
            state.apply(rng.choice(state.legal_actions()))
            step += 1


def layout(state):
    """Every card as (toward, away) relative to its holder / (up, down) on the pile,
    hands seat by seat, then the pile bottom first."""
    table = state.table
    hands = tuple(tuple((table.face(c), table.back(c)) for c in hand) for hand in table.hands)
    return hands, tuple((table.face(c), table.back(c)) for c in table.piles[PILE])


def multiset(pairs):
    return Counter(tuple(sorted(pair)) for pair in pairs)


def test_sampled_state_shows_the_seat_exactly_its_observation():
    rng = random.Random(1)
    checked = differs = 0
    for state in positions(20, 1):
        observation = observe(state)
        seat = observation["seat"]
        for _ in range(2):
            sample = ColorFlush.sample_state(observation, rng)
            assert sample.current_seat() == seat
            assert sample.legal_actions() == observation["legal_actions"]
            assert sample.view(seat) == observation["view"]
            assert multiset(sample.table.faces) == multiset(state.options["deck"])
            checked += 1
            differs += layout(sample) != layout(state)
    assert checked > 500 and differs > checked * 0.9


def test_sampled_state_keeps_the_rules_invariants_of_a_real_position():
    # no side toward a holder or up on the pile is black, no hand already wins, and
    # other seats see what the table shows them (their faces, the others' backs)
    rng = random.Random(2)
    for state in positions(20, 2, every=9):
        sample = ColorFlush.sample_state(observe(state), rng)
        table = sample.table
        for seat, hand in enumerate(table.hands):
            assert not sample.hand_wins(seat)
            for card in hand:
                assert table.face(card) != BLACK
                for viewer in range(sample.players):
                    shown = table.card_view(card, viewer)
                    if viewer == seat:
                        assert shown["face"] == table.face(card)
                    else:
                        assert shown["back"] == table.back(card)
        for card in table.piles[PILE]:
            assert table.face(card) != BLACK
        top = table.top(PILE)
        if top is not None:
            assert all(table.top_view(PILE, v)["up"] == table.face(top) for v in range(sample.players))


def test_sampled_states_play_to_the_end_keeping_cards_and_limits():
    rng = random.Random(3)
    played = 0
    for state in positions(25, 3, every=11, max_turns=60):
        sample = ColorFlush.sample_state(observe(state), rng)
        faces = sample.table.faces
        total = sample.table.count()
        while not sample.is_terminal():
            action = rng.choice(sample.legal_actions())
            sample.apply(action)
            assert sample.table.count() == total == len(faces)
            assert sample.table.faces is faces
            assert all(HAND_MIN <= len(hand) <= HAND_MAX for hand in sample.table.hands)
        assert sample.outcome()["reason"] in ("win", "max_turns")
        played += 1
    assert played > 100


def test_the_hidden_sides_of_a_real_game_all_occur_among_samples():
    # every side the seat has not seen (its own backs, faces that came from its own
    # unseen backs, the pile top's down side) takes its real value in some sample
    rng = random.Random(4)
    slots = hits = 0
    for state in positions(6, 4, every=23):
        observation = observe(state)
        seat = observation["seat"]
        real = layout(state)
        hidden = []
        for holder, hand in enumerate(observation["view"]["hands"]):
            for pos, card in enumerate(hand):
                for index, key in enumerate(("face", "back")):
                    if card[key] is None:
                        hidden.append((0, holder, pos, index))
        top = observation["view"]["draw_pile"]["top"]
        if top is not None and top["down"] is None:
            hidden.append((1, None, -1, 1))
        if not hidden:
            continue
        found = set()
        for _ in range(200):
            got = layout(ColorFlush.sample_state(observation, rng))
            for spot in hidden:
                kind, holder, pos, index = spot
                where = (got[0][holder] if kind == 0 else got[1])
                truth = (real[0][holder] if kind == 0 else real[1])
                if where[pos][index] == truth[pos][index]:
                    found.add(spot)
        assert seat is not None
        slots += len(hidden)
        hits += len(found)
    assert slots > 50
    assert hits == slots


def _small_position():
    """Two seats, 13 cards; seat 0 has seen everything but: the backs of its cards 0
    and 1, seat 1's faces of cards 0 and 1, the pile top's down side and the two
    buried pile cards."""
    hands = [
        [("red", "blue"), ("yellow", "green"), ("purple", "red"), ("green", "blue"), ("white", "yellow")],
        [("blue", "red"), ("purple", "green"), ("red", "yellow"), ("yellow", "purple"), ("blue", "green")],
    ]
    pile = [("green", "black"), ("red", "white"), ("purple", "blue")]
    state = ColorFlush.lay_out(2, hands=hands, pile=pile)
    table = state.table
    for card in range(len(table.faces)):
        table.see_both(card, 0)
    hidden = {table.hands[0][0]: 1, table.hands[0][1]: 1, table.hands[1][0]: 0, table.hands[1][1]: 0,
              table.piles[PILE][-1]: 1}
    for card, side in hidden.items():
        table.seen[card] &= ~(1 << side)
    for card in table.piles[PILE][:-1]:
        table.seen[card] &= ~3
    return state


def _wins(faces):
    colors = {f for f in faces if f != "white"}
    return len(colors) <= 1 and BLACK not in colors


def _consistent_layouts(state, seat):
    """Brute force: every layout of the physical cards that shows `seat` what it has
    seen (each card's seen sides), with no black side toward a holder or up, and no
    winning hand."""
    table = state.table
    slots = [c for hand in table.hands for c in hand] + table.piles[PILE]
    sizes = [len(hand) for hand in table.hands]
    known = []  # per slot: (toward or None, away or None) as the seat has seen them
    for card in slots:
        view = table.card_view(card, seat)
        known.append((view["face"], view["back"]))
    loose = [i for i, (t, a) in enumerate(known) if t is None or a is None]
    base = [(table.face(c), table.back(c)) for c in slots]
    results = set()
    for perm in set(itertools.permutations([table.faces[slots[i]] for i in loose])):
        choices = []
        for i, (a, b) in zip(loose, perm):
            t, w = known[i]
            fits = [p for p in ((a, b), (b, a)) if (t is None or p[0] == t) and (w is None or p[1] == w)
                    and p[0] != BLACK]
            choices.append(sorted(set(fits)))
        for pick in itertools.product(*choices):
            cards = base[:]
            for i, pair in zip(loose, pick):
                cards[i] = pair
            hands, at = [], 0
            for size in sizes:
                hands.append(tuple(cards[at:at + size]))
                at += size
            if any(_wins([f for f, _ in hand]) for hand in hands):
                continue
            results.add((tuple(hands), tuple(cards[at:])))
    return results


def test_every_layout_consistent_with_a_small_observation_occurs():
    state = _small_position()
    observation = observe(state, 0)
    possible = _consistent_layouts(state, 0)
    assert layout(state) in possible and 5 < len(possible) < 400
    rng = random.Random(5)
    counts = Counter(layout(ColorFlush.sample_state(observation, rng)) for _ in range(20 * len(possible)))
    assert set(counts) == possible
    # uniform-ish: no layout is more than ten times rarer than the average
    assert min(counts.values()) * 10 > 20


def test_samples_depend_only_on_the_observation_not_on_the_hidden_real_game():
    rng = random.Random(7)
    compared = 0
    for state in positions(10, 7, every=13):
        observation = observe(state)
        seat = observation["seat"]
        # twins that differ only in what the seat has not seen: a sample of the real
        # game, and the real game with the other seats' knowledge and rng scrambled
        twin = ColorFlush.sample_state(observation, rng)
        scrambled = state.clone()
        mine = 3 << (2 * seat)
        scrambled.table.seen = [(bits & mine) | (rng.getrandbits(2 * state.players) & ~mine)
                                for bits in state.table.seen]
        scrambled.rng = random.Random(rng.random())
        for other in (twin, scrambled):
            assert observe(other, seat) == observation
            first = ColorFlush.sample_state(observation, random.Random(compared))
            second = ColorFlush.sample_state(observe(other, seat), random.Random(compared))
            assert layout(first) == layout(second) and first.table.seen == second.table.seen
            compared += 1
    assert compared > 40


def test_sampling_works_from_play_game_observations_with_a_custom_deck():
    # a unique-face deck: every half-seen card is pinned down by its seen face
    deck = [[f"c{2 * i}", f"c{2 * i + 1}"] for i in range(12)] + [["white", "c90"], ["black", "c91"]]
    checked = []

    class Sampler(RandomBot):
        def start(self, info):
            self.events = []

        def act(self, observation):
            self.events.extend(observation["events"])
            # the events a bot accumulates reproduce its view: the exact replay is used
            assert _recall(observation, self.events) is not None
            for events in (None, self.events):
                sample = ColorFlush.sample_state(observation, self.rng, events)
                assert sample.view(observation["seat"]) == observation["view"]
                assert sample.legal_actions() == observation["legal_actions"]
            checked.append(1)
            return self.rng.choice(observation["legal_actions"])

    play_game(ColorFlush, [Entrant(Sampler)] * 2, 3, options={"deck": deck, "max_turns": 30})
    play_game(ColorFlush, [Entrant(Sampler)] * 3, 4, options={"max_turns": 30})
    assert len(checked) > 50


def test_an_observation_the_deck_cannot_explain_is_rejected():
    state = _small_position()
    observation = observe(state, 0)
    observation["view"]["hands"][0][2] = {"face": "purple", "back": "purple"}
    with pytest.raises(ValueError):
        ColorFlush.sample_state(observation, random.Random(0))


# -- with the seat's events: exact recall -------------------------------------------------

def games_with_events(games, seed, every=3):
    """(state, seat to act, that seat's events so far) at decision points."""
    rng = random.Random(seed)
    options = ColorFlush.resolve_options({})
    for game in range(games):
        players = 2 + game % 5
        state = ColorFlush.new_game(players, options, random.Random(seed * 1000 + game))
        events = [[] for _ in range(players)]
        step = 0
        while not state.is_terminal():
            for seat in range(players):
                events[seat].extend(state.take_events(seat))
            if step % every == 0:
                yield state, state.current_seat(), events[state.current_seat()]
            state.apply(rng.choice(state.legal_actions()))
            step += 1


def oriented_seen(state):
    """Every card's seen bits in layout order, side 0 = toward the holder / up."""
    table = state.table
    out = []
    for card in [c for hand in table.hands for c in hand] + table.piles[PILE]:
        bits = table.seen[card]
        if table.side[card]:
            bits = ((bits >> 1) & 0x555) | ((bits & 0x555) << 1)
        out.append(bits)
    return out


def test_with_events_every_seats_knowledge_and_the_remembered_pile_are_exact():
    rng = random.Random(9)
    checked = remembered = 0
    for state, seat, events in games_with_events(12, 9, every=4):
        observation = observe(state)
        sample = ColorFlush.sample_state(observation, rng, events)
        assert sample.view(seat) == observation["view"]
        assert sample.legal_actions() == observation["legal_actions"]
        # who has seen which side of every card, for every seat, as in the real game
        assert oriented_seen(sample) == oriented_seen(state)
        # buried pile cards keep every side this seat saw
        real_pile, got_pile = layout(state)[1], layout(sample)[1]
        for card, real, got in zip(state.table.piles[PILE], real_pile, got_pile):
            side = state.table.side[card]
            for index in (0, 1):
                if state.table.has_seen(seat, card, side ^ index):
                    assert got[index] == real[index]
                    remembered += 1
        checked += 1
    assert checked > 300 and remembered > 1000


def test_events_that_do_not_reproduce_the_view_are_ignored():
    state, seat, events = next(itertools.islice(games_with_events(1, 10), 20, None))
    observation = observe(state)
    for broken in (events[1:], events[:-3], [{"type": "nonsense"}] + events):
        sample = ColorFlush.sample_state(observation, random.Random(1), broken)
        assert sample.view(seat) == observation["view"]
        assert layout(sample) == layout(ColorFlush.sample_state(observation, random.Random(1)))


def test_the_replay_cache_gives_the_same_sample_as_a_fresh_replay():
    rng = random.Random(11)
    for state, seat, events in games_with_events(3, 11, every=7):
        observation = observe(state)
        seed = rng.random()
        cached = ColorFlush.sample_state(observation, random.Random(seed), events)
        fresh = ColorFlush.sample_state(observation, random.Random(seed), list(events))
        assert layout(cached) == layout(fresh) and cached.table.seen == fresh.table.seen


@pytest.mark.slow
def test_sampling_at_every_decision_of_many_games_with_and_without_events():
    rng = random.Random(13)
    checked = 0
    for state, seat, events in games_with_events(150, 13, every=1):
        observation = observe(state)
        for given in (None, events):
            sample = ColorFlush.sample_state(observation, rng, given)
            assert sample.view(seat) == observation["view"]
            assert sample.legal_actions() == observation["legal_actions"]
        checked += 1
    assert checked > 15_000
