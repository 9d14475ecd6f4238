"""The write path: one writer's chain of segment files, appended under an exclusive `flock`.

A *writer* is one machine (or one process with ``segment_per_process``). Its folder holds segment
files named by the seq of their first record (``000000000000.jsonl``); the chain (``seq``,
``prev``) runs across them. The newest writable ``.jsonl`` is the open segment; a closed one is
made read-only (0o444) and may later be sealed to Parquet by `labledger.ledger.seal`.

Append, the only way bytes enter a segment (ordering matters; breaking it loses events)::

    validate (caller) → flock(.lock) → find the open segment and its tail (seq, id)
    → cut a torn tail (bytes after the last newline: a crash mid-write, never acknowledged),
      saving the cut bytes under recovered/ → encode with seq+1, prev=tail id
    → one write() of the whole batch → fsync → unlock → acknowledge (return the records)

* A write or fsync that fails raises `DurabilityError`; the segment is cut back to its size before
  the append, so a failed append never leaves a record behind and is never acknowledged.
* A last line that is complete but fails its hash is *corruption*, not a torn write: the append is
  refused (`CorruptionError`) rather than chained onto a damaged record.
* Locks are per open file description, so the cached descriptors are reopened after a `fork`.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from labledger.ledger._line import LineError, chain_fields, encode_line
from labledger.ledger.durable import sync_file
from labledger.ledger.errors import (
    CorruptionError,
    DurabilityError,
    LedgerError,
    unreadable_file,
)
from labledger.ledger.root import fsync_dir

TYPE_CHECKING = False  # not typing's: `emit` must not pay for importing typing

SEGMENT_DIGITS = 12
TAIL_PROBE = 8192


class Draft:
    """An event validated and encoded, waiting for its place in the chain.

    A plain slotted class: cheap to build (one per event in a bulk ingest) and free of msgspec,
    which the `emit` fast path does not import.
    """

    __slots__ = ("actor", "body", "instance", "kind", "recorded", "run", "ts", "v")

    def __init__(self, *, kind: str, body: bytes, ts: str, actor: str, v: int,
                 run: str | None = None, instance: str | None = None,
                 recorded: str | None = None) -> None:
        self.kind, self.body, self.ts, self.actor, self.v = kind, body, ts, actor, v
        self.run, self.instance, self.recorded = run, instance, recorded

    def __repr__(self) -> str:
        return f"Draft(kind={self.kind!r}, run={self.run!r}, ts={self.ts!r})"


if TYPE_CHECKING:  # `typing` stays off the `emit` fast path
    from typing import Protocol

    class Encoder(Protocol):
        """Turns a draft's fields plus its chain position into ``(id, line)``."""

        def __call__(self, *, v: int, seq: int, prev: str | None, ts: str, writer: str,
                     actor: str, kind: str, run: str | None, instance: str | None,
                     recorded: str | None, body: bytes, more: bool = False
                     ) -> tuple[str, bytes]: ...

    # (first seq, prev id, writer) -> (the batch's record lines, id of its last record)
    Render = Callable[[int, str | None, str], tuple[bytes | bytearray, str]]


class Appended:
    """Where an acknowledged event landed: its seq, id and the id before it."""

    __slots__ = ("id", "prev", "seq")

    def __init__(self, seq: int, rid: str, prev: str | None) -> None:
        self.seq, self.id, self.prev = seq, rid, prev


class _Tail:
    __slots__ = ("first_seq", "last_id", "next_seq", "path", "size")

    def __init__(self, path: Path, first_seq: int, next_seq: int, last_id: str | None,
                 size: int) -> None:
        self.path, self.first_seq, self.next_seq = path, first_seq, next_seq  # next_seq: seq of
        self.last_id, self.size = last_id, size                              # the next record


def segment_name(first_seq: int, suffix: str = ".jsonl") -> str:
    return f"{first_seq:0{SEGMENT_DIGITS}d}{suffix}"


def unreadable(path: Path, exc: OSError, what: str = "read") -> LedgerError:
    """`errors.unreadable_file`, for the append path: it also says nothing was written."""
    return LedgerError(f"{unreadable_file(path, exc, what)}; nothing was written")


