"""The UNO Flip engine: `UnoFlipState`, a game in progress, and the rules' constants.

The rules page, and `UnoFlip` (options, setup, hints), are in `ruleset.py`; the cards in
`deck.py`. This module holds only the state and plain functions, so that it can be
compiled (mypyc) apart from the ruleset's class attributes and rules page.
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from arena.rules.base import standing_from_scores
from arena.rules.cards import TwoFacedTable
from arena.rules.engine_base import EngineState
from arena.rules.game_state import deep_copy_by_clone, rebuilt_state
# the cards (rules/uno_flip/deck.py); every name also importable from here, as before
from arena.rules.uno_flip.deck import (COLORED_ACTIONS, COLORS, COPIES_PER_COLOR, DARK, DECK_COLUMNS,  # noqa: F401
                                       DECK_FILE, DECK_MAX, DECK_SIZE, DEFAULT_DECK, DRAW, DRAW_COUNTS,
                                       EXAMPLE_FACES, FLIP, HAND_SIZE, KINDS, LIGHT, NUMBER, NUMBERS, POINTS,
                                       REVERSE, SIDE_NAMES, SKIP, SKIP_ALL, WILD, WILDS_PER_KIND, WILD_COLOR,
                                       WILD_DRAW, WILD_VALUES, DeckFileError, UnoFlipDeck, check_deck,
                                       check_deck_rows, deck_from_option, expected_composition, face_string,
                                       load_deck, parse_deck_csv, parse_face)

# -- constants -------------------------------------------------------------------

# Event types whose values are all scalars: a seat's copy is a shallow dict copy.
SCALAR_EVENTS = frozenset({"deal", "opening", "reinsert", "play", "keep", "reshuffle", "flip",
                           "color", "skip", "skip-everyone", "reverse", "accept", "challenge",
                           "uno-penalty", "max-turns"})

# Decisions (phases).
PLAY, DRAWN, CHALLENGE, COLOR, OVER = "play", "drawn", "challenge", "color", "over"

COLOR_ACTIONS = tuple(tuple(f"color:{c}" for c in colors) for colors in COLORS)


def _with_uno(actions: Sequence[str]) -> tuple[str, ...]:
    return tuple(text for action in actions for text in (action, action + ":uno"))


# Action strings per hand position, built once for the positions a hand of the shipped
# deck can reach; `_compute_legal` grows them in place for a longer hand (a custom deck).
_PLAY: list[tuple[str, ...]] = []
_PLAY_UNO: list[tuple[str, ...]] = []
_PLAY_WILD: tuple[list[tuple[str, ...]], ...] = ([], [])
_PLAY_WILD_UNO: tuple[list[tuple[str, ...]], ...] = ([], [])


def _action_tables(positions: int) -> None:
    """Make the per-position action tables cover hand positions 0 .. positions-1."""
    for p in range(len(_PLAY), positions):
        _PLAY.append((f"play:{p}",))
        _PLAY_UNO.append(_with_uno(_PLAY[p]))
        for side, colors in enumerate(COLORS):
            _PLAY_WILD[side].append(tuple(f"play:{p}:{c}" for c in colors))
            _PLAY_WILD_UNO[side].append(_with_uno(_PLAY_WILD[side][p]))


_action_tables(DECK_SIZE)
_DRAWN = ("play-drawn",)
_DRAWN_UNO = _with_uno(_DRAWN)
_DRAWN_WILD = tuple(tuple(f"play-drawn:{c}" for c in colors) for colors in COLORS)
_DRAWN_WILD_UNO = tuple(_with_uno(actions) for actions in _DRAWN_WILD)


# -- the state -------------------------------------------------------------------

# Every field of a state but `players` and `options`, for pickling (`UnoFlipState.__reduce__`).
_FIELDS = ("chance", "god_log", "_pending", "deck", "target", "lowest", "redraw", "reverse_skips",
           "uno_penalty", "max_turns", "everyone", "scores", "round", "dealer", "round_turns",
           "last_points", "last_hands", "winner", "reason", "active", "direction", "turns", "color",
           "seat", "phase", "color_reason", "challenge_info", "table", "_legal")


class UnoFlipState(EngineState):
    """One game of UNO Flip in progress (engine state; bots only see `view`).

    `challenge_info` is None, or while a Wild Draw awaits its answer ``(offender, the
    card's value, the color in force before it, the offender's hand size after it)``.
    """

    flat_events = SCALAR_EVENTS

    # the fields (set by __init__, each round's start, or by `clone` and the sampler)
    deck: UnoFlipDeck
    target: int
    lowest: bool
    redraw: bool
    reverse_skips: bool
    uno_penalty: int
    max_turns: int
    everyone: tuple[int, ...]
    scores: list[int]
    round: int
    dealer: int
    round_turns: list[int]
    last_points: list[int]
    last_hands: list[list[str]] | None
    winner: int | None
    reason: str | None
    active: int
    direction: int
    turns: int
    color: str | None
    seat: int
    phase: str
    color_reason: str | None
    challenge_info: tuple[int, str, str | None, int] | None
    table: TwoFacedTable
    _legal: list[str] | None

    @staticmethod
    def copy_event(event: dict[str, Any]) -> dict[str, Any]:
        """A fresh copy of an event whose values are scalars, lists of scalars or lists
        of flat dicts or of lists of scalars (round-end's "hands")."""
        copy = event.copy()
        if copy["type"] == "draw":  # hot path: the common one, its "cards" a list of flat dicts
            copy["cards"] = [card.copy() for card in copy["cards"]]
            return copy
        for key, value in copy.items():
            if type(value) is list:
                copy[key] = [item.copy() if type(item) is dict or type(item) is list else item
                             for item in value]
        return copy

    def __init__(self, players: int, options: Mapping[str, Any], rng: random.Random | int,
                 deck: UnoFlipDeck | None = None, fresh: bool = True):
        """`deck`: other cards than option `deck`'s (checked by `UnoFlip.new_game`), as
        `UnoFlip.lay_out` passes them (e.g. the same cards with other ids). With
        ``fresh=False`` only `GameState`'s fields are set: the caller (`clone`, the
        sampler) sets the rest."""
        super().__init__(players, options, rng)
        if not fresh:
            return
        self.deck = deck if deck is not None else deck_from_option(options.get("deck"))
        self.target = options["target_score"]
        self.lowest = options["scoring"] == "lowest"
        self.redraw = options["opening_action"] == "redraw"
        self.reverse_skips = bool(options["two_player_reverse_skips"]) and players == 2
        self.uno_penalty = options["uno_penalty"]
        self.max_turns = options["max_turns"]
        self.everyone = tuple(range(players))
        self.scores = [0] * players
        self.round = 0
        self.dealer = 0
        self.round_turns = []
        self.last_points = [0] * players
        self.last_hands = None
        self.winner = None
        self.reason = None
        self._start_round()

    # -- the decision loop ---------------------------------------------------

    def current_seat(self) -> int | None:
        return None if self.phase == OVER else self.seat

    def legal_actions(self) -> list[str]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal.copy()

    def apply(self, action: str) -> None:
        legal = self._legal if self._legal is not None else self._compute_legal()
        if action not in legal:
            self._legal = legal
            raise self._illegal(action)
        self._legal = None
        phase = self.phase
        seat = self.seat
        if phase == PLAY:
            if action == "draw":
                if self._draw(seat, 1, "turn"):
                    self.phase = DRAWN
                else:
                    self._begin_turn(self._next(seat))
            else:
                parts = action.split(":")
                named = parts[2] if len(parts) > 2 and parts[2] != "uno" else None
                self._play(seat, int(parts[1]), named, parts[-1] == "uno", False)
        elif phase == DRAWN:
            if action == "keep":
                self.emit({"type": "keep", "seat": seat})
                self._begin_turn(self._next(seat))
            else:
                parts = action.split(":")
                named = parts[1] if len(parts) > 1 and parts[1] != "uno" else None
                self._play(seat, len(self.table.hands[seat]) - 1, named, parts[-1] == "uno", True)
        elif phase == CHALLENGE:
            self._answer_wild_draw(seat, action == "challenge")
        else:  # COLOR
            self.color = action[6:]
            self.emit({"type": "color", "seat": seat, "color": self.color})
            if self.color_reason == "opening":
                self.phase = PLAY
            else:
                self._begin_turn(self._next(seat))

    def view(self, seat: int) -> dict[str, Any]:
        table = self.table
        draw = table.piles["draw"]
        discard = table.piles["discard"]
        return {
            "side": SIDE_NAMES[self.active],
            "round": self.round,
            "dealer": self.dealer,
            "turn": None if self.phase == OVER else self.seat,
            "phase": self.phase,
            "color": self.color,
            "direction": self.direction,
            "hands": table.hands_view(seat),
            "draw_pile": {"size": len(draw), "top": table.top_view("draw", seat)},
            "discard": {"size": len(discard), "top": table.top_view("discard", seat)},
            "scores": list(self.scores),
            "turns": self.turns,
            "max_turns": self.max_turns,
            "pending": self._pending_view(),
        }

    def outcome(self) -> dict[str, Any]:
        if self.reason == "max_turns":
            standing = [1] * self.players
        elif self.target == 0:
            keys = [-1 if s == self.winner else p for s, p in enumerate(self.last_points)]
            standing = standing_from_scores(keys, highest_first=False)
        else:
            standing = standing_from_scores(self.scores, highest_first=not self.lowest)
        return {"standing": standing, "scores": list(self.scores), "reason": self.reason,
                "rounds": self.round, "round_turns": list(self.round_turns),
                "points": list(self.last_points),
                "hands": None if self.last_hands is None else [list(h) for h in self.last_hands]}

    def clone(self) -> UnoFlipState:
        # every field by name (a compiled state has no __dict__ to copy); the constructor
        # sets GameState's (options copied), the clone's event queues empty
        twin = UnoFlipState(self.players, self.options, 0, fresh=False)
        twin.chance = self.chance.copy()
        twin.deck = self.deck   # never changed
        twin.target, twin.lowest, twin.redraw = self.target, self.lowest, self.redraw
        twin.reverse_skips, twin.uno_penalty, twin.max_turns = self.reverse_skips, self.uno_penalty, self.max_turns
        twin.everyone = self.everyone
        twin.scores = list(self.scores)
        twin.round, twin.dealer = self.round, self.dealer
        twin.round_turns = list(self.round_turns)
        twin.last_points = list(self.last_points)
        twin.last_hands = self.last_hands   # never changed in place
        twin.winner, twin.reason = self.winner, self.reason
        twin.active, twin.direction, twin.turns = self.active, self.direction, self.turns
        twin.color, twin.seat, twin.phase = self.color, self.seat, self.phase
        twin.color_reason, twin.challenge_info = self.color_reason, self.challenge_info   # a str, a tuple
        twin.table = self.table.clone()
        twin._legal = None
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> UnoFlipState:
        return deep_copy_by_clone(self, memo)

    def __reduce__(self) -> tuple[Any, ...]:
        return rebuilt_state, (UnoFlipState, self.players, self.options, _FIELDS,
                               [getattr(self, name) for name in _FIELDS])

    def chance_pile(self) -> tuple[list[int], Any]:
        return self.table.piles["draw"], self.table.card_name

    def _draw_top_changed(self) -> None:
        self.table.show_top("draw")

    # -- rounds ----------------------------------------------------------------

    def _start_round(self) -> None:
        deck = self.deck
        self.round += 1
        self.active = LIGHT
        self.direction = 1
        self.turns = 0
        self.color = None
        self.seat = self._next(self.dealer)
        self.phase = PLAY
        self.color_reason = None
        self.challenge_info = None
        self._legal = None
        table = self.table = TwoFacedTable(deck.faces, self.players)
        table.new_pile("draw", deck.canonical, up_sides=[DARK] * len(deck.canonical))
        table.new_pile("discard", [])
        table.shuffle("draw", self.chance)
        hand_size = self.options["hand_size"]
        for _ in range(hand_size):
            for k in range(1, self.players + 1):
                table.deal("draw", (self.dealer + k) % self.players, toward="down")
        self.emit({"type": "deal", "round": self.round, "dealer": self.dealer, "cards": hand_size})
        self._open()

    def _open(self) -> None:
        deck = self.deck
        first = self._next(self.dealer)
        card = self._turn_up()
        flipped = False
        while True:
            kind = deck.kind[self.active][card]
            if self.redraw:
                if kind == NUMBER:
                    break
                card = self._turn_up()
            elif kind == WILD_DRAW:
                self._reinsert(card)
                card = self._turn_up()
                flipped = False
            elif kind == FLIP and not flipped:
                self._flip(None)
                flipped = True
            else:
                break
        a = self.active
        if kind == WILD:
            self.color_reason = "opening"
            self._begin_turn(first, COLOR)
            return
        self.color = deck.color[a][card]
        if kind == DRAW:
            self._draw(first, deck.draws[a][card], deck.value[a][card])
            self.emit({"type": "skip", "seat": first})
            self._begin_turn(self._next(first))
        elif kind == SKIP or kind == SKIP_ALL:
            self.emit({"type": "skip", "seat": first})
            self._begin_turn(self._next(first))
        elif kind == REVERSE:
            self.direction = -1
            self.emit({"type": "reverse", "direction": -1})
            self._begin_turn(self.dealer)
        else:  # a number, or a Flip exposed by the opening Flip
            self._begin_turn(first)

    def _end_round(self, winner: int) -> None:
        a = self.active
        points_of = self.deck.points[a]
        faces = self.deck.faces
        table = self.table
        points = [sum(points_of[c] for c in hand) for hand in table.hands]
        # Every hand is shown to everyone (the ruling): its faces are seen by all from now on.
        hands = [[faces[c][a] for c in hand] for hand in table.hands]
        for hand in table.hands:
            for card in hand:
                table.see(card, a, self.everyone)
        if self.lowest:
            for seat in self.everyone:
                if seat != winner:
                    self.scores[seat] += points[seat]
        else:
            self.scores[winner] += sum(points)
        self.last_points = points
        self.last_hands = hands
        self.winner = winner
        self.round_turns.append(self.turns)
        self.emit({"type": "round-end", "round": self.round, "winner": winner,
                   "side": SIDE_NAMES[a], "points": list(points),
                   "scores": list(self.scores), "hands": hands})
        if self.target == 0:
            self._finish("win")
        elif max(self.scores) >= self.target:
            self._finish("target")
        else:
            self.dealer = self._next_left(self.dealer)
            self._start_round()

    def _finish(self, reason: str) -> None:
        self.phase = OVER
        self.reason = reason
        self.emit({"type": "game-end", "reason": reason, "scores": list(self.scores)})

    # -- turns -----------------------------------------------------------------

    def _next(self, seat: int) -> int:
        return (seat + self.direction) % self.players

    def _next_left(self, seat: int) -> int:
        return (seat + 1) % self.players

    def _begin_turn(self, seat: int, phase: str = PLAY) -> None:
        if self.turns >= self.max_turns:
            self.round_turns.append(self.turns)
            self.emit({"type": "max-turns", "round": self.round})
            self._finish("max_turns")
            return
        self.turns += 1
        self.seat = seat
        self.phase = phase

    def _play(self, seat: int, position: int, named: str | None, uno: bool, drawn: bool) -> None:
        deck = self.deck
        table = self.table
        a = self.active
        hand = table.hands[seat]
        card = hand[position]
        kind = deck.kind[a][card]
        prior = self.color
        table.place(seat, position, "discard", up="face")
        held = len(hand)
        faces = deck.faces[card]
        event = {"type": "play", "seat": seat, "position": position, "card": faces[a],
                 "back": faces[1 - a], "uno": uno}
        if named is not None:
            event["color"] = named
        if drawn:
            event["drawn"] = True
        self.emit(event)
        name_color = False
        if kind == FLIP:
            name_color = self._flip_played(seat)
        elif named is not None:
            self.color = named
        else:
            self.color = deck.color[a][card]
        if held == 0:
            self._go_out(seat, kind, card, a)
            return
        if held == 1 and not uno and self.uno_penalty:
            self.emit({"type": "uno-penalty", "seat": seat})
            self._draw(seat, self.uno_penalty, "uno")
        if name_color:
            self.color_reason = "flip"
            self.phase = COLOR
            return
        if kind == NUMBER or kind == WILD or kind == FLIP:
            self._begin_turn(self._next(seat))
        else:
            self._action_played(seat, kind, card, a, prior, held)

    def _flip_played(self, seat: int) -> bool:
        """A Flip card played by `seat`: everything flips, and the new top's color is in force;
        True if it has none (a wild), so that `seat` must name one."""
        self._flip(seat)
        top = self.table.piles["discard"][-1]
        top_color = self.deck.color[self.active][top]
        if top_color is None:
            self.color = None   # no color is in force until it is named
            return True
        self.color = top_color
        return False

    def _go_out(self, seat: int, kind: int, card: int, a: int) -> None:
        """`seat` played its last card (`card`, side `a`): a draw card still makes the next
        player draw; the round ends."""
        deck = self.deck
        if kind == DRAW:
            self._draw(self._next(seat), deck.draws[a][card], deck.value[a][card])
        elif kind == WILD_DRAW:
            self._take_wild_draw(self._next(seat), deck.value[a][card], 0, deck.value[a][card])
        self._end_round(seat)

    def _action_played(self, seat: int, kind: int, card: int, a: int, prior: str | None, held: int) -> None:
        """The effect of an action card (`card`, side `a`, of `kind`: neither a number, a wild
        nor a Flip) that `seat` played, keeping `held` cards, over color `prior`."""
        deck = self.deck
        if kind == DRAW:
            victim = self._next(seat)
            self._draw(victim, deck.draws[a][card], deck.value[a][card])
            self.emit({"type": "skip", "seat": victim})
            self._begin_turn(self._next(victim))
        elif kind == SKIP:
            victim = self._next(seat)
            self.emit({"type": "skip", "seat": victim})
            self._begin_turn(self._next(victim))
        elif kind == SKIP_ALL:
            self.emit({"type": "skip-everyone", "seat": seat})
            self._begin_turn(seat)
        elif kind == REVERSE:
            self.direction = -self.direction
            self.emit({"type": "reverse", "seat": seat, "direction": self.direction})
            if self.reverse_skips:
                self.emit({"type": "skip", "seat": self._next(seat)})
                self._begin_turn(seat)
            else:
                self._begin_turn(self._next(seat))
        else:  # WILD_DRAW: the next player accepts or challenges
            self.challenge_info = (seat, deck.value[a][card], prior, held)
            self._begin_turn(self._next(seat), CHALLENGE)

    def _answer_wild_draw(self, seat: int, challenge: bool) -> None:
        info = self.challenge_info
        assert info is not None   # phase CHALLENGE
        offender, value, prior, held = info
        self.challenge_info = None
        if not challenge:
            self.emit({"type": "accept", "seat": seat})
            self._take_wild_draw(seat, value, 0, value)
            self._begin_turn(self._next(seat))
            return
        table = self.table
        hand = table.hands[offender]
        for card in hand:
            table.see_both(card, seat)
        self.emit({"type": "hand-shown", "seat": offender, "hand": table.hand_view(offender, seat)},
                  to=[seat])
        colors = self.deck.color[self.active]
        kinds = self.deck.kind[self.active]
        guilty = any(colors[c] == prior or kinds[c] == WILD for c in hand[:held])
        self.emit({"type": "challenge", "seat": seat, "offender": offender, "guilty": guilty})
        if guilty:
            self._take_wild_draw(offender, value, 0, "challenge")
            self.phase = PLAY  # the challenger's own turn goes on
        else:
            self._take_wild_draw(seat, value, 2, "challenge")
            self._begin_turn(self._next(seat))

    def _take_wild_draw(self, seat: int, value: str, extra: int, reason: str) -> None:
        if value == "wild-draw-two":
            self._draw(seat, 2 + extra, reason)
        else:
            self._draw(seat, extra, reason, until=self.color)

    # -- cards moving ------------------------------------------------------------

    def _draw(self, seat: int, count: int, reason: str, until: str | None = None) -> int:
        """`seat` draws `count` cards (after first drawing until a card of color
        `until`, if given); returns how many it got. Emits one draw event per batch."""
        table = self.table
        a = self.active
        faces = self.deck.faces
        colors = self.deck.color[a]
        mine: list[dict[str, str | None]] = []
        theirs: list[dict[str, str | None]] = []
        got = 0
        emitted = False
        while until is not None or count > 0:
            if not table.piles["draw"]:
                if mine:
                    self._emit_draw(seat, reason, mine, theirs)
                    mine, theirs, emitted = [], [], True
                if len(table.piles["discard"]) < 2:
                    break
                self._reshuffle()
            card = table.deal("draw", seat, toward="down")
            got += 1
            pair = faces[card]
            mine.append({"face": pair[a], "back": pair[1 - a]})
            theirs.append({"face": None, "back": pair[1 - a]})
            if until is None:
                count -= 1
            elif colors[card] == until:
                until = None
        if mine or not emitted:
            self._emit_draw(seat, reason, mine, theirs)
        return got

    def _emit_draw(self, seat: int, reason: str, mine: list, theirs: list) -> None:
        self.emit_split(seat, {"type": "draw", "seat": seat, "reason": reason, "cards": mine},
                        {"type": "draw", "seat": seat, "reason": reason, "cards": theirs})

    def _reshuffle(self) -> None:
        table = self.table
        discard = table.piles["discard"]
        top = discard.pop()
        table.piles["draw"] = discard
        table.piles["discard"] = [top]
        table.shuffle("draw", self.chance, up_sides=self.deck.up_sides[self.active])
        self.emit({"type": "reshuffle", "cards": len(discard)})

    def _flip(self, seat: int | None) -> None:
        table = self.table
        self.active ^= 1
        table.turn_over("discard")
        table.turn_over("draw")
        for holder in self.everyone:
            table.flip_hand(holder)
        event: dict[str, Any] = {"type": "flip", "side": SIDE_NAMES[self.active],
                 "top": table.face(table.piles["discard"][-1])}
        if seat is not None:
            event["seat"] = seat
        self.emit(event)

    def _turn_up(self) -> int:
        """Turn the top card of the draw pile over onto the discard pile (opening)."""
        table = self.table
        draw = table.piles["draw"]
        card = draw.pop()
        table.side[card] ^= 1
        table.piles["discard"].append(card)
        table.see(card, table.side[card], self.everyone)
        if draw:
            table.see(draw[-1], table.side[draw[-1]], self.everyone)
        self.emit({"type": "opening", "card": table.face(card)})
        return card

    def _reinsert(self, card: int) -> None:
        """Put the opening Wild Draw back into the draw pile at a random place."""
        table = self.table
        table.piles["discard"].pop()
        self.emit({"type": "reinsert", "card": table.face(card)})
        table.side[card] ^= 1
        table.seen[card] = 0
        draw = table.piles["draw"]
        draw.insert(self.chance.below(len(draw) + 1), card)
        table.see(draw[-1], table.side[draw[-1]], self.everyone)

    # -- decisions -------------------------------------------------------------

    def _compute_legal(self) -> list[str]:
        phase = self.phase
        if phase == PLAY or phase == DRAWN:
            deck = self.deck
            a = self.active
            hand = self.table.hands[self.seat]
            colors = deck.color[a]
            values = deck.value[a]
            top_value = values[self.table.piles["discard"][-1]]
            color = self.color
            out: list[str] = []
            if phase == PLAY:
                if len(hand) > len(_PLAY):
                    _action_tables(len(hand))
                if len(hand) == 2:
                    plain, wild = _PLAY_UNO, _PLAY_WILD_UNO[a]
                else:
                    plain, wild = _PLAY, _PLAY_WILD[a]
                for pos, card in enumerate(hand):
                    c = colors[card]
                    if c is None:
                        out += wild[pos]
                    elif c == color or values[card] == top_value:
                        out += plain[pos]
                out.append("draw")
            else:
                card = hand[-1]
                c = colors[card]
                uno = len(hand) == 2
                if c is None:
                    out += (_DRAWN_WILD_UNO if uno else _DRAWN_WILD)[a]
                elif c == color or values[card] == top_value:
                    out += _DRAWN_UNO if uno else _DRAWN
                out.append("keep")
            return out
        if phase == CHALLENGE:
            return ["accept", "challenge"]
        if phase == COLOR:
            return list(COLOR_ACTIONS[self.active])
        return []

    def _pending_view(self) -> dict[str, Any] | None:
        if self.phase == DRAWN:
            return {"type": "drawn"}
        if self.phase == CHALLENGE:
            info = self.challenge_info
            assert info is not None   # phase CHALLENGE
            offender, value, prior, _ = info
            return {"type": "challenge", "card": value, "offender": offender,
                    "color": self.color, "prior_color": prior}
        if self.phase == COLOR:
            return {"type": "color", "reason": self.color_reason}
        return None
