"""Damage that is not a torn tail is corruption: reported with segment and seq, never repaired."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from labledger.ledger.check import CheckReport, Finding, check_ledger
from labledger.ledger.errors import CorruptionError
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import encode_record, verify_line
from labledger.ledger.seal import compact

Snapshot = Callable[[Path], dict[str, bytes]]
RunCli = Callable[..., subprocess.CompletedProcess[str]]


def _segment(ledger: Ledger, first_seq: int = 0, suffix: str = ".jsonl") -> Path:
    return ledger.paths.segments / ledger.writer / f"{first_seq:012d}{suffix}"


def _fill(ledger: Ledger, n: int = 6) -> list[bytes]:
    for i in range(n):
        ledger.append("note", run="r1", text=f"event number {i}")
    return _segment(ledger).read_bytes().split(b"\n")[:-1]


def _write_lines(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def _flip(line: bytes, needle: bytes) -> bytes:
    at = line.index(needle)
    return line[:at] + bytes([line[at] ^ 0x01]) + line[at + 1:]


def _corruption(report: CheckReport) -> list[Finding]:
    assert not report.ok
    return report.corrupt


def _assert_cli_reports(run_cli: RunCli, segment: Path, seq: int) -> None:
    result = run_cli("check")
    assert result.returncode == 3, result.stderr
    out = result.stdout + result.stderr
    assert f"{segment} seq {seq}" in out, out
    assert "corruption" in out


def test_flipped_byte_in_a_middle_record(ledger: Ledger, run_cli: RunCli) -> None:
    lines = _fill(ledger)
    lines[3] = _flip(lines[3], b"number 3")
    _write_lines(_segment(ledger), lines)

    findings = _corruption(check_ledger(ledger.paths))
    assert len(findings) == 1  # the records after it still verify and chain
    assert findings[0].segment == str(_segment(ledger))
    assert findings[0].seq == 3
    assert findings[0].offset == sum(len(line) + 1 for line in lines[:3])
    assert "does not verify" in findings[0].problem
    _assert_cli_reports(run_cli, _segment(ledger), 3)


def test_flipped_byte_in_the_id_of_a_record(ledger: Ledger, run_cli: RunCli) -> None:
    lines = _fill(ledger)
    lines[2] = lines[2][:10] + bytes([lines[2][10] ^ 0x01]) + lines[2][11:]
    _write_lines(_segment(ledger), lines)

    findings = _corruption(check_ledger(ledger.paths))
    assert [(f.segment, f.seq) for f in findings] == [(str(_segment(ledger)), 2)]
    _assert_cli_reports(run_cli, _segment(ledger), 2)


def test_deleted_middle_record(ledger: Ledger, run_cli: RunCli) -> None:
    lines = _fill(ledger)
    del lines[2]
    _write_lines(_segment(ledger), lines)

    findings = _corruption(check_ledger(ledger.paths))
    assert len(findings) == 1
    assert findings[0].segment == str(_segment(ledger))
    assert findings[0].seq == 3  # the record found where seq 2 was expected
    assert "expected seq 2" in findings[0].problem
    assert "missing" in findings[0].problem
    _assert_cli_reports(run_cli, _segment(ledger), 3)


def test_reordered_records(ledger: Ledger, run_cli: RunCli) -> None:
    lines = _fill(ledger)
    lines[2], lines[3] = lines[3], lines[2]
    _write_lines(_segment(ledger), lines)

    findings = _corruption(check_ledger(ledger.paths))
    assert findings[0].seq == 3
    assert "expected seq 2" in findings[0].problem
    assert all(f.segment == str(_segment(ledger)) for f in findings)
    assert any(f.seq == 2 and "out of order" in f.problem for f in findings)
    _assert_cli_reports(run_cli, _segment(ledger), 3)


def test_duplicated_record(ledger: Ledger) -> None:
    lines = _fill(ledger)
    lines.insert(3, lines[2])
    _write_lines(_segment(ledger), lines)

    findings = _corruption(check_ledger(ledger.paths))
    assert [(f.seq, "duplicated" in f.problem) for f in findings] == [(2, True)]


def test_substituted_record_with_a_valid_hash_breaks_the_chain(
    ledger: Ledger, run_cli: RunCli,
) -> None:
    lines = _fill(ledger)
    old = verify_line(lines[2])
    # A forger re-hashes a changed record: it verifies alone, but the next prev no longer links.
    _, forged = encode_record(v=old.v, seq=old.seq, prev=old.prev, ts=old.ts, writer=old.writer,
                              actor=old.actor, kind=old.kind, run=old.run,
                              instance=old.instance, recorded=old.recorded,
                              body=b'{"text":"history rewritten"}')
    lines[2] = forged.rstrip(b"\n")
    _write_lines(_segment(ledger), lines)

    findings = _corruption(check_ledger(ledger.paths))
    assert [(f.seq, "chain broken" in f.problem) for f in findings] == [(3, True)]
    _assert_cli_reports(run_cli, _segment(ledger), 3)


def test_torn_record_inside_a_closed_segment_is_corruption(project: Path) -> None:
    from tests.conftest import ledger_with_rollover

    led = ledger_with_rollover(project, 3)
    for i in range(5):
        led.append("note", text=f"e{i}")
    first = _segment(led)
    os.chmod(first, 0o644)
    os.truncate(first, first.stat().st_size - 5)  # not the open segment: not a crash tail
    os.chmod(first, 0o444)

    findings = _corruption(check_ledger(led.paths))
    assert findings[0].segment == str(first)
    assert findings[0].seq == 2
    assert "closed segment" in findings[0].problem


def test_missing_middle_segment_is_corruption(project: Path) -> None:
    led = Ledger.init(project)
    config = led.paths.config
    config.write_text(config.read_text().replace("segment_max_events = 200000",
                                                 "segment_max_events = 3"))
    led = Ledger.open(project)
    for i in range(8):
        led.append("note", text=f"e{i}")
    _segment(led, 3).unlink()

    findings = _corruption(check_ledger(led.paths))
    assert findings[0].segment == str(_segment(led, 6))
    assert findings[0].seq == 6
    assert "missing" in findings[0].problem


def _rewrite_parquet(path: Path, change: Callable[[dict[str, list[object]]], None]) -> None:
    table = pq.read_table(path)
    columns = {name: table.column(name).to_pylist() for name in table.column_names}
    change(columns)
    os.chmod(path, 0o644)
    pq.write_table(pa.table(columns, schema=table.schema), path)
    os.chmod(path, 0o444)


def test_flipped_byte_in_a_sealed_record_column(ledger: Ledger, run_cli: RunCli) -> None:
    _fill(ledger)
    compact(ledger.paths)
    sealed = _segment(ledger, suffix=".parquet")
    assert sealed.exists()
    assert check_ledger(ledger.paths).findings == []

    def flip(columns: dict[str, list[object]]) -> None:
        row = columns["seq"].index(4)
        text = str(columns["record"][row])
        columns["record"][row] = text.replace("number 4", "number 5")

    _rewrite_parquet(sealed, flip)

    findings = _corruption(check_ledger(ledger.paths))
    assert [(f.segment, f.seq) for f in findings] == [(str(sealed), 4)]
    assert "does not verify" in findings[0].problem
    _assert_cli_reports(run_cli, sealed, 4)
    with pytest.raises(CorruptionError):
        list(Ledger.open(ledger.paths.project).records())


def test_a_null_record_cell_in_a_sealed_segment_is_corruption(
        ledger: Ledger, run_cli: RunCli) -> None:
    """A sealed row whose ``record`` cell is null (a tool that rewrote the Parquet file) holds
    no verifiable record: check reports it at its seq (exit 3) and the verifying readers raise
    CorruptionError, never an AttributeError traceback."""
    _fill(ledger)
    compact(ledger.paths)
    sealed = _segment(ledger, suffix=".parquet")

    def blank(columns: dict[str, list[object]]) -> None:
        columns["record"][columns["seq"].index(3)] = None

    _rewrite_parquet(sealed, blank)

    findings = _corruption(check_ledger(ledger.paths))
    assert [(f.segment, f.seq) for f in findings] == [(str(sealed), 3)]
    assert "null" in findings[0].problem
    _assert_cli_reports(run_cli, sealed, 3)
    reopened = Ledger.open(ledger.paths.project)
    with pytest.raises(CorruptionError, match="null"):
        list(reopened.records())
    with pytest.raises(CorruptionError, match="null"):
        list(reopened.records(kinds=["note"]))


def test_sealed_column_that_disagrees_with_its_record(ledger: Ledger) -> None:
    _fill(ledger)
    compact(ledger.paths)
    sealed = _segment(ledger, suffix=".parquet")

    def relabel(columns: dict[str, list[object]]) -> None:
        columns["kind"][columns["seq"].index(1)] = "claim.retracted"  # what SQL would show

    _rewrite_parquet(sealed, relabel)

    findings = _corruption(check_ledger(ledger.paths))
    assert [f.segment for f in findings] == [str(sealed)]
    assert "seq 1: column kind disagrees" in findings[0].problem


def test_append_onto_a_damaged_last_record_is_refused(
    ledger: Ledger, snapshot: Snapshot, run_cli: RunCli,
) -> None:
    lines = _fill(ledger)
    lines[-1] = _flip(lines[-1], b"number 5")
    _write_lines(_segment(ledger), lines)
    before = snapshot(ledger.paths.home)

    with pytest.raises(CorruptionError, match="last record is damaged") as info:
        Ledger.open(ledger.paths.project).append("note", text="must not chain onto it")
    assert info.value.segment == _segment(ledger)
    result = run_cli("emit", "note", "--set", "text=nope")
    assert result.returncode == 1
    assert "damaged" in result.stderr

    assert snapshot(ledger.paths.home) == before
    assert not ledger.paths.recovered.exists()  # a complete damaged line is not a torn tail


def test_append_onto_a_closed_segment_with_a_damaged_last_record_is_refused(
    project: Path, snapshot: Snapshot,
) -> None:
    led = Ledger.init(project)
    config = led.paths.config
    config.write_text(config.read_text().replace("segment_max_events = 200000",
                                                 "segment_max_events = 3"))
    led = Ledger.open(project)
    for i in range(3):
        led.append("note", text=f"event number {i}")
    led.close()
    seg = _segment(led)
    os.chmod(seg, 0o644)
    lines = seg.read_bytes().split(b"\n")[:-1]
    lines[-1] = _flip(lines[-1], b"number 2")
    _write_lines(seg, lines)
    os.chmod(seg, 0o444)  # closed: the next append starts a new segment chained from it
    before = snapshot(led.paths.home)

    with pytest.raises(CorruptionError, match="last record is damaged"):
        Ledger.open(project).append("note", text="must not chain onto it")
    assert snapshot(led.paths.home) == before


def test_check_never_modifies_a_damaged_ledger(ledger: Ledger, snapshot: Snapshot) -> None:
    lines = _fill(ledger)
    lines[1] = _flip(lines[1], b"number 1")
    _write_lines(_segment(ledger), lines)
    with open(_segment(ledger), "ab") as fh:
        fh.write(b'{"id":"torn')
    before = snapshot(ledger.paths.home)
    report = check_ledger(ledger.paths)
    assert [f.severity for f in report.findings] == ["corruption", "torn"]
    assert snapshot(ledger.paths.home) == before
