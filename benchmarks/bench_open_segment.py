"""Reads of a large open segment: the unreadable-row count kept between reads vs a scan per read.

Every read (`labledger sql`, `log`, `instances`, the Python API) makes sure no JSONL record it
cannot read goes unreported. A closed segment's count was always kept; the open segment, the
one appends go to, was scanned whole by DuckDB on every read (a bulk ingest's million-event
batch is one open segment of ~365 MB: ~3 s of every query). Its count is now kept too, with the
bytes counted and their digest, and only the lines appended since are checked (each must match
its id; anything else is scanned as before).

One open segment of N events (default 200,000; the ledger's segments are configured large
enough that it stays open), then per repetition a live run's 100 more events appended, and,
interleaved (order rotated):

* ``run_query, count kept``: `ledger.query.run_query(paths, "select count(*) from events")`,
  what `labledger sql` does now;
* ``run_query, segment scanned``: the same with the kept count deleted first, which is what
  every read did before (the peer).

    .venv/bin/python benchmarks/bench_open_segment.py                 # 200,000 events, 7 reps
    .venv/bin/python benchmarks/bench_open_segment.py --events 1000000

Prints medians and their ratio; exit status 0 unless it crashes.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from typing import Any

from _bench import add_tmp_base, make_tmp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--reps", type=int, default=7)
    add_tmp_base(parser)
    args = parser.parse_args(argv)

    from labledger.ledger.ledger import Ledger
    from labledger.ledger.query import _UNREADABLE_CACHE, run_query

    tmp = make_tmp(args.tmp_base)
    try:
        project = tmp / "project"
        project.mkdir()
        ledger = Ledger.init(project)
        # segments as large as the test needs, so the big one stays open: a closed segment's
        # count was always kept (by its stamp); the open one is what this measures
        config = ledger.paths.config
        config.write_text(config.read_text()
                          .replace("segment_max_events = 200000",
                                   f"segment_max_events = {args.events + 100_000}")
                          .replace("segment_max_bytes = 134217728",
                                   f"segment_max_bytes = {1 << 40}"))
        ledger.close()
        ledger = Ledger.open(project)
        # one batch, as a bulk `labledger ingest` writes it: a batch is never split across
        # segments, so however many events, they are one open segment
        ledger.append_batch([{"kind": "run.heartbeat", "run": f"r{i % 50}",
                              "body": {"step": i, "extra": {"loss": 1.0 / (i + 1)}}}
                             for i in range(args.events)])
        (segment,) = sorted(ledger.paths.segments.glob("*/*.jsonl"))
        print(f"one open segment: {args.events:,} events, {segment.stat().st_size / 1e6:.0f} MB")
        kept = ledger.paths.home / "cache" / "query" / _UNREADABLE_CACHE
        sql = "select count(*) from events"

        def read(scan: bool) -> float:
            if scan:
                kept.unlink(missing_ok=True)
            began = time.perf_counter()
            _, rows = run_query(ledger.paths, sql)
            took = time.perf_counter() - began
            assert rows[0][0] >= args.events
            return took

        read(False)  # the first read of all scans: not timed
        contenders: dict[str, Any] = {"run_query, count kept": lambda: read(False),
                                      "run_query, segment scanned": lambda: read(True)}
        times: dict[str, list[float]] = {name: [] for name in contenders}
        names = list(contenders)
        n = 0
        for rep in range(args.reps):
            for name in names[rep % 2:] + names[:rep % 2]:
                ledger.append_batch([{"kind": "note", "body": {"text": f"live {n + i}"}}
                                     for i in range(100)])
                n += 100
                times[name].append(contenders[name]())
        ledger.close()
        (still,) = sorted(ledger.paths.segments.glob("*/*.jsonl"))
        assert still == segment, "the segment rolled over: the open-segment path was not timed"
        medians = {name: statistics.median(t) for name, t in times.items()}
        for name, median in medians.items():
            print(f"{name:28s} median {median * 1000:8.1f} ms  "
                  f"(min {min(times[name]) * 1000:.1f}, max {max(times[name]) * 1000:.1f})")
        kept_ms = medians["run_query, count kept"]
        scanned_ms = medians["run_query, segment scanned"]
        print(f"ratio: kept / scanned = {kept_ms / scanned_ms:.2f} "
              f"({(scanned_ms - kept_ms) * 1000:.0f} ms saved per read)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
