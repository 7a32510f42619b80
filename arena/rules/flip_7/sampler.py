"""Flip 7: the determinization sampler (`sample_state`): a full state consistent with
one seat's observation, for search bots."""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.rules.chance import shuffle
from arena.rules.flip_7.engine import (F_DEAL, F_FLIP_THREE, F_HAND_OUT, HIT_STAY, STATUS_NAMES,
                                       Flip7State)


# -- determinization -------------------------------------------------------------------


def sample_flip7_state(observation: Mapping[str, Any], rng: random.Random,
                       events: list[dict[str, Any]] | None = None) -> Flip7State:
    """`Flip7.sample_state`: the state described by `observation`, with the deck's order
    drawn from `rng`; a full, playable state that a search bot can play forward. `events`
    are not needed (everything but the deck's order is public).

    Everything on a Flip 7 table is public; the view lists the deck's composition
    (`unseen`), so only the ORDER of the deck is hidden. The sampler
    rebuilds the round from the view (rows with their status, the set-aside pile, totals,
    the dealer, the pending frames of the resolution stack, the decision being asked) and
    deals the unseen cards into a deck in uniformly random order. Hidden engine details are
    derived exactly from the view:
      - the F_DEAL frame's order is always the seats from the dealer's left round to the
        dealer, so its next index is ``players - len(next)``;
      - a decision in phase "play" (a card to give) was set off by a hit, so the hit-or-stay
        turn passes on after it is resolved (`_after_hit`); during the deal it does not.
    The returned state's rng is seeded from `rng` (one draw), so reshuffles in the sampled
    future differ per sample and a search is deterministic given its own rng.
    """
    view = observation["view"]
    players = observation["players"]
    options = observation["options"]
    if view["phase"] == "over" or view["turn"] is None:
        raise ValueError("sample_state: the observation is of a finished game")
    state = Flip7State(players, options, rng.getrandbits(64), fresh=False)   # seeded at its first draw
    state.target_score = state.options["target_score"]
    state.max_rounds = state.options["max_rounds"]
    state.totals = list(view["totals"])
    state.dealer = view["dealer"]
    state.round = view["round"]
    state.rounds_played = state.round - 1
    state.over = False
    state.reason = ""
    state._clear_round()
    state.set_aside = [card for card, count in view["set_aside"].items() for _ in range(count)]
    deck = [card for card, count in view["unseen"].items() for _ in range(count)]
    shuffle(deck, rng)
    state.deck = deck
    _set_rows(state, view["rows"])
    _set_pending(state, view["pending"], players)
    state.turn_seat = view["turn_seat"]
    decision = view["decision"]
    if decision != HIT_STAY:
        state.decision = (decision, view["turn"], decision)
        state._after_hit = view["phase"] == "play"
    return state


def _set_rows(state: Flip7State, rows: list[Any]) -> None:
    """Every seat's row of the view (its cards, Second Chance and status) into `state`."""
    status_of = {name: code for code, name in enumerate(STATUS_NAMES)}
    for seat, row in enumerate(rows):
        numbers = list(row["numbers"])
        state.numbers[seat] = numbers
        mask = 0
        for value in numbers:
            mask |= 1 << value
        state.masks[seat] = mask
        state.modifiers[seat] = list(row["modifiers"])
        state.actions[seat] = list(row["actions"])
        state.second_chance[seat] = bool(row["second_chance"])
        state.status[seat] = status_of[row["status"]]


def _set_pending(state: Flip7State, pending: list[Any], players: int) -> None:
    """The view's pending frames as the engine's resolution stack (see `sample_flip7_state`)."""
    stack = state.stack
    for frame in pending:
        kind = frame["kind"]
        if kind == "deal":
            order = [(state.dealer + i) % players for i in range(1, players + 1)]
            stack.append([F_DEAL, order, players - len(frame["next"])])
        elif kind == "flip-three":
            stack.append([F_FLIP_THREE, frame["target"], frame["cards_left"], list(frame["set_aside"])])
        else:
            stack.append([F_HAND_OUT, frame["seat"], list(frame["cards"])])
