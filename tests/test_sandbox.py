"""The sandbox host: the same games as process isolation, faults charged as there,
a fresh process per game, limits in force, and the fallback where none can be made.
(The attack suite, tests/test_attacks*.py, tries to break out of it.)"""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import arena.sandbox.host as sandbox_host
from arena.match import Entrant, FaultPolicy, play_game, replay
from arena.plugins import load_registry
from arena.sandbox import SandboxHost, sandbox_unavailable
from arena.sandbox.uids import UID_BASE, UID_COUNT
from arena.seats import InlineHost, Limits, ProcessHost
from arena_bots.random_bot import RandomBot
from isolation import misbehaving_bots as bad

REASON = sandbox_unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no sandbox can be made here: {REASON}")

HERE = Path(__file__).parent / "isolation"
REGISTRY = load_registry()
FLIP7 = REGISTRY.rulesets["flip-7"].cls
LIMITS = Limits(time_per_decision=2.0, time_bank=2.0, memory_mb=400, time_for_start=30)
POLICY = FaultPolicy(on_fault="random", time_per_decision=2.0, time_bank=2.0)

PROBE_BOTS = '''
import os, sys
import arena

SEEN = []  # module state: the zygote's copy is what every game starts from


class Counter(arena.Bot):
    """Reports how many games its module has seen, and what it finds in /tmp."""
    name = "counter"

    def start(self, info):
        SEEN.append(info["seat"])
        with open("/tmp/mark", "a") as mark:
            mark.write("x")

    def act(self, observation):
        print(f"SEEN {len(SEEN)} MARK {len(open('/tmp/mark').read())} UID {os.getuid()}", file=sys.stderr)
        return observation["legal_actions"][0]


class LateImporter(arena.Bot):
    """Imports a module of its own package only during a game."""
    name = "late-importer"

    def act(self, observation):
        import probe_late
        return probe_late.pick(observation["legal_actions"])


@arena.hookimpl
def register_bots(register):
    register(Counter)
    register(LateImporter)
'''


def install(root: Path, module: str, source: str) -> None:
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[arena]\n{module} = {module}\n")


@pytest.fixture(scope="module")
def bot_env(tmp_path_factory):
    """The misbehaving bots and the probes as an installed plugin folder (under /tmp, as
    pytest makes it: the sandbox must still show it to every game)."""
    root = tmp_path_factory.mktemp("sandboxed-bots")
    root.chmod(0o755)  # pytest makes it 0700: the sandbox's own uid could not read it
    shutil.copy(HERE / "misbehaving_bots.py", root / "misbehaving_bots.py")
    info = root / "misbehaving_bots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: misbehaving-bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[arena]\nmisbehaving = misbehaving_bots\n")
    install(root, "probe_bots", PROBE_BOTS)
    (root / "probe_late.py").write_text("def pick(legal):\n    return legal[-1]\n")
    return {"PYTHONPATH": str(root)}


def stand_in(name):
    """The harness's view of a bot that only the sandbox imports."""
    return type(name, (RandomBot,), {"name": name})


def host_for(name, bot_env, limits=LIMITS):
    return SandboxHost.for_bot(name, limits, env=bot_env)


def play_with(bad_cls, bot_env, seed=1, players=3, policy=POLICY):
    host = host_for(bad_cls.name, bot_env)
    entrants = [Entrant(bad_cls)] + [Entrant(RandomBot)] * (players - 1)
    hosts = [host] + [InlineHost(RandomBot) for _ in range(players - 1)]
    try:
        return play_game(FLIP7, entrants, deal_seed=seed, hosts=hosts, policy=policy, ask_forced=True)
    finally:
        host.close()


def test_a_sandboxed_game_is_the_same_game_as_in_process_isolation():
    for ruleset_id, bot in (("flip-7", "flip7-threshold"), ("uno-flip", "uno-flip-heuristic"),
                            ("color-flush", "color-flush-heuristic"), ("flip-hue", "flip-hue-heuristic")):
        ruleset = REGISTRY.rulesets[ruleset_id].cls
        entrants = [Entrant(REGISTRY.bot(bot).cls), Entrant(RandomBot), Entrant(RandomBot)]
        hashes = []
        for make in (SandboxHost.for_bot, ProcessHost.for_bot):
            hosts = [make(e.cls.name, LIMITS) for e in entrants]
            try:
                hashes.append(play_game(ruleset, entrants, deal_seed=11, hosts=hosts, policy=POLICY)
                              .record["transcript_hash"])
            finally:
                for host in hosts:
                    host.close()
        assert hashes[0] == hashes[1], ruleset_id


