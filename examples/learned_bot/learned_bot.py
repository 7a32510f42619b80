"""`learned-linear`: a bot whose play is a learned linear scorer over the legal actions.

At every decision it describes each legal action by a short vector of features of the
observation and that action (`uno_flip_features`, `color_flush_features`, `flip7_features`:
what the action plays, what it leaves in hand, what the opponent is known to hold, where the
race to the target stands...), scores each by the dot product with the ruleset's learned
weights (``weights.json`` beside this file, a few dozen numbers per ruleset) and plays the
best; the bot's `rng` only breaks exact ties. One feature is the ruleset's best heuristic's
own score of the action (Flip 7: `flip7-expectimax`'s advantage of a hit); the weights come from
`examples/train_learned_bot.py`: evolution strategies on the score against that heuristic,
starting from `STARTING_WEIGHTS` (the heuristic written as weights). Inference is numpy
only, so the bot runs in the default sandbox (`use = "./learned_bot/learned_bot.py:LearnedBot"`
in a tournament file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np

import arena
from arena_bots.color_flush_play import (CERTAIN_WIN, WHITE, back_odds, certain_score, distance, settle,
                                         swap_score, take_wins, threat, uncertain_score, wins_without_each)
from arena_bots.uno_flip_heuristic import _pairings, reading_of
from arena_bots.uno_flip_play import face_points, flip_gain, score_play, split_face
from arena.rules.uno_flip.deck import COLORS as UNO_COLORS

WEIGHTS = Path(__file__).with_name("weights.json")

# -- UNO Flip ----------------------------------------------------------------------------

UNO_FEATURES = (
    "play", "draw", "keep", "going_out", "points", "number", "draw_card", "skip_or_reverse",
    "skip_everyone", "flip", "wild", "wild_draw_honest", "wild_draw_bluff", "attack_when_next_close",
    "same_color_left", "flip_gain", "follow_ups_when_again", "next_known_can_answer",
    "own_playable_after", "named_color_held", "named_color_points", "named_color_next_holds",
    "challenge", "challenge_bluff_chance", "points_when_next_short", "draw_while_playable",
    "changes_color", "heuristic_score", "wild_hold", "named_color_heuristic",
)
_U = {name: i for i, name in enumerate(UNO_FEATURES)}
WILDS = ("wild", "wild-draw-two", "wild-draw-color")
ATTACKS = ("draw-one", "draw-five", "skip", "reverse", "skip-everyone")


def _matches(face: str, color: str | None, value: str | None) -> bool:
    """Whether `face` may be played on a discard of `color` / `value` (a Flip only on its
    color or a Flip, as any colored card)."""
    if face in WILDS:
        return True
    c, v = split_face(face)
    return c == color or v == value


def _parse_play(action: str, hand_size: int) -> tuple[int, str | None]:
    """(hand position, named color or None) of a ``play:..`` / ``play-drawn..`` action."""
    parts = [p for p in action.split(":") if p != "uno"]
    if parts[0] == "play-drawn":
        return hand_size - 1, (parts[1] if len(parts) > 1 else None)
    return int(parts[1]), (parts[2] if len(parts) > 2 else None)


def _color_values(color: str, rest: list[str], next_known: list[str]) -> tuple[float, float, float, float]:
    held = [f for f in rest if split_face(f)[0] == color]
    count, points = len(held), sum(face_points(f) for f in held)
    holds = sum(1 for f in next_known if split_face(f)[0] == color)
    # the heuristic's color score (bots/uno_flip_play.py `best_color`), in units of 50
    return count / 5.0, points / 50.0, holds / 3.0, (10.0 * count + 0.1 * points - 6.0 * holds) / 50.0


def _color_features(x: list[float], color: str, rest: list[str], next_known: list[str], side: int) -> None:
    """The named color's features, less their mean over the side's colors (so naming a
    color adds nothing on average to a Wild's score against other plays)."""
    values = np.array([_color_values(c, rest, next_known) for c in UNO_COLORS[side]])
    named = np.array(_color_values(color, rest, next_known)) - values.mean(axis=0)
    for name, value in zip(("named_color_held", "named_color_points", "named_color_next_holds",
                            "named_color_heuristic"), named):
        x[_U[name]] = float(value)


class _UnoContext:
    """What every action's features read of one UNO Flip decision."""

    def __init__(self, observation: dict[str, Any], cache: dict[str, Any]):
        view, seat = observation["view"], observation["seat"]
        self.view, self.seat = view, seat
        self.reading = reading_of(view, seat)
        self.hand = self.reading.hand
        players = len(view["hands"])
        self.two = players == 2
        self.next = (seat + view["direction"]) % players
        self.next_size = len(view["hands"][self.next])
        self.next_known = [c["face"] for c in view["hands"][self.next] if c["face"] is not None]
        top = (view.get("discard") or {}).get("top") or {}
        self.top_value = split_face(top["up"])[1] if top.get("up") else None
        self.color = view["color"]
        self.cache = cache
        self.options = observation.get("options") or {}
        self.side = self.reading.side
        sizes = self.reading.sizes
        self.threat = min(sizes[s] for s in range(players) if s != seat)
        self.held_colors: dict[str | None, int] = {}
        for face in self.hand:
            c = split_face(face)[0]
            self.held_colors[c] = self.held_colors.get(c, 0) + 1


def _play_features(ctx: _UnoContext, action: str) -> list[float]:
    x = [0.0] * len(UNO_FEATURES)
    pos, named = _parse_play(action, len(ctx.hand))
    face = ctx.hand[pos]
    rest = ctx.hand[:pos] + ctx.hand[pos + 1:]
    color, value = split_face(face)
    x[_U["play"]] = 1.0
    x[_U["going_out"]] = float(not rest)
    x[_U["points"]] = face_points(face) / 20.0
    x[_U["points_when_next_short"]] = x[_U["points"]] * float(ctx.next_size <= 3)
    honest = not any(f == "wild" or split_face(f)[0] == ctx.color for f in rest)
    kind = ("number" if value.isdigit() else "draw_card" if value in ("draw-one", "draw-five")
            else "skip_or_reverse" if value in ("skip", "reverse") else value.replace("-", "_")
            if value in ("skip-everyone", "flip", "wild") else
            "wild_draw_honest" if honest else "wild_draw_bluff")
    x[_U[kind]] = 1.0
    heuristic = score_play(ctx.reading, pos, ctx.next_size <= 2, ctx.held_colors)
    x[_U["heuristic_score"]] = -2.0 if heuristic is None else heuristic / 50.0
    x[_U["wild_hold"]] = float(value == "wild" and len(ctx.hand) > 3 and ctx.threat > 2)
    attack = value in ATTACKS or kind == "wild_draw_honest"
    x[_U["attack_when_next_close"]] = float(attack and ctx.next_size <= 2)
    if color is not None:
        x[_U["same_color_left"]] = sum(1 for f in rest if split_face(f)[0] == color) / 5.0
        x[_U["changes_color"]] = float(color != ctx.color)
    if value == "flip":
        x[_U["flip_gain"]] = flip_gain(ctx.reading, rest) / 30.0
        return x
    new_color = named or color
    own = sum(1 for f in rest if _matches(f, new_color, value)) / 5.0
    x[_U["own_playable_after"]] = own
    again = ctx.two and (value in ATTACKS or value in ("wild-draw-two", "wild-draw-color"))
    if again:
        x[_U["follow_ups_when_again"]] = own
    else:
        x[_U["next_known_can_answer"]] = sum(1 for f in ctx.next_known if _matches(f, new_color, value)) / 3.0
    if named is not None:
        _color_features(x, named, rest, ctx.next_known, ctx.side)
    return x


def _bluff_chance(ctx: _UnoContext) -> float:
    """The chance that the pending Wild Draw is a bluff (the heuristic's reading of the
    offender's faces and of the backs' pairing in the deck)."""
    from arena_bots.uno_flip_heuristic import UnoFlipHeuristicBot
    from arena.rules.uno_flip import DEFAULT_DECK

    if "pairs" not in ctx.cache:
        ctx.cache["pairs"] = _pairings(ctx.options.get("deck") or DEFAULT_DECK)
    return float(UnoFlipHeuristicBot._bluff_likely(None, ctx.view, ctx.cache["pairs"]))  # type: ignore[arg-type]


def uno_flip_features(observation: dict[str, Any], cache: dict[str, Any]) -> np.ndarray:
    """One row per legal action (``UNO_FEATURES``); `cache`: per game."""
    ctx = _UnoContext(observation, cache)
    legal = observation["legal_actions"]
    playable = sum(1 for a in legal if a.startswith("play")) / 3.0
    rows = []
    for action in legal:
        x = [0.0] * len(UNO_FEATURES)
        if action.startswith("play"):
            x = _play_features(ctx, action)
        elif action == "draw":
            x[_U["draw"]] = 1.0
            x[_U["draw_while_playable"]] = playable
        elif action == "keep":
            x[_U["keep"]] = 1.0
        elif action == "challenge":
            x[_U["challenge"]] = 1.0
            x[_U["challenge_bluff_chance"]] = _bluff_chance(ctx)
        elif action.startswith("color:"):
            _color_features(x, action[6:], ctx.hand, ctx.next_known, ctx.side)
        rows.append(x)
    return np.array(rows)


def uno_flip_candidates(legal: list[str]) -> list[str]:
    """The actions the policy chooses among: a play that may call UNO always calls it."""
    calls = {a[:-4] for a in legal if a.endswith(":uno")}
    return [a for a in legal if a not in calls]


# -- Color Flush -------------------------------------------------------------------------

CF_FEATURES = (
    "heuristic_cost", "wins_now", "flip", "take", "give", "place", "swap", "no_swap",
    "opponent_gain", "flip_unknown_back", "take_pile", "place_white",
)
_C = {name: i for i, name in enumerate(CF_FEATURES)}


def _cf_kind(action: str) -> str:
    kind = action.split(":")[0]
    return kind.replace("-", "_")


def _cf_row(action: str, hands: list, me: int, opp: dict, players: int, pile_card: Any, odds: Any,
            swapping: bool, certain: tuple) -> list[float]:
    """One Color Flush action's features: the heuristic's cost of it (its own distance after
    plus what it gives an opponent; bots/color_flush_play.py), a certain win, its kind, and
    parts of the cost on their own."""
    x = [0.0] * len(CF_FEATURES)
    kind = _cf_kind(action)
    x[_C[kind]] = 1.0
    if swapping:
        cost = distance(hands[me]) if action == "no-swap" else \
            swap_score(hands[me], hands[int(action.split(":")[1])], opp[int(action.split(":")[1])])
    else:
        cost = certain_score(action, hands, me, pile_card, *certain)
        if cost is not None and cost <= CERTAIN_WIN:
            x[_C["wins_now"]] = 1.0
        if cost is None:
            cost = uncertain_score(action, hands, me, opp, players, pile_card, odds)
    parts = action.split(":")
    if kind == "flip":
        x[_C["flip_unknown_back"]] = float(hands[me][int(parts[1])][1] is None)
    elif kind == "take":
        x[_C["take_pile"]] = float(parts[1] == "pile")
    elif kind == "place":
        x[_C["place_white"]] = float(hands[me][int(parts[1])][0] == WHITE)
    if kind in ("take", "give") and parts[1] != "pile":
        x[_C["opponent_gain"]] = min(cost - _own_after(action, hands, me), 10.0)
    x[_C["heuristic_cost"]] = min(cost, 100.0)
    return x


def _own_after(action: str, hands: list, me: int) -> float:
    """Our own distance after a take from a player or a give (the rest of the cost is the
    opponent's gain)."""
    parts = action.split(":")
    mine = hands[me]
    if parts[0] == "take":
        face, back = hands[int(parts[1])][int(parts[2])]
        return distance(settle(mine + [(back, face)]))
    pos = int(parts[1])
    return distance(mine[:pos] + mine[pos + 1:])


def color_flush_features(observation: dict[str, Any], cache: dict[str, Any]) -> np.ndarray:
    """One row per legal action (``CF_FEATURES``); `cache`: per game (the deck's back odds)."""
    if "odds" not in cache:
        cache["odds"] = back_odds(observation["options"]["deck"])
    view, me, players = observation["view"], observation["seat"], observation["players"]
    hands = [[(c["face"], c["back"]) for c in hand] for hand in view["hands"]]
    top = view["draw_pile"]["top"]
    pile_card = None if top is None else (top["up"], top["down"])
    opp = {s: threat(hands[s]) for s in range(players) if s != me}
    certain = (wins_without_each(hands[me]), take_wins(hands[me]))
    swapping = view["awaiting"] == "swap"
    return np.array([_cf_row(a, hands, me, opp, players, pile_card, cache["odds"], swapping, certain)
                     for a in observation["legal_actions"]])


# -- Flip 7 ------------------------------------------------------------------------------

FLIP7_FEATURES = (
    "hit", "advantage", "stay_loses", "stay_wins", "stay_ties", "opponent_may_end", "behind", "ahead",
    "bust_chance", "behind_when_opponent_close", "ahead_times_bust", "row_score", "opponent_row",
    "opponent_out", "second_chance", "heuristic_aim",
)
_F = {name: i for i, name in enumerate(FLIP7_FEATURES)}
# the features that are nonzero only where the race to the target decides (a stay settles the
# game, or the opponent can end it ahead): the shipped Flip 7 weights train only these
# (`train --free`), so elsewhere the bot plays as flip7-expectimax does
FLIP7_RACE_FEATURES = ("stay_loses", "stay_wins", "stay_ties", "opponent_may_end")
# what a race outcome a stay settles counts for: about the largest advantage of a hit, in
# rounds, so that a small step of its weight can already overrule the heuristic there
CERTAIN = 5.0


def _rounds_advantage(view: dict[str, Any], me: int) -> float:
    """`flip7-expectimax`'s value of hitting less that of staying, in expected rounds to the
    target, as it searches: one card ahead, two when one does not beat staying (so it hits
    exactly when this is positive)."""
    from arena_bots.flip7_expectimax import (BONUS, FRESH_DECK_ROUNDS_TO_200, T_MOD, _Search, draw_pool,
                                             fresh_deck_rounds_to_go, rounds_to_go)

    row, target, total = view["rows"][me], view["target_score"], view["totals"][me]
    v = fresh_deck_rounds_to_go(target) if target <= len(FRESH_DECK_ROUNDS_TO_200) else rounds_to_go(target)
    pool, size = draw_pool(view)
    if size == 0:
        return -1.0
    mask = sum(1 << n for n in set(row["numbers"]))
    x2 = "x2" in row["modifiers"]
    bonus = sum(BONUS[T_MOD[card]] for card in row["modifiers"] if card != "x2")
    search = _Search(v, total, pool, size)
    count, nsum, chance = len(row["numbers"]), row["number_sum"], row["second_chance"]
    stay = search.stop(nsum, bonus, x2, count)
    one = search.hit(mask, nsum, count, bonus, x2, chance, 1) - stay
    # as the heuristic does: the deeper search only when one card does not already beat staying
    return one if one > 0 else search.hit(mask, nsum, count, bonus, x2, chance, 2) - stay


def _flip7_hit(view: dict[str, Any], me: int) -> list[float]:
    """The features of hitting (staying's are all zero): the heuristic's advantage of a hit,
    where the race stands (the leading opponent's total and row against ours) and the risk."""
    from arena_bots.flip7_threshold import _deck, _odds

    x = [0.0] * len(FLIP7_FEATURES)
    target, totals, rows = view["target_score"], view["totals"], view["rows"]
    opp = max((s for s in range(len(totals)) if s != me), key=lambda s: (totals[s] + rows[s]["score"], -s))
    row, orow = rows[me], rows[opp]
    mine, theirs = totals[me] + row["score"], totals[opp] + orow["score"]   # a bust's score is 0
    x[_F["hit"]] = 1.0
    x[_F["advantage"]] = _rounds_advantage(view, me)
    if orow["status"] != "active":
        x[_F["opponent_out"]] = 1.0
        x[_F["stay_loses"]] = CERTAIN * (theirs >= target and mine < theirs)
        x[_F["stay_wins"]] = CERTAIN * (mine >= target and mine > theirs)
        x[_F["stay_ties"]] = CERTAIN * (mine >= target and mine == theirs)
    else:
        x[_F["opponent_may_end"]] = CERTAIN * (theirs >= target and mine < theirs)
    lead = (totals[me] - totals[opp]) / target
    bust = _odds(row, *_deck(view))[0]
    x[_F["behind"]], x[_F["ahead"]], x[_F["bust_chance"]] = max(0.0, -lead), max(0.0, lead), bust
    x[_F["behind_when_opponent_close"]] = max(0.0, -lead) * totals[opp] / target
    x[_F["ahead_times_bust"]] = max(0.0, lead) * bust
    x[_F["row_score"]], x[_F["opponent_row"]] = row["score"] / 50.0, orow["score"] / 50.0
    x[_F["second_chance"]] = float(row["second_chance"])
    return x


def flip7_features(observation: dict[str, Any], cache: dict[str, Any]) -> np.ndarray:
    """One row per legal action (``FLIP7_FEATURES``). Hit or stay: the hit's features, a
    stay's all zero. Aiming a Freeze, a Flip Three or a Second Chance: only
    `heuristic_aim`, 1 for the target `flip7-expectimax` would choose (it is deterministic)."""
    view, legal = observation["view"], observation["legal_actions"]
    if view["decision"] == "hit-or-stay":
        hit = _flip7_hit(view, observation["seat"])
        return np.array([hit if action == "hit" else [0.0] * len(FLIP7_FEATURES) for action in legal])
    if "aim" not in cache:
        from arena_bots.flip7_expectimax import Flip7ExpectimaxBot

        cache["aim"] = Flip7ExpectimaxBot()
    choice = cache["aim"].act(observation)
    rows = np.zeros((len(legal), len(FLIP7_FEATURES)))
    rows[[i for i, action in enumerate(legal) if action == choice], _F["heuristic_aim"]] = 1.0
    return rows


# -- the policy --------------------------------------------------------------------------

Featurizer = Callable[[dict[str, Any], dict[str, Any]], np.ndarray]
FEATURIZERS: dict[str, tuple[tuple[str, ...], Featurizer, Callable[[list[str]], list[str]]]] = {
    "uno-flip": (UNO_FEATURES, uno_flip_features, uno_flip_candidates),
    "color-flush": (CF_FEATURES, color_flush_features, list),
    "flip-7": (FLIP7_FEATURES, flip7_features, list),
}

# Where training starts (`examples/train_learned_bot.py`): the heuristic's own play, written
# as weights over the features (its score, its order of kinds); the rest at zero.
STARTING_WEIGHTS = {
    "uno-flip": {"play": 3.0, "heuristic_score": 1.0, "wild_hold": -5.0, "named_color_heuristic": 1.0,
                 "challenge": -0.4, "challenge_bluff_chance": 1.0},
    "color-flush": {"heuristic_cost": -1.0, "wins_now": 1000.0, "flip": 200.0, "take": 100.0},
    "flip-7": {"hit": -0.001, "advantage": 1.0, "heuristic_aim": 1.0},   # hit when the heuristic would
}


def load_weights(path: Path = WEIGHTS) -> dict[str, np.ndarray]:
    """Ruleset id -> its weight vector, from ``weights.json`` (``{ruleset: {feature: weight}}``)."""
    if not path.is_file():
        return {}
    with path.open() as handle:
        data = json.load(handle)
    return {rs: np.array([table.get(name, 0.0) for name in FEATURIZERS[rs][0]])
            for rs, table in sorted(data.items()) if rs in FEATURIZERS}


def scores(ruleset: str, weights: np.ndarray, observation: dict[str, Any], cache: dict[str, Any]
           ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(candidate actions, their feature rows, their scores) for one decision."""
    _, featurize, candidates = FEATURIZERS[ruleset]
    legal = candidates(observation["legal_actions"])
    rows = featurize(dict(observation, legal_actions=legal), cache)
    return legal, rows, rows @ weights


class LearnedBot(arena.Bot):
    """Plays the legal action of highest learned score (params: `weights`, a path to
    another weights.json)."""

    name = "learned-linear"
    rulesets = tuple(sorted(FEATURIZERS))

    def __init__(self, weights: str | None = None):
        self.weights = load_weights(Path(weights) if weights else WEIGHTS)
        self.cache: dict[str, Any] = {}

    def act(self, observation: dict[str, Any]) -> str:
        legal = observation["legal_actions"]
        ruleset = observation["ruleset"]
        if len(legal) == 1 or ruleset not in self.weights:
            return legal[0] if len(legal) == 1 else self.rng.choice(legal)
        actions, _, values = scores(ruleset, self.weights[ruleset], observation, self.cache)
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return actions[int(best[0]) if len(best) == 1 else self.rng.choice(list(best))]
