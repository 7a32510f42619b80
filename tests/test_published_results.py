"""The committed tournament files load, and every committed result was produced by the
tournament file of the same name as it is now (provenance: path and SHA-256); what varies by
run or machine stays out of the committed files (it goes to the uncommitted run.json)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import subprocess

import pytest

from arena.plugins import load_registry
from arena.tournament import load_tournament
from test_tournament_support import run, toy, toy_file  # noqa: F401 (toy: a fixture)

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


REFERENCE = ROOT / "results" / "reference"


def _without_tournament(document):
    return {k: v for k, v in document.items() if k != "tournament"}


def test_the_committed_reference_store_ranks_to_the_published_standings_and_a_sample_of_each_ruleset_replays():
    """The reference's store is committed (replays and charts from a fresh clone): ranking it
    again gives the committed standings, and the first games of each of its rulesets replay
    exactly (with their luck corrections). The slow test below replays every game."""
    from arena.publish import document
    from arena.store import Store, store_path
    from arena.verify import _verify_range, check_seed, installed_rulesets

    assert (REFERENCE / "games.sqlite").is_file(), "results/reference/games.sqlite is published with the standings"
    published = json.loads((REFERENCE / "standings.json").read_text())
    with Store.open(store_path(REFERENCE)) as store:
        ranked = document(store, workers=1)
        plan, seed = store.plan(), check_seed(store)
        firsts: dict[int, int] = {}
        for row in store.stored_rows():
            firsts.setdefault(row.ruleset, row.index)
    assert _without_tournament(ranked) == _without_tournament(published)
    assert ranked["tournament"]["games_stored"] == published["tournament"]["games_stored"]
    assert sorted(firsts) == list(range(len(plan["rulesets"])))
    for ruleset, first in sorted(firsts.items()):
        checked = _verify_range(str(store_path(REFERENCE)), plan, seed, installed_rulesets(), first, first + 6)
        assert checked.games == checked.replayed == 6, (ruleset, checked.summary())


@pytest.mark.slow
def test_the_committed_reference_store_replays_to_the_published_standings():
    """Every game in the committed reference store replays exactly, and `arena rank` of it
    gives the committed standings."""
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["rank", "--json", str(REFERENCE)])
    assert result.exit_code == 0, result.output
    ranked = json.loads(result.stdout)
    published = json.loads((REFERENCE / "standings.json").read_text())
    assert _without_tournament(ranked) == _without_tournament(published)
    assert ranked["tournament"]["games_stored"] == published["tournament"]["games_stored"]


RUN_DETAILS = ("started_at", "finished_at", "isolation")


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.parent.name)
def test_committed_standings_hold_nothing_that_varies_by_run_or_machine(path):
    provenance = json.loads(path.read_text())["tournament"]
    assert not [key for key in RUN_DETAILS if key in provenance]
    assert not [bot for bot, about in provenance["bots"].items() if "files_sha256" in about]
    assert "started " not in (path.parent / "standings.md").read_text()


def test_run_files_are_not_committed():
    ignored = subprocess.run(["git", "check-ignore", "-q", "results/quickstart/run.json"], cwd=ROOT)
    assert ignored.returncode == 0, "results/*/run.json must be in .gitignore"


def test_running_again_rewrites_the_standings_byte_for_byte_and_the_times_only_in_run_json(toy, monkeypatch):
    import arena.results_folder

    path = toy_file(toy / "t.toml", deals=1, extra='isolation = "inline"\n')
    monkeypatch.setattr(arena.results_folder, "now", lambda: "2026-01-01T00:00:00+00:00")
    run(path, toy / "r")
    from arena.publish import FILES

    first = {name: (toy / "r" / name).read_bytes() for name in FILES}  # every committed file
    monkeypatch.setattr(arena.results_folder, "now", lambda: "2027-06-30T12:00:00+00:00")
    run(path, toy / "r", restart=True)
    assert {name: (toy / "r" / name).read_bytes() for name in first} == first
    details = json.loads((toy / "r" / "run.json").read_text())
    assert details["started_at"] == details["finished_at"] == "2027-06-30T12:00:00+00:00"
    assert details["isolation"]["used"] == "inline" and details["isolation"]["limits"]
    assert set(details["bots"]) == set(json.loads(first["standings.json"])["tournament"]["bots"])
    assert "run.json" in first["standings.md"].decode()
