"""Flip Hue determinization: `FlipHue.sample_state(observation, rng)`.

The contract (briefs: sample_state): a sampled state shows the observing seat exactly
its observation and offers the same legal actions; it plays to the end; over many
samples every hidden possibility consistent with the observation occurs (other
seats' faces and faction bottoms, own backs not seen, pile contents); it is
deterministic given the rng and depends on nothing but the observation.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from arena.match import Entrant, play_game
from arena.rules.matching import CardMatching
from arena.rules.flip_hue import DISCARD, DRAW, FLIP, FlipHue, _recall, fit_for_faction
from arena_bots.random_bot import RandomBot
from arena.rules.observation import make_observation


def observe(state, seat=None):
    """The observation the harness would hand the seat to act (events aside)."""
    seat = state.current_seat() if seat is None else seat
    return make_observation(FlipHue, state, seat, [], legal_actions=state.legal_actions())


def positions(games, seed, every=5, max_turns=300):
    """Decision points of random games over 2..6 players."""
    rng = random.Random(seed)
    options = FlipHue.resolve_options({"max_turns": max_turns})
    for game in range(games):
        players = 2 + game % 5
        state = FlipHue.new_game(players, options, random.Random(seed * 1000 + game))
        step = 0
        while not state.is_terminal():
            if step % every == 0:
                yield state
            state.apply(rng.choice(state.legal_actions()))
            step += 1


def layout(state):
    """Every card as (toward, away): factions (top, bottom), hands seat by seat
    relative to the holder, then the draw and discard piles bottom first (up, down)."""
    table = state.table

    def pair(card):
        return table.face(card), table.back(card)

    return (tuple(pair(c) for c in state.faction),
            tuple(tuple(pair(c) for c in hand) for hand in table.hands),
            tuple(pair(c) for c in table.piles[DRAW]),
            tuple(pair(c) for c in table.piles[DISCARD]))


def multiset(pairs):
    return Counter(tuple(sorted(pair)) for pair in pairs)


def test_sampled_state_shows_the_seat_exactly_its_observation():
    rng = random.Random(1)
    checked = differs = 0
    steps = Counter()
    for state in positions(10, 1, every=11):
        observation = observe(state)
        seat = observation["seat"]
        steps[observation["view"]["step"]] += 1
        for _ in range(2):
            sample = FlipHue.sample_state(observation, rng)
            assert sample.current_seat() == seat
            assert sample.legal_actions() == observation["legal_actions"]
            assert sample.view(seat) == observation["view"]
            assert multiset(sample.table.faces) == multiset(state.options["deck"])
            checked += 1
            differs += layout(sample) != layout(state)
    assert checked > 500 and differs > checked * 0.9
    assert set(steps) == {"push", "pull", "answer", "cleanup"}


def test_sampled_state_keeps_the_rules_invariants_of_a_real_position():
    # faction cards stay fit, the other seats see what the table shows them, and at
    # the push step (just after a win check) nobody already qualifies
    rng = random.Random(2)
    pushes = 0
    for state in positions(20, 2, every=9):
        sample = FlipHue.sample_state(observe(state), rng)
        table = sample.table
        for owner, card in enumerate(sample.faction):
            assert fit_for_faction(table.faces[card])
            for viewer in range(sample.players):
                shown = table.card_view(card, viewer)
                assert shown["face"] == table.face(card)
                assert (shown["back"] is not None) == (viewer == owner) or viewer == observe(state)["seat"]
        for holder, hand in enumerate(table.hands):
            for card in hand:
                for viewer in range(sample.players):
                    shown = table.card_view(card, viewer)
                    assert shown["face" if viewer == holder else "back"] is not None
        if sample.step == "push":
            assert sample.find_win() is None
            pushes += 1
    assert pushes > 20


def test_sampled_states_play_to_the_end_keeping_every_card():
    rng = random.Random(3)
    played = 0
    for state in positions(25, 3, every=13, max_turns=40):
        sample = FlipHue.sample_state(observe(state), rng)
        faces = sample.table.faces
        total = sample.table.count() + sample.players  # faction cards lie outside hands and piles
        while not sample.is_terminal():
            sample.apply(rng.choice(sample.legal_actions()))
            assert sample.table.count() + sample.players == total == len(faces)
            assert sample.table.faces is faces
            assert all(len(hand) <= 6 for hand in sample.table.hands)
        assert sample.outcome()["reason"] in ("win", "max_turns")
        played += 1
    assert played > 100


def test_the_hidden_sides_of_a_real_game_all_occur_among_samples():
    # every side the seat has not seen (the others' faces and faction bottoms, its own
    # backs it never saw, the pile tops' down sides) takes its real value in some sample
    rng = random.Random(4)
    slots = 0
    for state in positions(5, 4, every=41):
        observation = observe(state)
        view = observation["view"]
        real = layout(state)
        hidden = []
        for owner, faction in enumerate(view["factions"]):
            if faction["bottom"] is None:
                hidden.append(lambda lay, owner=owner: lay[0][owner][1])
        for holder, hand in enumerate(view["hands"]):
            for pos, card in enumerate(hand):
                for index, key in enumerate(("face", "back")):
                    if card[key] is None:
                        hidden.append(lambda lay, h=holder, p=pos, i=index: lay[1][h][p][i])
        for index, name in ((2, "draw_pile"), (3, "discard_pile")):
            top = view[name]["top"]
            if top is not None and top["down"] is None:
                hidden.append(lambda lay, i=index: lay[i][-1][1])
        missing = set(range(len(hidden)))
        for _ in range(300):
            got = layout(FlipHue.sample_state(observation, rng))
            missing = {k for k in missing if hidden[k](got) != hidden[k](real)}
            if not missing:
                break
        assert not missing
        slots += len(hidden)
    assert slots > 150


def _small_position():
    """Two seats; seat 0 has seen every side but: seat 1's faction bottom, seat 1's
    faces of cards 0, 1 and 2, seat 0's own back of card 0, the draw pile top's down
    side, the buried draw card, and the discard top's down side."""
    state = FlipHue.lay_out(
        2, factions=[("red", "blue"), ("green", "yellow")],
        hands=[[("red", "green"), ("blue", "orange"), ("purple", "purple"), ("orange", "yellow"), (FLIP, "red")],
         [("yellow", "blue"), ("green", "purple"), ("red", "orange"), ("blue", "blue"), ("purple", "yellow")]],
        draw=[("orange", "green"), ("yellow", "red")],
        discard=[(FLIP, "green")],
    )
    table = state.table
    for card in range(len(table.faces)):
        table.see_both(card, 0)
    hidden = [(state.faction[1], 1), (table.hands[1][0], table.side[table.hands[1][0]]),
              (table.hands[1][1], table.side[table.hands[1][1]]),
              (table.hands[1][2], table.side[table.hands[1][2]]),
              (table.hands[0][0], 1 - table.side[table.hands[0][0]]),
              (table.piles[DRAW][-1], 1 - table.side[table.piles[DRAW][-1]]),
              (table.piles[DISCARD][-1], 1 - table.side[table.piles[DISCARD][-1]])]
    for card, side in hidden:
        table.seen[card] &= ~(1 << side)
    table.seen[table.piles[DRAW][0]] &= ~3
    return state


