"""Attack bots: each one tries one way to cheat, harm a rival or escape its limits,
then reports what it got on stderr as one line ``ATTACK {json}`` (the bot's log),
and otherwise plays legally. Installed by the tests as a throwaway plugin (see
tests/test_attacks.py); nothing here runs at import time.

Every attack takes its targets from its params, so a test can aim it at things
the test itself made. ``safe = true`` (used only for the control runs under
process isolation, where bots run as the harness's own user, root here) keeps
an attack to the test's own processes and folders: it must never touch anything
else on the machine.
"""

import ctypes
import errno
import json
import os
import signal
import socket
import sys
import threading
import time

import arena

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NAME, PR_SET_PDEATHSIG = 15, 1


def report(**data):
    """One line the test reads from the bot's log."""
    print("ATTACK " + json.dumps(data, sort_keys=True, default=str), file=sys.stderr, flush=True)


def read_bytes(path, limit=1 << 16):
    with open(path, "rb") as handle:
        return handle.read(limit)


def error_name(exc):
    return errno.errorcode.get(getattr(exc, "errno", None) or 0, type(exc).__name__)


def pids():
    try:
        return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    except OSError:
        return []


def own_pid_in_proc():
    """This process's pid as /proc numbers it (a sandbox's /proc may belong to an
    outer PID namespace than the process's own)."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):  # no /proc to be seen
        return os.getpid()


def environ_has(pid, token):
    try:
        return token.encode() in read_bytes(f"/proc/{pid}/environ")
    except OSError:
        return False


def die_with_parent():
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class Attacker(arena.Bot):
    """Plays the first legal action; runs `attack()` once, at its first decision."""

    rulesets = "*"
    attacked = False

    def __init__(self, **params):
        self.params = params

    def act(self, observation):
        if not self.attacked:
            self.attacked = True
            self.attack(observation)
        return observation["legal_actions"][0]

    def attack(self, observation):
        raise NotImplementedError


class Victim(arena.Bot):
    """An honest rival with a secret in its memory (and, by its host, in its environment)."""

    name = "attack-victim"
    rulesets = "*"

    def __init__(self, secret="none"):
        self.secret = bytearray(b"VICTIM-MEMORY-" + secret.encode())  # a live, findable object

    def act(self, observation):
        return self.rng.choice(observation["legal_actions"])


class ProcSpy(Attacker):
    """Looks for rivals through /proc: cmdline, environ, memory (for `secret`)."""

    name = "attack-proc-spy"

    def attack(self, observation):
        secret, token, safe = self.params["secret"], self.params["token"], self.params.get("safe", False)
        me = own_pid_in_proc()
        found = {"visible": {}, "environ_read": [], "environ_secret": [], "mem_read": [], "mem_secret": [],
                 "errors": {}}
        for pid in pids():
            if pid == me or (safe and not environ_has(pid, token)):
                continue
            try:
                found["visible"][pid] = read_bytes(f"/proc/{pid}/cmdline", 300).replace(b"\0", b" ").decode(
                    "utf-8", "replace")
            except OSError as exc:
                found["visible"][pid] = error_name(exc)
            try:
                environ = read_bytes(f"/proc/{pid}/environ")
                found["environ_read"].append(pid)
                if secret.encode() in environ:
                    found["environ_secret"].append(pid)
            except OSError as exc:
                found["errors"][f"environ {pid}"] = error_name(exc)
            try:
                hit = self._scan_memory(pid, b"VICTIM-MEMORY-" + secret.encode())
                found["mem_read"].append(pid)
                if hit:
                    found["mem_secret"].append(pid)
            except OSError as exc:
                found["errors"][f"mem {pid}"] = error_name(exc)
        report(attack="proc", **found)

    @staticmethod
    def _scan_memory(pid, needle, budget=512 << 20):
        with open(f"/proc/{pid}/maps") as maps:
            regions = [line.split() for line in maps]
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
            read_any = False
            for fields in regions:
                if not fields[1].startswith("rw"):
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                if end - start > budget:
                    continue
                budget -= end - start
                try:
                    mem.seek(start)
                    data = mem.read(end - start)
                except OSError:
                    continue
                read_any = True
                if needle in data:
                    return True
            if not read_any:
                raise OSError(errno.EIO, "no region could be read")
        return False


class Killer(Attacker):
    """Stops, terminates and kills every process it can signal but itself."""

    name = "attack-killer"

    def attack(self, observation):
        me, hits = os.getpid(), []
        if self.params.get("safe"):  # control run: only the test's own bot processes
            targets = [p for p in pids() if p != me and environ_has(p, self.params["token"])]
            for pid in targets:
                try:
                    os.kill(pid, signal.SIGKILL)
                    hits.append(["SIGKILL", pid])
                except OSError:
                    pass
            report(attack="kill", hits=hits, targets=targets)
            return
        listed = pids()
        for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL):
            for pid in sorted(set(range(1, 40000)) | set(listed)):
                if pid == me:
                    continue
                try:
                    os.kill(pid, sig)
                    hits.append([sig.name, pid])
                except OSError:
                    pass
            try:
                os.kill(-1, sig)  # every process this one may signal
                hits.append([sig.name, -1])
            except OSError:
                pass
        report(attack="kill", hits=hits[:50], listed=listed[:50])


class Planter(Attacker):
    """Creates the files named in `targets` (a `random.py` beside a rival, a file in the
    results or tournament folder, /root, the virtualenv, the harness's package...)."""

    name = "attack-planter"

    def attack(self, observation):
        results = {}
        for path in self.params["targets"]:
            try:
                with open(path, "w") as handle:
                    handle.write("import os; os.system('echo planted by attack-planter')\n")
                results[path] = "written"
            except OSError as exc:
                results[path] = error_name(exc)
        report(attack="plant", results=results)


class Networker(Attacker):
    """Sends the token over TCP and UDP to the test's loopback ports, and to its
    abstract unix socket."""

    name = "attack-net"

    def attack(self, observation):
        token = self.params["token"].encode()
        results = {}
        try:
            with socket.create_connection(("127.0.0.1", self.params["tcp_port"]), timeout=2) as conn:
                conn.sendall(token)
            results["tcp"] = "sent"
        except OSError as exc:
            results["tcp"] = error_name(exc)
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.sendto(token, ("127.0.0.1", self.params["udp_port"]))
            results["udp"] = "sent"
        except OSError as exc:
            results["udp"] = error_name(exc)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
                unix.settimeout(2)
                unix.connect("\0" + self.params["abstract"])
                unix.sendall(token)
            results["abstract_unix"] = "sent"
        except OSError as exc:
            results["abstract_unix"] = error_name(exc)
        report(attack="net", results=results)


class ForkBomb(Attacker):
    """Forks until it cannot (at most `cap` children, which sleep)."""

    name = "attack-fork-bomb"

    def attack(self, observation):
        made, failure = 0, None
        for _ in range(self.params.get("cap", 100)):
            try:
                pid = os.fork()
            except OSError as exc:
                failure = error_name(exc)
                break
            if pid == 0:
                die_with_parent()
                time.sleep(120)
                os._exit(0)
            made += 1
        report(attack="fork-bomb", made=made, failure=failure)


class Daemon(Attacker):
    """Leaves processes meant to outlive the game: a double-forked `setsid` daemon
    and a plain child, both ignoring SIGTERM and SIGHUP, named `comm` (so the test
    can find them from outside)."""

    name = "attack-daemon"

    def attack(self, observation):
        comm = self.params["comm"].encode()
        ready_r, ready_w = os.pipe()
        for kind in ("double-fork", "child"):
            pid = os.fork()
            if pid == 0:
                try:
                    if kind == "double-fork":
                        os.setsid()
                        if os.fork() != 0:
                            os._exit(0)
                        os.setsid() if os.getsid(0) != os.getpid() else None
                    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                        signal.signal(sig, signal.SIG_IGN)
                    _libc.prctl(PR_SET_NAME, ctypes.c_char_p(comm), 0, 0, 0)
                    os.write(ready_w, b"1")
                    os.close(ready_w)
                    for fd in (0, 1, 2):
                        os.close(fd)
                    time.sleep(self.params.get("seconds", 90))  # gives up in the end
                finally:
                    os._exit(0)
            if kind == "double-fork":
                os.waitpid(pid, 0)
        os.close(ready_w)
        got = b""
        deadline = time.monotonic() + 5
        while len(got) < 2 and time.monotonic() < deadline:
            got += os.read(ready_r, 2)
        report(attack="daemon", ready=len(got))


class MemorySpreader(Attacker):
    """Spreads memory over `children` children of `mb` MiB each, all held at once."""

    name = "attack-memory-spread"

    def attack(self, observation):
        children, mb = self.params.get("children", 4), self.params.get("mb", 100)
        ready_r, ready_w = os.pipe()
        kids = []
        for _ in range(children):
            pid = os.fork()
            if pid == 0:
                die_with_parent()
                hoard = bytearray(mb << 20)
                for i in range(0, len(hoard), 4096):
                    hoard[i] = 1  # every page really used
                os.write(ready_w, b"1")
                time.sleep(120)
                os._exit(0)
            kids.append(pid)
        os.close(ready_w)
        acks, dead, deadline = 0, set(), time.monotonic() + 20
        os.set_blocking(ready_r, False)
        while acks + len(dead) < children and time.monotonic() < deadline:  # each has held, or died
            try:
                acks += len(os.read(ready_r, 16))
            except BlockingIOError:
                time.sleep(0.02)
            dead |= {pid for pid in kids if pid not in dead and os.waitpid(pid, os.WNOHANG) != (0, 0)}
        time.sleep(0.3)
        alive = [pid for pid in kids if pid not in dead and os.waitpid(pid, os.WNOHANG) == (0, 0)]
        report(attack="memory-spread", acks=acks, alive=len(alive), mb=mb)


class TmpFiller(Attacker):
    """Writes 4 MiB files into its /tmp until it cannot (or `cap_mb` are written)."""

    name = "attack-tmp-fill"

    def attack(self, observation):
        token, cap = self.params["token"], self.params.get("cap_mb", 64)
        folder = os.environ.get("TMPDIR", "/tmp")
        chunk, written, failure = b"x" * (1 << 20), 0, None
        try:
            for i in range(cap // 4):
                with open(os.path.join(folder, f"attack-fill-{token}-{i}"), "wb") as handle:
                    for _ in range(4):
                        handle.write(chunk)
                        handle.flush()
                        written += 1
        except OSError as exc:
            failure = error_name(exc)
        fstype = None
        try:
            with open("/proc/self/mountinfo") as mountinfo:
                for line in mountinfo:
                    fields = line.split()
                    if fields[4] == folder:
                        fstype = fields[fields.index("-") + 1]
        except OSError as exc:  # no /proc to be seen
            fstype = error_name(exc)
        report(attack="tmp-fill", written_mb=written, failure=failure, folder=folder, fstype=fstype)


class SleepInStart(arena.Bot):
    name = "attack-sleep-start"
    rulesets = "*"

    def __init__(self, seconds=20.0):
        self.seconds = seconds

    def start(self, info):
        time.sleep(self.seconds)

    def act(self, observation):
        return observation["legal_actions"][0]


class SleepInEnd(SleepInStart):
    name = "attack-sleep-end"

    def start(self, info):
        pass

    def end(self, outcome):
        time.sleep(self.seconds)


class MemoInModule(arena.Bot):
    """Remembers what it saw in a module-level dict, and says what it finds there
    when the next game starts."""

    name = "attack-memo-module"
    rulesets = "*"
    NOTES = {}

    def __init__(self, tag="?", token="t"):
        self.tag = tag

    def start(self, info):
        report(attack="memo-module", tag=self.tag, found=sorted(MemoInModule.NOTES))

    def act(self, observation):
        MemoInModule.NOTES[self.tag] = json.dumps(observation["view"])[:200]
        return observation["legal_actions"][0]


class MemoInFiles(arena.Bot):
    """Remembers the deal in files wherever it can write, and looks for them when the
    next game starts."""

    name = "attack-memo-files"
    rulesets = "*"

    def __init__(self, tag="?", token="t"):
        self.tag, self.token = tag, token

    def places(self):
        folders = [os.environ.get("HOME", "/tmp"), os.environ.get("TMPDIR", "/tmp"), "/tmp", "/dev/shm",
                   "/var/tmp", "/dev", "/run", "/dev/mqueue", os.getcwd()]
        return sorted({os.path.join(f, f"attack-memo-{self.token}") for f in folders})

    def start(self, info):
        found = {}
        for path in self.places():
            try:
                found[path] = read_bytes(path).decode()
            except OSError:
                pass
        report(attack="memo-files", tag=self.tag, found=found)

    def act(self, observation):
        if getattr(self, "done", False):
            return observation["legal_actions"][0]
        self.done, written = True, {}
        for path in self.places():
            try:
                with open(path, "a") as handle:
                    handle.write(self.tag + ";")
                written[path] = "ok"
            except OSError as exc:
                written[path] = error_name(exc)
        report(attack="memo-files-write", tag=self.tag, written=written)
        return observation["legal_actions"][0]


# -- kernel keyrings (not namespaced by mount, PID, IPC or network namespaces) --------

SYS_ADD_KEY, SYS_KEYCTL = 248, 250  # x86_64
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
KEYRINGS = {"thread": -1, "process": -2, "session": -3, "user": -4, "user-session": -5}


def key_add(description, payload, keyring):
    _libc.syscall.restype = ctypes.c_long
    data = payload.encode()
    serial = _libc.syscall(SYS_ADD_KEY, b"user", description.encode(), data, len(data), keyring)
    if serial < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return serial


def key_find(description, keyring):
    _libc.syscall.restype = ctypes.c_long
    serial = _libc.syscall(SYS_KEYCTL, KEYCTL_SEARCH, keyring, b"user", description.encode(), 0)
    if serial < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    buffer = ctypes.create_string_buffer(4096)
    size = _libc.syscall(SYS_KEYCTL, KEYCTL_READ, serial, buffer, 4096)
    if size < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return buffer.raw[:size].decode()


class MemoInKeyring(arena.Bot):
    """Remembers what it saw in the kernel's keyrings (user, session...), and looks
    there when the next game starts."""

    name = "attack-memo-keyring"
    rulesets = "*"

    def __init__(self, tag="?", token="t"):
        self.tag, self.token = tag, token

    def start(self, info):
        found = {}
        for ring, spec in KEYRINGS.items():
            try:
                found[ring] = key_find(f"attack-memo-{self.token}-{ring}", spec)
            except OSError:
                pass
        report(attack="memo-keyring", tag=self.tag, found=found)

    def act(self, observation):
        added = {}
        for ring, spec in KEYRINGS.items():
            try:
                key_add(f"attack-memo-{self.token}-{ring}", self.tag, spec)
                added[ring] = "ok"
            except OSError as exc:
                added[ring] = error_name(exc)
        report(attack="memo-keyring-write", tag=self.tag, added=added)
        return observation["legal_actions"][0]


class MemoInTimeWait(arena.Bot):
    """Remembers that it played in the kernel's TCP state: it closes a loopback connection
    from its server's side, which leaves a TIME_WAIT on a port named by its tag for a
    minute after every process of the game is gone; the next game finds that port taken."""

    name = "attack-memo-timewait"
    rulesets = "*"
    TAGS = ("game-1", "game-2")

    def __init__(self, tag="?", token="t"):
        self.tag, self.token = tag, token

    def port(self, tag):
        return 20000 + int(self.token[:4], 16) % 20000 + self.TAGS.index(tag)

    def start(self, info):
        found = []
        for tag in self.TAGS:
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                    probe.bind(("127.0.0.1", self.port(tag)))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    found.append(tag)
        report(attack="memo-timewait", tag=self.tag, found=found)

    def act(self, observation):
        if getattr(self, "done", False) or self.tag not in self.TAGS:
            return observation["legal_actions"][0]
        self.done = True
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                server.bind(("127.0.0.1", self.port(self.tag)))
                server.listen(1)
                with socket.create_connection(("127.0.0.1", self.port(self.tag)), timeout=2) as client:
                    accepted, _ = server.accept()
                    accepted.close()  # the server's side closes first: its port goes to TIME_WAIT
                    client.recv(1)
            left = "ok"
        except OSError as exc:
            left = error_name(exc)
        report(attack="memo-timewait-write", tag=self.tag, left=left)
        return observation["legal_actions"][0]


class ZygoteWriter(Attacker):
    """Looks for any process it can write into or trace through /proc (the zygote
    that will fork the next game, say), and tries its own /proc/self/mem."""

    name = "attack-zygote-writer"

    def attack(self, observation):
        me, found = own_pid_in_proc(), {}
        try:
            with open("/proc/self/mem", "r+b", buffering=0):
                found["self"] = "opened"
        except OSError as exc:
            found["self"] = error_name(exc)
        writable, traced, seen = [], [], {}
        for pid in pids():
            if pid == me or (self.params.get("safe") and not environ_has(pid, self.params["token"])):
                continue
            try:
                seen[pid] = read_bytes(f"/proc/{pid}/cmdline", 200).replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError as exc:
                seen[pid] = error_name(exc)
            try:
                with open(f"/proc/{pid}/mem", "r+b", buffering=0):
                    writable.append(pid)
            except OSError:
                pass
            if _libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
                traced.append(pid)
                os.waitpid(pid, 0x40000000)  # __WALL
                _libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
        report(attack="zygote-write", writable=writable, traced=traced, seen=seen, **found)


class SeedHunter(Attacker):
    """Tries to read the tournament file, the results folder and the store by path,
    and looks for the tournament's seed (`needle`) in every process's command line
    and environment it can see."""

    name = "attack-seed-hunter"

    def attack(self, observation):
        needle, got = self.params["needle"].encode(), {}
        for path in self.params["paths"]:
            try:
                if os.path.isdir(path):
                    got[path] = "listed: " + ",".join(sorted(os.listdir(path))[:20])
                else:
                    got[path] = "read: " + read_bytes(path, 200).decode("utf-8", "replace")
            except OSError as exc:
                got[path] = error_name(exc)
        hits = []
        for pid in pids():
            for what in ("cmdline", "environ"):
                try:
                    if needle in read_bytes(f"/proc/{pid}/{what}", 1 << 20):
                        hits.append(f"{pid}/{what}")
                except OSError:
                    pass
        report(attack="seed-hunt", got=got, proc_hits=hits, needle_in_files=[
            p for p, v in got.items() if self.params["needle"] in v])


class Spinner(arena.Bot):
    """A background thread that spins all game long, to think on the rivals' time;
    reports how much CPU it got between its own decisions."""

    name = "attack-spinner"
    rulesets = "*"

    def start(self, info):
        self.gaps = []  # (CPU seconds, wall seconds) from one answer to the next question
        self.left = None
        sys.setswitchinterval(0.0005)  # asked, the main thread takes the GIL from the spinner at once
        threading.Thread(target=self._spin, daemon=True).start()

    @staticmethod
    def _spin():
        while True:
            pass

    def act(self, observation):
        now_cpu, now_wall = time.process_time(), time.monotonic()
        if self.left is not None:
            self.gaps.append((now_cpu - self.left[0], now_wall - self.left[1]))
        action = observation["legal_actions"][0]
        self.left = (time.process_time(), time.monotonic())
        return action

    def end(self, outcome):
        report(attack="spinner", cpu=sum(g[0] for g in self.gaps), wall=sum(g[1] for g in self.gaps),
               gaps=len(self.gaps))


class CpuBurner(arena.Bot):
    """Burns `cpu` seconds of CPU in `threads` threads (hashing releases the GIL) at
    each of its first `decisions` decisions (measured on its own CPU clock, so it
    burns as much on a busy machine)."""

    name = "attack-cpu-burner"
    rulesets = "*"

    def __init__(self, threads=4, cpu=0.6, decisions=3):
        self.threads, self.cpu, self.decisions = threads, cpu, decisions

    def act(self, observation):
        self.decisions -= 1
        if self.decisions < 0:
            return observation["legal_actions"][0]
        until, give_up = time.process_time() + self.cpu, time.monotonic() + 20
        data = b"x" * (4 << 20)

        def burn():
            import hashlib
            while time.process_time() < until and time.monotonic() < give_up:
                hashlib.sha256(data).digest()

        workers = [threading.Thread(target=burn) for _ in range(self.threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return observation["legal_actions"][0]


class SigcontPair(arena.Bot):
    """Two processes that keep each other running: a thread of the bot's process and a
    child both spin, each sending SIGCONT to the other all the time, so that whichever
    is stopped first is resumed by the other before that one is stopped itself.
    Reports how much CPU the two got between the bot's decisions (as `Spinner`)."""

    name = "attack-sigcont-pair"
    rulesets = "*"

    def start(self, info):
        import mmap

        self.gaps, self.left = [], None
        self.shared = mmap.mmap(-1, 64)  # the child's CPU seconds, written as it spins
        sys.setswitchinterval(0.0005)
        parent = os.getpid()
        self.child = os.fork()
        if self.child == 0:
            while True:
                os.kill(parent, signal.SIGCONT)
                self.shared[:16] = b"%-16.6f" % time.process_time()
        threading.Thread(target=self._spin, daemon=True).start()

    def _spin(self):
        while True:
            os.kill(self.child, signal.SIGCONT)

    def _cpu(self):
        try:
            child = float(self.shared[:16].decode().strip() or 0)
        except ValueError:
            child = 0.0
        return time.process_time() + child

    def act(self, observation):
        now_cpu, now_wall = self._cpu(), time.monotonic()
        if self.left is not None:
            self.gaps.append((now_cpu - self.left[0], now_wall - self.left[1]))
        action = observation["legal_actions"][0]
        self.left = (self._cpu(), time.monotonic())
        return action

    def end(self, outcome):
        report(attack="sigcont-pair", cpu=sum(g[0] for g in self.gaps), wall=sum(g[1] for g in self.gaps),
               gaps=len(self.gaps))
        os.kill(self.child, signal.SIGKILL)


class Replacer(arena.Bot):
    """A child that spins, replaced by a new one at each decision: the bot forks the new
    spinner, then kills and reaps the old one, so its cgroup holds as many tasks as when
    its processes were last listed, one of them never seen. Reports how much CPU its
    spinners got between its decisions (as `Spinner`)."""

    name = "attack-replacer"
    rulesets = "*"

    def start(self, info):
        import mmap

        self.gaps, self.left, self.child = [], None, None
        self.shared = mmap.mmap(-1, 64)  # the spinners' CPU seconds, all of them, written as they spin
        self._replace()

    def _replace(self):
        before = self._children_cpu()
        child = os.fork()
        if child == 0:
            while True:
                self.shared[:16] = b"%-16.6f" % (before + time.process_time())
        if self.child is not None:
            os.kill(self.child, signal.SIGKILL)
            os.waitpid(self.child, 0)
        self.child = child

    def _children_cpu(self):
        try:
            return float(self.shared[:16].decode().strip() or 0)
        except ValueError:
            return 0.0

    def act(self, observation):
        now_cpu, now_wall = self._children_cpu(), time.monotonic()
        if self.left is not None:
            self.gaps.append((now_cpu - self.left[0], now_wall - self.left[1]))
        self._replace()
        self.left = (self._children_cpu(), time.monotonic())
        return observation["legal_actions"][0]

    def end(self, outcome):
        report(attack="replacer", cpu=sum(g[0] for g in self.gaps), wall=sum(g[1] for g in self.gaps),
               gaps=len(self.gaps))
        os.kill(self.child, signal.SIGKILL)


class SlowRival(arena.Bot):
    """An honest rival that takes its time (so others have time to think on)."""

    name = "attack-slow-rival"
    rulesets = "*"

    def __init__(self, delay=0.03):
        self.delay = delay

    def act(self, observation):
        time.sleep(self.delay)
        return self.rng.choice(observation["legal_actions"])


BOTS = (Victim, ProcSpy, Killer, Planter, Networker, ForkBomb, Daemon, MemorySpreader, TmpFiller, SleepInStart,
        SleepInEnd, MemoInModule, MemoInFiles, MemoInKeyring, MemoInTimeWait, ZygoteWriter, SeedHunter, Spinner, SigcontPair, Replacer, CpuBurner,
        SlowRival)


@arena.hookimpl
def register_bots(register):
    for bot in BOTS:
        register(bot)
