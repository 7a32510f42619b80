"""The attack suite, game by game: bots that try to read, signal or write into their
rivals, reach the network, escape their limits or hold up the harness, each run in
the sandbox (`arena.sandbox.SandboxHost`, what `isolation = "sandbox"` uses) against
honest rivals in sandboxes of their own. Each attack must fail; a fault, if any, is
charged to the attacker, and every rival plays its game out normally.

The attack bots (tests/attacks/attack_bots.py) report what they got on stderr as
``ATTACK {json}``. Where an attack works without a sandbox, a control run under
process isolation shows it succeeding on this machine, so that a sandbox that
stopped blocking it would fail the test. The controls run their attacks in "safe"
mode: aimed only at this test's own processes and folders (bots run as root here).

Cross-game memory and the zygote: test_attacks_memory.py. Whole tournaments:
test_attacks_tournament.py.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from arena.bot import Bot
from arena.match import Entrant, FaultPolicy, play_game, replay
from arena.plugins import load_registry
from arena.seats import BotHost, Limits, ProcessHost

ATTACKS = Path(__file__).parent / "attacks"
sys.path.insert(0, str(ATTACKS))
import attack_bots as ab  # noqa: E402  (the classes, for Entrant; the hosts load the installed copy)

sys.path.remove(str(ATTACKS))

FLIP7 = load_registry().rulesets["flip-7"].cls
OPTIONS = {"target_score": 60}
LIMITS = Limits(time_per_decision=3.0, time_bank=3.0, memory_mb=512, startup_seconds=30)
POLICY = FaultPolicy(on_fault="forfeit", time_per_decision=3.0, time_bank=3.0)
SANDBOX_UIDS = range(1900000000, 1900000000 + 4096)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sandboxes need Linux namespaces")


def sandbox_reason() -> str | None:
    from arena.sandbox import sandbox_unavailable

    return sandbox_unavailable()


@pytest.fixture(scope="session")
def sandbox():
    """The sandbox's host class, or a skip saying why no sandbox can be made here."""
    reason = sandbox_reason()
    if reason:
        pytest.skip(f"no sandbox can be made on this machine: {reason}")
    from arena.sandbox import SandboxHost

    return SandboxHost


def install_plugin(root: Path, source: Path, module: str) -> Path:
    """`source` installed as plugin module `module` in folder `root` (module + dist-info).
    The folder is opened to all (pytest makes its folders 0700): a sandboxed bot runs
    as a uid of its own, which must be able to read its code."""
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    shutil.copy(source, root / f"{module}.py")
    info = root / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[arena]\n{module} = {module}\n")
    return root


@pytest.fixture(scope="session")
def attack_site(tmp_path_factory) -> Path:
    """The attack bots as an installed plugin, in a folder only their hosts see."""
    return install_plugin(tmp_path_factory.mktemp("attack-site"), ATTACKS / "attack_bots.py", "attack_bots")


@pytest.fixture
def token() -> str:
    return uuid.uuid4().hex[:12]


class Hosts:
    """Makes bot hosts for one test and closes them all at its end."""

    def __init__(self, site: Path, sandbox_cls):
        self.site, self.sandbox_cls, self.made = site, sandbox_cls, []

    def sandboxed(self, name: str, limits: Limits = LIMITS, **env: str) -> BotHost:
        host = self.sandbox_cls.for_bot(name, limits, env={"PYTHONPATH": str(self.site), **env})
        self.made.append(host)
        return host

    def command(self, argv, limits: Limits = LIMITS, name: str = "command") -> BotHost:
        host = self.sandbox_cls.for_command([str(a) for a in argv], limits, name=name)
        self.made.append(host)
        return host

    def process(self, name: str, limits: Limits = LIMITS, **env: str) -> BotHost:
        host = ProcessHost.for_bot(name, limits, env={"PYTHONPATH": str(self.site), **env})
        self.made.append(host)
        return host

    def close(self) -> None:
        for host in self.made:
            host.close()


@pytest.fixture
def hosts(attack_site, sandbox):
    made = Hosts(attack_site, sandbox)
    yield made
    made.close()


def play(hosts: list[BotHost], entrants: list[Entrant], seed: int = 1, policy: FaultPolicy = POLICY):
    return play_game(FLIP7, entrants, deal_seed=seed, hosts=hosts, policy=policy, options=OPTIONS, ask_forced=True)


def reports(log: str, attack: str | None = None) -> list[dict]:
    found = [json.loads(line[len("ATTACK "):]) for line in log.splitlines() if line.startswith("ATTACK {")]
    return [r for r in found if attack is None or r.get("attack") == attack]


