"""The conformance kit: the checks every ruleset must pass, ours and third parties'.

In the manner of ``pettingzoo.test``: one call runs everything a harness relies on,
against any `arena.rules.base.Ruleset` subclass, from its public interface only::

    from arena.testing import check_ruleset

    def test_my_ruleset_conforms():
        check_ruleset(MyRuleset)                      # fast: a handful of seeds
        check_ruleset(MyRuleset, seeds=50, points=40)  # bigger, for a slow suite

What `check_ruleset` checks (each is also a function of its own, `check_*`):

- determinism (`check_determinism`): the same deal seed gives the same record and
  the same observations (every seat's view and events, the legal actions) at every
  step; different seeds give different transcripts;
- playouts (`check_playouts`): random games end within `max_decisions`; at every
  step the seat to act is a seat, the legal actions are distinct strings (never
  empty), an illegal action is refused and changes nothing, views, events and the
  outcome are plain JSON; the outcome has one standing and one score per seat,
  standings are competition ranks (1 = first, ties share a position: 1, 1, 3);
- replay (`check_replay`): a record replays through `arena.match.replay` to the same
  final state (outcome and every seat's view), also after a JSON round trip; a
  record with one decision changed to another legal action does not replay;
- fresh copies (`check_fresh_copies`): wrecking every view, event list and legal
  action list handed out changes neither the game nor later observations; no two
  seats, and not the god log, ever hold the same event object; a clone plays on
  like the original (same god log, same outcome) and leaves it untouched;
- the rules page (`check_rules_page`): the ruleset module's docstring has the sections
  `arena.rules.page.REQUIRED_SECTIONS` names (How to play, action grammar, view fields,
  event types);
- illegal actions (`check_illegal_actions`): a non-action and actions legal earlier but
  not now are refused and change nothing observable (views, events, god log, seat,
  legal actions, chance), nor how the game plays on;
- hidden information and the sampler (`check_sampling`, when the ruleset declares the
  capability ``sample_state(observation, rng, events=None)``): at random decision
  points a sample (given the seat's events, and without them) is a state that
  differs from the real one only in what the seat has not seen, so the seat's
  observation must not change: same seat to act, same legal actions, same view.
  Sampling touches neither the real game, the observation nor the events; it
  depends only on the observation, the events and the rng (the same rng gives the
  same sample, played out action by action; other rngs give other samples); a
  sample plays on with legal moves only. A ruleset that does not declare it
  (``supports("sample_state")``) is reported as skipped (`ConformanceReport.skipped`), not failed.

A failure raises `ConformanceError` (an AssertionError) naming the ruleset, the
check, the players, seed and options, the decision, and what differed where.
- what a game declares for the environments and search bots
  (`check_declared_capabilities`, each where declared): its ``encoding``, ``evaluate`` and
  ``chance_outcomes``.

Options: each case runs with `options`; with `variants` (default), every option
that has `choices` or is a bool is also tried at each other value, one at a time, and
every number option at its bounds and a random value between (`option_range_cases`;
a missing bound is the option's `test_range`).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, NoReturn, Sequence

from arena.bot import Bot
from arena.errors import IllegalActionError, ReplayMismatchError
from arena.match import Entrant, play_game, replay
from arena.rules.base import GameState, Ruleset, plain_copy
from arena.rules.observation import Observation, make_observation
from arena.rules.page import missing_sections

__all__ = ["ConformanceError", "ConformanceReport", "Case", "check_ruleset", "check_determinism",
           "check_playouts", "check_replay", "check_fresh_copies", "check_sampling", "cases",
           "observation_for", "check_rules_page", "check_illegal_actions", "option_range_cases",
           "check_luck_capabilities", "check_pairwise_value", "check_unrevealed_law", "unrevealed_law_ranks",
           "low_rank_p_value", "check_declared_capabilities"]

NOT_AN_ACTION = "\x00not-an-action"


class ConformanceError(AssertionError):
    """A ruleset broke a promise of the engine contract."""


@dataclass(frozen=True)
class Case:
    """One game the kit plays: how many players, which deal seed, which options."""

    players: int
    seed: int
    options: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.options.items() if k != "deck")
        if "deck" in self.options:
            shown = ", ".join(filter(None, [shown, "deck=<custom>"]))
        return f"{self.players} players, seed {self.seed}" + (f", options {{{shown}}}" if shown else "")


@dataclass
class ConformanceReport:
    """What `check_ruleset` did: per check, how many things it compared; and what it skipped."""

    ruleset: str
    counts: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def add(self, name: str, count: int) -> None:
        self.counts[name] = self.counts.get(name, 0) + count


class _RandomBot(Bot):
    """Uniform over the legal actions (the kit's own, so it needs no installed bots)."""

    name = "conformance-random"

    def act(self, observation: Observation) -> str:
        return self.rng.choice(observation["legal_actions"])


# -- the entry point ------------------------------------------------------------------


def check_ruleset(cls: type[Ruleset], *, seeds: int | Iterable[int] = 3,
                  players: Iterable[int] | None = None, options: Mapping[str, Any] | None = None,
                  variants: bool = True, points: int = 6, samples: int = 2,
                  max_decisions: int = 100_000, stride: int = 7) -> ConformanceReport:
    """Run every check of this module on `cls`; raise `ConformanceError` at the first
    broken promise, else return a `ConformanceReport`.

    `seeds`: how many deal seeds (0..n-1), or the seeds themselves, per player count;
    `players`: player counts (default: the fewest, one more, and the most);
    `options`: given to every game; `variants`: also try every other value of each
    option with choices (or bool), one game each, and each number option at its bounds
    and at a random value between (`option_range_cases`); `points`: decision points per game
    where samples are drawn; `samples`: samples per point (each with and without
    events); `max_decisions`: a game longer than this fails; `stride`: every how many
    decisions the expensive per-step comparisons run (1: every decision).
    """
    report = ConformanceReport(cls.id)
    check_rules_page(cls, report=report)
    games = list(cases(cls, seeds=seeds, players=players, options=options, variants=variants))
    if variants:
        games += option_range_cases(cls, seeds=seeds, players=players, options=options)
    check_playouts(cls, games, max_decisions=max_decisions, stride=stride, report=report)
    check_illegal_actions(cls, games, stride=stride, report=report)
    check_determinism(cls, games, stride=stride, report=report)
    check_replay(cls, games, report=report)
    check_fresh_copies(cls, games, stride=stride, report=report)
    check_sampling(cls, games, points=points, samples=samples, report=report)
    check_declared_capabilities(cls, games, points=points, report=report)
    check_luck_capabilities(cls, games, points=points, report=report)
    return report


def cases(cls: type[Ruleset], *, seeds: int | Iterable[int] = 3, players: Iterable[int] | None = None,
          options: Mapping[str, Any] | None = None, variants: bool = True) -> list[Case]:
    """The games `check_ruleset` plays: every player count with every seed under
    `options`, then (with `variants`) one game per other value of each option that
    has choices or is a bool."""
    seed_list = list(range(seeds)) if isinstance(seeds, int) else list(seeds)
    counts = sorted(set(players)) if players is not None else \
        sorted({cls.min_players, min(cls.min_players + 1, cls.max_players), cls.max_players})
    base = dict(options or {})
    for count in counts:
        cls.check_players(count)
    cls.resolve_options(base)
    result = [Case(count, seed, base) for count in counts for seed in seed_list]
    if variants:
        index = 0
        for name, option in cls.options.items():
            if name in base:
                continue
            values = option.choices or ((True, False) if isinstance(option.default, bool) else ())
            for value in values:
                if value == option.default:
                    continue
                count = counts[index % len(counts)]
                seed = seed_list[index % len(seed_list)] if seed_list else index
                result.append(Case(count, 1000 + seed, {**base, name: value}))
                index += 1
    return result


# -- helpers ----------------------------------------------------------------------------


def _fail(cls: type[Ruleset], check: str, case: Case | None, what: str, decision: int | None = None) -> NoReturn:
    where = f" ({case}" + (f", decision {decision})" if decision is not None else ")") if case else ""
    raise ConformanceError(f"{cls.id}: {check}{where}: {what}")


def _difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two plain values first differ, as ``path: a != b`` (None if equal)."""
    if a == b and type(a) is type(b):
        return None
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                       and not isinstance(a, bool) and not isinstance(b, bool)):
        return f"{path or 'value'}: {_short(a)} != {_short(b)}"
    if isinstance(a, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}: {'missing' if key not in a else _short(a[key])} != " \
                       f"{'missing' if key not in b else _short(b[key])}"
            found = _difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        if list(a) != list(b):
            return f"{path or 'value'}: key order {list(a)} != {list(b)}"
        return None
    if isinstance(a, list):
        for index, (x, y) in enumerate(zip(a, b)):
            found = _difference(x, y, f"{path}[{index}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path or 'value'}: length {len(a)} != {len(b)}"
        return None
    return None if a == b else f"{path or 'value'}: {_short(a)} != {_short(b)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _plain_problem(value: Any, path: str) -> str | None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has a non-string key {key!r}"
            found = _plain_problem(item, f"{path}.{key}")
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _plain_problem(item, f"{path}[{index}]")
            if found:
                return found
    elif not (value is None or isinstance(value, (str, int, float, bool))):
        return f"{path} is a {type(value).__name__}, not plain JSON"
    return None


def _new(cls: type[Ruleset], case: Case) -> GameState:
    return cls.new_game(case.players, cls.resolve_options(case.options), random.Random(case.seed))


def _chooser(case: Case, salt: int = 0) -> random.Random:
    return random.Random(f"conformance:{case.seed}:{case.players}:{salt}")


def observation_for(cls: type[Ruleset], state: GameState, events: list[dict[str, Any]] | None = None
                    ) -> Observation:
    """The observation the match loop would hand the seat to act (with `events`; none by default)."""
    seat = state.current_seat()
    if seat is None:
        raise ValueError("observation_for: the game is over; no seat is to act")
    return make_observation(cls, state, seat, events or [])


def _play(cls: type[Ruleset], case: Case, **kwargs: Any):
    return play_game(cls, [Entrant(_RandomBot)] * case.players, case.seed, options=case.options, **kwargs)


# -- the checks -------------------------------------------------------------------------


def check_playouts(cls: type[Ruleset], games: Sequence[Case], *, max_decisions: int = 100_000,
                   stride: int = 7, report: ConformanceReport | None = None) -> None:
    """Random games straight on the engine keep the generic invariants (see the module
    docstring) and end within `max_decisions`."""
    name = "playouts"
    for case in games:
        state = _new(cls, case)
        rng = _chooser(case)
        decision = 0
        while True:
            seat = state.current_seat()
            if (seat is None) != state.is_terminal():
                _fail(cls, name, case, f"current_seat() is {seat!r} but is_terminal() is {state.is_terminal()}",
                      decision)
            if decision % stride == 0 or seat is None:
                _check_plain_views(cls, name, case, state, decision)
            if seat is None:
                break
            legal = _checked_legal_actions(cls, name, case, state, seat, decision)
            if decision % stride == 0:
                _check_refusal(cls, name, case, state, seat, legal, decision)
            state.apply(rng.choice(legal))
            decision += 1
            if decision > max_decisions:
                _fail(cls, name, case, f"the game did not end within {max_decisions} decisions")
        _check_outcome(cls, name, case, state.outcome())
        if report:
            report.add(name, decision)


def _check_plain_views(cls: type[Ruleset], name: str, case: Case, state: GameState, decision: int) -> None:
    """Every seat's view and events (taken) are plain JSON data."""
    for viewer in range(case.players):
        for label, value in (("view", state.view(viewer)), ("events", state.take_events(viewer))):
            problem = _plain_problem(value, f"seat {viewer}'s {label}")
            if problem:
                _fail(cls, name, case, problem, decision)


def _checked_legal_actions(cls: type[Ruleset], name: str, case: Case, state: GameState, seat: Any,
                           decision: int) -> list[str]:
    """The legal actions of `seat`, a seat of the table: a non-empty list of distinct strings."""
    if type(seat) is not int or not 0 <= seat < case.players:
        _fail(cls, name, case, f"the seat to act is {seat!r}, not a seat of {case.players}", decision)
    legal = state.legal_actions()
    if not legal or not isinstance(legal, list) or not all(isinstance(a, str) for a in legal):
        _fail(cls, name, case, f"legal_actions() is {_short(legal)}, not a non-empty list of strings",
              decision)
    if len(set(legal)) != len(legal):
        _fail(cls, name, case, f"legal_actions() repeats an action: {_short(legal)}", decision)
    return legal


def _check_refusal(cls: type[Ruleset], name: str, case: Case, state: GameState, seat: int, legal: list[str],
                   decision: int) -> None:
    """The legal actions stay put between calls, and an illegal action is refused without changing them."""
    if state.legal_actions() != legal:
        _fail(cls, name, case, "legal_actions() changed between two calls", decision)
    try:
        state.apply(NOT_AN_ACTION)
    except IllegalActionError:
        pass
    else:
        _fail(cls, name, case, "an illegal action was applied without IllegalActionError", decision)
    if state.legal_actions() != legal or state.current_seat() != seat:
        _fail(cls, name, case, "a refused illegal action changed the game", decision)


def _check_outcome(cls: type[Ruleset], name: str, case: Case, outcome: Any) -> None:
    problem = _plain_problem(outcome, "outcome")
    if problem:
        _fail(cls, name, case, problem)
    if not isinstance(outcome, dict) or not {"standing", "scores", "reason"} <= set(outcome):
        _fail(cls, name, case, f"the outcome {_short(outcome)} lacks standing, scores or reason")
    standing, scores = outcome["standing"], outcome["scores"]
    players = case.players
    if not isinstance(standing, list) or len(standing) != players:
        _fail(cls, name, case, f"outcome standing {_short(standing)} is not one position per seat")
    if not isinstance(scores, list) or len(scores) != players:
        _fail(cls, name, case, f"outcome scores {_short(scores)} are not one score per seat")
    if not isinstance(outcome["reason"], str):
        _fail(cls, name, case, f"outcome reason {outcome['reason']!r} is not a string")
    if not all(type(p) is int and 1 <= p <= players for p in standing):
        _fail(cls, name, case, f"outcome standing {standing} has a position outside 1..{players}")
    ranked = [1 + sum(1 for other in standing if other < mine) for mine in standing]
    if ranked != standing:
        _fail(cls, name, case, f"outcome standing {standing} is not a competition ranking "
                               f"(ties share a position and skip the next: {ranked})")


def check_determinism(cls: type[Ruleset], games: Sequence[Case], *, stride: int = 7,
                      report: ConformanceReport | None = None) -> None:
    """The same seed gives the same record and the same observations; other seeds differ."""
    name = "determinism"
    hashes: dict[tuple[int, str], dict[str, int]] = {}
    for case in games:
        first, second = _play(cls, case).record, _play(cls, case).record
        problem = _difference(first, second, "record")
        if problem:
            _fail(cls, name, case, f"two games from the same seed differ: {problem}")
        seen = hashes.setdefault((case.players, json.dumps(case.options, sort_keys=True)), {})
        if first["transcript_hash"] in seen:
            _fail(cls, name, case, f"seeds {seen[first['transcript_hash']]} and {case.seed} "
                                   f"give the same transcript")
        seen[first["transcript_hash"]] = case.seed
        # the same decisions on two engines dealt from the same seed: the same observations
        a, b = _new(cls, case), _new(cls, case)
        decision = 0
        for _, action in first["decisions"]:
            if decision % stride == 0:
                for seat in range(case.players):
                    got = (a.view(seat), a.take_events(seat)), (b.view(seat), b.take_events(seat))
                    problem = _difference(got[0], got[1], f"seat {seat}'s (view, events)") if got[0] != got[1] else None
                    if problem:
                        _fail(cls, name, case, f"two games from the same seed differ: {problem}", decision)
            if a.legal_actions() != b.legal_actions():
                _fail(cls, name, case, "two games from the same seed offer different legal actions", decision)
            a.apply(action)
            b.apply(action)
            decision += 1
        if _difference(a.god_log, b.god_log) or a.outcome() != b.outcome():
            _fail(cls, name, case, "two games from the same seed end differently")
        if report:
            report.add(name, decision)


def check_replay(cls: type[Ruleset], games: Sequence[Case], *, report: ConformanceReport | None = None) -> None:
    """A record replays to its transcript hash and final state; a changed one does not."""
    name = "replay"
    for case in games:
        result = _play(cls, case)
        record = result.record
        for label, copy in (("the record", record), ("the record after a JSON round trip",
                                                    json.loads(json.dumps(record)))):
            try:
                final = replay(copy, cls)
            except ReplayMismatchError as error:
                _fail(cls, name, case, f"{label} does not replay: {error}")
            if final.outcome() != result.state.outcome():
                _fail(cls, name, case, f"{label} replays to another outcome")
            for seat in range(case.players):
                problem = _difference(final.view(seat), result.state.view(seat), f"seat {seat}'s final view")
                if problem:
                    _fail(cls, name, case, f"{label} replays to another final state: {problem}")
        # change one real choice to another legal action: the record must not replay
        state = _new(cls, case)
        for index, (_, action) in enumerate(record["decisions"]):
            legal = state.legal_actions()
            if len(legal) > 1:
                other = next(a for a in legal if a != action)
                tampered = dict(record, decisions=[list(d) for d in record["decisions"]])
                tampered["decisions"][index][1] = other
                try:
                    replay(tampered, cls)
                except ReplayMismatchError:
                    break
                _fail(cls, name, case, f"a record with decision {index} changed from {action!r} to {other!r} "
                                       f"still replays")
            state.apply(action)
        if report:
            report.add(name, 1)


def _scribble(value: Any) -> None:
    """Overwrite every nested field of `value` in place, as a careless bot might."""
    if isinstance(value, dict):
        for key in list(value):
            _scribble(value[key])
            value[key] = "scribbled"
        value["scribbled"] = True
    elif isinstance(value, list):
        for item in value:
            _scribble(item)
        value.append("scribbled")


def _containers(value: Any, found: list[Any]) -> list[Any]:
    if isinstance(value, (dict, list)):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, found)
    return found


