"""docs/new-game.md builds a game in a package of its own: this test writes the doc's own
code blocks into a folder, installs the package as pip would (an `arena` entry point), and
runs the doc's steps: the kit, the rules page, the renderer, a tournament and its web page, the
environments, and the search bots on its determinization."""

from __future__ import annotations

import importlib
import json
import re
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

import arena.rulesets

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "new-game.md"
BLOCK = re.compile(r"^```(?:python|toml)\n# (?:file: (?P<path>\S+)|add to (?P<into>\S+), class (?P<cls>\w+), "
                   r"below (?P<below>\w+))\n(?P<body>.*?)^```", re.S | re.M)
ENV_BLOCK = re.compile(r"^```python\n(?P<body>from pettingzoo\.test import .*?)^```", re.S | re.M)


def doc_files(text: str) -> dict[str, str]:
    """The doc's files: each block headed ``# file: <path>`` (a later one replaces an earlier),
    with the lines of each block headed ``# add to <path>, class <name>, below <attribute>``
    put right below that attribute of that class."""
    files: dict[str, str] = {}
    for match in BLOCK.finditer(text):
        body = match["body"]
        if match["into"]:
            files[match["into"]] = add_below(files[match["into"]], match["cls"], match["below"], body)
        else:
            files[match["path"]] = body if match["path"].endswith(".py") else f"# file: {match['path']}\n{body}"
    return files


def add_below(source: str, cls: str, attribute: str, lines: str) -> str:
    """`source` with `lines` inserted after the line of class `cls` that sets `attribute`."""
    head, _, rest = source.partition(f"\nclass {cls}(")
    assert rest, f"the doc adds to class {cls}, which its file does not define"
    line = re.search(rf"^    {attribute} = .*\n", rest, re.M)
    assert line, f"the doc adds below {cls}.{attribute}, which the class does not set"
    return f"{head}\nclass {cls}({rest[:line.end()]}{lines}{rest[line.end():]}"


@pytest.fixture
def high_card(plugin_dir, tmp_path, monkeypatch):
    """The package of docs/new-game.md, written from its code blocks and installed."""
    project = tmp_path / "arena-high-card"
    for path, body in doc_files(DOC.read_text()).items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(body)
    meta = tomllib.loads((project / "pyproject.toml").read_text())["project"]
    info = plugin_dir / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n")
    points = "".join(f"{name} = {target}\n" for name, target in meta["entry-points"]["arena"].items())
    (info / "entry_points.txt").write_text("[arena]\n" + points)
    monkeypatch.syspath_prepend(str(project))
    arena.rulesets.registry.cache_clear()   # the process's registry (search bots read it), as if loaded now
    yield project
    for name in [name for name in sys.modules if name.startswith("arena_high_card")]:
        del sys.modules[name]
    arena.rulesets.registry.cache_clear()


def test_the_doc_lists_every_file_of_its_folder_and_each_has_a_block():
    text = DOC.read_text()
    files = doc_files(text)
    assert set(files) == {"pyproject.toml", "arena_high_card/__init__.py", "arena_high_card/ruleset.py",
                          "arena_high_card/text.py", "arena_high_card/encoding.py", "arena_high_card/sampler.py",
                          "tests/test_conformance.py", "tournament.toml", "tournament-search.toml"}
    listing = re.search(r"^## 1\. The folder\n\n```\n(?P<tree>.*?)^```", text, re.S | re.M)
    assert listing, "section 1 of docs/new-game.md has no folder listing"
    listed = {line.split()[0] for line in listing["tree"].splitlines() if line.strip()}
    assert {path.rpartition("/")[2] for path in files} <= listed, "section 1's listing misses a file of a block"
    ruleset = files["arena_high_card/ruleset.py"]
    assert 'encoding_function = "arena_high_card.encoding:encoding"' in ruleset
    assert 'sampler_function = "arena_high_card.sampler:sample_state"' in ruleset


