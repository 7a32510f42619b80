"""Game text for people, shared by the rulesets: `Style` (a face as a label, ``[red 7]``,
coloured or not) and `Renderer`, the generic renderer a ruleset's own (its `renderer`
declaration) extends: it lays out a view, phrases actions and events. Pure functions of
one seat's observation and the seat names; `arena.render` frames and wraps the lines.

- A card face is a label (the ruleset's `card_faces` label, else the face string with
  dashes as spaces) in brackets, in its colour when colour is on; ``[?]``: not seen.
- A held card is ``face/back`` relative to its holder; a pile top is ``up`` with
  ``(under: down)``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

COLOR_CODES = {
    "red": "31", "green": "32", "yellow": "33", "blue": "34", "purple": "35", "teal": "36",
    "orange": "38;5;208", "pink": "38;5;213", "white": "1;97", "black": "1;90", "wild": "1",
    "flip": "1;7", "bright-green": "1;32",
}
"""ANSI SGR code by colour name (a `card_faces` colour, or a face's first word)."""


class Style:
    """Turns faces into labels, colored or not."""

    def __init__(self, color: bool = False, faces: Mapping[str, Sequence[str]] | None = None):
        """`faces`: the ruleset's `card_faces` (face -> (colour, label)); a face it does not
        list is labelled by its text and coloured by its first word."""
        self.color = color
        self.faces = faces or {}

    def paint(self, text: str, code: str | None) -> str:
        if not self.color or not code:
            return text
        return f"\x1b[{code}m{text}\x1b[0m"

    def bold(self, text: str) -> str:
        return self.paint(text, "1")

    def dim(self, text: str) -> str:
        return self.paint(text, "2")

    def face(self, face: Any) -> str:
        """``[red 7]`` for a face string, ``[?]`` for an unseen face (None)."""
        if face is None:
            return "[?]"
        text = str(face)
        drawn = self.faces.get(text)
        if drawn is not None:
            return self.paint(f"[{drawn[1]}]", COLOR_CODES.get(drawn[0]))
        code = COLOR_CODES.get(text) or COLOR_CODES.get(text.split("-", 1)[0])
        return self.paint(f"[{text.replace('-', ' ')}]", code)

    def held(self, card: Mapping[str, Any] | None) -> str:
        """A held card, ``face/back`` relative to its holder."""
        if card is None:
            return "[?]/[?]"
        return f"{self.face(card.get('face'))}/{self.face(card.get('back'))}"

    def top(self, card: Mapping[str, Any] | None) -> str:
        """A pile's top card: its up face, and the down face if known."""
        if card is None:
            return "(empty)"
        down = card.get("down")
        under = f" (under: {self.face(down)})" if down is not None else ""
        return f"{self.face(card.get('up'))}{under}"

    def card(self, value: Any) -> str:
        """Any card-like value: a face string, a held card, a pile top, or None."""
        if isinstance(value, Mapping):
            if "up" in value or "down" in value:
                return self.top(value)
            if "face" in value or "back" in value:
                return self.held(value)
        if value is None or isinstance(value, str):
            return self.face(value)
        return str(value)

    def cards(self, values: Sequence[Any], numbered: bool = False) -> str:
        if not values:
            return "(none)"
        return "  ".join(f"{i}:{self.card(v)}" if numbered else self.card(v) for i, v in enumerate(values))


class Renderer:
    """The generic renderer: any view, any action, any event, readably.

    `names[seat]` is how a seat is called (e.g. "seat 0 (you)"); `seat` is the
    seat whose observation is rendered (None for the god view).
    """

    def __init__(self, style: Style, names: Sequence[str], seat: int | None, players: int):
        self.s = style
        self.names = list(names)
        self.seat = seat
        self.players = players
        self.you = True
        """The seat is the person reading (play), not a seat being watched (replay)."""
        self.two_faced = True
        """The game's cards have two faces (`arena.render.renderer_for` sets it from a deal):
        the generic legend explains faces and backs only then."""

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def mine(self, seat: Any) -> bool:
        return self.seat is not None and seat == self.seat

    # What the printers call: a ruleset renderer that fails on data it did not expect
    # (a ruleset in progress may change its view) falls back to the generic form
    # instead of ending a game.

    def safe_view(self, view: Mapping[str, Any]) -> list[str]:
        try:
            return list(self.view(view))
        except Exception:  # noqa: BLE001 - rendering must not end a game
            return Renderer.view(self, view)

    def safe_event(self, event: Mapping[str, Any]) -> str:
        try:
            return self.event(event)
        except Exception:  # noqa: BLE001
            return Renderer.event(self, event)

    def safe_action(self, action: str, view: Mapping[str, Any]) -> str:
        try:
            return self.action(action, view)
        except Exception:  # noqa: BLE001
            return action

    def legend(self) -> list[str]:
        """How to read the cards (printed once, before the first frame); for a game whose
        cards are one-sided (`two_faced` False), nothing about faces and backs."""
        if not self.two_faced:
            return ["Cards: [card]; [?] = a card not seen. Cards in a list are numbered from 0."]
        return ["Cards: [face]/[back] = the side toward its holder / the side the others see; [?] = a side "
                "not seen. A pile shows its top card's up side (and the side under it, if known). Cards in a "
                "hand are numbered from 0."]

    # views

    def view(self, view: Mapping[str, Any]) -> list[str]:
        """Lines showing `view`; the generic form walks the data."""
        lines: list[str] = []
        for key, value in view.items():
            lines.extend(self._value_lines(key, value, 0))
        return lines

    def _value_lines(self, key: str, value: Any, depth: int) -> list[str]:
        pad = "  " * depth
        label = key.replace("_", " ")
        if is_card(value) or isinstance(value, str) and key in ("card", "top", "face", "back", "up", "down"):
            return [f"{pad}{label}: {self.s.card(value)}"]
        if isinstance(value, list) and value and all(is_card(v) for v in value):
            return [f"{pad}{label}: {self.s.cards(value, numbered=True)}"]
        if isinstance(value, list) and value and all(isinstance(v, list) for v in value) \
                and len(value) == self.players:
            lines = [f"{pad}{label}:"]
            for seat, item in enumerate(value):
                shown = self.s.cards(item, numbered=True) if all(is_card(v) for v in item) else plain(item)
                lines.append(f"{pad}  {self.who(seat)}: {shown}")
            return lines
        if isinstance(value, Mapping) and value:
            lines = [f"{pad}{label}:"]
            for sub, item in value.items():
                lines.extend(self._value_lines(str(sub), item, depth + 1))
            return lines
        if key in ("turn", "active", "to_act", "dealer", "winner") and isinstance(value, int) \
                and not isinstance(value, bool):
            return [f"{pad}{label}: {self.who(value)}"]
        return [f"{pad}{label}: {plain(value)}"]

    def summary(self, view: Mapping[str, Any]) -> str:
        """A few words on the decision at hand (for "Your choices (...)")."""
        turn = view.get("turn")
        return "decision" if turn is not None else "the game is over"

    # actions

    def action(self, action: str, view: Mapping[str, Any]) -> str:
        """`action` in plain words (the generic form is the action string)."""
        return action

    # events

    def event(self, event: Mapping[str, Any]) -> str:
        """`event` as one sentence (the generic form lists its fields)."""
        kind = event.get("type", "?")
        fields = [f"{k.replace('_', ' ')} {self._field(k, v)}" for k, v in event.items()
                  if k not in ("type", "seat")]
        who = f"{self.who(event['seat'])}: " if "seat" in event else ""
        return f"{who}{kind}" + (f" ({', '.join(fields)})" if fields else "")

    @classmethod
    def log_line(cls, event: Mapping[str, Any]) -> str:
        """The god log's plain line for `event`, no colour, seats by number (what
        `Ruleset.describe_event` returns); the generic form lists its fields."""
        fields = " ".join(f"{k}={v}" for k, v in event.items() if k not in ("type", "seat"))
        who = f"seat {event['seat']} " if "seat" in event else ""
        return f"{who}{event.get('type', '?')} {fields}".rstrip()

    def _field(self, key: str, value: Any) -> str:
        if is_card(value) or isinstance(value, str) and key in ("card", "top", "face", "back", "up", "down"):
            return self.s.card(value)
        if isinstance(value, list) and value and all(is_card(v) for v in value):
            return self.s.cards(value)
        if key in ("to", "from", "target", "with", "puller", "offender", "winner") and isinstance(value, int) \
                and not isinstance(value, bool):
            return self.who(value)
        return plain(value)

    # the end

    def outcome(self, outcome: Mapping[str, Any]) -> list[str]:
        standing, scores = outcome.get("standing", []), outcome.get("scores", [])
        order = sorted(range(len(standing)), key=lambda s: (standing[s], s))
        lines = [f"Game over ({outcome.get('reason', '?')}). Standing:"]
        for seat in order:
            score = scores[seat] if seat < len(scores) else "?"
            lines.append(f"  {ordinal(standing[seat]):>5}  {self.who(seat)}  score {plain(score)}")
        return lines


def is_card(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and set(value) <= {"face", "back", "up", "down"}


def plain(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(plain(v) for v in value) if value else "(none)"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items()) if value else "(none)"
    return str(value)


def ordinal(n: Any) -> str:
    if not isinstance(n, int):
        return str(n)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def hands_lines(r: Renderer, hands: Sequence[Sequence[Mapping[str, Any]]], turn: Any) -> list[str]:
    """Every hand, own first; cards numbered by position, shown face/back."""
    lines = []
    order = list(range(len(hands)))
    if r.seat is not None and r.seat < len(hands):
        order.remove(r.seat)
        order.insert(0, r.seat)
    for seat in order:
        hand = hands[seat]
        marker = "→" if seat == turn else " "
        title = ("Your hand" if r.you else f"{r.who(seat)}, own hand") if r.mine(seat) else r.who(seat)
        lines.append(f"{marker} {title} ({len(hand)}): {r.s.cards(hand, numbered=True)}")
    return lines
