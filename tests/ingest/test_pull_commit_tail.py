"""The very last step of a pull's store commit fails: syncing the object folders after the
renames (an fsync of a directory that reports EIO).

Then the received files are in the store, under their digests, and their ``pull-*.partial``
files are gone (moved in); nothing was recorded for them (an event never names an object whose
directory entry a crash could still take away). Before, the next pull found neither a partial
nor an event and sent every byte again. Now the failing pull says what happened (a
`PullWriteError`, exit 1), and the next one finds the objects in the store, re-hashes them
(trusting no note) and sends nothing again; it says an earlier commit did not finish.

A real sshd (the box gives SHA-256 only, as a rented box does), the real store and ledger; the
fault is injected at the directory fsync of ``cas/objects/`` only.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from labledger.cas import _fs
from labledger.cas.digest import digest_bytes
from labledger.ingest.pull import PullWriteError, pull
from labledger.ingest.transport import Transport
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from tests.ingest.test_pull_leftovers import box_files, small_box


def over_ssh(sshd: Any, box: Path, tmp_path: Path) -> Transport:
    return SshTransport(parse_target(sshd.target(box)), known_hosts=tmp_path / "kh",
                        accept_new=True, identity=sshd.client_key,
                        ssh_config=tmp_path / "no_ssh_config",
                        user_known_hosts=tmp_path / "no_user_kh", use_agent=False, backoff=0.05)


def pull_again(ledger: Ledger, sshd: Any, box: Path, tmp_path: Path) -> Any:
    """The next pull of run r1 from ``box``, over real SSH."""
    transport = over_ssh(sshd, box, tmp_path)
    try:
        return pull(ledger, transport, run="r1", verify_checkpoints=False, merge_ledger=False)
    finally:
        transport.close()


def pulled_events(ledger: Ledger) -> list[dict[str, Any]]:
    return [r.body_dict() for r in ledger.records() if r.kind == "artifact.pulled"]


def fail_object_dir_sync(monkeypatch: pytest.MonkeyPatch, objects: Path) -> list[str]:
    """The fsync of a folder under ``objects`` fails with EIO: only the commit's last step
    (the renames already happened); every other fsync (the files, the ledger) works."""
    real = _fs.fsync_dir
    calls: list[str] = []

    def broken(path: Any) -> None:
        if str(path).startswith(str(objects)):
            calls.append(str(path))
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real(path)

    monkeypatch.setattr(_fs, "fsync_dir", broken)
    return calls


def failed_first_pull(ledger: Ledger, box: Path, tmp_path: Path, sshd: Any,
                      monkeypatch: pytest.MonkeyPatch) -> Exception:
    store = open_store(ledger)
    store.init()
    calls = fail_object_dir_sync(monkeypatch, store.objects_dir)
    transport = over_ssh(sshd, box, tmp_path)
    try:
        # (before: the bare OSError of the sync, a traceback at the command line)
        with pytest.raises((PullWriteError, OSError)) as info:
            pull(ledger, transport, run="r1", verify_checkpoints=False, merge_ledger=False)
    finally:
        transport.close()
        monkeypatch.undo()
    assert calls, "the injected failure was never reached"
    # the state this is about: every file is in the store, no partial is left, nothing recorded
    assert pulled_events(ledger) == []
    assert list(store.tmp_dir.glob("pull-*.partial")) == []
    for rel in box_files(box):
        assert store.exists(digest_bytes((box / rel).read_bytes()))
    return info.value


def test_the_failing_pull_says_the_files_are_stored_and_what_to_do(
        ledger: Ledger, tmp_path: Path, sshd: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    box = small_box(tmp_path / "box")
    error = failed_first_pull(ledger, box, tmp_path, sshd, monkeypatch)
    assert isinstance(error, PullWriteError), repr(error)
    message = str(error)
    assert "\n" not in message
    assert "Input/output error" in message
    assert len(box_files(box)) > 1
    assert f"{len(box_files(box))} received files are in the store" in message
    assert "run the same `labledger pull` again" in message
    assert "not transferred again" in message
    assert error.to_json()["path"] == str(open_store(ledger).objects_dir)


def test_the_next_pull_finds_them_stored_by_digest_and_sends_nothing(
        ledger: Ledger, tmp_path: Path, sshd: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    box = small_box(tmp_path / "box")
    sizes = box_files(box)
    failed_first_pull(ledger, box, tmp_path, sshd, monkeypatch)

    report = pull_again(ledger, sshd, box, tmp_path)
    assert report.ok, report.to_json()
    assert report.bytes_transferred == 0
    assert {f.path: f.status for f in report.files} == dict.fromkeys(sizes, "present")
    store = open_store(ledger)
    for f in report.files:
        assert f.local_sha256 == f.remote_sha256  # re-hashed from the stored bytes
        assert store.read_bytes(f.digest or "") == (box / f.path).read_bytes()
    # the earlier failure is named, in the report and its JSON
    assert len(report.earlier_commit) == len(sizes)
    assert all("Input/output error" in note["error"] for note in report.earlier_commit)
    assert report.to_json()["earlier_commit"] == report.earlier_commit
    events = pulled_events(ledger)
    assert sorted(e["path"] for e in events) == sorted(sizes)
    assert all(e["ok"] for e in events)
    assert list(store.tmp_dir.glob("pull-*")) == []  # nothing left to find a third time

    transport = over_ssh(sshd, box, tmp_path)
    try:
        third = pull(ledger, transport, run="r1", verify_checkpoints=False, merge_ledger=False)
    finally:
        transport.close()
    assert third.ok
    assert third.bytes_transferred == 0
    assert third.earlier_commit == []


def test_an_object_lost_since_is_transferred_again_not_trusted(
        ledger: Ledger, tmp_path: Path, sshd: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the failing pull noted is a hint, checked against the store's bytes: an object
    whose directory entry was lost (the crash the sync was for) is sent again."""
    box = small_box(tmp_path / "box")
    sizes = box_files(box)
    failed_first_pull(ledger, box, tmp_path, sshd, monkeypatch)
    store = open_store(ledger)
    lost = digest_bytes((box / "data.bin").read_bytes())
    object_path = store.objects_dir / lost.split(":")[1][:2] / lost.split(":")[1][2:]
    object_path.unlink()

    report = pull_again(ledger, sshd, box, tmp_path)
    assert report.ok, report.to_json()
    assert report.bytes_transferred == sizes["data.bin"]
    statuses = {f.path: f.status for f in report.files}
    assert statuses == {"data.bin": "pulled", "run.json": "present",
                        "logs/train.csv": "present"}
    assert store.read_bytes(lost) == (box / "data.bin").read_bytes()
    assert list(store.tmp_dir.glob("pull-*")) == []


