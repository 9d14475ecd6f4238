"""The teardown gate, the agent hook and ``labledger instances`` over a mature ledger.

A week of training with a heartbeat every 10 s writes ~60,000 ``run.heartbeat`` events per run.
The teardown gate (`labledger gate teardown`, `labledger teardown`, and the agent hook when a
shell command would destroy a box or delete files) and `labledger instances` read that ledger
each time they run; this measures them.

The project (deterministic; `bench_evidence_ledger.py`'s): 5 runs on two boxes, 300,000
heartbeats in all (``--beats``), one every 10 s, written by the boxes' writers; from the
laptop's writer, per run a launch, a full pull listing of 3 files, their pulls (real objects in
the store), the checkpoint verified, an exit (but for one run on box-0, still beating after its
listing: box-0's gate refuses), claims; both boxes rented (vastai's profile snapshot), box-1
stopped at the end.

Contenders, interleaved (order rotated every round), medians over the rounds, on the ledger as
written (JSONL) and on a copy whose segments `compact` sealed to Parquet:

* ``gate, every event``: `evaluate_gate(ledger, "box-0", events=load_events(ledger))`: every
  event read, verified and decoded, as the gate's callers read before;
* ``gate``: `evaluate_gate(ledger, "box-0")`, what `labledger gate teardown --instance box-0`
  computes: `gate_events`, every line still verified, only the heartbeats that decide decoded;
* ``hook``: `hook.judge("vastai destroy instance 4242", ...)`, the agent hook's whole verdict
  on a destroy naming no recorded instance (so the gate of every live one is evaluated), as
  shipped (run the script at an earlier commit for the earlier number);
* ``instances, every event``: `report(load_events(paths), now=...)`, as `labledger instances`
  computed before;
* ``instances``: `report(load_events(paths, until=now, latest_heartbeats=True), now=now)`,
  what `labledger instances --now ...` computes.

The gate's evaluations and the reports are checked identical both ways before any timing.

    .venv/bin/python benchmarks/bench_teardown_gate.py            # 7 rounds
    .venv/bin/python benchmarks/bench_teardown_gate.py --quick    # 3 rounds

Exit status 0, or 1 when the two readings judge differently.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _bench import add_tmp_base, make_tmp, timed
from bench_evidence_ledger import RUNS, build_project, stamp

INSTANCE = "box-0"
DESTROY = "vastai destroy instance 4242"


def end_of(beats: int) -> int:
    """Seconds from the start to the runs' last heartbeat."""
    return 60 + beats // RUNS * 10


def rent_boxes(project: Path, beats: int) -> None:
    """Both boxes rented before the runs (vastai's snapshot), box-1 stopped after them."""
    from labledger.ledger.ledger import Ledger
    from labledger.profiles import shipped_profiles, snapshot

    profile = snapshot(shipped_profiles()["vastai"].profile)
    with Ledger.open(project) as ledger:
        ledger.writer = "laptop"
        for box in (0, 1):
            ledger.append("instance.rented", instance=f"box-{box}", at=stamp(0),
                          profile="vastai", host=f"root@box-{box}:22", price_per_hour=1.2,
                          currency="USD", profile_snapshot=profile)
        ledger.append("instance.stopped", instance="box-1", at=stamp(end_of(beats) + 300),
                      reason="runs pulled")


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
    from labledger.reconcile import instances
    from labledger.reconcile.hook import judge
    from labledger.reconcile.pull_verified import evaluate_gate, load_events

    now = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(seconds=end_of(args.beats) + 3600)
    tmp = make_tmp(args.tmp_base)
    try:
        started = time.perf_counter()
        jsonl = tmp / "jsonl"
        jsonl.mkdir()
        build_project(jsonl, args.beats)
        rent_boxes(jsonl, args.beats)
        sealed = tmp / "sealed"
        shutil.copytree(jsonl, sealed)
        compact(Ledger.open(sealed).paths)
        ledgers = {"JSONL": Ledger.open(jsonl), "sealed": Ledger.open(sealed)}
        events = len(load_events(ledgers["JSONL"]))
        print(f"ledger: {events:,} events ({args.beats:,} heartbeats), built in "
              f"{time.perf_counter() - started:.1f} s")

        def gate_every(ledger: Any) -> Any:
            return evaluate_gate(ledger, INSTANCE, events=load_events(ledger))

        def gate(ledger: Any) -> Any:
            return evaluate_gate(ledger, INSTANCE)

        def hook(ledger: Any) -> Any:
            project = str(ledger.paths.project)
            return judge(DESTROY, project, project)

        def leases_every(ledger: Any) -> Any:
            return instances.report(instances.load_events(ledger.paths), now=now)

        def leases(ledger: Any) -> Any:
            return instances.report(instances.load_events(ledger.paths, until=now,
                                                          latest_heartbeats=True), now=now)

        for where, ledger in ledgers.items():
            if gate(ledger).to_json() != gate_every(ledger).to_json() or \
                    leases(ledger) != leases_every(ledger):
                print(f"DIFFERENT judgements from the two readings ({where})")
                return 1
        verdict = hook(ledgers["JSONL"])
        result = gate(ledgers["JSONL"])
        print(f"same judgements from both readings: gate of {INSTANCE} "
              f"{'passes' if result.ok else 'refuses'} ({len(result.unmet())} unmet); hook "
              f"{'allows' if verdict.allowed else 'refuses'} `{DESTROY}`; instances: "
              f"{len(leases(ledgers['JSONL']))}")

        work: dict[str, Callable[[Any], Any]] = {
            "gate, every event": gate_every, "gate": gate, "hook": hook,
            "instances, every event": leases_every, "instances": leases}
        contenders = {f"{how} ({where})": (lambda f=f, led=led: timed(lambda: f(led)))
                      for where, led in ledgers.items() for how, f in work.items()}
        names = list(contenders)
        times: dict[str, list[float]] = {n: [] for n in names}
        paired: dict[str, list[float]] = {f"{how} ({where})": [] for where in ledgers
                                          for how in ("gate", "instances")}
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            this = {name: contenders[name]() for name in order}
            for name in names:
                times[name].append(this[name])
            for name in paired:
                how, where = name.split(" (")
                paired[name].append(this[f"{how}, every event ({where}"] / this[name])
            print(f"  round {r + 1}: " + ", ".join(f"{n} {this[n] * 1000:.0f} ms" for n in names),
                  flush=True)
        print()
        print(f"{'contender':32s} {'median ms':>10s}")
        for name in names:
            print(f"{name:32s} {statistics.median(times[name]) * 1000:10.1f}")
        print()
        for name in paired:
            how, where = name.split(" (")
            every = statistics.median(times[f"{how}, every event ({where}"])
            print(f"{how}: every event / as read now ({where}: median of paired per-round "
                  f"ratios {statistics.median(paired[name]):.2f}x (ratio of medians "
                  f"{every / statistics.median(times[name]):.2f}x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
