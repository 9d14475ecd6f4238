"""Damaged segments on the read side: never a traceback, never a silently smaller answer.

Real ledgers, real segment files damaged the way disks and people damage them: a sealed Parquet
segment cut short, emptied, or rewritten without rows (`connect` refuses: exit 1 naming the
segment); a JSONL record with a bad byte, a garbage line, a wrong type, a torn record inside a
closed segment (reported with segment and line, the query still runs); and the one thing that may
be skipped quietly, a torn final line of the open segment.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

from labledger.ledger.errors import CorruptionError, LedgerError, QueryRefusedError
from labledger.ledger.ledger import Ledger
from labledger.ledger.query import (
    QueryInputError,
    SegmentDamageWarning,
    connect,
    read_error,
    run_query,
)
from labledger.ledger.seal import compact
from tests.conftest import cli_call as cli


def sealed_ledger(ledger: Ledger, n: int = 3) -> Path:
    """``n`` notes sealed into one Parquet segment, made writable again (as a user could)."""
    for i in range(n):
        ledger.append("note", text=f"n{i}")
    (segment,) = compact(ledger.paths)
    segment.chmod(0o644)
    return segment


def open_segment(ledger: Ledger) -> Path:
    (segment,) = sorted(ledger.paths.segments.glob("*/*.jsonl"))
    return segment


def run_launched_then_exited(ledger: Ledger) -> Path:
    ledger.append("run.launched", run="r1", command=["python"])
    ledger.append("run.exited", run="r1", exit_code=0)
    ledger.append("note", text="after")
    return open_segment(ledger)


def rewrite(segment: Path, old: bytes, new: bytes) -> None:
    data = segment.read_bytes()
    assert old in data
    segment.chmod(0o644)
    segment.write_bytes(data.replace(old, new, 1))


def assert_refused_by_damage(capsys: pytest.CaptureFixture[str], segment: Path) -> None:
    """`sql`, `log` and `instances` exit 1 naming the segment, with and without --json."""
    for args in (["sql", "select count(*) from events"], ["log"], ["instances"]):
        code, out, err = cli(capsys, *args)
        assert (code, out) == (1, ""), (args, err)
        assert str(segment) in err, (args, err)
        assert "labledger check" in err
        assert "Traceback" not in err
        code, out, err = cli(capsys, "--json", *args)
        last = json.loads(err.strip().splitlines()[-1])
        assert (code, last["type"], last["code"]) == (1, "exit_error", 1), (args, err)
        assert last["error"] == "CorruptionError"
        assert last["segment"] == str(segment)


# --- sealed segments: the read fails, naming the segment ----------------------------------------
def test_a_truncated_parquet_segment_fails_every_read_cleanly(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    segment = sealed_ledger(ledger)
    with open(segment, "r+b") as fh:
        fh.truncate(segment.stat().st_size - 100)
    assert_refused_by_damage(capsys, segment)
    with pytest.raises(CorruptionError, match="cut short"):
        ledger.query()


def test_an_empty_parquet_segment_is_damage_not_an_empty_ledger(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    segment = sealed_ledger(ledger)
    segment.write_bytes(b"")
    assert_refused_by_damage(capsys, segment)
    with pytest.raises(CorruptionError, match="empty"):
        run_query(ledger.paths, "select count(*) from events")


def test_a_parquet_segment_without_rows_is_damage(ledger: Ledger) -> None:
    segment = sealed_ledger(ledger)
    table = pq.read_table(segment)
    pq.write_table(table.slice(0, 0), segment)
    with pytest.raises(CorruptionError, match="holds no records") as info:
        run_query(ledger.paths, "select count(*) from events")
    assert info.value.segment == segment


def test_a_parquet_segment_with_a_damaged_footer_is_named(ledger: Ledger) -> None:
    """The ends still say PAR1 but the metadata between them is garbage: DuckDB's own error,
    mapped to the segment it names."""
    segment = sealed_ledger(ledger)
    data = bytearray(segment.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    data[-8 - footer:-8] = b"\x07" * footer
    segment.write_bytes(bytes(data))
    with pytest.raises(CorruptionError) as info:
        run_query(ledger.paths, "select count(*) from events")
    assert info.value.segment == segment
    assert "labledger check" in str(info.value)


def test_a_healthy_sealed_ledger_reads_without_a_word(ledger: Ledger) -> None:
    sealed_ledger(ledger, n=5)
    ledger.append("note", text="open")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert run_query(ledger.paths, "select count(*) from events")[1] == [(6,)]


# --- JSONL records: reported with segment and line, the read goes on ----------------------------
def test_a_bad_byte_in_a_record_is_reported_not_dropped_silently(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    segment = run_launched_then_exited(ledger)
    rewrite(segment, b"run.exited", b"run.exit\xffd")
    code, out, err = cli(capsys, "sql", "select run, state from runs")
    assert code == 0
    assert "launched" in out  # the projection without the record, as the warning says
    assert (f"ledger segment {segment} is damaged: 1 record cannot be read and is missing "
            "from every view") in err
    assert "results that depend on it are wrong" in err
    assert "line 2 (byte " in err
    assert "labledger check" in err
    code, out, err = cli(capsys, "--json", "log")
    assert code == 0
    assert len(out.splitlines()) == 2
    assert "line 2" in err
    assert "Traceback" not in err


def test_the_python_api_warns_with_a_segment_damage_warning(ledger: Ledger) -> None:
    segment = run_launched_then_exited(ledger)
    rewrite(segment, b'"seq":1,', b'"seq":"one",')
    with pytest.warns(SegmentDamageWarning, match=r"line 2 \(byte \d+\)"):
        con = ledger.query()
    con.close()
    seen: list[str] = []
    connect(ledger.paths, on_damage=seen.append).close()
    assert len(seen) == 1
    assert str(segment) in seen[0]


@pytest.mark.parametrize("garbage", [b"hello world\n", b"[1, 2]\n", b'{"id": 5}\n',
                                     b'{"ts": "not a time"}\n'])
def test_a_garbage_line_is_reported_with_its_line_number(ledger: Ledger,
                                                         garbage: bytes) -> None:
    segment = run_launched_then_exited(ledger)
    lines = segment.read_bytes().splitlines(keepends=True)
    segment.chmod(0o644)
    segment.write_bytes(lines[0] + garbage + b"".join(lines[1:]))
    seen: list[str] = []
    _, rows = run_query(ledger.paths, "select seq from events order by seq",
                        on_damage=seen.append)
    assert rows == [(0,), (1,), (2,)]
    assert len(seen) == 1, seen
    assert "line 2 (byte " in seen[0]


def test_a_record_with_an_unparseable_time_is_reported(ledger: Ledger) -> None:
    segment = run_launched_then_exited(ledger)
    data = segment.read_bytes()
    start = data.index(b'"ts":"', data.index(b'"seq":2')) + 6
    segment.chmod(0o644)
    segment.write_bytes(data[:start] + b"yesterday" + data[start + 27:])
    seen: list[str] = []
    connect(ledger.paths, on_damage=seen.append).close()
    assert len(seen) == 1
    assert "line 3" in seen[0]


def test_a_torn_final_line_of_the_open_segment_is_skipped_quietly(ledger: Ledger) -> None:
    segment = run_launched_then_exited(ledger)
    with open(segment, "ab") as fh:
        fh.write(b'{"id":"0123","v":1,"seq":3,"prev":')  # a crash mid-append
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, rows = run_query(ledger.paths, "select run, state from runs")
    assert rows == [("r1", "exited-ok")]


def test_a_torn_record_inside_a_closed_segment_is_damage(ledger: Ledger) -> None:
    config = ledger.paths.config
    config.write_text(config.read_text().replace("segment_max_events = 200000",
                                                 "segment_max_events = 2"))
    with Ledger.open(ledger.paths.project) as led:
        for i in range(4):
            led.append("note", text=f"n{i}")
    first, _ = sorted(ledger.paths.segments.glob("*/*.jsonl"))
    data = first.read_bytes()
    first.chmod(0o644)
    first.write_bytes(data[:-40])  # its last record loses its end and its newline
    seen: list[str] = []
    _, rows = run_query(ledger.paths, "select count(*) from events", on_damage=seen.append)
    assert rows == [(3,)]
    assert len(seen) == 1
    assert str(first) in seen[0]
    assert "torn record" in seen[0]


# --- errors at query time -----------------------------------------------------------------------
def test_read_errors_map_to_documented_exit_classes(ledger: Ledger) -> None:
    paths = ledger.paths
    segment = paths.segments / "w" / "000000000000.parquet"
    damaged = read_error(duckdb.InvalidInputException(f"No magic bytes in file '{segment}'"),
                         paths)
    assert isinstance(damaged, CorruptionError)
    assert damaged.segment == segment
    assert isinstance(read_error(duckdb.InterruptException("INTERRUPT"), paths),
                      KeyboardInterrupt)
    assert isinstance(read_error(duckdb.CatalogException("no table x"), paths), QueryInputError)
    assert isinstance(read_error(duckdb.PermissionException("nope"), paths), QueryRefusedError)
    memory = read_error(duckdb.OutOfMemoryException("out of memory"), paths)
    assert type(memory) is LedgerError
    assert "out of memory" in str(memory)
    # a file outside the ledger is not the ledger's damage
    other = read_error(duckdb.IOException("cannot open '/etc/x.parquet'"), paths)
    assert type(other) is LedgerError


def test_a_segment_sealed_away_mid_query_is_read_again_not_called_damage(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    """`compact` seals a JSONL segment and removes it between the listing of segments and
    DuckDB's read: the segments are listed again, not reported as a damaged ledger."""
    from labledger.ledger import query

    for i in range(3):
        ledger.append("note", text=f"n{i}")
    real = query._find_segments
    calls = []

    def first_lists_a_segment_already_gone(paths: Any) -> Any:
        found = real(paths)
        calls.append(1)
        if len(calls) == 1:  # as if listed just before compact removed it
            gone = found.jsonl[0].with_name("000000999999.jsonl")
            return dataclasses.replace(found, jsonl=[*found.jsonl, gone])
        return found

    monkeypatch.setattr(query, "_find_segments", first_lists_a_segment_already_gone)
    columns, rows = query.run_query(ledger.paths, "select count(*) from events")
    assert rows == [(3,)]
    assert len(calls) == 2


