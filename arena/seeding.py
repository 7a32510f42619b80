"""Seed derivation: one tournament seed and a game's coordinates -> every seed it needs.

Stable across platforms and Python versions: SHA-256 of a canonical text, never
``hash()``. Every random stream in arena (deals, reshuffles, bot rngs, fault
replacements) is derived here, so a game replays from its record alone.
"""

from __future__ import annotations

import hashlib

SEED_BITS = 63


def derive_seed(seed: int, *coordinates: int | str) -> int:
    """A seed in [0, 2**63) determined by `seed` and `coordinates` alone."""
    text = "\x1f".join(["arena-seed-v1", str(int(seed)), *(str(c) for c in coordinates)])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def table_deal_seed(seed: int, ruleset: str, names: "list[str] | tuple[str, ...]", deal: int) -> int:
    """The seed of deal number `deal` at a table of `ruleset` (its label) holding the
    entries named `names` (display names, in the table's order): keyed by content, not
    by position in the tournament file (seed derivation 2), so that a game keeps its
    cards when entries, rulesets or deals are added around it."""
    return derive_seed(seed, "table-deal", ruleset, len(names), *names, deal)


def bot_seed(deal_seed: int, seat: int, game: int | str = 0) -> int:
    """The seed of the `random.Random` given to the bot in `seat` for one game.

    `game` tells apart several games played from the same deal (e.g. seat
    rotations in a duplicate tournament).
    """
    return derive_seed(deal_seed, "bot", game, seat)


def seed_commitment(seed: int, salt: str) -> str:
    """The published commitment to a secret seed: SHA-256 of ``"<seed>:<salt>"``."""
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()
