"""The `teardown_gate` view, on real ledgers with real objects in the CAS (tests/conftest.py
PullSeed), checked against the authority it mirrors: `evaluate_gate`."""

from __future__ import annotations

from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from labledger.reconcile.pull_verified import evaluate_gate
from tests.conftest import PullSeed
from tests.conftest import cli_call as cli

FILES = {"ckpt/best.pth": b"weights" * 10, "metrics.json": b'{"psnr": 31.5}'}


def gate_rows(ledger: Ledger) -> dict[str, dict[str, Any]]:
    con = ledger.query()
    try:
        result = con.execute("select * from teardown_gate")
        names = [d[0] for d in result.description]
        return {row[0]: dict(zip(names, row, strict=True)) for row in result.fetchall()}
    finally:
        con.close()


def agrees_with_the_gate(ledger: Ledger, instance: str) -> dict[str, Any]:
    """The view's row for ``instance``; 'ready' exactly where the real gate passes."""
    row = gate_rows(ledger)[instance]
    assert (row["verdict"] == "ready") == evaluate_gate(ledger, instance).ok, row
    return row


def test_a_complete_pull_is_ready(ledger: Ledger, pull_seed: PullSeed) -> None:
    pull_seed.rent("box1")
    pull_seed.full(FILES, run="r1", instance="box1")
    row = agrees_with_the_gate(ledger, "box1")
    assert row["verdict"] == "ready"
    assert row["state"] == "running"
    assert row["runs"] == ["r1"]
    assert (row["runs_complete"], row["runs_with_gaps"], row["runs_not_pulled"]) == (1, 0, 0)
    assert row["blocking"] == []


def test_a_pull_with_gaps_blocks(ledger: Ledger, pull_seed: PullSeed) -> None:
    pull_seed.rent("box1")
    ledger.append("run.launched", run="r1", instance="box1", command=["python"])
    pull_seed.listed(FILES, run="r1", instance="box1")
    pull_seed.pulled("metrics.json", FILES["metrics.json"], run="r1", instance="box1")
    row = agrees_with_the_gate(ledger, "box1")
    assert row["verdict"] == "blocked"
    assert (row["runs_complete"], row["runs_with_gaps"]) == (0, 1)
    assert row["blocking"] == ["r1"]


def test_a_checkpoint_that_failed_to_load_blocks(ledger: Ledger, pull_seed: PullSeed) -> None:
    pull_seed.rent("box1")
    pull_seed.full(FILES, run="r1", instance="box1")
    pull_seed.verified("ckpt/best.pth", ok=False, run="r1", instance="box1")
    assert agrees_with_the_gate(ledger, "box1")["verdict"] == "blocked"


def test_every_hosted_run_counts(ledger: Ledger, pull_seed: PullSeed) -> None:
    pull_seed.rent("box1")
    pull_seed.full(FILES, run="r1", instance="box1")
    ledger.append("run.launched", run="r2", instance="box1", command=["python"])
    row = agrees_with_the_gate(ledger, "box1")
    assert row["verdict"] == "blocked"
    assert row["runs"] == ["r1", "r2"]
    assert (row["runs_complete"], row["runs_not_pulled"], row["blocking"]) == (1, 1, ["r2"])


def test_a_run_active_after_its_listing_blocks(ledger: Ledger, pull_seed: PullSeed) -> None:
    pull_seed.rent("box1")
    pull_seed.full(FILES, run="r1", instance="box1")
    ledger.append("run.heartbeat", run="r1", step=10)
    row = agrees_with_the_gate(ledger, "box1")
    assert row["verdict"] == "blocked"
    assert (row["runs_complete"], row["runs_active_after_listing"]) == (1, 1)


