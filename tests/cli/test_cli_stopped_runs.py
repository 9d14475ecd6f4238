"""A stop kills every process on the box: a run launched there that never recorded run.exited
is `lost` once its instance is stopped, in the `runs` view and in `labledger instances` alike;
a run resumed after `labledger start` (a new launch or heartbeat) is active again.

Before, only a release or a confirmed teardown ended such a run: a stopped AutoDL box kept its
dead run "launched" (or "running" until the heartbeats went stale) and counted it as active.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.cli.test_cli_lifecycle_leftouts import flag_codes, instance_report, runs_state
from tests.cli.test_cli_lifecycle_review_1 import ok

STOPPED_AT = "2026-11-01T03:00:00.000000Z"


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


@pytest.fixture
def stopped(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    """a1 rented; r1 launched on it (never exits), r2 launched and exited; a1 stopped."""
    ok(capsys, "rent", "--profile", "autodl", "--instance", "a1", "--at", "2026-11-01T00:00:00Z")
    for run in ("r1", "r2"):
        ok(capsys, "emit", "run.launched", "--run", run, "--instance", "a1", "--at",
           "2026-11-01T01:00:00Z")
    ok(capsys, "emit", "run.heartbeat", "--run", "r1", "--instance", "a1", "--at",
       "2026-11-01T02:59:00Z")
    ok(capsys, "emit", "run.exited", "--run", "r2", "--set", "exit_code=0", "--at",
       "2026-11-01T02:00:00Z")
    # by today's clock the heartbeat is long stale: stalled, though still on a live box
    assert runs_state(capsys) == {"r1": "stalled", "r2": "exited-ok"}
    assert instance_report(capsys, "2026-11-01T02:59:30Z")["a1"]["active_runs"] == ["r1"]
    ok(capsys, "stop", "--instance", "a1", "--at", STOPPED_AT)


def test_a_run_on_a_stopped_box_is_lost_in_the_view_and_the_report(
        stopped: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert runs_state(capsys) == {"r1": "lost", "r2": "exited-ok"}
    item = instance_report(capsys, "2026-11-01T03:01:00Z")["a1"]
    assert item["active_runs"] == []
    lost = [f["message"] for f in item["flags"] if f["code"] == "run-lost"]
    assert lost == ["run r1 never recorded run.exited and its instance was stopped (which kills "
                    "every process on it; a resumed run records a new launch) at "
                    f"{STOPPED_AT}: it is lost, not running"]
    # --now before the stop shows the past as it was
    assert instance_report(capsys, "2026-11-01T02:59:30Z")["a1"]["active_runs"] == ["r1"]


def test_a_run_resumed_after_start_is_active_again(
        stopped: None, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "start", "--instance", "a1", "--at", "2026-11-01T04:00:00Z")
    assert runs_state(capsys)["r1"] == "lost"  # started, but nothing ran r1 again yet
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "a1", "--at",
       "2026-11-01T04:05:00Z")
    assert runs_state(capsys) == {"r1": "launched", "r2": "exited-ok"}
    item = instance_report(capsys, "2026-11-01T04:10:00Z")["a1"]
    assert item["active_runs"] == ["r1"]
    assert "run-lost" not in flag_codes(item)

