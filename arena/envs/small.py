"""Small variants: the 2-player options a ruleset offers (its ``option_presets["small"]``)
under which OpenSpiel's exact methods (CFR, CFR+, best responses for `nash_conv`) run, and a
solved policy as an arena bot.

    from arena.envs.small import small_options, solve
    curve, policy = solve("flip-7", iterations=20)     # [(iterations, nash_conv, cpu s), ...]

docs/rl.md has the exploitability curves (benchmarks/bench_cfr_small.py prints them) and
the built-in bots' results against the solved policies. The variants are games of their
own: a policy solved on one says nothing exact about the default game.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Iterable

from arena.bot import Bot
from arena.envs.presets import option_preset
from arena.returns import returns
from arena.rules.observation import Observation

CHECKPOINTS = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000)
"""The iteration counts at which `solve` measures `nash_conv`."""


def small_options(ruleset: str) -> dict[str, Any]:
    """A copy of `ruleset`'s small 2-player variant (options; the rest default); KeyError
    naming the rulesets that have one."""
    return option_preset(ruleset, "small", "small variant")


def solve(ruleset: str, iterations: int, *, plus: bool = True, options: dict[str, Any] | None = None,
          seconds: float | None = None, until: float = 0.0,
          report: Callable[[int, float, float], None] | None = None) -> tuple[list[tuple[int, float, float]], Any]:
    """Run CFR+ (or CFR, `plus=False`) on the 2-player game of `ruleset` with `options`
    (default: its small variant) for `iterations`, measuring `nash_conv` of the average
    policy at each of `CHECKPOINTS` and at the last iteration. Stops early once `seconds`
    of CPU time have passed or `nash_conv` is at most `until`. Returns the curve
    ``[(iterations, nash_conv, cpu seconds of the solver so far), ...]`` and the average
    policy (an OpenSpiel `TabularPolicy`). `report` is called with each point."""
    from open_spiel.python.algorithms import cfr, exploitability

    from arena.envs.openspiel import load_game

    game = load_game(ruleset, 2, **(small_options(ruleset) if options is None else options))
    spent = 0.0   # CPU seconds of the solver alone (the measurements excluded)
    start = time.process_time()
    solver = cfr.CFRPlusSolver(game) if plus else cfr.CFRSolver(game)
    spent += time.process_time() - start
    curve: list[tuple[int, float, float]] = []
    for done in range(1, iterations + 1):
        start = time.process_time()
        solver.evaluate_and_update_policy()
        spent += time.process_time() - start
        if done in CHECKPOINTS or done == iterations:
            value = float(exploitability.nash_conv(game, solver.average_policy()))
            curve.append((done, value, spent))
            if report:
                report(done, value, spent)
            if value <= until or (seconds is not None and spent >= seconds):
                break
    return curve, solver.average_policy()


def decision_key(seat: int, view: Any, asked: Iterable[str]) -> str:
    """`seat`'s key in a solved policy's table (`table`): its view and the actions it took
    where it had a choice (more than one legal action). A tournament asks a bot only those
    decisions, so the key is what a bot can know. A view alone may not tell information
    states apart (in Flip 7 it does not say who gave a Freeze); its choices do, on the
    small variants (`table` refuses a table where they do not)."""
    return f"p{seat} {json.dumps(view, sort_keys=True, separators=(',', ':'))} asked:{','.join(asked)}"


class PolicyBot(Bot):
    """Plays a tabular policy (`policy`: `decision_key` -> {action: probability}, as
    `table` gives it), sampling with `self.rng`, in any game of the harness: a tournament
    asks it only decisions with a choice, and a forced decision asked anyway
    (``play_game(ask_forced=True)``) is answered at once. A decision the table does not
    hold is refused (KeyError): the policy was solved for other options."""

    name = "solved-policy"
    policy: dict[str, dict[str, float]] = {}

    def start(self, info: dict[str, Any]) -> None:
        self.asked: list[str] = []

    def act(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        key = decision_key(observation["seat"], observation["view"], self.asked)
        if key not in self.policy:
            raise KeyError(f"the solved policy has no decision for this information state: {key[:200]}")
        actions = sorted(self.policy[key])  # sorted: the draw does not depend on the table's order
        weights = [self.policy[key][a] for a in actions]
        action = self.rng.choices(actions, weights)[0] if sum(weights) > 0 else self.rng.choice(actions)
        self.asked.append(action)
        return action


def table(policy: Any) -> dict[str, dict[str, float]]:
    """A `TabularPolicy` as plain data for `PolicyBot`: `decision_key` -> {action string:
    probability} over the legal actions, for every decision with a choice. ValueError if
    two information states with different probabilities share a key (the policy could not
    be played from what a bot is told)."""
    out: dict[str, dict[str, float]] = {}
    for row in sorted(policy.state_lookup.values()):
        state = policy.states[row]
        player = state.current_player()
        legal = state.legal_actions()
        if len(state.engine.legal_actions()) < 2:
            continue  # forced: never asked in a tournament, answered at once when asked
        probs = policy.action_probability_array[row]
        entry = {state.action_to_string(player, a): float(probs[a]) for a in legal}
        key = decision_key(player, state.engine.view(player), _asked(state, player))
        if out.setdefault(key, entry) != entry:
            raise ValueError(f"two information states share the decision key {key[:200]} with different "
                             "probabilities: the policy needs its forced actions too")
    return out


def _asked(state: Any, player: int) -> list[str]:
    """`player`'s actions in `state`'s history where it had a choice (the history replayed
    from the game's first state)."""
    replay = state.get_game().new_initial_state()
    asked = []
    for action in state.history():
        if replay.current_player() == player and len(replay.engine.legal_actions()) > 1:
            asked.append(replay.action_to_string(player, action))
        replay.apply_action(action)
    return asked


def head_to_head(ruleset: str, policy: dict[str, dict[str, float]], bot: str, deals: Iterable[int],
                 options: dict[str, Any] | None = None) -> list[float]:
    """`bot`'s return against `policy` on each of `deals` (deal seeds, as `arena.play`
    takes them), the mean of the deal's two games (both seat orders), with `options`
    (default: the small variant of `ruleset`); played as a tournament plays them (forced
    decisions not asked)."""
    from arena.api import entrants_for, ruleset_class
    from arena.match import play_game

    cls = ruleset_class(ruleset)
    options = small_options(ruleset) if options is None else options
    solved = policy_bot(policy)
    out = []
    for deal in deals:
        total = 0.0
        for order in ((bot, solved), (solved, bot)):
            game = play_game(cls, entrants_for(list(order), cls.id), deal_seed=deal, options=options)
            total += returns(game.record["outcome"]["standing"])[order.index(bot)]
        out.append(total / 2)
    return out


def policy_bot(policy: dict[str, dict[str, float]]) -> type[PolicyBot]:
    """A `PolicyBot` class playing `policy` (a class: the harness makes one bot per game)."""
    return type("SolvedPolicyBot", (PolicyBot,), {"policy": policy})
