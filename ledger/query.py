"""The read side: DuckDB in-process over every segment, read-only by construction.

Views are defined in ``ledger/sql/*.sql``, one per file, so a user can read exactly how each state
is derived; they build on ``raw_events``, the union of all JSONL and Parquet segments.

The guard is DuckDB's own sandbox, not string matching: the connection may read only the ledger's
segment folder (``allowed_directories``), all other file access and extension loading is off
(``enable_external_access=false``) and the configuration is locked. Because an allowed directory is
writable too, `run_query` also accepts only a single statement whose *parsed* type is SELECT or
EXPLAIN, so no query can copy a file into the ledger.

Damage is never silent (ARCHITECTURE "Recovery"), and never costs a hash per record per query:

* a sealed Parquet segment that is empty, cut short or unreadable makes `connect` raise
  `CorruptionError` naming it (no rows of it can be read, so no view would be right);
* a JSONL record DuckDB cannot read (bad bytes, a garbage line, a wrong type) is reported through
  ``on_damage`` with its segment and line, and the query still runs without it: a damaged ledger
  stays readable for the investigation. The one record that may be skipped quietly is a torn final
  line of a writer's open segment (a crash mid-append, never acknowledged).

`labledger check` is the full verification (hashes and chain); this module only makes sure a
query never answers from fewer records than the segments hold without saying so.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import msgspec

from labledger.ledger import _stamp_cache as stamp_cache
from labledger.ledger._words import counted
from labledger.ledger.altered import (
    SegmentReads,
    altered_records,
    matches_id,
    unreadable_why,
)
from labledger.ledger.errors import (
    CorruptionError,
    LedgerError,
    QueryRefusedError,
    unreadable_file,
)
from labledger.ledger.record import Record
from labledger.ledger.root import LedgerPaths
from labledger.ledger.segment import (
    iter_lines,
    last_full_line,
    list_segments,
    sealing_attempts,
    writer_dirs,
)

COLUMNS = {
    "id": "VARCHAR", "v": "INTEGER", "seq": "BIGINT", "prev": "VARCHAR", "ts": "VARCHAR",
    "writer": "VARCHAR", "actor": "VARCHAR", "kind": "VARCHAR", "run": "VARCHAR",
    "instance": "VARCHAR", "recorded": "VARCHAR", "body": "VARCHAR",
}
# Views in dependency order (runs counts from checkpoints; teardown_gate reads instances, runs'
# events and pull_verified); later issues add files here.
VIEWS = ["events", "checkpoints", "runs", "artifacts", "instances", "pulls", "verifications",
         "pull_verified", "claims", "teardown_gate"]
READ_ONLY_TYPES = {"SELECT", "EXPLAIN"}
MAX_RECORD_BYTES = 1048576
PARQUET_MAGIC = b"PAR1"
# A raw row that the events view would drop (id NULL) or that would break its casts: what
# read_json(ignore_errors=true) makes of a line it cannot read. Every envelope field but prev,
# run, instance, recorded and body is required (ledger/record.py Record).
_UNREADABLE = ("id IS NULL OR v IS NULL OR seq IS NULL OR ts IS NULL OR writer IS NULL "
               "OR actor IS NULL OR kind IS NULL OR TRY_CAST(ts AS TIMESTAMPTZ) IS NULL "
               "OR (recorded IS NOT NULL AND TRY_CAST(recorded AS TIMESTAMPTZ) IS NULL) "
               "OR (body IS NOT NULL AND TRY_CAST(body AS JSON) IS NULL)")
# Where the counts of `_UNREADABLE` rows are kept; renamed whenever `_UNREADABLE` changes, so
# counts made under an older rule are not trusted.
_UNREADABLE_CACHE = "unreadable-3.json"
_LINES_SHOWN = 3  # unreadable lines named per segment in a damage report
_QUOTED_PATH = re.compile(r"""['"]([^'"]+\.(?:parquet|jsonl))['"]""")

OnDamage = Callable[[str], None]
_T = TypeVar("_T")


class SegmentDamageWarning(UserWarning):
    """Records of a JSONL segment that cannot be read: every view is missing them.

    Issued by `connect` when its caller passes no ``on_damage`` callback (the Python API)."""


class QueryInputError(QueryRefusedError):
    """A query DuckDB cannot bind: an unknown view, column or function (bad input, exit 2).

    A subclass of `QueryRefusedError` so the CLI's exit-code table gives it exit 2 as it does
    every other refused query; its message says what failed rather than "refused"."""

    def __init__(self, problem: str) -> None:
        # DuckDB's text ends with the query line and a caret under the name: keep it as is
        LedgerError.__init__(self, f"query failed: {problem}\n(the views and their columns: "
                             "labledger sql \"select table_name, column_name from "
                             "information_schema.columns\")")
        self.why = problem


@dataclass(frozen=True)
class _Segments:
    """The segment files a connection reads. ``open`` holds each writer's last JSONL segment (the
    one appends go to); ``torn`` those of them whose final line is torn and unreadable: each may
    yield one unreadable row without it being damage."""

    jsonl: list[Path]
    parquet: list[Path]
    open: frozenset[Path]
    torn: frozenset[Path]


@dataclass(frozen=True)
class QueryResult:
    """What one query returned: column names, DuckDB types (same order) and rows."""

    columns: list[str]
    types: list[Any]
    rows: list[tuple[Any, ...]]

    def records(self) -> list[dict[str, Any]]:
        """The rows as JSON-ready objects (see `json_value`)."""
        return [{c: json_value(v, t) for c, v, t in zip(self.columns, row, self.types,
                                                         strict=True)}
                for row in self.rows]


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _file_list(files: list[Path]) -> str:
    return "[" + ", ".join(_sql_literal(str(f)) for f in files) + "]"


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().split("\n")[0]


# --- finding the segments and what may be wrong with them -----------------------------------------
def _has_unreadable_torn_tail(segment: Path, size: int) -> bool:
    """Whether the bytes after the last newline of ``segment`` are there and do not parse as a
    record (so read_json yields one unreadable row for them)."""
    try:
        with open(segment, "rb") as fh:
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return False
            _, end = last_full_line(fh.fileno(), size)
            tail = os.pread(fh.fileno(), size - end, end)
    except FileNotFoundError:  # sealed away by compact since the listing: listed again
        raise CorruptionError(segment, None, None, "it cannot be read (it is gone)") from None
    except OSError as exc:
        raise unreadable_file(segment, exc) from None
    try:
        msgspec.json.decode(tail, type=Record)
    except msgspec.DecodeError:
        return True
    return False


def _parquet_problem(segment: Path, size: int) -> str | None:
    """Why a sealed segment cannot be a Parquet file, judged from its ends alone (cheap)."""
    if size == 0:
        return "sealed segment is empty (0 bytes; a sealed segment always holds records)"
    with open(segment, "rb") as fh:
        head = fh.read(4)
        fh.seek(max(size - 8, 0))
        end = fh.read(8)
    if size < 12 or head != PARQUET_MAGIC or end[4:] != PARQUET_MAGIC:
        return "sealed segment is cut short or overwritten (no Parquet header or footer)"
    if int.from_bytes(end[:4], "little") > size - 12:
        return "sealed segment is cut short (its footer is longer than the file)"
    return None


def _find_segments(paths: LedgerPaths) -> _Segments:
    """Every segment of every writer; raises `CorruptionError` for a sealed one that cannot be
    Parquet. An empty JSONL segment is skipped: a freshly opened segment holds nothing yet."""
    jsonl: list[Path] = []
    parquet: list[Path] = []
    opened: set[Path] = set()
    torn: set[Path] = set()
    root = paths.segments
    writer_dirs = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for writer_dir in writer_dirs:
        try:
            segments = list_segments(writer_dir)
        except OSError as exc:
            raise unreadable_file(writer_dir, exc, "list its segments") from None
        for segment in segments:
            try:
                size = segment.stat().st_size
            except FileNotFoundError:  # sealed away by compact since the listing: listed again
                raise CorruptionError(segment, None, None,
                                      "it cannot be read (it is gone)") from None
            if segment.suffix == ".parquet":
                problem = _parquet_problem(segment, size)
                if problem is not None:
                    raise CorruptionError(segment, None, None, problem)
                parquet.append(segment)
            elif size:
                jsonl.append(segment)
                # only the open (last) segment may end torn; anywhere else it is damage
                if segment == segments[-1]:
                    opened.add(segment)
                    if _has_unreadable_torn_tail(segment, size):
                        torn.add(segment)
    return _Segments(jsonl, parquet, frozenset(opened), frozenset(torn))


def _read_json_sql(files: list[Path], *, filename: bool = False) -> str:
    pairs = ", ".join(f"{_sql_literal(k)}: {_sql_literal(v)}" for k, v in COLUMNS.items())
    # ignore_errors: a line DuckDB cannot read becomes a row of NULLs instead of failing every
    # query; `_unreadable_rows` counts those rows so that none goes unreported.
    return (f"read_json({_file_list(files)}, columns={{{pairs}}}, format='newline_delimited', "
            f"ignore_errors=true, maximum_object_size={MAX_RECORD_BYTES}"
            + (", filename=true)" if filename else ")"))


def _raw_events_sql(segments: _Segments) -> str:
    names = ", ".join(COLUMNS)
    parts = []
    if segments.jsonl:
        parts.append(f"SELECT {names} FROM {_read_json_sql(segments.jsonl)}")
    if segments.parquet:
        parts.append(f"SELECT {names} FROM read_parquet({_file_list(segments.parquet)})")
    if not parts:
        empty = ", ".join(f"CAST(NULL AS {t}) AS {k}" for k, t in COLUMNS.items())
        parts.append(f"SELECT {empty} WHERE false")
    return "CREATE OR REPLACE VIEW raw_events AS " + " UNION ALL ".join(parts)


def _check_sealed_rows(con: duckdb.DuckDBPyConnection, parquet: list[Path]) -> None:
    """Raise `CorruptionError` for a sealed segment that is valid Parquet but holds no rows
    (footers only: DuckDB has just read them to bind ``raw_events``)."""
    if not parquet:
        return
    for name, count in con.execute(f"SELECT file_name, num_rows FROM "
                                   f"parquet_file_metadata({_file_list(parquet)})").fetchall():
        if not count:
            raise CorruptionError(Path(name), None, None,
                                  "sealed segment holds no records (a sealed segment never is "
                                  "empty)")


def _blame_sealed(con: duckdb.DuckDBPyConnection, parquet: list[Path]) -> CorruptionError | None:
    """The first sealed segment whose metadata DuckDB cannot read, as an error naming it. A slow
    path for a failure whose message names no file (DuckDB cuts long file lists short)."""
    for segment in parquet:
        try:
            con.execute(f"SELECT num_rows FROM parquet_file_metadata({_file_list([segment])})")
        except duckdb.Error as exc:
            return CorruptionError(segment, None, None,
                                   f"sealed segment cannot be read ({_first_line(exc)})")
    return None


def _unreadable_rows(con: duckdb.DuckDBPyConnection, segments: _Segments,
                     cache: Path | None = None, reads: SegmentReads | None = None
                     ) -> dict[Path, int]:
    """Per JSONL segment, how many of its lines read_json could not read, a torn final line of
    an open segment excepted. One scan of the JSONL that skips every readable row; no hashing.

    Why a scan at connect and not a check inside the query: every reader (sql, log, instances,
    the Python API) gets it, and it costs one parse of the JSONL envelope (body is not read;
    Parquet segments are not scanned). What was counted is kept in ``cache`` (a JSON file), so
    a read scans only what changed since (`_known_count`): a closed segment never changes (it
    is read-only), and an open one only grows."""
    if not segments.jsonl:
        return {}
    reads = reads if reads is not None else SegmentReads(segments.open)
    known = stamp_cache.load(cache, 6)
    kept: dict[str, list[int]] = {}
    bad: dict[Path, int] = {}
    todo: list[Path] = []
    snapshots: dict[Path, list[int]] = {}  # open segments scanned whole: what was read before
    for segment in segments.jsonl:
        is_open = segment in segments.open
        try:
            st = segment.stat()
        except FileNotFoundError:  # sealed away by compact since the listing: listed again
            if is_open:
                todo.append(segment)  # the scan names it (and the read is retried)
                continue
            raise CorruptionError(segment, None, None, "it cannot be read (it is gone)") from None
        stamp = [st.st_ino, st.st_size, st.st_mtime_ns]
        entry = _known_count(segment, stamp, known.get(str(segment)), is_open, reads)
        if entry is not None:
            kept[str(segment)] = entry
            bad[segment] = entry[3]
            continue
        todo.append(segment)
        if is_open:
            snapshot = _open_snapshot(segment, stamp, reads)
            if snapshot is not None:
                snapshots[segment] = snapshot
        else:
            kept[str(segment)] = [*stamp, 0, st.st_size, 0]
    if todo:
        for segment in todo:
            bad.setdefault(segment, 0)
        found = con.execute(f"SELECT filename, count(*) FROM "
                            f"{_read_json_sql(todo, filename=True)} "
                            f"WHERE {_UNREADABLE} GROUP BY filename").fetchall()
        for name, count in found:
            path = Path(name)
            bad[path] = count - (path in segments.torn)
            if str(path) in kept:
                kept[str(path)][3] = count
        for segment, snapshot in snapshots.items():
            snapshot[3] = max(0, bad.get(segment, 0))  # the complete lines' count
            kept[str(segment)] = snapshot
    if cache is not None and kept != {k: v for k, v in known.items() if k in kept}:
        stamp_cache.save(cache, kept)
    return {path: count for path, count in sorted(bad.items()) if count > 0}


# An open segment's lines appended since its last count are checked here, in Python, up to this
# much (a hash per line, ~4 us); more than that (a bulk ingest) is one DuckDB scan of the file.
_TAIL_CHECK_MAX = 8 * 1024 * 1024


def _known_count(segment: Path, stamp: list[int], entry: list[int] | None,
                 is_open: bool, reads: SegmentReads) -> list[int] | None:
    """The cache entry that still holds for ``segment`` (``[ino, size, mtime, unreadable,
    counted up to, digest of the bytes before]``), brought up to date, or None to scan it.

    A closed segment's entry holds while its stamp does. An open segment only grows: its
    entry holds while the bytes it counted are unchanged (64 bits of their BLAKE3) and every
    complete line appended since matches its id: a line that does was written by a writer
    that validated it, so read_json reads it. Any other line (damage, a hand-written record)
    sends the whole segment back to the scan, which counts what DuckDB really refuses."""
    if entry is None or entry[0] != stamp[0]:
        return None
    if not is_open:
        return entry if entry[:3] == stamp else None
    if entry[:3] == stamp:
        return entry
    counted = entry[4]
    if not 0 <= counted <= stamp[1] or stamp[1] - counted > _TAIL_CHECK_MAX:
        return None
    try:
        data = reads.data(segment)
    except OSError:
        return None
    if len(data) < counted or reads.digest(segment, data, counted) != entry[5]:
        return None
    end = _complete_lines_end(data, counted)
    if end is None:
        return None
    return [stamp[0], len(data), stamp[2], entry[3], end, reads.digest(segment, data, end)]


def _complete_lines_end(data: bytes, start: int) -> int | None:
    """The offset after the last complete line of ``data`` from ``start``, when every complete
    line there matches its id; None when one does not."""
    offset = start
    while True:
        nl = data.find(b"\n", offset)
        if nl < 0:
            return offset  # what follows is torn, or being appended now: not counted yet
        if not matches_id(data, offset, nl):
            return None
        offset = nl + 1


def _open_snapshot(segment: Path, stamp: list[int], reads: SegmentReads) -> list[int] | None:
    """An open segment's entry as read before its scan (the scan reads at least these bytes:
    the segment only grows), its count to be filled in from the scan; None if unreadable."""
    try:
        data = reads.data(segment)
    except OSError:
        return None
    end = data.rfind(b"\n") + 1
    return [stamp[0], len(data), stamp[2], 0, end, reads.digest(segment, data, end)]


def _unreadable_lines(segment: Path, is_open: bool) -> list[str]:
    """Where the unreadable lines of a JSONL segment are, for the report: a slow path (a parse
    of every line, no hashing) that runs only once the scan has found some. The final line of an
    open segment is skipped when it is torn: an append may be writing it right now."""
    where: list[str] = []
    for number, (offset, line, complete) in enumerate(iter_lines(segment), start=1):
        if not complete and is_open:
            break
        why = unreadable_why(line) if complete else "torn record inside a closed segment"
        if why is None:
            why = _body_unreadable(line)
        if why is not None:
            where.append(f"line {number} (byte {offset}): {why}")
    return where


def _body_unreadable(line: bytes) -> str | None:
    """Why DuckDB cannot read the body of a record line that otherwise reads: a body that is
    a JSON string whose text is not JSON itself (the reader hands a string's text over as the
    JSON column), or None. The slow-path twin of the body clause of `_UNREADABLE`."""
    try:
        body = bytes(msgspec.json.decode(line, type=Record).body)
        if not body.startswith(b'"'):
            return None
        json.loads(msgspec.json.decode(body))
    except (msgspec.DecodeError, ValueError):
        return "its body is a string, not a JSON object"
    return None


def damage_report(segment: Path, count: int, is_open: bool) -> str | None:
    """The message for a segment with ``count`` unreadable rows (from the scan), or None when a
    second look finds only the torn tail of an open segment (one an append just completed)."""
    lines = _unreadable_lines(segment, is_open)
    if not lines and is_open and count == 1:
        return None
    shown = "; ".join(lines[:_LINES_SHOWN])
    if len(lines) > _LINES_SHOWN:
        shown += f"; and {len(lines) - _LINES_SHOWN} more"
    # DuckDB reads stricter than the slow path (invalid UTF-8 deep inside a body): its count
    # is the floor, and lines it refused that the slow path cannot place are said to exist
    total = max(count, len(lines))
    if total > len(lines):
        shown += ("; " if shown else "") + f"{total - len(lines)} more not located by line"
    one = total == 1
    return (f"ledger segment {segment} is damaged: {counted(total, 'record')} cannot be "
            f"read and {'is' if one else 'are'} missing from every view"
            + (f" ({shown})" if shown else "")
            + f"; results that depend on {'it' if one else 'them'} are wrong. "
            "Run `labledger check` for a full report")


def _report_damage(damaged: dict[Path, int], segments: _Segments,
                   on_damage: OnDamage | None) -> None:
    for segment, count in damaged.items():
        message = damage_report(segment, count, segment in segments.open)
        if message is not None:
            _warn(message, on_damage)


def _warn(message: str, on_damage: OnDamage | None, stacklevel: int = 4) -> None:
    """Report damage to ``on_damage``, else as a warning attributed to connect's caller."""
    if on_damage is None:
        warnings.warn(message, SegmentDamageWarning, stacklevel=stacklevel)
    else:
        on_damage(message)


