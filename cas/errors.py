"""Errors raised by the content-addressed store.

Every error a caller can act on derives from `CasError`; each carries its facts as attributes
and renders them with ``to_json()`` so a CLI can print them under ``--json``::

    CasError
     ├── MalformedDigestError        a string that is not ``blake3:<64 lowercase hex>``
     ├── ObjectNotFoundError         a well-formed digest with no object in the store
     ├── ObjectCorruptError          bytes that do not hash to their name (quarantined)
     ├── ObjectUnreadableError       a stored object that cannot be opened (permissions)
     ├── NotATreeError               a tree operation on a file object
     ├── MalformedTreeError          a tree object that fails validation
     ├── UnsafePathError             an absolute, ``..`` or unrepresentable path
     ├── SymlinkRefusedError         a symlink met with ``symlinks="refuse"``, or as a source
     ├── UnsupportedFileTypeError    a FIFO, socket or device inside a tree
     ├── CaseCollisionError          names that differ only by case (when refused)
     ├── SourceUnreadableError       a source that cannot be opened or read
     │    └── SourceNotFoundError    ... because it does not exist
     ├── SourceChangedError          a source modified while it was read
     ├── StoreFullError              ENOSPC / EDQUOT / EFBIG while writing the store
     ├── StoreWriteError             any other failure writing the store
     └── DestinationExistsError      ``get`` would overwrite without ``force``
"""

from __future__ import annotations

import errno as _errno
from pathlib import Path
from typing import Any


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


class ReportableError(Exception):
    """An error whose named ``_fields`` travel with it into `--json` output.

    Shared by the subsystems above the store (`labledger.ingest.errors` builds on it).
    """

    _fields: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The error as a JSON-ready dict: ``error`` (class name), ``message`` and its fields."""
        out: dict[str, Any] = {"error": type(self).__name__, "message": str(self)}
        for name in self._fields:
            out[name] = _plain(getattr(self, name))
        return out


class CasError(ReportableError):
    """Base for content-store errors a caller can act on."""


class MalformedDigestError(CasError, ValueError):
    """A string that is not a digest of the form ``blake3:<64 lowercase hex>``."""

    _fields = ("value",)

    def __init__(self, value: str) -> None:
        shown = value if len(value) <= 100 else value[:97] + "..."
        super().__init__(
            f"{shown!r} is not a digest; expected 'blake3:' followed by 64 lowercase hex "
            f"characters (copy it from `labledger cas ls` or the event that recorded it)"
        )
        self.value = value


class ObjectNotFoundError(CasError, LookupError):
    """A well-formed digest with no object in the store."""

    _fields = ("digest", "path")

    def __init__(self, digest: str, path: Path) -> None:
        super().__init__(
            f"object {digest} is not in the store (looked for {path}); check the digest, or "
            f"store the content again with `labledger cas put`"
        )
        self.digest, self.path = digest, path


class ObjectCorruptError(CasError):
    """An object whose bytes do not hash to its digest; it was moved to quarantine."""

    _fields = ("digest", "path", "quarantine_path", "actual_digest")

    def __init__(
        self, digest: str, path: Path, quarantine_path: Path | None, actual_digest: str | None,
        *, moved_away: bool = False,
    ) -> None:
        """``moved_away``: the copy read was no longer at ``path`` when it was found corrupt
        (another process moved it to quarantine, and records that); whatever lies at ``path``
        now was not read here and is left in place."""
        if quarantine_path is not None:
            where = f"it was moved to {quarantine_path}"
        elif moved_away:
            where = ("another process moved it to quarantine meanwhile (the copy now at that "
                     "path, if any, was not read here and was left in place; read it again)")
        else:
            where = "it was left in place"
        super().__init__(
            f"object {digest} at {path} does not match its digest (its bytes hash to "
            f"{actual_digest}); {where}. Run `labledger check --deep` for a full check and "
            f"store the original again if you still have it."
        )
        self.digest, self.path = digest, path
        self.quarantine_path, self.actual_digest = quarantine_path, actual_digest


class ObjectUnreadableError(CasError):
    """A stored object labledger may not read (permissions, an I/O error). Left in place: its
    bytes may be intact, and quarantining cannot fix a permission."""

    _fields = ("digest", "path", "reason")

    def __init__(self, digest: str, path: Path, reason: str) -> None:
        super().__init__(
            f"cannot read object {digest} at {path}: {reason}; fix its permissions, or run "
            f"labledger as the user who owns the store"
        )
        self.digest, self.path, self.reason = digest, path, reason


class NotATreeError(CasError):
    """A tree operation (``ls``) on an object that is a file."""

    _fields = ("digest",)

    def __init__(self, digest: str) -> None:
        super().__init__(
            f"object {digest} is a file, not a tree; use `labledger cas cat` or `cas get` on it"
        )
        self.digest = digest


class MalformedTreeError(CasError):
    """A tree object (or tree bytes) that fails validation."""

    _fields = ("digest", "reason")

    def __init__(self, digest: str | None, reason: str) -> None:
        super().__init__(
            f"tree object {digest or '(unstored)'} is malformed: {reason}; run "
            f"`labledger check --deep`, and store the directory again if you still have it"
        )
        self.digest, self.reason = digest, reason


class UnsafePathError(CasError):
    """A path that is absolute, contains ``..``/empty parts, or cannot be represented."""

    _fields = ("path", "reason")

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"unsafe path {path!r}: {reason}; rename it or leave it out of the directory"
        )
        self.path, self.reason = path, reason


class SymlinkRefusedError(CasError):
    """A symlink inside a tree stored with ``symlinks="refuse"``, or given as the source."""

    _fields = ("path", "target")

    def __init__(self, path: Path, target: str, *, top_level: bool = False) -> None:
        what = (
            "symlinks are never followed, and only a directory can record one (as a link "
            "entry); store the file or directory it points to instead"
            if top_level
            else "symlinks are refused; replace it with the file it points to, or store the "
            "tree with symlinks recorded as links"
        )
        super().__init__(f"{path} is a symlink (to {target!r}) and {what}")
        self.path, self.target = path, target


class UnsupportedFileTypeError(CasError):
    """A FIFO, socket or device node where a file or directory was expected."""

    _fields = ("path", "kind")

    def __init__(self, path: Path, kind: str, *, top_level: bool = False) -> None:
        super().__init__(
            f"{path} is a {kind}; only regular files and directories can be stored"
            if top_level
            else f"{path} is a {kind}; only regular files, directories and symlinks can be "
            f"stored. Move it out of the directory and try again"
        )
        self.path, self.kind = path, kind


class CaseCollisionError(CasError):
    """Paths that differ only by case or Unicode normalisation (when refused)."""

    _fields = ("collisions",)

    def __init__(self, collisions: tuple[tuple[str, ...], ...]) -> None:
        shown = "; ".join(" vs ".join(group) for group in collisions[:5])
        more = f" (and {len(collisions) - 5} more)" if len(collisions) > 5 else ""
        super().__init__(
            f"names that differ only by case would collide on a case-insensitive filesystem: "
            f"{shown}{more}; rename them, or store the tree with case collisions reported"
        )
        self.collisions = collisions


class SourceUnreadableError(CasError):
    """A source path that cannot be opened or read."""

    _fields = ("path", "reason")

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot read {path}: {reason}")
        self.path, self.reason = path, reason


class SourceNotFoundError(SourceUnreadableError):
    """A source path that does not exist."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "no such file or directory; check the path")


