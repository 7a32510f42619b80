"""arena.envs.pettingzoo's options for learning: relative seats, the history block, the turn
limit as truncation, illegal actions, pickling, feature names, `state()` not shadowed."""

import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from arena.envs.pettingzoo import env  # noqa: E402

RULESETS = ["color-flush", "flip-7", "flip-hue", "uno-flip"]


def block(game, observation, name):
    feature = next(f for f in game.unwrapped.features if f.name == name)
    return observation[feature.offset:feature.offset + feature.length]


def random_steps(game, seed, steps):
    """Up to `steps` uniform legal actions (stops at the game's end); the indices taken."""
    rng = np.random.default_rng(seed)
    taken = []
    for _ in range(steps):
        observation, _, termination, truncation, _ = game.last()
        if termination or truncation:
            break
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        taken.append(action)
        game.step(action)
    return taken


@pytest.mark.parametrize("ruleset", RULESETS)
def test_api_test_and_seed_test_pass_with_relative_seats_and_history(ruleset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(ruleset, players=3, seats="relative", history=4), num_cycles=100)
        seed_test(lambda: env(ruleset, players=3, seats="relative", history=4), num_cycles=100)


@pytest.mark.parametrize("ruleset", ["color-flush", "flip-hue"])
def test_api_test_passes_with_illegal_actions_refused_and_the_limit_a_termination(ruleset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(ruleset, players=2, illegal_reward=None, truncation=False), num_cycles=100)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_relative_seats_put_the_acting_seat_first_in_every_per_seat_block(ruleset):
    absolute, relative = env(ruleset, players=3), env(ruleset, players=3, seats="relative")
    absolute.reset(seed=5)
    relative.reset(seed=5)
    features = [f for f in absolute.unwrapped.features if f.per_seat]
    assert features
    for action_seed in range(12):
        seat = absolute.unwrapped.game.current_seat()
        if seat is None:
            break
        a, r = absolute.last()[0], relative.last()[0]
        assert list(block(relative, r["observation"], "me")) == [1, 0, 0]
        for feature in features:
            parts_a = block(absolute, a["observation"], feature.name).reshape(3, -1)
            parts_r = block(relative, r["observation"], feature.name).reshape(3, -1)
            assert np.array_equal(parts_r, np.roll(parts_a, -seat, axis=0)), feature.name
        legal = {relative.unwrapped.action_string(i) for i in np.flatnonzero(r["action_mask"])}
        assert legal == {relative.unwrapped.encoding.actions[i] for i in np.flatnonzero(a["action_mask"])}
        index = int(np.random.default_rng(action_seed).choice(np.flatnonzero(a["action_mask"])))
        text = absolute.unwrapped.action_string(index)
        absolute.step(index)
        relative.step(next(i for i in np.flatnonzero(r["action_mask"]) if relative.unwrapped.action_string(i) == text))


def test_a_relative_seat_action_names_seats_counted_from_the_actor():
    game = env("flip-7", players=3, seats="relative").unwrapped
    game.reset(seed=1)
    seat = game.game.current_seat()
    assert game.action_string(game.encoding.index["freeze:0"]) == f"freeze:{seat}"
    assert game.action_string(game.encoding.index["freeze:1"]) == f"freeze:{(seat + 1) % 3}"
    assert game.action_string(game.encoding.index["hit"]) == "hit"


def test_the_history_block_holds_the_last_actions_newest_first_with_their_seats():
    game = env("flip-7", players=2, history=3)
    game.reset(seed=2)
    unwrapped = game.unwrapped
    width, size = len(unwrapped.encoding.actions), unwrapped.encoding.size
    assert unwrapped.feature_name(size) == "history_seats[0]"
    assert unwrapped.feature_name(size + 3 * 2) == "history_actions[0]"
    assert not game.last()[0]["observation"][size:].any()
    done = []
    for _ in range(4):
        seat = unwrapped.game.current_seat()
        if seat is None:
            break
        index = int(np.flatnonzero(game.last()[0]["action_mask"])[0])
        done.insert(0, (seat, index))
        game.step(index)
    if unwrapped.game.current_seat() is None:
        pytest.skip("the game ended early")
    observation = game.last()[0]["observation"]
    seats = block(game, observation, "history_seats").reshape(3, 2)
    actions = block(game, observation, "history_actions").reshape(3, width)
    for j, (seat, index) in enumerate(done[:3]):
        assert list(np.flatnonzero(seats[j])) == [seat] and list(np.flatnonzero(actions[j])) == [index]


def play_to_end(game, seed):
    """Play uniformly to the end; each agent's last (reward, termination, truncation), and the env."""
    game.reset(seed=seed)
    rng = np.random.default_rng(seed)
    ends, total = {}, dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, _ = game.last()
        total[agent] += reward
        if termination or truncation:
            ends[agent] = (termination, truncation)
        game.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert set(ends) == set(game.possible_agents)
    return ends, total, game.unwrapped


