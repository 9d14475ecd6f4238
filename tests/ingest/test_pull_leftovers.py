"""What a pull leaves in ``cas/tmp/`` when it cannot finish, and who may remove it.

- A failed sync or move while the received files enter the store keeps them (whole, in their
  partial files): the next pull resumes them at their ends and nothing crosses the link again.
- The error then says so (`PullWriteError`), not "the partial temp file was removed", which
  only `cas put` may say, because only there is it true.
- `Store.gc` / `remove_partials` remove pull partials left by a pull that will never resume,
  by age, and never one that a running pull holds.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from labledger.cas import Store, StoreFullError, StoreWriteError
from labledger.cas.batch import Batch
from labledger.ingest.pull import PullWriteError, pull, remove_partials
from labledger.ingest.transport import LocalTransport, Transport
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from tests.ingest.conftest import Forwarding


def small_box(root: Path) -> Path:
    """A box with a multi-chunk file, a small one and a nested one (no checkpoints: no torch)."""
    (root / "logs").mkdir(parents=True)
    (root / "data.bin").write_bytes(os.urandom(3 << 20))
    (root / "run.json").write_text('{"run": "r1"}\n')
    (root / "logs" / "train.csv").write_text("step,loss\n1,0.5\n2,0.25\n")
    return root


def box_files(box: Path) -> dict[str, int]:
    return {str(p.relative_to(box)): p.stat().st_size for p in box.rglob("*") if p.is_file()}


def partials(ledger: Ledger) -> list[Path]:
    return sorted(open_store(ledger).tmp_dir.glob("pull-*.partial"))


def pulled_events(ledger: Ledger) -> list[dict[str, Any]]:
    return [r.body_dict() for r in ledger.records() if r.kind == "artifact.pulled"]


def transport_for(over: str, box: Path, tmp_path: Path, sshd: Any | None) -> Transport:
    if over == "dir":
        return LocalTransport(box)
    assert sshd is not None
    return SshTransport(parse_target(sshd.target(box)), known_hosts=tmp_path / "kh",
                        accept_new=True, identity=sshd.client_key,
                        ssh_config=tmp_path / "no_ssh_config",
                        user_known_hosts=tmp_path / "no_user_kh", use_agent=False, backoff=0.05)


def fail_store_sync(monkeypatch: pytest.MonkeyPatch, code: int) -> list[int]:
    """The store's batch sync (`_fs.fsync_paths`, what a pull's commit calls) fails with
    ``code``, as a disk reporting EIO or a thin volume ENOSPC at fsync does. Only that sync:
    the ledger's own appends still work."""
    from labledger.cas import _fs

    calls: list[int] = []

    def broken(paths: Any, **_: Any) -> None:
        calls.append(len(list(paths)))
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(_fs, "fsync_paths", broken)
    return calls


def fail_store_rename(monkeypatch: pytest.MonkeyPatch, code: int) -> list[str]:
    """Moving a staged file under its digest (``os.replace`` into ``objects/``) fails."""
    real = os.replace
    calls: list[str] = []

    def broken(src: Any, dst: Any, *a: Any, **kw: Any) -> None:
        if "/objects/" in str(dst):
            calls.append(str(dst))
            raise OSError(code, os.strerror(code))
        real(src, dst, *a, **kw)

    monkeypatch.setattr(os, "replace", broken)
    return calls


# -- defect: a failed commit deleted the fully received files ----------------------------------
@pytest.mark.parametrize(("over", "step"), [("dir", "fsync"), ("dir", "rename"),
                                            ("ssh", "fsync")])
def test_a_failed_store_commit_keeps_the_received_files_and_the_next_pull_sends_nothing(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: Any,
        over: str, step: str) -> None:
    """The batch that moves a pull's received files into the store deleted them when its fsync
    (or a rename) failed: every byte had to cross the link again, gigabytes from a rented box."""
    box = small_box(tmp_path / "box")
    sizes = box_files(box)
    sshd = request.getfixturevalue("sshd") if over == "ssh" else None
    calls = (fail_store_sync if step == "fsync" else fail_store_rename)(monkeypatch, errno.EIO)
    transport = transport_for(over, box, tmp_path, sshd)
    try:
        with pytest.raises(Exception):  # noqa: B017,PT011 - the wording is the next test's
            pull(ledger, transport, run="r1", verify_checkpoints=False, merge_ledger=False)
    finally:
        transport.close()
    monkeypatch.undo()
    assert calls, "the injected failure was never reached"
    assert pulled_events(ledger) == []  # nothing claimed for objects that did not arrive
    left = partials(ledger)
    assert sorted(p.stat().st_size for p in left) == sorted(sizes.values())  # all, whole

    transport = transport_for(over, box, tmp_path, sshd)
    try:
        report = pull(ledger, transport, run="r1", verify_checkpoints=False, merge_ledger=False)
    finally:
        transport.close()
    assert report.ok, report.to_json()
    assert report.bytes_transferred == 0  # resumed at their ends: nothing crossed again
    assert {f.path: f.resumed_from for f in report.files} == sizes
    assert all(f.status == "pulled" for f in report.files)
    store = open_store(ledger)
    for f in report.files:
        assert store.read_bytes(f.digest or "") == (box / f.path).read_bytes()
    assert partials(ledger) == []