def test_the_docs_game_declares_its_encoding_and_chance_outcomes_and_the_kit_checks_them(high_card):
    from arena.plugins import load_registry
    from arena.testing import check_ruleset

    cls = load_registry().rulesets["high-card"].cls
    assert cls.supports("encoding") and cls.supports("chance_outcomes")
    assert cls.chance_outcomes(3, cls.resolve_options()) == 16
    report = check_ruleset(cls, seeds=1, variants=False)
    assert not [note for note in report.skipped if "encoding" in note or "chance_outcomes" in note]
    table = cls.encoding(2, cls.resolve_options())
    assert table.feature_name(0) == "me[0]" and table.actions[:2] == ("play:0:face", "play:0:back")


def test_the_kit_runs_its_sampling_checks_on_the_docs_game_and_skips_none_of_them(high_card):
    from arena.plugins import load_registry
    from arena.testing import check_ruleset

    cls = load_registry().rulesets["high-card"].cls
    assert cls.supports("sample_state") and not cls.supports("evaluate")
    report = check_ruleset(cls, seeds=2, variants=False)
    assert report.counts["hidden information"] > 0
    # the doc says the kit skips only the evaluate High Card does without
    assert len(report.skipped) == 1 and "has no evaluate" in report.skipped[0], report.skipped


def test_the_docs_sampler_leaves_a_card_for_every_face_played_out_of_the_hands_it_deals(high_card):
    import random

    from arena.plugins import load_registry
    from arena.rules.observation import make_observation

    cls = load_registry().rulesets["high-card"].cls
    sampler = importlib.import_module("arena_high_card.sampler")
    ruleset = importlib.import_module("arena_high_card.ruleset")
    rng, checked = random.Random(2), 0
    for seed in range(12):
        players = 2 + seed % 3
        options = cls.resolve_options({"tricks": 4})   # at four players, every card of the deck is dealt
        state = cls.new_game(players, options, random.Random(seed))
        received = [[] for _ in range(players)]
        while not state.is_terminal():
            for seat in range(players):
                received[seat].extend(state.take_events(seat))
            seat = state.current_seat()
            observation = make_observation(cls, state, seat, [])
            sample = sampler.sample_state(observation, rng, list(received[seat]))
            held = [card for hand in sample.hands for card in hand]
            assert len(set(held)) == len(held) and set(held) <= set(ruleset.DECK)
            faces = [event["card"] for event in received[seat] if event["type"] == "play"]
            rest = [card for card in ruleset.DECK if card not in held]
            assert sampler.cards_showing(faces, rest, rng) is not None, (seed, faces, sample.hands)
            state.apply(rng.choice(state.legal_actions()))
            checked += 1
    assert checked > 100


def test_the_docs_environment_code_passes_pettingzoos_api_test_and_openspiels_random_sim_test(high_card):
    pytest.importorskip("pettingzoo")
    pytest.importorskip("pyspiel")
    import warnings

    from arena.envs.openspiel import register_games

    assert "high-card" in register_games()   # installed after arena.envs.openspiel was first imported
    code = ENV_BLOCK.search(DOC.read_text())
    assert code, "docs/new-game.md has no environment block (from pettingzoo.test import ...)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's advice to prefer a Box over a Dict with an action mask
        namespace: dict = {}
        exec(compile(code["body"], str(DOC), "exec"), namespace)   # the doc's own lines, as a reader runs them
    assert namespace["game"].max_chance_outcomes() == 16
    import pyspiel

    pyspiel.random_sim_test(pyspiel.load_game("arena_high_card", {"players": 2}), num_sims=2, serialize=False,
                            verbose=False)


