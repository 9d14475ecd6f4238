"""What the box hasher's ``/proc`` pass (files still being written) adds to a pull's hash step.

`labledger pull` over SSH hashes the listed files in one remote ``python3 -c`` command; once
they are hashed, the same script makes ONE pass over the box's ``/proc`` to name the processes
that still hold one of them open for writing (`labledger.ingest.transport_ssh._PY_WRITERS`).
This script builds a worst-case listing (``--files`` small files, 20,000 by default, in folders
as a run's ``vis/`` output is), optionally starts ``--procs`` sleeping processes that each hold
``--fds`` files open (a third for writing: a busy box), and times, interleaved:

- the /proc pass alone, timed inside the box-side script (wall ms);
- the box-side script (``python3 -c``, no SSH), in CPU ms: hash only (``_PY_HASH``, which
  already takes each file's identity with an ``fstat`` of the descriptor it hashes) vs hash +
  the /proc pass (``_PY_HASHER``);
- the whole hash step of a pull (`SshTransport.hash_files` over a loopback sshd started as
  the tests start theirs) with either script.

    .venv/bin/python benchmarks/bench_pull_writers.py                 # 20,000 files, idle box
    .venv/bin/python benchmarks/bench_pull_writers.py --procs 200     # ... and 200 holders
    .venv/bin/python benchmarks/bench_pull_writers.py --quick         # 2,000 files, 5 rounds

No goal is judged; exit status is 0 unless the benchmark itself crashed. Linux only.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from _bench import add_tmp_base, make_tmp
from bench_open_writers import machine, start_holders, stop_holders
from bench_pull import start_sshd

from labledger.ingest import transport_ssh
from labledger.ingest.transport_ssh import SshTransport, parse_target


def make_listing(root: Path, files: int) -> list[str]:
    """``files`` small files, 200 to a folder (a run's per-sample outputs); their names."""
    names = []
    for i in range(files):
        folder = root / "vis" / f"cond{i // 200:03d}"
        if i % 200 == 0:
            folder.mkdir(parents=True)
        (folder / f"sample{i % 200:03d}.png").write_bytes(b"\x89PNG\r\n" + os.urandom(200))
        names.append(f"vis/cond{i // 200:03d}/sample{i % 200:03d}.png")
    return names


# The /proc pass alone, timed inside the box-side script: ``ids`` built as `_PY_HASH` builds it
# (outside the timer), then `_PY_WRITERS` between two clock reads; the ms go to stderr.
PASS_ALONE = r"""
import os, sys, time
out = sys.stdout.buffer
ids = {}
for n in sys.stdin.buffer.read().split(b"\0"):
    if n:
        st = os.stat(n)
        ids.setdefault((st.st_dev, st.st_ino), []).append(n)
started = time.perf_counter()
""" + transport_ssh._PY_WRITERS + r"""
sys.stderr.write("%.3f\n" % ((time.perf_counter() - started) * 1e3))
"""


def pass_alone(root: Path, stdin: bytes) -> float:
    done = subprocess.run(["python3", "-c", PASS_ALONE], input=stdin, cwd=root, check=True,
                          capture_output=True)
    return float(done.stderr.decode().split()[-1])


def script_cpu_ms(script: str, root: Path, stdin: bytes) -> float:
    """CPU milliseconds (user + system) the box-side script takes: steadier than the wall
    clock on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["python3", "-c", script], input=stdin, cwd=root, check=True,
                   stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3


def ms(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=20_000, help="files listed")
    parser.add_argument("--procs", type=int, default=0, help="holder processes to start")
    parser.add_argument("--fds", type=int, default=10, help="files each holder keeps open")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--quick", action="store_true", help="2,000 files, 5 rounds")
    add_tmp_base(parser)
    args = parser.parse_args()
    if args.quick:
        args.files, args.rounds = 2_000, 5
    tmp = make_tmp(args.tmp_base)
    holders: list[subprocess.Popen[str]] = []
    sshd = None
    try:
        root = tmp / "box"
        names = make_listing(root, args.files)
        if args.procs:
            (tmp / "holders").mkdir()
            holders = start_holders(tmp / "holders", args.procs, args.fds)
        processes, descriptors = machine()
        stdin = b"".join(n.encode() + b"\0" for n in names)
        (tmp / "sshd").mkdir()
        sshd, port, key = start_sshd(tmp / "sshd")
        user = os.environ.get("USER") or "root"
        transport = SshTransport(parse_target(f"{user}@127.0.0.1:{port}:{root}"),
                                 known_hosts=tmp / "sshd" / "known_hosts", identity=key,
                                 ssh_config=tmp / "none", use_agent=False, hasher="python",
                                 user_known_hosts=tmp / "none")
        scripts = {"hash only": transport_ssh._PY_HASH,
                   "hash + /proc pass": transport_ssh._PY_HASHER}
        alone: list[float] = []
        local: dict[str, list[float]] = {k: [] for k in scripts}
        remote: dict[str, list[float]] = {k: [] for k in scripts}
        try:
            for r in range(args.rounds):
                order = list(scripts) if r % 2 == 0 else list(reversed(scripts))
                alone.append(pass_alone(root, stdin))
                for name in order:
                    local[name].append(script_cpu_ms(scripts[name], root, stdin))
                for name in order:
                    transport_ssh._PY_HASHER = scripts[name]  # what hash_files sends
                    remote[name].append(ms(lambda: transport.hash_files(names)))
        finally:
            transport_ssh._PY_HASHER = scripts["hash + /proc pass"]
            transport.close()
        print(f"listing: {args.files:,} files; machine: {processes} processes, "
              f"{descriptors:,} open descriptors visible ({args.procs} holders x {args.fds} "
              f"files started); {os.cpu_count()} CPUs; {args.rounds} rounds, interleaved")
        width = 56
        print(f"{'':<{width}} {'median ms':>10} {'min ms':>8} {'max ms':>8}")
        print(f"{'the /proc pass alone (timed in the script)':<{width}} "
              f"{statistics.median(alone):>10.2f} {min(alone):>8.2f} {max(alone):>8.2f}")
        for label, table in (("box script (CPU ms)", local),
                             ("hash_files over SSH (wall ms)", remote)):
            for name, values in table.items():
                print(f"{label + ': ' + name:<{width}} {statistics.median(values):>10.1f} "
                      f"{min(values):>8.1f} {max(values):>8.1f}")
            extra = statistics.median(table["hash + /proc pass"]) - statistics.median(
                table["hash only"])
            print(f"{label + ': difference of the medians':<{width}} {extra:>10.1f} "
                  f"({extra / statistics.median(table['hash only']) * 100:+.1f}%)")
    finally:
        if sshd is not None:
            sshd.terminate()
            sshd.wait()
        stop_holders(holders)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