def _consistent_layouts(state, seat):
    """Brute force: every layout of the physical cards that shows `seat` what it has
    seen of each card, with fit faction cards and, at the push step, no win."""
    table = state.table
    slots = list(state.faction) + [c for hand in table.hands for c in hand] \
        + table.piles[DRAW] + table.piles[DISCARD]
    known = []
    for card in slots:
        view = table.card_view(card, seat)
        known.append((view["face"], view["back"]))
    loose = [i for i, (t, a) in enumerate(known) if t is None or a is None]
    results = set()
    for perm in set(itertools.permutations([table.faces[slots[i]] for i in loose])):
        choices = []
        for i, (a, b) in zip(loose, perm):
            t, w = known[i]
            fits = [p for p in ((a, b), (b, a)) if (t is None or p[0] == t) and (w is None or p[1] == w)
                    and (i >= state.players or fit_for_faction(p))]
            choices.append(sorted(set(fits)))
        for pick in itertools.product(*choices):
            twin = state.clone()
            faces = list(table.faces)
            for i, pair in zip(loose, pick):
                card = slots[i]
                faces[card] = pair if table.side[card] == 0 else (pair[1], pair[0])
            twin.table.faces = tuple(faces)
            if state.step == "push" and twin.find_win() is not None:
                continue
            results.add(layout(twin))
    return results


def test_every_layout_consistent_with_a_small_observation_occurs():
    state = _small_position()
    observation = observe(state, 0)
    assert observation["view"]["step"] == "push"
    possible = _consistent_layouts(state, 0)
    assert layout(state) in possible and 5 < len(possible) < 500
    rng = random.Random(5)
    counts = Counter(layout(FlipHue.sample_state(observation, rng)) for _ in range(20 * len(possible)))
    assert set(counts) == possible
    assert min(counts.values()) * 10 > 20  # uniform-ish


