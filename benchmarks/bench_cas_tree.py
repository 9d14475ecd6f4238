"""Storing a tree of many small files: ``Store.put_tree`` vs ``git add -A``.

Goal (issue 3): ``put_tree`` of 20,000 random files of 1-16 KiB takes <= 1.5x the time of
``git add -A`` of the same tree into a fresh repository in git's durable batch mode
(``-c core.fsync=loose-object -c core.fsyncMethod=batch``). Plain ``git add -A`` (git's default
fsync settings, which do not fsync loose objects) is reported too.

Each round uses a fresh store and a fresh ``--git-dir`` (so nothing is deduplicated against an
earlier round); rounds are interleaved with the order rotated, and medians are shown. The tree
and the stores live under a temp folder beside the repo (same filesystem) and are removed at
the end.

    .venv/bin/python benchmarks/bench_cas_tree.py                   # 20,000 files, 5 rounds
    .venv/bin/python benchmarks/bench_cas_tree.py --files 2000 --rounds 3
    .venv/bin/python benchmarks/bench_cas_tree.py --quick           # 2,000 files, 3 rounds

Exit status is 0 whether or not the goal is met (PASS/MISS is printed).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from labledger.cas import Store

REPO = Path(__file__).resolve().parent.parent
PER_DIR = 200


def make_tree(root: Path, files: int, seed: int = 3) -> int:
    rng = random.Random(seed)
    pool = os.urandom(1 << 20)
    total = 0
    for i in range(files):
        d = root / f"d{i // PER_DIR:03d}"
        if i % PER_DIR == 0:
            d.mkdir(parents=True)
        size = rng.randint(1024, 16 * 1024)
        start = rng.randrange(0, len(pool) - size)
        body = i.to_bytes(8, "little") + pool[start : start + size - 8]
        (d / f"f{i:05d}.bin").write_bytes(body)
        total += size
    return total


def git_add(tree: Path, git_dir: Path, batch_fsync: bool) -> None:
    shutil.rmtree(git_dir, ignore_errors=True)
    env = dict(os.environ, GIT_DIR=str(git_dir), GIT_WORK_TREE=str(tree))
    subprocess.run(["git", "init", "-q"], env=env, check=True)
    opts = ["-c", "core.fsync=loose-object", "-c", "core.fsyncMethod=batch"] if batch_fsync \
        else []
    subprocess.run(["git", *opts, "add", "-A"], env=env, check=True, cwd=tree)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="2,000 files, 3 rounds")
    args = parser.parse_args()
    if args.quick:
        args.files, args.rounds = 2000, 3
    base = Path(tempfile.mkdtemp(prefix=".bench-cas-tree-", dir=REPO / "benchmarks"))
    try:
        run(args, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run(args: argparse.Namespace, base: Path) -> None:
    tree = base / "tree"
    total = make_tree(tree, args.files)
    git_version = subprocess.check_output(["git", "--version"], text=True).split()[-1]
    print(f"tree: {args.files} files, {total / 2**20:.1f} MiB in {base}, {args.rounds} rounds,"
          f" {os.cpu_count()} CPUs, git {git_version}", flush=True)

    def put() -> None:
        root = base / "store"
        shutil.rmtree(root, ignore_errors=True)
        Store(root).put_tree(tree)

    contenders: dict[str, Callable[[], None]] = {
        "labledger put_tree": put,
        "git add -A (fsync batch)": lambda: git_add(tree, base / "git-batch", True),
        "git add -A (plain)": lambda: git_add(tree, base / "git-plain", False),
    }
    times: dict[str, list[float]] = {n: [] for n in contenders}
    names = list(contenders)
    for r in range(args.rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            t0 = time.perf_counter()
            contenders[name]()
            times[name].append(time.perf_counter() - t0)
        print(f"  round {r + 1}/{args.rounds} done", flush=True)
    med = {n: statistics.median(ts) for n, ts in times.items()}
    print(f"\n{'contender':28s} {'median s':>9s} {'files/s':>9s}")
    for n in names:
        print(f"{n:28s} {med[n]:9.3f} {args.files / med[n]:9.0f}")
    ratio = med["labledger put_tree"] / med["git add -A (fsync batch)"]
    print(f"\nput_tree / git add -A (fsync batch) = {ratio:.2f}  (goal <= 1.50) "
          f"{'PASS' if ratio <= 1.5 else 'MISS'}")
    print(f"put_tree / git add -A (plain)       = "
          f"{med['labledger put_tree'] / med['git add -A (plain)']:.2f}")


if __name__ == "__main__":
    main()