def check_fresh_copies(cls: type[Ruleset], games: Sequence[Case], *, stride: int = 7,
                       report: ConformanceReport | None = None) -> None:
    """Nothing handed out is, or points into, engine state; clones are independent."""
    name = "fresh copies"
    for case in games:
        state = _new(cls, case)
        twin = _new(cls, case)                      # the same game, whose handouts nobody touches
        rng = _chooser(case, 1)
        handed_out: list[Any] = []                  # kept alive, so that ids stay unique
        decision = 0
        while True:
            for seat in range(case.players) if decision % stride == 0 or state.is_terminal() else ():
                events, clean = state.take_events(seat), twin.take_events(seat)
                problem = _difference(events, clean, f"seat {seat}'s events") if events != clean else None
                if problem:
                    _fail(cls, name, case, f"the game changed after a bot wrecked what it was handed: "
                                           f"{problem}", decision)
                handed_out.extend(_containers(events, []))
                _scribble(events)
            if decision % stride == 0 or state.is_terminal():
                for seat in range(case.players):
                    view = state.view(seat)
                    clean_view = twin.view(seat)
                    problem = _difference(view, clean_view, f"seat {seat}'s view") if view != clean_view else None
                    if problem:
                        _fail(cls, name, case, f"the game changed after a bot wrecked what it was handed: "
                                               f"{problem}", decision)
                    handed_out.extend(_containers(view, []))
                    _scribble(view)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if legal != twin.legal_actions():
                _fail(cls, name, case, "the legal actions changed after a bot wrecked what it was handed",
                      decision)
            action = rng.choice(legal)
            if decision % stride == 0:
                handed_out.append(legal)
                _scribble(legal)
            state.apply(action)
            twin.apply(action)
            decision += 1
        ids = [id(obj) for obj in handed_out]
        if len(set(ids)) != len(ids):
            _fail(cls, name, case, "one object was handed out twice (to two seats, or twice to one)")
        held = {id(obj) for obj in _containers(state.god_log, [])}
        if held & set(ids):
            _fail(cls, name, case, "an event handed to a seat is an object of the god log")
        if state.outcome() != twin.outcome():
            _fail(cls, name, case, "the outcome changed after bots wrecked what they were handed")
        _check_clone(cls, name, case)
        if report:
            report.add(name, decision)


