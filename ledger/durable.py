"""Syncs that make bytes durable on every platform labledger runs on.

Invariant: when `sync_file` or `sync_data` returns, what was written through ``fd`` survives
a power loss, as far as the operating system can promise it.

* Linux: ``fsync(2)`` and ``fdatasync(2)`` wait for the device, cache flush included.
* macOS: ``fsync(2)`` only hands the data to the drive, whose write cache can still lose it;
  ``fcntl(F_FULLFSYNC)`` is what makes the drive write it out (Go's and Rust's file syncs
  use it there for the same reason). A filesystem that does not support it (a network share,
  FAT: ENOTSUP, EINVAL) gets ``fsync``; any other error (EIO) is raised, never papered over.
  macOS has no ``fdatasync`` (Python's ``os.fdatasync`` is missing there), so a data sync is
  the full one.

Only ``errno``, ``os``, ``sys`` and ``fcntl``: the ``emit`` fast path in a training loop
syncs through here.
"""

from __future__ import annotations

import errno
import os
import sys

__all__ = ["sync_data", "sync_file"]


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
    """Make the file (or directory) open at ``fd`` durable: its data and its metadata."""
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


def sync_data(fd: int) -> None:
    """Make the data of the file open at ``fd`` durable (``fdatasync`` where there is one:
    metadata that reading the data does not need, such as the modification time, may lag)."""
    if _FULL_FSYNC is None and hasattr(os, "fdatasync"):
        os.fdatasync(fd)
        return
    sync_file(fd)
