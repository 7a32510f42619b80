"""What a game declares for the environments and search bots (`Ruleset.capabilities`:
``encoding``, ``evaluate``, ``chance_outcomes``): the built-in encodings moved into their
game packages unchanged, and the conformance kit catches a broken declaration."""

from __future__ import annotations

import hashlib
import random

import pytest

pytest.importorskip("numpy")

from arena.rules.color_flush import ColorFlush  # noqa: E402
from arena.rules.flip_7 import Flip7  # noqa: E402
from arena.rules.flip_hue import FlipHue  # noqa: E402
from arena.rules.uno_flip import UnoFlip  # noqa: E402
from arena.rules.observation import make_observation  # noqa: E402
from arena.testing import ConformanceError, cases, check_declared_capabilities  # noqa: E402

RULESETS = {"flip-7": Flip7, "uno-flip": UnoFlip, "color-flush": ColorFlush, "flip-hue": FlipHue}

# Made with the encodings of arena/envs/encoding.py before they moved (issue 34): the hash of
# the action index and size, every seat's array at every decision and the mask there, in a
# random game (`_table_hash`). The arrays and indices must stay the same.
BEFORE_THE_MOVE = {
    ("flip-7", 2, 0): "c5222bbe3e97e178f8e0375e0af63da889432660dbdf625867f18bfefb8422b9",
    ("flip-7", 3, 1): "0be0a244357a7c81036707bf0a86de8d2e0e7a9e52bb41178206e9875a0fa38e",
    ("uno-flip", 2, 0): "97d99555faf7631343586af1f27f2714a0e78ea64acb3a8437d0ae494a2fa7de",
    ("uno-flip", 3, 1): "44b9b040a0246fb389d53c3d87d334e7b7cc5b80c6cbe5143fa85eff6fe1efd7",
    ("color-flush", 2, 0): "d1e21f56566ca1cb7716e1c7db5cae5fa4225df57764b0efe8bc0d69c1c9e8f5",
    ("color-flush", 3, 1): "0593eaae127f527c2d3ada5b4590ea79e01365f1714742fe7f094db1fb4a052f",
    ("flip-hue", 2, 0): "105163235ed4c233c44fa468ef5c35bf11e46626494b06263ea0496127e7ebd1",
    ("flip-hue", 3, 1): "904dc6e7f141b55d0ffd2e0151105eb1c750092d49094e05dbe21a96749a2f3e",
}


def _table_hash(cls, players: int, seed: int) -> str:
    options = cls.resolve_options({})
    encoding = cls.encoding(players, options)
    digest = hashlib.sha256(repr((encoding.actions, encoding.size)).encode())
    state = cls.new_game(players, options, random.Random(seed))
    rng = random.Random(seed + 100)
    steps = 0
    while not state.is_terminal() and steps < 400:
        for seat in range(players):
            digest.update(encoding.encode({"seat": seat, "view": state.view(seat)}).tobytes())
        legal = state.legal_actions()
        digest.update(encoding.mask(legal).tobytes())
        state.apply(legal[rng.randrange(len(legal))])
        steps += 1
    return digest.hexdigest()


@pytest.mark.parametrize("ruleset_id, players, seed", sorted(BEFORE_THE_MOVE))
def test_the_built_in_encodings_give_the_arrays_and_indices_they_gave_before_the_move(ruleset_id, players, seed):
    assert _table_hash(RULESETS[ruleset_id], players, seed) == BEFORE_THE_MOVE[(ruleset_id, players, seed)]


@pytest.mark.parametrize("cls", RULESETS.values(), ids=RULESETS)
def test_every_built_in_game_declares_the_environment_and_search_capabilities(cls):
    assert all(cls.supports(name) for name in ("encoding", "evaluate", "chance_outcomes"))
    encoding = cls.encoding(2, cls.resolve_options())
    assert encoding.features[0].offset == 0 and sum(f.length for f in encoding.features) == encoding.size
    assert encoding.feature_name(encoding.size - 1).startswith(encoding.features[-1].name)
    with pytest.raises(IndexError):
        encoding.feature_name(encoding.size)


def _broken(base, **members):
    """A copy of `base` with some declared parts replaced (a ruleset of another id)."""
    return type(f"Broken{base.__name__}", (base,), {"id": f"broken-{base.id}", **members})


def _games(cls):
    return cases(cls, seeds=2, players=[2, 3], variants=False)


