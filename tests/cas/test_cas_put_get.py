"""Put and get of files and bytes: round-trips, dedup, durability layout, bad input."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import blake3
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.cas import (
    DestinationExistsError,
    MalformedDigestError,
    NotATreeError,
    ObjectNotFoundError,
    SourceChangedError,
    SourceNotFoundError,
    SourceUnreadableError,
    Store,
    UnsupportedFileTypeError,
)

ABSENT = "blake3:" + "0" * 64


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=70_000) | st.sampled_from([b"", b"\0", b"x" * (1 << 20)]))
def test_put_get_round_trip(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = Store(root / "cas")
        src = root / "src.bin"
        src.write_bytes(data)
        result = store.put_file(src, sha256=True)
        assert result.digest == "blake3:" + blake3.blake3(data).hexdigest()
        assert result.sha256 == hashlib.sha256(data).hexdigest()
        assert result.size == len(data)
        assert result.stored_new
        assert store.read_bytes(result.digest) == data
        out = root / "out" / "restored.bin"
        info = store.get(result.digest, out)
        assert info.type == "file"
        assert out.read_bytes() == data
        assert store.put_bytes(data).digest == result.digest


def test_object_layout_and_read_only(store: Store, make_file: Callable[..., Path]) -> None:
    result = store.put_file(make_file(b"hello"))
    hex_ = result.digest.removeprefix("blake3:")
    path = store.objects_dir / hex_[:2] / hex_[2:]
    assert path.read_bytes() == b"hello"
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert store.object_path(result.digest) == path
    assert store.exists(result.digest)
    assert list(store.iter_objects()) == [result.digest]
    assert list(store.tmp_dir.iterdir()) == []
    info = store.stat(result.digest)
    assert (info.type, info.size, info.path) == ("file", 5, path)
    assert info.mtime.tzinfo is not None
    with store.open(result.digest) as f:
        assert f.read() == b"hello"
    assert b"".join(store.read_chunks(result.digest, chunk_size=2)) == b"hello"


def test_identical_content_is_stored_once(store: Store, make_file: Callable[..., Path]) -> None:
    first = store.put_file(make_file(b"same bytes"))
    path = store.object_path(first.digest)
    os.utime(path, (1_000_000, 1_000_000))
    second = store.put_file(make_file(b"same bytes"))
    third = store.put_bytes(b"same bytes")
    assert first.stored_new
    assert not second.stored_new
    assert not third.stored_new
    assert first.digest == second.digest == third.digest
    assert len(list(store.iter_objects())) == 1
    # dedup refreshes the mtime so gc's grace period protects the object again
    assert path.stat().st_mtime > 1_000_000
    assert list(store.tmp_dir.iterdir()) == []


def test_progress_reports_every_byte(store: Store, make_file: Callable[..., Path]) -> None:
    data = os.urandom(20 << 20)
    seen: list[int] = []
    store.put_file(make_file(data), progress=seen.append)
    assert sum(seen) == len(data)
    assert len(seen) >= 2


def test_get_refuses_to_overwrite_without_force(
    store: Store, make_file: Callable[..., Path], tmp_path: Path
) -> None:
    digest = store.put_bytes(b"new").digest
    dest = tmp_path / "dest"
    dest.write_bytes(b"old")
    with pytest.raises(DestinationExistsError) as info:
        store.get(digest, dest)
    assert info.value.path == dest
    assert dest.read_bytes() == b"old"
    store.get(digest, dest, force=True)
    assert dest.read_bytes() == b"new"
    # force also replaces a directory
    tree_dir = tmp_path / "dir"
    (tree_dir / "sub").mkdir(parents=True)
    store.get(digest, tree_dir, force=True)
    assert tree_dir.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [".labledger"]


@pytest.mark.parametrize("method", ["stat", "open", "read_bytes", "ls", "verify", "exists"])
def test_malformed_and_absent_digests(store: Store, method: str) -> None:
    with pytest.raises(MalformedDigestError):
        getattr(store, method)("blake3:nothex")
    if method == "exists":
        assert store.exists(ABSENT) is False
        return
    with pytest.raises(ObjectNotFoundError) as info:
        getattr(store, method)(ABSENT)
    assert info.value.digest == ABSENT
    assert ABSENT in str(info.value)


def test_get_absent_and_malformed(store: Store, tmp_path: Path) -> None:
    with pytest.raises(ObjectNotFoundError):
        store.get(ABSENT, tmp_path / "x")
    with pytest.raises(MalformedDigestError):
        store.get("nope", tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_ls_of_a_file_object(store: Store) -> None:
    digest = store.put_bytes(b"plain").digest
    with pytest.raises(NotATreeError):
        store.ls(digest)


def test_missing_unreadable_and_special_sources(store: Store, tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError) as info:
        store.put_file(tmp_path / "missing")
    assert info.value.path == tmp_path / "missing"
    with pytest.raises(SourceUnreadableError, match="directory"):
        store.put_file(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnsupportedFileTypeError, match="FIFO"):
        store.put_file(fifo)
    if os.geteuid() != 0:  # root reads anything; the mode check needs an ordinary user
        secret = tmp_path / "secret"
        secret.write_bytes(b"x")
        secret.chmod(0)
        with pytest.raises(SourceUnreadableError, match="permission"):
            store.put_file(secret)
    assert list(store.iter_objects()) == []


def test_unreadable_source_as_another_user(tmp_path: Path) -> None:
    """Permission denied, exercised even when the suite runs as root (via a setuid child)."""
    import subprocess
    import sys

    if os.geteuid() != 0:
        secret = tmp_path / "secret"
        secret.write_bytes(b"x")
        secret.chmod(0)
        with pytest.raises(SourceUnreadableError, match="permission"):
            Store(tmp_path / "cas").put_file(secret)
        return
    secret = tmp_path / "secret"
    secret.write_bytes(b"x")
    secret.chmod(0o600)
    os.chmod(tmp_path, 0o777)
    code = (
        "import os, sys\n"
        "from labledger.cas import Store, SourceUnreadableError\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "try:\n"
        f"    Store({str(tmp_path / 'cas')!r}).put_file({str(secret)!r})\n"
        "except SourceUnreadableError as e:\n"
        "    print('refused', e.reason)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.startswith("refused permission denied"), out.stderr
    assert not (tmp_path / "cas").exists()  # a bad source is reported before the store is made


def test_source_growing_during_put_is_refused(
    store: Store, make_file: Callable[..., Path], store_files: Callable[..., tuple[list[Path],
                                                                                   list[Path]]]
) -> None:
    src = make_file(os.urandom(3 << 20))

    def append(_n: int) -> None:
        with open(src, "ab") as f:
            f.write(b"more")

    with pytest.raises(SourceChangedError) as info:
        store.put_file(src, progress=append)
    assert info.value.path == src
    assert "nothing was stored" in str(info.value)
    assert store_files(store) == ([], [])


def test_source_rewritten_in_place_during_put_is_refused(
    store: Store, make_file: Callable[..., Path], store_files: Callable[..., tuple[list[Path],
                                                                                   list[Path]]]
) -> None:
    src = make_file(b"a" * (20 << 20))
    os.utime(src, (1_000_000, 1_000_000))
    calls = []

    def rewrite(_n: int) -> None:
        if not calls:
            with open(src, "r+b") as f:
                f.write(b"b" * 10)  # same size; only the mtime tells
        calls.append(_n)

    with pytest.raises(SourceChangedError, match="modification time"):
        store.put_file(src, progress=rewrite)
    assert store_files(store) == ([], [])


def test_source_replaced_during_put_is_refused(
    store: Store, make_file: Callable[..., Path], tmp_path: Path
) -> None:
    src = make_file(b"x" * 100)

    def replace(_n: int) -> None:
        other = tmp_path / "other"
        other.write_bytes(b"y" * 100)
        os.replace(other, src)

    with pytest.raises(SourceChangedError, match="different file"):
        store.put_file(src, progress=replace)


def test_put_dispatches_on_kind(store: Store, tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_bytes(b"1")
    assert store.put(tmp_path / "d").type == "tree"
    assert store.put(tmp_path / "d" / "f").type == "file"


def test_results_render_json(store: Store, make_file: Callable[..., Path]) -> None:
    result = store.put_file(make_file(b"j"), sha256=True)
    doc = result.to_json()
    assert doc["digest"] == result.digest
    assert doc["sha256"] == result.sha256
    info = store.stat(result.digest).to_json()
    assert isinstance(info["path"], str)
    assert info["type"] == "file"
    assert info["mtime"].endswith("Z") or "+00:00" in info["mtime"]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=3000), max_size=12))
def test_batch_puts_many_objects(chunks: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "cas")
        with store.batch() as batch:
            results = [batch.put_bytes(c) for c in chunks]
            for r in results:
                assert not store.exists(r.digest)  # not visible before commit
        for c, r in zip(chunks, results, strict=True):
            assert store.read_bytes(r.digest) == c
        assert batch.objects_new == len(set(chunks))
        assert list(store.tmp_dir.iterdir()) == []


@pytest.mark.parametrize("sync", ["syncfs", "fsync"])
def test_batch_sync_methods_and_abort(tmp_path: Path, sync: str,
                                      make_file: Callable[..., Path]) -> None:
    store = Store(tmp_path / "cas", sync=sync)  # type: ignore[arg-type]
    paths = [make_file(os.urandom(100 + i)) for i in range(20)]
    with store.batch() as batch:
        results = [batch.put_file(p) for p in paths]
    assert all(store.read_bytes(r.digest) == p.read_bytes()
               for r, p in zip(results, paths, strict=True))
    aborted: list[str] = []

    def failing_block() -> None:
        with store.batch() as batch:
            aborted.append(batch.put_bytes(b"never visible").digest)
            raise KeyError("caller failed")

    with pytest.raises(KeyError):
        failing_block()
    assert not store.exists(aborted[0])
    assert list(store.tmp_dir.iterdir()) == []
