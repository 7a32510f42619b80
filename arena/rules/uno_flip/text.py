"""UNO Flip as text for people: its renderer (the view laid out, actions in plain words,
events as sentences), declared as `renderer` on the ruleset and used by `arena play`,
`arena replay` and the site's replays."""

from __future__ import annotations

from typing import Any, Mapping

from arena.rules.text import Renderer, hands_lines, plain

_TABLE_EVENTS = frozenset({"deal", "opening", "reinsert", "reshuffle", "round-end", "max-turns", "game-end"})
"""The kinds of event that are the table's, not a seat's move."""
_PLAIN_SEAT_EVENTS = {"keep": "keeps the card", "accept": "accepts the Wild Draw", "skip": "is skipped",
                      "skip-everyone": "skips everyone and plays again",
                      "uno-penalty": "did not call UNO and draws the penalty"}
"""A seat's events that say nothing but their kind, with their sentence."""


class UnoFlipRenderer(Renderer):
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
        lines.extend(hands_lines(self, view.get("hands", []), view.get("turn")))
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
                lines.append(f"Pending: {plain(pending)}")
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
        if kind in _TABLE_EVENTS:
            return self._table_event(e)
        if kind == "play":
            color = f", naming {s.face(e['color'])}" if e.get("color") else ""
            drawn = " (the card just drawn)" if e.get("drawn") else ""
            uno = ", calling UNO" if e.get("uno") else ""
            return (f"{who} plays card {e.get('position')} {s.face(e.get('card'))} (other side "
                    f"{s.face(e.get('back'))}){drawn}{color}{uno}")
        if kind == "draw":
            cards = e.get("cards", [])
            return f"{who} draws {len(cards)} ({e.get('reason')}): {s.cards(cards)}"
        if kind == "flip":
            by = f"{who} plays a Flip: " if "seat" in e else ""
            return f"{by}everything flips to the {e.get('side')} side; the discard shows {s.card(e.get('top'))}"
        if kind == "color":
            return f"{who} names the color {s.face(e.get('color'))}"
        if kind == "reverse":
            way = "clockwise" if e.get("direction", 1) == 1 else "counter-clockwise"
            return f"{who} reverses the direction: now {way}"
        if kind == "hand-shown":
            return f"{who} shows you their hand: {s.cards(e.get('hand', []))}"
        if kind == "challenge":
            verdict = "guilty" if e.get("guilty") else "innocent"
            return f"{who} challenges {self.who(e.get('offender'))}: {verdict}"
        if kind in _PLAIN_SEAT_EVENTS:
            return f"{who} {_PLAIN_SEAT_EVENTS[kind]}"
        return super().event(e)

    def _table_event(self, e):
        """The line of an event of the table, not of a seat's move (a kind of _TABLE_EVENTS)."""
        s, kind = self.s, e.get("type")
        if kind == "deal":
            return f"— round {e.get('round')}: {self.who(e.get('dealer'))} deals {e.get('cards')} cards each"
        if kind == "opening":
            return f"the opening card is {s.face(e.get('card'))}"
        if kind == "reinsert":
            return f"the opening {s.face(e.get('card'))} goes back into the draw pile; another is turned"
        if kind == "reshuffle":
            return "the discard pile (but its top card) is shuffled into a new draw pile"
        if kind == "round-end":
            return (f"— round {e.get('round')} ends: {self.who(e.get('winner'))} goes out on the {e.get('side')} "
                    f"side; points left {plain(e.get('points'))}; totals {plain(e.get('scores'))}")
        if kind == "max-turns":
            return f"— round {e.get('round')} hits the turn limit: the game stops"
        return f"— the game ends ({e.get('reason')}); totals {plain(e.get('scores'))}"  # game-end

    def summary(self, view):
        if view.get("turn") is None:
            return "the game is over"
        return {"play": "play a card or draw", "drawn": "the card you drew", "challenge": "a Wild Draw",
                "color": "name a color"}.get(view.get("phase"), str(view.get("phase")))

    @classmethod
    def log_line(cls, event: Mapping[str, Any]) -> str:
        """The god log's plain line for `event` (`Ruleset.describe_event`)."""
        kind = event.get("type")
        who = f"seat {event['seat']}" if "seat" in event else "table"
        if kind in _TABLE_EVENTS:
            return cls._table_log_line(event)
        if kind == "play":
            extra = f" naming {event['color']}" if "color" in event else ""
            drawn = " (the drawn card)" if event.get("drawn") else ""
            uno = " UNO!" if event.get("uno") else ""
            return f"{who} plays {event['card']}{drawn}{extra}{uno}"
        if kind == "draw":
            cards = ", ".join(str(c["face"]) for c in event["cards"]) or "nothing"
            return f"{who} draws {cards} ({event['reason']})"
        if kind == "flip":
            return f"{who} flips: {event['side']} side, top {event['top']}"
        if kind == "challenge":
            verdict = "guilty" if event["guilty"] else "innocent"
            return f"{who} challenges seat {event['offender']}: {verdict}"
        if kind == "hand-shown":
            return f"seat {event['seat']} shows " + ", ".join(str(c['face']) for c in event["hand"])
        if kind == "color":
            return f"{who} names {event['color']}"
        if kind == "reverse":
            return f"{who} reverses: direction {event['direction']}"
        if kind in _PLAIN_SEAT_EVENTS:
            return f"{who} {kind}"
        return super().log_line(event)

    @staticmethod
    def _table_log_line(event: Mapping[str, Any]) -> str:
        """`log_line` for an event of the table (a kind of _TABLE_EVENTS)."""
        kind = event.get("type")
        if kind == "deal":
            return f"round {event['round']}: seat {event['dealer']} deals {event['cards']} cards each"
        if kind == "opening":
            return f"opening card {event['card']}"
        if kind == "round-end":
            return (f"round {event['round']} won by seat {event['winner']} on the {event['side']} side; "
                    f"points left {event['points']}, scores {event['scores']}")
        if kind == "reinsert":
            return f"opening {event['card']} goes back into the draw pile"
        if kind == "reshuffle":
            return f"the discard pile ({event['cards']} cards) is shuffled into a new draw pile"
        if kind == "max-turns":
            return f"round {event['round']} stopped at max_turns"
        return f"game over ({event['reason']}): scores {event['scores']}"  # game-end
