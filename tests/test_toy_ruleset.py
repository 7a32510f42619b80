"""The proof of issue 18 item 1: a fifth game is one package plus its registration.

tests/toy_ruleset/ (a two-faced high-card game) is installed as a plugin the way pip would
(an `arena` entry point naming the package) and, touching no file outside itself, passes
the conformance kit, plays in a tournament, replays as text and as the site's viewer data,
scaffolds a bot, and supplies its own declarations (draw probability, faces) to the
generic consumers."""

from __future__ import annotations

import json
import random
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def toy_installed(plugin_dir, monkeypatch):
    """tests/toy_ruleset importable and registered through an `arena` entry point."""
    monkeypatch.syspath_prepend(str(TESTS))
    info = plugin_dir / "arena_toy_high_card-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-toy-high-card\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text("[arena]\ntoy-high-card = toy_ruleset\n")
    import arena.rulesets

    arena.rulesets.registry.cache_clear()   # the process's registry, as if loaded after the install
    yield plugin_dir
    arena.rulesets.registry.cache_clear()


def _registry():
    from arena.plugins import load_registry

    return load_registry()


def test_the_toy_registers_through_the_entry_point_and_passes_the_conformance_kit(toy_installed):
    from arena.testing import check_ruleset

    entry = _registry().rulesets["toy-high-card"]
    assert entry.origin.package == "arena-toy-high-card"
    report = check_ruleset(entry.cls, seeds=6)
    assert report.counts["playouts"] > 0 and report.counts["replay"] > 0
    assert report.counts["hidden information"] > 0 and report.counts["declared capabilities"] > 0
    assert not report.skipped   # it declares every optional capability the kit checks


def test_the_toy_plays_in_a_tournament_replays_and_renders(toy_installed, tmp_path):
    from arena.cli import main
    from arena.run_and_publish import run_and_publish
    from arena.site.replay import replay_data
    from arena.store import Store
    from arena.tournament import parse_tournament

    text = textwrap.dedent("""
        [tournament]
        name = "toy"
        seed = 5
        deals = 3
        isolation = "inline"

        [[bots]]
        use = "random"
        as = "random-1"

        [[bots]]
        use = "random"
        as = "random-2"

        [[rulesets]]
        use = "toy-high-card"
        players = 2
        """)
    out = tmp_path / "out"
    registry = _registry()
    run_and_publish(parse_tournament(text, registry), out, workers=1, progress=False, echo=lambda line: None,
                    replays=2)
    standings = json.loads((out / "standings.json").read_text())
    assert {row["bot"] for row in standings["rulesets"]["toy-high-card"]} == {"random-1", "random-2"}
    assert standings["tournament"]["rulesets"]["toy-high-card"]["draw_probability"] == 0.2   # its declaration

    replayed = CliRunner().invoke(main, ["replay", str(out), "1", "--color", "never"])
    assert replayed.exit_code == 0, replayed.output
    assert "toy-high-card" in replayed.output and "play" in replayed.output

    with Store.open(out / "games.sqlite") as store:
        record = store.record(1)
    data = replay_data(record, registry.rulesets["toy-high-card"].cls, game=1)
    assert data["ruleset"]["id"] == "toy-high-card" and data["frames"]
    assert data["ruleset"]["faces"]["red-5"] == ["red", "5"]   # the face table cards.js draws from


def test_the_toy_scaffolds_a_bot_with_its_example(toy_installed, tmp_path):
    from arena.cli import main

    result = CliRunner().invoke(main, ["new-bot", "toy-player", "--ruleset", "toy-high-card",
                                       "--dir", str(tmp_path / "bot")])
    assert result.exit_code == 0, result.output
    module = next(path for path in (tmp_path / "bot").rglob("*.py") if "class " in path.read_text())
    source = module.read_text()
    assert "int(a.split(':')[2] == 'face')" in source
    compile(source, str(module), "exec")


def test_a_toy_game_uses_the_chance_source_and_reports_its_draws(toy_installed):
    from toy_ruleset import HighCard

    state = HighCard.new_game(2, HighCard.resolve_options(), random.Random(1))
    assert state.chance.points == 1          # the deal's shuffle
    outcomes = state.draw_outcomes()
    assert len(outcomes) == 6 and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    assert "toy_ruleset" in sys.modules


# -- every feature for a game from its own package (issue 34, item 2) ---------------------


def test_the_toy_is_a_pettingzoo_env_that_passes_api_test_and_seed_test(toy_installed):
    pytest.importorskip("pettingzoo")
    import warnings

    from pettingzoo.test import api_test, seed_test

    from arena.envs.pettingzoo import env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice to prefer a Box over a Dict with an action mask
        api_test(env("toy-high-card", players=3), num_cycles=50)
        seed_test(lambda: env("toy-high-card", players=3), num_cycles=50)
    game = env("toy-high-card", players=2)
    assert game.unwrapped.encoding.feature_name(0) == "me[0]"


