"""Observations rendered for people: the text `arena play` and `arena replay` print.

Everything here is a pure function of ONE seat's observation (its view, its events,
its legal actions) plus the seat names: nothing reads engine state, so a frame can
show no more than the seat could see. The god view is printed from the god log by
`arena.play`, never from here.

- A card face is a label, ``[red 7]`` (the face string with dashes as spaces), in
  its color when color is on; the brackets make it read without color. A face the
  seat has not seen is ``[?]``.
- A held card is ``face/back`` relative to its holder: the side toward the holder
  first, then the side the others see. A pile top is ``up`` with ``(under: down)``.
- Each ruleset has a `Renderer` subclass (chosen by ruleset id in `RENDERERS`) that
  lays out its view, describes its actions in plain words and phrases its events;
  `Renderer` itself is the generic fallback, which prints any view readably.
- Every line fits `WIDTH` columns (long lines wrap with a hanging indent; a card
  label is never split).
"""

from __future__ import annotations

import os
import re
from typing import Any, Mapping, Sequence, TextIO

WIDTH = 100
ANSI = re.compile(r"\x1b\[[0-9;]*m")

COLOR_CODES = {
    "red": "31", "green": "32", "yellow": "33", "blue": "34", "purple": "35", "teal": "36",
    "orange": "38;5;208", "pink": "38;5;213", "white": "1;97", "black": "1;90", "wild": "1",
    "flip": "1;7", "freeze": "36", "flip-three": "33", "second-chance": "35",
}
"""ANSI SGR code by a face's first word (or whole face)."""