def _open(path: Path, flags: int, what: str = "read") -> int:
    try:
        return os.open(path, flags | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise _refused(path, exc, what) from None


def _refused(path: Path, exc: OSError, what: str) -> OSError | LedgerError:
    """A permission or read-only-filesystem refusal as a `LedgerError` that says nothing was
    written (a user's situation, not a crash); any other error as it is."""
    if isinstance(exc, PermissionError):
        return unreadable(path, exc, what)
    if exc.errno == errno.EROFS:
        return LedgerError(f"{path}: cannot {what} ({exc.strerror}): the ledger is on a "
                           "read-only filesystem; nothing was written")
    return exc


def list_segments(writer_dir: Path) -> list[Path]:
    """All segment files of a writer in chain order (a sealed .parquet wins over its .jsonl)."""
    by_seq: dict[int, Path] = {}
    try:
        names = os.listdir(writer_dir)
    except FileNotFoundError:
        return []
    for name in names:
        stem, dot, suffix = name.partition(".")
        if not dot or not stem.isdigit() or suffix not in ("jsonl", "parquet"):
            continue
        seq = int(stem)
        if suffix == "parquet" or seq not in by_seq:
            by_seq[seq] = writer_dir / name
    return [by_seq[s] for s in sorted(by_seq)]


def last_full_line(fd: int, size: int) -> tuple[bytes | None, int]:
    """The last complete line (without newline) and the offset just after its newline.

    Bytes after that offset are a torn tail. Returns ``(None, 0)`` when no line is complete.
    """
    pos, buf, last_nl = size, b"", -1
    while pos > 0 and last_nl < 0:
        step = min(TAIL_PROBE, pos)
        pos -= step
        buf = os.pread(fd, step, pos) + buf
        last_nl = buf.rfind(b"\n")
    if last_nl < 0:
        return None, 0
    end = pos + last_nl  # absolute offset of the newline ending the last full line
    before = buf.rfind(b"\n", 0, end - pos)
    while before < 0 and pos > 0:
        step = min(TAIL_PROBE, pos)
        pos -= step
        buf = os.pread(fd, step, pos) + buf
        before = buf.rfind(b"\n", 0, end - pos)
    start = pos + before + 1
    return buf[start - pos:end - pos], end + 1


_WARNED_WAIT = False  # the long-wait warning is said once per process


class SegmentWriter:
    """Appends to one writer's segments. Thread-safe; process-safe through `flock`."""

    def __init__(
        self,
        writer_dir: Path,
        *,
        writer: str,
        recovered_dir: Path,
        max_events: int,
        max_bytes: int,
        on_recover: Callable[[Path, int, int, Path], None] | None = None,
        encoder: Encoder = encode_line,
    ) -> None:
        self.encoder = encoder
        self.dir = writer_dir
        self.writer = writer
        self.recovered_dir = recovered_dir
        self.max_events = max_events
        self.max_bytes = max_bytes
        self.on_recover = on_recover
        self._thread_lock = threading.Lock()
        self._pid = -1
        self._lock_fd = -1
        self._seg_fd = -1
        self._tail: _Tail | None = None
        # (seq, prev id) the next new segment starts from when there is no open segment
        self._next_start: tuple[int, str | None] = (0, None)

    # -- descriptors ----------------------------------------------------------------------------
    def _ensure_open(self) -> None:
        if self._pid == os.getpid() and self._lock_fd >= 0:
            return
        # After fork the inherited descriptors share the parent's lock: open our own.
        self._lock_fd = self._seg_fd = -1
        self._tail = None
        if not self.dir.is_dir():  # a writer's first append here (a new machine's writer)
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise _refused(self.dir, exc, "create") from None
            fsync_dir(self.dir.parent)
        self._lock_fd = _open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, "open")
        self._pid = os.getpid()

    def close(self) -> None:
        with self._thread_lock:
            if self._pid == os.getpid():
                for fd in (self._seg_fd, self._lock_fd):
                    if fd >= 0:
                        os.close(fd)
            self._lock_fd = self._seg_fd = -1
            self._tail = None
            self._pid = -1

    def __del__(self) -> None:
        # `Ledger.open().append(...)` once per step must not leak two descriptors per call.
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to do
            pass

    # -- the tail ---------------------------------------------------------------------------------
    def _tail_is_current(self) -> bool:
        if self._tail is None or self._seg_fd < 0:
            return False
        st = os.fstat(self._seg_fd)
        # Another process appended (size moved) or closed the segment (made it read-only).
        return st.st_size == self._tail.size and bool(st.st_mode & stat.S_IWUSR) and st.st_nlink > 0

    def _load_tail(self) -> None:
        if self._seg_fd >= 0:
            os.close(self._seg_fd)
            self._seg_fd = -1
        self._tail = None
        segments = list_segments(self.dir)
        open_seg = None
        if segments and segments[-1].suffix == ".jsonl":
            mode = segments[-1].stat().st_mode
            if mode & stat.S_IWUSR:
                open_seg = segments[-1]
        if open_seg is None:
            next_seq, last_id = self._end_of_chain(segments)
            self._next_start = (next_seq, last_id)
            return
        fd = _open(open_seg, os.O_RDWR | os.O_APPEND)
        self._seg_fd = fd
        first_seq = int(open_seg.name.split(".")[0])
        size = os.fstat(fd).st_size
        line, end = last_full_line(fd, size)
        if end < size:
            self._cut_torn_tail(open_seg, fd, end, size)
            size = end
        if line is not None:
            try:
                more = chain_fields(line)[2]
            except LineError as exc:
                raise CorruptionError(open_seg, None, end - len(line) - 1,
                                      f"last record is damaged ({exc})") from None
            if more:
                # A crash inside a batch write left its first records without its last one:
                # the batch was never acknowledged, so all of it goes (all or nothing).
                start = incomplete_batch_start(open_seg)
                self._cut_torn_tail(open_seg, fd, start, size)
                size = start
                line, end = last_full_line(fd, size)
        if line is None:
            # An empty segment (crash right after it was created): chain from the one before.
            prev_segments = [s for s in segments if s != open_seg]
            next_seq, last_id = self._end_of_chain(prev_segments)
            if next_seq != first_seq:
                raise CorruptionError(
                    open_seg, first_seq, 0,
                    f"empty segment does not continue the chain at seq {next_seq}")
            self._tail = _Tail(open_seg, first_seq, first_seq, last_id, size)
            return
        try:
            seq, rid, _ = chain_fields(line)
        except LineError as exc:
            raise CorruptionError(open_seg, None, end - len(line) - 1,
                                  f"last record is damaged ({exc})") from None
        self._tail = _Tail(open_seg, first_seq, seq + 1, rid, size)

    def _end_of_chain(self, segments: Sequence[Path]) -> tuple[int, str | None]:
        """(next seq, last id) after the given closed segments; (0, None) for a new writer."""
        if not segments:
            return 0, None
        last = segments[-1]
        if last.suffix == ".parquet":
            from labledger.ledger.seal import last_of_sealed  # rare path: pyarrow only here

            seq, rid = last_of_sealed(last)
            return seq + 1, rid
        fd = _open(last, os.O_RDONLY)
        try:
            line, _ = last_full_line(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)
        if line is None:
            return self._end_of_chain(segments[:-1])
        try:
            seq, rid, _ = chain_fields(line)
        except LineError as exc:
            raise CorruptionError(last, None, None, f"last record is damaged ({exc})") from None
        return seq + 1, rid

    def _cut_torn_tail(self, segment: Path, fd: int, end: int, size: int) -> None:
        torn = os.pread(fd, size - end, end)
        self.recovered_dir.mkdir(parents=True, exist_ok=True)
        keep = self.recovered_dir / f"{segment.stem}-at-{end}-{len(torn)}bytes.torn"
        copy = 1
        while keep.exists():  # the same cut again (a crash during a recovery): keep every piece
            copy += 1
            keep = keep.with_name(f"{segment.stem}-at-{end}-{len(torn)}bytes.{copy}.torn")
        with open(keep, "wb") as out:  # evidence first: the cut bytes survive the cut
            out.write(torn)
            out.flush()
            sync_file(out.fileno())
        fsync_dir(self.recovered_dir)
        os.ftruncate(fd, end)
        sync_file(fd)
        if self.on_recover is not None:
            self.on_recover(segment, end, len(torn), keep)

    def _start_segment(self, first_seq: int) -> None:
        path = self.dir / segment_name(first_seq)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                         0o644)
        except FileExistsError:
            raise CorruptionError(path, first_seq, None,
                                  "a segment with this first seq already exists") from None
        fsync_dir(self.dir)
        if self._seg_fd >= 0:
            os.close(self._seg_fd)
        self._seg_fd = fd
        last_id = self._tail.last_id if self._tail else self._next_start[1]
        self._tail = _Tail(path, first_seq, first_seq, last_id, 0)

    def _close_segment(self) -> None:
        assert self._tail is not None
        os.fchmod(self._seg_fd, 0o444)

    def _acquire(self) -> None:
        """Take the writer's lock. Several processes of one writer share it (DDP ranks, parallel
        `emit`s) and wait their turn in microseconds, silently; a wait past a second (a stuck
        process, a long `compact`) is said once per process, then waited out."""
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            time.sleep(0.005)
            try:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                continue
        global _WARNED_WAIT
        if not _WARNED_WAIT:
            _WARNED_WAIT = True
            # through logging, which with no handler set up writes WARNINGs to stderr (a
            # library does not print); a training loop must not stall in silence
            import logging

            logging.getLogger("labledger").warning(
                "labledger: waiting for the writer lock %s (another process of writer %r "
                "holds it)", self.dir / ".lock", self.writer)
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)

    # -- append -----------------------------------------------------------------------------------
    def append(self, drafts: Sequence[Draft]) -> list[Appended]:
        """Append drafts with one write and one fsync, all or nothing; return them acknowledged.

        Every record of a multi-event batch but the last carries ``more``: a crash that cuts
        the write short leaves a trailing run of ``more`` records, which recovery removes.
        """
        if not drafts:
            return []
        with self._thread_lock:
            self._ensure_open()
            self._acquire()
            try:
                return self._append_locked(drafts)
            finally:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def append_rendered(self, count: int, render: Render) -> tuple[int, str] | None:
        """`append` for a batch of ``count`` events that encodes itself once its place is known.

        ``render(seq, prev, writer)`` returns ``(data, last_id)``: the batch's record lines
        (``more`` on all but the last) chained from ``seq`` and ``prev``. The order is
        `append`'s: flock → tail → render → one write → fsync → unlock. Returns the
        acknowledged ``(first_seq, last_id)``; None for an empty batch (nothing is locked).
        """
        if count <= 0:
            return None
        with self._thread_lock:
            self._ensure_open()
            self._acquire()
            try:
                tail = self._tail_for_batch()
                first = tail.next_seq
                data, last_id = render(first, tail.last_id, self.writer)
                self._write_durably(tail, data)
                tail.next_seq, tail.last_id = first + count, last_id
                tail.size += len(data)
                return first, last_id
            finally:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def _tail_for_batch(self) -> _Tail:
        """The open segment's tail, after recovery; a new segment when the open one is full.

        A batch never spans segments (recovery cuts a trailing run of ``more`` records within
        one file), so a full segment is closed before a batch, never during it.
        """
        if not self._tail_is_current():
            self._load_tail()
        tail = self._tail
        if tail is None:
            self._start_segment(self._next_start[0])
        elif (tail.next_seq - tail.first_seq >= self.max_events or tail.size >= self.max_bytes):
            self._close_segment()
            self._start_segment(tail.next_seq)
        tail = self._tail
        assert tail is not None
        return tail

    def _append_locked(self, drafts: Sequence[Draft]) -> list[Appended]:
        tail = self._tail_for_batch()
        seq, prev = tail.next_seq, tail.last_id
        lines: list[bytes] = []
        placed: list[Appended] = []
        encode, writer, last = self.encoder, self.writer, len(drafts) - 1
        for index, d in enumerate(drafts):
            rid, line = encode(v=d.v, seq=seq, prev=prev, ts=d.ts, writer=writer, actor=d.actor,
                               kind=d.kind, run=d.run, instance=d.instance, recorded=d.recorded,
                               more=index != last, body=d.body)
            lines.append(line)
            placed.append(Appended(seq, rid, prev))
            seq, prev = seq + 1, rid
        data = b"".join(lines)
        self._write_durably(tail, data)
        tail.next_seq, tail.last_id, tail.size = seq, prev, tail.size + len(data)
        return placed

    def _write_durably(self, tail: _Tail, data: bytes | bytearray) -> None:
        fd, start = self._seg_fd, tail.size
        action = "write to"
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                if written <= 0:  # pragma: no cover - a regular file never returns 0 here
                    raise OSError(errno.EIO, "short write")
                view = view[written:]
            action = "fsync"
            sync_file(fd)
        except OSError as exc:
            self._undo(fd, start)
            raise DurabilityError(tail.path, action, exc) from exc

    def _undo(self, fd: int, start: int) -> None:
        # Best effort: remove any bytes of the failed batch so it can never be read as recorded.
        try:
            os.ftruncate(fd, start)
            sync_file(fd)
        except OSError:
            pass  # the next append cuts a torn tail; a complete stray line is reported by check
        self._tail = None
        if self._seg_fd >= 0:
            os.close(self._seg_fd)
            self._seg_fd = -1


