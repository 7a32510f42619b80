"""Playing one game: the decision loop between a rules engine and its bots.

`play_game` asks the rules whose decision it is, builds that seat's observation
(fresh plain data), asks that seat's bot, checks the answer is legal, applies it
and records it. It returns a game record (plain JSON data, `RECORD_FORMAT`);
`replay(record)` plays a record again and checks its transcript hash.

Faults (a bot that raises, hangs, dies, answers garbage or an illegal action) are
handled by a `FaultPolicy` (`arena.records.OnFault`): "raise" (the default, for
`arena match` and tests) stops with an error; "random" records the fault and plays a
replacement action drawn from an RNG derived from the deal seed and the decision
number, so the record replays exactly; "forfeit" does the same for the rest of the
game and ranks the seat last. A seat whose host died (crash, timeout) is not asked again
in that game: its remaining decisions are replacement actions.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from arena.bot import Bot
from arena.errors import ConfigError, IllegalActionError, ReplayMismatchError
from arena.records import (RECORD_FORMAT, Fault, FaultKind, GameRecord, OnFault, RulesetRef, SeatRecord, check_outcome,
                           on_fault_problem, record_problem)
from arena.rules.base import GameState, Ruleset, forfeit_standing, fresh_copy, plain_copy
from arena.rules.observation import Observation, make_observation
from arena.seats import BotFault, BotHost, InlineHost, pending_stops, settle_stops
from arena.seeding import bot_seed, derive_seed

__all__ = ["Entrant", "FaultPolicy", "GameResult", "play_game", "replay", "replay_checked", "replacement_action",
           "transcript_hash", "record_problem", "RECORD_FORMAT"]


@dataclass(frozen=True)
class Entrant:
    """A bot taking a seat: its class, its params, and how records name it."""

    cls: type[Bot]
    params: Mapping[str, Any] = field(default_factory=dict)
    display: str = ""
    package: str = "?"
    version: str = "?"

    @property
    def display_name(self) -> str:
        return self.display or self.cls.name

    def record(self) -> SeatRecord:
        """Who sits in the seat, as a game record keeps it."""
        return SeatRecord(bot=self.cls.name, display=self.display_name, package=self.package,
                          version=self.version, params=plain_copy(dict(self.params)))


@dataclass(frozen=True)
class FaultPolicy:
    """What the match does when a bot misbehaves, and its time limits."""

    on_fault: OnFault | str = OnFault.RAISE
    """An `OnFault` (its value, a string, is converted: an OnFault after construction)."""
    time_per_decision: float | None = None
    """Seconds per decision (None: no limit); enforced by process hosts."""
    time_bank: float = 0.0
    """Extra seconds per game that slow decisions draw on."""

    def __post_init__(self) -> None:
        if problem := on_fault_problem(self.on_fault):
            raise ConfigError(f"on_fault {problem}")
        object.__setattr__(self, "on_fault", OnFault(self.on_fault))


@dataclass
class GameResult:
    """A finished game: its record, the final engine state, and each seat's log."""

    record: dict[str, Any]
    state: GameState
    logs: list[str] = field(default_factory=list)


def play_game(ruleset: type[Ruleset], entrants: Sequence[Entrant], deal_seed: int,
              options: Mapping[str, Any] | None = None, bot_seeds: Sequence[int] | None = None,
              ask_forced: bool = False, hosts: Sequence[BotHost] | None = None,
              policy: FaultPolicy = FaultPolicy()) -> GameResult:
    """Play one game of `ruleset` with one entrant per seat, dealt from `deal_seed`.

    Each seat's bot is a fresh ``cls(**params)`` with ``rng`` seeded from
    `bot_seeds` (default: derived from the deal seed and the seat), run by
    `hosts` (default: in-process). When only one action is legal the bot is not
    asked (unless `ask_forced`); it still receives the events at its next
    decision.
    """
    players = len(entrants)
    ruleset.check_players(players)
    resolved = ruleset.resolve_options(options)
    seeds = list(bot_seeds) if bot_seeds is not None else [bot_seed(deal_seed, s) for s in range(players)]
    names = [e.display_name for e in entrants]
    hosts = list(hosts) if hosts is not None else [InlineHost(e.cls) for e in entrants]
    seats = _Seats(names, policy)
    for starting, host in enumerate(hosts):
        info = {"ruleset": ruleset.id, "version": ruleset.version, "options": fresh_copy(resolved),
                "seat": starting, "players": players, "bots": list(names)}
        try:
            host.start_game(seeds[starting], plain_copy(dict(entrants[starting].params)), info)
        except BotFault as error:
            seats.fault(starting, None, error)

    state = ruleset.new_game(players, resolved, random.Random(deal_seed))
    decisions = _decisions(ruleset, state, hosts, resolved, deal_seed, ask_forced, seats)
    outcome, typed_outcome = _outcome(ruleset, state, players, seats.forfeited)
    logs = []
    for seat, host in enumerate(hosts):
        if not seats.silenced[seat]:
            try:
                host.end_game(plain_copy(outcome))
            except BotFault as error:
                seats.fault(seat, None, error, game_over=True)
        logs.append(host.take_log())

    record = GameRecord(
        format=RECORD_FORMAT,
        ruleset=RulesetRef(id=ruleset.id, version=ruleset.version, options=resolved),
        players=players,
        deal_seed=deal_seed,
        bot_seeds=seeds,
        seats=[e.record() for e in entrants],
        decisions=decisions,
        outcome=typed_outcome,
        faults=list(seats.faults),
        forfeited=seats.forfeited,
        transcript_hash="",  # set below, from the plain record
    ).plain(outcome)
    record["transcript_hash"] = transcript_hash(record)
    return GameResult(record, state, logs)