def the_report(result, seat: int, attack: str) -> dict:
    found = reports(result.logs[seat], attack)
    assert len(found) == 1, f"expected one {attack!r} report from seat {seat}; its log:\n{result.logs[seat]}"
    return found[0]


def assert_rivals_played_normally(record: dict, attacker: int = 0) -> None:
    """No fault charged to anyone but the attacker, every rival decided throughout the
    game (also after the attacker's first decision), and the record replays."""
    rivals = [s for s in range(record["players"]) if s != attacker]
    assert [f for f in record["faults"] if f["seat"] != attacker] == [], record["faults"]
    assert not set(record["forfeited"]) & set(rivals)
    decisions = record["decisions"]
    first = next((i for i, (seat, _) in enumerate(decisions) if seat == attacker), 0)
    for seat in rivals:
        assert any(s == seat for s, _ in decisions[first + 1:]), f"seat {seat} made no decision after the attack"
    replay(record, FLIP7)


def victims(hosts: Hosts, secret: str = "none", token: str = "", process: bool = False):
    """Two honest rivals (seats 1 and 2), each with `secret` in its environment and memory."""
    make = hosts.process if process else hosts.sandboxed
    env = {"VICTIM_SECRET": secret, "ATTACK_TEST_TOKEN": token}
    return ([make("attack-victim", **env) for _ in range(2)],
            [Entrant(ab.Victim, params={"secret": secret}, display=f"victim-{i}") for i in (1, 2)])


# -- /proc ---------------------------------------------------------------------------


def test_a_bot_sees_no_rival_through_proc(hosts, token):
    secret = "s3cret-" + token
    rivals, entrants = victims(hosts, secret)
    attacker = hosts.sandboxed("attack-proc-spy")
    result = play([attacker] + rivals, [Entrant(ab.ProcSpy, params={"secret": secret, "token": token})] + entrants)
    spied = the_report(result, 0, "proc")
    assert spied["environ_secret"] == [] and spied["mem_secret"] == []
    assert spied["environ_read"] == [] and spied["mem_read"] == []  # not even its own zygote's
    for pid, cmdline in spied["visible"].items():  # only its own sandbox: bwrap and its own zygote
        assert "attack-victim" not in cmdline and secret not in cmdline
        assert "attack-proc-spy" in cmdline or "bwrap" in cmdline, (pid, cmdline)
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_the_spy_reads_a_rivals_environment_and_memory(hosts, token):
    secret = "s3cret-" + token
    rivals, entrants = victims(hosts, secret, token, process=True)
    attacker = hosts.process("attack-proc-spy")
    result = play([attacker] + rivals,
                  [Entrant(ab.ProcSpy, params={"secret": secret, "token": token, "safe": True})] + entrants)
    spied = the_report(result, 0, "proc")
    assert len(spied["environ_secret"]) == 2 and len(spied["mem_secret"]) == 2


# -- signals -------------------------------------------------------------------------


def test_a_bot_cannot_stop_or_kill_a_rival(hosts, token):
    rivals, entrants = victims(hosts)
    attacker = hosts.sandboxed("attack-killer")
    result = play([attacker] + rivals, [Entrant(ab.Killer)] + entrants)
    killed = the_report(result, 0, "kill")
    assert killed["hits"] == []  # it found nothing it could signal but itself
    assert result.record["faults"] == []
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_the_killer_kills_its_rivals_and_they_are_faulted(hosts, token):
    rivals, entrants = victims(hosts, token=token, process=True)
    attacker = hosts.process("attack-killer")
    result = play([attacker] + rivals, [Entrant(ab.Killer, params={"safe": True, "token": token})] + entrants)
    assert len(the_report(result, 0, "kill")["hits"]) == 2
    assert {f["seat"] for f in result.record["faults"]} == {1, 2}


# -- writing into others' folders -------------------------------------------------------


@pytest.fixture
def open_folders(tmp_path):
    """World-writable folders standing for a rival's code, the results and the tournament."""
    folders = {}
    for name in ("rival-code", "results", "tournament"):
        folder = tmp_path / name
        folder.mkdir()
        folder.chmod(0o777)
        folders[name] = folder
    tmp_path.chmod(0o755)
    return folders


