"""What one ``/proc`` scan for open writers costs (`labledger.ingest._writers.open_writers`).

Settling looks for processes that hold a file open for writing once per settle poll (default
every 1 s while it waits), for all the files of a checkpoint or run directory together. The scan
stats every open descriptor of every process this user may inspect, so its cost grows with the
descriptors on the machine, not with the files asked about. This script starts ``--procs``
sleeping processes that each hold ``--fds`` files open (a third for writing), then times the scan
asked about one file and about ``--files`` files (a large run directory), interleaved, and
prints medians with the process and descriptor counts of the whole machine.

    .venv/bin/python benchmarks/bench_open_writers.py              # 200 processes x 10 files
    .venv/bin/python benchmarks/bench_open_writers.py --quick      # 50 x 10, fewer rounds

No goal is judged (the brief: "a few ms with ~200 processes is fine"); exit status is 0 unless
the benchmark itself crashed. Linux only (elsewhere there is no /proc and the scan is free).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _bench import add_tmp_base, make_tmp

from labledger.ingest._writers import open_writers

HOLDER = """
import os, sys, time
folder, count = sys.argv[1], int(sys.argv[2])
held = [open(os.path.join(folder, f"f{i}"), "ab" if i % 3 == 0 else "rb") for i in range(count)]
print("ready", flush=True)
time.sleep(3600)
"""


def start_holders(base: Path, procs: int, fds: int) -> list[subprocess.Popen[str]]:
    started = []
    for n in range(procs):
        folder = base / f"p{n}"
        folder.mkdir()
        for i in range(fds):
            (folder / f"f{i}").write_bytes(b"x")
        started.append(subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), str(fds)],
                                        stdout=subprocess.PIPE, text=True))
    for proc in started:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
    return started


def stop_holders(holders: list[subprocess.Popen[str]]) -> None:
    for proc in holders:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def machine() -> tuple[int, int]:
    """Processes and open descriptors this user can see."""
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    fds = 0
    for pid in pids:
        try:
            fds += len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            pass
    return len(pids), fds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--procs", type=int, default=200, help="holder processes to start")
    parser.add_argument("--fds", type=int, default=10, help="files each holder keeps open")
    parser.add_argument("--files", type=int, default=20_000,
                        help="files asked about in the large case")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="50 processes, 10 rounds")
    add_tmp_base(parser)
    args = parser.parse_args()
    if args.quick:
        args.procs, args.rounds = 50, 10
    if not os.path.isdir("/proc"):
        print("no /proc: the scan finds nothing and costs nothing here")
        return
    tmp = make_tmp(args.tmp_base)
    holders: list[subprocess.Popen[str]] = []
    try:
        holders = start_holders(tmp, args.procs, args.fds)
        processes, descriptors = machine()
        target = os.stat(tmp / "p0" / "f0")
        one = {(target.st_dev, target.st_ino)}
        many = one | {(target.st_dev, -i) for i in range(1, args.files)}
        found = open_writers(one)
        assert [w.pid for w in found] == [holders[0].pid], found
        times: dict[str, list[float]] = {"1 file": [], f"{args.files:,} files": []}
        for r in range(args.rounds):
            cases = [("1 file", one), (f"{args.files:,} files", many)]
            for name, files in cases if r % 2 == 0 else reversed(cases):
                started = time.perf_counter()
                open_writers(files)
                times[name].append(time.perf_counter() - started)
        print(f"machine: {processes} processes, {descriptors:,} open descriptors visible "
              f"({args.procs} holders x {args.fds} files started); {os.cpu_count()} CPUs")
        print(f"{'scan asked about':<20} {'median ms':>10} {'min ms':>8} {'max ms':>8} "
              f"{'us/descriptor':>14}")
        for name, values in times.items():
            med = statistics.median(values)
            print(f"{name:<20} {med * 1e3:>10.2f} {min(values) * 1e3:>8.2f} "
                  f"{max(values) * 1e3:>8.2f} {med * 1e6 / max(descriptors, 1):>14.2f}")
    finally:
        stop_holders(holders)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
