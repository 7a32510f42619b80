"""A new scheduler is one module implementing `arena.scheduling.Scheduler` plus a
registration (issue 37 item 2): a test plugin registers "king of the hill" through the
``register_schedulers`` hook and a run observer through ``register_run_observers``, and a
small tournament is played with them: the same games on one worker or two, and again after
a resume."""

from __future__ import annotations

import sys
import types

import pytest

import arena
from arena.plugins import load_registry
from arena.scheduling import DONE, WAIT, Play
from arena.scheduling.tournament import spec_at
from arena.store import Store, store_path
from arena.tournament import load_tournament
from test_tournament_support import run, toy, toy_file  # noqa: F401 (toy: a fixture)

INLINE = 'isolation = "inline"\n'


class KingOfTheHill:
    """At a 2-player ruleset (the first): the king (the first entry) meets each other entry
    in file order for one deal, both rotations; the challenger takes the crown by winning
    both games. Deterministic from the stored results alone."""

    name = "king-of-the-hill"

    def __init__(self, context):
        self.schedule = context.schedule
        self.ruleset = context.tournament.rulesets[0]
        self.numbers = {table: n for n, table in enumerate(self.schedule.tables(self.ruleset))}

    def look(self, state):
        return ()

    def next(self, state, room):
        names = [entry.name for entry in state.field()]
        entries = list(self.ruleset.entries)
        results = {result.identity.key: result for result in state.results()}
        king = entries[0]
        for challenger in entries[1:]:
            table = tuple(sorted((king, challenger)))
            specs = [spec_at(self.schedule, self.ruleset.index, self.numbers[table], table, 0, rotation)
                     for rotation in (0, 1)]
            keys = [self._key(state, spec, names) for spec in specs]
            missing = [spec for spec, key in zip(specs, keys) if key not in results]
            if missing:
                waiting = [spec for spec, key in zip(specs, keys) if key in state.in_flight()]
                playable = [spec for spec in missing if spec not in waiting]
                return Play(tuple(playable[:room])) if playable else WAIT
            won = [results[key].standing[list(spec.seats).index(challenger)] == 1 for spec, key in zip(specs, keys)]
            king = challenger if all(won) else king
        return DONE

    def _key(self, state, spec, names):
        return self.placement.identity(spec.ruleset, spec.table, spec.deal, spec.rotation).key

    @property
    def placement(self):
        return self._store.placement()


def _plugin(seen):
    module = types.ModuleType("koth_plugin")

    @arena.hookimpl
    def register_schedulers(register):
        def make(context):
            scheduler = KingOfTheHill(context)
            scheduler._store = context.store
            return scheduler
        register("king-of-the-hill", make)

    class Counting:
        def __init__(self, tournament, out):
            self.out = out

        def stored(self, games):
            seen.extend(game.index for game in games)

    @arena.hookimpl
    def register_run_observers(register):
        register(Counting)

    module.register_schedulers = register_schedulers
    module.register_run_observers = register_run_observers
    return module


def _koth_games(out):
    with Store.open(store_path(out)) as store:
        return [(row.index, row.result.seats, row.result.standing, row.transcript_hash) for row in store.stored_rows()]


def test_a_plugin_scheduler_plays_king_of_the_hill_and_its_observer_sees_every_stored_game(toy):
    seen: list[int] = []
    registry = load_registry(extra_plugins=[("koth", _plugin(seen))])
    path = toy_file(toy / "t.toml", deals=3, players=2, extra=INLINE)
    summary = run(path, toy / "one", workers=1, scheduler="king-of-the-hill", registry=registry)
    games = _koth_games(toy / "one")
    assert summary.complete and summary.total == len(games) == 6   # three challengers, two games each
    assert sorted(seen) == [index for index, *_ in games]
    king, matches = 0, []
    for challenger in (1, 2, 3):   # the crown passes as the stored results say
        table = tuple(sorted((king, challenger)))
        played = [(seats, standing) for _, seats, standing, _ in games if tuple(sorted(seats)) == table]
        assert len(played) == 2, (table, games)
        matches.append(table)
        king = challenger if all(standing[seats.index(challenger)] == 1 for seats, standing in played) else king
    assert len(set(matches)) == 3
    with Store.open(store_path(toy / "one")) as store:
        assert {row.deal for row in store.iter_rows()} == {0}   # one deal per match
    assert (toy / "one" / "standings.json").exists()
    two = run(path, toy / "two", workers=2, scheduler="king-of-the-hill", registry=registry)
    assert two.complete and _koth_games(toy / "two") == games
    again = run(path, toy / "one", workers=2, scheduler="king-of-the-hill", registry=registry)
    assert again.complete and again.played == 0 and _koth_games(toy / "one") == games


