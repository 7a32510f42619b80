"""A ladder worker: pulls work from the server over HTTP, plays it in sandboxes, returns records.

The loop: ask for a lease (``POST /api/work/lease``); play its tasks in order, renewing
the lease every ``heartbeat_seconds`` from a thread (``POST /api/work/heartbeat``);
return each task's result as soon as it is done (``POST /api/work/<task>/result``);
ask again (after `POLL_SECONDS` when there was nothing to do). Uploads reach the worker
as content-addressed files (``GET /api/blobs/<sha256>``) kept in its cache folder with
their builds (``<cache>/uploads/<sha256>/<file>``, ``<cache>/builds/<content>/venv``), so
each version is fetched and built once per worker. Submitted code runs only in sandboxes
(`arena.submissions`, `arena.sandbox`).

A gate task: build and probe the upload, then play its gate games (one against itself
and one against ``random`` per ruleset it plays, `arena.ladder.versions.gate_specs`); it
passes if it builds, registers the bot by its ladder name, plays a ladder ruleset, and
commits no fault in its gate games. The log goes back to the server for its author.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Mapping

from arena.errors import ArenaError, ConfigError
from arena.ladder.games import Spec, faults_of
from arena.ladder.versions import gate_specs

POLL_SECONDS = 2.0


class WorkerError(ArenaError):
    """The server refused a request (`status`: its HTTP status), or cannot be reached (status 0)."""

    def __init__(self, message: str, status: int = 0):
        super().__init__(message)
        self.status = status


class Client:
    """JSON over HTTP to a ladder server, with a bearer token."""

    def __init__(self, url: str, token: str, timeout: float = 60.0):
        import urllib.parse

        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"{url[:100]!r}: the ladder's URL must be http://HOST:PORT or https://HOST")
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        return self._json(request)

    def upload(self, path: str, data: bytes) -> Any:
        request = urllib.request.Request(self.url + path, data=data, method="POST", headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/octet-stream"})
        return self._json(request)

    def _json(self, request: urllib.request.Request) -> Any:
        body = self._open(request)
        try:
            return json.loads(body)
        except ValueError:  # some other web server at that address
            raise WorkerError(f"{request.get_method()} {request.full_url}: the answer is not JSON "
                              f"(is {self.url} a ladder?)", 200) from None

    def raw(self, path: str) -> bytes:
        return self._open(urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {self.token}"}))

    def _open(self, request: urllib.request.Request) -> bytes:
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as exc:
            try:
                said = str(json.loads(exc.read()).get("error", ""))
            except (ValueError, AttributeError):
                said = ""
            raise WorkerError(f"{request.get_method()} {request.full_url}: HTTP {exc.code} {said}".strip(),
                              exc.code) from None
        except (urllib.error.URLError, OSError) as exc:
            raise WorkerError(f"cannot reach {self.url}: {getattr(exc, 'reason', exc)}") from None


class Cache:
    """A worker's uploads and builds, by content hash."""

    def __init__(self, folder: Path, client: Client):
        self.folder, self.client = folder, client

    def upload(self, seat: Mapping[str, Any]) -> Path:
        """The seat's upload, fetched once and checked against its hash."""
        path = self.folder / "uploads" / seat["blob"] / os.path.basename(seat["filename"])
        if not path.is_file():
            data = self.client.raw(f"/api/blobs/{seat['blob']}")
            if hashlib.sha256(data).hexdigest() != seat["blob"]:
                raise WorkerError(f"upload {seat['blob'][:12]}: the server sent other bytes")
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as partial:
                partial.write(data)
            os.replace(partial.name, path)
        return path

    def submission(self, seat: Mapping[str, Any], echo: Callable[[str], None] = lambda line: None) -> Any:
        """The seat's built submission (built here, in a sandbox, the first time)."""
        from arena.submissions import Submission, SubmittedBot, ensure_built

        bot = SubmittedBot(seat["name"], "*", seat.get("package") or "?", seat.get("label") or "?")
        built = Submission(str(self.upload(seat)), seat["content"], str(self.folder / "builds" / seat["content"]),
                           (bot,), seat["name"])
        ensure_built(built, echo)
        return built


def _entrant(seat: Mapping[str, Any], cache: Cache, echo: Callable[[str], None]) -> tuple[Any, Any]:
    """(Entrant, Submission or None) of a seat."""
    from arena.match import Entrant
    from arena.plugins import load_registry

    if "builtin" in seat:
        entry = load_registry().bots[seat["builtin"]]
        return Entrant(entry.cls, {}, seat["entry"], entry.origin.package, seat["label"]), None
    submission = cache.submission(seat, echo)
    return Entrant(submission.stand_in(), {}, seat["entry"], seat.get("package") or "?", seat["label"]), submission


