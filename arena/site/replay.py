"""Replay data for the web viewer: a stored game re-played decision by decision.

`replay_data(record, ruleset)` re-creates the game from its deal seed with the
ruleset engine and applies the recorded decisions one by one (as
`arena.match.play_game` did), and returns plain JSON data, one frame per decision:

- ``god``: the table as the all-seeing observer sees it (the acting seat's view
  built on a copy of the state where every side of every card counts as seen, for
  the rulesets on the shared two-faced card model; for the others, the acting
  seat's view) and the god log since the previous decision, as text lines;
- ``obs``: when the acting seat's bot was asked, exactly the observation it
  received (view, events, legal actions: what `play_game` built) plus readable
  lines for its events; None when it was not asked (one legal action only, or a
  seat silenced by a fault), in which case its events stay pending, as in play,
  and reach it with its next observation;
- ``action`` (and its readable phrase), ``legal`` (the actor's legal actions),
  the ``fault`` recorded at this decision, if any, and a ``note`` for people (the
  fault, or a replacement action: `arena.decisions.decision_notes`).

Frames are numbered by record index (``n``); the viewer shows ``n + 1``. The data
also carries the bots' ``logs`` (stderr per seat, as the record keeps them).

A frame's ``obs`` is built from the seat's own view and events only: nothing from
the god view is copied into it. Seat frames thus show no more than the seat saw.

`replay_script(data)` is the JavaScript file the viewer loads (``replays/<game>.js``
assigns to ``window.ARENA_REPLAYS[<game>]``), so that it also works from file://.
"""

from __future__ import annotations

import json
import random
from typing import Any, Mapping

from arena.decisions import LOG_NOTE, decision_notes, seat_logs, silenced_from
from arena.errors import ReplayMismatchError
from arena.render import Style, renderer_for
from arena.rules.base import Ruleset


def god_view(state: Any, seat: int) -> dict[str, Any]:
    """`seat`'s view of the whole table (`GameState.god_view`)."""
    return state.god_view(seat)


def _text(function: Any, *args: Any) -> str:
    try:
        return str(function(*args))
    except Exception:  # a phrase is a nicety: never let it break a replay
        return json.dumps(args[0], separators=(",", ":"))


def replay_data(record: Mapping[str, Any], ruleset: type[Ruleset], game: int | None = None) -> dict[str, Any]:
    """The viewer's data for `record`, re-played on `ruleset` (frames as in the
    module docstring). Raises ReplayMismatchError for a record of another
    ruleset version or one that does not replay."""
    meta = record["ruleset"]
    if meta["id"] != ruleset.id or meta["version"] != ruleset.version:
        raise ReplayMismatchError(f"record is for {meta['id']} {meta['version']}, "
                                  f"not {ruleset.id} {ruleset.version}")
    players = record["players"]
    displays = [s.get("display", s.get("bot", "?")) for s in record.get("seats", [])] or ["?"] * players
    names = [f"seat {i} ({name})" for i, name in enumerate(displays)]
    style = Style(color=False)
    seat_renderers = []
    for seat in range(players):
        renderer = renderer_for(ruleset, style, names, seat, players)
        renderer.you = False
        seat_renderers.append(renderer)
    actor = renderer_for(ruleset, style, names, None, players)
    state = ruleset.new_game(players, meta["options"], random.Random(record["deal_seed"]))
    frames, logged = _frames(record, ruleset, state, seat_renderers, actor)
    notes = decision_notes(record, forced={f["n"] for f in frames if len(f["legal"]) == 1})
    for f in frames:
        f["note"] = notes.get(f["n"])
    final_seats = []
    for seat in range(players):
        events = state.take_events(seat)
        final_seats.append({"view": state.view(seat), "events": events,
                            "event_text": [_text(seat_renderers[seat].safe_event, e) for e in events]})
    final = {"god": {"view": god_view(state, 0), "log": [_text(ruleset.describe_event, e)
                                                        for e in state.god_log[logged:]]},
             "seats": final_seats}
    return {
        "game": game, "ruleset": {"id": ruleset.id, "version": ruleset.version,
                                  "title": getattr(ruleset, "title", ruleset.id), "options": meta["options"],
                                  "faces": {face: list(drawn) for face, drawn
                                            in sorted(getattr(ruleset, "card_faces", {}).items())},
                                  "view": getattr(ruleset, "site_view", {})},
        "players": players, "names": displays, "seats": record.get("seats", []),
        "deal_seed": record["deal_seed"], "transcript_hash": record.get("transcript_hash"),
        "outcome": record["outcome"], "faults": record.get("faults") or [],
        "forfeited": record.get("forfeited") or [],
        "frames": frames, "final": final,
        "logs": [{"seat": seat, "text": text} for seat, text in seat_logs(record)], "log_note": LOG_NOTE,
    }


def _frames(record: Mapping[str, Any], ruleset: type[Ruleset], state: Any, seat_renderers: list[Any],
            actor: Any) -> tuple[list[dict[str, Any]], int]:
    """A frame per decision of `record`, played on `state` to its end (without their notes),
    and how much of the god log they show."""
    faults = {f["decision"]: f for f in record.get("faults") or []
              if isinstance(f, dict) and f.get("decision") is not None}
    silenced = silenced_from(record)
    frames: list[dict[str, Any]] = []
    logged = 0
    for number, (seat, action) in enumerate(record["decisions"]):
        if state.current_seat() != seat:
            raise ReplayMismatchError(f"decision {number + 1}: the record has seat {seat}, "
                                      f"the game asks seat {state.current_seat()}")
        legal = state.legal_actions()
        if action not in legal:
            raise ReplayMismatchError(f"decision {number + 1}: {action!r} is not legal in the replayed game")
        log = [_text(ruleset.describe_event, e) for e in state.god_log[logged:]]
        logged = len(state.god_log)
        if len(legal) == 1:
            asked, why = False, "forced: the only legal action"
        elif seat in silenced and number > silenced[seat]:
            asked, why = False, "not asked: a replacement action"
        else:
            asked, why = True, None
        obs = None
        view = state.view(seat)
        if asked:
            events = state.take_events(seat)
            obs = {"view": view, "events": events, "legal_actions": list(legal),
                   "event_text": [_text(seat_renderers[seat].safe_event, e) for e in events]}
        actor.seat = seat
        frames.append({
            "n": number, "seat": seat, "action": action,
            "action_text": _text(actor.safe_action, action, view),
            "legal": list(legal), "legal_text": [_text(actor.safe_action, a, view) for a in legal],
            "asked": asked, "why": why, "fault": faults.get(number),
            "god": {"view": god_view(state, seat), "log": log},
            "obs": obs,
        })
        state.apply(action)
    if not state.is_terminal():
        raise ReplayMismatchError("the record ends before the game does")
    return frames, logged


def js_json(value: Any) -> str:
    """JSON safe to put inside a <script> (no ``</script>``, no HTML comment openers)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def replay_script(data: Mapping[str, Any]) -> str:
    """The ``replays/<game>.js`` file for `data`."""
    return ("(window.ARENA_REPLAYS = window.ARENA_REPLAYS || {})[" + json.dumps(data["game"]) + "] = "
            + js_json(data) + ";\n")


def error_script(game: int, message: str) -> str:
    """A ``replays/<game>.js`` that tells the viewer why there is no replay."""
    return ("(window.ARENA_REPLAYS = window.ARENA_REPLAYS || {})[" + json.dumps(game) + "] = "
            + js_json({"game": game, "error": message}) + ";\n")