@pytest.mark.parametrize("bad_cls, kind", [
    (bad.Hang, "timeout"), (bad.Raiser, "error"), (bad.Exiter, "crash"), (bad.Hog, "memory"),
    (bad.Illegal, "illegal"),
])
def test_a_faulty_sandboxed_bot_is_charged_the_fault_and_the_game_finishes(bad_cls, kind, bot_env):
    record = play_with(bad_cls, bot_env).record
    assert record["faults"] and {f["kind"] for f in record["faults"]} == {kind}
    assert all(f["seat"] == 0 for f in record["faults"])
    replay(record, FLIP7)


def test_every_game_starts_from_the_loaded_bot_not_from_the_last_game(bot_env):
    host = host_for("counter", bot_env)
    entrants = [Entrant(stand_in("counter")), Entrant(RandomBot)]
    try:
        for seed in (1, 2, 3):
            result = play_game(FLIP7, entrants, deal_seed=seed, hosts=[host, InlineHost(RandomBot)],
                               policy=POLICY, ask_forced=True)
            assert result.record["faults"] == []
            line = next(l for l in result.logs[0].splitlines() if l.startswith("SEEN"))
            seen, mark, uid = int(line.split()[1]), int(line.split()[3]), int(line.split()[5])
            assert (seen, mark) == (1, 1), f"game {seed} saw state of an earlier game: {line}"
            if os.geteuid() == 0:
                assert UID_BASE <= uid < UID_BASE + UID_COUNT
    finally:
        host.close()


NUMPY_BOT = '''
import numpy  # OpenBLAS starts its thread pool here, unless told to keep to one thread
import arena


class NumpyUser(arena.Bot):
    name = "numpy-user"

    def act(self, observation):
        legal = observation["legal_actions"]
        return legal[int(numpy.argmax(numpy.arange(len(legal))))]


@arena.hookimpl
def register_bots(register):
    register(NumpyUser)
'''


def play_installed(folder, module: str, source: str, bot: str):
    """One Flip 7 game of plugin bot `bot`, installed as `module` from `source` in `folder`,
    sandboxed, against an inline random bot (every decision asked)."""
    folder.chmod(0o755)
    install(folder, module, source)
    host = SandboxHost.for_bot(bot, LIMITS, env={"PYTHONPATH": str(folder)})
    try:
        return play_game(FLIP7, [Entrant(stand_in(bot)), Entrant(RandomBot)], deal_seed=1,
                         hosts=[host, InlineHost(RandomBot)], policy=POLICY, ask_forced=True)
    finally:
        host.close()


def test_a_bot_that_imports_numpy_plays_in_the_sandbox(tmp_path):
    """Its zygote still runs one thread: BLAS and OpenMP pools are kept to one."""
    pytest.importorskip("numpy")
    result = play_installed(tmp_path, "numpy_bots", NUMPY_BOT, "numpy-user")
    assert result.record["faults"] == [], result.logs[0]


MULTIPROCESSING_BOT = '''
import multiprocessing
import sys

import arena


def square(x):
    return x * x


class MultiprocessingUser(arena.Bot):
    """Its first decision uses a fork pool, a queue and a manager (a unix socket)."""

    name = "multiprocessing-user"

    def act(self, observation):
        if not getattr(self, "done", False):
            self.done = True
            context = multiprocessing.get_context("fork")
            with context.Pool(2) as pool:
                total = sum(pool.map(square, range(10)))
            queue = context.Queue()
            child = context.Process(target=queue.put, args=(7,))
            child.start()
            got = queue.get(timeout=5)
            child.join()
            with context.Manager() as manager:
                shared = manager.dict(a=1)
                managed = shared["a"]
            print(f"MULTIPROCESSING pool={total} queue={got} manager={managed}", file=sys.stderr, flush=True)
        return observation["legal_actions"][0]


@arena.hookimpl
def register_bots(register):
    register(MultiprocessingUser)
'''


def test_a_bot_that_uses_multiprocessing_plays_in_the_sandbox(tmp_path):
    """A game shares its sandbox's network namespace and may open unix sockets only:
    multiprocessing's pools and queues (pipes) and its manager (a unix socket) still work."""
    result = play_installed(tmp_path, "multiprocessing_bots", MULTIPROCESSING_BOT, "multiprocessing-user")
    assert result.record["faults"] == [], result.logs[0]
    assert "MULTIPROCESSING pool=285 queue=7 manager=1" in result.logs[0], result.logs[0]


