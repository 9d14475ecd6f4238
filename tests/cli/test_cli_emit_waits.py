"""`labledger emit` while another process holds the writer's lock: it says so, waits, and a
Ctrl-C while it waits ends it cleanly (exit 130, no traceback, nothing written).

Real processes: a second Python holds the real `flock`, the real console script waits on it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

_HOLD = """
import fcntl, sys, time
fd = open(sys.argv[1], "a+")
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()  # hold until told
"""


def _hold_lock(ledger: Ledger) -> subprocess.Popen[str]:
    ledger.append("note", text="first")  # the writer's folder and lock exist
    lock = ledger.paths.segments / ledger.writer / ".lock"
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n"
    return holder


def _emit(project: Path, *extra: str) -> subprocess.Popen[str]:
    exe = Path(sys.executable).with_name("labledger")
    return subprocess.Popen([str(exe), "emit", "note", "--set", "text=second", *extra],
                            cwd=project, env=os.environ.copy(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for(proc: subprocess.Popen[str], text: str, seconds: float = 60.0) -> str:
    """Read ``proc``'s stderr until it says ``text`` (it is then waiting on the lock): no
    fixed sleep that a slow machine could outrun. Returns what it read."""
    assert proc.stderr is not None
    fd = proc.stderr.fileno()
    os.set_blocking(fd, False)
    seen = b""
    deadline = time.monotonic() + seconds
    while text.encode() not in seen:
        assert time.monotonic() < deadline, f"never said {text!r}: {seen!r}"
        assert proc.poll() is None, (seen, proc.communicate())
        try:
            chunk = os.read(fd, 65536)  # the fd itself: the text wrapper has buffered nothing
        except BlockingIOError:
            chunk = b""
        if chunk:
            seen += chunk
        else:
            time.sleep(0.02)
    os.set_blocking(fd, True)
    return seen.decode()


@pytest.mark.parametrize("extra", [(), ("-q",)], ids=["fast-path", "full-cli"])
def test_emit_says_it_waits_for_the_lock_then_appends(ledger: Ledger, project: Path,
                                                      extra: tuple[str, ...]) -> None:
    holder = _hold_lock(ledger)
    try:
        emit = _emit(project, *extra)
        said = _wait_for(emit, "waiting for the writer lock")
    finally:
        holder.communicate("go\n", timeout=30)
    out, err = emit.communicate(timeout=60)
    assert emit.returncode == 0, said + err
    assert "waiting for the writer lock" in said
    assert [r.body_dict()["text"] for r in Ledger.open(project).records()] == ["first", "second"]


@pytest.mark.parametrize("extra", [(), ("--json",)], ids=["text", "json"])
def test_ctrl_c_while_waiting_ends_cleanly_and_writes_nothing(
        ledger: Ledger, project: Path, extra: tuple[str, ...],
        snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    holder = _hold_lock(ledger)
    try:
        before = snapshot(ledger.paths.segments)
        emit = _emit(project, *extra)
        said = _wait_for(emit, "waiting for the writer lock")
        emit.send_signal(signal.SIGINT)
        _, err = emit.communicate(timeout=60)
        err = said + err
    finally:
        holder.communicate("go\n", timeout=30)
    assert emit.returncode == 130
    assert "Traceback" not in err
    assert "labledger: interrupted" in err
    if extra:
        assert err.strip().splitlines()[-1].startswith('{"type": "exit_error", "code": 130')
    assert snapshot(ledger.paths.segments) == before