def test_the_turn_limit_is_a_truncation_with_rewards_zero_and_a_real_end_is_a_termination():
    ends, total, capped = play_to_end(env("uno-flip", players=2, options={"max_turns": 3}), seed=1)
    assert capped.game.outcome()["reason"] == "max_turns"
    assert set(ends.values()) == {(False, True)} and set(total.values()) == {0}
    ends, _, _ = play_to_end(env("uno-flip", players=2, options={"max_turns": 3}, truncation=False), seed=1)
    assert set(ends.values()) == {(True, False)}
    ends, total, finished = play_to_end(env("flip-7", players=2, options={"target_score": 20}), seed=1)
    assert finished.game.outcome()["reason"] == "target"
    assert set(ends.values()) == {(True, False)} and sorted(total.values()) == [-1, 1]


def test_an_illegal_action_ends_the_game_with_the_penalty_by_default():
    game = env("flip-7", players=2)
    game.reset(seed=1)
    agent = game.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game.step(int(np.flatnonzero(game.last()[0]["action_mask"] == 0)[0]))
    assert game.unwrapped._cumulative_rewards == {agent: -1.0, **{other: 0 for other in game.possible_agents
                                                                    if other != agent}}
    assert game.unwrapped.terminations == dict.fromkeys(game.possible_agents, True)
    penalised = env("flip-7", players=2, illegal_reward=-5)
    penalised.reset(seed=1)
    agent = penalised.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        penalised.step(int(np.flatnonzero(penalised.last()[0]["action_mask"] == 0)[0]))
    assert penalised.unwrapped._cumulative_rewards[agent] == -5.0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_pickled_env_continues_exactly_as_the_original(ruleset):
    game = env(ruleset, players=2, seats="relative", history=2)
    game.reset(seed=3)
    random_steps(game, 3, 5)
    twin = pickle.loads(pickle.dumps(game))
    for _ in range(6):
        mine, theirs = game.last(), twin.last()
        assert np.array_equal(mine[0]["observation"], theirs[0]["observation"])
        assert np.array_equal(mine[0]["action_mask"], theirs[0]["action_mask"])
        if mine[2] or mine[3]:
            break
        action = int(np.flatnonzero(mine[0]["action_mask"])[0])
        game.step(action)
        twin.step(action)


def test_state_is_pettingzoos_method_and_the_engine_state_is_game():
    game = env("color-flush", players=2)
    game.reset(seed=1)
    with pytest.raises(NotImplementedError):
        game.unwrapped.state()
    assert game.unwrapped.game.current_seat() is not None


def test_bad_options_are_refused_in_one_line_naming_them():
    with pytest.raises(ValueError, match="seats must be one of"):
        env("flip-7", seats="mine")
    with pytest.raises(ValueError, match="history must be"):
        env("flip-7", history=-1)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_learning_preset_is_valid_options_and_a_copy(ruleset):
    from arena.envs.presets import learning_options

    options = learning_options(ruleset)
    game = env(ruleset, players=2, options=options)
    game.reset(seed=0)
    assert game.unwrapped.game_options == game.unwrapped.ruleset.resolve_options(options)
    options["mutated"] = True
    assert "mutated" not in learning_options(ruleset)


def test_random_uno_flip_games_reach_the_limit_by_default_and_end_under_the_preset():
    from arena.envs.presets import learning_options

    default = [play_to_end(env("uno-flip", players=3), seed)[2].game.outcome()["reason"] for seed in range(2)]
    preset = [play_to_end(env("uno-flip", players=3, options=learning_options("uno-flip")), seed)[2]
              .game.outcome()["reason"] for seed in range(2)]
    assert default == ["max_turns", "max_turns"] and "max_turns" not in preset


def test_flip_hues_two_player_preset_replaces_its_learning_preset_at_two_players_and_games_end():
    from arena.envs.presets import learning_options

    two = learning_options("flip-hue", players=2)
    assert two != learning_options("flip-hue") == learning_options("flip-hue", players=3)
    assert learning_options("uno-flip", players=2) == learning_options("uno-flip")   # no 2-player preset
    reasons = [play_to_end(env("flip-hue", players=2, options=two), seed)[2].game.outcome()["reason"]
               for seed in range(5)]
    assert "max_turns" not in reasons


def test_an_illegal_action_under_the_penalty_ends_every_agent_in_the_agent_loop():
    game = env("uno-flip", players=3, illegal_reward=-2)
    game.reset(seed=4)
    first = game.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game.step(int(np.flatnonzero(game.last()[0]["action_mask"] == 0)[0]))
    totals, ends = dict.fromkeys(game.possible_agents, 0.0), set()
    for agent in game.agent_iter():
        _, reward, termination, truncation, _ = game.last()
        totals[agent] += reward
        assert termination and not truncation
        ends.add(agent)
        game.step(None)
    assert ends == set(game.possible_agents)
    assert totals == {agent: (-2.0 if agent == first else 0.0) for agent in game.possible_agents}


def test_last_before_reset_is_refused_as_the_order_enforcing_wrapper_does():
    game = env("flip-7", players=2)
    with pytest.raises(AttributeError, match="before reset"):
        game.last()
    game.reset(seed=1)
    assert game.last()[0]["action_mask"].any()