def test_a_bot_cannot_write_into_rivals_or_the_harnesss_folders(hosts, token, open_folders, attack_site):
    import arena

    harness = [Path("/root") / f"attack-{token}", Path(sys.prefix) / f"attack-{token}",
               Path(arena.__file__).parent / f"attack_{token}.py", Path(__file__).parent / f"attack_{token}.py",
               Path(os.__file__).parent / f"attack_{token}.py"]
    targets = [attack_site / "random.py", open_folders["rival-code"] / "random.py",
               open_folders["results"] / f"attack-{token}", open_folders["tournament"] / "planted.toml"] + harness
    victim_env = {"PYTHONPATH": f"{open_folders['rival-code']}{os.pathsep}{attack_site}"}
    rivals = [hosts.sandboxed("attack-victim", **victim_env), hosts.sandboxed("random")]
    attacker = hosts.sandboxed("attack-planter")
    try:
        result = play([attacker] + rivals,
                      [Entrant(ab.Planter, params={"targets": [str(t) for t in targets]}),
                       Entrant(ab.Victim), Entrant(ab.Victim, display="random")])
        planted = the_report(result, 0, "plant")["results"]
        assert set(planted) == {str(t) for t in targets}
        assert [t for t, outcome in planted.items() if outcome == "written"] == []
        assert [t for t in targets if t.exists()] == []
        assert_rivals_played_normally(result.record)
    finally:
        for target in harness:  # should the attack have worked, leave nothing behind
            target.unlink(missing_ok=True)


def test_control_without_a_sandbox_the_planter_writes_into_open_folders(hosts, open_folders):
    targets = [open_folders["rival-code"] / "random.py", open_folders["results"] / "planted"]
    rivals, entrants = victims(hosts, process=True)
    attacker = hosts.process("attack-planter")
    result = play([attacker] + rivals, [Entrant(ab.Planter, params={"targets": [str(t) for t in targets]})] + entrants)
    assert set(the_report(result, 0, "plant")["results"].values()) == {"written"}
    assert all(t.exists() for t in targets)


# -- network ---------------------------------------------------------------------------


class Listeners:
    """A TCP, a UDP and an abstract unix socket on loopback that record what arrives."""

    def __init__(self, token: str):
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.abstract = f"arena-attack-{token}"
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind("\0" + self.abstract)
        self.unix.listen()
        self.params = {"token": token, "tcp_port": self.tcp.getsockname()[1], "udp_port": self.udp.getsockname()[1],
                       "abstract": self.abstract}

    def arrived(self) -> dict[str, bytes]:
        got = {}
        for name, server in (("tcp", self.tcp), ("abstract_unix", self.unix)):
            server.settimeout(0.5)
            try:
                conn, _ = server.accept()
                with conn:
                    conn.settimeout(1)
                    got[name] = conn.recv(100)
            except OSError:
                pass
        self.udp.settimeout(0.5)
        try:
            got["udp"] = self.udp.recv(100)
        except OSError:
            pass
        return got

    def close(self):
        for s in (self.tcp, self.udp, self.unix):
            s.close()


@pytest.fixture
def listeners(token):
    made = Listeners(token)
    yield made
    made.close()


def test_a_bot_reaches_no_network(hosts, listeners):
    rivals, entrants = victims(hosts)
    result = play([hosts.sandboxed("attack-net")] + rivals, [Entrant(ab.Networker, params=listeners.params)] + entrants)
    sent = the_report(result, 0, "net")["results"]
    assert sent["tcp"] != "sent" and sent["abstract_unix"] != "sent"  # UDP "sends" into its own empty network
    assert listeners.arrived() == {}
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_the_token_arrives(hosts, listeners):
    rivals, entrants = victims(hosts, process=True)
    result = play([hosts.process("attack-net")] + rivals, [Entrant(ab.Networker, params=listeners.params)] + entrants)
    assert the_report(result, 0, "net")["results"] == {"tcp": "sent", "udp": "sent", "abstract_unix": "sent"}
    token = listeners.params["token"].encode()
    assert listeners.arrived() == {"tcp": token, "udp": token, "abstract_unix": token}


# -- processes: fork bombs, daemons ------------------------------------------------------


def limit_in_force(limit: str, limits: Limits) -> bool:
    """Whether the sandbox enforces `limit` ("memory", "processes") with a cgroup here."""
    from arena.sandbox import enforcement

    return "cgroup" in enforcement(limits)[limit]


