"""The append path: one write and one fsync per event or batch, one chain, all or nothing."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.check import check_ledger
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import verify_line


def _segment(ledger: Ledger) -> Path:
    return ledger.paths.segments / ledger.writer / "000000000000.jsonl"


def _lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return data.split(b"\n")[:-1]


def test_append_is_on_disk_when_it_returns(ledger: Ledger) -> None:
    first = ledger.append("note", run="r1", text="hello")
    second = ledger.append("note", text="world")

    lines = _lines(_segment(ledger))
    assert [verify_line(line).id for line in lines] == [first.id, second.id]
    assert (first.seq, first.prev) == (0, None)
    assert (second.seq, second.prev) == (1, first.id)
    assert verify_line(lines[0]).run == "r1"
    assert verify_line(lines[1]).body_dict() == {"text": "world"}
    assert check_ledger(ledger.paths).findings == []


def test_valid_batch_is_one_contiguous_seq_range(ledger: Ledger) -> None:
    before = ledger.append("note", text="before")
    size_before = _segment(ledger).stat().st_size
    batch = ledger.append_batch(
        [{"kind": "note", "body": {"text": f"b{i}"}, "run": "r1"} for i in range(10)])
    after = ledger.append("note", text="after")

    assert [r.seq for r in batch] == list(range(1, 11))
    assert batch[0].prev == before.id
    assert all(b.prev == a.id for a, b in zip(batch, batch[1:], strict=False))
    assert (after.seq, after.prev) == (11, batch[-1].id)
    lines = _lines(_segment(ledger))
    # The batch is exactly the contiguous run of lines between the two single events.
    batch_bytes = b"".join(line + b"\n" for line in lines[1:11])
    assert len(batch_bytes) == _segment(ledger).stat().st_size - size_before - len(lines[11]) - 1
    assert [verify_line(line).id for line in lines[1:11]] == [r.id for r in batch]
    assert [verify_line(line).body_dict()["text"] for line in lines[1:11]] == [
        f"b{i}" for i in range(10)]
    assert check_ledger(ledger.paths).ok


BAD_EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("unknown kind", {"kind": "no.such.kind", "body": {"text": "x"}}),
    ("missing field", {"kind": "note", "body": {}}),
    ("wrong type", {"kind": "note", "body": {"text": 12}}),
    ("bad run id", {"kind": "note", "run": "has space", "body": {"text": "x"}}),
    ("bad timestamp", {"kind": "note", "at": "yesterday", "body": {"text": "x"}}),
    ("oversize body", {"kind": "note", "body": {"text": "x" * (65 * 1024)}}),
    ("invalid utf-8", {"kind": "note", "body": {"text": "\udcff"}}),
    ("unknown envelope field", {"kind": "note", "body": {"text": "x"}, "colour": "red"}),
]


@pytest.mark.parametrize(("why", "bad"), BAD_EVENTS, ids=[b[0] for b in BAD_EVENTS])
@pytest.mark.parametrize("prior", [0, 3], ids=["fresh", "after-3"])
def test_batch_with_one_invalid_event_in_the_middle_writes_nothing(
    ledger: Ledger, snapshot: Callable[[Path], dict[str, bytes]], why: str,
    bad: dict[str, Any], prior: int,
) -> None:
    for i in range(prior):
        ledger.append("note", text=f"prior {i}")
    home = ledger.paths.home
    before = snapshot(home)
    good = [{"kind": "note", "body": {"text": f"good {i}"}} for i in range(5)]

    with pytest.raises(InvalidEventError) as info:
        ledger.append_batch([*good[:3], bad, *good[3:]])

    assert info.value.line == 4, why  # the message points at the bad line
    assert "nothing was written" in str(info.value)
    assert snapshot(home) == before
    # The ledger is still usable and the chain continues from the last acknowledged event.
    record = ledger.append("note", text="next")
    assert record.seq == prior
    assert check_ledger(ledger.paths).ok


def test_invalid_single_event_writes_nothing(
    ledger: Ledger, snapshot: Callable[[Path], dict[str, bytes]],
) -> None:
    ledger.append("note", text="one")
    before = snapshot(ledger.paths.home)
    with pytest.raises(InvalidEventError, match="text"):
        ledger.append("note", text=3)
    assert snapshot(ledger.paths.home) == before


def test_empty_batch_writes_nothing(
    ledger: Ledger, snapshot: Callable[[Path], dict[str, bytes]],
) -> None:
    before = snapshot(ledger.paths.home)
    assert ledger.append_batch([]) == []
    assert snapshot(ledger.paths.home) == before


def test_threads_sharing_one_ledger_never_lose_or_interleave(ledger: Ledger) -> None:
    threads, per_thread = 8, 40
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def work(t: int) -> None:
        try:
            start.wait()
            for i in range(per_thread):
                if i % 10 == 0:
                    ledger.append_batch([{"kind": "note", "body": {"text": f"{t}:{i}:{j}"}}
                                         for j in range(3)])
                else:
                    ledger.append("note", text=f"{t}:{i}")
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert errors == []

    records = list(ledger.records())
    expected = threads * (per_thread - per_thread // 10 + 3 * (per_thread // 10))
    assert [r.seq for r in records] == list(range(expected))
    texts = [r.body_dict()["text"] for r in records]
    assert len(set(texts)) == expected
    report = check_ledger(ledger.paths)
    assert report.findings == []
    assert report.events == expected


def test_reopened_ledger_continues_the_chain(project: Path, ledger: Ledger) -> None:
    first = ledger.append("note", text="a")
    ledger.close()
    with Ledger.open(project) as again:
        second = again.append("note", text="b")
    assert (second.seq, second.prev) == (1, first.id)
    assert check_ledger(ledger.paths).findings == []


def test_opening_the_ledger_for_each_event_does_not_leak_descriptors(project: Path) -> None:
    Ledger.init(project)
    Ledger.open(project).append("note", text="warm up")
    before = len(os.listdir("/proc/self/fd"))
    for i in range(300):  # a hook in a training loop: `Ledger.open().append(...)` every step
        Ledger.open(project).append("note", text=f"step {i}")
    assert len(os.listdir("/proc/self/fd")) <= before + 2


@pytest.mark.parametrize("name", [".", "..", ".hidden", "../../x"])
def test_a_writer_name_of_dots_still_writes_where_readers_look(
        project: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("LABLEDGER_WRITER", name)
    with Ledger.init(project) as led:
        record = led.append("note", text="kept")
        assert not led.writer.startswith(".")
        assert (led.paths.segments / led.writer).parent == led.paths.segments
    report = check_ledger(Ledger.open(project).paths)
    assert report.findings == []
    assert report.events == 1
    assert [r.id for r in Ledger.open(project).records()] == [record.id]
