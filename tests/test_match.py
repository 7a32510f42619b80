"""The match loop, for every registered ruleset: determinism, plain-data observations
that never point into engine state, legality checks, bot lifecycle, replay."""

import copy
import json
import pickle
import random

import pytest

import arena
from arena.errors import BotError, IllegalActionError, ReplayMismatchError
from arena.match import Entrant, FaultPolicy, play_game, replay, replay_checked
from arena.plugins import load_registry
from arena.seats import BotFault, InlineHost, ProcessHost
from arena_bots.random_bot import RandomBot

RULESETS = load_registry().rulesets
OBSERVATION_KEYS = {"ruleset", "version", "options", "seat", "players", "view", "events", "legal_actions"}


def table_size(ruleset):
    return max(ruleset.min_players, min(3, ruleset.max_players))


def play(ruleset, bot_cls=RandomBot, seed=11, players=None, **kwargs):
    players = players or table_size(ruleset)
    return play_game(ruleset, [Entrant(bot_cls)] * players, deal_seed=seed, **kwargs)


def assert_plain_json(value, path="observation"):
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), f"{path} has a non-string key {key!r}"
            assert_plain_json(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            assert_plain_json(item, f"{path}[{index}]")
    else:
        assert value is None or isinstance(value, (str, int, float, bool)), f"{path} is a {type(value).__name__}"


def vandalise(value):
    """Wreck a bot's copy of its observation in place, as a careless bot might."""
    if isinstance(value, dict):
        for item in list(value.values()):
            vandalise(item)
        value.clear()
    elif isinstance(value, list):
        for item in value:
            vandalise(item)
        value.clear()


class CheckingBot(RandomBot):
    """Random, and checks every observation's shape on the way."""

    name = "checking"

    def act(self, observation):
        assert set(observation) == OBSERVATION_KEYS
        assert_plain_json(observation)
        assert observation["legal_actions"] and all(isinstance(a, str) for a in observation["legal_actions"])
        return super().act(observation)


class VandalBot(RandomBot):
    """Random, then wrecks the observation it was handed."""

    name = "vandal"

    def act(self, observation):
        action = super().act(observation)
        vandalise(observation)
        return action


@pytest.fixture(params=sorted(RULESETS), ids=str)
def ruleset(request):
    return RULESETS[request.param].cls


def test_same_seed_gives_identical_records_and_other_seeds_differ(ruleset):
    first = play(ruleset, seed=5).record
    assert play(ruleset, seed=5).record == first
    assert len({play(ruleset, seed=s).record["transcript_hash"] for s in range(6)}) > 1


def test_observations_are_plain_json_with_the_contract_keys(ruleset):
    for seed in range(3):
        play(ruleset, CheckingBot, seed=seed)


def test_wrecking_an_observation_cannot_change_the_game(ruleset):
    """If any part of an observation pointed into engine state, a bot clearing its
    copy would change (or break) the game."""
    for seed in range(3):
        calm = play(ruleset, RandomBot, seed=seed).record
        wrecked = play(ruleset, VandalBot, seed=seed).record
        assert wrecked["transcript_hash"] == calm["transcript_hash"]


def test_an_illegal_answer_is_rejected_with_the_bot_named(ruleset):
    class Cheat(arena.Bot):
        name = "cheat"

        def act(self, observation):
            return "not-an-action"

    with pytest.raises(IllegalActionError, match=r"bot 'cheat' \(seat \d\) answered 'not-an-action'"):
        play(ruleset, Cheat, ask_forced=True)


def test_a_bot_that_raises_is_reported_with_its_seat(ruleset):
    class Crash(arena.Bot):
        name = "crash"

        def act(self, observation):
            raise KeyError("oops")

    with pytest.raises(BotError, match=r"bot 'crash' \(seat \d\) raised in act\(\): KeyError"):
        play(ruleset, Crash, ask_forced=True)


def test_bots_get_start_and_end_with_the_documented_shapes(ruleset):
    seen = []

    class Recorder(RandomBot):
        name = "recorder"

        def start(self, info):
            seen.append(("start", info))

        def end(self, outcome):
            seen.append(("end", outcome))

    record = play(ruleset, Recorder).record
    players = record["players"]
    starts = [i for kind, i in seen if kind == "start"]
    ends = [o for kind, o in seen if kind == "end"]
    assert [i["seat"] for i in starts] == list(range(players))
    assert set(starts[0]) == {"ruleset", "version", "options", "seat", "players", "bots"}
    assert starts[0]["bots"] == ["recorder"] * players
    assert len(ends) == players and {"standing", "scores", "reason"} <= set(ends[0])
    assert all(1 <= p <= players for p in ends[0]["standing"])
    assert min(ends[0]["standing"]) == 1


def test_forced_decisions_are_not_asked_but_their_events_still_arrive(ruleset):
    """Skipping single-choice decisions must not change the game nor what each seat learns."""
    received = {True: [], False: []}

    def recording_bot(mode):
        class Recording(RandomBot):
            name = "recording"

            def act(self, observation):
                received[mode].append((observation["seat"], observation["events"]))
                legal = observation["legal_actions"]
                # Draw from the rng only for real choices, so both modes play the same game.
                return legal[0] if len(legal) == 1 else self.rng.choice(legal)
        return Recording

    results = {}
    for mode in (True, False):
        results[mode] = play(ruleset, recording_bot(mode), seed=3, ask_forced=mode)
    assert results[True].record["decisions"] == results[False].record["decisions"]
    for seat in range(results[True].record["players"]):
        streams = []
        for mode in (True, False):
            events = [e for s, batch in received[mode] if s == seat for e in batch]
            streams.append(events + results[mode].state.take_events(seat))
        assert streams[0] == streams[1]


def test_replay_verifies_a_record_and_catches_tampering(ruleset):
    record = json.loads(json.dumps(play(ruleset, seed=9).record))
    replay(record, ruleset)
    tampered = dict(record, outcome=dict(record["outcome"], reason="tampered"))
    with pytest.raises(ReplayMismatchError):
        replay(tampered, ruleset)
    other_seed = dict(record, deal_seed=record["deal_seed"] + 1)
    with pytest.raises(ReplayMismatchError):
        replay(other_seed, ruleset)
    rehashed = dict(record, decisions=record["decisions"][:-1])
    with pytest.raises(ReplayMismatchError):
        replay(rehashed, ruleset)


def test_replay_checked_skips_only_the_header_checks_and_still_catches_tampering(ruleset, monkeypatch):
    import arena.match

    record = json.loads(json.dumps(play(ruleset, seed=9).record))
    calls = []
    monkeypatch.setattr(arena.match, "record_problem", lambda *a, **k: calls.append("form"))
    monkeypatch.setattr(ruleset, "resolve_options", classmethod(lambda cls, given=None: calls.append("options")))
    hashed = arena.match.transcript_hash
    monkeypatch.setattr(arena.match, "transcript_hash", lambda r: calls.append("hash") or hashed(r))
    final = replay_checked(record, ruleset)
    assert calls == ["hash"]  # the header was its caller's to check; the hash is computed once
    assert json.loads(json.dumps(final.outcome())) == record["outcome"]
    for tampered in (dict(record, transcript_hash="0" * 64), dict(record, decisions=record["decisions"][:-1]),
                     dict(record, outcome=dict(record["outcome"], reason="tampered")),
                     dict(record, deal_seed=record["deal_seed"] + 1)):
        with pytest.raises(ReplayMismatchError):
            replay_checked(tampered, ruleset)


def test_clone_is_independent_of_the_original(ruleset):
    rng = random.Random(1)
    state = ruleset.new_game(table_size(ruleset), ruleset.resolve_options(), random.Random(4))
    for _ in range(10):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    if state.is_terminal():
        pytest.skip("game ended within 10 moves for this seed")
    twin = state.clone()
    before = [state.view(s) for s in range(state.players)], state.legal_actions()
    moves = 0
    while not twin.is_terminal() and moves < 50:
        twin.apply(rng.choice(twin.legal_actions()))
        moves += 1
    assert ([state.view(s) for s in range(state.players)], state.legal_actions()) == before


_PLAIN = (list, dict, tuple, str, int, float, bool, frozenset, type(None))


def test_a_clone_carries_every_field_of_the_original(ruleset):
    # clones may name their fields one by one (a compiled state has no __dict__ to copy): a
    # field added to a state and forgotten in its clone fails here (sharing: the test above)
    rng = random.Random(3)
    state = ruleset.new_game(table_size(ruleset), ruleset.resolve_options(), random.Random(5))
    if not hasattr(state, "__dict__"):
        pytest.skip("a compiled state (docs/compiled.md) has no __dict__ to list its fields; "
                    "the ordinary install runs this test on the same source")
    for _ in range(40):
        if state.is_terminal():
            break
        twin = state.clone()
        fields = {name: value for name, value in vars(state).items() if name not in ("_pending", "god_log")}
        assert set(fields) <= set(vars(twin)), set(fields) - set(vars(twin))
        assert twin._pending == [[] for _ in range(state.players)] and twin.god_log == []
        for name, value in fields.items():
            other = getattr(twin, name)
            if name == "chance":
                assert other is not value and other.copy().below(10**9) == value.copy().below(10**9)
            elif name != "_legal" and isinstance(value, _PLAIN):   # _legal: a cache the clone may drop
                assert other == value, name
        state.apply(rng.choice(state.legal_actions()))


def test_a_deep_copy_keeps_the_event_queues_and_plays_on_identically(ruleset):
    # OpenSpiel deep-copies states; a compiled state defines its own deep copy
    rng = random.Random(4)
    state = ruleset.new_game(table_size(ruleset), ruleset.resolve_options(), random.Random(6))
    for _ in range(7):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    twin = copy.deepcopy(state)
    assert twin.god_log == state.god_log and twin.god_log is not state.god_log
    assert [twin.take_events(s) for s in range(state.players)] == [state.take_events(s) for s in range(state.players)]
    moves = random.Random(8)
    for _ in range(30):
        if state.is_terminal():
            break
        action = moves.choice(state.legal_actions())
        state.apply(action)
        twin.apply(action)
        assert [twin.view(s) for s in range(state.players)] == [state.view(s) for s in range(state.players)]


def test_a_pickled_state_carries_every_field_and_plays_on_identically(ruleset):
    # OpenSpiel's serialization pickles states; a compiled state has no __dict__ and pickles
    # through its __reduce__, which names its fields: one forgotten fails here
    rng = random.Random(5)
    state = ruleset.new_game(table_size(ruleset), ruleset.resolve_options(), random.Random(2))
    for _ in range(9):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    players = state.players
    state.view(players - 1)   # fills what a ruleset caches for views, which the pickle carries
    twin = pickle.loads(pickle.dumps(state))
    if hasattr(state, "__dict__"):   # an ordinary install: no field left behind
        assert set(vars(state)) <= set(vars(twin)), set(vars(state)) - set(vars(twin))
    assert twin.god_log == state.god_log
    assert [twin.take_events(s) for s in range(players)] == [state.take_events(s) for s in range(players)]
    for _ in range(60):
        if state.is_terminal():
            break
        assert twin.legal_actions() == state.legal_actions()
        action = rng.choice(state.legal_actions())
        state.apply(action)
        twin.apply(action)
        assert [twin.view(s) for s in range(players)] == [state.view(s) for s in range(players)]
        assert [twin.take_events(s) for s in range(players)] == [state.take_events(s) for s in range(players)]
        assert twin.chance.points == state.chance.points


class _Recorder(InlineHost):
    """An inline host that keeps every observation it passes on."""

    def __init__(self, cls, hands_over_objects):
        super().__init__(cls)
        self.hands_over_objects = hands_over_objects
        self.seen = []

    def act(self, observation, timeout):
        self.seen.append(observation)
        return super().act(observation, timeout)


@pytest.mark.parametrize("hands_over_objects", [True, False])
def test_options_are_a_fresh_copy_per_observation_unless_the_host_only_serialises_them(hands_over_objects):
    ruleset = RULESETS["color-flush"].cls
    hosts = [_Recorder(RandomBot, hands_over_objects) for _ in range(3)]
    result = play_game(ruleset, [Entrant(RandomBot)] * 3, deal_seed=5, hosts=hosts)
    observations = [o for host in hosts for o in host.seen]
    assert len(observations) > 3
    assert all(o["options"] == result.record["ruleset"]["options"] for o in observations)
    distinct = len({id(o["options"]) for o in observations})
    assert (distinct == len(observations)) is hands_over_objects
    assert ProcessHost.hands_over_objects is False


class _DeckVandal(RandomBot):
    """Wrecks the deck in every options copy it receives."""

    name = "deck-vandal"

    def act(self, observation):
        assert observation["options"]["target_score"] == 0, "its last change came back"  # a new dict each time
        deck = observation["options"]["deck"]
        deck[0][0] = "vandalised"
        deck.append(["x", "y"])
        observation["options"]["target_score"] = -1
        return super().act(observation)


def test_a_bot_that_changes_its_options_changes_nothing_another_seat_or_the_game_sees():
    """Inline seats get their own copy of the options once a game (a deck is too big to copy
    per decision) and a new top-level dict per observation."""
    ruleset = RULESETS["uno-flip"].cls
    hosts = [_Recorder(_DeckVandal, True)] + [_Recorder(RandomBot, True) for _ in range(2)]
    entrants = [Entrant(_DeckVandal), Entrant(RandomBot), Entrant(RandomBot)]
    result = play_game(ruleset, entrants, deal_seed=5, hosts=hosts, options={"target_score": 0})
    honest = play_game(ruleset, [Entrant(RandomBot)] * 3, deal_seed=5,
                       hosts=[_Recorder(RandomBot, True) for _ in range(3)], options={"target_score": 0})
    clean = ruleset.resolve_options({"target_score": 0})
    assert result.record["ruleset"]["options"] == clean
    assert all(o["options"] == clean for host in hosts[1:] for o in host.seen)
    assert result.record["decisions"] == honest.record["decisions"]
    decks = [{id(o["options"]["deck"]) for o in host.seen} for host in hosts]
    assert not decks[0] & decks[1] and not decks[1] & decks[2]


def _containers(value, found):
    if isinstance(value, (dict, list)):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, found)
    return found


