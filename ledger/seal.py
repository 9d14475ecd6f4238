"""Sealing closed segments to Parquet, and reading sealed segments back.

A sealed segment holds the same records as the JSONL it replaces: typed envelope columns for
queries, ``body`` as JSON text, and ``record``, the exact original line, so `check` re-verifies
every id and the chain byte for byte. Rows are sorted by (run, seq): a one-run filter reads few
row groups; chain order is restored by sorting on ``seq``.

Sealing is crash-safe: the Parquet file is written to a temp name, fsynced, renamed, and the
directory fsynced before the JSONL is removed. A crash in between leaves both files; readers prefer
the Parquet (`list_segments`), which was complete before its rename, and the next seal removes the
leftover read-only JSONL (no append can reach a closed segment).

Imports pyarrow: never on the `emit` path.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path

import msgspec
import pyarrow as pa
import pyarrow.parquet as pq

from labledger.ledger.durable import sync_file
from labledger.ledger.errors import CorruptionError, LedgerError
from labledger.ledger.record import Record, RecordError, verify_line
from labledger.ledger.root import LedgerPaths, fsync_dir
from labledger.ledger.segment import iter_lines, list_segments

TYPE_CHECKING = False
if TYPE_CHECKING:
    from labledger.ledger.check import Finding

SCHEMA = pa.schema([
    ("id", pa.string()), ("v", pa.int32()), ("seq", pa.int64()), ("prev", pa.string()),
    ("ts", pa.string()), ("writer", pa.string()), ("actor", pa.string()), ("kind", pa.string()),
    ("run", pa.string()), ("instance", pa.string()), ("recorded", pa.string()),
    ("body", pa.string()), ("record", pa.string()),
])


def _verified_lines(segment: Path) -> list[tuple[Record, bytes]]:
    out: list[tuple[Record, bytes]] = []
    expected_seq = int(segment.stem)
    prev: str | None = None
    for offset, line, complete in iter_lines(segment):
        if not complete:
            raise CorruptionError(segment, None, offset, "closed segment ends in a torn record")
        try:
            record = verify_line(line)
        except RecordError as exc:
            raise CorruptionError(segment, None, offset, str(exc)) from None
        if record.seq != expected_seq or (out and record.prev != prev):
            raise CorruptionError(segment, record.seq, offset, "chain broken while sealing")
        out.append((record, line))
        expected_seq, prev = record.seq + 1, record.id
    return out


def seal_segment(segment: Path) -> Path | None:
    """Replace a closed JSONL segment by a Parquet one; returns its path (None if empty)."""
    rows = _verified_lines(segment)
    target = segment.with_suffix(".parquet")
    if not rows:
        segment.unlink()
        fsync_dir(segment.parent)
        return None
    rows.sort(key=lambda item: (item[0].run or "", item[0].seq))
    columns: dict[str, list[object]] = {name: [] for name in SCHEMA.names}
    for record, line in rows:
        for name in ("id", "v", "seq", "prev", "ts", "writer", "actor", "kind", "run",
                     "instance", "recorded"):
            columns[name].append(getattr(record, name))
        columns["body"].append(bytes(record.body).decode("utf-8"))
        columns["record"].append(line.decode("utf-8"))
    table = pa.table(columns, schema=SCHEMA)
    tmp = segment.with_suffix(".parquet.tmp")
    try:
        pq.write_table(table, tmp, compression="zstd", row_group_size=128 * 1024)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            sync_file(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, 0o444)
        os.replace(tmp, target)
        fsync_dir(segment.parent)
    except OSError as exc:  # a full disk, a quota: the JSONL segment is untouched and still read
        tmp.unlink(missing_ok=True)
        raise LedgerError(f"cannot seal {segment}: {exc.strerror or exc}; the JSONL segment is "
                          "kept and still read, nothing was lost (run `labledger compact` again "
                          "when there is room)") from None
    segment.unlink()
    fsync_dir(segment.parent)
    return target


def _sorted_table(segment: Path, columns: list[str] | None = None) -> pa.Table:
    """The segment's rows in chain (seq) order, with at least ``columns`` and ``seq``."""
    wanted = None if columns is None else sorted(set(columns) | {"seq"})
    return pq.read_table(segment, columns=wanted).sort_by("seq")


def last_of_sealed(segment: Path) -> tuple[int, str]:
    table = _sorted_table(segment, ["seq", "id"])
    if table.num_rows == 0:
        raise CorruptionError(segment, None, None, "sealed segment is empty")
    return int(table["seq"][-1].as_py()), str(table["id"][-1].as_py())