def test_an_answer_observation_is_sampled_with_its_block_options():
    state = FlipHue.lay_out(
        3, factions=[("red", "blue"), ("green", "yellow"), ("orange", "purple")],
        hands=[[("red", "green"), ("blue", "orange"), ("purple", "purple"), ("orange", "yellow"), ("red", "red")],
               [("yellow", "blue"), (FLIP, "purple"), ("red", "orange"), ("blue", "blue"), ("purple", "yellow")],
               [("green", "green"), ("blue", "yellow"), ("red", "purple"), ("yellow", "yellow"), ("blue", "red")]],
        draw=[("orange", "green"), ("yellow", "red"), ("green", "blue")])
    state.apply("give:0:2")
    state.apply("pull:1:3")
    observation = observe(state)
    assert observation["seat"] == 1 and observation["legal_actions"] == ["allow", "block:1"]
    rng = random.Random(9)
    outcomes = set()
    for _ in range(30):
        sample = FlipHue.sample_state(observation, rng)
        assert sample.view(1) == observation["view"]
        assert sample.legal_actions() == observation["legal_actions"]
        assert (sample.pull_target, sample.pull_pos, sample.active) == (1, 3, 0)
        sample.apply("block:1")
        assert sample.table.piles[DISCARD] and sample.table.face(sample.table.top(DISCARD)) == FLIP
        outcomes.add(layout(sample)[1][0])
    assert len(outcomes) > 1  # the puller's hand (flipped) differs where seat 1 has not seen it


def test_samples_depend_only_on_the_observation_not_on_the_hidden_real_game():
    rng = random.Random(7)
    compared = 0
    for state in positions(10, 7, every=17):
        observation = observe(state)
        seat = observation["seat"]
        twin = FlipHue.sample_state(observation, rng)
        scrambled = state.clone()
        mine = 3 << (2 * seat)
        scrambled.table.seen = [(bits & mine) | (rng.getrandbits(2 * state.players) & ~mine)
                                for bits in state.table.seen]
        scrambled.rng = random.Random(rng.random())
        for other in (twin, scrambled):
            assert observe(other, seat) == observation
            first = FlipHue.sample_state(observation, random.Random(compared))
            second = FlipHue.sample_state(observe(other, seat), random.Random(compared))
            assert layout(first) == layout(second) and first.table.seen == second.table.seen
            compared += 1
    assert compared > 40


def test_sampling_works_from_play_game_observations_with_a_custom_deck():
    # a unique-face deck: every half-seen card is pinned down by its seen face
    deck = [[f"x{i}a", f"x{i}b"] for i in range(24)] + [[FLIP, f"x{i}f"] for i in range(24, 30)]
    checked = []

    class Sampler(RandomBot):
        def start(self, info):
            self.events = []

        def act(self, observation):
            self.events.extend(observation["events"])
            # the events a bot accumulates reproduce its view: the exact replay is used
            assert _recall(observation, self.events) is not None
            for events in (None, self.events):
                sample = FlipHue.sample_state(observation, self.rng, events)
                assert sample.view(observation["seat"]) == observation["view"]
                assert sample.legal_actions() == observation["legal_actions"]
            checked.append(1)
            return self.rng.choice(observation["legal_actions"])

    play_game(FlipHue, [Entrant(Sampler)] * 3, 3, options={"deck": deck, "max_turns": 20}, ask_forced=True)
    play_game(FlipHue, [Entrant(Sampler)] * 4, 4, options={"max_turns": 20}, ask_forced=True)
    assert len(checked) > 100


def test_an_observation_the_deck_cannot_explain_is_rejected():
    state = _small_position()
    observation = observe(state, 0)
    observation["view"]["hands"][0][2] = {"face": "red", "back": "red"}  # a second red/red
    observation["view"]["hand"][2] = {"face": "red", "back": "red"}
    with pytest.raises(ValueError):
        FlipHue.sample_state(observation, random.Random(0))


# -- with the seat's events: exact recall -------------------------------------------------

