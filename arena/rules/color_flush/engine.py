"""The Color Flush engine: `ColorFlushState`, a game in progress, and the rules' constants.

The rules page, and `ColorFlush` (options, setup, hints), are in `ruleset.py`; the cards in
`deck.py`. This module holds only the state and plain functions, so that it can be
compiled (mypyc) apart from the ruleset's class attributes and rules page.
"""

from __future__ import annotations

import functools
import random
from typing import Any, Mapping, Sequence

from arena.rules.base import winner_standing
from arena.rules.cards import TwoFacedTable
# the cards (rules/color_flush/deck.py); every name also importable from here, as before
from arena.rules.color_flush.deck import (BLACK, COLORS, DECK_MAX, DECK_MIN, DEFAULT_DECK,  # noqa: F401
                                          FACE_PATTERN, WHITE, check_deck)
from arena.rules.engine_base import EngineOwnEventCopies
from arena.rules.game_state import deep_copy_by_clone, rebuilt_state

# -- constants -----------------------------------------------------------------

HAND_MIN = 4
HAND_MAX = 10
DEAL_SIZE = 7
MAX_SEATS = 6
PILE = "draw"

GIVE, TAKE, FLIP = 1, 2, 4
ALL_ACTIONS = GIVE | TAKE | FLIP
ACTION_NAMES = ((GIVE, "give"), (TAKE, "take"), (FLIP, "flip"))

# Face codes used by the engine: a color is > 0, white 0, black -1.
CODE_WHITE = 0
CODE_BLACK = -1


# Every action string, built once: hot paths slice these tables instead of
# formatting strings, and `apply` parses through one dict look-up.
_PLACE = [f"place:{p}" for p in range(HAND_MAX)]
_GIVE = [[f"give:{p}:{s}" for s in range(MAX_SEATS)] for p in range(HAND_MAX)]
_TAKE = [[f"take:{s}:{p}" for p in range(HAND_MAX)] for s in range(MAX_SEATS)]
_FLIP = [f"flip:{p}" for p in range(HAND_MAX)]
_SWAP = [f"swap:{s}" for s in range(MAX_SEATS)]
TAKE_PILE = "take:pile"
NO_SWAP = "no-swap"

_K_PLACE, _K_GIVE, _K_TAKE, _K_TAKE_PILE, _K_FLIP, _K_SWAP, _K_NO_SWAP = range(7)
_PARSE: dict[str, tuple[int, int, int]] = {TAKE_PILE: (_K_TAKE_PILE, 0, 0), NO_SWAP: (_K_NO_SWAP, 0, 0)}
for _p in range(HAND_MAX):
    _PARSE[_PLACE[_p]] = (_K_PLACE, _p, 0)
    _PARSE[_FLIP[_p]] = (_K_FLIP, _p, 0)
    for _s in range(MAX_SEATS):
        _PARSE[_GIVE[_p][_s]] = (_K_GIVE, _p, _s)
        _PARSE[_TAKE[_s][_p]] = (_K_TAKE, _s, _p)
for _s in range(MAX_SEATS):
    _PARSE[_SWAP[_s]] = (_K_SWAP, _s, 0)
del _p, _s


@functools.lru_cache(maxsize=None)
def _gives(size: int, receivers: tuple[int, ...]) -> tuple[str, ...]:
    """The give action's forms from a hand of `size` cards, in legal order: per
    position, ``place:p`` then ``give:p:s`` for each of `receivers`."""
    return tuple(name for pos in range(size) for name in (_PLACE[pos], *(_GIVE[pos][s] for s in receivers)))


# event types sent to every seat alike whose values are all scalars (a shallow copy is fresh)
_SCALAR_EVENTS = frozenset({"turn", "no_swap", "end"})


# -- the state -------------------------------------------------------------------

