"""`instances` counts a run closed with `labledger close` (capsule.sealed) as finished, as the
`runs` view does ('sealed'), though it never recorded run.exited (killed with the box, closed
with --allow-running). Before, such a run stayed in active_runs for ever and hid the idle flag.
A seal is final: a heartbeat recorded after it does not bring the run back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.cli.test_cli_capture import ckpt, run_dir  # noqa: F401 - fixtures: a real capsule
from tests.cli.test_cli_lifecycle_leftouts import flag_codes, instance_report, runs_state
from tests.cli.test_cli_lifecycle_review_1 import ok


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def launched_then_sealed(capsys: pytest.CaptureFixture[str]) -> str:
    """v1 rented and r1 launched on it (no exit), then r1's folder (``run_dir``: a real torch
    checkpoint, config, metrics) closed; a --now a day on."""
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-05-01T00:00:00Z")
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "v1", "--at",
       "2026-05-01T01:00:00Z")
    ok(capsys, "close", "active/r1", "--run", "r1", "--export-root", "export",
       "--allow-running")
    return (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.usefixtures("run_dir")
def test_a_sealed_run_is_not_active_and_the_idle_flag_shows(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    now = launched_then_sealed(capsys)
    assert runs_state(capsys) == {"r1": "sealed"}
    item = instance_report(capsys, now)["v1"]
    assert item["active_runs"] == []  # old: ["r1"], for ever
    assert "idle" in flag_codes(item)
    assert "run-lost" not in flag_codes(item)
    # before the seal, the run was active: --now shows the past as it was
    assert instance_report(capsys, "2026-05-01T02:00:00Z")["v1"]["active_runs"] == ["r1"]


@pytest.mark.usefixtures("run_dir")
def test_a_heartbeat_after_the_seal_does_not_bring_the_run_back(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    launched_then_sealed(capsys)
    ok(capsys, "emit", "run.heartbeat", "--run", "r1", "--instance", "v1")
    fresh = (datetime.now(UTC) + timedelta(seconds=60)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert runs_state(capsys) == {"r1": "sealed"}
    # (a minute after a fresh heartbeat: not stalled, so only the seal can end it)
    assert instance_report(capsys, fresh)["v1"]["active_runs"] == []