def test_no_two_seats_ever_receive_the_same_event_object(ruleset):
    """Every dict and list of every event a seat takes is its own: not another seat's,
    not the god log's, not one handed out before (checked to the end of the game)."""
    players = table_size(ruleset)
    for seed in range(3):
        state = ruleset.new_game(players, ruleset.resolve_options(None), random.Random(seed))
        rng = random.Random(seed)
        handed_out = []  # keeps every object alive, so that ids stay unique
        while True:
            for seat in range(players):
                handed_out.extend(_containers(state.take_events(seat), []))
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        held = {id(obj) for obj in _containers(state.god_log, [])}
        ids = [id(obj) for obj in handed_out]
        assert len(set(ids)) == len(ids)
        assert not held & set(ids)


def test_queues_of_own_copies_give_each_seat_its_own_split_event():
    ruleset = RULESETS["flip-hue"].cls
    state = ruleset.new_game(3, ruleset.resolve_options(None), random.Random(0))
    for seat in range(3):
        state.take_events(seat)
    state.emit_split(1, {"type": "peek", "cards": ["red"]}, {"type": "peek", "cards": [None]})
    taken = [state.take_events(seat) for seat in range(3)]
    assert taken[1] == [{"type": "peek", "cards": ["red"]}]
    assert taken[0] == taken[2] == [{"type": "peek", "cards": [None]}]
    assert taken[0][0] is not taken[2][0] and taken[0][0]["cards"] is not taken[2][0]["cards"]
    assert state.god_log[-1] == {"type": "peek", "cards": ["red"]} and state.god_log[-1] is not taken[1][0]


