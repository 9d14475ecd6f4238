"""A closure interrupted between its record and its rename: closing again finishes it.

`close` records `capsule.sealed` before it renames ``.partial/<run>`` into place, so no capsule
is ever in place without its record. A process really SIGKILLed at that point, a Ctrl-C, and a
failed rename each leave a recorded capsule in ``.partial/``; the same close again checks that
tree's digest and puts it in place, and a run already sealed is never closed twice.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest import CapsuleExistsError, CapsuleInterruptedError, close_capsule
from labledger.ingest import capsule as capsule_module
from labledger.ingest.errors import CapsuleUnplacedError
from labledger.ledger.ledger import Ledger

Events = Callable[..., list[dict[str, Any]]]
Snapshot = Callable[[Path], dict[str, bytes]]
RunFactory = Callable[..., Path]

_KILLED_AT_RENAME = textwrap.dedent("""
    import os, signal, sys
    from labledger.ingest import capsule
    def die(*_args):  # the moment between the record and the rename
        os.kill(os.getpid(), signal.SIGKILL)
    capsule.rename_noreplace = die
    capsule.close_capsule(sys.argv[1], run="r1", export_root=sys.argv[2])
""")


def _assert_interrupted(ledger: Ledger, export: Path, read_events: Events) -> dict[str, Any]:
    (sealed,) = read_events(ledger, "capsule.sealed")
    assert (export / ".partial" / "r1").is_dir()
    assert not (export / "r1").exists()
    return sealed


def _assert_finished(ledger: Ledger, export: Path, read_events: Events, sealed: dict[str, Any],
                     source: Path, snapshot: Snapshot) -> None:
    again = close_capsule(source, run="r1", export_root=export, ledger=ledger)
    assert again.digest == sealed["digest"]
    assert snapshot(export / "r1") == snapshot(source)
    assert not (export / ".partial" / "r1").exists()
    assert read_events(ledger, "capsule.sealed") == [sealed]  # recorded once
    assert read_events(ledger, "capsule.quarantined") == []


def test_sigkill_between_record_and_rename_is_finished_by_closing_again(
        ledger: Ledger, make_run: RunFactory, tmp_path: Path, project: Path,
        read_events: Events, snapshot: Snapshot) -> None:
    source, export = make_run("r1"), tmp_path / "export"
    proc = subprocess.run([sys.executable, "-c", _KILLED_AT_RENAME, str(source), str(export)],
                          cwd=project, env=os.environ.copy(), capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    sealed = _assert_interrupted(ledger, export, read_events)
    _assert_finished(ledger, export, read_events, sealed, source, snapshot)


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), OSError(5, "Input/output error")],
                         ids=["ctrl-c", "rename-fails"])
def test_an_interrupted_or_failed_rename_is_finished_by_closing_again(
        ledger: Ledger, make_run: RunFactory, tmp_path: Path, read_events: Events,
        snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch, failure: BaseException) -> None:
    source, export = make_run("r1"), tmp_path / "export"

    def fail(*_args: object) -> None:
        raise failure

    with monkeypatch.context() as patch:
        patch.setattr(capsule_module, "rename_noreplace", fail)
        expected = (KeyboardInterrupt if isinstance(failure, KeyboardInterrupt)
                    else CapsuleUnplacedError)
        with pytest.raises(expected) as info:
            close_capsule(source, run="r1", export_root=export, ledger=ledger)
    if isinstance(info.value, CapsuleUnplacedError):
        assert "run the same `labledger close` again" in str(info.value)
    sealed = _assert_interrupted(ledger, export, read_events)
    _assert_finished(ledger, export, read_events, sealed, source, snapshot)


def test_a_sealed_run_is_never_closed_again(ledger: Ledger, make_run: RunFactory,
                                            tmp_path: Path, read_events: Events) -> None:
    export, source = tmp_path / "export", make_run("r1")
    close_capsule(source, run="r1", export_root=export, ledger=ledger)
    with pytest.raises(CapsuleExistsError, match="run r1 is already sealed"):
        close_capsule(source, run="r1", export_root=tmp_path / "elsewhere", ledger=ledger)
    assert not (tmp_path / "elsewhere").exists()
    assert len(read_events(ledger, "capsule.sealed")) == 1


def test_a_partial_that_is_not_the_recorded_tree_is_refused_and_kept(
        ledger: Ledger, make_run: RunFactory, tmp_path: Path, read_events: Events,
        snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch) -> None:
    source, export = make_run("r1"), tmp_path / "export"
    with monkeypatch.context() as patch:
        patch.setattr(capsule_module, "rename_noreplace",
                      lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        with pytest.raises(KeyboardInterrupt):
            close_capsule(source, run="r1", export_root=export, ledger=ledger)
    partial = export / ".partial" / "r1"
    (partial / "train.csv").write_text("edited after sealing\n")
    before = snapshot(partial)
    with pytest.raises(CapsuleInterruptedError):
        close_capsule(source, run="r1", export_root=export, ledger=ledger)
    assert snapshot(partial) == before
    assert not (export / "r1").exists()


def test_a_sealed_run_id_is_never_launched_again(
        ledger: Ledger, make_run: RunFactory, tmp_path: Path, project: Path,
        read_events: Events) -> None:
    close_capsule(make_run("r1"), run="r1", export_root=tmp_path / "export", ledger=ledger)
    ran = tmp_path / "ran"
    exe = Path(sys.executable).with_name("labledger")
    proc = subprocess.run([str(exe), "run", "--run", "r1", "--", sys.executable, "-c",
                           f"open({str(ran)!r}, 'w')"], cwd=project, env=os.environ.copy(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2
    assert "run 'r1' is sealed" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not ran.exists()
    assert read_events(ledger, "run.launched") == []
