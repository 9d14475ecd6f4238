"""PULL_VERIFIED of a file the box was still writing when it was listed, derived from events.

A listing entry's ``writers`` (the box processes that held the file open for writing when the
box hashed it) keeps the file from holding, however well its bytes were pulled: the box's
hash and the copy agree on what may be half a file. Only a later listing that shows it closed
(a full one, or ``--only`` matching it) lets it hold. Listings recorded before labledger looked
carry no ``writers`` and read as they always did. The SQL views say the same.
"""

from __future__ import annotations

from typing import Any

import pytest

from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from labledger.reconcile.pull_verified import (
    ObjectChecker,
    evaluate_gate,
    load_events,
    open_store,
    verify_run,
)
from tests.conftest import PullSeed

# A training loop's log kept open (shape of debkumarwarrior/SampleAlgorithms
# NER/Code/infolog.py: a banner, then one timestamped line per message) and its results.
LOG = (b"\n------------------------------\nStarting new training run\n"
       b"------------------------------\n"
       b"[2026-05-09 07:30:02.118]    epoch 0  train loss 0.8231\n"
       b"[2026-05-09 07:31:02.540]    epoch 1  train loss 0.4116\n")
RESULTS = b"sample,psnr,ssim\nbaby,31.84,0.912\nbird,33.02,0.941\n"
TRAINER = {"pid": 48213, "command": "python train.py --config configs/sr_x4.yaml"}


def listed(ledger: Ledger, pull_seed: PullSeed, files: dict[str, bytes],
           writers: dict[str, list[dict[str, Any]]], **extra: Any) -> None:
    """A pull.listed of ``files`` from box1, each entry with the ``writers`` given for it (none:
    the key is absent, as in every listing recorded before labledger looked)."""
    entries = [{**pull_seed.entry(p, d), **({"writers": writers[p]} if p in writers else {})}
               for p, d in files.items()]
    ledger.append("pull.listed", run="r1", instance="box1", source="ssh://root@ssh5.vast.ai:22/root/runs/r1",
                  entries=entries, **extra)


def judge(ledger: Ledger) -> Any:
    return verify_run("r1", load_events(ledger), ObjectChecker(open_store(ledger)),
                      instance="box1")


def view_verdicts(ledger: Ledger) -> tuple[str, list[str], str]:
    """pull_verified's verdict and missing paths for r1, and teardown_gate's for box1."""
    con = ledger.query()
    try:
        verdict, missing = con.execute(
            "select verdict, missing from pull_verified where run = 'r1'").fetchone()
        [gate] = con.execute(
            "select verdict from teardown_gate where instance = 'box1'").fetchone()
    finally:
        con.close()
    return verdict, list(missing), gate


def pulled_both(ledger: Ledger, pull_seed: PullSeed, writers: dict[str, Any]) -> None:
    ledger.append("run.launched", run="r1", instance="box1", command=["python", "train.py"])
    listed(ledger, pull_seed, {"train.log": LOG, "results.csv": RESULTS}, writers)
    pull_seed.pulled("train.log", LOG, run="r1", instance="box1")
    pull_seed.pulled("results.csv", RESULTS, run="r1", instance="box1")


def test_a_listing_recorded_before_writers_were_looked_for_reads_as_before(
        ledger: Ledger, pull_seed: PullSeed) -> None:
    pulled_both(ledger, pull_seed, {})
    assert judge(ledger).ok
    assert evaluate_gate(ledger, "box1").ok
    assert view_verdicts(ledger) == ("complete", [], "ready")


def test_a_file_held_open_for_writing_at_the_listing_is_a_gap_naming_the_process(
        ledger: Ledger, pull_seed: PullSeed) -> None:
    pulled_both(ledger, pull_seed, {"train.log": [TRAINER]})
    result = judge(ledger)
    assert not result.ok
    [check] = [a for a in result.artifacts if a.problems]
    assert check.path == "train.log"
    assert check.pulled  # its bytes arrived as the box hashed them: still not verified
    assert check.digest_match
    assert check.problems == [
        "still being written on the box when it was listed: pid 48213 (python train.py "
        "--config configs/sr_x4.yaml) held it open for writing, so the copy may be a partial "
        "file; pull it again once it is closed"]
    assert check.next_step == "labledger pull --run r1 --instance box1 --only train.log"
    gate = evaluate_gate(ledger, "box1")
    assert not gate.ok
    assert [u.split(": ")[1] for u in gate.unmet()] == ["train.log"]
    assert view_verdicts(ledger) == ("gaps", ["train.log"], "blocked")


def test_a_later_listing_that_shows_it_closed_lets_it_hold(
        ledger: Ledger, pull_seed: PullSeed) -> None:
    pulled_both(ledger, pull_seed, {"train.log": [TRAINER]})
    finished = LOG + b"[2026-05-09 07:41:57.902]    training finished\n"
    listed(ledger, pull_seed, {"train.log": finished}, {}, only=["train.log"])
    pull_seed.pulled("train.log", finished, run="r1", instance="box1")
    assert judge(ledger).ok, judge(ledger).gaps()
    assert evaluate_gate(ledger, "box1").ok
    assert view_verdicts(ledger) == ("complete", [], "ready")


def test_the_latest_listing_decides_even_over_an_earlier_verified_pull_of_the_same_bytes(
        ledger: Ledger, pull_seed: PullSeed) -> None:
    """Verified once, then the training loop reopened its log to append (nothing written yet):
    the bytes match the earlier pull, but the box is writing the file again."""
    pulled_both(ledger, pull_seed, {})
    assert judge(ledger).ok
    listed(ledger, pull_seed, {"train.log": LOG, "results.csv": RESULTS},
           {"train.log": [TRAINER, {"pid": 48230, "command": "tee -a train.log"}]})
    [gap] = judge(ledger).gaps()
    assert gap.startswith("r1: train.log: still being written on the box when it was listed: "
                          "pid 48213 (python train.py --config configs/sr_x4.yaml), pid 48230 "
                          "(tee -a train.log) held it open")
    assert view_verdicts(ledger) == ("gaps", ["train.log"], "blocked")


@pytest.mark.parametrize("bad", [{"pid": -1, "command": "python train.py"},
                                 {"pid": 48213, "cmd": "python train.py"},
                                 {"command": "python train.py"}])
def test_a_writer_of_another_shape_is_refused(ledger: Ledger, pull_seed: PullSeed,
                                              bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidEventError):
        listed(ledger, pull_seed, {"train.log": LOG}, {"train.log": [bad]})
