"""`labledger check`: re-verify every record, every chain link, and report recovery.

Findings have a severity:

* ``corruption``: a record that fails its hash, a broken chain (gap, reorder, wrong ``prev``), a
  segment whose name disagrees with its first seq, a torn record anywhere but the end of the open
  segment, or a sealed row whose columns disagree with its record. Reported with segment and seq;
  never repaired. `check` exits 3.
* ``torn``: bytes after the last newline of an open segment, from a crash mid-append. They were
  never acknowledged; the next append cuts them (keeping a copy under ``recovered/``).
* ``recovered``: a cut that an earlier append made, with where the cut bytes were kept.
* ``stray``: a file in the ledger folder that is not a segment (``<writer>/<seq>.jsonl`` or
  ``.parquet``), so no reader reads it: a segment copied one level too high, a backup copy, a
  file a sync tool renamed. Not a problem (``check`` still exits 0), but events in it are in no
  view, so it is named rather than skipped in silence.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from labledger.ledger._words import counted
from labledger.ledger.errors import CorruptionError
from labledger.ledger.record import RecordError, verify_line
from labledger.ledger.root import LedgerPaths
from labledger.ledger.segment import (
    SealedAway,
    iter_lines,
    list_segments,
    sealing_attempts,
    writer_dirs,
)


@dataclass(frozen=True)
class Finding:
    severity: str
    segment: str
    problem: str
    seq: int | None = None
    offset: int | None = None

    def __str__(self) -> str:
        where = self.segment
        if self.seq is not None:
            where += f" seq {self.seq}"
        if self.offset is not None:
            where += f" (byte {self.offset})"
        return f"{self.severity}: {where}: {self.problem}"


@dataclass
class CheckReport:
    writers: int = 0
    segments: int = 0
    events: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def corrupt(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "corruption"]

    @property
    def ok(self) -> bool:
        return not self.corrupt

    def to_json(self) -> dict[str, object]:
        return {"ok": self.ok, "writers": self.writers, "segments": self.segments,
                "events": self.events, "findings": [asdict(f) for f in self.findings]}


class _Chain:
    """Walks one writer's records in order, reporting every break (and resyncing after it)."""

    def __init__(self, report: CheckReport, writer: str) -> None:
        self.report, self.writer = report, writer
        self.expected_seq = 0
        self.prev: str | None = None
        self.resync = False

    def corrupt(self, segment: Path, problem: str, seq: int | None, offset: int | None) -> None:
        self.report.findings.append(Finding("corruption", str(segment), problem, seq, offset))

    def damaged(self, segment: Path, problem: str, offset: int | None) -> None:
        """One record that cannot be verified, at the seq expected next."""
        self.corrupt(segment, problem, self.expected_seq, offset)
        # Assume one damaged record and keep checking the rest; its real id is unknown, so
        # the next record's prev cannot be checked.
        self.expected_seq += 1
        self.resync = True

    def take(self, segment: Path, line: bytes, offset: int | None) -> bool | None:
        """Check one line; returns its ``more`` flag (None when it does not verify)."""
        try:
            record = verify_line(line)
        except RecordError as exc:
            self.damaged(segment, f"record does not verify: {exc}", offset)
            return None
        self.report.events += 1
        if record.writer != self.writer:
            self.corrupt(segment, f"record names writer {record.writer!r}, segment belongs to "
                         f"{self.writer!r}", record.seq, offset)
        if record.seq != self.expected_seq:
            missing = record.seq - self.expected_seq
            what = (f"{counted(missing, 'record')} missing (deleted?)" if missing > 0
                    else "records out of order or duplicated")
            self.corrupt(segment, f"expected seq {self.expected_seq}, found {record.seq}: {what}",
                         record.seq, offset)
        elif not self.resync and record.prev != self.prev:
            self.corrupt(segment, f"prev {record.prev} is not the previous record's id "
                         f"{self.prev} (chain broken)", record.seq, offset)
        self.expected_seq, self.prev, self.resync = record.seq + 1, record.id, False
        return record.more