def test_the_command_line_exits_1_with_one_line_then_names_the_earlier_failure(
        ledger: Ledger, project: Path, tmp_path: Path, sshd: Any,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import cli_call

    box = small_box(tmp_path / "box")
    args = ("--root", str(project), "pull", "--run", "r1", "--from", sshd.target(box),
            "--identity", str(sshd.client_key), "--accept-new-host-key",
            "--known-hosts", str(tmp_path / "kh"), "--ssh-config", str(tmp_path / "none"),
            "--no-verify")
    store = open_store(ledger)
    store.init()
    fail_object_dir_sync(monkeypatch, store.objects_dir)
    try:
        code, out, err = cli_call(capsys, *args)
    finally:
        monkeypatch.undo()
    assert code == 1, err
    assert "Traceback" not in err
    [line] = err.strip().splitlines()
    assert "3 received files are in the store" in line
    assert pulled_events(ledger) == []

    code, out, err = cli_call(capsys, *args)
    assert code == 0, err
    assert "an earlier pull moved 3 of these files into the store" in err
    assert "Input/output error" in err
    assert "3 found there by their digests (re-hashed), not transferred again" in err
    assert len(pulled_events(ledger)) == 3


def test_gc_removes_the_notes_of_a_pull_never_run_again(
        ledger: Ledger, project: Path, tmp_path: Path, sshd: Any,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The box was destroyed before a second pull: the notes are leftovers, which `cas gc`
    lists with their box and file and removes after --partial-grace, none while a pull runs
    (before, they stayed in cas/tmp/ for ever)."""
    import json

    from labledger.cas.gc import hold_pull_partials
    from tests.conftest import cli_call

    box = small_box(tmp_path / "box")
    failed_first_pull(ledger, box, tmp_path, sshd, monkeypatch)
    store = open_store(ledger)
    notes = sorted(store.tmp_dir.glob("pull-*.stored"))
    assert len(notes) == len(box_files(box))
    with hold_pull_partials(store):
        code, out, err = cli_call(capsys, "--root", str(project), "--json", "cas", "gc",
                                  "--partial-grace", "0", "--no-dry-run")
        assert code == 0, err
        assert json.loads(out)["partials_in_use"] == len(notes)
    assert all(n.exists() for n in notes)
    code, out, err = cli_call(capsys, "--root", str(project), "--json", "cas", "gc",
                              "--partial-grace", "0", "--no-dry-run")
    assert code == 0, err
    removed = json.loads(out)["partials_removed"]
    assert sorted(item["path"] for item in removed) == [str(n) for n in notes]
    assert {item["file"] for item in removed} == set(box_files(box))
    assert not any(n.exists() for n in notes)
    for rel in box_files(box):  # the objects themselves are another matter (--grace)
        assert store.exists(digest_bytes((box / rel).read_bytes()))
