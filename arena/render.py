"""Observations rendered for people: the text `arena play` and `arena replay` print.

Everything here is a pure function of ONE seat's observation (its view, its events,
its legal actions) plus the seat names: nothing reads engine state, so a frame can
show no more than the seat could see. The god view is printed from the god log by
`arena.terminal`, never from here.

- A card face is a label, ``[red 7]`` (the face string with dashes as spaces), in
  its color when color is on; the brackets make it read without color. A face the
  seat has not seen is ``[?]``.
- A held card is ``face/back`` relative to its holder: the side toward the holder
  first, then the side the others see. A pile top is ``up`` with ``(under: down)``.
- Each ruleset declares a `Renderer` subclass (`Ruleset.renderer`, in its package's
  `text` module; `Style` and the generic `Renderer` live in `arena/rules/text.py`) that
  lays out its view, describes its actions in plain words and phrases its events;
  `Renderer` itself is the generic fallback, which prints any view readably.
- Every line fits `WIDTH` columns (long lines wrap with a hanging indent; a card
  label is never split).
"""

from __future__ import annotations

import functools
import os
import random
import re
from typing import Any, Mapping, Sequence, TextIO

from arena.rules.base import Ruleset
from arena.rules.text import COLOR_CODES, Renderer, Style, is_card  # noqa: F401 - the terminal's names for them

WIDTH = 100
ANSI = re.compile(r"\x1b\[[0-9;]*m")

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


def renderer_for(ruleset: str | type[Ruleset], style: Style, names: Sequence[str], seat: int | None,
                 players: int) -> Renderer:
    """The renderer `ruleset` (a class, or an installed ruleset's id) declares, its faces
    drawn from its `card_faces` (the generic renderer for an id not installed)."""
    if isinstance(ruleset, str):
        from arena import rulesets
        from arena.errors import UnknownNameError

        try:
            ruleset = rulesets.get(ruleset)
        except UnknownNameError:
            return Renderer(style, names, seat, players)
    faces = getattr(ruleset, "card_faces", None)
    styled = Style(style.color, faces) if faces else style
    renderer = getattr(ruleset, "renderer", Renderer)(styled, names, seat, players)
    renderer.two_faced = deals_two_faced_cards(ruleset)
    return renderer


@functools.cache
def deals_two_faced_cards(ruleset: type[Ruleset]) -> bool:
    """Whether a deal of `ruleset` (its fewest players, default options, seed 0) shows any
    seat a two-faced card (a ``{"face", "back"}`` or ``{"up", "down"}`` value); True when
    it cannot tell (a deal that fails)."""
    try:
        state = ruleset.new_game(ruleset.min_players, ruleset.resolve_options(), random.Random(0))
        views = [state.view(seat) for seat in range(ruleset.min_players)]
    except Exception:  # noqa: BLE001 - a legend is no reason to stop a game
        return True
    return any(_holds_a_card(view) for view in views)


def _holds_a_card(value: Any) -> bool:
    if is_card(value):
        return True
    if isinstance(value, Mapping):
        return any(_holds_a_card(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_a_card(item) for item in value)
    return False


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