def test_a_fork_bomb_stops_at_the_process_limit(hosts):
    limits = Limits(time_per_decision=3.0, time_bank=3.0, max_processes=16)
    if not Path("/sys/fs/cgroup/pids").is_dir() and not Path("/sys/fs/cgroup/cgroup.controllers").exists() \
            or not limit_in_force("processes", limits):
        pytest.skip("no pids cgroup limit is in force for sandboxes on this machine: a fork bomb is not run")
    rivals, entrants = victims(hosts)
    result = play([hosts.sandboxed("attack-fork-bomb", limits)] + rivals,
                  [Entrant(ab.ForkBomb, params={"cap": 100})] + entrants)
    bomb = the_report(result, 0, "fork-bomb")
    assert bomb["made"] < limits.max_processes and bomb["failure"] == "EAGAIN"
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_the_bomb_makes_all_its_children(hosts):
    limits = Limits(time_per_decision=3.0, time_bank=3.0, max_processes=16)
    rivals, entrants = victims(hosts, process=True)
    result = play([hosts.process("attack-fork-bomb", limits)] + rivals,
                  [Entrant(ab.ForkBomb, params={"cap": 40})] + entrants)
    assert the_report(result, 0, "fork-bomb")["made"] == 40


def processes_named(comm: str) -> dict[int, tuple[int, str]]:
    """Live processes whose name (comm) is `comm`: pid -> (uid, start time)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != comm:
                continue
            status = (entry / "status").read_text()
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if stat[0] in "ZX":
            continue
        uid = int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])
        found[int(entry.name)] = (uid, stat[19])
    return found


def wait_gone(comm: str, seconds: float = 5.0) -> dict[int, tuple[int, str]]:
    deadline = time.monotonic() + seconds
    while (left := processes_named(comm)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


class Watched(BotHost):
    """A host that runs `after_act` after each decision (to look at the machine mid-game)."""

    def __init__(self, inner: BotHost, after_act):
        self.inner, self.after_act = inner, after_act
        self.hands_over_objects = inner.hands_over_objects

    def start_game(self, seed, params, info):
        return self.inner.start_game(seed, params, info)

    def act(self, observation, timeout):
        try:
            return self.inner.act(observation, timeout)
        finally:
            self.after_act()

    def end_game(self, outcome):
        return self.inner.end_game(outcome)

    def take_log(self):
        return self.inner.take_log()

    def close(self):
        self.inner.close()


def play_daemon(host: BotHost, rivals, entrants, comm: str):
    seen: dict[int, tuple[int, str]] = {}
    result = play([Watched(host, lambda: seen.update(processes_named(comm)))] + rivals,
                  [Entrant(ab.Daemon, params={"comm": comm, "seconds": 60})] + entrants)
    return result, seen


def test_no_daemon_outlives_its_game(hosts, token):
    comm = "atk" + token
    rivals, entrants = victims(hosts)
    host = hosts.sandboxed("attack-daemon")
    result, seen = play_daemon(host, rivals, entrants, comm)
    assert the_report(result, 0, "daemon")["ready"] == 2
    assert len(seen) == 2, "the test did not see the daemons while the game ran"
    assert all(uid in SANDBOX_UIDS for uid, _ in seen.values()) or os.geteuid() != 0
    assert wait_gone(comm) == {}, "a daemon outlived the game (its host is still open)"
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_a_setsid_daemon_outlives_its_host(hosts, token):
    comm = "atk" + token
    rivals, entrants = victims(hosts, process=True)
    host = hosts.process("attack-daemon")
    result, seen = play_daemon(host, rivals, entrants, comm)
    host.close()
    try:
        left = wait_gone(comm, seconds=1.0)
        assert len(seen) == 2 and len(left) >= 1  # the setsid one escaped the process group
    finally:
        for pid, (_, started) in processes_named(comm).items():
            if pid in seen and seen[pid][1] == started:  # ours, and the very same process
                os.kill(pid, 9)


# -- memory and disk --------------------------------------------------------------------


def test_memory_spread_over_children_is_capped_for_the_bot_as_a_whole(hosts):
    limits = Limits(time_per_decision=20.0, time_bank=5.0, memory_mb=256)
    if not limit_in_force("memory", limits):
        pytest.skip("no memory cgroup limit is in force for sandboxes on this machine: the test is not run")
    rivals, entrants = victims(hosts)
    policy = FaultPolicy(on_fault="forfeit", time_per_decision=20.0, time_bank=5.0)
    result = play([hosts.sandboxed("attack-memory-spread", limits)] + rivals,
                  [Entrant(ab.MemorySpreader, params={"children": 4, "mb": 100})] + entrants, policy=policy)
    faults = [f["kind"] for f in result.record["faults"]]
    spread = reports(result.logs[0], "memory-spread")
    assert faults in (["memory"], ["crash"]) or (spread and spread[0]["alive"] * spread[0]["mb"] <= 256), (
        faults, spread)
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_memory_spreads_over_children(hosts):
    limits = Limits(time_per_decision=20.0, time_bank=5.0, memory_mb=256)
    rivals, entrants = victims(hosts, process=True)
    policy = FaultPolicy(on_fault="forfeit", time_per_decision=20.0, time_bank=5.0)
    result = play([hosts.process("attack-memory-spread", limits)] + rivals,
                  [Entrant(ab.MemorySpreader, params={"children": 4, "mb": 100})] + entrants, policy=policy)
    assert the_report(result, 0, "memory-spread")["alive"] == 4


def host_files_named(part: str) -> list[str]:
    """Files under /tmp (three levels down) and the test's home whose name holds `part`."""
    found = []
    for top in ("/tmp", os.path.expanduser("~")):
        for root, dirs, files in os.walk(top):
            if root.count("/") - top.count("/") >= 3:
                dirs[:] = []
            found += [os.path.join(root, f) for f in files if part in f]
    return found


