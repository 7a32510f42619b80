"""UNO Flip's cards: the face vocabulary of each side, the shipped deck file (package data,
checked as it loads), a deck as data (`UnoFlipDeck`) and option `deck` (checked, and
turned into a deck once). The rules page is `ruleset`'s docstring."""

from __future__ import annotations

import csv
import io
from collections import Counter
from importlib import resources
from typing import Any, Sequence

from arena.errors import ArenaError, OptionError

LIGHT, DARK = 0, 1
SIDE_NAMES = ("light", "dark")
COLORS = (("blue", "green", "red", "yellow"), ("pink", "teal", "orange", "purple"))
NUMBERS = tuple(str(n) for n in range(1, 10))
COLORED_ACTIONS = (("draw-one", "reverse", "skip", "flip"),
                   ("draw-five", "reverse", "skip-everyone", "flip"))
WILD_VALUES = (("wild", "wild-draw-two"), ("wild", "wild-draw-color"))
WILD_COLOR = "wild"
EXAMPLE_FACES = ("'red-7', 'blue-skip', 'wild-draw-two'", "'pink-7', 'teal-skip-everyone', 'wild-draw-color'")
DECK_FILE = "uno-flip-deck.csv"
DECK_COLUMNS = ("light_color", "light_value", "dark_color", "dark_value")
DECK_SIZE = 112
DECK_MAX = 1000       # cards in a custom deck (option `deck`)
HAND_SIZE = 7
COPIES_PER_COLOR = 2  # each number and each colored action, per color and side
WILDS_PER_KIND = 4    # Wild, and Wild Draw Two / Wild Draw Color

POINTS = {"draw-one": 10, "draw-five": 20, "reverse": 20, "skip": 20, "flip": 20,
          "skip-everyone": 30, "wild": 40, "wild-draw-two": 50, "wild-draw-color": 60}
DRAW_COUNTS = {"draw-one": 1, "draw-five": 5}

# Card kinds (per face), for the hot paths.
NUMBER, DRAW, REVERSE, SKIP, SKIP_ALL, FLIP, WILD, WILD_DRAW = range(8)
KINDS = {"draw-one": DRAW, "draw-five": DRAW, "reverse": REVERSE, "skip": SKIP,
         "skip-everyone": SKIP_ALL, "flip": FLIP, "wild": WILD, "wild-draw-two": WILD_DRAW,
         "wild-draw-color": WILD_DRAW}


class DeckFileError(ArenaError, ValueError):
    """The shipped UNO Flip deck file is missing, malformed or has the wrong cards."""


class UnoFlipDeck:
    """The cards of a deck as data: card id -> faces, and per side (0 light, 1 dark)
    each card's color (None for a wild), value, kind, points and draw count."""

    def __init__(self, rows: Sequence[Sequence[str]], composition: bool = True):
        """`rows`: (light_color, light_value, dark_color, dark_value) per card; with
        `composition` they must be the real deck's cards (`check_deck_rows`)."""
        if composition:
            check_deck_rows(rows)
        self.rows = tuple(tuple(row) for row in rows)
        self.faces = tuple((face_string(r[0], r[1]), face_string(r[2], r[3])) for r in self.rows)
        self.color = tuple(tuple(None if r[2 * s] == WILD_COLOR else r[2 * s] for r in self.rows)
                           for s in (LIGHT, DARK))
        self.value = tuple(tuple(r[2 * s + 1] for r in self.rows) for s in (LIGHT, DARK))
        self.kind = tuple(tuple(KINDS.get(v, NUMBER) for v in values) for values in self.value)
        self.points = tuple(tuple(POINTS[v] if v in POINTS else int(v) for v in values)
                            for values in self.value)
        self.draws = tuple(tuple(DRAW_COUNTS.get(v, 0) for v in values) for values in self.value)
        n = len(self.rows)
        # A draw pile lies active side down: the inactive side is up.
        self.up_sides = ([DARK] * n, [LIGHT] * n)
        self.canonical = tuple(sorted(range(n), key=lambda c: self.faces[c]))
        self.sampler_index: Any = None   # the sampler's `_DeckIndex`, made on first use

    def __reduce__(self) -> tuple[Any, ...]:
        # pickles rebuild the deck from its rows (compiled, docs/compiled.md, it has no
        # __dict__ for the default to pickle); the sampler's index is made again when needed
        return UnoFlipDeck, (self.rows, False)


def face_string(color: str, value: str) -> str:
    """"red-7", "teal-skip-everyone"; a wild's face is its value ("wild-draw-two")."""
    return value if color == WILD_COLOR else f"{color}-{value}"


def expected_composition(side: int) -> Counter:
    """How many of each (color, value) one side of the deck must have (the seed's list)."""
    counts: Counter = Counter()
    for color in COLORS[side]:
        for value in NUMBERS + COLORED_ACTIONS[side]:
            counts[(color, value)] = COPIES_PER_COLOR
    for value in WILD_VALUES[side]:
        counts[(WILD_COLOR, value)] = WILDS_PER_KIND
    return counts


