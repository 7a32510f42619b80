"""The rules engines: one package per game on a shared ruleset interface and card model.

Nothing here imports the rest of arena (but `arena.errors`), does I/O, or uses the
global RNG.
"""