# -- the record's typed contract (arena.records) ----------------------------------------


def test_a_written_record_follows_the_record_schema_key_for_key(ruleset):
    """What play_game writes is a GameRecord, its keys in the schema's order: the schema
    cannot drift from the records (logs are added by a tournament's worker)."""
    import msgspec

    from arena.records import RECORD_FORMAT, GameRecord, check_record

    record = play(ruleset).record
    assert list(record) == [key for key in GameRecord.__struct_fields__ if key != "logs"]
    typed = check_record(record)
    assert typed.format == RECORD_FORMAT
    assert msgspec.json.decode(msgspec.json.encode(record), type=GameRecord) == typed


def test_every_built_in_ruleset_ends_for_an_end_reason(ruleset):
    """The engines write end reasons as strings; for the built-in rulesets each is an EndReason
    (a new reason in an engine fails here until the enum names it)."""
    from arena.records import EndReason

    for seed in range(4):
        reason = play(ruleset, seed=seed).record["outcome"]["reason"]
        assert EndReason(reason) == reason


def test_a_fault_is_recorded_with_its_kind_as_plain_text_and_an_unknown_kind_is_refused():
    from arena.match import FaultPolicy
    from arena.records import FaultKind
    from arena.seats import BotFault

    class Crash(arena.Bot):
        name = "crash"

        def act(self, observation):
            raise KeyError("oops")

    ruleset = RULESETS["flip-7"].cls
    record = play(ruleset, Crash, policy=FaultPolicy(on_fault="random")).record
    assert record["faults"] and all(type(f["kind"]) is str and f["kind"] == FaultKind.ERROR for f in record["faults"])
    assert list(record["faults"][0]) == ["seat", "decision", "kind", "detail"]
    with pytest.raises(ValueError, match="'hiccup' is not a valid FaultKind"):
        BotFault("hiccup", "did something new")