def test_a_tournament_file_names_a_plugin_scheduler_and_arena_run_plays_it(toy):
    from arena.run_and_publish import run_and_publish

    registry = load_registry(extra_plugins=[("koth", _plugin([]))])
    by_argument = toy_file(toy / "a.toml", deals=3, players=2, extra=INLINE)
    run(by_argument, toy / "argument", workers=1, scheduler="king-of-the-hill", registry=registry)
    by_file = toy_file(toy / "f.toml", deals=3, players=2, extra=INLINE + 'scheduler = "king-of-the-hill"\n')
    tournament = load_tournament(by_file, registry)
    assert tournament.scheduler == "king-of-the-hill"
    summary = run_and_publish(tournament, toy / "file", workers=2, registry=registry, progress=False,
                              echo=lambda line: None)
    assert summary.complete and summary.total == 6
    assert [game[1:] for game in _koth_games(toy / "file")] == [game[1:] for game in _koth_games(toy / "argument")]


def test_a_tournament_files_scheduler_must_be_a_plugins_and_not_beside_a_stop(toy):
    from arena.errors import ConfigError

    registry = load_registry(extra_plugins=[("koth", _plugin([]))])
    unknown = toy_file(toy / "u.toml", deals=1, players=2, extra=INLINE + 'scheduler = "ladder"\n')
    with pytest.raises(ConfigError, match=r"u\.toml: tournament\.scheduler: no plugin registers a scheduler called "
                                          r"'ladder' \(plugins' schedulers: king-of-the-hill;"):
        load_tournament(unknown, registry)
    built_in = toy_file(toy / "b.toml", deals=1, players=2, extra=INLINE + 'scheduler = "settled"\n')
    with pytest.raises(ConfigError, match="chosen by format and stop"):
        load_tournament(built_in, registry)
    text = toy_file(toy / "s.toml", deals=1, players=2, extra=INLINE).read_text()
    stopping = toy / "s.toml"
    stopping.write_text(text.replace("deals = 1\n", 'stop = "settled"\nscheduler = "king-of-the-hill"\n'))
    with pytest.raises(ConfigError, match=r"tournament\.scheduler: not used with stop"):
        load_tournament(stopping, registry)


def test_an_unknown_scheduler_is_a_one_line_error_naming_the_known_ones(toy):
    from arena.errors import ConfigError
    from arena.runner import RunObserver, run_tournament

    path = toy_file(toy / "t.toml", deals=1, players=2, extra=INLINE)
    tournament = load_tournament(path, load_registry())
    with pytest.raises(ConfigError, match=r"unknown scheduler 'ladder' \(known: round-robin, gauntlet, sampled, "
                                          r"settled, sprt\)"):
        run_tournament(tournament, toy / "r", workers=1, scheduler="ladder", registry=load_registry(),
                       observer=RunObserver(lambda line: None))


def test_a_plugin_may_not_take_a_built_in_schedulers_name():
    from arena.errors import PluginError

    module = types.ModuleType("bad_plugin")

    @arena.hookimpl
    def register_schedulers(register):
        register("settled", lambda context: None)

    module.register_schedulers = register_schedulers
    with pytest.raises(PluginError, match="scheduler name 'settled' is a built-in one"):
        load_registry(extra_plugins=[("bad", module)])
    assert "koth_plugin" not in sys.modules
