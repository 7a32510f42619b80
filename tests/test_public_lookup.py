"""arena.rulesets.get and arena.bots.get: the public lookups by id and name."""

import pytest

import arena.bots
import arena.rulesets
from arena.errors import UnknownNameError
from arena.rules.flip_7 import Flip7


def test_rulesets_get_returns_the_registered_class_and_ids_lists_all_four():
    assert arena.rulesets.get("flip-7") is Flip7
    ids = arena.rulesets.ids()
    assert ids == sorted(ids) and {"color-flush", "flip-7", "flip-hue", "uno-flip"} <= set(ids)  # plugins may add more


def test_rulesets_get_of_an_unknown_id_names_the_known_ones():
    with pytest.raises(UnknownNameError, match="known: color-flush, flip-7"):
        arena.rulesets.get("flip-8")


def test_bots_get_returns_a_bot_class_and_names_filters_by_ruleset():
    assert arena.bots.get("random").name == "random"
    assert "flip7-threshold" in arena.bots.names("flip-7")
    assert "flip7-threshold" not in arena.bots.names("uno-flip")
    with pytest.raises(UnknownNameError, match="unknown bot"):
        arena.bots.get("no-such-bot")