def test_on_fault_has_one_definition_and_its_error_names_the_choices():
    from arena.errors import ConfigError
    from arena.match import FaultPolicy
    from arena.records import TOURNAMENT_ON_FAULT, OnFault

    assert FaultPolicy().on_fault is OnFault.RAISE and FaultPolicy(on_fault="forfeit").on_fault is OnFault.FORFEIT
    assert OnFault.RAISE not in TOURNAMENT_ON_FAULT and all(policy.help for policy in OnFault)
    with pytest.raises(ConfigError, match=r"""on_fault must be "raise", "random" or "forfeit", not 'retry'"""):
        FaultPolicy(on_fault="retry")


def test_arena_match_hosts_its_bots_through_the_worker_host_pool(monkeypatch, tmp_path):
    """`arena match` makes its hosts as a tournament's worker does (arena.worker.HostPool):
    a local file's bot inline, an installed bot and a protocol program each in its own
    process under --isolation process, and a program in its own process under inline."""
    import sys

    from click.testing import CliRunner

    from arena import worker
    from arena.cli import main

    (tmp_path / "mine.py").write_text("import arena\n\nclass Mine(arena.Bot):\n    def act(self, observation):\n"
                                      "        return observation['legal_actions'][-1]\n")
    (tmp_path / "first.py").write_text(
        "import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)\n    if m['type'] == 'shutdown':\n"
        "        break\n    r = ({'type': 'hello', 'protocol': 1, 'bot': 'first'} if m['type'] == 'hello' else\n"
        "         {'type': 'action', 'action': m['observation']['legal_actions'][0]} if m['type'] == 'act' else\n"
        "         {'type': 'ok'})\n    sys.stdout.write(json.dumps(r) + '\\n')\n    sys.stdout.flush()\n")
    made = []
    host = worker.HostPool.host
    monkeypatch.setattr(worker.HostPool, "host", lambda pool, entry: made.append(type(host(pool, entry)).__name__)
                        or pool.hosts[entry])
    hashes = []
    for isolation, hosts in [("process", ["InlineHost", "ProcessHost", "ProcessHost"]),
                             ("inline", ["InlineHost", "InlineHost", "ProcessHost"])]:
        made.clear()
        result = CliRunner().invoke(main, ["match", "flip-7", f"{tmp_path / 'mine.py'}:Mine", "random", "--command",
                                           f"{sys.executable} {tmp_path / 'first.py'}", "--seed", "3",
                                           "--isolation", isolation, "--json"])
        assert result.exit_code == 0, result.output
        assert made == hosts
        hashes.append(json.loads(result.output)["transcript_hash"])
    assert hashes[0] == hashes[1]


