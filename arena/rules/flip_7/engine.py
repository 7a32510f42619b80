"""Flip 7 (`flip-7`): push your luck, one card at a time.

Rules page of this ruleset, after the seed rulebook (`002_767dfbb72fcf16e3.txt`) and the
rulings (`shared/rules/flip-7.md`). "Flip 7" is a trademark of its owner (The Op); this
is an unofficial implementation for AI research.

Players
    1 to 36. 3+ is the real game, 2 is allowed for head-to-head tables, 1 is the solo
    challenge (how many rounds to reach `target_score`; fewer is better). Seats are
    0 .. players-1 clockwise; "left of" seat s is seat s+1.

Deck
    94 cards: numbers "0".."12" (n copies of n, one "0"), modifiers "+2", "+4", "+6",
    "+8", "+10", "x2" (one each), actions "freeze", "flip-three", "second-chance" (three
    each). Above 18 players two such decks are shuffled together (188 cards). Cards are
    one-sided: a card is just its face string. Everything on the table is public; the
    only hidden thing is the order of the deck.

Round
    Seat 0 deals round 1; the deal passes left each round. The dealer deals one card to
    each player starting left of the dealer, dealer last. An action card dealt during
    the deal is resolved at once (its target chosen, a Flip Three played out), then the
    deal goes on. A player who is no longer active when the deal reaches them (frozen,
    or busted by a Flip Three) is skipped by the deal. One frozen before receiving their
    deal card banks what their row already holds, like any frozen player (0 unless a
    Flip Three dealt them cards; the ruling, amended in turn 2). One dealt cards by a
    Flip Three before their deal card, and still active, gets their deal card when the
    deal reaches them. Then, starting left of the dealer,
    each active player in turn chooses hit or stay, around the table, until nobody is
    active. Stay needs at least one card of any kind in front of the player.
    A number equal to one already in the row busts the player (0 this round; the cards
    stay on the table, the duplicate included, until the round ends). Seven different
    numbers (Flip 7) end the round at once for everyone, with +15 for that player.

Action cards
    freeze / flip-three: the player dealt it gives it to any ACTIVE player, themself
    included (the only active player must take it: a single legal action). The card is
    placed in front of its target. Freeze: the target banks their points and is out of
    the round. Flip Three: the target takes the next three cards one at a time; every
    card counts toward the three; it stops early on a bust or a Flip 7. A Second Chance
    among the three is handled at once (kept, used later in the same Flip Three, or
    passed on); using one discards it with the duplicate and the Flip Three goes on with
    its remaining cards. A Freeze or Flip Three among the three is set aside and, after
    the three cards, handed out by the target one at a time in the order flipped (each
    one fully resolved, a nested Flip Three included, before the next is handed out),
    unless the target busted or flipped 7 (then they are discarded). A target who
    leaves the round during the hand-out (frozen by one of the cards, or busted by a
    Flip Three they gave themself) still hands out the rest; a card with no active
    player left to receive it is discarded.
    second-chance: kept if the player holds none. A second one is given by that player to
    another active player holding none (their choice), or discarded if nobody
    qualifies. On a duplicate number the holder discards the duplicate and the Second
    Chance and stays in the round; on a hit that ends their turn (no replacement card).
    Unused Second Chances are discarded at the end of the round.
    Turn order is not changed by action cards: after a hit and everything it set off
    is resolved, the next hit-or-stay turn goes to the next active player after the
    player whose turn it was.

Scoring and the deck between rounds
    Round score: sum of numbers, doubled by x2 (numbers only), plus +2..+10, plus 15 for
    a Flip 7; busted players score 0. A lone +N scores N, a lone x2 scores 0. At the end
    of a round every card on the table goes to the set-aside pile (not shuffled back);
    the deck carries on into the next round. Cards discarded during a round (a used
    Second Chance and its duplicate, a surplus Second Chance, set-aside action cards that
    are thrown away) go to the set-aside pile at once. When a card must be drawn and the
    deck is empty, the set-aside pile is shuffled (the game's seeded RNG) into a new deck,
    even mid-round; cards in front of players stay where they are.

End of the game
    After a round in which someone's total is >= `target_score`: if exactly one player
    has the highest total, the game ends; if the top is tied, EVERYONE plays another
    round. Standing by total score (ties share a place). Solo: the game ends after the
    round in which the total reaches `target_score`. `outcome()` always includes
    ``"rounds"`` (rounds played) and ``"reason"``: "target", or "max_rounds" when the
    `max_rounds` safety valve stopped the game (then, as for every ruleset's turn limit,
    all players are tied first; "scores" still holds the totals).

Options
    target_score (int >= 1, default 200): the total that ends the game.
    max_rounds (int >= 1, default 1000): safety valve; the game stops after this many
    rounds. Real games end in ~10-40 rounds; it exists so that no pathological bot
    pairing can loop forever.

Action grammar (legal_actions, in this order)
    "hit", "stay"          a hit-or-stay turn ("stay" only with a card in front of you)
    "freeze:<seat>"        give the Freeze you were dealt (or are handing out) to <seat>
    "flip-three:<seat>"    give the Flip Three likewise
    "second-chance:<seat>" give your surplus Second Chance to <seat>
    Targets are listed in seat order.

View fields (view(seat); identical for every seat: everything is public)
    round          1-based round number
    dealer         the dealer's seat
    phase          "deal" (the deal is still going on), "play" or "over"
    turn           the seat that decides now (None when the game is over)
    decision       "hit-or-stay", "freeze", "flip-three", "second-chance" or None
    turn_seat      whose hit-or-stay turn it is, or None during the deal
    rows           per seat: {"numbers": [ints, in arrival order; a busted row ends with
                   the duplicate], "modifiers": ["+4", "x2", ...], "actions": ["freeze",
                   "flip-three" played on this seat], "second_chance": bool (holds one),
                   "status": "active" | "stayed" | "busted" | "frozen" | "flip7",
                   "number_sum": int, "score": round score so far (0 if busted)}
    totals         total score per seat before this round
    deck_size      cards left in the deck
    set_aside      {card: count} of the set-aside pile (finished rounds and discards)
    unseen         {card: count} of the deck: the composition minus every visible
                   card (public by card counting; only the ORDER is hidden)
    pending        what is still to be resolved, outermost first: {"kind": "deal",
                   "next": [seats still to be dealt]}, {"kind": "flip-three", "target": s,
                   "cards_left": k, "set_aside": [cards to hand out]}, {"kind":
                   "hand-out", "seat": s, "cards": [cards still to hand out]}
    target_score   the option, for convenience
    Count dicts list card strings in the canonical order "0".."12", "+2".."+10", "x2",
    "freeze", "flip-three", "second-chance", and omit zero counts.

Event types (all public; every seat receives every event)
    round-start {round, dealer}
    card        {seat, card, source: "deal" | "hit" | "flip-three"}: seat received card
    set-aside   {seat, card}: an action card put aside during a Flip Three
    stay        {seat, score}
    bust        {seat, card}
    flip-7      {seat}
    second-chance-used {seat, card}: the duplicate and the Second Chance are discarded
    give        {seat, card, to}: seat gave an action card / surplus Second Chance to `to`
                (for a Freeze: also "score", what the target banked)
    discard     {seat, cards, reason: "no-recipient" | "bust" | "no-active"}
    reshuffle   {cards}: the set-aside pile became the deck
    deck-empty  {}: no card left anywhere; the round ends (see below)
    round-end   {round, scores, totals, reason: "flip-7" | "no-active" | "no-cards"}
    game-end    {totals, reason, rounds}

Decisions where the rulings are silent (recorded here)
    - A player given a Flip Three before their own deal card still gets their deal
      card if they are still active when the deal reaches them (now also a ruling).
    - The duplicate that busts a player stays in their row (shown last in "numbers").
    - Used Freeze / Flip Three cards lie in front of their target ("actions") until the
      round ends; they count as "a card in front of the player" for staying.
    - Cards discarded mid-round join the set-aside pile at once, so a mid-round
      reshuffle includes them.
    - If a card must be drawn while the deck and the set-aside pile are both empty (all
      cards in front of players: only possible with very many players), the round ends
      at once and everybody not busted banks their row.
    - A hand-out, once begun (the target did not bust during its three cards), goes on
      even if the target leaves the round during it.

Version
    "2". Version "1" scored 0 for a player frozen before their deal card, even one a Flip
    Three had dealt cards; "2" (rulings turn 2) lets them bank their row.

Tests stack the deck with ``Flip7.lay_out(players, deck_top=["5", "freeze", ...])`` (top
first; also ``exact``, ``totals``, ``dealer``).
"""

