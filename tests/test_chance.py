"""The one chance source (arena/rules/chance.py) and the draw chance points every ruleset reports."""

import copy
import pickle
import random
from collections import Counter

import pytest

from arena.plugins import load_registry
from arena.rules.chance import Chance, draw_distribution
from arena.rules.flip_7 import Flip7

RULESETS = sorted((rid, entry.cls) for rid, entry in load_registry().rulesets.items())


def test_chance_draws_the_random_stream_as_the_engines_did():
    chance, rng = Chance(random.Random(5)), random.Random(5)
    items, expected = list(range(20)), list(range(20))
    chance.shuffle(items)
    rng.shuffle(expected)
    assert items == expected
    assert [chance.bit() for _ in range(8)] == [rng.getrandbits(1) for _ in range(8)]
    assert [chance.below(7) for _ in range(8)] == [rng.randrange(7) for _ in range(8)]
    assert chance.points == 17


def test_a_chance_given_a_seed_draws_the_stream_of_a_random_with_that_seed():
    lazy, eager = Chance(2 ** 63 + 11), Chance(random.Random(2 ** 63 + 11))
    twin = lazy.copy()                      # copied before its Random exists
    for chance in (lazy, twin):
        items, expected = list(range(20)), list(range(20))
        chance.shuffle(items)
        eager.copy().shuffle(expected)
        assert items == expected
    assert [lazy.bit() for _ in range(8)] == [twin.bit() for _ in range(8)]
    assert lazy.copy().below(1000) == lazy.below(1000)    # a copy after drawing goes on alike
    with pytest.raises(TypeError):
        Chance(True)


def test_forced_outcomes_are_used_in_order_and_consume_no_randomness():
    chance = Chance(random.Random(3))
    before = chance.rng.getstate()
    chance.force([2, 0, 1], 1, 4)
    items = ["a", "b", "c"]
    chance.shuffle(items)
    assert items == ["c", "a", "b"]
    assert chance.bit() == 1 and chance.below(5) == 4
    assert chance.rng.getstate() == before and chance.points == 3
    chance.force([0, 0, 1])
    with pytest.raises(ValueError, match="not a permutation"):
        chance.shuffle(items)
    chance.force(5)
    with pytest.raises(ValueError, match="0..4"):
        chance.below(5)


def test_a_chance_copy_is_independent():
    chance = Chance(random.Random(9))
    chance.force(1)
    twin = chance.copy()
    assert twin.bit() == 1 and chance.bit() == 1
    assert [twin.below(100) for _ in range(5)] == [chance.below(100) for _ in range(5)]
    twin.below(100)
    assert twin.points == chance.points + 1


def test_draw_distribution_counts_each_name_over_the_total():
    assert draw_distribution(["b", "a", "b", "b"]) == [("a", 0.25), ("b", 0.75)]
    assert draw_distribution([]) == []


def _midgame(ruleset, seed):
    state = ruleset.new_game(3, ruleset.resolve_options(), random.Random(seed))
    rng = random.Random(seed)
    for _ in range(rng.randrange(0, 12)):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("ruleset_id, ruleset", RULESETS)
def test_draw_outcomes_describe_the_pile_and_lay_on_top_chooses_one(ruleset_id, ruleset):
    for seed in range(4):
        state = _midgame(ruleset, seed)
        pile, name = state.chance_pile()
        for depth in (0, 1):
            outcomes = state.draw_outcomes(depth)
            cards = [name(card) for card in pile[:len(pile) - depth]]
            assert outcomes == sorted((n, c / len(cards)) for n, c in Counter(cards).items())
            if not outcomes:
                continue
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            before = Counter(name(card) for card in pile)
            above = [name(card) for card in pile[len(pile) - depth:]]
            chosen = outcomes[-1][0]
            state.lay_on_top(chosen, depth)
            assert name(pile[len(pile) - 1 - depth]) == chosen
            assert Counter(name(card) for card in pile) == before
            assert [name(card) for card in pile[len(pile) - depth:]] == above


def test_lay_on_top_decides_the_next_flip_7_draw():
    state = Flip7.new_game(3, Flip7.resolve_options(), random.Random(11))
    assert "hit" in state.legal_actions()
    wanted = next(name for name, _ in state.draw_outcomes() if name != state.deck[-1])
    state.lay_on_top(wanted)
    state.take_events(0)
    state.apply("hit")
    drawn = [event for event in state.god_log if event.get("card") == wanted]
    assert drawn, state.god_log[-3:]
    with pytest.raises(ValueError, match="no 'no-such-card'"):
        state.lay_on_top("no-such-card")


