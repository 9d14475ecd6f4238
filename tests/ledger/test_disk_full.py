"""A full disk, a short write or a failed fsync: never acknowledged, and nothing is left behind."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.check import check_ledger
from labledger.ledger.errors import DurabilityError
from labledger.ledger.ledger import Ledger

Snapshot = Callable[[Path], dict[str, bytes]]


def _segment(ledger: Ledger) -> Path:
    return ledger.paths.segments / ledger.writer / "000000000000.jsonl"


def _assert_clean(ledger: Ledger, count: int) -> None:
    report = check_ledger(ledger.paths)
    assert report.findings == [], [str(f) for f in report.findings]
    records = list(Ledger.open(ledger.paths.project).records())
    assert [r.seq for r in records] == list(range(count))
    assert all(b.prev == a.id for a, b in zip(records, records[1:], strict=False))


# -- a real size limit (RLIMIT_FSIZE: the kernel refuses bytes past it, like a full disk) ----------

LIMITED = textwrap.dedent("""
    import json, os, resource, signal, sys
    from labledger.ledger.errors import DurabilityError
    from labledger.ledger.ledger import Ledger

    segment, headroom, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    led = Ledger.open()
    size = os.path.getsize(segment)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of being killed
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + headroom, hard))
    out = {}
    try:
        if batch:
            records = led.append_batch(
                [{"kind": "note", "body": {"text": f"batch {i} " + "y" * 200}}
                 for i in range(batch)])
        else:
            records = [led.append("note", text="z" * 500)]
        out["acknowledged"] = [r.id for r in records]
    except DurabilityError as exc:
        out["error"] = str(exc)
    out["size_after_failure"] = os.path.getsize(segment)
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # space freed: the same ledger goes on
    out["next"] = led.append("note", text="after the disk was freed").id
    print(json.dumps(out))
