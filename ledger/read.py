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
    needles = None if kinds is None else [f'"kind":"{k}"'.encode() for k in kinds]
    for offset, line, complete in _lines(segment):
        if not complete:
            return
        if needles is not None and not any(n in line for n in needles):
            continue
        try:
            record = verify_line(line)
        except RecordError as exc:
            raise CorruptionError(segment, None, offset, str(exc)) from None
        if kinds is None or record.kind in kinds:
            yield record


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
