"""Staging: copy a source into a temp file in the store and hash exactly the bytes stored.

Below `KERNEL_COPY_MIN` one read-hash-write loop (`labledger.cas._copy`); above it an
in-kernel copy, then an mmap hash of the temp file overlapped with its fsync
(`labledger.cas._kcopy`, whose docstring has the measurements).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from labledger.cas._copy import Copied, ReadError, copy_and_hash
from labledger.cas._fs import create_temp, sync_file, unlink_quietly, write_all
from labledger.cas._kcopy import KERNEL_COPY_MIN, ShaPipe, copy_in_kernel, hash_and_sync
from labledger.cas._threads import hash_threads
from labledger.cas.digest import PREFIX, parse_digest
from labledger.cas.errors import (
    FULL_ERRNOS,
    SourceChangedError,
    SourceNotFoundError,
    SourceUnreadableError,
    StoreFullError,
    StoreWriteError,
    UnsupportedFileTypeError,
)

OBJECT_MODE = 0o444


class Staged(NamedTuple):
    """A complete temp file in the store, not yet visible under its digest."""

    tmp_path: Path
    hex: str
    size: int
    sha256: str | None
    source_mode: int
    adopted: bool = False
    """A file its writer built in ``tmp/`` (`adopt_temp`), not one the store wrote: a failed
    commit leaves it in place (a pull resumes it instead of receiving it again)."""


def write_error(exc: OSError, where: Path, source: Path | None, *, kept: bool = False
                ) -> Exception:
    """Map an OSError from writing the store to the matching `CasError`. ``kept``: the files
    being adopted were left in place (see `StoreFullError`)."""
    if exc.errno in FULL_ERRNOS:
        return StoreFullError(where, exc.errno or errno.ENOSPC, source, kept=kept)
    return StoreWriteError(where, exc.strerror or str(exc))


def _kind_name(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device node"
    return "special file"


def open_source(path: Path) -> tuple[int, os.stat_result]:
    """Open a regular file for reading (never blocking on a FIFO); returns ``(fd, stat)``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        raise SourceNotFoundError(path) from None
    except PermissionError:
        raise SourceUnreadableError(path, "permission denied; check its mode and owner") from None
    except OSError as exc:
        raise SourceUnreadableError(path, exc.strerror or str(exc)) from exc
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise SourceUnreadableError(path, "it is a directory; store it as a tree")
        raise UnsupportedFileTypeError(path, _kind_name(st.st_mode))
    os.set_blocking(fd, True)
    return fd, st


def _check_unchanged(path: Path, fd: int, before: os.stat_result, size_read: int) -> None:
    after = os.fstat(fd)
    try:
        now = os.stat(path)
    except OSError:
        raise SourceChangedError(path, "it was removed or renamed during the read") from None
    problems = []
    if size_read != before.st_size:
        problems.append(f"{size_read} bytes read but its size was {before.st_size}")
    if after.st_size != before.st_size:
        problems.append(f"size {before.st_size} -> {after.st_size}")
    if (after.st_mtime_ns, after.st_ctime_ns) != (before.st_mtime_ns, before.st_ctime_ns):
        problems.append("its modification time changed")
    if (now.st_ino, now.st_dev) != (before.st_ino, before.st_dev):
        problems.append("the path now names a different file")
    if problems:
        raise SourceChangedError(path, "; ".join(problems))


def stage_file(
    path: Path,
    tmp_dir: Path,
    *,
    sha256: bool,
    progress: Callable[[int], None] | None,
    fsync: bool,
    prepare: Callable[[], None] | None = None,
) -> Staged:
    """Copy ``path`` into a new temp file under ``tmp_dir``, hashing it in the same pass.

    The temp file is made read-only and, when ``fsync``, durable. On any error it is removed.
    ``prepare`` runs once the source is open (so a bad source is reported before the store is
    touched).
    """
    src_fd, before = open_source(path)
    try:
        if prepare is not None:
            prepare()
        return _stage_fd(src_fd, before, path, tmp_dir, sha256=sha256, progress=progress,
                         fsync=fsync)
    finally:
        os.close(src_fd)


