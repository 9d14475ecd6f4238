"""A batch is all or nothing, even when a crash cuts its single write() short.

Every record of a multi-event batch but the last carries ``more``; a crash that leaves complete
records of an unfinished batch is reported by `check` as torn, and the next append cuts the whole
batch (keeping the bytes under recovered/), never only its broken tail.
"""

from __future__ import annotations

import json
from pathlib import Path

from labledger.ledger._line import encode_line
from labledger.ledger.check import check_ledger
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import encode_record


def _segment(ledger: Ledger) -> Path:
    return ledger.paths.segments / ledger.writer / "000000000000.jsonl"


def test_only_the_last_record_of_a_batch_lacks_more(ledger: Ledger) -> None:
    ledger.append("note", text="single")
    ledger.append_batch([{"kind": "note", "body": {"text": f"b{i}"}} for i in range(4)])
    flags = [json.loads(line).get("more", False)
             for line in _segment(ledger).read_bytes().splitlines()]
    assert flags == [False, True, True, True, False]


def test_a_cut_short_batch_is_removed_whole_by_the_next_append(ledger: Ledger) -> None:
    ledger.append("note", text="acknowledged")
    ledger.append_batch([{"kind": "note", "body": {"text": f"b{i}"}} for i in range(5)])
    segment = _segment(ledger)
    lines = segment.read_bytes().splitlines(keepends=True)
    acknowledged = lines[0]
    # The crash: only the batch's first three records (and half of the fourth) reached the disk.
    segment.write_bytes(acknowledged + b"".join(lines[1:4]) + lines[4][:40])
    ledger.close()
    report = check_ledger(ledger.paths)
    assert report.ok
    torn = [f for f in report.findings if f.severity == "torn"]
    assert len(torn) == 2  # the half record, and the three records of the unfinished batch
    reopened = Ledger.open(ledger.paths.project)
    record = reopened.append("note", text="after recovery")
    assert record.seq == 1
    kept = segment.read_bytes().splitlines(keepends=True)
    assert kept[0] == acknowledged
    assert len(kept) == 2
    pieces = sorted((ledger.paths.recovered / ledger.writer).iterdir())
    assert b"".join(p.read_bytes() for p in pieces).count(b"\n") == 3
    assert check_ledger(ledger.paths).ok


def test_the_light_encoder_writes_the_same_bytes_as_the_bulk_encoder() -> None:
    cases = [
        {"prev": None, "run": None, "instance": None, "recorded": None, "more": False},
        {"prev": "a" * 64, "run": "r1", "instance": "box:1", "recorded": "2026-01-01T00:00:00."
         "000000Z", "more": True},
    ]
    for extra in cases:
        for actor in ["me@host", "agent:\u00e9\u4e2d \"q\" \\ \n\t\x01\x7f\u2028"]:
            fields = {"v": 1, "seq": 7, "ts": "2026-12-02T00:00:00.000001Z", "writer": "w",
                      "actor": actor, "kind": "note", "body": b'{"text":"x"}', **extra}
            assert encode_line(**fields) == encode_record(**fields)  # type: ignore[arg-type]
