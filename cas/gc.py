"""Garbage collection: remove unreferenced objects older than a grace period.

Two kinds of reference reach gc. ``referenced`` is everything worth keeping: gc never removes
an object it names, nor a file of a tree it names, even when the name is not really an object
(a digest of a document, a hash a remote box computed). ``required`` is the subset that the
store is supposed to hold; only those (and the files of stored trees) are reported ``missing``,
so digests of things that were never stored do not read as lost evidence.

gc also removes what interrupted pulls left in ``tmp/``: ``pull-<key>.partial`` files, the bytes
a pull received and keeps so that the same pull can resume them. Only those last written longer
ago than their own grace period go (a box destroyed before its pull was resumed leaves one
forever otherwise), and never while a pull runs: every pull holds ``tmp/pull.lock`` shared
(`hold_pull_partials`) for as long as it may write or resume a partial file, and gc removes
partials only under the same lock held exclusively, which it does not wait for.

gc never removes an object that a writer has been told is stored, nor one a writer is about to
name in an event. ``gc.lock`` (in the store's root, beside ``objects/``) is the one lock for
this, taken with ``flock``, so a killed process never leaves it held:

* every put holds it shared while it installs an object or finds it already there and refreshes
  its mtime (`Store._install`, `Batch`): a dedup put can no longer land between gc's ``stat``
  of an old object and its ``unlink`` and return a digest whose bytes gc then removes;
* a writer that stores objects and then records events naming them holds it shared from before
  its first put until its append returns (`Store.holding_off_gc`: ``ingest-dir``,
  ``checkpoint``, `record_attachment`, ``emit --attach``, a ``run`` launch, ``close``; ``pull``
  around each batch commit and its events only), so even ``grace_seconds=0`` cannot remove an
  object between the two;
* gc (not a dry run) holds it exclusively from before it reads the references (``referenced``
  and ``required`` are iterated only then: pass generators that read the ledger) until its last
  removal. It waits for the writers that hold it (calling ``on_wait`` first); puts wait for gc
  meanwhile, saying so. Locks on different open files of one process conflict too: never run gc
  inside `Store.holding_off_gc`;
* one process holds it once, however deeply nested its holds (`hold_off_gc` counts them): a
  batch holds it from its first put to its commit, and each put inside costs nothing more.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from labledger.cas import _fs
from labledger.cas._stage import write_error
from labledger.cas.digest import PREFIX, parse_digest
from labledger.cas.errors import (
    MalformedTreeError,
    ObjectUnreadableError,
    SourceUnreadableError,
)
from labledger.cas.results import GcItem, GcReport
from labledger.cas.tree import TREE_MAGIC, decode_tree
from labledger.cas.verify import scan_objects

if TYPE_CHECKING:
    from labledger.cas._protocol import StoreLike

PULL_PARTIAL_PREFIX, PULL_PARTIAL_SUFFIX = "pull-", ".partial"
"""A pull's received bytes wait in ``tmp/pull-<key>.partial`` until they are stored."""
PULL_NOTE_SUFFIX = ".stored"
"""``tmp/pull-<key>.stored``: a pull whose store commit failed at its last step notes there
that the file is in the store, for the next pull to find it; gc removes it as a partial."""
PULL_LOCK = "pull.lock"
"""In ``tmp/``: held shared by every running pull, exclusively by gc removing partials."""
GC_LOCK = "gc.lock"
"""In the store's root: held shared by puts and by writers until their events are recorded,
exclusively by gc removing objects (see the module docstring)."""


def _open_gc_lock(store: StoreLike) -> int:
    """Open (creating) ``gc.lock``; raises `StoreWriteError`/`StoreFullError` if it cannot.
    Made readable by all, whatever the umask (the lock is taken through a read-only
    descriptor): a store shared by a group stays usable by every member, as its objects are."""
    path = store.root / GC_LOCK
    try:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        os.fchmod(fd, 0o644)
        return fd
    except OSError as exc:
        raise write_error(exc, path, None) from exc


# One shared hold per process and store, however deeply nested (a writer's hold, then each
# put's inside it): one descriptor, locked once. Inner holds cost a dict look-up instead of an
# open, a flock and a close per object; and on NFS, where flock is emulated by POSIX record
# locks that belong to the process, closing an inner descriptor would release the outer hold.
_HELD: dict[tuple[int, str], list[int]] = {}  # (pid, lock path) -> [descriptor, depth]
_HELD_LOCK = threading.Lock()