def _check_clone(cls: type[Ruleset], name: str, case: Case) -> None:
    state = _new(cls, case)
    rng = _chooser(case, 2)
    length = rng.randrange(1, 60)
    for _ in range(length):
        if state.is_terminal():
            return
        state.apply(rng.choice(state.legal_actions()))
    if state.is_terminal():
        return
    for seat in range(case.players):
        state.take_events(seat)
    before = [state.view(s) for s in range(case.players)], state.legal_actions()
    clone = state.clone()
    if clone.god_log or any(clone.take_events(s) for s in range(case.players)):
        _fail(cls, name, case, "a clone starts with events of the original (its god log or queues)", length)
    if [clone.view(s) for s in range(case.players)] != before[0] or clone.legal_actions() != before[1]:
        _fail(cls, name, case, "a clone does not show what the original shows", length)
    moves: list[str] = []
    while not clone.is_terminal() and len(moves) < 200:
        moves.append(rng.choice(clone.legal_actions()))
        clone.apply(moves[-1])
    if ([state.view(s) for s in range(case.players)], state.legal_actions()) != before:
        _fail(cls, name, case, "playing a clone changed the original", length)
    start = len(state.god_log)
    for move in moves:
        state.apply(move)
    problem = _difference(state.god_log[start:], clone.god_log, "god log")
    if problem:
        _fail(cls, name, case, f"a clone plays on unlike the original: {problem}", length)
    if clone.is_terminal() and clone.outcome() != state.outcome():
        _fail(cls, name, case, "a clone ends unlike the original", length)