def test_large_files_fill_only_the_bots_own_capped_tmpfs(hosts, token):
    limits = Limits(time_per_decision=5.0, time_bank=5.0, tmp_mb=16)
    rivals, entrants = victims(hosts)
    result = play([hosts.sandboxed("attack-tmp-fill", limits)] + rivals,
                  [Entrant(ab.TmpFiller, params={"token": token, "cap_mb": 48})] + entrants)
    filled = the_report(result, 0, "tmp-fill")
    assert filled["written_mb"] <= 16 and filled["failure"] == "ENOSPC"
    assert filled["fstype"] in ("tmpfs", "ENOENT")  # ENOENT: no /proc in its view to tell
    assert host_files_named(token) == []
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_the_files_land_on_the_host(hosts, token):
    limits = Limits(time_per_decision=5.0, time_bank=5.0, tmp_mb=16)
    rivals, entrants = victims(hosts, process=True)
    host = hosts.process("attack-tmp-fill", limits)
    seen: list[str] = []
    watched = Watched(host, lambda: seen.extend(host_files_named(token)) if not seen else None)
    result = play([watched] + rivals, [Entrant(ab.TmpFiller, params={"token": token, "cap_mb": 48})] + entrants)
    assert the_report(result, 0, "tmp-fill")["written_mb"] == 48
    assert len(seen) == 12  # on the host's disk while the game ran (its folder is removed with its host)


# -- time: start, end, stdin ----------------------------------------------------------------


@pytest.mark.parametrize("bot", [ab.SleepInStart, ab.SleepInEnd])
def test_sleeping_in_start_or_end_is_a_timeout_charged_to_the_sleeper(hosts, bot):
    limits = Limits(time_per_decision=3.0, time_bank=3.0, time_for_start=1.0, time_for_end=1.0)
    rivals, entrants = victims(hosts)
    began = time.monotonic()
    result = play([hosts.sandboxed(bot.name, limits)] + rivals, [Entrant(bot, params={"seconds": 30.0})] + entrants)
    assert time.monotonic() - began < 15  # not 30 s: the sleeper was not waited for
    assert [(f["seat"], f["kind"], f["decision"]) for f in result.record["faults"]] == [(0, "timeout", None)]
    assert_rivals_played_normally(result.record)


class CommandBot(ab.Attacker):
    """Stands for a command bot in records."""

    name = "command"


def play_guarded(host_list, entrants, seconds: float = 60.0):
    """`play` in a thread, so that a harness that blocks fails the test instead of hanging it."""
    outcome: dict = {}

    def run():
        try:
            outcome["result"] = play(host_list, entrants)
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    began = time.monotonic()
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for host in host_list:
            host.close()  # unblock it
        pytest.fail(f"the harness blocked for over {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"], time.monotonic() - began


@pytest.mark.parametrize("mode, blob", [("after-hello", 1 << 20), ("after-start", 0)])
def test_a_command_bot_that_stops_reading_cannot_block_the_harness(hosts, mode, blob):
    limits = Limits(time_per_decision=1.0, time_bank=1.0, time_for_start=2.0)
    rivals, entrants = victims(hosts)
    deaf = hosts.command([ATTACKS / "deaf.py", mode], limits, name="deaf")
    # A megabyte of params: the start message alone overfills the pipe of a bot that does not read.
    result, seconds = play_guarded([deaf] + rivals, [Entrant(CommandBot, params={"blob": "x" * blob} if blob else {},
                                                             display="deaf")] + entrants)
    assert [(f["seat"], f["kind"]) for f in result.record["faults"]] == [(0, "timeout")]
    assert seconds < 20
    assert_rivals_played_normally(result.record)


