"""A results folder: its lock, its store (opened, created or extended, with the change
checks), the plan and the provenance's seed commitment.

Split out of arena.runner (issue 37 item 4): the runner's loop asks a `ResultsFolder`
for an open store and knows nothing of how it was made.
"""

from __future__ import annotations

import hashlib


def seed_commitment(seed: int, salt: str) -> str:
    """The published commitment to a secret seed: SHA-256 of ``"<seed>:<salt>"``."""
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()
