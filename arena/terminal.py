"""People at the table: `arena play` (a person takes a seat against bots) and the
step-by-step printer behind `arena replay`.

The person's seat is a `HumanHost`: a `BotHost` that prints the seat's observation
(through `arena.render`, which sees nothing but the observation) and reads a
choice: a number, or ``q`` to quit (which raises `QuitGame` out of `play_game`); ``?``
prints the ruleset's rules (`rules_summary`) and the decision again; more than
`MAX_LISTED` choices are shown by kind (Color Flush's first turn has 44), a kind's
choices listed when asked. Bad input asks again; the end of input quits.

`replay_lines` re-creates a recorded game from its deal seed with the ruleset
engine and applies its decisions one by one, printing either what one seat saw at
each of its decisions (its events, its view, its legal actions and the one taken)
or, with no seat, the god view (every event as the all-seeing observer saw it, and
each action).
"""

from __future__ import annotations

import inspect
import random
import re
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import arena
from arena.bot import Bot
from arena.decisions import decision_notes
from arena.errors import ConfigError
from arena.records import OnFault
from arena.match import Entrant, FaultPolicy, GameResult, play_game, record_problem
from arena.render import Renderer, Style, fit, frame, renderer_for, seat_names
from arena.rules.base import Ruleset
from arena.rules.observation import Observation, make_observation
from arena.seats import BotHost, InlineHost


MAX_LISTED = 20
"""More legal actions than this are shown by kind, and a kind's list page by page."""


