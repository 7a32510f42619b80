"""One rating pass for a run without a stop: the live rating followers keep each chain's
rating history, the run hands it over with the standings, and the site draws it without
rating the store again. What they hand over must be exactly what `rate_with_history` gives
for the same store (the site's own pass for a folder published without a run), resumed
runs included."""

from __future__ import annotations

import arena.ratings
import arena.site
import arena.site.data
from arena.ratings import rate_with_history
from arena.store import Store, store_path
from test_tournament_support import InterruptingBackend, run, toy, toy_file  # noqa: F401 (toy: a fixture)

INLINE = 'isolation = "inline"\n'

# Two rulesets: rating chains overall, 0 and 1 (each a process); ruleset 0's follower
# must not take itself for the overall one.
TWO_RULESETS = """
[[rulesets]]
use = "toy-race"
as = "race-3"
players = 3

[[rulesets]]
use = "toy-race"
as = "race-2"
players = 2
"""


def rated_again(out):
    with Store.open(store_path(out)) as store:
        return rate_with_history(store)


def capture_site(monkeypatch):
    """What the run hands `write_site`, while it still writes the site."""
    handed: dict = {}
    real = arena.site.write_site

    def write_site(results_dir, store, **kwargs):
        handed.update(kwargs)
        return real(results_dir, store, **kwargs)

    monkeypatch.setattr(arena.site, "write_site", write_site)
    return handed


def test_a_run_without_stop_hands_the_site_its_followers_history(toy, monkeypatch):
    monkeypatch.setattr(arena.ratings, "HISTORY_POINTS", 7)  # thinned in the followers as in the site's pass
    handed = capture_site(monkeypatch)
    path = toy_file(toy / "t.toml", deals=4, extra=INLINE, rulesets=TWO_RULESETS)
    summary = run(path, toy / "r", workers=2, batch_size=3)
    assert summary.complete and summary.history is not None
    standings, history = rated_again(toy / "r")
    assert list(history) == ["overall", "race-3", "race-2"]
    assert summary.history == history and summary.standings == standings
    assert handed["history"] == history and handed["standings"] == standings
    assert all(len(points) == 7 for series in history.values() for points in series.values())


def test_one_ruleset_everyone_plays_is_one_chain_with_both_labels(toy, monkeypatch):
    handed = capture_site(monkeypatch)
    path = toy_file(toy / "t.toml", deals=3, extra=INLINE)
    summary = run(path, toy / "r", workers=1)
    standings, history = rated_again(toy / "r")
    assert list(history) == ["toy-race", "overall"] and history["overall"] == history["toy-race"]
    assert handed["history"] == summary.history == history and summary.standings == standings


def test_the_site_does_not_rate_again_when_the_run_hands_over_its_history(toy, monkeypatch):
    def refuse(store, max_points=None):
        raise AssertionError("the site rated the store again")

    monkeypatch.setattr(arena.site, "rate_with_history", refuse)
    monkeypatch.setattr(arena.site.data, "rate_with_history", refuse)
    path = toy_file(toy / "t.toml", deals=3, extra=INLINE, rulesets=TWO_RULESETS)
    summary = run(path, toy / "r", workers=2)
    assert summary.complete
    page = (toy / "r" / "site" / "index.html").read_text()
    assert 'class="chart"' in page and "rating over the tournament: race-2" in page


def test_the_sites_pages_equal_those_of_a_second_rating_pass(toy):
    path = toy_file(toy / "t.toml", deals=3, extra=INLINE, rulesets=TWO_RULESETS)
    assert run(path, toy / "r", workers=2, replays=0).complete
    drawn = {page: page.read_text() for page in sorted((toy / "r" / "site").glob("*.html"))}
    with Store.open(store_path(toy / "r")) as store:
        arena.site.write_site(toy / "r", store, replays=0)   # as `arena publish` on the folder: rated here
    assert {page: page.read_text() for page in sorted((toy / "r" / "site").glob("*.html"))} == drawn


def test_a_resumed_run_hands_over_the_history_of_every_stored_game(toy, monkeypatch):
    path = toy_file(toy / "t.toml", deals=4, extra=INLINE, rulesets=TWO_RULESETS)
    first = run(path, toy / "r", backend=InterruptingBackend(3), batch_size=4)
    assert first.interrupted and first.played == 12
    handed = capture_site(monkeypatch)
    second = run(path, toy / "r", workers=2)
    assert second.complete and second.stored_before == 12
    standings, history = rated_again(toy / "r")
    assert second.history == handed["history"] == history and second.standings == standings
    # every stored game is in it (none thinned out at this size): a point per seat and game
    tables = {"race-3": 3, "race-2": 2}
    games = {label: sum(r["games"] for r in standings["rulesets"][label]) // seats for label, seats in tables.items()}
    assert sum(games.values()) == second.total
    for label, seats in tables.items():
        assert sum(len(points) - 1 for points in history[label].values()) == games[label] * seats
    assert sum(len(points) - 1 for points in history["overall"].values()) == sum(
        games[label] * seats for label, seats in tables.items())
    with Store.open(store_path(toy / "r")) as store:
        indices = [row.index for row in store.iter_rows()]
    overall = sorted({p[1] for points in history["overall"].values() for p in points[1:]})
    assert overall == indices
    # run again on the complete folder: nothing to play, the followers rate every stored game
    again = run(path, toy / "r", workers=1)
    assert again.complete and again.played == 0 and again.history == history and again.standings == standings
