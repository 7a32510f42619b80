"""`BotFault`: a bot misbehaved. Hosts and their protocol channel raise it; the match
applies the fault policy (`arena.match.FaultPolicy`)."""

from __future__ import annotations

import signal

from arena.errors import BotError
from arena.records import FaultKind

FAULT_KINDS = tuple(kind.value for kind in FaultKind)  # (the old name of the kinds, as strings)


class BotFault(BotError):
    """A bot misbehaved; `kind` says how (ValueError for a kind that is not a `FaultKind`);
    `fatal` means its host is gone."""

    def __init__(self, kind: FaultKind | str, message: str, fatal: bool = False):
        super().__init__(message)
        self.kind = FaultKind(kind)
        self.fatal = fatal


def exit_fault(code: int | None, during: str = "") -> BotFault:
    """The fatal fault of a bot process that ended with exit status `code` (negative:
    killed by that signal; SIGXCPU, its CPU-time limit, is a timeout). `during` ends the
    message (" in act()", say)."""
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        kind = FaultKind.TIMEOUT if -code == signal.SIGXCPU else FaultKind.CRASH
        return BotFault(kind, f"was killed by {name}{during}", fatal=True)
    return BotFault(FaultKind.CRASH, f"exited with code {code}{during}", fatal=True)
