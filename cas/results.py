"""What store operations return: frozen msgspec Structs with a ``to_json()``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import msgspec

from labledger.cas.tree import TreeEntry

ObjectType = Literal["file", "tree"]


def _enc_hook(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


class _Result(msgspec.Struct, frozen=True, kw_only=True):
    def to_json(self) -> dict[str, Any]:
        """JSON-ready builtins (paths as strings, datetimes as ISO 8601 UTC)."""
        out: dict[str, Any] = msgspec.to_builtins(self, enc_hook=_enc_hook)
        return out


class PutResult(_Result, frozen=True, kw_only=True):
    """The outcome of storing a file, bytes or a directory.

    ``size`` is the content size: the file's bytes, or for a tree the sum of its files' sizes.
    ``stored_new`` is False when an identical object was already stored (dedup). For trees,
    ``entries`` lists the tree, ``objects_new`` counts newly stored objects (the tree included),
    ``file_sha256`` maps file paths to SHA-256 when asked, and ``case_collisions`` groups paths
    that differ only by case or Unicode normalisation.
    """

    digest: str
    type: ObjectType
    size: int
    stored_new: bool
    sha256: str | None = None
    entries: tuple[TreeEntry, ...] = ()
    objects_new: int = 0
    file_sha256: dict[str, str] = msgspec.field(default_factory=dict)
    case_collisions: tuple[tuple[str, ...], ...] = ()


class ObjectInfo(_Result, frozen=True, kw_only=True):
    """One stored object: its size in bytes, type, path in the store and modification time."""

    digest: str
    type: ObjectType
    size: int
    path: Path
    mtime: datetime


class CorruptObject(_Result, frozen=True, kw_only=True):
    """An object whose bytes did not match its digest, and where it was moved."""

    digest: str
    path: Path
    quarantine_path: Path | None
    actual_digest: str | None


class VerifyReport(_Result, frozen=True, kw_only=True):
    """The result of re-hashing every object.

    ``stray`` lists files under ``objects/`` whose names are not object names (left alone).
    ``unreadable`` lists folders under ``objects/`` that could not be listed (permissions):
    the objects in them were not checked. ``is_ok`` is True when nothing was corrupt and every
    folder could be listed.
    """

    checked: int
    bytes: int
    corrupt: tuple[CorruptObject, ...] = ()
    stray: tuple[Path, ...] = ()
    unreadable: tuple[Path, ...] = ()

    @property
    def is_ok(self) -> bool:
        return not self.corrupt and not self.unreadable


class GcItem(_Result, frozen=True, kw_only=True):
    """An object (or leftover temp file) that gc removed or would remove."""

    digest: str | None
    path: Path
    size: int
    mtime: datetime


class GcReport(_Result, frozen=True, kw_only=True):
    """What gc removed (or, with ``dry_run``, would remove) and what it kept.

    ``missing`` lists referenced digests that are not in the store. ``failed`` lists what gc
    tried to remove and could not (a store it may not write); ``failed_because`` says why, once
    per reason, with the first path it hit. ``removed`` and ``temp_removed`` hold only what is
    gone.

    ``partials_removed`` lists the pull partial files (``tmp/pull-*.partial``, what interrupted
    pulls received) removed; ``partials_kept_recent`` counts those written to within their grace
    period, ``partials_in_use`` those kept because a pull was running.
    """

    dry_run: bool
    removed: tuple[GcItem, ...]
    temp_removed: tuple[GcItem, ...]
    kept_referenced: int
    kept_recent: int
    missing: tuple[str, ...]
    failed: tuple[GcItem, ...] = ()
    failed_because: tuple[str, ...] = ()
    partials_removed: tuple[GcItem, ...] = ()
    partials_kept_recent: int = 0
    partials_in_use: int = 0

    @property
    def bytes_freed(self) -> int:
        return sum(i.size for i in (*self.removed, *self.temp_removed, *self.partials_removed))
