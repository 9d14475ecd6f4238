"""The slice of `Store` that its helper modules use (structural, to avoid import cycles)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from labledger.cas._stage import Staged
    from labledger.cas.batch import Batch
    from labledger.cas.errors import ObjectCorruptError
    from labledger.cas.results import ObjectInfo, PutResult
    from labledger.cas.tree import TreeEntry

Progress = Callable[[int], None]
"""A progress callback: receives the number of bytes just processed."""


class StoreLike(Protocol):
    root: Path
    objects_dir: Path
    tmp_dir: Path
    quarantine_dir: Path
    sync_method: Literal["syncfs", "fsync"]

    def _path(self, hex_: str) -> Path: ...

    def _install(self, staged: Staged, *, sync_dir: bool) -> tuple[bool, list[Path]]: ...

    def corrupt(self, hex_: str, actual_hex: str | None, *,
                hashed: tuple[int, int] | None = None) -> ObjectCorruptError: ...

    def stat(self, digest: str) -> ObjectInfo: ...

    def ls(self, digest: str) -> tuple[TreeEntry, ...]: ...

    def put_bytes(
        self, data: bytes | bytearray | memoryview, *, sha256: bool = False
    ) -> PutResult: ...

    def batch(self) -> AbstractContextManager[Batch]: ...
