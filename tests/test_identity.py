"""The game identity (arena.identity) and the Scheduler interface's in-memory state."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from arena.identity import KEY_LENGTH, GameIdentity, Seat, sampled_deal_key
from arena.scheduling import DONE, WAIT, FieldEntry, MemoryState, Play, StoredResult


def _game(deal: int | str = 3, rotation: int = 1) -> GameIdentity:
    return GameIdentity.of("flip_7", [("greedy", "1.0"), ("random", "2.1")], deal, rotation)


def test_canonical_text_is_fixed_so_the_key_never_changes() -> None:
    game = _game()
    assert game.canonical() == ('{"format":1,"ruleset":"flip_7","seats":[["greedy","1.0"],["random","2.1"]],'
                                '"deal":3,"rotation":1}')
    assert game.key == hashlib.sha256(game.canonical().encode()).hexdigest()
    assert len(game.key) == KEY_LENGTH


def test_every_field_changes_the_key() -> None:
    base = _game()
    others = [GameIdentity.of("uno_flip", [("greedy", "1.0"), ("random", "2.1")], 3, 1),
              GameIdentity.of("flip_7", [("greedy", "1.1"), ("random", "2.1")], 3, 1),
              GameIdentity.of("flip_7", [("random", "2.1"), ("greedy", "1.0")], 3, 1),
              _game(deal=4), _game(deal="3"), _game(rotation=0)]
    assert len({base.key, *(o.key for o in others)}) == 1 + len(others)


def test_canonical_text_reads_back_to_the_same_identity() -> None:
    game = GameIdentity.of("c\u00e9", [("a \"b\"", "sha256:ff"), ("\u00e9", "1")], "7.1", 0)
    assert GameIdentity.from_canonical(game.canonical()) == game
    assert game.canonical().isascii()


@pytest.mark.parametrize("text", ["{}", "[]", "not json", '{"format":2,"ruleset":"x","seats":[["a","1"]],"deal":0,"rotation":0}',
                                  '{"format":1, "ruleset":"x","seats":[["a","1"]],"deal":0,"rotation":0}'])
def test_text_that_is_not_a_canonical_identity_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a game identity"):
        GameIdentity.from_canonical(text)


@pytest.mark.parametrize("args, field", [(("", [("a", "1")], 0, 0), "ruleset"),
                                         (("x", [], 0, 0), "seats"),
                                         (("x", [("a", "1"), ("a", "1")], 0, 0), "seats"),
                                         (("x", [("a", "1")], True, 0), "deal"),
                                         (("x", [("a", "1")], 1.5, 0), "deal"),
                                         (("x", [("a", "1"), ("b", "1")], 0, 2), "rotation")])
def test_a_malformed_identity_is_refused_naming_its_field(args: tuple, field: str) -> None:
    with pytest.raises(ValueError, match=f"game identity: {field}"):
        GameIdentity.of(*args)


def test_table_undoes_the_rotation() -> None:
    seats = ["a", "b", "c"]
    tables = {GameIdentity.of("x", [(seats[(s + r) % 3], "1") for s in range(3)], 0, r).table() for r in range(3)}
    assert tables == {("a", "b", "c")}
    assert _game().names == ("greedy", "random")
    assert _game().seats[0] == Seat("greedy", "1.0")


def test_a_repeated_sampled_table_gets_its_own_deal_key() -> None:
    assert sampled_deal_key(5, 0) == 5
    assert sampled_deal_key(5, 2) == "5.2"


def test_the_key_is_a_unique_column_in_sqlite() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE games (game_key TEXT NOT NULL UNIQUE, identity TEXT NOT NULL)")
    db.execute("INSERT INTO games VALUES (?, ?)", (_game().key, _game().canonical()))
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO games VALUES (?, ?)", (_game().key, _game().canonical()))


def test_memory_state_stores_a_game_once_and_lands_it_out_of_flight() -> None:
    state = MemoryState(entries=[FieldEntry("greedy", "1.0", ("flip_7",))])
    game = _game()
    state.flying.add(game.key)
    result = StoredResult(game, (0, 1), (1.0, 0.0), (0, 0))
    state.store(result)
    assert state.is_stored(game.key) and not state.in_flight() and state.result_count() == 1
    assert state.results(1) == [] and state.results() == [result]
    with pytest.raises(ValueError, match="already stored"):
        state.store(result)


def test_decisions_are_play_wait_or_done() -> None:
    assert Play((1, 2)).games == (1, 2)
    assert WAIT != DONE and repr(WAIT) == "WAIT" and repr(DONE) == "DONE"
