"""Tree objects: a directory as one canonical JSON document, stored like any object.

A tree object's bytes are ``msgspec.json`` with ``order="deterministic"`` of::

    {"format":"labledger.tree.v1","entries":[{"path":"a","kind":"dir","mode":493,"size":0},
     {"path":"a/b.bin","kind":"file","mode":420,"size":3,"digest":"blake3:..."}, ...]}

Entries are sorted by path (code-point order, so a directory precedes its contents), paths are
relative POSIX strings with no empty, ``.`` or ``..`` parts, every parent directory has its own
entry (so empty directories are kept), files carry a digest, symlinks carry their target text
only (they are never followed), and ``mode`` holds the permission bits. The leading
``{"format":"labledger.tree.v1"`` marks the bytes as a tree.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

from labledger.cas.digest import is_digest
from labledger.cas.errors import MalformedTreeError, UnsafePathError

TREE_FORMAT = "labledger.tree.v1"
TREE_MAGIC = b'{"format":"' + TREE_FORMAT.encode() + b'",'
"""Every tree object starts with these bytes."""

EntryKind = Literal["file", "dir", "symlink"]


class TreeEntry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True,
                forbid_unknown_fields=True):
    """One path in a tree: ``digest`` for files, ``target`` for symlinks, neither for dirs."""

    path: str
    kind: EntryKind
    mode: int = msgspec.field(default=0)
    size: int = 0
    digest: str | None = None
    target: str | None = None


class TreeObject(msgspec.Struct, frozen=True, kw_only=True, tag_field="format",
                 tag=TREE_FORMAT, forbid_unknown_fields=True):
    """The stored document: all entries of a directory, sorted by path."""

    entries: list[TreeEntry]


_encoder = msgspec.json.Encoder(order="deterministic")
_decoder = msgspec.json.Decoder(TreeObject)


def check_relative_path(path: str) -> None:
    """Raise `UnsafePathError` unless ``path`` is a safe relative POSIX path."""
    if not path:
        raise UnsafePathError(path, "the path is empty")
    if path.startswith("/"):
        raise UnsafePathError(path, "absolute paths are not allowed")
    if "\x00" in path:
        raise UnsafePathError(path, "the path contains a NUL byte")
    for part in path.split("/"):
        if part in ("", ".", ".."):
            raise UnsafePathError(path, f"the path has a {part or 'empty'!r} component")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise UnsafePathError(
            path.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
            "the name is not valid UTF-8",
        ) from None


def validate_entries(entries: Sequence[TreeEntry], digest: str | None = None) -> None:
    """Check the tree invariants listed in the module docstring.

    Raises `UnsafePathError` for a bad path and `MalformedTreeError` for anything else.
    """
    kinds: dict[str, str] = {}
    previous: str | None = None
    for entry in entries:
        check_relative_path(entry.path)
        if previous is not None and entry.path <= previous:
            raise MalformedTreeError(digest, f"entries not sorted or duplicated at {entry.path!r}")
        previous = entry.path
        parent = entry.path.rpartition("/")[0]
        if parent and kinds.get(parent) != "dir":
            raise MalformedTreeError(digest, f"{entry.path!r} has no parent directory entry")
        if entry.mode < 0 or entry.mode > 0o7777 or entry.size < 0:
            raise MalformedTreeError(digest, f"{entry.path!r} has a bad mode or size")
        if entry.kind == "file":
            if entry.digest is None or not is_digest(entry.digest) or entry.target is not None:
                raise MalformedTreeError(digest, f"file {entry.path!r} needs a valid digest")
        elif entry.kind == "symlink":
            if not entry.target or entry.digest is not None or "\x00" in entry.target:
                raise MalformedTreeError(digest, f"symlink {entry.path!r} needs a target")
        elif entry.digest is not None or entry.target is not None or entry.size != 0:
            raise MalformedTreeError(digest, f"directory {entry.path!r} has file fields")
        kinds[entry.path] = entry.kind


def encode_tree(entries: Iterable[TreeEntry]) -> bytes:
    """The canonical bytes of a tree (entries are sorted and validated first)."""
    ordered = sorted(entries, key=lambda e: e.path)
    validate_entries(ordered)
    return _encoder.encode(TreeObject(entries=ordered))


def is_tree_bytes(head: bytes) -> bool:
    """Whether bytes (or their first ``len(TREE_MAGIC)`` bytes) start like a tree object."""
    return head.startswith(TREE_MAGIC)


def decode_tree(data: bytes, digest: str | None = None) -> tuple[TreeEntry, ...]:
    """Parse and validate tree bytes; raises `MalformedTreeError` or `UnsafePathError`."""
    if not is_tree_bytes(data):
        raise MalformedTreeError(digest, "it does not start with the tree header")
    try:
        tree = _decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise MalformedTreeError(digest, str(exc)) from None
    validate_entries(tree.entries, digest)
    return tuple(tree.entries)


def case_collisions(paths: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """Groups of paths equal after Unicode NFC normalisation and case folding."""
    groups: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        groups[unicodedata.normalize("NFC", path).casefold()].append(path)
    return tuple(sorted(tuple(sorted(g)) for g in groups.values() if len(g) > 1))
