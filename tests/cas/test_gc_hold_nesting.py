"""`cas/gc.lock` held once per process however deeply nested, said when waited for, and made
readable by a store's other users (review of the lock's first version).

* nested holds (a writer's hold, a batch's, each put's) share one descriptor: on NFS, where
  flock is emulated by POSIX record locks owned by the process, closing an inner descriptor
  released the outer hold; and each put paid an open, a flock and a close;
* a put waiting for a running gc says so on stderr (a training loop's checkpoint stalled in
  silence), and gc's own wait for writers is said with ``-q`` and ``--json`` too;
* ``gc.lock`` is created readable by all, whatever the umask (it is locked through a read-only
  descriptor, so the other users of a group-shared store can take it);
* `record_attachment` of the ledger's own folder is refused before the store is made.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from labledger.cas.gc import GC_LOCK, hold_off_gc
from labledger.ledger.artifacts import open_store, record_attachment
from labledger.ledger.ledger import Ledger

LABLEDGER = str(Path(sys.executable).with_name("labledger"))

# Holds gc.lock (EX or SH) until its stdin closes, saying "held" once it has it.
HOLDER = textwrap.dedent("""
    import fcntl, os, sys
    fd = os.open(sys.argv[1], os.O_RDONLY | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX if sys.argv[2] == "ex" else fcntl.LOCK_SH)
    print("held", flush=True)
    sys.stdin.read()
""")


def _lock_fds(lock: Path) -> int:
    """This process's open descriptors of ``lock``."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir()
               if os.path.realpath(fds / fd.name) == str(lock.resolve()))


def _exclusive_now(lock: Path) -> bool:
    """Whether another process could take ``lock`` exclusively at once (a gc, right now)."""
    probe = ("import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY)\ntry:\n"
             "    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError:\n"
             "    sys.exit(1)\n")
    return subprocess.run([sys.executable, "-c", probe, str(lock)], check=False).returncode == 0


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[object]:
    started: list[subprocess.Popen[str]] = []

    def hold(lock: Path, mode: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock), mode],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        started.append(proc)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "held\n"
        return proc

    yield hold
    for proc in started:
        proc.kill()
        proc.communicate()


def _wait_for(proc: subprocess.Popen[bytes], path: Path, words: str) -> str:
    """``path``'s text (the process's stderr) once it holds ``words``; fails if it exits first."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = path.read_text()
        if words in text:
            return text
        assert proc.poll() is None, text
        time.sleep(0.05)
    raise AssertionError(f"{words!r} never said: {path.read_text()!r}")


def test_nested_holds_share_one_descriptor_and_hold_until_the_outermost_ends(
        ledger: Ledger, tmp_path: Path) -> None:
    store = open_store(ledger)
    store.init()
    lock = store.root / GC_LOCK
    sources = []
    for i in range(3):
        sources.append(tmp_path / f"f{i}.txt")
        sources[-1].write_text(f"object {i}\n")
    with store.holding_off_gc():
        assert _lock_fds(lock) == 1
        with store.batch() as batch, hold_off_gc(store):
            for source in sources:
                batch.put_file(source)
            assert _lock_fds(lock) == 1
        store.put(sources[0])  # an inner put's hold ends: the outer one still holds
        assert _lock_fds(lock) == 1
        assert not _exclusive_now(lock)
    assert _lock_fds(lock) == 0
    assert _exclusive_now(lock)


def test_a_put_waiting_for_a_running_gc_says_so_then_stores(
        project: Path, ledger: Ledger, tmp_path: Path, holder: object) -> None:
    store = open_store(ledger)
    store.init()
    gc = holder(store.root / GC_LOCK, "ex")  # type: ignore[operator]
    (tmp_path / "best.pt").write_bytes(b"weights")
    err = tmp_path / "put.err"
    with err.open("w") as stderr:
        put = subprocess.Popen([LABLEDGER, "cas", "put", str(tmp_path / "best.pt")],
                               cwd=project, stdout=subprocess.PIPE, stderr=stderr)
    said = _wait_for(put, err, "waiting for `labledger cas gc` to finish removing objects")
    assert str(store.root / GC_LOCK) in said
    gc.communicate(timeout=60)  # type: ignore[attr-defined]  # (closes its stdin: it lets go)
    out, _ = put.communicate(timeout=60)
    assert put.returncode == 0, err.read_text()
    assert out.decode().startswith("blake3:")
    assert "Traceback" not in err.read_text()


@pytest.mark.parametrize("flags", [["-q"], ["--json"]])
def test_gc_says_it_waits_for_writers_even_quiet_or_json(
        project: Path, ledger: Ledger, tmp_path: Path, holder: object,
        flags: list[str]) -> None:
    store = open_store(ledger)
    store.init()
    writer = holder(store.root / GC_LOCK, "sh")  # type: ignore[operator]
    err = tmp_path / "gc.err"
    with err.open("w") as stderr:
        gc = subprocess.Popen([LABLEDGER, *flags, "cas", "gc", "--grace", "0", "--no-dry-run"],
                              cwd=project, stdout=subprocess.PIPE, stderr=stderr)
    _wait_for(gc, err, "waiting for the commands storing objects")
    writer.communicate(timeout=60)  # type: ignore[attr-defined]
    gc.communicate(timeout=60)
    assert gc.returncode == 0, err.read_text()


def test_the_lock_file_is_readable_by_the_stores_other_users_whatever_the_umask(
        project: Path, ledger: Ledger, tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text('{"acc": 0.9}\n')
    proc = subprocess.run([LABLEDGER, "cas", "put", str(tmp_path / "m.json")], cwd=project,
                          capture_output=True, text=True, check=False,
                          preexec_fn=lambda: os.umask(0o077))  # noqa: PLW1509 - one call
    assert proc.returncode == 0, proc.stderr
    mode = (open_store(ledger).root / GC_LOCK).stat().st_mode & 0o777
    assert mode == 0o644, oct(mode)


def test_attaching_the_ledgers_own_folder_is_refused_before_the_store_is_made(
        project: Path, ledger: Ledger) -> None:
    def tree() -> set[str]:
        return {str(p.relative_to(project)) for p in (project / ".labledger").rglob("*")}

    before = tree()
    with pytest.raises(Exception, match="ledger"):
        record_attachment(ledger, project / ".labledger")
    assert tree() == before