def test_code_installed_under_tmp_is_still_importable_during_a_game(bot_env):
    result = play_with(stand_in("late-importer"), bot_env)
    assert result.record["faults"] == [], result.logs[0]


def test_a_bot_that_died_gets_a_new_sandbox_for_the_next_game(bot_env):
    host = host_for("exiter", bot_env)
    try:
        for seed in (1, 2):
            result = play_game(FLIP7, [Entrant(bad.Exiter), Entrant(RandomBot)], deal_seed=seed,
                               hosts=[host, InlineHost(RandomBot)], policy=POLICY, ask_forced=True)
            assert [f["kind"] for f in result.record["faults"]] == ["crash"]
    finally:
        host.close()


def test_the_sandbox_dies_with_the_harness(bot_env, tmp_path):
    """kill -9 of the process that runs the host leaves none of the bot's processes."""
    script = tmp_path / "holder.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        from arena.sandbox import SandboxHost
        from arena.seats import Limits
        host = SandboxHost.for_bot("random", Limits(), env={bot_env!r})
        host.start_game(1, {{}}, {{"ruleset": "flip-7", "version": "2", "options": {{}}, "seat": 0,
                                  "players": 2, "bots": ["a", "b"]}})
        print(host.launcher.pid, flush=True)
        time.sleep(60)
    """))
    holder = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        bwrap = int(holder.stdout.readline())
        sandboxed = _descendants(bwrap)
        assert sandboxed, "the sandbox did not start"
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    deadline = time.monotonic() + 10
    while (alive := [p for p in sandboxed | {bwrap} if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive == []


def test_limits_in_force_are_reported():
    report = sandbox_host.enforcement(Limits(memory_mb=300, max_processes=20))
    assert report["isolation"] == "sandbox"
    assert "300 MiB" in report["memory"] and "20" in report["processes"]


def _descendants(pid):
    found, frontier = set(), {pid}
    while frontier:
        parents, frontier = frontier, set()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if ppid in parents and int(entry.name) not in found:
                    found.add(int(entry.name))
                    frontier.add(int(entry.name))
    return found


def _alive(pid):
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) not in ("Z", "X")
    except (OSError, IndexError):
        return False


def _standings(text, isolation, out):
    import json
    import re

    from arena.run_and_publish import run_and_publish
    from arena.tournament import parse_tournament

    text = re.sub(r'(?m)^isolation = .*\n', '', text)
    text = text.replace("[tournament]\n", f'[tournament]\nisolation = "{isolation}"\n', 1)
    for key in ("deals", "max_deals", "look_every"):   # one deal, with or without a stop
        text = re.sub(rf'(?m)^{key} = .*$', f'{key} = 1', text)
    tournament = parse_tournament(text, REGISTRY, source=str(out / "t.toml"))
    assert run_and_publish(tournament, out, progress=False, echo=lambda line: None).complete
    doc = json.loads((out / "standings.json").read_text())
    doc.pop("tournament")
    return doc


@pytest.mark.parametrize("name", ["quickstart", pytest.param("reference", marks=pytest.mark.slow)])
def test_a_committed_tournament_gives_the_same_standings_sandboxed_as_in_processes(name, tmp_path):
    """One deal of each table (the reference's takes minutes: ismcts), with the file's seed."""
    text = (Path(__file__).parent.parent / "tournaments" / f"{name}.toml").read_text()
    sandboxed = _standings(text, "sandbox", tmp_path / "sandbox")
    processes = _standings(text, "process", tmp_path / "process")
    assert sandboxed == processes


def test_a_seat_silenced_by_a_fault_gets_its_next_game_without_an_end(bot_env):
    """A forfeiting seat is asked nothing more, its `end` included: the next game must
    start cleanly all the same (the last one's processes are killed first)."""
    host = host_for("raiser", bot_env)
    policy = FaultPolicy(on_fault="forfeit", time_per_decision=2.0, time_bank=2.0)
    try:
        for seed in (1, 2, 3):
            result = play_game(FLIP7, [Entrant(bad.Raiser), Entrant(RandomBot)], deal_seed=seed,
                               hosts=[host, InlineHost(RandomBot)], policy=policy, ask_forced=True)
            assert [f["kind"] for f in result.record["faults"]] == ["error"], result.record["faults"]
            assert result.record["forfeited"] == [0]
    finally:
        host.close()