""")


def _run_limited(ledger: Ledger, headroom: int, batch: int) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", LIMITED, str(_segment(ledger)), str(headroom), str(batch)],
        capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    out: dict[str, object] = json.loads(result.stdout)
    return out


@pytest.mark.parametrize("headroom", [0, 1, 100, 499])
def test_disk_full_single_append_is_not_acknowledged(ledger: Ledger, headroom: int) -> None:
    for i in range(3):
        ledger.append("note", text=f"e{i}")
    size = _segment(ledger).stat().st_size

    out = _run_limited(ledger, headroom, batch=0)

    assert "acknowledged" not in out
    assert "could not write to" in str(out["error"])
    assert "NOT recorded" in str(out["error"])
    assert out["size_after_failure"] == size  # the partial record was cut back
    records = list(ledger.records())
    assert [r.id for r in records][-1] == out["next"]
    _assert_clean(ledger, 4)


@pytest.mark.parametrize("headroom", [1, 250, 2500])
def test_disk_full_batch_is_all_or_nothing(ledger: Ledger, headroom: int) -> None:
    for i in range(3):
        ledger.append("note", text=f"e{i}")
    size = _segment(ledger).stat().st_size

    out = _run_limited(ledger, headroom, batch=20)  # ~5 KB: some records fit, not all

    assert "acknowledged" not in out
    assert "NOT recorded" in str(out["error"])
    assert out["size_after_failure"] == size
    texts = [r.body_dict()["text"] for r in ledger.records()]
    assert not any(t.startswith("batch") for t in texts)
    _assert_clean(ledger, 4)


def _limit_fsize(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    return apply


def test_disk_full_through_the_cli(ledger: Ledger, snapshot: Snapshot, project: Path) -> None:
    ledger.append("note", text="before")
    before = snapshot(ledger.paths.home)
    size = _segment(ledger).stat().st_size
    exe = Path(sys.executable).with_name("labledger")

    result = subprocess.run(
        [str(exe), "emit", "note", "--set", "text=" + "q" * 300], capture_output=True, text=True,
        cwd=project, timeout=60, check=False, preexec_fn=_limit_fsize(size + 50))

    assert result.returncode == 1, result
    assert result.stdout == ""  # no id printed: nothing acknowledged
    assert "labledger: error: could not write to" in result.stderr
    assert str(_segment(ledger)) in result.stderr
    assert "NOT recorded" in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(ledger.paths.home) == before

    again = subprocess.run([str(exe), "emit", "note", "--set", "text=later"], capture_output=True,
                           text=True, cwd=project, timeout=60, check=False)
    assert again.returncode == 0, again.stderr
    _assert_clean(ledger, 2)


def test_disk_full_through_cli_ingest_is_all_or_nothing(
    ledger: Ledger, snapshot: Snapshot, project: Path,
) -> None:
    ledger.append("note", text="before")
    before = snapshot(ledger.paths.home)
    size = _segment(ledger).stat().st_size
    lines = "".join(json.dumps({"kind": "note", "body": {"text": f"line {i}"}}) + "\n"
                    for i in range(50))
    exe = Path(sys.executable).with_name("labledger")

    result = subprocess.run([str(exe), "ingest", "-"], input=lines, capture_output=True,
                            text=True, cwd=project, timeout=60, check=False,
                            preexec_fn=_limit_fsize(size + 3000))

    assert result.returncode == 1, result
    assert "NOT recorded" in result.stderr
    assert snapshot(ledger.paths.home) == before


# -- failed fsync and short writes (patched: the only mocks here) ----------------------------------

class _FailOnce:
    """Raise ``error`` from the first call that targets the open segment, then behave."""

    def __init__(self, real: Callable[..., int | None], error: OSError, segment_fd: int) -> None:
        self.real, self.error, self.segment_fd = real, error, segment_fd
        self.failed = False
        self.calls_on_segment = 0

    def __call__(self, fd: int, *args: object) -> int | None:
        if fd == self.segment_fd:
            self.calls_on_segment += 1
            if not self.failed:
                self.failed = True
                raise self.error
        return self.real(fd, *args)


def _open_segment_fd(ledger: Ledger) -> int:
    writer = ledger._writer()  # noqa: SLF001 - the fd the patched call must hit
    return writer._seg_fd  # noqa: SLF001


@pytest.mark.parametrize("batch", [1, 5])
def test_failed_fsync_is_never_acknowledged(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch, batch: int,
) -> None:
    acked = [ledger.append("note", text=f"e{i}") for i in range(3)]
    size = _segment(ledger).stat().st_size
    seg_fd = _open_segment_fd(ledger)
    fail = _FailOnce(os.fsync, OSError(errno.EIO, "Input/output error"), seg_fd)
    monkeypatch.setattr("labledger.ledger.segment.os.fsync", fail)
    real_ftruncate = os.ftruncate
    cuts: list[tuple[int, int]] = []  # (fsyncs seen so far, new size)

    def ftruncate(fd: int, length: int) -> None:
        if fd == seg_fd:
            cuts.append((fail.calls_on_segment, length))
        real_ftruncate(fd, length)

    monkeypatch.setattr("labledger.ledger.segment.os.ftruncate", ftruncate)

    with pytest.raises(DurabilityError, match="could not fsync") as info:
        ledger.append_batch([{"kind": "note", "body": {"text": f"lost {i}"}}
                             for i in range(batch)])

    assert info.value.segment == _segment(ledger)
    assert "NOT recorded" in str(info.value)
    # Not retried (a retry can "succeed" after the kernel dropped the dirty pages): the failed
    # fsync is followed by the cut back to the old size, and only then by the fsync of that cut.
    assert cuts == [(1, size)]
    assert fail.calls_on_segment == 2
    assert _segment(ledger).stat().st_size == size  # the unacknowledged bytes were cut back
    assert [r.id for r in ledger.records()] == [r.id for r in acked]

    nxt = ledger.append("note", text="next")
    assert (nxt.seq, nxt.prev) == (3, acked[-1].id)
    _assert_clean(ledger, 4)


def test_failed_fsync_of_the_first_event_leaves_an_empty_chain(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = os.fsync
    seen: list[int] = []

    def fsync(fd: int) -> None:
        # fail the first fsync of a regular file (the segment); directories sync normally
        import stat as st
        if st.S_ISREG(os.fstat(fd).st_mode) and not seen:
            seen.append(fd)
            raise OSError(errno.EIO, "Input/output error")
        real(fd)

    monkeypatch.setattr("labledger.ledger.segment.os.fsync", fsync)
    with pytest.raises(DurabilityError):
        ledger.append("note", text="never recorded")
    assert _segment(ledger).stat().st_size == 0
    first = ledger.append("note", text="first recorded")
    assert (first.seq, first.prev) == (0, None)
    _assert_clean(ledger, 1)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EIO])
def test_short_write_then_error_is_cut_back(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch, code: int,
) -> None:
    acked = [ledger.append("note", text=f"e{i}") for i in range(2)]
    size = _segment(ledger).stat().st_size
    seg_fd = _open_segment_fd(ledger)
    real_write = os.write
    calls: list[int] = []

    def write(fd: int, data: bytes | memoryview) -> int:
        if fd != seg_fd:
            return real_write(fd, data)
        calls.append(len(data))
        if len(calls) == 1:  # the kernel took part of the batch ...
            return real_write(fd, bytes(data)[: len(data) // 2])
        raise OSError(code, os.strerror(code))  # ... then the disk was full

    monkeypatch.setattr("labledger.ledger.segment.os.write", write)
    with pytest.raises(DurabilityError, match="could not write to"):
        ledger.append_batch([{"kind": "note", "body": {"text": f"lost {i}"}} for i in range(4)])
    monkeypatch.undo()

    assert len(calls) == 2  # the rest of a short write is retried, an error is not
    assert _segment(ledger).stat().st_size == size
    nxt = ledger.append("note", text="next")
    assert (nxt.seq, nxt.prev) == (2, acked[-1].id)
    _assert_clean(ledger, 3)


def test_compact_on_a_full_disk_says_so_and_keeps_every_event(ledger: Ledger,
                                                                project: Path) -> None:
    for i in range(20):
        ledger.append("note", text=f"event {i} " + "x" * 200)
    exe = Path(sys.executable).with_name("labledger")

    def limited() -> None:  # the kernel refuses bytes past 2 KB, as a full disk would
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, resource.RLIM_INFINITY))

    proc = subprocess.run([str(exe), "compact"], cwd=project, capture_output=True, text=True,
                          preexec_fn=limited, timeout=120, check=False)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "cannot seal" in proc.stderr
    assert "nothing was lost" in proc.stderr
    assert not list(ledger.paths.segments.rglob("*.parquet*"))
    _assert_clean(ledger, 20)
    ledger.append("note", text="after")  # the ledger still takes appends
    _assert_clean(ledger, 21)
