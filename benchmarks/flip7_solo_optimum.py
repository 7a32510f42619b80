"""The Flip 7 solo challenge under a fresh deck each round: the optimal policy, by dynamic programming.

The relaxation (model "fresh-deck"), stated exactly:

- Every round starts from a fresh, shuffled copy of the full 94-card deck (the real game carries
  the deck over between rounds; that is what this model relaxes).
- Within a round the rules are the engine's, solo (`arena/rules/flip_7.py`, rulings
  `shared/rules/flip-7.md`): the deal card is a forced hit; a duplicate number busts (round
  score 0) unless a Second Chance is held, which is then used up with the duplicate (the turn
  ends; solo, the same player decides again); a seventh distinct number ends the round with +15;
  a Freeze is taken by the player (solo: the only active player) and banks the row; a Flip Three
  is taken by the player: three forced cards, stopping early on a bust or a Flip 7, a Second
  Chance among them kept (or discarded when one is already held) and usable during them; a
  second Second Chance is discarded (nobody to give it to). Scoring: numbers, x2 doubles them,
  plus +2..+10, plus 15 for seven distinct numbers; stay needs a card in front of the player.
- Three simplifications of the in-round card counting, to keep the state small (each one makes
  the model differ from the engine's single round by a little; `tests/test_flip7_optimum.py` and
  the notes measure how much):
    (a) a duplicate absorbed by a Second Chance goes back into the deck;
    (b) Freeze and Flip Three cards go back into the deck once resolved (a solo round rarely
        meets more than one);
    (c) a Freeze or Flip Three turned up among a Flip Three's three forced cards is put back and
        replaced by the next card (the engine sets it aside and applies it after the three: a
        Freeze then banks the row, a Flip Three forces three more cards).
  Numbers held, modifiers drawn and Second Chances drawn are counted exactly.

The state within a round is (numbers held as a bit mask, modifiers drawn as a bit mask, Second
Chances drawn C, one held H) plus, during a Flip Three, the forced cards left r in {1, 2, 3}. Each
hit moves to a state with strictly more progress 2(numbers + modifiers + C) + (1 - H), so the
round is an acyclic Markov decision process, solved level by level from the deepest.

Game value: V(t) is the least expected number of rounds from total t to reach `target` (200);
V(t) = 0 from the target on. A round from total t ends with a round score S (0 after a bust, or
a stay or Freeze with nothing scored), so V(t) = 1 + min over round policies of E[V(t + S)] where
V(t + 0) = V(t) itself: the self-loop. For a fixed guess x of V(t), the round problem with
terminal values g(0) = x, g(s) = V(t + s) is the acyclic MDP above; its optimal policy gives
P0 (chance of S = 0) and A = 1 + E[g(S); S > 0], and the policy's exact value is A / (1 - P0).
Iterating x <- A / (1 - P0) (Dinkelbach's method for this fractional objective) reaches the
fixed point V(t) in a few solves; t runs from target - 1 down to 0, so V(t + s) for s > 0 is
known. The optimum of the relaxation is V(0).

Run: ``nice -n 10 .venv/bin/python benchmarks/flip7_solo_optimum.py`` (needs numpy: a benchmark
dependency, not the package's). It prints V(0), writes the table V(0..target-1) as JSON
(``--out``), and with ``--simulate N`` plays N games of the optimal policy in a fresh-deck
simulator of this model. Results and the argument: ``benchmarks/flip7_solo_notes.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Deck:
    """A deck composition: `copies[v]` number cards of value v, the modifiers ("+N" or "x2"),
    the action cards, the distinct numbers that end a round (`flip_n`) and their bonus."""

    copies: tuple[int, ...]
    modifiers: tuple[str, ...]
    freezes: int
    flip_threes: int
    second_chances: int
    flip_n: int = 7
    flip_bonus: int = 15

    @property
    def size(self) -> int:
        return (sum(self.copies) + len(self.modifiers) + self.freezes + self.flip_threes
                + self.second_chances)


FULL_DECK = Deck(copies=(1,) + tuple(range(1, 13)), modifiers=("+2", "+4", "+6", "+8", "+10", "x2"),
                 freezes=3, flip_threes=3, second_chances=3)
assert FULL_DECK.size == 94


class Model:
    """The fresh-deck round model of `deck`, as dense arrays over the in-round states.

    A state is (mask, inner): `mask` the numbers held (bit v for value v); `inner` =
    ``mods * n_ch + ch``, `mods` the modifiers drawn (bit j for ``deck.modifiers[j]``) and `ch`
    the index of a pair (C, H) in `ch_pairs` (Second Chances drawn, one held). States are
    solved in blocks of masks with the same number of numbers, the most first; within a block,
    inner states by descending inner progress 2(modifiers + C) + (1 - H).
    """

    VALUE, ZERO = slice(0, 6, 2), slice(1, 6, 2)   # columns of the table: D, W1, W2 x (value, P(0))

    def __init__(self, deck: Deck):
        self.deck = deck
        nv, nm, ns = len(deck.copies), len(deck.modifiers), deck.second_chances
        self.ch_pairs = [(0, 0)] + [(c, h) for c in range(1, ns + 1) for h in (1, 0)]
        self.ch_index = {pair: i for i, pair in enumerate(self.ch_pairs)}
        self.n_ch, self.n_mods = len(self.ch_pairs), 1 << nm
        self.n_masks, self.n_inner = 1 << nv, self.n_mods * self.n_ch
        # per mask
        mask = np.arange(self.n_masks)
        bits = (mask[:, None] >> np.arange(nv)) & 1
        copies = np.array(deck.copies, dtype=np.int64)
        self.npop = bits.sum(axis=1)
        self.nsum = bits @ np.arange(nv)
        self.dup = bits @ np.maximum(copies - 1, 0)      # copies left of the numbers held
        self.blocks = [np.flatnonzero(self.npop == p) for p in range(deck.flip_n - 1, -1, -1)]
        # per inner state
        inner = np.arange(self.n_inner)
        mods, ch = inner // self.n_ch, inner % self.n_ch
        mbits = (mods[:, None] >> np.arange(nm)) & 1
        x2 = np.array([m == "x2" for m in deck.modifiers], dtype=np.int64)
        plus = np.array([0 if m == "x2" else int(m[1:]) for m in deck.modifiers], dtype=np.int64)
        self.mods, self.ch = mods, ch
        self.mult = 1 + (mbits @ x2 > 0)
        self.bonus = mbits @ plus
        self.c = np.array([c for c, _ in self.ch_pairs])[ch]
        self.h = np.array([h for _, h in self.ch_pairs])[ch]
        sc_next = np.array([self.ch_index.get((c + 1, 1), 0) for c, _ in self.ch_pairs])
        used_next = np.array([self.ch_index[(c, 0)] if h else 0 for c, h in self.ch_pairs])
        self.sc_succ = inner - ch + sc_next[ch]         # a Second Chance drawn
        self.used_succ = inner - ch + used_next[ch]     # a duplicate absorbed by the one held
        progress = 2 * (mbits.sum(axis=1) + self.c) + (1 - self.h)
        self.inner_levels = [np.flatnonzero(progress == lv) for lv in range(int(progress.max()), -1, -1)]
        # per (mask, inner)
        self.sigma = self.mult[None, :] * self.nsum[:, None] + self.bonus[None, :]   # score if staying
        self.size = deck.size - self.npop[:, None] - mbits.sum(axis=1)[None, :] - self.c[None, :]
        self.size_nt = self.size - deck.freezes - deck.flip_threes   # not Freeze / Flip Three
        top = np.sort(copies.nonzero()[0])[::-1][: deck.flip_n].sum()
        self.max_score = 2 * int(top) + int(plus.sum()) + deck.flip_bonus
        valid = self.npop[:, None] < deck.flip_n
        assert (self.size_nt[np.broadcast_to(valid, self.size_nt.shape)] > 0).all(), \
            "deck too small: a forced card could be missing"

    def index(self, mask: int, mods: int, c: int, h: int) -> tuple[int, int]:
        return mask, mods * self.n_ch + self.ch_index[(c, h)]

    # -- one round -----------------------------------------------------------------------------

    def solve(self, g: np.ndarray, hit_rule: np.ndarray | None = None):
        """The round under terminal values `g` (g[s] for a round score s; g[0] also for a bust):
        with `hit_rule` None, the policy minimising E[g(S)]; else the fixed policy "hit where
        hit_rule[mask, inner]". Returns (E[g(S)], P(S = 0), the hit decisions [mask, inner])."""
        deck = self.deck
        table = np.zeros((self.n_masks, self.n_inner, 6))
        hit = np.zeros((self.n_masks, self.n_inner), dtype=bool)
        zero_g = (np.arange(len(g)) == 0).astype(float)
        last_block = True
        for masks in self.blocks:
            acc = np.zeros((len(masks), self.n_inner, 6))
            for v, count in enumerate(deck.copies):
                rows = np.flatnonzero(((masks >> v) & 1) == 0)
                if not count or not len(rows):
                    continue
                if last_block:   # a seventh number: Flip 7
                    score = (self.mult[None, :] * (self.nsum[masks[rows]][:, None] + v)
                             + self.bonus[None, :] + deck.flip_bonus)
                    acc[rows, :, self.VALUE] += (count * g[score])[:, :, None]
                else:
                    acc[rows] += count * table[masks[rows] | (1 << v)]
            last_block = False
            block = table[masks]
            dup = self.dup[masks][:, None].astype(float)
            for ins in self.inner_levels:
                a = acc[:, ins, :]
                held = self.h[ins] == 1
                a[:, held, :] += dup[:, :, None] * block[:, self.used_succ[ins[held]], :]
                a[:, ~held, self.VALUE] += (dup * g[0])[:, :, None]
                a[:, ~held, self.ZERO] += dup[:, :, None]
                mods = self.mods[ins]
                for j in range(len(deck.modifiers)):
                    free = ((mods >> j) & 1) == 0
                    a[:, free, :] += block[:, ins[free] + (self.n_ch << j), :]
                left = deck.second_chances - self.c[ins]
                some = left > 0
                a[:, some, :] += left[some][None, :, None] * block[:, self.sc_succ[ins[some]], :]
                size_nt = self.size_nt[masks][:, ins][:, :, None]
                w = a / size_nt                       # W1 (from D), W2 (from W1), W3 (from W2)
                size = self.size[masks][:, ins]
                sig = self.sigma[masks][:, ins]
                hit_val = (a[:, :, 0] + deck.freezes * g[sig] + deck.flip_threes * w[:, :, 4]) / size
                hit_zero = (a[:, :, 1] + deck.freezes * zero_g[sig] + deck.flip_threes * w[:, :, 5]) / size
                stay_val = g[sig]
                if hit_rule is None:
                    go = hit_val < stay_val
                else:
                    go = hit_rule[masks][:, ins].copy()
                go[(masks == 0)[:, None] & (ins == 0)[None, :]] = True   # the deal card
                out = block[:, ins, :]
                out[:, :, 0] = np.where(go, hit_val, stay_val)
                out[:, :, 1] = np.where(go, hit_zero, zero_g[sig])
                out[:, :, 2:6] = w[:, :, 0:4]
                block[:, ins, :] = out
                hit[masks[:, None], ins[None, :]] = go
            table[masks] = block
        return float(table[0, 0, 0]), float(table[0, 0, 1]), hit

    # -- the game -------------------------------------------------------------------------------

    def terminal_values(self, v: list[float], total: int, x: float, target: int) -> np.ndarray:
        """g for a round from `total`: g[0] = x (the guess of V(total)), g[s] = V(total + s)."""
        g = np.zeros(self.max_score + 1)
        g[0] = x
        for s in range(1, len(g)):
            g[s] = v[total + s] if total + s < target else 0.0
        return g

    def rounds_to_go(self, target: int = 200, tol: float = 1e-12, log=None):
        """V(0..target-1) and, per total, the optimal hit decisions (packed bits)."""
        v = [0.0] * (target + self.max_score + 1)
        policies: list[np.ndarray | None] = [None] * target
        guess = 1.0
        for total in range(target - 1, -1, -1):
            x = guess
            for _ in range(50):
                g = self.terminal_values(v, total, x, target)
                value, p0, hit = self.solve(g)
                new = (1.0 + value - p0 * x) / (1.0 - p0)     # the current policy's exact value
                done = abs(new - x) <= tol * max(1.0, abs(x))
                x = new
                if done:
                    break
            else:
                raise RuntimeError(f"no fixed point at total {total}")
            v[total] = x
            policies[total] = np.packbits(hit)
            guess = x
            if log is not None:
                log(total, x)
        return v[:target], policies


