"""Durable single-event append: labledger vs one raw write+fsync of the same bytes.

Goal (issue 2): ``Ledger.append`` sustains at least 0.8 of the rate of one ``os.write`` +
``os.fsync`` of a record-sized line to a file on the same disk: the fsync is the cost, everything
else must be small beside it. SQLite (WAL, synchronous=FULL, one transaction per event) and DuckDB
(file database, autocommit inserts) inserting the same events are reported as peers.

The measurements are interleaved (one block of each per round, the order rotated every round) so
a noisy, shared machine hurts all contenders alike; the table shows medians over the rounds and
the goal is judged on the median of the per-round paired ratios labledger/raw.

    .venv/bin/python benchmarks/bench_append.py            # 7 rounds x 400 appends each
    .venv/bin/python benchmarks/bench_append.py --quick    # 3 rounds x 100

Exit status is 0 whether or not the goal is met (PASS/MISS is printed); non-zero only on a crash.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _bench import add_tmp_base, make_tmp

GOAL = 0.8  # labledger rate / raw write+fsync rate, at least

COLUMNS = ("id", "v", "seq", "prev", "ts", "writer", "actor", "kind", "run", "instance",
           "recorded", "body")


def body_for(kind: str, i: int) -> dict[str, Any]:
    if kind == "note":
        return {"text": f"epoch {i // 100} step {i}: loss went down, lr 3e-4, nothing unusual"}
    return {"path": f"checkpoints/step-{i:08d}.pth", "digest": "blake3:" + f"{i:064x}",
            "size": 1_234_567_890 + i, "step": i * 100, "epoch": i // 100, "role": "latest",
            "metrics": {"loss": 0.1234, "psnr": 31.42}}


Timer = Callable[[int, int], list[int]]  # (first index, count) -> per-op latencies in ns


def ledger_timer(project: Path, kind: str) -> tuple[Timer, bytes, Any]:
    from labledger.ledger.ledger import Ledger

    ledger = Ledger.init(project)
    ledger.append(kind, run="bench-run", **body_for(kind, 0))  # open the segment, warm up
    segment = next((ledger.paths.segments / ledger.writer).glob("*.jsonl"))
    line = segment.read_bytes().splitlines(keepends=True)[-1]

    def run(first: int, count: int) -> list[int]:
        out = []
        clock = time.perf_counter_ns
        append = ledger.append
        for i in range(first, first + count):
            body = body_for(kind, i)
            t0 = clock()
            append(kind, run="bench-run", **body)
            out.append(clock() - t0)
        return out

    return run, line, ledger


def raw_timer(path: Path, line: bytes) -> tuple[Timer, Callable[[], None]]:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)

    def run(first: int, count: int) -> list[int]:
        out = []
        clock = time.perf_counter_ns
        for _ in range(count):
            t0 = clock()
            os.write(fd, line)
            os.fsync(fd)
            out.append(clock() - t0)
        return out

    return run, lambda: os.close(fd)


def row_for(template: dict[str, Any], i: int) -> tuple[Any, ...]:
    row = dict(template, seq=i, id=f"{i:064x}")
    return tuple(row[c] for c in COLUMNS)


def sqlite_timer(path: Path, template: dict[str, Any]) -> tuple[Timer, Callable[[], None]]:
    con = sqlite3.connect(path, isolation_level=None)  # autocommit: one transaction per INSERT
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.execute(f"CREATE TABLE events ({', '.join(COLUMNS)})")
    sql = f"INSERT INTO events VALUES ({', '.join('?' * len(COLUMNS))})"

    def run(first: int, count: int) -> list[int]:
        out = []
        clock = time.perf_counter_ns
        for i in range(first, first + count):
            row = row_for(template, i)
            t0 = clock()
            con.execute(sql, row)
            out.append(clock() - t0)
        return out

    return run, con.close


def duckdb_timer(path: Path, template: dict[str, Any]) -> tuple[Timer, Callable[[], None]]:
    import duckdb

    con = duckdb.connect(str(path))
    types = {"v": "INTEGER", "seq": "BIGINT"}
    con.execute("CREATE TABLE events (" + ", ".join(f"{c} {types.get(c, 'VARCHAR')}"
                                                    for c in COLUMNS) + ")")
    sql = f"INSERT INTO events VALUES ({', '.join('?' * len(COLUMNS))})"

    def run(first: int, count: int) -> list[int]:
        out = []
        clock = time.perf_counter_ns
        for i in range(first, first + count):
            row = row_for(template, i)
            t0 = clock()
            con.execute(sql, row)  # autocommit: each INSERT commits (WAL write + sync)
            out.append(clock() - t0)
        return out

    return run, con.close


def pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--ops", type=int, default=400, help="appends per contender per round")
    parser.add_argument("--quick", action="store_true", help="3 rounds x 100 appends")
    parser.add_argument("--kind", choices=["checkpoint.saved", "note"], default="checkpoint.saved")
    parser.add_argument("--no-peers", action="store_true", help="skip SQLite and DuckDB")
    add_tmp_base(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.ops = 3, 100

    tmp = make_tmp(args.tmp_base)
    closers: list[Callable[[], None]] = []
    try:
        lb_run, line, ledger = ledger_timer(tmp / "project", args.kind)
        closers.append(ledger.close)
        record = ledger.records().__next__().to_dict()
        template = {**record, "body": json.dumps(record["body"], separators=(",", ":"))}
        raw_run, raw_close = raw_timer(tmp / "raw.bin", line)
        closers.append(raw_close)
        contenders: dict[str, Timer] = {"labledger": lb_run, "raw write+fsync": raw_run}
        if not args.no_peers:
            sq_run, sq_close = sqlite_timer(tmp / "peer.sqlite", template)
            dd_run, dd_close = duckdb_timer(tmp / "peer.duckdb", template)
            closers += [sq_close, dd_close]
            contenders["sqlite WAL sync=FULL"] = sq_run
            contenders["duckdb autocommit"] = dd_run
        print(f"event: {args.kind}, record line {len(line)} bytes; {args.rounds} rounds x "
              f"{args.ops} ops per contender, interleaved")

        names = list(contenders)
        for name in names:  # warm-up, not counted
            contenders[name](0, max(5, args.ops // 20))
        rates: dict[str, list[float]] = {n: [] for n in names}
        lat: dict[str, list[int]] = {n: [] for n in names}
        paired: list[float] = []
        counter = 1_000
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            this_round: dict[str, float] = {}
            for name in order:
                samples = contenders[name](counter, args.ops)
                counter += args.ops
                rate = len(samples) / (sum(samples) / 1e9)
                this_round[name] = rate
                rates[name].append(rate)
                lat[name].extend(samples)
            paired.append(this_round["labledger"] / this_round["raw write+fsync"])
            print(f"  round {r + 1}: " + ", ".join(f"{n} {this_round[n]:,.0f}/s" for n in names),
                  flush=True)

        raw_med = statistics.median(rates["raw write+fsync"])
        print()
        print(f"{'contender':24s} {'median ev/s':>12s} {'p50 us':>9s} {'p99 us':>9s} "
              f"{'vs raw':>7s}")
        for name in names:
            med = statistics.median(rates[name])
            print(f"{name:24s} {med:12,.0f} {pct(lat[name], 0.5):9.1f} {pct(lat[name], 0.99):9.1f} "
                  f"{med / raw_med:7.2f}")
        ratio = statistics.median(paired)
        verdict = "PASS" if ratio >= GOAL else "MISS"
        print()
        print(f"labledger / raw: median of paired per-round ratios {ratio:.3f} "
              f"(ratio of medians {statistics.median(rates['labledger']) / raw_med:.3f}); "
              f"goal >= {GOAL}: {verdict}")
    finally:
        for close in closers:
            try:
                close()
            except Exception:  # noqa: BLE001 - cleanup must go on
                pass
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
