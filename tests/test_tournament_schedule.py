"""Schedule expansion: counts, seat rotations, determinism, sampled balance, laziness."""

import itertools
import math
import time
import tracemalloc
from collections import Counter, defaultdict

import pytest

from arena.plugins import load_registry
from arena.tournament import parse_tournament
from test_tournament_support import install_toy


@pytest.fixture
def registry(plugin_dir):
    install_toy(plugin_dir)
    return load_registry()


def tournament_text(entries=5, players=3, deals=4, fmt="round-robin", max_games=None, second=None):
    head = f'[tournament]\nname = "s"\nseed = 3\ndeals = {deals}\nformat = "{fmt}"\n'
    if max_games is not None:
        head += f"max_games = {max_games}\n"
    bots = "".join(f'\n[[bots]]\nuse = "random"\nas = "r{i}"\n' for i in range(entries))
    rulesets = f'\n[[rulesets]]\nuse = "toy-race"\nplayers = {players}\n'
    if second:
        rulesets += f'\n[[rulesets]]\nuse = "toy-race"\nas = "toy-pairs"\nplayers = {second}\n'
    return head + bots + rulesets


def test_round_robin_plays_every_combination_every_deal_in_every_rotation(registry):
    t = parse_tournament(tournament_text(entries=5, players=3, deals=4, second=2), registry)
    schedule = t.schedule(11)
    expected = math.comb(5, 3) * 4 * 3 + math.comb(5, 2) * 4 * 2
    assert len(schedule) == expected == 200
    games = list(schedule)
    assert len(games) == expected
    assert [g.index for g in games] == list(range(expected))
    tables = {(g.ruleset, tuple(sorted(g.seats))) for g in games}
    assert tables == {(0, c) for c in itertools.combinations(range(5), 3)} | \
                     {(1, c) for c in itertools.combinations(range(5), 2)}
    assert Counter(g.ruleset for g in games) == {0: 120, 1: 80}


def test_each_deal_is_played_once_per_rotation_so_every_entry_holds_every_seat(registry):
    t = parse_tournament(tournament_text(entries=4, players=3, deals=2), registry)
    by_deal = defaultdict(list)
    for game in t.schedule(5):
        by_deal[(game.ruleset, game.table, game.deal)].append(game)
    assert len(by_deal) == math.comb(4, 3) * 2
    for games in by_deal.values():
        assert [g.rotation for g in games] == [0, 1, 2]
        assert len({g.deal_seed for g in games}) == 1  # the same cards...
        members = set(games[0].seats)
        for seat in range(3):  # ...held in turn by every entry of the table
            assert {g.seats[seat] for g in games} == members
        assert len({g.bot_seeds for g in games}) == 3
    deal_seeds = [games[0].deal_seed for games in by_deal.values()]
    assert len(set(deal_seeds)) == len(deal_seeds)


def test_the_schedule_is_a_pure_function_of_the_file_and_seed(registry):
    text = tournament_text(entries=5, players=3, deals=3)
    first = list(parse_tournament(text, registry).schedule(42))
    assert first == list(parse_tournament(text, registry).schedule(42))
    other = list(parse_tournament(text, registry).schedule(43))
    assert [g.seats for g in other] == [g.seats for g in first]
    assert not {g.deal_seed for g in other} & {g.deal_seed for g in first}


def test_sampled_tables_meet_every_pair_about_equally_often(registry):
    t = parse_tournament(tournament_text(entries=8, players=3, deals=1, fmt="sampled", max_games=600), registry)
    schedule = t.schedule(9)
    games = list(schedule)
    assert len(games) == len(schedule) == 600
    tables = [g.seats for g in games if g.rotation == 0]
    assert len(tables) == 200
    meets = Counter(pair for table in tables for pair in itertools.combinations(sorted(table), 2))
    assert len(meets) == math.comb(8, 2)
    assert max(meets.values()) - min(meets.values()) <= 2, meets
    plays = Counter(e for table in tables for e in table)
    assert max(plays.values()) - min(plays.values()) <= 1, plays
    assert list(t.schedule(9)) == games
    assert [g.seats for g in t.schedule(10)] != [g.seats for g in games]