def iter_sealed_records(segment: Path, kinds: Collection[str] | None = None
                        ) -> Iterator[Record]:
    """Records of a sealed segment in seq order (only ``kinds``, when given), each re-verified
    from its original line."""
    try:
        table = _sorted_table(segment, ["record"] if kinds is None else ["record", "kind"])
    except (OSError, pa.ArrowException) as exc:
        raise CorruptionError(segment, None, None, f"unreadable Parquet ({exc})") from None
    wanted = None if kinds is None else table.column("kind").to_pylist()
    for index, text in enumerate(table.column("record").to_pylist()):
        if wanted is not None and wanted[index] not in kinds:  # type: ignore[operator]
            continue
        try:
            yield verify_line(sealed_line(text))
        except RecordError as exc:
            seq = table.column("seq")[index].as_py()
            raise CorruptionError(segment, seq if isinstance(seq, int) else None, None,
                                  f"row {index}: {exc}") from None


def sealed_line(text: str | None) -> bytes:
    """A sealed row's ``record`` cell as the line it was sealed from; a null cell (a tool
    rewrote the file) holds no record to verify: `RecordError`."""
    if not isinstance(text, str):
        raise RecordError("the record cell is null: no record to verify")
    return text.encode("utf-8")


def sealed_columns_match(segment: Path) -> list[str]:
    """Problems where a sealed row's typed columns disagree with its verified record."""
    table = _sorted_table(segment)
    problems = []
    names = ["id", "v", "seq", "prev", "ts", "writer", "actor", "kind", "run", "instance",
             "recorded"]
    for row in table.to_pylist():
        try:
            record = verify_line(sealed_line(row["record"]))
        except RecordError:
            continue  # reported by the record check
        for name in names:
            if row[name] != getattr(record, name):
                problems.append(f"seq {record.seq}: column {name} disagrees with the record")
        if msgspec.json.decode(row["body"]) != msgspec.json.decode(record.body):
            problems.append(f"seq {record.seq}: column body disagrees with the record")
    return problems


def seal_writer(writer_dir: Path, *, close_open: bool,
                left_open: list[Finding] | None = None) -> list[Path]:
    """Seal this writer's closed segments (and close the open one first if asked).

    Closing is final (a closed segment is never cut again), so an open segment that ends in a
    torn append or an unfinished batch, or holds a record that does not verify
    (`check.closing_problem`), stays open even when asked: the next append cuts a torn tail
    (keeping a copy); closed, it would be corruption, or never-acknowledged records sealed as
    history. The reason is added to ``left_open``. Judged under the writer's lock, so no
    append is caught mid-write."""
    sealed: list[Path] = []
    lock_fd = os.open(writer_dir / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)  # appenders of this writer wait; others go on
        # A crash between rename and unlink last time leaves both files; `list_segments` hides the
        # JSONL behind its Parquet (complete before its rename), so remove it here.
        for leftover in sorted(writer_dir.glob("*.jsonl")):
            if (leftover.with_suffix(".parquet").exists()
                    and not leftover.stat().st_mode & stat.S_IWUSR):
                leftover.unlink()
                fsync_dir(writer_dir)
        segments = list_segments(writer_dir)
        if close_open and segments and segments[-1].suffix == ".jsonl" and \
                segments[-1].stat().st_mode & stat.S_IWUSR:
            from labledger.ledger.check import closing_problem

            problem = closing_problem(segments[-1])
            if problem is not None:
                close_open = False
                if left_open is not None:
                    left_open.append(problem)
        for segment in segments:
            if segment.suffix != ".jsonl":
                continue
            writable = segment.stat().st_mode & stat.S_IWUSR
            if writable and not (close_open and segment == segments[-1]):
                continue
            if writable:
                os.chmod(segment, 0o444)
            result = seal_segment(segment)
            if result is not None:
                sealed.append(result)
        for stray in writer_dir.glob("*.parquet.tmp"):
            stray.unlink()
    finally:
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        os.close(lock_fd)
    return sealed


def compact(paths: LedgerPaths, *, close_open: bool = True,
            left_open: list[Finding] | None = None) -> list[Path]:
    """Seal every writer's closed segments; with ``close_open`` the open ones too, except
    those that must stay open (see `seal_writer`; why, in ``left_open``)."""
    sealed: list[Path] = []
    if not paths.segments.is_dir():
        return sealed
    for writer_dir in sorted(p for p in paths.segments.iterdir() if p.is_dir()):
        sealed.extend(seal_writer(writer_dir, close_open=close_open, left_open=left_open))
    return sealed
