"""A file still held open for writing by a live process is not settled, however long it stood.

`labledger checkpoint`, `ingest-dir` and `close` wait while another process on this machine
holds a file they read open with write access (``O_WRONLY``/``O_RDWR``, seen in ``/proc``),
and refuse (or quarantine) naming that process when it never closes it. A reader is no writer,
settle 0 turns the look off, and a process this one may not inspect is skipped without a word.

Real parts only: real writer, reader and holder processes, real ``/proc``, the real CLI, and
the kernel's own ptrace access check (as root the CLI runs without CAP_SYS_PTRACE against a
holder that made itself non-dumpable, as another user's process would be closed to it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from labledger.ingest._writers import open_writers
from labledger.ingest.errors import CheckpointSourceError
from labledger.ledger.ledger import Ledger
from tests.ingest.conftest import RunFactory
from tests.ingest.test_capture_leftouts import EXE, WRITER, blake3_of, cli, events

Start = Callable[..., subprocess.Popen[str]]

# A training log kept open for the whole run, one tab-separated row per epoch, flushed each
# time, closed at the end: the shape of the `Logger` in bearpaw/pytorch-classification
# (utils/logger.py), written with our own columns and numbers. Five epochs go out, then the run
# pauses (``argv[2]`` seconds: validation, a checkpoint) with the file still open, then five
# more, then it is closed.
LOG_WRITER = textwrap.dedent("""
    import os, sys, time
    path, pause = sys.argv[1], float(sys.argv[2])
    log = open(path, "w")
    log.write("Epoch\\tLR\\tTrain Loss\\tVal Loss\\tVal PSNR\\t\\n")
    def epochs(first, last):
        for epoch in range(first, last):
            loss = 0.9 / (epoch + 1)
            log.write(f"{epoch}\\t{0.001:.6f}\\t{loss:.6f}\\t{loss * 1.1:.6f}\\t"
                      f"{24 + epoch * 0.7:.6f}\\t\\n")
            log.flush()
    epochs(0, 5)
    os.fsync(log.fileno())
    print("half", flush=True)
    time.sleep(pause)
    epochs(5, 10)
    log.close()
""")

# Holds a finished file open (mode ``argv[3]``) and writes nothing.
HOLDER = textwrap.dedent("""
    import ctypes, sys, time
    path, seconds, mode, hidden = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    held = open(path, mode)
    if hidden == "hidden":  # PR_SET_DUMPABLE 0: /proc/PID/fd closed to all but CAP_SYS_PTRACE
        assert ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) == 0
    print("started", flush=True)
    time.sleep(seconds)
""")


def hold(path: Path, mode: str, *, hidden: bool = False) -> subprocess.Popen[str]:
    """A process holding ``path`` open with ``mode`` ("rb", "ab", "r+b") until killed."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), "600", mode,
                             "hidden" if hidden else "shown"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"
    return proc


