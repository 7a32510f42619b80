"""Per ruleset and table: the stable action index and the fixed-size observation array.

`encoding_for(ruleset, players, options)` returns an `Encoding` with

- ``actions``: every action string the table can ever offer, in a fixed documented order
  (below); ``index[action]`` is its number. Seats in actions are absolute, as in the
  ruleset's action grammar.
- ``mask(legal_actions)``: an ``int8`` array, 1 at the index of each legal action.
- ``encode(observation)``: a ``float32`` array of ``size`` built from ONE seat's
  observation (its ``seat`` and ``view``) and nothing else, so it hides exactly what the
  observation hides. One-hot blocks use 1.0; counts and sizes are scaled into [0, 1].

Cards (UNO Flip, Color Flush, Flip Hue): a card slot is two one-hots over the deck's
face vocabulary (``faces``: every face of ``options["deck"]``, sorted) plus one entry for
"not seen": the side toward the holder (or the pile's up side) and the other side. An
empty hand position is all zeros. Hands are laid out seat by seat (absolute), position
by position, up to a cap per ruleset (`HAND_CAP`); a hand position past the cap is not
encoded and its actions are not in the index (the mask leaves them out; the raw
observation still lists them).

The action index per ruleset (``P`` players, ``H`` = `HAND_CAP`, ``C`` = colors):

- flip-7: ``hit``, ``stay``, then ``freeze:s``, ``flip-three:s``, ``second-chance:s`` for
  each seat s.
- uno-flip (C = the 8 colors of both sides, light then dark): for each position p < H:
  ``play:p``, ``play:p:uno``, then ``play:p:c``, ``play:p:c:uno`` per color; then
  ``draw``, ``play-drawn``, ``play-drawn:uno``, ``play-drawn:c``, ``play-drawn:c:uno`` per
  color, ``keep``, ``accept``, ``challenge``, ``color:c`` per color.
- color-flush: per position p < H: ``place:p``, ``give:p:s`` per seat; ``take:s:p`` per
  seat and position; ``take:pile``; ``flip:p`` per position; ``swap:s`` per seat;
  ``no-swap``.
- flip-hue: ``give:p:s`` per position and seat; ``flip:p:s`` likewise; ``pull:s:p`` per
  seat and position; ``allow``; ``block:p``; ``discard:p:face``, ``discard:p:back`` per
  position.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

HAND_CAP = {"uno-flip": 40, "color-flush": 10, "flip-hue": 8}
"""Hand positions encoded (and in the action index) per ruleset. Color Flush's hand limit
is 10; a Flip Hue hand holds at most 7 cards; an UNO Flip hand past 40 is rare."""

UNO_COLORS = ("blue", "green", "red", "yellow", "pink", "teal", "orange", "purple")
FLIP7_CARDS = [str(n) for n in range(13)] + ["+2", "+4", "+6", "+8", "+10", "x2", "freeze", "flip-three",
                                             "second-chance"]
FLIP7_STATUS = ("active", "stayed", "busted", "frozen", "flip7")


class Encoding:
    """One ruleset's action index and observation array for one table (players, options)."""

    def __init__(self, ruleset_id: str, players: int, options: Mapping[str, Any], actions: Sequence[str],
                 size: int, fill: Callable[[np.ndarray, int, Mapping[str, Any]], None]):
        self.ruleset_id = ruleset_id
        self.players = players
        self.options = dict(options)
        self.actions: tuple[str, ...] = tuple(actions)
        self.index: dict[str, int] = {action: i for i, action in enumerate(self.actions)}
        self.size = size
        self._fill = fill

    def mask(self, legal_actions: Sequence[str]) -> np.ndarray:
        """``int8`` array over the index: 1 for each legal action that has an index."""
        mask = np.zeros(len(self.actions), dtype=np.int8)
        index = self.index
        mask[[index[a] for a in legal_actions if a in index]] = 1
        return mask

    def encode(self, observation: Mapping[str, Any], out: np.ndarray | None = None) -> np.ndarray:
        """The ``float32`` array of `observation` (its ``seat`` and ``view`` only)."""
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        else:
            out[:] = 0.0
        self._fill(out, observation["seat"], observation["view"])
        return out


