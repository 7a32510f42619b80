"""Luck corrections: the part of a game's result that the draw decided, measured and taken out.

For a ruleset that declares `pairwise_value` and `permute_unrevealed` (see
`Ruleset.capabilities`), `game_corrections` replays a game record and, for every ordered
pair of seats (a, b), sums the *chance corrections* of its chance events (docs/luck.md):

- the opening deal: ``V(initial) - mean of V over k initial states dealt from derived
  seeds``;
- each action that changed the unrevealed cards or drew from the game's chance: ``V after
  the real action - the mean of V after the same action on clones of the state before
  it``, each clone with its unrevealed cards reordered and a fresh engine rng, both from
  ``derive_seed(deal_seed, "luck", decision, i)`` (never the game's own stream);
- any other action: exactly 0.

Where the ruleset's unrevealed cards are exactly its draw pile (`Ruleset.unrevealed_is_draw_pile`),
the clones are stratified on the next card drawn: one clone per distinct card, weighted by
its chance (`draw_outcomes`), the rest of the pile reordered; elsewhere `k` clones are
sampled. Given everything the seats know and the action, the real outcome is distributed
as a clone's, so each correction has mean zero whatever the bots do, and

    adjusted comparison of (a, b) = raw comparison (1, 1/2, 0) - summed corrections[a][b]

estimates the same paired score with less of the draw's variance. The statistics stay in
`arena.pairwise`; this module only makes the per-game numbers. Floats are summed in a
fixed order, so a replay recomputes them bit for bit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from arena.errors import ConfigError
from arena.pairwise import ASYMPTOTIC, ASYMPTOTIC_T_STAR
from arena.rules.base import GameState, Ruleset
from arena.rules.chance import Chance
from arena.seeding import derive_seed

DEFAULT_CLONES = 16
"""k, the clones per corrected action where outcomes are sampled (and the initial deals
compared with the real one). The clone noise falls as 1/k; past about 16 the value's own
error dominates (docs/luck.md), and the cost grows as k."""

@dataclass(frozen=True)
class LuckMethod:
    """How corrections are made, as a plan records it: the value's identity and version
    (`VALUE_ID`, `VALUE_VERSION` of the game's value module) and k."""

    value_id: str
    value_version: str
    clones: int = DEFAULT_CLONES

    def record(self) -> dict[str, Any]:
        """As a plan records it, with the interval family adjusted scores are judged by
        (they have no usable bound: `arena.pairwise.ASYMPTOTIC`) and its tuning."""
        return {"value": self.value_id, "version": self.value_version, "clones": self.clones,
                "intervals": ASYMPTOTIC, "t_star": ASYMPTOTIC_T_STAR}


def supports_luck(ruleset: type[Ruleset]) -> bool:
    """Whether corrections can be made for `ruleset` (it declares both capabilities)."""
    return ruleset.supports("pairwise_value") and ruleset.supports("permute_unrevealed")


def method_for(ruleset: type[Ruleset], clones: int = DEFAULT_CLONES) -> LuckMethod:
    """The method `ruleset`'s corrections are made with (ConfigError if it declares no value)."""
    if not supports_luck(ruleset):
        raise ConfigError(f"ruleset {ruleset.id!r} declares no pairwise_value and permute_unrevealed: "
                          f"its scores cannot be luck-adjusted (use luck = \"raw\")")
    identity = ruleset.pairwise_value_identity
    assert identity is not None   # required with pairwise_value (Ruleset.__init_subclass__)
    return LuckMethod(identity[0], identity[1], clones)


def _pile(state: GameState) -> tuple[list[Any], Callable[[Any], str]]:
    """The state's draw pile and card names (a state with `draw_outcomes` has one)."""
    found = state.chance_pile()
    assert found is not None
    return found


def _value(ruleset: type[Ruleset]) -> Callable[[GameState], list[list[float]]]:
    """The ruleset's declared `pairwise_value` (a capability: not on `Ruleset` itself)."""
    return getattr(ruleset, "pairwise_value")


def _permute(ruleset: type[Ruleset]) -> Callable[[GameState, random.Random], None]:
    """The ruleset's declared `permute_unrevealed`."""
    return getattr(ruleset, "permute_unrevealed")


def _pile_fingerprint(state: GameState) -> tuple[Any, ...]:
    """What changes when an action draws or reorders: the chance count and the pile's cards."""
    found = state.chance_pile()
    if found is None:
        return (state.chance.points,)
    pile, name = found
    return (state.chance.points, len(pile), [name(card) for card in pile])


def _clone_for(ruleset: type[Ruleset], state: GameState, rng: random.Random) -> GameState:
    """A copy of `state` with its unrevealed cards reordered and a fresh chance, both from `rng`."""
    twin = state.clone()
    _permute(ruleset)(twin, rng)
    chance = Chance(rng)
    chance.points = state.chance.points
    twin.chance = chance
    return twin


def _without_stream(state: GameState) -> GameState:
    """A clone of `state` whose chance holds no stream (an unseeded `Chance`, its count
    kept): every clone made from it either draws nothing from its chance or is given a
    fresh one, and copying a Mersenne Twister's state for each clone would cost more than
    the clone."""
    twin = state.clone()
    chance = Chance(0)
    chance.points = state.chance.points
    twin.chance = chance
    return twin


def _mean(matrices: Sequence[list[list[float]]], weights: Sequence[float] | None = None) -> list[list[float]]:
    """The (weighted) mean matrix; exactly the common one when all are equal (an action
    whose outcome chance did not touch is then corrected by exactly 0)."""
    if all(matrix == matrices[0] for matrix in matrices):
        return [row[:] for row in matrices[0]]
    n = len(matrices[0])
    if weights is None:
        weights = [1.0 / len(matrices)] * len(matrices)
    mean = [[0.0] * n for _ in range(n)]
    for matrix, weight in zip(matrices, weights):
        for a in range(n):
            row, out = matrix[a], mean[a]
            for b in range(n):
                out[b] += weight * row[b]
    return mean


def _stratified(ruleset: type[Ruleset], before: GameState, action: str, deal_seed: int,
                decision: int) -> list[list[float]] | None:
    """The expected value after `action`, one clone per distinct next card weighted by its
    chance; None when the pile is empty (the caller samples instead).

    The rest of the pile is reordered lazily: a clone whose action drew only that card
    (no other card left the pile, no other chance point) ends exactly as a reordered one
    would, since what happens after a draw depends on the card drawn and nothing unrevealed,
    and the value reads nothing unrevealed. Only the others are replayed reordered."""
    outcomes = before.draw_outcomes()
    if not outcomes:
        return None
    size, points = len(_pile(before)[0]), before.chance.points
    values, weights = [], []
    for index, (name, probability) in enumerate(outcomes):
        twin = before.clone()
        twin.lay_on_top(name)
        twin.apply(action)
        if len(_pile(twin)[0]) != size - 1 or twin.chance.points != points:
            rng = random.Random(derive_seed(deal_seed, "luck", decision, index))
            twin = before.clone()
            _permute(ruleset)(twin, rng)
            pile, card_name = _pile(twin)
            places = [i for i, card in enumerate(pile) if card_name(card) == name]
            place = places[rng.randrange(len(places))]   # a uniform copy: the rest stays uniform
            pile[place], pile[-1] = pile[-1], pile[place]
            chance = Chance(rng)
            chance.points = points
            twin.chance = chance
            twin.apply(action)
        values.append(_value(ruleset)(twin))
        weights.append(probability)
    return _mean(values, weights)


def _sampled(ruleset: type[Ruleset], before: GameState, action: str, deal_seed: int, decision: int,
             clones: int) -> list[list[float]]:
    values = []
    for i in range(clones):
        twin = _clone_for(ruleset, before, random.Random(derive_seed(deal_seed, "luck", decision, i)))
        twin.apply(action)
        values.append(_value(ruleset)(twin))
    return _mean(values)


def deal_correction(ruleset: type[Ruleset], players: int, options: Mapping[str, Any], deal_seed: int,
                    state: GameState, clones: int = DEFAULT_CLONES) -> list[list[float]]:
    """V of the dealt `state` minus the mean V over `clones` deals from derived seeds."""
    others = [_value(ruleset)(ruleset.new_game(players, options,
                                                       random.Random(derive_seed(deal_seed, "luck", "deal", i))))
              for i in range(clones)]
    total = [[0.0] * players for _ in range(players)]
    _add_difference(total, _value(ruleset)(state), _mean(others))
    return total


def _add_difference(total: list[list[float]], real: list[list[float]], expected: list[list[float]]) -> None:
    """``total += real - expected`` over the pairs a < b, mirrored (``total[b][a] = -total[a][b]``):
    corrections are antisymmetric by construction, their diagonal exactly 0."""
    n = len(total)
    for a in range(n):
        for b in range(a + 1, n):
            difference = real[a][b] - expected[a][b]
            total[a][b] += difference
            total[b][a] -= difference


@dataclass
class GameLuck:
    """One game's corrections: per ordered seat pair the summed correction, the decisions
    (indices) whose actions were corrected (the others' corrections were exactly 0), and the
    number of actions."""

    corrections: list[list[float]]
    decisions: list[int]
    actions: int

    @property
    def corrected(self) -> int:
        return len(self.decisions)


def game_corrections(ruleset: type[Ruleset], record: Mapping[str, Any],
                     clones: int = DEFAULT_CLONES) -> GameLuck:
    """Replay `record` (a game record of `ruleset`) and sum its chance corrections."""
    if not supports_luck(ruleset):
        raise ConfigError(f"ruleset {ruleset.id!r} declares no pairwise_value and permute_unrevealed")
    players = record["players"]
    options = record["ruleset"]["options"]
    deal_seed = record["deal_seed"]
    state = ruleset.new_game(players, options, random.Random(deal_seed))
    total = deal_correction(ruleset, players, options, deal_seed, state, clones)
    stratify = ruleset.unrevealed_is_draw_pile
    corrected: list[int] = []
    for decision, (_, action) in enumerate(record["decisions"]):
        before = _without_stream(state)
        fingerprint = _pile_fingerprint(state)
        state.apply(action)
        if _pile_fingerprint(state) == fingerprint:
            continue   # nothing unrevealed moved and nothing was drawn: the correction is 0
        corrected.append(decision)
        expected = _stratified(ruleset, before, action, deal_seed, decision) if stratify else None
        if expected is None:
            expected = _sampled(ruleset, before, action, deal_seed, decision, clones)
        _add_difference(total, _value(ruleset)(state), expected)
    return GameLuck(total, corrected, len(record["decisions"]))


def adjusted_comparisons(record: Mapping[str, Any], corrections: Sequence[Sequence[float]]) -> list[list[float]]:
    """Per ordered seat pair (a, b): the raw comparison (1 a ahead, 1/2 tied, 0 behind, from
    the record's standing) minus the summed correction; the diagonal 1/2."""
    standing = record["outcome"]["standing"]
    n = len(standing)
    result = [[0.5] * n for _ in range(n)]
    for a in range(n):
        for b in range(n):
            if a != b:
                raw = 1.0 if standing[a] < standing[b] else 0.5 if standing[a] == standing[b] else 0.0
                result[a][b] = raw - corrections[a][b]
    return result


# -- adjusted paired scores ----------------------------------------------------------------------


class AdjustedTally:
    """`arena.pairwise.PairTally` for luck-adjusted scores: per ordered pair of entries, per
    deal, the mean over the deal's games of the pair's adjusted comparison
    (`adjusted_comparisons`). Sums are kept per deal in the order games are added, so a
    caller adds them in schedule order (as every reader of a store does)."""

    def __init__(self) -> None:
        self._tally: dict[tuple[Any, Any], dict[Any, list[float]]] = {}

    def add(self, deal: Any, entries: Sequence[Any], standing: Sequence[int],
            corrections: Sequence[Sequence[float]]) -> None:
        """Count one game of deal `deal`: its entries and standing by seat, its corrections."""
        n = len(entries)
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                raw = 1.0 if standing[i] < standing[j] else 0.5 if standing[i] == standing[j] else 0.0
                cell = self._tally.setdefault((entries[i], entries[j]), {}).setdefault(deal, [0.0, 0])
                cell[0] += raw - corrections[i][j]
                cell[1] += 1

    def scores(self) -> dict[tuple[Any, Any], tuple[Any, ...]]:
        """Per ordered pair, its `DealScore`s by deal key (scores may lie outside [0, 1])."""
        from arena.pairwise import DealScore

        tally = self._tally
        return {pair: tuple(DealScore(deal, tally[pair][deal][0] / tally[pair][deal][1], int(tally[pair][deal][1]))
                            for deal in sorted(tally[pair]))
                for pair in sorted(tally)}


def planned_t_star(plan: Mapping[str, Any], ruleset: int) -> int:
    """The deals at which ruleset entry `ruleset`'s asymptotic confidence sequence is
    tightest, as its plan records it (`arena.pairwise.ASYMPTOTIC_T_STAR` if none)."""
    method = planned_method(plan, ruleset)
    return int(method.get("t_star", ASYMPTOTIC_T_STAR)) if method else ASYMPTOTIC_T_STAR


def planned_luck_mode(plan: Mapping[str, Any]) -> str:
    """The `luck` mode a store's plan records ("raw" for a plan made before the key)."""
    luck = plan.get("luck")
    return luck.get("mode", "raw") if isinstance(luck, dict) else "raw"


def planned_clones(plan: Mapping[str, Any]) -> tuple[int | None, ...]:
    """Per ruleset entry of `plan`: k for its luck corrections, or None (raw): what the
    workers of a run on that store make, whatever the file now says by default."""
    methods = [planned_method(plan, r) for r in range(len(plan["rulesets"]))]
    return tuple(None if method is None else int(method["clones"]) for method in methods)


def planned_method(plan: Mapping[str, Any], ruleset: int) -> dict[str, Any] | None:
    """The luck method a store's plan records for ruleset entry `ruleset` (None: raw, as in
    every plan made before the `luck` key)."""
    luck = plan.get("luck")
    if not isinstance(luck, dict) or luck.get("mode") != "adjusted":
        return None
    methods = luck.get("rulesets") or []
    return methods[ruleset] if ruleset < len(methods) else None


def check_planned_method(plan: Mapping[str, Any], ruleset: int, cls: type[Ruleset]) -> dict[str, Any] | None:
    """`planned_method`, checked against the installed `cls`: ConfigError (one line) if the
    plan's corrections were made with another value or version than `cls` declares."""
    method = planned_method(plan, ruleset)
    if method is None:
        return None
    identity = cls.pairwise_value_identity if supports_luck(cls) else None
    if identity is None or (method.get("value"), method.get("version")) != tuple(identity):
        label = plan["rulesets"][ruleset].get("label", cls.id)
        now = "none" if identity is None else f"{identity[0]} {identity[1]}"
        raise ConfigError(f"{label}: its luck corrections were made with the value {method.get('value')} "
                          f"{method.get('version')}, and {cls.id} now declares {now} (rank with the version "
                          f"that played it, or rerun)")
    return method
