"""Where the members of an archive land when it is unpacked, read from the archive itself,
for the agent hook (`labledger.reconcile.hook`): its member NAMES only, never its contents
written anywhere, never a link followed.

An archive unpacked above a protected folder (``unzip -o runs.zip`` at the project's top,
``tar -xf a.tar -C capsules``) writes where its members say: each member's name, mapped
through the options of its line (`Unpack`) as the tool maps it, is a file it writes. Read:

* a zip archive, by its central directory (`zipfile`: the names at the end of the file,
  cheap at any size; more than `MEMBER_LIMIT` of them: not read);
* a tar archive (plain, gzip, bzip2, xz) by its headers, streamed (`tarfile` ``r|``):
  a compressed one must be read through, so past `BYTE_LIMIT` bytes of the file,
  `UNPACKED_LIMIT` bytes unpacked or `MEMBER_LIMIT` members only the members before are
  read (`Read.whole`; a plain one is read by seeking header to header);
* not a 7z archive (no reader in Python's standard library), a zstd or lz4 tar, an archive
  that is not a regular file (a link, a pipe, standard input), or one that cannot be read.

What is not read returns None, and the members past a tar's limits are not read: the caller
judges them as it did before (`_Write.inside`: unpacked above a protected folder, passing).

How the tools map a member name (checked with GNU tar 1.34 and Info-ZIP unzip 6.0): GNU tar
strips a leading ``/`` and skips a member with a ``..`` part (both kept with ``-P``), then
``--strip-components=N`` drops N parts (``.`` counts as one; a member with no more parts is
skipped); unzip strips a leading ``/`` and drops each ``..`` part (``ok/../f`` lands at
``ok/f``; kept with ``-:``), and ``-j`` keeps only the file's own name (folders skipped).
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

# past these an archive is not read (its unpack is judged as before: `Unpack`)
MEMBER_LIMIT = 100_000
BYTE_LIMIT = 64 << 20  # of a compressed tar read through (its headers are spread over it)
UNPACKED_LIMIT = 64 << 20  # what those bytes unpack to

# a member name that maps to itself (no leading `/`, no `.`/`..`/empty part; a `/` at the end
# of a folder's): most of them, mapped without splitting
_PLAIN = re.compile(r"(?!/)(?:(?!\.\.?(?:/|$))[^/]+/)*(?!\.\.?(?:/|$))[^/]+/?")
_COMPRESSED = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")  # gzip, bzip2, xz: tarfile reads them


@dataclass(frozen=True)
class Unpack:
    """An archive unpacked, as its command line says: the archive (as written), which tool
    (``"tar"`` or ``"zip"``), the folder it unpacks into (as written), and how names map:
    ``strip`` (``tar --strip-components``), ``junk`` (``unzip -j``), ``keep_unsafe`` (``tar
    -P``, ``unzip -:``: absolute names and ``..`` kept), ``only`` (members named on the line:
    a name, a folder, or a pattern), ``left_out`` (``tar --exclude``, ``unzip -x``: patterns
    of members it does not unpack), ``nocase`` (``unzip -C``)."""

    archive: str
    tool: str
    folder: str
    strip: int = 0
    junk: bool = False
    keep_unsafe: bool = False
    only: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    nocase: bool = False


@dataclass
class Read:
    """What was read of an archive: its member names (or where they land: `landings`), in
    order, and whether that is all of them (not: the first ones, before a limit or a part
    that cannot be read; tar unpacks those too, and the caller judges the rest unread)."""

    names: list[str]
    whole: bool = True


def landings(unpack: Unpack, archive: Path) -> Read | None:
    """Where each member of ``archive`` (the file ``unpack.archive`` names, resolved by the
    caller) lands, relative to where the command runs (``unpack.folder`` joined); None when
    its members cannot be read (`members`)."""
    read = members(archive, unpack.tool)
    if read is None:
        return None
    found: list[str] = []
    for name in read.names:
        mapped = _mapped(name, unpack)
        if mapped is not None and _selected(name, mapped, unpack) and not (
                unpack.left_out and _left_out(name, unpack)):
            found.append(os.path.join(unpack.folder, mapped))
    return Read(found, read.whole)


def members(archive: Path, tool: str) -> Read | None:
    """The member names of ``archive`` (``"zip"`` or ``"tar"``), as stored; None when it is
    not a regular file (a link is not followed), cannot be read, or is a zip past the
    limits (a tar past them: its first members, `Read.whole` false)."""
    try:
        if not stat.S_ISREG(os.lstat(archive).st_mode):
            return None
        with open(archive, "rb") as f:
            if tool == "zip":
                names = _zip_members(f)
                return None if names is None else Read(names)
            return _tar_members(f)
    except Exception:  # noqa: BLE001 - any archive the readers refuse is one not read
        return None


def _zip_members(f: IO[bytes]) -> list[str] | None:
    """A zip's names, from its central directory, found by its end record (`_zip_end`: its
    count first, so that one of a million members is not parsed), each entry's name read
    where the entry says (`_central_names`; zipfile's ZipInfo for each costs 5 µs a member:
    50 ms for 10,000); a directory not where the end record says (data before the archive,
    a self-extracting one): zipfile reads it."""
    end = _zip_end(f)
    if end is None or end[0] > MEMBER_LIMIT:
        return None
    count, size, offset = end
    f.seek(offset)
    names = _central_names(f.read(size), count)
    if names is not None:
        return names
    import zipfile

    f.seek(0)
    with zipfile.ZipFile(f) as z:
        return z.namelist()


def _zip_end(f: IO[bytes]) -> tuple[int, int, int] | None:
    """(members, size, offset) of a zip's central directory, as its end record says (the
    record is in the last 64 KiB + 22 bytes: its comment is at most 65,535 bytes); None when
    there is none. A zip64 archive's 0xFFFF count: past the limit."""
    size = f.seek(0, os.SEEK_END)
    tail_start = max(0, size - (65_535 + 22))
    f.seek(tail_start)
    tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return None
    count, cd_size, cd_offset = struct.unpack("<HII", tail[at + 10:at + 20])
    return (MEMBER_LIMIT + 1 if count == 0xFFFF else count), cd_size, cd_offset