def encoding_for(ruleset_id: str, players: int, options: Mapping[str, Any]) -> Encoding:
    """The `Encoding` of `ruleset_id` (resolved `options`); ValueError for a ruleset
    without one (a third party's: environments need an encoding written for the game)."""
    build = _BUILDERS.get(ruleset_id)
    if build is None:
        raise ValueError(f"no environment encoding for ruleset {ruleset_id!r} (known: {', '.join(_BUILDERS)})")
    return build(players, options)


class _Layout:
    """Named consecutive blocks of the array."""

    def __init__(self) -> None:
        self.size = 0

    def block(self, length: int) -> int:
        start = self.size
        self.size += length
        return start


def _faces(options: Mapping[str, Any]) -> dict[Any, int]:
    """Face -> one-hot position: the deck's faces sorted; None (not seen) is last."""
    faces = sorted({face for pair in options["deck"] for face in pair})
    table: dict[Any, int] = {face: i for i, face in enumerate(faces)}
    table[None] = len(faces)
    return table


def _put_card(hot: list[int], at: int, card: Mapping[str, Any] | None, first: str, second: str,
              faces: dict[Any, int]) -> None:
    """A card slot at `at`: one-hot of its `first` side, then of its `second` side (the
    positions to set are appended to `hot`, set at once by the caller)."""
    if card is None:
        return
    width = len(faces)
    hot.append(at + faces.get(card[first], width - 1))
    hot.append(at + width + faces.get(card[second], width - 1))


def _put_hands(hot: list[int], at: int, hands: Sequence[Sequence[Mapping[str, Any]]], cap: int, slot: int,
               faces: dict[Any, int]) -> None:
    """Every seat's hand, `cap` positions of `slot` entries per seat (`_put_card`'s layout
    for ``face`` and ``back``): the hot loop of the card games' encodings."""
    unknown = len(faces) - 1
    width = len(faces)
    get = faces.get
    append = hot.append
    for hand in hands:
        base = at
        for card in hand[:cap]:
            append(base + get(card["face"], unknown))
            append(base + width + get(card["back"], unknown))
            base += slot
        at += cap * slot


def _one_hot(out: np.ndarray, at: int, value: Any, choices: Sequence[Any]) -> None:
    if value in choices:
        out[at + choices.index(value)] = 1.0


# -- flip-7 ------------------------------------------------------------------------------


def _flip7(players: int, options: Mapping[str, Any]) -> Encoding:
    actions = ["hit", "stay"] + [f"{kind}:{s}" for kind in ("freeze", "flip-three", "second-chance")
                                 for s in range(players)]
    seats = list(range(players))
    layout = _Layout()
    me, turn, dealer = layout.block(players), layout.block(players), layout.block(players)
    per_row = 13 + 6 + 1 + len(FLIP7_STATUS) + 2  # numbers, modifiers, second chance, status, score, total
    rows = layout.block(players * per_row)
    unseen = layout.block(len(FLIP7_CARDS))
    deck = layout.block(1)
    decision = layout.block(4)
    phase = layout.block(3)
    pending = layout.block(3)
    modifiers = ("+2", "+4", "+6", "+8", "+10", "x2")
    target = float(options["target_score"])
    deck_cards = 94.0 * (2 if players > 18 else 1)
    card_at = {card: i for i, card in enumerate(FLIP7_CARDS)}

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        out[me + seat] = 1.0
        _one_hot(out, turn, view["turn"], seats)
        _one_hot(out, dealer, view["dealer"], seats)
        for s, row in enumerate(view["rows"]):
            at = rows + s * per_row
            for number in row["numbers"]:
                out[at + number] = 1.0
            for modifier in row["modifiers"]:
                out[at + 13 + modifiers.index(modifier)] = 1.0
            out[at + 19] = float(row["second_chance"])
            _one_hot(out, at + 20, row["status"], FLIP7_STATUS)
            out[at + 20 + len(FLIP7_STATUS)] = min(row["score"] / target, 1.0)
            out[at + 21 + len(FLIP7_STATUS)] = min(view["totals"][s] / target, 1.0)
        for card, count in view["unseen"].items():
            out[unseen + card_at[card]] = min(count / 12.0, 1.0)
        out[deck] = view["deck_size"] / deck_cards
        _one_hot(out, decision, view["decision"], ("hit-or-stay", "freeze", "flip-three", "second-chance"))
        _one_hot(out, phase, view["phase"], ("deal", "play", "over"))
        for frame in view["pending"]:
            _one_hot(out, pending, frame["kind"], ("deal", "flip-three", "hand-out"))

    return Encoding("flip-7", players, options, actions, layout.size, fill)