def _decision_points(cls: type[Ruleset], case: Case, points: int
                     ) -> Iterator[tuple[GameState, Observation, list[dict[str, Any]], int]]:
    """(real state, observation, every event the seat to act has received, decision) at
    up to `points` random decision points of a random game; the state may not be changed."""
    state = _new(cls, case)
    rng = _chooser(case, 3)
    received: list[list[dict[str, Any]]] = [[] for _ in range(case.players)]
    since: list[list[dict[str, Any]]] = [[] for _ in range(case.players)]
    length_guess = 60
    decision = found = 0
    while not state.is_terminal() and found < points:
        for seat in range(case.players):
            events = state.take_events(seat)
            received[seat].extend(events)
            since[seat].extend(events)
        acting = state.current_seat()
        assert acting is not None  # the loop stops at the end
        if rng.random() < max(points / length_guess, 0.02):
            yield state, observation_for(cls, state, since[acting]), list(received[acting]), decision
            found += 1
        since[acting] = []
        state.apply(rng.choice(state.legal_actions()))
        decision += 1
        if decision > length_guess:
            length_guess *= 2


def _god_playout(state: GameState, seed: int, limit: int = 80) -> tuple[Any, ...]:
    """What an all-seeing observer sees of a random playout from `state`: its god log,
    every seat's final view, and the outcome (if it ended)."""
    rng = random.Random(seed)
    start = len(state.god_log)
    moves: list[str] = []
    while not state.is_terminal() and len(moves) < limit:
        moves.append(rng.choice(state.legal_actions()))
        state.apply(moves[-1])
    return (moves, plain_copy(state.god_log[start:]), [state.view(s) for s in range(state.players)],
            state.outcome() if state.is_terminal() else None, state.rng.getstate())


def check_sampling(cls: type[Ruleset], games: Sequence[Case], *, points: int = 6, samples: int = 2,
                   report: ConformanceReport | None = None) -> None:
    """Hidden information and the sampler (see the module docstring); skipped, with a
    note in `report`, when the ruleset has no ``sample_state``."""
    name = "hidden information"
    if not cls.supports("sample_state"):
        if report:
            report.skipped.append(f"{cls.id} has no sample_state: hidden-information resampling and "
                                  f"sampler consistency were not checked")
        return
    sample_state: Callable[..., GameState] = getattr(cls, "sample_state")  # declared, so defined
    differ = compared = 0
    for case in games:
        for state, observation, events, decision in _decision_points(cls, case, points):
            check = _SampleCheck(cls, name, case, sample_state, state, observation, events, decision)
            for index in range(samples):
                for given in (events, None):
                    check.one_sample(index, given)
                    compared += 1
            differ += check.same_rng_same_sample()
            check.samples_of_a_sample()
            check.nothing_changed()
    if compared and differ == 0:
        _fail(cls, name, None, f"no two rngs ever gave different samples ({compared} samples)")
    if report:
        report.add(name, compared)


