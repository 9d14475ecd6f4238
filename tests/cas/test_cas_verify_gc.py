"""Verify (quarantine, never delete) and gc (references, grace, dry run, leftovers)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from labledger.cas import TREE_FORMAT, MalformedTreeError, ObjectCorruptError, Store

Build = Callable[[Path, dict[str, Any]], Path]


def _flip_byte(path: Path, offset: int) -> bytes:
    os.chmod(path, 0o644)
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))
    os.chmod(path, 0o444)
    return bytes(data)


@pytest.mark.parametrize("size", [1, 4096, 3 << 20])  # the last one goes through mmap
def test_flipped_byte_is_found_and_quarantined(store: Store, size: int) -> None:
    good = store.put_bytes(os.urandom(size))
    other = store.put_bytes(b"untouched")
    path = store.object_path(good.digest)
    damaged = _flip_byte(path, size // 2)
    seen: list[int] = []
    report = store.verify_all(progress=seen.append)
    assert report.checked == 2
    assert report.bytes == size + len(b"untouched")
    assert sum(seen) == report.bytes
    assert not report.is_ok
    (bad,) = report.corrupt
    assert bad.digest == good.digest
    assert bad.path == path
    assert bad.quarantine_path is not None
    assert bad.quarantine_path.parent == store.quarantine_dir
    assert bad.quarantine_path.name.startswith(good.digest.removeprefix("blake3:") + "-")
    # moved, never deleted: the damaged bytes are kept as evidence
    assert bad.quarantine_path.read_bytes() == damaged
    assert not path.exists()
    assert bad.actual_digest is not None
    assert bad.actual_digest != good.digest
    assert store.exists(other.digest)
    assert store.verify_all().is_ok
    assert report.to_json()["corrupt"][0]["digest"] == good.digest


def test_verify_one_and_reads_detect_corruption(store: Store, tmp_path: Path) -> None:
    readers: dict[str, Callable[[str], object]] = {
        "verify": store.verify,
        "read_bytes": store.read_bytes,
        "get": lambda d: store.get(d, tmp_path / "out"),
    }
    for name, reader in readers.items():
        digest = store.put_bytes(b"precious evidence " + name.encode()).digest
        _flip_byte(store.object_path(digest), 0)
        with pytest.raises(ObjectCorruptError) as info:
            reader(digest)
        err = info.value
        assert err.digest == digest
        assert err.quarantine_path is not None
        assert err.quarantine_path.exists()
        assert "quarantine" in str(err)
        assert not store.exists(digest)
        assert not (tmp_path / "out").exists()
    assert len(list(store.quarantine_dir.iterdir())) == 3


def test_corrupt_file_inside_a_tree_fails_get_cleanly(
    store: Store, tmp_path: Path, build_tree: Build
) -> None:
    build_tree(tmp_path / "src", {"a": b"aaa", "b": {"c": b"ccc"}})
    tree = store.put_tree(tmp_path / "src")
    c = next(e for e in tree.entries if e.path == "b/c")
    assert c.digest is not None
    _flip_byte(store.object_path(c.digest), 1)
    with pytest.raises(ObjectCorruptError):
        store.get(tree.digest, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_stray_files_are_reported_not_touched(store: Store) -> None:
    store.put_bytes(b"x")
    stray = store.objects_dir / "zz"
    stray.mkdir()
    (stray / "note").write_bytes(b"?")
    report = store.verify_all()
    assert report.stray == (stray,)
    assert (stray / "note").exists()


def _age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_gc_dry_run_then_real_with_grace(store: Store, tmp_path: Path,
                                         build_tree: Build) -> None:
    build_tree(tmp_path / "src", {"kept-by-tree": b"child", "d": {}})
    tree = store.put_tree(tmp_path / "src")
    referenced = store.put_bytes(b"referenced")
    old = store.put_bytes(b"old and unreferenced")
    young = store.put_bytes(b"young and unreferenced")
    for digest in store.iter_objects():
        _age(store.object_path(digest), 3600)
    os.utime(store.object_path(young.digest))  # just now
    (store.tmp_dir / "put-1-deadbeef.labledger-tmp").write_bytes(b"crash leftover")
    _age(store.tmp_dir / "put-1-deadbeef.labledger-tmp", 3600)
    (store.tmp_dir / "put-2-fresh.labledger-tmp").write_bytes(b"in flight")
    (store.tmp_dir / "unrelated.txt").write_bytes(b"not ours")
    _age(store.tmp_dir / "unrelated.txt", 3600)
    refs = {tree.digest, referenced.digest, "blake3:" + "f" * 64}

    dry = store.gc(refs, grace_seconds=600)
    assert dry.dry_run
    assert [i.digest for i in dry.removed] == [old.digest]
    assert [i.path.name for i in dry.temp_removed] == ["put-1-deadbeef.labledger-tmp"]
    assert dry.kept_referenced == 3  # tree, its one file, the referenced blob
    assert dry.kept_recent == 1
    assert dry.missing == ("blake3:" + "f" * 64,)
    assert store.exists(old.digest)  # dry run removes nothing

    real = store.gc(refs, grace_seconds=600, dry_run=False)
    assert [i.digest for i in real.removed] == [old.digest]
    assert real.bytes_freed == len(b"old and unreferenced") + len(b"crash leftover")
    assert not store.exists(old.digest)
    assert all(store.exists(d) for d in (tree.digest, referenced.digest, young.digest))
    assert sorted(p.name for p in store.tmp_dir.iterdir()) == ["put-2-fresh.labledger-tmp",
                                                                "unrelated.txt"]
    assert store.verify_all().is_ok
    # later, with "now" two hours ahead, the young object has aged past the grace period too
    later = datetime.now(UTC) + timedelta(hours=2)
    final = store.gc(refs, grace_seconds=600, dry_run=False, now=later)
    assert [i.digest for i in final.removed] == [young.digest]


def test_gc_refuses_when_a_referenced_tree_is_unreadable(store: Store) -> None:
    child = store.put_bytes(b"child of a broken tree")
    broken = store.put_bytes(b'{"format":"' + TREE_FORMAT.encode() + b'","entries":[{"bad')
    _age(store.object_path(child.digest), 3600)
    with pytest.raises(MalformedTreeError):
        store.gc({broken.digest}, grace_seconds=0, dry_run=False)
    assert store.exists(child.digest)


def test_gc_on_an_empty_store(tmp_path: Path) -> None:
    report = Store(tmp_path / "none").gc(set(), grace_seconds=0, dry_run=False)
    assert report.removed == ()
    assert report.temp_removed == ()
    with pytest.raises(ValueError, match="grace"):
        Store(tmp_path / "none").gc(set(), grace_seconds=-1)