from __future__ import annotations

import random
from typing import Any, Iterable, Mapping

from arena.errors import OptionError
from arena.rules.base import GameState, Option, Ruleset, standing_from_scores
# the cards (rules/flip_7/deck.py); every name also importable from here, as before
from arena.rules.flip_7.deck import (ACTION_CARDS, CARD_ORDER, MODIFIERS, NUMBERS, ONE_DECK,  # noqa: F401
                                     SECOND_DECK_ABOVE, card_counts, deck_for)
from arena.rules.flip_7.text import Flip7Renderer

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


# -- the ruleset -------------------------------------------------------------------


class Flip7(Ruleset):
    """Flip 7: hit or stay, bust on a duplicate, seven different numbers end the round."""

    id = "flip-7"
    version = "2"
    title = "Flip 7"
    min_players = 1
    max_players = 36
    options = {
        "target_score": Option(200, "total that ends the game (after the round it is reached)",
                               minimum=1),
        "max_rounds": Option(1000, "safety valve: stop after this many rounds (all tied)",
                             minimum=1),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        for name in ("target_score", "max_rounds"):
            value = options[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise OptionError(f"option {name!r} must be an integer of at least 1, not {value!r}")

    capabilities = frozenset({"sample_state", "lay_out"})
    renderer = Flip7Renderer
    card_faces = {**{bonus: ("green", bonus) for bonus in ("+2", "+4", "+6", "+8", "+10")},
                  "x2": ("bright-green", "x2"), "freeze": ("teal", "freeze"),
                  "flip-three": ("yellow", "flip three"), "second-chance": ("purple", "second chance")}
    # cards are one-sided face strings; a seat's row lists them by kind; two piles are counts
    site_view = {"one_sided": {**{card: ["modifier"] for card in MODIFIERS},
                               "freeze": ["action", "teal", "❄"], "flip-three": ["action", "orange", "③"],
                               "second-chance": ["action", "pink", "♥"]},
                 "seat_rows": {"rows": ["numbers", "modifiers", "actions"]},
                 "counted": {"unseen": "unseen (not yet dealt this deck)",
                             "set_aside": "set aside (out of play until the deck is reshuffled)"}}
    # the round's end comes before 60 decisions; what follows it is mostly noise for this
    # round's hit-or-stay; the prior hurts here (the heuristic is a fixed threshold)
    search_hints = {"playout_bot": "arena_bots.flip7_threshold:Flip7ThresholdBot", "playout_depth": 60,
                    "random_playout_depth": 60, "playout_stop": "round-end", "prior_weight": 0.0,
                    "evaluation": "arena_bots.ismcts:evaluate_flip_7"}

    @classmethod
    def draw_probability(cls, players: int) -> float:
        return 0.01  # standing by total score; a tie at the top plays on

    bot_example = '''
        row = view["rows"][me]  # your row this round: numbers, modifiers, status, score...
        if view["decision"] == "hit-or-stay":
            # Your strategy: when to stop. Example: stay once the row is worth 20 points.
            if "stay" in legal and row["score"] >= 20:
                return "stay"
            if "hit" in legal:
                return "hit"
        elif view["decision"] in ("freeze", "flip-three"):
            # Example: aim a Freeze or Flip Three at the best row that is not yours.
            others = [a for a in legal if int(a.split(":")[1]) != me]
            if others:
                return max(others, key=lambda a: view["rows"][int(a.split(":")[1])]["score"])
        return self.rng.choice(legal)
'''

    @classmethod
    def lay_out(cls, players: int, options: Mapping[str, Any] | None = None, seed: int = 0, *,
                deck_top: Iterable[str] = (), exact: bool = False, totals: Iterable[int] | None = None,
                dealer: int = 0) -> Flip7State:
        """A game whose deck starts with `deck_top` (first card drawn first; with `exact`
        the deck is exactly these cards), with `totals` carried in, round 1 dealt by
        `dealer` at once (see `Ruleset.capabilities`)."""
        state = cls.new_game(players, cls.resolve_options(options), random.Random(seed), start=False)
        state._stack_deck(list(deck_top), exact=exact)
        if totals is not None:
            state.totals = list(totals)
        state.dealer = dealer
        state.start()
        return state

    @classmethod
    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random,
                 start: bool = True) -> Flip7State:
        """Shuffle and deal round 1. With ``start=False`` the deck is shuffled but
        nothing is dealt (`lay_out` stacks it, then calls `start()`)."""
        cls.check_players(players)
        state = Flip7State(players, options, rng)
        state.ruleset = cls
        if start:
            state.start()
        return state

    @classmethod
    def sample_state(cls, observation: Mapping[str, Any], rng: random.Random,
                     events: list[dict[str, Any]] | None = None) -> Flip7State:
        """A full game state consistent with `observation` (a determinization for
        search): the unseen cards in a random deck order. How: see
        `sample_flip7_state` (flip_7/sampler.py); `events` are not needed
        (everything but the deck order is public)."""
        from arena.rules.flip_7.sampler import sample_flip7_state

        return sample_flip7_state(observation, rng)


# -- the state ---------------------------------------------------------------------


class Flip7State(GameState):
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

    ruleset = Flip7
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
        self.deck: list[str] = deck_for(players)
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
                    target = frame[1]
                    if frame[2] == 0 or status[target] != ACTIVE:
                        stack.pop()
                        if frame[3]:
                            if status[target] == BUSTED:
                                self._discard(target, frame[3], "bust")
                            else:
                                stack.append([F_HAND_OUT, target, frame[3]])
                        continue
                    frame[2] -= 1
                    self._deal_to(target, "flip-three", frame)
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
        twin = Flip7State.__new__(Flip7State)
        twin.__dict__.update(self.__dict__)
        twin.options = dict(self.options)
        twin.chance = self.chance.copy()
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
        twin._reset_events()
        return twin

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


def _copy_counts(counts: dict[str, int] | None) -> dict[str, int] | None:
    return None if counts is None else counts.copy()


def _copy_frame(frame: list[Any]) -> list[Any]:
    if frame[0] == F_DEAL:
        return [F_DEAL, frame[1], frame[2]]          # the order list is never mutated
    if frame[0] == F_FLIP_THREE:
        return [F_FLIP_THREE, frame[1], frame[2], frame[3].copy()]
    return [F_HAND_OUT, frame[1], frame[2].copy()]
