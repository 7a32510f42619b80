"""UNO Flip (`uno-flip`): UNO with a two-sided deck, a light side and a dark side.

Rules page of this ruleset, after the seed rulebook (`001_d790c0973ee2739e.txt`) and the
rulings (`shared/rules/uno-flip.md`). "UNO" and "UNO Flip" are trademarks of Mattel; this
is an unofficial implementation for AI research.

Players
    2 to 10. Seats are 0 .. players-1 clockwise; "left of" seat s is seat s+1.

Deck (option ``deck``)
    The 112 cards of a physical deck, each with a fixed light face and dark face, listed in
    `arena/rules/data/uno-flip-deck.csv` (``light_color,light_value,dark_color,
    dark_value``; a wild has color ``wild``). Its composition is checked when it loads
    (per side: four colors x numbers 1-9 x 2, two of each colored action per color, four
    Wild, four Wild Draw); a wrong file raises `DeckFileError`. Light colors: blue, green,
    red, yellow; light actions: draw-one, reverse, skip, flip, wild, wild-draw-two. Dark
    colors: pink, teal, orange, purple; dark actions: draw-five, reverse, skip-everyone,
    flip, wild, wild-draw-color. A face string is ``"<color>-<value>"`` ("red-7",
    "teal-skip-everyone") or, for a wild, just the value ("wild", "wild-draw-two",
    "wild-draw-color"). The pairing is public (ruling, turn 2): the deck is the option
    ``deck``, a list of ``[light_face, dark_face]`` pairs (default: the 112 cards of the
    file, in its order), carried in `start`'s info and every observation's options. A
    custom deck may pair and repeat faces freely, but each face must be one of its side,
    and each side must show a number on at least 7 x players + 1 cards (7 each and one
    to open, so that an opening always ends); at most 1000 cards. The order of the list
    does not matter (see the canonical order below).

What is where (the two-faced card model, `arena.rules.cards.TwoFacedTable`)
    Side 0 is light, side 1 dark; the *active* side is the one in play. Every hand holds
    the active side toward its holder (opponents see the inactive side, in hand order).
    The draw pile lies active side down: all see the inactive face of its top card, so a
    drawn card's inactive face is known to everyone and both faces to its taker. A play
    puts the card active face up on the discard pile. A Flip turns the discard pile over
    (the Flip goes to the bottom; the new top is the other face of the former bottom
    card), turns the draw pile over (its order reverses) and flips every hand.

Round
    Seat 0 deals round 1; the deal passes left. Every round starts on the light side,
    clockwise; 7 cards each, dealt one at a time from the left of the dealer; the top card
    is turned light side up to start the discard pile, and the player left of the dealer
    starts. Opening card, option `opening_action`:
    "apply": Draw One / Draw Five: the first player draws 1 / 5 and is skipped; Skip /
    Skip Everyone: the first player is skipped; Reverse: play goes counter-clockwise
    starting with the dealer; Wild: the first player names the color (a decision), then
    plays; Wild Draw Two / Wild Draw Color: put back into the draw pile at a random place
    (seeded) and the next card is turned; Flip: everything flips and the exposed dark face
    is the opening card by these same rules. "redraw": action cards stay at the bottom of
    the discard pile and the next card is turned until a number shows.

A turn
    Play a card matching the top discard by color (the color in force), number or symbol
    (wilds always match), or draw one card (always allowed). After a draw the drawer makes
    a decision: play the drawn card if it is playable, or keep it; when it is not playable
    "keep" is the only legal action, and "keep" produces the same public event either way.
    Wild Draw Two / Wild Draw Color are always legal; one played while holding a card of
    the color in force, or a plain Wild, is a bluff. The next player then accepts (draws 2,
    or draws until a card of the named color, and loses the turn) or challenges: the
    offender's hand is shown to the challenger alone; guilty: the offender takes that
    penalty and the challenger plays a normal turn; innocent: the challenger draws 4, or
    until the color and then 2 more, and loses the turn. The named color stands either
    way. Draw One / Draw Five: next player draws 1 / 5 and is skipped. Skip: next player is
    skipped. Skip Everyone: the player plays again. Reverse: the direction changes; with
    two players it acts as a Skip (option `two_player_reverse_skips`). Flip: everything
    flips; an action exposed on the discard has no effect; an exposed wild lets the Flip
    player name the color (a decision). No stacking.
    An empty draw pile is replaced by the discard pile but its top card, shuffled (seeded),
    active side down. A play that leaves one card carries an UNO call or not; without it
    the player is always caught and draws `uno_penalty` cards.

End of a round, scoring, end of the game
    A round ends when a player plays their last card; a last Draw One / Draw Five / Wild
    Draw still makes the next player draw (those cards count). Points of the cards left
    in hands, on the side the round ended on: numbers face value; draw-one 10; draw-five,
    reverse, skip, flip 20; skip-everyone 30; wild 40; wild-draw-two 50; wild-draw-color
    60. `scoring` "highest": the winner scores the points in every other hand; standing
    by total, highest first. "lowest": every other player adds the points in their own
    hand; standing by total, lowest first. The game ends after the round in which a total
    reaches `target_score`. `target_score` 0: a single round; standing: the winner first,
    the others by points left in their hands, fewest first (equal points tie). A round
    reaching `max_turns` turns ends the game with all players tied (reason "max_turns").
    `outcome()` = ``{"standing", "scores" (totals), "reason" ("win" for a single round,
    "target", "max_turns"), "rounds", "round_turns" (turns of each round played),
    "points" (points left in each hand at the end of the last round), "hands" (the hands
    shown at the end of the last round that ended, as in its round-end event; None if
    none did)}``. The last decision comes before the last round-end event, so "hands"
    is how a bot sees the last round's hands.

Options
    target_score (int >= 0, default 500): total that ends the game; 0 = a single round.
    scoring ("highest" | "lowest", default "highest").
    opening_action ("apply" | "redraw", default "apply").
    two_player_reverse_skips (bool, default true): with two players Reverse acts as Skip.
    uno_penalty (int 0..112, default 2): cards drawn for a missing UNO call.
    max_turns (int >= 1, default 1000): turns per round before the game is stopped.
    deck (list of [light_face, dark_face], default the real 112-card deck): see Deck.

Action grammar (legal_actions, in this order)
    Decision "play" (the turn seat): for each hand position p (0-based) in order, if the
    card is playable: ``play:<p>`` for a colored card, ``play:<p>:<color>`` for each
    active color (in the order listed above) for a wild; when the play leaves one card
    each of those is followed by the same with ``:uno`` appended (the UNO call). Last,
    ``draw``.
    Decision "drawn" (after ``draw``): ``play-drawn`` / ``play-drawn:<color>`` (each
    color) / with ``:uno`` as above, only if the drawn card (the last of the hand) is
    playable; last, ``keep``.
    Decision "challenge" (the player after a Wild Draw): ``accept``, ``challenge``.
    Decision "color" (after an opening Wild, or a Flip that exposed a wild):
    ``color:<color>`` for each active color.

View fields (``view(seat)``)
    side ("light" | "dark"), round (1-based), dealer, turn (seat of the decision, None
    when over), phase ("play" | "drawn" | "challenge" | "color" | "over"), color (the
    color in force on the side in play; None exactly while a color is being named, phase
    "color": after an opening Wild, or after a Flip that exposed a wild), direction (1
    clockwise, -1 counter-clockwise), hands (per seat, in hand order: ``{"face", "back"}``
    relative to the holder, None for a face this seat has not seen; the seat's own hand
    is ``hands[seat]``; at the end of the game every hand is shown), draw_pile ``{"size",
    "top": {"up", "down"} | None}``, discard
    ``{"size", "top": {"up", "down"}}``, scores (totals), turns (this round), max_turns,
    pending (None, or ``{"type": "drawn"}`` -- the drawn card is the last of the turn
    seat's hand --, ``{"type": "challenge", "card", "offender", "color",
    "prior_color"}``, ``{"type": "color", "reason": "opening" | "flip"}``).

Event types (each with "type"; "seat" is who acted or was affected)
    deal {round, dealer, cards}; opening {card} (the card turned to start the discard
    pile); reinsert {card} (an opening Wild Draw put back into the draw pile); play
    {seat, position, card, back, uno, color (wilds only), drawn (true for play-drawn)};
    draw {seat, reason, cards: [{"face", "back"}]} (the drawer sees both faces, the
    others ``face: None``; reason "turn", "draw-one", "draw-five", "wild-draw-two",
    "wild-draw-color", "challenge", "uno"); keep {seat}; reshuffle {cards}; flip
    {seat (absent at the opening), side, top}; color {seat, color}; skip {seat};
    skip-everyone {seat}; reverse {seat (absent at the opening), direction}; accept
    {seat}; hand-shown {seat, hand} (the offender's hand, to the challenger only);
    challenge {seat, offender, guilty}; uno-penalty {seat}; round-end {round, winner,
    side, points, scores, hands} (hands: per seat, the faces of its cards on the side in
    play, in hand order: every hand is shown to everyone, and those faces count as seen
    by all until the cards are next shuffled); max-turns {round}; game-end {reason,
    scores}.

Decisions where the rulings are silent (recorded here on purpose)
    - "A held Wild counts as a match" means a plain Wild of the side in play; another Wild
      Draw does not make a Wild Draw a bluff (now a ruling, turn 2). Matching for the bluff
      test is by the color in force only, and looks at the hand as it was when the Wild
      Draw was played.
    - The UNO penalty is drawn right after the card lands (after a Flip has turned
      everything over), before a color is named and before the card's effect on others.
    - A Flip played as the last card still flips everything; the round is scored on the
      new side.
    - A Wild Draw played as the last card is not open to challenge (an empty hand cannot
      be guilty): the next player simply draws.
    - ``draw`` is always legal. If both piles are exhausted (the discard holds one card)
      the draw takes nothing and the turn ends; a penalty draws as many as there are.
    - An opening Wild Draw put back into the draw pile forgets who saw it (as a shuffled
      card would). An opening Flip whose exposed dark face is also a Flip has no further
      effect (impossible with the shipped deck).
    - With two players Reverse also changes the direction (it shows in the view).
    - A turn is one seat's go (its play/draw decisions, or its challenge/accept decision,
      and a challenger's normal turn after a guilty verdict is the same turn); a skipped
      seat has no turn; Skip Everyone gives its player a new turn. `max_turns` counts
      these per round.
    - A round stopped by `max_turns` does not end normally: its hands are not shown.
    - The initial draw pile is laid in a canonical order (sorted by the faces) before it
      is shuffled, so a game does not depend on the order of the rows in the deck file.

Version
    "2". Turn 2 rulings: the deck is the public option ``deck``; the hands are shown at a
    round's end (round-end "hands", outcome "hands"); ``color`` is None while a color is
    named after a Flip. Play is unchanged from "1" with the default deck.
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from arena.rules.base import (GameState, Option, Ruleset, standing_from_scores)
from arena.rules.cards import TwoFacedTable
# the cards (rules/uno_flip/deck.py); every name also importable from here, as before
from arena.rules.uno_flip.deck import (COLORED_ACTIONS, COLORS, COPIES_PER_COLOR, DARK, DECK_COLUMNS,  # noqa: F401
                                       DECK_FILE, DECK_MAX, DECK_SIZE, DEFAULT_DECK, DRAW, DRAW_COUNTS,
                                       EXAMPLE_FACES, FLIP, HAND_SIZE, KINDS, LIGHT, NUMBER, NUMBERS, POINTS,
                                       REVERSE, SIDE_NAMES, SKIP, SKIP_ALL, WILD, WILDS_PER_KIND, WILD_COLOR,
                                       WILD_DRAW, WILD_VALUES, DeckFileError, UnoFlipDeck, check_deck,
                                       check_deck_rows, deck_from_option, expected_composition, face_string,
                                       load_deck, parse_deck_csv, parse_face)
from arena.rules.uno_flip.text import UnoFlipRenderer

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


# -- the ruleset -------------------------------------------------------------------


class UnoFlip(Ruleset):
    """UNO Flip: the ruleset definition (see the module docstring for the rules page)."""

    id = "uno-flip"
    version = "2"
    title = "UNO Flip"
    min_players = 2
    max_players = 10
    options = {
        "target_score": Option(500, "total that ends the game; 0 plays a single round", minimum=0),
        "scoring": Option("highest", "highest: the winner scores the others' cards; lowest: "
                          "everyone else scores their own cards, fewest wins",
                          choices=("highest", "lowest")),
        "opening_action": Option("apply", "apply: an opening action card takes effect; redraw: "
                                 "turn cards until a number shows", choices=("apply", "redraw")),
        "two_player_reverse_skips": Option(True, "with two players a Reverse acts as a Skip"),
        "uno_penalty": Option(2, "cards drawn by a player who does not call UNO",
                              minimum=0, maximum=DECK_SIZE),
        "max_turns": Option(1000, "turns per round before the game is stopped, all tied",
                            minimum=1),
        "deck": Option(DEFAULT_DECK, "the cards as [light_face, dark_face] pairs; default: the "
                       "real 112-card deck", kind=list),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        check_deck(options["deck"], cls.min_players)

    capabilities = frozenset({"sample_state", "lay_out"})
    renderer = UnoFlipRenderer
    search_hints = {"playout_bot": "arena_bots.uno_flip_heuristic:UnoFlipHeuristicBot", "playout_depth": 20,
                    "random_playout_depth": 20, "playout_stop": None, "prior_weight": 0.0,
                    "evaluation": "arena_bots.ismcts:evaluate_uno_flip"}

    @classmethod
    def draw_probability(cls, players: int) -> float:
        return 0.02 if players == 2 else 0.25  # losers on 0 points tie

    # every face of the deck, coloured by its color (a wild's color is "wild") for the site
    card_faces = {face: ("wild" if face.startswith("wild") else face.split("-")[0], face.replace("-", " "))
                  for pair in sorted(DEFAULT_DECK) for face in pair}

    bot_example = '''
        hand = view["hands"][me]  # your cards: {"face": what you see, "back": the other side}
        # Example: when a play leaves you one card, call UNO (else you draw a penalty).
        calls = [a for a in legal if a.endswith(":uno")]
        if calls:
            return calls[0]
        if view["phase"] == "challenge" and "accept" in legal:
            return "accept"  # your strategy: challenge when you suspect a bluff
        if view["phase"] == "play":
            # Example: prefer a colored card over a wild, keep the wilds for later.
            colored = [a for a in legal if a.startswith("play:") and a.count(":") == 1]
            if colored:
                return self.rng.choice(colored)
        return self.rng.choice(legal)
'''

    @classmethod
    def lay_out(cls, players: int, options: Mapping[str, Any] | None = None, seed: int = 0, *,
                deck: UnoFlipDeck | None = None) -> UnoFlipState:
        """Round 1 dealt from `seed` with `deck`'s cards (e.g. the same cards under other
        ids, or a deck of other composition) instead of option `deck`'s (see
        `Ruleset.capabilities`)."""
        cls.check_players(players)
        return UnoFlipState(players, cls.resolve_options(options), random.Random(seed), deck=deck)

    @classmethod
    def new_game(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> UnoFlipState:
        cls.check_players(players)
        check_deck(options["deck"], players)
        return UnoFlipState(players, options, rng)

    @classmethod
    def sample_state(cls, observation: Mapping[str, Any], rng: random.Random,
                     events: list[dict[str, Any]] | None = None) -> UnoFlipState:
        """A full game state consistent with `observation` (a determinization for
        search), everything the seat has not seen drawn from `rng`; `events` (all the
        events this seat received this game, in order) sharpen it. How: see
        `sample_uno_flip_state` (section "determinization")."""
        from arena.rules.uno_flip.sampler import sample_uno_flip_state

        return sample_uno_flip_state(observation, rng, events)


def _copy_event(event: dict[str, Any]) -> dict[str, Any]:
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


# -- the state -------------------------------------------------------------------


class UnoFlipState(GameState):
    """One game of UNO Flip in progress (engine state; bots only see `view`)."""

    ruleset = UnoFlip
    flat_events = SCALAR_EVENTS
    copy_event = staticmethod(_copy_event)   # knows the event shapes (lists of flat card dicts)

    def __init__(self, players: int, options: Mapping[str, Any], rng: random.Random,
                 deck: UnoFlipDeck | None = None):
        """`deck`: other cards than option `deck`'s (checked by `UnoFlip.new_game`), as
        `UnoFlip.lay_out` passes them (e.g. the same cards with other ids)."""
        super().__init__(players, options, rng)
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
        self.round_turns: list[int] = []
        self.last_points: list[int] = [0] * players
        self.last_hands: list[list[str]] | None = None
        self.winner: int | None = None
        self.reason: str | None = None
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
        twin = UnoFlipState.__new__(UnoFlipState)
        twin.__dict__.update(self.__dict__)
        twin.options = dict(self.options)
        twin.chance = self.chance.copy()
        twin.table = self.table.clone()
        twin.scores = list(self.scores)
        twin.round_turns = list(self.round_turns)
        twin.last_points = list(self.last_points)   # last_hands: never changed in place
        twin._legal = None
        twin._reset_events()
        return twin

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
        self.color: str | None = None
        self.seat = self._next(self.dealer)
        self.phase = PLAY
        self.color_reason: str | None = None
        self.challenge_info: tuple[int, str, str, int] | None = None
        self._legal: list[str] | None = None
        table = self.table = TwoFacedTable(deck.faces, self.players)
        table.new_pile("draw", deck.canonical, up_sides=[DARK] * len(deck.canonical))
        table.new_pile("discard", [])
        table.shuffle("draw", self.chance)
        for _ in range(HAND_SIZE):
            for k in range(1, self.players + 1):
                table.deal("draw", (self.dealer + k) % self.players, toward="down")
        self.emit({"type": "deal", "round": self.round, "dealer": self.dealer, "cards": HAND_SIZE})
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
            self._flip(seat)
            top = table.piles["discard"][-1]
            top_color = deck.color[self.active][top]
            if top_color is None:
                name_color = True
                self.color = None   # no color is in force until it is named
            else:
                self.color = top_color
        elif named is not None:
            self.color = named
        else:
            self.color = deck.color[a][card]
        if held == 0:
            # Going out: a draw card still makes the next player draw.
            if kind == DRAW:
                self._draw(self._next(seat), deck.draws[a][card], deck.value[a][card])
            elif kind == WILD_DRAW:
                self._take_wild_draw(self._next(seat), deck.value[a][card], 0, deck.value[a][card])
            self._end_round(seat)
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
        elif kind == DRAW:
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
        offender, value, prior, held = self.challenge_info
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
        event = {"type": "flip", "side": SIDE_NAMES[self.active],
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
            offender, value, prior, _ = self.challenge_info
            return {"type": "challenge", "card": value, "offender": offender,
                    "color": self.color, "prior_color": prior}
        if self.phase == COLOR:
            return {"type": "color", "reason": self.color_reason}
        return None