# --- connecting and querying ----------------------------------------------------------------------
def view_sql(name: str) -> str:
    return resources.files("labledger.ledger.sql").joinpath(f"{name}.sql").read_text("utf-8")


def read_error(exc: duckdb.Error, paths: LedgerPaths, what: str = "query failed",
               hint: str = "") -> BaseException:
    """The error to raise for a DuckDB failure while reading the ledger.

    A failure naming a segment file is damage (`CorruptionError`, exit 1); an interrupt is
    `KeyboardInterrupt` (exit 130); a file outside the sandbox is refused and an unknown name is
    bad input (exit 2); anything else (out of memory, a failed cast) is ``what`` failing (exit 1),
    with ``hint`` appended to the message.
    """
    if isinstance(exc, duckdb.InterruptException):
        return KeyboardInterrupt()
    root = str(paths.segments)
    for match in _QUOTED_PATH.finditer(str(exc)):
        if match.group(1).startswith(root + os.sep):
            return CorruptionError(Path(match.group(1)), None, None,
                                   f"it cannot be read ({_first_line(exc)})")
    if isinstance(exc, duckdb.PermissionException):
        return QueryRefusedError(_first_line(exc))
    if isinstance(exc, duckdb.BinderException | duckdb.CatalogException |
                  duckdb.ParserException):
        return QueryInputError(str(exc).strip())
    return LedgerError(f"{what}: {str(exc).strip()}{hint}")