class _SampleCheck:
    """`check_sampling`'s checks at one decision point (`state`, its `observation` and `events`)."""

    def __init__(self, cls: type[Ruleset], name: str, case: Case, sample_state: Callable[..., GameState],
                 state: GameState, observation: Any, events: Any, decision: int):
        self.cls, self.name, self.case, self.sample_state = cls, name, case, sample_state
        self.state, self.observation, self.events, self.decision = state, observation, events, decision
        self.pristine = json.dumps([observation, events])
        self.real_before = self._real()

    def _real(self) -> tuple[Any, ...]:
        state = self.state
        return ([state.view(s) for s in range(self.case.players)], state.legal_actions(), state.rng.getstate(),
                len(state.god_log))

    def _fail(self, problem: str) -> NoReturn:
        _fail(self.cls, self.name, self.case, problem, self.decision)

    def one_sample(self, index: int, given: Any) -> None:
        """A sample asks the seat the observation's legal actions, shows it the same view, and
        plays on with legal moves only."""
        observation, seat = self.observation, self.observation["seat"]
        label = "with the seat's events" if given is not None else "without events"
        sample = self.sample_state(observation, random.Random(f"{self.decision}:{index}"), given)
        if sample is self.state:
            self._fail("sample_state returned the real game")
        if sample.current_seat() != seat:
            self._fail(f"a sample ({label}) asks seat {sample.current_seat()}, the observation seat {seat}")
        if sample.legal_actions() != observation["legal_actions"]:
            self._fail(f"a sample ({label}) offers other legal actions: "
                       f"{_difference(sample.legal_actions(), observation['legal_actions'])}")
        view = sample.view(seat)
        problem = _difference(view, observation["view"], "view") or (
            "the order of its keys" if json.dumps(view) != json.dumps(observation["view"]) else None)
        if problem:
            self._fail(f"seat {seat}'s view changed when what it has not seen was resampled ({label}): {problem}")
        # a sample plays on, legal moves only, and leaves the real game alone
        chooser = random.Random(index)
        for _ in range(20):
            if sample.is_terminal():
                _check_outcome(self.cls, self.name, self.case, sample.outcome())
                break
            legal = sample.legal_actions()
            if not legal or len(set(legal)) != len(legal):
                self._fail(f"a sample offers legal actions {_short(legal)}")
            sample.apply(chooser.choice(legal))

    def same_rng_same_sample(self) -> int:
        """The same rng gives the same sample; how many times another rng gave another (0 to 2)."""
        observation, decision, differ = self.observation, self.decision, 0
        for given in (self.events, None):
            rng = random.Random(decision)
            a = _god_playout(self.sample_state(observation, rng, given), decision)
            if rng.getstate() == random.Random(decision).getstate():
                self._fail("sample_state drew nothing from the rng it was given")
            b = _god_playout(self.sample_state(json.loads(self.pristine)[0], random.Random(decision),
                                               None if given is None else json.loads(self.pristine)[1]), decision)
            problem = _difference(list(a[:4]), list(b[:4]), "playout")
            if problem or a[4] != b[4]:
                self._fail(f"the same observation and rng gave two samples that play out "
                           f"differently: {problem or 'the samples rng states differ'}")
            c = _god_playout(self.sample_state(observation, random.Random(decision + 1), given), decision)
            differ += a != c
        return differ

    def samples_of_a_sample(self) -> None:
        """A sample of the real game is another state with the same observation: its samples
        are the very ones of the real game."""
        observation, events, decision = self.observation, self.events, self.decision
        other = self.sample_state(observation, random.Random(-decision - 1), events)
        if observation_for(self.cls, other)["view"] == observation["view"]:
            again = observation_for(self.cls, other, observation["events"])
            a = _god_playout(self.sample_state(observation, random.Random(decision), events), decision)
            b = _god_playout(self.sample_state(again, random.Random(decision), events), decision)
            if _difference(list(a), list(b)):
                self._fail("samples depend on more than the observation, events and rng")

    def nothing_changed(self) -> None:
        """Sampling changed neither what it was given nor the real game."""
        if json.dumps([self.observation, self.events]) != self.pristine:
            self._fail("sample_state changed the observation or the events it was given")
        if self._real() != self.real_before:
            self._fail("sampling (or playing a sample) changed the real game")


# -- what a game declares for the environments and search bots (issue 34) ----------------
# (`Ruleset.capabilities`: ``encoding``, ``evaluate``, ``chance_outcomes``; each skipped,
# with a note in the report, where not declared)


def check_declared_capabilities(cls: type[Ruleset], games: Sequence[Case], *, points: int = 6,
                                report: ConformanceReport | None = None) -> None:
    """The ``encoding``, ``evaluate`` and ``chance_outcomes`` a ruleset declares, at random
    decision points of `games`:

    - encoding: its named blocks (``features``) cover the array exactly; the action index
      has no repeats; the arrays of the seat to act, the first and the last are ``float32``
      of the declared size, finite, in [0, 1], and the same when made twice; the mask is
      ``int8`` over the index with a 1 at exactly the legal actions that have an index, and
      at least one when there are any;
    - evaluate: one value in [0, 1] per seat, from the points of view of the same seats; it
      changes neither the state nor with the state's rng reseeded (it reads nothing
      unrevealed);
    - chance_outcomes: an integer of at least 2, and no smaller than the draw pile.
    """
    name = "declared capabilities"
    for capability, meaning in (("encoding", "environments refuse it"), ("evaluate", "searches cut off neutrally"),
                                ("chance_outcomes", "OpenSpiel refuses it")):
        if not cls.supports(capability) and report:
            report.skipped.append(f"{cls.id} has no {capability}: {meaning}")
    checked = 0
    for case in games:
        options = cls.resolve_options(case.options)
        encoding = cls.encoding(case.players, options) if cls.supports("encoding") else None
        outcomes = cls.chance_outcomes(case.players, options) if cls.supports("chance_outcomes") else None
        if encoding is not None:
            _check_layout(cls, name, case, encoding)
        if outcomes is not None and (isinstance(outcomes, bool) or not isinstance(outcomes, int) or outcomes < 2):
            _fail(cls, name, case, f"chance_outcomes is {outcomes!r}, not an integer of at least 2")
        for state, observation, _, decision in _decision_points(cls, case, points):
            if encoding is not None:
                _check_encoded(cls, name, case, encoding, state, decision)
            if cls.supports("evaluate"):
                _check_evaluation(cls, name, case, state, decision)
            if outcomes is not None:
                pile = state.chance_pile()
                if pile is not None and len(pile[0]) > outcomes:
                    _fail(cls, name, case, f"chance_outcomes is {outcomes}, below the draw pile's "
                                           f"{len(pile[0])} cards", decision)
            checked += 1
    if report:
        report.add(name, checked if any(cls.supports(c) for c in ("encoding", "evaluate", "chance_outcomes")) else 0)


