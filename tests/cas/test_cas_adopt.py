"""`Store.adopt` / `Batch.adopt`: a file a receiver wrote inside ``tmp/`` enters the store without
a copy, under the digest the store itself computes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import blake3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.cas import Batch, SourceChangedError, Store
from labledger.cas._stage import Claim


def _received(store: Store, data: bytes, name: str = "pull-x.partial") -> Path:
    store.init()
    path = store.tmp_dir / name
    path.write_bytes(data)
    return path


def test_adopt_moves_the_file_under_its_digest(store: Store) -> None:
    data = os.urandom(5 << 20)
    path = _received(store, data)
    put = store.adopt(path)
    assert put.digest == "blake3:" + blake3.blake3(data).hexdigest()
    assert not path.exists()
    assert store.object_path(put.digest).read_bytes() == data
    assert stat.S_IMODE(store.object_path(put.digest).stat().st_mode) == 0o444
    store.verify(put.digest)


def test_adopt_of_bytes_already_stored_drops_the_temp(store: Store) -> None:
    first = store.adopt(_received(store, b"same"))
    again_path = _received(store, b"same", "pull-y.partial")
    again = store.adopt(again_path)
    assert again.digest == first.digest
    assert not again.stored_new
    assert not again_path.exists()


def test_adopt_refuses_a_file_outside_tmp(store: Store, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.bin"
    outside.write_bytes(b"x")
    with pytest.raises(ValueError, match="not inside"):
        store.adopt(outside)
    assert outside.read_bytes() == b"x"


def test_batch_adopt_is_invisible_until_commit(store: Store) -> None:
    path = _received(store, b"batched bytes")
    with store.batch() as batch:
        digest = batch.adopt(path).digest
        assert not store.exists(digest)
    assert store.read_bytes(digest) == b"batched bytes"


def test_batch_abort_removes_adopted_temps(store: Store) -> None:
    path = _received(store, b"never visible")
    seen: list[str] = []

    def adopt_then_fail() -> None:
        with store.batch() as batch:
            seen.append(batch.adopt(path).digest)
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        adopt_then_fail()
    assert not store.exists(seen[0])
    assert not path.exists()


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=70_000))
def test_adopted_digest_is_blake3_of_the_bytes(tmp_path_factory: pytest.TempPathFactory,
                                               data: bytes) -> None:
    store = Store(tmp_path_factory.mktemp("cas"))
    put = store.adopt(_received(store, data))
    assert put.digest == "blake3:" + blake3.blake3(data).hexdigest()
    assert put.size == len(data)
    assert store.object_path(put.digest).read_bytes() == data


def test_batch_adopt_with_the_writers_digest_skips_the_read(store: Store) -> None:
    data = os.urandom(3 << 20)
    path = _received(store, data)
    with store.batch() as batch:
        digest = batch.adopt(path, blake3_hex=blake3.blake3(data).hexdigest(),
                             size=len(data)).digest
    assert store.read_bytes(digest) == data
    store.verify(digest)


def test_a_writer_digest_that_lies_is_caught_by_verify(store: Store) -> None:
    from labledger.cas import ObjectCorruptError

    path = _received(store, b"real bytes")
    with store.batch() as batch:
        digest = batch.adopt(path, blake3_hex=blake3.blake3(b"other").hexdigest(),
                             size=len(b"real bytes")).digest
    with pytest.raises(ObjectCorruptError):
        store.verify(digest)


# A writer in its own process that claims a file in tmp/ (an exclusive flock on the file, as
# `Claim` takes it and a pull holds its partial file while it appends) until its stdin closes.
_CLAIMER = r"""
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("claimed", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def claimed_elsewhere() -> Iterator[list[subprocess.Popen[str]]]:
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        proc.communicate(input="")


def _claim_in_another_process(path: Path, procs: list[subprocess.Popen[str]]) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _CLAIMER, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    procs.append(proc)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "claimed\n"


def test_adopt_refuses_a_file_another_process_is_writing(
        store: Store, claimed_elsewhere: list[subprocess.Popen[str]]) -> None:
    path = _received(store, b"half of what will come")
    _claim_in_another_process(path, claimed_elsewhere)
    with pytest.raises(SourceChangedError, match="another process holds it locked"):
        store.adopt(path)
    with pytest.raises(SourceChangedError, match="another process holds it locked"), \
            store.batch() as batch:
        batch.adopt(path)
    assert path.read_bytes() == b"half of what will come"
    assert not list(store.objects_dir.glob("*/*"))


def test_a_writers_digest_of_fewer_bytes_than_the_file_holds_is_refused(store: Store) -> None:
    # what a pull saw when another process appended after it: its BLAKE3 is of its own bytes
    path = _received(store, b"mine" + b"appended by another writer")
    claim = Claim.take(path, create=False)
    assert claim is not None
    try:
        with pytest.raises(SourceChangedError, match="30 bytes, but its writer hashed 4"), \
                store.batch() as batch:
            batch.adopt(path, blake3_hex=blake3.blake3(b"mine").hexdigest(), size=4,
                        claim=claim)
    finally:
        claim.release()
    assert path.exists()
    assert not store.exists("blake3:" + blake3.blake3(b"mine").hexdigest())


def test_a_file_appended_to_after_it_was_staged_is_not_moved_into_the_store(
        store: Store) -> None:
    path = _received(store, b"whole")
    digest = "blake3:" + blake3.blake3(b"whole").hexdigest()
    claim = Claim.take(path, create=False)
    assert claim is not None
    try:
        batch = Batch(store)
        batch.adopt(path, blake3_hex=digest.removeprefix("blake3:"), size=5, claim=claim)
        # a writer that claims nothing (an older labledger) appends before the commit
        os.chmod(path, 0o644)
        with open(path, "ab") as late:
            late.write(b"!")
        with pytest.raises(SourceChangedError, match="6 bytes, but its writer hashed 5"):
            batch.commit()
    finally:
        claim.release()
    assert not store.exists(digest)
    assert path.read_bytes() == b"whole!"
