"""The one-pass engine: read a source once, hash it, and write the same bytes elsewhere.

Chunk size and threading were chosen by measurement on a 2 GiB page-cached file (2 cores,
ext4 on a virtual disk): 4-8 MiB chunks hashed with ``max_threads=AUTO`` and written serially
beat 1-2 MiB chunks (per-call overhead), 16 MiB ones (cache misses) and hashing in a second
Python thread (two threads fight for two cores with BLAKE3's own pool). Starting writeback with
``sync_file_range`` after each chunk was fastest in most runs (~0.7 s vs ~1.1 s per GiB) but
stalled some runs for 3-7 s, so it is not used: the final ``fsync`` writes the file in one go.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from typing import NamedTuple

from blake3 import blake3

from labledger.cas._fs import write_all
from labledger.cas._threads import hash_threads

CHUNK_SIZE = 8 << 20
"""Bytes read, hashed and written per step."""

_local = threading.local()


class Copied(NamedTuple):
    """What `copy_and_hash` read, wrote and computed."""

    blake3_hex: str
    sha256_hex: str | None
    size: int


def _buffer() -> memoryview:
    # NOTE: one buffer per thread, reused: allocating (zeroing) 8 MiB per small file would cost
    # more than reading it.
    buf: memoryview | None = getattr(_local, "buf", None)
    if buf is None:
        buf = memoryview(bytearray(CHUNK_SIZE))
        _local.buf = buf
    return buf


def copy_and_hash(
    src_fd: int,
    dst_fd: int | None,
    *,
    expected_size: int,
    sha256: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Copied:
    """Read ``src_fd`` to EOF once, hashing every chunk and writing it to ``dst_fd``.

    The bytes hashed are exactly the bytes written, so the digest always names what was
    written even if the source changes underneath (the caller detects that separately).
    Reading stops one byte past ``expected_size``, so a growing source is seen as grown.
    ``progress`` receives the byte count of each chunk. OSErrors from reading are raised
    as ``_ReadError``; errors from writing propagate unchanged.
    """
    buf = _buffer()
    hasher = blake3(max_threads=hash_threads()) if expected_size >= CHUNK_SIZE else blake3()
    sha = hashlib.sha256() if sha256 else None
    total = 0
    # NOTE: read at most one byte past the expected size: enough to prove the source grew,
    # and a source appended to as fast as it is read cannot keep the loop going forever.
    limit = expected_size + 1
    while total < limit:
        want = buf if limit - total >= len(buf) else buf[: limit - total]
        try:
            n = os.readv(src_fd, [want])
        except OSError as exc:
            raise ReadError(exc) from exc
        if n == 0:
            break
        chunk = buf[:n]
        hasher.update(chunk)
        if sha is not None:
            sha.update(chunk)
        if dst_fd is not None:
            write_all(dst_fd, chunk)
        total += n
        if progress is not None:
            progress(n)
    return Copied(hasher.hexdigest(), sha.hexdigest() if sha is not None else None, total)


class ReadError(Exception):
    """An OSError raised while reading the source (as opposed to writing the destination)."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(str(cause))
        self.cause = cause
