"""Process isolation with real subprocesses: limits, faults, hiding, any-language bots."""

import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from arena.errors import BotError
from arena.match import Entrant, FaultPolicy, play_game, replay
from arena.plugins import load_registry
from arena.seats import InlineHost, Limits, ProcessHost
from arena_bots.random_bot import RandomBot
from isolation import misbehaving_bots as bad

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="process limits and /proc checks are Linux-only")

HERE = Path(__file__).parent / "isolation"
RULESETS = load_registry().rulesets
FLIP7 = RULESETS["flip-7"].cls
LIMITS = Limits(time_per_decision=0.5, time_bank=0.5, memory_mb=400, startup_seconds=30)
POLICY = FaultPolicy(on_fault="random", time_per_decision=0.5, time_bank=0.5)


@pytest.fixture(scope="module")
def bot_env(tmp_path_factory):
    """A folder holding the misbehaving bots as an installed plugin, for the child's PYTHONPATH."""
    root = tmp_path_factory.mktemp("bots")
    shutil.copy(HERE / "misbehaving_bots.py", root / "misbehaving_bots.py")
    info = root / "misbehaving_bots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: misbehaving-bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[arena]\nmisbehaving = misbehaving_bots\n")
    return {"PYTHONPATH": str(root)}


def session_processes(session_id):
    """Pids of live processes in a session (a bot host and anything it started)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == session_id and fields[0] != "Z":
                pids.append(int(entry.name))
    return pids


def wait_until_gone(session_id, seconds=5.0):
    """The session's live processes once SIGKILL has had time to land (it is asynchronous)."""
    deadline = time.monotonic() + seconds
    while (alive := session_processes(session_id)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def play_with(bad_cls, bot_env, seed=1, players=3, policy=POLICY, ruleset=FLIP7, options=None):
    """One game: `bad_cls` in seat 0 in its own process, random bots inline elsewhere."""
    host = ProcessHost.for_bot(bad_cls.name, LIMITS, env=bot_env)
    entrants = [Entrant(bad_cls)] + [Entrant(RandomBot)] * (players - 1)
    hosts = [host] + [InlineHost(RandomBot) for _ in range(players - 1)]
    try:
        result = play_game(ruleset, entrants, deal_seed=seed, hosts=hosts, policy=policy, options=options,
                           ask_forced=True)
        session = host.launcher.pid
    finally:
        host.close()
    return result, session


@pytest.mark.parametrize("bad_cls, kind", [
    (bad.Hang, "timeout"), (bad.Raiser, "error"), (bad.Exiter, "crash"), (bad.Hog, "memory"),
    (bad.Illegal, "illegal"), (bad.Malformed, "illegal"),
])
def test_a_faulty_bot_is_recorded_replaced_and_the_game_finishes(bad_cls, kind, bot_env):
    result, _ = play_with(bad_cls, bot_env)
    record = result.record
    assert record["faults"], "the fault was not recorded"
    assert {f["kind"] for f in record["faults"]} == {kind}
    assert all(f["seat"] == 0 for f in record["faults"])
    assert sorted(record["outcome"]["standing"])[0] == 1
    replay(record, FLIP7)  # replacement actions are in the record: it replays exactly


def test_a_bot_that_dies_is_not_asked_again_that_game_but_the_next_game_restarts_it(bot_env):
    host = ProcessHost.for_bot("exiter", LIMITS, env=bot_env)
    try:
        for seed in (1, 2):
            result = play_game(FLIP7, [Entrant(bad.Exiter), Entrant(RandomBot)], deal_seed=seed,
                               hosts=[host, InlineHost(RandomBot)], policy=POLICY, ask_forced=True)
            assert [f["kind"] for f in result.record["faults"]] == ["crash"]
    finally:
        host.close()


def test_forfeit_policy_ranks_the_offender_last(bot_env):
    policy = FaultPolicy(on_fault="forfeit", time_per_decision=0.5, time_bank=0.5)
    result, _ = play_with(bad.Raiser, bot_env, policy=policy)
    standing = result.record["outcome"]["standing"]
    assert standing[0] == 3 and sorted(standing[1:])[0] == 1
    assert result.record["forfeited"] == [0]
    replay(result.record, FLIP7)


def test_raise_policy_stops_with_a_clear_error(bot_env):
    with pytest.raises(BotError, match=r"bot 'raiser' \(seat 0\) raised in act\(\): RuntimeError: nope"):
        play_with(bad.Raiser, bot_env, policy=FaultPolicy(on_fault="raise", time_per_decision=1.0))


def test_prints_go_to_the_log_not_the_protocol_channel(bot_env):
    result, _ = play_with(bad.Chatty, bot_env)
    assert result.record["faults"] == []
    assert "junk {not json" in result.logs[0]
    assert len(result.logs[0]) <= LIMITS.log_bytes + 100


def test_children_a_bot_leaves_behind_are_killed_with_it(bot_env):
    result, session = play_with(bad.Forker, bot_env)
    child = int(result.logs[0].split("CHILD ")[1].split()[0])
    assert result.record["faults"] == []
    assert child > 0 and session is not None
    assert wait_until_gone(session) == []  # the child shares the host's session


def test_a_spy_finds_no_engine_state_and_no_seed(bot_env):
    seed = 987654321987
    result, _ = play_with(bad.Spy, bot_env, seed=seed)
    reports = [json.loads(line[4:]) for line in result.logs[0].splitlines() if line.startswith("SPY ")]
    assert reports, "the spy never reported"
    for report in reports:
        assert report["engine"] == []
        assert str(seed) not in json.dumps(report["env"])
        assert report["files"] == []
        assert not any("match.py" in f for f in report["frames"])
    assert set(reports[0]["env"]) <= {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE",
                                      "PYTHONUNBUFFERED", "PYTHONPATH", "LC_CTYPE"}


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_a_shell_bot_plays_full_games_through_the_protocol(ruleset_id):
    ruleset = RULESETS[ruleset_id].cls
    players = max(ruleset.min_players, 2)
    host = ProcessHost([str(HERE / "first_legal.sh")], LIMITS, name="first-legal")
    options = {"target_score": 0} if ruleset_id == "uno-flip" else None
    try:
        for seed in range(2):
            result = play_game(ruleset, [Entrant(RandomBot, display="first-legal")] + [Entrant(RandomBot)] * (players - 1),
                               deal_seed=seed, hosts=[host] + [InlineHost(RandomBot) for _ in range(players - 1)],
                               policy=FaultPolicy(on_fault="raise", time_per_decision=5.0), options=options,
                               ask_forced=True)
            assert result.record["faults"] == []
            assert host.bot_name == "first-legal"
    finally:
        host.close()


@pytest.mark.parametrize("mode, kind", [("double", "garbage"), ("hangup", "crash"), ("signal", "crash")])
def test_a_protocol_bot_that_answers_twice_hangs_up_or_dies_oddly_is_a_fault_not_a_failure(mode, kind):
    host = ProcessHost([str(HERE / "rude.sh"), mode], LIMITS, name="rude")
    started = time.monotonic()
    try:
        result = play_game(FLIP7, [Entrant(RandomBot, display="rude"), Entrant(RandomBot)], deal_seed=2,
                           hosts=[host, InlineHost(RandomBot)], policy=POLICY, ask_forced=True)
    finally:
        host.close()
    assert [f["kind"] for f in result.record["faults"]] == [kind]
    assert time.monotonic() - started < 10  # a hung-up bot is stopped, not waited for
    replay(result.record, FLIP7)


def test_a_fault_after_the_game_is_recorded_without_changing_the_outcome(bot_env):
    policy = FaultPolicy(on_fault="forfeit", time_per_decision=0.5, time_bank=0.5)
    result, _ = play_with(bad.EndRaiser, bot_env, policy=policy)
    assert [(f["kind"], f["decision"]) for f in result.record["faults"]] == [("error", None)]
    assert result.record["forfeited"] == []
    replay(result.record, FLIP7)


def test_an_inline_bot_calling_exit_is_a_crash_fault():
    result = play_game(FLIP7, [Entrant(bad.Quitter), Entrant(RandomBot)], deal_seed=1, policy=POLICY,
                       ask_forced=True)
    assert [f["kind"] for f in result.record["faults"]] == ["crash"]


def test_the_bots_run_as_root_notice_says_what_it_means_and_what_to_do(monkeypatch):
    from arena import seats

    monkeypatch.setattr(seats, "_probe_unprivileged_user", lambda: (None, "Permission denied"))
    notice = seats.privilege_notice()
    assert "bots run as root" in notice and "read and change anything" in notice  # what it means
    assert "Permission denied" in notice  # why arena could not do better
    assert "ordinary user" in notice and 'isolation = "sandbox"' in notice and "virtualenv" in notice  # what to do
    monkeypatch.setattr(seats, "_probe_unprivileged_user", lambda: ("nobody", ""))
    assert seats.privilege_notice() is None
