"""Filesystem steps the capture code needs: durable copies, no-replace renames, directory syncs.

Ordering rule: a file's bytes are fsynced before the rename that publishes it, and the directory
holding a rename is fsynced before the rename is reported; otherwise a crash can leave a name
pointing at missing or partial data.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from labledger.cas._fs import fsync_dir as fsync_dir  # the store's, re-exported, not a copy
from labledger.ledger.durable import sync_file

_RENAME_NOREPLACE = 1
_AT_FDCWD = -100
_libc: Any = None


class ChangedWhileCopiedError(OSError):
    """A file changed (size, mtime or inode) while `copy_tree` copied it: the copy is torn."""

    def __init__(self, path: str, rel: str) -> None:
        super().__init__(errno.EAGAIN, "changed while it was copied", path)
        self.rel = rel


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        sync_file(fd)
    finally:
        os.close(fd)


def _renameat2() -> Any:
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        except OSError:
            _libc = False
    return getattr(_libc, "renameat2", None) if _libc else None


def rename_noreplace(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst`` only if ``dst`` does not exist (raises `FileExistsError`).

    Uses ``renameat2(RENAME_NOREPLACE)`` where the kernel and filesystem offer it, so the check
    and the rename are one atomic step; elsewhere checks first (a plain rename would silently
    replace an empty directory).
    """
    func = _renameat2()
    if func is not None:
        rc = func(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE)
        if rc == 0:
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise FileExistsError(err, os.strerror(err), str(dst))
        if err not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            raise OSError(err, os.strerror(err), str(src), None, str(dst))
    if os.path.lexists(dst):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dst))
    os.rename(src, dst)


def move_dir(src: Path, dst: Path) -> None:
    """Move a directory to a new name that must not exist, across filesystems if need be.

    Across filesystems the tree is copied durably first and the source removed only after the
    copy is complete, so a failure leaves the files in at least one place.
    """
    try:
        rename_noreplace(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        copy_tree(src, dst)
        shutil.rmtree(src)
        fsync_dir(src.parent)
    fsync_dir(dst.parent)


def copy_tree(src: Path, dst: Path, *, unchanging: bool = False) -> tuple[int, int]:
    """Copy a directory durably, never following symlinks; returns (files, bytes).

    ``dst`` must not exist. Regular files keep their permission bits and times; symlinks are
    recreated as links; anything else (FIFO, socket, device) raises `OSError` before it is
    opened, so a pipe can never block the copy. With ``unchanging``, a file whose size, mtime
    or inode differ after its copy (a process is still writing it), or whose copy has another
    size, raises `ChangedWhileCopiedError`; ``dst`` is then left as it is.
    """
    files = size = 0
    os.mkdir(dst)
    dirs = [dst]
    copied_dirs: list[tuple[str, Path]] = []
    stack = [(src, dst)]
    while stack:
        here, there = stack.pop()
        with os.scandir(here) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            target = there / entry.name
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(entry.path), target)
            elif stat.S_ISDIR(mode):
                os.mkdir(target)
                copied_dirs.append((entry.path, target))
                dirs.append(target)
                stack.append((Path(entry.path), target))
            elif stat.S_ISREG(mode):
                before = entry.stat(follow_symlinks=False)
                shutil.copy2(entry.path, target, follow_symlinks=False)
                fsync_file(target)
                if unchanging:
                    after = os.stat(entry.path, follow_symlinks=False)
                    if ((before.st_ino, before.st_size, before.st_mtime_ns)
                            != (after.st_ino, after.st_size, after.st_mtime_ns)
                            or os.stat(target).st_size != after.st_size):
                        raise ChangedWhileCopiedError(
                            entry.path, os.path.relpath(entry.path, src))
                files += 1
                size += before.st_size
            else:
                raise OSError(errno.EINVAL, "not a regular file, directory or symlink",
                              entry.path)
    # A folder's mode and times are copied once its contents are in: a read-only folder
    # (`chmod -R a-w` on a finished run) would refuse them, and each entry bumps its mtime.
    for path, target in reversed(copied_dirs):
        shutil.copystat(path, target, follow_symlinks=False)
    for d in dirs:
        fsync_dir(d)
    fsync_dir(dst.parent)
    return files, size
