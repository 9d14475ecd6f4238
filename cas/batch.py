"""`Batch`: many objects made durable with a few syncs.

Git's ``core.fsyncMethod=batch`` stages writes and issues one flush at the end, which on Linux
is not a durability guarantee (writeout-only flushes skip metadata). Here every phase ends with
a real sync, in this order, so an object visible under its digest always has durable bytes:

1. write every temp file (no fsync);
2. make all temp files durable: one ``syncfs(2)`` of the store's filesystem, or concurrent
   per-file fsyncs that the journal commits together;
3. rename each temp file under its digest (visible from here on, bytes already durable);
4. make the renames durable: one more ``syncfs``, or one fsync per touched directory.

A crash before 3 leaves only temp files (removed by gc); during 3-4 some objects may lose their
directory entry, never their bytes; ``commit`` returns only after 4.

A failure in 2 or 3 (an fsync that reports EIO or ENOSPC, a rename that fails) removes the temp
files the batch wrote itself, but never a file it was given to `Batch.adopt`: that is its
writer's (a pull's fully received file), and stays where it was, read-only, so the writer can
store it again without receiving it again. `Batch.abort` is a caller's choice and removes both.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from labledger.cas import _fs
from labledger.cas._stage import (
    Claim,
    Staged,
    adopt_temp,
    stage_bytes,
    stage_file,
    write_error,
)
from labledger.cas.digest import PREFIX
from labledger.cas.results import PutResult

if TYPE_CHECKING:
    from labledger.cas._protocol import Progress, StoreLike


class Batch:
    """Pending objects of one `Store.batch` block; see the module docstring for the order."""

    def __init__(self, store: StoreLike, *, per_file_sync: bool = False) -> None:
        """``per_file_sync`` fsyncs each object instead of one ``syncfs``: for writers whose
        files are already written back (a pull syncs each file as it lands), where ``syncfs``
        would also flush every other process's dirty data on the filesystem."""
        self._store = store
        self._per_file_sync = per_file_sync
        self._staged: dict[str, Staged] = {}
        self._duplicates: list[Path] = []  # adopted copies of staged bytes: dropped at commit
        self._claims: list[Claim] = []  # taken by `adopt` itself: let go when the batch ends
        self._done = False
        self.objects_new = 0

    def _add(self, staged: Staged) -> bool:
        if self._done:
            _fs.unlink_quietly(staged.tmp_path)
            raise RuntimeError("this batch was already committed or aborted")
        if staged.hex in self._staged:
            if staged.adopted:  # its writer's until the other copy is safely stored
                self._duplicates.append(staged.tmp_path)
            else:
                _fs.unlink_quietly(staged.tmp_path)
            return False
        from labledger.cas.gc import hold_off_gc
        from labledger.cas.store import _refreshed

        # Found present and refreshed under gc's lock: gc cannot be between its stat and its
        # unlink of this object now (see `labledger.cas.gc`).
        with hold_off_gc(self._store):
            present = _refreshed(self._store._path(staged.hex))
        if present:
            _fs.unlink_quietly(staged.tmp_path)
            return False
        self._staged[staged.hex] = staged
        return True

    def put_file(self, path: Path | str, *, sha256: bool = False,
                 progress: Progress | None = None) -> PutResult:
        """Stage a file (see `Store.put_file`); visible and durable when the batch commits."""
        staged = stage_file(Path(path), self._store.tmp_dir, sha256=sha256, progress=progress,
                            fsync=False)
        return self._result(staged, self._add(staged))

    def adopt(self, path: Path | str, *, blake3_hex: str | None = None, size: int | None = None,
              claim: Claim | None = None) -> PutResult:
        """Stage a file a writer built inside the store's ``tmp/`` without copying it (see
        `Store.adopt`); visible and durable when the batch commits. ``blake3_hex`` with
        ``size``: the writer's own BLAKE3 of exactly the ``size`` bytes it wrote (then the file
        is not read again). ``claim``: the writer's `Claim` on the file, which it must hold
        until the commit returns; without one the batch claims the file until then (and
        refuses a file another process holds: `adopt_temp`)."""
        staged = adopt_temp(Path(path), self._store.tmp_dir, fsync=False, blake3_hex=blake3_hex,
                            size=size, claim=claim)
        own = staged.claim if claim is None else None
        try:
            stored_new = self._add(staged)
        except BaseException:
            if own is not None:
                own.release()
            raise
        if own is not None:
            self._claims.append(own)
        return self._result(staged, stored_new)

    def put_bytes(self, data: bytes | bytearray | memoryview, *, sha256: bool = False
                  ) -> PutResult:
        """Stage bytes; visible and durable when the batch commits."""
        staged = stage_bytes(data, self._store.tmp_dir, sha256=sha256, fsync=False)
        return self._result(staged, self._add(staged))

    def staged_file(self, path: Path, *, sha256: bool, progress: Progress | None
                    ) -> tuple[Staged, bool]:
        """Like `put_file`, returning the staging record (source mode included)."""
        staged = stage_file(path, self._store.tmp_dir, sha256=sha256, progress=progress,
                            fsync=False)
        return staged, self._add(staged)

    @staticmethod
    def _result(staged: Staged, stored_new: bool) -> PutResult:
        return PutResult(digest=PREFIX + staged.hex, type="file", size=staged.size,
                         stored_new=stored_new, sha256=staged.sha256)

    def commit(self) -> None:
        """Make every staged object durable and visible (steps 2-4 of the module docstring)."""
        if self._done:
            return
        try:
            self._commit()
        finally:
            self._release_claims()

    def _commit(self) -> None:
        self._done = True
        store = self._store
        staged = list(self._staged.values())
        if not staged:
            return
        use_syncfs = store.sync_method == "syncfs" and not self._per_file_sync
        kept = any(s.adopted for s in staged)
        try:
            if use_syncfs:
                _fs.sync_dirs([store.tmp_dir], use_syncfs=True)
            else:
                _fs.fsync_paths(s.tmp_path for s in staged)
        except OSError as exc:
            _drop_own(staged)
            raise write_error(exc, store.tmp_dir, None, kept=kept) from exc
        touched: set[Path] = set()
        try:
            for i, s in enumerate(staged):
                try:
                    stored_new, dirty = store._install(s, sync_dir=False)
                except BaseException:
                    _drop_own(staged[i + 1 :])
                    raise
                touched.update(dirty)
                self.objects_new += int(stored_new)
        finally:
            _fs.sync_dirs(sorted(touched), use_syncfs=use_syncfs)
        for path in self._duplicates:  # the same bytes are stored now
            _fs.unlink_quietly(path)
        self._duplicates.clear()

    def abort(self) -> None:
        """Remove every staged temp file; nothing of this batch becomes visible."""
        self._done = True
        for s in self._staged.values():
            _fs.unlink_quietly(s.tmp_path)
        for path in self._duplicates:
            _fs.unlink_quietly(path)
        self._staged.clear()
        self._duplicates.clear()
        self._release_claims()

    def _release_claims(self) -> None:
        for claim in self._claims:
            claim.release()
        self._claims.clear()


def _drop_own(staged: list[Staged]) -> None:
    """After a failed commit: remove the temp files the batch wrote, keep adopted ones."""
    for s in staged:
        if not s.adopted:
            _fs.unlink_quietly(s.tmp_path)
