"""Instance-lifecycle defects left open: an idempotent `teardown --confirm-absent`, runs that
never exited (box died, SIGKILL) no longer "active" forever, UTC said in the instances table.

Real ledgers, the real CLI, and (for the killed run) a real `labledger run` process killed with
SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.cli.test_cli_lifecycle_review_1 import ok
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]
GONE_AT = "2026-05-01T03:00:00.000000Z"


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


@pytest.fixture
def confirmed(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> str:
    """v1 rented, then confirmed absent at GONE_AT; the confirmation's event id."""
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--price-per-hour", "2",
       "--currency", "USD", "--at", "2026-05-01T00:00:00Z")
    out, _ = ok(capsys, "teardown", "--instance", "v1", "--confirm-absent", "--method", "api",
                "--evidence", "vastai show instances: not listed", "--at", GONE_AT)
    return out.strip()


def kinds(ledger: Ledger) -> list[str]:
    return [r.kind for r in ledger.records()]


# --- 1. --confirm-absent twice records one confirmation ----------------------------------------
@pytest.mark.parametrize("repeat", [
    [],  # says nothing new
    ["--method", "api", "--evidence", "vastai show instances: not listed", "--at", GONE_AT],
    ["--at", "2026-05-01T05:00:00+02:00"],  # the same instant, written another way
])
def test_a_second_confirm_absent_records_nothing_and_says_when(
        confirmed: str, ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        snapshot: Snapshot, repeat: list[str]) -> None:
    # old: a second teardown.confirmed was appended every time
    assert kinds(ledger).count("teardown.confirmed") == 1
    before = snapshot(ledger.paths.segments)
    out, err = ok(capsys, "teardown", "--instance", "v1", "--confirm-absent", *repeat)
    assert out.strip() == confirmed  # the confirmation in force
    assert (f"instance 'v1' was already confirmed absent at {GONE_AT} by {confirmed}; nothing "
            "was written") in err
    assert snapshot(ledger.paths.segments) == before
    # -q drops info, never this: the user asked to record something and nothing was
    _, err = ok(capsys, "-q", "teardown", "--instance", "v1", "--confirm-absent", *repeat)
    assert "already confirmed absent" in err
    assert snapshot(ledger.paths.segments) == before


def test_a_second_confirm_absent_in_json(confirmed: str, ledger: Ledger,
                                         capsys: pytest.CaptureFixture[str],
                                         snapshot: Snapshot) -> None:
    before = snapshot(ledger.paths.segments)
    out, err = ok(capsys, "--json", "teardown", "--instance", "v1", "--confirm-absent")
    document = json.loads(out)
    assert document["already_confirmed"] is True
    assert document["id"] == confirmed
    assert document["kind"] == "teardown.confirmed"
    assert document["ts"] == GONE_AT
    assert document["body"] == {"method": "api", "evidence": "vastai show instances: not listed"}
    assert f"already confirmed absent at {GONE_AT} by {confirmed}" in document["message"]
    assert "already confirmed absent" in err
    assert snapshot(ledger.paths.segments) == before