def test_a_listing_taken_from_another_instance_blocks(ledger: Ledger,
                                                      pull_seed: PullSeed) -> None:
    pull_seed.rent("box1")
    ledger.append("run.launched", run="r1", instance="box1", command=["python"])
    pull_seed.listed(FILES, run="r1", instance="copy")
    for path, data in FILES.items():
        pull_seed.pulled(path, data, run="r1", instance="copy")
    pull_seed.verified("ckpt/best.pth", run="r1", instance="copy")
    row = agrees_with_the_gate(ledger, "box1")
    assert row["verdict"] == "blocked"
    assert row["blocking"] == ["r1"]


def test_an_instance_without_runs_is_blocked(ledger: Ledger, pull_seed: PullSeed) -> None:
    pull_seed.rent("idle")
    row = agrees_with_the_gate(ledger, "idle")
    assert row["verdict"] == "blocked"
    assert row["runs"] == []


def test_released_and_teardown_times(ledger: Ledger, pull_seed: PullSeed) -> None:
    from datetime import UTC, datetime, timedelta

    # after the pull (now), within the ledger's five-minute allowance for a clock ahead
    base = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=30)

    def at(seconds: int) -> str:
        return (base + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def shown(seconds: int) -> str:
        return (base + timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S")

    pull_seed.rent("box1")
    pull_seed.full(FILES, run="r1", instance="box1")
    ledger.append("teardown.approved", instance="box1", approver="me", at=at(0))
    ledger.append("teardown.requested", instance="box1", command=["vastai", "destroy"],
                  acknowledged=True, exit_code=0, at=at(60))
    row = gate_rows(ledger)["box1"]
    assert row["verdict"] == "ready"
    assert (row["approved_override"], row["requested_acknowledged"]) == (False, True)
    assert str(row["approved_at"]).startswith(shown(0))
    assert str(row["requested_at"]).startswith(shown(60))
    assert row["confirmed_at"] is None
    ledger.append("teardown.confirmed", instance="box1", method="observed", at=at(120))
    ledger.append("instance.released", instance="box1", at=at(120))
    row = gate_rows(ledger)["box1"]
    assert (row["verdict"], row["state"]) == ("released", "released")
    assert str(row["confirmed_at"]).startswith(shown(120))


def test_confirmed_absent_reads_as_released(ledger: Ledger, pull_seed: PullSeed) -> None:
    """A box observed gone with no instance.released (never rented through labledger)."""
    ledger.append("run.launched", run="r1", instance="gone", command=["python"])
    ledger.append("teardown.confirmed", instance="gone", method="observed")
    assert gate_rows(ledger)["gone"]["verdict"] == "released"


def test_the_view_through_the_cli(ledger: Ledger, pull_seed: PullSeed,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent("box1")
    pull_seed.full(FILES, run="r1", instance="box1")
    code, out, err = cli(capsys, "sql", "select instance, verdict from teardown_gate")
    assert code == 0, err
    assert out.splitlines()[2].split() == ["box1", "ready"]


def test_a_run_on_two_boxes_is_judged_per_box(ledger: Ledger, pull_seed: PullSeed) -> None:
    """A run resumed on a second box: each box's gate counts its own full listing, and the
    run's activity on one box says nothing of the other (view and gate agree)."""
    pull_seed.rent("boxA")
    pull_seed.rent("boxB")
    pull_seed.full(FILES, run="r1", instance="boxB")
    pull_seed.listed(FILES, run="r1", instance="boxA")
    for path, data in FILES.items():
        pull_seed.pulled(path, data, run="r1", instance="boxA")
    assert agrees_with_the_gate(ledger, "boxA")["verdict"] == "ready"
    assert agrees_with_the_gate(ledger, "boxB")["verdict"] == "ready"
    ledger.append("run.heartbeat", run="r1", instance="boxB", step=1)
    assert agrees_with_the_gate(ledger, "boxA")["verdict"] == "ready"
    row = agrees_with_the_gate(ledger, "boxB")
    assert row["verdict"] == "blocked"
    assert row["blocking"] == ["r1"]
