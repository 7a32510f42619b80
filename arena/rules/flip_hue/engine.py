"""The Flip Hue engine: `FlipHueState`, a game in progress, and the rules' constants.

The rules page, and `FlipHue` (options, setup, hints), are in `ruleset.py`; the cards in
`deck.py`. This module holds only the state and plain functions, so that it can be
compiled (mypyc) apart from the ruleset's class attributes and rules page.
"""

from __future__ import annotations

import functools
import random
from typing import Any, Mapping, Sequence

from arena.rules.base import winner_standing
from arena.rules.cards import TwoFacedTable
from arena.rules.engine_base import EngineOwnEventCopies
from arena.rules.game_state import deep_copy_by_clone, rebuilt_state
# the cards (rules/flip_hue/deck.py); every name also importable from here, as before
from arena.rules.flip_hue.deck import (COLORS, DEFAULT_DECK, FLIP, check_deck, default_deck,  # noqa: F401
                                       fit_for_faction)

HAND_SIZE = 5
DRAW = "draw"
DISCARD = "discard"

PUSH = "push"
PULL = "pull"
ANSWER = "answer"
CLEANUP = "cleanup"
OVER = "over"

MAX_SEATS = 6


class FlipHueState(EngineOwnEventCopies):
    """A Flip Hue game in progress (engine state; never shown to a bot).

    Events: every queued event is its seat's own object (`emit` queues a copy per
    seat; `_emit_card` and `_emit_hand` build one per seat), so `take_events` hands
    the queue over without copying it.
    """

    # every event queued through `emit` holds scalars only
    flat_events = frozenset({"turn", "pull", "skip", "reshuffle", "win", "max_turns"})
    # per viewer, the (top, bottom) of every faction card as it knows them: fixed
    # once dealt (faction cards never move), so cached; None: not built yet
    _faction_sides: list[tuple[tuple[str | None, str | None], ...] | None] | None = None

    def __init__(self, players: int, options: Mapping[str, Any], rng: random.Random | int,
                 fresh: bool = True):
        """A new game, dealt, its first turn begun. With ``fresh=False`` only `GameState`'s
        fields are set: the caller (`clone`, the sampler) sets the rest."""
        super().__init__(players, options, rng)
        if not fresh:
            return
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
            assert seat is not None   # the cleanup step always names the seat discarding
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
            holder = self.to_act
            assert holder is not None   # the cleanup step always names the seat discarding
            acts.update(_discards(len(table.hands[holder])))
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

    def factions_seen_by(self, viewer: int) -> tuple[tuple[str | None, str | None], ...]:
        """(top, bottom) of every seat's faction card as `viewer` knows them (None: a side it
        has not seen), as its view shows them (public, for searches reading the state)."""
        return self._factions_seen_by(viewer)

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
        # every field by name (a compiled state has no __dict__ to copy); the constructor
        # sets GameState's, the clone's event queues empty
        twin = FlipHueState(self.players, self.options, 0, fresh=False)
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
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> FlipHueState:
        return deep_copy_by_clone(self, memo)

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_state, (FlipHueState, self.players, self.options, _FIELDS,
                               [getattr(self, name) for name in _FIELDS])


# Every field of a state but `players` and `options`, for pickling (`FlipHueState.__reduce__`).
_FIELDS = ("chance", "god_log", "_pending", "max_turns", "table", "faction", "_faction_sides", "active",
           "to_act", "step", "turn", "pull_target", "pull_pos", "cleanup_index", "winner", "reason", "_legal")


MAX_HAND = 64
_SEATS = range(MAX_SEATS)
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
