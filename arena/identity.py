"""A game's identity: what was played, not where it sat in a schedule.

A `GameIdentity` names one game by (ruleset label; the table's entries in seat order,
each with its version or content hash; deal key; rotation). Its `canonical` text is
compact JSON with a fixed key order, and its `key` the SHA-256 of that text (64 hex
digits): the same in every process, on every platform and Python version, so it can be
a UNIQUE (or PRIMARY KEY) text column in SQLite and PostgreSQL alike. A results store
(arena.store) and a ladder's database key their games by it, so a game is stored once
however often it is played or whatever order it came in, and adding entries, rulesets
or deals, stopping early or choosing games adaptively only ever adds rows.

How each field is filled:

- `ruleset`: the ruleset entry's label (a tournament: ``[[rulesets]] label``, by default
  the ruleset id with its options; a ladder: the label its config gives the ruleset).
- `seats`: one `Seat` per seat, in seat order (seat 0 first, after the rotation): the
  entry's `name` and `version`. A tournament: the entry's display name (unique in the
  file) and the version its plan records (an installed bot's distribution version, a
  command bot's files hash, a submission's version with its content hash). A ladder: the
  bot's name and its immutable version's content hash.
- `deal`: which deal of the table's entries this is. A tournament: the deal index (0,
  1, ...), which with the ruleset label and the entries' names keys the deal's seed
  (arena.seeding.table_deal_seed); a sampled table drawn again for the same deal is
  told apart as ``"<deal>.<n>"`` (n = 1, 2, ... for its repeats). A ladder: its own
  deal counter or seed text for that table; an int or a short string.
- `rotation`: which rotation of the deal this seating is (0 .. players - 1): seat ``s``
  holds the table's entry ``(s + rotation) % players``.

Nothing here reads the harness: the ladder imports it alone.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NamedTuple, Sequence

KEY_LENGTH = 64
"""Characters of a `GameIdentity.key` (SHA-256, lowercase hex)."""

IDENTITY_FORMAT = 1
"""The canonical form's version, part of the hashed text (a new form gives new keys)."""


class Seat(NamedTuple):
    """One seat of a game: the entry sitting there and its version or content hash."""

    name: str
    version: str


class GameIdentity(NamedTuple):
    """What was played (see the module's docstring for how each field is filled)."""

    ruleset: str
    seats: tuple[Seat, ...]
    deal: int | str
    rotation: int

    @classmethod
    def of(cls, ruleset: str, seats: Sequence[tuple[str, str]], deal: int | str, rotation: int) -> "GameIdentity":
        """An identity from plain values (`seats`: (name, version) pairs in seat order),
        checked: ValueError naming the first field that is not as documented."""
        identity = cls(ruleset, tuple(Seat(str(n), str(v)) for n, v in seats), deal, rotation)
        problem = identity.problem()
        if problem:
            raise ValueError(f"game identity: {problem}")
        return identity

    def problem(self) -> str | None:
        """What makes this identity malformed, or None."""
        if not isinstance(self.ruleset, str) or not self.ruleset:
            return "ruleset: not a non-empty label"
        if not self.seats:
            return "seats: none"
        names = [seat.name for seat in self.seats]
        if len(set(names)) != len(names):
            return f"seats: an entry sits twice ({', '.join(names)})"
        if isinstance(self.deal, bool) or not isinstance(self.deal, (int, str)) or self.deal == "":
            return f"deal: {self.deal!r} is not an int or a non-empty string"
        if isinstance(self.rotation, bool) or not isinstance(self.rotation, int) or \
                not 0 <= self.rotation < len(self.seats):
            return f"rotation: {self.rotation!r} is not in 0..{len(self.seats) - 1}"
        return None

    def canonical(self) -> str:
        """Compact JSON, keys in a fixed order, ASCII only: the text the key hashes."""
        return json.dumps({"format": IDENTITY_FORMAT, "ruleset": self.ruleset,
                           "seats": [[seat.name, seat.version] for seat in self.seats],
                           "deal": self.deal, "rotation": self.rotation},
                          separators=(",", ":"), ensure_ascii=True)

    @property
    def key(self) -> str:
        """SHA-256 of `canonical`, 64 lowercase hex digits: the game's unique key in a database."""
        return hashlib.sha256(self.canonical().encode("ascii")).hexdigest()

    @classmethod
    def from_canonical(cls, text: str) -> "GameIdentity":
        """The identity whose `canonical` is `text`; ValueError if it is not one."""
        try:
            data: Any = json.loads(text)
            if data.get("format") != IDENTITY_FORMAT:
                raise ValueError(f"format {data.get('format')!r}, not {IDENTITY_FORMAT}")
            identity = cls.of(data["ruleset"], [tuple(s) for s in data["seats"]], data["deal"], data["rotation"])
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"not a game identity ({exc})") from None
        if identity.canonical() != text:
            raise ValueError("not a game identity (not in canonical form)")
        return identity

    @property
    def names(self) -> tuple[str, ...]:
        """The entries' names in seat order."""
        return tuple(seat.name for seat in self.seats)

    def table(self) -> tuple[str, ...]:
        """The table's entries in table order (rotation undone): the same for every rotation of a deal."""
        k = len(self.seats)
        return tuple(self.seats[(i - self.rotation) % k].name for i in range(k))


def sampled_deal_key(deal: int, repeat: int) -> int | str:
    """The deal key of a tournament's game: the deal index, or ``"<deal>.<repeat>"`` for
    the `repeat`-th (1, 2, ...) earlier draw of the same sampled table at that deal."""
    return deal if repeat == 0 else f"{deal}.{repeat}"