def play(spec: Spec, cache: Cache, policy: Mapping[str, Any], echo: Callable[[str], None] = lambda line: None
         ) -> dict[str, Any]:
    """Play the game `spec` with every submitted seat in its sandbox; its record."""
    from arena.match import FaultPolicy, play_game
    from arena.plugins import load_registry
    from arena.seats import Limits
    from arena.worker import HostPool, Job

    cls = load_registry().rulesets[spec["ruleset"]["id"]].cls
    seated = [_entrant(seat, cache, echo) for seat in spec["seats"]]
    per_decision = policy.get("time_per_decision")
    limits = Limits(time_per_decision=per_decision) if per_decision else Limits()
    fault_policy = FaultPolicy(on_fault=policy.get("on_fault", "forfeit"), time_per_decision=per_decision)
    job = Job(((cls, spec["ruleset"]["options"]),), tuple(e for e, _ in seated), "sandbox", limits=limits,
              policy=fault_policy, submissions=tuple(s for _, s in seated))
    pool = HostPool(job)
    try:
        result = play_game(cls, [e for e, _ in seated], spec["deal_seed"], spec["ruleset"]["options"],
                           bot_seeds=spec["bot_seeds"], hosts=[pool.host(i) for i in range(len(seated))],
                           policy=fault_policy)
    finally:
        pool.close()
    record = result.record
    logs = {str(seat): text for seat, text in enumerate(result.logs) if text}
    if logs:  # each bot's stderr, served to its author only
        record["logs"] = logs
    return record


def _probe_bot(spec: Mapping[str, Any], cache: Cache, echo: Callable[[str], None]) -> Any:
    """Build and probe the gate's upload; the probed bot registered under the ladder name."""
    from arena.submissions import SubmissionError, probe

    seat = {"blob": spec["blob"], "filename": spec["filename"], "content": spec["content"], "name": spec["bot"]}
    built = cache.submission(seat, echo)
    report = probe(Path(built.venv), spec["bot"], {})
    if report["errors"]:
        raise SubmissionError(f"its plugins failed to load: {report['errors'][0]}")
    found = {bot.name: bot for bot in report["bots"]}
    if spec["bot"] not in found:
        raise SubmissionError(f"it registers no bot named {spec['bot']!r} (it registers: "
                              f"{', '.join(sorted(found)) or 'none'})")
    return found[spec["bot"]]


def gate(spec: Mapping[str, Any], cache: Cache, policy: Mapping[str, Any]) -> dict[str, Any]:
    """Run a version's gate (see the module docstring); the report the server stores."""
    lines: list[str] = []
    echo = lines.append
    try:
        bot = _probe_bot(spec, cache, echo)
        claimed = [r for r in spec["rulesets"] if bot.rulesets == "*" or r["id"] in bot.rulesets]
        echo(f"probe: bot {bot.name!r} from {bot.package} {bot.version}; it plays "
             f"{', '.join(r['label'] for r in claimed) or 'none of the ladder rulesets'}")
        if not claimed:
            return {"passed": False, "log": "\n".join(lines)}
        label = f"{bot.version}+sha256.{spec['content'][:12]}"
        seat = {"version": spec["version"], "name": spec["bot"], "content": spec["content"], "label": label,
                "package": bot.package, "blob": spec["blob"], "filename": spec["filename"]}
        records = []
        for game in gate_specs(seat, claimed, spec["random"], spec["seed"]):
            record = play(game, cache, policy, echo)
            mine = [s for s, who in enumerate(game["seats"]) if "builtin" not in who]
            faults = faults_of(record)
            echo(f"{game['ruleset']['label']}: {' v '.join(s['entry'] for s in game['seats'])}: standing "
                 f"{record['outcome']['standing']}, faults {faults}")
            if any(faults[s] for s in mine):
                said = [f["message"] for f in record.get("faults") or [] if f.get("seat") in mine][:1]
                echo(f"gate failed: the version faulted ({said[0] if said else 'see the record'})")
                return {"passed": False, "log": "\n".join(lines)}
            records.append(record)
    except ArenaError as exc:
        echo(f"gate failed: {exc}")
        return {"passed": False, "log": "\n".join(lines)}
    echo("gate passed")
    return {"passed": True, "label": label, "package": bot.package, "rulesets": [r["label"] for r in claimed],
            "records": records, "log": "\n".join(lines)}


class Heartbeat:
    """Renews a lease every `seconds` from a thread while a batch is played."""

    def __init__(self, client: Client, lease: str, seconds: float):
        self.client, self.lease, self.seconds = client, lease, seconds
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True, name="ladder-heartbeat")
        self.thread.start()

    def _beat(self) -> None:
        while not self.stopped.wait(self.seconds):
            try:
                self.client.call("POST", "/api/work/heartbeat", {"lease": self.lease})
            except WorkerError:
                pass  # the server is away: the lease may expire and the batch be re-issued; results still count

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join()


