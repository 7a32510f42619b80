"""Every registered ruleset passes the conformance kit (`arena.testing`), and the kit
catches the bugs it is there to catch.

The kit's checks replace the per-ruleset copies that the hiding, sampling and play
tests used to carry (determinism, replay, fresh copies, clones, the sampler's basic
contract); what stays in those files is specific to each game.
"""

from __future__ import annotations

import random

import pytest

from arena.plugins import load_registry
from arena.rules.flip_7 import Flip7
from arena.testing import ConformanceError, check_determinism, check_fresh_copies, check_playouts, \
    check_ruleset, check_sampling, cases

RULESETS = load_registry().rulesets

# Sized to cover at least what the removed per-ruleset tests covered: for each ruleset
# hundreds of sampled decision points (each sampled twice with and twice without the
# seat's events), every option value with choices, and the fewest, one more and the
# most players.
PROJECT = {"seeds": 4, "points": 40, "samples": 2, "stride": 11}


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_every_registered_ruleset_conforms(ruleset_id):
    report = check_ruleset(RULESETS[ruleset_id].cls, **PROJECT)
    assert not report.skipped  # every built-in ruleset has a sampler
    assert report.counts["hidden information"] > 400, report.counts


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_every_registered_ruleset_conforms_over_many_games(ruleset_id):
    cls = RULESETS[ruleset_id].cls
    counts = sorted({cls.min_players, *range(2, min(cls.max_players, 6) + 1)} - {0})
    report = check_ruleset(cls, seeds=12, players=[c for c in counts if c >= cls.min_players],
                           points=60, samples=3, stride=2)
    assert report.counts["hidden information"] > 5_000, report.counts


# -- the kit has teeth: rulesets with planted bugs fail, with a message that says where --

def _broken(patch):
    """Flip 7 with `patch(state)` applied to every new game (not to samples)."""

    class Broken(Flip7):
        @classmethod
        def new_game(cls, players, options, rng, **kwargs):
            state = super().new_game(players, options, rng, **kwargs)
            patch(state)
            return state

    return Broken


def _small(cls):
    return cases(cls, seeds=2, players=[3], variants=False)


def test_a_view_that_leaks_the_deck_top_fails_the_resampling_check():
    def leak(state):
        view = state.view
        state.view = lambda seat: {**view(seat), "next": state.deck[-1] if state.deck else None}

    with pytest.raises(ConformanceError, match=r"flip-7: hidden information \(3 players, seed \d+, decision \d+\): "
                                               r"seat \d's view changed .*view.next"):
        check_sampling(_broken(leak), _small(Flip7))


def test_a_view_that_hands_out_engine_state_fails_the_fresh_copy_check():
    def share(state):
        view = state.view
        cache = {}
        state.view = lambda seat: cache.setdefault(seat, view(seat))

    with pytest.raises(ConformanceError, match=r"flip-7: fresh copies .*wrecked"):
        check_fresh_copies(_broken(share), _small(Flip7))


def test_dealing_from_the_global_random_fails_the_determinism_check():
    def reshuffle(state):
        random.shuffle(state.deck)

    with pytest.raises(ConformanceError, match=r"flip-7: determinism .*same seed"):
        check_determinism(_broken(reshuffle), _small(Flip7))


def test_accepting_an_illegal_action_fails_the_playout_check():
    def lax(state):
        apply = state.apply

        def apply_anything(action):
            if action in state.legal_actions():
                apply(action)

        state.apply = apply_anything

    with pytest.raises(ConformanceError, match="applied without IllegalActionError"):
        check_playouts(_broken(lax), _small(Flip7))


def test_a_ruleset_without_a_sampler_is_reported_as_skipped_not_failed():
    class NoSampler(Flip7):  # inherits Flip7.sample_state but does not declare it
        capabilities = frozenset({"lay_out"})

    report = check_ruleset(NoSampler, seeds=1, players=[2], variants=False)
    assert report.skipped and "no sample_state" in report.skipped[0]
    assert "hidden information" not in report.counts and report.counts["replay"] == 1


def test_bad_arguments_are_refused_before_anything_is_played():
    with pytest.raises(Exception, match="players"):
        check_ruleset(Flip7, players=[0])
    with pytest.raises(Exception, match="unknown option"):
        check_ruleset(Flip7, options={"nonsense": 1})