# -- uno-flip ----------------------------------------------------------------------------


def _uno_flip(players: int, options: Mapping[str, Any]) -> Encoding:
    cap = HAND_CAP["uno-flip"]
    actions: list[str] = []
    for p in range(cap):
        actions += [f"play:{p}", f"play:{p}:uno"]
        for c in UNO_COLORS:
            actions += [f"play:{p}:{c}", f"play:{p}:{c}:uno"]
    actions += ["draw", "play-drawn", "play-drawn:uno"]
    for c in UNO_COLORS:
        actions += [f"play-drawn:{c}", f"play-drawn:{c}:uno"]
    actions += ["keep", "accept", "challenge"] + [f"color:{c}" for c in UNO_COLORS]
    faces = _faces(options)
    slot = 2 * len(faces)
    seats = list(range(players))
    layout = _Layout()
    me, turn, dealer = layout.block(players), layout.block(players), layout.block(players)
    side, direction = layout.block(1), layout.block(1)
    color = layout.block(len(UNO_COLORS))
    phase = layout.block(5)
    scores, sizes = layout.block(players), layout.block(players)
    turns, draw_size, discard_size = layout.block(1), layout.block(1), layout.block(1)
    draw_top, discard_top = layout.block(slot), layout.block(slot)
    hands = layout.block(players * cap * slot)
    deck_cards = float(len(options["deck"]))
    target = float(options["target_score"] or 500)

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot: list[int] = []
        out[me + seat] = 1.0
        _one_hot(out, turn, view["turn"], seats)
        _one_hot(out, dealer, view["dealer"], seats)
        out[side] = float(view["side"] == "dark")
        out[direction] = float(view["direction"] == -1)
        _one_hot(out, color, view["color"], UNO_COLORS)
        _one_hot(out, phase, view["phase"], ("play", "drawn", "challenge", "color", "over"))
        for s, score in enumerate(view["scores"]):
            out[scores + s] = min(score / target, 1.0)
        out[turns] = view["turns"] / view["max_turns"]
        out[draw_size] = view["draw_pile"]["size"] / deck_cards
        out[discard_size] = view["discard"]["size"] / deck_cards
        _put_card(hot, draw_top, view["draw_pile"]["top"], "up", "down", faces)
        _put_card(hot, discard_top, view["discard"]["top"], "up", "down", faces)
        for s, hand in enumerate(view["hands"]):
            out[sizes + s] = min(len(hand) / cap, 1.0)
        _put_hands(hot, hands, view["hands"], cap, slot, faces)
        out[hot] = 1.0

    return Encoding("uno-flip", players, options, actions, layout.size, fill)


# -- color-flush -------------------------------------------------------------------------


