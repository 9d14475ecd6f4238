"""Where save_checkpoint's bytes go and what its event names: symlinks written through, the
digest of the bytes this very call wrote (concurrent savers), digest-only durability, and no
checkpoint for a sealed run."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from blake3 import blake3

from labledger.ingest import record_checkpoint, save_checkpoint
from labledger.ingest.capsule import close_capsule
from labledger.ledger.artifacts import open_store
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger

Events = Callable[..., list[dict[str, Any]]]


def b3(data: bytes) -> str:
    return "blake3:" + blake3(data).hexdigest()


def test_a_symlinked_checkpoint_is_written_through_to_its_target(
    ledger: Ledger, tmp_path: Path, torch: ModuleType
) -> None:
    durable = tmp_path / "durable"
    durable.mkdir()
    target = durable / "best.pth"
    torch.save({"w": torch.zeros(2)}, target)
    link = tmp_path / "work" / "linkbest.pth"
    link.parent.mkdir()
    link.symlink_to(target)
    record = save_checkpoint({"w": torch.ones(2)}, link, run="r1", ledger=ledger)
    assert link.is_symlink(), "the link was replaced by a regular file"
    assert os.readlink(link) == str(target)
    loaded = torch.load(target, map_location="cpu", weights_only=True)
    assert torch.equal(loaded["w"], torch.ones(2)), "the bytes did not reach the link's target"
    assert record.body_dict()["digest"] == b3(target.read_bytes())
    assert record.body_dict()["path"] == str(link)
    leftovers = [p.name for d in (durable, link.parent) for p in d.iterdir()
                 if p.name.endswith(".labledger-tmp")]
    assert leftovers == []


def test_a_dangling_symlink_is_written_through_too(
    ledger: Ledger, tmp_path: Path, torch: ModuleType
) -> None:
    target = tmp_path / "durable" / "last.pth"  # its folder does not exist yet
    link = tmp_path / "last.pth"
    link.symlink_to(target)
    save_checkpoint({"w": torch.ones(2)}, link, run="r1", ledger=ledger)
    assert link.is_symlink()
    assert target.is_file()


_SAVER = r"""
import json, sys, warnings
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch
from labledger.ingest import save_checkpoint
import os
index, path, ready, go = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.write(ready, b"r")  # torch is imported
os.close(ready)
os.read(go, 1)  # a pipe: every saver starts when the test closes its write end (EOF)
out = []
for i in range(4):
    rec = save_checkpoint({"w": torch.full((256,), float(index * 100 + i))}, path, run="ddp")
    out.append([index * 100 + i, rec.body_dict()["digest"]])
print(json.dumps(out))
"""


def test_concurrent_savers_each_record_the_bytes_they_wrote(
    ledger: Ledger, project: Path, tmp_path: Path, torch: ModuleType
) -> None:
    path = tmp_path / "ddp" / "last.pth"
    go_read, go_write = os.pipe()
    ready_read, ready_write = os.pipe()
    procs = []
    try:
        for index in range(8):
            procs.append(subprocess.Popen(
                [sys.executable, "-c", _SAVER, str(index), str(path), str(ready_write),
                 str(go_read)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                pass_fds=(ready_write, go_read),
                env={**os.environ, "LABLEDGER_ROOT": str(project)}))
        os.close(ready_write)
        ready = b""
        while len(ready) < 8:  # every saver has imported torch (EOF early: one died)
            chunk = os.read(ready_read, 8)
            if not chunk:
                break
            ready += chunk
    finally:
        for fd in (go_read, go_write, ready_read):
            os.close(fd)  # closing go_write: EOF releases every saver at once
    results = [p.communicate(timeout=120) for p in procs]
    for proc, (_out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
    store = open_store(ledger)
    for out, _err in results:
        for value, digest in json.loads(out):
            saved = torch.load(io.BytesIO(store.read_bytes(digest)), map_location="cpu",
                               weights_only=True)
            assert torch.equal(saved["w"], torch.full((256,), float(value))), (
                f"the event of save {value} names another saver's bytes")


def test_digest_only_fsyncs_the_file_before_recording_it(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_events: Events
) -> None:
    path = tmp_path / "fresh.bin"
    path.write_bytes(b"weights" * 100)
    inode = path.stat().st_ino
    synced: list[int] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:  # os.fsync itself, observed: which files were made durable
        synced.append(os.fstat(fd).st_ino)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    record_checkpoint(path, run="d1", digest_only=True, ledger=ledger)
    assert inode in synced, "checkpoint.saved claims durable bytes that were never fsynced"
    assert [e["kind"] for e in read_events(ledger)] == ["checkpoint.saved"]


def test_a_sealed_run_takes_no_new_checkpoint(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, make_run: Callable[..., Path],
    read_events: Events
) -> None:
    source = make_run("c6")
    close_capsule(source, run="c6", export_root=tmp_path / "export", ledger=ledger)
    before = read_events(ledger)
    late = tmp_path / "late.pth"
    torch.save({"w": torch.ones(2)}, late)
    with pytest.raises(InvalidEventError, match="sealed"):
        record_checkpoint(late, run="c6", role="last", ledger=ledger)
    with pytest.raises(InvalidEventError, match="sealed"):
        save_checkpoint({"w": torch.ones(2)}, tmp_path / "late2.pth", run="c6", ledger=ledger)
    assert not (tmp_path / "late2.pth").exists()
    assert read_events(ledger) == before


def test_close_without_a_run_id_names_close_not_a_checkpoint(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LABLEDGER_RUN", raising=False)
    with pytest.raises(InvalidEventError) as info:
        close_capsule(tmp_path, export_root=tmp_path / "export", ledger=ledger)
    assert "checkpoint" not in str(info.value)
    assert "close" in str(info.value)
    assert "--run" in str(info.value)
