"""Benchmark: what the sandbox adds over process isolation, per decision and per game.

    .venv/bin/python benchmarks/bench_sandbox.py [--decisions 5000] [--games 200] [--rounds 5]

Prints, for the same bot and observation, the median over interleaved rounds of:
- microseconds per act() round trip with a ProcessHost and a SandboxHost (which
  also stops the bot's processes after each answer and resumes them before the
  next question), and the difference; each act is followed by `settle_stops` (as the
  match loop does before another bot's decision), so the sandbox's figure includes the
  stop's verification, which a bot asked again at once would not wait for (+89.7 / +37.3 /
  +50.4 -> +31.5 / +29.5 / +12.8 us, 3 interleaved pairs at load 2-3.5, when the game
  process's stops stopped waking the sandbox's init; where the rest goes: docs/security.md,
  "Where a decision's extra goes");
- milliseconds per game start+end (start_game, one act, end_game, back to back) for a
  Python bot: a ProcessHost reuses its process, a SandboxHost forks a fresh game process
  in new namespaces from its zygote (one `clone`; +11.6 -> +7.9 ms over a ProcessHost
  when the waiter's fork went, load 2-3; +8.3 -> +7.2 ms, medians of 7 interleaved pairs at
  load 1-3 (quiet: +7.2 -> +6.2, 3 pairs), when a game's end became one wait on the game process's pidfd and the checks read less; the
  floor of a game process is `bench_sandbox_floor.py`'s, see docs/security.md); and for a command bot (tests/isolation/first_legal.sh
  under /bin/sh), which a SandboxHost starts in a new sandbox every game;
- milliseconds of start_game alone for a Python bot when its games are 50 ms apart (a
  SandboxHost readies the next game's process in that pause: the start is a hand-over);
- microseconds per stop after a decision (`SandboxLauncher.stop`: SIGSTOP to the bot's
  processes and the verification that every thread is stopped), against a stop that
  only signals and lists the cgroup again (`BotCgroup.signal_all`, the stop before it
  was verified), in alternating blocks of decisions on one host; and where the verified
  stop's time goes: signalling (`Stopper.stop`) and verifying (`_verify_stop`, with the
  reads of the bot's threads' states per stop).
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_isolation import sample_observation  # noqa: E402

from arena.plugins import load_registry  # noqa: E402
from arena.sandbox import SandboxHost, sandbox_unavailable  # noqa: E402
from arena.seats import Limits, ProcessHost, settle_stops  # noqa: E402

INFO = {"ruleset": "flip-7", "version": "1", "options": {}, "seat": 0, "players": 4, "bots": []}
OUTCOME = {"standing": [1], "scores": [0], "reason": "bench"}
COMMAND = ["/bin/sh", str(Path(__file__).resolve().parent.parent / "tests" / "isolation" / "first_legal.sh")]


def per_decision(host, observation, decisions):
    """Microseconds per act round trip, each followed by the verification of the bot's
    stop (`settle_stops`, as before a rival's decision)."""
    host.start_game(1, {}, INFO)
    for _ in range(100):
        host.act(observation, 5.0)
        settle_stops()
    started = time.perf_counter()
    for _ in range(decisions):
        host.act(observation, 5.0)
        settle_stops()
    elapsed = time.perf_counter() - started
    host.end_game(OUTCOME)
    return elapsed / decisions * 1e6


def per_game(host, observation, games):
    host.start_game(0, {}, INFO)  # the first game pays for starting the process
    host.act(observation, 5.0)
    host.end_game(OUTCOME)
    started = time.perf_counter()
    for game in range(games):
        host.start_game(game, {}, INFO)
        host.act(observation, 5.0)
        host.end_game(OUTCOME)
    return (time.perf_counter() - started) / games * 1e3


def per_start(host, observation, games, pause=0.05):
    """Median milliseconds of start_game alone when games are `pause` seconds apart (as
    a seat's games are when other seats end and start theirs): a zygote's next game
    process is readied in that pause, so the start is a hand-over."""
    host.start_game(0, {}, INFO)
    host.end_game(OUTCOME)
    times = []
    for game in range(games):
        time.sleep(pause)
        began = time.perf_counter()
        host.start_game(game, {}, INFO)
        times.append(time.perf_counter() - began)
        host.act(observation, 5.0)
        host.end_game(OUTCOME)
    return statistics.median(times) * 1e3


def per_stop(host, observation, decisions):
    """Median microseconds of the verified stop and of a signal-only stop, alternating."""
    host.start_game(1, {}, INFO)
    launcher = host.launcher
    verified_stop = launcher.stop
    times = {"verified": [], "signal only": []}
    mode = ["verified"]

    def timed_stop(verify=True):
        began = time.perf_counter()
        if mode[0] == "verified":
            verified_stop()
        else:
            launcher.stopped |= launcher.cgroup.signal_all(signal.SIGSTOP, launcher.keep)
        times[mode[0]].append(time.perf_counter() - began)
        return False  # verified here: nothing left for `settle_stops`

    launcher.stop = timed_stop
    try:
        for _ in range(10):
            for name in times:
                mode[0] = name
                for _ in range(max(1, decisions // 20)):
                    host.act(observation, 5.0)
        mode[0] = "verified"
        host.end_game(OUTCOME)
    finally:
        launcher.stop = verified_stop
    return {name: statistics.median(values) * 1e6 for name, values in times.items()}


def stop_parts(host, observation, decisions):
    """Medians (us) of the verified stop's two parts over `decisions` decisions: SIGSTOP
    to the bot's processes, and the verification; and the state reads per verification."""
    host.start_game(1, {}, INFO)
    for _ in range(100):
        host.act(observation, 5.0)
    launcher, times = host.launcher, {"signal": [], "verify": [], "reads": []}
    stopper, verify = launcher._stopper, launcher._verify_stop
    signal_stop, unstopped = stopper.stop, stopper.unstopped

    def timed(function, name):
        def run(*args, **kwargs):
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                times[name].append(time.perf_counter() - began)
        return run

    stopper.stop, launcher._verify_stop = timed(signal_stop, "signal"), timed(verify, "verify")
    stopper.unstopped = timed(unstopped, "reads")
    try:
        for _ in range(decisions):
            host.act(observation, 5.0)
            settle_stops()  # the verification, deferred until another bot would be asked
    finally:
        stopper.stop, stopper.unstopped, launcher._verify_stop = signal_stop, unstopped, verify
    host.end_game(OUTCOME)
    return (statistics.median(times["signal"]) * 1e6, statistics.median(times["verify"]) * 1e6,
            len(times["reads"]) / max(1, len(times["verify"])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=5000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    reason = sandbox_unavailable()
    if reason:
        sys.exit(f"no sandbox here: {reason}")
    observation = sample_observation(load_registry().ruleset("flip-7").cls)
    limits = Limits()
    makers = {
        "process": lambda: ProcessHost.for_bot("random", limits),
        "sandbox": lambda: SandboxHost.for_bot("random", limits),
        "process-command": lambda: ProcessHost(COMMAND, limits, name="cmd"),
        "sandbox-command": lambda: SandboxHost.for_command(COMMAND, limits, name="cmd"),
    }
    decision = {"process": [], "sandbox": []}
    game = {name: [] for name in makers}
    start = {"process": [], "sandbox": []}
    for _ in range(args.rounds):  # interleaved, so drift on a shared machine hits both alike
        for name in ("process", "sandbox"):
            host = makers[name]()
            try:
                decision[name].append(per_decision(host, observation, args.decisions))
                start[name].append(per_start(host, observation, max(5, args.games // 4)))
            finally:
                host.close()
        for name, make in makers.items():
            host = make()
            try:
                game[name].append(per_game(host, observation, args.games if "command" not in name else
                                           max(5, args.games // 10)))
            finally:
                host.close()
    host = makers["sandbox"]()
    try:
        stops = per_stop(host, observation, args.decisions) if _has_cgroup(host) else None
        parts = stop_parts(host, observation, args.decisions) if stops is not None else None
    finally:
        host.close()
    median = {name: statistics.median(values) for name, values in decision.items()}
    print(f"act round trip, us (median of {args.rounds} rounds of {args.decisions}):")
    print(f"  process {median['process']:8.1f}   sandbox {median['sandbox']:8.1f}   "
          f"added {median['sandbox'] - median['process']:+.1f}")
    games = {name: statistics.median(values) for name, values in game.items()}
    print(f"game start + 1 act + end, ms (median of {args.rounds} rounds):")
    print(f"  python bot:  process {games['process']:7.2f}   sandbox {games['sandbox']:7.2f}   "
          f"added {games['sandbox'] - games['process']:+.2f}")
    print(f"  command bot: process {games['process-command']:7.2f}   sandbox {games['sandbox-command']:7.2f}   "
          f"added {games['sandbox-command'] - games['process-command']:+.2f}")
    starts = {name: statistics.median(values) for name, values in start.items()}
    print(f"start_game alone, games 50 ms apart, ms (median of {args.rounds} rounds):")
    print(f"  python bot:  process {starts['process']:7.2f}   sandbox {starts['sandbox']:7.2f}   "
          f"added {starts['sandbox'] - starts['process']:+.2f}")
    if stops is None:
        print("stop after a decision: no cgroup here (bots are not stopped)")
    else:
        print(f"stop after a decision, us (median): verified {stops['verified']:7.1f}   "
              f"signal and list only {stops['signal only']:7.1f}")
        print(f"  of the verified stop, us (median): SIGSTOP {parts[0]:6.1f}   verification {parts[1]:6.1f} "
              f"({parts[2]:.2f} reads of the threads' states a stop)")


def _has_cgroup(host) -> bool:
    host.start_game(0, {}, INFO)
    host.end_game(OUTCOME)
    return host.launcher.cgroup is not None


if __name__ == "__main__":
    main()
