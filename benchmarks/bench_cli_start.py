"""CLI start: `labledger emit note --set text=x` whole-process wall time vs `python -c pass`.

Goal (issue 2): `emit`, which runs inside training loops, takes at most 4x a bare interpreter
start from the same venv. Both are run as subprocesses, interleaved (order rotated), many times;
medians reported. The emit really appends (one fsync) to a ledger in a temp dir. Two reference
commands run alongside (not judged): importing only click, msgspec and blake3 (the floor of any
emit built on them) and importing every module emit imports, doing nothing (emit minus this is
its own run time).

Also printed: which heavy modules the emit path imported (should be none of duckdb, pyarrow,
torch, paramiko, numpy, pandas) and the `-X importtime` top 10 (by cumulative time) of the same
command, to show where the time goes.

    .venv/bin/python benchmarks/bench_cli_start.py           # 40 runs of each
    .venv/bin/python benchmarks/bench_cli_start.py --quick   # 10 runs of each

Exit status is 0 whether or not the goal is met (PASS/MISS is printed); non-zero only on a crash.
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

GOAL = 4.0  # emit wall time / bare interpreter wall time, at most
PYTHON = Path(sys.executable)
LABLEDGER = PYTHON.with_name("labledger")
HEAVY = ("duckdb", "pyarrow", "torch", "paramiko", "numpy", "pandas")


def wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stderr.decode()}")
    return elapsed


def importtime(cmd: list[str], env: dict[str, str]) -> list[tuple[int, int, int, str]]:
    """(cumulative us, self us, depth, module) of each import of ``cmd`` under -X importtime."""
    proc = subprocess.run([str(PYTHON), "-X", "importtime", *cmd], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"importtime run failed: {proc.stderr[-2000:]}")
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        self_us, cum_us, name = line[len("import time:"):].split("|", 2)
        depth = (len(name) - len(name.lstrip(" "))) // 2
        rows.append((int(cum_us), int(self_us), depth, name.strip()))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=40, help="runs of each command")
    parser.add_argument("--quick", action="store_true", help="10 runs of each")
    add_tmp_base(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.reps = 10

    import compileall

    import labledger.ledger
    from labledger.ledger.ledger import Ledger

    # As installed: pip byte-compiles a package, but an editable install under
    # PYTHONDONTWRITEBYTECODE=1 (set here) would recompile every module on every run.
    compileall.compile_dir(os.path.dirname(os.path.dirname(labledger.ledger.__file__)), quiet=1)
    tmp = make_tmp(args.tmp_base)
    try:
        project = tmp / "project"
        Ledger.init(project)
        env = dict(os.environ, LABLEDGER_ROOT=str(project))
        env.pop("PYTHONPROFILEIMPORTTIME", None)
        emit = [str(LABLEDGER), "emit", "note", "--set", "text=x"]
        bare = [str(PYTHON), "-c", "pass"]
        # Reference points (not judged): the plain `emit` takes the fast path (no click, no
        # msgspec); `emit -q` takes the full click CLI, as any unusual option does.
        full = [*emit, "-q"]
        floor = [str(PYTHON), "-c", "import click, msgspec, blake3"]
        contenders = {"labledger emit": emit, "python -c pass": bare,
                      "labledger emit -q (full CLI)": full, "import click,msgspec,blake3": floor}
        for cmd in contenders.values():  # warm-up: page cache and .pyc files
            for _ in range(3):
                wall(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in contenders}
        names = list(contenders)
        for rep in range(args.reps):
            for name in names[rep % len(names):] + names[:rep % len(names)]:
                times[name].append(wall(contenders[name], env))

        base = statistics.median(times["python -c pass"])
        print(f"{args.reps} runs of each, interleaved; emit appends to {project}")
        print()
        print(f"{'command':28s} {'median ms':>10s} {'min ms':>8s} {'p90 ms':>8s} {'vs bare':>8s}")
        for name in names:
            ordered = sorted(times[name])
            med = statistics.median(ordered)
            print(f"{name:28s} {med * 1000:10.1f} {ordered[0] * 1000:8.1f} "
                  f"{ordered[int(0.9 * (len(ordered) - 1))] * 1000:8.1f} {med / base:8.2f}")
        ratio = statistics.median(times["labledger emit"]) / base
        verdict = "PASS" if ratio <= GOAL else "MISS"
        print()
        print(f"emit / bare interpreter: {ratio:.2f}; goal <= {GOAL}: {verdict}")

        rows = importtime([str(LABLEDGER), *emit[1:]], env)
        modules = {name for _, _, _, name in rows}
        heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
        print()
        print(f"heavy modules imported by emit: {', '.join(heavy) if heavy else 'none'} "
              f"(checked: {', '.join(HEAVY)}); {len(modules)} modules imported in all")
        top_level = sum(cum for cum, _, depth, _ in rows if depth == 0)
        print(f"-X importtime: {top_level / 1000:.1f} ms of imports in all "
              "(includes the interpreter's own site imports); top 10 by cumulative time:")
        print(f"  {'cumulative ms':>13s} {'self ms':>8s}  module "
              "(indented: imported by the one above)")
        for cum, self_us, depth, name in sorted(rows, reverse=True)[:10]:
            print(f"  {cum / 1000:13.1f} {self_us / 1000:8.1f}  {'  ' * depth}{name}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
