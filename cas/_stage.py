"""Staging: copy a source into a temp file in the store and hash exactly the bytes stored.

Below `KERNEL_COPY_MIN` one read-hash-write loop (`labledger.cas._copy`); above it an
in-kernel copy, then an mmap hash of the temp file overlapped with its fsync
(`labledger.cas._kcopy`, whose docstring has the measurements).

A file a writer builds in ``tmp/`` itself (a pull's partial file) is adopted instead of copied
(`adopt_temp`). Invariant: such a file is adopted only under a `Claim`, an exclusive ``flock``
on the file that its writer holds from before its first append until the commit that renames
it under its digest (or that the store takes itself, refusing a file another process holds).
Two writers of one file would interleave their appends, and the first to finish would store
bytes that do not hash to the digest it computed; under claims one of them waits its turn or
leaves the file alone. A writer that does not claim (an older labledger) cannot be stopped,
but its appends are caught: the file must be as long as its writer hashed when it is staged
and when it is renamed, and still be the claimed file.
"""

from __future__ import annotations

import errno
import fcntl
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


class Claim:
    """An exclusive ``flock`` on a file a writer builds in ``tmp/`` for adoption (see the module
    docstring): taken before the writer reads what an earlier attempt left or appends, held
    until the file is renamed under its digest, removed, or left for a later attempt.

    The lock is on the file itself, so no lock file is left behind; a name renamed or removed
    between the open and the lock (by the claim's previous holder) is opened again, and a claim
    always holds the file its path names. Locks of two open files conflict within one process
    too: a process claims a file once at a time.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def take(cls, path: Path, *, create: bool) -> Claim | None:
        """Claim ``path`` without waiting: None when another open file holds it (a writer at
        work). ``create``: make an empty file when there is none (else FileNotFoundError)."""
        flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | (os.O_CREAT if create else 0)
        while True:
            fd = os.open(path, flags, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            except BaseException:
                os.close(fd)
                raise
            claim = cls(path, fd)
            try:
                if claim.names_path():
                    return claim
            except BaseException:
                claim.release()
                raise
            claim.release()
            if not create and not os.path.lexists(path):
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))

    @property
    def held(self) -> bool:
        return self._fd is not None

    @property
    def fd(self) -> int:
        if self._fd is None:
            raise ValueError(f"the claim on {self.path} was released")
        return self._fd

    def identity(self) -> tuple[int, int]:
        """``(st_dev, st_ino)`` of the claimed file."""
        st = os.fstat(self.fd)
        return st.st_dev, st.st_ino

    def size(self) -> int:
        return os.fstat(self.fd).st_size

    def names_path(self) -> bool:
        """Whether ``path`` still names the claimed file (not renamed, removed or replaced)."""
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return (st.st_dev, st.st_ino) == self.identity()

    def changed(self, size: int) -> str | None:
        """Why the claimed file is no longer the ``size`` bytes its writer hashed at ``path``,
        or None when it still is."""
        if not self.names_path():
            return "the path no longer names the file its writer wrote"
        now = self.size()
        if now != size:
            return (f"it is {now} bytes, but its writer hashed {size}: another process "
                    f"wrote to it")
        return None

    def release(self) -> None:
        """Let go of the claim (once; again is a no-op)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


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
    claim: Claim | None = None
    """An adopted file's `Claim`, held until it is renamed under its digest (the install
    checks the file is still the claimed one, of the size staged)."""


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


def adopt_temp(path: Path, tmp_dir: Path, *, fsync: bool, blake3_hex: str | None = None,
               size: int | None = None, claim: Claim | None = None) -> Staged:
    """Stage a file a writer built directly inside ``tmp_dir``: hashed in place, no copy.

    The digest is computed here over the file's bytes as they are now (BLAKE3 over an mmap),
    unless the writer passes ``blake3_hex`` with ``size``: its own BLAKE3 of exactly the
    ``size`` bytes it wrote, as `stage_bytes` hashes the buffer it writes (`Store.verify` and
    `check --deep` re-derive it later); a file of another length is refused. ``claim``: the
    writer's `Claim` on the file (it stays the writer's to release); without one the store
    claims the file itself, and refuses one another process holds (its writer is still at
    work), and the caller releases that claim once the file is installed. Either way the
    returned `Staged` names the claim, and the install checks the file against it again.
    The file is made read-only and, when ``fsync``, durable. On an error the file is left
    where it is (``kept`` in the error), and a claim taken here is let go.
    """
    if path.parent.resolve() != tmp_dir.resolve():
        raise ValueError(f"{path} is not inside {tmp_dir}")
    if blake3_hex is not None and size is None:
        raise ValueError("a writer's BLAKE3 is trusted only with the size it hashed")
    own = claim is None
    try:
        claim = claim or Claim.take(path, create=False)
    except OSError as exc:
        raise write_error(exc, path, None, kept=True) from exc
    if claim is None:
        raise SourceChangedError(path, "another process holds it locked: its writer is still "
                                       "writing it")
    try:
        why = "the claim is on another file" if claim.path != path else \
            claim.changed(size if size is not None else claim.size())
        if why is not None:
            raise SourceChangedError(path, why)
        staged = _adopt_claimed(claim, fsync=fsync, blake3_hex=blake3_hex)
    except BaseException:
        if own:
            claim.release()
        raise
    return staged._replace(claim=claim)


def _adopt_claimed(claim: Claim, *, fsync: bool, blake3_hex: str | None) -> Staged:
    path, fd = claim.path, claim.fd
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