@contextlib.contextmanager
def hold_off_gc(store: StoreLike) -> Iterator[None]:
    """Keep gc from removing any object for the ``with`` block (``gc.lock`` shared; any
    number of writers hold it at once). Waits while gc is removing objects, saying so once
    (a WARNING on the ``labledger`` logger: a checkpoint call must not stall in silence). The
    store's root must exist (`Store.init`)."""
    key = (os.getpid(), str(store.root / GC_LOCK))  # (a forked child takes its own)
    # Held across the wait: a thread can only wait here while gc holds the lock, and then no
    # thread of this process holds it (it would be in `_HELD`), so none needs to release.
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is None:
            fd = _open_gc_lock(store)
            try:
                _lock_shared(fd, key[1])
            except BaseException:
                os.close(fd)
                raise
            held = _HELD[key] = [fd, 0]
        held[1] += 1
    try:
        yield
    finally:
        with _HELD_LOCK:
            held[1] -= 1
            if held[1] == 0:
                del _HELD[key]
                os.close(held[0])  # releases the lock


def _lock_shared(fd: int, path: str) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    import logging

    logging.getLogger("labledger").warning(
        "labledger: waiting for `labledger cas gc` to finish removing objects (it holds %s)",
        path)
    fcntl.flock(fd, fcntl.LOCK_SH)


@contextlib.contextmanager
def _gc_exclusive(store: StoreLike, on_wait: Callable[[], None] | None) -> Iterator[None]:
    """``gc.lock`` exclusively for the block, calling ``on_wait`` once if a writer holds it."""
    fd = _open_gc_lock(store)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def is_pull_partial(name: str) -> bool:
    """A pull's leftover in ``tmp/``: a partial file, or the note of a failed commit."""
    return name.startswith(PULL_PARTIAL_PREFIX) and name.endswith((PULL_PARTIAL_SUFFIX,
                                                                    PULL_NOTE_SUFFIX))


@contextlib.contextmanager
def hold_pull_partials(store: StoreLike) -> Iterator[None]:
    """Keep gc off the store's pull partial files for the ``with`` block (a shared lock on
    ``tmp/pull.lock``; any number of pulls hold it at once). Waits while gc is removing
    partials (milliseconds). Raises `StoreWriteError` (or `StoreFullError`) when the lock
    file cannot be created."""
    path = store.tmp_dir / PULL_LOCK
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise write_error(exc, path, None) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # releases the lock


def _pull_lock_exclusive(store: StoreLike, *, create: bool) -> tuple[int | None, bool]:
    """Try to take ``tmp/pull.lock`` exclusively without waiting: ``(fd or None, busy)``.
    Raises OSError when it cannot be opened (created when ``create``; without it a missing
    lock file means no pull holds it)."""
    flags = os.O_RDONLY | os.O_CLOEXEC | (os.O_CREAT if create else 0)
    try:
        fd = os.open(store.tmp_dir / PULL_LOCK, flags, 0o644)
    except FileNotFoundError:
        if create:
            raise
        return None, False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None, True
    except BaseException:
        os.close(fd)
        raise
    return fd, False


def _item(digest: str | None, path: Path, st: os.stat_result) -> GcItem:
    return GcItem(digest=digest, path=path, size=st.st_size,
                  mtime=datetime.fromtimestamp(st.st_mtime, UTC))


