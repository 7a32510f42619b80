"""examples/flip7_policy_gradient.py: it trains, its agent plays as a bot (inline, through the bot
protocol) and its head-to-head report has intervals. Slow: the training is the point."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena
from arena.cli import main

pytest.importorskip("pettingzoo")
pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "flip7_policy_gradient.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("flip7_policy_gradient", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_training_beats_its_untrained_self_and_the_agent_plays_inline_and_over_the_protocol(example, tmp_path):
    weights = tmp_path / "w.npz"
    example.train(600, seed=3, learning_rate=0.05, log_every=0).save(weights)
    trained = example.LinearPolicy.load(weights)
    assert trained.theta.any()  # it learned something: the untrained policy is all zeros

    class Trained(example.PolicyBot):
        def __init__(self):
            super().__init__(str(weights))

    result = arena.play("flip-7", [Trained, "random"], seed=5)
    assert result.names == ["flip7-pg", "random"]
    report = example.head_to_head("random", deals=6, weights=str(weights))
    low, high = report["interval_95"]
    assert report["deals"] == 6 and low <= report["paired_score"] <= high
    command = f"{sys.executable} {SCRIPT} serve --weights {weights}"
    played = CliRunner().invoke(main, ["match", "flip-7", "random", "--command", command, "--seed", "5",
                                       "--isolation", "process", "--json"])
    assert played.exit_code == 0, played.output
    assert json.loads(played.output)["seats"][1]["display"] == "flip7-policy-gradient"  # named by its script


def test_the_shipped_weights_load_and_play(example):
    assert arena.play("flip-7", [example.PolicyBot, "flip7-threshold"], seed=1).names[0] == "flip7-pg"