def _check_jsonl(chain: _Chain, segment: Path, is_open: bool) -> None:
    lines = list(iter_lines(segment))
    unfinished: list[int] = []  # offsets of a trailing run of `more` records (a cut-short batch)
    for index, (offset, line, complete) in enumerate(lines):
        if not complete:
            if is_open and index == len(lines) - 1:
                chain.report.findings.append(Finding(
                    "torn", str(segment),
                    f"{counted(len(line), 'byte')} after the last complete record (a crash "
                    "mid-append; never acknowledged; the next append cuts them and keeps a copy)",
                    None, offset))
            else:
                chain.corrupt(segment, "torn record inside a closed segment", chain.expected_seq,
                              offset)
            break
        if chain.take(segment, line, offset):
            unfinished.append(offset)
        else:
            unfinished.clear()
    if unfinished:
        first_seq = chain.expected_seq - len(unfinished)
        if is_open:
            chain.report.findings.append(Finding(
                "torn", str(segment),
                f"{counted(len(unfinished), 'record')} of a batch whose last record was never "
                "written (a crash mid-append; never acknowledged; the next append cuts "
                f"{'it' if len(unfinished) == 1 else 'them'} and keeps a copy)", first_seq,
                unfinished[0]))
        else:
            chain.corrupt(segment, "closed segment ends inside an unfinished batch", first_seq,
                          unfinished[0])


def _check_parquet(chain: _Chain, segment: Path) -> None:
    from labledger.ledger.seal import _sorted_table, sealed_columns_match, sealed_line

    try:
        table = _sorted_table(segment, ["record"])
    except Exception as exc:  # noqa: BLE001 - any pyarrow failure means unreadable evidence
        chain.corrupt(segment, f"sealed segment is unreadable ({exc})", None, None)
        return
    unfinished = 0  # a trailing run of `more` records: a batch that was never acknowledged
    for text in table.column("record").to_pylist():
        try:
            line = sealed_line(text)
        except RecordError as exc:
            chain.damaged(segment, str(exc), None)
            unfinished = 0
            continue
        unfinished = unfinished + 1 if chain.take(segment, line, None) else 0
    if unfinished:
        # A batch never spans segments (one write() to the open one), so a sealed segment that
        # ends inside one holds records of an append that never finished, sealed as history.
        chain.corrupt(segment, "sealed segment ends inside an unfinished batch "
                      f"({counted(unfinished, 'record')} of an append that was never "
                      "acknowledged)",
                      chain.expected_seq - unfinished, None)
    for problem in sealed_columns_match(segment):
        chain.corrupt(segment, problem, None, None)


def closing_problem(segment: Path) -> Finding | None:
    """Why the open JSONL ``segment`` must not be closed (and sealed) now, or None.

    Closing is final: a closed segment is never cut again. So bytes after its last newline (a
    torn append), a trailing unfinished batch (both ``torn``: the next append cuts them and
    keeps a copy) or a record that does not verify (``corruption``) keep it open; closed, the
    first two would turn into corruption, or into never-acknowledged records sealed as
    history. The first such finding, corruption first."""
    report = CheckReport()
    chain = _Chain(report, segment.parent.name)
    chain.expected_seq, chain.resync = int(segment.stem), True  # prev is checked by `check`
    try:
        _check_jsonl(chain, segment, is_open=True)
    except CorruptionError as exc:
        return Finding("corruption", str(segment), exc.problem, exc.seq, exc.offset)
    except OSError as exc:
        return Finding("corruption", str(segment), f"cannot read ({exc.strerror})")
    corrupt = [f for f in report.findings if f.severity == "corruption"]
    found = corrupt or report.findings
    return found[0] if found else None


_WRITER_FILES = frozenset({".lock"})  # a writer folder's own files that are not segments


