"""Flip 7 as text for people: its renderer (the view laid out, actions in plain words,
events as sentences), declared as `renderer` on the ruleset and used by `arena play`,
`arena replay` and the site's replays."""

from __future__ import annotations

from typing import Any, Mapping

from arena.rules.flip_7.engine import FLIP_7_BONUS
from arena.rules.text import Renderer, plain

REASONS = {"no-active": "nobody is left in the round", "flip-7": "a Flip 7", "no-cards": "no cards left",
           "no-recipient": "nobody can take it", "bust": "a bust"}
"""The events' reasons in words, for a person at the table (the records keep the codes)."""


class Flip7Renderer(Renderer):
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
            return (f"{who} discards {' '.join(s.face(c) for c in e.get('cards', []))} "
                    f"({REASONS.get(e.get('reason'), e.get('reason'))})")
        if kind == "reshuffle":
            return "the set-aside cards are shuffled into a new deck"
        if kind == "deck-empty":
            return "no cards are left anywhere: the round ends"
        if kind == "round-end":
            return (f"— round {e.get('round')} ends ({REASONS.get(e.get('reason'), e.get('reason'))}); "
                    f"scores {plain(e.get('scores'))}; "
                    f"totals {plain(e.get('totals'))}")
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

    @classmethod
    def log_line(cls, event: Mapping[str, Any]) -> str:
        """The god log's plain line for `event` (`Ruleset.describe_event`)."""
        kind = event.get("type")
        seat = event.get("seat")
        if kind == "round-start":
            return f"-- round {event['round']}, seat {event['dealer']} deals"
        if kind == "card":
            return f"seat {seat} gets {event['card']} ({event['source']})"
        if kind == "set-aside":
            return f"seat {seat} sets {event['card']} aside to hand out after the Flip Three"
        if kind == "stay":
            return f"seat {seat} stays with {event['score']}"
        if kind == "bust":
            return f"seat {seat} busts on {event['card']}"
        if kind == "flip-7":
            return f"seat {seat} FLIPS 7 (+{FLIP_7_BONUS}); the round ends"
        if kind == "second-chance-used":
            return f"seat {seat} uses a Second Chance on {event['card']}"
        if kind == "give":
            extra = f" (banks {event['score']})" if "score" in event else ""
            return f"seat {seat} gives {event['card']} to seat {event['to']}{extra}"
        if kind == "discard":
            return f"seat {seat} discards {', '.join(event['cards'])} ({REASONS.get(event['reason'], event['reason'])})"
        if kind == "reshuffle":
            return f"the set-aside pile ({event['cards']} cards) is shuffled into a new deck"
        if kind == "deck-empty":
            return "no cards left anywhere: the round ends"
        if kind == "round-end":
            return (f"-- round {event['round']} ends ({REASONS.get(event['reason'], event['reason'])}): "
                    f"scores {event['scores']}, "
                    f"totals {event['totals']}")
        if kind == "game-end":
            return f"== game over after {event['rounds']} rounds ({event['reason']}): totals {event['totals']}"
        return super().log_line(event)