@pytest.mark.parametrize("mode", ["deep", "huge", "endless"])
def test_deep_or_huge_json_replies_are_garbage_faults(hosts, mode):
    rivals, entrants = victims(hosts)
    rude = hosts.command([ATTACKS / "rude_json.py", mode], name=mode)
    result, seconds = play_guarded([rude] + rivals, [Entrant(CommandBot, display=mode)] + entrants)
    assert [(f["seat"], f["kind"]) for f in result.record["faults"]] == [(0, "garbage")]
    assert seconds < 20
    assert_rivals_played_normally(result.record)


# -- CPU ------------------------------------------------------------------------------


def play_spinner(host, rivals_hosts, rivals):
    result = play([host] + rivals_hosts, [Entrant(ab.Spinner)] + rivals)
    spun = the_report(result, 0, "spinner")
    assert spun["gaps"] >= 5 and spun["wall"] > 0.3, spun  # enough time on the rivals' turns to measure
    return result, spun


def slow_rivals(delay=0.06):
    """Two inline rivals that sleep `delay` seconds a decision: a gap between the spinner's
    decisions lasts about 2 x `delay`, long beside the fixed cost of stopping and resuming
    it, which grows when the machine is loaded."""
    from arena.seats import InlineHost

    return ([InlineHost(ab.SlowRival), InlineHost(ab.SlowRival)],
            [Entrant(ab.SlowRival, params={"delay": delay}, display=f"slow-{i}") for i in (1, 2)])


def test_a_bot_gets_no_cpu_between_its_decisions(hosts):
    if not limit_in_force("memory", LIMITS):  # the cgroup that lists the bot's processes to stop
        pytest.skip("no cgroup for sandboxes on this machine: bots are not stopped between decisions")
    rival_hosts, rivals = slow_rivals()
    result, spun = play_spinner(hosts.sandboxed("attack-spinner"), rival_hosts, rivals)
    # A little CPU per gap is its own: from answering to being stopped, and from being
    # resumed to reading the question (10 ms a gap: seen up to ~10 ms at load 5 on 2 cores).
    # Without a sandbox it spins through whole gaps (the control below: >= 30% of the wall).
    assert spun["cpu"] <= 0.05 + 0.01 * spun["gaps"] + 0.05 * spun["wall"], spun
    assert_rivals_played_normally(result.record)


class StopWitness(Bot):
    """An inline rival that, whenever it is asked, notes the state of every thread of the
    watched sandboxed bot that the stop covers (not bwrap, its init, the zygote)."""

    name = "stop-witness"
    rulesets = "*"
    watched: BotHost | None = None
    seen: list[list[str]] = []

    def act(self, observation):
        launcher = StopWitness.watched.launcher
        states = []
        for pid in sorted(set(launcher.pids()) - launcher.keep):
            for tid in sorted(os.listdir(f"/proc/{pid}/task")):
                with open(f"/proc/{pid}/task/{tid}/stat", "rb") as stat:
                    states.append(stat.read().rsplit(b")", 1)[1].split()[0].decode())
        StopWitness.seen.append(states)
        return self.rng.choice(observation["legal_actions"])


def witness_the_spinners_stops(hosts) -> list[list[str]]:
    """Play the spinner (sandboxed) against two `StopWitness` rivals; what they saw."""
    from arena.seats import InlineHost

    spinner = hosts.sandboxed("attack-spinner")
    StopWitness.watched, StopWitness.seen = spinner, []
    result = play([spinner, InlineHost(StopWitness), InlineHost(StopWitness)],
                  [Entrant(ab.Spinner), Entrant(StopWitness, display="w-1"), Entrant(StopWitness, display="w-2")])
    assert_rivals_played_normally(result.record)
    assert len(StopWitness.seen) >= 5 and all(StopWitness.seen), StopWitness.seen
    return StopWitness.seen


def test_a_bots_stop_is_verified_before_any_rival_is_asked(hosts):
    """The stop is signalled when the bot answers and verified only before another bot
    is asked (`arena.seats.defer_stop`): every rival, asked, finds each of the bot's
    threads stopped (its spinning thread included)."""
    if not limit_in_force("memory", LIMITS):
        pytest.skip("no cgroup for sandboxes on this machine: bots are not stopped between decisions")
    seen = witness_the_spinners_stops(hosts)
    assert all(state in "TtZX" for states in seen for state in states), seen