def test_the_first_confirmation_has_no_already_flag(ledger: Ledger,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-05-01T00:00:00Z")
    out, err = ok(capsys, "--json", "teardown", "--instance", "v1", "--confirm-absent")
    assert "already_confirmed" not in json.loads(out)
    assert "already" not in err


@pytest.mark.parametrize(("repeat", "says"), [
    (["--method", "console"], "--method 'console' (recorded: 'api')"),
    (["--evidence", "gone from the dashboard"],
     "--evidence 'gone from the dashboard' (recorded: 'vastai show instances: not listed')"),
    (["--at", "2026-05-01T04:00:00Z"],
     f"--at '2026-05-01T04:00:00.000000Z' (recorded: '{GONE_AT}')"),
])
def test_a_second_confirm_absent_that_differs_is_refused(
        confirmed: str, ledger: Ledger, capsys: pytest.CaptureFixture[str],
        snapshot: Snapshot, repeat: list[str], says: str) -> None:
    # the first confirmation stands (the meter stopped at its time; the log is never
    # rewritten): a different detail is refused, not silently dropped and not a second fact
    before = snapshot(ledger.paths.segments)
    code, out, err = call(capsys, "teardown", "--instance", "v1", "--confirm-absent", *repeat)
    assert (code, out) == (2, ""), err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    assert f"already confirmed absent at {GONE_AT} by {confirmed}" in err
    assert says in err
    assert "labledger emit note --instance v1" in err
    assert err.rstrip().endswith("nothing was written")
    assert snapshot(ledger.paths.segments) == before
    code, _, err = call(capsys, "--json", "teardown", "--instance", "v1", "--confirm-absent",
                        *repeat)
    assert code == 2
    assert json.loads(err.strip().splitlines()[-1])["code"] == 2
    assert snapshot(ledger.paths.segments) == before


def test_a_released_then_confirmed_instance_is_confirmed_once(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-05-01T00:00:00Z")
    ok(capsys, "release", "--instance", "v1", "--at", "2026-05-01T01:00:00Z")
    ok(capsys, "teardown", "--instance", "v1", "--confirm-absent")
    _, err = ok(capsys, "teardown", "--instance", "v1", "--confirm-absent")
    assert "already confirmed absent" in err
    assert kinds(ledger).count("teardown.confirmed") == 1
    assert kinds(ledger).count("instance.released") == 1


def test_two_confirmations_at_once_record_one(ledger: Ledger, project: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Two real processes confirming at the same moment: the check and the append are one step
    under the lifecycle lock, so one records and the other says it was already confirmed."""
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-05-01T00:00:00Z")
    exe = Path(sys.executable).with_name("labledger")
    procs = [subprocess.Popen([str(exe), "teardown", "--instance", "v1", "--confirm-absent"],
                              cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    assert sum("already confirmed absent" in err for _, err in results) == 1
    assert results[0][0] == results[1][0]  # both print the one confirmation's id
    assert kinds(ledger).count("teardown.confirmed") == 1


# --- 2. a run that never exits is not active forever ------------------------------------------
def runs_state(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    out, _ = ok(capsys, "--json", "sql", "select run, state from runs")
    rows = json.loads(out)
    return {row["run"]: row["state"] for row in rows}


def instance_report(capsys: pytest.CaptureFixture[str], now: str,
                    *extra: str) -> dict[str, Any]:
    out, _ = ok(capsys, "--json", "instances", "--now", now, *extra)
    return {item["instance"]: item for item in json.loads(out)["instances"]}


def flag_codes(item: dict[str, Any]) -> list[str]:
    return [flag["code"] for flag in item["flags"]]


def test_a_run_on_a_box_confirmed_gone_is_lost(ledger: Ledger,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # old: the run stayed 'launched' in the runs view and active on the instance forever
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-05-01T00:00:00Z")
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "v1", "--at",
       "2026-05-01T01:00:00Z")
    ok(capsys, "emit", "run.launched", "--run", "r2", "--instance", "v1", "--at",
       "2026-05-01T01:00:00Z")
    ok(capsys, "emit", "run.exited", "--run", "r2", "--set", "exit_code=0", "--at",
       "2026-05-01T02:00:00Z")  # recorded without its instance: still r2's exit
    assert runs_state(capsys) == {"r1": "launched", "r2": "exited-ok"}
    assert instance_report(capsys, "2026-05-01T02:30:00Z")["v1"]["active_runs"] == ["r1"]
    ok(capsys, "teardown", "--instance", "v1", "--confirm-absent", "--at", GONE_AT)
    assert runs_state(capsys) == {"r1": "lost", "r2": "exited-ok"}
    item = instance_report(capsys, "2026-05-02T00:00:00Z")["v1"]
    assert item["active_runs"] == []
    lost = [f["message"] for f in item["flags"] if f["code"] == "run-lost"]
    assert lost == [f"run r1 never recorded run.exited and its instance was released or "
                    f"confirmed absent at {GONE_AT}: it is lost, not running"]
    # --now before the confirmation shows the past as it was: r1 active then
    assert instance_report(capsys, "2026-05-01T02:30:00Z")["v1"]["active_runs"] == ["r1"]


def test_a_run_relaunched_after_its_box_was_released_is_not_lost(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-05-01T00:00:00Z")
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v2", "--at", "2026-05-01T00:00:00Z")
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "v1", "--at",
       "2026-05-01T01:00:00Z")
    ok(capsys, "release", "--instance", "v1", "--at", "2026-05-01T02:00:00Z")
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "v2", "--at",
       "2026-05-01T02:30:00Z")  # resumed on a second box
    assert runs_state(capsys) == {"r1": "launched"}
    report = instance_report(capsys, "2026-05-01T03:00:00Z")
    assert report["v2"]["active_runs"] == ["r1"]
    assert "run-lost" not in flag_codes(report["v1"])


def test_a_heartbeat_run_killed_with_sigkill_lets_the_idle_flag_show(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real `labledger run --heartbeat 1` killed with SIGKILL (wrapper and command, as when
    the box dies): no run.exited. Once its heartbeats are older than 3 intervals it is stalled,
    not active, and the box with the meter running reads as idle."""
    rented = (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", rented)
    exe = Path(sys.executable).with_name("labledger")
    proc = subprocess.Popen([str(exe), "run", "--run", "r1", "--instance", "v1", "--heartbeat",
                             "1", "--", sys.executable, "-c", "import time; time.sleep(120)"],
                            cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while "run.heartbeat" not in kinds(ledger):
            assert proc.poll() is None, "labledger run ended early"
            assert time.monotonic() < deadline, "no heartbeat within 60 s"
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert "run.exited" not in kinds(ledger)
    later = (datetime.now(UTC) + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    item = instance_report(capsys, later)["v1"]
    # old: active_runs ["r1"] and no idle flag, forever
    assert item["active_runs"] == []
    assert item["runs"] == ["r1"]
    assert "run-stalled" in flag_codes(item)
    assert "idle" in flag_codes(item)
    stalled = next(f["message"] for f in item["flags"] if f["code"] == "run-stalled")
    assert stalled.startswith("run r1 is not counted as active: no run.exited, and its last "
                              "heartbeat was at ")
    assert "more than 3 s before" in stalled
    time.sleep(3.5)  # the runs view judges at its own now: 3 intervals have passed
    assert runs_state(capsys) == {"r1": "stalled"}


def test_a_run_with_fresh_heartbeats_stays_active(ledger: Ledger,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-05-01T00:00:00Z")
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "v1", "--data",
       '{"heartbeat_interval_s": 600}', "--at", "2026-05-01T01:00:00Z")
    ok(capsys, "emit", "run.heartbeat", "--run", "r1", "--instance", "v1", "--at",
       "2026-05-01T04:00:00Z")
    item = instance_report(capsys, "2026-05-01T04:29:00Z")
    assert item["v1"]["active_runs"] == ["r1"]
    assert not {"idle", "run-stalled"} & set(flag_codes(item["v1"]))
    item = instance_report(capsys, "2026-05-01T06:01:00Z")  # 3 x 600 s after the heartbeat
    assert item["v1"]["active_runs"] == []
    assert {"idle", "run-stalled"} <= set(flag_codes(item["v1"]))


# --- 3. the instances table says its times are UTC ---------------------------------------------
def test_the_deadline_in_the_table_says_utc(ledger: Ledger,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "autodl", "--instance", "a1", "--at", "2026-11-01T00:00:00Z")
    ok(capsys, "stop", "--instance", "a1", "--at", "2026-11-01T10:00:00+08:00")
    out, _ = ok(capsys, "instances", "--now", "2026-11-02T00:00:00Z")
    # old: "auto-release 2026-11-16 02:00 (in 338.0 h)": no zone, read as local time
    assert "auto-release 2026-11-16 02:00 UTC (in 338.0 h)" in out
    item = instance_report(capsys, "2026-11-02T00:00:00Z")["a1"]
    assert item["next_deadline"]["at"] == "2026-11-16T02:00:00.000000Z"
