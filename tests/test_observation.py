"""One observation, made in one place: `arena.rules.observation.make_observation`."""

from __future__ import annotations

import ast
import random
from pathlib import Path
from typing import get_type_hints

import pytest

import arena
from arena.bot import Bot
from arena.match import Entrant, play_game
from arena.plugins import load_registry
from arena.rules.observation import Observation, make_observation
from arena_bots.random_bot import RandomBot

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("flip-7", "uno-flip", "color-flush", "flip-hue")


class _Keeper(Bot):
    name = "observation-keeper"
    seen: list = []

    def act(self, observation):
        type(self).seen.append(observation)
        return self.rng.choice(observation["legal_actions"])


@pytest.mark.parametrize("ruleset_id", GAMES)
def test_a_bot_receives_the_typed_observation_keys_in_their_declared_order(ruleset_id):
    cls = load_registry().rulesets[ruleset_id].cls
    _Keeper.seen = []
    play_game(cls, [Entrant(_Keeper), Entrant(RandomBot)], 3)
    assert _Keeper.seen
    declared = list(Observation.__annotations__)
    for observation in _Keeper.seen:
        assert list(observation) == declared
        assert observation["ruleset"] == cls.id and observation["version"] == cls.version


def test_the_observation_type_names_every_key_with_its_type():
    hints = get_type_hints(Observation)
    assert list(hints) == ["ruleset", "version", "options", "seat", "players", "view", "events", "legal_actions"]
    assert hints["seat"] is int and hints["legal_actions"] == list[str]
    assert arena.Observation is Observation


def test_make_observation_takes_the_events_after_the_view_and_shares_nothing_with_the_state():
    cls = load_registry().rulesets["flip-7"].cls
    state = cls.new_game(3, cls.resolve_options(), random.Random(5))
    seat = state.current_seat()
    observation = make_observation(cls, state, seat)
    assert observation["events"], "the deal's events are the first observation's"
    assert state.take_events(seat) == [], "make_observation took the seat's events"
    assert observation["legal_actions"] == state.legal_actions()
    observation["options"]["target_score"] = -1
    observation["view"].clear()
    assert state.options["target_score"] != -1 and state.view(seat)
    other = (seat + 1) % 3
    assert make_observation(cls, state, other, [])["legal_actions"] == [], "a seat not to act has no legal actions"


def _hand_built_observations(path: Path) -> list[int]:
    """Lines of `path` holding a dict literal with a seat's view and legal actions."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if {"seat", "view", "legal_actions"} <= keys:
                lines.append(node.lineno)
    return lines


def test_no_module_of_the_library_or_the_bots_builds_an_observation_by_hand():
    found = {}
    for folder in ("arena", "bots"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "observation.py" and path.parent.name == "rules":
                continue
            if lines := _hand_built_observations(path):
                found[str(path.relative_to(ROOT))] = lines
    assert found == {}, f"observations built by hand (use make_observation): {found}"


def test_the_scan_for_hand_built_observations_finds_one(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('def f(s):\n    return {"seat": 0, "view": s.view(0), "legal_actions": []}\n')
    assert _hand_built_observations(planted) == [2]
