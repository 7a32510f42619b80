"""arena.envs.pettingzoo: PettingZoo's own api_test and seed_test for every ruleset, and what the env promises."""

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

import arena.rulesets  # noqa: E402
from arena.envs.encoding import encoding_for  # noqa: E402
from arena.envs.pettingzoo import env  # noqa: E402
from arena.returns import returns  # noqa: E402

RULESETS = ["color-flush", "flip-7", "flip-hue", "uno-flip"]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoo_api_test_and_seed_test_pass(ruleset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice to prefer a Box over a Dict with an action mask
        api_test(env(ruleset, players=3), num_cycles=200)
        seed_test(lambda: env(ruleset, players=3), num_cycles=200)


def play_out(game, seed):
    """Play a whole game with uniform legal actions drawn from `seed`; the actions taken, as strings."""
    game.reset(seed=seed)
    rng = np.random.default_rng(seed)
    taken = []
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        if termination or truncation:
            game.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        taken.append(game.unwrapped.action_string(action))
        assert taken[-1] in info["legal_actions"]
        game.step(action)
    return taken


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_whole_game_replays_on_the_engine_and_rewards_are_the_returns(ruleset):
    game = env(ruleset, players=3)
    rewards = {agent: 0.0 for agent in game.possible_agents}
    game.reset(seed=4)
    rng = np.random.default_rng(4)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        rewards[agent] += reward
        game.step(None if termination or truncation
                  else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    raw = game.unwrapped
    assert list(rewards.values()) == returns(raw.game.outcome()["standing"])
    assert abs(sum(rewards.values())) < 1e-9
    taken = play_out(env(ruleset, players=3), seed=4)
    state = arena.rulesets.get(ruleset).new_game(3, raw.game_options, random.Random(raw.deal_seed))
    for action in taken:
        state.apply(action)
    assert state.is_terminal()


@pytest.mark.parametrize("asked", ["in infos", "on request"])
def test_the_raw_observation_is_what_a_bot_gets_and_the_mask_marks_exactly_its_legal_actions(asked):
    game = env("uno-flip", players=2, raw_observations=asked == "in infos")
    game.reset(seed=2)
    observation, _, _, _, info = game.last()
    raw = info["observation"] if asked == "in infos" else game.unwrapped.raw_observation
    assert set(raw) == {"ruleset", "version", "options", "seat", "players", "view", "events", "legal_actions"}
    index = game.unwrapped.encoding.index
    assert sorted(np.flatnonzero(observation["action_mask"])) == sorted(index[a] for a in raw["legal_actions"])
    assert observation["action_mask"].dtype == np.int8 and observation["observation"].dtype == np.float32
    other = next(a for a in game.possible_agents if a != game.agent_selection)
    assert not game.observe(other)["action_mask"].any()


def test_an_illegal_index_is_refused_with_its_action_named_when_no_illegal_reward_is_set():
    game = env("flip-7", players=2, illegal_reward=None)
    game.reset(seed=1)
    mask = game.last()[0]["action_mask"]
    with pytest.raises(ValueError, match="is not legal"):
        game.step(int(np.flatnonzero(mask == 0)[0]))


def test_render_ansi_shows_the_acting_seats_frame():
    game = env("flip-7", players=2, render_mode="ansi")
    game.reset(seed=3)
    text = game.render()
    assert f"seat {game.unwrapped.game.current_seat()} (player_" in text and "hit" in text


@pytest.mark.parametrize("ruleset", ["color-flush", "flip-hue"])
def test_every_legal_action_of_random_games_is_in_the_index(ruleset):
    """Color Flush's hand limit and Flip Hue's cleanup keep hands within the encoding's hand cap:
    nothing is masked out."""
    cls = arena.rulesets.get(ruleset)
    for players in (2, 4):
        options = cls.resolve_options({})
        encoding = encoding_for(ruleset, players, options)
        for seed in range(3):
            state, rng = cls.new_game(players, options, random.Random(seed)), random.Random(seed)
            while (seat := state.current_seat()) is not None:
                assert all(action in encoding.index for action in state.legal_actions())
                assert max(len(hand) for hand in state.view(seat)["hands"]) <= encoding.hand_cap
                state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_encode_into_a_fresh_zero_array_gives_what_encode_gives(ruleset):
    game = env(ruleset, players=3)
    game.reset(seed=5)
    raw = game.unwrapped
    encoding = raw.encoding
    rng = np.random.default_rng(5)
    for _ in range(40):
        if raw.game.current_seat() is None:
            break
        for seat in range(3):
            view = raw.game.view(seat)
            into = np.zeros(encoding.size + 3, dtype=np.float32)  # entries past the encoding are left alone
            encoding.encode_into(into, seat, view)
            assert np.array_equal(into[:encoding.size], encoding.encode({"seat": seat, "view": view}))
            assert not into[encoding.size:].any()
        observation, *_ = game.last()
        game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def test_places_gives_the_entry_one_hot_sets_and_none_for_a_value_that_is_no_choice():
    from arena.rules.encoding import one_hot, places

    choices = ("play", "drawn", None, "play")
    table = places(7, choices)
    for value in ("play", "drawn", None, "over", 1):
        out = np.zeros(12, dtype=np.float32)
        one_hot(out, 7, value, choices)
        assert list(np.flatnonzero(out)) == ([table[value]] if value in table else [])
    assert "over" not in table


def test_the_wrapper_still_refuses_step_and_agent_iter_before_reset_and_an_iteration_without_a_step():
    game = env("flip-7", players=2)
    with pytest.raises(AssertionError, match="before step"):
        game.step(0)
    with pytest.raises(AssertionError, match="before agent_iter"):
        game.agent_iter()
    game.reset(seed=1)
    agents = iter(game.agent_iter())
    assert next(agents) == game.agent_selection
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)
    assert list(game.agent_iter(max_iter=0)) == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_raw_observation_on_request_is_the_one_raw_observations_puts_in_infos(ruleset):
    """Read at some decisions only, it still holds the seat's events since its previous decision."""
    eager, lazy = env(ruleset, players=3, raw_observations=True), env(ruleset, players=3)
    eager.reset(seed=5)
    lazy.reset(seed=5)
    rng, asked_at = np.random.default_rng(5), []
    for step in range(120):
        observation, _, termination, truncation, info = eager.last()
        if termination or truncation:
            break
        assert "observation" not in lazy.last()[4]
        if step % 3 == 1:
            asked = lazy.unwrapped.raw_observation
            assert asked == info["observation"] and asked is lazy.unwrapped.raw_observation
            asked_at.append(step)
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        eager.step(action)
        lazy.step(action)
    assert len(asked_at) >= 5


def test_the_step_builds_no_view_and_no_raw_observation_unless_asked(monkeypatch):
    import arena.envs.pettingzoo as module

    built = []
    monkeypatch.setattr(module, "make_observation", lambda *args, **kwargs: built.append(args) or {})
    for ruleset in RULESETS:
        game = env(ruleset, players=2)
        game.unwrapped.encoding._fill = None   # the view's fill: a call would fail
        game.reset(seed=1)
        for _ in range(30):
            observation, _, termination, truncation, _ = game.last()
            game.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
        assert built == []
        game.unwrapped.raw_observation
        assert len(built) == 1
        built.clear()
