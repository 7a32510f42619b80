"""The Flip 7 engine: `Flip7State`, a game in progress, and the rules' constants.

The rules page, and `Flip7` (options, setup, hints), are in `ruleset.py`; the cards in
`deck.py`. This module holds only the state and plain functions, so that it can be
compiled (mypyc) apart from the ruleset's class attributes and rules page.
"""

from __future__ import annotations

import random
from typing import Any, Iterable, Mapping

from arena.rules.base import standing_from_scores
from arena.rules.engine_base import EngineState
from arena.rules.game_state import deep_copy_by_clone, rebuilt_state
# the cards (rules/flip_7/deck.py); every name also importable from here, as before
from arena.rules.flip_7.deck import (ACTION_CARDS, CARD_ORDER, MODIFIERS, NUMBERS, ONE_DECK,  # noqa: F401
                                     SECOND_DECK_ABOVE, card_counts, deck_for)

# -- constants ---------------------------------------------------------------------

FLIP_7_BONUS = 15

NUMBER_VALUE = {str(n): n for n in range(13)}
MODIFIER_BONUS = {"+2": 2, "+4": 4, "+6": 6, "+8": 8, "+10": 10}

# card kinds
K_NUMBER, K_MODIFIER, K_FREEZE, K_FLIP_THREE, K_SECOND_CHANCE = range(5)
KIND = {**{c: K_NUMBER for c in NUMBERS}, **{c: K_MODIFIER for c in MODIFIERS},
        "freeze": K_FREEZE, "flip-three": K_FLIP_THREE, "second-chance": K_SECOND_CHANCE}

# player status within a round
ACTIVE, STAYED, BUSTED, FROZEN, FLIPPED_7 = range(5)
STATUS_NAMES = ("active", "stayed", "busted", "frozen", "flip7")

# frames of the resolution stack
F_DEAL, F_FLIP_THREE, F_HAND_OUT = range(3)

HIT_STAY = "hit-or-stay"

# event types whose values are all scalars: a seat's copy is a shallow dict copy
_SCALAR_EVENTS = frozenset({"round-start", "card", "set-aside", "stay", "bust", "flip-7",
                            "second-chance-used", "give", "reshuffle", "deck-empty"})


def row_score(numbers: list[int], modifiers: list[str], flipped_7: bool = False) -> int:
    """Score of a row that did not bust: numbers (x2 doubles them), +N, Flip 7 bonus."""
    total = sum(numbers)
    bonus = 0
    for card in modifiers:
        if card == "x2":
            total *= 2
        else:
            bonus += MODIFIER_BONUS[card]
    return total + bonus + (FLIP_7_BONUS if flipped_7 else 0)


# -- the state ---------------------------------------------------------------------