def test_an_engine_outcome_without_a_standing_per_player_is_refused_where_it_enters_the_match(monkeypatch):
    from arena.errors import ConfigError

    ruleset = RULESETS["flip-7"].cls
    state_cls = type(ruleset.new_game(3, ruleset.resolve_options({}), random.Random(0)))
    real = state_cls.outcome
    monkeypatch.setattr(state_cls, "outcome", lambda self: dict(real(self), standing=[1]))
    with pytest.raises(ConfigError, match=r"ruleset 'flip-7' ended a game with a malformed outcome \(outcome: 1 "
                                          r"standings and 3 scores for 3 players\)"):
        play(ruleset)
    monkeypatch.setattr(state_cls, "outcome", lambda self: dict(real(self), scores="high"))
    with pytest.raises(ConfigError, match=r"malformed outcome \(outcome.scores: must be a list, not 'high'\)"):
        play(ruleset)


class _DiesAtItsThirdDecision(InlineHost):
    """An inline host whose bot 'process' dies at its third decision (a fatal fault)."""

    def __init__(self, cls):
        super().__init__(cls)
        self.asked = 0

    def act(self, observation, timeout):
        self.asked += 1
        if self.asked >= 3:
            raise BotFault("memory", "ran out of memory in act()", fatal=True)
        return super().act(observation, timeout)


