"""Samplers keep what an observation fixes for its next sample (`ObservationCache`): every
sample must still be exactly what a fresh preparation gives, on every ruleset."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from arena.bot import Bot
from arena.match import Entrant, play_game
from arena.plugins import load_registry
from arena.rules.observation_cache import ObservationCache

REGISTRY = load_registry()
DETERMINIZABLE = sorted(rid for rid, entry in REGISTRY.rulesets.items() if entry.cls.supports("sample_state"))
OPTIONS = {"uno-flip": {"target_score": 0}}   # one UNO Flip round


def _copied(observation):
    """The same observation in new objects: nothing a sampler kept can be reused for it."""
    return dict(observation, view=copy.deepcopy(observation["view"]), options=copy.deepcopy(observation["options"]))


@pytest.mark.parametrize("ruleset_id", DETERMINIZABLE)
def test_every_sample_of_a_repeated_observation_is_what_a_fresh_preparation_gives(ruleset_id):
    ruleset = REGISTRY.ruleset(ruleset_id).cls
    checked = []

    def same(kept, fresh):
        # both lists pickled before any view is built: views fill lazy caches
        return [pickle.dumps(state) for state in kept] == [pickle.dumps(state) for state in fresh]

    class Sampler(Bot):
        name = "sampler"
        rulesets = "*"

        def start(self, info):
            self.events = []

        def act(self, observation):
            events = self.events
            events.extend(observation["events"])
            if self.rng.random() < 0.3:
                seeds = [self.rng.randrange(1 << 30) for _ in range(3)]
                kept = [ruleset.sample_state(observation, random.Random(seed), events) for seed in seeds]
                fresh = [ruleset.sample_state(_copied(observation), random.Random(seed), list(events))
                         for seed in seeds]
                assert same(kept, fresh)
                assert all(state.view(observation["seat"]) == observation["view"] for state in kept)
                # the same events list, one event longer (a foreign one): prepared again (a list
                # of its own: a replay fed a foreign event stays broken for its list)
                longer = list(events)
                for seed in seeds:
                    ruleset.sample_state(observation, random.Random(seed), longer)
                longer.append({"type": "nonsense"})
                kept = [ruleset.sample_state(observation, random.Random(seed), longer) for seed in seeds]
                fresh = [ruleset.sample_state(_copied(observation), random.Random(seed), list(longer))
                         for seed in seeds]
                assert same(kept, fresh)
                checked.append(observation["seat"])
            return self.rng.choice(observation["legal_actions"])

    play_game(ruleset, [Entrant(Sampler)] * 3, 5, options=OPTIONS.get(ruleset_id, {}))
    assert len(checked) >= 5


def test_the_cache_keeps_a_value_only_for_the_same_view_events_of_the_same_length_and_deck():
    cache = ObservationCache()
    made = []

    def make():
        made.append(1)
        return len(made)

    view, events, deck = {}, [1], ["deck"]
    observation = {"view": view}
    assert cache.get(observation, events, deck, make) == 1
    assert cache.get({"view": view}, events, deck, make) == 1      # another dict, the same view
    assert cache.get({"view": {}}, events, deck, make) == 2         # an equal view, not the same
    assert cache.get(observation, events, deck, make) == 3
    assert cache.get(observation, list(events), deck, make) == 4    # another events list
    events.append(2)
    assert cache.get(observation, events, deck, make) == 5          # the same list, longer
    assert cache.get(observation, events, list(deck), make) == 6    # another deck
    assert cache.get(observation, None, deck, make) == 7
    assert cache.get(observation, None, deck, make) == 7
    cache.clear()
    assert cache.get(observation, None, deck, make) == 8