def _stage_fd(
    src_fd: int,
    before: os.stat_result,
    path: Path,
    tmp_dir: Path,
    *,
    sha256: bool,
    progress: Callable[[int], None] | None,
    fsync: bool,
) -> Staged:
    large = before.st_size >= KERNEL_COPY_MIN
    try:
        tmp_fd, tmp_path = create_temp(tmp_dir, "put", readable=large)
    except OSError as exc:
        raise write_error(exc, tmp_dir, path) from exc
    try:
        try:
            if large:
                copied = _stage_large(src_fd, tmp_fd, before, path, sha256=sha256,
                                      progress=progress, fsync=fsync)
            else:
                copied = copy_and_hash(src_fd, tmp_fd, expected_size=before.st_size,
                                       sha256=sha256, progress=progress)
                _check_unchanged(path, src_fd, before, copied.size)
                os.fchmod(tmp_fd, OBJECT_MODE)
                if fsync:
                    sync_file(tmp_fd)
        except ReadError as exc:
            raise SourceUnreadableError(path, exc.cause.strerror or str(exc.cause)) from exc
    except OSError as exc:
        os.close(tmp_fd)
        unlink_quietly(tmp_path)
        raise write_error(exc, tmp_path, path) from exc
    except BaseException:
        os.close(tmp_fd)
        unlink_quietly(tmp_path)
        raise
    try:
        os.close(tmp_fd)
    except OSError as exc:  # NFS and friends report deferred write errors on close
        unlink_quietly(tmp_path)
        raise write_error(exc, tmp_path, path) from exc
    return Staged(tmp_path, copied.blake3_hex, copied.size, copied.sha256_hex, before.st_mode)


def _stage_large(
    src_fd: int,
    tmp_fd: int,
    before: os.stat_result,
    path: Path,
    *,
    sha256: bool,
    progress: Callable[[int], None] | None,
    fsync: bool,
) -> Copied:
    """Kernel copy, then BLAKE3 over the temp file while it is fsynced (see `_kcopy`).

    The digests cover exactly the temp file's bytes; the source is checked unchanged (stat
    before/after, byte count) before BLAKE3 runs (SHA-256, when asked for, follows the copy).
    """
    pipe = ShaPipe(tmp_fd) if sha256 else None
    try:
        size = copy_in_kernel(src_fd, tmp_fd, expected_size=before.st_size, progress=progress,
                              on_copied=pipe.feed if pipe is not None else None)
        _check_unchanged(path, src_fd, before, size)
        os.fchmod(tmp_fd, OBJECT_MODE)
        hex_ = hash_and_sync(tmp_fd, size, fsync=fsync)
        sha_hex = pipe.finish() if pipe is not None else None
    finally:
        if pipe is not None:
            pipe.close()
    return Copied(hex_, sha_hex, size)


def adopt_temp(path: Path, tmp_dir: Path, *, fsync: bool, blake3_hex: str | None = None
               ) -> Staged:
    """Stage a file a writer built directly inside ``tmp_dir``: hashed in place, no copy.

    The digest is computed here over the file's bytes as they are now (BLAKE3 over an mmap),
    unless the writer passes ``blake3_hex``: its own BLAKE3 of exactly the bytes it wrote, as
    `stage_bytes` hashes the buffer it writes (`Store.verify` and `check --deep` re-derive it
    later). The file is made read-only and, when ``fsync``, durable. The caller must have
    finished writing. On an error the file is left where it is (``kept`` in the error).
    """
    if path.parent.resolve() != tmp_dir.resolve():
        raise ValueError(f"{path} is not inside {tmp_dir}")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise write_error(exc, path, None, kept=True) from exc
    try:
        size = os.fstat(fd).st_size
        os.fchmod(fd, OBJECT_MODE)
        if blake3_hex is None:
            hex_ = hash_and_sync(fd, size, fsync=fsync)
        else:
            hex_ = parse_digest(PREFIX + blake3_hex)
            if fsync:
                sync_file(fd)
    except OSError as exc:
        raise write_error(exc, path, None, kept=True) from exc
    finally:
        os.close(fd)
    return Staged(path, hex_, size, None, stat.S_IFREG | OBJECT_MODE, adopted=True)


def stage_bytes(data: bytes | bytearray | memoryview, tmp_dir: Path, *, sha256: bool,
                fsync: bool) -> Staged:
    """Write ``data`` into a new temp file under ``tmp_dir`` (read-only; durable if ``fsync``)."""
    import hashlib

    from blake3 import blake3

    view = memoryview(data).cast("B")
    hex_ = blake3(view, max_threads=hash_threads()).hexdigest()
    sha = hashlib.sha256(view).hexdigest() if sha256 else None
    try:
        tmp_fd, tmp_path = create_temp(tmp_dir, "put")
    except OSError as exc:
        raise write_error(exc, tmp_dir, None) from exc
    try:
        write_all(tmp_fd, view)
        os.fchmod(tmp_fd, OBJECT_MODE)
        if fsync:
            sync_file(tmp_fd)
        os.close(tmp_fd)
    except OSError as exc:
        try:
            os.close(tmp_fd)
        except OSError:
            pass
        unlink_quietly(tmp_path)
        raise write_error(exc, tmp_path, None) from exc
    except BaseException:
        os.close(tmp_fd)
        unlink_quietly(tmp_path)
        raise
    return Staged(tmp_path, hex_, len(view), sha, 0o644)
