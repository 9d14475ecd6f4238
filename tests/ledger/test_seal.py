"""Sealed (Parquet) segments verify, read and query like open ones; the chain runs across them."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from labledger.ledger.check import check_ledger
from labledger.ledger.ledger import Ledger
from labledger.ledger.query import run_query
from labledger.ledger.record import Record
from labledger.ledger.seal import compact


def _writer_dir(ledger: Ledger) -> Path:
    return ledger.paths.segments / ledger.writer


def _names(ledger: Ledger) -> list[str]:
    return sorted(p.name for p in _writer_dir(ledger).iterdir() if not p.name.startswith("."))


def _small_segments(project: Path, max_events: int) -> Ledger:
    Ledger.init(project)
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text().replace(
        "segment_max_events = 200000", f"segment_max_events = {max_events}"))
    return Ledger.open(project)


def _assert_chain(records: list[Record]) -> None:
    assert [r.seq for r in records] == list(range(len(records)))
    assert records[0].prev is None
    assert all(b.prev == a.id for a, b in zip(records, records[1:], strict=False))


def _count(ledger: Ledger, where: str = "") -> int:
    _, rows = run_query(ledger.paths, f"select count(*) from events {where}")
    return int(rows[0][0])


def test_compact_seals_and_the_sealed_segment_verifies(ledger: Ledger) -> None:
    runs = ["r2", "r1", "r3"]
    written = [ledger.append("note", run=runs[i % 3], text=f"e{i}") for i in range(30)]

    sealed = compact(ledger.paths)

    assert [p.name for p in sealed] == ["000000000000.parquet"]
    assert _names(ledger) == ["000000000000.parquet"]
    assert not stat.S_IMODE(sealed[0].stat().st_mode) & 0o222  # sealed evidence is read-only
    # rows are stored by (run, seq) for fast run filters, yet read back in chain order
    stored = pq.read_table(sealed[0], columns=["seq"]).column("seq").to_pylist()
    assert stored != sorted(stored)
    report = check_ledger(ledger.paths)
    assert report.findings == []
    assert report.events == 30
    records = list(ledger.records())
    assert [r.id for r in records] == [r.id for r in written]
    assert [r.body_dict() for r in records] == [{"text": f"e{i}"} for i in range(30)]
    _assert_chain(records)
    assert _count(ledger) == 30
    assert _count(ledger, "where run = 'r1'") == 10


def test_appends_continue_the_chain_across_the_sealed_boundary(ledger: Ledger) -> None:
    before = [ledger.append("note", text=f"e{i}") for i in range(5)]
    compact(ledger.paths)  # seals the segment this Ledger object still holds open

    after = ledger.append("note", text="e5")
    other = Ledger.open(ledger.paths.project).append("note", text="e6")

    assert (after.seq, after.prev) == (5, before[-1].id)
    assert (other.seq, other.prev) == (6, after.id)
    assert _names(ledger) == ["000000000000.parquet", "000000000005.jsonl"]
    first_line = (_writer_dir(ledger) / "000000000005.jsonl").read_bytes().split(b"\n")[0]
    assert f'"prev":"{before[-1].id}"'.encode() in first_line
    report = check_ledger(ledger.paths)
    assert report.findings == []
    _assert_chain(list(ledger.records()))
    assert _count(ledger) == 7

    compact(ledger.paths)  # seal the second one too: two sealed segments chain
    nxt = ledger.append("note", text="e7")
    assert (nxt.seq, nxt.prev) == (7, other.id)
    assert check_ledger(ledger.paths).findings == []
    _assert_chain(list(ledger.records()))


def test_rollover_at_a_small_event_count(project: Path) -> None:
    led = _small_segments(project, 4)
    written = [led.append("note", run=f"r{i % 2}", text=f"e{i}") for i in range(12)]
    # a batch is never split: it starts the next segment whole
    written += led.append_batch([{"kind": "note", "body": {"text": f"b{i}"}} for i in range(5)])

    assert _names(led) == ["000000000000.jsonl", "000000000004.jsonl", "000000000008.jsonl",
                           "000000000012.jsonl"]
    # closed segments are read-only, only the newest is writable
    modes = [os.stat(_writer_dir(led) / n).st_mode & stat.S_IWUSR for n in _names(led)]
    assert modes == [0, 0, 0, stat.S_IWUSR]
    assert check_ledger(led.paths).findings == []
    assert [r.id for r in led.records()] == [r.id for r in written]
    assert _count(led) == 17

    sealed = compact(led.paths, close_open=False)  # the open segment stays open
    assert [p.name for p in sealed] == ["000000000000.parquet", "000000000004.parquet",
                                        "000000000008.parquet"]
    assert _names(led)[-1] == "000000000012.jsonl"
    report = check_ledger(led.paths)
    assert report.findings == []
    assert report.segments == 4
    assert [r.id for r in led.records()] == [r.id for r in written]
    assert _count(led) == 17
    assert _count(led, "where run = 'r1'") == 6
    _, rows = run_query(led.paths, "select seq from events order by seq")
    assert [row[0] for row in rows] == list(range(17))

    more = [led.append("note", text=f"m{i}") for i in range(6)]
    assert more[0].prev == written[-1].id
    records = list(led.records())
    _assert_chain(records)
    assert len(records) == 23
    assert _names(led)[-2:] == ["000000000017.jsonl", "000000000021.jsonl"]
    assert check_ledger(led.paths).findings == []


def test_crash_between_parquet_rename_and_jsonl_unlink(tmp_path: Path, project: Path) -> None:
    led = _small_segments(project, 5)
    written = [led.append("note", text=f"e{i}") for i in range(12)]
    closed = [_writer_dir(led) / "000000000000.jsonl", _writer_dir(led) / "000000000005.jsonl"]
    kept = tmp_path / "kept"
    kept.mkdir()
    for seg in closed:
        shutil.copy2(seg, kept / seg.name)
    compact(led.paths, close_open=False)
    for seg in closed:  # the crash: the JSONL was never unlinked after the Parquet's rename
        shutil.copy2(kept / seg.name, seg)
    assert {p.name for p in _writer_dir(led).iterdir()} >= {
        "000000000000.jsonl", "000000000000.parquet", "000000000005.jsonl",
        "000000000005.parquet"}

    records = list(led.records())
    assert [r.id for r in records] == [r.id for r in written]  # each record exactly once
    report = check_ledger(led.paths)
    assert report.findings == []
    assert report.events == 12
    assert _count(led) == 12

    nxt = led.append("note", text="e12")
    assert (nxt.seq, nxt.prev) == (12, written[-1].id)

    compact(led.paths, close_open=False)  # the next seal removes the leftovers
    assert _names(led) == ["000000000000.parquet", "000000000005.parquet", "000000000010.jsonl"]
    assert [r.id for r in led.records()] == [*(r.id for r in written), nxt.id]


def test_crash_while_writing_the_parquet_leaves_a_stray_temp(project: Path) -> None:
    led = _small_segments(project, 5)
    written = [led.append("note", text=f"e{i}") for i in range(7)]
    stray = _writer_dir(led) / "000000000000.parquet.tmp"
    stray.write_bytes(b"PAR1 half written")

    assert [r.id for r in led.records()] == [r.id for r in written]
    assert check_ledger(led.paths).findings == []
    assert _count(led) == 7
    compact(led.paths, close_open=False)
    assert not stray.exists()
    assert [r.id for r in led.records()] == [r.id for r in written]
    assert check_ledger(led.paths).findings == []


def test_records_of_some_kinds_are_the_filtered_records_sealed_or_not(ledger: Ledger) -> None:
    for i in range(3):
        ledger.append("note", run="r1", text=f"n{i}")
        ledger.append("run.heartbeat", run="r1", step=i)
    compact(ledger.paths)
    ledger.append("note", text="after sealing")
    ledger.append("run.heartbeat", run="r1", step=99)
    every = list(ledger.records())
    for kinds in (("note",), ("run.heartbeat",), ("note", "run.heartbeat"), ("claim.declared",)):
        assert [r.id for r in ledger.records(kinds=kinds)] == \
            [r.id for r in every if r.kind in kinds]


def test_a_body_that_names_another_kind_is_not_a_record_of_it(ledger: Ledger) -> None:
    # the line holds the text '"kind":"capsule.sealed"' inside its body: a note all the same
    ledger.append("note", run="r1", text="x", extra={"kind": "capsule.sealed"})
    ledger.append("note", run="r1", text="y", extra={"kind": "checkpoint.saved"})
    assert list(ledger.records(kinds=("capsule.sealed", "checkpoint.saved"))) == []
    assert len(list(ledger.records(kinds=("note",)))) == 2


def test_check_deep_and_checkpoint_are_not_misled_by_such_a_body(
        project: Path, ledger: Ledger, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import cli_call

    monkeypatch.chdir(project)
    for kind in ("checkpoint.saved", "capsule.sealed"):
        ledger.append("note", run="r1", text="x", extra={"kind": kind})
    assert cli_call(capsys, "check", "--deep")[0] == 0  # was a KeyError traceback
    (project / "w.pth").write_bytes(b"weights")
    code, _, err = cli_call(capsys, "checkpoint", "w.pth", "--run", "r1")
    assert code == 0, err  # r1 is not sealed: a note merely mentions the kind


def test_records_of_a_kind_skip_a_torn_final_line_that_names_it(ledger: Ledger) -> None:
    for i in range(3):
        ledger.append("note", run="r1", text=f"n{i}")
        ledger.append("run.heartbeat", run="r1", step=i)
    (segment,) = sorted(ledger.paths.segments.glob("*/*.jsonl"))
    with open(segment, "ab") as fh:  # a crash mid-append: never acknowledged, never read
        fh.write(b'{"id":"00","v":1,"seq":6,"kind":"note","body":{"te')
    every = list(ledger.records())
    assert len(every) == 6
    assert [r.id for r in ledger.records(kinds=("note",))] == \
        [r.id for r in every if r.kind == "note"]