def connect(paths: LedgerPaths, *, on_damage: OnDamage | None = None
            ) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the ledger's views, sandboxed to the ledger.

    Raises `CorruptionError` when a sealed segment cannot be read. Unreadable JSONL records are
    reported to ``on_damage`` (a `SegmentDamageWarning` without one) before it returns.
    """
    segments = _find_segments(paths)
    con = duckdb.connect(":memory:", config={
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    })
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(f"SET allowed_directories = [{_sql_literal(str(paths.segments) + '/')}]")
        con.execute("SET enable_external_access = false")
        cache = paths.home / "cache" / "query"
        reads = SegmentReads(segments.open)  # the open segments, read and hashed once
        try:
            con.execute(_raw_events_sql(segments))
            _check_sealed_rows(con, segments.parquet)
            damaged = _unreadable_rows(con, segments, cache / _UNREADABLE_CACHE, reads)
            # binding a view lists the segment files again: inside the try, so a segment that
            # compact sealed away meanwhile is a retry (`_moved_away`), not a crash
            for name in VIEWS:
                con.execute(view_sql(name))
        except duckdb.Error as exc:
            error = read_error(exc, paths, "cannot read the ledger", "; run `labledger check`")
            raise _blame_sealed(con, segments.parquet) or error from None
        con.execute("SET lock_configuration = true")
        altered = altered_records(segments.jsonl, segments.open, cache / "altered.json", reads)
        del reads  # the open segments' bytes: not held while the query runs
    except BaseException:
        con.close()
        raise
    _report_damage(damaged, segments, on_damage)
    for segment, found in altered.items():
        _warn(found.message(segment), on_damage, stacklevel=3)
    return con


def _statements(query: str) -> list[Any]:
    try:
        return list(duckdb.extract_statements(query))
    except duckdb.Error as exc:
        raise QueryRefusedError(f"it does not parse ({_first_line(exc)})") from None


def check_read_only(query: str) -> None:
    """Refuse anything but SELECT/EXPLAIN statements, judged by DuckDB's own parser."""
    statements = _statements(query)
    if not statements:
        raise QueryRefusedError("it is empty")
    for statement in statements:
        kind = str(statement.type).rsplit(".", 1)[-1]
        if kind not in READ_ONLY_TYPES:
            article = "an" if kind[:1] in "AEIOU" else "a"
            raise QueryRefusedError(f"it contains {article} {kind} statement")