class _Seats:
    """A game's faults under its policy: which seats are silenced (not asked again this
    game), forfeited, and what is left of their time banks."""

    def __init__(self, names: list[str], policy: FaultPolicy):
        self.names, self.policy = names, policy
        self.faults: list[Fault] = []
        self.silenced = [False] * len(names)
        self.forfeited: list[int] = []
        self.bank = [policy.time_bank] * len(names)

    def fault(self, seat: int, decision: int | None, error: BotFault, game_over: bool = False) -> None:
        """Apply the policy to a fault; once the game is over (in `end`) it is only recorded,
        since the outcome is already settled."""
        policy, names = self.policy, self.names
        if policy.on_fault is OnFault.RAISE:
            if error.kind is FaultKind.ILLEGAL:
                raise IllegalActionError(f"bot {names[seat]!r} (seat {seat}) {error}") from None
            raise type(error)(error.kind, f"bot {names[seat]!r} (seat {seat}) {error}", error.fatal) from error
        self.faults.append(Fault(seat, decision, error.kind, str(error)[:500], fatal=error.fatal and not game_over))
        if game_over:
            return
        if error.fatal or policy.on_fault is OnFault.FORFEIT:
            self.silenced[seat] = True
        if policy.on_fault is OnFault.FORFEIT and seat not in self.forfeited:
            self.forfeited.append(seat)


def _decisions(ruleset: type[Ruleset], state: GameState, hosts: list[BotHost], resolved: dict[str, Any],
               deal_seed: int, ask_forced: bool, seats: _Seats) -> list[tuple[int, str]]:
    """Play `state` to its end, asking the seats' hosts; the decisions (seat, action)."""
    # The options are public and fixed for the game. Each seat gets its own deep copy once
    # a game, and a new top-level dict per observation: what a bot does to its copy (a
    # 112-card deck, say) reaches no other seat and no engine state, and no decision pays
    # to copy a deck again. A host that only serialises observations shares one snapshot.
    snapshot = fresh_copy(resolved)
    options_for = [fresh_copy(resolved).copy if host.hands_over_objects else (lambda: snapshot) for host in hosts]
    current_seat, legal_actions, apply = state.current_seat, state.legal_actions, state.apply
    silenced, policy, bank = seats.silenced, seats.policy, seats.bank
    decisions: list[tuple[int, str]] = []
    while (seat := current_seat()) is not None:
        legal = legal_actions()
        if len(legal) == 1 and not ask_forced:
            action = legal[0]
        elif silenced[seat]:
            action = replacement_action(deal_seed, len(decisions), legal)
        else:
            observation = make_observation(ruleset, state, seat, options=options_for[seat](), legal_actions=legal)
            answer = _ask(hosts[seat], observation, legal, policy, bank, seat, len(decisions))
            if isinstance(answer, BotFault):
                seats.fault(seat, len(decisions), answer)
                action = replacement_action(deal_seed, len(decisions), legal)
            else:
                action = answer
        apply(action)
        decisions.append((seat, action))
    return decisions


def _outcome(ruleset: type[Ruleset], state: GameState, players: int, forfeited: list[int]) -> tuple[Any, Any]:
    """The game's outcome (plain, with the forfeits applied to its standing) and its typed form."""
    outcome = state.outcome()
    try:
        typed_outcome = check_outcome(outcome, players)
    except ValueError as exc:
        raise ConfigError(f"ruleset {ruleset.id!r} ended a game with a malformed outcome ({exc})") from None
    if forfeited:
        outcome = dict(outcome, standing=forfeit_standing(outcome["standing"], forfeited))
        typed_outcome.standing = outcome["standing"]
    return outcome, typed_outcome