def test_a_clone_has_its_own_chance():
    state = _midgame(Flip7, 2)
    twin = state.clone()
    assert twin.chance is not state.chance
    assert twin.rng.getstate() == state.rng.getstate()
    twin.chance.below(10)
    assert twin.chance.points == state.chance.points + 1


# -- declared capabilities and the one layout hook (rules/base.py) --------------------

@pytest.mark.parametrize("ruleset_id, ruleset", RULESETS)
def test_every_builtin_ruleset_declares_sampling_and_layout(ruleset_id, ruleset):
    assert ruleset.supports("sample_state") and ruleset.supports("lay_out")
    assert not ruleset.supports("no-such-capability")


@pytest.mark.parametrize("ruleset_id, ruleset", RULESETS)
def test_lay_out_without_a_position_is_the_deal_of_its_seed(ruleset_id, ruleset):
    laid = ruleset.lay_out(3, seed=4)
    dealt = ruleset.new_game(3, ruleset.resolve_options(), random.Random(4))
    assert laid.view(0) == dealt.view(0) and laid.legal_actions() == dealt.legal_actions()


def test_a_ruleset_cannot_declare_a_capability_it_lacks_or_does_not_know():
    from arena.rules.base import Ruleset

    with pytest.raises(TypeError, match=r"declares \['sample_state'\] but does not define"):
        type("Broken", (Ruleset,), {"capabilities": frozenset({"sample_state"})})
    with pytest.raises(TypeError, match="unknown capabilities"):
        type("Broken", (Ruleset,), {"capabilities": frozenset({"teleport"})})


class _CountingRandom(random.Random):
    """A Random that counts the draws made on it from outside (not its own inner calls)."""

    def __init__(self, seed):
        self.calls = 0
        self._depth = 0
        super().__init__(seed)

    def _counted(name):
        def method(self, *args, **kwargs):
            self.calls += self._depth == 0
            self._depth += 1
            try:
                return getattr(random.Random, name)(self, *args, **kwargs)
            finally:
                self._depth -= 1
        return method

    shuffle, getrandbits, randrange = _counted("shuffle"), _counted("getrandbits"), _counted("randrange")
    random, choice, sample = _counted("random"), _counted("choice"), _counted("sample")


@pytest.mark.parametrize("ruleset_id, ruleset", RULESETS)
def test_every_draw_an_engine_makes_is_a_chance_point(ruleset_id, ruleset):
    """The game's Random is drawn from only through its Chance, one draw per chance point
    (deals, reshuffles, reinsertions over whole games)."""
    for seed in range(3):
        rng = _CountingRandom(seed)
        state = ruleset.new_game(3, ruleset.resolve_options(), rng)
        chooser = random.Random(seed)
        while not state.is_terminal():
            state.apply(chooser.choice(state.legal_actions()))
        assert state.chance.points >= 1
        assert rng.calls == state.chance.points, (ruleset_id, seed)



def test_a_chance_pickles_and_deep_copies_to_the_same_stream_count_and_forced_outcomes():
    # both rebuild through Chance.__reduce__ (a compiled Chance has no default for either)
    drawn = Chance(7)
    drawn.below(10)                            # its Random made from the seed
    for original in (drawn, Chance(random.Random(7)), Chance(9)):   # Chance(9): not drawn from yet
        original.force([1, 0])
        for twin in (pickle.loads(pickle.dumps(original)), copy.deepcopy(original)):
            assert twin is not original and twin.points == original.points
            items = ["a", "b"]
            twin.shuffle(items)
            assert items == ["b", "a"]         # the forced outcome came along
            reference = original.copy()
            reference.shuffle(["a", "b"])
            assert [twin.below(10**9) for _ in range(3)] == [reference.below(10**9) for _ in range(3)]


def test_sample_draws_exactly_what_random_sample_draws():
    # the samplers use chance.sample for rng.sample: the same result and the same stream after
    from arena.rules.chance import sample

    cases = random.Random(0)
    for _ in range(3000):
        n = cases.choice([0, 1, 2, 5, 9, 20, 21, 22, 40, 100, 500])
        k = cases.randint(0, n)
        population = cases.choice([list(range(n)), tuple(f"c{i}" for i in range(n)), range(n)])
        seed = cases.getrandbits(32)
        ours, theirs = random.Random(seed), random.Random(seed)
        assert sample(population, k, ours) == theirs.sample(population, k), (n, k)
        assert ours.getstate() == theirs.getstate()


def test_sample_leaves_other_random_classes_and_bad_sizes_to_random_sample():
    from arena.rules.chance import sample

    class Counting(random.Random):
        def sample(self, population, k, **kwargs):
            return ["own"]

    assert sample([1, 2, 3], 2, Counting(1)) == ["own"]
    with pytest.raises(ValueError):
        sample([1, 2], 3, random.Random(1))