def test_control_without_the_stop_a_rival_finds_the_spinner_running(hosts, monkeypatch):
    """The witness can tell: with no stop after the bot's answers, it sees the spinner run."""
    if not limit_in_force("memory", LIMITS):
        pytest.skip("no cgroup for sandboxes on this machine: bots are not stopped between decisions")
    from arena.sandbox.process import SandboxLauncher

    monkeypatch.setattr(SandboxLauncher, "stop", lambda self, verify=True: False)
    seen = witness_the_spinners_stops(hosts)
    assert any(state not in "TtZX" for states in seen for state in states), seen


def test_control_without_a_sandbox_the_spinner_thinks_on_the_rivals_time(hosts):
    rival_hosts, rivals = slow_rivals()
    _, spun = play_spinner(hosts.process("attack-spinner"), rival_hosts, rivals)
    assert spun["cpu"] >= 0.3 * spun["wall"], spun


class CpuOutsideTurns:
    """The CPU a sandboxed bot's processes use outside its own turns, as the harness sees
    it: the cgroup's CPU counter read just after each verification of its stop (before
    any rival is asked) and just before its next resume, summed over those gaps. What the
    bot measures itself also counts its own turns' edges (from its answer to its stop,
    from its resume to its `act`), where a pair of spinning processes legitimately burns
    several milliseconds on a busy machine; this counts only the rivals' time, where the
    stop must hold."""

    def __init__(self, host):
        launcher = host.launcher
        self.seconds, self.gaps, self._at_stop = 0.0, 0, None
        verify, cont = launcher._verify_stop, launcher.cont

        def verified(*args, **kwargs):
            verify(*args, **kwargs)
            if launcher.stopped:  # (empty: nothing was stopped, or it escaped and was killed)
                self._at_stop = launcher.cpu_seconds()

        def resumed():
            if self._at_stop is not None:
                self.seconds += launcher.cpu_seconds() - self._at_stop
                self.gaps, self._at_stop = self.gaps + 1, None
            cont()

        launcher._verify_stop, launcher.cont = verified, resumed


def play_pair(host, rivals_hosts, rivals):
    result = play([host] + rivals_hosts, [Entrant(ab.SigcontPair)] + rivals)
    spun = the_report(result, 0, "sigcont-pair")
    assert spun["gaps"] >= 5 and spun["wall"] > 0.3, spun
    return result, spun


def pair_outside_its_turns(hosts):
    """Play the sigcont pair in a sandbox against slow rivals; its report, the CPU its
    processes used outside its turns (`CpuOutsideTurns`), and the game's result."""
    rival_hosts, rivals = slow_rivals(0.15)
    host = hosts.sandboxed("attack-sigcont-pair")
    outside = CpuOutsideTurns(host)
    result, spun = play_pair(host, rival_hosts, rivals)
    assert outside.gaps >= 5, (outside.gaps, spun)  # rivals' turns (a decision right after its own has none)
    return result, spun, outside.seconds


def outside_bound(spun: dict) -> float:
    """The CPU the pair's sandbox may use on its rivals' time: nothing of the bot runs then,
    only bwrap and its init (idle) are never stopped; a little for the counter's reads."""
    return 0.02 + 0.005 * spun["wall"]


def test_two_processes_resuming_each_other_get_no_cpu_between_decisions(hosts):
    """The stop is verified (every thread seen stopped, stopped again if a sibling sent
    it SIGCONT first), so a pair that keeps resuming each other still stops. Slower
    rivals than the spinner's: two spinning processes share a loaded machine's cores
    with everything else, and the control must still show them well above the bound.
    Counted by the harness outside the pair's turns (its own count, which includes the
    edges of its turns, was flaky near any bound fair to a busy machine)."""
    if not limit_in_force("memory", LIMITS):
        pytest.skip("no cgroup for sandboxes on this machine: bots are not stopped between decisions")
    result, spun, outside = pair_outside_its_turns(hosts)
    assert outside <= outside_bound(spun), (outside, spun)
    assert_rivals_played_normally(result.record)


@pytest.mark.slow
def test_control_with_a_stop_that_misses_a_process_the_pair_gets_cpu_between_decisions(hosts, monkeypatch):
    """The measure above can fail: with a stop that signals only the game process (not
    the child it forked) and is not verified, the child spins on its rivals' time, far
    above the bound. (Verification alone off is not a reliable control: whether the pair
    slips through the signals' race varies from run to run.)"""
    if not limit_in_force("memory", LIMITS):
        pytest.skip("no cgroup for sandboxes on this machine: bots are not stopped between decisions")
    import signal

    from arena.sandbox.process import SandboxLauncher

    def partial_stop(self, verify=True):
        game = min(set(self.pids()) - self.keep)  # the game process, forked before its child
        os.kill(game, signal.SIGSTOP)
        self.stopped |= {game}
        self._end_stopper()  # nothing to verify with (the stopper made while the game was held would stop the child)
        return True

    monkeypatch.setattr(SandboxLauncher, "stop", partial_stop)
    _, spun, outside = pair_outside_its_turns(hosts)
    assert outside > 5 * outside_bound(spun), (outside, spun)