def check_single_statement(query: str) -> None:
    """Refuse several statements: only the last one's rows would be shown, the others' lost."""
    count = len(_statements(query))
    if count > 1:
        raise QueryRefusedError(f"it holds {count} statements; run one query at a time (a "
                                "single trailing semicolon is fine)")


def execute_query(paths: LedgerPaths, query: str, *, on_damage: OnDamage | None = None
                  ) -> QueryResult:
    """Run one read-only query (see `check_read_only`, `check_single_statement`)."""
    check_read_only(query)
    check_single_statement(query)

    def run(con: duckdb.DuckDBPyConnection) -> QueryResult:
        result = con.execute(query)
        description = result.description or []
        return QueryResult([d[0] for d in description], [d[1] for d in description],
                           result.fetchall())

    return read_retrying(paths, run, on_damage=on_damage)


def read_retrying(paths: LedgerPaths, read: Callable[[duckdb.DuckDBPyConnection], _T], *,
                  on_damage: OnDamage | None = None, what: str = "query failed",
                  hint: str = "") -> _T:
    """``read(con)`` on a fresh `connect`, started again when a segment it listed was sealed
    away meanwhile (`_moved_away`; `segment.sealing_attempts`: the last attempt holds sealing
    off); a DuckDB failure is raised as `read_error` makes it (``what`` and ``hint`` word it)."""
    for last in sealing_attempts(lambda: writer_dirs(paths.segments)):
        con = _connect_or_retry(paths, on_damage, last)
        if con is None:
            continue
        try:
            return read(con)
        except duckdb.Error as exc:
            error = read_error(exc, paths, what, hint)
            if not last and _moved_away(error):
                continue
            raise error from None
        finally:
            con.close()
    raise AssertionError("unreachable")  # the last attempt returns or raises


