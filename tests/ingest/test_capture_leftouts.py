"""Run-capture defects left open: a writer that pauses half-way, the heartbeat floor,
`close --move` of a read-only tree across filesystems, and SIGINT twice with no terminal.

Real parts only: writer processes that really pause, a second real filesystem (tmpfs under
/dev/shm against the disk under tmp_path), kernel permission checks (as root, the CLI runs with
CAP_DAC_OVERRIDE/CAP_FOWNER dropped from its bounding set, so modes bind it as they bind a
user), and real signals to real process groups without a controlling terminal.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.errors import CheckpointSourceError
from labledger.ingest.run import run_command
from labledger.ledger.ledger import Ledger
from tests.conftest import permissions_enforced

RunFactory = Callable[..., Path]

PY = sys.executable
EXE = str(Path(sys.executable).with_name("labledger"))
Snapshot = Callable[[Path], dict[str, bytes]]

WRITER = textwrap.dedent("""
    import os, sys, time
    path, pause = sys.argv[1], float(sys.argv[2])
    data = os.urandom(1 << 20)
    with open(path, "wb") as fh:
        fh.write(data[: len(data) // 2]); fh.flush(); os.fsync(fh.fileno())
        print("half", flush=True)
        time.sleep(pause)
        fh.write(data[len(data) // 2:]); fh.flush(); os.fsync(fh.fileno())
""")


def events(project: Path, kind: str | None = None) -> list[dict[str, Any]]:
    return [{"kind": r.kind, "run": r.run, **r.body_dict()}
            for r in Ledger.open(project).records() if kind is None or r.kind == kind]


def blake3_of(path: Path) -> str:
    from blake3 import blake3

    return "blake3:" + blake3(path.read_bytes()).hexdigest()


def cli(project: Path, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, *args], cwd=project, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=180, check=False)


@pytest.fixture
def pausing_writer(writer: Callable[..., subprocess.Popen[str]],
                   ) -> Callable[[Path, float], subprocess.Popen[str]]:
    """``start(path, pause)``: a process that writes half of 1 MiB to ``path``, fsyncs, pauses
    ``pause`` seconds, then writes the rest; returned once the first half is on disk."""
    return lambda path, pause: writer(WRITER, path, pause)


# --- 1. a writer that pauses half-way ----------------------------------------------------------
@pytest.mark.parametrize("digest_only", [False, True])
def test_checkpoint_of_a_file_whose_writer_paused_records_the_whole_file(
        ledger: Ledger, project: Path, pausing_writer: Callable[..., subprocess.Popen[str]],
        digest_only: bool) -> None:
    path = project / "best.pth"
    writer = pausing_writer(path, 1.5)  # the half is on disk and still: read "whole" before
    args = ["checkpoint", str(path), "--run", "r1", "--json"]
    proc = cli(project, *args, *(["--digest-only"] if digest_only else []),
               env={"LABLEDGER_SETTLE_S": ""})  # the default settle time
    assert writer.wait(timeout=30) == 0
    assert proc.returncode == 0, proc.stderr
    (saved,) = events(project, "checkpoint.saved")
    assert saved["size"] == 1 << 20  # not the 512 KiB that stood still during the pause
    assert saved["digest"] == blake3_of(path)


def test_a_file_that_never_settles_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    from labledger.ingest.checkpoint import read_settled

    path = tmp_path / "log.bin"
    path.write_bytes(b"x")
    code = textwrap.dedent(f"""
        import time
        with open({str(path)!r}, "ab") as fh:
            while True:
                fh.write(b"y" * 1024); fh.flush(); time.sleep(0.1)
    """)
    writer = subprocess.Popen([PY, "-c", code])
    try:
        started = time.monotonic()
        with pytest.raises(CheckpointSourceError, match="still being written"):
            read_settled(path, lambda: path.read_bytes(), settle=0.5, timeout=2.0)
        assert time.monotonic() - started < 10
    finally:
        writer.kill()
        writer.wait()


def test_settle_zero_reads_at_once_and_an_old_file_costs_no_wait(
        ledger: Ledger, project: Path) -> None:
    path = project / "old.pth"
    path.write_bytes(b"weights")
    os.utime(path, (time.time() - 3600, time.time() - 3600))  # mtime old; ctime is now
    started = time.monotonic()
    proc = cli(project, "checkpoint", str(path), "--run", "r1", "--settle", "0")
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(("args", "env"), [
    (["--settle", "-1"], {}), (["--settle", "nan"], {}), (["--settle", "1e9"], {}),
    ([], {"LABLEDGER_SETTLE_S": "soon"}), ([], {"LABLEDGER_SETTLE_S": "-2"})])
def test_a_bad_settle_time_is_a_usage_error_and_writes_nothing(
        ledger: Ledger, project: Path, snapshot: Snapshot, args: list[str],
        env: dict[str, str]) -> None:
    path = project / "best.pth"
    path.write_bytes(b"weights")
    before = snapshot(project)
    proc = cli(project, "checkpoint", str(path), "--run", "r1", *args, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "settle" in proc.stderr.lower()
    assert snapshot(project) == before


def test_close_never_seals_a_run_file_whose_writer_paused(
        ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory,
        pausing_writer: Callable[..., subprocess.Popen[str]]) -> None:
    # No checkpoint loading: a close then takes well under the writer's pause.
    (project / ".labledger" / "capsule.toml").write_text('load-checkpoints = "never"\n')
    source = make_run("r1")
    writer = pausing_writer(source / "train.csv", 3.0)  # resumes while close still watches
    proc = cli(project, "close", str(source), "--run", "r1", "--export-root",
               str(tmp_path / "export"), env={"LABLEDGER_SETTLE_S": "2"})
    assert writer.wait(timeout=30) == 0
    sealed = tmp_path / "export" / "r1" / "train.csv"
    if proc.returncode == 0:  # it waited for the writer to finish: the whole file
        assert sealed.read_bytes() == (source / "train.csv").read_bytes()
    else:  # or it saw the writer resume and quarantined the candidate: nothing sealed
        assert proc.returncode == 3, proc.stderr
        assert "files changed while the run was being closed (train.csv)" in proc.stderr
        assert not sealed.exists()
        assert events(project, "capsule.sealed") == []
    assert (source / "train.csv").stat().st_size == 1 << 20


# --- 2. the heartbeat floor --------------------------------------------------------------------
@pytest.mark.parametrize("value", ["1e-9", "0.5", "0"])
def test_a_heartbeat_below_one_second_is_refused(ledger: Ledger, project: Path,
                                                 tmp_path: Path, snapshot: Snapshot,
                                                 value: str) -> None:
    ran = tmp_path / "ran"
    before = snapshot(project)
    proc = cli(project, "run", "--heartbeat", value, "--", PY, "-c",
               f"import time; open({str(ran)!r}, 'w'); time.sleep(0.3)")
    assert proc.returncode == 2, proc.stderr
    assert "floor of 1 s" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not ran.exists()
    assert snapshot(project) == before


def test_a_heartbeat_of_one_second_is_taken(ledger: Ledger, project: Path) -> None:
    proc = cli(project, "run", "--run", "hb", "--heartbeat", "1", "--", PY, "-c",
               "import time; time.sleep(1.5)")
    assert proc.returncode == 0, proc.stderr
    (launched,) = events(project, "run.launched")
    assert launched["heartbeat_interval_s"] == 1.0
    assert 1 <= len(events(project, "run.heartbeat")) <= 2


def test_the_floor_is_in_the_help(ledger: Ledger, project: Path) -> None:
    proc = cli(project, "run", "--help")
    assert "at least 1" in " ".join(proc.stdout.split())


# --- 3. close --move of a read-only tree across filesystems -----------------------------------
def _other_filesystem(tmp_path: Path) -> Path | None:
    """A writable folder on another filesystem than ``tmp_path`` (tmpfs /dev/shm), or None."""
    here = os.stat(tmp_path).st_dev
    for candidate in (os.environ.get("LABLEDGER_TEST_OTHER_FS"), "/dev/shm", "/run/shm"):
        if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK) \
                and os.stat(candidate).st_dev != here:
            return Path(candidate)
    return None


MOVE_CLI = textwrap.dedent("""
    import errno, os, sys
    if sys.argv[1] == "exdev":  # no second filesystem: EXDEV at the rename boundary only
        import labledger.ingest.capsule as capsule
        real, source = capsule.rename_noreplace, os.path.realpath(sys.argv[2])
        def rename(src, dst):
            if os.path.realpath(src) == source:
                raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(src))
            return real(src, dst)
        capsule.rename_noreplace = rename
    from labledger.ledger.cli import main
    main(sys.argv[3:])
""")


@pytest.fixture
def elsewhere(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(a folder on another filesystem when there is one, "real"), else (a local folder,
    "exdev": the rename then fails with EXDEV as it would across filesystems)."""
    other = _other_filesystem(tmp_path)
    if other is None:
        base, mode = tmp_path / "elsewhere", "exdev"
    else:
        base, mode = other / f"labledger-test-{os.getpid()}-{time.monotonic_ns()}", "real"
    base.mkdir()
    yield base, mode
    for folder in [base, *base.rglob("*")]:
        if folder.is_dir() and not folder.is_symlink():
            os.chmod(folder, 0o755)
    shutil.rmtree(base, ignore_errors=True)


def _close_move(project: Path, source: Path, run: str, export: Path, mode: str
                ) -> subprocess.CompletedProcess[str]:
    # file modes enforced as for any user (root runs it without the capabilities that bypass them)
    return subprocess.run(
        permissions_enforced([PY, "-c", MOVE_CLI, mode, str(source), "close", str(source),
                              "--run", run, "--export-root", str(export), "--move",
                              "--settle", "0"]),
        cwd=project, capture_output=True, text=True, timeout=180, check=False)


def _read_only(root: Path) -> None:
    for path in sorted(root.rglob("*"), reverse=True) + [root]:
        os.chmod(path, 0o555 if path.is_dir() else 0o444)


def _relocate(run_dir: Path, base: Path) -> Path:
    target = base / run_dir.name
    shutil.copytree(run_dir, target)
    shutil.rmtree(run_dir)
    return target


def test_move_across_filesystems_removes_a_read_only_source_once_sealed(
        ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory,
        elsewhere: tuple[Path, str]) -> None:
    base, mode = elsewhere
    source = _relocate(make_run("r1"), base)
    files = {str(p.relative_to(source)): p.read_bytes() for p in source.rglob("*")
             if p.is_file()}
    _read_only(source)
    export = tmp_path / "export"
    assert mode == "exdev" or os.stat(source).st_dev != os.stat(tmp_path).st_dev
    proc = _close_move(project, source, "r1", export, mode)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not source.exists()
    assert {str(p.relative_to(export / "r1")): p.read_bytes()
            for p in (export / "r1").rglob("*") if p.is_file()} == files
    assert [e["kind"] for e in events(project)][0] == "capsule.sealed"


def test_move_from_a_read_only_folder_is_refused_before_anything_is_copied(
        ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory,
        elsewhere: tuple[Path, str]) -> None:
    base, mode = elsewhere
    source = _relocate(make_run("r1"), base)
    _read_only(base)  # the run and the folder it is in: it cannot be taken out of it
    export = tmp_path / "export"
    proc = _close_move(project, source, "r1", export, mode)
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "--move must take it out of" in line
    assert "nothing was copied" in line
    assert (source / "best.pth").is_file()
    assert not (export / "r1").exists()
    assert events(project) == []


def test_move_keeps_the_whole_source_when_a_folder_cannot_be_made_writable(
        ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory,
        elsewhere: tuple[Path, str]) -> None:
    if os.geteuid() != 0:  # a failure, not a skip: the case would go untested
        pytest.fail("this test chowns a folder to another user, which needs root (CI runs as "
                    "root)")
    base, mode = elsewhere
    source = _relocate(make_run("r1"), base)
    _read_only(source)
    os.chown(source / "test", 65534, 65534)  # read-only and not ours: no chmod either
    before = sorted(str(p) for p in source.rglob("*"))
    export = tmp_path / "export"
    proc = _close_move(project, source, "r1", export, mode)
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "is sealed in" in line
    assert "was kept (nothing in it was deleted)" in line
    assert sorted(str(p) for p in source.rglob("*")) == before  # nothing half-removed
    assert os.stat(source).st_mode & 0o777 == 0o555  # modes put back
    assert (export / "r1" / "best.pth").is_file()
    assert [e["kind"] for e in events(project)][0] == "capsule.sealed"


# --- 4. SIGINT twice with no terminal ---------------------------------------------------------
CHILD = textwrap.dedent("""
    import sys, time
    try:
        print("ready", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:
        print("first", flush=True)  # a graceful stop: save a checkpoint, then exit 5
        try:
            time.sleep(10)
        except KeyboardInterrupt:
            print("second", flush=True)
            sys.exit(7)
        sys.exit(5)
""")


Wrapper = Callable[..., subprocess.Popen[str]]


@pytest.fixture
def wrapper_without_terminal(project: Path) -> Iterator[Wrapper]:
    """``start(run, code=CHILD)``: `labledger run` in a new session (no controlling terminal),
    stdin from /dev/null, returned once the command printed "ready".

    At teardown each wrapper's group and its command (in a group of its own) are killed and
    reaped and their pipes closed: a test that failed while they still ran (a communicate that
    timed out) would otherwise leave them to a later test, whose garbage collection of the
    Popen then warns ("subprocess ... is still running", unclosed pipes) and, with warnings
    as errors, fails that test instead.
    """
    started: list[subprocess.Popen[str]] = []

    def start(run: str, code: str = CHILD) -> subprocess.Popen[str]:
        proc = subprocess.Popen([EXE, "run", "--run", run, "--", PY, "-c", code], cwd=project,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        started.append(proc)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        return proc

    yield start
    for proc in started:
        _kill_wrapper_and_command(proc)


def _kill_wrapper_and_command(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        with contextlib.suppress(OSError):
            for child in children.read_text().split():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(int(child), signal.SIGKILL)  # the command's own group
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@pytest.mark.parametrize("target", ["group", "wrapper"])
def test_sigint_twice_without_a_terminal_reaches_the_child_once_each(
        ledger: Ledger, project: Path, wrapper_without_terminal: Wrapper, target: str) -> None:
    wrapper = wrapper_without_terminal("twice")
    for _ in range(2):
        if target == "group":  # what timeout(1), `kill -INT -PGID` or a supervisor sends
            os.killpg(wrapper.pid, signal.SIGINT)
        else:
            os.kill(wrapper.pid, signal.SIGINT)
        time.sleep(0.5)
    out, err = wrapper.communicate(timeout=60)
    assert out.split() == ["first", "second"], err
    assert wrapper.returncode == 7, err
    (exited,) = events(project, "run.exited")
    assert exited["exit_code"] == 7
    assert "signal" not in exited
    assert exited["extra"]["signals_received"] == ["SIGINT", "SIGINT"]


def test_one_sigint_to_the_group_without_a_terminal_stays_graceful(
        ledger: Ledger, project: Path, wrapper_without_terminal: Wrapper) -> None:
    wrapper = wrapper_without_terminal("once")
    os.killpg(wrapper.pid, signal.SIGINT)
    out, err = wrapper.communicate(timeout=60)
    assert out.split() == ["first"], err  # its cleanup was not interrupted by a duplicate
    assert wrapper.returncode == 5
    (exited,) = events(project, "run.exited")
    assert exited["exit_code"] == 5


def _sleeping(thread_id: int) -> bool:
    """The thread of this process with native id ``thread_id`` is blocked in the kernel."""
    stat = Path(f"/proc/self/task/{thread_id}/stat").read_text()
    return stat.rpartition(")")[2].split()[0] == "S"


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "no-pidfd"])
def test_a_sigint_whose_handler_is_still_pending_when_the_wrapper_waits_reaches_the_command(
        ledger: Ledger, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        pidfd: bool) -> None:
    """The CI flake of `test_one_sigint_to_the_group_without_a_terminal_stays_graceful`.

    A Python signal handler runs in the main thread between two bytecodes, not when the signal
    arrives. A SIGINT that lands after the wrapper's last such point and before its main thread
    blocks in wait4 only sets the handler's flag; the handler then ran when wait4 returned, once
    the command had exited, so the command never got it (it slept its 60 s and the test timed
    out). The same state, made deterministic: another thread takes the SIGINT while the main
    thread is blocked waiting for the command. Without pidfds (macOS, Linux before 5.3, a
    sandbox that refuses pidfd_open) the wrapper waits another way; the signal must still wake it.
    """
    if not pidfd:
        def refused(_pid: int, _flags: int = 0) -> int:
            raise OSError(38, "Function not implemented")
        monkeypatch.setattr(os, "pidfd_open", refused, raising=False)
    ready = tmp_path / "ready"
    code = textwrap.dedent(f"""
        import pathlib, sys, time
        try:
            pathlib.Path({str(ready)!r}).touch()
            time.sleep(30)
        except KeyboardInterrupt:
            sys.exit(5)  # a graceful stop
    """)
    main = threading.main_thread().native_id
    assert main is not None

    def interrupt_once_the_wrapper_waits() -> None:
        deadline = time.monotonic() + 20
        while not (ready.exists() and _sleeping(main)) and time.monotonic() < deadline:
            time.sleep(0.01)
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    helper = threading.Thread(target=interrupt_once_the_wrapper_waits)
    helper.start()
    started = time.monotonic()
    try:
        result = run_command([PY, "-c", code], run="pending", cwd=project)
    finally:
        helper.join()
    assert result.exit_code == 5  # the command got the SIGINT, not its 30 s out
    assert time.monotonic() - started < 20
    (exited,) = events(project, "run.exited")
    assert exited["exit_code"] == 5
    assert exited["extra"]["signals_received"] == ["SIGINT"]


def test_sigkill_to_the_group_still_takes_the_child(ledger: Ledger, project: Path,
                                                     tmp_path: Path,
                                                     wrapper_without_terminal: Wrapper) -> None:
    pid_file = tmp_path / "child.pid"
    code = (f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
            "print('ready', flush=True); time.sleep(60)")
    wrapper = wrapper_without_terminal("killed", code)
    child = int(pid_file.read_text())
    os.killpg(wrapper.pid, signal.SIGKILL)
    wrapper.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{child}/stat").exists() and \
                Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
            break  # dead, waiting for its new parent to reap it
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the command outlived its killed wrapper")


def test_json_errors_carry_the_kept_source(ledger: Ledger) -> None:
    from labledger.ingest.errors import CapsuleSourceKeptError

    error = CapsuleSourceKeptError("r1", Path("/s"), Path("/e/r1"), "a" * 64, "why")
    assert json.loads(json.dumps(error.to_json(), default=str))["source"] == "/s"