def replacer_outside_its_turns(hosts):
    """Play the replacer in a sandbox against slow rivals; its report, the CPU its
    processes used outside its turns (`CpuOutsideTurns`), and the game's result."""
    rival_hosts, rivals = slow_rivals(0.02)  # a spinner left running would use ~all of it, 50x the bound
    host = hosts.sandboxed("attack-replacer")
    outside = CpuOutsideTurns(host)
    result = play([host] + rival_hosts, [Entrant(ab.Replacer)] + rivals)
    spun = the_report(result, 0, "replacer")
    assert spun["gaps"] >= 5 and outside.gaps >= 5, (outside.gaps, spun)
    return result, spun, outside.seconds


def test_a_process_replaced_during_its_turn_gets_no_cpu_between_decisions(hosts):
    """A process of the bot that ended and was reaped during its turn while another was
    forked leaves the cgroup's task count as it was when the stop last listed them: the
    stop's verification lists them again whenever one it knew is gone, so the new one is
    stopped too."""
    if not limit_in_force("memory", LIMITS):
        pytest.skip("no cgroup for sandboxes on this machine: bots are not stopped between decisions")
    result, spun, outside = replacer_outside_its_turns(hosts)
    assert outside <= outside_bound(spun), (outside, spun)
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_the_replacer_thinks_on_the_rivals_time(hosts):
    rival_hosts, rivals = slow_rivals(0.02)
    result = play([hosts.process("attack-replacer")] + rival_hosts, [Entrant(ab.Replacer)] + rivals)
    spun = the_report(result, 0, "replacer")
    assert spun["gaps"] >= 5 and spun["cpu"] >= 0.15 * spun["wall"], spun


def test_control_without_a_sandbox_the_pair_thinks_on_the_rivals_time(hosts):
    rival_hosts, rivals = slow_rivals(0.15)
    _, spun = play_pair(hosts.process("attack-sigcont-pair"), rival_hosts, rivals)
    assert spun["cpu"] >= 0.15 * spun["wall"], spun  # (at least twice the sandbox's bound, even at load 14)


@pytest.mark.parametrize("cpu_per_game, faulted", [(1.0, True), (600.0, False)])
def test_cpu_per_game_faults_a_bot_burning_many_threads(hosts, cpu_per_game, faulted):
    if not limit_in_force("memory", LIMITS):
        pytest.skip("no cgroup for sandboxes on this machine: CPU per game is not limited")
    limits = Limits(time_per_decision=20.0, time_bank=5.0, cpu_per_game=cpu_per_game)
    rivals, entrants = victims(hosts)
    policy = FaultPolicy(on_fault="forfeit", time_per_decision=20.0, time_bank=5.0)
    result = play([hosts.sandboxed("attack-cpu-burner", limits)] + rivals,
                  [Entrant(ab.CpuBurner, params={"threads": 4, "cpu": 0.6, "decisions": 3})] + entrants, policy=policy)
    faults = [(f["seat"], f["kind"]) for f in result.record["faults"]]
    assert faults == ([(0, "timeout")] if faulted else [])
    if faulted:
        assert "CPU seconds" in result.record["faults"][0]["detail"]
    assert_rivals_played_normally(result.record)


# -- /proc writes into the zygote -----------------------------------------------------------


def test_a_game_cannot_write_into_or_trace_its_zygote_or_anything_else(hosts):
    rivals, entrants = victims(hosts)
    result = play([hosts.sandboxed("attack-zygote-writer")] + rivals, [Entrant(ab.ZygoteWriter)] + entrants)
    wrote = the_report(result, 0, "zygote-write")
    assert wrote["writable"] == [] and wrote["traced"] == [], wrote
    assert_rivals_played_normally(result.record)


def test_control_without_a_sandbox_the_writer_can_write_into_and_trace_a_rival(hosts, token):
    rivals, entrants = victims(hosts, token=token, process=True)
    result = play([hosts.process("attack-zygote-writer")] + rivals,
                  [Entrant(ab.ZygoteWriter, params={"safe": True, "token": token})] + entrants)
    wrote = the_report(result, 0, "zygote-write")
    assert wrote["self"] == "opened" and len(wrote["writable"]) == 2 and len(wrote["traced"]) == 2, wrote
