"""Reading a writer's records back in chain order, from open JSONL and sealed Parquet segments."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from labledger.ledger.errors import CorruptionError
from labledger.ledger.record import Record, RecordError, verify_line
from labledger.ledger.segment import iter_lines, list_segments


def iter_segment_records(segment: Path) -> Iterator[Record]:
    """Verified records of one segment; a torn final line (never acknowledged) is skipped."""
    if segment.suffix == ".parquet":
        from labledger.ledger.seal import iter_sealed_records

        yield from iter_sealed_records(segment)
        return
    for offset, line, complete in iter_lines(segment):
        if not complete:
            return
        try:
            yield verify_line(line)
        except RecordError as exc:
            raise CorruptionError(segment, None, offset, str(exc)) from None


def iter_writer_records(writer_dir: Path) -> Iterator[Record]:
    for segment in list_segments(writer_dir):
        yield from iter_segment_records(segment)
