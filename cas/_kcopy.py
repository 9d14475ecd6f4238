"""Large files: copy in the kernel, then hash the stored bytes through mmap.

For a source of at least `KERNEL_COPY_MIN` bytes, staging is two phases instead of one
read-hash-write loop:

1. **copy**: ``os.copy_file_range`` (falling back to ``os.sendfile``, then to a ``readv``/``write``
   loop) moves the source into the temp file inside the kernel, `COPY_CHUNK` bytes per call, so
   the source is still read exactly once and no byte crosses into Python. When SHA-256 is asked
   for, a thread hashes each copied chunk of the *temp file* (mmap) while the next one is copied.
2. **hash + sync**: BLAKE3 (``max_threads=AUTO``) hashes the whole temp file through mmap while
   another thread fsyncs it (hashlib, blake3 and fsync all release the GIL).

The digests are therefore computed over exactly the bytes stored, as the store's invariants
require; a source that changes during the copy is still caught by the stat before/after and by
the copied byte count (`labledger.cas._stage` checks it before hashing).

Why (2 GiB file in the page cache, ext4 on a virtual disk, shared 2-core VM, load ~2; medians
of 5 interleaved rounds, the same run; ``os.sync`` and a cache warm-up before each timing):

====================================================  =======  ==================
strategy                                               median   range
====================================================  =======  ==================
blake3 alone (mmap, AUTO threads)                      0.22 s   0.20-0.25
durable copy (``shutil.copyfile`` + fsync)             1.51 s   1.40-1.64
previous: 8 MiB ``readv`` -> hash -> ``write``, fsync  6.62 s   4.93-7.71
``readv`` into a reused 32 MiB buffer (fadvise SEQ)    2.61 s   2.22-3.51
kernel copy, then hash, then fsync (serial)            2.02 s   1.70-2.10
kernel copy, then hash while fsync runs (this)         1.50 s   1.39-1.64
same with ``sendfile`` instead of copy_file_range     1.54 s   1.43-1.73
kernel copy with BLAKE3 pipelined per chunk            1.65 s   1.45-2.00
with SHA-256: hashed after the copy, beside BLAKE3     2.83 s   2.62-2.98
with SHA-256: pipelined with the copy (this)           2.28 s   2.07-2.76
(hashlib SHA-256 alone over mmap, for reference)       1.78 s   1.65-1.95
(previous loop with SHA-256 in the same pass)          4.31 s   3.61-5.13
====================================================  =======  ==================

Writing from a Python buffer into fresh page cache is slow and erratic on this machine; the
in-kernel copy runs at the speed of ``shutil.copyfile``, and overlapping the BLAKE3 pass with the
fsync hides it completely (put = durable copy). Pipelining BLAKE3 per chunk does not help (its
thread pool competes with the copy for two cores, and the fsync can only start at the end), but
SHA-256, single-threaded and ~8x slower than BLAKE3, is worth overlapping with the copy.

Also measured and not adopted: ``sync_file_range(WRITE)`` after each chunk, to overlap the
writeback with the copy: 1.41 vs 1.69 s and 1.72 vs 1.84 s in two runs at load 3.7-4.2, but with
2.7-2.9 s outliers, i.e. within noise, and it stalled earlier designs; one fsync stays simpler.
A splice through a 1 MiB user pipe (larger writes) took 3.0 s vs 0.83 s for the copy alone.
That is the trade-off behind the speed: large writes build large page-cache folios, which are
slow to allocate here (the 8 MiB ``write`` loop above) but faster to mmap later; the kernel copy
builds small ones, so re-hashing a *still cached* object right after the put (``check --deep`` in
the benchmark) runs at ~0.7-0.85x of hashing the source, while verify and the raw hash of the
same object file are equal. Objects read from disk are not affected (readahead decides).

Below `KERNEL_COPY_MIN` the one-pass loop of `labledger.cas._copy` is kept: per file (no fsync,
medians of 3x N puts) 4 KiB 0.18 vs 0.19 ms, 1 MiB 1.09 vs 1.16 ms (loop faster: no mmap or
second read), 4 MiB 4.9 vs 4.8 ms, 8 MiB 11.7 vs 10.5 ms, 64 MiB 84 vs 78 ms (kernel faster).
"""

from __future__ import annotations

import hashlib
import mmap
import os
import queue
import threading
from collections.abc import Callable

from blake3 import blake3

from labledger.cas._copy import ReadError, _buffer
from labledger.cas._fs import sync_file, write_all
from labledger.cas._threads import hash_threads
from labledger.cas.errors import FULL_ERRNOS

KERNEL_COPY_MIN = 4 << 20
"""Sources at least this large are staged by kernel copy + mmap hash (see the table above)."""

