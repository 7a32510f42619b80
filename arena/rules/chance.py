"""The one source of an engine's randomness: `Chance`, and what a game reports at a chance point.

Every random draw a game engine makes is one call of a `Chance` method, made at a
*chance point* of the game. There are three kinds, each a chance node in OpenSpiel's
sense, and each method calls the wrapped, seeded `random.Random` exactly as the engines
always did (so every transcript is unchanged):

- ``shuffle(items)``: a pile (or an order of cards) is shuffled in place. One chance
  node whose outcome is the permutation, every order equally likely.
- ``bit()``: a fair coin (e.g. which side of a card lies up at the deal): 0 or 1, 1/2 each.
- ``below(n)``: a uniform choice of 0..n-1 (e.g. where a card goes back into a pile), 1/n each.

An engine shuffles its draw pile when it deals (and again when the pile runs out) and
then takes cards off its top, so each later *draw* is a chance event too, seen from
outside: the next card off the pile is uniform over the pile's cards. A game state
reports that distribution and lets a caller choose it (`GameState.draw_outcomes`,
`GameState.lay_on_top`, in `rules/base.py`).

How a caller with explicit chance nodes (an OpenSpiel adapter) uses it:

- *Before* an action that draws, the state is at a draw chance point:
  ``state.draw_outcomes()`` is ``[(name, probability), ...]`` (the pile's distinct
  cards, probability count/len, sorted by name); to apply outcome ``name``, call
  ``state.lay_on_top(name)`` and then apply the action, which draws that card. For an
  action drawing several cards, lay them in order with ``depth`` (``lay_on_top(name,
  depth=k)`` puts it k cards below the top; ``draw_outcomes(depth=k)`` is the
  distribution there, excluding the k cards above). Where the pile's top card shows its
  up side to everyone (UNO Flip, Color Flush, Flip Hue), that card is already partly
  public: choose outcomes from ``depth=1`` on (the card that surfaces next), and note
  that ``lay_on_top(name)`` at depth 0 changes what the table shows.
- A shuffle, coin or choice met while applying an action is a chance point of its
  own: ``chance.points`` counts the draws made so far (compare before and after an
  action), and ``chance.force(outcome, ...)`` makes the next calls return the given
  outcomes instead of drawing: for ``shuffle`` a permutation (``items`` becomes
  ``[items[i] for i in outcome]``), for ``bit`` 0 or 1, for ``below`` an int. A forced
  call consumes nothing of the random stream.

`Chance` is for engines; samplers and bots draw from the `random.Random` they are given
(`shuffle` here shuffles as `random.Random.shuffle` does, faster).
"""

from __future__ import annotations

import math
import random
from typing import Any, MutableSequence, Sequence


def shuffle(items: MutableSequence[Any], rng: random.Random) -> None:
    """`rng.shuffle(items)`: the same draws and the same order, inlined (CPython's
    Fisher-Yates over `getrandbits`) in half the time; a search's samplers shuffle a deck
    every sample. Other Random subclasses use their own shuffle."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def sample(population: Sequence[Any], k: int, rng: random.Random) -> list[Any]:
    """`rng.sample(population, k)`: the same draws and the same result, inlined (CPython's
    pool and set selections over `getrandbits`) without the generic checks that cost more
    than the draws in a search's samplers. Other Random subclasses use their own sample."""
    n = len(population)
    if type(rng) is not random.Random or not 0 <= k <= n:
        return rng.sample(population, k)
    getrandbits = rng.getrandbits
    result: list[Any] = [None] * k
    setsize = 21        # as random.sample: a small set's size minus an empty list's
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            m = n - i
            bits = m.bit_length()
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            result[i] = pool[j]
            pool[j] = pool[m - 1]
    else:
        selected: set[int] = set()
        bits = n.bit_length()
        for i in range(k):
            j = getrandbits(bits)
            while j >= n or j in selected:
                j = getrandbits(bits)
            selected.add(j)
            result[i] = population[j]
    return result


class Chance:
    """A game's seeded chance: `shuffle`, `bit` and `below`, each one chance point.

    `rng` is the wrapped `random.Random` (the game's stream, from the deal seed);
    `points` counts the chance points met so far. Given an int seed instead of a Random,
    the Random is made from it when first asked for (the same stream): a search's
    sampled state seldom draws, and seeding costs more than most of its moves.
    """

    __slots__ = ("_rng", "_seed", "points", "_forced")

    def __init__(self, rng: random.Random | int):
        self._rng: random.Random | None
        self._seed: int | None
        if isinstance(rng, int) and not isinstance(rng, bool):
            self._rng, self._seed = None, rng
        elif isinstance(rng, random.Random):
            self._rng, self._seed = rng, None
        else:
            raise TypeError(f"Chance wraps a random.Random or an int seed, not {type(rng).__name__}")
        self.points = 0
        self._forced: list[Any] = []

    @property
    def rng(self) -> random.Random:
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        if not isinstance(rng, random.Random):
            raise TypeError(f"Chance wraps a random.Random, not {type(rng).__name__}")
        self._rng, self._seed = rng, None

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Shuffle `items` in place (outcome: a permutation, all equally likely)."""
        self.points += 1
        if self._forced:
            order = self._forced.pop(0)
            if sorted(order) != list(range(len(items))):
                raise ValueError(f"forced shuffle outcome {order!r} is not a permutation of "
                                 f"{len(items)} items")
            items[:] = [items[i] for i in order]
            return
        shuffle(items, self.rng)

    def bit(self) -> int:
        """A fair coin: 0 or 1."""
        self.points += 1
        if self._forced:
            value = self._forced.pop(0)
            if value not in (0, 1):
                raise ValueError(f"forced coin outcome must be 0 or 1, not {value!r}")
            return value
        return self.rng.getrandbits(1)

    def below(self, n: int) -> int:
        """A uniform choice of 0..n-1."""
        self.points += 1
        if self._forced:
            value = self._forced.pop(0)
            if not (isinstance(value, int) and 0 <= value < n):
                raise ValueError(f"forced choice must be an int in 0..{n - 1}, not {value!r}")
            return value
        return self.rng.randrange(n)

    def force(self, *outcomes: Any) -> None:
        """Make the next ``len(outcomes)`` chance points return these outcomes, in order."""
        self._forced.extend(outcomes)

    def copy(self) -> Chance:
        """An independent Chance in the same state (stream, count and forced outcomes)."""
        twin = Chance(0)
        twin._seed = self._seed
        if self._rng is None:
            twin._rng = None   # not drawn from yet: the twin seeds its own from the same seed
        else:
            twin._rng = random.Random()
            twin._rng.setstate(self._rng.getstate())
        twin.points = self.points
        twin._forced = list(self._forced)
        return twin

    def __reduce__(self) -> tuple[Any, ...]:
        # pickles and deep copies rebuild through `_rebuilt_chance`: compiled (docs/compiled.md),
        # a Chance cannot be made without running __init__
        return _rebuilt_chance, (self._seed, self._rng, self.points, self._forced)


def draw_distribution(names: list[str]) -> list[tuple[str, float]]:
    """``[(name, count / len(names)), ...]`` over the distinct names, sorted by name."""
    if not names:
        return []
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    total = len(names)
    return [(name, counts[name] / total) for name in sorted(counts)]


def _rebuilt_chance(seed: int | None, rng: random.Random | None, points: int, forced: list[Any]) -> Chance:
    """The Chance `Chance.__reduce__` describes."""
    chance = Chance(0)
    chance._seed, chance._rng, chance.points, chance._forced = seed, rng, points, forced
    return chance
