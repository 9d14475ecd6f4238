"""Lifecycle review: defects found by driving rent/stop/start/teardown/instances/advise as a user.

Each test pins one fix; times are always given (`--at`, `--now`) so every number is exact.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def ok(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str]:
    code, out, err = call(capsys, *args)
    assert code == 0, err
    return out, err


# --- teardown: bad options are refused before anything is approved or run -------------------------
@pytest.mark.parametrize("timeout", ["-5", "0", "nan"])
def test_teardown_refuses_a_timeout_that_would_kill_the_provider_call_at_once(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        snapshot: Snapshot, tmp_path: Path, timeout: str) -> None:
    # old: approved, started the provider command, killed it at once ("timed out after -5.0 s"),
    # recorded an unacknowledged teardown.requested and exited 1
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-11-01T00:00:00Z")
    marker = tmp_path / "ran"
    before = snapshot(project)
    code, _, err = call(capsys, "teardown", "--instance", "v1", "--yes", "--override", "test box",
                        "--timeout", timeout, "--", "sh", "-c", f"touch {marker}; sleep 2")
    assert code == 2, err
    assert "--timeout" in err
    assert snapshot(project) == before
    assert not marker.exists()


@pytest.mark.parametrize("option", [["--evidence", "not listed"], ["--method", "api"]])
def test_confirm_options_without_confirm_absent_are_refused(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        snapshot: Snapshot, option: list[str]) -> None:
    # old: the option was dropped and the teardown approved (and the command run) instead of
    # recording the observed absence the user meant
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-11-01T00:00:00Z")
    before = snapshot(project)
    code, _, err = call(capsys, "teardown", "--instance", "v1", "--yes", "--override", "test box",
                        *option, "--", "true")
    assert code == 2, err
    assert f"{option[0]} goes with --confirm-absent" in err
    assert snapshot(project) == before
    code, _, err = call(capsys, "--json", "teardown", "--instance", "v1", *option)
    assert code == 2
    assert json.loads(err.strip().splitlines()[-1])["code"] == 2
    assert snapshot(project) == before


# --- danger clocks are announced when they start, not only 48 h before they run out
def test_stopping_an_autodl_instance_says_when_it_will_be_released(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "autodl", "--instance", "a1", "--at", "2026-11-01T00:00:00Z")
    _, err = ok(capsys, "stop", "--instance", "a1", "--at", "2026-11-01T10:00:00+08:00")
    # DOMAIN.md: a shut-down AutoDL instance is auto-released after 15 days (360 h)
    assert ("warning: danger clock: auto-release at 2026-11-16T02:00:00.000000Z (360 h after "
            "this stop; verified 2026-06): releases the instance: every disk except "
            "/root/autodl-fs is deleted") in err
    ok(capsys, "rent", "--profile", "gpushare", "--instance", "g1", "--at", "2026-11-01T00:00:00Z")
    out, _ = ok(capsys, "--json", "stop", "--instance", "g1", "--at", "2026-11-02T00:00:00Z")
    warnings: list[Any] = json.loads(out)["warnings"]
    assert [w for w in warnings if w.startswith("danger clock:")] == [
        "danger clock: auto-release at 2026-11-12T00:00:00.000000Z (240 h after this stop; "
        "verified 2026-06): releases the instance and deletes its disks"]


def test_starting_after_the_auto_release_was_due_warns_the_data_may_be_gone(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "autodl", "--instance", "a1", "--at", "2026-11-01T00:00:00Z")
    ok(capsys, "stop", "--instance", "a1", "--at", "2026-11-01T10:00:00Z")
    _, err = ok(capsys, "start", "--instance", "a1", "--at", "2026-11-14T10:00:00Z")
    assert "was due" not in err  # 13 days: still in time
    ok(capsys, "stop", "--instance", "a1", "--at", "2026-11-14T12:00:00Z")
    _, err = ok(capsys, "start", "--instance", "a1", "--at", "2026-11-30T00:00:00Z")
    assert ("warning: auto-release was due at 2026-11-29T12:00:00.000000Z (360 h after the "
            "stop at 2026-11-14T12:00:00.000000Z)") in err
    assert "check the provider before relying on the instance's disks" in err


def test_rent_and_start_announce_a_clock_that_runs_while_running(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = ok(capsys, "--json", "rent", "--profile", "paperspace", "--instance", "ps1",
                "--at", "2026-11-01T00:00:00Z")
    assert json.loads(out)["warnings"] == [
        "danger clock: auto-shutdown at 2026-11-01T12:00:00.000000Z (12 h after the rent; "
        "verified 2026-06): shuts the machine down: compute stops, and a running job is killed"]
    ok(capsys, "stop", "--instance", "ps1", "--at", "2026-11-01T03:00:00Z")
    _, err = ok(capsys, "start", "--instance", "ps1", "--at", "2026-11-01T05:30:00Z")
    assert "danger clock: auto-shutdown at 2026-11-01T17:30:00.000000Z (12 h after this start" \
        in err
    out, _ = ok(capsys, "--json", "rent", "--profile", "runpod", "--instance", "p1",
                "--at", "2026-11-01T00:00:00Z")
    assert json.loads(out)["warnings"] == []  # no clock on RunPod: nothing to say


# --- advise cadence: numbers each in range, together out of it ------------------------------------
@pytest.mark.parametrize(("c", "h"), [("1e-300", "1e-300"), ("1e300", "1e300")])
def test_cadence_out_of_float_range_is_a_usage_error_not_a_traceback(
        capsys: pytest.CaptureFixture[str], c: str, h: str) -> None:
    # old: ZeroDivisionError traceback (exit 1) for the first, "checkpoint every inf s" (and
    # `Infinity`, which is not JSON, with --json) for the second
    code, out, err = call(capsys, "--json", "advise", "cadence", "--profile", "slurm",
                          "--checkpoint-seconds", c, "--mtbf-hours", h)
    assert code == 2, err
    assert out == ""
    assert "Traceback" not in err
    assert "out of range" in json.loads(err.strip().splitlines()[-1])["message"]


def test_cadence_says_when_a_checkpoint_costs_too_much_for_the_failure_rate(
        capsys: pytest.CaptureFixture[str]) -> None:
    # a 20-minute save on a box that fails every 30 minutes: tau = sqrt(2*1800*1200) = 2078.5 s
    out, _ = ok(capsys, "advise", "cadence", "--profile", "vastai", "--checkpoint-seconds",
                "1200", "--mtbf-hours", "0.5")
    assert "the interval (2078 s) is not shorter than the mean time between the failures it " \
           "covers (1800 s)" in out
    out, _ = ok(capsys, "advise", "cadence", "--profile", "vastai")  # the worked example
    assert "not shorter than" not in out


# --- instances: a huge price still gives valid JSON -----------------------------------------------
def test_instances_json_stays_json_when_the_cost_overflows(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--price-per-hour", "1e308",
       "--currency", "USD", "--at", "2026-05-01T00:00:00Z")
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v2", "--price-per-hour", "0",
       "--currency", "USD", "--at", "2026-05-01T00:00:00Z")
    out, _ = ok(capsys, "instances", "--json", "--now", "2026-05-02T00:00:00Z")

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    data = json.loads(out, parse_constant=refuse)
    items = {item["instance"]: item for item in data["instances"]}
    assert items["v1"]["cost"] is None
    assert items["v1"]["hours_metered"] == 24.0
    assert {"code": "anomaly", "message": "the cost overflows (price per hour 1e+308 USD): is "
            "the recorded price right?"} in items["v1"]["flags"]
    assert items["v2"]["cost"] == 0.0  # a free box costs 0, not "unknown"
    out, _ = ok(capsys, "instances", "--now", "2026-05-02T00:00:00Z")
    assert "inf" not in out


# --- instances: an acknowledged teardown that was never confirmed is said, not silently billed ----
def test_instances_flags_a_teardown_requested_but_never_confirmed(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--price-per-hour", "0.5",
       "--currency", "USD", "--at", "2026-11-01T00:00:00Z")
    ok(capsys, "teardown", "--instance", "v1", "--yes", "--override", "scratch box", "--", "true")
    out, _ = ok(capsys, "instances", "--json")
    (item,) = json.loads(out)["instances"]
    assert item["state"] == "running"  # nobody observed it gone: it may still bill
    (flag,) = [f for f in item["flags"] if f["code"] == "teardown-unconfirmed"]
    assert "(acknowledged: the command exited 0) but not confirmed" in flag["message"]
    assert "labledger teardown --instance v1 --confirm-absent" in flag["message"]
    text, _ = ok(capsys, "instances")
    assert "v1: TEARDOWN-UNCONFIRMED: teardown requested at " in text

    ok(capsys, "teardown", "--instance", "v1", "--confirm-absent", "--evidence", "not listed")
    out, _ = ok(capsys, "instances", "--json")
    (item,) = json.loads(out)["instances"]
    assert item["state"] == "released"
    assert [f for f in item["flags"] if f["code"] == "teardown-unconfirmed"] == []


def test_a_failed_teardown_request_is_flagged_as_not_acknowledged(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "runpod", "--instance", "p1", "--at", "2026-11-01T00:00:00Z")
    ok(capsys, "stop", "--instance", "p1", "--at", "2026-11-01T01:00:00Z")
    code, _, err = call(capsys, "teardown", "--instance", "p1", "--yes", "--override", "scratch",
                        "--", "false")
    assert code == 1, err
    out, _ = ok(capsys, "instances", "--json")
    (item,) = json.loads(out)["instances"]
    (flag,) = [f for f in item["flags"] if f["code"] == "teardown-unconfirmed"]
    assert "(not acknowledged) but not confirmed" in flag["message"]