def check_deck_rows(rows: Sequence[Sequence[str]]) -> None:
    """Raise DeckFileError unless `rows` are the 112 cards of an UNO Flip deck."""
    for line, row in enumerate(rows, start=2):
        if len(row) != 4:
            raise DeckFileError(f"{DECK_FILE} line {line}: expected 4 fields "
                                f"({','.join(DECK_COLUMNS)}), got {len(row)}: {list(row)!r}")
        for side in (LIGHT, DARK):
            color, value = row[2 * side], row[2 * side + 1]
            if color == WILD_COLOR:
                ok = value in WILD_VALUES[side]
            else:
                ok = color in COLORS[side] and (value in NUMBERS or value in COLORED_ACTIONS[side])
            if not ok:
                raise DeckFileError(f"{DECK_FILE} line {line}: {color},{value} is not a "
                                    f"{SIDE_NAMES[side]}-side UNO Flip card")
    if len(rows) != DECK_SIZE:
        raise DeckFileError(f"{DECK_FILE}: expected {DECK_SIZE} cards, found {len(rows)}")
    for side in (LIGHT, DARK):
        expected = expected_composition(side)
        actual = Counter((row[2 * side], row[2 * side + 1]) for row in rows)
        if actual != expected:
            wrong = sorted(set(expected) | set(actual))
            diffs = [f"{c},{v}: {actual[(c, v)]} (expected {expected[(c, v)]})"
                     for c, v in wrong if actual[(c, v)] != expected[(c, v)]]
            raise DeckFileError(f"{DECK_FILE}: wrong {SIDE_NAMES[side]} side: " + "; ".join(diffs[:6])
                                + ("; ..." if len(diffs) > 6 else ""))


def parse_deck_csv(text: str) -> list[tuple[str, ...]]:
    """The rows of a deck file (header checked), as tuples of 4 strings."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or tuple(h.strip() for h in header) != DECK_COLUMNS:
        raise DeckFileError(f"{DECK_FILE}: the header must be {','.join(DECK_COLUMNS)}, "
                            f"not {header!r}")
    return [tuple(field.strip() for field in row) for row in reader if row]


_DECK: UnoFlipDeck | None = None


def load_deck() -> UnoFlipDeck:
    """The shipped deck (package data), checked once and cached."""
    global _DECK
    if _DECK is None:
        try:
            text = resources.files("arena.rules").joinpath("data", DECK_FILE).read_text("utf-8")
        except (OSError, ValueError) as exc:
            raise DeckFileError(f"cannot read arena/rules/data/{DECK_FILE}: {exc}") from exc
        _DECK = UnoFlipDeck(parse_deck_csv(text))
    return _DECK


def parse_face(face: Any, side: int) -> tuple[str, str] | None:
    """(color, value) of a face string of `side` ("wild" as the color of a wild), or
    None if it is not a face of that side."""
    if not isinstance(face, str):
        return None
    if face in WILD_VALUES[side]:
        return WILD_COLOR, face
    color, _, value = face.partition("-")
    if color in COLORS[side] and (value in NUMBERS or value in COLORED_ACTIONS[side]):
        return color, value
    return None


def check_deck(deck: Any, players: int, hand_size: int = HAND_SIZE) -> None:
    """Raise OptionError unless `deck` (option `deck`) is a list of [light_face,
    dark_face] pairs, each face one of its side, with enough number faces on each side
    for `players` players: `hand_size` each and one to open (so an opening always ends)."""
    if not isinstance(deck, (list, tuple)):
        raise OptionError(f"option 'deck' must be a list of [light_face, dark_face] pairs, not {deck!r}")
    if len(deck) > DECK_MAX:
        raise OptionError(f"option 'deck' must hold at most {DECK_MAX} cards, not {len(deck)}")
    numbers = [0, 0]
    for index, card in enumerate(deck):
        if not isinstance(card, (list, tuple)) or len(card) != 2:
            raise OptionError(f"option 'deck': card {index} must be a pair [light_face, dark_face], "
                              f"not {card!r}")
        for side in (LIGHT, DARK):
            parsed = parse_face(card[side], side)
            if parsed is None:
                raise OptionError(f"option 'deck': card {index} has {card[side]!r}, not a "
                                  f"{SIDE_NAMES[side]}-side face (e.g. {EXAMPLE_FACES[side]})")
            numbers[side] += parsed[1] in NUMBERS
    needed = hand_size * players + 1
    for side in (LIGHT, DARK):
        if numbers[side] < needed:
            raise OptionError(f"option 'deck' has {numbers[side]} cards with a number on the "
                              f"{SIDE_NAMES[side]} side; {players} players need at least {needed} "
                              f"({hand_size} each and one to open)")


_DECKS: dict[tuple[tuple[str, str], ...], UnoFlipDeck] = {}
_LAST_DECK: list[Any] = [None, None]   # the last option list seen, and its deck


def deck_from_option(pairs: Sequence[Sequence[str]] | None) -> UnoFlipDeck:
    """The UnoFlipDeck of option `deck` (already checked; None: the shipped deck),
    cached: the shipped deck is `load_deck()`, a custom one is built once."""
    if pairs is None:
        return load_deck()
    if _LAST_DECK[0] is pairs:   # a search samples many times from one observation
        return _LAST_DECK[1]
    key = tuple((light, dark) for light, dark in pairs)
    deck = _DECKS.get(key)
    if deck is None:
        shipped = load_deck()
        if key == shipped.faces:
            deck = shipped
        else:
            if len(_DECKS) >= 16:
                del _DECKS[next(iter(_DECKS))]
            rows = []
            for light, dark in key:
                light_face, dark_face = parse_face(light, LIGHT), parse_face(dark, DARK)
                assert light_face is not None and dark_face is not None   # the option is checked
                rows.append((*light_face, *dark_face))
            deck = UnoFlipDeck(rows, composition=False)
        _DECKS[key] = deck
    _LAST_DECK[:] = [pairs, deck]
    return deck


DEFAULT_DECK: list[list[str]] = [list(pair) for pair in load_deck().faces]
"""The real deck as option `deck`: [light_face, dark_face] per card, in the file's order."""
