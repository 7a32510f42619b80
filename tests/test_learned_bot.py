"""examples/learned_bot/: the learned bot loads from its file, ships small checked-in weights
for each of its rulesets, plays legal games in the default sandbox, and replays from the seed.
(How strong it is against the heuristics is measured by examples/learned_bot_tournament.toml
and examples/learned_bot_flip7_race_tournament.toml, published in docs/rl.md; too long a run
for the test suite.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import arena
from arena.api import bot_from_file
from arena.plugins import load_registry
from arena.run_and_publish import run_and_publish
from arena.store import Store, store_path
from arena.tournament import load_tournament
from test_attacks import sandbox  # noqa: F401  (fixture)

pytest.importorskip("numpy")

FOLDER = Path(__file__).resolve().parents[1] / "examples" / "learned_bot"
SPEC = f"{FOLDER / 'learned_bot.py'}:LearnedBot"
RULESETS = ("color-flush", "flip-7", "uno-flip")
SHORT = {"uno-flip": {"target_score": 0}, "color-flush": {}, "flip-7": {"target_score": 50}}   # one UNO Flip round, a few of Flip 7
OPPONENT = {"uno-flip": "uno-flip-heuristic", "color-flush": "color-flush-heuristic", "flip-7": "flip7-expectimax"}


@pytest.fixture(scope="module")
def bot():
    return bot_from_file(SPEC)


def test_the_weights_file_is_small_and_names_a_weight_for_every_feature_of_each_ruleset(bot):
    path = FOLDER / "weights.json"
    assert path.stat().st_size < 4096
    data = json.loads(path.read_text())
    module = __import__(bot.__module__)
    for ruleset in RULESETS:
        names = module.FEATURIZERS[ruleset][0]
        assert sorted(data[ruleset]) == sorted(names)
        learned = [data[ruleset][name] for name in names]
        start = [module.STARTING_WEIGHTS[ruleset].get(name, 0.0) for name in names]
        assert learned != start   # trained: not the heuristic's copy it starts from


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_bot_plays_legal_games_and_replays_them_from_the_seed(bot, ruleset):
    opponent = OPPONENT[ruleset]
    first = arena.play(ruleset, [bot, opponent], seed=11, options=SHORT[ruleset])
    again = arena.play(ruleset, [bot, opponent], seed=11, options=SHORT[ruleset])
    assert first.names[0] == "learned-linear" and first.record["faults"] == []
    assert any(seat == 0 for seat, _ in first.record["decisions"])   # it was asked, and answered legally
    assert first.record["transcript_hash"] == again.record["transcript_hash"]
    other_seed = arena.play(ruleset, [bot, opponent], seed=12, options=SHORT[ruleset])
    assert other_seed.record["transcript_hash"] != first.record["transcript_hash"]


def test_the_bot_plays_every_ruleset_in_the_default_sandbox_from_a_tournament_file(tmp_path, sandbox):  # noqa: F811
    tmp_path.chmod(0o755)
    copy = tmp_path / "learned_bot"
    shutil.copytree(FOLDER, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path in [copy, *copy.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    toml = tmp_path / "t.toml"
    toml.write_text('[tournament]\nname = "learned"\nseed = 5\ndeals = 1\n'   # isolation: the default
                    '[[bots]]\nuse = "./learned_bot/learned_bot.py:LearnedBot"\nas = "learned-linear"\n'
                    '[[bots]]\nuse = "random"\n'
                    '[[rulesets]]\nuse = "uno-flip"\nplayers = 2\noptions = { target_score = 0 }\n'
                    '[[rulesets]]\nuse = "color-flush"\nplayers = 2\n'
                    '[[rulesets]]\nuse = "flip-7"\nplayers = 2\noptions = { target_score = 50 }\n')
    tournament = load_tournament(toml, load_registry())
    assert tournament.isolation == "sandbox"
    result = run_and_publish(tournament, tmp_path / "results", workers=1, progress=False, echo=lambda line: None)
    with Store.open(store_path(tmp_path / "results")) as store:
        records = [store.record(i) for i in range(store.count())]
    assert result.complete and sorted({r["ruleset"]["id"] for r in records}) == sorted(RULESETS)
    for record in records:
        assert record["faults"] == [], record["faults"]
        assert "learned-linear" in [seat["display"] for seat in record["seats"]]


def test_flip7_starting_weights_play_as_flip7_expectimax_the_heuristic_training_starts_from(bot):
    """The Flip 7 features read the heuristic's own advantage of a hit and its aim: at the
    starting weights the bot makes flip7-expectimax's every decision."""
    module = __import__(bot.__module__)
    start = {name: module.STARTING_WEIGHTS["flip-7"].get(name, 0.0) for name in module.FLIP7_FEATURES}

    class Start(bot):
        def __init__(self):
            self.weights = {"flip-7": module.np.array([start[name] for name in module.FLIP7_FEATURES])}
            self.cache = {}

    for seed in (1, 2):
        learned = arena.play("flip-7", [Start, "flip7-expectimax"], seed=seed)
        heuristic = arena.play("flip-7", ["flip7-expectimax", "flip7-expectimax"], seed=seed)
        assert learned.record["decisions"] == heuristic.record["decisions"]
        assert learned.record["faults"] == []


def test_flip7_weights_train_only_the_race_features_and_hit_where_a_stay_certainly_loses(bot):
    """The shipped Flip 7 weights keep flip7-expectimax's play outside race states (every
    weight but the race features' at its starting value), and the race features overrule it:
    on deal 30 the bot hits at every decision where a stay certainly loses the game, at least
    once where flip7-expectimax would have stayed."""
    from arena_bots.flip7_expectimax import Flip7ExpectimaxBot

    module = __import__(bot.__module__)
    weights = json.loads((FOLDER / "weights.json").read_text())["flip-7"]
    for name in module.FLIP7_FEATURES:
        if name not in module.FLIP7_RACE_FEATURES:
            assert weights[name] == module.STARTING_WEIGHTS["flip-7"].get(name, 0.0), name
    seen = []

    class Watched(bot):
        def act(self, observation):
            action = super().act(observation)
            view = observation["view"]
            if view["decision"] == "hit-or-stay" and module._flip7_hit(view, observation["seat"])[
                    module.FLIP7_FEATURES.index("stay_loses")]:
                seen.append((action, Flip7ExpectimaxBot().act(observation)))
            return action

    result = arena.play("flip-7", [Watched, "flip7-expectimax"], seed=30)
    assert result.record["faults"] == []
    assert seen and all(action == "hit" for action, _ in seen), seen
    assert ("hit", "stay") in seen
