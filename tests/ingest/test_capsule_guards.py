"""What `close` refuses before it seals: a run still running, a run another close is closing,
files that change while they are closed, a torn temp file of save_checkpoint, an export root
under a file; and advice that is true when it refuses."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest import capsule as capsule_module
from labledger.ingest.capsule import close_capsule
from labledger.ingest.errors import (
    CapsuleBusyError,
    CapsuleExistsError,
    CapsuleInterruptedError,
    CapsuleQuarantinedError,
    CapsuleRunningError,
)
from labledger.ledger.artifacts import open_store
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger

Events = Callable[..., list[dict[str, Any]]]
Snapshot = Callable[[Path], dict[str, bytes]]
RunFactory = Callable[..., Path]

_WAITER = "import sys; print('ready', flush=True); sys.stdin.read()"
_WRITER = ("import sys\n"
           "fh = open(sys.argv[1], 'a')\n"
           "print('ready', flush=True)\n"
           "i = 0\n"
           "while True:\n"
           "    fh.write(f'{i},0.1\\n'); fh.flush(); i += 1\n")


def _wrapped(project: Path, run: str, code: str, *args: str) -> subprocess.Popen[str]:
    """`labledger run --run RUN -- python -c CODE ARGS`, started; returns once CODE printed
    'ready' (so run.launched is recorded)."""
    exe = Path(sys.executable).with_name("labledger")
    proc = subprocess.Popen([str(exe), "run", "-q", "--run", run, "--", sys.executable, "-c",
                             code, *args], cwd=project, env=os.environ.copy(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n", proc.stderr.read() if proc.stderr else ""
    return proc


def _finish(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()  # forwarded to the command by the wrapper
    proc.communicate(timeout=60)


def test_a_running_run_is_refused_until_it_exits(
    ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory, read_events: Events,
    snapshot: Snapshot
) -> None:
    source, export = make_run("mv1"), tmp_path / "export"
    proc = _wrapped(project, "mv1", _WAITER)
    try:
        before = snapshot(source)
        events = read_events(ledger)
        with pytest.raises(CapsuleRunningError, match="--allow-running"):
            close_capsule(source, run="mv1", export_root=export, move=True, ledger=ledger)
        assert snapshot(source) == before
        assert read_events(ledger) == events
        assert not (export / "mv1").exists()
        proc.communicate("", timeout=60)  # EOF: the command exits, run.exited is recorded
    finally:
        _finish(proc)
    sealed = close_capsule(source, run="mv1", export_root=export, move=True, ledger=ledger)
    assert Path(sealed.path).is_dir()


def test_files_that_change_during_the_close_fail_it(
    ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory, read_events: Events
) -> None:
    source, export = make_run("w1"), tmp_path / "export"
    proc = _wrapped(project, "w1", _WRITER, str(source / "train.csv"))
    try:
        with pytest.raises(CapsuleQuarantinedError) as info:
            close_capsule(source, run="w1", export_root=export, allow_running=True,
                          ledger=ledger)
    finally:
        _finish(proc)
    assert any("changed while" in p and "train.csv" in p for p in info.value.problems)
    assert read_events(ledger, "capsule.sealed") == []
    assert not (export / "w1").exists()


def test_a_moved_run_that_is_still_written_is_not_sealed(
    ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory, read_events: Events
) -> None:
    source, export = make_run("w2"), tmp_path / "export"
    proc = _wrapped(project, "w2", _WRITER, str(source / "train.csv"))
    try:
        with pytest.raises(CapsuleQuarantinedError) as info:
            close_capsule(source, run="w2", export_root=export, move=True, allow_running=True,
                          ledger=ledger)
    finally:
        _finish(proc)
    assert any("changed while" in p for p in info.value.problems)
    assert read_events(ledger, "capsule.sealed") == []


def test_a_torn_temp_file_of_save_checkpoint_is_refused(
    ledger: Ledger, tmp_path: Path, make_run: RunFactory
) -> None:
    source = make_run("t1")
    (source / ".last.pth.0a1b2c3d4e5f.labledger-tmp").write_bytes(b"PK\x03\x04 torn")
    with pytest.raises(CapsuleQuarantinedError) as info:
        close_capsule(source, run="t1", export_root=tmp_path / "export", ledger=ledger)
    assert any("*.labledger-tmp" in p and ".last.pth.0a1b2c3d4e5f.labledger-tmp" in p
               for p in info.value.problems)


def test_a_second_close_of_the_same_run_is_refused_while_one_runs(
    ledger: Ledger, tmp_path: Path, make_run: RunFactory, read_events: Events,
    snapshot: Snapshot
) -> None:
    source, export = make_run("c1"), tmp_path / "export"
    before = snapshot(source)
    # Another close holds the run's lock (a real flock, from another open file description).
    (export / ".partial").mkdir(parents=True)
    fd = os.open(export / ".partial" / ".lock-c1", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(CapsuleBusyError, match="in progress"):
            close_capsule(source, run="c1", export_root=export, ledger=ledger)
    finally:
        os.close(fd)
    assert snapshot(source) == before
    assert read_events(ledger) == []
    assert sorted(os.listdir(export / ".partial")) == [".lock-c1"]
    close_capsule(source, run="c1", export_root=export, ledger=ledger)  # released: it works


def test_an_export_root_under_a_file_is_bad_input(
    ledger: Ledger, tmp_path: Path, make_run: RunFactory, read_events: Events
) -> None:
    source = make_run("e1")
    (tmp_path / "afile").write_text("\n")
    with pytest.raises(InvalidEventError, match="afile.*not a directory"):
        close_capsule(source, run="e1", export_root=tmp_path / "afile" / "sub", ledger=ledger)
    with pytest.raises(InvalidEventError, match="quarantine-root"):
        close_capsule(source, run="e1", export_root=tmp_path / "export",
                      quarantine_root=tmp_path / "afile", ledger=ledger)
    assert read_events(ledger) == []
    assert not (tmp_path / "export").exists()


def test_a_sealed_run_is_not_told_to_try_another_export_root(
    ledger: Ledger, tmp_path: Path, make_run: RunFactory
) -> None:
    source = make_run("s1")
    close_capsule(source, run="s1", export_root=tmp_path / "export", ledger=ledger)
    for root in ("export", "other"):
        with pytest.raises(CapsuleExistsError) as info:
            close_capsule(source, run="s1", export_root=tmp_path / root, ledger=ledger)
        assert "--export-root" not in str(info.value)


def test_the_advice_for_a_tampered_partial_of_a_sealed_run_works(
    ledger: Ledger, tmp_path: Path, make_run: RunFactory, snapshot: Snapshot,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    source, export = make_run("p1"), tmp_path / "export"
    with monkeypatch.context() as patch:  # interrupted between the record and the rename
        patch.setattr(capsule_module, "rename_noreplace",
                      lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        with pytest.raises(KeyboardInterrupt):
            close_capsule(source, run="p1", export_root=export, ledger=ledger)
    partial = export / ".partial" / "p1"
    (partial / "train.csv").write_text("edited after sealing\n")
    with pytest.raises(CapsuleInterruptedError) as info:
        close_capsule(source, run="p1", export_root=export, ledger=ledger)
    message = str(info.value)
    assert "cas get" in message
    digest = message.split("cas get ", 1)[1].split()[0]
    # Follow the advice: move the partial away, restore the sealed capsule from the store.
    partial.rename(tmp_path / "tampered")
    open_store(ledger).get(digest, export / "p1")
    assert snapshot(export / "p1") == snapshot(source)


def test_a_run_closed_while_running_stays_sealed(
    ledger: Ledger, project: Path, tmp_path: Path, make_run: RunFactory
) -> None:
    source = make_run("f1")
    proc = _wrapped(project, "f1", _WAITER)
    try:
        close_capsule(source, run="f1", export_root=tmp_path / "export", allow_running=True,
                      ledger=ledger)
        proc.communicate("", timeout=60)  # run.exited comes after the seal
    finally:
        _finish(proc)
    con = ledger.query()
    try:
        [(state,)] = con.execute("SELECT state FROM runs WHERE run = 'f1'").fetchall()
    finally:
        con.close()
    assert state == "sealed"