def _central_names(directory: bytes, count: int) -> list[str] | None:
    """The names of ``count`` central directory entries (APPNOTE 4.3.12: 46 bytes, then the
    name, extra field and comment; flag bit 11: the name is UTF-8, else code page 437, as
    zipfile reads it); None when an entry is not where it should be."""
    names: list[str] = []
    at = 0
    for _ in range(count):
        if directory[at:at + 4] != b"PK\x01\x02" or at + 46 > len(directory):
            return None
        flags, = struct.unpack_from("<H", directory, at + 8)
        n, extra, comment = struct.unpack_from("<HHH", directory, at + 28)
        raw = directory[at + 46:at + 46 + n]
        names.append(raw.decode("utf-8" if flags & 0x800 else "cp437"))
        at += 46 + n + extra + comment
    return names


class _PastLimit(Exception):
    """More of a compressed archive read than its limits."""


class _Counted:
    """A file read forward only, that ends at ``limit`` bytes: what is read up to it is
    given (the headers in it are read), a read past it raises `_PastLimit`."""

    def __init__(self, f: Any, limit: int) -> None:
        # (an unpacking file is read a piece at a time, read1: its read(n) reads on to n
        # bytes, and a limit met inside it would lose the headers read before)
        self._f, self._left = f, limit
        self._read = getattr(f, "read1", f.read)

    def read(self, n: int = -1) -> bytes:
        if self._left <= 0:
            raise _PastLimit
        data: bytes = self._read(self._left if n < 0 else min(n, self._left))
        self._left -= len(data)
        return data


def _tar_members(f: IO[bytes]) -> Read | None:
    """A tar's names, header by header: a plain one by seeking past each member's data; a
    compressed one streamed, read through (`_Counted`: past `BYTE_LIMIT` bytes of the file or
    `UNPACKED_LIMIT` unpacked, only the members before: a gzip of zeros unpacks 1,000 times
    its size, and zlib unpacks about 150-400 MB a second). Past `MEMBER_LIMIT` members, or
    at a header that cannot be read, the ones before (tar unpacks them before it stops)."""
    import tarfile

    head = f.read(6)
    f.seek(0)
    names: list[str] = []
    try:
        compressed = head.startswith(_COMPRESSED)
        stream: Any = _Counted(_decompressed(head, _Counted(f, BYTE_LIMIT)),
                               UNPACKED_LIMIT) if compressed else None
        # (a compressed one read in 1 MiB blocks: with tarfile's 10 KiB ones, skipping a
        # member's data costs a Python call per 10 KiB)
        with tarfile.open(fileobj=stream, mode="r|", bufsize=1 << 20) if compressed else \
                tarfile.open(fileobj=f, mode="r:") as tar:
            for info in tar:
                names.append(info.name)
                if len(names) >= MEMBER_LIMIT:
                    return Read(names, whole=False)
    except Exception:  # noqa: BLE001 - past a limit, or a part that cannot be read
        return Read(names, whole=False) if names else None
    return Read(names)


