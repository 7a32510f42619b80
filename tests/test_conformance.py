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
from arena.rules.base import Option, Ruleset
from arena.rules.flip_7 import Flip7
from arena.rules.uno_flip import UnoFlip
from arena.testing import ConformanceError, ConformanceReport, check_determinism, check_fresh_copies, \
    check_illegal_actions, check_playouts, check_rules_page, check_ruleset, check_sampling, cases, option_range_cases

RULESETS = load_registry().rulesets

# The default suite's sample: for each ruleset every check, the fewest, one more and the most
# players, every option value with choices and each number option at its bounds, and over 400
# sampled decision points (each sampled twice with and twice without the seat's events); about
# 40% of the work of the earlier 4 seeds, 40 points, stride 11. The slow test below plays many
# more games, points and steps.
PROJECT = {"seeds": 2, "points": 24, "samples": 2, "stride": 17}


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


# -- the kit's later teeth: illegal actions that leave traces, options at their bounds, the rules page --


def _refusing_with(trace):
    """Flip 7 whose engine, given an illegal action, does `trace(state)` before it refuses it."""

    def patch(state):
        apply = state.apply

        def apply_checked_late(action):
            if action not in state.legal_actions():
                trace(state)
            apply(action)

        state.apply = apply_checked_late

    return _broken(patch)


def test_a_refused_illegal_action_that_emits_an_event_fails_the_illegal_action_check():
    broken = _refusing_with(lambda state: state.emit({"type": "refused"}))
    check_playouts(broken, _small(Flip7))  # the playout check sees only the seat and its legal actions
    with pytest.raises(ConformanceError, match=r"flip-7: illegal actions \(3 players, seed \d+, decision \d+\): "
                                               r"the refused illegal action .* changed the game \(events\)"):
        check_illegal_actions(broken, _small(Flip7))


def test_a_refused_illegal_action_that_reorders_the_hidden_deck_fails_the_illegal_action_check():
    def cut(state):
        if len(state.deck) > 1:
            state.deck.insert(0, state.deck.pop())

    with pytest.raises(ConformanceError, match=r"flip-7: illegal actions .* changed how the game plays on"):
        check_illegal_actions(_refusing_with(cut), _small(Flip7))


def test_the_illegal_action_check_passes_flip_7():
    report = ConformanceReport("flip-7")
    check_illegal_actions(Flip7, _small(Flip7), report=report)
    assert report.counts["illegal actions"] > 20


class _SamplerWrongAtOneRound(Flip7):
    """A sampler bug reachable only with `max_rounds` at its minimum."""

    @classmethod
    def sample_state(cls, observation, rng, events=None):
        sample = super().sample_state(observation, rng, events)
        if observation["options"]["max_rounds"] == 1:
            view = sample.view
            sample.view = lambda seat: {**view(seat), "round": -1}
        return sample


def test_a_sampler_bug_at_an_options_bound_is_played_by_the_range_cases():
    ordinary = cases(_SamplerWrongAtOneRound, seeds=1, players=[2])
    assert all(case.options.get("max_rounds", 1000) != 1 for case in ordinary)
    check_sampling(_SamplerWrongAtOneRound, ordinary, points=4)  # the old cases miss it
    bounds = option_range_cases(_SamplerWrongAtOneRound, seeds=1, players=[2])
    assert {case.options["max_rounds"] for case in bounds if "max_rounds" in case.options} >= {1}
    with pytest.raises(ConformanceError, match=r"options {max_rounds=1}.*view changed .*view.round"):
        check_sampling(_SamplerWrongAtOneRound, bounds, points=40)


def test_range_cases_try_both_bounds_and_a_value_between_and_skip_the_default():
    found = [case.options for case in option_range_cases(UnoFlip, seeds=1, players=[2])]
    penalties = [options["uno_penalty"] for options in found if "uno_penalty" in options]
    assert penalties[:2] == [0, UnoFlip.options["uno_penalty"].maximum] and 0 < penalties[2] < penalties[1]
    assert 500 not in [options.get("target_score") for options in found]  # the default: played anyway
    assert all(len(options) == 1 for options in found), "one option at a time"


def test_a_number_option_without_a_maximum_or_a_test_range_fails():
    class Unbounded(Flip7):
        options = {**Flip7.options, "bonus": Option(15, "the Flip 7 bonus", minimum=0)}

    with pytest.raises(ConformanceError, match=r"option 'bonus' has no maximum: .*test_range=\(low, high\)"):
        option_range_cases(Unbounded)
    with pytest.raises(ValueError, match="test_range"):
        Option(15, "the Flip 7 bonus", minimum=0, test_range=(-5, 20))


def test_a_plugin_whose_rules_page_lacks_a_required_section_fails_the_rules_page_check():
    class Plugin(Ruleset):  # a ruleset of its own: its page is this test module's docstring
        id, version, title, min_players, max_players = "no-page", "1", "No page", 2, 2

        @classmethod
        def new_game(cls, players, options, rng):
            raise NotImplementedError

    with pytest.raises(ConformanceError, match=r"no-page: rules page: the rules page \(the docstring of "
                                               r"(tests\.)?test_conformance\) lacks the sections How to play .*"
                                               r"Action grammar .*View fields .*Event types"):
        check_rules_page(Plugin)
    assert Plugin.how_to_play() is None


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_every_registered_rules_page_has_a_how_to_play_for_people(ruleset_id):
    text = RULESETS[ruleset_id].cls.how_to_play()
    assert text and 100 < len(text) < 700 and "legal_actions" not in text
