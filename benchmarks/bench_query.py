"""Query: the `runs` view over 1,000,000 sealed events vs the same SQL over a native DuckDB table.

Goal (issue 2): the ledger's `runs` view (Parquet segments sealed by `compact`, read through the
`raw_events` → `events` → `runs` views) takes at most 2x the time of the same query text over a
native DuckDB table holding the same rows (``CREATE TABLE raw_events AS SELECT ... FROM`` the
same Parquet files, then the very same ``events.sql`` and ``runs.sql``), in one run.

Events are generated quickly with `append_batch` in chunks: N runs, each one run.launched, a
run.heartbeat stream, a checkpoint.saved every fifth event and run.exited (10% fail, 5% are still
running). Contenders, interleaved (order rotated each repetition), medians reported:

* ``labledger held connection``: the query alone on a connection from `connect(paths)`; the
  goal is judged on this one, like for like with the native side (query alone, connected);
* ``labledger run_query``: `ledger.query.run_query(paths, sql)`, what `labledger sql` does
  (new connection + sandbox + views + query + fetch; the connection costs ~20-50 ms);
* ``native DuckDB table``: the query alone on the in-memory table.

    .venv/bin/python benchmarks/bench_query.py            # 1,000,000 events, 10,000 runs, 7 reps
    .venv/bin/python benchmarks/bench_query.py --quick    # 200,000 events, 2,000 runs, 3 reps

Exit status is 0 whether or not the goal is met (PASS/MISS is printed); non-zero only on a crash.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from _bench import add_tmp_base, make_tmp

GOAL = 2.0  # labledger time / native time, at most


def run_events(r: int, per_run: int) -> Iterator[dict[str, Any]]:
    """One run's events; run ``r`` % 20 == 7 is still running, % 10 == 3 failed."""
    run = f"run-{r:06d}"
    yield {"kind": "run.launched", "run": run, "instance": f"box-{r % 13}",
           "body": {"command": ["python", "train.py", "--seed", str(r)], "host": f"gpu-{r % 13}",
                    "pid": 1000 + r % 5000, "git_commit": f"{r:040x}"}}
    for i in range(1, per_run - 1):
        if i % 5 == 0:
            yield {"kind": "checkpoint.saved", "run": run, "instance": f"box-{r % 13}",
                   "body": {"path": f"ckpt/step-{i * 100:08d}.pth",
                            "digest": "blake3:" + f"{r * 1000 + i:064x}", "size": 987_654_321,
                            "step": i * 100, "metrics": {"loss": 1.0 / i, "psnr": 20 + i / 10}}}
        else:
            yield {"kind": "run.heartbeat", "run": run, "body": {"pid": 1000, "step": i * 100}}
    if r % 20 == 7:
        yield {"kind": "run.heartbeat", "run": run, "body": {"pid": 1000, "step": per_run * 100}}
    else:
        yield {"kind": "run.exited", "run": run,
               "body": {"exit_code": 1 if r % 10 == 3 else 0, "duration_s": 3600.0 + r}}


def build(project: Path, events: int, runs: int, chunk: int) -> tuple[Any, list[str]]:
    """Make a ledger of ``events`` events over ``runs`` runs, sealed; returns (paths, parquet)."""
    import msgspec

    from labledger.ledger.ledger import EventInput, Ledger
    from labledger.ledger.seal import compact

    ledger = Ledger.init(project)
    per_run = events // runs
    batch: list[EventInput] = []
    total = 0
    t0 = time.perf_counter()
    gc.disable()
    try:
        for r in range(runs):
            batch.extend(msgspec.convert(e, EventInput) for e in run_events(r, per_run))
            if len(batch) >= chunk or r == runs - 1:
                ledger.append_batch(batch)
                total += len(batch)
                batch = []
    finally:
        gc.enable()
    ledger.close()
    t1 = time.perf_counter()
    sealed = compact(ledger.paths)
    t2 = time.perf_counter()
    size = sum(p.stat().st_size for p in sealed) / 1e6
    print(f"{total:,} events in {runs:,} runs: appended in {t1 - t0:.1f} s, sealed to "
          f"{len(sealed)} Parquet files ({size:.0f} MB) in {t2 - t1:.1f} s")
    return ledger.paths, [str(p) for p in sealed]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=7, help="timed repetitions of each")
    parser.add_argument("--chunk", type=int, default=50_000, help="events per append_batch")
    parser.add_argument("--sql", default="SELECT * FROM runs", help="query text, both sides")
    parser.add_argument("--quick", action="store_true", help="200,000 events, 2,000 runs, 3 reps")
    add_tmp_base(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.events, args.runs, args.reps = 200_000, 2_000, 3

    import duckdb

    from labledger.ledger.query import COLUMNS, connect, run_query, view_sql

    tmp = make_tmp(args.tmp_base)
    cons: list[Any] = []
    try:
        paths, parquet = build(tmp / "project", args.events, args.runs, args.chunk)

        native = duckdb.connect(":memory:")
        cons.append(native)
        files = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in parquet) + "]"
        t0 = time.perf_counter()
        native.execute(f"CREATE TABLE raw_events AS SELECT {', '.join(COLUMNS)} "
                       f"FROM read_parquet({files})")
        native.execute("SET TimeZone = 'UTC'")
        for name in ("events", "checkpoints", "runs"):
            native.execute(view_sql(name))
        rows = native.execute("SELECT count(*) FROM raw_events").fetchone()
        print(f"native table raw_events: {rows[0] if rows else 0:,} rows, loaded in "
              f"{time.perf_counter() - t0:.1f} s")
        held = connect(paths)
        cons.append(held)

        def on(con: Any) -> Callable[[], list[Any]]:
            return lambda: con.execute(args.sql).fetchall()

        contenders: dict[str, Callable[[], Any]] = {
            "labledger held connection": on(held),
            "labledger run_query": lambda: run_query(paths, args.sql)[1],
            "native DuckDB table": on(native),
        }
        answers = {name: sorted(map(repr, fn())) for name, fn in contenders.items()}  # warm-up
        same = len({tuple(a) for a in answers.values()}) == 1
        print(f"query: {args.sql!r} -> {len(answers['native DuckDB table']):,} rows; "
              f"answers {'identical' if same else 'DIFFER'} on all sides")

        names = list(contenders)
        times: dict[str, list[float]] = {name: [] for name in names}
        for rep in range(args.reps):
            order = names[rep % len(names):] + names[:rep % len(names)]
            for name in order:
                start = time.perf_counter()
                contenders[name]()
                times[name].append(time.perf_counter() - start)
            print(f"  rep {rep + 1}: " + ", ".join(f"{n} {times[n][-1] * 1000:.0f} ms"
                                                   for n in names), flush=True)

        base = statistics.median(times["native DuckDB table"])
        print()
        print(f"{'contender':28s} {'median ms':>10s} {'min ms':>8s} {'vs native':>10s}")
        for name in names:
            med = statistics.median(times[name])
            print(f"{name:28s} {med * 1000:10.1f} {min(times[name]) * 1000:8.1f} "
                  f"{med / base:10.2f}")
        ratio = statistics.median(times["labledger held connection"]) / base
        e2e_ratio = statistics.median(times["labledger run_query"]) / base
        verdict = "PASS" if ratio <= GOAL else "MISS"
        print()
        print(f"labledger / native, the query on a held connection: {ratio:.2f}; goal <= {GOAL}: "
              f"{verdict}  (end to end with run_query's new connection: {e2e_ratio:.2f})")
    finally:
        for con in cons:
            con.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
