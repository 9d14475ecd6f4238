"""The open segment's unreadable-row count is kept between reads and only the lines appended since
are checked; every kind of damage still reaches the report, and the cached count always equals
a fresh scan's (Hypothesis drives appends and damage in any order)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.ledger import query
from labledger.ledger.errors import CorruptionError
from labledger.ledger.ledger import Ledger
from labledger.ledger.query import SegmentDamageWarning, connect

GARBAGE = b"this line is not a record\n"


def open_segment(ledger: Ledger) -> Path:
    (segment,) = sorted(ledger.paths.segments.glob("*/*.jsonl"))
    return segment


def append_bytes(segment: Path, data: bytes) -> None:
    segment.chmod(0o644)
    with open(segment, "ab") as fh:
        fh.write(data)


def scans(monkeypatch: pytest.MonkeyPatch) -> list[list[Path]]:
    """The files each unreadable-row scan reads (the scan is the only read_json with filename)."""
    seen: list[list[Path]] = []
    real = query._read_json_sql

    def spy(files: list[Path], *, filename: bool = False) -> str:
        if filename:
            seen.append(list(files))
        return real(files, filename=filename)

    monkeypatch.setattr(query, "_read_json_sql", spy)
    return seen


def damage(ledger: Ledger) -> list[str]:
    reports: list[str] = []
    connect(ledger.paths, on_damage=reports.append).close()
    return [r for r in reports if "cannot be read" in r]


def count(ledger: Ledger) -> int:
    con = connect(ledger.paths, on_damage=lambda _: None)
    try:
        row = con.execute("select count(*) from events").fetchone()
    finally:
        con.close()
    assert row is not None
    return int(row[0])


def test_appends_are_checked_without_scanning_the_segment_again(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(20):
        ledger.append("note", text=f"n{i}")
    seen = scans(monkeypatch)
    assert damage(ledger) == []
    assert len(seen) == 1  # the first read scans the open segment
    assert damage(ledger) == []
    assert len(seen) == 1  # unchanged: nothing scanned
    for i in range(5):
        ledger.append("note", text=f"more {i}")
    assert damage(ledger) == []
    assert len(seen) == 1  # five good lines appended: checked by their ids, not scanned
    assert count(ledger) == 25


def test_a_garbage_line_appended_after_a_count_is_reported(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(5):
        ledger.append("note", text=f"n{i}")
    segment = open_segment(ledger)
    assert damage(ledger) == []
    seen = scans(monkeypatch)
    append_bytes(segment, GARBAGE)
    reports = damage(ledger)
    assert len(reports) == 1
    assert "1 record cannot be read" in reports[0]
    assert "line 6" in reports[0]
    assert seen == [[segment]]  # a line that does not match an id sends it to the scan
    assert len(damage(ledger)) == 1  # and the damage is reported again on the next read
    assert count(ledger) == 5


def test_damage_inside_the_counted_part_is_reported(ledger: Ledger) -> None:
    for i in range(5):
        ledger.append("note", text=f"n{i}")
    segment = open_segment(ledger)
    assert damage(ledger) == []
    data = segment.read_bytes()
    at = data.index(b'"ts":"') + 6
    segment.chmod(0o644)
    segment.write_bytes(data[:at] + b"X" + data[at + 1:])  # same size: a time that does not cast
    reports = damage(ledger)
    assert len(reports) == 1
    assert "1 record cannot be read" in reports[0]


def test_a_torn_tail_after_a_count_is_not_damage(ledger: Ledger) -> None:
    for i in range(5):
        ledger.append("note", text=f"n{i}")
    segment = open_segment(ledger)
    assert damage(ledger) == []
    whole = segment.read_bytes().splitlines(keepends=True)[-1]
    append_bytes(segment, whole[: len(whole) // 2])  # a crash mid-append
    with warnings.catch_warnings():
        warnings.simplefilter("error", SegmentDamageWarning)
        assert damage(ledger) == []
        assert count(ledger) == 5


def test_a_replaced_segment_is_scanned_again(ledger: Ledger) -> None:
    for i in range(5):
        ledger.append("note", text=f"n{i}")
    segment = open_segment(ledger)
    assert damage(ledger) == []
    data = segment.read_bytes()
    lines = data.splitlines(keepends=True)
    replacement = segment.with_name("replacement.tmp")
    replacement.write_bytes(b"".join(lines[:2]) + GARBAGE + b"".join(lines[3:]))
    os.replace(replacement, segment)  # another inode, the same size or not: counted again
    reports = damage(ledger)
    assert len(reports) == 1
    assert "line 3" in reports[0]


def test_a_large_tail_is_one_scan(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(5):
        ledger.append("note", text=f"n{i}")
    assert damage(ledger) == []
    monkeypatch.setattr(query, "_TAIL_CHECK_MAX", 64)
    seen = scans(monkeypatch)
    for i in range(5):
        ledger.append("note", text=f"a longer note than sixty-four bytes, number {i}")
    assert damage(ledger) == []
    assert seen == [[open_segment(ledger)]]
    assert count(ledger) == 10


OPS = st.lists(st.sampled_from(["append", "copy", "garbage", "torn", "flip", "read"]), min_size=1,
               max_size=12)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_the_kept_count_always_equals_a_fresh_scan(tmp_path_factory: pytest.TempPathFactory,
                                                   ops: list[str]) -> None:
    project = tmp_path_factory.mktemp("p")
    ledger = Ledger.init(project)
    try:
        ledger.append("note", text="first")
        segment = open_segment(ledger)
        cache = project / "counts.json"
        for n, op in enumerate(ops):
            data = segment.read_bytes()
            if op == "append" and data.endswith(b"\n"):
                try:
                    ledger.append("note", text=f"note {n}")
                except CorruptionError:
                    pass  # the writer refuses to append after a damaged last line
            elif op == "copy" and data.endswith(b"\n"):
                append_bytes(segment, data.splitlines(keepends=True)[0])  # matches its id
            elif op == "garbage" and data.endswith(b"\n"):
                append_bytes(segment, GARBAGE)
            elif op == "torn" and data.endswith(b"\n"):
                append_bytes(segment, b'{"id":"blake3:')
            elif op == "flip" and len(data) > 40:
                segment.chmod(0o644)
                segment.write_bytes(data[:30] + bytes([data[30] ^ 0x80]) + data[31:])
            _check_once(ledger, cache)
    finally:
        ledger.close()


def _check_once(ledger: Ledger, cache: Path) -> None:
    import duckdb

    segments = query._find_segments(ledger.paths)
    con = duckdb.connect(":memory:")
    try:
        kept = query._unreadable_rows(con, segments, cache)
        fresh = query._unreadable_rows(con, segments, None)
    finally:
        con.close()
    assert kept == fresh
