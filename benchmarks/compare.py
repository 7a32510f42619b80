"""This tree against an earlier commit and against the peer (RLCard's UNO), in one sitting.

    .venv/bin/python benchmarks/compare.py 56d8705                   # ~25 minutes, 2 busy cores
    .venv/bin/python benchmarks/compare.py HEAD~3 --rounds 2 --only engine,play_game
    .venv/bin/python benchmarks/compare.py 56d8705 --install compiled=/path/to/compiled-venv/bin/python

Figures remembered from another day or machine mislead (the peer's own speed moves with its
version and the machine), so every figure here is taken in the same run, interleaved: each
round times REV, this tree and the peer one after the other, alternating the order, so that
drift in the machine's speed falls on all alike; a figure is the median over the rounds.
Each timing runs in a fresh process; REV is exported (`git archive`) and this tree copied
(its files as git sees them, uncommitted changes included) into a temporary folder, each
put first on PYTHONPATH (the child checks that it imported the copy it was meant to).

What is timed, CPU time (`time.process_time`) unless said:
- engine: the bare engine, 4 seats, uniform random actions straight on the state (no
  observations), us a decision, every ruleset;
- play_game: `arena.match.play_game` with 4 RandomBots inline, us a decision (forced
  decisions included, as a record counts them), every ruleset; the peer's figure is RLCard's
  UNO with 4 RandomAgents (`agent.step` + `env.step`, its bare loop), us a decision;
- env: our PettingZoo environment, 4 players (`last()` then `step`), us a step; the peer's
  figure is the same RLCard loop (each `env.step` builds the next player's state);
- ismcts: ismcts in seat 0 against two heuristics over whole games, us a search iteration
  (bench_ismcts.per_iteration_in_games, this tree's benchmark code, REV's and this tree's
  arena; each with its default params), every ruleset;
- sandbox: wall ms for one game of a Python random bot in a SandboxHost (start_game, one
  act, end_game), skipped where no sandbox can run.

``--install LABEL=PYTHON`` adds a column for another install of arena, run by its own
interpreter with no PYTHONPATH (a compiled install of this tree, docs/compiled.md).

Ratios: REV / this tree (above 1: this tree is faster; below 1: a regression) and peer /
this tree (how many times faster than the peer). UNO Flip play_game and env are timed at
single rounds (target_score 0). UNO Flip's play_game against the peer is the issue-42
measurement. Record a wave's end in benchmarks/history.md (CONTRIBUTING says when).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_compiled import copy_tree, export  # noqa: E402

RULESETS = ("flip-7", "uno-flip", "color-flush", "flip-hue")
MEASURES = ("engine", "play_game", "env", "ismcts", "sandbox")
OPTIONS = {"uno-flip": {"target_score": 0}}
PEER_PYTHON = HERE / ".peer-venv" / "bin" / "python"

# Run in a child process with one tree first on PYTHONPATH; prints one JSON line.
PROBE = r'''
import json, os, random, sys, time
measure, rid, size, scale, benchmarks, expect = sys.argv[1:7]
size, scale = int(size), float(scale)
import arena
where = os.path.realpath(os.path.dirname(arena.__file__))
if expect and not where.startswith(os.path.realpath(expect)):
    sys.exit(f"imported arena from {where}, not {expect}")
from arena.plugins import load_registry
registry = load_registry()
OPTIONS = json.loads(sys.argv[7])

def engine(cls, games):
    options = cls.resolve_options(OPTIONS.get(rid))
    decisions, cpu = 0, 0.0
    for seed in range(games):
        rng = random.Random(seed)
        start = time.process_time()
        state = cls.new_game(4, options, random.Random(seed))
        while state.current_seat() is not None:
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
        cpu += time.process_time() - start
    return decisions, cpu

def play(cls, games):
    from arena.match import Entrant, play_game
    from arena_bots.random_bot import RandomBot
    entrants = [Entrant(RandomBot)] * 4
    start = time.process_time()
    decisions = sum(len(play_game(cls, entrants, seed, options=OPTIONS.get(rid)).record["decisions"])
                    for seed in range(games))
    return decisions, time.process_time() - start

def env_steps(games):
    import numpy as np
    from arena.envs.pettingzoo import env
    game = env(rid, players=4, options=OPTIONS.get(rid))
    rng = np.random.default_rng(1)
    steps, start = 0, time.process_time()
    for number in range(games):
        game.reset(seed=number)
        for _ in game.agent_iter():
            observation, reward, termination, truncation, info = game.last()
            if termination or truncation:
                game.step(None)
                continue
            game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
    return steps, time.process_time() - start

def ismcts(games):
    sys.path.insert(0, benchmarks)
    import bench_ismcts
    from arena_bots.ismcts import ISMCTSBot
    iterations = max(1, round(bench_ismcts.ITERATIONS[rid] * scale))
    decisions, us = bench_ismcts.per_iteration_in_games(ISMCTSBot, rid, games, iterations, {})
    return decisions, us

def sandbox(games):
    import arena.sandbox.host
    from arena.sandbox import SandboxHost
    from arena.seats import Limits
    # the host's first-use probe runs with this environment: let it import this copy, not the install
    arena.sandbox.host.PYTHON_ENV["PYTHONPATH"] = os.environ["PYTHONPATH"]
    cls = registry.ruleset("flip-7").cls
    state = cls.new_game(4, cls.resolve_options(), random.Random(3))
    seat = state.current_seat()
    observation = {"ruleset": cls.id, "version": cls.version, "options": cls.resolve_options(),
                   "seat": seat, "players": 4, "view": state.view(seat), "events": [],
                   "legal_actions": state.legal_actions()}
    info = {"ruleset": "flip-7", "version": "1", "options": {}, "seat": 0, "players": 4, "bots": []}
    outcome = {"standing": [1], "scores": [0], "reason": "bench"}
    host = SandboxHost.for_bot("random", Limits())
    try:
        try:
            host.start_game(0, {}, info); host.act(observation, 5.0); host.end_game(outcome)  # starts the zygote
        except Exception as error:
            return None, f"no sandbox here ({type(error).__name__}: {str(error)[:200]})"
        start = time.perf_counter()
        for game in range(games):
            host.start_game(game, {}, info); host.act(observation, 5.0); host.end_game(outcome)
        return games, time.perf_counter() - start
    finally:
        host.close()

if measure == "ismcts":
    count, us = ismcts(size)
    print(json.dumps({"count": count, "value": us}))
elif measure == "sandbox":
    count, seconds = sandbox(size)
    print(json.dumps({"count": count, "value": None if count is None else 1e3 * seconds / count,
                      "skipped": None if count is not None else seconds}))
else:
    cls = registry.ruleset(rid).cls
    if measure == "engine":
        count, cpu = engine(cls, size)
    elif measure == "play_game":
        count, cpu = play(cls, size)
    else:
        count, cpu = env_steps(size)
    print(json.dumps({"count": count, "value": 1e6 * cpu / count}))
'''

# The peer: RLCard's UNO, 4 RandomAgents, its bare loop (as benchmarks/peer_rlcard_uno.py).
PEER = r'''
import json, sys, time
games = int(sys.argv[1])
import numpy as np, rlcard
from rlcard.agents import RandomAgent
env = rlcard.make("uno", config={"seed": 1})
env.game.configure({"game_num_players": 4})  # rlcard.make ignores it for UNO
env.num_players = env.game.get_num_players()
np.random.seed(1)
agents = [RandomAgent(num_actions=env.num_actions) for _ in range(4)]
def play():
    state, player = env.reset()
    steps = 0
    while not env.is_over():
        state, player = env.step(agents[player].step(state))
        steps += 1
    return steps
for _ in range(max(1, games // 10)):
    play()
start = time.process_time()
steps = sum(play() for _ in range(games))
print(json.dumps({"count": steps, "value": 1e6 * (time.process_time() - start) / steps,
                  "version": rlcard.__version__}))
'''


def child(cmd: list[str], pythonpath: Path | None, cwd: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"compare: {' '.join(cmd[1:4])} failed:\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _install(text: str) -> tuple[str, str]:
    """``LABEL=PYTHON`` -> (label, python)."""
    label, sep, python = text.partition("=")
    if not sep or not label or not Path(python).exists():
        raise argparse.ArgumentTypeError(f"expected LABEL=PYTHON with an existing PYTHON, not {text!r}")
    return label, os.path.abspath(python)


def peer_python() -> str | None:
    """A Python that has rlcard: benchmarks/.peer-venv's, else this one's, else None."""
    for python in (PEER_PYTHON, Path(sys.executable)):
        if python.exists() and subprocess.run([str(python), "-c", "import rlcard"],
                                              capture_output=True).returncode == 0:
            return str(python)
    return None


# (measure, ruleset, games at scale 1): sized for about a second a timing on a 2020s core
PLAN = [("engine", rid, {"flip-7": 60, "uno-flip": 200, "color-flush": 40, "flip-hue": 40}[rid]) for rid in RULESETS] \
    + [("play_game", rid, {"flip-7": 30, "uno-flip": 100, "color-flush": 20, "flip-hue": 20}[rid]) for rid in RULESETS] \
    + [("env", "uno-flip", 60)] \
    + [("ismcts", rid, 1) for rid in RULESETS] \
    + [("sandbox", "-", 40)]
UNITS = {"engine": "us/decision", "play_game": "us/decision", "env": "us/step", "ismcts": "us/iteration",
         "sandbox": "ms/game"}
PEER_ROWS = {("play_game", "uno-flip"), ("env", "uno-flip")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("rev", help="the earlier commit to compare with (any git revision)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timings of each (median reported)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply the games of engine/play_game/env/sandbox timings and ismcts's iterations")
    parser.add_argument("--only", default=",".join(MEASURES),
                        help=f"comma-separated measures among {', '.join(MEASURES)}")
    parser.add_argument("--no-peer", action="store_true", help="leave RLCard out")
    parser.add_argument("--json", action="store_true", help="also print every timing as JSON lines")
    parser.add_argument("--install", action="append", default=[], type=_install, metavar="LABEL=PYTHON",
                        help="also time another install of arena run by PYTHON (e.g. a compiled one: "
                             "docs/compiled.md), its own arena, not a copy; repeatable")
    args = parser.parse_args()
    only = args.only.split(",")
    unknown = [m for m in only if m not in MEASURES]
    if unknown or args.rounds < 1 or args.scale <= 0:
        parser.error(f"unknown measure {unknown[0]!r}" if unknown else "--rounds must be >= 1, --scale > 0")
    known = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.rev}^{{commit}}"], cwd=HERE,
                           capture_output=True)
    if known.returncode:
        parser.error(f"no commit {args.rev!r} in this repository")
    peer = None if args.no_peer else peer_python()
    if not args.no_peer and peer is None:
        print("compare: rlcard is not installed (pip install rlcard, or benchmarks/.peer-venv): no peer figures")
    work = Path(tempfile.mkdtemp(prefix="arena-compare-"))
    work.chmod(0o755)  # a sandboxed bot runs as another uid and imports the copies from here
    try:
        export(args.rev, work / "old")
        (work / "new").mkdir()
        copy_tree(work / "new")
        (work / "new" / "arena_bots").symlink_to(work / "new" / "bots")
        trees = {args.rev: work / "old", "this tree": work / "new"}
        installs = dict(args.install)
        figures: dict[tuple[str, str, str], list[float]] = {}
        skipped: dict[str, str] = {}
        version = None
        plan = [row for row in PLAN if row[0] in only]
        for index in range(args.rounds):
            for measure, rid, games in plan:
                size = games if measure == "ismcts" else max(1, round(games * args.scale))
                names = list(trees) + list(installs) + (["peer"] if peer and (measure, rid) in PEER_ROWS else [])
                for name in names if index % 2 == 0 else names[::-1]:
                    print(f"round {index + 1}/{args.rounds}: {measure} {rid} {name}", file=sys.stderr, flush=True)
                    if name == "peer":
                        assert peer is not None
                        result = child([peer, "-c", PEER, str(max(10, round(200 * args.scale)))], None, work)
                        version = result["version"]
                    elif name in installs:   # its own install of arena, on no PYTHONPATH
                        result = child([installs[name], "-c", PROBE, measure, rid, str(size), str(args.scale),
                                        str(HERE), "", json.dumps(OPTIONS)], None, work)
                    else:
                        tree = trees[name]
                        result = child([sys.executable, "-c", PROBE, measure, rid, str(size), str(args.scale),
                                        str(HERE), str(tree), json.dumps(OPTIONS)], tree, work)
                    if args.json:
                        print(json.dumps(dict(result, measure=measure, ruleset=rid, tree=name)))
                    if result["value"] is None:
                        skipped[measure] = result.get("skipped") or "skipped"
                        continue
                    figures.setdefault((measure, rid, name), []).append(result["value"])
        print(f"{args.rev} against this tree, median of {args.rounds} interleaved rounds (CPU time; sandbox wall)"
              + (f"; peer RLCard {version}" if version else ""))
        header = f"{'measure':<11}{'ruleset':<13}{'unit':<14}{args.rev[:12]:>12}{'this tree':>12}{'ratio':>8}"
        header += "".join(f"{label[:10]:>11}{'ratio':>8}" for label in installs)
        print(header + (f"{'peer':>10}{'vs peer':>9}" if version else ""))
        for measure, rid, _ in plan:
            if measure in skipped:
                print(f"{measure:<11}{rid:<13}skipped: {skipped[measure]}")
                continue
            old = statistics.median(figures[(measure, rid, args.rev)])
            new = statistics.median(figures[(measure, rid, "this tree")])
            line = f"{measure:<11}{rid:<13}{UNITS[measure]:<14}{old:12.1f}{new:12.1f}{old / new:7.2f}x"
            for label in installs:
                other = statistics.median(figures[(measure, rid, label)])
                line += f"{other:11.1f}{old / other:7.2f}x"
            if (measure, rid, "peer") in figures:
                theirs = statistics.median(figures[(measure, rid, "peer")])
                line += f"{theirs:10.1f}{theirs / new:8.2f}x"
                line += "".join(f" {theirs / statistics.median(figures[(measure, rid, label)]):.2f}x ({label})"
                                for label in installs)
            print(line)
        print("ratio: REV / this tree (below 1: slower now)" + "".join(f", REV / {label}" for label in installs)
              + "; vs peer: peer / this tree" + "".join(f", peer / {label}" for label in installs))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
