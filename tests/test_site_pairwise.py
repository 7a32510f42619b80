"""The site's head-to-head shows the pairwise results (issue 19 item 1): every cell is the
row's mean paired score against the column's, with the published interval, LOS and
verdict seen from the row's side; the overall scope's cells average the rulesets."""

import pytest

from arena.ratings import Rater
from arena.site.data import pairwise_view
from test_tournament_ratings import coin_flips, round_robin


@pytest.fixture(scope="module")
def standings():
    plan, rows = round_robin(["strong", "flip-a", "flip-b", "solo"], 2, 20, coin_flips(strong=(0,)),
                             rulesets=[("r0", [0, 1, 2, 3]), ("r1", [0, 1, 2])])
    rater = Rater(plan)
    for row in rows:
        rater.apply(row)
    return rater.standings()


def test_a_rulesets_cells_are_its_published_pairs_from_the_rows_side(standings):
    rows = standings["rulesets"]["r0"]
    view = pairwise_view(rows, standings["pairwise"], "r0")
    assert view["bots"] == [r["bot"] for r in rows]
    assert view["pairs"] == standings["pairwise"]["rulesets"]["r0"]["results"]
    position = {bot: i for i, bot in enumerate(view["bots"])}
    for r in view["pairs"]:
        ahead = view["cells"][position[r["a"]]][position[r["b"]]]
        behind = view["cells"][position[r["b"]]][position[r["a"]]]
        assert (ahead["mean"], ahead["low"], ahead["high"], ahead["los"], ahead["deals"], ahead["verdict"]) == \
            (r["mean"], r["low"], r["high"], r["los"], r["deals"], r["verdict"])
        assert behind["mean"] == pytest.approx(1 - r["mean"]) and behind["low"] == pytest.approx(1 - r["high"])
        assert behind["los"] == pytest.approx(1 - r["los"]) and behind["deals"] == r["deals"]
        if r["verdict"] == "separated":
            assert (ahead["mark"], behind["mark"], behind["verdict"]) == ("\u25b2", "\u25bc", "reversed")
        assert f"interval {r['low']:.3f}-{r['high']:.3f}" in ahead["title"]
    assert all(view["cells"][i][i] is None for i in range(len(view["bots"])))


def test_the_overall_cells_average_the_rulesets_and_leave_out_who_plays_fewer(standings):
    view = pairwise_view(standings["overall"], standings["pairwise"], "overall")
    assert view["overall"] and view["bots"][0] == "strong" and sorted(view["bots"]) == ["flip-a", "flip-b", "strong"]
    cell = view["cells"][0][1]
    per_ruleset = [next(r["mean"] for r in standings["pairwise"]["rulesets"][label]["results"]
                        if (r["a"], r["b"]) == ("strong", view["bots"][1])) for label in ("r0", "r1")]
    assert cell["mean"] == pytest.approx(sum(per_ruleset) / 2) and cell["low"] is None
    assert cell["verdict"] == "separated" and "r0 " in cell["title"] and "r1 " in cell["title"]


def test_standings_without_pairwise_results_have_no_view():
    assert pairwise_view([{"bot": "a"}], None, "overall") is None


def test_the_page_shows_each_rulesets_pairs_and_the_verdict_against_the_next_bot(tmp_path):
    from arena.site import write_site
    from test_publish_verdicts import stored

    store = stored(tmp_path, ["strong", "flip-a", "flip-b"], 2, 20, coin_flips(strong=(0,)))
    site = write_site(tmp_path, store, replays=0)
    page = (site / "index.html").read_text()
    pairs = Rater(store.plan())
    pairs.drain(store, stop_at_gap=False)
    results = pairs.standings()["pairwise"]["rulesets"]["only"]["results"]
    assert 'table class="board sortable pairs"' in page and "fixed-sample 95%" in page
    for r in results:
        assert f"{r['mean']:.3f}</td>" in page and f"{r['low']:.3f}–{r['high']:.3f}" in page
    assert '<td data-value="separated">separated</td>' in page  # strong vs next
    assert "\u25b2" in page and "\u25bc" in page  # strong's row, and the column's side
