"""Flip Hue as text for people: its renderer (the view laid out, actions in plain words,
events as sentences), declared as `renderer` on the ruleset and used by `arena play`,
`arena replay` and the site's replays."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from arena.rules.text import Renderer, hands_lines


class FlipHueRenderer(Renderer):
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
        lines.extend(hands_lines(self, view.get("hands", []), view.get("to_act")))
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
            asked = pull.get("pos")
            shown = s.held(card(asked)) if isinstance(asked, int) else "[?]"
            return f"let {self.who(pull.get('seat'))} take your card {asked} {shown}"
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

    @classmethod
    def log_line(cls, event: Mapping[str, Any]) -> str:
        """The god log's plain line for `event` (`Ruleset.describe_event`)."""
        kind = event.get("type")
        seat = event.get("seat")
        if kind in _TABLE_EVENTS:
            return _table_log_line(event)
        if kind == "give":
            return f"seat {seat} gives card {event['pos']} to seat {event['to']}: {_log_card(event.get('card'))}"
        if kind == "push_flip":
            return f"seat {seat} discards Flip (card {event['pos']}): seat {event['target']} flips their hand"
        if kind == "pull":
            return f"seat {seat} pulls at seat {event['target']}'s card {event['pos']}"
        if kind == "take":
            return f"seat {seat} takes card {event['pos']} of seat {event['from']}: {_log_card(event.get('card'))}"
        if kind == "block":
            return f"seat {seat} blocks with Flip (card {event['pos']}): seat {event['puller']} flips their hand"
        if kind == "skip":
            return f"seat {seat} skips {event['step']}"
        if kind == "draw":
            return f"seat {seat} draws {_log_card(event.get('card'))}"
        if kind == "discard":
            return f"seat {seat} discards card {event['pos']}: {_log_card(event.get('card'))}"
        return super().log_line(event)


_TABLE_EVENTS = frozenset({"faction", "deal", "turn", "reshuffle", "win", "max_turns"})
"""The kinds of event that are the table's (dealing, turns, the end), not a seat's move."""


def _log_card(c: Mapping[str, Any] | None) -> str:
    """A card in a god log line: its faces up and down (a hand card), or face and back."""
    if not c:
        return "?"
    if "up" in c:
        return f"{c['up']} up / {c['down']} down"
    return f"{c['face']} (back {c['back']})"


def _table_log_line(event: Mapping[str, Any]) -> str:
    """`FlipHueRenderer.log_line` for an event of the table (a kind of _TABLE_EVENTS)."""
    kind, seat = event.get("type"), event.get("seat")
    if kind == "faction":
        kept = "" if event.get("kept", True) else " (rejected, to the discard pile)"
        return f"seat {seat} faction card {event.get('top')}/{event.get('bottom', '?')}{kept}"
    if kind == "deal":
        return f"seat {seat} is dealt {_log_card(event.get('card'))}"
    if kind == "turn":
        return f"--- turn {event['turn']}: seat {seat}"
    if kind == "reshuffle":
        return f"the discard pile ({event['size']} cards) becomes the draw pile, {event.get('top')} on top"
    if kind == "win":
        where = "own faces" if event["side"] == "face" else f"the backs of seat {event['hand']}'s hand"
        return f"seat {seat} wins with five {event['color']} on {where}"
    return f"the game stops at the turn limit ({event['turn']} turns)"  # max_turns