def connect_retrying(paths: LedgerPaths, *, on_damage: OnDamage | None = None
                     ) -> duckdb.DuckDBPyConnection:
    """`connect`, made again from a fresh listing when a segment it listed was sealed away
    meanwhile, as `read_retrying` does. The connection's views then name the segment files
    listed: a JSONL segment sealed away later fails a later query of it (`read_retrying`
    re-runs one)."""
    for last in sealing_attempts(lambda: writer_dirs(paths.segments)):
        con = _connect_or_retry(paths, on_damage, last)
        if con is not None:
            return con
    raise AssertionError("unreachable")  # the last attempt returns or raises


def _connect_or_retry(paths: LedgerPaths, on_damage: OnDamage | None, last: bool
                      ) -> duckdb.DuckDBPyConnection | None:
    """`connect`, or None when a listed segment was sealed away meanwhile and this is not the
    last attempt (list again)."""
    try:
        return connect(paths, on_damage=on_damage)
    except CorruptionError as exc:
        if not last and _moved_away(exc):
            return None
        raise


def _moved_away(error: BaseException) -> bool:
    """Whether ``error`` names a segment that no longer exists: `compact` sealed it (and
    removed the JSONL) between listing the segments and reading them. Not damage: list the
    segments again and read once more."""
    return isinstance(error, CorruptionError) and not error.segment.exists()


