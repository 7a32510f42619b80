"""arena.play: one game from Python with bot classes, installed bots' names and functions."""

import doctest
import random

import pytest

import arena
import arena.api
from arena.errors import ArenaError, ConfigError, UnknownNameError
from arena.match import replay


def first_legal(observation):
    return observation["legal_actions"][0]


class LastLegal(arena.Bot):
    name = "last-legal"

    def act(self, observation):
        return observation["legal_actions"][-1]


def test_doctests_hold():
    assert doctest.testmod(arena.api).failed == 0


def test_arena_play_stays_the_function_once_the_cli_and_terminal_play_are_imported():
    import arena.cli.game  # noqa: F401
    import arena.terminal  # noqa: F401

    assert arena.play is arena.api.play


def test_a_class_a_name_and_a_function_play_together_and_the_record_replays():
    result = arena.play("uno-flip", [LastLegal, "random", first_legal], seed=3)
    assert result.names == ["last-legal", "random", "first-legal"]
    assert [row["seat"] for row in result.standings][0] == result.standing.index(1)
    assert result.returns == arena.returns.returns(result.standing)
    replay(result.record, arena.rulesets.get("uno-flip"))
    assert "seat 2 (first-legal)" in result.replay
    assert "as seen by seat 0" in result.replay_for(0)


def test_same_seed_same_game_and_a_function_with_rng_gets_the_bots_seeded_rng():
    def pick(observation, rng):
        return rng.choice(observation["legal_actions"])

    class Picker(arena.Bot):
        name = "picker"

        def act(self, observation):
            return self.rng.choice(observation["legal_actions"])

    by_function = arena.play("flip-hue", [pick, pick], seed=11)
    by_class = arena.play("flip-hue", [Picker, Picker], seed=11)
    assert by_function.record["decisions"] == by_class.record["decisions"]
    assert by_function.names == ["pick", "pick-2"]
    other = arena.play("flip-hue", [pick, pick], seed=12)
    assert other.record["decisions"] != by_function.record["decisions"]


def test_options_reach_the_game():
    result = arena.play("flip-7", ["random", "random"], seed=1, options={"target_score": 20})
    assert result.record["ruleset"]["options"]["target_score"] == 20
    assert max(result.scores) >= 20


def test_a_function_that_answers_illegally_stops_the_game_unless_a_fault_policy_is_given():
    with pytest.raises(arena.IllegalActionError, match="bad-answer"):
        arena.play("flip-7", [arena.api.function_bot(lambda o: "nonsense", "bad-answer"), "random"], seed=1)
    result = arena.play("flip-7", [lambda o: "nonsense", "random"], seed=1, on_fault="forfeit")
    assert result.standing == [2, 1]
    assert result.record["faults"][0]["kind"] == "illegal"


@pytest.mark.parametrize("bots, message", [
    ("random", "one bot per seat"),
    ([LastLegal(), "random"], "not an instance"),
    ([3, "random"], "seat 0: a bot is"),
    (["flip7-threshold", "random"], "does not play uno-flip"),
])
def test_bad_bots_get_a_one_line_error_naming_the_seat_or_problem(bots, message):
    with pytest.raises(ConfigError, match=message):
        arena.play("uno-flip", bots)


def test_unknown_names_and_bad_seeds_are_errors():
    with pytest.raises(UnknownNameError):
        arena.play("uno-flip", ["no-such-bot", "random"])
    with pytest.raises(UnknownNameError):
        arena.play("uno-flop", ["random", "random"])
    with pytest.raises(ArenaError, match="seed must be"):
        arena.play("uno-flip", ["random", "random"], seed=-1)


def test_bot_from_file_loads_a_class_or_a_function(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("import arena\n\nclass MyBot(arena.Bot):\n"
                    "    def act(self, observation):\n        return observation['legal_actions'][0]\n\n"
                    "def go_last(observation):\n    return observation['legal_actions'][-1]\n")
    assert arena.api.bot_from_file(f"{path}:MyBot").name == "my-bot"
    assert arena.api.bot_from_file(f"{path}:go_last").name == "go-last"
    with pytest.raises(ConfigError, match="defines no 'Nope'"):
        arena.api.bot_from_file(f"{path}:Nope")
    with pytest.raises(ConfigError, match="PATH.py:ClassName"):
        arena.api.bot_from_file(f"{path}")