def choice_groups(legal: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The legal actions by kind (the grammar's first word, before ``:``), kinds in
    order of first appearance, actions in their order within a kind. Grouped choices
    are numbered in this order (place 1-7, give 8-21, ...)."""
    groups: dict[str, list[str]] = {}
    for action in legal:
        groups.setdefault(action.split(":", 1)[0].lower(), []).append(action)
    return list(groups.items())


def decision_frame(renderer: Renderer, observation: Mapping[str, Any], number: int) -> list[str]:
    """What a person is shown at a decision: `arena.render.frame`, with more than
    `MAX_LISTED` choices shown by kind (numbered in `choice_groups` order)."""
    legal = observation["legal_actions"]
    if len(legal) <= MAX_LISTED:
        return frame(renderer, observation, number)
    lines = [f"  {len(legal)} choices, by kind: type a kind to list its choices, or a number to choose"]
    first = 1
    for kind, actions in choice_groups(legal):
        last = first + len(actions) - 1
        span = f"{first}-{last}" if last > first else str(first)
        lines.append(f"    {kind}: {len(actions)} choice{'s' if last > first else ''} ({span})")
        first = last + 1
    return frame(renderer, dict(observation, legal_actions=[]), number) + fit(lines)


FOR_AUTHORS = ("action grammar", "view fields", "event types", "decisions and action", "decisions where", "options",
               "version", "who sees", "what is where")
"""How the rules pages' sections for bot authors begin (lowercased)."""


SENTENCES_PER_SECTION = 2
"""Sentences of each play section `rules_summary` shows where a ruleset has no "How to play"."""


def rules_summary(ruleset_id: str, full: bool = False) -> list[str]:
    """The rules of `ruleset_id` for a person at the table (``?``): the ruleset's
    player-facing "How to play" (``Ruleset.how_to_play()``, where its page has one), else its rules
    page's opening and the first sentences of each section about play (those for bot
    authors, the action grammar, the view and event fields, options, rulings and
    versions left out). `full` (``??``): the whole rules page."""
    from arena.plugins import load_registry
    from arena.reference import docstring_sections, ruleset_doc

    entry = load_registry().rulesets.get(ruleset_id)
    if entry is None:
        return [f"(no rules page: ruleset {ruleset_id!r} is not installed)"]
    if full:
        return ["", f"== the whole rules page of {ruleset_id} ==",
                *inspect.cleandoc(ruleset_doc(entry.cls)).splitlines(), "== end of the rules =="]
    text = entry.cls.how_to_play()
    if text:
        return ["", f"== how to play {ruleset_id} (?? for the whole rules page) ==", *text.strip("\n").splitlines(),
                "== end of the rules =="]
    intro, sections = docstring_sections(ruleset_doc(entry.cls))
    lines = ["", f"== rules of {ruleset_id}, in short (?? for the whole page) ==",
             " ".join(intro.split("\n\n")[0].split())]
    for section in sections:
        if section.heading.lower().startswith(FOR_AUTHORS):
            continue
        lines += ["", section.heading, _first_sentences(section.body, SENTENCES_PER_SECTION)]
    return lines + ["== end of the rules =="]


def _first_sentences(text: str, count: int) -> str:
    """The first `count` sentences of `text` (its first paragraph), on one line."""
    paragraph = " ".join(text.strip("\n").split("\n\n")[0].split())
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"`])", paragraph)
    return " ".join(parts[:count])


class QuitGame(Exception):
    """The person at the table asked to leave (``q``, or the end of input)."""


class HumanBot(Bot):
    """Stands for the person in the game record (never asked: `HumanHost` answers)."""

    name = "human"
    rulesets = "*"

    def act(self, observation: Observation) -> str:  # pragma: no cover - never called
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
        self.ruleset = ""
        self.decisions = 0

    def start_game(self, seed: int, params: dict[str, Any], info: dict[str, Any]) -> None:
        seat, players = info["seat"], info["players"]
        names = self.names or seat_names(info.get("bots", [f"bot {i}" for i in range(players)]), seat)
        self.renderer = renderer_for(info["ruleset"], self.style, names, seat, players)
        self.ruleset = info["ruleset"]
        self.decisions = 0
        for line in fit(self.renderer.legend()):
            self.write(line)

    def act(self, observation: Observation, timeout: float | None) -> str:
        assert self.renderer is not None, "start_game first"
        self.decisions += 1
        self.show(observation)
        return self.choose(observation["legal_actions"], observation)

    def show(self, observation: Mapping[str, Any]) -> None:
        """The frame of a decision; more than `MAX_LISTED` choices are shown by kind
        (`choice_groups`), so that the table stays on screen."""
        assert self.renderer is not None, "start_game first"
        self.write("")
        for line in decision_frame(self.renderer, observation, self.decisions):
            self.write(line)

    def list_lines(self, numbered: Sequence[tuple[int, str]], width: int, view: Mapping[str, Any]) -> list[str]:
        assert self.renderer is not None
        return [f"  {n:>{width}}. {self.renderer.safe_action(action, view)}  {self.style.dim('(' + action + ')')}"
                for n, action in numbered]

    def choose(self, legal: Sequence[str], observation: Mapping[str, Any] | None = None) -> str:
        """Read a choice until it is a number of `legal` (or the action itself); q quits,
        ? shows the rules in short and ?? the whole rules page (then the decision again), and where the choices are
        grouped, a kind lists its choices (``+`` the next page of a long kind)."""
        grouped = choice_groups(legal) if len(legal) > MAX_LISTED else []
        shown = [action for _, actions in grouped for action in actions] or list(legal)  # numbered as shown
        groups: dict[str, list[tuple[int, str]]] = {}
        for kind, actions in grouped:
            groups[kind] = [(shown.index(action) + 1, action) for action in actions]
        view = (observation or {}).get("view", {})
        width = len(str(len(legal)))
        pending: list[tuple[int, str]] = []  # the rest of a kind being listed, page by page
        while True:
            extra = ", a kind to list it" if groups else ""
            more = ", + for more" if pending else ""
            self.write_prompt(f"Choose 1-{len(legal)}{extra}{more} (? rules, q to quit): ")
            line = self.read_line()
            if line == "":
                self.write("")
                raise QuitGame("end of input")
            answer = line.strip().lower()
            if answer in ("q", "quit", "exit"):
                raise QuitGame("quit")
            if answer.isdigit() and 1 <= int(answer) <= len(shown):
                return shown[int(answer) - 1]
            if answer in legal and answer not in groups:  # the action string itself is fine too
                return answer
            if answer in ("?", "help", "rules", "??"):
                for text in fit(rules_summary(self.ruleset, full=answer == "??")):
                    self.write(text)
                if observation is not None:
                    self.show(observation)
                continue
            if answer in groups or (answer == "+" and pending):
                numbers = list(groups[answer]) if answer in groups else pending
                pending = numbers[MAX_LISTED:]
                for text in fit(self.list_lines(numbers[:MAX_LISTED], width, view)):
                    self.write(text)
                if pending:
                    self.write(f"  ... {len(pending)} more: type + to list them")
                continue
            kinds = f", a kind ({', '.join(groups)})" if groups else ""
            self.write(f"Please type a number from 1 to {len(legal)}{kinds}, ? for the rules, or q to quit.")

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
    bot_hosts: list[BotHost] = list(hosts) if hosts is not None else [InlineHost(e.cls) for e in bots]
    seated: list[BotHost] = bot_hosts[:seat] + [human] + bot_hosts[seat:]
    result = play_game(ruleset, entrants, deal_seed=seed, options=options, hosts=seated,
                       policy=FaultPolicy(OnFault.RAISE))
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
    yield from fit([style.bold(f"== {ruleset.id} (version {ruleset.version}) · seed {record['deal_seed']} · {seen} · "
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
            observation = make_observation(ruleset, state, seat, options=options)
            yield ""
            yield from frame(renderer, observation, number, chosen=action)
            played = "played" if note else "chose"
            yield from fit([f"→ {names[seat]} {played}: {renderer.safe_action(action, observation['view'])}  ({action})"]
                           + mark)
        state.apply(action)
    lines = []
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
