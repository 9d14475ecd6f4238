"""Where the members of an archive land when it is unpacked, read from the archive itself,
for the agent hook (`labledger.reconcile.hook`): its member NAMES only, never its contents
written anywhere, never a link followed.

An archive unpacked above a protected folder (``unzip -o runs.zip`` at the project's top,
``tar -xf a.tar -C capsules``) writes where its members say: each member's name, mapped
through the options of its line (`Unpack`) as the tool maps it, is a file it writes. Read:

* a zip archive, by its central directory (`zipfile`: the names at the end of the file,
  cheap at any size; more than `MEMBER_LIMIT` of them: not read);
* a tar archive (plain, gzip, bzip2, xz) by its headers, streamed (`tarfile` ``r|``):
  a compressed one must be read through, so past `BYTE_LIMIT` bytes of the file or
  `MEMBER_LIMIT` members it is not read (a plain one is read by seeking header to header);
* not a 7z archive (no reader in Python's standard library), a zstd or lz4 tar, an archive
  that is not a regular file (a link, a pipe, standard input), or one that cannot be read.

What is not read returns None: the caller judges the unpack as it did before (`_Write.inside`).

How the tools map a member name (checked with GNU tar 1.34 and Info-ZIP unzip 6.0): GNU tar
strips a leading ``/`` and skips a member with a ``..`` part (both kept with ``-P``), then
``--strip-components=N`` drops N parts (``.`` counts as one; a member with no more parts is
skipped); unzip strips a leading ``/`` and drops each ``..`` part (``ok/../f`` lands at
``ok/f``; kept with ``-:``), and ``-j`` keeps only the file's own name (folders skipped).
"""

from __future__ import annotations

import fnmatch
import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

# past these an archive is not read (its unpack is judged as before: `Unpack`)
MEMBER_LIMIT = 100_000
BYTE_LIMIT = 64 << 20  # of a compressed tar read through (its headers are spread over it)

_COMPRESSED = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")  # gzip, bzip2, xz: tarfile reads them


@dataclass(frozen=True)
class Unpack:
    """An archive unpacked, as its command line says: the archive (as written), which tool
    (``"tar"`` or ``"zip"``), the folder it unpacks into (as written), and how names map:
    ``strip`` (``tar --strip-components``), ``junk`` (``unzip -j``), ``keep_unsafe`` (``tar
    -P``, ``unzip -:``: absolute names and ``..`` kept), ``only`` (members named on the line:
    a name, a folder, or a pattern), ``nocase`` (``unzip -C``)."""

    archive: str
    tool: str
    folder: str
    strip: int = 0
    junk: bool = False
    keep_unsafe: bool = False
    only: tuple[str, ...] = ()
    nocase: bool = False


def landings(unpack: Unpack, archive: Path) -> list[str] | None:
    """Where each member of ``archive`` (the file ``unpack.archive`` names, resolved by the
    caller) lands, relative to where the command runs (``unpack.folder`` joined); None when
    its members cannot be read (`members`)."""
    names = members(archive, unpack.tool)
    if names is None:
        return None
    found: list[str] = []
    for name in names:
        mapped = _mapped(name, unpack)
        if mapped is not None and _selected(name, mapped, unpack):
            found.append(os.path.join(unpack.folder, mapped))
    return found


def members(archive: Path, tool: str) -> list[str] | None:
    """The member names of ``archive`` (``"zip"`` or ``"tar"``), as stored; None when it is
    not a regular file (a link is not followed), cannot be read, or is past the limits."""
    try:
        if not stat.S_ISREG(os.lstat(archive).st_mode):
            return None
        with open(archive, "rb") as f:
            return _zip_members(f) if tool == "zip" else _tar_members(f)
    except Exception:  # noqa: BLE001 - any archive the readers refuse is one not read
        return None


def _zip_members(f: IO[bytes]) -> list[str] | None:
    """A zip's names, from its central directory: its count first (the end record), so that
    one of a million members is not parsed."""
    import zipfile

    count = _zip_count(f)
    if count is None or count > MEMBER_LIMIT:
        return None
    f.seek(0)
    with zipfile.ZipFile(f) as z:
        return z.namelist()


def _zip_count(f: IO[bytes]) -> int | None:
    """The number of members the end of central directory record of a zip says (the record
    is in the last 64 KiB + 22 bytes: its comment is at most 65,535 bytes); None when there
    is none. A zip64 archive's 0xFFFF: past the limit."""
    size = f.seek(0, os.SEEK_END)
    tail_start = max(0, size - (65_535 + 22))
    f.seek(tail_start)
    tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return None
    count: int = struct.unpack("<H", tail[at + 10:at + 12])[0]
    return MEMBER_LIMIT + 1 if count == 0xFFFF else count


class _PastLimit(Exception):
    """More of a compressed archive read than `BYTE_LIMIT`."""


class _Counted:
    """A file read forward only, that stops at `BYTE_LIMIT` bytes (`_PastLimit`)."""

    def __init__(self, f: IO[bytes]) -> None:
        self._f, self._read = f, 0

    def read(self, n: int = -1) -> bytes:
        data = self._f.read(n if n >= 0 else BYTE_LIMIT + 1)
        self._read += len(data)
        if self._read > BYTE_LIMIT:
            raise _PastLimit
        return data


def _tar_members(f: IO[bytes]) -> list[str] | None:
    """A tar's names, header by header: a plain one by seeking past each member's data; a
    compressed one streamed (`_Counted`: past `BYTE_LIMIT`, not read)."""
    import tarfile

    head = f.read(6)
    f.seek(0)
    compressed = head.startswith(_COMPRESSED)
    fileobj: Any = _Counted(f) if compressed else f
    names: list[str] = []
    try:
        with tarfile.open(fileobj=fileobj, mode="r|*" if compressed else "r:") as tar:
            for info in tar:
                names.append(info.name)
                if len(names) > MEMBER_LIMIT:
                    return None
    except _PastLimit:
        return None
    return names


def _mapped(name: str, unpack: Unpack) -> str | None:
    """Where the tool writes member ``name`` (relative to its folder); None when it skips it."""
    if unpack.tool == "tar":
        return _tar_mapped(name, unpack)
    return _unzip_mapped(name, unpack)


def _tar_mapped(name: str, unpack: Unpack) -> str | None:
    """GNU tar: a leading ``/`` stripped and a ``..`` part refused (unless ``-P``), then
    ``--strip-components``."""
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