def _unlinked(path: str, st: os.stat_result, dry_run: bool, failed: list[GcItem],
              reasons: dict[str, Path]) -> GcItem | None:
    """Remove the leftover file at ``path`` (not on a dry run); its item, or None when it is
    already gone or could not be removed (then listed in ``failed``, the reason kept once)."""
    item = _item(None, Path(path), st)
    if not dry_run:
        try:
            os.unlink(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            failed.append(item)
            reasons.setdefault(exc.strerror or str(exc), Path(path))
            return None
    return item


def _reachable(
    store: StoreLike, referenced: Iterable[str], required: Iterable[str] | None, *, strict: bool
) -> tuple[set[str], dict[str, list[str | None]]]:
    """Walk from ``referenced`` through trees; returns the stored hexes and the missing digests.

    ``missing`` maps a digest that should be stored but is not to every tree that names it
    (None for a root; a file shared by two trees is named by both, whichever is walked first).
    Only roots in ``required`` (every root when it is None) and files named by a
    stored tree count as missing: other roots are kept when present and ignored when absent.
    With ``strict`` a stored tree that cannot be decoded raises (gc could not protect its
    files); without it the object is taken for a file that merely starts like a tree. An object
    that cannot be read (permissions) is there, so never missing: with ``strict`` it raises
    `ObjectUnreadableError` (it may be a tree whose files gc could not protect), without it the
    walk does not go into it (``check --deep`` reports it as unreadable).
    """
    keep: set[str] = set()
    missing: dict[str, list[str | None]] = {}  # every tree naming it (None: a root), in order
    must = None if required is None else {parse_digest(d) for d in required}
    queue: list[tuple[str, str | None, bool]] = [
        (hex_, None, must is None or hex_ in must) for hex_ in map(parse_digest, referenced)]
    if must is not None:
        queue += [(hex_, None, True) for hex_ in must]
    while queue:
        hex_, parent, needed = queue.pop()
        if hex_ in keep:
            continue
        path = store._path(hex_)
        try:
            with open(path, "rb") as f:
                head = f.read(len(TREE_MAGIC))
                is_tree = head == TREE_MAGIC
                data = head + f.read() if is_tree else b""
        except FileNotFoundError:
            if needed:
                parents = missing.setdefault(PREFIX + hex_, [])
                if parent not in parents:
                    parents.append(parent)
            continue
        except OSError as exc:
            if strict:
                raise ObjectUnreadableError(PREFIX + hex_, path, f"{exc.strerror or exc}; gc "
                                            "cannot tell which objects it keeps, so it removed "
                                            "nothing") from None
            keep.add(hex_)
            continue
        keep.add(hex_)
        if not is_tree:
            continue
        try:
            entries = decode_tree(data, PREFIX + hex_)
        except MalformedTreeError:
            if strict:
                raise
            continue
        for entry in entries:
            if entry.digest is not None:
                queue.append((parse_digest(entry.digest), PREFIX + hex_, True))
    return keep, missing


def find_missing(store: StoreLike, required: Iterable[str]) -> dict[str, list[str | None]]:
    """See `Store.find_missing`."""
    return {d: sorted(parents, key=lambda t: (t is not None, t or ""))
            for d, parents in _reachable(store, (), required, strict=False)[1].items()}


def collect_garbage(
    store: StoreLike,
    referenced: Iterable[str],
    *,
    grace_seconds: float,
    dry_run: bool,
    now: datetime | None,
    required: Iterable[str] | None = None,
    partial_grace_seconds: float | None = None,
    on_wait: Callable[[], None] | None = None,
) -> GcReport:
    """See `Store.gc`."""
    if partial_grace_seconds is None:
        partial_grace_seconds = grace_seconds
    if grace_seconds < 0 or partial_grace_seconds < 0:
        raise ValueError("grace_seconds and partial_grace_seconds must be >= 0")
    if dry_run or not store.root.is_dir():
        # Removes nothing (a dry run; no store yet, which gc does not create): no lock, so a
        # store it may not write can still be looked at.
        return _collect(store, referenced, grace_seconds=grace_seconds, dry_run=dry_run,
                        now=now, required=required, partial_grace_seconds=partial_grace_seconds)
    with _gc_exclusive(store, on_wait):
        return _collect(store, referenced, grace_seconds=grace_seconds, dry_run=False, now=now,
                        required=required, partial_grace_seconds=partial_grace_seconds)


def _collect(store: StoreLike, referenced: Iterable[str], *, grace_seconds: float,
             dry_run: bool, now: datetime | None, required: Iterable[str] | None,
             partial_grace_seconds: float) -> GcReport:
    """`collect_garbage` once it holds the lock (or on a dry run)."""
    now_ts = now.timestamp() if now is not None else time.time()
    cutoff = now_ts - grace_seconds
    reasons: dict[str, Path] = {}  # why removals failed, each with the first path it hit
    keep, missing = _reachable(store, referenced, required, strict=True)
    # Every object is listed before the first is removed: a folder that cannot be listed
    # stops gc with nothing removed, rather than half-way through.
    unlisted: list[Path] = []
    objects = list(scan_objects(store, unreadable=unlisted))
    if unlisted:
        raise SourceUnreadableError(unlisted[0], "cannot list the objects in it (permission "
                                    "denied); fix its permissions, or run labledger as the "
                                    "user who owns the store; gc removed nothing")
    removed: list[GcItem] = []
    failed: list[GcItem] = []
    kept_referenced = kept_recent = 0
    touched: set[Path] = set()
    for hex_, path in objects:
        if hex_ in keep:
            kept_referenced += 1
            continue
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        if st.st_mtime > cutoff:
            kept_recent += 1
            continue
        item = _item(PREFIX + hex_, path, st)
        if not dry_run:
            # Reported as removed only once it is gone: a store that may not be written (a
            # read-only copy, another user's) must not read as cleaned.
            try:
                os.unlink(path)
            except FileNotFoundError:
                continue  # removed (or quarantined) by another process meanwhile
            except OSError as exc:
                failed.append(item)
                reasons.setdefault(exc.strerror or str(exc), path)
                continue
            touched.add(path.parent)
        removed.append(item)
    temps: list[GcItem] = []
    try:
        leftovers = list(os.scandir(store.tmp_dir))
    except FileNotFoundError:
        leftovers = []
    for entry in leftovers:
        if not entry.name.endswith(_fs.TEMP_SUFFIX) or not entry.is_file(follow_symlinks=False):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        if st.st_mtime <= cutoff:
            temp = _unlinked(entry.path, st, dry_run, failed, reasons)
            if temp is not None:
                temps.append(temp)
    partials, partials_recent, partials_in_use = _sweep_partials(
        store, [e for e in leftovers if is_pull_partial(e.name)],
        cutoff=now_ts - partial_grace_seconds, dry_run=dry_run, failed=failed, reasons=reasons)
    for d in sorted(touched):
        _fs.fsync_dir(d)
    return GcReport(dry_run=dry_run, removed=tuple(removed), temp_removed=tuple(temps),
                    kept_referenced=kept_referenced, kept_recent=kept_recent,
                    missing=tuple(sorted(missing)), failed=tuple(failed),
                    failed_because=tuple(f"{why} ({path})" for why, path in reasons.items()),
                    partials_removed=tuple(partials), partials_kept_recent=partials_recent,
                    partials_in_use=partials_in_use)


def remove_pull_partials(store: StoreLike, *, grace_seconds: float = 0.0, dry_run: bool = False,
                         now: datetime | None = None) -> GcReport:
    """The pull-partial part of gc alone: remove ``tmp/pull-*.partial`` files last written more
    than ``grace_seconds`` ago (0: all), none while a pull runs. Objects and other temp files
    are left alone; the report holds only the ``partials_*`` and ``failed`` fields."""
    if grace_seconds < 0:
        raise ValueError("grace_seconds must be >= 0")
    now_ts = now.timestamp() if now is not None else time.time()
    try:
        found = [e for e in os.scandir(store.tmp_dir) if is_pull_partial(e.name)]
    except FileNotFoundError:
        found = []
    failed: list[GcItem] = []
    reasons: dict[str, Path] = {}
    removed, recent, in_use = _sweep_partials(store, found, cutoff=now_ts - grace_seconds,
                                              dry_run=dry_run, failed=failed, reasons=reasons)
    return GcReport(dry_run=dry_run, removed=(), temp_removed=(), kept_referenced=0,
                    kept_recent=0, missing=(), failed=tuple(failed),
                    failed_because=tuple(f"{why} ({path})" for why, path in reasons.items()),
                    partials_removed=tuple(removed), partials_kept_recent=recent,
                    partials_in_use=in_use)


def _sweep_partials(store: StoreLike, found: list[os.DirEntry[str]], *, cutoff: float,
                    dry_run: bool, failed: list[GcItem], reasons: dict[str, Path]
                    ) -> tuple[list[GcItem], int, int]:
    """Remove the pull partials last written at or before ``cutoff``, unless a pull is running
    (it holds the lock: then every partial is kept and counted in use). Returns (removed,
    kept because recent, kept because a pull runs); what could not be removed goes to
    ``failed``. A dry run takes the lock too, to say truly what it would remove now."""
    if not found:
        return [], 0, 0
    try:
        fd, busy = _pull_lock_exclusive(store, create=not dry_run)
    except OSError as exc:
        fd, busy = None, False
        if not dry_run:  # no lock, no removal: a pull might be writing any of them
            for entry in found:
                with contextlib.suppress(OSError):
                    failed.append(_item(None, Path(entry.path),
                                        entry.stat(follow_symlinks=False)))
            reasons.setdefault(f"cannot lock pull partials: {exc.strerror or exc}",
                               store.tmp_dir / PULL_LOCK)
            return [], 0, 0
    if busy:
        return [], 0, len(found)
    removed: list[GcItem] = []
    recent = 0
    try:
        for entry in found:
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                st = os.stat(entry.path, follow_symlinks=False)  # fresh: not scandir's cache
            except FileNotFoundError:
                continue  # stored or dropped by the pull that held it
            if st.st_mtime > cutoff:
                recent += 1
                continue
            partial = _unlinked(entry.path, st, dry_run, failed, reasons)
            if partial is not None:
                removed.append(partial)
    finally:
        if fd is not None:
            os.close(fd)
    return removed, recent, 0
