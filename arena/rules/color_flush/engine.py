"""Color Flush (`color-flush`): be the first to hold a hand whose faces are all one color.

Sources: the seed rulebook ``004_50eddf11bc4c1fec.txt`` and the rulings
``../shared/rules/color-flush.md``. Version "1".

Players
-------
3 to 6 officially; 2 are allowed (ruling: "2 allowed as an option"). The
option is the player count itself: ``min_players`` is 2, so a table of two is
legal wherever a tournament asks for one. Seats are ``0 .. players-1``; seat 0
plays first, then clockwise (seat + 1).

Deck
----
50 two-faced cards by default (provisional, ours): 5 colors (red, yellow,
green, blue, purple); 40 two-color cards (each of the 10 pairs of different
colors, 4 copies); 5 white cards (white / one of each color); 5 black cards
(black / one of each color). Option ``deck`` replaces it with any list of face
pairs ``[[side_a, side_b], ...]``: each face a lowercase word (``[a-z][a-z0-9-]*``);
``"white"`` is the joker, ``"black"`` forces flips, any other word is a color.
A card may not be black on both faces. The deck must hold 14 to 1000 cards and at
least 7 per player (checked when the game is dealt).

Setup: every black face down; every other card lies with a side chosen by a fair
coin from the game's RNG (a real deck comes out of its box any way round; the
rulebook only says black faces go down). Then the pile is shuffled with the
seeded RNG, keeping each card's orientation. Each player draws 7 cards from the
top of the draw pile, one at a time, round-robin from seat 0; a drawn card keeps
the side that showed on the pile toward its taker (so nobody starts with a black
face toward them, and every seat saw every dealt face on the pile: at the start
everybody knows every other player's faces, and nobody knows their own backs).

A turn
------
The active player does each of three actions exactly once, in the order they
choose, one decision at a time:

1. ``give``: give one hand card to another player, or place it on top of the
   draw pile (the side toward the placer goes up);
2. ``take``: take one card from another player, chosen by position (the taker
   sees only its back; it arrives with that back toward the taker), or the top
   card of the draw pile (the side that showed up ends toward the taker);
3. ``flip``: turn one card of their own hand around.

Hand limits 4..10 bind every player at every moment: a form of an action that
would take any player outside them is not legal (giving or placing needs 5+
cards in the giver's hand and at most 9 in the receiver's; taking needs at most
9 in the taker's hand and 5+ in the victim's, or a non-empty draw pile).
A remaining action with no legal form *now* is simply not offered now: it may
become legal after another action of the same turn (take first, then give).
The turn ends when all three are done or when none of the remaining actions has
a legal form; those are dropped (event ``dropped``). ``flip`` always has a legal
form, so every turn has at least one decision.

White and black
---------------
- A white face toward its holder is a joker (any color); an all-white hand wins.
- Placing a card whose face toward the placer is white on the pile: the placer
  then chooses an opponent and the two swap whole hands without flipping (face
  and back of every card swap relative to its new holder). Option
  ``white_swap``: ``"must"`` (default, the seed) or ``"may"`` (BGA; adds
  ``no-swap``). The swap is its own decision right after the place.
- Whenever a player has a black face toward them (after a take, a give to them,
  a flip or a swap) they flip their whole hand, then flip on its own every card
  whose newly facing side is black. After a swap both players resolve, active
  player first. Forced flips resolve before any win is checked.

Winning and the end
-------------------
After every single change (deal completed, give, place, take, flip, swap, each
followed by its forced flips) every player's hand is checked: a hand wins when
its faces, whites counting as any color, are all one color. Several at once: the
active player wins, else the first in turn order after them. (In play only the
active player and one other can qualify at once; all of them can at the deal.) The
winner reveals their hand (event ``win``; every seat now knows those faces).
Standing: winner 1, everyone else 2; scores 1 / 0. Option ``max_turns`` (default
200): after that many completed turns (one turn = one player's three actions)
the game ends with everyone tied (reason ``"max_turns"``, scores all 0).

ACTION GRAMMAR (positions 0-based in the hand as ordered by arrival; seats absolute)
----------------------------------------------------------------------------------
- ``place:<pos>``         place own card ``pos`` on the draw pile (the give action)
- ``give:<pos>:<seat>``   give own card ``pos`` to player ``seat`` (the give action)
- ``take:<seat>:<pos>``   take card ``pos`` of player ``seat`` (the take action)
- ``take:pile``           take the draw pile's top card (the take action)
- ``flip:<pos>``          flip own card ``pos`` (the flip action)
- ``swap:<seat>``         after placing a white: swap hands with ``seat``
- ``no-swap``             after placing a white, only with ``white_swap = "may"``

Legal actions come in this order: for each position ``place:p`` then
``give:p:s`` (seats ascending); then ``take:s:p`` (seats ascending, positions
ascending), ``take:pile``; then ``flip:p``. While a swap is awaited:
``swap:s`` (seats ascending), then ``no-swap``.

VIEW FIELDS (``view(seat)``, fresh plain data, perfect recall)
--------------------------------------------------------------
- ``turn``: the seat whose decision it is (None once the game is over);
- ``active``: the active player (the seat whose turn it is);
- ``turn_number``: completed turns so far; ``max_turns``;
- ``awaiting``: ``"action"``, ``"swap"`` (the active player must choose whom to
  swap with) or None (over);
- ``actions_left``: the active player's actions not yet done this turn, from
  ``["give", "take", "flip"]`` (``give`` covers place);
- ``hands``: for every seat (own included), the cards by position as
  ``{"face", "back"}`` relative to their holder, each side None where this seat
  has not seen it (own faces and others' backs are always known);
- ``hand_sizes``; ``draw_pile``: ``{"size", "top"}`` with ``top`` =
  ``{"up", "down"}`` (``down`` None unless seen) or None when empty;
- ``winner``: the winning seat or None.

EVENT TYPES (each seat gets them as it saw them; ``card`` values are card views
as the receiving seat knows the card right after the move, relative to its holder)
-------------------------------------------------------------------------------
- ``deal``: ``faces`` (per seat, the 7 faces dealt, all seen on the pile), ``top``;
- ``turn``: ``seat`` starts turn number ``turn``;
- ``place``: ``seat``, ``pos``, ``card`` = ``{"up", "down"}``;
- ``give``: ``seat``, ``pos``, ``to``, ``card`` (in the receiver's hand);
- ``take``: ``seat``, ``from`` (a seat or ``"pile"``), ``pos`` (for a seat),
  ``card`` (in the taker's hand); from the pile also ``top``, the new pile top;
- ``flip``: ``seat``, ``pos``, ``card``;
- ``hand_flip``: ``seat``, ``cards`` (forced by a black face);
- ``black_flip``: ``seat``, ``pos``, ``card`` (a newly facing black flipped alone);
- ``swap``: ``seat``, ``with``, ``hand`` (seat's new hand), ``with_hand``;
- ``no_swap``: ``seat``; ``dropped``: ``seat``, ``actions``;
- ``win``: ``seat``, ``hand`` (the revealed faces); ``end``: ``reason``, ``turns``.

Decisions where the rulings are silent
--------------------------------------
- Orientation of non-black cards at setup: a fair coin each (see Deck).
- The deal is round-robin from seat 0, one card at a time.
- Wins are first checked when the deal is complete (seat 0 counts as active for
  the tie order); a game can in principle end before any decision.
- Temporarily impossible actions are postponed, not dropped (see A turn).
- The place of a white face and the swap that follows are two changes, each
  checked for a win (removing a joker never completes a hand, so the check after
  the place cannot end the game; the swap's can).
- A win reveals the winner's faces to everyone ("the player reveals their hand").
- With ``white_swap = "may"`` declining is the decision ``no-swap``.
"""

