"""What a ruleset declares for the harness (rules/base.py) and the generic consumers reading it:
draw probability (ratings), the new-bot example (scaffold), search hints (ismcts)."""

import pytest

from arena.ratings import default_draw_probability
from arena.rules.color_flush import ColorFlush
from arena.rules.flip_7 import Flip7
from arena.rules.flip_hue import FlipHue
from arena.rules.uno_flip import UnoFlip
from arena.scaffold import GENERIC_EXAMPLE, bot_module_text
from arena.rules.flip_7.evaluation import evaluate_flip_7
from arena_bots.flip7_threshold import Flip7ThresholdBot
from arena_bots.ismcts import NO_HINTS, SearchHints, hints_from, search_hints
from arena_bots.playout_moves import flip7_threshold_move


def test_draw_probabilities_are_the_games_own_with_the_values_of_the_old_table():
    assert [default_draw_probability(Flip7, n) for n in (2, 5)] == [0.01, 0.01]
    assert [default_draw_probability(UnoFlip, n) for n in (2, 3)] == [0.02, 0.25]
    assert [default_draw_probability(ColorFlush, n) for n in (2, 4)] == [0.1, 0.5]
    assert [default_draw_probability(FlipHue, n) for n in (2, 6)] == [0.3, 4 / 6]


def test_a_ruleset_that_declares_nothing_gets_the_defaults():
    class Bare(Flip7):
        search_hints = {}
        bot_example = None

        @classmethod
        def draw_probability(cls, players):
            return 0.05

    assert default_draw_probability(Bare, 3) == 0.05
    assert hints_from({}) == NO_HINTS
    assert "return self.rng.choice(legal)" in bot_module_text("plain", [Bare])
    assert GENERIC_EXAMPLE.strip() in bot_module_text("plain", [Bare])


def test_new_bot_writes_the_games_declared_example():
    text = bot_module_text("clever", [Flip7, UnoFlip])
    assert 'if view["decision"] == "hit-or-stay":' in text   # Flip 7's bot_example
    assert 'calls = [a for a in legal if a.endswith(":uno")]' in text   # UNO Flip's


def test_search_hints_come_from_the_declaration_the_evaluate_capability_and_the_registered_playout():
    assert search_hints("flip-7") == SearchHints(Flip7ThresholdBot, 60, 60, "round-end", 0.0, evaluate_flip_7,
                                                 fast_move=flip7_threshold_move)
    assert Flip7.evaluate is evaluate_flip_7
    assert hints_from({"playout_depth": 7}, evaluation=evaluate_flip_7) \
        == SearchHints(playout_depth=7, evaluation=evaluate_flip_7)
    with pytest.raises(ValueError, match=r"unknown search hints \['depth'\]"):
        hints_from({"depth": 3})


@pytest.mark.parametrize("key, instead", [("playout_bot", "register_playouts"), ("evaluation", "evaluate")])
def test_a_ruleset_may_no_longer_name_bots_in_its_search_hints(key, instead):
    with pytest.raises(ValueError, match=f"{key}.*{instead}"):
        hints_from({key: "arena_bots.anything:Name"})


def test_no_ruleset_search_hints_name_the_bots_package():
    for ruleset in (Flip7, UnoFlip, ColorFlush, FlipHue):
        assert "arena_bots" not in repr(ruleset.search_hints), ruleset.id


def test_the_face_tables_cover_every_face_of_the_default_decks():
    for ruleset in (UnoFlip, ColorFlush, FlipHue):
        faces = {face for pair in ruleset.resolve_options()["deck"] for face in pair}
        assert faces == set(ruleset.card_faces), ruleset.id
    assert UnoFlip.card_faces["red-7"] == ("red", "red 7")
    assert UnoFlip.card_faces["wild-draw-color"] == ("wild", "wild draw color")
    assert Flip7.card_faces["x2"] == ("bright-green", "x2") and "7" not in Flip7.card_faces


def test_the_terminal_renders_each_game_with_its_declared_renderer_and_faces():
    from arena.render import Style, renderer_for
    from arena.rules.flip_7.text import Flip7Renderer
    from arena.rules.text import Renderer

    renderer = renderer_for("flip-7", Style(True), ["seat 0", "seat 1"], 0, 2)
    assert type(renderer) is Flip7Renderer is Flip7.renderer
    assert renderer.s.face("x2") == "\x1b[1;32m[x2]\x1b[0m"        # Flip 7's card_faces colour
    assert renderer.s.face("flip-three") == "\x1b[33m[flip three]\x1b[0m"
    assert type(renderer_for("no-such-game", Style(False), ["seat 0"], 0, 1)) is Renderer


@pytest.mark.parametrize("ruleset", [Flip7, UnoFlip, ColorFlush, FlipHue], ids=lambda r: r.id)
def test_every_event_of_a_game_has_its_own_log_line_and_sentence_in_its_text_module(ruleset, monkeypatch):
    """The god log's line (`describe_event`) and a seat's sentence both come from the game's
    renderer (rules/<game>/text.py), and neither falls back to the generic form for any
    event type a game emits in random games."""
    import random

    from arena.rules.text import Renderer, Style

    def generic(*args):
        raise AssertionError(f"generic text for {args[-1]}")

    assert "describe_event" not in ruleset.__dict__  # the engine holds no event text
    renderer = ruleset.renderer(Style(color=False), [f"seat {i}" for i in range(3)], None, 3)
    monkeypatch.setattr(Renderer, "log_line", classmethod(generic))
    monkeypatch.setattr(Renderer, "event", generic)
    kinds = set()
    for seed in range(6):
        rng = random.Random(seed)
        state = ruleset.new_game(3, ruleset.resolve_options(), random.Random(seed))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        for event in state.god_log:
            kinds.add(event["type"])
            assert ruleset.describe_event(event) == ruleset.renderer.log_line(event)
            renderer.event(event)
    assert len(kinds) >= 5


def test_the_site_viewer_reads_the_games_layout_declaration_and_knows_no_game_by_id():
    """The viewer's data carries the ruleset's `site_view` (one-sided cards, seat rows,
    counted piles), and the site's scripts name no built-in ruleset."""
    from pathlib import Path

    from arena.api import play
    from arena.site.replay import replay_data

    record = play(Flip7, ["random", "random"], seed=3).record
    data = replay_data(record, Flip7, 0)
    assert data["ruleset"]["view"] == Flip7.site_view
    assert set(Flip7.site_view["counted"]) <= set(data["frames"][0]["god"]["view"])
    static = Path(__file__).parent.parent / "arena" / "site" / "static"
    for script in ("cards.js", "viewer.js"):
        text = (static / script).read_text()
        assert not [r.id for r in (Flip7, UnoFlip, ColorFlush, FlipHue) if r.id in text], script