def test_a_batch_commit_that_fails_leaves_adopted_files_and_removes_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's side of it: files given to `Batch.adopt` are their writer's and stay; a
    temp file the batch wrote itself (`put_bytes`) is still removed."""
    store = Store(tmp_path / "cas")
    store.init()
    received = store.tmp_dir / "pull-0123.partial"
    received.write_bytes(b"received whole from a box")
    fail_store_sync(monkeypatch, errno.EIO)
    batch = Batch(store, per_file_sync=True)  # as a pull commits
    adopted = batch.adopt(received).digest
    own = batch.put_bytes(b"written by the batch").digest
    with pytest.raises(StoreWriteError):
        batch.commit()
    monkeypatch.undo()
    assert received.read_bytes() == b"received whole from a box"
    assert not store.exists(adopted)
    assert not store.exists(own)
    assert sorted(p.name for p in store.tmp_dir.iterdir()) == [received.name]


# -- defect: "the partial temp file was removed" was untrue for a pull ------------------------
def test_a_full_store_at_commit_says_the_received_bytes_are_kept(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    box = small_box(tmp_path / "box")
    fail_store_sync(monkeypatch, errno.ENOSPC)
    with pytest.raises(PullWriteError) as info:
        pull(ledger, LocalTransport(box), run="r1", verify_checkpoints=False)
    monkeypatch.undo()
    message = str(info.value)
    assert "was removed" not in message
    assert "no space left on the local disk" in message
    assert f"kept in {open_store(ledger).tmp_dir}" in message
    assert "run the same `labledger pull` again" in message
    assert info.value.to_json()["kept_in"] == str(open_store(ledger).tmp_dir)
    assert len(partials(ledger)) == len(box_files(box))  # and it is true


def test_store_full_error_words_what_it_did(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`cas put` removed its own temp file and still says so; an adopted file that stayed is
    said to have stayed (``kept``)."""
    store = Store(tmp_path / "cas")
    store.init()
    src = tmp_path / "f.bin"
    src.write_bytes(b"delayed allocation fails at fsync")
    real = os.fsync

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StoreFullError) as put:
        store.put_file(src)
    received = store.tmp_dir / "pull-4567.partial"
    received.write_bytes(b"received")
    with pytest.raises(StoreFullError) as adopt:
        store.adopt(received)
    monkeypatch.setattr(os, "fsync", real)
    assert "the partial temp file was removed" in str(put.value)
    assert put.value.kept is False
    assert "was removed" not in str(adopt.value)
    assert "left in place" in str(adopt.value)
    assert adopt.value.to_json()["kept"] is True
    assert received.read_bytes() == b"received"
    assert [p.name for p in store.tmp_dir.iterdir()] == [received.name]


# -- defect: nothing ever removed the partials of a pull that will not resume ------------------
class Cut(Forwarding):
    """The read of ``path`` dies after ``after`` bytes (file by file, no bulk stream)."""

    def __init__(self, inner: Transport, path: str, after: int) -> None:
        super().__init__(inner)
        self.path, self.after = path, after

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        for rel, offset in items:
            yield rel, offset, self.read(rel, offset)

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        from labledger.ingest.errors import TransportError

        sent = offset
        for chunk in self.inner.read(rel, offset):
            if rel == self.path and sent + len(chunk) >= self.after:
                yield chunk[: self.after - sent]
                raise TransportError(self.source, "connection reset by peer (test)")
            sent += len(chunk)
            yield chunk


class Held(Cut):
    """The read of ``path`` stops after ``after`` bytes until ``go`` is set (a pull still
    running, its partial file half written)."""

    def __init__(self, inner: Transport, path: str, after: int) -> None:
        super().__init__(inner, path, after)
        self.waiting, self.go = threading.Event(), threading.Event()

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        sent = offset
        for chunk in self.inner.read(rel, offset):
            if rel == self.path and sent < self.after <= sent + len(chunk):
                yield chunk[: self.after - sent]
                self.waiting.set()
                assert self.go.wait(60)
                yield chunk[self.after - sent:]
            else:
                yield chunk
            sent += len(chunk)


