"""`Store`: the content-addressed store under ``.labledger/cas/``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

from labledger.cas import _fs
from labledger.cas._protocol import Progress
from labledger.cas._stage import Staged, stage_bytes, stage_file, write_error
from labledger.cas.digest import PREFIX, parse_digest
from labledger.cas.errors import (
    NotATreeError,
    ObjectCorruptError,
    ObjectNotFoundError,
    ObjectUnreadableError,
    SourceChangedError,
)
from labledger.cas.results import GcReport, ObjectInfo, PutResult, VerifyReport
from labledger.cas.tree import TREE_MAGIC, TreeEntry, decode_tree

if TYPE_CHECKING:
    from labledger.cas.batch import Batch

SyncMethod = Literal["auto", "syncfs", "fsync"]

_READ_CHUNK = 1 << 20


class Store:
    """A BLAKE3 content-addressed store rooted at ``root`` (normally ``.labledger/cas``).

    Nothing is created until the first write. ``sync`` picks how batches are made durable:
    ``"syncfs"`` (one ``syncfs(2)`` per phase, Linux), ``"fsync"`` (concurrent per-file
    fsyncs) or ``"auto"`` (syncfs where available).
    """

    def __init__(self, root: Path | str, *, sync: SyncMethod = "auto") -> None:
        self.root = Path(root)
        self.objects_dir = self.root / "objects"
        self.tmp_dir = self.root / "tmp"
        self.quarantine_dir = self.root / "quarantine"
        if sync == "auto":
            self.sync_method: Literal["syncfs", "fsync"] = (
                "syncfs" if _fs.has_syncfs() else "fsync"
            )
        else:
            self.sync_method = sync
        self._layout_ready = False
        self._fans: set[str] = set()  # fan-out directories known to exist

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # -- layout -------------------------------------------------------------------------------

    def init(self) -> None:
        """Create ``objects/``, ``tmp/`` and ``quarantine/`` (idempotent, durable)."""
        if self._layout_ready:
            return
        created = False
        for d in (self.root, self.objects_dir, self.tmp_dir, self.quarantine_dir):
            if not d.is_dir():
                try:
                    d.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise write_error(exc, d, None) from exc
                created = True
        if created:
            _fs.fsync_dir(self.root)
            _fs.fsync_dir(self.root.parent)
        self._layout_ready = True

    def object_path(self, digest: str) -> Path:
        """Where the object named ``digest`` lives (whether or not it exists)."""
        return self._path(parse_digest(digest))

    def _path(self, hex_: str) -> Path:
        # NOTE: two hex characters of fan-out keep directories near 1/256 of the objects.
        return self.objects_dir / hex_[:2] / hex_[2:]

    def exists(self, digest: str) -> bool:
        """Whether an object named ``digest`` is stored (raises on a malformed digest)."""
        return os.path.lexists(self.object_path(digest))

    # -- writing ------------------------------------------------------------------------------

    def _install(self, staged: Staged, *, sync_dir: bool) -> tuple[bool, list[Path]]:
        """Move a staged temp file under its digest; returns ``(stored_new, dirs_to_sync)``.

        With ``sync_dir`` the directories are synced here and the list is empty; otherwise the
        caller (a batch) must sync the returned directories before reporting success.
        When the object already exists the temp is dropped and the object's mtime refreshed,
        so gc's grace period protects it until the caller's event references it; both happen
        under gc's lock, so gc cannot remove it in between (see `labledger.cas.gc`). On a failure
        a temp the store wrote is removed; an adopted file (``staged.adopted``) stays in place.
        """
        final = self._path(staged.hex)
        fan_out = final.parent
        dirty: list[Path] = []
        if staged.hex[:2] not in self._fans:
            try:
                os.mkdir(fan_out)
                dirty.append(self.objects_dir)
            except FileExistsError:
                pass
            except OSError as exc:
                if not staged.adopted:
                    _fs.unlink_quietly(staged.tmp_path)
                raise write_error(exc, fan_out, None, kept=staged.adopted) from exc
            self._fans.add(staged.hex[:2])
        from labledger.cas.gc import hold_off_gc

        # Under gc's lock: a put that finds its object present must not return while gc is
        # between its stat and its unlink of that very object (see `labledger.cas.gc`).
        with hold_off_gc(self):
            stored_new = not _refreshed(final)
            if stored_new:
                _still_as_staged(staged)
                try:
                    os.replace(staged.tmp_path, final)
                except OSError as exc:
                    if not staged.adopted:
                        _fs.unlink_quietly(staged.tmp_path)
                    raise write_error(exc, final, None, kept=staged.adopted) from exc
                dirty.append(fan_out)
            else:
                _fs.unlink_quietly(staged.tmp_path)
        if sync_dir:
            for d in dirty:
                _fs.fsync_dir(d)
            dirty = []
        return stored_new, dirty

    def put_file(
        self, path: Path | str, *, sha256: bool = False, progress: Progress | None = None
    ) -> PutResult:
        """Store a regular file in one pass (read, hash, write) and return its digest.

        The source is read once; BLAKE3 (and SHA-256 when ``sha256``) see exactly the bytes
        written to a temp file in ``tmp/``, which is fsynced, renamed under its digest and
        made durable by an fsync of its directory. ``progress`` receives byte counts.
        ``path`` itself is opened normally (a symlink given here is followed; links *inside*
        a tree never are). Large files are hashed with BLAKE3's thread pool, which releases
        the GIL, so two threads can put two files at once.

        Raises
        ------
        SourceNotFoundError, SourceUnreadableError, UnsupportedFileTypeError
            The source is missing, unreadable, a directory or a special file.
        SourceChangedError
            The source changed while it was read; nothing was stored.
        StoreFullError, StoreWriteError
            The store could not be written; no temp file or partial object is left.
        """
        staged = stage_file(Path(path), self.tmp_dir, sha256=sha256, progress=progress,
                            fsync=True, prepare=self.init)
        stored_new, _ = self._install(staged, sync_dir=True)
        return PutResult(digest=PREFIX + staged.hex, type="file", size=staged.size,
                         stored_new=stored_new, sha256=staged.sha256)

    def adopt(self, path: Path | str) -> PutResult:
        """Move a file that a writer built inside this store's ``tmp/`` under its digest.

        For receivers (a pull) that write bytes straight into the store's filesystem: instead
        of copying the file again, the store hashes it in place (BLAKE3 over an mmap, fsynced
        meanwhile), makes it read-only and renames it. The digest is the store's own
        computation over the file's final bytes, so the store's invariant does not depend on the
        caller. The caller must not write to the file any more, nor hold it claimed: the store
        claims it (`labledger.cas._stage.Claim`) and refuses a file another process holds
        locked. The file is gone afterwards (moved, or dropped when the object already existed).

        Raises
        ------
        ValueError
            ``path`` is not directly inside ``tmp/`` (a rename elsewhere could cross
            filesystems).
        StoreWriteError, StoreFullError
            The file could not be synced or moved; it is left where it was.
        SourceChangedError
            Another process holds the file locked (its writer is still at work), or it changed
            between the hash and the move; nothing was stored, the file is left where it was.
        """
        from labledger.cas._stage import adopt_temp

        self.init()
        staged = adopt_temp(Path(path), self.tmp_dir, fsync=True)
        try:
            stored_new, _ = self._install(staged, sync_dir=True)
        finally:
            if staged.claim is not None:
                staged.claim.release()
        return PutResult(digest=PREFIX + staged.hex, type="file", size=staged.size,
                         stored_new=stored_new, sha256=None)

    def put_bytes(self, data: bytes | bytearray | memoryview, *, sha256: bool = False
                  ) -> PutResult:
        """Store ``data`` durably and return its digest (see `put_file`)."""
        self.init()
        staged = stage_bytes(data, self.tmp_dir, sha256=sha256, fsync=True)
        stored_new, _ = self._install(staged, sync_dir=True)
        return PutResult(digest=PREFIX + staged.hex, type="file", size=staged.size,
                         stored_new=stored_new, sha256=staged.sha256)

    @contextmanager
    def holding_off_gc(self) -> Iterator[None]:
        """Keep `gc` (of any process) from removing objects for the ``with`` block.

        For a writer that stores objects and then records events naming them: held from before
        its first put until its append returns, no gc, whatever its grace period, can remove
        what it stored in between. Any number of writers hold it at once; gc waits for them all
        (and a put waits while gc removes objects). A shared ``flock`` on ``gc.lock`` in the
        store's root, released when the process dies. Never call `gc` inside it (it would wait
        for this very block).
        """
        from labledger.cas.gc import hold_off_gc

        self.init()
        with hold_off_gc(self):
            yield

    @contextmanager
    def batch(self) -> Iterator[Batch]:
        """Store many objects with a few syncs instead of three per object.

        Inside the ``with`` block, ``batch.put_file``/``put_bytes`` write temp files and return
        digests at once; the objects become visible when the block exits: all temp files are
        made durable together, renamed, and the touched directories synced. If the block
        raises, every temp file is removed and nothing becomes visible.
        """
        from labledger.cas.batch import Batch
        from labledger.cas.gc import hold_off_gc

        self.init()
        # gc held off from the first put to the commit: one lock for the whole batch (a
        # `put_tree` of 100k files), not one per object
        with hold_off_gc(self):
            b = Batch(self)
            try:
                yield b
            except BaseException:
                b.abort()
                raise
            b.commit()

    def put_tree(
        self,
        path: Path | str,
        *,
        symlinks: Literal["record", "refuse"] = "record",
        on_case_collision: Literal["report", "refuse"] = "report",
        sha256: bool = False,
        progress: Progress | None = None,
    ) -> PutResult:
        """Store a directory: every file as an object, then one tree object naming them all.

        Symlinks inside the directory are never followed: ``"record"`` stores the link text,
        ``"refuse"`` raises `SymlinkRefusedError`. Names that differ only by case are listed
        in ``case_collisions`` (or raise `CaseCollisionError` with ``"refuse"``). The files
        are made durable before the tree object is written.
        """
        from labledger.cas.put_tree import put_tree

        return put_tree(self, Path(path), symlinks=symlinks, on_case_collision=on_case_collision,
                        sha256=sha256, progress=progress)

    def check_source(self, path: Path | str, *,
                     symlinks: Literal["record", "refuse"] = "record") -> None:
        """Refuse a source that `put` would fail on, before anything is stored.

        For checking every argument of a multi-source put first, so a bad one leaves the store
        unchanged. ``path`` itself must be a regular file or a directory (a symlink is refused,
        never followed); a directory is walked as `put_tree` would walk it, and every file in
        it must open. Reads no content, so a source can still change before it is stored.

        Raises
        ------
        SourceNotFoundError, SourceUnreadableError, SymlinkRefusedError,
        UnsupportedFileTypeError, UnsafePathError
        """
        from labledger.cas.put_tree import check_source

        check_source(Path(path), symlinks=symlinks)

    def put(self, path: Path | str, *, sha256: bool = False, progress: Progress | None = None
            ) -> PutResult:
        """`put_tree` for a directory, `put_file` for anything else."""
        if Path(path).is_dir():
            return self.put_tree(path, sha256=sha256, progress=progress)
        return self.put_file(path, sha256=sha256, progress=progress)

    # -- reading ------------------------------------------------------------------------------

    def _existing(self, digest: str) -> tuple[str, Path]:
        hex_ = parse_digest(digest)
        path = self._path(hex_)
        if not os.path.lexists(path):
            raise ObjectNotFoundError(digest, path)
        return hex_, path

    def open(self, digest: str) -> BinaryIO:
        """Open an object for reading (unverified; use `read_chunks` to verify while reading)."""
        _, path = self._existing(digest)
        try:
            return open(path, "rb")  # noqa: SIM115 - the caller owns the file
        except FileNotFoundError:
            raise ObjectNotFoundError(digest, path) from None
        except OSError as exc:
            raise ObjectUnreadableError(digest, path, exc.strerror or str(exc)) from None

    def read_chunks(self, digest: str, *, chunk_size: int = _READ_CHUNK) -> Iterator[bytes]:
        """Yield an object's bytes, verifying them; a mismatch quarantines the object and
        raises `ObjectCorruptError` after the last chunk (so stop trusting what you got)."""
        from blake3 import blake3

        hex_, path = self._existing(digest)
        hasher = blake3()
        with self.open(digest) as f:
            read = _fs_identity(os.fstat(f.fileno()))
            while chunk := f.read(chunk_size):
                hasher.update(chunk)
                yield chunk
        actual = hasher.hexdigest()
        if actual != hex_:
            raise self.corrupt(hex_, actual, hashed=read)

    def read_bytes(self, digest: str) -> bytes:
        """An object's whole content, verified."""
        return b"".join(self.read_chunks(digest))

    def _is_tree(self, path: Path) -> bool:
        try:
            with open(path, "rb") as f:
                return f.read(len(TREE_MAGIC)) == TREE_MAGIC
        except PermissionError as exc:
            raise ObjectUnreadableError(PREFIX + path.parent.name + path.name, path,
                                        exc.strerror or str(exc)) from None

    def stat(self, digest: str) -> ObjectInfo:
        """Size, type (``"file"`` or ``"tree"``), path and mtime of a stored object.

        The type is ``"tree"`` when the bytes start with the tree header (`TREE_MAGIC`).
        """
        hex_, path = self._existing(digest)
        st = os.stat(path)
        # NOTE: the header decides, as in gc: bytes that start like a tree but fail validation
        # are a damaged or hostile tree, and `ls`/`get` refuse them rather than restore them.
        kind: Literal["file", "tree"] = "tree" if self._is_tree(path) else "file"
        return ObjectInfo(digest=PREFIX + hex_, type=kind, size=st.st_size, path=path,
                          mtime=datetime.fromtimestamp(st.st_mtime, UTC))

    def ls(self, digest: str) -> tuple[TreeEntry, ...]:
        """The entries of a tree object, verified against its digest.

        Raises `NotATreeError` for a file object and `ObjectCorruptError` for a tree whose
        bytes do not match its digest.
        """
        _, path = self._existing(digest)
        if not self._is_tree(path):
            raise NotATreeError(digest)
        return decode_tree(self.read_bytes(digest), digest)

    def iter_objects(self) -> Iterator[str]:
        """Every stored object's digest, in no particular order."""
        from labledger.cas.verify import scan_objects

        for hex_, _path in scan_objects(self):
            yield PREFIX + hex_

    # -- restore, verify, gc ------------------------------------------------------------------

    def get(self, digest: str, dest: Path | str, *, force: bool = False,
            protect: Iterable[Path | str] = ()) -> ObjectInfo:
        """Restore an object to ``dest``: a file object as a file, a tree as a directory.

        Bytes are verified while they are copied into a temp path beside ``dest``, which is
        renamed into place only when complete, so a failed get leaves nothing half-written.
        ``dest`` may not be, hold or lie inside the store (``force`` would replace the folder
        and every object in it), nor any folder in ``protect``.

        Raises
        ------
        UnsafePathError
            ``dest`` overlaps the store or a folder in ``protect``; nothing was written.
        DestinationExistsError
            ``dest`` exists and ``force`` is False.
        ObjectNotFoundError, ObjectCorruptError
            An object (or a tree's file) is missing, or corrupt (it is quarantined).
        """
        from labledger.cas.restore import restore

        return restore(self, digest, Path(dest), force=force,
                       protect=[Path(p) for p in protect])

    def corrupt(self, hex_: str, actual_hex: str | None, *,
                hashed: tuple[int, int] | None = None) -> ObjectCorruptError:
        """Quarantine a corrupt object and return the error describing it (to be raised).

        ``hashed``: ``(st_dev, st_ino)`` of the very file whose bytes were found wrong (the
        reader's open file). Only that file is moved: when the object's path holds another
        one by now (another process quarantined the bad copy and a pull stored the good bytes
        again while this reader read on), nothing is moved, and the error says so."""
        path = self._path(hex_)
        qpath = self.quarantine(hex_, hashed=hashed)
        return ObjectCorruptError(PREFIX + hex_, path,
                                  qpath, PREFIX + actual_hex if actual_hex else None,
                                  moved_away=qpath is None and hashed is not None)

    def quarantine(self, hex_: str, *, hashed: tuple[int, int] | None = None) -> Path | None:
        """Move an object into ``quarantine/<hex>-<UTC timestamp>``; never deletes it.

        With ``hashed`` (``(st_dev, st_ino)``), only that file is moved: one the path no
        longer names is left where it is. Returns None when nothing was moved: the object had
        already gone (another process moved it), or the path holds another file now.
        """
        self.init()
        source = self._path(hex_)
        if hashed is not None and _path_identity(source) != hashed:
            return None
        for attempt in range(100):
            target = self.quarantine_dir / f"{hex_}-{_fs.utc_stamp()}" if attempt == 0 else (
                self.quarantine_dir / f"{hex_}-{_fs.utc_stamp()}-{attempt}")
            if os.path.lexists(target):
                continue
            try:
                os.rename(source, target)
            except FileNotFoundError:
                return None
            if hashed is not None and _path_identity(target) != hashed:
                # Another file took the path between the look above and the move (the bad
                # copy was quarantined and the good bytes stored again meanwhile): put back.
                _put_back(target, source)
                return None
            _fs.fsync_dir(self.quarantine_dir)
            _fs.fsync_dir(source.parent)
            return target
        raise RuntimeError("could not pick a quarantine name")  # pragma: no cover

    def verify(self, digest: str) -> None:
        """Re-hash one object; a mismatch quarantines it and raises `ObjectCorruptError`."""
        from labledger.cas.verify import hash_file_at

        hex_, path = self._existing(digest)
        try:
            actual, hashed = hash_file_at(path)
        except FileNotFoundError:
            raise ObjectNotFoundError(digest, path) from None
        except OSError as exc:
            raise ObjectUnreadableError(digest, path, exc.strerror or str(exc)) from None
        if actual != hex_:
            raise self.corrupt(hex_, actual, hashed=hashed)

    def verify_all(self, progress: Progress | None = None) -> VerifyReport:
        """Re-hash every object; corrupt ones are quarantined and listed, never deleted."""
        from labledger.cas.verify import verify_all

        return verify_all(self, progress=progress)

    def gc(
        self,
        referenced: Iterable[str],
        *,
        grace_seconds: float,
        dry_run: bool = True,
        now: datetime | None = None,
        required: Iterable[str] | None = None,
        partial_grace_seconds: float | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> GcReport:
        """Remove objects nothing references that are older than ``grace_seconds``.

        A referenced tree keeps its files. Temp files older than the grace period (left by
        crashed writers) go too. With ``dry_run`` (the default) nothing is removed and the
        report lists what would be. ``required`` names the references the store is supposed
        to hold: only those (and files of stored trees) are reported ``missing``; None means
        all of ``referenced``. Digests in ``required`` are kept as well.

        Pull partial files (``tmp/pull-*.partial``: bytes an interrupted pull received, which
        the same pull resumes) last written more than ``partial_grace_seconds`` ago (None: the
        same as ``grace_seconds``; 0: all of them) go too, but none while a pull is running
        (see `labledger.cas.gc`): the report counts them in ``partials_in_use``.

        Unless ``dry_run``, gc first takes ``gc.lock`` exclusively, waiting (after calling
        ``on_wait``) for every put and every writer in `holding_off_gc`; only then does it
        iterate ``referenced`` and ``required`` and take the time the grace period counts
        from. Pass generators that read the ledger, so that events recorded while gc waited
        count: with a set computed beforehand, ``grace_seconds=0`` can remove an object whose
        event was recorded in the meantime.

        Raises `MalformedTreeError` (removing nothing) when a referenced tree cannot be read,
        since its files could not be protected; `StoreWriteError` when ``gc.lock`` cannot be
        created.
        """
        from labledger.cas.gc import collect_garbage

        return collect_garbage(self, referenced, grace_seconds=grace_seconds, dry_run=dry_run,
                               now=now, required=required,
                               partial_grace_seconds=partial_grace_seconds, on_wait=on_wait)

    def find_missing(self, digests: Iterable[str]) -> dict[str, list[str | None]]:
        """Which of ``digests``, and of the files of those that are stored trees, are absent.

        Returns ``{digest: trees}``: None for a digest given directly, and every stored tree
        naming a missing file (sorted, None first). A quarantined object counts as absent.
        Nothing is hashed (see `verify_all`); an object that starts like a tree but does not
        decode is taken for a file.
        """
        from labledger.cas.gc import find_missing

        return find_missing(self, digests)

    def quarantined(self, digest: str) -> list[Path]:
        """Where earlier quarantines of ``digest`` were moved, oldest first (empty if never)."""
        hex_ = parse_digest(digest)
        try:
            names = os.listdir(self.quarantine_dir)
        except FileNotFoundError:
            return []
        return [self.quarantine_dir / n for n in sorted(names) if n.startswith(hex_ + "-")]


def _fs_identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _path_identity(path: Path) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of the file at ``path``, None when there is none."""
    try:
        return _fs_identity(os.stat(path, follow_symlinks=False))
    except FileNotFoundError:
        return None


def _put_back(moved: Path, path: Path) -> None:
    """Return a file moved to quarantine by mistake to ``path``, never replacing one stored
    there since (then the moved file stays in quarantine: kept, never deleted)."""
    try:
        os.link(moved, path)
    except FileExistsError:
        return
    os.unlink(moved)


def _still_as_staged(staged: Staged) -> None:
    """Refuse to move an adopted file that is no longer what was staged: another process
    appended to it (a writer that claims nothing) or put another file at its path."""
    if staged.claim is None:
        return
    why = staged.claim.changed(staged.size)
    if why is not None:
        raise SourceChangedError(staged.tmp_path, why)


def _refreshed(final: Path) -> bool:
    """Whether the object at ``final`` is there; if so its mtime is set to now, so gc's grace
    period protects it until an event names it. Call under gc's lock. An object removed in
    between (a quarantine) reads as absent, and the caller stores its bytes again."""
    if not os.path.lexists(final):
        return False
    try:
        os.utime(final)
    except FileNotFoundError:
        return False
    except OSError:
        pass  # another user's read-only object: present all the same
    return True
