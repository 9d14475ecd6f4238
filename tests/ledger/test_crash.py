"""Crashes mid-append: torn tails at every byte, real SIGKILLs, and crashes inside a rollover."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from labledger.ledger.check import CheckReport, check_ledger
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record, verify_line
from labledger.ledger.root import LedgerPaths


def _writer_dir(project: Path) -> Path:
    return project / ".labledger" / "ledger" / "test-writer"


def _set_max_events(project: Path, n: int) -> None:
    config = project / ".labledger" / "config.toml"
    text = config.read_text().replace("segment_max_events = 200000", f"segment_max_events = {n}")
    assert f"segment_max_events = {n}" in text
    config.write_text(text)


def _records(project: Path) -> list[Record]:
    return list(Ledger.open(project).records())


def _assert_clean_chain(project: Path) -> CheckReport:
    report = check_ledger(LedgerPaths(project))
    assert report.ok, [str(f) for f in report.corrupt]
    records = _records(project)
    assert [r.seq for r in records] == list(range(len(records)))
    assert all(b.prev == a.id for a, b in zip(records, records[1:], strict=False))
    return report


# -- every truncation offset of the last record -------------------------------------------------

@pytest.mark.parametrize(("count", "max_events"), [(1, 200_000), (5, 200_000), (7, 3)],
                         ids=["only-record", "fifth-record", "first-of-third-segment"])
def test_every_truncation_offset_of_the_last_record(
    tmp_path: Path, project: Path, count: int, max_events: int,
) -> None:
    led = Ledger.init(project)
    if max_events != 200_000:
        _set_max_events(project, max_events)
        led = Ledger.open(project)
    acked = [led.append("note", run="r1", text=f"event {i} " + "x" * i) for i in range(count)]
    led.close()
    segments = sorted(_writer_dir(project).glob("*.jsonl"))
    last_segment = segments[-1]
    data = last_segment.read_bytes()
    last_line_start = data.rstrip(b"\n").rfind(b"\n") + 1
    assert verify_line(data[last_line_start:-1]).id == acked[-1].id
    prefix = acked[:-1]

    for offset in range(last_line_start, len(data)):
        cut = offset - last_line_start  # bytes of the last record that survive
        copy = tmp_path / f"at-{offset}"
        shutil.copytree(project, copy, symlinks=True)
        seg = _writer_dir(copy) / last_segment.name
        os.truncate(seg, offset)

        before = check_ledger(LedgerPaths(copy))
        assert before.ok, (offset, [str(f) for f in before.corrupt])
        torn = [f for f in before.findings if f.severity == "torn"]
        assert len(torn) == (1 if cut else 0), offset
        assert [r.id for r in _records(copy)] == [r.id for r in prefix]

        new = Ledger.open(copy).append("note", text="after the crash")

        records = _records(copy)
        assert [r.id for r in records] == [*(r.id for r in prefix), new.id], offset
        assert new.seq == len(prefix)
        assert new.prev == (prefix[-1].id if prefix else None)
        after = _assert_clean_chain(copy)
        assert [f.severity for f in after.findings] == (["recovered"] if cut else [])
        kept = list((copy / ".labledger" / "recovered" / "test-writer").glob("*.torn"))
        if cut:
            assert len(kept) == 1
            assert kept[0].read_bytes() == data[last_line_start:offset]
            finding = after.findings[0]
            assert finding.offset == last_line_start
            assert finding.segment.endswith(last_segment.name)
        else:
            assert kept == []
        shutil.rmtree(copy)


def test_torn_tail_is_reported_then_cut_by_the_next_append(
    ledger: Ledger, project: Path,
) -> None:
    for i in range(3):
        ledger.append("note", text=f"e{i}")
    seg = _writer_dir(project) / "000000000000.jsonl"
    good_size = seg.stat().st_size
    with open(seg, "ab") as fh:
        fh.write(b'{"id":"abc","v":1,"seq":3')  # a crash after part of a write reached disk

    report = check_ledger(ledger.paths)
    assert report.ok
    assert [(f.severity, f.offset) for f in report.findings] == [("torn", good_size)]
    assert seg.stat().st_size == good_size + 25  # check never modifies anything

    record = ledger.append("note", text="e3")  # the same Ledger object: its cached tail is stale
    assert record.seq == 3
    report = _assert_clean_chain(project)
    assert [(f.severity, f.offset) for f in report.findings] == [("recovered", good_size)]
    assert "25 torn bytes" in report.findings[0].problem


# -- crashes inside a rollover ---------------------------------------------------------------------

def test_crash_after_closing_a_segment_before_starting_the_next(project: Path) -> None:
    Ledger.init(project)
    _set_max_events(project, 3)
    led = Ledger.open(project)
    acked = [led.append("note", text=f"e{i}") for i in range(3)]
    led.close()
    os.chmod(_writer_dir(project) / "000000000000.jsonl", 0o444)  # closed; no successor yet

    record = Ledger.open(project).append("note", text="e3")
    assert (record.seq, record.prev) == (3, acked[-1].id)
    assert (_writer_dir(project) / "000000000003.jsonl").exists()
    _assert_clean_chain(project)


def test_crash_right_after_creating_an_empty_segment(project: Path) -> None:
    Ledger.init(project)
    _set_max_events(project, 3)
    led = Ledger.open(project)
    acked = [led.append("note", text=f"e{i}") for i in range(3)]
    led.close()
    os.chmod(_writer_dir(project) / "000000000000.jsonl", 0o444)
    (_writer_dir(project) / "000000000003.jsonl").touch()  # created, nothing written yet

    assert check_ledger(LedgerPaths(project)).ok
    record = Ledger.open(project).append("note", text="e3")
    assert (record.seq, record.prev) == (3, acked[-1].id)
    _assert_clean_chain(project)


# -- real SIGKILL, many times ----------------------------------------------------------------------

CHILD = textwrap.dedent("""
    import os, sys
    from labledger.ledger.ledger import Ledger

    acks = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    led = Ledger.open()
    pad = "p" * int(sys.argv[2])
    batch = int(sys.argv[3])
    i = 0
    while True:
        if i % 3 == 2:  # every third append is a batch (a big one: many pages in one write)
            records = led.append_batch(
                [{"kind": "note", "body": {"text": f"{os.getpid()}:{i}:{j}:{pad}"}}
                 for j in range(batch)])
        else:
            records = [led.append("note", text=f"{os.getpid()}:{i}:{pad}")]
        # acknowledged: append returned, so the ids must survive anything from here on
        os.write(acks, "".join(r.id + "\\n" for r in records).encode())
        i += 1
