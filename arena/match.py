"""Playing one game: the decision loop between a rules engine and its bots.

`play_game` asks the rules whose decision it is, builds that seat's observation
(fresh plain data), asks that seat's bot, checks the answer is legal, applies it
and records it. It returns a game record (plain JSON data, `RECORD_FORMAT`);
`replay(record)` plays a record again and checks its transcript hash.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from arena.bot import Bot
from arena.errors import BotError, ConfigError, IllegalActionError, ReplayMismatchError
from arena.rules.base import GameState, Ruleset, plain_copy
from arena.seeding import bot_seed

RECORD_FORMAT = 1


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

    def record(self) -> dict[str, Any]:
        return {"bot": self.cls.name, "display": self.display_name, "package": self.package,
                "version": self.version, "params": plain_copy(dict(self.params))}


@dataclass
class GameResult:
    """A finished game: its record, and the final engine state (for logs and tests)."""

    record: dict[str, Any]
    state: GameState


def play_game(ruleset: type[Ruleset], entrants: Sequence[Entrant], deal_seed: int,
              options: Mapping[str, Any] | None = None, bot_seeds: Sequence[int] | None = None,
              ask_forced: bool = False) -> GameResult:
    """Play one game of `ruleset` with one entrant per seat, dealt from `deal_seed`.

    Each seat gets a fresh ``cls(**params)`` with ``rng`` seeded from
    `bot_seeds` (default: derived from the deal seed and the seat). When only one
    action is legal the bot is not asked (unless `ask_forced`); it still receives
    the events at its next decision. Raises IllegalActionError for an answer that
    is not legal, BotError for a bot that raises.
    """
    players = len(entrants)
    ruleset.check_players(players)
    resolved = ruleset.resolve_options(options)
    seeds = list(bot_seeds) if bot_seeds is not None else [bot_seed(deal_seed, s) for s in range(players)]
    names = [e.display_name for e in entrants]
    bots = [_make_bot(e, seed, s) for s, (e, seed) in enumerate(zip(entrants, seeds))]

    for seat, bot in enumerate(bots):
        info = {"ruleset": ruleset.id, "version": ruleset.version, "options": plain_copy(resolved),
                "seat": seat, "players": players, "bots": list(names)}
        _call_bot(bot, "start", info, names[seat], seat)

    state = ruleset.new_game(players, resolved, random.Random(deal_seed))
    decisions: list[list[Any]] = []
    while (seat := state.current_seat()) is not None:
        legal = state.legal_actions()
        if len(legal) == 1 and not ask_forced:
            action = legal[0]
        else:
            observation = {
                "ruleset": ruleset.id, "version": ruleset.version, "options": plain_copy(resolved),
                "seat": seat, "players": players, "view": state.view(seat),
                "events": state.take_events(seat), "legal_actions": list(legal),
            }
            action = _call_bot(bots[seat], "act", observation, names[seat], seat)
            if not isinstance(action, str) or action not in legal:
                raise IllegalActionError(
                    f"bot {names[seat]!r} (seat {seat}) answered {action!r} at decision "
                    f"{len(decisions)}, which is not among its {len(legal)} legal actions")
        state.apply(action)
        decisions.append([seat, action])

    outcome = state.outcome()
    for seat, bot in enumerate(bots):
        _call_bot(bot, "end", plain_copy(outcome), names[seat], seat)

    record = {
        "format": RECORD_FORMAT,
        "ruleset": {"id": ruleset.id, "version": ruleset.version, "options": plain_copy(resolved)},
        "players": players,
        "deal_seed": deal_seed,
        "bot_seeds": seeds,
        "seats": [e.record() for e in entrants],
        "decisions": decisions,
        "outcome": plain_copy(outcome),
    }
    record["transcript_hash"] = transcript_hash(record)
    return GameResult(record, state)


def transcript_hash(record: Mapping[str, Any]) -> str:
    """SHA-256 over what makes a game: ruleset, version, options, players, deal
    seed, every decision and the outcome (not who the bots were)."""
    essence = {key: record[key] for key in ("players", "deal_seed", "decisions", "outcome")}
    essence["ruleset"] = record["ruleset"]
    text = json.dumps(essence, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def replay(record: Mapping[str, Any], ruleset: type[Ruleset]) -> GameState:
    """Play `record` again on `ruleset` and return the final state.

    Raises ReplayMismatchError if the record is for another ruleset version, if a
    decision is not legal or not the recorded seat's, or if the replayed game's
    transcript hash differs from the recorded one.
    """
    meta = record["ruleset"]
    if meta["id"] != ruleset.id or meta["version"] != ruleset.version:
        raise ReplayMismatchError(
            f"record is for {meta['id']} {meta['version']}, not {ruleset.id} {ruleset.version}")
    state = ruleset.new_game(record["players"], meta["options"], random.Random(record["deal_seed"]))
    for index, (seat, action) in enumerate(record["decisions"]):
        if state.current_seat() != seat:
            raise ReplayMismatchError(
                f"decision {index}: the record has seat {seat}, the game asks seat {state.current_seat()}")
        if action not in state.legal_actions():
            raise ReplayMismatchError(f"decision {index}: {action!r} is not legal in the replayed game")
        state.apply(action)
    if not state.is_terminal():
        raise ReplayMismatchError("the record ends before the game does")
    replayed = dict(record, outcome=plain_copy(state.outcome()))
    if transcript_hash(replayed) != record["transcript_hash"]:
        raise ReplayMismatchError("the replayed game's transcript hash differs from the record's")
    return state


def _make_bot(entrant: Entrant, seed: int, seat: int) -> Bot:
    try:
        bot = entrant.cls(**entrant.params)
    except TypeError as exc:  # the params do not fit the constructor: a configuration mistake
        raise ConfigError(f"bot {entrant.display_name!r} does not accept params {dict(entrant.params)!r}: {exc}") from exc
    except Exception as exc:
        raise BotError(f"bot {entrant.display_name!r} (seat {seat}) could not be created with params "
                       f"{dict(entrant.params)!r}: {type(exc).__name__}: {exc}") from exc
    bot.rng = random.Random(seed)
    return bot


def _call_bot(bot: Bot, method: str, argument: Any, name: str, seat: int) -> Any:
    try:
        return getattr(bot, method)(argument)
    except Exception as exc:
        raise BotError(f"bot {name!r} (seat {seat}) raised in {method}(): {type(exc).__name__}: {exc}") from exc
