"""Schedulers: what a run plays next (the interface: `arena.scheduling.base`)."""

from arena.scheduling.base import (DONE, WAIT, Decision, FieldEntry, LookRecord, MemoryState, Play, Scheduler,
                                   SchedulerState, StoredResult)

__all__ = ["DONE", "WAIT", "Decision", "FieldEntry", "LookRecord", "MemoryState", "Play", "Scheduler",
           "SchedulerState", "StoredResult"]
