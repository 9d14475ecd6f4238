"""Real processes: gc against concurrent writers, and a put into a full filesystem.

The invariant under test: an object named by an acknowledged event (one `append` returned) is
in the store with its bytes, whatever gc ran beside the writer (`labledger check --deep` is the
oracle). Two holes an audit suspected in `collect_garbage`:

1. between gc's ``stat`` of an old unreferenced object and its ``unlink``, a put of the same
   content found the object present (dedup), refreshed its mtime and returned; its event was
   recorded, and gc removed the object anyway;
2. ``--grace 0`` between a writer's put and the append of its event removed the new object
   (``ingest-dir``/``checkpoint`` wait out their settle time between the two).

Both hold no more: every put holds ``cas/gc.lock`` shared while it installs or dedups, the
ledger's writers hold it from their first put to their append, and gc takes it exclusively
before it reads the ledger's references (see `labledger.cas.gc`).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import blake3
import pytest

from labledger.cas import Store
from labledger.ledger.ledger import Ledger

SEED, OBJECTS, ROUNDS = 23, 1200, 24
LABLEDGER = str(Path(sys.executable).with_name("labledger"))

# A long-lived writer: for each "round R K" line it recomputes round R's contents, waits until gc
# has begun removing (the first of them in gc's order is gone), puts again the same contents
# from position K of gc's order on (dedup: each finds its object present), records one
# `artifact.recorded` per digest, and only then prints the digests it got acknowledged.
PUTTER = textwrap.dedent(
    """
    import json, os, sys
    from labledger.cas.verify import scan_objects
    from labledger.ledger.artifacts import open_store
    from labledger.ledger.ledger import Ledger

    def contents(seed, r, n):
        return [b"seed %d round %d object %d\\n" % (seed, r, i) for i in range(n)]

    project, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    led = Ledger.open(project)
    store = open_store(led)
    print("ready", flush=True)
    for line in sys.stdin:
        r, k = map(int, line.split()[1:])
        from blake3 import blake3
        mine = {blake3(c).hexdigest(): c for c in contents(seed, r, n)}
        order = [h for h, _ in scan_objects(store) if h in mine]
        first = store._path(order[0])
        print("waiting", flush=True)
        while os.path.lexists(first):
            pass
        with store.batch() as b:
            digests = [b.put_bytes(mine[h]).digest for h in order[k:]]
        led.append_drafts([led.draft("artifact.recorded", {"path": f"r{r}/{d[7:19]}",
                           "digest": d, "size": 1, "type": "file"}) for d in digests])
        print("acked " + json.dumps(digests), flush=True)
    """
)

# A long-lived gc: `labledger cas gc` itself (its click entry point), once per "go" line.
GC = textwrap.dedent(
    """
    import contextlib, io, sys
    from labledger.ledger.cli import main
    grace = sys.argv[1]
    print("ready", flush=True)
    for line in sys.stdin:
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # what it removed
                main(["-q", "cas", "gc", "--grace", grace, "--no-dry-run"])
        except SystemExit as exc:
            print(f"gc exit {exc.code}", flush=True)
    """
)


def _contents(seed: int, r: int, n: int) -> list[bytes]:
    return [b"seed %d round %d object %d\n" % (seed, r, i) for i in range(n)]


class _Worker:
    """A child Python process driven line by line over its stdin/stdout."""

    def __init__(self, script: str, *args: str) -> None:
        self.args = args
        self.script = script
        self.proc = self._start()

    def _start(self) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-c", self.script, *self.args],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        return proc

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()

    def kill_and_restart(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.stop()
        self.proc = self._start()

    def stop(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except BrokenPipeError:
                    pass
        self.proc.wait(timeout=60)


def _old(store: Store, contents: list[bytes], age_s: float) -> list[str]:
    """Store ``contents`` unreferenced and make them look ``age_s`` seconds old."""
    with store.batch() as b:
        digests = [b.put_bytes(c).digest for c in contents]
    then = time.time() - age_s
    for d in digests:
        os.utime(store.object_path(d), (then, then))
    return digests


def _assert_present_and_whole(store: Store, digests: list[str]) -> None:
    lost = [d for d in digests if not store.exists(d)]
    assert lost == [], f"{len(lost)} acknowledged objects were removed by gc: {lost[:3]}"
    for d in digests:
        assert blake3.blake3(store.object_path(d).read_bytes()).hexdigest() == d[7:]


def _check_deep(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LABLEDGER, "check", "--deep"], cwd=project, capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture
def fast_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project on a memory filesystem where there is one (/dev/shm): gc syncs every folder
    it removed from, a few hundred fsyncs a round that a disk shared with other jobs makes
    slow, and durability is not what these rounds test. Elsewhere, in ``tmp_path``."""
    shm = Path("/dev/shm")
    base = Path(tempfile.mkdtemp(prefix="labledger-audit-", dir=shm)) if (
        shm.is_dir() and os.access(shm, os.W_OK)) else tmp_path / "audit"
    project = base / "project"
    project.mkdir(parents=True)
    monkeypatch.setenv("LABLEDGER_ROOT", str(project))
    yield project
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def workers(fast_project: Path) -> Iterator[dict[str, _Worker]]:
    Ledger.init(fast_project).close()
    started = {"put": _Worker(PUTTER, str(fast_project), str(SEED), str(OBJECTS)),
               "gc": _Worker(GC, "1h")}
    yield started
    for worker in started.values():
        worker.stop()


@pytest.mark.slow
def test_gc_never_removes_an_object_a_concurrent_put_found_present(
    fast_project: Path, workers: dict[str, _Worker]
) -> None:
    """Hole 1. Each round stores `OBJECTS` objects two hours old and unreferenced; gc (grace 1h)
    removes them in its order while the writer puts the same contents again from a seeded
    position onward, in the same order, and records them. gc overtakes the writer once a
    round: the object it reaches then is the one a dedup put may find present just before gc
    unlinks it. Some rounds SIGKILL gc or the writer at a seeded moment."""
    rng = random.Random(SEED)
    store = Store(fast_project / ".labledger" / "cas")
    acked: list[str] = []
    for r in range(ROUNDS):
        _old(store, _contents(SEED, r, OBJECTS), age_s=7200)
        workers["put"].send(f"round {r} {rng.randrange(OBJECTS // 6, OBJECTS // 2)}")
        assert workers["put"].read() == "waiting\n"
        workers["gc"].send("go")
        fate = rng.random()
        if fate < 0.1:  # SIGKILL gc mid-way: whatever it removed, it removed whole objects
            time.sleep(rng.uniform(0, 0.05))
            workers["gc"].kill_and_restart()
            workers["gc"].send("go")  # the writer is waiting for gc to begin
        elif fate < 0.2:  # SIGKILL the writer: what it did not get acknowledged may go
            time.sleep(rng.uniform(0, 0.05))
            workers["put"].kill_and_restart()
            assert workers["gc"].read() == "gc exit 0\n"
            continue
        assert workers["gc"].read() == "gc exit 0\n"
        line = workers["put"].read()
        assert line.startswith("acked "), line
        digests = json.loads(line[len("acked "):])
        _assert_present_and_whole(store, digests)
        acked += digests
    _assert_present_and_whole(store, acked)
    done = _check_deep(fast_project)
    assert done.returncode == 0, done.stdout + done.stderr