def test_closed_segments_are_scanned_once_and_damage_still_reported(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from labledger.ledger import query
    from tests.conftest import ledger_with_rollover

    led = ledger_with_rollover(project, 5)
    for i in range(12):
        led.append("note", text=f"n{i}")
    closed = sorted((led.paths.segments / led.writer).glob("*.jsonl"))[0]
    closed.chmod(0o644)
    closed.write_bytes(closed.read_bytes().replace(b"n1", b"\xff1"))  # one bad line, closed
    closed.chmod(0o444)
    scanned: list[list[Path]] = []
    real = query._read_json_sql

    def spy(files: list[Path], *, filename: bool = False) -> str:
        if filename:
            scanned.append(list(files))
        return real(files, filename=filename)

    monkeypatch.setattr(query, "_read_json_sql", spy)
    reports: list[str] = []
    for _ in range(2):
        query.connect(led.paths, on_damage=reports.append).close()
    assert len(reports) == 2
    assert all(str(closed) in r and "1 record " in r for r in reports)
    assert closed in scanned[0]
    # the second connect read every count from the cache: the closed segment's by its stamp,
    # the unchanged open segment's too (see the open-segment tests below)
    assert len(scanned) == 1


# --- records changed after they were written: still readable, never shown silently --------------
def test_a_record_changed_in_place_is_reported_by_every_read(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(9):
        ledger.append("note", text=f"n{i}")
    segment = open_segment(ledger)
    rewrite(segment, b'"text":"n7"', b'"text":"nX"')  # still valid JSON, still a record
    for args in (["sql", "select body from events where seq = 7"], ["log"], ["--json", "log"]):
        code, out, err = cli(capsys, *args)
        assert code == 0, err
        assert "nX" in out  # shown, as the warning says
        assert (f"ledger segment {segment} is damaged: 1 record no longer matches its id "
                "(line 8 at byte ") in err, args
        assert "labledger check" in err
        assert err.count("no longer match") == 1


def test_a_changed_record_is_found_in_closed_segments_and_in_lines_appended_later(
        project: Path) -> None:
    from tests.conftest import ledger_with_rollover

    led = ledger_with_rollover(project, 5)
    for i in range(7):
        led.append("note", text=f"n{i}")
    closed, opened = sorted((led.paths.segments / led.writer).glob("*.jsonl"))
    seen: list[str] = []
    connect(led.paths, on_damage=seen.append).close()
    assert seen == []  # and the clean result is cached: the next reads hash only what is new
    rewrite(closed, b'"text":"n1"', b'"text":"nY"')
    closed.chmod(0o444)
    connect(led.paths, on_damage=seen.append).close()
    assert len(seen) == 1
    assert str(closed) in seen[0]
    assert "line 2 at byte" in seen[0]
    led.append("note", text="n7")  # lines appended after the open segment was hashed
    rewrite(opened, b'"text":"n7"', b'"text":"nZ"')
    seen.clear()
    for _ in range(2):  # found, and still reported once its count comes from the cache
        connect(led.paths, on_damage=seen.append).close()
    assert sorted(s.split(" is damaged")[0] for s in seen) == sorted(
        [f"ledger segment {closed}", f"ledger segment {opened}"] * 2)


def test_an_unreadable_changed_line_is_reported_once_as_unreadable(ledger: Ledger) -> None:
    for i in range(3):
        ledger.append("note", text=f"n{i}")
    rewrite(open_segment(ledger), b'"text":"n1"}', b'"text":"n1"')  # no longer JSON
    seen: list[str] = []
    connect(ledger.paths, on_damage=seen.append).close()
    assert len(seen) == 1
    assert "cannot be read" in seen[0]


def test_a_line_of_the_open_segment_changed_after_a_first_read_is_still_found(
        ledger: Ledger) -> None:
    for i in range(3):
        ledger.append("note", text=f"hello{i}")
    seen: list[str] = []
    connect(ledger.paths, on_damage=seen.append).close()  # hashed and remembered
    assert seen == []
    segment = open_segment(ledger)
    segment.chmod(0o644)
    with open(segment, "r+b") as fh:  # changed in place: same inode, same size
        data = fh.read()
        fh.seek(data.index(b"hello1"))
        fh.write(b"HELLO1")
    ledger.append("note", text="after")  # and a line appended since
    connect(ledger.paths, on_damage=seen.append).close()
    assert len(seen) == 1
    assert "1 record no longer matches its id (line 2 at byte" in seen[0]


def test_a_ledger_whose_cache_cannot_be_written_keeps_it_in_the_users_cache(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for i in range(3):
        ledger.append("note", text=f"n{i}")
    (ledger.paths.home / "cache").write_text("not a folder")  # as on a read-only copy
    connect(ledger.paths).close()
    kept = list((tmp_path / "xdg" / "labledger").glob("*-altered.json"))
    assert len(kept) == 1  # the next read hashes only what is new
    entry = next(iter(json.loads(kept[0].read_text()).values()))
    assert entry[4] == 3  # three lines hashed