def _stray(report: CheckReport, root: Path) -> None:
    """Name every file in the ledger folder that no reader reads (see ``stray`` above)."""
    for entry in sorted(root.iterdir()):
        if not entry.is_dir():
            report.findings.append(Finding("stray", str(entry), _STRAY_WHY))
            continue
        try:
            items = sorted(entry.iterdir())  # before listing: a segment born between is listed
            listed = set(list_segments(entry))
        except OSError:  # a writer folder that cannot be listed: not a question of strays
            continue
        for item in items:
            if item in listed or item.name in _WRITER_FILES:
                continue
            if item.name.endswith(".parquet.tmp"):  # compact at work (or a crash of it)
                continue
            if item.suffix == ".jsonl" and item.with_suffix(".parquet") in listed:
                continue  # sealed copy kept by a crash mid-compact; the next compact drops it
            report.findings.append(Finding("stray", str(item), _STRAY_WHY))


_STRAY_WHY = ("not a segment, so no view and no check reads it (segments are "
              "ledger/<writer>/<seq>.jsonl or .parquet, seq in 12 digits); move it where it "
              "belongs, or out of the ledger folder")


def _check_writer(report: CheckReport, writer_dir: Path, *, last_walk: bool) -> None:
    """Walk one writer's chain into ``report``; raises `SealedAway` (having added nothing
    that stays) when a listed segment was sealed away meanwhile, unless ``last_walk``."""
    chain = _Chain(report, writer_dir.name)
    try:
        segments = list_segments(writer_dir)
    except OSError as exc:  # a problem like an unreadable segment: reported, not raised
        chain.corrupt(writer_dir, f"cannot list its segments ({exc.strerror})", None, None)
        return
    for position, segment in enumerate(segments):
        report.segments += 1
        first = int(segment.stem)
        if first != chain.expected_seq:
            chain.corrupt(segment, f"segment starts at seq {first} but the chain is at "
                          f"{chain.expected_seq} (a segment file is missing or misnamed)",
                          first, None)
        try:
            if segment.suffix == ".parquet":
                _check_parquet(chain, segment)
            else:
                _check_jsonl(chain, segment, is_open=position == len(segments) - 1)
        except CorruptionError as exc:
            chain.corrupt(segment, exc.problem, exc.seq, exc.offset)
        except FileNotFoundError as exc:
            if not last_walk and segment.suffix == ".jsonl":
                raise SealedAway from None
            chain.corrupt(segment, f"cannot read ({exc.strerror})", None, None)
        except OSError as exc:
            chain.corrupt(segment, f"cannot read ({exc.strerror})", None, None)


def check_ledger(paths: LedgerPaths) -> CheckReport:
    """Verify every segment of every writer; never modifies anything.

    Safe beside a running `compact`: a JSONL segment it seals away while its writer is walked
    sends that writer's walk back to a fresh listing (its Parquet holds the same records),
    rather than reading as a missing segment."""
    report = CheckReport()
    root = paths.segments
    for writer_dir in writer_dirs(root):
        report.writers += 1
        before = (report.segments, report.events, len(report.findings))
        for last in sealing_attempts(lambda: [writer_dir]):  # noqa: B023 - used at once
            try:  # on the last walk compact waits for it: it cannot lose a race again
                _check_writer(report, writer_dir, last_walk=last)
                break
            except SealedAway:
                report.segments, report.events = before[0], before[1]
                del report.findings[before[2]:]
    if root.is_dir():
        _stray(report, root)
    if paths.recovered.is_dir():
        for kept in sorted(paths.recovered.glob("*/*.torn")):
            stem, _, rest = kept.name.partition("-at-")
            offset, _, size = rest.partition("bytes")[0].partition("-")  # ...bytes[.N].torn
            report.findings.append(Finding(
                "recovered", str(paths.segments / kept.parent.name / f"{stem}.jsonl"),
                f"an append cut {size} torn bytes (never acknowledged) at this offset; "
                f"they are kept in {kept}", None, int(offset) if offset.isdigit() else None))
    return report
