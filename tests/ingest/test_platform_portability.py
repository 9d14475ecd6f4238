"""What a Mac laptop (the usual place a run is pulled to) lacks does not break a pull.

macOS has no ``os.fdatasync`` (Python leaves it out there) and no ``/proc``. Before, a pull
to a Mac died with an AttributeError traceback in the thread that syncs received files, and
its checkpoint loader child died opening ``/proc/self/status``, so every checkpoint failed
verification. macOS itself cannot run here: the tests take away what it lacks (the function,
the file) and run the real pull and the real loader child with real PyTorch checkpoints.
Syncs on macOS use ``fcntl(F_FULLFSYNC)`` (its ``fsync`` stops at the drive's cache); the
tests check that a filesystem refusing that command falls back to ``fsync``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import ModuleType

import pytest

from labledger.cas import _fs as cas_fs
from labledger.ingest import checkpoint_load
from labledger.ingest.checkpoint_load import load_checkpoints
from labledger.ledger import durable
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The descriptors ``os.fsync`` was called on (it still syncs them)."""
    calls: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def _checkpoint(torch: ModuleType, path: Path) -> None:
    torch.save({"model_state_dict": {"w": torch.ones(3, 3)}, "epoch": 3}, path)


def test_a_pull_where_os_has_no_fdatasync(
        monkeypatch: pytest.MonkeyPatch, ledger: Ledger, tmp_path: Path, torch: ModuleType,
        capsys: pytest.CaptureFixture[str], synced: list[int]) -> None:
    box = tmp_path / "box"
    (box / "ckpt").mkdir(parents=True)
    (box / "metrics.json").write_text('{"psnr": 31.42}')
    _checkpoint(torch, box / "ckpt" / "last.pth")
    monkeypatch.delattr(os, "fdatasync")  # as on macOS
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--from-dir", str(box))
    assert code == 0, err
    assert "Traceback" not in err
    files = {f["path"]: f for f in json.loads(out)["files"]}
    assert files["ckpt/last.pth"]["checkpoint_ok"] is True
    assert synced  # the received files were synced by fsync instead


def test_the_checkpoint_child_loads_where_there_is_no_proc(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, torch: ModuleType) -> None:
    good = tmp_path / "last.pth"
    _checkpoint(torch, good)
    monkeypatch.setattr(checkpoint_load, "PROC_STATUS", str(tmp_path / "no-proc" / "status"))
    [result] = load_checkpoints([good], memory_limit=1 << 30)
    assert result.ok, result.error


def test_the_two_copies_are_one_definition() -> None:
    """The store's copy of the sync (it never imports the ledger) is the ledger's, word for
    word after the docstring."""
    import inspect

    def body(function: object) -> str:
        return inspect.getsource(function).split('"""')[2]  # type: ignore[arg-type]

    assert body(durable.sync_file) == body(cas_fs.sync_file)
    assert inspect.getsource(durable._full_fsync_command) == \
        inspect.getsource(cas_fs._full_fsync_command)


def test_a_filesystem_refusing_full_fsync_gets_fsync(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, synced: list[int]) -> None:
    """On macOS a sync is ``fcntl(F_FULLFSYNC)``; a filesystem that refuses it (a network
    share) is synced with ``fsync``. Here Linux's fcntl refuses the command number itself."""
    monkeypatch.setattr(durable, "_FULL_FSYNC", 51)  # F_FULLFSYNC's number on macOS
    monkeypatch.setattr(cas_fs, "_FULL_FSYNC", 51)
    path = tmp_path / "data"
    with open(path, "wb") as fh:
        fh.write(b"bytes that must survive")
        fh.flush()
        durable.sync_data(fh.fileno())
        durable.sync_file(fh.fileno())
        cas_fs.sync_file(fh.fileno())
        assert synced == [fh.fileno()] * 3


def test_where_full_fsync_works_it_is_the_whole_sync(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """When the command succeeds, nothing else is called (F_GETFD stands in for it: a
    command every filesystem accepts)."""
    import fcntl

    monkeypatch.setattr(durable, "_FULL_FSYNC", fcntl.F_GETFD)
    monkeypatch.setattr(cas_fs, "_FULL_FSYNC", fcntl.F_GETFD)

    def fsync(fd: int) -> None:
        raise AssertionError("fsync after a full sync")

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.delattr(os, "fdatasync")
    with open(tmp_path / "data", "wb") as fh:
        durable.sync_file(fh.fileno())
        durable.sync_data(fh.fileno())
        cas_fs.sync_file(fh.fileno())


def test_on_linux_a_data_sync_is_fdatasync(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    called: list[str] = []
    real = os.fdatasync

    def fdatasync(fd: int) -> None:
        called.append("fdatasync")
        real(fd)

    monkeypatch.setattr(os, "fdatasync", fdatasync)
    with open(tmp_path / "data", "wb") as fh:
        durable.sync_data(fh.fileno())
    assert called == ["fdatasync"]


@pytest.mark.parametrize("module", [durable, cas_fs], ids=["ledger", "store"])
def test_an_io_error_from_full_fsync_is_raised_not_papered_over(
        module: object, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only "not supported" falls back to fsync: after an EIO, macOS's fsync could return
    success with the bytes still in the drive's cache, and the append would count as durable."""
    import errno
    import fcntl

    monkeypatch.setattr(module, "_FULL_FSYNC", 51)

    def failing(fd: int, command: int, *args: object) -> int:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(fcntl, "fcntl", failing)

    def fsync(fd: int) -> None:
        raise AssertionError("fsync after an I/O error")

    monkeypatch.setattr(os, "fsync", fsync)
    with open(tmp_path / "data", "wb") as fh, pytest.raises(OSError, match="Input/output"):
        module.sync_file(fh.fileno())  # type: ignore[attr-defined]