def run_task(task: Mapping[str, Any], cache: Cache, policy: Mapping[str, Any]) -> dict[str, Any]:
    if task["kind"] == "gate":
        return gate(task["spec"], cache, policy)
    return {"record": play(task["spec"], cache, policy)}


def send_result(client: Client, task_id: int, result: Mapping[str, Any], tries: int = 5) -> Any:
    """Return a task's result, asking again (a second apart) while the server cannot be
    reached: a server restarting loses no game a worker finished. A refusal is raised."""
    for attempt in range(tries):
        try:
            return client.call("POST", f"/api/work/{task_id}/result", result)
        except WorkerError as exc:
            if exc.status or attempt == tries - 1:
                raise
            time.sleep(1.0)
    raise AssertionError("unreachable")


def check_server(client: Client) -> dict[str, Any]:
    """The server's ``/api/status``, once it is known to be a ladder whose rulesets this
    worker has at the server's versions (the server refuses records of any other version).
    ConfigError if not; WorkerError if it cannot be reached."""
    from arena.plugins import load_registry

    try:
        status = client.call("GET", "/api/status")
    except WorkerError as exc:
        if exc.status == 0 or exc.status >= 500:
            raise
        raise ConfigError(f"{client.url} is not a ladder: {exc}") from None
    if not isinstance(status, dict) or "rulesets" not in status:
        raise ConfigError(f"{client.url} is not a ladder: GET /api/status answered no rulesets")
    installed = load_registry().rulesets
    for label, (ruleset, version) in sorted((status.get("ruleset_versions") or {}).items()):
        have = installed.get(ruleset)
        if have is None:
            raise ConfigError(f"the ladder at {client.url} plays {ruleset} (as {label}), which this worker does not "
                              "have: install the package that provides it")
        if str(have.cls.version) != str(version):
            raise ConfigError(f"the ladder at {client.url} plays {ruleset} version {version}, this worker has "
                              f"version {have.cls.version}: install the server's version (its records are refused)")
    return status


def first_contact(client: Client, wait: float | None, stop: threading.Event,
                  echo: Callable[[str], None]) -> dict[str, Any]:
    """`check_server`, asked again every `POLL_SECONDS` while the server cannot be reached,
    for up to `wait` seconds (None: until `stop`); then the last WorkerError is raised."""
    deadline = None if wait is None else time.monotonic() + wait
    while True:
        try:
            return check_server(client)
        except WorkerError as exc:
            if stop.is_set() or (deadline is not None and time.monotonic() + POLL_SECONDS > deadline):
                raise
            echo(f"worker: {exc}; retrying")
            stop.wait(POLL_SECONDS)


def work(url: str, token: str, cache_folder: Path, stop: threading.Event | None = None,
         echo: Callable[[str], None] = lambda line: None, idle_exit: bool = False,
         wait: float | None = None) -> int:
    """Pull and play work until `stop` is set (or, with `idle_exit`, until there is none); tasks
    done. The server is first checked (`first_contact`: reached within `wait` seconds, None:
    however long it takes; a ladder; the same ruleset versions), else WorkerError/ConfigError.
    After that an unreachable server is asked again; a refused token raises WorkerError."""
    client = Client(url, token)
    cache = Cache(cache_folder, client)
    stop = stop or threading.Event()
    first_contact(client, wait, stop, echo)
    done = 0
    while not stop.is_set():
        try:
            lease = client.call("POST", "/api/work/lease", {})
        except WorkerError as exc:
            if exc.status in (401, 403):  # a revoked or wrong token: asking again will not help
                raise
            echo(f"worker: {exc}; retrying")
            stop.wait(POLL_SECONDS)
            continue
        if not lease["tasks"]:
            if idle_exit:
                return done
            stop.wait(POLL_SECONDS)
            continue
        beat = Heartbeat(client, lease["lease"], lease["heartbeat_seconds"])
        try:
            for task in lease["tasks"]:
                result = run_task(task, cache, lease["policy"])
                answer = send_result(client, task["id"], result)
                done += 1
                echo(f"worker: task {task['id']} ({task['kind']}): {answer.get('note', 'stored')}")
                if stop.is_set():
                    break
        except (WorkerError, ArenaError) as exc:
            echo(f"worker: {exc}")
        except Exception as exc:  # noqa: BLE001
            # A bug or a broken sandbox in one task must not stop a long-lived worker: said in one line; the
            # batch's lease expires and its tasks are played again (given up after leases.MAX_ATTEMPTS).
            echo(f"worker: a task failed: {type(exc).__name__}: {exc}")
        finally:
            beat.stop()
    return done
