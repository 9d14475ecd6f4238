"""Batch ingest: `labledger ingest FILE` (whole process), `Ledger.ingest`/`append_batch`: events/s.

Goal (issue 2): at least 200,000 events/s through `ingest`. The file holds realistic training
events (per run: one run.launched, heartbeats, a checkpoint.saved every fifth event, run.exited).
Each repetition ingests into a fresh ledger (made beforehand, not timed), so every one does the
same work: read, decode, validate, hash-chain, one write, one fsync. Reported side by side:

* ``labledger ingest FILE``: wall time of the whole CLI process (interpreter start included),
  and its peak RSS;
* ``Ledger.ingest(bytes)``: the Python API the CLI runs, on the file's bytes, in this process
  alone (the CLI also parses the second half of a large input in a forked child);
* ``append_batch(dicts)``: the general Python API on the same events as plain dicts;
* ``append_batch(EventInput)``: the same, already decoded;
* ``write+fsync``: the physical limit, one write + fsync of the resulting segment's bytes.

Repetitions are interleaved (the order rotated each time) and medians reported.

    .venv/bin/python benchmarks/bench_ingest.py             # 1,000,000 events x 5
    .venv/bin/python benchmarks/bench_ingest.py --quick     # 200,000 events x 3

Exit status is 0 whether or not the goal is met (PASS/MISS is printed); non-zero only on a crash.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _bench import add_tmp_base, make_tmp

GOAL = 200_000  # events/s through `labledger ingest`, at least
LABLEDGER = Path(sys.executable).with_name("labledger")


def high_water_mib(pid: int) -> int:
    """A running process's peak RSS (VmHWM) in MiB; 0 once it is gone.

    Read while it runs: ``ru_maxrss`` of a child counts the parent's memory it was forked with.
    """
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def make_events(n: int, per_run: int) -> list[dict[str, Any]]:
    """``n`` realistic events: runs of ``per_run`` (launch, heartbeats, checkpoints, exit)."""
    out: list[dict[str, Any]] = []
    r = 0
    while len(out) < n:
        run = f"run-{r:06d}"
        out.append({"kind": "run.launched", "run": run, "instance": f"box-{r % 7}",
                    "body": {"command": ["python", "train.py", "--config", "cfg/base.yaml"],
                             "cwd": "/home/me/denoise", "host": f"gpu-box-{r % 7}", "pid": 4242,
                             "git_commit": f"{r:040x}", "git_dirty": False,
                             "gpus": ["NVIDIA H100 80GB HBM3"]}})
        for i in range(1, per_run - 1):
            if len(out) >= n - 1:
                break
            if i % 5 == 0:
                out.append({"kind": "checkpoint.saved", "run": run,
                            "body": {"path": f"ckpt/step-{i * 100:08d}.pth",
                                     "digest": "blake3:" + f"{r * 1000 + i:064x}",
                                     "size": 1_234_567_890, "step": i * 100, "role": "latest",
                                     "metrics": {"loss": 0.1234, "psnr": 31.42}}})
            else:
                out.append({"kind": "run.heartbeat", "run": run,
                            "body": {"pid": 4242, "step": i * 100}})
        out.append({"kind": "run.exited", "run": run,
                    "body": {"exit_code": 0 if r % 10 else 1, "duration_s": 3600.5}})
        r += 1
    return out[:n]


def fresh_ledger(tmp: Path, name: str) -> Any:
    from labledger.ledger.ledger import Ledger

    project = tmp / name
    shutil.rmtree(project, ignore_errors=True)
    return Ledger.init(project)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events in the file")
    parser.add_argument("--per-run", type=int, default=100, help="events per run")
    parser.add_argument("--reps", type=int, default=5, help="repetitions of each contender")
    parser.add_argument("--quick", action="store_true", help="200,000 events x 3 repetitions")
    parser.add_argument("--cli-only", action="store_true", help="skip the in-process paths")
    add_tmp_base(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.events, args.reps = 200_000, 3

    import msgspec

    from labledger.ledger.ledger import EventInput, Ledger

    tmp = make_tmp(args.tmp_base)
    try:
        t0 = time.perf_counter()
        events = make_events(args.events, args.per_run)
        source = tmp / "events.jsonl"
        encoder = msgspec.json.Encoder()
        source.write_bytes(b"".join(encoder.encode(e) + b"\n" for e in events))
        print(f"{len(events):,} events, {source.stat().st_size / 1e6:.1f} MB of JSON lines "
              f"(made in {time.perf_counter() - t0:.1f} s); {args.reps} interleaved repetitions; "
              f"load average {load()}, {os.cpu_count()} CPUs")

        segment_bytes: bytes = b""
        n = len(events)

        cpu: dict[str, list[float]] = {}

        def child_cpu() -> float:
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            return usage.ru_utime + usage.ru_stime

        rss: list[int] = []

        def cli() -> float:
            nonlocal segment_bytes
            ledger = fresh_ledger(tmp, "cli")
            cpu0 = child_cpu()
            with tempfile.TemporaryFile() as errors:
                start = time.perf_counter()
                proc = subprocess.Popen([str(LABLEDGER), "--root", str(ledger.paths.project),
                                         "-q", "ingest", str(source)],
                                        stdout=subprocess.DEVNULL, stderr=errors)
                peak = 0
                while proc.poll() is None:
                    peak = max(peak, high_water_mib(proc.pid))
                    time.sleep(0.01)
                elapsed = time.perf_counter() - start
                errors.seek(0)
                stderr = errors.read().decode(errors="replace")
            cpu.setdefault("labledger ingest FILE (CLI)", []).append(child_cpu() - cpu0)
            rss.append(peak)
            if proc.returncode != 0:
                raise SystemExit(f"labledger ingest failed ({proc.returncode}): {stderr}")
            if not segment_bytes:
                segs = sorted((ledger.paths.segments / ledger.writer).glob("*.jsonl"))
                segment_bytes = b"".join(s.read_bytes() for s in segs)
                lines = segment_bytes.count(b"\n")
                if lines != n:
                    raise SystemExit(f"ingest wrote {lines} records, expected {n}")
            return elapsed

        def api(items: list[Any], label: str) -> Callable[[], float]:
            def run() -> float:
                ledger = fresh_ledger(tmp, "api")
                cpu0 = time.process_time()
                start = time.perf_counter()
                records = ledger.append_batch(items)
                elapsed = time.perf_counter() - start
                cpu.setdefault(label, []).append(time.process_time() - cpu0)
                ledger.close()
                assert len(records) == n
                del records
                gc.collect()
                return elapsed
            return run

        data = source.read_bytes()

        def api_ingest() -> float:
            ledger = fresh_ledger(tmp, "api")
            cpu0 = time.process_time()
            start = time.perf_counter()
            done = ledger.ingest(data)
            elapsed = time.perf_counter() - start
            cpu.setdefault("Ledger.ingest(bytes)", []).append(time.process_time() - cpu0)
            ledger.close()
            assert done.appended == n
            gc.collect()
            return elapsed

        def raw() -> float:
            path = tmp / "raw.bin"
            path.unlink(missing_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                start = time.perf_counter()
                view = memoryview(segment_bytes)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
                return time.perf_counter() - start
            finally:
                os.close(fd)

        contenders: dict[str, Callable[[], float]] = {"labledger ingest FILE (CLI)": cli}
        if not args.cli_only:
            decoded = [msgspec.convert(e, EventInput) for e in events]
            if hasattr(Ledger, "ingest"):  # absent before the bulk path: the bench runs on both
                contenders["Ledger.ingest(bytes)"] = api_ingest
            contenders["append_batch(dicts)"] = api(events, "append_batch(dicts)")
            contenders["append_batch(EventInput)"] = api(decoded, "append_batch(EventInput)")
        contenders["write+fsync of the segment"] = raw

        gc.collect()
        gc.freeze()  # the benchmark's own inputs must not make the collector slower for the API
        names = list(contenders)
        times: dict[str, list[float]] = {name: [] for name in names}
        cli()  # warm-up (page cache, .pyc) and the segment bytes for the raw contender
        cpu.clear()
        rss.clear()
        for rep in range(args.reps):
            order = names[rep % len(names):] + names[:rep % len(names)]
            for name in order:
                times[name].append(contenders[name]())
            print(f"  rep {rep + 1}: " + ", ".join(f"{nm} {times[nm][-1]:.2f} s" for nm in names),
                  flush=True)

        print()
        print(f"{'contender':30s} {'median s':>9s} {'events/s':>12s} {'MB/s':>7s} "
              f"{'CPU s':>7s} {'events/CPU-s':>13s}")
        mb = len(segment_bytes) / 1e6
        for name in names:
            med = statistics.median(times[name])
            line = f"{name:30s} {med:9.3f} {n / med:12,.0f} {mb / med:7.0f}"
            if name in cpu:
                cpu_med = statistics.median(cpu[name])
                line += f" {cpu_med:7.2f} {n / cpu_med:13,.0f}"
            print(line)
        print(f"labledger ingest peak RSS: median {statistics.median(rss):,.0f} MiB, "
              f"max {max(rss):,.0f} MiB")
        rate = n / statistics.median(times[names[0]])
        verdict = "PASS" if rate >= GOAL else "MISS"
        print()
        print(f"(MB/s is of the {mb:.0f} MB written to the ledger segment; CPU s is user+sys of "
              "the process, a check on how much a loaded machine slowed the wall time)")
        print(f"load average at the end: {load()}")
        print(f"labledger ingest: {rate:,.0f} events/s = {rate / GOAL:.2f} x the goal of "
              f"{GOAL:,} events/s: {verdict}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
