"""Records changed after they were written, found for every read (`log`, `sql`, the views).

A record line carries the BLAKE3 of its own content (`record`). A byte flipped inside a text
value usually leaves valid JSON, so DuckDB reads the line and every view would show the changed
record as if it were the one written. Every reader therefore hashes the JSONL lines and reports
the lines whose content no longer matches their id (`labledger check` gives the full report; this
only keeps a read from being silent).

Hashing line by line is paid once per line, not once per query (~4 µs a line):

* a closed segment never changes: its result is kept by inode, size and mtime, and it is not
  read again while they hold;
* the open segment only grows: the offset hashed up to is kept with 64 bits of the BLAKE3 of the
  bytes before it; the next read hashes that prefix in one C-speed pass (~4 GB/s) and, when it is
  unchanged, checks only the lines appended since (a prefix that changed, a segment that shrank
  or was replaced, is checked line by line again);
* a segment found altered is checked again on every read, so the warning never goes quiet.

The cache is a plain JSON file; losing it costs one more hashing pass, never a wrong answer for
a segment that changed (its stamp no longer matches). A line that is not a record at all is not
counted here: DuckDB cannot read it, and the unreadable-row report names it. Sealed Parquet
segments are verified when sealed and by `labledger check`; they are not hashed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import msgspec
from blake3 import blake3

from labledger.ledger import _stamp_cache as stamp_cache
from labledger.ledger._line import ID_END, ID_PREFIX, REST
from labledger.ledger._words import counted
from labledger.ledger.record import Record

__all__ = ["Altered", "SegmentReads", "altered_records", "matches_id", "prefix_digest",
           "unreadable_why"]

_SHOWN = 3  # altered lines located per segment


@dataclass
class Altered:
    """A segment's lines whose content does not match their id: how many, and where."""

    count: int = 0
    places: list[tuple[int, int]] = field(default_factory=list)  # (line number, byte offset)

    def add(self, number: int, offset: int) -> None:
        self.count += 1
        if len(self.places) < _SHOWN:
            self.places.append((number, offset))

    def message(self, segment: Path) -> str:
        where = "; ".join(f"line {n} at byte {o}" for n, o in self.places)
        if self.count > len(self.places):
            where += f"; and {self.count - len(self.places)} more"
        one = self.count == 1
        return (f"ledger segment {segment} is damaged: {counted(self.count, 'record')} no longer "
                f"{'matches its' if one else 'match their'} id ({where}): "
                f"{'it was' if one else 'they were'} changed after being written and "
                f"{'is' if one else 'are'} shown as read now, not as recorded. "
                "Run `labledger check` for a full report")


class SegmentReads:
    """The open segments' bytes, read once per read of the ledger, and the digests of their
    prefixes, hashed once: the two checks every read runs on an open segment (altered lines
    here, unreadable rows in `query`) share them, so a 350 MB open segment is read and hashed
    once per query, not twice. Closed segments are read by whoever needs them and not kept."""

    def __init__(self, open_segments: frozenset[Path]) -> None:
        self._open = open_segments
        self._data: dict[Path, bytes] = {}
        self._digests: dict[tuple[Path, int], int] = {}

    def data(self, segment: Path) -> bytes:
        """``segment``'s bytes (raises `OSError` as reading it does)."""
        got = self._data.get(segment)
        if got is None:
            got = segment.read_bytes()
            if segment in self._open:
                self._data[segment] = got
        return got

    def digest(self, segment: Path, data: bytes, end: int) -> int:
        """`prefix_digest` of ``data`` (``segment``'s bytes) up to ``end``."""
        key = (segment, end)
        got = self._digests.get(key)
        if got is None:
            got = prefix_digest(data, end)
            if segment in self._open:
                self._digests[key] = got
        return got


def altered_records(jsonl: list[Path], open_segments: frozenset[Path],
                    cache: Path | None, reads: SegmentReads | None = None
                    ) -> dict[Path, Altered]:
    """The JSONL segments holding lines that parse as records but fail their hash (``reads``:
    the bytes and digests this read of the ledger already has)."""
    reads = reads if reads is not None else SegmentReads(open_segments)
    known = stamp_cache.load(cache, 7)
    kept: dict[str, list[int]] = {}
    found: dict[Path, Altered] = {}
    for segment in jsonl:
        try:
            st = segment.stat()
        except FileNotFoundError:  # compacted away since the listing: the read lists again
            continue
        entry = known.get(str(segment))
        stamp = [st.st_ino, st.st_size, st.st_mtime_ns]
        if segment not in open_segments and entry is not None and entry[:3] == stamp \
                and not entry[5]:
            kept[str(segment)] = entry  # a closed segment that has not changed: nothing to read
            continue
        try:
            data = reads.data(segment)
        except OSError:  # unreadable: the DuckDB scan fails on it and names it
            continue
        start, number = 0, 0
        if entry is not None and entry[0] == st.st_ino and not entry[5] and \
                entry[3] <= len(data) and reads.digest(segment, data, entry[3]) == entry[6]:
            start, number = entry[3], entry[4]  # the lines hashed before are as they were
        altered = Altered()
        end, number = _hash_lines(data, start, number, altered)
        kept[str(segment)] = [*stamp, end, number, altered.count,
                              reads.digest(segment, data, end)]
        if altered.count:
            found[segment] = altered
    if cache is not None and kept != {k: v for k, v in known.items() if k in kept}:
        stamp_cache.save(cache, kept)
    return found


def prefix_digest(data: bytes, end: int) -> int:
    """64 bits of the BLAKE3 of ``data[:end]`` (one C-speed pass): the open segment's lines
    hashed before are trusted again only when their bytes are unchanged."""
    return int.from_bytes(blake3(memoryview(data)[:end]).digest(8), "big", signed=True)


def _hash_lines(data: bytes, start: int, number: int, altered: Altered) -> tuple[int, int]:
    """Hash the complete lines of ``data`` from byte ``start`` (line ``number`` so far);
    returns (the offset after the last complete line, the lines counted)."""
    offset = start
    size = len(data)
    while offset < size:
        nl = data.find(b"\n", offset)
        if nl < 0:
            break  # a torn tail, or a line being appended right now: not judged
        number += 1
        if not matches_id(data, offset, nl) and unreadable_why(data[offset:nl]) is None:
            altered.add(number, offset)
        offset = nl + 1
    return offset, number


def matches_id(data: bytes, start: int, end: int) -> bool:
    if data[start:start + len(ID_PREFIX)] != ID_PREFIX or \
            data[start + ID_END:start + REST] != b'",':
        return False
    hasher = blake3(b"{")
    hasher.update(memoryview(data)[start + REST:end])
    return hasher.hexdigest().encode() == data[start + len(ID_PREFIX):start + ID_END]


def unreadable_why(line: bytes) -> str | None:
    """Why a record line cannot be read as a record (the Python twin of the query module's
    unreadable-row test: a missing or mistyped field, a time DuckDB cannot cast, bytes that are
    not UTF-8), or None when it reads."""
    try:
        line.decode("utf-8")  # a Record keeps its body raw: its bytes are checked here
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start} of the line"
    try:
        record = msgspec.json.decode(line, type=Record)
        for stamp in (record.ts, record.recorded):
            if stamp is not None:
                datetime.fromisoformat(stamp)
    except (msgspec.DecodeError, ValueError) as exc:
        return str(exc)
    return None
