"""EVIDENCE.json's projection over a mature ledger: every event read vs the latest heartbeats only.

A project's ledger is mostly ``run.heartbeat`` events (one per interval per run). `build_evidence`
(`labledger evidence`, `evidence --check`, the pre-commit hook with an EVIDENCE.json) needs of them
only the latest of each run and instance (see `reconcile.pull_verified.load_events`), and reads
the ledger with ``latest_heartbeats=True``; this measures what that saves, on the same ledger,
with the same document.

The project (deterministic): 5 runs on two boxes, 300,000 heartbeats in all (``--beats``), one
every 10 s, written by the boxes' writers; from the laptop's writer, per run a launch, a full pull
listing of 3 files, their pulls (real objects in the store), the checkpoint verified, an exit
(but for one run, still beating after its listing: not pull-verified), and 2 claims per run.

Contenders, interleaved (order rotated every round), medians over the rounds:

* ``full (JSONL)``: ``build_evidence(ledger, events=load_events(ledger))``: every event read,
  verified and decoded, as before;
* ``latest (JSONL)``: ``build_evidence(ledger)``: only the latest heartbeats read;
* ``full (sealed)``, ``latest (sealed)``: the same over a copy whose segments `compact` sealed
  to Parquet.

The documents are checked to be identical before any timing.

    .venv/bin/python benchmarks/bench_evidence_ledger.py            # 7 rounds
    .venv/bin/python benchmarks/bench_evidence_ledger.py --quick    # 3 rounds

Exit status 0, or 1 when the two readings give different documents.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _bench import add_tmp_base, make_tmp, timed

RUNS = 5
FILES = ("ckpt/best.pth", "train.csv", "test/kodak/metrics.json")
START = datetime(2025, 1, 1, tzinfo=UTC)


def stamp(seconds: float) -> str:
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def file_bytes(run: int, path: str) -> bytes:
    if path.endswith("metrics.json"):
        return json.dumps({"psnr": 30.0 + run / 10, "ssim": 0.9, "seeds": [0, 1, 2],
                           "psnr_std": 0.1, "ssim_std": 0.01, "n": 24}).encode()
    return f"{path} of run {run}\n".encode() * 1000


def write_heartbeats(ledger: Any, runs: list[int], beats: int) -> None:
    """``beats`` heartbeats spread over ``runs``, one per 10 s each, by bulk ingest."""
    per_run = beats // len(runs)
    chunk: list[bytes] = []
    for step in range(per_run):
        for run in runs:
            chunk.append(json.dumps({
                "kind": "run.heartbeat", "run": f"r{run}", "instance": f"box-{run % 2}",
                "at": stamp(60 + step * 10 + run), "body": {"step": step, "pid": 4242}},
                separators=(",", ":")).encode())
        if len(chunk) >= 100_000:
            ledger.ingest(b"\n".join(chunk) + b"\n")
            chunk = []
    if chunk:
        ledger.ingest(b"\n".join(chunk) + b"\n")


def write_run_records(ledger: Any, store: Any, run: int, beats_per_run: int) -> None:
    """Launch, full listing, pulls, verification, exit and claims of one run (laptop)."""
    name, box = f"r{run}", f"box-{run % 2}"
    end = 60 + beats_per_run * 10
    listed_at = stamp(end + 100 if run != 0 else end // 2)  # r0 beats on after its listing
    ledger.append("run.launched", run=name, instance=box, at=stamp(run),
                  command=["python", "train.py"], git_commit="0123456789abcdef",
                  git_dirty=False, heartbeat_interval_s=10)
    entries, pulls = [], []
    for path in FILES:
        data = file_bytes(run, path)
        digest, sha = store.put_bytes(data).digest, hashlib.sha256(data).hexdigest()
        entries.append({"path": path, "size": len(data), "sha256": sha, "blake3": digest})
        pulls.append({"kind": "artifact.pulled", "run": name, "instance": box, "at": listed_at,
                      "body": {"path": path, "ok": True, "size": len(data),
                               "remote_sha256": sha, "local_sha256": sha, "digest": digest}})
    if run != 0:
        ledger.append("run.exited", run=name, instance=box, at=stamp(end + 50), exit_code=0)
    ledger.append("pull.listed", run=name, instance=box, at=listed_at,
                  source=f"ssh://u@{box}:22/~/runs/{name}", entries=entries)
    ledger.append_batch(pulls)
    ledger.append("checkpoint.verified", at=listed_at, path=FILES[0],
                  digest=entries[0]["blake3"], ok=True, loader="safetensors")
    metrics = entries[2]["blake3"]
    for metric, value in (("psnr", 30.0 + run / 10), ("ssim", 0.9)):
        ledger.append("claim.declared", run=name, at=stamp(end + 200), claim=f"C{run}-{metric}",
                      metric=metric, value=value, direction="higher", source_digest=metrics,
                      source_path=FILES[2], seeds=[0, 1, 2], n=24, variance_type="std",
                      variance=0.1)


def build_project(project: Path, beats: int) -> None:
    from labledger.ledger.artifacts import open_store
    from labledger.ledger.ledger import Ledger

    Ledger.init(project).close()
    for box in (0, 1):
        with Ledger.open(project) as ledger:
            ledger.writer = f"box-{box}"
            runs = [r for r in range(RUNS) if r % 2 == box]
            write_heartbeats(ledger, runs, beats * len(runs) // RUNS)
    with Ledger.open(project) as ledger:
        ledger.writer = "laptop"
        store = open_store(ledger)
        for run in range(RUNS):
            write_run_records(ledger, store, run, beats // RUNS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--beats", type=int, default=300_000,
                        help="heartbeats in the ledger (default 300,000)")
    parser.add_argument("--quick", action="store_true", help="3 rounds")
    add_tmp_base(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds = 3

    from labledger.ledger.ledger import Ledger
    from labledger.ledger.seal import compact
    from labledger.reconcile.evidence import build_evidence, render
    from labledger.reconcile.pull_verified import load_events

    tmp = make_tmp(args.tmp_base)
    try:
        started = time.perf_counter()
        jsonl = tmp / "jsonl"
        jsonl.mkdir()
        build_project(jsonl, args.beats)
        sealed = tmp / "sealed"
        shutil.copytree(jsonl, sealed)
        compact(Ledger.open(sealed).paths)
        ledgers = {"JSONL": Ledger.open(jsonl), "sealed": Ledger.open(sealed)}
        events = len(load_events(ledgers["JSONL"]))
        print(f"ledger: {events:,} events ({args.beats:,} heartbeats), built in "
              f"{time.perf_counter() - started:.1f} s")

        def full(ledger: Any) -> dict[str, Any]:
            return build_evidence(ledger, events=load_events(ledger))

        for where, ledger in ledgers.items():
            if render(full(ledger)) != render(build_evidence(ledger)):
                print(f"DIFFERENT documents from the two readings ({where})")
                return 1
        document = build_evidence(ledgers["JSONL"])
        held = sum(c["evidence"][0]["pull_verified"] is True for c in document["claims"])
        print(f"same document from both readings: {len(document['claims'])} claims, {held} "
              "pull-verified")

        contenders = {f"{how} ({where})": (lambda f=f, led=led: timed(lambda: f(led)))
                      for where, led in ledgers.items()
                      for how, f in (("full", full), ("latest", build_evidence))}
        names = list(contenders)
        times: dict[str, list[float]] = {n: [] for n in names}
        paired: dict[str, list[float]] = {where: [] for where in ledgers}
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            this = {name: contenders[name]() for name in order}
            for name in names:
                times[name].append(this[name])
            for where in ledgers:
                paired[where].append(this[f"full ({where})"] / this[f"latest ({where})"])
            print(f"  round {r + 1}: " + ", ".join(f"{n} {this[n] * 1000:.0f} ms" for n in names),
                  flush=True)
        print()
        print(f"{'contender':18s} {'median ms':>10s}")
        for name in names:
            print(f"{name:18s} {statistics.median(times[name]) * 1000:10.1f}")
        print()
        for where in ledgers:
            medians = [statistics.median(times[f"{how} ({where})"]) for how in ("full", "latest")]
            print(f"full / latest ({where}): median of paired per-round ratios "
                  f"{statistics.median(paired[where]):.2f}x (ratio of medians "
                  f"{medians[0] / medians[1]:.2f}x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
