"""`flip7-threshold`: the simple Flip 7 policy that published simulations favour.

Hit or stay: hit while holding a Second Chance (a bust is impossible on the next card);
otherwise stay once the sum of its number cards reaches `threshold` (default 27).

Action cards are aimed with a one-step risk model built from the observation alone:
the deck's composition (`view["unseen"]`, public by card counting) gives, for any row,
the chance that the next card busts it and the expected value a card adds.

- Freeze: at the player whose round it hurts most to stop now (an opponent with a small,
  safe row, weighted by how close they are to winning), or on itself when its own row is
  worth more banked than pushed (a high sum with a large bust chance).
- Flip Three: at the opponent whose row is most likely to bust on three forced cards
  (weighted the same way); on itself only when three cards are expected to help it.
- A surplus Second Chance: to the least threatening eligible opponent.
"""

from __future__ import annotations

import arena

NUMBER_CARDS = tuple(str(n) for n in range(13))


class Flip7ThresholdBot(arena.Bot):
    """Stays at `threshold`, hits with a Second Chance, aims action cards by risk."""

    name = "flip7-threshold"
    rulesets = ("flip-7",)

    def __init__(self, threshold: int = 27):
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
            raise ValueError(f"threshold must be a non-negative integer, not {threshold!r}")
        self.threshold = threshold

    def act(self, observation):
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        view = observation["view"]
        me = observation["seat"]
        decision = view["decision"]
        if decision == "hit-or-stay":
            row = view["rows"][me]
            if row["second_chance"] or row["number_sum"] < self.threshold:
                return "hit"
            return "stay"
        targets = [int(action.rsplit(":", 1)[1]) for action in legal]
        counts, size = _deck(view)
        if decision == "second-chance":
            rows, totals = view["rows"], view["totals"]
            best = min(targets, key=lambda t: (totals[t] + rows[t]["score"], t))
        else:
            value = self._freeze_value if decision == "freeze" else self._flip_three_value
            best = max(targets, key=lambda t: (value(view, me, t, counts, size), -t))
        return f"{decision}:{best}"

    # -- the risk model -------------------------------------------------------------

    def _baseline(self, row, counts, size, is_me):
        """What the row is worth if its owner plays on (one step): an opponent is
        assumed to choose well; this bot follows its own threshold."""
        score = row["score"]
        if row["status"] != "active":
            return score
        bust, gain = _odds(row, counts, size)
        if not is_me:
            return max(score, (1 - bust) * (score + gain))
        if row["number_sum"] >= self.threshold and not row["second_chance"]:
            return score                                    # I would stay now
        return (1 - bust) * (score + gain)                  # I would hit

    def _weight(self, view, me, seat):
        if seat == me:
            return 1.0
        return 0.5 + view["totals"][seat] / max(1, view["target_score"])

    def _freeze_value(self, view, me, seat, counts, size):
        """How much freezing `seat` now is worth to me."""
        row = view["rows"][seat]
        change = row["score"] - self._baseline(row, counts, size, seat == me)
        return change * self._weight(view, me, seat) * (1 if seat == me else -1)

    def _flip_three_value(self, view, me, seat, counts, size):
        """How much making `seat` take three cards now is worth to me."""
        row = view["rows"][seat]
        change = _three_cards(row, counts, size) - self._baseline(row, counts, size, seat == me)
        return change * self._weight(view, me, seat) * (1 if seat == me else -1)


def _deck(view):
    """Card counts of what will be drawn (the deck; the set-aside pile if it is short)."""
    counts = dict(view["unseen"])
    size = view["deck_size"]
    if size < 3:
        for card, count in view["set_aside"].items():
            counts[card] = counts.get(card, 0) + count
        size += sum(view["set_aside"].values())
    return counts, max(size, 1)


def _odds(row, counts, size):
    """(chance the next card busts `row`, expected points the next card adds)."""
    held = set(row["numbers"])
    bust = 0 if row["second_chance"] else sum(counts.get(str(v), 0) for v in held) / size
    gain = sum(v * counts.get(str(v), 0) for v in range(13) if v not in held) / size
    if "x2" in row["modifiers"]:
        gain *= 2
    return bust, gain


def _three_cards(row, counts, size):
    """Expected score of `row` after three forced cards (first-order approximation)."""
    held = set(row["numbers"])
    dup = sum(counts.get(str(v), 0) for v in held)
    fresh = [counts.get(str(v), 0) for v in range(13) if v not in held]
    # a fresh number drawn adds its remaining copies to the duplicates
    growth = sum(c * (c - 1) for c in fresh) / size
    _, gain = _odds(row, counts, size)
    survive, chance = 1.0, row["second_chance"]
    for k in range(3):
        p = min(1.0, (dup + k * growth) / size)
        if chance:
            chance = False                                   # the first duplicate is forgiven
            continue
        survive *= 1 - p
    return survive * (row["score"] + 3 * gain)
