"""The protocol cannot hurt the harness: writes to a bot never block past the deadline,
replies are decoded within size and nesting limits, `start` and `end` are timed, and
whatever a bot sends is a fault charged to it, never an exception in the harness."""

import sys
import threading
import time

import pytest

from arena.match import Entrant, FaultPolicy, play_game, replay
from arena.plugins import load_registry
from arena.protocol import MAX_REPLY_BYTES, MAX_REPLY_DEPTH, ProtocolError, decode, decode_reply, encode, nesting_depth
from arena.seats import BotFault, InlineHost, Limits, ProcessHost
from arena_bots.random_bot import RandomBot

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process hosts are tested on Linux")

FLIP7 = load_registry().rulesets["flip-7"].cls
LIMITS = Limits(time_per_decision=0.5, time_bank=0.5, memory_mb=400, startup_seconds=30,
                time_for_start=1.0, time_for_end=1.0)
POLICY = FaultPolicy(on_fault="random", time_per_decision=0.5, time_bank=0.5)

# A protocol bot in Python whose misbehaviour at its first `act` (or in start/end) is
# its argument; otherwise it plays the first legal action. "stop-reading" stops reading
# its input once it has answered `start`.
RUDE_BOT = r'''
import json, sys, time
mode = sys.argv[1]
out = sys.stdout.buffer
def send(raw):
    out.write(raw + b"\n"); out.flush()
for line in sys.stdin.buffer:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send(b'{"type":"hello","protocol":1,"bot":"rude"}')
    elif kind == "start":
        if mode == "slow-start":
            time.sleep(30)
        send(b'{"type":"ok"}')
        if mode == "stop-reading":
            time.sleep(60)
    elif kind == "end":
        if mode == "slow-end":
            time.sleep(30)
        send(b'{"type":"ok"}')
    elif kind == "act":
        action = json.dumps(message["observation"]["legal_actions"][0]).encode()
        if mode == "deep":
            send(b'{"type":"action","action":' + b"[" * 5000 + b"]" * 5000 + b"}")
        elif mode == "deep-error":
            send(b'{"type":"error","message":' + b"[" * 5000 + b"]" * 5000 + b"}")
        elif mode == "huge":
            send(b'{"type":"action","action":"' + b"x" * (5 << 20) + b'"}')
        elif mode == "endless":
            out.write(b"x" * (8 << 20)); out.flush(); time.sleep(60)
        elif mode == "not-utf8":
            send(b'{"type":"action","action":"\xff\xfe"}')
        else:
            send(b'{"type":"action","action":' + action + b"}")
    elif kind == "shutdown":
        break
'''


def rude_host(mode: str, limits: Limits = LIMITS) -> ProcessHost:
    return ProcessHost([sys.executable, "-c", RUDE_BOT, mode], limits, name="rude")


def play_rude(mode: str, limits: Limits = LIMITS, policy: FaultPolicy = POLICY):
    """One Flip 7 game: the rude bot in seat 0, a random bot inline in seat 1."""
    host = rude_host(mode, limits)
    try:
        return play_game(FLIP7, [Entrant(RandomBot, display="rude"), Entrant(RandomBot)], deal_seed=3,
                         hosts=[host, InlineHost(RandomBot)], policy=policy, ask_forced=True)
    finally:
        host.close()


# -- decoding ------------------------------------------------------------------------


def test_a_reply_nested_deeper_than_the_limit_is_refused_before_decoding():
    deep = b'{"type":"action","action":' + b"[" * 5000 + b"]" * 5000 + b"}"
    with pytest.raises(ProtocolError, match="nested deeper than"):
        decode_reply(deep)