COPY_CHUNK = 16 << 20
"""Bytes per copy call: the unit of progress reports and of the pipelined SHA-256. 8, 16 and
64 MiB were equal within noise (1.41, 1.53, 1.38 s; with SHA-256 16 vs 64 MiB 2.26 vs 2.12 s);
16 MiB keeps progress reports frequent (~80 ms apart)."""

_METHODS = ("copy_file_range", "sendfile", "userspace")


def _copy_step(method: str, src_fd: int, dst_fd: int, count: int) -> int:
    """Copy up to ``count`` bytes at both files' current offsets; 0 at end of file."""
    if method == "copy_file_range":
        return os.copy_file_range(src_fd, dst_fd, count)
    if method == "sendfile":
        return os.sendfile(dst_fd, src_fd, None, count)
    buf = _buffer()
    want = buf if count >= len(buf) else buf[:count]
    try:
        n = os.readv(src_fd, [want])
    except OSError as exc:
        raise ReadError(exc) from exc
    write_all(dst_fd, buf[:n])
    return n


def copy_in_kernel(
    src_fd: int,
    dst_fd: int,
    *,
    expected_size: int,
    progress: Callable[[int], None] | None = None,
    on_copied: Callable[[int], None] | None = None,
) -> int:
    """Copy ``src_fd`` to ``dst_fd`` from their current offsets; returns the bytes copied.

    Copies at most one byte past ``expected_size`` (enough to prove the source grew).
    ``progress`` gets each step's byte count, ``on_copied`` the running total. A kernel method
    that fails with anything but a full store (unsupported on this filesystem pair, or an I/O
    error whose side it cannot tell) hands over to the next one at the same offsets; the last,
    a ``readv``/``write`` loop, raises `ReadError` for the source and OSError for the
    destination, like `labledger.cas._copy.copy_and_hash`. An early end of file reported by
    the kernel is confirmed by a plain read before it is believed.
    """
    methods = [m for m in _METHODS if m == "userspace" or hasattr(os, m)]
    total = 0
    limit = expected_size + 1
    while total < limit:
        method = methods[0]
        try:
            n = _copy_step(method, src_fd, dst_fd, min(COPY_CHUNK, limit - total))
        except OSError as exc:
            if method == "userspace" or exc.errno in FULL_ERRNOS:
                raise
            methods.pop(0)
            continue
        if n == 0:
            if method != "userspace" and total < expected_size:
                methods = ["userspace"]  # NOTE: some filesystems report 0 instead of failing
                continue
            break
        total += n
        if progress is not None:
            progress(n)
        if on_copied is not None:
            on_copied(total)
    return total


class ShaPipe:
    """SHA-256 of a temp file's copied prefix, computed in a thread while the copy goes on.

    `feed` announces that the file's first ``end`` bytes are written; the thread maps and
    hashes the new range. `finish` returns the hex digest (re-raising the thread's error);
    `close` stops the thread without a result. Both are safe to call more than once.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._sha = hashlib.sha256()
        self._hashed = 0
        self._queue: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="labledger-sha256", daemon=True)
        self._thread.start()

    def feed(self, end: int) -> None:
        self._queue.put(end)

    def _run(self) -> None:
        while (end := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self._hash_to(end)
                except BaseException as exc:  # noqa: BLE001 - re-raised by finish()
                    self._error = exc

    def _hash_to(self, end: int) -> None:
        start = self._hashed - self._hashed % mmap.ALLOCATIONGRANULARITY
        with mmap.mmap(self._fd, end - start, prot=mmap.PROT_READ, offset=start) as m, \
                memoryview(m) as view:
            self._sha.update(view[self._hashed - start :])
        self._hashed = end

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put(None)
            self._thread.join()

    def finish(self) -> str:
        self.close()
        if self._error is not None:
            raise self._error
        return self._sha.hexdigest()


def hash_and_sync(fd: int, size: int, *, fsync: bool) -> str:
    """BLAKE3 hex of the first ``size`` bytes of ``fd`` (mmap, thread pool); when ``fsync``,
    the file is fsynced in another thread meanwhile, and its error (e.g. ENOSPC) is raised."""
    hasher = blake3(max_threads=hash_threads())
    errors: list[BaseException] = []

    def sync() -> None:
        try:
            sync_file(fd)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    syncer = threading.Thread(target=sync, name="labledger-fsync", daemon=True) if fsync \
        else None
    if syncer is not None:
        syncer.start()
    try:
        if size:
            with mmap.mmap(fd, size, prot=mmap.PROT_READ) as m:
                hasher.update(m)
    finally:
        if syncer is not None:
            syncer.join()
    if errors:
        raise errors[0]
    return str(hasher.hexdigest())