def test_a_fatal_fault_is_marked_in_the_record_and_the_seats_later_moves_are_checked_as_replacements():
    """Under on_fault = "random" a fatal fault (here a memory fault, which the kind alone
    does not make fatal) is recorded with fatal: true; the seat is not asked again, and
    the result checks hold its later moves to the replacement actions."""
    from arena.decisions import silenced_from
    from arena.verify import fault_problem

    ruleset = RULESETS["color-flush"].cls
    hosts = [_DiesAtItsThirdDecision(RandomBot), InlineHost(RandomBot), InlineHost(RandomBot)]
    result = play_game(ruleset, [Entrant(RandomBot)] * 3, deal_seed=5, hosts=hosts,
                       policy=FaultPolicy(on_fault="random"))
    record = result.record
    assert [f.get("fatal") for f in record["faults"]] == [True]
    fault = record["faults"][0]
    assert hosts[0].asked == 3 and silenced_from(record) == {0: fault["decision"]}
    assert fault_problem(record, ruleset) is None
    later = [i for i, (seat, _) in enumerate(record["decisions"]) if seat == 0 and i > fault["decision"]]
    assert later, "the seat must move again after its fault for this test to mean anything"
    state = ruleset.new_game(3, record["ruleset"]["options"], random.Random(record["deal_seed"]))
    for i, (seat, action) in enumerate(record["decisions"]):
        legal = state.legal_actions()
        if i in later and len(legal) > 1:
            record["decisions"][i] = [seat, next(a for a in legal if a != action)]
            break
        state.apply(action)
    assert "not the replacement action its fatal fault at decision" in fault_problem(record, ruleset)


def test_drop_events_empties_a_seats_queue_and_leaves_the_others():
    flip7 = load_registry().ruleset("flip-7").cls
    state = flip7.new_game(3, flip7.resolve_options({}), random.Random(4))
    pending = [len(state._pending[s]) for s in range(3)]
    dropped = state.drop_events(1)
    assert len(dropped) == pending[1] > 0 and state.take_events(1) == []
    assert [e["type"] for e in state.take_events(0)] == [e["type"] for e in dropped]
