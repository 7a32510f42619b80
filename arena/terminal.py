"""People at the table: `arena play` (a person takes a seat against bots) and the
step-by-step printer behind `arena replay`.

The person's seat is a `HumanHost`: a `BotHost` that prints the seat's observation
(through `arena.render`, which sees nothing but the observation) and reads a
choice: a number, or ``q`` to quit (which raises `QuitGame` out of `play_game`).
Bad input asks again; the end of input quits.

`replay_lines` re-creates a recorded game from its deal seed with the ruleset
engine and applies its decisions one by one, printing either what one seat saw at
each of its decisions (its events, its view, its legal actions and the one taken)
or, with no seat, the god view (every event as the all-seeing observer saw it, and
each action).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import arena
from arena.bot import Bot
from arena.decisions import decision_notes
from arena.errors import ConfigError
from arena.match import Entrant, FaultPolicy, GameResult, play_game, record_problem
from arena.render import Renderer, Style, fit, frame, renderer_for, seat_names
from arena.rules.base import Ruleset
from arena.seats import BotHost, InlineHost


class QuitGame(Exception):
    """The person at the table asked to leave (``q``, or the end of input)."""


class HumanBot(Bot):
    """Stands for the person in the game record (never asked: `HumanHost` answers)."""

    name = "human"
    rulesets = "*"

    def act(self, observation: dict[str, Any]) -> str:  # pragma: no cover - never called
        raise RuntimeError("a human seat is answered by HumanHost")


class HumanHost(BotHost):
    """A seat played by a person at a terminal.

    `read_line()` returns the next line typed ("" at the end of input); `write(text)`
    prints one line, `write(text, nl=False)` a prompt (like `click.echo`). `names`
    are the seats' display names by seat.
    """

    def __init__(self, read_line: Callable[[], str], write: Callable[..., None], style: Style,
                 names: Sequence[str] = ()):
        self.read_line = read_line
        self.write = write
        self.style = style
        self.names = list(names)
        self.renderer: Renderer | None = None
        self.decisions = 0

    def start_game(self, seed: int, params: dict[str, Any], info: dict[str, Any]) -> None:
        seat, players = info["seat"], info["players"]
        names = self.names or seat_names(info.get("bots", [f"bot {i}" for i in range(players)]), seat)
        self.renderer = renderer_for(info["ruleset"], self.style, names, seat, players)
        self.decisions = 0
        for line in fit(self.renderer.legend()):
            self.write(line)

    def act(self, observation: dict[str, Any], timeout: float | None) -> str:
        assert self.renderer is not None, "start_game first"
        self.decisions += 1
        self.write("")
        for line in frame(self.renderer, observation, self.decisions):
            self.write(line)
        return self.choose(observation["legal_actions"])

    def choose(self, legal: Sequence[str]) -> str:
        """Read a choice until it is a number of `legal` (or q)."""
        while True:
            self.write_prompt(f"Choose 1-{len(legal)} (q to quit): ")
            line = self.read_line()
            if line == "":
                self.write("")
                raise QuitGame("end of input")
            answer = line.strip().lower()
            if answer in ("q", "quit", "exit"):
                raise QuitGame("quit")
            if answer.isdigit() and 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            if answer in legal:  # the action string itself is fine too
                return answer
            self.write(f"Please type a number from 1 to {len(legal)}, or q to quit.")

    def write_prompt(self, text: str) -> None:
        self.write(text, nl=False)

    def end_game(self, outcome: dict[str, Any]) -> None:
        pass


def play_human(ruleset: type[Ruleset], bots: Sequence[Entrant], seat: int, seed: int,
               options: Mapping[str, Any] | None, read_line: Callable[[], str],
               write: Callable[..., None], style: Style,
               hosts: Sequence[BotHost] | None = None) -> GameResult:
    """Play one game with a person in `seat` and `bots` in the other seats, in order,
    run by `hosts` (one per bot, in the same order; default: in this process).

    Prints the person's frames, then what happened after their last decision, the
    final view and the standing. Raises QuitGame if the person leaves.
    """
    players = len(bots) + 1
    ruleset.check_players(players)
    if not 0 <= seat < players:
        raise ConfigError(f"--seat must be 0 to {players - 1} for {players} players, not {seat}")
    entrants = list(bots)
    entrants.insert(seat, Entrant(HumanBot, {}, "human", "arena", arena.__version__))
    names = seat_names([e.display_name for e in entrants], seat)
    human = HumanHost(read_line, write, style, names)
    bot_hosts = list(hosts) if hosts is not None else [InlineHost(e.cls) for e in bots]
    seated: list[BotHost] = bot_hosts[:seat] + [human] + bot_hosts[seat:]
    result = play_game(ruleset, entrants, deal_seed=seed, options=options, hosts=seated,
                       policy=FaultPolicy("raise"))
    renderer = renderer_for(ruleset.id, style, names, seat, players)
    state = result.state
    write("")
    lines = [style.bold(f"== {ruleset.id} · the end · {names[seat]} ==")]
    events = state.take_events(seat)
    if events:
        lines.append("What happened:")
        lines.extend("  " + renderer.safe_event(e) for e in events)
    lines.extend(renderer.safe_view(state.view(seat)))
    lines.extend(renderer.outcome(result.record["outcome"]))
    for line in fit(lines):
        write(line)
    return result


# -- replays --------------------------------------------------------------------


def load_record(source: str | Path, game_id: str | None = None) -> dict[str, Any]:
    """A game record from a record file (`arena match --save`) or from a results
    folder (its `games.sqlite` store) and a game id (the game's schedule index)."""
    import json

    path = Path(source)
    if path.is_dir():
        if game_id is None:
            raise ConfigError(f"{path} is a results folder: name a GAME_ID too")
        from arena.store import Store, store_path

        try:
            index = int(game_id)
        except ValueError:
            raise ConfigError(f"GAME_ID must be a game number, not {game_id!r}") from None
        with Store.open(store_path(path)) as store:
            record = store.record(index)
        if record is None:
            raise ConfigError(f"{path}: no game {index} in its results store")
        problem = record_problem(record)
        if problem:
            raise ConfigError(f"{path}: game {index}: not a game record: {problem}")
        return record
    if not path.is_file():
        raise ConfigError(f"{path}: no such record file or results folder")
    if game_id is not None:
        raise ConfigError(f"{path} is a record file: it holds one game, so give no GAME_ID")
    try:
        record = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ConfigError(f"{path}: not a game record ({type(exc).__name__}: {str(exc)[:100]})") from None
    problem = record_problem(record)
    if problem:
        raise ConfigError(f"{path}: not a game record: {problem}")
    return record


def replay_lines(record: Mapping[str, Any], ruleset: type[Ruleset], seat: int | None, style: Style) -> Iterator[str]:
    """The lines of a recorded game, re-played decision by decision.

    With `seat`: a frame for each of that seat's decisions (what it saw: its events
    since its previous decision, its view, its legal actions, the one it took), then
    its final events and view. Without: the god view, every event of the god log and
    every action. Both end with the standing. Decisions are numbered from 1; a fault
    and a replacement action get a line starting with ``!``
    (`arena.decisions.decision_notes`). The record is assumed to have been checked
    (`arena.match.replay`).
    """
    players = record["players"]
    if seat is not None and not 0 <= seat < players:
        raise ConfigError(f"--seat must be 0 to {players - 1} for this {players}-player game, not {seat}")
    displays = [s.get("display", s.get("bot", "?")) for s in record.get("seats", [])] or ["?"] * players
    faulted = {f.get("decision") for f in record.get("faults") or [] if isinstance(f, dict)}
    names = [f"seat {i} ({name})" for i, name in enumerate(displays)]
    renderer = renderer_for(ruleset.id, style, names, seat, players)
    renderer.you = False
    actor = renderer_for(ruleset.id, style, names, None, players)
    options = record["ruleset"]["options"]
    state = ruleset.new_game(players, options, random.Random(record["deal_seed"]))
    seen = f"as seen by {names[seat]}" if seat is not None else "god view"
    yield from fit([style.bold(f"== {ruleset.id} {ruleset.version} · seed {record['deal_seed']} · {seen} · "
                               + ", ".join(names) + " ==")] + (renderer.legend() if seat is not None else []))
    logged = 0
    notes = decision_notes(record)
    for number, (acting, action) in enumerate(record["decisions"], 1):
        note = notes.get(number - 1) if len(state.legal_actions()) > 1 or number - 1 in faulted else None
        mark = [style.bold(f"   ! {note}")] if note else []
        if seat is None:
            lines = [ruleset.describe_event(e) for e in state.god_log[logged:]]
            logged = len(state.god_log)
            actor.seat = acting
            lines.append(style.bold(f"{number}. {names[acting]}: ")
                         + f"{actor.safe_action(action, state.view(acting))}  {style.dim('(' + action + ')')}")
            yield from fit(lines + mark)
        elif acting == seat:
            observation = {"ruleset": ruleset.id, "seat": seat, "view": state.view(seat),
                           "events": state.take_events(seat), "legal_actions": state.legal_actions()}
            yield ""
            yield from frame(renderer, observation, number, chosen=action)
            played = "played" if note else "chose"
            yield from fit([f"→ {names[seat]} {played}: {renderer.safe_action(action, observation['view'])}  ({action})"]
                           + mark)
        state.apply(action)
    lines: list[str] = []
    if seat is None:
        lines.extend(ruleset.describe_event(e) for e in state.god_log[logged:])
    else:
        lines.append("")
        lines.append(style.bold(f"== the end · as seen by {names[seat]} =="))
        events = state.take_events(seat)
        if events:
            lines.append("What happened:")
            lines.extend("  " + renderer.safe_event(e) for e in events)
        lines.extend(renderer.safe_view(state.view(seat)))
    lines.extend(renderer.outcome(record["outcome"]))
    yield from fit(lines)


def god_lines(result: GameResult, ruleset: type[Ruleset], style: Style) -> Iterator[str]:
    """The god view of a game just played (its record, re-played)."""
    return replay_lines(result.record, ruleset, None, style)