class SourceChangedError(CasError):
    """A source modified while it was being read; nothing was stored."""

    _fields = ("path", "detail")

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(
            f"{path} changed while it was being stored ({detail}); nothing was stored. Wait "
            f"until whatever writes it has finished, then store it again"
        )
        self.path, self.detail = path, detail


FULL_ERRNOS = frozenset({_errno.ENOSPC, _errno.EDQUOT, _errno.EFBIG})


class StoreFullError(CasError):
    """No room to write the store (ENOSPC, EDQUOT or EFBIG).

    A temp file the store wrote itself (`Store.put_file`, ``put_bytes``, a tree) was removed:
    nothing partial was left. A file it was given to adopt (`Store.adopt`, `Batch.adopt`: a
    pull's received bytes) is never removed by a failure: ``kept`` is True and the message says
    it was left in place, so its writer can store it again without receiving it again.
    """

    _fields = ("path", "errno_name", "source", "kept")

    def __init__(self, path: Path, errno_code: int, source: Path | None, *,
                 kept: bool = False) -> None:
        name = _errno.errorcode.get(errno_code, str(errno_code))
        what = f"storing {source}" if source is not None else "writing"
        left = ("the files given to the store to adopt were left in place, to be stored again"
                if kept else "the partial temp file was removed")
        super().__init__(
            f"{what} failed: no space left in the store at {path} ({name}); {left}. Free "
            f"space (e.g. `labledger cas gc`) or raise the quota, then retry"
        )
        self.path, self.errno_name, self.source, self.kept = path, name, source, kept


class StoreWriteError(CasError):
    """Writing into the store failed for a reason other than a full disk."""

    _fields = ("path", "reason")

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(
            f"cannot write {path}: {reason}; check the store's permissions and filesystem"
        )
        self.path, self.reason = path, reason


class DestinationExistsError(CasError, FileExistsError):
    """``get`` would overwrite an existing path and ``force`` was not given."""

    _fields = ("path",)

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} already exists; choose another destination, or replace it "
                         f"with `--force` (`force=True` in Python)")
        self.path = path