class Flip7State(EngineState):
    """A game of Flip 7 in progress.

    The deck is a list of card strings, top = last. A round's pending work is a stack
    of frames (lists): ``[F_DEAL, order, next_index]``, ``[F_FLIP_THREE, target,
    cards_left, set_aside_cards]``, ``[F_HAND_OUT, seat, cards]``. `decision` is None
    (a hit-or-stay turn of `turn_seat`) or ``(kind, seat, card)`` for a card that
    `seat` must give to someone.

    `view` reports the deck and the set-aside pile as card counts; counting 94 cards
    per view dominated play, so the counts are kept as caches: `_unseen_counts` (the
    deck) is updated on every draw, `_set_aside_counts` is recounted after the pile
    changed. None means "count again"; the class default None serves states built
    with ``fresh=False`` (the sampler's).
    """

    # A copy specialised to Flip 7's events (scalar values and lists of scalars): the
    # generic deep copy dominated play.
    flat_events = _SCALAR_EVENTS

    @staticmethod
    def copy_event(event: dict[str, Any]) -> dict[str, Any]:
        """A fresh copy of an event whose values are scalars or lists of scalars."""
        return {key: value.copy() if type(value) is list else value for key, value in event.items()}

    _unseen_counts: dict[str, int] | None = None
    _set_aside_counts: dict[str, int] | None = None

    def __init__(self, players: int, options: Mapping[str, Any], rng: random.Random | int,
                 fresh: bool = True):
        """A new game's state, its deck shuffled (nothing dealt). With ``fresh=False``
        only `GameState`'s fields are set: the caller (the sampler) sets the rest."""
        super().__init__(players, options, rng)
        if not fresh:
            return
        self.target_score: int = self.options["target_score"]
        self.max_rounds: int = self.options["max_rounds"]
        self.deck: list[str] = deck_for(players, self.options["deck"])
        self.chance.shuffle(self.deck)
        self.set_aside: list[str] = []
        self.totals: list[int] = [0] * players
        self.dealer = 0
        self.round = 0
        self.rounds_played = 0
        self.over = False
        self.reason = ""
        self._clear_round()

    def _clear_round(self) -> None:
        n = self.players
        self.numbers: list[list[int]] = [[] for _ in range(n)]
        self.masks: list[int] = [0] * n
        self.modifiers: list[list[str]] = [[] for _ in range(n)]
        self.actions: list[list[str]] = [[] for _ in range(n)]
        self.second_chance: list[bool] = [False] * n
        self.status: list[int] = [ACTIVE] * n
        self._scores: list[int | None] = [None] * n    # `_round_score` cache; None: compute
        self.stack: list[list[Any]] = []
        self.decision: tuple[str, int, str] | None = None
        self.turn_seat: int | None = None
        self._after_hit = False
        self._round_end: str | None = None   # set when the round must end: its reason
        self._legal: list[str] | None = None

    def chance_pile(self) -> tuple[list[str], Any]:
        return self.deck, str

    # -- setting up (also the test hooks) ------------------------------------------

    def _stack_deck(self, cards_top_first: list[str], exact: bool = False) -> None:
        """What `Flip7.lay_out` does with `deck_top`: put `cards_top_first` on top of the
        deck, first card drawn first, taking one copy of each out of the deck
        (ValueError if the deck lacks it). With
        ``exact=True`` every other deck card goes to the set-aside pile, so the deck
        is exactly these cards (to test a deck that runs out)."""
        for card in cards_top_first:
            try:
                self.deck.remove(card)
            except ValueError:
                raise ValueError(f"lay_out: no {card!r} left in the deck") from None
        if exact:
            self._put_aside(self.deck)
            self.deck.clear()
        self.deck.extend(reversed(cards_top_first))
        self._unseen_counts = None

    def start(self) -> None:
        """Deal round 1 (or the next round) and run to the first decision."""
        self._start_round()
        self._advance()

    def _start_round(self) -> None:
        self._clear_round()
        self.round += 1
        dealer, n = self.dealer, self.players
        order = [(dealer + i) % n for i in range(1, n + 1)]
        self.emit({"type": "round-start", "round": self.round, "dealer": dealer})
        self.stack.append([F_DEAL, order, 0])

    # -- the decision loop ----------------------------------------------------------

    def current_seat(self) -> int | None:
        if self.over:
            return None
        if self.decision is not None:
            return self.decision[1]
        return self.turn_seat

    def legal_actions(self) -> list[str]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return list(legal)

    def _compute_legal(self) -> list[str]:
        if self.over:
            return []
        status = self.status
        if self.decision is not None:
            kind, seat, _ = self.decision
            if kind == "second-chance":
                held = self.second_chance
                targets = [t for t in range(self.players) if status[t] == ACTIVE and t != seat and not held[t]]
            else:
                targets = [t for t in range(self.players) if status[t] == ACTIVE]
            return [f"{kind}:{t}" for t in targets]
        turn = self.turn_seat
        assert turn is not None   # not over, no decision: a hit-or-stay turn
        if self._has_cards(turn):
            return ["hit", "stay"]
        return ["hit"]

    def apply(self, action: str) -> None:
        legal = self._legal if self._legal is not None else self.legal_actions()
        if action not in legal:
            raise self._illegal(action)
        self._legal = None
        if self.decision is not None:
            kind, seat, card = self.decision
            self.decision = None
            self._give(kind, seat, int(action[len(kind) + 1:]))
        else:
            turn = self.turn_seat
            assert turn is not None   # a hit-or-stay turn
            if action == "hit":
                self._after_hit = True
                self._deal_to(turn, "hit", None)
            else:
                self.status[turn] = STAYED
                self.emit({"type": "stay", "seat": turn, "score": self._round_score(turn)})
                self.turn_seat = self._next_active(turn)
        self._advance()

    def _advance(self) -> None:
        """Resolve everything that needs no decision, up to the next decision."""
        while True:
            if self._round_end is not None:
                self._end_round()
                if self.over:
                    return
                continue
            if self.decision is not None:
                return
            stack, status = self.stack, self.status   # new lists each round
            if stack:
                frame = stack[-1]
                kind = frame[0]
                if kind == F_DEAL:
                    order, index = frame[1], frame[2]
                    if index >= len(order):
                        stack.pop()
                        self.turn_seat = self._next_active(self.dealer)
                        continue
                    frame[2] = index + 1
                    seat = order[index]
                    if status[seat] == ACTIVE:
                        self._deal_to(seat, "deal", None)
                elif kind == F_FLIP_THREE:
                    self._flip_three_step(frame)
                else:  # F_HAND_OUT
                    seat, cards = frame[1], frame[2]
                    if not cards:
                        stack.pop()
                    elif ACTIVE not in status:
                        stack.pop()
                        self._discard(seat, cards, "no-active")
                    else:
                        card = cards.pop(0)
                        self.decision = (card, seat, card)
                        return
                continue
            # hit-or-stay turns
            if self._after_hit:
                self._after_hit = False
                hitter = self.turn_seat
                assert hitter is not None
                self.turn_seat = self._next_active(hitter)
            if self.turn_seat is None:
                self._round_end = "no-active"
                continue
            return

    def _flip_three_step(self, frame: list[Any]) -> None:
        """One step of a Flip Three `frame` (on top of the stack): its next card to its target;
        once it is done or the target is out, the frame gone and the action cards it set
        aside handed out (discarded if the target busted)."""
        stack, status = self.stack, self.status
        target = frame[1]
        if frame[2] == 0 or status[target] != ACTIVE:
            stack.pop()
            if frame[3]:
                if status[target] == BUSTED:
                    self._discard(target, frame[3], "bust")
                else:
                    stack.append([F_HAND_OUT, target, frame[3]])
            return
        frame[2] -= 1
        self._deal_to(target, "flip-three", frame)

    def _next_active(self, seat: int) -> int | None:
        """The first active seat after `seat` clockwise (`seat` itself last)."""
        status, n = self.status, self.players
        for step in range(1, n + 1):
            other = (seat + step) % n
            if status[other] == ACTIVE:
                return other
        return None

    def _has_cards(self, seat: int) -> bool:
        return bool(self.numbers[seat] or self.modifiers[seat] or self.actions[seat]
                    or self.second_chance[seat])

    # -- cards -----------------------------------------------------------------------

    def _draw(self) -> str | None:
        deck = self.deck
        if not deck:
            if not self.set_aside:
                return None
            deck.extend(self.set_aside)
            self.set_aside.clear()
            self._unseen_counts = self._set_aside_counts = None
            self.chance.shuffle(deck)
            self.emit({"type": "reshuffle", "cards": len(deck)})
        card = deck.pop()
        unseen = self._unseen_counts
        if unseen is not None:
            left = unseen[card] - 1
            if left:
                unseen[card] = left
            else:
                del unseen[card]   # zero counts are left out (see `card_counts`)
        return card

    def _deal_to(self, seat: int, source: str, flip_three: list[Any] | None) -> None:
        """`seat` takes the top card and it takes effect. `flip_three` is the Flip
        Three frame the card belongs to (it is then the top of the stack)."""
        card = self._draw()
        if card is None:
            self.emit({"type": "deck-empty"})
            self._round_end = "no-cards"
            return
        self._scores[seat] = None   # the card may change the row's score
        self.emit({"type": "card", "seat": seat, "card": card, "source": source})
        kind = KIND[card]
        if kind == K_NUMBER:
            bit = 1 << NUMBER_VALUE[card]
            if self.masks[seat] & bit:
                if self.second_chance[seat]:
                    self.second_chance[seat] = False
                    self._put_aside(("second-chance", card))
                    self.emit({"type": "second-chance-used", "seat": seat, "card": card})
                else:
                    self.numbers[seat].append(NUMBER_VALUE[card])
                    self.status[seat] = BUSTED
                    self.emit({"type": "bust", "seat": seat, "card": card})
                    if flip_three is not None:
                        self.stack.pop()
                        if flip_three[3]:
                            self._discard(seat, flip_three[3], "bust")
                return
            self.masks[seat] |= bit
            numbers = self.numbers[seat]
            numbers.append(NUMBER_VALUE[card])
            if len(numbers) == 7:
                self.status[seat] = FLIPPED_7
                self.emit({"type": "flip-7", "seat": seat})
                self._round_end = "flip-7"
        elif kind == K_MODIFIER:
            self.modifiers[seat].append(card)
        elif kind == K_SECOND_CHANCE:
            if not self.second_chance[seat]:
                self.second_chance[seat] = True
                return
            status, held = self.status, self.second_chance
            if any(status[t] == ACTIVE and not held[t] for t in range(self.players) if t != seat):
                self.decision = ("second-chance", seat, card)
            else:
                self._discard(seat, [card], "no-recipient")
        elif flip_three is not None:
            flip_three[3].append(card)
            self.emit({"type": "set-aside", "seat": seat, "card": card})
        else:
            self.decision = (card, seat, card)

    def _give(self, kind: str, seat: int, target: int) -> None:
        """`seat` gives the card of its decision to `target` and it takes effect."""
        event = {"type": "give", "seat": seat, "card": kind, "to": target}
        if kind == "second-chance":
            self.second_chance[target] = True
        elif kind == "freeze":
            self.actions[target].append(kind)
            self.status[target] = FROZEN
            event["score"] = self._round_score(target)   # banked, even before a deal card
        else:
            self.actions[target].append(kind)
            self.stack.append([F_FLIP_THREE, target, 3, []])
        self.emit(event)

    def _put_aside(self, cards: Iterable[str]) -> None:
        """Add `cards` to the set-aside pile (the only way cards join it)."""
        self.set_aside.extend(cards)
        self._set_aside_counts = None

    def _discard(self, seat: int, cards: list[str], reason: str) -> None:
        self._put_aside(cards)
        self.emit({"type": "discard", "seat": seat, "cards": list(cards), "reason": reason})
        cards.clear()

    # -- scoring and the end of a round -------------------------------------------------

    def round_score(self, seat: int) -> int:
        """`seat`'s score this round so far (0 if busted): what every view shows (public,
        for searches reading the state)."""
        return self._round_score(seat)

    def _round_score(self, seat: int) -> int:
        """`seat`'s score this round so far (0 if busted), cached until its row
        changes: every view shows every row's score."""
        score = self._scores[seat]
        if score is None:
            status = self.status[seat]
            if status == BUSTED:
                score = 0
            else:
                score = row_score(self.numbers[seat], self.modifiers[seat], status == FLIPPED_7)
            self._scores[seat] = score
        return score

    def _end_round(self) -> None:
        reason = self._round_end
        n = self.players
        scores = [self._round_score(s) for s in range(n)]
        totals = self.totals
        for s in range(n):
            totals[s] += scores[s]
        self.rounds_played = self.round
        self.emit({"type": "round-end", "round": self.round, "scores": scores,
                   "totals": list(totals), "reason": reason})
        pile: list[str] = []
        for s in range(n):
            pile.extend(NUMBERS[v] for v in self.numbers[s])
            pile.extend(self.modifiers[s])
            pile.extend(self.actions[s])
            if self.second_chance[s]:
                pile.append("second-chance")
        for frame in self.stack:
            if frame[0] == F_FLIP_THREE:
                pile.extend(frame[3])
            elif frame[0] == F_HAND_OUT:
                pile.extend(frame[2])
        self._put_aside(pile)
        self._clear_round()
        top = max(totals)
        if top >= self.target_score and totals.count(top) == 1:
            self.over, self.reason = True, "target"
        elif self.round >= self.max_rounds:
            self.over, self.reason = True, "max_rounds"
        if self.over:
            self.emit({"type": "game-end", "totals": list(totals), "reason": self.reason,
                       "rounds": self.rounds_played})
            return
        self.dealer = (self.dealer + 1) % n
        self._start_round()

    def outcome(self) -> dict[str, Any]:
        scores = list(self.totals)
        if self.over and self.reason == "max_rounds":
            standing = [1] * self.players
        else:
            standing = standing_from_scores(scores)
        return {"standing": standing, "scores": scores,
                "reason": self.reason if self.over else "unfinished",
                "rounds": self.rounds_played}

    # -- what a seat sees ----------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        rows = []
        for s in range(self.players):
            numbers = self.numbers[s]
            rows.append({
                "numbers": list(numbers),
                "modifiers": list(self.modifiers[s]),
                "actions": list(self.actions[s]),
                "second_chance": self.second_chance[s],
                "status": STATUS_NAMES[self.status[s]],
                "number_sum": sum(numbers),
                "score": self._round_score(s),
            })
        if self.over:
            phase, decision = "over", None
        else:
            stack = self.stack   # a deal frame is always the bottom one
            phase = "deal" if stack and stack[0][0] == F_DEAL else "play"
            decision = self.decision[0] if self.decision is not None else HIT_STAY
        pending = []
        for frame in self.stack:
            if frame[0] == F_DEAL:
                pending.append({"kind": "deal", "next": frame[1][frame[2]:]})
            elif frame[0] == F_FLIP_THREE:
                pending.append({"kind": "flip-three", "target": frame[1], "cards_left": frame[2],
                                "set_aside": list(frame[3])})
            else:
                pending.append({"kind": "hand-out", "seat": frame[1], "cards": list(frame[2])})
        return {
            "round": self.round,
            "dealer": self.dealer,
            "phase": phase,
            "turn": self.current_seat(),
            "decision": decision,
            "turn_seat": self.turn_seat,
            "rows": rows,
            "totals": list(self.totals),
            "deck_size": len(self.deck),
            "set_aside": self._set_aside_counts_now().copy(),
            "unseen": self._unseen_counts_now().copy(),
            "pending": pending,
            "target_score": self.target_score,
        }

    def unseen_counts(self) -> dict[str, int]:
        """The deck's cards as counts, what every view shows as ``unseen`` (public, for an
        encoding reading the state): the engine's own dict, kept up to date; read it, never
        change it."""
        return self._unseen_counts_now()

    def _unseen_counts_now(self) -> dict[str, int]:
        """`card_counts` of the deck, from the cache (the engine's own dict: copy it)."""
        if self._unseen_counts is None:
            self._unseen_counts = card_counts(self.deck)
        return self._unseen_counts

    def _set_aside_counts_now(self) -> dict[str, int]:
        """`card_counts` of the set-aside pile, from the cache (the engine's own dict: copy it)."""
        if self._set_aside_counts is None:
            self._set_aside_counts = card_counts(self.set_aside)
        return self._set_aside_counts

    # -- copies and checks ------------------------------------------------------------------

    def clone(self) -> Flip7State:
        # every field by name (a compiled state has no __dict__ to copy); the constructor
        # sets GameState's, the clone's event queues empty
        twin = Flip7State(self.players, self.options, 0, fresh=False)
        twin.chance = self.chance.copy()
        twin.target_score, twin.max_rounds = self.target_score, self.max_rounds
        twin.dealer, twin.round, twin.rounds_played = self.dealer, self.round, self.rounds_played
        twin.over, twin.reason = self.over, self.reason
        twin.decision, twin.turn_seat = self.decision, self.turn_seat   # a tuple, an int
        twin._after_hit, twin._round_end = self._after_hit, self._round_end
        twin.deck = self.deck.copy()
        twin.set_aside = self.set_aside.copy()
        twin._unseen_counts = _copy_counts(self._unseen_counts)
        twin._set_aside_counts = _copy_counts(self._set_aside_counts)
        twin.totals = self.totals.copy()
        twin.numbers = [row.copy() for row in self.numbers]
        twin.masks = self.masks.copy()
        twin.modifiers = [row.copy() for row in self.modifiers]
        twin.actions = [row.copy() for row in self.actions]
        twin.second_chance = self.second_chance.copy()
        twin.status = self.status.copy()
        twin._scores = self._scores.copy()
        twin.stack = [_copy_frame(frame) for frame in self.stack]
        twin._legal = None
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> Flip7State:
        return deep_copy_by_clone(self, memo)

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_state, (Flip7State, self.players, self.options, _FIELDS,
                               [getattr(self, name) for name in _FIELDS])

    def all_cards(self) -> list[str]:
        """Every card of the game wherever it is (deck, set-aside pile, rows, cards
        waiting in a Flip Three or hand-out, the card being given): for
        conservation checks. Its multiset never changes."""
        cards = list(self.deck) + list(self.set_aside)
        for s in range(self.players):
            cards.extend(NUMBERS[v] for v in self.numbers[s])
            cards.extend(self.modifiers[s])
            cards.extend(self.actions[s])
            if self.second_chance[s]:
                cards.append("second-chance")
        for frame in self.stack:
            if frame[0] == F_FLIP_THREE:
                cards.extend(frame[3])
            elif frame[0] == F_HAND_OUT:
                cards.extend(frame[2])
        if self.decision is not None:
            cards.append(self.decision[2])
        return cards


# -- helpers ------------------------------------------------------------------------------


_FIELDS = ("chance", "god_log", "_pending", "target_score", "max_rounds", "deck", "set_aside", "totals",
           "dealer", "round", "rounds_played", "over", "reason", "numbers", "masks", "modifiers", "actions",
           "second_chance", "status", "_scores", "stack", "decision", "turn_seat", "_after_hit", "_round_end",
           "_legal", "_unseen_counts", "_set_aside_counts")
"""Every field of a state but those its constructor sets (`__reduce__`)."""


def _copy_counts(counts: dict[str, int] | None) -> dict[str, int] | None:
    return None if counts is None else counts.copy()


def _copy_frame(frame: list[Any]) -> list[Any]:
    if frame[0] == F_DEAL:
        return [F_DEAL, frame[1], frame[2]]          # the order list is never mutated
    if frame[0] == F_FLIP_THREE:
        return [F_FLIP_THREE, frame[1], frame[2], frame[3].copy()]
    return [F_HAND_OUT, frame[1], frame[2].copy()]
