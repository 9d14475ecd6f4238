"""Many processes on one ledger: no loss, no interleaving, one chain; forks take their own lock."""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from labledger.ledger.check import check_ledger
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import verify_line

PROCESSES = 8
PER_PROCESS = 200

APPENDER = textwrap.dedent("""
    import sys
    from labledger.ledger.ledger import Ledger

    name, count = sys.argv[1], int(sys.argv[2])
    led = Ledger.open()
    sys.stdout.write("ready\\n")
    sys.stdout.flush()
    sys.stdin.read(1)  # everyone starts together
    i = 0
    while i < count:
        if (i // 5) % 2:  # alternate runs of single appends and batches of 4
            n = min(4, count - i)
            led.append_batch([{"kind": "note", "run": f"proc-{name}",
                               "body": {"text": f"{name}:{i + j}"}} for j in range(n)])
            i += n
        else:
            led.append("note", run=f"proc-{name}", text=f"{name}:{i}")
            i += 1
    sys.stdout.write("done\\n")
""")


@pytest.mark.parametrize("max_events", [200_000, 64], ids=["one-segment", "rollover-every-64"])
def test_eight_processes_append_concurrently(project: Path, max_events: int) -> None:
    led = Ledger.init(project)
    config = led.paths.config
    config.write_text(config.read_text().replace("segment_max_events = 200000",
                                                 f"segment_max_events = {max_events}"))
    children = [subprocess.Popen([sys.executable, "-c", APPENDER, str(p), str(PER_PROCESS)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for p in range(PROCESSES)]
    for child in children:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n", child.stderr.read() if child.stderr else ""
    for child in children:
        assert child.stdin is not None
        child.stdin.write("g")
        child.stdin.close()
    for child in children:
        assert child.stdout is not None
        assert child.stderr is not None
        out, err = child.stdout.read(), child.stderr.read()
        child.stdout.close()
        child.stderr.close()
        assert child.wait(timeout=120) == 0, err
        assert out == "done\n"

    total = PROCESSES * PER_PROCESS
    # no interleaved bytes: every segment is whole lines, each a record that verifies alone
    writer_dir = led.paths.segments / "test-writer"
    lines = []
    segments = sorted(writer_dir.glob("*.jsonl"))
    for segment in segments:
        data = segment.read_bytes()
        assert data.endswith(b"\n")
        lines += [verify_line(line) for line in data.split(b"\n")[:-1]]
    assert len(lines) == total
    if max_events == 64:
        assert len(segments) >= total // 64 - 1  # batches may overshoot a threshold a little
    # no loss, no duplicates
    seen = Counter(r.body_dict()["text"] for r in lines)
    assert seen == Counter(f"{p}:{i}" for p in range(PROCESSES) for i in range(PER_PROCESS))
    # one chain: seq 0..N-1, each prev the previous id
    records = list(led.records())
    assert [r.seq for r in records] == list(range(total))
    assert records[0].prev is None
    assert all(b.prev == a.id for a, b in zip(records, records[1:], strict=False))
    # each process's own events are in its own order, and each batch is contiguous
    for p in range(PROCESSES):
        mine = [int(r.body_dict()["text"].split(":")[1]) for r in records
                if r.run == f"proc-{p}"]
        assert mine == list(range(PER_PROCESS))
    report = check_ledger(led.paths)
    assert report.findings == []
    assert report.events == total


# -- fork ----------------------------------------------------------------------------------------

def _wait_readable(fd: int, timeout: float) -> bool:
    poller = select.poll()  # not select(): other tests may have pushed fd numbers past 1024
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


@pytest.mark.parametrize("layer", ["ledger", "segment-writer"])
def test_forked_child_takes_its_own_lock(ledger: Ledger, layer: str) -> None:
    first = ledger.append("note", text="parent before fork")
    writer = ledger._writer()  # noqa: SLF001 - the parent's open writer, lock fd included
    draft = ledger.draft("note", {"text": "child"})
    read_end, write_end = os.pipe()

    fcntl.flock(writer._lock_fd, fcntl.LOCK_EX)  # noqa: SLF001 - parent is mid-append
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            os.close(read_end)
            if layer == "ledger":
                record = ledger.append("note", text="child")
            else:
                record = writer.append([draft])[0]
            os.write(write_end, f"{record.seq} {record.prev}\n".encode())
            ledger.close()  # closes only the child's own descriptors
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    try:
        # Had the child reused the inherited descriptor it would share the parent's lock and
        # write at once; it must wait for the parent instead.
        assert not _wait_readable(read_end, 0.3), "child appended while the parent held the lock"
    finally:
        fcntl.flock(writer._lock_fd, fcntl.LOCK_UN)  # noqa: SLF001
    assert _wait_readable(read_end, 30)
    reply = os.read(read_end, 200).decode().split()
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert reply == ["1", first.id]

    # the parent's writer still works (its lock fd was not closed by the child) and sees the
    # child's record as the new tail
    after = ledger.append("note", text="parent after fork")
    assert after.seq == 2
    records = list(ledger.records())
    assert [r.body_dict()["text"] for r in records] == [
        "parent before fork", "child", "parent after fork"]
    assert all(b.prev == a.id for a, b in zip(records, records[1:], strict=False))
    assert check_ledger(ledger.paths).findings == []


def test_parent_and_forked_children_append_concurrently(ledger: Ledger) -> None:
    ledger.append("note", text="opened before fork")
    children = []
    for c in range(4):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                for i in range(50):
                    ledger.append("note", text=f"child {c}:{i}")
                code = 0
            finally:
                os._exit(code)
        children.append(pid)
    for i in range(50):
        ledger.append("note", text=f"parent:{i}")
    for pid in children:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0

    records = list(ledger.records())
    assert [r.seq for r in records] == list(range(251))
    assert len({r.body_dict()["text"] for r in records}) == 251
    report = check_ledger(ledger.paths)
    assert report.findings == []
