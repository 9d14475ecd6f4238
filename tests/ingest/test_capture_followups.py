"""Follow-ups of the settle/heartbeat/signal work: `ingest-dir` waits for files to settle, the
heartbeat floor lives in the API, a late signal cannot change `labledger run`'s exit status, and
a group SIGTERM/SIGHUP reaches the command once when the wrapper has a terminal.

Real parts only: writer processes that really pause, real `labledger` processes, real signals,
and a real pseudo-terminal (``os.openpty``) made the wrapper's controlling terminal.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import termios
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from tests.ingest.test_capture_leftouts import WRITER, events

PY = sys.executable
EXE = str(Path(sys.executable).with_name("labledger"))

NEVER_STILL = textwrap.dedent("""
    import sys, time
    end = time.monotonic() + float(sys.argv[2])
    with open(sys.argv[1], "ab") as fh:
        print("started", flush=True)
        while time.monotonic() < end:
            fh.write(b"x" * 100); fh.flush(); time.sleep(0.05)
""")


def blake3_of(path: Path) -> str:
    from blake3 import blake3

    return "blake3:" + blake3(path.read_bytes()).hexdigest()


def cli(project: Path, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, *args], cwd=project, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=180, check=False)


# --- 1. ingest-dir waits for its files to settle ------------------------------------------------
def _run_dir(project: Path) -> Path:
    run_dir = project / "runs" / "r1"
    (run_dir / "test").mkdir(parents=True)
    (run_dir / "train.csv").write_text("step,loss\n1,0.5\n")
    return run_dir


def test_ingest_dir_records_the_whole_file_of_a_writer_that_paused(
        ledger: Ledger, project: Path, writer: Callable[..., subprocess.Popen[str]]) -> None:
    run_dir = _run_dir(project)
    results = run_dir / "test" / "results.bin"
    proc = writer(WRITER, results, 1.2)  # the half is on disk and still: read "whole" before
    out = cli(project, "ingest-dir", str(run_dir), "--run", "r1", "--settle", "1", "--json")
    assert proc.wait(timeout=30) == 0
    assert out.returncode == 0, out.stderr
    recorded = {e["path"]: e for e in events(project, "artifact.recorded")}
    got = recorded[str(results)]
    assert got["size"] == 1 << 20  # not the 512 KiB that stood still during the pause
    assert got["digest"] == blake3_of(results)


def test_ingest_run_dir_takes_the_settle_time_from_the_environment(
        ledger: Ledger, project: Path, writer: Callable[..., subprocess.Popen[str]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from labledger.ingest.run_dir import ingest_run_dir

    monkeypatch.setenv("LABLEDGER_SETTLE_S", "1")
    run_dir = _run_dir(project)
    results = run_dir / "results.bin"
    proc = writer(WRITER, results, 1.2)
    done = ingest_run_dir(run_dir, run="r1", ledger=ledger)
    assert proc.wait(timeout=30) == 0
    sizes = {e["path"]: e["size"] for e in events(project, "artifact.recorded")}
    assert sizes[str(results)] == 1 << 20
    assert done.bytes == (1 << 20) + len("step,loss\n1,0.5\n")


def test_ingest_dir_of_files_long_finished_costs_no_wait(ledger: Ledger, project: Path) -> None:
    run_dir = _run_dir(project)
    old = time.time() - 3600
    os.utime(run_dir / "train.csv", (old, old))
    started = time.monotonic()
    out = cli(project, "ingest-dir", str(run_dir), "--run", "r1", "--settle", "5")
    # ctime (which no one can set back) is a few ms old: the wait is 2 x 5 s at most, once
    assert out.returncode == 0, out.stderr
    assert time.monotonic() - started < 30


def test_ingest_dir_that_never_settles_is_refused_and_records_nothing(
        ledger: Ledger, project: Path, writer: Callable[..., subprocess.Popen[str]]) -> None:
    run_dir = _run_dir(project)
    writer(NEVER_STILL, run_dir / "log.txt", 30.0)
    out = cli(project, "ingest-dir", str(run_dir), "--run", "r1", "--settle", "0.5")
    assert out.returncode == 1
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert "still being written" in lines[0]
    assert "Traceback" not in out.stderr
    assert events(project) == []


@pytest.mark.parametrize(("args", "env"), [(["--settle", "-1"], {}), (["--settle", "nan"], {}),
                                      ([], {"LABLEDGER_SETTLE_S": "soon"})])
def test_a_bad_settle_time_for_ingest_dir_is_a_usage_error(
        ledger: Ledger, project: Path, args: list[str], env: dict[str, str]) -> None:
    run_dir = _run_dir(project)
    out = cli(project, "ingest-dir", str(run_dir), "--run", "r1", *args, env=env)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert events(project) == []


# --- 2. the heartbeat floor is the API's ---------------------------------------------------------
@pytest.mark.parametrize("interval", [0.2, 0.999, 1e-9, True])
def test_the_api_refuses_a_heartbeat_below_the_floor(ledger: Ledger, project: Path,
                                                     tmp_path: Path, interval: float) -> None:
    from labledger.ingest.run import run_command

    marker = tmp_path / "ran"
    with pytest.raises(InvalidEventError, match="heartbeat"):
        run_command(["touch", str(marker)], run="r1", heartbeat=interval, cwd=project)
    assert not marker.exists()
    assert events(project) == []


def test_the_api_and_the_command_line_share_one_floor(ledger: Ledger, project: Path) -> None:
    from labledger.ingest.run import MIN_HEARTBEAT_S, run_command
    from labledger.ledger.cli.run import MIN_HEARTBEAT_S as CLI_FLOOR

    assert MIN_HEARTBEAT_S == CLI_FLOOR == 1.0
    result = run_command([PY, "-c", "pass"], run="r1", heartbeat=MIN_HEARTBEAT_S, cwd=project)
    assert result.exit_code == 0
    (launched,) = events(project, "run.launched")
    assert launched["heartbeat_interval_s"] == 1.0


# --- 3. a signal after run.exited does not change the wrapper's exit status ----------------------
def test_sigints_after_the_exit_is_recorded_leave_the_commands_exit_status(
        ledger: Ledger, project: Path) -> None:
    """The command ignores SIGINT and exits 7; SIGINTs keep coming to the wrapper until it is
    gone (an impatient user, a supervisor that repeats itself). Its status is the command's."""
    code = ("import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(0.5); raise SystemExit(7)")
    wrapper = subprocess.Popen([EXE, "run", "--run", "late", "--", PY, "-c", code], cwd=project,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert wrapper.stdout is not None
    assert wrapper.stdout.readline() == "ready\n"
    deadline = time.monotonic() + 60
    while wrapper.poll() is None and time.monotonic() < deadline:
        os.kill(wrapper.pid, signal.SIGINT)  # the wrapper alone: it forwards them
        time.sleep(0.0005)
    _, err = wrapper.communicate(timeout=60)
    (exited,) = events(project, "run.exited")
    assert exited["exit_code"] == 7
    assert wrapper.returncode == 7, err
    assert "interrupted" not in err
    assert "Traceback" not in err


# --- 4. with a terminal: a group SIGTERM or SIGHUP reaches the command once ----------------------
COUNTER = textwrap.dedent("""
    import os, signal, sys, time
    log, ready = sys.argv[1], sys.argv[2]
    first = []
    def note(signum, frame):
        with open(log, "a") as fh:
            fh.write(signal.Signals(signum).name + "\\n")
        first.append(time.monotonic())
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, note)
    open(ready, "w").close()
    end = time.monotonic() + 60
    while time.monotonic() < end and (not first or time.monotonic() - first[0] < 1.5):
        time.sleep(0.02)  # a duplicate, forwarded later, would be noted meanwhile
""")

SHELL = textwrap.dedent("""
    import subprocess, sys
    job = subprocess.Popen(sys.argv[2:], process_group=0)  # a background job: `cmd &`
    open(sys.argv[1], "w").write(str(job.pid))
    raise SystemExit(job.wait())
""")


def _on_a_terminal(argv: list[str], cwd: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``argv`` as the leader of a new session whose controlling terminal is a fresh
    pseudo-terminal (its foreground group is the leader's); returns it and the master side."""
    master, slave = os.openpty()

    def take_terminal() -> None:  # after setsid(): make the pty the controlling terminal
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=slave, stdout=slave, stderr=slave,
                                start_new_session=True, preexec_fn=take_terminal)
    finally:
        os.close(slave)
    return proc, master


def _wait_for(path: Path, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert proc.poll() is None, f"ended before {what}"
        assert time.monotonic() < deadline, f"no {what} within 60 s"
        time.sleep(0.02)


def _while_stopped(wrapper: int, send: Callable[[], object]) -> None:
    """``send()`` while the wrapper is stopped, then let it go on: whatever reached the command
    directly is handled before the wrapper can forward anything, so a duplicate arrives on its
    own (two close signals of one kind could merge into one) and is counted."""
    os.kill(wrapper, signal.SIGSTOP)
    try:
        time.sleep(0.2)
        send()
        time.sleep(0.5)
    finally:
        os.kill(wrapper, signal.SIGCONT)


def _finish(proc: subprocess.Popen[bytes], master: int) -> str:
    try:
        proc.wait(timeout=60)
    finally:
        output = b""
        os.set_blocking(master, False)
        try:
            while chunk := os.read(master, 65536):
                output += chunk
        except OSError:
            pass
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return output.decode("utf-8", "replace")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_background_job_with_a_terminal_a_group_signal_reaches_the_command_once(
        ledger: Ledger, project: Path, tmp_path: Path, signum: int) -> None:
    """`labledger run ... &` (or under `timeout`) in an interactive shell: the wrapper has a
    controlling terminal but is not its foreground job; `kill -TERM -PGID` reaches it once."""
    log, ready, pid_file = tmp_path / "signals", tmp_path / "ready", tmp_path / "wrapper.pid"
    shell, master = _on_a_terminal(
        [PY, "-c", SHELL, str(pid_file), EXE, "run", "--run", "bg", "--", PY, "-c", COUNTER,
         str(log), str(ready)], project)
    try:
        _wait_for(ready, shell, "the command's ready file")
        wrapper = int(pid_file.read_text())
        assert os.getpgid(wrapper) == wrapper != os.getpgid(shell.pid)  # a background job
        _while_stopped(wrapper, lambda: os.killpg(wrapper, signum))
    finally:
        output = _finish(shell, master)
    assert shell.returncode == 0, output
    assert log.read_text().split() == [signal.Signals(signum).name], output
    (exited,) = events(project, "run.exited")
    assert exited["exit_code"] == 0
    assert exited["extra"]["signals_received"] == [signal.Signals(signum).name]


def test_foreground_job_a_group_sighup_reaches_the_command_once(
        ledger: Ledger, project: Path, tmp_path: Path) -> None:
    """The foreground job of a terminal keeps the command in its group (so it owns the
    terminal); a SIGHUP to that group (the shell's to its job; a hangup's to the foreground
    group) already reached the command, so it is not forwarded a second time."""
    log, ready = tmp_path / "signals", tmp_path / "ready"
    wrapper, master = _on_a_terminal(
        [EXE, "run", "--run", "fg", "--", PY, "-c", COUNTER, str(log), str(ready)], project)
    try:
        _wait_for(ready, wrapper, "the command's ready file")
        _while_stopped(wrapper.pid, lambda: os.killpg(wrapper.pid, signal.SIGHUP))
    finally:
        output = _finish(wrapper, master)
    assert wrapper.returncode == 0, output
    assert log.read_text().split() == ["SIGHUP"], output
    (exited,) = events(project, "run.exited")
    assert exited["extra"]["signals_received"] == ["SIGHUP"]


def test_foreground_job_ctrl_c_still_reaches_the_command_once(
        ledger: Ledger, project: Path, tmp_path: Path) -> None:
    """Ctrl-C typed at the terminal (docs/runs.md): the command, in the wrapper's foreground
    group, gets it from the terminal, and the wrapper does not forward a duplicate."""
    log, ready = tmp_path / "signals", tmp_path / "ready"
    wrapper, master = _on_a_terminal(
        [EXE, "run", "--run", "ctrl-c", "--", PY, "-c", COUNTER, str(log), str(ready)], project)
    try:
        _wait_for(ready, wrapper, "the command's ready file")
        # Ctrl-C: the terminal's VINTR character goes to its foreground group
        _while_stopped(wrapper.pid, lambda: os.write(master, b"\x03"))
    finally:
        output = _finish(wrapper, master)
    assert wrapper.returncode == 0, output
    assert log.read_text().split() == ["SIGINT"], output
    (exited,) = events(project, "run.exited")
    assert exited["extra"]["signals_received"] == ["SIGINT"]
