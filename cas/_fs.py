"""Filesystem helpers: durable syncs, temp files, full writes."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import secrets
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def _full_fsync_command() -> int | None:
    if sys.platform != "darwin":
        return None
    import fcntl

    command = getattr(fcntl, "F_FULLFSYNC", None)
    return command if isinstance(command, int) else None


_FULL_FSYNC = _full_fsync_command()
# What a filesystem that has no F_FULLFSYNC answers (Go falls back on these alone).
_NOT_SUPPORTED = frozenset({errno.ENOTSUP, errno.EOPNOTSUPP, errno.EINVAL, errno.ENOTTY})


def sync_file(fd: int) -> None:
    """Make the file (or directory) open at ``fd`` durable, as `labledger.ledger.durable`'s
    `sync_file` does (``fcntl(F_FULLFSYNC)`` on macOS, whose ``fsync`` stops at the drive's
    cache; ``fsync`` elsewhere or where a filesystem refuses it). A copy, kept equal by
    tests/ingest/test_platform_portability.py: the store never imports ``labledger.ledger``,
    and the ledger's ``emit`` fast path never imports the store."""
    if _FULL_FSYNC is not None:
        import fcntl

        try:
            fcntl.fcntl(fd, _FULL_FSYNC)
            return
        except OSError as exc:
            if exc.errno not in _NOT_SUPPORTED:
                raise  # an I/O error: fsync could return success without the bytes
            # a filesystem without it: fsync is the most it offers
    os.fsync(fd)


TEMP_SUFFIX = ".labledger-tmp"
"""Every temp file the store creates ends with this, so leftovers are recognisable."""

_libc: Any = None


def _get_libc() -> Any:
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(None, use_errno=True)
        except OSError:  # pragma: no cover - no C library to load
            _libc = False
    return _libc


def has_syncfs() -> bool:
    """Whether ``syncfs(2)`` is available (Linux)."""
    libc = _get_libc()
    return bool(libc) and hasattr(libc, "syncfs")


def syncfs(fd: int) -> None:
    """Flush every dirty page and the journal of the filesystem holding ``fd``; raise on error.

    Linux >= 5.8 reports writeback errors that happened since ``fd`` was opened, so an error
    here means some write on that filesystem may not be durable.
    """
    libc = _get_libc()
    if int(libc.syncfs(fd)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def fsync_dir(path: Path) -> None:
    """fsync a directory so renames and creations inside it are durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        sync_file(fd)
    finally:
        os.close(fd)


def fsync_paths(paths: Iterable[Path], *, workers: int = 16) -> None:
    """fsync many files concurrently so the filesystem can commit them in few journal flushes."""
    from concurrent.futures import ThreadPoolExecutor

    def one(path: Path) -> None:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            sync_file(fd)
        finally:
            os.close(fd)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for _ in pool.map(one, paths):
            pass


def sync_dirs(dirs: Iterable[Path], *, use_syncfs: bool) -> None:
    """Make entries in ``dirs`` durable: one syncfs, or one fsync per directory."""
    dirs = list(dirs)
    if not dirs:
        return
    if use_syncfs:
        fd = os.open(dirs[0], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            syncfs(fd)
        finally:
            os.close(fd)
    else:
        for d in dirs:
            fsync_dir(d)


def write_all(fd: int, data: memoryview) -> None:
    """Write all of ``data`` (``os.write`` may write less than asked)."""
    while data:
        written = os.write(fd, data)
        data = data[written:]


def temp_name(kind: str) -> str:
    """A unique, recognisable temp-file name: ``<kind>-<pid>-<random>.labledger-tmp``."""
    return f"{kind}-{os.getpid()}-{secrets.token_hex(8)}{TEMP_SUFFIX}"


def create_temp(directory: Path, kind: str, mode: int = 0o600, *, readable: bool = False
                ) -> tuple[int, Path]:
    """Create and open a new temp file in ``directory``; returns ``(fd, path)``.

    ``readable`` opens it read-write (needed to mmap it for hashing after a kernel copy).
    """
    access = os.O_RDWR if readable else os.O_WRONLY
    while True:
        path = directory / temp_name(kind)
        try:
            fd = os.open(path, access | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
        except FileExistsError:  # pragma: no cover - 64 random bits collided
            continue
        return fd, path


def unlink_quietly(path: Path) -> None:
    """Remove ``path`` if it exists; cleanup must not mask the error being handled."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def utc_stamp(when: datetime | None = None) -> str:
    """A filename-safe UTC timestamp, e.g. ``20260509T073512.123456Z``."""
    when = when or datetime.now(UTC)
    return when.astimezone(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
