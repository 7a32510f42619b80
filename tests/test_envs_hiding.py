"""Information hiding holds in the environments: two states that differ only in what a seat has not
seen give that seat identical encoded arrays (PettingZoo) and identical OpenSpiel information-state
strings, observation strings and observation tensors.

The twin of a state is the ruleset's `sample_state` from the seat's observation (every event it
received included): the conformance kit checks that it shows the seat the same observation while
redrawing everything the seat has not seen (deck order, hidden faces). The arrays of the god view,
which shows every face, must differ between state and twin somewhere (in Flip 7, whose one secret is
the deck's order, the decks must): so the twins do differ in what is hidden.
"""

import random

import numpy as np
import pytest

pytest.importorskip("numpy")
pyspiel = pytest.importorskip("pyspiel")

import arena.rulesets  # noqa: E402
from arena.envs.encoding import encoding_for  # noqa: E402
from arena.envs.openspiel import load_game  # noqa: E402
from arena.rules.observation import make_observation

RULESETS = ["color-flush", "flip-7", "flip-hue", "uno-flip"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_seat_gets_the_same_arrays_and_strings_from_states_differing_only_in_what_it_has_not_seen(ruleset):
    cls = arena.rulesets.get(ruleset)
    players = 3
    options = cls.resolve_options({})
    encoding = encoding_for(ruleset, players, options)
    game = load_game(ruleset, players)
    checked = leaks_visible = 0
    for seed in range(3):
        state, rng = cls.new_game(players, options, random.Random(seed)), random.Random(seed)
        events = [[] for _ in range(players)]
        decision = 0
        while (acting := state.current_seat()) is not None and decision < 120:
            for seat in range(players):
                events[seat].extend(state.take_events(seat))
            if decision % 15 == 7:
                for seat in range(players):
                    observation = make_observation(cls, state, seat, events[seat])
                    twin = cls.sample_state(observation, random.Random(decision), list(events[seat]))
                    mine = encoding.encode({"seat": seat, "view": state.view(seat)})
                    assert np.array_equal(mine, encoding.encode({"seat": seat, "view": twin.view(seat)}))
                    real = game.state_around(state, seat, events=events[seat])
                    other = game.state_around(twin, seat, events=events[seat])
                    assert real.information_state_string(seat) == other.information_state_string(seat)
                    assert real.observation_string(seat) == other.observation_string(seat)
                    assert real.observation_tensor(seat) == other.observation_tensor(seat)
                    checked += 1
                    god = encoding.encode({"seat": seat, "view": state.god_view(seat)})
                    leaks_visible += not np.array_equal(god, encoding.encode({"seat": seat,
                                                                               "view": twin.god_view(seat)}))
                    leaks_visible += ruleset == "flip-7" and twin.deck != state.deck  # its one secret
            state.apply(rng.choice(state.legal_actions()))
            decision += 1
    assert checked >= 9
    assert leaks_visible > 0
