"""Reading a writer's records back in chain order, from open JSONL and sealed Parquet segments."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
from blake3 import blake3

from labledger.ledger._line import ID_END, ID_PREFIX, REST
from labledger.ledger.errors import CorruptionError
from labledger.ledger.record import Record, RecordError, verify_line
from labledger.ledger.segment import (
    READ_ATTEMPTS,
    SealedAway,
    hold_off_sealing,
    iter_lines,
    list_segments,
    unreadable,
)


def iter_segment_records(segment: Path, kinds: Collection[str] | None = None
                         ) -> Iterator[Record]:
    """Verified records of one segment; a torn final line (never acknowledged) is skipped.

    With ``kinds``, only records of those kinds, and only those are parsed and verified: a
    line (always written as msgspec's compact JSON) without ``"kind":"K"`` is not one. The
    text can also stand inside a body (``"extra":{"kind":"capsule.sealed"}``), so a line that
    has it is judged by its decoded kind, as a sealed segment's rows are by their column."""
    if segment.suffix == ".parquet":
        from labledger.ledger.seal import iter_sealed_records

        yield from iter_sealed_records(segment, kinds)
        return
    if kinds is None:
        lines: Iterator[tuple[int, bytes, bool]] = _lines(segment)
    else:
        lines = _lines_holding(segment, [f'"kind":"{k}"'.encode() for k in kinds])
    for offset, line, complete in lines:
        if not complete:
            return
        try:
            record = verify_line(line)
        except RecordError as exc:
            raise CorruptionError(segment, None, offset, str(exc)) from None
        if kinds is None or record.kind in kinds:
            yield record


def _lines_holding(segment: Path, needles: list[bytes]) -> Iterator[tuple[int, bytes, bool]]:
    """The lines of ``segment`` that hold one of ``needles``, in file order, found by C-speed
    searches of the whole file rather than a test of every line (the checkpoint hooks in a
    training loop ask for one rare kind of a large ledger); (offset, line, complete) as
    `iter_lines` gives them."""
    try:
        data = segment.read_bytes()
    except PermissionError as exc:
        raise unreadable(segment, exc) from None
    starts: set[int] = set()
    for needle in needles:
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            starts.add(start)
            end = data.find(b"\n", at)
            if end < 0:
                break
            at = data.find(needle, end)
    for start in sorted(starts):
        end = data.find(b"\n", start)
        if end < 0:
            yield start, data[start:], False
            return
        yield start, data[start:end], True


def _lines(segment: Path) -> Iterator[tuple[int, bytes, bool]]:
    """`iter_lines`, with a segment labledger may not read reported as such (exit 1), not as
    a traceback. (`check` reads with `iter_lines` itself and reports it as a problem.)"""
    lines = iter_lines(segment)
    try:
        first = next(lines)  # the segment is opened and read here
    except StopIteration:
        return
    except PermissionError as exc:
        raise unreadable(segment, exc) from None
    yield first
    yield from lines


def iter_writer_records(writer_dir: Path, kinds: Collection[str] | None = None
                        ) -> Iterator[Record]:
    """A writer's verified records in chain order (only ``kinds``, when given), safe beside a
    concurrent `labledger compact`.

    Invariants (docs/ledger.md, "Reads beside compact"):

    * Each segment is read whole before any of its records is yielded, so a segment sealed
      away under the read is met before anything of it was handed out.
    * A listed segment found gone sends the read to a fresh listing, resumed at the first
      segment after the last one yielded (segments are named by their first seq, which
      sealing keeps, and hold disjoint seq ranges): its Parquet twin is read in its place, no
      record is yielded twice and none skipped. The records are then those of a read started
      at that moment, less the segments already yielded.
    * After `READ_ATTEMPTS` - 1 lost races, each remaining segment is listed and read under
      `hold_off_sealing` (released before its records are yielded: a caller that appends
      while it iterates must not wait on itself), so the read cannot lose again.
    * Damage is raised as before: a segment that is gone on the last attempt, or that exists
      but cannot be read, is never retried.
    """
    done = -1  # the first seq of the last segment yielded: the read resumes after it
    for _ in range(1, READ_ATTEMPTS):  # the tries that may lose a race
        try:
            for segment in list_segments(writer_dir):
                first = int(segment.stem)
                if first > done:
                    yield from _read_whole(segment, kinds, retry=True)
                    done = first
            return
        except SealedAway:
            continue
    while True:  # the last attempt: compact of this writer waits while a segment is read
        with hold_off_sealing([writer_dir]):
            later = [s for s in list_segments(writer_dir) if int(s.stem) > done]
            records = _read_whole(later[0], kinds, retry=False) if later else None
        if records is None:
            return
        yield from records
        done = int(later[0].stem)


def _read_whole(segment: Path, kinds: Collection[str] | None, *, retry: bool
                ) -> Iterator[Record]:
    """`iter_segment_records` with the segment already read (the first record, or the end, is
    fetched here); `SealedAway` when ``retry`` and a listed JSONL segment is gone."""
    records = iter_segment_records(segment, kinds)
    try:
        first = next(records)
    except StopIteration:
        return iter(())
    except FileNotFoundError:
        if retry and segment.suffix == ".jsonl" and not segment.exists():
            raise SealedAway from None
        raise
    return itertools.chain((first,), records)


# --- a writer's records with only the latest of one kind ---------------------------------------
# A record's position: (segment index << _POSITION_BITS) + its byte offset in a JSONL segment, or
# its row (in seq order) in a sealed one. Positions sort in chain order.
_POSITION_BITS = 40
_LOCAL = (1 << _POSITION_BITS) - 1
_KEY_COLUMNS = ["seq", "ts", "writer", "kind", "run", "instance"]


class _Key(msgspec.Struct, frozen=True, gc=False):
    """What the cheap pass reads of a record: the envelope fields that say which record of a
    kind is the latest (a JSONL line's other fields, its id and body, are skipped unread).
    Only text and numbers: untracked by the garbage collector (one per record of the kind)."""

    seq: int
    ts: str
    writer: str
    kind: str
    run: str | None = None
    instance: str | None = None

    def fields_of(self, record: Record) -> bool:
        """Whether ``record`` (verified) holds the fields this key was read as."""
        return (record.seq, record.ts, record.writer, record.kind, record.run,
                record.instance) == (self.seq, self.ts, self.writer, self.kind, self.run,
                                     self.instance)


_key_decoder = msgspec.json.Decoder(_Key)


class _Unsure(Exception):
    """The cheap pass met something only the ordinary read may judge: a record that does not
    verify, a segment or column it cannot read, a selected record that is not what it read."""


# A record of the thinned kind: its key (not verified yet) or its verified record, its position,
# and its line (None: sealed, or verified already).
_Candidate = tuple["_Key | _Fields | Record", int, bytes | None]


class _Latest:
    """Per (writer, run, instance): the candidate last in ledger order (ts, seq: the writer is
    the same; a tie goes to the later position, as the last of equal keys in a stable sort), the
    one last in chain order (highest seq; a tie to the lower ts, then the earlier position: the
    one `ledger_head` meets first among them in ledger order) and, with ``first``, the one first
    in ledger order (a tie to the earlier position)."""

    def __init__(self, *, first: bool = False) -> None:
        # group -> [last in ledger order, last in chain order, first in ledger order]
        self.groups: dict[tuple[str, str | None, str | None], list[_Candidate]] = {}
        self.first = first

    def offer(self, key: _Key | _Fields | Record, position: int, line: bytes | None
              ) -> None:
        # called once per record of the kind (hundreds of thousands): one lookup, no tuple per
        # comparison
        candidate = (key, position, line)
        slots = self.groups.get((key.writer, key.run, key.instance))
        if slots is None:
            self.groups[(key.writer, key.run, key.instance)] = [candidate, candidate, candidate]
            return
        ts, seq = key.ts, key.seq
        best = slots[0][0]
        if ts > best.ts or (ts == best.ts and seq >= best.seq):
            slots[0] = candidate
        best = slots[1][0]
        if seq > best.seq or (seq == best.seq and ts < best.ts):
            slots[1] = candidate
        best = slots[2][0]
        if ts < best.ts or (ts == best.ts and seq < best.seq):
            slots[2] = candidate

    def chosen(self) -> list[_Candidate]:
        """The selected candidates, each once, in chain order."""
        kept = 3 if self.first else 2
        unique = {c[1]: c for slots in self.groups.values() for c in slots[:kept]}
        return [unique[position] for position in sorted(unique)]


def iter_writer_records_latest(writer_dir: Path, kind: str) -> Iterator[Record]:
    """A writer's records in chain order, except that of the records of ``kind`` only the
    latest per (writer, run, instance) are read: the one last in ledger order (ts, seq) and
    the one last in chain order (seq). The others are neither verified nor decoded: a cheap
    pass reads their envelope fields only (a JSONL line's ``seq``, ``ts``, ``writer``,
    ``kind``, ``run`` and ``instance``; a sealed segment's columns of those names).

    Meant for a kind whose records matter only through the latest of each run and instance
    (a run's heartbeats: see `labledger.reconcile.pull_verified.load_events`). A caller gets
    what `iter_writer_records` gives, less those superseded records.

    Invariants:

    * Every record of another kind, and every selected one, is verified from its bytes and
      decoded exactly as `iter_writer_records` does it.
    * Whenever the cheap pass meets a problem (a record that does not verify, a segment or
      column it cannot read, a selected record that does not hold what the pass read of it),
      the writer is read again by `iter_writer_records`: the records, or the error raised,
      are then exactly its.
    * Only a superseded record is never verified here, so damage to one goes unnoticed (in
      the fields the pass reads, it may change which record counts as the latest);
      `labledger check` verifies every line and every sealed column.
    """
    try:
        records = _read_latest(writer_dir, kind)
    except _Unsure:
        records = list(iter_writer_records(writer_dir))
    yield from records


def iter_writer_records_checked_latest(writer_dir: Path, kind: str) -> Iterator[Record]:
    """`iter_writer_records_latest` for a reader that must not pass damage over (the teardown
    gate): every record of the writer is verified as `iter_writer_records` verifies it (the
    line against its id, its fields decoded), superseded ones too, so a damaged one raises
    exactly as there; only then are the records of ``kind`` thinned, to the latest per
    (writer, run, instance) in ledger order and in chain order, and the first in ledger order
    (`_Latest`). What is saved is what a reader does with every record afterwards (decoding
    bodies, sorting, judging); a superseded record's fields are only validated (`_Fields`).

    Invariants:

    * The records returned are `iter_writer_records`' in its order, less the superseded records
      of ``kind``.
    * A fast pass reads the lines itself; whenever it meets a problem (a line that does not
      verify, a segment it cannot read, a sealed record that is not text), the writer is read
      again through `iter_writer_records`, so the error raised is exactly its error.
    """
    try:
        records = _read_checked_latest(writer_dir, kind)
    except _Unsure:
        records = _checked_latest_plainly(writer_dir, kind)
    yield from records


class _Fields(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """`Record`'s fields with its types and defaults, so a line decodes here exactly when it
    decodes as a `Record` (a test pins them equal); untracked by the garbage collector, as
    hundreds of thousands of them are decoded and dropped."""

    id: str
    v: int
    seq: int
    prev: str | None
    ts: str
    writer: str
    actor: str
    kind: str
    run: str | None = None
    instance: str | None = None
    recorded: str | None = None
    more: bool = False
    body: msgspec.Raw = msgspec.Raw(b"{}")


_fields_decoder = msgspec.json.Decoder(_Fields)


def _read_checked_latest(writer_dir: Path, kind: str) -> list[Record]:
    latest = _Latest(first=True)
    kept: list[tuple[int, Record]] = []
    for index, segment in enumerate(list_segments(writer_dir)):
        lines = _sealed_lines_all(segment) if segment.suffix == ".parquet" else \
            _complete_lines(segment)
        _scan_checked(lines, index << _POSITION_BITS, kind, latest, kept)
    for _, position, line in latest.chosen():
        assert line is not None  # every candidate was offered with its line
        kept.append((position, _verified(line)))
    kept.sort(key=lambda item: item[0])
    return [record for _, record in kept]


def _scan_checked(lines: list[bytes], base: int, kind: str, latest: _Latest,
                  kept: list[tuple[int, Record]]) -> None:
    """Verify every line of a segment as `verify_line` does; offer those of ``kind`` to
    ``latest`` (their fields validated, no `Record` built) and keep the others verified."""
    needle = f'"kind":"{kind}"'.encode()  # as msgspec's compact JSON writes it
    hasher = blake3()  # one for every line (a new one per line costs a quarter more)
    reset, update, hexdigest = hasher.reset, hasher.update, hasher.hexdigest
    decode, offer = _fields_decoder.decode, latest.offer  # bound once: run for every line
    prefix, start, end = ID_PREFIX, len(ID_PREFIX), ID_END
    try:
        for position, line in enumerate(lines, base):
            if needle in line:
                # `_line.checked_id`'s test, inlined: this runs for every line of the kind
                reset()
                update(b"{")
                update(line[REST:])
                if line[:start] != prefix or line[end:REST] != b'",' or \
                        hexdigest().encode() != line[start:end]:
                    raise _Unsure
                fields = decode(line)
                if fields.kind == kind:
                    offer(fields, position, line)
                    continue
            kept.append((position, _verified(line)))
    except msgspec.DecodeError:
        raise _Unsure from None


def _complete_lines(segment: Path) -> list[bytes]:
    """A JSONL segment's lines but a torn final one (never acknowledged), as
    `iter_segment_records` reads them."""
    try:
        data = segment.read_bytes()
    except OSError:
        raise _Unsure from None
    lines = data.split(b"\n")
    lines.pop()  # the bytes after the last newline: none, or a torn final line
    return lines


def _sealed_lines_all(segment: Path) -> list[bytes]:
    """A sealed segment's original lines in seq order, as `seal.iter_sealed_records` reads
    them (the same table, the same conversions)."""
    import pyarrow as pa

    from labledger.ledger.seal import _sorted_table

    try:
        texts = _sorted_table(segment, ["record"]).column("record").to_pylist()
    except (OSError, ValueError, KeyError, pa.ArrowException):
        raise _Unsure from None
    if not all(isinstance(text, str) for text in texts):
        raise _Unsure  # a null record: the ordinary read says what it says of it
    return [text.encode("utf-8") for text in texts]


def _checked_latest_plainly(writer_dir: Path, kind: str) -> list[Record]:
    """`_read_checked_latest` through `iter_writer_records`: its records, or its error."""
    latest = _Latest(first=True)
    kept: list[tuple[int, Record]] = []
    for position, record in enumerate(iter_writer_records(writer_dir)):
        if record.kind == kind:
            latest.offer(record, position, None)
        else:
            kept.append((position, record))
    for verified, position, _ in latest.chosen():
        assert isinstance(verified, Record)  # offered verified, above
        kept.append((position, verified))
    kept.sort(key=lambda item: item[0])
    return [record for _, record in kept]


def _read_latest(writer_dir: Path, kind: str) -> list[Record]:
    latest = _Latest()
    kept: list[tuple[int, Record]] = []  # verified records, with their positions
    unread: list[int] = []  # sealed rows of other kinds: verified once their lines are read
    sealed: dict[int, _SealedRows] = {}
    for index, segment in enumerate(list_segments(writer_dir)):
        base = index << _POSITION_BITS
        if segment.suffix == ".parquet":
            sealed[index] = _scan_sealed(segment, base, kind, latest, unread)
        else:
            _scan_jsonl(segment, base, kind, latest, kept)
    chosen = latest.chosen()
    lines = _sealed_lines(sealed, unread + [c[1] for c in chosen if c[2] is None])
    kept.extend((position, _verified(lines[position])) for position in unread)
    for key, position, line in chosen:
        record = _verified(line if line is not None else lines[position])
        assert isinstance(key, _Key)  # offered so, by the scans
        if not key.fields_of(record):  # a sealed column disagrees with its record
            raise _Unsure
        kept.append((position, record))
    kept.sort(key=lambda item: item[0])
    return [record for _, record in kept]


def _verified(line: bytes) -> Record:
    try:
        return verify_line(line)
    except RecordError:
        raise _Unsure from None


def _scan_jsonl(segment: Path, base: int, kind: str, latest: _Latest,
                kept: list[tuple[int, Record]]) -> None:
    """Offer each line of ``kind`` to ``latest``; verify and keep every other line. A torn
    final line (never acknowledged) is skipped, as `iter_segment_records` skips it."""
    try:
        data = segment.read_bytes()
    except OSError:
        raise _Unsure from None
    needle = f'"kind":"{kind}"'.encode()  # as msgspec's compact JSON writes it
    lines = data.split(b"\n")
    lines.pop()  # the bytes after the last newline: none, or a torn final line
    offer, position = latest.offer, base  # bound once: this loop runs for every line
    for line in lines:
        key = _key_of(line, kind) if needle in line else None
        if key is not None:
            offer(key, position, line)
        else:
            kept.append((position, _verified(line)))
        position += len(line) + 1


def _key_of(line: bytes, kind: str) -> _Key | None:
    """The key of a line of ``kind``; None for a line of another kind (the needle stood in its
    body) or one the pass cannot read (it is then verified like any other)."""
    try:
        key = _key_decoder.decode(line)
    except msgspec.DecodeError:
        return None
    return key if key.kind == kind else None


class _SealedRows(NamedTuple):
    """A sealed segment as the cheap pass opened it."""

    file: Any  # pyarrow.parquet.ParquetFile
    rows: list[int]  # per row in seq order, its row in the file


def _scan_sealed(segment: Path, base: int, kind: str, latest: _Latest,
                 unread: list[int]) -> _SealedRows:
    """`_scan_jsonl` for a sealed segment, from its columns, rows in seq order (as
    `seal.iter_sealed_records` reads them); the rows of other kinds go to ``unread``."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        file = pq.ParquetFile(segment)
        table = file.read(columns=_KEY_COLUMNS)
        order = pc.sort_indices(table, sort_keys=[("seq", "ascending")])  # stable, as sort_by
        columns = [table.column(name).take(order).to_pylist() for name in _KEY_COLUMNS]
        rows: list[int] = order.to_pylist()
    except (OSError, ValueError, KeyError, pa.ArrowException):
        raise _Unsure from None
    for index, (seq, ts, writer, row_kind, run, instance) in enumerate(zip(*columns,
                                                                             strict=True)):
        if row_kind == kind and isinstance(seq, int) and isinstance(ts, str) and \
                isinstance(writer, str):
            latest.offer(_Key(seq=seq, ts=ts, writer=writer, kind=row_kind, run=run,
                              instance=instance), base + index, None)
        else:  # another kind (or columns the key cannot hold): read and verified as usual
            unread.append(base + index)
    return _SealedRows(file, rows)


def _sealed_lines(sealed: dict[int, _SealedRows], positions: list[int]) -> dict[int, bytes]:
    """The original lines (the ``record`` column) of the sealed rows at ``positions``."""
    if not positions:  # no sealed segment: pyarrow stays unimported (a pre-commit hook)
        return {}
    import pyarrow as pa

    wanted: dict[int, list[int]] = {}
    for position in positions:
        wanted.setdefault(position >> _POSITION_BITS, []).append(position)
    out: dict[int, bytes] = {}
    for index, group in wanted.items():
        segment = sealed[index]
        try:
            texts = _record_column(segment.file, [segment.rows[p & _LOCAL] for p in group])
        except (OSError, ValueError, KeyError, pa.ArrowException):
            raise _Unsure from None
        if not all(isinstance(text, str) for text in texts):
            raise _Unsure  # a null record: the ordinary read says what it says of it
        out.update(zip(group, (text.encode("utf-8") for text in texts), strict=True))
    return out


def _record_column(file: Any, rows: list[int]) -> list[str]:
    """The ``record`` column at file ``rows`` of a Parquet file, in that order, read from the
    row groups that hold them only (a segment of heartbeats needs one or two)."""
    starts = [0]  # the first file row of each row group, then the row count
    for group in range(file.metadata.num_row_groups):
        starts.append(starts[-1] + file.metadata.row_group(group).num_rows)
    group_of = [bisect.bisect_right(starts, row) - 1 for row in rows]
    groups = sorted(set(group_of))
    first: dict[int, int] = {}  # row group -> its first row in the table read
    for group in groups:
        first[group] = sum(starts[g + 1] - starts[g] for g in groups if g < group)
    table = file.read_row_groups(groups, columns=["record"])
    taken = [first[g] + row - starts[g] for row, g in zip(rows, group_of, strict=True)]
    texts: list[str] = table.column("record").take(taken).to_pylist()
    return texts
