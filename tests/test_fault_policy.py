"""Faulting never pays: by default a bot that faults forfeits the game (it finishes last,
faulting seats share the last places, and no faulting seat is ever above a seat that
did not fault), in the records and in the ratings; "random" remains an option."""

import json

import pytest

from arena.match import Entrant, FaultPolicy, play_game, replay
from arena.plugins import load_registry
from arena.rules.base import forfeit_standing
from arena.run_and_publish import run_and_publish
from arena.store import Store, store_path
from arena.tournament import Tournament, load_tournament, parse_tournament
from test_tournament_support import install_toy, toy_file

FIELD = """
[[bots]]
use = "toy-broken"

[[bots]]
use = "toy-cautious"

[[bots]]
use = "random"

[[bots]]
use = "toy-cautious"
as = "cautious-18"
params = { threshold = 18 }
"""


@pytest.fixture
def toy(plugin_dir):
    install_toy(plugin_dir)
    return load_registry()


@pytest.mark.parametrize("standing, forfeited, expected", [
    ([1, 2, 3, 4], [0], [4, 1, 2, 3]),
    ([1, 2, 3, 4], [0, 2], [3, 1, 3, 2]),  # two faulting seats share the last places
    ([2, 1, 1, 3], [1], [2, 4, 1, 3]),  # ties among the others are kept
    ([1, 1, 1], [0, 1, 2], [1, 1, 1]),
])
def test_forfeit_standing_puts_faulting_seats_last_and_keeps_the_others_order(standing, forfeited, expected):
    assert forfeit_standing(standing, forfeited) == expected


def test_forfeit_is_the_default_fault_policy_of_a_tournament(toy, tmp_path):
    text = toy_file(tmp_path / "t.toml", deals=1, bots=FIELD, extra='isolation = "inline"\n').read_text()
    assert parse_tournament(text, toy).on_fault == "forfeit"
    assert Tournament.__dataclass_fields__["on_fault"].default == "forfeit"


def test_under_the_default_policy_a_faulting_bot_is_never_placed_above_an_honest_one(toy, tmp_path):
    path = toy_file(tmp_path / "t.toml", deals=3, players=3, bots=FIELD, extra='isolation = "inline"\n')
    out = tmp_path / "out"
    run_and_publish(load_tournament(path, toy), out, workers=1, echo=lambda line: None, progress=False)
    with Store.open(store_path(out)) as store:
        games = [store.record(i) for i in range(store.count())]
    broken_games = 0
    for record in games:
        faulted = {f["seat"] for f in record["faults"]}
        assert set(record["forfeited"]) == faulted
        standing = record["outcome"]["standing"]
        for seat in faulted:
            broken_games += 1
            assert all(standing[seat] > standing[other] for other in range(record["players"]) if other not in faulted)
        replay(record, toy.rulesets["toy-race"].cls)
    assert broken_games > 0
    doc = json.loads((out / "standings.json").read_text())
    overall = {row["bot"]: row for row in doc["overall"]}
    assert overall["toy-broken"]["wins"] == 0 and overall["toy-broken"]["faults"] == broken_games
    assert overall["toy-broken"]["rank"] == len(overall)  # last, below the honest random bot
    assert all(fraction == 0 for fraction in doc["head_to_head"]["overall"]["toy-broken"].values()
               if fraction is not None)


def test_the_random_policy_remains_an_option_and_does_not_forfeit(toy, tmp_path):
    text = toy_file(tmp_path / "t.toml", deals=1, bots=FIELD,
                    extra='isolation = "inline"\non_fault = "random"\n').read_text()
    t = parse_tournament(text, toy)
    assert t.on_fault == "random"
    broken, cautious = toy.bots["toy-broken"].cls, toy.bots["toy-cautious"].cls
    result = play_game(toy.rulesets["toy-race"].cls, [Entrant(broken), Entrant(cautious)], deal_seed=5,
                       policy=FaultPolicy(on_fault="random"))
    assert [f["kind"] for f in result.record["faults"]] == ["error"] and result.record["forfeited"] == []


def test_every_faulting_seat_of_a_game_shares_the_last_places(toy):
    broken, cautious = toy.bots["toy-broken"].cls, toy.bots["toy-cautious"].cls
    result = play_game(toy.rulesets["toy-race"].cls, [Entrant(broken, display="b1"), Entrant(cautious),
                                                      Entrant(broken, display="b2")],
                       deal_seed=5, policy=FaultPolicy(on_fault="forfeit"))
    standing = result.record["outcome"]["standing"]
    assert sorted(result.record["forfeited"]) == [0, 2]
    assert standing[0] == standing[2] == 2 and standing[1] == 1
