"""Capture review: `close` and `ingest-dir` as a researcher uses them, from inside the run folder,
on a read-only finished run, at the project root; the checkpoint loader on an old torch."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.capsule import close_capsule
from labledger.ingest.checkpoint_load import load_checkpoints
from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from tests.conftest import permissions_enforced

RunFactory = Callable[..., Path]
Snapshot = Callable[[Path], dict[str, bytes]]


def test_move_from_inside_the_run_with_a_dotdot_export_root_seals_it(
    ledger: Ledger, make_run: RunFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `cd active/r1 && labledger close . --move --export-root ../../export`: the export root
    # was <source>/../../export, which stopped resolving once the source was renamed away: a
    # FileNotFoundError traceback, the files stranded in export/.partial, nothing recorded.
    source = make_run("r1")
    monkeypatch.chdir(source)
    sealed = close_capsule(".", run="r1", export_root="../../export", move=True, ledger=ledger)
    destination = tmp_path / "export" / "r1"
    assert sealed.path == str(destination)
    assert (destination / "best.pth").is_file()
    assert not os.path.lexists(tmp_path / "export" / ".partial" / "r1")
    [event] = [r.body_dict() for r in ledger.records() if r.kind == "capsule.sealed"]
    assert event["path"] == str(destination)


def test_a_copied_capsule_is_recorded_without_dotdot_in_its_path(
    ledger: Ledger, make_run: RunFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = make_run("r2")
    monkeypatch.chdir(source)
    sealed = close_capsule(".", run="r2", export_root="../../export", ledger=ledger)
    [event] = [r.body_dict() for r in ledger.records() if r.kind == "capsule.sealed"]
    assert ".." not in Path(event["path"]).parts
    assert event["path"] == sealed.path == str(tmp_path / "export" / "r2")


def test_close_refuses_the_project_root_that_holds_the_ledger(
    ledger: Ledger, project: Path, tmp_path: Path, snapshot: Snapshot
) -> None:
    # `labledger close . --move` at the project root renamed the ledger itself into
    # export/.partial; a copy would put the ledger and the whole store into the capsule.
    (project / "train.csv").write_text("step,loss\n1,0.5\n")
    before = snapshot(project)
    with pytest.raises(InvalidEventError, match="ledger"):
        close_capsule(project, run="whole", export_root=tmp_path / "export", move=True,
                      ledger=ledger)
    assert snapshot(project) == before
    assert not (tmp_path / "export").exists()


def test_a_read_only_finished_run_can_be_closed(
    ledger: Ledger, make_run: RunFactory, project: Path, tmp_path: Path
) -> None:
    # `chmod -R a-w active/r3` protects finished results; the copy gave each folder its
    # read-only mode before copying what it holds, so the closure failed and was quarantined.
    source = make_run("r3")
    os.chmod(source / "test" / "t1", 0o555)
    os.chmod(source / "test", 0o555)
    try:
        exe = str(Path(sys.executable).with_name("labledger"))
        done = subprocess.run(
            permissions_enforced([exe, "close", str(source), "--run", "r3", "--export-root",
                                  str(tmp_path / "export")]),
            capture_output=True, text=True, cwd=project, timeout=300, check=False)
    finally:
        os.chmod(source / "test", 0o755)
        os.chmod(source / "test" / "t1", 0o755)
    assert done.returncode == 0, done.stderr
    capsule = tmp_path / "export" / "r3"
    assert (capsule / "test" / "t1" / "metrics.json").is_file()
    assert (os.stat(capsule / "test" / "t1").st_mode & 0o777) == 0o555  # modes still copied
    assert not (tmp_path / "quarantine").exists()


def test_ingest_dir_takes_the_instance_from_the_environment(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `labledger run --instance box1` exports LABLEDGER_INSTANCE; checkpoint used it,
    # ingest-dir recorded instance null.
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "train.csv").write_text("step,loss\n1,0.5\n")
    monkeypatch.setenv("LABLEDGER_INSTANCE", "box1")
    ingest_run_dir(folder, run="o1", ledger=ledger)
    assert {r.instance for r in ledger.records()} == {"box1"}


def test_ingest_dir_refuses_the_project_root(
    ledger: Ledger, project: Path, snapshot: Snapshot
) -> None:
    # `labledger ingest-dir .` at the project root stored the ledger and every stored object
    # again (the store doubled on each call), as `cas put .` and `emit --attach .` refuse to.
    (project / "train.csv").write_text("step,loss\n1,0.5\n")
    before = snapshot(project)
    with pytest.raises(InvalidEventError, match="ledger"):
        ingest_run_dir(project, run="whole", ledger=ledger)
    assert snapshot(project) == before


_FAKE_TORCH = '''
__version__ = "2.5.1"
class Tensor: pass
def load(path, *args, **kwargs):
    open(path + ".loaded", "w").write("weights_only=%r" % (kwargs.get("weights_only"),))
    return {"w": Tensor()}
'''


def test_the_loader_refuses_a_torch_older_than_2_6(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # torch < 2.6: weights_only=True can run code from a crafted file (CVE-2025-32434), so a
    # "safe load" there proves nothing and must not be attempted.
    fake = tmp_path / "fake"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text(_FAKE_TORCH)
    monkeypatch.setenv("PYTHONPATH", str(fake))
    checkpoint = tmp_path / "best.pth"
    checkpoint.write_bytes(b"not really a checkpoint")
    [result] = load_checkpoints([checkpoint], timeout=60)
    assert not result.ok
    assert result.error is not None
    assert "2.5.1" in result.error
    assert "2.6" in result.error
    assert not Path(str(checkpoint) + ".loaded").exists()


def test_the_loader_still_loads_with_the_installed_torch(
    tmp_path: Path, torch: Any
) -> None:
    checkpoint = tmp_path / "best.pth"
    torch.save({"w": torch.ones(2)}, checkpoint)
    [result] = load_checkpoints([checkpoint], timeout=120)
    assert result.ok, result.error