from __future__ import annotations

import functools
import random
from typing import Any, Mapping, Sequence

from arena.errors import OptionError
from arena.rules.base import Option, OwnEventCopies, Ruleset, winner_standing, winner_takes_all_draws
from arena.rules.cards import TwoFacedTable
# the cards (rules/color_flush/deck.py); every name also importable from here, as before
from arena.rules.color_flush.deck import (BLACK, COLORS, DECK_MAX, DECK_MIN, DEFAULT_DECK,  # noqa: F401
                                          FACE_PATTERN, WHITE, check_deck)
from arena.rules.color_flush.text import ColorFlushRenderer

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


# -- the ruleset -----------------------------------------------------------------

class ColorFlush(Ruleset):
    """Color Flush: give, take and flip two-faced cards until a hand is one color."""

    id = "color-flush"
    version = "1"
    title = "Color Flush"
    min_players = 2
    max_players = MAX_SEATS
    options = {
        "deck": Option(DEFAULT_DECK, "the cards as a list of face pairs [[side_a, side_b], ...]",
                       kind=list),
        "white_swap": Option("must", "placing a white face forces a hand swap ('must') or offers "
                             "one ('may')", choices=("must", "may")),
        "max_turns": Option(200, "the game ends in a tie after this many turns", minimum=1,
                            maximum=1_000_000),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        check_deck(options["deck"])

    capabilities = frozenset({"sample_state", "lay_out"})
    renderer = ColorFlushRenderer
    # the heuristic looks one to two plies ahead (~1 ms a decision): short playouts, a prior
    search_hints = {"playout_bot": "arena_bots.color_flush_heuristic:ColorFlushHeuristicBot", "playout_depth": 3,
                    "random_playout_depth": 0, "playout_stop": None, "prior_weight": 1.0,
                    "evaluation": "arena_bots.ismcts:evaluate_color_flush",
                    "opponents": "policy"}   # measured: benchmarks/strength_notes.md

    @classmethod
    def draw_probability(cls, players: int) -> float:
        return winner_takes_all_draws(players)

    card_faces = {face: (face, face) for pair in sorted(DEFAULT_DECK) for face in pair}   # a face is a color

    bot_example = '''
        hand = view["hands"][me]  # {"face": toward you, "back": toward the others or None}
        # Example: collect the color you see most in your hand (white is a joker).
        counts = {}
        for card in hand:
            if card["face"] not in ("white", "black"):
                counts[card["face"]] = counts.get(card["face"], 0) + 1
        target = max(sorted(counts), key=counts.get) if counts else None
        for action in legal:
            # Flip a card whose face is off-color but whose back (when you know it) is on it.
            if action.startswith("flip:"):
                card = hand[int(action.split(":")[1])]
                if card["face"] not in (target, "white") and card["back"] in (target, "white"):
                    return action
            # Give away (or place on the pile) a card that is off-color.
            if action.startswith(("give:", "place:")):
                if hand[int(action.split(":")[1])]["face"] not in (target, "white"):
                    return action
        return self.rng.choice(legal)
'''

    @classmethod
    def lay_out(cls, players: int, options: Mapping[str, Any] | None = None, seed: int = 0, *,
                hands: Sequence[Sequence[Sequence[str]]] | None = None, pile: Sequence[Sequence[str]] = (),
                active: int = 0, left: Sequence[str] = ("give", "take", "flip"),
                turns: int = 0) -> ColorFlushState:
        """A state built from a table layout (see `Ruleset.capabilities`): `hands[seat]`
        lists ``(face, back)`` pairs relative to the holder, in position order; `pile`
        lists ``(up, down)`` pairs, bottom first. Each holder has seen their faces,
        everyone else the backs, everyone the pile top. The deck option becomes exactly
        these cards (its size is not checked); no win or black check is made. Without
        `hands`, the deal of `seed`."""
        if hands is None:
            return cls.new_game(players, cls.resolve_options(options), random.Random(seed))
        if len(hands) != players:
            raise ValueError(f"lay_out: {len(hands)} hands for {players} players")
        return _layout_state(hands, pile, active=active, left=left, turns=turns, options=options, seed=seed)

    @classmethod
    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> ColorFlushState:
        cls.check_players(players)
        if len(options["deck"]) < DEAL_SIZE * players:
            raise OptionError(f"option 'deck' has {len(options['deck'])} cards, too few to deal "
                              f"{DEAL_SIZE} to each of {players} players")
        state = ColorFlushState(players, options, rng)
        state._deal()
        return state

    @classmethod
    def sample_state(cls, observation: Mapping[str, Any], rng: random.Random,
                     events: list[dict[str, Any]] | None = None) -> ColorFlushState:
        """A full game state consistent with `observation` (see "determinization"
        at the end of this module)."""
        from arena.rules.color_flush.sampler import sample_state

        return sample_state(observation, rng, events)


# event types sent to every seat alike whose values are all scalars (a shallow copy is fresh)
_SCALAR_EVENTS = frozenset({"turn", "no_swap", "end"})


# -- the state -------------------------------------------------------------------

class ColorFlushState(OwnEventCopies):
    """A Color Flush game in progress (engine state; never shown to a bot).

    The cards live on a `TwoFacedTable` (`self.table`, pile ``"draw"``).
    ``self.codes[card]`` holds the two faces' codes (color > 0, white 0, black -1),
    derived from ``table.faces`` by `_recode` (call it again after changing faces).

    Events: every queued event is its seat's own object (`emit` queues a copy per
    seat; the card events are built per seat), so `take_events` hands the queue
    over without copying it.
    """

    flat_events = _SCALAR_EVENTS
    ruleset = ColorFlush

    def __init__(self, players: int, options: Mapping[str, Any], rng: random.Random | int,
                 faces: Sequence[tuple[str, str]] | None = None):
        """A table of the deck's cards (`faces`: these pairs instead, as a sampler lays
        them out, side 0 first), nothing dealt yet."""
        super().__init__(players, options, rng)
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
            acts = [_SWAP[s] for s in range(self.players) if s != me]
            if not self.swap_must:
                acts.append(NO_SWAP)
            return acts
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
        twin = ColorFlushState.__new__(ColorFlushState)
        twin.__dict__.update(self.__dict__)
        twin.options = dict(self.options)
        twin.chance = self.chance.copy()
        twin.table = self.table.clone()
        twin._legal = None if self._legal is None else self._legal[:]
        twin._reset_events()
        return twin

    # -- event helpers -------------------------------------------------------------------

    def _held_view(self, card: int, viewer: int | None) -> dict[str, str | None]:
        if viewer is None:
            return {"face": self.table.face(card), "back": self.table.back(card)}
        return self.table.card_view(card, viewer)

    def _emit_card(self, event: dict[str, Any], card: int, pile: bool = False) -> None:
        """Emit `event` with ``card`` as each seat knows it (the god log: both sides)."""
        self.emit_varying(event, "card", *self.table.views_by_seat(card, pile))


# -- a constructor for hand-set states (`ColorFlush.lay_out`) -----------------------

def _layout_state(hands, pile, *, active: int, left, turns: int, options: Mapping[str, Any] | None,
                  seed: int) -> ColorFlushState:
    """`ColorFlush.lay_out` with a layout."""
    players = len(hands)
    given = dict(options or {})
    given.pop("deck", None)
    resolved = ColorFlush.resolve_options(given)
    cards = [tuple(card) for hand in hands for card in hand] + [tuple(card) for card in pile]
    resolved["deck"] = [list(card) for card in cards]
    state = ColorFlushState(players, resolved, random.Random(seed))
    table = state.table
    card = 0
    for seat, hand in enumerate(hands):
        for _ in hand:
            table.side[card] = 0
            table.hands[seat].append(card)
            table._show_held(seat, card)
            card += 1
    table.new_pile(PILE, list(range(card, len(cards))), up_sides=[0] * len(pile))
    state.active = active
    state.turns = turns
    state.left = sum(bit for bit, name in ACTION_NAMES if name in left)
    return state
