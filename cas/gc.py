"""Garbage collection: remove unreferenced objects older than a grace period."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from labledger.cas import _fs
from labledger.cas.digest import PREFIX, parse_digest
from labledger.cas.results import GcItem, GcReport
from labledger.cas.tree import TREE_MAGIC, decode_tree
from labledger.cas.verify import scan_objects

if TYPE_CHECKING:
    from labledger.cas._protocol import StoreLike


def _item(digest: str | None, path: Path, st: os.stat_result) -> GcItem:
    return GcItem(digest=digest, path=path, size=st.st_size,
                  mtime=datetime.fromtimestamp(st.st_mtime, UTC))


def _reachable(store: StoreLike, referenced: Iterable[str]) -> tuple[set[str], list[str]]:
    keep: set[str] = set()
    missing: list[str] = []
    queue = [parse_digest(d) for d in referenced]
    while queue:
        hex_ = queue.pop()
        if hex_ in keep:
            continue
        path = store._path(hex_)
        try:
            with open(path, "rb") as f:
                head = f.read(len(TREE_MAGIC))
                is_tree = head == TREE_MAGIC
                data = head + f.read() if is_tree else b""
        except FileNotFoundError:
            missing.append(PREFIX + hex_)
            continue
        keep.add(hex_)
        if is_tree:
            # A referenced tree that cannot be decoded raises: its files cannot be protected.
            for entry in decode_tree(data, PREFIX + hex_):
                if entry.digest is not None:
                    queue.append(parse_digest(entry.digest))
    return keep, sorted(set(missing))


def collect_garbage(
    store: StoreLike,
    referenced: Iterable[str],
    *,
    grace_seconds: float,
    dry_run: bool,
    now: datetime | None,
) -> GcReport:
    """See `Store.gc`."""
    if grace_seconds < 0:
        raise ValueError("grace_seconds must be >= 0")
    now_ts = now.timestamp() if now is not None else time.time()
    cutoff = now_ts - grace_seconds
    keep, missing = _reachable(store, referenced)
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
                    missing=tuple(missing))
