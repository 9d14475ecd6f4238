"""A stored copy found corrupt while a pull re-hashes it is sent again from the box.

A pull re-hashes the stored bytes of every file it finds already in the store (the same BLAKE3,
or the SHA-256 of an object pulled before). Before, a copy whose bytes no longer hashed to its
name stopped the pull there (``ObjectCorruptError``, exit 3) with the object moved to
quarantine and no ``object.quarantined`` recorded, while the box still held the good bytes.
Now the pull records the quarantine, sends the file again, stores the box's bytes under the
same digest (the object is repaired) and goes on; only when the box's bytes do not match the
box's own hash either does the file fail.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from labledger.cas.errors import ObjectCorruptError
from labledger.ingest.pull import pull
from labledger.ingest.transport import LocalTransport, RemoteHash
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from labledger.reconcile.pull_verified import ObjectChecker, gate_events, verify_run
from tests.ingest.conftest import Forwarding

CSV = b"step,loss\n100,0.41\n200,0.37\n"


def rot(store_path: Path) -> bytes:
    """Flip the first byte of a stored object, as disk rot would; returns the bad bytes."""
    store_path.chmod(0o644)
    raw = bytearray(store_path.read_bytes())
    raw[0] ^= 0xFF
    store_path.write_bytes(bytes(raw))
    return bytes(raw)


class ShaOnlyBox(Forwarding):
    """A box whose hasher gives SHA-256 only (no ``blake3`` for its python, no ``b3sum``: the
    ``sha256sum`` fallback of `labledger.ingest.transport_ssh`): a file stored before is found
    by the SHA-256 its earlier ``artifact.pulled`` recorded."""

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        return {rel: RemoteHash(sha256=h.sha256, size=h.size, error=h.error)
                for rel, h in self.inner.hash_files(rels).items()}


class BadDiskBox(Forwarding):
    """A box whose reads return other bytes than it hashed (a failing disk, a file rewritten
    between the hash and the send): every copy it sends differs from its own hash."""

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        for chunk in self.inner.read(rel, offset):
            yield bytes([chunk[0] ^ 0x01]) + chunk[1:]

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        for rel, offset in items:
            yield rel, offset, self.read(rel, offset)


def kinds(ledger: Ledger) -> list[tuple[str, dict[str, Any]]]:
    return [(r.kind, r.body_dict()) for r in ledger.records()]


@pytest.fixture
def box(tmp_path: Path) -> Path:
    root = tmp_path / "box" / "r1"
    root.mkdir(parents=True)
    (root / "train.csv").write_bytes(CSV)
    (root / "run.json").write_text('{"run": "r1"}\n')
    return root


@pytest.mark.parametrize("hasher", ["blake3", "sha256 only"])
def test_a_corrupt_stored_copy_is_sent_again_and_the_object_repaired(
        ledger: Ledger, box: Path, hasher: str) -> None:
    def transport() -> Any:
        local = LocalTransport(box)
        return local if hasher == "blake3" else ShaOnlyBox(local)

    first = pull(ledger, transport(), run="r1", instance="box1", verify_checkpoints=False)
    assert first.ok
    digest = next(f.digest for f in first.files if f.path == "train.csv")
    assert digest is not None
    store = open_store(ledger)
    bad = rot(store.object_path(digest))

    again = pull(ledger, transport(), run="r1", instance="box1", verify_checkpoints=False)

    assert again.ok, again.to_json()
    csv = next(f for f in again.files if f.path == "train.csv")
    assert (csv.status, csv.digest, csv.error) == ("pulled", digest, None)
    assert again.bytes_transferred == len(CSV)  # run.json was found intact: not sent again
    store.verify(digest)  # the box's good bytes are stored under the name again
    assert store.object_path(digest).read_bytes() == CSV
    (moved,) = store.quarantined(digest)  # the bad bytes are kept, never deleted
    assert moved.read_bytes() == bad
    (found,) = again.quarantined
    assert found == {"path": "train.csv", "digest": digest, "quarantine_path": str(moved),
                     "actual_digest": found["actual_digest"], "event": found["event"],
                     "of_path": True, "repaired": True}
    assert found["actual_digest"].startswith("blake3:")
    assert found["actual_digest"] != digest
    assert again.to_json()["quarantined"] == [found]
    # recorded, and before the event that stores the bytes again (`in_store` reads the order)
    events = kinds(ledger)
    at = events.index(("object.quarantined", {
        "digest": digest, "path": str(moved),
        "reason": f"content hashes to {found['actual_digest']}"}))
    assert [r.id for r in ledger.records()][at] == found["event"]
    stored_again = [i for i, (k, b) in enumerate(events)
                    if k == "artifact.pulled" and b.get("digest") == digest]
    assert stored_again[-1] > at
    # and the run is pull-verified again from this listing
    verdict = verify_run("r1", gate_events(ledger), ObjectChecker(store), instance="box1")
    assert verdict.ok, verdict.gaps()


def test_a_corrupt_stored_copy_whose_box_copy_is_bad_too_fails_the_file(
        ledger: Ledger, box: Path) -> None:
    first = pull(ledger, LocalTransport(box), run="r1", instance="box1",
                 verify_checkpoints=False)
    digest = next(f.digest for f in first.files if f.path == "train.csv")
    assert digest is not None
    store = open_store(ledger)
    rot(store.object_path(digest))

    again = pull(ledger, BadDiskBox(LocalTransport(box)), run="r1", instance="box1",
                 verify_checkpoints=False)

    assert not again.ok
    csv = next(f for f in again.files if f.path == "train.csv")
    assert csv.status == "failed"
    assert csv.digest is None
    assert csv.error is not None
    assert csv.error.startswith("SHA-256 mismatch after 2 attempts")
    (found,) = again.quarantined
    assert (found["path"], found["digest"], found["repaired"]) == ("train.csv", digest, False)
    assert not store.exists(digest)  # nothing bad was stored under its name
    recorded = [b for k, b in kinds(ledger) if k == "object.quarantined"]
    assert [b["digest"] for b in recorded] == [digest]
    failed = [b for k, b in kinds(ledger) if k == "artifact.pulled" and b["path"] == "train.csv"]
    assert failed[-1]["ok"] is False
    verdict = verify_run("r1", gate_events(ledger), ObjectChecker(store), instance="box1")
    assert not verdict.ok


def test_a_corrupt_object_of_another_file_found_by_size_is_recorded_and_fails_the_pull(
        ledger: Ledger, box: Path, tmp_path: Path) -> None:
    # a file stored here with `labledger record` (never pulled) is compared by size with the
    # files a box without BLAKE3 lists at that size: its bytes are re-hashed, found corrupt
    other = tmp_path / "other.csv"
    other.write_bytes(b"X" * len(CSV))
    put = open_store(ledger).put_file(other, sha256=True)
    ledger.append("artifact.recorded", run="r0", path=str(other), digest=put.digest,
                  size=put.size, type="file")
    store = open_store(ledger)
    rot(store.object_path(put.digest))

    report = pull(ledger, ShaOnlyBox(LocalTransport(box)), run="r1", instance="box1",
                  verify_checkpoints=False)

    assert [(f.path, f.status) for f in report.files] == [("run.json", "pulled"),
                                                           ("train.csv", "pulled")]
    (found,) = report.quarantined
    assert (found["path"], found["digest"], found["repaired"]) == ("train.csv", put.digest,
                                                                   False)
    assert not report.ok  # corruption this pull found and could not repair: exit 3
    assert [b["digest"] for k, b in kinds(ledger) if k == "object.quarantined"] == [put.digest]


def test_an_unnamed_corrupt_object_with_the_received_bytes_is_replaced(
        ledger: Ledger, box: Path) -> None:
    # An object with the file's bytes no event names (left by a writer interrupted before its
    # event): a box without BLAKE3 cannot name it, so the file is sent; the received bytes
    # hash to the object's name, and the store's copy is re-hashed before it is trusted.
    store = open_store(ledger)
    put = store.put_bytes(CSV)
    rot(store.object_path(put.digest))

    report = pull(ledger, ShaOnlyBox(LocalTransport(box)), run="r1", instance="box1",
                  verify_checkpoints=False)

    assert report.ok, report.to_json()
    csv = next(f for f in report.files if f.path == "train.csv")
    assert (csv.status, csv.digest) == ("pulled", put.digest)
    store.verify(put.digest)
    assert hashlib.sha256(store.object_path(put.digest).read_bytes()).hexdigest() \
        == hashlib.sha256(CSV).hexdigest()
    (found,) = report.quarantined
    assert (found["path"], found["digest"], found["repaired"]) == ("train.csv", put.digest,
                                                                   True)
    assert [b["digest"] for k, b in kinds(ledger) if k == "object.quarantined"] == [put.digest]


def test_a_reader_that_began_on_the_corrupt_copy_leaves_the_repaired_one_in_place(
        ledger: Ledger, box: Path) -> None:
    """Review 53 item 2: a reader (``check --deep``, the gate, another pull) that opened the
    corrupt copy before a pull repaired it found the mismatch at its last chunk and moved
    whatever lay under the digest then into quarantine: the repaired object."""
    first = pull(ledger, LocalTransport(box), run="r1", instance="box1",
                 verify_checkpoints=False)
    digest = next(f.digest for f in first.files if f.path == "train.csv")
    assert digest is not None
    store = open_store(ledger)
    bad = rot(store.object_path(digest))
    reading = store.read_chunks(digest, chunk_size=4)
    assert next(reading) == bad[:4]  # it reads the corrupt copy

    repaired = pull(ledger, LocalTransport(box), run="r1", instance="box1",
                    verify_checkpoints=False)
    assert repaired.ok
    assert repaired.quarantined[0]["repaired"]
    (moved,) = store.quarantined(digest)

    with pytest.raises(ObjectCorruptError) as failed:
        list(reading)
    # the read fails (its bytes do not hash to the digest), but moves nothing: the copy it
    # read is in quarantine already (moved and recorded by the repairing pull)
    assert failed.value.quarantine_path is None
    assert "another process moved it to quarantine meanwhile" in str(failed.value)
    assert store.quarantined(digest) == [moved]
    assert moved.read_bytes() == bad
    assert store.object_path(digest).read_bytes() == CSV
    store.verify(digest)
    verdict = verify_run("r1", gate_events(ledger), ObjectChecker(store), instance="box1")
    assert verdict.ok, verdict.gaps()


def test_the_line_for_another_files_corrupt_object_gives_the_cas_put_advice(
        ledger: Ledger, box: Path, tmp_path: Path) -> None:
    """Review 53 item 4: another file's object of the same size, found corrupt while train.csv
    was compared with it, was said to be 'not repaired: its copy on the box failed too' when
    train.csv's own transfer failed; no copy of train.csv could repair it."""
    from labledger.ledger.cli.pull import _corrupt_found

    other = tmp_path / "other.csv"
    other.write_bytes(b"X" * len(CSV))
    put = open_store(ledger).put_file(other, sha256=True)
    ledger.append("artifact.recorded", run="r0", path=str(other), digest=put.digest,
                  size=put.size, type="file")
    rot(open_store(ledger).object_path(put.digest))

    report = pull(ledger, BadDiskBox(ShaOnlyBox(LocalTransport(box))), run="r1",
                  instance="box1", verify_checkpoints=False)

    assert next(f for f in report.files if f.path == "train.csv").status == "failed"
    (found,) = report.quarantined
    assert (found["digest"], found["of_path"]) == (put.digest, False)
    line = _corrupt_found(found, report)
    assert "failed too" not in line
    assert line.endswith("not repaired: the box's train.csv is other bytes (same size); store "
                         "the original again with `labledger cas put` if you still have it")


def test_the_line_for_the_files_own_corrupt_object_says_the_box_copy_failed_too(
        ledger: Ledger, box: Path) -> None:
    from labledger.ledger.cli.pull import _corrupt_found

    first = pull(ledger, ShaOnlyBox(LocalTransport(box)), run="r1", instance="box1",
                 verify_checkpoints=False)
    digest = next(f.digest for f in first.files if f.path == "train.csv")
    assert digest is not None
    rot(open_store(ledger).object_path(digest))

    report = pull(ledger, BadDiskBox(ShaOnlyBox(LocalTransport(box))), run="r1",
                  instance="box1", verify_checkpoints=False)

    (found,) = report.quarantined
    assert (found["digest"], found["of_path"]) == (digest, True)
    assert _corrupt_found(found, report).endswith(
        "not repaired: its copy on the box failed too (failed: train.csv)")