def _some_seats(state: GameState, players: int) -> list[int]:
    """The seat to act, the first and the last: every seat of a small table, and a bounded
    cost at a large one."""
    return sorted({state.current_seat() or 0, 0, players - 1})


def _check_layout(cls: type[Ruleset], name: str, case: Case, encoding: Any) -> None:
    at = 0
    for feature in encoding.features:
        if feature.offset != at or feature.length < 1:
            _fail(cls, name, case, f"the encoding's block {feature.name!r} starts at {feature.offset} with "
                                   f"{feature.length} entries; the blocks must follow each other from 0")
        at += feature.length
    if at != encoding.size:
        _fail(cls, name, case, f"the encoding's blocks cover {at} entries of its {encoding.size}")
    if len(set(encoding.actions)) != len(encoding.actions):
        _fail(cls, name, case, "the encoding's action index repeats an action")


def _check_encoded(cls: type[Ruleset], name: str, case: Case, encoding: Any, state: GameState,
                   decision: int) -> None:
    import numpy as np

    for seat in _some_seats(state, case.players):
        observation: dict[str, Any] = dict(observation_for(cls, state), seat=seat, view=state.view(seat))
        array = encoding.encode(observation)
        if array.dtype != np.float32 or array.shape != (encoding.size,):
            _fail(cls, name, case, f"seat {seat}'s array is {array.dtype} of shape {array.shape}, not float32 "
                                   f"of ({encoding.size},)", decision)
        if not np.all(np.isfinite(array)) or array.min(initial=0.0) < 0.0 or array.max(initial=0.0) > 1.0:
            bad = int(np.flatnonzero(~np.isfinite(array) | (array < 0) | (array > 1))[0])
            _fail(cls, name, case, f"seat {seat}'s array holds {array[bad]} at {encoding.feature_name(bad)}, "
                                   f"outside [0, 1]", decision)
        if not np.array_equal(array, encoding.encode(observation)):
            _fail(cls, name, case, f"seat {seat}'s array differs when made twice", decision)
    legal = state.legal_actions()
    mask = encoding.mask(legal)
    indexed = {encoding.index[action] for action in legal if action in encoding.index}
    if mask.dtype != np.int8 or mask.shape != (len(encoding.actions),):
        _fail(cls, name, case, f"the mask is {mask.dtype} of shape {mask.shape}", decision)
    if set(np.flatnonzero(mask).tolist()) != indexed:
        _fail(cls, name, case, "the mask does not mark exactly the legal actions", decision)
    if legal and not indexed:
        _fail(cls, name, case, f"no legal action has an index: {_short(legal)}", decision)


def _check_evaluation(cls: type[Ruleset], name: str, case: Case, state: GameState, decision: int) -> None:
    evaluate: Callable[[GameState, int], list[float]] = getattr(cls, "evaluate")  # declared, so defined
    before = ([state.view(s) for s in range(case.players)], state.legal_actions(), state.rng.getstate())
    for me in _some_seats(state, case.players):
        values = evaluate(state, me)
        if (not isinstance(values, list) or len(values) != case.players
                or not all(isinstance(v, (int, float)) and 0.0 <= v <= 1.0 for v in values)):
            _fail(cls, name, case, f"evaluate(state, {me}) gave {_short(values)}, not one value in [0, 1] per seat",
                  decision)
        twin = state.clone()
        twin.rng = random.Random(f"reseeded {decision}")
        if evaluate(twin, me) != values:
            _fail(cls, name, case, f"evaluate(state, {me}) changes when the state's rng is reseeded: it reads "
                                   f"what chance has not revealed", decision)
    after = ([state.view(s) for s in range(case.players)], state.legal_actions(), state.rng.getstate())
    if after != before:
        _fail(cls, name, case, "evaluate changed the state", decision)


# -- the rules page, illegal actions that leave traces, number options at their bounds ---


def check_rules_page(cls: type[Ruleset], *, report: ConformanceReport | None = None) -> None:
    """The ruleset's rules page (its module's docstring, `arena.rules.page`) has every
    section `REQUIRED_SECTIONS` names, each with a body: a player-facing "How to play"
    (`Ruleset.how_to_play`), the action grammar, the view fields and the event types."""
    missing = missing_sections(cls)
    if missing:
        _fail(cls, "rules page", None, f"the rules page (the docstring of {cls.__module__}) lacks "
                                       f"the sections {'; '.join(missing)}")
    if report:
        report.add("rules page", 1)


def _observable(state: GameState) -> tuple[Any, ...]:
    """Everything a seat or a later draw could tell apart: each seat's view and pending
    events (taken, so the queues are empty after), the god log's length, the seat to act,
    its legal actions and the chance's state."""
    seats = range(state.players)
    return ([state.view(s) for s in seats], [state.take_events(s) for s in seats], len(state.god_log),
            state.current_seat(), state.legal_actions(), state.rng.getstate())


