"""Store a directory as file objects plus one tree object (see `labledger.cas.tree`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from labledger.cas.errors import (
    CaseCollisionError,
    SourceNotFoundError,
    SourceUnreadableError,
    SymlinkRefusedError,
    UnsafePathError,
    UnsupportedFileTypeError,
)
from labledger.cas.results import PutResult
from labledger.cas.tree import TreeEntry, case_collisions, check_relative_path, encode_tree

if TYPE_CHECKING:
    from labledger.cas._protocol import Progress, StoreLike


def _rel(parent: str, name: str) -> str:
    rel = f"{parent}/{name}" if parent else name
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(rel).decode("utf-8", "replace")
        raise UnsafePathError(shown, "the name is not valid UTF-8 and cannot be recorded") from None
    check_relative_path(rel)
    return rel


def _scan(root: Path, symlinks: str) -> tuple[list[TreeEntry], list[tuple[str, Path]]]:
    """Walk ``root`` without following any symlink; returns non-file entries and files."""
    entries: list[TreeEntry] = []
    files: list[tuple[str, Path]] = []
    stack: list[tuple[Path, str]] = [(root, "")]
    while stack:
        directory, rel_dir = stack.pop()
        try:
            with os.scandir(directory) as it:
                listing = list(it)
        except FileNotFoundError:
            raise SourceNotFoundError(directory) from None
        except NotADirectoryError:
            raise SourceUnreadableError(directory, "it is not a directory") from None
        except OSError as exc:
            raise SourceUnreadableError(directory, exc.strerror or str(exc)) from None
        for entry in listing:
            rel = _rel(rel_dir, entry.name)
            path = Path(entry.path)
            if entry.is_symlink():
                target = os.readlink(path)
                if symlinks == "refuse":
                    raise SymlinkRefusedError(path, target)
                try:
                    size = len(target.encode("utf-8"))
                except UnicodeEncodeError:
                    raise UnsafePathError(rel, "the symlink target is not valid UTF-8") from None
                entries.append(TreeEntry(path=rel, kind="symlink", mode=0o777, size=size,
                                         target=target))
            elif entry.is_dir(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                entries.append(TreeEntry(path=rel, kind="dir", mode=stat.S_IMODE(st.st_mode)))
                stack.append((path, rel))
            elif entry.is_file(follow_symlinks=False):
                files.append((rel, path))
            else:
                mode = entry.stat(follow_symlinks=False).st_mode
                kind = "FIFO" if stat.S_ISFIFO(mode) else (
                    "socket" if stat.S_ISSOCK(mode) else "device node")
                raise UnsupportedFileTypeError(path, kind)
    return entries, files


def check_source(path: Path, *, symlinks: Literal["record", "refuse"]) -> None:
    """See `Store.check_source`."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise SourceNotFoundError(path) from None
    except OSError as exc:
        raise SourceUnreadableError(path, exc.strerror or str(exc)) from None
    if stat.S_ISLNK(st.st_mode):
        raise SymlinkRefusedError(path, os.readlink(path), top_level=True)
    if stat.S_ISDIR(st.st_mode):
        _, files = _scan(path, symlinks)
    elif stat.S_ISREG(st.st_mode):
        files = [("", path)]
    else:
        kind = "FIFO" if stat.S_ISFIFO(st.st_mode) else (
            "socket" if stat.S_ISSOCK(st.st_mode) else "device node")
        raise UnsupportedFileTypeError(path, kind, top_level=True)
    for _, file in files:
        # Opening is the only reliable readability test (ACLs, root squash). O_NONBLOCK: should
        # a file have become a FIFO since the scan, the open must not wait for a writer.
        try:
            os.close(os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC))
        except FileNotFoundError:
            raise SourceNotFoundError(file) from None
        except OSError as exc:
            raise SourceUnreadableError(file, exc.strerror or str(exc)) from None


def put_tree(
    store: StoreLike,
    root: Path,
    *,
    symlinks: Literal["record", "refuse"],
    on_case_collision: Literal["report", "refuse"],
    sha256: bool,
    progress: Progress | None,
) -> PutResult:
    """See `Store.put_tree`."""
    if symlinks not in ("record", "refuse"):
        raise ValueError(f"symlinks must be 'record' or 'refuse', not {symlinks!r}")
    if on_case_collision not in ("report", "refuse"):
        raise ValueError(f"on_case_collision must be 'report' or 'refuse', not "
                         f"{on_case_collision!r}")
    if not root.exists():
        raise SourceNotFoundError(root)
    if not root.is_dir():
        raise SourceUnreadableError(root, "it is not a directory; store it as a file")
    entries, files = _scan(root, symlinks)
    collisions = case_collisions([e.path for e in entries] + [rel for rel, _ in files])
    if collisions and on_case_collision == "refuse":
        raise CaseCollisionError(collisions)
    file_sha: dict[str, str] = {}
    total = 0
    with store.batch() as batch:
        for rel, path in files:
            staged, _ = batch.staged_file(path, sha256=sha256, progress=progress)
            entries.append(TreeEntry(path=rel, kind="file", mode=stat.S_IMODE(staged.source_mode),
                                     size=staged.size, digest="blake3:" + staged.hex))
            total += staged.size
            if staged.sha256 is not None:
                file_sha[rel] = staged.sha256
    # The files are durable and visible before the tree that names them is written.
    data = encode_tree(entries)
    tree = store.put_bytes(data)
    ordered = tuple(sorted(entries, key=lambda e: e.path))
    return PutResult(digest=tree.digest, type="tree", size=total, stored_new=tree.stored_new,
                     entries=ordered, objects_new=batch.objects_new + int(tree.stored_new),
                     file_sha256=file_sha, case_collisions=collisions)
