"""Transports: how `labledger pull` lists, hashes and reads a box's files.

A `Transport` is rooted at one directory on the box and speaks in paths relative to it (POSIX,
``/``-separated). It never follows a symbolic link: `list_dir` reports links as links (with their
target), and `read` only opens paths the caller listed as regular files. Hashing happens where
the bytes are (`hash_files`): on a remote box that is one batched remote command, never a
download.

Three transports exist: `LocalTransport` (a directory on this machine: owned boxes, mounted
storage, the demo), `labledger.ingest.transport_ssh.SshTransport` (paramiko; imported only
when used) and `labledger.ingest.transport_mux.MuxTransport` (the system ssh over one master
connection: a second factor answered once at the terminal). Any failure to reach or read the
box raises `TransportError`, except one file that is no longer there to read while the box itself
answers (a training loop rotated it away between the listing and the read): that is
`FileUnreadableError` for that file alone (`hash_files` reports it in the file's
`RemoteHash.error`), so a pull records it as failed and goes on with the rest.

Names are `str` as POSIX decodes them (``surrogateescape``): a name that is not valid UTF-8 is
listed, never raised on, and the caller decides (``pull`` refuses it).

A file some live process on the box held open for writing when the box hashed it (a checkpoint
a slow ``torch.save`` is still writing, a log kept open) is hashed all the same; `hash_files`
names that process in the file's `RemoteHash.writers` (one ``/proc`` pass for the whole batch,
where the box has ``/proc`` and a ``python3``: see `labledger.ingest.transport_ssh`), so the
caller can tell a finished file from a half-written one whose box hash and copy agree.

Hashing a box can take minutes (hundreds of GiB of checkpoints). It runs in daemon threads, so a
Ctrl-C is never held up until the box finishes: the caller stops at once, and a process that
exits leaves no thread to wait for.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, NamedTuple, Protocol, TypeVar

from labledger.ingest._writers import open_writers
from labledger.ingest.errors import IngestError, TransportError

Kind = Literal["file", "dir", "symlink", "other"]
CHUNK = 1 << 20
# An open that fails with one of these means the listed file is gone (removed, or replaced by a
# link or a directory), not that the box cannot be reached: the rest can still be pulled, and
# the file leaves the listing. Permission denied is NOT one: the file is still on the box, so
# the pull stops with an error naming it rather than list the box without it (the gate would
# then pass with the file never pulled).
FILE_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EISDIR})


class FileUnreadableError(IngestError):
    """One listed path could not be opened or listed on a box that still answers (it vanished
    or changed after the listing). Never raised for a connection problem (`TransportError`)."""

    _fields = ("source", "path", "problem")

    def __init__(self, source: str, path: str, problem: str) -> None:
        super().__init__(f"{source}: cannot read {path!r} on the box: {problem}")
        self.source, self.path, self.problem = source, path, problem


@dataclass(frozen=True)
class RemoteStat:
    """One directory entry as the box reports it (``lstat``: links are not followed)."""

    name: str
    kind: Kind
    size: int
    mode: int
    target: str | None = None


class BoxWriter(NamedTuple):
    """A live process on the box that held a listed file open for writing (``O_WRONLY`` or
    ``O_RDWR``) when the box hashed it: the file may be half-written."""

    pid: int
    command: str  # its command line, one printable line, shortened


@dataclass(frozen=True)
class RemoteHash:
    """Digests computed on the box: SHA-256, and BLAKE3 (hex) when the box can; or, for a file
    the box could not open any more (`FileUnreadableError`'s cases), no digest and ``error``.
    ``size``: how many bytes were hashed, when the hasher says (a file that grew or shrank
    between the listing and the hash is recorded with the size of the bytes hashed).
    ``writers``: the processes that held the file open for writing once the box had hashed
    the batch (empty when none, and when the hasher cannot tell: no ``/proc``, no python)."""

    sha256: str | None
    blake3: str | None = None
    error: str | None = None
    size: int | None = None
    writers: tuple[BoxWriter, ...] = ()


class Transport(Protocol):
    """What `labledger.ingest.pull.pull` needs from a box."""

    source: str
    """A printable, recordable name of the root, e.g. ``ssh://user@host:22/data/run1``."""

    def list_dir(self, rel: str) -> list[RemoteStat]:
        """The entries of directory ``rel`` ("" is the root), links not followed."""
        ...

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        """Hash every listed regular file on the box, in one batch; every path gets a result
        (a file that vanished since the listing gets ``error``, see `RemoteHash`)."""
        ...

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        """Stream the bytes of regular file ``rel`` from ``offset`` to its end (raises
        `FileUnreadableError` from the first chunk when that file cannot be opened)."""
        ...

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        """Stream many ``(rel, offset)`` files in order; consume each file's chunks in turn. A
        file that cannot be opened raises `FileUnreadableError` from its own chunks only."""
        ...

    def exists_dir(self, rel: str) -> bool:
        """Whether ``rel`` is a directory (not a link to one)."""
        ...

    def reconnect(self) -> None:
        """Re-establish the connection after a transport error (no-op when local)."""
        ...

    def close(self) -> None: ...


def kind_of(mode: int) -> Kind:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _hash_one(path: Path) -> tuple[RemoteHash, tuple[int, int] | None]:
    """The file's hashes, and its ``(st_dev, st_ino)`` (of the very file hashed: the open
    descriptor's) when it could be opened."""
    import blake3

    sha, b3 = hashlib.sha256(), blake3.blake3()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in FILE_ERRNOS:
            return RemoteHash(None, error=f"cannot open it to hash: {exc.strerror}"), None
        raise
    size = 0
    with open(fd, "rb", buffering=0) as fh:
        st = os.fstat(fd)
        while chunk := fh.read(CHUNK):
            sha.update(chunk)
            b3.update(chunk)
            size += len(chunk)
    return (RemoteHash(sha256=sha.hexdigest(), blake3=b3.hexdigest(), size=size),
            (st.st_dev, st.st_ino))


_T = TypeVar("_T")
_R = TypeVar("_R")


def daemon_map(fn: Callable[[_T], _R], items: Sequence[_T], workers: int) -> list[_R]:
    """``[fn(x) for x in items]`` on up to ``workers`` daemon threads, in order; the first
    exception is raised. Unlike a ThreadPoolExecutor, nothing waits for the threads when the
    caller is interrupted (Ctrl-C) or the process exits."""
    results: list[_R | None] = [None] * len(items)
    errors: list[BaseException] = []
    lock = threading.Lock()
    todo = iter(range(len(items)))

    def work() -> None:
        while not errors:
            with lock:
                i = next(todo, None)
            if i is None:
                return
            try:
                results[i] = fn(items[i])
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                errors.append(exc)

    threads = [threading.Thread(target=work, name="labledger-hash", daemon=True)
               for _ in range(max(1, min(workers, len(items))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()  # interruptible: a Ctrl-C raises here and the daemon threads are left behind
    if errors:
        raise errors[0]
    return results  # type: ignore[return-value]  # every slot was filled


class LocalTransport:
    """A directory on this machine, behaving exactly like a remote box."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.abspath(root))  # normalised: "../box" is recorded as /…/box
        self.source = f"dir:{self.root}"
        if not self.root.is_dir() or self.root.is_symlink():
            raise TransportError(self.source, "it is not a directory")

    def _path(self, rel: str) -> Path:
        return self.root / rel if rel else self.root

    def list_dir(self, rel: str) -> list[RemoteStat]:
        out = []
        try:
            with os.scandir(self._path(rel)) as it:
                for entry in it:
                    st = entry.stat(follow_symlinks=False)
                    kind = kind_of(st.st_mode)
                    target = os.readlink(entry.path) if kind == "symlink" else None
                    out.append(RemoteStat(entry.name, kind, st.st_size,
                                          stat.S_IMODE(st.st_mode), target))
        except OSError as exc:
            if rel and exc.errno in (errno.ENOENT, errno.ENOTDIR):
                raise FileUnreadableError(self.source, rel, "the folder vanished after it was "
                                          "listed") from exc
            raise TransportError(self.source, f"cannot list {rel or '.'}: {exc}") from exc
        return out

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        try:
            hashed = daemon_map(lambda r: _hash_one(self._path(r)), rels,
                                min(8, os.cpu_count() or 1))
        except OSError as exc:
            raise TransportError(self.source, f"cannot hash: {exc}") from exc
        hashes = dict(zip(rels, (h for h, _ in hashed), strict=True))
        # Once every file is hashed, one /proc pass for the batch, as the SSH box's hasher
        # does: who still holds one of them open for writing (this process and its
        # ancestors never count, `labledger.ingest._writers`).
        names: dict[tuple[int, int], list[str]] = {}
        for rel, (_, file) in zip(rels, hashed, strict=True):
            if file is not None:
                names.setdefault(file, []).append(rel)
        held: dict[str, list[BoxWriter]] = {}
        for w in open_writers(names):
            for rel in names[w.file]:
                held.setdefault(rel, []).append(BoxWriter(w.pid, w.command))
        for rel, writers in held.items():
            hashes[rel] = replace(hashes[rel], writers=tuple(writers))
        return hashes

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        try:
            fd = os.open(self._path(rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            if exc.errno in FILE_ERRNOS:
                raise FileUnreadableError(self.source, rel, exc.strerror or str(exc)) from exc
            raise TransportError(self.source, f"cannot open {rel}: {exc}") from exc
        try:
            os.lseek(fd, offset, os.SEEK_SET)
            while chunk := os.read(fd, CHUNK):
                yield chunk
        except OSError as exc:
            raise TransportError(self.source, f"cannot read {rel}: {exc}") from exc
        finally:
            os.close(fd)

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        for rel, offset in items:
            yield rel, offset, self.read(rel, offset)

    def exists_dir(self, rel: str) -> bool:
        p = self._path(rel)
        return p.is_dir() and not p.is_symlink()

    def reconnect(self) -> None:
        return None

    def close(self) -> None:
        return None