def test_the_kit_passes_the_built_in_declarations():
    for cls in RULESETS.values():
        check_declared_capabilities(cls, cases(cls, seeds=1, players=[2], variants=False), points=3)


def test_the_kit_catches_an_evaluation_that_reads_the_deck_order():
    from arena.rules.flip_7.evaluation import evaluate_flip_7

    def peeking(state, me):   # the next chance draw, which nothing has revealed, tips the balance
        values = evaluate_flip_7(state, me)
        twin = random.Random()
        twin.setstate(state.rng.getstate())
        drawn = twin.random()
        return [min(1.0, max(0.0, v + (0.01 if s == me else 0.0) * drawn)) for s, v in enumerate(values)]

    with pytest.raises(ConformanceError, match="reseeded: it reads what chance has not revealed"):
        check_declared_capabilities(_broken(Flip7, evaluate=staticmethod(peeking)), _games(Flip7))


def test_the_kit_catches_an_evaluation_out_of_range():
    with pytest.raises(ConformanceError, match=r"not one value in \[0, 1\] per seat"):
        check_declared_capabilities(_broken(UnoFlip, evaluate=staticmethod(lambda state, me: [2.0] * state.players)),
                                    _games(UnoFlip))


def test_the_kit_catches_a_mask_that_marks_an_illegal_action():
    def encoding(players, options):
        real = ColorFlush.encoding(players, options)
        mask = real.mask
        real.mask = lambda legal: (lambda m: (m.__setitem__(len(m) - 1, 1), m)[1])(mask(legal))
        return real

    with pytest.raises(ConformanceError, match="the mask does not mark exactly the legal actions"):
        check_declared_capabilities(_broken(ColorFlush, encoding=staticmethod(encoding)), _games(ColorFlush))


def test_the_kit_catches_blocks_that_do_not_cover_the_array():
    def encoding(players, options):
        real = FlipHue.encoding(players, options)
        real.features = real.features[:-1]
        return real

    with pytest.raises(ConformanceError, match="blocks cover"):
        check_declared_capabilities(_broken(FlipHue, encoding=staticmethod(encoding)), _games(FlipHue))


def test_the_kit_catches_a_chance_outcome_count_below_the_draw_pile():
    with pytest.raises(ConformanceError, match="below the draw pile"):
        check_declared_capabilities(_broken(Flip7, chance_outcomes=classmethod(lambda cls, players, options: 10)),
                                    _games(Flip7))


# -- capabilities served from data (Ruleset.encoding_function, sampler_function, deck_option) --


def test_a_ruleset_declares_encoding_sampler_and_chance_outcomes_as_data_the_base_serves():
    from arena.rules.base import Ruleset
    from arena.rules.flip_hue.encoding import encoding as flip_hue_encoding

    data = {"capabilities": frozenset({"encoding", "sample_state", "chance_outcomes"}),
            "encoding_function": "arena.rules.flip_hue.encoding:encoding",
            "sampler_function": "arena.rules.flip_hue.sampler:sample_state", "deck_option": "deck"}
    game = type("Data", (FlipHue,), data)
    options = FlipHue.resolve_options()
    assert game.encoding(3, options).actions == flip_hue_encoding(3, options).actions
    assert game.chance_outcomes(3, options) == len(options["deck"]) + 1
    state = FlipHue.new_game(3, options, random.Random(1))
    observation = make_observation(FlipHue, state, state.current_seat())
    sample = game.sample_state(observation, random.Random(2))
    assert sample.view(observation["seat"]) == observation["view"]
    for capability, attribute in (("encoding", "encoding_function"), ("sample_state", "sampler_function"),
                                  ("chance_outcomes", "deck_option")):
        with pytest.raises(TypeError, match=rf"declares \['{capability}'\] but does not define"):
            type("Broken", (Ruleset,), {"capabilities": frozenset({capability})})
        bare = type("Bare", (Ruleset,), {})
        with pytest.raises(NotImplementedError, match=f"set {attribute} or define the classmethod"):
            getattr(bare, capability)(*((2, {}) if capability != "sample_state" else (observation, random.Random())))


def test_a_classmethod_of_the_ruleset_still_overrides_the_data():
    game = type("Own", (FlipHue,), {"chance_outcomes": classmethod(lambda cls, players, options: 7)})
    assert game.chance_outcomes(2, {}) == 7
    assert Flip7.chance_outcomes(2, {}) == 95 and Flip7.deck_option is None   # its own: 94 cards a deck
