"""Record packing, reading and checking, this tree against another checkout, in one process.

    git archive <commit> | tar -x -C /tmp/base
    .venv/bin/python benchmarks/bench_record_check.py /tmp/base

The other checkout's arena/store.py is loaded as a module of its own beside this tree's;
both read the same copy of the committed quickstart store (420 games). Per record, best
of 40 interleaved passes (interleaved and in one process, so a noisy machine slows both
alike): Store._record (unpack and check), pack_record, and the record check `arena
replay` runs (the other checkout's arena.match.record_problem against
arena.records.record_problem). Made for issue 18 item 5 (typed records).
"""

import ast
import importlib.util
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BASE = Path(sys.argv[1])
STORE = Path(__file__).resolve().parent.parent / "results" / "quickstart" / "games.sqlite"
spec = importlib.util.spec_from_file_location("old_store", BASE / "arena/store.py")
old_store = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old_store)
import arena.store as new_store

def old_function(path, name, extra=()):
    text = Path(path).read_text()
    nodes = [n for n in ast.parse(text).body if getattr(n, "name", None) in (name, *extra)]
    scope = {"Any": Any}
    exec("\n".join(ast.get_source_segment(text, n) for n in nodes), scope)
    return scope[name]

old_match_check = old_function(BASE / "arena/match.py", "record_problem", ("_short",))
from arena.records import record_problem

tmp = Path(tempfile.mkdtemp()) / "games.sqlite"
shutil.copy(STORE, tmp)  # a copy: opening a store may write to it
old, new = old_store.Store.open(tmp), new_store.Store.open(tmp)
blobs = [b for (b,) in new.db.execute("SELECT record FROM games ORDER BY game_index")]
records = [new._record(i, b) for i, b in enumerate(blobs)]
jsons = [new_store.encode(r) for r in records]
assert records == [old._record(i, b) for i, b in enumerate(blobs)]
assert [new_store.pack_record(j, new._zdict) for j in jsons] == [old_store.pack_record(j, old._zdict) for j in jsons]
cases = {
    "Store._record before": lambda: [old._record(i, b) for i, b in enumerate(blobs)],
    "Store._record after": lambda: [new._record(i, b) for i, b in enumerate(blobs)],
    "pack_record before": lambda: [old_store.pack_record(j, old._zdict) for j in jsons],
    "pack_record after": lambda: [new_store.pack_record(j, new._zdict) for j in jsons],
    "replay's record check before": lambda: [old_match_check(r) for r in records],
    "replay's record check after": lambda: [record_problem(r) for r in records],
}
best = {k: float("inf") for k in cases}
for _ in range(40):
    for name, f in cases.items():
        s = time.perf_counter(); f(); best[name] = min(best[name], time.perf_counter() - s)
for name, seconds in best.items():
    print(f"{name:32s} {seconds / len(records) * 1e6:6.1f} us per record")
