"""Flip Hue (`flip-hue`): collect five cards of one of your two faction colors.

Rules page. Sources: the publisher's instructions (`shared/seeds/000_cfa0d6ee2b15339e.txt`)
and the project's rulings (`shared/rules/flip-hue.md`); where both are silent, the
decisions listed at the end of this page.

Players
    2 to 6. Seats 0..n-1 play clockwise; seat 0 is the first active player.

Deck (option ``deck``; provisional default, 63 cards)
    Every card has two faces. Faces are colors (``"red"``, ``"orange"``, ``"yellow"``,
    ``"green"``, ``"blue"``, ``"purple"``) or ``"flip"``. Default: the 15 pairs of
    different colors x 3 (45 cards), one card per color with that color on both faces
    (6), and 12 Flip cards (``"flip"`` on one face, a color on the other, 2 per color).
    A custom deck is a list of ``[face, face]`` pairs of non-empty strings; any face but
    ``"flip"`` is a color. No card may show Flip on both faces. The deck must hold at
    least ``players`` cards fit to be a faction card (two different colors, no Flip)
    and at least ``6 * players + 1`` cards in all: a faction card and five hand cards
    per player, plus one so that a cleanup can always refill every hand (at most two
    hands are short at once, and a turn that shortens two hands puts a card on the
    discard pile). The options check validates the deck for 2 players; `new_game`
    re-checks it for the actual number of players.

Setup
    The deck is shuffled, each card with a random side up (two-sided cards turn any way
    in a shuffle). Faction cards: seat by seat, the top card of the draw pile is dealt
    in front of the player with the side that showed on the pile on top (everyone saw
    it); its owner looks at both faces. A card with the same color twice or a Flip face
    goes to the discard pile (as it lay, top face up) and the player is dealt another,
    until every player has a faction card with two different colors. Then five cards
    each, one at a time round the table from seat 0, each with its bottom face toward
    its player; each player looks at both faces of their cards (the only time a player
    sees its own backs without the table showing them).

Who sees what (the shared two-faced model, `arena.rules.cards`)
    A held card has a face (toward its holder) and a back (toward everyone else).
    Drawing: the bottom face ends toward the drawer; the top face, seen by all on the
    pile, becomes the back. Giving or pulling between players does not turn the card:
    face and back swap for the receiver. A discarder chooses which side is up. A Flip
    card in hand is a card whose face (toward its holder) is ``"flip"``; a Flip card
    that is used goes to the discard pile Flip face up. Flipping a hand turns every
    card in it. Faction cards: the owner knows both faces, the others the top face.

A turn (the active player)
    1. Push: give one hand card to another player, or instead discard a Flip card and
       choose any player (self included) who flips their hand.
    2. Pull: choose another player and a position in their hand (the puller sees that
       card's back). The pulled player answers: allow (the card moves to the end of the
       puller's hand), or, holding a Flip card, block by discarding it: the puller flips
       their own hand and pulls nothing.
    3. Cleanup: from the active player, in turn order, each player with fewer than 5
       cards draws up to 5; each with more than 5 discards down to 5, one card at a
       time, choosing the card and the side up.
    4. Check for win: from the active player, in turn order, the first player whose
       hand shows on its faces 5 cards of one color that is one of that player's two
       faction colors, or whose view of **another** player's hand shows 5 backs of one
       of its faction colors, wins. One's own backs never count; a mix of the two
       faction colors does not win.
    A step that is impossible (no card to give; no other player holding a card) is
    skipped. Whenever the draw pile is empty and the discard pile is not, the discard
    pile is shuffled (seeded RNG, each card keeping the side it showed) into a new
    draw pile at once. ``max_turns`` ends the game with everyone tied.

Decisions and ACTION GRAMMAR (positions are 0-based hand positions, seats absolute)
    step "push" (active player):
        ``give:<pos>:<seat>``   give the card at <pos> to <seat> (another player)
        ``flip:<pos>:<seat>``   discard the Flip card at <pos>; <seat> (anyone,
                                self included) flips their hand
    step "pull" (active player):
        ``pull:<seat>:<pos>``   pull the card at <pos> of <seat>'s hand
    step "answer" (the pulled player; always asked, see below):
        ``allow``               let the card go
        ``block:<pos>``         discard the Flip card at <pos>; the puller flips
    step "cleanup" (a player holding more than 5 cards):
        ``discard:<pos>:face``  discard the card at <pos>, its face (toward you) up
        ``discard:<pos>:back``  discard the card at <pos>, its back up
    Order of `legal_actions`: give by position then seat, then flip by position then
    seat; pull by seat then position; allow then block by position; discard by
    position, face before back.

VIEW FIELDS (`view(seat)`, perfect recall; a side not seen is ``None``)
    ``turn``            the active seat (whose turn it is)
    ``to_act``          the seat whose decision it is (None when over)
    ``step``            "push", "pull", "answer", "cleanup" or "over"
    ``turn_number``     turns started so far (1 on the first turn)
    ``max_turns``       the limit in force
    ``factions``        per seat ``{"top", "bottom"}``: own both, others' bottom None
    ``hand``            own hand by position, ``{"face", "back"}`` toward you; the back
                        is known if you saw it (the deal, a drawn card's pile face,
                        a flip, a card that faced you before you took it)
    ``hands``           every seat's hand by position, ``{"face", "back"}`` relative to
                        its holder, as you know it (others' backs always known)
    ``draw_pile``       ``{"size", "top": {"up", "down"} or None}``
    ``discard_pile``    ``{"size", "top": {"up", "down"} or None}``
    ``pull``            during "answer": ``{"seat": puller, "target", "pos"}``; else None
    ``winner``          the winning seat, or None

EVENT TYPES (each seat gets them as it saw them; ``card`` is ``{"face", "back"}``
relative to the holder after the move, or ``{"up", "down"}`` for a pile, with None
for a side that seat has not seen)
    ``faction``   {seat, top, bottom (owner only), kept}: a faction card was dealt;
                  kept=False: it went to the discard pile and another is dealt
    ``deal``      {seat, card}: a card of the initial deal
    ``turn``      {seat, turn}: a turn begins
    ``give``      {seat, pos, to, card}
    ``push_flip`` {seat, pos, target, hand}: Flip card discarded; `target` flipped,
                  ``hand`` = the target's hand afterwards as the receiving seat knows it
    ``pull``      {seat, target, pos}: a pull is announced
    ``take``      {seat, from, pos, card}: the pull went through
    ``block``     {seat, pos, puller, hand}: the pulled player discarded a Flip card;
                  the puller flipped (``hand`` = the puller's hand afterwards)
    ``skip``      {seat, step}: a step that was impossible
    ``draw``      {seat, card}: a cleanup draw
    ``discard``   {seat, pos, card}: a cleanup discard (``card`` has up/down)
    ``reshuffle`` {size, top}: the discard pile became the draw pile
    ``win``       {seat, color, hand, side}: `seat` won with `hand`'s faces
                  (side "face", hand == seat) or backs (side "back")
    ``max_turns`` {turn}: the game stopped at the turn limit

Options
    ``deck``        list of face pairs (default: the 63-card provisional deck)
    ``max_turns``   int >= 1 (default 300): turns (one player's turn each) before the
                    game stops with everyone tied

Outcome
    A win: the winner first (score 1), everyone else tied second (score 0), reason
    "win". The turn limit: everyone tied first, reason "max_turns". Also ``turns``.

Version "1".

Decisions where the seed and the rulings are silent
    - The initial shuffle turns each card a random side up (seeded RNG).
    - The faction card keeps the side that showed on the pile on top; a rejected
      faction card goes to the discard pile top face up.
    - The initial deal is round-robin from seat 0, one card at a time.
    - There is no win check after the deal: checks happen only in step 4 of a turn.
    - The pulled player is always asked (``allow`` alone when holding no Flip card), so
      the seats' observations and the decision sequence do not depend on whether the
      pulled player could have blocked. The harness skips asking a seat whose only
      action is ``allow``; the events are the same either way.
    - A player without a Flip card answers ``allow``; a block is offered even when the
      pulled card itself is the Flip card (the block discards the chosen Flip card).
    - "At once": the refill happens as soon as the draw pile is empty and the discard
      pile holds a card, even in the middle of a step (a Flip card discarded onto an
      empty table becomes the whole draw pile).
    - Win by another player's backs needs all 5 cards of that hand; win checks use the
      true cards (each checker sees what it needs: its own faces, the others' backs).
      When one player qualifies in several ways the event reports its own faces first,
      then the other hands in turn order.
    - ``max_turns`` counts individual turns; the game stops after the limit-th turn's
      win check.
    - Give/flip targets need not hold cards; a player whose hand is empty has no
      Push, a Pull with no other player holding cards is skipped (neither happens with
      a valid deck, but the engine handles it).
"""