def color_enabled(stream: TextIO | None = None, choice: str = "auto") -> bool:
    """Whether to color output: "always", "never", or "auto" (on only when `stream`
    is a terminal and the NO_COLOR environment variable is unset or empty)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


def visible_len(text: str) -> int:
    return len(ANSI.sub("", text))


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


class Style:
    """Turns faces into labels, colored or not."""

    def __init__(self, color: bool = False):
        self.color = color

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
        code = COLOR_CODES.get(text) or COLOR_CODES.get(text.split("-", 1)[0])
        if code is None and text.startswith("+"):
            code = "32"
        if code is None and text == "x2":
            code = "1;32"
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


# -- wrapping -------------------------------------------------------------------


_TOKENS = re.compile(r"\x1b\[[0-9;]*m|[\[\] ]|[^\x1b\[\] ]+|.")


def _words(text: str) -> list[str]:
    """Split `text` at spaces that are outside [...] labels (ANSI codes ignored)."""
    words: list[str] = []
    current: list[str] = []
    depth = 0
    for token in _TOKENS.findall(text):
        if token == " " and depth == 0:
            words.append("".join(current))
            current = []
            continue
        if token == "[":
            depth += 1
        elif token == "]":
            depth = max(0, depth - 1)
        current.append(token)
    words.append("".join(current))
    return words


def wrap(text: str, width: int = WIDTH, indent: int = 4) -> list[str]:
    """`text` as lines of at most `width` columns; continuation lines are indented
    by `indent` more than the first line's own indentation. A [...] label is never
    split (unless it alone is wider than a line)."""
    if visible_len(text) <= width:
        return [text]
    lead = len(text) - len(text.lstrip(" "))
    pad = " " * (lead + indent)
    lines: list[str] = []
    line = ""  # without its leading pad
    start = " " * lead
    for word in _words(text[lead:]):
        if not line:
            if word:
                line = word
            continue
        if visible_len(start) + visible_len(line) + 1 + visible_len(word) <= width:
            line += " " + word
            continue
        if not word:
            continue
        lines.append((start + line).rstrip())
        start, line = pad, word
    if line:
        lines.append((start + line).rstrip())
    out: list[str] = []
    for item in lines:  # a word wider than a line: cut it (colors dropped)
        while visible_len(item) > width:
            plain = strip_ansi(item)
            out.append(plain[:width])
            item = pad + plain[width:]
        out.append(item)
    return out


def fit(lines: Sequence[str], width: int = WIDTH) -> list[str]:
    out: list[str] = []
    for line in lines:
        for part in line.split("\n"):
            out.extend(wrap(part, width))
    return out


# -- renderers ------------------------------------------------------------------


class Renderer:
    """The generic renderer: any view, any action, any event, readably.

    `names[seat]` is how a seat is called (e.g. "seat 0 (you)"); `seat` is the
    seat whose observation is rendered (None for the god view).
    """

    ruleset_id = "*"

    def __init__(self, style: Style, names: Sequence[str], seat: int | None, players: int):
        self.s = style
        self.names = list(names)
        self.seat = seat
        self.players = players
        self.you = True
        """The seat is the person reading (play), not a seat being watched (replay)."""

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
        """How to read the cards (printed once, before the first frame)."""
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
        if _is_card(value) or isinstance(value, str) and key in ("card", "top", "face", "back", "up", "down"):
            return [f"{pad}{label}: {self.s.card(value)}"]
        if isinstance(value, list) and value and all(_is_card(v) for v in value):
            return [f"{pad}{label}: {self.s.cards(value, numbered=True)}"]
        if isinstance(value, list) and value and all(isinstance(v, list) for v in value) \
                and len(value) == self.players:
            lines = [f"{pad}{label}:"]
            for seat, item in enumerate(value):
                shown = self.s.cards(item, numbered=True) if all(_is_card(v) for v in item) else _plain(item)
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
        return [f"{pad}{label}: {_plain(value)}"]

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

    def _field(self, key: str, value: Any) -> str:
        if _is_card(value) or isinstance(value, str) and key in ("card", "top", "face", "back", "up", "down"):
            return self.s.card(value)
        if isinstance(value, list) and value and all(_is_card(v) for v in value):
            return self.s.cards(value)
        if key in ("to", "from", "target", "with", "puller", "offender", "winner") and isinstance(value, int) \
                and not isinstance(value, bool):
            return self.who(value)
        return _plain(value)

    # the end

    def outcome(self, outcome: Mapping[str, Any]) -> list[str]:
        standing, scores = outcome.get("standing", []), outcome.get("scores", [])
        order = sorted(range(len(standing)), key=lambda s: (standing[s], s))
        lines = [f"Game over ({outcome.get('reason', '?')}). Standing:"]
        for seat in order:
            score = scores[seat] if seat < len(scores) else "?"
            lines.append(f"  {_ordinal(standing[seat]):>5}  {self.who(seat)}  score {_plain(score)}")
        return lines


def _is_card(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and set(value) <= {"face", "back", "up", "down"}


def _plain(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value) if value else "(none)"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items()) if value else "(none)"
    return str(value)


def _ordinal(n: Any) -> str:
    if not isinstance(n, int):
        return str(n)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# -- Flip 7 -------------------------------------------------------------------


class Flip7Renderer(Renderer):
    ruleset_id = "flip-7"

    def legend(self):
        return ["Cards are one-sided and everything on the table is public; only the order of the deck is "
                "hidden."]

    def view(self, view):
        s = self.s
        phase = {"deal": "dealing", "play": "playing", "over": "over"}.get(view.get("phase"), view.get("phase"))
        lines = [f"Round {view.get('round')} ({phase}) · dealer {self.who(view.get('dealer'))} · "
                 f"target {view.get('target_score')} points · deck {view.get('deck_size')} cards"]
        totals = view.get("totals", [])
        for seat, row in enumerate(view.get("rows", [])):
            cards = [s.face(str(n)) for n in row.get("numbers", [])]
            cards += [s.face(m) for m in row.get("modifiers", [])]
            cards += [s.face(a) for a in row.get("actions", [])]
            if row.get("second_chance"):
                cards.append(s.face("second-chance"))
            total = totals[seat] if seat < len(totals) else "?"
            marker = "→" if seat == view.get("turn") else " "
            lines.append(f"{marker} {self.who(seat)}: total {total}, this round {row.get('score')} "
                         f"({row.get('status')}): {' '.join(cards) or '(no cards)'}")
        for item in view.get("pending") or []:
            kind = item.get("kind")
            if kind == "flip-three":
                extra = f", set aside {' '.join(s.face(c) for c in item.get('set_aside', []))}" \
                    if item.get("set_aside") else ""
                lines.append(f"  Flip Three on {self.who(item.get('target'))}: "
                             f"{item.get('cards_left')} cards to go{extra}")
            elif kind == "hand-out":
                lines.append(f"  {self.who(item.get('seat'))} still hands out "
                             f"{' '.join(s.face(c) for c in item.get('cards', []))}")
            elif kind == "deal":
                lines.append(f"  still to be dealt: {', '.join(self.who(x) for x in item.get('next', [])) or '-'}")
        unseen = view.get("unseen") or {}
        if unseen:
            lines.append("Still in the deck: " + "  ".join(f"{s.face(c)}×{n}" for c, n in unseen.items()))
        return lines

    def action(self, action, view):
        if action == "hit":
            return "hit: take another card"
        if action == "stay":
            rows = view.get("rows", [])
            me = view.get("turn")
            score = rows[me].get("score") if isinstance(me, int) and me < len(rows) else "?"
            return f"stay: bank {score} points this round"
        kind, _, target = action.partition(":")
        if target.isdigit():
            whom = "yourself" if self.mine(int(target)) else self.who(int(target))
            card = {"freeze": "the Freeze", "flip-three": "the Flip Three",
                    "second-chance": "your extra Second Chance"}.get(kind, kind)
            return f"give {card} to {whom}"
        return action

    def event(self, e):
        s, kind, who = self.s, e.get("type"), self.who(e.get("seat"))
        if kind == "round-start":
            return f"— round {e.get('round')} begins; {self.who(e.get('dealer'))} deals"
        if kind == "card":
            return f"{who} gets {s.face(e.get('card'))} ({e.get('source')})"
        if kind == "set-aside":
            return f"{who} sets {s.face(e.get('card'))} aside until the Flip Three is over"
        if kind == "stay":
            return f"{who} stays with {e.get('score')} points"
        if kind == "bust":
            return f"{who} busts on {s.face(e.get('card'))}"
        if kind == "flip-7":
            return f"{who} flips 7 different numbers! (+15)"
        if kind == "second-chance-used":
            return f"{who} uses a Second Chance against {s.face(e.get('card'))}"
        if kind == "give":
            extra = f" (banks {e['score']})" if "score" in e else ""
            return f"{who} gives {s.face(e.get('card'))} to {self.who(e.get('to'))}{extra}"
        if kind == "discard":
            return f"{who} discards {' '.join(s.face(c) for c in e.get('cards', []))} ({e.get('reason')})"
        if kind == "reshuffle":
            return "the set-aside cards are shuffled into a new deck"
        if kind == "deck-empty":
            return "no cards are left anywhere: the round ends"
        if kind == "round-end":
            return (f"— round {e.get('round')} ends ({e.get('reason')}); scores {_plain(e.get('scores'))}; "
                    f"totals {_plain(e.get('totals'))}")
        if kind == "game-end":
            rounds = e.get("rounds")
            return f"— the game ends ({e.get('reason')}) after {rounds} round{'' if rounds == 1 else 's'}"
        return super().event(e)

    def summary(self, view):
        if view.get("turn") is None:
            return "the game is over"
        decision = view.get("decision")
        return {"hit-or-stay": "hit or stay", "freeze": "give the Freeze", "flip-three": "give the Flip Three",
                "second-chance": "give the extra Second Chance"}.get(decision, str(decision))


# -- UNO Flip -----------------------------------------------------------------


class UnoFlipRenderer(Renderer):
    ruleset_id = "uno-flip"

    def view(self, view):
        s = self.s
        direction = "clockwise" if view.get("direction", 1) == 1 else "counter-clockwise"
        lines = [f"Round {view.get('round')} · {view.get('side')} side · color in force "
                 f"{s.face(view.get('color'))} · {direction} · turn {view.get('turns')} of at most "
                 f"{view.get('max_turns')}"]
        discard, draw = view.get("discard") or {}, view.get("draw_pile") or {}
        lines.append(f"Discard pile ({discard.get('size')}): {s.top(discard.get('top'))} · draw pile "
                     f"({draw.get('size')}) shows {s.top(draw.get('top'))}")
        lines.append("Scores: " + " · ".join(f"{self.who(i)} {sc}" for i, sc in enumerate(view.get("scores", []))))
        lines.extend(_hands(self, view.get("hands", []), view.get("turn")))
        pending = view.get("pending")
        if pending:
            kind = pending.get("type")
            if kind == "drawn":
                lines.append("Pending: play or keep the card just drawn (the last of the hand).")
            elif kind == "challenge":
                lines.append(f"Pending: {self.who(pending.get('offender'))} played {s.face(pending.get('card'))} "
                             f"naming {s.face(pending.get('color'))} (the color before was "
                             f"{s.face(pending.get('prior_color'))}): accept or challenge.")
            elif kind == "color":
                lines.append(f"Pending: a color must be named ({pending.get('reason')}).")
            else:
                lines.append(f"Pending: {_plain(pending)}")
        return lines

    def action(self, action, view):
        s = self.s
        parts = action.split(":")
        uno = " and call UNO" if parts[-1] == "uno" else ""
        if uno:
            parts = parts[:-1]
        hands, me = view.get("hands", []), view.get("turn")
        hand = hands[me] if isinstance(me, int) and me < len(hands) else []
        if parts[0] == "play" and len(parts) >= 2 and parts[1].isdigit():
            pos = int(parts[1])
            card = hand[pos].get("face") if pos < len(hand) else None
            color = f", naming {s.face(parts[2])}" if len(parts) > 2 else ""
            return f"play card {pos} {s.face(card)}{color}{uno}"
        if parts[0] == "play-drawn":
            card = hand[-1].get("face") if hand else None
            color = f", naming {s.face(parts[1])}" if len(parts) > 1 else ""
            return f"play the card you drew, {s.face(card)}{color}{uno}"
        if action == "draw":
            return "draw a card"
        if action == "keep":
            return "keep the card you drew"
        if action == "accept":
            return "accept the Wild Draw: draw and lose your turn"
        if action == "challenge":
            return "challenge the Wild Draw as a bluff"
        if parts[0] == "color" and len(parts) > 1:
            return f"name the color {s.face(parts[1])}"
        return action

    def event(self, e):
        s, kind, who = self.s, e.get("type"), self.who(e.get("seat"))
        if kind == "deal":
            return f"— round {e.get('round')}: {self.who(e.get('dealer'))} deals {e.get('cards')} cards each"
        if kind == "opening":
            return f"the opening card is {s.face(e.get('card'))}"
        if kind == "reinsert":
            return f"the opening {s.face(e.get('card'))} goes back into the draw pile; another is turned"
        if kind == "play":
            color = f", naming {s.face(e['color'])}" if e.get("color") else ""
            drawn = " (the card just drawn)" if e.get("drawn") else ""
            uno = ", calling UNO" if e.get("uno") else ""
            return (f"{who} plays card {e.get('position')} {s.face(e.get('card'))} (other side "
                    f"{s.face(e.get('back'))}){drawn}{color}{uno}")
        if kind == "draw":
            cards = e.get("cards", [])
            return f"{who} draws {len(cards)} ({e.get('reason')}): {s.cards(cards)}"
        if kind == "keep":
            return f"{who} keeps the card"
        if kind == "reshuffle":
            return "the discard pile (but its top card) is shuffled into a new draw pile"
        if kind == "flip":
            by = f"{who} plays a Flip: " if "seat" in e else ""
            return f"{by}everything flips to the {e.get('side')} side; the discard shows {s.card(e.get('top'))}"
        if kind == "color":
            return f"{who} names the color {s.face(e.get('color'))}"
        if kind == "skip":
            return f"{who} is skipped"
        if kind == "skip-everyone":
            return f"{who} skips everyone and plays again"
        if kind == "reverse":
            way = "clockwise" if e.get("direction", 1) == 1 else "counter-clockwise"
            return f"{who} reverses the direction: now {way}"
        if kind == "accept":
            return f"{who} accepts the Wild Draw"
        if kind == "hand-shown":
            return f"{who} shows you their hand: {s.cards(e.get('hand', []))}"
        if kind == "challenge":
            verdict = "guilty" if e.get("guilty") else "innocent"
            return f"{who} challenges {self.who(e.get('offender'))}: {verdict}"
        if kind == "uno-penalty":
            return f"{who} did not call UNO and draws the penalty"
        if kind == "round-end":
            return (f"— round {e.get('round')} ends: {self.who(e.get('winner'))} goes out on the {e.get('side')} "
                    f"side; points left {_plain(e.get('points'))}; totals {_plain(e.get('scores'))}")
        if kind == "max-turns":
            return f"— round {e.get('round')} hits the turn limit: the game stops"
        if kind == "game-end":
            return f"— the game ends ({e.get('reason')}); totals {_plain(e.get('scores'))}"
        return super().event(e)

    def summary(self, view):
        if view.get("turn") is None:
            return "the game is over"
        return {"play": "play a card or draw", "drawn": "the card you drew", "challenge": "a Wild Draw",
                "color": "name a color"}.get(view.get("phase"), str(view.get("phase")))


def _hands(r: Renderer, hands: Sequence[Sequence[Mapping[str, Any]]], turn: Any) -> list[str]:
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


# -- Color Flush ----------------------------------------------------------------


class ColorFlushRenderer(Renderer):
    ruleset_id = "color-flush"

    def view(self, view):
        s = self.s
        left = ", ".join(view.get("actions_left") or []) or "none"
        awaiting = view.get("awaiting")
        number = view.get("turn_number")
        number = number + 1 if isinstance(number, int) else number  # the view counts completed turns
        lines = [f"Turn {number} of at most {view.get('max_turns')} · active "
                 f"{self.who(view.get('active'))} · actions left: {left}"
                 + (" · choose whom to swap hands with" if awaiting == "swap" else "")]
        draw = view.get("draw_pile") or {}
        lines.append(f"Draw pile ({draw.get('size')}): {s.top(draw.get('top'))}")
        lines.extend(_hands(self, view.get("hands", []), view.get("turn")))
        if view.get("winner") is not None:
            lines.append(f"Winner: {self.who(view.get('winner'))}")
        return lines

    def action(self, action, view):
        s, parts = self.s, action.split(":")
        hands, me = view.get("hands", []), view.get("turn")
        hand = hands[me] if isinstance(me, int) and me < len(hands) else []

        def card(pos: int, holder: list = hand) -> Mapping[str, Any]:
            return holder[pos] if 0 <= pos < len(holder) else {}

        if parts[0] == "place":
            pos = int(parts[1])
            return f"place card {pos} {s.held(card(pos))} on the draw pile, {s.face(card(pos).get('face'))} up"
        if parts[0] == "give":
            pos, to = int(parts[1]), int(parts[2])
            return f"give card {pos} {s.held(card(pos))} to {self.who(to)}"
        if action == "take:pile":
            top = (view.get("draw_pile") or {}).get("top") or {}
            return f"take the top of the draw pile ({s.face(top.get('up'))} will face you)"
        if parts[0] == "take":
            victim, pos = int(parts[1]), int(parts[2])
            other = hands[victim] if victim < len(hands) else []
            return (f"take card {pos} of {self.who(victim)} (its back {s.face(card(pos, other).get('back'))} "
                    f"will face you)")
        if parts[0] == "flip":
            pos = int(parts[1])
            return f"flip card {pos} {s.held(card(pos))} ({s.face(card(pos).get('back'))} will face you)"
        if parts[0] == "swap":
            return f"swap hands with {self.who(int(parts[1]))}"
        if action == "no-swap":
            return "do not swap hands"
        return action

    def event(self, e):
        s, kind, who = self.s, e.get("type"), self.who(e.get("seat"))
        if kind == "deal":
            faces = e.get("faces") or []
            hands = "; ".join(f"{self.who(i)} {' '.join(s.face(f) for f in fs)}" for i, fs in enumerate(faces))
            return f"the deal (faces as seen on the pile): {hands}; the pile shows {s.face(e.get('top'))}"
        if kind == "turn":
            number = e.get("turn")
            return f"— turn {number + 1 if isinstance(number, int) else number}: {who}"
        if kind == "place":
            return f"{who} places card {e.get('pos')} on the draw pile: {s.top(e.get('card'))}"
        if kind == "give":
            return f"{who} gives card {e.get('pos')} to {self.who(e.get('to'))}: {s.held(e.get('card'))}"
        if kind == "take":
            source = "the draw pile" if e.get("from") == "pile" else f"card {e.get('pos')} of {self.who(e.get('from'))}"
            top = f"; the pile now shows {s.card(e.get('top'))}" if "top" in e else ""
            return f"{who} takes {source}: {s.held(e.get('card'))}{top}"
        if kind == "flip":
            return f"{who} flips card {e.get('pos')}: now {s.held(e.get('card'))}"
        if kind == "hand_flip":
            return f"{who} faces black and flips the whole hand: {s.cards(e.get('cards', []))}"
        if kind == "black_flip":
            return f"{who} flips card {e.get('pos')} away from black: {s.held(e.get('card'))}"
        if kind == "swap":
            return (f"{who} swaps hands with {self.who(e.get('with'))}: {s.cards(e.get('hand', []))} | "
                    f"{s.cards(e.get('with_hand', []))}")
        if kind == "no_swap":
            return f"{who} does not swap"
        if kind == "dropped":
            return f"{who} cannot do {_plain(e.get('actions'))}: dropped"
        if kind == "win":
            return f"{who} wins with {' '.join(s.face(f) for f in e.get('hand', []))}"
        if kind == "end":
            return f"— the game ends ({e.get('reason')}) after {e.get('turns')} turns"
        return super().event(e)

    def summary(self, view):
        if view.get("turn") is None:
            return "the game is over"
        if view.get("awaiting") == "swap":
            return "whom to swap hands with"
        return "one of: " + ", ".join(view.get("actions_left") or [])


# -- Flip Hue -----------------------------------------------------------------


class FlipHueRenderer(Renderer):
    ruleset_id = "flip-hue"

    def view(self, view):
        s = self.s
        lines = [f"Turn {view.get('turn_number')} of at most {view.get('max_turns')} · active "
                 f"{self.who(view.get('turn'))} · step: {view.get('step')}"]
        pull = view.get("pull")
        if pull:
            lines.append(f"{self.who(pull.get('seat'))} pulls card {pull.get('pos')} of "
                         f"{self.who(pull.get('target'))}")
        factions = view.get("factions") or []
        lines.append("Factions (top/bottom): " + " · ".join(
            f"{self.who(i)} {s.face(f.get('top'))}/{s.face(f.get('bottom'))}" for i, f in enumerate(factions)))
        draw, discard = view.get("draw_pile") or {}, view.get("discard_pile") or {}
        lines.append(f"Draw pile ({draw.get('size')}): {s.top(draw.get('top'))} · discard pile "
                     f"({discard.get('size')}): {s.top(discard.get('top'))}")
        lines.extend(_hands(self, view.get("hands", []), view.get("to_act")))
        if view.get("winner") is not None:
            lines.append(f"Winner: {self.who(view.get('winner'))}")
        return lines

    def action(self, action, view):
        s, parts = self.s, action.split(":")
        hands, me = view.get("hands", []), view.get("to_act")
        hand = hands[me] if isinstance(me, int) and me < len(hands) else []

        def card(pos: int, holder: Sequence[Any] = hand) -> Mapping[str, Any]:
            return holder[pos] if 0 <= pos < len(holder) else {}

        if parts[0] == "give":
            pos, to = int(parts[1]), int(parts[2])
            return f"give card {pos} {s.held(card(pos))} to {self.who(to)}"
        if parts[0] == "flip":
            pos, target = int(parts[1]), int(parts[2])
            whom = "you flip your own hand" if self.mine(target) else f"{self.who(target)} flips their hand"
            return f"discard your Flip card {pos}: {whom}"
        if parts[0] == "pull":
            target, pos = int(parts[1]), int(parts[2])
            other = hands[target] if target < len(hands) else []
            return f"pull card {pos} of {self.who(target)} (its back: {s.face(card(pos, other).get('back'))})"
        pull = view.get("pull") or {}
        if action == "allow":
            pos = pull.get("pos")
            shown = s.held(card(pos)) if isinstance(pos, int) else "[?]"
            return f"let {self.who(pull.get('seat'))} take your card {pos} {shown}"
        if parts[0] == "block":
            return f"block with your Flip card {parts[1]}: {self.who(pull.get('seat'))} flips their hand"
        if parts[0] == "discard":
            pos = int(parts[1])
            up = card(pos).get(parts[2]) if len(parts) > 2 else None
            return f"discard card {pos} {s.held(card(pos))} with {s.face(up)} up"
        return action

    def event(self, e):
        s, kind, who = self.s, e.get("type"), self.who(e.get("seat"))
        if kind == "faction":
            kept = "keeps it" if e.get("kept") else "it is unfit and goes to the discard pile"
            return f"{who} is dealt faction card {s.face(e.get('top'))}/{s.face(e.get('bottom'))}: {kept}"
        if kind == "deal":
            return f"{who} is dealt {s.held(e.get('card'))}"
        if kind == "turn":
            return f"— turn {e.get('turn')}: {who}"
        if kind == "give":
            return f"{who} gives card {e.get('pos')} to {self.who(e.get('to'))}: {s.held(e.get('card'))}"
        if kind == "push_flip":
            return (f"{who} discards Flip card {e.get('pos')}: {self.who(e.get('target'))} flips their hand: "
                    f"{s.cards(e.get('hand', []))}")
        if kind == "pull":
            return f"{who} pulls card {e.get('pos')} of {self.who(e.get('target'))}"
        if kind == "take":
            return f"{who} takes card {e.get('pos')} of {self.who(e.get('from'))}: {s.held(e.get('card'))}"
        if kind == "block":
            return (f"{who} blocks with Flip card {e.get('pos')}: {self.who(e.get('puller'))} flips their hand: "
                    f"{s.cards(e.get('hand', []))}")
        if kind == "skip":
            return f"{who} skips the {e.get('step')} step (impossible)"
        if kind == "draw":
            return f"{who} draws {s.held(e.get('card'))}"
        if kind == "discard":
            return f"{who} discards card {e.get('pos')}: {s.top(e.get('card'))}"
        if kind == "reshuffle":
            return f"the discard pile becomes the draw pile ({e.get('size')} cards), showing {s.card(e.get('top'))}"
        if kind == "win":
            side = "faces" if e.get("side") == "face" else "backs"
            return (f"{who} wins with five {s.face(e.get('color'))} ({side} of {self.who(e.get('hand'))}'s "
                    f"hand)")
        if kind == "max_turns":
            return f"— the game stops at the turn limit (turn {e.get('turn')})"
        return super().event(e)

    def summary(self, view):
        if view.get("to_act") is None:
            return "the game is over"
        return {"push": "push: give a card, or play a Flip card", "pull": "pull a card",
                "answer": "answer the pull", "cleanup": "discard down to 5"}.get(view.get("step"),
                                                                                   str(view.get("step")))


RENDERERS: dict[str, type[Renderer]] = {
    cls.ruleset_id: cls for cls in (Flip7Renderer, UnoFlipRenderer, ColorFlushRenderer, FlipHueRenderer)
}


def renderer_for(ruleset_id: str, style: Style, names: Sequence[str], seat: int | None,
                 players: int) -> Renderer:
    """The renderer for `ruleset_id` (the generic one for a ruleset it does not know)."""
    return RENDERERS.get(ruleset_id, Renderer)(style, names, seat, players)


def seat_names(displays: Sequence[str], seat: int | None, you: str = "you") -> list[str]:
    """"seat 0 (you)", "seat 1 (random)", ...: the human seat, if any, is `you`."""
    return [f"seat {i} ({you if i == seat else name})" for i, name in enumerate(displays)]


# -- frames ---------------------------------------------------------------------


def frame(renderer: Renderer, observation: Mapping[str, Any], number: int | None = None,
          chosen: str | None = None, max_events: int = 120) -> list[str]:
    """The lines showing one decision of `renderer.seat`: what happened since its last
    decision, the view, and the numbered legal actions (`chosen` marked, in replays)."""
    s = renderer.s
    view = observation.get("view", {})
    head = f"== {observation.get('ruleset', '?')}" + (f" · decision {number}" if number is not None else "") + \
        f" · {renderer.who(observation.get('seat'))} =="
    lines = [s.bold(head)]
    events = list(observation.get("events", []))
    if events:
        lines.append("What happened:")
        if len(events) > max_events:
            lines.append(f"  ... {len(events) - max_events} earlier events")
            events = events[-max_events:]
        lines.extend("  " + renderer.safe_event(e) for e in events)
    lines.extend(renderer.safe_view(view))
    legal = observation.get("legal_actions", [])
    whose = "Your choices" if renderer.you else f"Choices of {renderer.who(observation.get('seat'))}"
    lines.append(f"{whose} ({renderer.summary(view)}):")
    width = len(str(len(legal)))
    for index, action in enumerate(legal, 1):
        mark = " ◀ chosen" if chosen is not None and action == chosen else ""
        lines.append(f"  {index:>{width}}. {renderer.safe_action(action, view)}  "
                     f"{s.dim('(' + action + ')')}{mark}")
    return fit(lines)
