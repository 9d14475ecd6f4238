"""Reading a writer's records back in chain order, from open JSONL and sealed Parquet segments."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path

from labledger.ledger.errors import CorruptionError
from labledger.ledger.record import Record, RecordError, verify_line
from labledger.ledger.segment import iter_lines, list_segments, unreadable


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
    for segment in list_segments(writer_dir):
        yield from iter_segment_records(segment, kinds)