from __future__ import annotations

import functools
import random
from typing import Any, Mapping, Sequence

from arena.rules.base import Option, OwnEventCopies, Ruleset, winner_standing, winner_takes_all_draws
from arena.rules.cards import TwoFacedTable
# the cards (rules/flip_hue/deck.py); every name also importable from here, as before
from arena.rules.flip_hue.deck import (COLORS, DEFAULT_DECK, FLIP, check_deck, default_deck,  # noqa: F401
                                       fit_for_faction)
from arena.rules.flip_hue.text import FlipHueRenderer

HAND_SIZE = 5
DRAW = "draw"
DISCARD = "discard"

PUSH = "push"
PULL = "pull"
ANSWER = "answer"
CLEANUP = "cleanup"
OVER = "over"


class FlipHue(Ruleset):
    """Flip Hue: push, pull, flip; five cards of a faction color wins."""

    id = "flip-hue"
    version = "1"
    title = "Flip Hue"
    min_players = 2
    max_players = 6
    options = {
        "deck": Option(DEFAULT_DECK, "the cards, as a list of [face, face] pairs (faces: colors or "
                       "'flip'); default: the provisional 63-card deck", kind=list),
        "max_turns": Option(300, "turns (one player's each) before the game stops with everyone tied",
                            minimum=1),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        check_deck(options["deck"], cls.min_players)

    capabilities = frozenset({"sample_state", "lay_out"})
    renderer = FlipHueRenderer
    # the heuristic looks one to two plies ahead (~1 ms a decision): short playouts, a prior
    search_hints = {"playout_bot": "arena_bots.flip_hue_heuristic:FlipHueHeuristicBot", "playout_depth": 3,
                    "random_playout_depth": 0, "playout_stop": None, "prior_weight": 1.0,
                    "evaluation": "arena_bots.ismcts:evaluate_flip_hue"}

    @classmethod
    def draw_probability(cls, players: int) -> float:
        return max(0.3, winner_takes_all_draws(players))  # weak bots often reach max_turns

    card_faces = {face: (face, face) for pair in sorted(DEFAULT_DECK) for face in pair}   # a face is a color

    bot_example = '''
        hand = view["hand"]  # your cards: {"face": toward you, "back": toward the others}
        faction = view["factions"][me]
        colors = (faction["top"], faction["bottom"])  # the two colors that win for you
        if view["step"] == "push":
            # Example: give away a card whose face is not one of your colors.
            for action in legal:
                if action.startswith("give:") and hand[int(action.split(":")[1])]["face"] not in colors:
                    return action
        elif view["step"] == "cleanup":
            # Example: discard a card that is not one of your colors.
            for action in legal:
                if action.startswith("discard:") and hand[int(action.split(":")[1])]["face"] not in colors:
                    return action
        return self.rng.choice(legal)
'''

    @classmethod
    def lay_out(cls, players: int, options: Mapping[str, Any] | None = None, seed: int = 0, *,
                factions: Sequence[Sequence[str]] | None = None,
                hands: Sequence[Sequence[Sequence[str]]] = (), draw: Sequence[Sequence[str]] = (),
                discard: Sequence[Sequence[str]] = (), active: int = 0, turn: int = 0,
                backs_seen: bool = True) -> FlipHueState:
        """The deal of `seed`, replaced by a hand-set layout when `factions` is given
        (see `Ruleset.capabilities`): `factions` per seat ``(top, bottom)``; `hands` per
        seat a list of ``(face, back)`` relative to the holder; `draw` and `discard`:
        piles bottom first, each card ``(up, down)``. The table shows what it would:
        everyone has seen each faction top, each hand card's back (but its holder),
        each card's face (its holder), and each pile top. `backs_seen`: holders have
        also seen their backs (as after the deal). Factions are not checked. An empty
        draw pile is refilled from the discard pile at once. `active`'s turn
        `turn + 1` begins, with no events pending."""
        state = cls.new_game(players, cls.resolve_options(options), random.Random(seed))
        if factions is not None:
            state._set_up(factions, hands, draw, discard, active=active, turn=turn, backs_seen=backs_seen)
        return state

    @classmethod
    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> FlipHueState:
        cls.check_players(players)
        check_deck(options["deck"], players)
        return FlipHueState(players, options, rng)

    @classmethod
    def sample_state(cls, observation: Mapping[str, Any], rng: random.Random,
                     events: list[dict[str, Any]] | None = None) -> FlipHueState:
        """A full game state consistent with `observation` (see "determinization"
        at the end of this module)."""
        from arena.rules.flip_hue.sampler import sample_state

        return sample_state(observation, rng, events)


class FlipHueState(OwnEventCopies):
    """A Flip Hue game in progress (engine state; never shown to a bot).

    Events: every queued event is its seat's own object (`emit` queues a copy per
    seat; `_emit_card` and `_emit_hand` build one per seat), so `take_events` hands
    the queue over without copying it.
    """

    ruleset = FlipHue
    # every event queued through `emit` holds scalars only
    flat_events = frozenset({"turn", "pull", "skip", "reshuffle", "win", "max_turns"})
    # per viewer, the (top, bottom) of every faction card as it knows them: fixed
    # once dealt (faction cards never move), so cached; None: not built yet
    _faction_sides: list[tuple[tuple[str | None, str | None], ...] | None] | None = None

    def __init__(self, players: int, options: Mapping[str, Any], rng: random.Random):
        super().__init__(players, options, rng)
        self.max_turns: int = self.options["max_turns"]
        self.table = TwoFacedTable([(a, b) for a, b in self.options["deck"]], players)
        self.faction: list[int] = [-1] * players
        self.active = 0
        self.to_act: int | None = None
        self.step = PUSH
        self.turn = 0
        self.pull_target = -1
        self.pull_pos = -1
        self.cleanup_index = 0
        self.winner: int | None = None
        self.reason = ""
        self._legal: dict[str, tuple] | None = None
        self._deal()
        self._start_turn()

    # -- setup -----------------------------------------------------------------

    def _deal(self) -> None:
        table, chance = self.table, self.chance
        count = len(table.faces)
        order = list(range(count))
        chance.shuffle(order)
        ups = [chance.bit() for _ in range(count)]
        table.new_pile(DRAW, order, ups)
        table.new_pile(DISCARD, [])
        everyone = range(self.players)
        for seat in everyone:
            while True:
                card = table.piles[DRAW].pop()
                self._show_top(DRAW)
                self._refill()
                table.see_both(card, seat)
                top, bottom = table.face(card), table.back(card)
                kept = fit_for_faction((top, bottom))
                mine = {"type": "faction", "seat": seat, "top": top, "bottom": bottom, "kept": kept}
                others = {"type": "faction", "seat": seat, "top": top, "kept": kept}
                self.emit_each([mine.copy() if s == seat else others.copy() for s in everyone], mine)
                if kept:
                    self.faction[seat] = card
                    break
                table.piles[DISCARD].append(card)
                self._show_top(DISCARD)
                self._refill()
        for _ in range(HAND_SIZE):
            for seat in everyone:
                card = table.deal(DRAW, seat, toward="down")
                table.see_both(card, seat)
                self._emit_card({"type": "deal", "seat": seat}, card)
                self._refill()

    def _set_up(self, factions: Sequence[Sequence[str]], hands: Sequence[Sequence[Sequence[str]]],
                draw: Sequence[Sequence[str]] = (), discard: Sequence[Sequence[str]] = (),
                active: int = 0, turn: int = 0, backs_seen: bool = True) -> None:
        """Replace the deal with a hand-set layout: what `FlipHue.lay_out` does with
        a layout (its arguments are documented there)."""
        if len(factions) != self.players or len(hands) != self.players:
            raise ValueError("lay_out needs a faction and a hand per seat")
        if any(len(hand) > MAX_HAND - 2 for hand in hands):
            raise ValueError(f"lay_out hands hold at most {MAX_HAND - 2} cards")
        faces: list[tuple[str, str]] = []
        for pair in factions:
            faces.append((pair[0], pair[1]))
        for hand in hands:
            faces.extend((f, b) for f, b in hand)
        faces.extend((u, d) for u, d in draw)
        faces.extend((u, d) for u, d in discard)
        self.options["deck"] = [list(pair) for pair in faces]
        table = self.table = TwoFacedTable(faces, self.players)
        everyone = range(self.players)
        card = 0
        for seat in everyone:
            self.faction[seat] = card
            table.see(card, 0, everyone)
            table.see_both(card, seat)
            card += 1
        for seat, hand in enumerate(hands):
            for _ in hand:
                table.add(seat, card, transferred=False)
                if backs_seen:
                    table.see_both(card, seat)
                card += 1
        table.new_pile(DRAW, list(range(card, card + len(draw))))
        card += len(draw)
        table.new_pile(DISCARD, list(range(card, card + len(discard))))
        self.active = active
        self.turn = turn
        self.winner = None
        self.reason = ""
        self._faction_sides = None
        self._reset_events()
        self._refill()
        self._start_turn()

    # -- the decision loop -------------------------------------------------------

    def current_seat(self) -> int | None:
        return self.to_act

    def legal_actions(self) -> list[str]:
        return list(self._actions())

    def apply(self, action: str) -> None:
        parsed = self._actions().get(action)
        if parsed is None:
            raise self._illegal(action)
        self._legal = None
        kind = parsed[0]
        table = self.table
        if kind == "give":
            _, pos, to = parsed
            card = table.give(self.active, pos, to)
            self._emit_card({"type": "give", "seat": self.active, "pos": pos, "to": to}, card)
            self._begin_pull()
        elif kind == "flip":
            _, pos, target = parsed
            table.place(self.active, pos, DISCARD, "face")
            table.flip_hand(target)
            self._emit_hand({"type": "push_flip", "seat": self.active, "pos": pos, "target": target}, target)
            self._refill()
            self._begin_pull()
        elif kind == "pull":
            _, target, pos = parsed
            self.emit({"type": "pull", "seat": self.active, "target": target, "pos": pos})
            self.pull_target, self.pull_pos = target, pos
            self.step = ANSWER
            self.to_act = target
        elif kind == "allow":
            target, pos = self.pull_target, self.pull_pos
            card = table.give(target, pos, self.active)
            self._emit_card({"type": "take", "seat": self.active, "from": target, "pos": pos}, card)
            self.pull_target = self.pull_pos = -1
            self._begin_cleanup()
        elif kind == "block":
            _, pos = parsed
            target = self.pull_target
            table.place(target, pos, DISCARD, "face")
            table.flip_hand(self.active)
            self._emit_hand({"type": "block", "seat": target, "pos": pos, "puller": self.active}, self.active)
            self.pull_target = self.pull_pos = -1
            self._refill()
            self._begin_cleanup()
        else:  # discard
            _, pos, up = parsed
            seat = self.to_act
            card = table.place(seat, pos, DISCARD, up)
            self._emit_card({"type": "discard", "seat": seat, "pos": pos}, card, pile=True)
            self._refill()
            self._continue_cleanup()

    def _actions(self) -> dict[str, tuple]:
        if self._legal is not None:
            return self._legal
        table = self.table
        faces, side = table.faces, table.side
        acts: dict[str, tuple] = {}
        step = self.step
        if step == PUSH:
            me = self.active
            hand = table.hands[me]
            acts.update(_gives(self.players, me, len(hand)))
            for pos, card in enumerate(hand):
                if faces[card][side[card]] == FLIP:
                    acts.update(_flips(self.players, pos))
        elif step == PULL:
            me = self.active
            for seat in range(self.players):
                if seat != me:
                    acts.update(_pulls(seat, len(table.hands[seat])))
        elif step == ANSWER:
            acts["allow"] = _ALLOW
            for pos, card in enumerate(table.hands[self.pull_target]):
                if faces[card][side[card]] == FLIP:
                    name, parsed = _BLOCK[pos]
                    acts[name] = parsed
        elif step == CLEANUP:
            acts.update(_discards(len(table.hands[self.to_act])))
        self._legal = acts
        return acts

    # -- the turn ----------------------------------------------------------------

    def _start_turn(self) -> None:
        self.turn += 1
        self._legal = None
        self.emit({"type": "turn", "seat": self.active, "turn": self.turn})
        self._begin_push()

    def _begin_push(self) -> None:
        if self.table.hands[self.active]:
            self.step, self.to_act = PUSH, self.active
        else:
            self.emit({"type": "skip", "seat": self.active, "step": PUSH})
            self._begin_pull()

    def _begin_pull(self) -> None:
        me, hands = self.active, self.table.hands
        if any(hands[s] for s in range(self.players) if s != me):
            self.step, self.to_act = PULL, me
        else:
            self.emit({"type": "skip", "seat": me, "step": PULL})
            self._begin_cleanup()

    def _begin_cleanup(self) -> None:
        self.cleanup_index = 0
        self._continue_cleanup()

    def _continue_cleanup(self) -> None:
        table = self.table
        hands = table.hands
        piles = table.piles
        while self.cleanup_index < self.players:
            seat = (self.active + self.cleanup_index) % self.players
            hand = hands[seat]
            while len(hand) < HAND_SIZE and piles[DRAW]:
                card = table.deal(DRAW, seat, toward="down")
                self._emit_card({"type": "draw", "seat": seat}, card)
                self._refill()
            if len(hand) > HAND_SIZE:
                self.step, self.to_act = CLEANUP, seat
                return
            self.cleanup_index += 1
        self._check_win()

    def _check_win(self) -> None:
        found = self.find_win()
        if found is not None:
            seat, color, hand, side = found
            self.emit({"type": "win", "seat": seat, "color": color, "hand": hand, "side": side})
            self._finish(seat, "win")
        elif self.turn >= self.max_turns:
            self.emit({"type": "max_turns", "turn": self.turn})
            self._finish(None, "max_turns")
        else:
            self.active = (self.active + 1) % self.players
            self._start_turn()

    def find_win(self) -> tuple[int, str, int, str] | None:
        """The first qualifying ``(seat, color, hand, side)`` in turn order from the
        active player, or None. A hand qualifies when it holds exactly 5 cards whose
        faces (its holder's own, side "face") or backs (another player's, side "back")
        are all one of the checker's two faction colors."""
        table = self.table
        faces, side = table.faces, table.side
        hands = table.hands
        players = self.players
        # One-color summary of each hand's faces and backs ("" when mixed or not 5).
        face_color: list[str] = []
        back_color: list[str] = []
        for hand in hands:
            fc = bc = ""
            if len(hand) == HAND_SIZE:
                first = hand[0]
                f0 = faces[first][side[first]]
                b0 = faces[first][1 - side[first]]
                fc, bc = f0, b0
                for card in hand:
                    pair, s = faces[card], side[card]
                    if fc and pair[s] != fc:
                        fc = ""
                    if bc and pair[1 - s] != bc:
                        bc = ""
                    if not fc and not bc:
                        break
            face_color.append(fc)
            back_color.append(bc)
        for offset in range(players):
            seat = (self.active + offset) % players
            colors = faces[self.faction[seat]]
            if face_color[seat] and face_color[seat] in colors:
                return seat, face_color[seat], seat, "face"
            for k in range(1, players):
                other = (seat + k) % players
                if back_color[other] and back_color[other] in colors:
                    return seat, back_color[other], other, "back"
        return None

    def _finish(self, winner: int | None, reason: str) -> None:
        self.winner = winner
        self.reason = reason
        self.step = OVER
        self.to_act = None
        self._legal = {}

    def outcome(self) -> dict[str, Any]:
        return {"standing": winner_standing(self.players, self.winner),
                "scores": [1 if s == self.winner else 0 for s in range(self.players)],
                "reason": self.reason, "turns": self.turn}

    # -- the piles -----------------------------------------------------------------

    def _show_top(self, pile: str) -> None:
        cards = self.table.piles[pile]
        if cards:
            top = cards[-1]
            self.table.see(top, self.table.side[top], range(self.players))

    def _refill(self) -> None:
        """The draw pile never stays empty while the discard pile holds a card."""
        table = self.table
        if table.piles[DRAW] or not table.piles[DISCARD]:
            return
        table.move_pile(DISCARD, DRAW)
        table.shuffle(DRAW, self.chance)
        top = table.piles[DRAW][-1]
        self.emit({"type": "reshuffle", "size": len(table.piles[DRAW]), "top": table.face(top)})

    def chance_pile(self) -> tuple[list[int], Any]:
        return self.table.piles[DRAW], self.table.card_name

    def _draw_top_changed(self) -> None:
        self._show_top(DRAW)

    # -- views and events ------------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        table = self.table
        factions = [{"top": top, "bottom": bottom} for top, bottom in self._factions_seen_by(seat)]
        pull = None
        if self.step == ANSWER:
            pull = {"seat": self.active, "target": self.pull_target, "pos": self.pull_pos}
        hands = table.hands_view(seat)
        return {
            "turn": self.active,
            "to_act": self.to_act,
            "step": self.step,
            "turn_number": self.turn,
            "max_turns": self.max_turns,
            "factions": factions,
            "hand": [card.copy() for card in hands[seat]],   # == hands[seat], its own dicts
            "hands": hands,
            "draw_pile": {"size": len(table.piles[DRAW]), "top": table.top_view(DRAW, seat)},
            "discard_pile": {"size": len(table.piles[DISCARD]), "top": table.top_view(DISCARD, seat)},
            "pull": pull,
            "winner": self.winner,
        }

    def _factions_seen_by(self, viewer: int) -> tuple[tuple[str | None, str | None], ...]:
        """(top, bottom) of every seat's faction card as `viewer` knows them (cached)."""
        cache = self._faction_sides
        if cache is None:
            cache = self._faction_sides = [None] * self.players
        sides = cache[viewer]
        if sides is None:
            table = self.table
            known = [table.card_view(card, viewer) if card >= 0 else {"face": None, "back": None}
                     for card in self.faction]
            sides = cache[viewer] = tuple((card["face"], card["back"]) for card in known)
        return sides

    def _emit_card(self, event: dict[str, Any], card: int, pile: bool = False) -> None:
        """Emit `event` with ``card`` as each seat knows it (the god log: both sides)."""
        self.emit_varying(event, "card", *self.table.views_by_seat(card, pile))

    def _emit_hand(self, event: dict[str, Any], holder: int) -> None:
        """Emit `event` with ``hand`` = `holder`'s hand as each seat knows it."""
        table = self.table
        self.emit_varying(event, "hand", [table.hand_view(holder, viewer) for viewer in range(self.players)],
                          [{"face": table.face(c), "back": table.back(c)} for c in table.hands[holder]])

    # -- search support ---------------------------------------------------------------

    def clone(self) -> FlipHueState:
        twin = FlipHueState.__new__(FlipHueState)
        twin.players = self.players
        twin.options = dict(self.options)
        twin.chance = self.chance.copy()
        twin.max_turns = self.max_turns
        twin.table = self.table.clone()
        twin.faction = self.faction.copy()
        twin._faction_sides = None if self._faction_sides is None else self._faction_sides.copy()
        twin.active = self.active
        twin.to_act = self.to_act
        twin.step = self.step
        twin.turn = self.turn
        twin.pull_target = self.pull_target
        twin.pull_pos = self.pull_pos
        twin.cleanup_index = self.cleanup_index
        twin.winner = self.winner
        twin.reason = self.reason
        twin._legal = None if self.step != OVER else {}
        twin._reset_events()
        return twin


MAX_HAND = 64
_SEATS = range(FlipHue.max_players)
_POSITIONS = range(MAX_HAND)
_ALLOW = ("allow",)
_GIVE = [[(f"give:{p}:{s}", ("give", p, s)) for s in _SEATS] for p in _POSITIONS]
_FLIP = [[(f"flip:{p}:{s}", ("flip", p, s)) for s in _SEATS] for p in _POSITIONS]
_PULL = [[(f"pull:{s}:{p}", ("pull", s, p)) for p in _POSITIONS] for s in _SEATS]
_BLOCK = [(f"block:{p}", ("block", p)) for p in _POSITIONS]
_DISCARD = [((f"discard:{p}:face", ("discard", p, "face")), (f"discard:{p}:back", ("discard", p, "back")))
            for p in _POSITIONS]


# The same, grouped as `_actions` adds them, in legal order ({action: parsed}; shared,
# never changed: `_actions` copies them into its own dict).

@functools.lru_cache(maxsize=None)
def _gives(players: int, me: int, size: int) -> dict[str, tuple]:
    """Every give of seat `me` holding `size` cards: by position, then seat."""
    return dict(_GIVE[pos][seat] for pos in range(size) for seat in range(players) if seat != me)


@functools.lru_cache(maxsize=None)
def _flips(players: int, pos: int) -> dict[str, tuple]:
    """The push-flips of the Flip card at `pos`, by target seat."""
    return dict(_FLIP[pos][seat] for seat in range(players))


@functools.lru_cache(maxsize=None)
def _pulls(seat: int, size: int) -> dict[str, tuple]:
    """The pulls from `seat` holding `size` cards, by position."""
    return dict(_PULL[seat][:size])


@functools.lru_cache(maxsize=None)
def _discards(size: int) -> dict[str, tuple]:
    """The cleanup discards from a hand of `size` cards: by position, face before back."""
    return dict(pair for pos in range(size) for pair in _DISCARD[pos])
