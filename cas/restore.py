"""Restore objects: a file object to a file, a tree object to a directory.

Everything is written under a temp name beside the destination (same filesystem), verified
while copied, made durable, and only then renamed into place; any failure removes the temp.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from labledger.cas import _fs
from labledger.cas._copy import copy_and_hash
from labledger.cas._fs import sync_file
from labledger.cas._stage import write_error
from labledger.cas.digest import PREFIX, parse_digest
from labledger.cas.errors import (
    CasError,
    DestinationExistsError,
    ObjectNotFoundError,
    UnsafePathError,
)
from labledger.cas.results import ObjectInfo
from labledger.cas.tree import TreeEntry

if TYPE_CHECKING:
    from collections.abc import Iterable

    from labledger.cas._protocol import StoreLike


class DestinationOverlapsError(UnsafePathError):
    """A restore destination that is, holds, or lies inside a folder that must not be touched:
    the store itself (or, from the CLI, the whole ``.labledger/``). With ``force`` such a
    restore would replace the folder, and so delete every object (and event) in it; without
    ``force`` it would plant files among them. Refused before anything is written.

    Kept out of `labledger.cas.errors` (whose classes are the pinned public API); an
    `UnsafePathError` to every caller that catches that."""

    def __init__(self, dest: Path, protected: Path, relation: str) -> None:
        CasError.__init__(
            self, f"refusing to restore to {dest}: it {relation} {protected}, and restoring "
            "there could overwrite or delete what that folder keeps; choose a destination "
            f"outside {protected}")
        self.path, self.reason = str(dest), f"{relation} {protected}"
        self.protected = protected


def real_destination(dest: Path) -> Path:
    """Where a restore to ``dest`` really writes: its parent with symlinks resolved, plus its
    own name (a link at ``dest`` itself is replaced, never followed). ``.``, ``..`` and the
    empty path name a folder, which is resolved whole."""
    if dest.name in ("", ".", ".."):
        return Path(os.path.realpath(dest))
    return Path(os.path.realpath(dest.parent)) / dest.name


def check_destination(dest: Path, protected: Iterable[Path]) -> None:
    """Raise `DestinationOverlapsError` when ``dest`` is, holds or lies inside a protected
    folder (compared after resolving symlinks, so a link or ``..`` cannot sneak around it)."""
    target = real_destination(dest)
    for folder in protected:
        real = Path(os.path.realpath(folder))
        relation = ("is" if target == real else "lies inside" if real in target.parents
                    else "holds" if target in real.parents else None)
        if relation is not None:
            raise DestinationOverlapsError(dest, folder, relation)


def _copy_object(store: StoreLike, digest: str, dest: Path, mode: int | None) -> None:
    """Copy one object to a new file ``dest``, verifying the bytes.

    ``mode`` is applied exactly; None means the usual ``0o666`` less the umask.
    """
    hex_ = parse_digest(digest)
    src = store._path(hex_)
    try:
        src_fd = os.open(src, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ObjectNotFoundError(digest, src) from None
    try:
        try:
            out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                          | os.O_CLOEXEC, 0o600 if mode is not None else 0o666)
        except OSError as exc:
            raise write_error(exc, dest, src) from exc
        try:
            size = os.fstat(src_fd).st_size
            try:
                copied = copy_and_hash(src_fd, out, expected_size=size)
            except OSError as exc:
                raise write_error(exc, dest, src) from exc
            if copied.blake3_hex != hex_:
                st = os.fstat(src_fd)
                raise store.corrupt(hex_, copied.blake3_hex, hashed=(st.st_dev, st.st_ino))
            if mode is not None:
                os.fchmod(out, mode)
        finally:
            os.close(out)
    finally:
        os.close(src_fd)


def _make_writable(path: Path) -> None:
    # Restored directories may be read-only; removal needs write and search permission.
    if path.is_symlink() or not path.is_dir():
        return
    os.chmod(path, 0o700)
    for root, dirs, _files in os.walk(path):
        for d in dirs:
            p = os.path.join(root, d)
            if not os.path.islink(p):
                os.chmod(p, 0o700)


def remove_tree(path: Path) -> None:
    """Remove ``path`` (file, link or directory, read-only ones included) if it exists."""
    if path.is_symlink() or path.is_file():
        _fs.unlink_quietly(path)
    elif path.exists():
        _make_writable(path)
        shutil.rmtree(path)


def _restore_tree(store: StoreLike, entries: tuple[TreeEntry, ...], tmp: Path) -> None:
    os.mkdir(tmp)  # the destination root gets the usual 0o777 less the umask
    files: list[Path] = []
    for e in entries:
        target = tmp.joinpath(*e.path.split("/"))
        if e.kind == "dir":
            os.mkdir(target, 0o700)
        elif e.kind == "file":
            assert e.digest is not None
            _copy_object(store, e.digest, target, e.mode)
            files.append(target)
    # Links last: validated trees have nothing beneath a link, and nothing is written through one.
    for e in entries:
        if e.kind == "symlink":
            assert e.target is not None
            os.symlink(e.target, tmp.joinpath(*e.path.split("/")))
    if store.sync_method == "syncfs":
        _fs.sync_dirs([tmp], use_syncfs=True)
    else:
        _fs.fsync_paths(files)
        _fs.sync_dirs([tmp, *(tmp.joinpath(*e.path.split("/")) for e in entries
                              if e.kind == "dir")], use_syncfs=False)
    # Directory modes last and deepest first, so read-only directories were writable above.
    for e in reversed(entries):
        if e.kind == "dir":
            os.chmod(tmp.joinpath(*e.path.split("/")), e.mode)


def restore(store: StoreLike, digest: str, dest: Path, *, force: bool,
            protect: Iterable[Path] = ()) -> ObjectInfo:
    """See `Store.get`."""
    check_destination(dest, [store.objects_dir.parent, *protect])
    info = store.stat(digest)
    if os.path.lexists(dest) and not force:
        raise DestinationExistsError(dest)
    parent = dest.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(exc, parent, None) from exc
    tmp = parent / f".{dest.name}.{_fs.temp_name('get')}"
    try:
        if info.type == "tree":
            _restore_tree(store, store.ls(digest), tmp)
        else:
            _copy_object(store, PREFIX + parse_digest(digest), tmp, None)
            fd = os.open(tmp, os.O_RDONLY | os.O_CLOEXEC)
            try:
                sync_file(fd)
            finally:
                os.close(fd)
        _install(tmp, dest)
    except OSError as exc:
        remove_tree(tmp)
        raise write_error(exc, dest, None) from exc
    except BaseException:
        remove_tree(tmp)
        raise
    return info


def _install(tmp: Path, dest: Path) -> None:
    dest_is_dir = dest.is_dir() and not dest.is_symlink()
    if os.path.lexists(dest) and (dest_is_dir or tmp.is_dir()):
        # os.replace cannot swap a directory in or out; park the old one and remove it after.
        old = dest.parent / f".{dest.name}.{_fs.temp_name('old')}"
        os.rename(dest, old)
        os.rename(tmp, dest)
        _fs.fsync_dir(dest.parent)
        remove_tree(old)
    else:
        os.replace(tmp, dest)
        _fs.fsync_dir(dest.parent)