def check_illegal_actions(cls: type[Ruleset], games: Sequence[Case], *, stride: int = 7,
                          report: ConformanceReport | None = None) -> None:
    """Every `stride` decisions of a random game, illegal actions are refused with
    `IllegalActionError` and change nothing observable (`_observable`): no view, no
    event, no god log entry, not the seat to act, its legal actions or the chance; and
    the game plays on as a clone made before them does (same random moves, same god
    log: a hidden pile reordered shows there). The
    illegal actions tried: a string that is no action, and up to three actions that were
    legal earlier in the game but are not now (well-formed, so an engine that applies
    part of one before it finds it illegal is caught)."""
    name = "illegal actions"
    tried = 0
    for case in games:
        state = _new(cls, case)
        rng = _chooser(case, 4)
        seen: dict[str, None] = {}  # every action legal so far, in the order first offered
        decision = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if decision % stride == 0:
                for seat in range(case.players):
                    state.take_events(seat)  # so that any event an illegal action emits shows
                now = set(legal)
                earlier = [a for a in seen if a not in now]
                candidates = [NOT_AN_ACTION] + rng.sample(earlier, min(3, len(earlier)))
                before, twin = _observable(state), state.clone()
                for action in candidates:
                    try:
                        state.apply(action)
                    except IllegalActionError:
                        pass
                    else:
                        _fail(cls, name, case, f"the illegal action {action!r} was applied without "
                                               f"IllegalActionError", decision)
                    after = _observable(state)
                    if after != before:
                        labels = ("views", "events", "god log length", "seat to act", "legal actions", "chance")
                        what = next(label for label, a, b in zip(labels, before, after) if a != b)
                        detail = _difference(before[0], after[0], "views") if what == "views" else what
                        _fail(cls, name, case, f"the refused illegal action {action!r} changed the game "
                                               f"({detail})", decision)
                    tried += 1
                # what is not shown yet (a pile's order, say) shows in the next moves
                ahead = _god_playout(state.clone(), decision, limit=8)
                if _difference(list(ahead), list(_god_playout(twin, decision, limit=8))):
                    _fail(cls, name, case, f"refused illegal actions {candidates!r} changed how the game "
                                           f"plays on (the next moves differ from a clone's made before)", decision)
            seen.update(dict.fromkeys(legal))
            state.apply(rng.choice(legal))
            decision += 1
    if report:
        report.add(name, tried)


def option_range_cases(cls: type[Ruleset], *, seeds: int | Iterable[int] = 3, players: Iterable[int] | None = None,
                       options: Mapping[str, Any] | None = None) -> list[Case]:
    """One game for each number option (an int or float without choices, not given in
    `options`) at its minimum, its maximum and a random value between, the others at
    their defaults: a bug reachable only near a bound is played. A missing bound is
    the option's `test_range`; a number option with neither fails (ConformanceError).
    A value equal to the default is left out (every other game plays it)."""
    seed_list = list(range(seeds)) if isinstance(seeds, int) else list(seeds)
    counts = sorted(set(players)) if players is not None else \
        sorted({cls.min_players, min(cls.min_players + 1, cls.max_players), cls.max_players})
    base = dict(options or {})
    result = []
    index = 0
    for name, option in cls.options.items():
        kind = option.kind or type(option.default)
        if name in base or option.choices is not None or kind not in (int, float) or isinstance(option.default, bool):
            continue
        low, high = option.minimum, option.maximum
        if low is None or high is None:
            if option.test_range is None:
                _fail(cls, "option ranges", None, f"option {name!r} has no {'minimum' if low is None else 'maximum'}: "
                                                  f"declare the values to test, Option(..., test_range=(low, high))")
            low = option.test_range[0] if low is None else low
            high = option.test_range[1] if high is None else high
        rng = random.Random(f"conformance-range:{cls.id}:{name}")
        values: list[float]
        if kind is int:
            values = [int(low), int(high), rng.randint(int(low), int(high))]
        else:
            values = [float(low), float(high), rng.uniform(float(low), float(high))]
        for value in dict.fromkeys(v for v in values if v != option.default):
            given = {**base, name: value}
            try:
                cls.resolve_options(given)
            except Exception as error:
                _fail(cls, "option ranges", None, f"option {name!r} = {value!r}, within its declared range, "
                                                  f"is refused: {error}")
            count = counts[index % min(2, len(counts))]  # the fewer players: the bound is what is tried
            seed = seed_list[index % len(seed_list)] if seed_list else index
            result.append(Case(count, 2000 + seed, given))
            index += 1
    return result


# -- the luck capabilities: pairwise_value and permute_unrevealed (docs/luck.md) -------------


def check_luck_capabilities(cls: type[Ruleset], games: Sequence[Case], *, points: int = 6,
                            report: ConformanceReport | None = None) -> None:
    """`check_pairwise_value` and `check_unrevealed_law` (a small sample), where the ruleset
    declares what they check (optional capabilities: a ruleset without them is scored raw,
    so nothing is skipped)."""
    if cls.supports("pairwise_value") and cls.supports("permute_unrevealed"):
        check_pairwise_value(cls, games, points=min(points, 8), permutations=2, report=report)
    if cls.supports("permute_unrevealed"):
        counts = sorted({case.players for case in games})
        check_unrevealed_law(cls, players=counts[0], games=40, report=report)


def check_pairwise_value(cls: type[Ruleset], games: Sequence[Case], *, points: int = 6, permutations: int = 3,
                         report: ConformanceReport | None = None) -> None:
    """At random decision points: ``pairwise_value`` is an n x n matrix of numbers in [0, 1]
    with ``V[a][a] == 1/2`` and ``V[b][a] == 1 - V[a][b]``; it is exactly the same on clones
    whose unrevealed cards were reordered (`permute_unrevealed`, several rngs) or whose chance
    was reseeded (so it reads nothing unrevealed); reordering gives nothing away (every seat's
    view and the legal actions stay), and neither call changes the state it is given."""
    name = "pairwise value"
    value: Callable[[GameState], list[list[float]]] = getattr(cls, "pairwise_value")
    permute: Callable[[GameState, random.Random], None] = getattr(cls, "permute_unrevealed")
    compared = 0
    for case in games:
        for state, _, _, decision in _decision_points(cls, case, points):
            n = case.players
            seen = ([state.view(s) for s in range(n)], state.legal_actions(), state.rng.getstate())
            matrix = value(state)
            if ([state.view(s) for s in range(n)], state.legal_actions(), state.rng.getstate()) != seen:
                _fail(cls, name, case, "pairwise_value changed the state it was given", decision)
            if (not isinstance(matrix, list) or len(matrix) != n
                    or any(not isinstance(row, list) or len(row) != n for row in matrix)):
                _fail(cls, name, case, f"pairwise_value is not a {n} x {n} list of lists: {_short(matrix)}",
                      decision)
            for a in range(n):
                for b in range(n):
                    v = matrix[a][b]
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                        _fail(cls, name, case, f"V[{a}][{b}] = {v!r} is not a number in [0, 1]", decision)
                    if a == b and v != 0.5:
                        _fail(cls, name, case, f"V[{a}][{a}] = {v!r}, not 1/2", decision)
                    if abs(v + matrix[b][a] - 1.0) > 1e-9:
                        _fail(cls, name, case, f"V[{a}][{b}] + V[{b}][{a}] = {v + matrix[b][a]!r}, not 1",
                              decision)
            for index in range(permutations):
                twin = state.clone()
                permute(twin, random.Random(f"permute:{decision}:{index}"))
                problem = _difference([twin.view(s) for s in range(n)], seen[0], "views") or \
                    _difference(twin.legal_actions(), seen[1], "legal actions")
                if problem:
                    _fail(cls, name, case, f"permute_unrevealed gave something away: {problem}", decision)
                if value(twin) != matrix:
                    _fail(cls, name, case, "pairwise_value changed when the unrevealed cards were reordered "
                                           "(it reads what no seat knows)", decision)
                twin = state.clone()
                twin.rng = random.Random(f"reseed:{decision}:{index}")
                if value(twin) != matrix:
                    _fail(cls, name, case, "pairwise_value changed when the state's chance was reseeded",
                          decision)
                compared += 1
    if report:
        report.add(name, compared)


