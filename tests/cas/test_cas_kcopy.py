"""The large-file path: kernel copy into the temp file, then an mmap hash of the stored bytes."""

from __future__ import annotations

import errno
import hashlib
import mmap
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import blake3
import pytest

from labledger.cas import SourceChangedError, SourceUnreadableError, Store, _kcopy
from labledger.cas._copy import CHUNK_SIZE
from labledger.cas._kcopy import COPY_CHUNK, KERNEL_COPY_MIN

Listing = Callable[[Store], tuple[list[Path], list[Path]]]
PAGE = mmap.PAGESIZE

SIZES = [
    0, 1, PAGE - 1, PAGE + 1, CHUNK_SIZE, KERNEL_COPY_MIN - 1, KERNEL_COPY_MIN,
    KERNEL_COPY_MIN + 1, KERNEL_COPY_MIN + PAGE + 3, COPY_CHUNK, COPY_CHUNK + 1,
    2 * COPY_CHUNK + 12_345,
]


def _data(size: int) -> bytes:
    # random head and tail, so a misplaced chunk or a dropped tail changes the digest
    if size <= 1 << 16:
        return os.urandom(size)
    return os.urandom(1 << 15) + bytes(range(256)) * ((size - (1 << 16)) // 256) + os.urandom(
        (1 << 15) + (size - (1 << 16)) % 256)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("sha", [False, True])
def test_digests_match_the_reference(store: Store, make_file: Callable[..., Path], size: int,
                                     sha: bool) -> None:
    data = _data(size)
    assert len(data) == size
    seen: list[int] = []
    result = store.put_file(make_file(data), sha256=sha, progress=seen.append)
    assert result.digest == "blake3:" + blake3.blake3(data).hexdigest()
    assert result.sha256 == (hashlib.sha256(data).hexdigest() if sha else None)
    assert result.size == size
    assert sum(seen) == size
    assert store.object_path(result.digest).read_bytes() == data
    assert list(store.tmp_dir.iterdir()) == []
    with store.batch() as b:  # the unsynced variant gives the same digest
        assert b.put_file(make_file(data), sha256=sha).digest == result.digest


@pytest.mark.parametrize("broken", [["copy_file_range"], ["copy_file_range", "sendfile"]])
@pytest.mark.parametrize("code", [errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EIO])
def test_fallbacks_when_the_kernel_copy_is_unavailable(
    store: Store, make_file: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
    broken: list[str], code: int
) -> None:
    data = _data(KERNEL_COPY_MIN + COPY_CHUNK + 5)

    def fail(*_args: Any) -> Any:
        raise OSError(code, os.strerror(code))

    for name in broken:
        monkeypatch.setattr(os, name, fail)
    result = store.put_file(make_file(data), sha256=True)
    assert result.digest == "blake3:" + blake3.blake3(data).hexdigest()
    assert result.sha256 == hashlib.sha256(data).hexdigest()


def test_fallback_mid_copy_continues_at_the_same_offset(
    store: Store, make_file: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _data(3 * COPY_CHUNK + 7)
    real = os.copy_file_range
    calls = [0]

    def once_then_fail(*args: Any) -> int:
        calls[0] += 1
        if calls[0] > 1:
            raise OSError(errno.EXDEV, "cross-device")
        return real(*args)

    monkeypatch.setattr(os, "copy_file_range", once_then_fail)
    assert store.put_file(make_file(data)).digest == "blake3:" + blake3.blake3(data).hexdigest()


def test_an_early_zero_from_the_kernel_is_checked_by_a_plain_read(
    store: Store, make_file: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _data(KERNEL_COPY_MIN + 99)
    monkeypatch.setattr(os, "copy_file_range", lambda *_a: 0)
    monkeypatch.setattr(os, "sendfile", lambda *_a: 0)
    assert store.put_file(make_file(data)).digest == "blake3:" + blake3.blake3(data).hexdigest()


def test_source_read_error_is_reported_as_unreadable(
    store: Store, make_file: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
    store_files: Listing
) -> None:
    src = make_file(_data(KERNEL_COPY_MIN + 1))
    store.init()

    def eio(*_args: Any) -> Any:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    for name in ("copy_file_range", "sendfile", "readv"):
        monkeypatch.setattr(os, name, eio)
    with pytest.raises(SourceUnreadableError):
        store.put_file(src)
    monkeypatch.undo()
    assert store_files(store) == ([], [])


@pytest.mark.parametrize("change", ["append", "rewrite", "truncate", "replace"])
def test_source_changed_during_the_kernel_copy_is_refused(
    store: Store, make_file: Callable[..., Path], store_files: Listing, tmp_path: Path,
    change: str
) -> None:
    src = make_file(_data(2 * COPY_CHUNK + 1))
    os.utime(src, (1_000_000, 1_000_000))
    calls: list[int] = []

    def meddle(n: int) -> None:
        if calls:
            return
        calls.append(n)
        if change == "append":
            with open(src, "ab") as f:
                f.write(b"more")
        elif change == "rewrite":
            with open(src, "r+b") as f:
                f.write(b"b" * 10)  # same size; only the times tell
        elif change == "truncate":
            os.truncate(src, COPY_CHUNK // 2)
        else:
            other = tmp_path / "other"
            other.write_bytes(b"y" * (2 * COPY_CHUNK + 1))
            os.replace(other, src)

    with pytest.raises(SourceChangedError) as info:
        store.put_file(src, sha256=True, progress=meddle)
    assert calls == [COPY_CHUNK]  # refused after the first chunk, not after hashing anything
    assert info.value.path == src
    assert store_files(store) == ([], [])


def test_sha_thread_error_is_raised_and_cleaned_up(
    store: Store, make_file: Callable[..., Path], monkeypatch: pytest.MonkeyPatch,
    store_files: Listing
) -> None:
    src = make_file(_data(KERNEL_COPY_MIN + 1))
    store.init()

    def boom(self: Any, end: int) -> None:
        raise OSError(errno.ENOMEM, "cannot map")

    monkeypatch.setattr(_kcopy.ShaPipe, "_hash_to", boom)
    with pytest.raises(Exception, match="cannot map"):
        store.put_file(src, sha256=True)
    assert store_files(store) == ([], [])
    assert not [t for t in threading.enumerate() if t.name.startswith("labledger-")]


def test_two_large_puts_in_threads(store: Store, make_file: Callable[..., Path]) -> None:
    datas = [_data(KERNEL_COPY_MIN + i * PAGE + 1) for i in range(2)]
    srcs = [make_file(d) for d in datas]
    results: list[str] = ["", ""]

    def put(i: int) -> None:
        results[i] = store.put_file(srcs[i], sha256=True).digest

    threads = [threading.Thread(target=put, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["blake3:" + blake3.blake3(d).hexdigest() for d in datas]
    assert store.verify_all().is_ok