def test_the_toy_is_an_openspiel_game_registered_under_its_name(toy_installed):
    pyspiel = pytest.importorskip("pyspiel")
    from arena.envs.openspiel import load_game, register_games

    assert "toy-high-card" in register_games()   # installed after arena.envs.openspiel was first imported
    game = pyspiel.load_game("arena_toy_high_card", {"players": 3})
    assert game.max_chance_outcomes() == 12     # the toy's chance_outcomes, not another game's deck
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    pyspiel.random_sim_test(load_game("toy-high-card", players=2), num_sims=3, serialize=False, verbose=False)


def test_ismcts_searches_the_toy_with_its_evaluation_and_registered_playout(toy_installed):
    from toy_ruleset import HighCard
    from toy_ruleset.playout import FaceUpBot, face_up_move

    from arena_bots.ismcts import search_hints

    hints = search_hints("toy-high-card")
    assert hints.evaluation is HighCard.evaluate and hints.playout_depth == 6
    assert hints.playout_bot is FaceUpBot and hints.fast_move is face_up_move
    state = HighCard.new_game(3, {}, random.Random(4))
    bot = FaceUpBot()
    while not state.is_terminal():
        seat = state.current_seat()
        actions = state.legal_actions()
        assert face_up_move(bot, state, seat, actions) == bot.act({"view": state.view(seat), "legal_actions": actions})
        state.apply(actions[0])


def test_ismcts_and_openspiel_ismcts_play_the_toy_in_a_sandboxed_tournament(toy_installed, tmp_path):
    pytest.importorskip("pyspiel")
    from arena.run_and_publish import run_and_publish
    from arena.tournament import parse_tournament

    text = textwrap.dedent("""
        [tournament]
        name = "toy-searched"
        seed = 3
        deals = 2

        [[bots]]
        use = "ismcts"
        params = { iterations = 20 }

        [[bots]]
        use = "openspiel-ismcts"
        params = { simulations = 5 }

        [[bots]]
        use = "random"

        [[rulesets]]
        use = "toy-high-card"
        players = 3
        """)
    registry = _registry()
    tournament = parse_tournament(text, registry)
    assert tournament.isolation == "sandbox"   # the default
    out = tmp_path / "out"
    run_and_publish(tournament, out, workers=1, progress=False, echo=lambda line: None)
    standings = json.loads((out / "standings.json").read_text())
    rows = standings["rulesets"]["toy-high-card"]
    assert {row["bot"] for row in rows} == {"ismcts", "openspiel-ismcts", "random"}
    assert [row["faults"] for row in rows] == [0, 0, 0], rows
    logs = "".join(page.read_text() for page in (out / "site" / "bots").glob("*.html"))
    assert "playing at random" not in logs and "search failed" not in logs   # ismcts searched every game


def test_openspiel_ismcts_is_listed_only_for_rulesets_that_declare_what_it_needs(toy_installed):
    from arena.cli import main

    result = CliRunner().invoke(main, ["bots", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    if "openspiel-ismcts" not in rows:
        pytest.skip("open-spiel is not installed")
    assert "toy-high-card" in rows["openspiel-ismcts"]["rulesets"]
    assert {"flip-7", "uno-flip", "color-flush", "flip-hue"} <= set(rows["openspiel-ismcts"]["rulesets"])
    assert rows["random"]["rulesets"] == "*"


def test_a_plugin_games_option_presets_are_what_the_environments_serve(toy_installed):
    pytest.importorskip("numpy")
    from arena.envs.presets import learning_options
    from arena.envs.small import small_options

    assert learning_options("toy-high-card") == {}
    with pytest.raises(KeyError, match=r"no small variant for 'toy-high-card'; small variants: flip-7, uno-flip"):
        small_options("toy-high-card")
    assert learning_options("uno-flip") == {"target_score": 0, "uno_penalty": 0, "max_turns": 3000}


def test_a_ruleset_without_an_encoding_is_refused_in_one_line_naming_what_to_add():
    pytest.importorskip("pettingzoo")
    from arena.envs.encoding import encoding_for
    from arena.envs.plugin import OpenSpielISMCTS
    from arena.rules.base import Ruleset

    class Plain(Ruleset):
        id, version, title, min_players, max_players = "plain", "1", "Plain", 2, 2

        @classmethod
        def new_game(cls, players, options, rng):
            raise NotImplementedError

    with pytest.raises(ValueError) as refused:
        encoding_for(Plain, 2, {})
    message = str(refused.value)
    assert "\n" not in message and "'plain' declares no encoding" in message
    assert "encoding(players, options)" in message and "capabilities" in message
    assert not OpenSpielISMCTS.plays("plain") and not OpenSpielISMCTS.plays("no-such-ruleset")
    pytest.importorskip("pyspiel")
    from arena.envs.openspiel import load_game

    with pytest.raises(ValueError, match=r"^ruleset 'plain' cannot be an OpenSpiel game: it declares no encoding "
                                         r"and no chance_outcomes"):
        load_game(Plain)


def test_arena_docs_documents_the_toys_capabilities_and_encoding(toy_installed):
    from arena.cli import main

    result = CliRunner().invoke(main, ["docs", "--ruleset", "toy-high-card"])
    assert result.exit_code == 0, result.output
    assert "## toy-high-card" in result.output and "## flip-7" not in result.output
    assert "### Capabilities" in result.output and "`encoding`" in result.output
    assert "| `hand` | " in result.output   # a block of its observation array
