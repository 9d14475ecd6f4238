"""Garbage collection: remove unreferenced objects older than a grace period.

Two kinds of reference reach gc. ``referenced`` is everything worth keeping: gc never removes
an object it names, nor a file of a tree it names, even when the name is not really an object
(a digest of a document, a hash a remote box computed). ``required`` is the subset that the
store is supposed to hold; only those (and the files of stored trees) are reported ``missing``,
so digests of things that were never stored do not read as lost evidence.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from labledger.cas import _fs
from labledger.cas.digest import PREFIX, parse_digest
from labledger.cas.errors import MalformedTreeError
from labledger.cas.results import GcItem, GcReport
from labledger.cas.tree import TREE_MAGIC, decode_tree
from labledger.cas.verify import scan_objects

if TYPE_CHECKING:
    from labledger.cas._protocol import StoreLike


def _item(digest: str | None, path: Path, st: os.stat_result) -> GcItem:
    return GcItem(digest=digest, path=path, size=st.st_size,
                  mtime=datetime.fromtimestamp(st.st_mtime, UTC))


def _reachable(
    store: StoreLike, referenced: Iterable[str], required: Iterable[str] | None, *, strict: bool
) -> tuple[set[str], dict[str, list[str | None]]]:
    """Walk from ``referenced`` through trees; returns the stored hexes and the missing digests.

    ``missing`` maps a digest that should be stored but is not to every tree that names it
    (None for a root; a file shared by two trees is named by both, whichever is walked first).
    Only roots in ``required`` (every root when it is None) and files named by a
    stored tree count as missing: other roots are kept when present and ignored when absent.
    With ``strict`` a stored tree that cannot be decoded raises (gc could not protect its
    files); without it the object is taken for a file that merely starts like a tree.
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
) -> GcReport:
    """See `Store.gc`."""
    if grace_seconds < 0:
        raise ValueError("grace_seconds must be >= 0")
    now_ts = now.timestamp() if now is not None else time.time()
    cutoff = now_ts - grace_seconds
    keep, missing = _reachable(store, referenced, required, strict=True)
    removed: list[GcItem] = []
    kept_referenced = kept_recent = 0
    touched: set[Path] = set()
    for hex_, path in scan_objects(store):
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
        removed.append(_item(PREFIX + hex_, path, st))
        if not dry_run:
            _fs.unlink_quietly(path)
            touched.add(path.parent)
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
            temps.append(_item(None, Path(entry.path), st))
            if not dry_run:
                _fs.unlink_quietly(Path(entry.path))
    for d in sorted(touched):
        _fs.fsync_dir(d)
    return GcReport(dry_run=dry_run, removed=tuple(removed), temp_removed=tuple(temps),
                    kept_referenced=kept_referenced, kept_recent=kept_recent,
                    missing=tuple(sorted(missing)))