def iter_lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """Yield (offset, line without newline, complete?) of a JSONL segment."""
    with open(path, "rb") as fh:
        data = fh.read()
    offset = 0
    while offset < len(data):
        nl = data.find(b"\n", offset)
        if nl < 0:
            yield offset, data[offset:], False
            return
        yield offset, data[offset:nl], True
        offset = nl + 1


class hold_off_sealing:  # noqa: N801 - used as a function: `with hold_off_sealing(dirs):`
    """Keep `compact` (and appends) of these writers waiting for the ``with`` block: a shared
    `flock` on each one's ``.lock``, which both take exclusively. For a reader that lost the
    race against a sealing compact again and again (its listed JSONL segments sealed away
    before it read them): under these locks no segment is sealed away. Opens the lock files
    read-only and never creates one (a read-only project; a writer without one has no
    appender or compact at work). A class, not `contextlib`: `emit` imports this module."""

    def __init__(self, writer_dirs: Sequence[Path]) -> None:
        self.writer_dirs, self.fds = writer_dirs, list[int]()

    def __enter__(self) -> None:
        try:
            for writer_dir in self.writer_dirs:
                try:
                    fd = os.open(writer_dir / ".lock", os.O_RDONLY | os.O_CLOEXEC)
                except OSError:
                    continue
                self.fds.append(fd)
                fcntl.flock(fd, fcntl.LOCK_SH)
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *_: object) -> None:
        for fd in self.fds:
            os.close(fd)  # releases its lock
        self.fds.clear()


