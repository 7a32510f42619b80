"""Color Flush as text for people: its renderer (the view laid out, actions in plain words,
events as sentences), declared as `renderer` on the ruleset and used by `arena play`,
`arena replay` and the site's replays."""

from __future__ import annotations

from typing import Any, Mapping

from arena.rules.text import Renderer, hands_lines, plain


class ColorFlushRenderer(Renderer):
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
        lines.extend(hands_lines(self, view.get("hands", []), view.get("turn")))
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
            return f"{who} cannot do {plain(e.get('actions'))}: dropped"
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

    @classmethod
    def log_line(cls, event: Mapping[str, Any]) -> str:
        """The god log's plain line for `event` (`Ruleset.describe_event`)."""
        kind = event.get("type")
        seat = event.get("seat")
        card = event.get("card") or {}
        if kind == "deal":
            return "deal: " + "; ".join(f"seat {s} {' '.join(f)}" for s, f in enumerate(event["faces"]))
        if kind == "turn":
            return f"--- turn {event['turn']}: seat {seat}"
        if kind == "place":
            return f"seat {seat} places card {event['pos']} on the pile, {card.get('up')} up (down {card.get('down')})"
        if kind == "give":
            return (f"seat {seat} gives card {event['pos']} to seat {event['to']}: "
                    f"{_card_text(card)} for the receiver")
        if kind == "take":
            if event.get("from") == "pile":
                return f"seat {seat} takes the pile top: {_card_text(card)}"
            return f"seat {seat} takes card {event['pos']} of seat {event['from']}: {_card_text(card)}"
        if kind == "flip":
            return f"seat {seat} flips card {event['pos']}: now {_card_text(card)}"
        if kind == "hand_flip":
            return f"seat {seat} faces black and flips the whole hand: " + " ".join(
                _card_text(c) for c in event["cards"])
        if kind == "black_flip":
            return f"seat {seat} flips card {event['pos']} back from black: {_card_text(card)}"
        if kind == "swap":
            return f"seat {seat} swaps hands with seat {event['with']}"
        if kind == "no_swap":
            return f"seat {seat} declines the white swap"
        if kind == "dropped":
            return f"seat {seat} drops {', '.join(event['actions'])} (no legal form)"
        if kind == "win":
            return f"seat {seat} WINS with {' '.join(event['hand'])}"
        if kind == "end":
            return f"game over: {event['reason']} after {event['turns']} turns"
        return super().log_line(event)


def _card_text(card: Mapping[str, Any]) -> str:
    if "up" in card:
        return f"{card.get('up')}/{card.get('down')}"
    return f"{card.get('face')}/{card.get('back')}"