def games_with_events(games, seed, every=3, players_from=2):
    """(state, seat to act, that seat's events so far) at decision points."""
    rng = random.Random(seed)
    options = FlipHue.resolve_options({})
    for game in range(games):
        players = players_from + game % (7 - players_from)
        state = FlipHue.new_game(players, options, random.Random(seed * 1000 + game))
        events = [[] for _ in range(players)]
        step = 0
        while not state.is_terminal():
            for seat in range(players):
                events[seat].extend(state.take_events(seat))
            if step % every == 0:
                yield state, state.current_seat(), events[state.current_seat()]
            state.apply(rng.choice(state.legal_actions()))
            step += 1


def oriented_seen(state, mark_one_color=False):
    """Every card's seen bits in layout order, side 0 = toward / up / on top
    (None for a one-color card if `mark_one_color`)."""
    table = state.table
    order = list(state.faction) + [c for hand in table.hands for c in hand] \
        + table.piles[DRAW] + table.piles[DISCARD]
    out = []
    for card in order:
        bits = table.seen[card]
        if table.side[card]:
            bits = ((bits >> 1) & 0x555) | ((bits & 0x555) << 1)
        out.append(None if mark_one_color and table.faces[card][0] == table.faces[card][1] else bits)
    return out


def test_with_events_every_seats_knowledge_and_the_remembered_discards_are_exact():
    # (a one-color card's discard does not show which side went up: its seen bits
    # may differ, and are left out)
    rng = random.Random(9)
    checked = remembered = reshuffled = 0
    for state, seat, events in games_with_events(8, 9, every=9):
        observation = observe(state)
        sample = FlipHue.sample_state(observation, rng, events)
        assert sample.view(seat) == observation["view"]
        assert sample.legal_actions() == observation["legal_actions"]
        real_seen, got_seen = oriented_seen(state, mark_one_color=True), oriented_seen(sample)
        assert [g for r, g in zip(real_seen, got_seen) if r is not None] == [r for r in real_seen if r is not None]
        real_pile, got_pile = layout(state)[3], layout(sample)[3]
        for card, real, got in zip(state.table.piles[DISCARD], real_pile, got_pile):
            side = state.table.side[card]
            for index in (0, 1):
                if state.table.has_seen(seat, card, side ^ index):
                    assert got[index] == real[index]
                    remembered += 1
        reshuffled += any(e["type"] == "reshuffle" for e in events)
        checked += 1
    assert checked > 300 and remembered > 3000 and reshuffled > 50


def test_events_that_do_not_reproduce_the_view_are_ignored():
    state, seat, events = next(itertools.islice(games_with_events(1, 10), 20, None))
    observation = observe(state)
    for broken in (events[1:], events[:-4], [{"type": "nonsense"}] + events):
        sample = FlipHue.sample_state(observation, random.Random(1), broken)
        assert sample.view(seat) == observation["view"]
        assert layout(sample) == layout(FlipHue.sample_state(observation, random.Random(1)))


def test_the_replay_cache_gives_the_same_sample_as_a_fresh_replay():
    rng = random.Random(11)
    for state, seat, events in games_with_events(3, 11, every=17):
        observation = observe(state)
        seed = rng.random()
        cached = FlipHue.sample_state(observation, random.Random(seed), events)
        fresh = FlipHue.sample_state(observation, random.Random(seed), list(events))
        assert layout(cached) == layout(fresh) and cached.table.seen == fresh.table.seen


def test_a_tight_position_with_no_card_left_over_is_still_sampled():
    # every card half-known and nothing left over: the search falls back to a flow
    # plus random exchanges; every result fits and they differ
    deck = FlipHue.resolve_options({})["deck"]
    rng = random.Random(12)
    cards = [tuple(pair) if rng.random() < 0.5 else (pair[1], pair[0]) for pair in deck]
    rng.shuffle(cards)
    slots = [(a, None) if i % 2 else (None, b) for i, (a, b) in enumerate(cards)]
    got = set()
    for seed in range(10):
        pairs = CardMatching(deck, slots, lambda kind, pair: True, budget=50).assign(random.Random(seed))
        assert multiset(pairs) == multiset(deck)
        for (toward, away), (t, a) in zip(slots, pairs):
            assert toward in (None, t) and away in (None, a)
        got.add(tuple(pairs))
    assert len(got) == 10


@pytest.mark.slow
def test_sampling_at_every_decision_of_many_games_with_and_without_events():
    rng = random.Random(13)
    checked = 0
    for state, seat, events in games_with_events(60, 13, every=1):
        observation = observe(state)
        for given in (None, events):
            sample = FlipHue.sample_state(observation, rng, given)
            assert sample.view(seat) == observation["view"]
            assert sample.legal_actions() == observation["legal_actions"]
        checked += 1
    assert checked > 12_000