def simulate_fresh_deck(model: Model, policies, target: int, games: int, seed: int) -> list[int]:
    """Rounds to `target` of the optimal policy in a simulator of the model (a fresh shuffled
    deck each round, the model's rules card by card). Checks the DP's V(0) independently."""
    deck = model.deck
    cards = ([("n", v) for v, c in enumerate(deck.copies) for _ in range(c)]
             + [("m", j) for j in range(len(deck.modifiers))]
             + [("z", 0)] * deck.freezes + [("f", 0)] * deck.flip_threes + [("s", 0)] * deck.second_chances)
    rng = random.Random(seed)
    unpacked = {}
    results = []
    for _ in range(games):
        total, rounds = 0, 0
        while total < target:
            if total not in unpacked:
                unpacked[total] = (np.unpackbits(policies[total])[: model.n_masks * model.n_inner]
                                   .astype(bool).reshape(model.n_masks, model.n_inner))
            hit = unpacked[total]
            total += _play_round(model, cards, hit, rng)
            rounds += 1
        results.append(rounds)
    return results


def _play_round(model: Model, cards, hit, rng: random.Random) -> int:
    deck = model.deck
    pile = cards.copy()
    rng.shuffle(pile)
    mask = mods = c = h = 0
    numbers = []

    def index():
        return model.index(mask, mods, c, h)

    def score(flip=False):
        plus = sum(int(deck.modifiers[j][1:]) for j in range(len(deck.modifiers))
                   if mods >> j & 1 and deck.modifiers[j] != "x2")
        x2 = any(mods >> j & 1 and deck.modifiers[j] == "x2" for j in range(len(deck.modifiers)))
        return sum(numbers) * (2 if x2 else 1) + plus + (deck.flip_bonus if flip else 0)

    def draw(forced):
        """Apply the next card; returns None to go on, or the round score."""
        nonlocal mask, mods, c, h
        while True:
            kind, value = pile.pop()
            if forced and kind in ("z", "f"):
                pile.insert(rng.randrange(len(pile) + 1), (kind, value))   # (c): put back, redraw
                continue
            break
        if kind == "n":
            if mask >> value & 1:
                if h:
                    h = 0
                    pile.insert(rng.randrange(len(pile) + 1), (kind, value))   # (a)
                    return None
                return 0
            mask |= 1 << value
            numbers.append(value)
            if len(numbers) == deck.flip_n:
                return score(flip=True)
            return None
        if kind == "m":
            mods |= 1 << value
        elif kind == "s":
            c, h = c + 1, 1
        elif kind == "z":
            pile.insert(rng.randrange(len(pile) + 1), (kind, value))   # (b)
            return score()
        else:   # a Flip Three: three forced cards
            pile.insert(rng.randrange(len(pile) + 1), (kind, value))   # (b)
            for _ in range(3):
                result = draw(forced=True)
                if result is not None:
                    return result
        return None

    first = True
    while True:
        if not first and not hit[index()]:
            return score()
        first = False
        result = draw(forced=False)
        if result is not None:
            return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=int, default=200)
    parser.add_argument("--out", default=None, help="write V(0..target-1) as JSON here")
    parser.add_argument("--simulate", type=int, default=0, help="games of the optimal policy to simulate")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    model = Model(FULL_DECK)
    print(f"{model.n_masks * model.n_inner:,} states, "
          f"built in {time.perf_counter() - started:.0f} s")

    def log(total, value):
        if total % 20 == 0:
            print(f"  V({total}) = {value:.6f}  ({time.perf_counter() - started:.0f} s)", flush=True)

    v, policies = model.rounds_to_go(args.target, log=log)
    print(f"fresh-deck optimum: V(0) = {v[0]:.9f} expected rounds to {args.target} "
          f"({time.perf_counter() - started:.0f} s)")
    if args.out:
        with open(args.out, "w") as handle:
            json.dump({"target": args.target, "rounds_to_go": v}, handle)
    if args.simulate:
        rounds = simulate_fresh_deck(model, policies, args.target, args.simulate, args.seed)
        n = len(rounds)
        mean = sum(rounds) / n
        sd = math.sqrt(sum((r - mean) ** 2 for r in rounds) / (n - 1))
        half = 1.96 * sd / math.sqrt(n)
        print(f"simulated ({n:,} games, fresh deck each round): mean {mean:.4f}, "
              f"95% CI [{mean - half:.4f}, {mean + half:.4f}]")


if __name__ == "__main__":
    main()