def test_nesting_up_to_the_limit_decodes_and_brackets_inside_strings_do_not_count():
    inner = b"[" * (MAX_REPLY_DEPTH - 1) + b"]" * (MAX_REPLY_DEPTH - 1)
    assert decode_reply(b'{"type":"action","action":' + inner + b"}")["type"] == "action"
    with pytest.raises(ProtocolError):
        decode_reply(b'{"type":"action","action":[' + inner + b"]}")
    text = b'{"type":"error","message":"' + b"[{" * 10_000 + b'\\"]"}'
    assert decode_reply(text)["message"].startswith("[{[{")


@pytest.mark.parametrize("text, depth", [(b"1", 0), (b"[]", 1), (b'{"a":[1,{"b":[]}]}', 4),
                                         (b'["]]]]", [[]]]', 3), (b"[[]", MAX_REPLY_DEPTH + 1)])
def test_nesting_depth_counts_arrays_and_objects_outside_strings(text, depth):
    assert nesting_depth(text) == depth


def test_a_reply_longer_than_the_limit_is_refused():
    with pytest.raises(ProtocolError, match="longer than"):
        decode_reply(b'{"type":"ok","pad":"' + b"x" * MAX_REPLY_BYTES + b'"}')


def test_decode_turns_runaway_recursion_into_a_protocol_error():
    with pytest.raises(ProtocolError):
        decode(b"[" * 100_000 + b"]" * 100_000)


# -- writing -------------------------------------------------------------------------


def test_a_bot_that_stops_reading_cannot_block_the_harness_write():
    host = rude_host("stop-reading")
    outcome = []

    def ask() -> None:  # 4 MiB: far more than a pipe holds
        try:
            host.act({"legal_actions": ["a"], "pad": "x" * (4 << 20)}, 0.5)
        except BotFault as fault:
            outcome.append(fault)

    try:
        host.start_game(1, {}, {})
        asking = threading.Thread(target=ask, daemon=True)
        asking.start()
        asking.join(5)
        assert not asking.is_alive(), "the harness is still blocked writing to the bot"
    finally:
        host.close()
    [fault] = outcome
    assert fault.kind == "timeout" and fault.fatal and "did not read its input" in str(fault)


def test_a_bot_that_stops_reading_is_a_timeout_fault_and_the_game_finishes():
    result = play_rude("stop-reading")
    assert [f["kind"] for f in result.record["faults"]] == ["timeout"]
    replay(result.record, FLIP7)


# -- replies in a game ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ["deep", "deep-error", "huge", "endless", "not-utf8"])
def test_a_deep_huge_or_broken_reply_is_a_garbage_fault_charged_to_the_bot(mode):
    started = time.monotonic()
    result = play_rude(mode)
    assert [(f["seat"], f["kind"]) for f in result.record["faults"]] == [(0, "garbage")]
    assert time.monotonic() - started < 10
    replay(result.record, FLIP7)


def test_an_honest_protocol_bot_plays_without_faults():
    result = play_rude("honest")
    assert result.record["faults"] == []


# -- start and end are timed -----------------------------------------------------------


def test_start_over_time_for_start_is_a_timeout_fault():
    started = time.monotonic()
    result = play_rude("slow-start", policy=FaultPolicy(on_fault="forfeit", time_per_decision=0.5))
    assert [(f["kind"], f["decision"]) for f in result.record["faults"]] == [("timeout", None)]
    assert result.record["forfeited"] == [0]
    assert time.monotonic() - started < LIMITS.time_for_start + 5


def test_end_over_time_for_end_is_a_timeout_fault_that_leaves_the_outcome_alone():
    started = time.monotonic()
    result = play_rude("slow-end")
    assert [(f["kind"], f["decision"]) for f in result.record["faults"]] == [("timeout", None)]
    assert result.record["forfeited"] == []
    assert time.monotonic() - started < LIMITS.time_for_end + 5
    replay(result.record, FLIP7)


def test_limits_time_start_and_end_separately_by_default():
    assert Limits().time_for_start == 30.0 and Limits().time_for_end == 5.0


# -- the bot side (arena.host) ---------------------------------------------------------