def writer_dirs(segments: Path) -> list[Path]:
    """The writers' folders under the ledger's ``segments`` folder, sorted (none if it is not
    there yet)."""
    return sorted(p for p in segments.iterdir() if p.is_dir()) if segments.is_dir() else []


READ_ATTEMPTS = 4
"""How many times a read starts again when `compact` seals a segment it listed away under it
(`check`, `query.read_retrying`, `read.iter_writer_records`). One retry is not enough beside a
compact run again and again (each run seals the open segment); the last attempt holds sealing
off (`hold_off_sealing`), so it cannot lose the race."""


class SealedAway(Exception):  # noqa: N818 - a signal to list again, not an error
    """A listed JSONL segment is gone: `compact` sealed it (its Parquet twin holds the same
    records) or, empty, removed it, after the listing. Not damage: list again."""


def sealing_attempts(writer_dirs: Callable[[], Sequence[Path]]) -> Iterator[bool]:
    """One flag per attempt of a read beside `compact`: False for each that may lose a race,
    then True for the last, during which sealing of ``writer_dirs()`` (listed then) is held
    off. ``for last in sealing_attempts(...)``: ``continue`` after a lost race; leaving the
    loop ends the hold."""
    for _ in range(READ_ATTEMPTS - 1):
        yield False
    with hold_off_sealing(writer_dirs()):
        yield True


def has_closed_segments(writer_dir: Path) -> bool:
    """True when a read-only (closed) JSONL segment waits to be sealed."""
    return any(s.suffix == ".jsonl" and not s.stat().st_mode & stat.S_IWUSR
               for s in list_segments(writer_dir))


def incomplete_batch_start(segment: Path) -> int:
    """Offset of the first record of the trailing run of ``more`` records (an unfinished batch).

    Rare (only after a crash mid-batch), so it simply scans the segment from the start.
    """
    start = 0
    for offset, line, complete in iter_lines(segment):
        if not complete:
            break
        try:
            more = chain_fields(line)[2]
        except LineError:
            continue  # damage is check's to report; it cannot end a batch
        if not more:
            start = offset + len(line) + 1
    return start
