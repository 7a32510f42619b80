"""The committed tournament files load, and every committed result was produced by the
tournament file of the same name as it is now (provenance: path and SHA-256)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from arena.plugins import load_registry
from arena.tournament import load_tournament

ROOT = Path(__file__).resolve().parent.parent
TOURNAMENT_FILES = sorted((ROOT / "tournaments").glob("*.toml"))
PUBLISHED = sorted((ROOT / "results").glob("*/standings.json"))


@pytest.mark.parametrize("path", TOURNAMENT_FILES, ids=lambda p: p.name)
def test_every_committed_tournament_file_loads_with_the_built_in_plugins(path):
    tournament = load_tournament(path, load_registry())
    assert len(tournament.schedule(0)) > 0


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.parent.name)
def test_published_standings_come_from_the_committed_tournament_file_and_are_complete(path):
    provenance = json.loads(path.read_text())["tournament"]
    source = ROOT / provenance["file"]
    assert source.is_file(), f"{path} names {provenance['file']}, which is not in the repository"
    assert hashlib.sha256(source.read_bytes()).hexdigest() == provenance["file_sha256"], (
        f"{provenance['file']} changed since {path.parent.name} was published: run it again")
    assert provenance["complete"] and provenance["games_stored"] == provenance["games_total"]
    tournament = load_tournament(source, load_registry())
    assert len(tournament.schedule(provenance["seed"] or 0)) == provenance["games_total"]


def test_the_reference_results_are_published():
    assert ROOT / "results" / "reference" / "standings.json" in PUBLISHED