class ColorFlushState(EngineOwnEventCopies):
    """A Color Flush game in progress (engine state; never shown to a bot).

    The cards live on a `TwoFacedTable` (`self.table`, pile ``"draw"``).
    ``self.codes[card]`` holds the two faces' codes (color > 0, white 0, black -1),
    derived from ``table.faces`` by `_recode` (call it again after changing faces).

    Events: every queued event is its seat's own object (`emit` queues a copy per
    seat; the card events are built per seat), so `take_events` hands the queue
    over without copying it.
    """

    flat_events = _SCALAR_EVENTS

    def __init__(self, players: int, options: Mapping[str, Any], rng: random.Random | int,
                 faces: Sequence[tuple[str, str]] | None = None, fresh: bool = True):
        """A table of the deck's cards (`faces`: these pairs instead, as a sampler lays
        them out, side 0 first), nothing dealt yet. With ``fresh=False`` only
        `GameState`'s fields are set: the caller (`clone`) sets the rest."""
        super().__init__(players, options, rng)
        if not fresh:
            return
        cards = options["deck"] if faces is None else faces
        self.table = TwoFacedTable([tuple(card) for card in cards], players)
        self.table.piles[PILE] = []
        self.codes: list[tuple[int, int]] = []
        self._recode()
        self.max_turns: int = options["max_turns"]
        self.swap_must: bool = options["white_swap"] == "must"
        self.active = 0
        self.turns = 0
        self.left = ALL_ACTIONS
        self.awaiting_swap = False
        self.over = False
        self.winner: int | None = None
        self.reason: str | None = None
        self._legal: list[str] | None = None

    def chance_pile(self) -> tuple[list[int], Any]:
        return self.table.piles[PILE], self.table.card_name

    def _draw_top_changed(self) -> None:
        self.table.show_top(PILE)

    # -- setting up --------------------------------------------------------------

    def _recode(self) -> None:
        """Derive the face codes from ``table.faces`` (colors numbered by first sight)."""
        numbers: dict[str, int] = {WHITE: CODE_WHITE, BLACK: CODE_BLACK}
        codes = []
        for pair in self.table.faces:
            pair_codes = []
            for face in pair:
                if face not in numbers:
                    numbers[face] = len(numbers) - 1
                pair_codes.append(numbers[face])
            codes.append((pair_codes[0], pair_codes[1]))
        self.codes = codes

    def _deal(self) -> None:
        table = self.table
        ups = []
        for first, second in table.faces:
            if first == BLACK:
                ups.append(1)
            elif second == BLACK:
                ups.append(0)
            else:
                ups.append(self.chance.bit())
        table.new_pile(PILE, range(len(table.faces)), up_sides=ups)
        table.shuffle(PILE, self.chance)
        for _ in range(DEAL_SIZE):
            for seat in range(self.players):
                table.deal(PILE, seat, toward="up")
        self.emit({"type": "deal",
                   "faces": [[table.face(c) for c in hand] for hand in table.hands],
                   "top": table.face(table.piles[PILE][-1]) if table.piles[PILE] else None})
        if not self._check_wins():
            self.emit({"type": "turn", "seat": 0, "turn": 0})

    # -- the decision loop -------------------------------------------------------------

    def current_seat(self) -> int | None:
        return None if self.over else self.active

    def legal_actions(self) -> list[str]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal[:]

    def _compute_legal(self) -> list[str]:
        if self.over:
            return []
        me = self.active
        hands = self.table.hands
        if self.awaiting_swap:
            swaps = [_SWAP[s] for s in range(self.players) if s != me]
            if not self.swap_must:
                swaps.append(NO_SWAP)
            return swaps
        acts: list[str] = []
        size = len(hands[me])
        left = self.left
        if left & GIVE and size > HAND_MIN:
            receivers = tuple(s for s in range(self.players) if s != me and len(hands[s]) < HAND_MAX)
            acts.extend(_gives(size, receivers))
        if left & TAKE and size < HAND_MAX:
            for s in range(self.players):
                if s != me:
                    other = len(hands[s])
                    if other > HAND_MIN:
                        acts.extend(_TAKE[s][:other])
            if self.table.piles[PILE]:
                acts.append(TAKE_PILE)
        if left & FLIP:
            acts.extend(_FLIP[:size])
        return acts

    def apply(self, action: str) -> None:
        legal = self._legal if self._legal is not None else self._compute_legal()
        if action not in legal:
            self._legal = legal
            raise self._illegal(action)
        self._legal = None
        kind, x, y = _PARSE[action]
        me = self.active
        if kind == _K_FLIP:
            self.left &= ~FLIP
            self._flip(me, x)
        elif kind == _K_TAKE:
            self.left &= ~TAKE
            self._take(me, x, y)
        elif kind == _K_TAKE_PILE:
            self.left &= ~TAKE
            self._take_pile(me)
        elif kind == _K_GIVE:
            self.left &= ~GIVE
            self._give(me, x, y)
        elif kind == _K_PLACE:
            self.left &= ~GIVE
            self._place(me, x)
            if self.awaiting_swap:
                return
        elif kind == _K_SWAP:
            self.awaiting_swap = False
            self._swap(me, x)
        else:  # _K_NO_SWAP
            self.awaiting_swap = False
            self.emit({"type": "no_swap", "seat": me})
        if not self.over:
            self._advance()

    def _advance(self) -> None:
        """Offer the next decision of this turn, or end the turn (dropping what is left)."""
        while True:
            if self.left:
                legal = self._compute_legal()
                if legal:
                    self._legal = legal
                    return
                self.emit({"type": "dropped", "seat": self.active,
                           "actions": [name for bit, name in ACTION_NAMES if self.left & bit]})
            self.turns += 1
            if self.turns >= self.max_turns:
                self._finish(None, "max_turns")
                return
            self.active = (self.active + 1) % self.players
            self.left = ALL_ACTIONS
            self.emit({"type": "turn", "seat": self.active, "turn": self.turns})

    # -- the moves ---------------------------------------------------------------------

    def _flip(self, me: int, pos: int) -> None:
        card = self.table.flip_card(me, pos)
        self._emit_card({"type": "flip", "seat": me, "pos": pos}, card)
        self._resolve(me)
        self._check_wins()

    def _take(self, me: int, victim: int, pos: int) -> None:
        table = self.table
        card = table.remove(victim, pos)
        table.add(me, card, transferred=True)
        self._emit_card({"type": "take", "seat": me, "from": victim, "pos": pos}, card)
        self._resolve(me)
        self._check_wins()

    def _take_pile(self, me: int) -> None:
        table = self.table
        card = table.deal(PILE, me, toward="up")
        base = {"type": "take", "seat": me, "from": "pile"}
        for viewer in range(self.players):
            event = dict(base)
            event["card"] = table.card_view(card, viewer)
            event["top"] = table.top_view(PILE, viewer)
            self._pending[viewer].append(event)
        god = dict(base)
        god["card"] = self._held_view(card, None)
        top = table.top(PILE)
        god["top"] = None if top is None else {"up": table.face(top), "down": table.back(top)}
        self.god_log.append(god)
        self._resolve(me)
        self._check_wins()

    def _give(self, me: int, pos: int, receiver: int) -> None:
        card = self.table.give(me, pos, receiver)
        self._emit_card({"type": "give", "seat": me, "pos": pos, "to": receiver}, card)
        self._resolve(receiver)
        self._check_wins()

    def _place(self, me: int, pos: int) -> None:
        table = self.table
        card = table.place(me, pos, PILE, up="face")
        self._emit_card({"type": "place", "seat": me, "pos": pos}, card, pile=True)
        if self._check_wins():
            return
        if self.codes[card][table.side[card]] == CODE_WHITE:
            self.awaiting_swap = True
            self._legal = self._compute_legal()

    def _swap(self, me: int, other: int) -> None:
        table = self.table
        table.swap_hands(me, other)
        mine, theirs = table.hands[me], table.hands[other]
        base = {"type": "swap", "seat": me, "with": other}
        for viewer in range(self.players):
            event = dict(base)
            event["hand"] = table.hand_view(me, viewer)
            event["with_hand"] = table.hand_view(other, viewer)
            self._pending[viewer].append(event)
        god = dict(base)
        god["hand"] = [self._held_view(c, None) for c in mine]
        god["with_hand"] = [self._held_view(c, None) for c in theirs]
        self.god_log.append(god)
        self._resolve(me)
        self._resolve(other)
        self._check_wins()

    def _resolve(self, seat: int) -> None:
        """Forced flips: a black face toward `seat` flips the whole hand, then every
        newly facing black is flipped on its own."""
        table = self.table
        codes, side = self.codes, table.side
        hand = table.hands[seat]
        for card in hand:
            if codes[card][side[card]] == CODE_BLACK:
                break
        else:
            return
        table.flip_hand(seat)
        base = {"type": "hand_flip", "seat": seat}
        for viewer in range(self.players):
            event = dict(base)
            event["cards"] = table.hand_view(seat, viewer)
            self._pending[viewer].append(event)
        god = dict(base)
        god["cards"] = [self._held_view(c, None) for c in hand]
        self.god_log.append(god)
        for pos, card in enumerate(hand):
            if codes[card][side[card]] == CODE_BLACK:
                table.flip_card(seat, pos)
                self._emit_card({"type": "black_flip", "seat": seat, "pos": pos}, card)

    # -- winning -----------------------------------------------------------------------

    def hand_wins(self, seat: int) -> bool:
        """True if every face toward `seat` is one color (whites count as any)."""
        codes, side = self.codes, self.table.side
        color = 0
        for card in self.table.hands[seat]:
            code = codes[card][side[card]]
            if code:
                if code < 0:
                    return False
                if color == 0:
                    color = code
                elif code != color:
                    return False
        return True

    def _check_wins(self) -> bool:
        """After a change: end the game if a hand wins, trying the active player
        first, then the others in turn order."""
        n = self.players
        for step in range(n):
            seat = (self.active + step) % n
            if self.hand_wins(seat):
                self._finish(seat, "win")
                return True
        return False

    def _finish(self, winner: int | None, reason: str) -> None:
        self.over = True
        self.winner = winner
        self.reason = reason
        self.awaiting_swap = False
        self._legal = []
        table = self.table
        if winner is not None:
            everyone = range(self.players)
            for card in table.hands[winner]:
                table.see(card, table.side[card], everyone)
            self.emit({"type": "win", "seat": winner, "hand": [table.face(c) for c in table.hands[winner]]})
        else:
            self.emit({"type": "end", "reason": reason, "turns": self.turns})

    # -- what seats see ----------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        table = self.table
        pile = table.piles[PILE]
        if self.over:
            awaiting, left = None, []
        else:
            awaiting = "swap" if self.awaiting_swap else "action"
            left = [name for bit, name in ACTION_NAMES if self.left & bit]
        return {
            "turn": None if self.over else self.active,
            "active": self.active,
            "turn_number": self.turns,
            "max_turns": self.max_turns,
            "awaiting": awaiting,
            "actions_left": left,
            "hands": table.hands_view(seat),
            "hand_sizes": [len(hand) for hand in table.hands],
            "draw_pile": {"size": len(pile), "top": table.top_view(PILE, seat)},
            "winner": self.winner,
        }

    def outcome(self) -> dict[str, Any]:
        if not self.over:
            raise RuntimeError("the game is not over")
        scores = [1 if seat == self.winner else 0 for seat in range(self.players)]
        return {"standing": winner_standing(self.players, self.winner), "scores": scores,
                "reason": self.reason, "turns": self.turns}

    def clone(self) -> ColorFlushState:
        # every field by name (a compiled state has no __dict__ to copy); the constructor
        # sets GameState's, the clone's event queues empty
        twin = ColorFlushState(self.players, self.options, 0, fresh=False)
        twin.chance = self.chance.copy()
        twin.table = self.table.clone()
        twin.codes = self.codes   # replaced whole by `_recode`, never changed in place
        twin.max_turns, twin.swap_must = self.max_turns, self.swap_must
        twin.active, twin.turns, twin.left = self.active, self.turns, self.left
        twin.awaiting_swap, twin.over = self.awaiting_swap, self.over
        twin.winner, twin.reason = self.winner, self.reason
        twin._legal = None if self._legal is None else self._legal[:]
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> ColorFlushState:
        return deep_copy_by_clone(self, memo, ("codes",))

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_state, (ColorFlushState, self.players, self.options, _FIELDS,
                               [getattr(self, name) for name in _FIELDS])

    # -- event helpers -------------------------------------------------------------------

    def _held_view(self, card: int, viewer: int | None) -> dict[str, str | None]:
        if viewer is None:
            return {"face": self.table.face(card), "back": self.table.back(card)}
        return self.table.card_view(card, viewer)

    def _emit_card(self, event: dict[str, Any], card: int, pile: bool = False) -> None:
        """Emit `event` with ``card`` as each seat knows it (the god log: both sides)."""
        self.emit_varying(event, "card", *self.table.views_by_seat(card, pile))


# Every field of a state but `players` and `options`, for pickling (`ColorFlushState.__reduce__`).
_FIELDS = ("chance", "table", "codes", "max_turns", "swap_must", "active", "turns", "left", "awaiting_swap", "over",
           "winner", "reason", "_legal", "_pending", "god_log")