def _ask(host: BotHost, observation: Observation, legal: list[str], policy: FaultPolicy,
         bank: list[float], seat: int, decision: int) -> str | BotFault:
    """The bot's legal answer, or the fault it committed."""
    per_decision = policy.time_per_decision
    if pending_stops:  # the other bots' stops verified before this decision's clock starts
        settle_stops(host)
    try:
        if per_decision is None:
            action = host.act(observation, None)
        else:
            started = time.monotonic()
            action = host.act(observation, per_decision + bank[seat])
            bank[seat] -= max(0.0, time.monotonic() - started - per_decision)
    except BotFault as error:
        return error
    if not isinstance(action, str) or action not in legal:
        return BotFault(FaultKind.ILLEGAL, f"answered {action!r} at decision {decision + 1}, "
                                   f"which is not among its {len(legal)} legal actions")
    return action




def replacement_action(deal_seed: int, decision: int, legal: Sequence[str]) -> str:
    """The action played for a faulty or silenced bot: uniform over `legal`, from
    an RNG derived from the deal seed and the decision number."""
    return random.Random(derive_seed(deal_seed, "fault", decision)).choice(list(legal))


def transcript_hash(record: Mapping[str, Any]) -> str:
    """SHA-256 over what makes a game: ruleset, version, options, players, deal
    seed, every decision and the outcome (not who the bots were)."""
    essence = {key: record[key] for key in ("players", "deal_seed", "decisions", "outcome")}
    essence["ruleset"] = record["ruleset"]
    text = json.dumps(essence, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def replay(record: Mapping[str, Any], ruleset: type[Ruleset]) -> GameState:
    """Play `record` again on `ruleset` and return the final state.

    Raises ConfigError if `record` is not a game record (`record_problem`) or its
    players or options are not the ruleset's, ReplayMismatchError if the record is for
    another ruleset version, if a decision is not legal or not the recorded seat's, or
    if the replayed game's transcript hash differs from the recorded one.
    """
    problem = record_problem(record)
    if problem:
        raise ConfigError(f"not a game record: {problem}")
    meta = record["ruleset"]
    if meta["id"] != ruleset.id or meta["version"] != ruleset.version:
        raise ReplayMismatchError(
            f"record is for {meta['id']} {meta['version']}, not {ruleset.id} {ruleset.version}")
    ruleset.check_players(record["players"])
    if ruleset.resolve_options(meta["options"]) != meta["options"]:
        raise ReplayMismatchError("the record's options are not every option of the ruleset")
    return _played_again(record, ruleset)


def replay_checked(record: Mapping[str, Any], ruleset: type[Ruleset]) -> GameState:
    """`replay` of a record whose header its caller has checked already: its form
    (`record_problem` found nothing), its ruleset id and version (`ruleset`'s) and its options
    (equal to a `ruleset.resolve_options` result). The players, the decisions, the outcome and
    the transcript hash are checked as `replay` checks them (hashed once). A ladder checks
    every returned record's header against its task first; this spares it doing so twice."""
    ruleset.check_players(record["players"])
    return _played_again(record, ruleset)


def _played_again(record: Mapping[str, Any], ruleset: type[Ruleset]) -> GameState:
    """`replay` once the record's header is checked: its decisions played, its outcome and
    transcript hash compared (ReplayMismatchError)."""
    meta = record["ruleset"]
    state = ruleset.new_game(record["players"], meta["options"], random.Random(record["deal_seed"]))
    for index, (seat, action) in enumerate(record["decisions"]):
        if state.current_seat() != seat:
            raise ReplayMismatchError(
                f"decision {index + 1}: the record has seat {seat}, the game asks seat {state.current_seat()}")
        if action not in state.legal_actions():
            raise ReplayMismatchError(f"decision {index + 1}: {action!r} is not legal in the replayed game")
        state.apply(action)
    if not state.is_terminal():
        raise ReplayMismatchError("the record ends before the game does")
    outcome = state.outcome()
    if record.get("forfeited"):
        outcome = dict(outcome, standing=forfeit_standing(outcome["standing"], record["forfeited"]))
    if plain_copy(outcome) != record["outcome"]:
        raise ReplayMismatchError("the replayed game's outcome differs from the record's")
    if transcript_hash(record) != record["transcript_hash"]:
        raise ReplayMismatchError("the record's transcript hash does not match its contents")
    return state
