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


# A Lightning CSVLogger run folder (lightning_logs/version_N/metrics.csv, read back by
# purefunctor/auraloss examples/distance/report.py): our own columns and numbers.
def _run_dir(root: Path) -> Path:
    run = root / "lightning_logs" / "version_0"
    run.mkdir(parents=True)
    (run / "hparams.yaml").write_text("lr: 0.0003\nbatch_size: 64\n")
    (run / "metrics.csv").write_text(
        "epoch,step,train_loss_epoch,val_loss\n0,99,0.912,\n0,99,,0.874\n1,199,0.655,\n"
        "1,199,,0.641\n")
    return run


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    """Until ``path`` exists (the writer stored it); fails if the writer ended first."""
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)


@pytest.mark.parametrize("command", ["ingest-dir", "checkpoint"])
def test_gc_grace_0_waits_for_a_writer_between_its_put_and_its_event(
    ledger: Ledger, project: Path, tmp_path: Path, command: str
) -> None:
    """Hole 2. With --settle, ingest-dir and checkpoint store the bytes, wait out the settle
    time still watching the source, and only then record the event: `cas gc --grace 0` run in
    between removed the new object, and the event then named bytes that were gone."""
    run = _run_dir(tmp_path / "work")
    source = run if command == "ingest-dir" else run / "metrics.csv"
    watched = Store(ledger.paths.cas).object_path(
        "blake3:" + blake3.blake3((run / "metrics.csv").read_bytes()).hexdigest())
    writer = subprocess.Popen([LABLEDGER, command, str(source), "--settle", "2", "--run", "r1"],
                              cwd=project,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(watched, writer)  # stored; its event is at least a settle time away
    gc = subprocess.run([LABLEDGER, "cas", "gc", "--grace", "0", "--no-dry-run"], cwd=project,
                        capture_output=True, text=True, timeout=120, check=False)
    out, err = writer.communicate(timeout=120)
    assert (writer.returncode, gc.returncode) == (0, 0), (err, gc.stderr)
    assert watched.exists()
    done = _check_deep(project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_gc_does_not_create_a_store_nor_need_one(project: Path, ledger: Ledger) -> None:
    """gc takes its lock in the store's root: with no store there is nothing to lock, and
    gc leaves the project as it found it."""
    store = Store(project / "nowhere" / "cas")
    report = store.gc(iter(()), grace_seconds=0, dry_run=False)
    assert report.removed == ()
    assert not store.root.exists()


@pytest.fixture
def small_full_fs(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs (mounting needs root); unmounted lazily afterwards."""
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_put_larger_than_the_free_space_fails_cleanly(
    small_full_fs: Path, tmp_path: Path, snapshot: object
) -> None:
    """`cas put` of a file bigger than the store's filesystem has room for: exit 1 with one
    line saying the store is full, no object under its digest, no temp file left, and the
    project (ledger and store) byte for byte as it was."""
    from tests.conftest import _snapshot

    project = small_full_fs / "project"
    project.mkdir()
    env = {**os.environ, "LABLEDGER_ROOT": str(project)}
    subprocess.run([LABLEDGER, "init"], cwd=project, env=env, check=True, capture_output=True)
    small = tmp_path / "config.yaml"
    small.write_text("model: resnet18\nepochs: 90\n")
    subprocess.run([LABLEDGER, "cas", "put", str(small)], cwd=project, env=env, check=True,
                   capture_output=True)
    big = tmp_path / "last.ckpt"
    big.write_bytes(random.Random(23).randbytes(6 << 20))
    digest = "blake3:" + blake3.blake3(big.read_bytes()).hexdigest()
    before = _snapshot(project)
    put = subprocess.run([LABLEDGER, "--json", "cas", "put", str(big)], cwd=project, env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert put.returncode == 1, put.stderr
    error = json.loads(put.stderr.strip().splitlines()[-1])
    assert error["error"] == "StoreFullError"
    assert "no space left" in error["message"]
    assert "Traceback" not in put.stderr
    store = Store(project / ".labledger" / "cas")
    assert not store.exists(digest)
    assert [p.name for p in store.tmp_dir.iterdir()] == []
    assert _snapshot(project) == before
    done = subprocess.run([LABLEDGER, "check", "--deep"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