def _drawn(state: GameState) -> tuple[int, int]:
    """The chance count and the draw pile's size: what an action that draws changes."""
    found = state.chance_pile()
    return state.chance.points, -1 if found is None else len(found[0])


def _revealed(state: GameState) -> str:
    """What every seat knows of `state`: their views and the legal actions, as one text."""
    return json.dumps([[state.view(s) for s in range(state.players)], state.legal_actions()], sort_keys=True)


def unrevealed_law_ranks(cls: type[Ruleset], *, players: int, games: int, clones: int = 21,
                         options: Mapping[str, Any] | None = None, seed: int = 0,
                         permute: Callable[[GameState, random.Random], None] | None = None) -> list[int]:
    """Per game, the rank of what the engine really revealed among what the law reveals.

    In each random game, from a random decision on, the first random action that draws or
    reshuffles (within 200 decisions) is applied to a copy of the real state (its own chance:
    what the engine really reveals next) and to `clones` copies whose unrevealed cards were
    reordered by `permute` (default: the ruleset's) and whose chance was reseeded; each outcome is what every seat then knows (`_revealed`).
    When the real unrevealed cards are distributed as the law says, the real outcome and
    the clones' are exchangeable, so the rank of the real one's *share* (how many others
    are the same outcome) among everyone's shares, ties broken at random, is uniform on
    0..clones, whatever the action. A law that favours some outcomes gives the real one a
    low share (`_share_rank`). Points where no outcome differed are passed over (they carry
    no information). A law that copies the real order cannot be told from the truth this
    way; `check_pairwise_value` and the luck corrections' zero mean (tests/test_luck.py)
    catch what such a law does to the value."""
    permute = permute or getattr(cls, "permute_unrevealed")
    resolved = cls.resolve_options(options)
    ranks = []
    for game in range(games):
        rng = random.Random(f"unrevealed-law:{seed}:{game}")
        state = cls.new_game(players, resolved, random.Random(rng.getrandbits(63)))
        start = rng.randrange(60)   # the first action from here on that draws is the one compared
        decision = 0
        while not state.is_terminal() and decision < start + 200:
            action = rng.choice(state.legal_actions())
            if decision >= start and rng.random() < 0.5:
                real = state.clone()
                real.apply(action)
                if _drawn(real) != _drawn(state):   # it drew or reshuffled: an outcome of chance
                    mine = _revealed(real)
                    outcomes = []
                    for i in range(clones):
                        twin = state.clone()
                        permute(twin, random.Random(rng.getrandbits(63)))
                        twin.rng = random.Random(rng.getrandbits(63))
                        twin.apply(action)
                        outcomes.append(_revealed(twin))
                    if any(outcome != mine for outcome in outcomes):
                        ranks.append(_share_rank([mine, *outcomes], rng))
                        break
            state.apply(action)
            decision += 1
    return ranks


def _share_rank(outcomes: Sequence[str], rng: random.Random) -> int:
    """The rank of ``outcomes[0]``'s share among all shares (a share: how many of the other
    outcomes are equal to it), ties broken by `rng`."""
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome] = counts.get(outcome, 0) + 1
    shares = [counts[outcome] - 1 for outcome in outcomes]
    mine = shares[0]
    below = sum(1 for share in shares[1:] if share < mine)
    ties = sum(1 for share in shares[1:] if share == mine)
    return below + rng.randrange(ties + 1)


def low_rank_p_value(ranks: Sequence[int], clones: int) -> float:
    """The one-sided p-value that `ranks`, uniform on 0..clones under the law, are this low on
    average (a z-test of their mean; a law that favours some outcomes lowers it)."""
    n = len(ranks)
    if n == 0:
        return 1.0
    mean = sum(ranks) / n
    sd = math.sqrt(((clones + 1) ** 2 - 1) / 12 / n)
    return 0.5 * math.erfc(-(mean - clones / 2) / sd / math.sqrt(2))


def check_unrevealed_law(cls: type[Ruleset], *, players: int, games: int = 300, clones: int = 21,
                         alpha: float = 1e-3, options: Mapping[str, Any] | None = None,
                         report: ConformanceReport | None = None) -> None:
    """Over `games` random games, what the engine really reveals next is distributed as
    `permute_unrevealed`'s law says: the ranks of `unrevealed_law_ranks` are not too low at
    level `alpha` (`low_rank_p_value`; a statistical check: a correct law fails it with
    probability `alpha`; the seeds are fixed, so a given ruleset passes or fails every time).
    A law favouring one card 30% of the time is caught at 300 games (tests/test_luck.py)."""
    name = "unrevealed law"
    ranks = unrevealed_law_ranks(cls, players=players, games=games, clones=clones, options=options)
    # no rank at all: no action of these games let the unrevealed cards decide what was seen
    # (a game whose draws seldom reach them); nothing to test, nothing failed
    p = low_rank_p_value(ranks, clones)
    if p < alpha:
        _fail(cls, name, None, f"what the engine reveals is not distributed as permute_unrevealed says "
                               f"(the real outcomes are rarer than the law's: p = {p:.2g} over "
                               f"{len(ranks)} games)")
    if report:
        report.add(name, len(ranks))