def test_the_docs_game_registers_passes_the_kit_and_has_its_rules_page(high_card):
    from arena.plugins import load_registry
    from arena.rules.page import missing_sections

    entry = load_registry().rulesets["high-card"]
    assert entry.origin.package == "arena-high-card"
    assert missing_sections(entry.cls) == [] and "most tricks wins" in entry.cls.how_to_play()
    spec = importlib.util.spec_from_file_location("doc_test_conformance", high_card / "tests" / "test_conformance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.test_high_card_conforms()  # the doc's own test: check_ruleset, every check


def test_the_docs_renderer_phrases_its_actions_and_events(high_card):
    import random

    from arena.render import Style, renderer_for
    from arena.plugins import load_registry

    cls = load_registry().rulesets["high-card"].cls
    renderer = renderer_for(cls, Style(False), ["seat 0 (you)", "seat 1"], 0, 2)
    state = cls.new_game(2, cls.resolve_options(), random.Random(1))
    view = state.view(0)
    assert renderer.safe_action("play:0:back", view).startswith("play [") and " up" in renderer.safe_action(
        "play:0:back", view)
    state.apply("play:0:face")
    assert renderer.safe_event(state.take_events(1)[0]).startswith("seat 0 (you) plays [")
    assert "back" in " ".join(renderer.legend())  # its cards are two-faced


def test_the_docs_tournament_runs_and_publishes_its_web_page(high_card, tmp_path):
    from arena.plugins import load_registry
    from arena.run_and_publish import run_and_publish
    from arena.tournament import parse_tournament

    text = (high_card / "tournament.toml").read_text()
    # the sandbox has tests of its own; here, the game (the doc's file runs bots in the sandbox)
    text = text.replace("[tournament]\n", '[tournament]\nisolation = "inline"\n', 1)
    out = tmp_path / "out"
    run_and_publish(parse_tournament(text, load_registry()), out, workers=1, progress=False,
                    echo=lambda line: None, replays=2)
    standings = json.loads((out / "standings.json").read_text())
    assert {row["bot"] for row in standings["rulesets"]["high-card"]} == {"random-1", "random-2"}
    assert (out / "index.html").exists() or any(out.rglob("index.html"))


def test_the_generic_legend_says_nothing_of_two_faces_for_a_game_of_one_sided_cards():
    from arena.render import Style, renderer_for
    from arena.rules.base import Ruleset

    class OneSided(Ruleset):
        id, version, title, min_players, max_players = "one-sided", "1", "One sided", 2, 2

        @classmethod
        def new_game(cls, players, options, rng):  # a deal is all the legend looks at
            return SimpleNamespace(view=lambda seat: {"hand": ["red-1", "blue-2"], "pile": "green-3"})

    legend = " ".join(renderer_for(OneSided, Style(False), ["a", "b"], 0, 2).legend())
    assert "back" not in legend and "face" not in legend and "[?]" in legend
    from arena.rules.flip_hue import FlipHue
    assert "[face]/[back]" in " ".join(renderer_for(FlipHue, Style(False), ["a", "b"], 0, 2).legend())


def test_ismcts_and_openspiel_ismcts_search_the_docs_game_in_its_tournament_without_faults_or_random_play(
        high_card, tmp_path, capfd):
    pytest.importorskip("pyspiel")
    from arena.plugins import load_registry
    from arena.run_and_publish import run_and_publish
    from arena.tournament import parse_tournament

    text = (high_card / "tournament-search.toml").read_text()
    # small and inline here (the sandbox has tests of its own): one deal, few iterations
    for doc_line, here in (("[tournament]\n", '[tournament]\nisolation = "inline"\n'), ("deals = 10", "deals = 1"),
                           ("iterations = 200", "iterations = 20"), ("simulations = 50", "simulations = 5")):
        assert doc_line in text, f"tournament-search.toml no longer has {doc_line!r}"
        text = text.replace(doc_line, here, 1)
    out = tmp_path / "out"
    # without the sampler, openspiel-ismcts plays no ruleset of the file and the file is refused
    run_and_publish(parse_tournament(text, load_registry()), out, workers=1, progress=False,
                    echo=lambda line: None)
    rows = json.loads((out / "standings.json").read_text())["rulesets"]["high-card"]
    assert {row["bot"] for row in rows} == {"ismcts", "openspiel-ismcts", "random"}
    assert [row["faults"] for row in rows] == [0, 0, 0], rows
    assert sum(row["games"] for row in rows) == 9, rows   # one deal, three rotations, three seats
    errors = capfd.readouterr().err
    assert "playing at random" not in errors and "search failed" not in errors, errors   # ismcts searched
