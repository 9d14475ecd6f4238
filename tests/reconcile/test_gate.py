"""The teardown gate: every run an instance hosted, pull-verified now."""

from __future__ import annotations

from typing import Any

from labledger.ledger.ledger import Ledger
from labledger.reconcile.pull_verified import evaluate_gate, hosted_runs, load_events
from labledger.reconcile.teardown import approved_for, is_gone, record_approval, teardown_plan

FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n"}


def test_the_gate_refuses_then_passes(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.rent()
    ledger.append("run.launched", run="r1", instance="box1")
    pull_seed.listed(FILES)
    refused = evaluate_gate(ledger, "box1")
    assert not refused.ok
    assert refused.unmet() == ["r1: best.pth: never pulled", "r1: train.csv: never pulled"]
    for path, data in FILES.items():
        pull_seed.pulled(path, data)
    pull_seed.verified("best.pth")
    passed = evaluate_gate(ledger, "box1")
    assert passed.ok, passed.unmet()
    assert passed.state_digest() != refused.state_digest()


def test_every_hosted_run_counts(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full(FILES, run="r1")
    ledger.append("run.launched", run="r2", instance="box1")
    gate = evaluate_gate(ledger, "box1")
    assert hosted_runs(load_events(ledger), "box1") == ["r1", "r2"]
    assert gate.unmet() == [
        "r2: no pull listing recorded (run `labledger pull --run r2 ...`)"]


def test_local_bytes_are_reverified_at_gate_time(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full(FILES)
    assert evaluate_gate(ledger, "box1").ok
    pull_seed.corrupt("best.pth")
    gate = evaluate_gate(ledger, "box1")
    assert not gate.ok
    assert "local object is corrupt" in gate.unmet()[0]


def test_a_later_listing_with_unpulled_files_refuses(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full(FILES)
    pull_seed.listed({**FILES, "last.pth": b"new checkpoint"})
    assert evaluate_gate(ledger, "box1").unmet() == ["r1: last.pth: never pulled"]


def test_an_instance_without_runs_never_passes(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.rent("empty")
    gate = evaluate_gate(ledger, "empty")
    assert not gate.ok
    assert gate.problems[0].startswith("no run is recorded on this instance")


def test_the_state_digest_is_stable(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full(FILES)
    assert evaluate_gate(ledger, "box1").state_digest() == \
        evaluate_gate(ledger, "box1").state_digest()


def test_approval_binds_the_state(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full(FILES)
    gate = evaluate_gate(ledger, "box1")
    record_approval(ledger, gate, approver="me")
    assert approved_for(load_events(ledger), gate) is not None
    pull_seed.listed({**FILES, "more.csv": b"x"})
    changed = evaluate_gate(ledger, "box1")
    assert approved_for(load_events(ledger), changed) is None


def test_the_plan_comes_from_the_rent_snapshot(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.rent()
    plan = teardown_plan(load_events(ledger), "box1")
    assert plan.verb == "destroy"
    assert plan.irreversible is True
    assert plan.deletes == ["instance disk"]
    assert plan.acknowledged_is_confirmed is False


def test_confirmed_or_released_instances_are_gone(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.rent()
    assert not is_gone(load_events(ledger), "box1")
    ledger.append("teardown.confirmed", instance="box1", method="observed")
    assert is_gone(load_events(ledger), "box1")


def test_a_run_active_after_its_listing_refuses_until_pulled_again(ledger: Ledger,
                                                                  pull_seed: Any) -> None:
    pull_seed.full(FILES)
    assert evaluate_gate(ledger, "box1").ok
    ledger.append("run.heartbeat", run="r1", instance="box1")  # still training after the pull
    gate = evaluate_gate(ledger, "box1")
    assert not gate.ok
    [problem] = gate.unmet()
    assert problem.startswith("r1: the run was still active after the latest full pull "
                              "listing (run.heartbeat at ")
    assert "pull again without --only (`labledger pull --run r1 --instance box1 ...`)" in problem
    ledger.append("run.exited", run="r1", instance="box1", exit_code=0)
    pull_seed.listed(FILES)  # pulled again after it exited: the same files, already here
    assert evaluate_gate(ledger, "box1").ok, evaluate_gate(ledger, "box1").unmet()


def test_an_instance_the_ledger_never_saw_is_named_as_such(ledger: Ledger,
                                                          pull_seed: Any) -> None:
    pull_seed.rent("vast-111")
    gate = evaluate_gate(ledger, "vast-11")
    assert not gate.ok
    assert gate.problems == ["instance 'vast-11' is not in the ledger (no event names it; "
                             "recorded instances: vast-111)"]