def interrupted(ledger: Ledger, box: Path) -> Path:
    """A pull cut mid-file (the box then destroyed): returns the cut file's partial."""
    from labledger.ingest.errors import TransportError

    # One retry: the cut stops the early stream, the listing is recorded, the retry is cut
    # again and the pull gives up (the other files were received and stored meanwhile).
    with pytest.raises(TransportError):
        pull(ledger, Cut(LocalTransport(box), "data.bin", 1 << 20), run="r1", retries=1,
             backoff=0.01, verify_checkpoints=False, merge_ledger=False)
    [cut] = partials(ledger)
    assert cut.stat().st_size == 1 << 20
    return cut


def fresh_partial(ledger: Ledger) -> Path:
    """A partial another pull (of another box) is still to resume."""
    path = open_store(ledger).tmp_dir / f"pull-{'f' * 40}.partial"
    path.write_bytes(b"received yesterday")
    return path


def age(path: Path, days: float) -> None:
    then = time.time() - days * 86400
    os.utime(path, (then, then))


def test_gc_removes_pull_partials_older_than_their_grace(ledger: Ledger, tmp_path: Path) -> None:
    box = small_box(tmp_path / "box")
    cut = interrupted(ledger, box)
    store = open_store(ledger)
    others = [fresh_partial(ledger)]
    age(cut, 8)
    dry = store.gc([], grace_seconds=7 * 86400)
    assert [i.path for i in dry.partials_removed] == [cut]
    assert dry.partials_kept_recent == len(others)
    assert dry.bytes_freed == 1 << 20
    assert cut.exists()  # a dry run
    done = store.gc([], grace_seconds=7 * 86400, dry_run=False)
    assert [i.path for i in done.partials_removed] == [cut]
    assert not cut.exists()
    assert partials(ledger) == others
    # its own grace: 0 removes every partial, objects keep theirs
    obj = store.put_bytes(b"stored by hand, named by no event yet").digest
    done = store.gc([], grace_seconds=7 * 86400, partial_grace_seconds=0, dry_run=False)
    assert sorted(i.path for i in done.partials_removed) == others
    assert partials(ledger) == []
    assert store.exists(obj)
    assert done.removed == ()


def test_a_partial_a_running_pull_holds_is_never_removed(ledger: Ledger, tmp_path: Path) -> None:
    box = small_box(tmp_path / "box")
    interrupted(ledger, box)
    for p in partials(ledger):
        age(p, 30)  # as old as can be: only the lock protects them
    held = Held(LocalTransport(box), "data.bin", 2 << 20)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["report"] = pull(ledger, held, run="r1", verify_checkpoints=False,
                                     merge_ledger=False)
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome["error"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    try:
        assert held.waiting.wait(60), outcome
        store = open_store(ledger)
        before = {p: p.stat().st_size for p in partials(ledger)}
        assert before
        report = store.gc([], grace_seconds=0, partial_grace_seconds=0, dry_run=False)
        assert report.partials_removed == ()
        assert report.partials_in_use == len(before)
        assert remove_partials(store) == 0
        assert {p: p.stat().st_size for p in partials(ledger)} == before
    finally:
        held.go.set()
        worker.join(60)
    assert "error" not in outcome, outcome
    assert outcome["report"].ok, outcome["report"].to_json()
    data = [f for f in outcome["report"].files if f.path == "data.bin"]
    assert data[0].resumed_from == 1 << 20  # the interrupted pull's bytes were still there
    # once no pull runs, the library call removes what is left (nothing, here) without error
    assert remove_partials(open_store(ledger)) == 0


def test_remove_partials_removes_by_age(ledger: Ledger, tmp_path: Path) -> None:
    box = small_box(tmp_path / "box")
    cut = interrupted(ledger, box)
    fresh = fresh_partial(ledger)
    store = open_store(ledger)
    assert remove_partials(store, older_than=3600) == 0
    age(cut, 1)
    assert remove_partials(store, older_than=3600) == 1
    assert partials(ledger) == [fresh]
    assert remove_partials(store) == 1
    assert partials(ledger) == []


def test_partial_origins_name_the_box_and_file(ledger: Ledger, tmp_path: Path) -> None:
    from labledger.ingest.pull import partial_origins

    box = small_box(tmp_path / "box")
    cut = interrupted(ledger, box)
    origins = partial_origins(ledger)
    assert origins[cut.name] == (f"dir:{box}", "data.bin")
    assert fresh_partial(ledger).name not in origins  # no listing names it