def _color_flush(players: int, options: Mapping[str, Any]) -> Encoding:
    cap = HAND_CAP["color-flush"]
    positions, seats = range(cap), list(range(players))
    actions: list[str] = []
    for p in positions:
        actions += [f"place:{p}"] + [f"give:{p}:{s}" for s in seats]
    actions += [f"take:{s}:{p}" for s in seats for p in positions] + ["take:pile"]
    actions += [f"flip:{p}" for p in positions] + [f"swap:{s}" for s in seats] + ["no-swap"]
    faces = _faces(options)
    slot = 2 * len(faces)
    layout = _Layout()
    me, turn, winner = layout.block(players), layout.block(players), layout.block(players)
    awaiting, left = layout.block(2), layout.block(3)
    turns, sizes, pile_size = layout.block(1), layout.block(players), layout.block(1)
    pile_top = layout.block(slot)
    hands = layout.block(players * cap * slot)
    deck_cards = float(len(options["deck"]))

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot: list[int] = []
        out[me + seat] = 1.0
        _one_hot(out, turn, view["turn"], seats)
        _one_hot(out, winner, view["winner"], seats)
        _one_hot(out, awaiting, view["awaiting"], ("action", "swap"))
        for action in view["actions_left"]:
            _one_hot(out, left, action, ("give", "take", "flip"))
        out[turns] = view["turn_number"] / view["max_turns"]
        out[pile_size] = view["draw_pile"]["size"] / deck_cards
        _put_card(hot, pile_top, view["draw_pile"]["top"], "up", "down", faces)
        for s, hand in enumerate(view["hands"]):
            out[sizes + s] = len(hand) / cap
        _put_hands(hot, hands, view["hands"], cap, slot, faces)
        out[hot] = 1.0

    return Encoding("color-flush", players, options, actions, layout.size, fill)


# -- flip-hue ----------------------------------------------------------------------------


def _flip_hue(players: int, options: Mapping[str, Any]) -> Encoding:
    cap = HAND_CAP["flip-hue"]
    positions, seats = range(cap), list(range(players))
    actions = [f"give:{p}:{s}" for p in positions for s in seats]
    actions += [f"flip:{p}:{s}" for p in positions for s in seats]
    actions += [f"pull:{s}:{p}" for s in seats for p in positions]
    actions += ["allow"] + [f"block:{p}" for p in positions]
    actions += [f"discard:{p}:{side}" for p in positions for side in ("face", "back")]
    faces = _faces(options)
    slot = 2 * len(faces)
    layout = _Layout()
    me, turn, to_act, winner = (layout.block(players) for _ in range(4))
    step = layout.block(5)
    turns, sizes = layout.block(1), layout.block(players)
    draw_size, discard_size = layout.block(1), layout.block(1)
    draw_top, discard_top = layout.block(slot), layout.block(slot)
    factions = layout.block(players * slot)
    puller, pulled, pulled_pos = layout.block(players), layout.block(players), layout.block(cap)
    hands = layout.block(players * cap * slot)
    deck_cards = float(len(options["deck"]))

    def fill(out: np.ndarray, seat: int, view: Mapping[str, Any]) -> None:
        hot: list[int] = []
        out[me + seat] = 1.0
        _one_hot(out, turn, view["turn"], seats)
        _one_hot(out, to_act, view["to_act"], seats)
        _one_hot(out, winner, view["winner"], seats)
        _one_hot(out, step, view["step"], ("push", "pull", "answer", "cleanup", "over"))
        out[turns] = min(view["turn_number"] / view["max_turns"], 1.0)
        out[draw_size] = view["draw_pile"]["size"] / deck_cards
        out[discard_size] = view["discard_pile"]["size"] / deck_cards
        _put_card(hot, draw_top, view["draw_pile"]["top"], "up", "down", faces)
        _put_card(hot, discard_top, view["discard_pile"]["top"], "up", "down", faces)
        for s, faction in enumerate(view["factions"]):
            _put_card(hot, factions + s * slot, faction, "top", "bottom", faces)
        pull = view["pull"]
        if pull is not None:
            _one_hot(out, puller, pull["seat"], seats)
            _one_hot(out, pulled, pull["target"], seats)
            _one_hot(out, pulled_pos, pull["pos"], list(positions))
        for s, hand in enumerate(view["hands"]):
            out[sizes + s] = min(len(hand) / cap, 1.0)
        _put_hands(hot, hands, view["hands"], cap, slot, faces)
        out[hot] = 1.0

    return Encoding("flip-hue", players, options, actions, layout.size, fill)


_BUILDERS: dict[str, Callable[[int, Mapping[str, Any]], Encoding]] = {
    "flip-7": _flip7, "uno-flip": _uno_flip, "color-flush": _color_flush, "flip-hue": _flip_hue,
}
