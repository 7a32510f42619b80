"""The encodings written straight from the engine's state (`Encoding.encode_state_into`, the
environments' step) give exactly the arrays of the view-based encoding, and only what the seat
may see; the PettingZoo step builds no view and no raw observation unless asked.

Equal arrays are checked at the states of seeded random games of every built-in ruleset, for
every seat. Information hiding: each seat's array from the state equals its array from a twin
state (the ruleset's `sample_state` from that seat's observation and events), which redraws
everything the seat has not seen (rival hands' hidden faces, the deck's order); the twins'
god views or draw piles differ, so the twins do differ in what is hidden.
"""

import random

import numpy as np
import pytest

pytest.importorskip("numpy")

import arena.rulesets  # noqa: E402
from arena.envs.encoding import encoding_for  # noqa: E402
from arena.rules.observation import make_observation  # noqa: E402

RULESETS = ["color-flush", "flip-7", "flip-hue", "uno-flip"]


def from_state(encoding, seat, state):
    out = np.zeros(encoding.size, dtype=np.float32)
    encoding.encode_state_into(out, seat, state)
    return out


def from_view(encoding, seat, state):
    return encoding.encode({"seat": seat, "view": state.view(seat)})


def random_states(ruleset, players, seed, limit):
    """(state, events each seat has received so far) at the first `limit` decisions of a random game."""
    cls = arena.rulesets.get(ruleset)
    state, rng = cls.new_game(players, cls.resolve_options({}), random.Random(seed)), random.Random(seed)
    events = [[] for _ in range(players)]
    for _ in range(limit):
        for seat in range(players):
            events[seat].extend(state.take_events(seat))
        yield state, events
        if state.current_seat() is None:
            return
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("players", [2, 3])
def test_the_array_written_from_the_state_is_the_views_array_for_every_seat_at_every_decision(ruleset, players):
    encoding = encoding_for(ruleset, players, arena.rulesets.get(ruleset).resolve_options({}))
    assert encoding._state_fill is not None, "the built-in rulesets declare a fill from the state"
    checked = 0
    for seed in range(3):
        for state, _ in random_states(ruleset, players, seed, 400):
            for seat in range(players):
                assert from_state(encoding, seat, state).tobytes() == from_view(encoding, seat, state).tobytes(), \
                    f"{ruleset}: seed {seed}, seat {seat}"
                checked += 1
    assert checked >= 3 * players * 10


def draw_order(state):
    """The draw pile's cards as they lie (Flip 7's one secret is its deck's order)."""
    pile, name = state.chance_pile()
    return [name(card) for card in pile]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_array_from_the_state_shows_a_seat_nothing_it_has_not_seen(ruleset):
    cls = arena.rulesets.get(ruleset)
    players = 2
    encoding = encoding_for(ruleset, players, cls.resolve_options({}))
    checked = hidden_differs = 0
    for seed in range(3):
        for decision, (state, events) in enumerate(random_states(ruleset, players, seed, 150)):
            if decision % 13 != 5 or state.current_seat() is None:
                continue
            for seat in range(players):
                observation = make_observation(cls, state, seat, events[seat])
                twin = cls.sample_state(observation, random.Random(decision), list(events[seat]))
                mine = from_state(encoding, seat, state)
                assert mine.tobytes() == from_state(encoding, seat, twin).tobytes(), f"{ruleset}: seed {seed}"
                assert mine.tobytes() == from_view(encoding, seat, state).tobytes()
                checked += 1
                hidden_differs += state.god_view(seat) != twin.god_view(seat) or draw_order(state) != draw_order(twin)
    assert checked >= 6
    assert hidden_differs > 0, "the twins must differ in what the seat has not seen"


def test_a_state_of_another_class_is_encoded_through_its_view():
    cls = arena.rulesets.get("uno-flip")
    encoding = encoding_for("uno-flip", 2, cls.resolve_options({}))
    state = cls.new_game(2, cls.resolve_options({}), random.Random(1))

    class Shown:
        """A state of another class (one whose view may differ): only its view is read."""

        def view(self, seat):
            view = state.view(seat)
            view["color"] = "purple"
            return view

    out = from_state(encoding, 0, Shown())
    assert out.tobytes() == encoding.encode({"seat": 0, "view": Shown().view(0)}).tobytes()
    assert out.tobytes() != from_state(encoding, 0, state).tobytes()


def test_each_mask_handed_out_is_the_callers_own_and_marks_exactly_the_legal_actions():
    encoding = encoding_for("color-flush", 2, arena.rulesets.get("color-flush").resolve_options({}))
    legal = ["take:pile", "flip:0", "flip:3", "no-swap"]
    first = encoding.mask(legal)
    first[:] = 0
    again = encoding.mask(list(legal))
    assert sorted(np.flatnonzero(again)) == sorted(encoding.index[a] for a in legal)
    assert again is not encoding.mask(legal)