def test_sampled_never_exceeds_max_games_and_splits_it_over_rulesets(registry):
    t = parse_tournament(tournament_text(entries=6, players=3, deals=2, fmt="sampled", max_games=100, second=2),
                         registry)
    counts = Counter(g.ruleset for g in t.schedule(1))
    assert counts == {0: 48, 1: 48}  # 50 games each, in whole tables of deals x rotations
    assert sum(counts.values()) == len(t.schedule(1)) <= 100


def test_a_schedule_of_hundreds_of_millions_of_games_is_produced_lazily(registry):
    t = parse_tournament(tournament_text(entries=40, players=4, deals=1000), registry)
    tracemalloc.start()
    started = time.perf_counter()
    schedule = t.schedule(1)
    assert len(schedule) == math.comb(40, 4) * 1000 * 4 > 300_000_000
    head = list(itertools.islice(schedule, 5000))
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [g.index for g in head] == list(range(5000))
    assert elapsed < 5 and peak < 20_000_000


def test_a_large_sampled_schedule_is_produced_lazily(registry):
    t = parse_tournament(tournament_text(entries=30, players=4, deals=1, fmt="sampled", max_games=10**9), registry)
    schedule = t.schedule(1)
    assert len(schedule) == 10**9
    started = time.perf_counter()
    head = list(itertools.islice(schedule, 2000))
    assert len(head) == 2000 and time.perf_counter() - started < 5


def gauntlet_text(challengers, entries=5, players=3, deals=2):
    text = tournament_text(entries=entries, players=players, deals=deals, fmt="gauntlet")
    names = ", ".join(f'"{c}"' for c in challengers)
    return text.replace('format = "gauntlet"\n', f'format = "gauntlet"\nchallengers = [{names}]\n')


def test_a_gauntlet_seats_exactly_one_challenger_at_every_table_against_every_field_combination(registry):
    t = parse_tournament(gauntlet_text(["r0", "r3"], entries=5, players=3), registry)
    games = list(t.schedule(1))
    tables = {tuple(sorted(g.seats)) for g in games}
    field = [1, 2, 4]
    expected = {tuple(sorted((c, *pair))) for c in (0, 3) for pair in itertools.combinations(field, 2)}
    assert tables == expected and len(games) == len(t.schedule(1)) == len(expected) * 2 * 3


def test_deals_come_deal_by_deal_and_their_seeds_are_keyed_by_content_not_file_position(registry):
    text = tournament_text(entries=4, players=2, deals=3)
    games = list(parse_tournament(text, registry).schedule(8))
    assert [g.deal for g in games] == sorted(g.deal for g in games)  # deal-major within the ruleset
    # Another entry first in the file, and another ruleset before this one: the same tables keep their deals.
    extended = text.replace("[[bots]]", '[[bots]]\nuse = "random"\nas = "newcomer"\n\n[[bots]]', 1)
    extended = extended.replace("[[rulesets]]", '[[rulesets]]\nuse = "toy-race"\nas = "first"\nplayers = 3\n\n'
                                "[[rulesets]]", 1).replace("deals = 3", "deals = 5")
    t2 = parse_tournament(extended, registry)
    names = lambda t, g: tuple(t.bots[e].display for e in g.seats)  # noqa: E731
    t1 = parse_tournament(text, registry)
    before = {(names(t1, g), g.deal): g.deal_seed for g in games}
    after = {(names(t2, g), g.deal): g.deal_seed for g in t2.schedule(8) if t2.rulesets[g.ruleset].label == "toy-race"}
    assert before.items() <= after.items() and len(after) > len(before)
