"""What the store must hold, and what it refuses before storing anything.

`Store.find_missing` (what `check --deep` builds on), gc's ``required`` (digests of documents are
kept but never reported missing), `Store.quarantined`, and `Store.check_source` (every source
checked before the first is stored; a top-level symlink is refused, never followed).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.cas import (
    TREE_FORMAT,
    DestinationExistsError,
    ObjectCorruptError,
    SourceNotFoundError,
    Store,
    SymlinkRefusedError,
    UnsupportedFileTypeError,
    digest_bytes,
)

Build = Callable[[Path, dict[str, Any]], Path]


def _remove(store: Store, digest: str) -> None:
    os.unlink(store.object_path(digest))


def test_find_missing_names_absent_roots_and_tree_files(store: Store, tmp_path: Path,
                                                        build_tree: Build) -> None:
    tree = store.put_tree(build_tree(tmp_path / "run", {"a.bin": b"aaa", "d": {"b.bin": b"b"}}))
    kept = store.put_bytes(b"kept")
    absent = digest_bytes(b"never stored")
    assert store.find_missing([tree.digest, kept.digest]) == {}
    _remove(store, digest_bytes(b"b"))
    assert store.find_missing([tree.digest, kept.digest, absent]) == {
        digest_bytes(b"b"): [tree.digest], absent: [None]}
    # the tree itself gone: its files cannot be listed, the tree is what is missing
    _remove(store, tree.digest)
    assert store.find_missing([tree.digest]) == {tree.digest: [None]}


def test_a_quarantined_object_is_missing_and_its_quarantine_is_found(store: Store) -> None:
    good = store.put_bytes(b"evidence")
    assert store.quarantined(good.digest) == []
    path = store.object_path(good.digest)
    os.chmod(path, 0o644)
    path.write_bytes(b"tampered")
    with pytest.raises(ObjectCorruptError) as info:
        store.verify(good.digest)
    assert store.find_missing([good.digest]) == {good.digest: [None]}
    assert store.quarantined(good.digest) == [info.value.quarantine_path]


def test_a_file_that_only_starts_like_a_tree_is_a_file_to_find_missing(store: Store) -> None:
    odd = store.put_bytes(b'{"format":"' + TREE_FORMAT.encode() + b'",not json')
    assert store.find_missing([odd.digest]) == {}


def test_gc_keeps_every_reference_but_reports_only_required_ones(store: Store) -> None:
    kept = store.put_bytes(b"a listing that happens to be stored")
    manifest = digest_bytes(b"a listing nobody stored")
    lost = digest_bytes(b"a checkpoint that was stored once")
    report = store.gc({kept.digest, manifest, lost}, required={lost},
                      grace_seconds=0, dry_run=False)
    assert report.missing == (lost,)
    assert report.removed == ()
    assert store.exists(kept.digest)
    # without `required`, every reference is expected (the old contract)
    assert store.gc({manifest}, grace_seconds=0).missing == (manifest,)


def test_gc_reports_a_missing_file_of_a_tree_kept_only_as_a_reference(
    store: Store, tmp_path: Path, build_tree: Build
) -> None:
    tree = store.put_tree(build_tree(tmp_path / "run", {"w.bin": b"w"}))
    _remove(store, digest_bytes(b"w"))
    assert store.gc({tree.digest}, required=set(), grace_seconds=0).missing == (
        digest_bytes(b"w"),)


def test_check_source_accepts_files_and_directories(store: Store, tmp_path: Path,
                                                    build_tree: Build) -> None:
    root = build_tree(tmp_path / "run", {"a": b"a", "link": "a", "d": {}})
    store.check_source(root)
    store.check_source(root / "a")
    assert not store.objects_dir.exists()  # checked, nothing stored


def test_check_source_refuses_a_top_level_symlink(store: Store, tmp_path: Path,
                                                  build_tree: Build) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"not for the store")
    (tmp_path / "toplink").symlink_to(secret)
    (tmp_path / "dirlink").symlink_to(build_tree(tmp_path / "d", {"x": b"x"}))
    for name in ("toplink", "dirlink"):
        with pytest.raises(SymlinkRefusedError) as info:
            store.check_source(tmp_path / name)
        assert "never followed" in str(info.value)
        assert info.value.to_json()["target"] == os.readlink(tmp_path / name)


def test_check_source_refuses_what_put_would_fail_on(store: Store, tmp_path: Path,
                                                     build_tree: Build) -> None:
    with pytest.raises(SourceNotFoundError):
        store.check_source(tmp_path / "nope")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(UnsupportedFileTypeError, match="only regular files and directories"):
        store.check_source(tmp_path / "fifo")
    root = build_tree(tmp_path / "run", {"a": b"a", "sub": {}})
    os.mkfifo(root / "sub" / "pipe")
    with pytest.raises(UnsupportedFileTypeError, match="FIFO"):
        store.check_source(root)
    linked = build_tree(tmp_path / "linked", {"a": b"a", "l": "a"})
    with pytest.raises(SymlinkRefusedError):
        store.check_source(linked, symlinks="refuse")
    store.check_source(linked, symlinks="record")


def test_destination_exists_names_the_option(store: Store, tmp_path: Path) -> None:
    obj = store.put_bytes(b"x")
    (tmp_path / "out").write_bytes(b"mine")
    with pytest.raises(DestinationExistsError, match="`--force`"):
        store.get(obj.digest, tmp_path / "out")
    assert (tmp_path / "out").read_bytes() == b"mine"
