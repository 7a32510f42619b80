"""Decisions as people are shown them: numbered from 1, with what happened at each
(a fault, a replacement action) and the bots' logs of the game.

A record's ``decisions`` list and its faults' ``decision`` are 0-based indexes, and a
fault's replacement action is drawn from a stream derived from that index
(`arena.match.replacement_action`): both stay as they are. Everything shown to people
(`arena faults`, `arena replay`, the web viewer, the site's fault links) numbers a
decision ``index + 1`` (`shown_number`).

A record says which seats forfeited and at which decision each fault happened, not
whether a fault ended the bot's host; `silenced_from` infers it (a crash or timeout
ends it, a forfeit silences the seat), so the marks of later replacement actions are
best effort where a bot's host died of another kind of fault.
"""

from __future__ import annotations

from typing import Any, Container, Mapping

from arena.seats import Limits

FATAL_KINDS = ("crash", "timeout")
"""Kinds of fault taken as silencing a seat in records older than the faults' ``fatal``
key (today every crash and timeout fault is fatal; memory and error faults may be)."""

LOG_CAP = Limits().log_bytes
LOG_NOTE = (f"bot logs: what each bot wrote to stderr, the first {LOG_CAP:,} bytes per bot per game "
            "(kept under process and sandbox isolation; an inline bot's stderr is the harness's own)")


def shown_number(index: int | None) -> int | None:
    """The number people see for decision `index` of a record (1-based); None stays None."""
    return None if index is None else index + 1


def silenced_from(record: Mapping[str, Any]) -> dict[int, int]:
    """Best effort: the decision index after which each seat was not asked again (a
    fatal fault, or a forfeit). A fault before the first decision (start_game) silences
    from the start; the record does not say whether a fault without a decision index was
    at the start or the end, so one counts as a start fault only when it comes before
    every indexed fault in the list."""
    out: dict[int, int] = {}
    forfeited = set(record.get("forfeited") or [])
    faults = [f for f in record.get("faults") or [] if isinstance(f, dict)]
    any_indexed = any(f.get("decision") is not None for f in faults)
    seen_indexed = False
    for fault in faults:
        seat, decision = fault.get("seat"), fault.get("decision")
        if decision is None:
            if seen_indexed or not any_indexed:
                continue  # at the end, or no way to tell start from end: assume the end
            decision = -1
        else:
            seen_indexed = True
        if not isinstance(seat, int):
            continue  # a fault not tied to a seat silences nobody
        if fault.get("fatal", fault.get("kind") in FATAL_KINDS) or seat in forfeited:
            out.setdefault(seat, decision)
    return out


def decision_notes(record: Mapping[str, Any], forced: Container[int] = ()) -> dict[int, str]:
    """What a person should know about a decision, by record index: the fault at it
    (its action is the replacement), or that its action is a replacement because the
    seat was silenced earlier. Decisions with nothing to say are absent, and so are the
    `forced` ones (one legal action: played without asking anyone; the record does not
    keep legal actions, a replay knows them)."""
    notes: dict[int, str] = {}
    names = _names(record)
    forfeited = set(record.get("forfeited") or [])
    for fault in record.get("faults") or []:
        if isinstance(fault, dict) and fault.get("decision") is not None:
            what = "forfeits the game; " if fault.get("seat") in forfeited else ""
            notes[fault["decision"]] = (f"{fault.get('kind')} fault by {names.get(fault.get('seat', -1), '?')}: "
                                        f"{fault.get('detail', '')}; {what}a replacement action was played")
    silenced = silenced_from(record)
    for index, (seat, _action) in enumerate(record.get("decisions") or []):
        since = silenced.get(seat)
        if index in notes or since is None or index <= since or index in forced:
            continue
        why = "forfeited" if seat in forfeited else "was not asked again"
        after = "at the start" if since < 0 else f"at decision {shown_number(since)}"
        notes[index] = f"replacement action: {names.get(seat, '?')} {why} after its fault {after}"
    return notes


def seat_logs(record: Mapping[str, Any]) -> list[tuple[int, str]]:
    """``(seat, text)`` for each seat whose bot wrote to stderr in this game, by seat."""
    logs = record.get("logs") or {}
    out = []
    for key, text in logs.items():
        try:
            out.append((int(key), str(text)))
        except (TypeError, ValueError):
            continue
    return sorted(out)


def log_lines(record: Mapping[str, Any], seats: Any = None) -> list[str]:
    """A game's bot logs as text lines, one block per seat (only `seats` if given)."""
    names = _names(record)
    lines = []
    for seat, text in seat_logs(record):
        if seats is not None and seat not in seats:
            continue
        lines.append(f"--- {names.get(seat, f'seat {seat}')}: stderr ---")
        lines.extend(text.rstrip("\n").split("\n"))
    return lines


def _names(record: Mapping[str, Any]) -> dict[int, str]:
    seats = record.get("seats") or []
    return {i: f"seat {i} ({s.get('display', s.get('bot', '?'))})" for i, s in enumerate(seats)
            if isinstance(s, dict)}
