"""Re-hash stored objects; quarantine the ones that do not match their names."""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from blake3 import blake3

from labledger.cas._threads import hash_threads
from labledger.cas.digest import PREFIX
from labledger.cas.results import CorruptObject, VerifyReport

if TYPE_CHECKING:
    from labledger.cas._protocol import Progress, StoreLike

MMAP_MIN = 1 << 20
"""Objects at least this large are hashed through mmap with BLAKE3's thread pool.

Measured on a 2 GiB page-cached file (2 cores): ``update_mmap`` with ``max_threads=AUTO`` hashed
at ~11 GB/s, ~2x a ``readinto`` loop (which pays a copy per byte) and the single-threaded rate.
Objects are read-only and only ever replaced by rename, so the mapping cannot shrink under us
unless someone tampers with the store."""

_FAN = re.compile(r"^[0-9a-f]{2}$")
_REST = re.compile(r"^[0-9a-f]{62}$")


def hash_object(path: Path) -> str:
    """BLAKE3 hex of a file's bytes, by the fastest measured route for its size."""
    return hash_file_at(path)[0]


def hash_file_at(path: Path) -> tuple[str, tuple[int, int]]:
    """`hash_object`, with ``(st_dev, st_ino)`` of the very file hashed (its open
    descriptor's): what a quarantine of it must move (`Store.quarantine`'s ``hashed``)."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        identity = (st.st_dev, st.st_ino)
        if st.st_size >= MMAP_MIN:
            hasher = blake3(max_threads=hash_threads())
            with mmap.mmap(f.fileno(), st.st_size, prot=mmap.PROT_READ) as mapped:
                hasher.update(mapped)
            return str(hasher.hexdigest()), identity
        return str(blake3(f.read()).hexdigest()), identity


def scan_objects(store: StoreLike, stray: list[Path] | None = None,
                 unreadable: list[Path] | None = None) -> Iterator[tuple[str, Path]]:
    """``(hex, path)`` for every object file; other files go to ``stray`` when given.

    A fan-out folder that cannot be listed (permissions) goes to ``unreadable`` when given
    (its objects are skipped), and raises `PermissionError` otherwise."""
    try:
        fans = sorted(os.scandir(store.objects_dir), key=lambda e: e.name)
    except FileNotFoundError:
        return
    for fan in fans:
        if not (_FAN.match(fan.name) and fan.is_dir(follow_symlinks=False)):
            if stray is not None:
                stray.append(Path(fan.path))
            continue
        try:
            it = os.scandir(fan.path)
        except FileNotFoundError:
            continue
        except PermissionError:
            if unreadable is None:
                raise
            unreadable.append(Path(fan.path))
            continue
        with it:
            for entry in it:
                if _REST.match(entry.name) and entry.is_file(follow_symlinks=False):
                    yield fan.name + entry.name, Path(entry.path)
                elif stray is not None:
                    stray.append(Path(entry.path))


def verify_all(store: StoreLike, *, progress: Progress | None) -> VerifyReport:
    """See `Store.verify_all`."""
    stray: list[Path] = []
    unreadable: list[Path] = []
    corrupt: list[CorruptObject] = []
    checked = 0
    total = 0
    for hex_, path in scan_objects(store, stray, unreadable):
        try:
            actual, hashed = hash_file_at(path)
            size = os.stat(path).st_size
        except FileNotFoundError:
            continue  # removed by gc or quarantined by another process meanwhile
        except OSError:
            # Unreadable (permissions, an I/O error): a problem like a corrupt object, but
            # left in place (quarantine_path None): its bytes may be intact, and moving it
            # cannot fix a permission. actual_digest None: "content could not be read".
            corrupt.append(CorruptObject(digest=PREFIX + hex_, path=path,
                                         quarantine_path=None, actual_digest=None))
            continue
        checked += 1
        total += size
        if actual != hex_:
            err = store.corrupt(hex_, actual, hashed=hashed)
            corrupt.append(CorruptObject(digest=PREFIX + hex_, path=path,
                                         quarantine_path=err.quarantine_path,
                                         actual_digest=err.actual_digest))
        if progress is not None:
            progress(size)
    return VerifyReport(checked=checked, bytes=total, corrupt=tuple(corrupt), stray=tuple(stray),
                        unreadable=tuple(unreadable))
