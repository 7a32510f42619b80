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
    return plugin_dir


def _registry():
    from arena.plugins import load_registry

    return load_registry()


def test_the_toy_registers_through_the_entry_point_and_passes_the_conformance_kit(toy_installed):
    from arena.testing import check_ruleset

    entry = _registry().rulesets["toy-high-card"]
    assert entry.origin.package == "arena-toy-high-card"
    report = check_ruleset(entry.cls, seeds=6)
    assert report.counts["playouts"] > 0 and report.counts["replay"] > 0
    assert report.skipped and "no sample_state" in report.skipped[0]   # an optional capability


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
