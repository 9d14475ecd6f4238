"""Every writer that stores objects and then records events naming them holds `cas gc` off in
between (`Store.holding_off_gc`): `labledger run`'s launch, `emit --attach`, `close` and `pull`.

Each test pauses a real CLI process between its put and its append, and runs
`labledger cas gc --grace 0 --no-dry-run` then: before, gc removed the new objects (no event
named them yet) and the event recorded afterwards named bytes that were gone. The oracle is
`labledger check --deep`. The pause is real: another process of the same ledger writer holds the
writer's lock (as a second DDP rank mid-append, or a long `compact`, does), so the writer's
append waits; `close` waits out its own settle time (``--settle``) between the two.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from labledger.ledger.ledger import Ledger
from tests.cas.test_cas_durability_audit import _check_deep, _run_dir
from tests.conftest import Sshd

LABLEDGER = str(Path(sys.executable).with_name("labledger"))


def _objects(project: Path) -> list[Path]:
    return sorted((project / ".labledger" / "cas" / "objects").glob("*/*"))


@contextlib.contextmanager
def _flocked(path: Path) -> Iterator[Callable[[], None]]:
    """Hold ``path`` (created if need be) under an exclusive flock until the yielded release is
    called or the block ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    held = [fd]

    def release() -> None:
        if held:
            os.close(held.pop())

    try:
        yield release
    finally:
        release()


def _writer_lock(project: Path) -> Path:
    return project / ".labledger" / "ledger" / os.environ["LABLEDGER_WRITER"] / ".lock"


def _wait_until(done: Callable[[], bool], proc: subprocess.Popen[str]) -> None:
    """Until ``done()``; fails if ``proc`` ended first."""
    while not done():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)


def _gc_then(project: Path, release: Callable[[], None]) -> subprocess.CompletedProcess[str]:
    """Run `cas gc --grace 0 --no-dry-run` while the writer is paused; once gc says it waits
    for the writer (or is done: it did not wait), ``release`` lets the writer go on."""
    gc = subprocess.Popen([LABLEDGER, "cas", "gc", "--grace", "0", "--no-dry-run"],
                          cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert gc.stderr is not None
    first = gc.stderr.readline()  # "waiting for the commands storing objects ...", or EOF
    release()
    out, err = gc.communicate(timeout=120)
    return subprocess.CompletedProcess(gc.args, gc.returncode, out, first + err)


def _assert_whole(project: Path) -> None:
    done = _check_deep(project)
    assert done.returncode == 0, done.stdout + done.stderr


def _paused_by_writer_lock(project: Path, argv: list[str], objects: int) -> None:
    """Run ``argv`` while its append waits for the writer lock; gc runs once ``objects`` new
    objects are stored; then the writer goes on."""
    with _flocked(_writer_lock(project)) as release:
        writer = subprocess.Popen([LABLEDGER, *argv], cwd=project, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        _wait_until(lambda: len(_objects(project)) >= objects, writer)
        gc = _gc_then(project, release)
    out, err = writer.communicate(timeout=120)
    assert (writer.returncode, gc.returncode) == (0, 0), (out, err, gc.stderr)


def test_run_launch_holds_gc_off_until_run_launched(ledger: Ledger, project: Path,
                                                     tmp_path: Path) -> None:
    config = _run_dir(tmp_path / "work") / "hparams.yaml"
    _paused_by_writer_lock(project, ["run", "--run", "r1", "--config", str(config), "--",
                                     sys.executable, "-c", "pass"], objects=1)
    assert [r.kind for r in Ledger.open(project).records()][:1] == ["run.launched"]
    _assert_whole(project)


def test_emit_attach_holds_gc_off_until_its_events(ledger: Ledger, project: Path,
                                                   tmp_path: Path) -> None:
    run = _run_dir(tmp_path / "work")
    _paused_by_writer_lock(project, ["emit", "note", "--run", "r1", "--set", "text=epoch 1",
                                     "--attach", str(run / "hparams.yaml"),
                                     "--attach", str(run / "metrics.csv")], objects=2)
    _assert_whole(project)


def test_close_holds_gc_off_through_its_settle_wait(ledger: Ledger, project: Path) -> None:
    """close stores the capsule, then waits out the rest of twice its settle time before it
    records capsule.sealed: gc --grace 0 ran in that wait."""
    # the Lightning folder is the whole capsule: no run.json, checkpoint or tests required
    (ledger.paths.home / "capsule.toml").write_text(
        'required = ["metrics.csv"]\nmin-tests = 0\nload-checkpoints = "never"\n')
    source = _run_dir(project / "active")
    writer = subprocess.Popen([LABLEDGER, "close", str(source), "--run", "v0", "--export-root",
                               "export", "--settle", "2"], cwd=project, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    _wait_until(lambda: len(_objects(project)) >= 3, writer)  # the tree and its two files
    gc = _gc_then(project, lambda: None)
    out, err = writer.communicate(timeout=120)
    assert (writer.returncode, gc.returncode) == (0, 0), (out, err, gc.stderr)
    _assert_whole(project)


def _ledger_says(project: Path, kind: str) -> bool:
    folder = _writer_lock(project).parent
    return any(f'"{kind}"'.encode() in p.read_bytes() for p in folder.glob("*.jsonl"))


def test_pull_holds_gc_off_from_its_commit_until_artifact_pulled(
        pull_project: Path, project: Path, tmp_path: Path, sshd: Sshd) -> None:
    """pull records pull.listed, receives, commits the batch, then appends artifact.pulled.
    Over ssh the box hashes with SHA-256 only (no BLAKE3 there), so pull.listed names no
    object digest and nothing but the pull itself protects the new objects. The test takes
    gc's lock first (as a running gc does), so the pull cannot store before the writer lock is
    held; once it is, the pull commits and waits to append."""
    box = _run_dir(tmp_path / "box")
    gc_lock = project / ".labledger" / "cas" / "gc.lock"
    with _flocked(gc_lock) as release_gc, _flocked(_writer_lock(project)) as release_writer:
        release_writer()  # pull.listed must get through
        writer = subprocess.Popen([LABLEDGER, "pull", "--run", "r1", "--from", sshd.target(box),
                                   "--identity", str(sshd.client_key), "--accept-new-host-key"],
                                  cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        _wait_until(lambda: _ledger_says(project, "pull.listed"), writer)
        with _flocked(_writer_lock(project)) as release:
            release_gc()
            _wait_until(lambda: len(_objects(project)) >= 2, writer)
            gc = _gc_then(project, release)
    out, err = writer.communicate(timeout=120)
    assert (writer.returncode, gc.returncode) == (0, 0), (out, err, gc.stderr)
    _assert_whole(project)