@pytest.fixture
def holders() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    procs: list[subprocess.Popen[str]] = []

    def start(path: Path, mode: str, *, hidden: bool = False) -> subprocess.Popen[str]:
        procs.append(hold(path, mode, hidden=hidden))
        return procs[-1]

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def file_id(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


def without_ptrace(argv: list[str]) -> list[str]:
    """``argv`` run without CAP_SYS_PTRACE, so the kernel closes a non-dumpable process's
    ``/proc/PID/fd`` to it as it closes another user's (as root this needs util-linux's
    ``setpriv``; without it the test fails rather than judge nothing)."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("running as root without setpriv (util-linux): CAP_SYS_PTRACE cannot be "
                    "dropped, so this test would judge nothing")
    return [setpriv, "--bounding-set=-sys_ptrace", "--inh-caps=-sys_ptrace", *argv]


def log_rows(path: Path) -> int:
    return len(path.read_text().splitlines()) - 1


# --- the scan itself -----------------------------------------------------------------------------
def test_the_scan_finds_writers_by_identity_and_never_a_reader(
        tmp_path: Path, holders: Start) -> None:
    written, rdwr, read = (tmp_path / n for n in ("train.log", "best.pth", "config.yaml"))
    for path in (written, rdwr, read):
        path.write_bytes(b"done\n")
    writer = holders(written, "ab")
    both = holders(rdwr, "r+b")
    holders(read, "rb")
    moved = tmp_path / "renamed.log"
    written.rename(moved)  # found by (st_dev, st_ino), not by the name it was opened under
    found = open_writers({file_id(moved), file_id(rdwr), file_id(read)})
    assert [(w.pid, w.file) for w in found] == sorted(
        [(writer.pid, file_id(moved)), (both.pid, file_id(rdwr))])
    assert all("python" in w.command and "\n" not in w.command for w in found)
    assert open_writers(set()) == []


def test_this_process_is_never_its_own_writer(tmp_path: Path) -> None:
    path = tmp_path / "train.log"
    with open(path, "w") as fh:
        fh.write("epoch 0\n")
        fh.flush()
        assert open_writers({file_id(path)}) == []


# --- a writer that pauses longer than the settle time is waited for ----------------------------
def test_checkpoint_waits_for_a_writer_that_pauses_longer_than_the_settle_time(
        ledger: Ledger, project: Path, writer: Start) -> None:
    path = project / "best.pth"
    proc = writer(WRITER, path, 1.5)  # the half stands still for 7 settle times
    out = cli(project, "checkpoint", str(path), "--run", "r1", "--settle", "0.2", "--json")
    assert proc.wait(timeout=30) == 0
    assert out.returncode == 0, out.stderr
    (saved,) = events(project, "checkpoint.saved")
    assert saved["size"] == 1 << 20  # not the 512 KiB written before the pause
    assert saved["digest"] == blake3_of(path)


def test_ingest_dir_waits_for_a_log_held_open_across_a_pause(
        ledger: Ledger, project: Path, writer: Start) -> None:
    run_dir = project / "runs" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "config.yaml").write_text("lr: 0.001\nbatch: 8\n")
    log = run_dir / "log.txt"
    proc = writer(LOG_WRITER, log, 1.5)
    out = cli(project, "ingest-dir", str(run_dir), "--run", "r1", "--settle", "0.2")
    assert proc.wait(timeout=30) == 0
    assert out.returncode == 0, out.stderr
    recorded = {e["path"]: e for e in events(project, "artifact.recorded")}
    assert log_rows(log) == 10
    assert recorded[str(log)]["digest"] == blake3_of(log)


def test_close_waits_for_a_log_held_open_across_a_pause(
        ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory,
        writer: Start) -> None:
    (project / ".labledger" / "capsule.toml").write_text('load-checkpoints = "never"\n')
    source = make_run("r1")
    proc = writer(LOG_WRITER, source / "log.txt", 1.5)
    out = cli(project, "close", str(source), "--run", "r1", "--export-root",
              str(tmp_path / "export"), "--settle", "0.2")
    assert proc.wait(timeout=30) == 0
    assert out.returncode == 0, out.stderr
    sealed = tmp_path / "export" / "r1" / "log.txt"
    assert log_rows(sealed) == 10
    assert sealed.read_bytes() == (source / "log.txt").read_bytes()


# --- a writer that never closes is refused by name ----------------------------------------------
def test_checkpoint_of_a_file_whose_writer_never_closes_is_refused_naming_it(
        ledger: Ledger, project: Path, writer: Start) -> None:
    path = project / "best.pth"
    proc = writer(WRITER, path, 600.0)  # half written, then held open and never closed
    out = cli(project, "checkpoint", str(path), "--run", "r1", "--settle", "0.2")
    assert out.returncode == 1
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert "still being written" in lines[0]
    assert f"held open for writing by pid {proc.pid} (" in lines[0]
    assert "never closed" in lines[0]
    assert "Traceback" not in out.stderr
    assert events(project) == []


def test_read_settled_waits_for_a_read_write_holder_then_names_it(
        tmp_path: Path, holders: Start) -> None:
    from labledger.ingest.checkpoint import read_settled

    path = tmp_path / "last.pth"
    path.write_bytes(b"weights")
    holder = holders(path, "r+b")
    with pytest.raises(CheckpointSourceError, match=f"by pid {holder.pid} "):
        read_settled(path, lambda: path.read_bytes(), settle=0.2, timeout=1.0)


def test_close_quarantines_a_run_whose_log_is_never_closed_naming_the_writer(
        ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory,
        writer: Start) -> None:
    (project / ".labledger" / "capsule.toml").write_text('load-checkpoints = "never"\n')
    source = make_run("r1")
    proc = writer(LOG_WRITER, source / "log.txt", 600.0)
    out = cli(project, "close", str(source), "--run", "r1", "--export-root",
              str(tmp_path / "export"), "--settle", "0.2")
    assert out.returncode == 3, out.stderr
    assert f"log.txt is still held open for writing by pid {proc.pid} (" in out.stderr
    assert not (tmp_path / "export" / "r1").exists()
    (quarantined,) = events(project, "capsule.quarantined")
    reason = (Path(quarantined["path"]) / "REASON.txt").read_text()
    assert f"pid {proc.pid}" in reason


# --- what does not hold a file back --------------------------------------------------------------
def test_a_reader_does_not_hold_the_file_back(
        ledger: Ledger, project: Path, holders: Start) -> None:
    path = project / "best.pth"
    path.write_bytes(b"finished weights")
    holders(path, "rb")
    out = cli(project, "checkpoint", str(path), "--run", "r1", "--settle", "0.2")
    assert out.returncode == 0, out.stderr
    (saved,) = events(project, "checkpoint.saved")
    assert saved["digest"] == blake3_of(path)


def test_settle_zero_does_not_look_for_writers(
        ledger: Ledger, project: Path, writer: Start) -> None:
    path = project / "best.pth"
    writer(WRITER, path, 600.0)
    out = cli(project, "checkpoint", str(path), "--run", "r1", "--settle", "0")
    assert out.returncode == 0, out.stderr  # 0: read at once, as documented
    (saved,) = events(project, "checkpoint.saved")
    assert saved["size"] == 1 << 19


def test_a_writer_this_process_may_not_inspect_is_skipped_silently(
        ledger: Ledger, project: Path, holders: Start) -> None:
    path = project / "best.pth"
    path.write_bytes(b"finished weights")
    holder = holders(path, "ab", hidden=True)
    exe = str(Path(sys.executable).with_name("labledger"))
    out = subprocess.run(without_ptrace([exe, "checkpoint", str(path), "--run", "r1",
                                         "--settle", "0.2"]),
                         cwd=project, capture_output=True, text=True, timeout=180, check=False)
    assert out.returncode == 0, out.stderr  # today's rule: still long enough is settled
    (saved,) = events(project, "checkpoint.saved")
    assert saved["digest"] == blake3_of(path)
    assert out.stderr.splitlines() == [f"stored {saved['digest']}  {path}"]  # no word more
    # the same holder is found by a process that may inspect it (root, or its own user)
    assert [w.pid for w in open_writers({file_id(path)})] == (
        [holder.pid] if os.geteuid() == 0 else [])


# A training script that records its own run as its last step while its stdout is redirected
# into the run's folder: the script (labledger's parent) holds the log open for writing, and is
# waiting for labledger, not writing.
PARENT_RECORDS = textwrap.dedent("""
    import os, subprocess, sys, time
    print("epoch 9 val psnr 30.10", flush=True)
    if os.environ.get("WITH_WORKER"):  # a DataLoader worker: a fork holding the same stdout
        worker = os.fork()
        if worker == 0:
            time.sleep(60)
            os._exit(0)
    code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
    if os.environ.get("WITH_WORKER"):
        os.kill(worker, 9)
    sys.exit(code)
""")


@pytest.mark.parametrize("worker", [False, True])
def test_the_processes_labledger_was_started_by_are_no_writers(
        ledger: Ledger, project: Path, worker: bool) -> None:
    log = project / "train.log"
    with open(log, "w") as out:  # the script's stdout: inherited, held open for writing
        done = subprocess.run(
            [sys.executable, "-c", PARENT_RECORDS, EXE, "checkpoint", str(log), "--run", "r1",
             "--settle", "0.2"],
            stdout=out, stderr=subprocess.PIPE, text=True, cwd=project, timeout=60,
            env={**os.environ, "WITH_WORKER": "1" if worker else ""})
    assert done.returncode == 0, done.stderr
    (saved,) = events(project, "checkpoint.saved")
    assert saved["digest"] == blake3_of(log)