""")


@pytest.mark.slow
def test_sigkill_mid_append_never_loses_an_acknowledged_event(
    tmp_path: Path, project: Path,
) -> None:
    Ledger.init(project)
    _set_max_events(project, 150)  # rollovers happen under the kills too
    rng = random.Random(20240601)
    rounds, torn_rounds = 40, 0
    acked: list[str] = []
    deadline = time.monotonic() + 60
    for round_ in range(rounds):
        ack_file = tmp_path / f"acks-{round_}.txt"
        pad, batch = rng.choice([(10, 8), (4000, 8), (60000, 32)])
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(ack_file), str(pad),
                                  str(batch)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            # wait until it is appending, then kill it at a random moment
            while not (ack_file.exists() and ack_file.stat().st_size > 0):
                assert child.poll() is None, child.stderr.read() if child.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.002)
            time.sleep(rng.uniform(0, 0.03))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
            if child.stderr:
                child.stderr.close()
        assert child.returncode == -signal.SIGKILL
        text = ack_file.read_text()
        # an id whose line is incomplete was being reported when the kill came: it was
        # acknowledged, so it counts (the prefix is enough to find it)
        acked.extend(line for line in text.split("\n") if line)

        report = check_ledger(LedgerPaths(project))
        assert report.ok, (round_, [str(f) for f in report.corrupt])
        torn_rounds += any(f.severity == "torn" for f in report.findings)
        ids = [r.id for r in _records(project)]
        present = set(ids)
        missing = [a for a in acked if a not in present
                   and not (len(a) < 64 and any(i.startswith(a) for i in ids))]
        assert missing == [], f"round {round_}: acknowledged events lost: {missing[:3]}"

    # recovery: the next append cuts any torn tail and continues the chain
    record = Ledger.open(project).append("note", text="after all the kills")
    report = _assert_clean_chain(project)
    assert not any(f.severity == "torn" for f in report.findings)
    records = _records(project)
    assert records[-1].id == record.id
    assert len({r.id for r in records}) == len(records)
    assert len(records) >= len(acked) + 1
    print(f"{rounds} kills, {torn_rounds} left a torn tail, {len(acked)} acknowledged")  # noqa: T201


def test_a_second_cut_at_the_same_place_keeps_both_pieces_of_evidence(
    ledger: Ledger, project: Path,
) -> None:
    ledger.append("note", text="e0")
    seg = _writer_dir(project) / "000000000000.jsonl"
    good_size = seg.stat().st_size
    with open(seg, "ab") as fh:
        fh.write(b'{"id":"first crash')
    record = ledger.append("note", text="e1")  # cuts the first torn tail
    # ... and this recovery append itself crashes after the same number of bytes reached disk
    # (simulated: its record is cut back to the same length as the first torn tail).
    os.truncate(seg, good_size)
    with open(seg, "ab") as fh:
        fh.write(b'{"id":"other crash')

    again = ledger.append("note", text="e1 again")

    assert (again.seq, again.prev) == (1, verify_line(seg.read_bytes().split(b"\n")[0]).id)
    assert record.seq == 1
    kept = sorted(p.read_bytes() for p in (project / ".labledger" / "recovered").rglob("*.torn"))
    assert kept == [b'{"id":"first crash', b'{"id":"other crash']
    report = _assert_clean_chain(project)
    recovered = [f for f in report.findings if f.severity == "recovered"]
    assert len(recovered) == 2
    assert all(f.segment == str(seg) and f.offset == good_size for f in recovered)
    assert all("18 torn bytes" in f.problem for f in recovered)
