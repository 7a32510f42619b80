"""UNO Flip (`uno-flip`): UNO with a two-sided deck, a light side and a dark side.

Rules page of this ruleset, after the seed rulebook (`001_d790c0973ee2739e.txt`) and the
rulings (`shared/rules/uno-flip.md`). "UNO" and "UNO Flip" are trademarks of Mattel; this
is an unofficial implementation for AI research.

How to play
    Get rid of your cards. On your turn, play a card matching the discard pile's color or
    value (or a Wild), or draw one. Every card has a light side and a dark side; a Flip
    card turns the whole game over, so the dark sides (and their harsher actions) are
    played until the next Flip. Call UNO as you play your second-to-last card, or draw a
    penalty. The winner of a round scores the cards left in the others' hands; the first
    to the target score wins.

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
    and each side must show a number on at least hand_size x players + 1 cards (a hand
    each and one to open, so that an opening always ends); at most 1000 cards. The order of the list
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
    clockwise; 7 cards each (option ``hand_size``), dealt one at a time from the left of the dealer; the top card
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
    hand_size (int 1..7, default 7): cards dealt to each player; with a small ``deck``,
    ``target_score = 0`` and a low ``max_turns`` it makes variants small enough for
    exact solvers (docs/rl.md). Everything else plays as with 7.

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
    "3". Version "2" (turn 2 rulings): the deck is the public option ``deck``; the hands are
    shown at a round's end (round-end "hands", outcome "hands"); ``color`` is None while a
    color is named after a Flip. Play is unchanged from "1" with the default deck. "3" adds the
    option ``hand_size``; with its default, games are those of "2".
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from arena.rules.base import Option, Ruleset
from arena.rules.uno_flip.deck import DECK_SIZE, DEFAULT_DECK, HAND_SIZE, UnoFlipDeck, check_deck
from arena.rules.uno_flip.engine import UnoFlipState
from arena.rules.uno_flip.evaluation import evaluate_uno_flip
from arena.rules.uno_flip.text import UnoFlipRenderer
from arena.rules.uno_flip.value import VALUE_ID, VALUE_VERSION, pairwise_value, permute_unrevealed


class UnoFlip(Ruleset):
    """UNO Flip: the ruleset definition (see the module docstring for the rules page)."""

    id = "uno-flip"
    version = "3"
    title = "UNO Flip"
    min_players = 2
    max_players = 10
    options = {
        "target_score": Option(500, "total that ends the game; 0 plays a single round", minimum=0,
                               test_range=(0, 500)),
        "scoring": Option("highest", "highest: the winner scores the others' cards; lowest: "
                          "everyone else scores their own cards, fewest wins",
                          choices=("highest", "lowest")),
        "opening_action": Option("apply", "apply: an opening action card takes effect; redraw: "
                                 "turn cards until a number shows", choices=("apply", "redraw")),
        "two_player_reverse_skips": Option(True, "with two players a Reverse acts as a Skip"),
        "uno_penalty": Option(2, "cards drawn by a player who does not call UNO",
                              minimum=0, maximum=DECK_SIZE),
        "max_turns": Option(1000, "turns per round before the game is stopped, all tied",
                            minimum=1, test_range=(1, 1000)),
        "deck": Option(DEFAULT_DECK, "the cards as [light_face, dark_face] pairs; default: the "
                       "real 112-card deck", kind=list),
        "hand_size": Option(HAND_SIZE, "cards dealt to each player at the start of a round",
                            minimum=1, maximum=HAND_SIZE),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        check_deck(options["deck"], cls.min_players, options["hand_size"])

    capabilities = frozenset({"sample_state", "lay_out", "encoding", "evaluate", "chance_outcomes"})
    # The luck-adjusted scores' value and unrevealed cards (uno_flip/value.py) pass the kit's
    # checks (tests/test_luck_values.py) but are not declared: declaring them makes adjusted
    # scores this ruleset's default, which moves published results. Declaring is this line:
    # capabilities = capabilities | {"pairwise_value", "permute_unrevealed"}
    pairwise_value_identity = (VALUE_ID, VALUE_VERSION)
    pairwise_value = staticmethod(pairwise_value)
    permute_unrevealed = staticmethod(permute_unrevealed)
    renderer = UnoFlipRenderer
    search_hints = {"playout_depth": 20, "random_playout_depth": 20, "playout_stop": None, "prior_weight": 0.0}
    option_presets = {
        # a single round, no penalty for a forgotten UNO (random play forgets it half the time), room to finish
        "learning": {"target_score": 0, "uno_penalty": 0, "max_turns": 3000},
        # one round, hands of two from five cards whose dark backs all read teal-1 (so a back
        # tells nothing), no UNO penalty; four turns at most, then a tie
        "small": {"deck": [[light, "teal-1"] for light in ("red-1", "red-2", "blue-1", "blue-2", "red-3")],
                  "hand_size": 2, "target_score": 0, "uno_penalty": 0, "max_turns": 4},
    }

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
        check_deck(options["deck"], players, options["hand_size"])
        return UnoFlipState(players, options, rng)

    evaluate = staticmethod(evaluate_uno_flip)   # the `evaluate` capability: uno_flip/evaluation.py
    encoding_function = "arena.rules.uno_flip.encoding:encoding"
    sampler_function = "arena.rules.uno_flip.sampler:sample_uno_flip_state"
    deck_option = "deck"   # chance_outcomes: the cards in play, and one


# the engine's states name their ruleset (`GameState.ruleset`); set here, where it is defined,
# since the engine does not import this module
UnoFlipState.ruleset = UnoFlip
