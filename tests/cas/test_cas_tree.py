"""Trees: round-trips over shapes, determinism, symlinks never followed, path validation."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.cas import (
    TREE_FORMAT,
    CaseCollisionError,
    MalformedTreeError,
    SourceNotFoundError,
    SourceUnreadableError,
    Store,
    SymlinkRefusedError,
    TreeEntry,
    UnsafePathError,
    UnsupportedFileTypeError,
    decode_tree,
    encode_tree,
)

Build = Callable[[Path, dict[str, Any]], Path]
Read = Callable[[Path], dict[str, Any]]

names = st.text(alphabet="abcXYZ019_-.é ", min_size=1, max_size=6).filter(
    lambda n: n not in (".", "..")
)
files = st.binary(max_size=2000)
links = st.sampled_from(["../outside", "/etc/passwd", "sibling", "a/b/../c"])
trees = st.recursive(
    st.dictionaries(names, files | links, max_size=4),
    lambda children: st.dictionaries(names, files | links | children, max_size=4),
    max_leaves=14,
)


def _spec_build(root: Path, spec: dict[str, Any]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, value in spec.items():
        if isinstance(value, str):
            os.symlink(value, root / name)
        elif isinstance(value, bytes):
            (root / name).write_bytes(value)
        else:
            _spec_build(root / name, value)


def _spec_read(root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for e in os.scandir(root):
        if e.is_symlink():
            out[e.name] = os.readlink(e.path)
        elif e.is_dir(follow_symlinks=False):
            out[e.name] = _spec_read(Path(e.path))
        else:
            out[e.name] = Path(e.path).read_bytes()
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=trees)
def test_tree_round_trip(spec: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _spec_build(root / "src", spec)
        store = Store(root / "cas")
        result = store.put_tree(root / "src")
        assert result.type == "tree"
        assert store.stat(result.digest).type == "tree"
        store.get(result.digest, root / "out")
        assert _spec_read(root / "out") == spec
        # storing the same tree again gives the same digest and stores nothing new
        again = store.put_tree(root / "src")
        assert again.digest == result.digest
        assert again.objects_new == 0
        # every file of the tree is an object, and gc keeps them all through the tree
        report = store.gc([result.digest], grace_seconds=0, dry_run=True)
        assert report.removed == ()
        assert report.missing == ()
        assert list(store.tmp_dir.iterdir()) == []


def test_empty_files_and_directories(store: Store, tmp_path: Path, build_tree: Build,
                                     read_tree: Read) -> None:
    spec: dict[str, Any] = {"empty.txt": b"", "e1": {}, "e2": {"e3": {}}, "d": {"z": b""}}
    build_tree(tmp_path / "src", spec)
    result = store.put_tree(tmp_path / "src")
    kinds = {e.path: e.kind for e in result.entries}
    assert kinds == {"d": "dir", "d/z": "file", "e1": "dir", "e2": "dir", "e2/e3": "dir",
                     "empty.txt": "file"}
    store.get(result.digest, tmp_path / "out")
    assert read_tree(tmp_path / "out") == spec
    empty = tmp_path / "nothing"
    empty.mkdir()
    r = store.put_tree(empty)
    assert r.entries == ()
    assert r.size == 0
    store.get(r.digest, tmp_path / "nothing-out")
    assert list((tmp_path / "nothing-out").iterdir()) == []


def test_digest_is_deterministic_and_content_addressed(
    tmp_path: Path, build_tree: Build
) -> None:
    spec: dict[str, Any] = {"b": b"2", "a": {"x": b"1"}, "c": "a/x"}
    build_tree(tmp_path / "one", spec)
    build_tree(tmp_path / "two", dict(reversed(list(spec.items()))))
    d1 = Store(tmp_path / "s1").put_tree(tmp_path / "one").digest
    d2 = Store(tmp_path / "s2").put_tree(tmp_path / "two").digest
    assert d1 == d2
    (tmp_path / "two" / "b").write_bytes(b"3")
    assert Store(tmp_path / "s2").put_tree(tmp_path / "two").digest != d1


def test_tree_object_bytes_are_canonical_json(store: Store, tmp_path: Path,
                                              build_tree: Build) -> None:
    build_tree(tmp_path / "src", {"f": b"x", "d": {}})
    result = store.put_tree(tmp_path / "src", sha256=True)
    raw = store.read_bytes(result.digest)
    assert raw.startswith(b'{"format":"' + TREE_FORMAT.encode() + b'","entries":[')
    doc = msgspec.json.decode(raw)
    assert [e["path"] for e in doc["entries"]] == ["d", "f"]
    assert "digest" not in doc["entries"][0]  # dirs carry no digest
    assert encode_tree(decode_tree(raw)) == raw
    assert set(result.file_sha256) == {"f"}


def test_modes_are_recorded_and_restored(store: Store, tmp_path: Path, build_tree: Build) -> None:
    build_tree(tmp_path / "src", {"run.sh": b"#!/bin/sh\n", "ro": {"data": b"d"}})
    os.chmod(tmp_path / "src" / "run.sh", 0o755)
    os.chmod(tmp_path / "src" / "ro" / "data", 0o400)
    os.chmod(tmp_path / "src" / "ro", 0o555)
    result = store.put_tree(tmp_path / "src")
    modes = {e.path: e.mode for e in result.entries}
    assert modes == {"run.sh": 0o755, "ro": 0o555, "ro/data": 0o400}
    out = tmp_path / "out"
    store.get(result.digest, out)
    assert stat.S_IMODE((out / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "ro").stat().st_mode) == 0o555
    assert stat.S_IMODE((out / "ro" / "data").stat().st_mode) == 0o400
    # force-replacing a tree with read-only directories works and leaves no debris
    store.get(result.digest, out, force=True)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [
        ".labledger"
    ]
    os.chmod(tmp_path / "src" / "ro", 0o755)
    os.chmod(out / "ro", 0o755)


def test_symlink_outside_the_tree_is_never_followed(store: Store, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"outside the tree: must never be stored")
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    os.symlink(secret, src / "abs-link")
    os.symlink("../../secret.txt", src / "sub" / "rel-link")
    os.symlink(tmp_path, src / "dir-link")  # a link to a directory is not descended into
    result = store.put_tree(src)
    by_path = {e.path: e for e in result.entries}
    assert by_path["abs-link"] == TreeEntry(path="abs-link", kind="symlink", mode=0o777,
                                            size=len(str(secret)), target=str(secret))
    assert by_path["sub/rel-link"].target == "../../secret.txt"
    assert set(by_path) == {"abs-link", "dir-link", "sub", "sub/rel-link"}
    for digest in store.iter_objects():
        assert b"must never be stored" not in store.read_bytes(digest)
    out = tmp_path / "restored"
    store.get(result.digest, out)
    assert os.readlink(out / "abs-link") == str(secret)
    assert (out / "sub" / "rel-link").is_symlink()

    with pytest.raises(SymlinkRefusedError) as info:
        store.put_tree(src, symlinks="refuse")
    assert info.value.path.name in {"abs-link", "dir-link", "rel-link"}
    assert "symlink" in str(info.value)


def test_case_collisions_reported_or_refused(store: Store, tmp_path: Path,
                                             build_tree: Build) -> None:
    build_tree(tmp_path / "src", {"Data.csv": b"1", "data.csv": b"2", "caf\u00e9": b"3",
                                  "cafe\u0301": b"4", "ok": b"5"})
    result = store.put_tree(tmp_path / "src")
    assert result.case_collisions == (("Data.csv", "data.csv"), ("cafe\u0301", "caf\u00e9"))
    with pytest.raises(CaseCollisionError) as info:
        store.put_tree(tmp_path / "src", on_case_collision="refuse")
    assert info.value.collisions == result.case_collisions


def test_bad_tree_sources(store: Store, tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError):
        store.put_tree(tmp_path / "missing")
    (tmp_path / "file").write_bytes(b"x")
    with pytest.raises(SourceUnreadableError, match="not a directory"):
        store.put_tree(tmp_path / "file")
    (tmp_path / "withfifo").mkdir()
    os.mkfifo(tmp_path / "withfifo" / "pipe")
    with pytest.raises(UnsupportedFileTypeError):
        store.put_tree(tmp_path / "withfifo")
    bad = tmp_path / "badname"
    bad.mkdir()
    (Path(os.fsdecode(bytes(bad) + b"/\xff\xfe"))).write_bytes(b"x")
    with pytest.raises(UnsafePathError, match="UTF-8"):
        store.put_tree(bad)
    assert not store.tmp_dir.exists() or list(store.tmp_dir.iterdir()) == []


def _raw_tree(entries: list[dict[str, Any]]) -> bytes:
    return msgspec.json.encode({"format": TREE_FORMAT, "entries": entries})


@pytest.mark.parametrize(
    ("entries", "error"),
    [
        ([{"path": "/etc/passwd", "kind": "symlink", "target": "x"}], UnsafePathError),
        ([{"path": "../escape", "kind": "dir"}], UnsafePathError),
        ([{"path": "a/../../b", "kind": "dir"}], UnsafePathError),
        ([{"path": "a//b", "kind": "dir"}], UnsafePathError),
        ([{"path": "", "kind": "dir"}], UnsafePathError),
        ([{"path": "a/b", "kind": "dir"}], MalformedTreeError),  # no parent entry
        ([{"path": "b", "kind": "dir"}, {"path": "a", "kind": "dir"}], MalformedTreeError),
        ([{"path": "a", "kind": "dir"}, {"path": "a", "kind": "dir"}], MalformedTreeError),
        ([{"path": "l", "kind": "symlink", "target": "/"},
          {"path": "l/x", "kind": "file", "digest": "blake3:" + "a" * 64}], MalformedTreeError),
        ([{"path": "f", "kind": "file"}], MalformedTreeError),
        ([{"path": "f", "kind": "file", "digest": "md5:00"}], MalformedTreeError),
        ([{"path": "f", "kind": "sock"}], MalformedTreeError),
        ([{"path": "f", "kind": "dir", "extra": 1}], MalformedTreeError),
    ],
)
def test_crafted_trees_are_refused_before_anything_is_written(
    store: Store, tmp_path: Path, entries: list[dict[str, Any]], error: type[Exception]
) -> None:
    raw = _raw_tree(entries)
    with pytest.raises(error):
        decode_tree(raw)
    digest = store.put_bytes(raw).digest
    with pytest.raises(error):
        store.get(digest, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [
        ".labledger"
    ]
    assert store.stat(digest).type == "tree"  # the header says tree; ls refuses it
    with pytest.raises(error):
        store.ls(digest)