def _decompressed(head: bytes, raw: Any) -> Any:
    """``raw`` (a gzip, bzip2 or xz file, by its first bytes ``head``) unpacked as read."""
    if head.startswith(b"\x1f\x8b"):
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb")
    if head.startswith(b"BZh"):
        import bz2

        return bz2.BZ2File(raw)
    import lzma

    return lzma.LZMAFile(raw)


def _mapped(name: str, unpack: Unpack) -> str | None:
    """Where the tool writes member ``name`` (relative to its folder); None when it skips it."""
    if unpack.tool == "tar":
        return _tar_mapped(name, unpack)
    return _unzip_mapped(name, unpack)


def _tar_mapped(name: str, unpack: Unpack) -> str | None:
    """GNU tar: a leading ``/`` stripped and a ``..`` part refused (unless ``-P``), then
    ``--strip-components``."""
    if not unpack.strip and _PLAIN.fullmatch(name):
        return name.rstrip("/")
    if not unpack.keep_unsafe:
        name = name.lstrip("/")
        if ".." in name.split("/"):
            return None
    parts = name.split("/")
    if unpack.strip:
        lead = 1 if parts[:1] == [""] else 0  # (an absolute name kept by -P)
        parts = parts[lead + unpack.strip:]
    kept = "/".join(p for p in parts if p not in ("", "."))
    return kept or None


def _unzip_mapped(name: str, unpack: Unpack) -> str | None:
    """Info-ZIP unzip: a leading ``/`` stripped and ``..`` parts dropped (unless ``-:``);
    ``-j``: the name alone, folders skipped."""
    if not unpack.junk and _PLAIN.fullmatch(name):
        return name.rstrip("/")
    if unpack.junk:
        if name.endswith("/"):
            return None
        name = name.rsplit("/", 1)[-1]
    if not unpack.keep_unsafe:
        name = "/".join(p for p in name.lstrip("/").split("/") if p != "..")
    kept = "/".join(p for p in name.split("/") if p not in ("", "."))
    return kept or None


def _selected(name: str, mapped: str, unpack: Unpack) -> bool:
    """The member is one the line names (none named: all of them). tar: a name or a folder
    holding it, or a pattern (``--wildcards``, read for any named with ``*?[``); unzip: a
    pattern whose ``*`` crosses ``/``. Matched as stored and as mapped (either counts)."""
    if not unpack.only:
        return True
    names = {name, name.lstrip("/"), mapped, name.rstrip("/")}
    for wanted in unpack.only:
        if unpack.nocase:
            wanted, names = wanted.lower(), {n.lower() for n in names}
        bare = wanted.rstrip("/").removeprefix("./")
        for n in names:
            n = n.removeprefix("./")
            if n == bare or n.startswith(bare + "/") or any(c in wanted for c in "*?[") and (
                    fnmatch.fnmatchcase(n, wanted) or fnmatch.fnmatchcase(n, bare + "/*")):
                return True
    return False


def _left_out(name: str, unpack: Unpack) -> bool:
    """The member is one the line leaves out. GNU tar's ``--exclude`` patterns are unanchored
    and match a folder's members too (``--exclude=.labledger`` leaves out
    ``./src/.labledger/d``; ``*`` crosses ``/``): any run of whole parts of the name; unzip's
    ``-x`` patterns match the whole name."""
    if unpack.tool == "zip":
        text = name.lower() if unpack.nocase else name
        return any(fnmatch.fnmatchcase(text, p.lower() if unpack.nocase else p)
                   for p in unpack.left_out)
    parts = name.rstrip("/").split("/")
    runs = ["/".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)]
    return any(fnmatch.fnmatchcase(run, p) for p in unpack.left_out for run in runs)