HOSTED_BOTS = '''
import arena


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("cannot even print")


class RaisesUnprintable(arena.Bot):
    name = "raises-unprintable"

    def act(self, observation):
        raise Unprintable()


class ReturnsObject(arena.Bot):
    name = "returns-object"

    def act(self, observation):
        return object()


class ReturnsDeep(arena.Bot):
    name = "returns-deep"

    def act(self, observation):
        value = []
        for _ in range(100_000):
            value = [value]
        return value


@arena.hookimpl
def register_bots(register):
    register(RaisesUnprintable)
    register(ReturnsObject)
    register(ReturnsDeep)
'''


@pytest.fixture(scope="module")
def hosted_env(tmp_path_factory):
    """The bots above as an installed plugin, for the bot process's PYTHONPATH."""
    root = tmp_path_factory.mktemp("hosted")
    (root / "hosted_bots.py").write_text(HOSTED_BOTS)
    info = root / "hosted_bots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hosted-bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[arena]\nhosted = hosted_bots\n")
    return {"PYTHONPATH": str(root)}


@pytest.mark.parametrize("name", ["raises-unprintable", "returns-object", "returns-deep"])
def test_a_bot_whose_answer_cannot_be_sent_is_an_error_fault_and_its_host_lives_on(name, hosted_env):
    host = ProcessHost.for_bot(name, LIMITS, env=hosted_env)
    try:
        for seed in (1, 2):
            result = play_game(FLIP7, [Entrant(RandomBot, display=name), Entrant(RandomBot)], deal_seed=seed,
                               hosts=[host, InlineHost(RandomBot)], policy=POLICY, ask_forced=True)
            kinds = {f["kind"] for f in result.record["faults"]}
            assert kinds == {"error"}, result.record["faults"]
            replay(result.record, FLIP7)
        assert host.launcher.running()  # not a crash: the same process
    finally:
        host.close()


def test_the_host_answers_act_or_end_before_a_game_start_with_a_named_error_and_lives_on():
    import subprocess

    lines = b"".join(encode(m) for m in ({"type": "act", "observation": {}}, {"type": "end", "outcome": {}},
                                         {"type": "hello"}))
    result = subprocess.run([sys.executable, "-m", "arena.host", "random"], input=lines, capture_output=True,
                            timeout=60)
    replies = [decode(line) for line in result.stdout.splitlines()]
    assert replies[:2] == [{"type": "error", "message": "ProtocolError: 'act' before a game's start"},
                           {"type": "error", "message": "ProtocolError: 'end' before a game's start"}]
    assert replies[2]["type"] == "hello" and result.returncode == 0


def test_every_limit_default_and_bound_is_the_one_in_limits_and_limit_bounds():
    """Limits and LIMIT_BOUNDS are the one source: validate's settings, its command-line
    options (arena validate, python -m arena.validate), the tournament file's defaults and
    arena match's take their defaults and bounds from there."""
    import argparse
    from dataclasses import MISSING, fields

    import click

    from arena.cli.game import match
    from arena.cli.submit import validate
    from arena.seats import LIMIT_BOUNDS
    from arena.tournament import Tournament
    from arena.validate import Settings, _limit

    defaults = {f.name: f.default for f in fields(Limits)}
    for cls in (Settings, Tournament):
        for f in fields(cls):
            if f.name in defaults and f.default is not MISSING:
                assert f.default == defaults[f.name], (cls.__name__, f.name)
    for command in (validate, match):
        for option in command.params:
            if option.name in LIMIT_BOUNDS:
                assert isinstance(option.type, (click.FloatRange, click.IntRange)), option.name
                assert (option.type.min, option.type.max) == LIMIT_BOUNDS[option.name], option.name
                assert option.default in (None, defaults[option.name]), option.name
    for name, (low, high) in LIMIT_BOUNDS.items():
        with pytest.raises(argparse.ArgumentTypeError, match="must be from"):
            _limit(name, float)(str(high * 2 + 1))
        assert _limit(name, float)(str(low)) == low