def run_query(paths: LedgerPaths, query: str, *, on_damage: OnDamage | None = None
              ) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run a read-only query; returns (column names, rows)."""
    result = execute_query(paths, query, on_damage=on_damage)
    return result.columns, result.rows


# --- JSON output ----------------------------------------------------------------------------------
def _finite(value: Any) -> Any:
    """``value`` with NaN and ±Infinity replaced by None, at any depth (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def json_value(value: Any, kind: Any) -> Any:
    """A DuckDB value of type ``kind`` as plain JSON data.

    JSON-typed values (``body``, ``body->'x'``, `to_json`, ...) arrive as JSON text and are parsed,
    also inside lists, structs and maps; NaN and ±Infinity, which JSON cannot express, become
    None. Other values are returned as they are (the renderer formats times and decimals).
    """
    if value is None or kind is None:
        return _finite(value)
    if str(kind) == "JSON" and isinstance(value, str):
        try:
            return _finite(json.loads(value))
        except ValueError:  # not JSON after all: keep the text rather than lose it
            return value
    children = kind.children if kind.id in ("list", "array", "struct", "map") else []
    if kind.id in ("list", "array") and isinstance(value, list | tuple):
        return [json_value(v, children[0][1]) for v in value]
    if kind.id == "struct" and isinstance(value, dict):
        fields = dict(children)
        return {k: json_value(v, fields.get(k)) for k, v in value.items()}
    if kind.id == "map" and isinstance(value, dict):
        return {k: json_value(v, children[1][1]) for k, v in value.items()}
    return _finite(value)
