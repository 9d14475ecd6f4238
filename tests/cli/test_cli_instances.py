"""`labledger rent | stop | start | release | instances | advise cadence`, end to end.

Exit codes go through `main()` (which maps errors to codes); one test runs the real console
script. Times are always given (`--at`, `--now`) so every number is exact.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from labledger.profiles import shipped_profiles, snapshot
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]
RunCli = Callable[..., subprocess.CompletedProcess[str]]

MYBOX = """\
name = "mybox"
title = "My rented box"

[kind]
value = "ssh-host"
verified = "2026-06"
source = "my provider's FAQ"

[meter-stop]
verb = "stop"
irreversible = false
verified = "2026-06"
source = "my provider's FAQ"

[[danger-clocks]]
name = "reaper"
starts-when = "stopped"
after-hours = 100
action = "deletes the box"
verified = "2026-06"
source = "my provider's FAQ"

[[billing-traps]]
when = "stopped"
what = "the disk bills while stopped"
verified = "2026-06"
source = "my provider's FAQ"
"""


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def ok(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = call(capsys, *args)
    assert code == 0, err
    return out


def instances(capsys: pytest.CaptureFixture[str], now: str, *extra: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ok(capsys, "instances", "--now", now, "--json", *extra))
    return {item["instance"]: item for item in data["instances"]}


def user_profile(project: Path, name: str, text: str) -> Path:
    folder = project / ".labledger" / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- rent ----------------------------------------------------------------------------------------
def test_rent_records_the_profile_snapshot(ledger: Ledger, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    out = ok(capsys, "rent", "--profile", "autodl", "--instance", "box1",
             "--host", "root@region-1.autodl.com:22", "--price-per-hour", "1.98",
             "--currency", "cny", "--at", "2026-11-01T08:00:00+08:00")
    records = list(Ledger.open(ledger.paths.project).records())
    assert out == records[-1].id + "\n"
    record = records[-1]
    assert record.kind == "instance.rented"
    assert record.instance == "box1"
    assert record.ts == "2026-11-01T00:00:00.000000Z"
    assert record.body_dict() == {
        "profile": "autodl", "host": "root@region-1.autodl.com:22", "price_per_hour": 1.98,
        "currency": "CNY",  # spot=False is the default, omitted like every default
        "profile_snapshot": snapshot(shipped_profiles()["autodl"].profile)}


def test_rent_json(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(ok(capsys, "--json", "rent", "--profile", "runpod", "--instance", "p1",
                         "--spot", "--at", "2026-11-01T00:00:00Z"))
    assert data["kind"] == "instance.rented"
    assert data["body"]["spot"] is True
    assert data["warnings"] == []


def test_rent_an_id_that_only_hosted_runs_so_far(ledger: Ledger,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "box1",
       "--at", "2026-11-01T01:00:00Z")
    ok(capsys, "rent", "--profile", "local", "--instance", "box1", "--at", "2026-11-01T00:00:00Z")
    item = instances(capsys, "2026-11-01T02:00:00Z")["box1"]
    assert item["state"] == "running"
    assert item["runs"] == ["r1"]


# --- the lifecycle, with exact arithmetic ---------------------------------------------------------
def test_stop_start_history_cost_and_danger_clock(ledger: Ledger,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "autodl", "--instance", "box1", "--price-per-hour", "2",
       "--currency", "CNY", "--at", "2026-11-01T00:00:00Z")
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "box1",
       "--at", "2026-11-01T00:30:00Z")
    ok(capsys, "emit", "run.exited", "--run", "r1", "--instance", "box1", "--set", "exit_code=0",
       "--at", "2026-11-01T02:45:00Z")
    ok(capsys, "stop", "--instance", "box1", "--at", "2026-11-01T03:00:00Z", "--reason", "done")
    ok(capsys, "start", "--instance", "box1", "--at", "2026-11-02T03:00:00Z")
    ok(capsys, "stop", "--instance", "box1", "--at", "2026-11-02T04:30:00Z")

    item = instances(capsys, "2026-11-02T16:00:00Z")["box1"]
    assert item["state"] == "stopped"
    assert item["platform"] == "autodl"
    assert item["hours_running"] == 4.5
    assert item["hours_metered"] == 4.5
    assert item["cost"] == 9.0
    assert item["currency"] == "CNY"
    assert item["runs"] == ["r1"]
    assert item["next_deadline"] == {
        "clock": "auto-release", "at": "2026-11-17T04:30:00.000000Z", "hours_left": 348.5,
        "action": "releases the instance: every disk except /root/autodl-fs is deleted"}
    assert item["flags"] == []

    # 40 hours before the auto-release: flagged
    close = instances(capsys, "2026-11-15T12:30:00Z")["box1"]
    assert close["next_deadline"]["hours_left"] == 40
    assert [f["code"] for f in close["flags"]] == ["danger-clock"]
    assert close["cost"] == 9.0  # a stopped AutoDL instance's compute does not bill

    ok(capsys, "release", "--instance", "box1", "--at", "2026-11-03T00:00:00Z")
    gone = instances(capsys, "2026-12-01T00:00:00Z")["box1"]
    assert gone["state"] == "released"
    assert gone["released_at"] == "2026-11-03T00:00:00.000000Z"
    assert gone["next_deadline"] is None
    assert gone["hours_metered"] == 4.5


def test_instances_text_output(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "lambda", "--instance", "l1", "--price-per-hour", "1.5",
       "--currency", "USD", "--at", "2026-11-01T00:00:00Z")
    code, out, err = call(capsys, "stop", "--instance", "l1", "--at", "2026-11-01T02:00:00Z")
    assert code == 0
    assert "does not stop compute billing" in err
    out = ok(capsys, "instances", "--now", "2026-11-01T05:00:00Z")
    lines = out.splitlines()
    assert lines[0].split() == ["INSTANCE", "PLATFORM", "STATE", "HOST", "HOURS", "COST", "NEXT",
                                "DEADLINE", "RUNS"]
    assert lines[2].split()[:6] == ["l1", "lambda", "stopped", "5.00", "7.50", "USD"]
    assert "l1: BILLING-WHILE-STOPPED: stopped, but" in out
    assert "l1: IDLE: idle 5.0 h with the meter running" in out
    assert "l1: still bills: compute, at the full rate" in out


def test_instances_on_an_empty_ledger(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "instances")
    assert code == 0
    assert out == ""
    assert "no instances recorded" in err
    assert json.loads(ok(capsys, "instances", "--json", "--now", "2026-01-01"))["instances"] == []


def test_history_is_unchanged_after_a_profile_edit(
        project: Path, ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    path = user_profile(project, "mybox", MYBOX)
    ok(capsys, "rent", "--profile", "mybox", "--instance", "b1", "--price-per-hour", "1",
       "--currency", "EUR", "--at", "2026-11-01T00:00:00Z")
    ok(capsys, "stop", "--instance", "b1", "--at", "2026-11-01T10:00:00Z")
    before = instances(capsys, "2026-11-05T00:00:00Z")["b1"]
    assert before["next_deadline"]["at"] == "2026-11-05T14:00:00.000000Z"
    assert before["still_bills"] == ["the disk bills while stopped"]
    assert before["title"] == "My rented box"

    path.write_text(MYBOX.replace("after-hours = 100", "after-hours = 500")
                    .replace("the disk bills while stopped", "nothing bills")
                    .replace("My rented box", "Renamed"), encoding="utf-8")
    assert "after-hours = 500" in ok(capsys, "profiles", "show", "mybox", "--toml")
    assert instances(capsys, "2026-11-05T00:00:00Z")["b1"] == before

    path.unlink()
    assert instances(capsys, "2026-11-05T00:00:00Z")["b1"] == before


def test_instances_json_has_the_documented_fields(ledger: Ledger,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ok(capsys, "rent", "--profile", "vastai", "--instance", "v1", "--at", "2026-11-01T00:00:00Z")
    data = json.loads(ok(capsys, "instances", "--json", "--now", "2026-11-01T01:00:00Z"))
    assert data["now"] == "2026-11-01T01:00:00.000000Z"
    assert sorted(data["instances"][0]) == sorted([
        "instance", "platform", "title", "state", "host", "spot", "rented_at", "released_at",
        "changed_at", "price_per_hour", "currency", "hours_running", "hours_metered", "cost",
        "still_bills", "next_deadline", "runs", "active_runs", "last_run_event_at", "leases",
        "flags"])


# --- refusals: exit 2, nothing written ------------------------------------------------------------
REFUSALS = [
    (["stop", "--instance", "nope"], "no instance.rented records it"),
    (["start", "--instance", "nope"], "no instance.rented records it"),
    (["release", "--instance", "nope"], "no instance.rented records it"),
    (["stop", "--instance", "gone"], "it was released at 2026-11-01T05:00:00.000000Z"),
    (["start", "--instance", "gone"], "it was released"),
    (["release", "--instance", "gone"], "it was released"),
    (["start", "--instance", "live"], "it is already running"),
    (["stop", "--instance", "idle"], "it is already stopped"),
    (["stop", "--instance", "live", "--at", "2026-10-31T00:00:00Z"],
     "before its last recorded change"),
    (["stop", "--instance", "live", "--at", "2999-01-01T00:00:00Z"], "is in the future"),
    (["stop", "--instance", "live", "--at", "yesterday"], "is not a timestamp"),
    (["rent", "--profile", "autodl", "--instance", "live"], "it is already rented and running"),
    (["rent", "--profile", "autodl", "--instance", "gone"], "instance ids are never reused"),
    (["rent", "--profile", "aws", "--instance", "new"], "no platform profile named 'aws'"),
    (["rent", "--profile", "autodl", "--instance", "new", "--spot"], "offers no spot capacity"),
    (["rent", "--profile", "autodl", "--instance", "new", "--price-per-hour", "2"],
     "a price needs its currency"),
    (["rent", "--profile", "autodl", "--instance", "new", "--price-per-hour", "2",
      "--currency", "yuan"], "not a three-letter currency code"),
    (["rent", "--profile", "autodl", "--instance", "new", "--price-per-hour", "-1",
      "--currency", "USD"], "price_per_hour"),
    (["rent", "--profile", "autodl", "--instance", "new", "--price-per-hour", "nan",
      "--currency", "USD"], "price_per_hour"),
    (["rent", "--profile", "autodl", "--instance", "bad id"], "not a valid instance id"),
    (["rent", "--profile", "autodl", "--instance", "new", "--host", "a b"], "is not a host"),
    (["instances", "--now", "soon"], "is not a timestamp"),
    (["advise", "cadence", "--profile", "autodl", "--checkpoint-seconds", "0"], "0"),
    (["advise", "cadence", "--profile", "autodl", "--announced-share", "1"], "1"),
]


@pytest.fixture
def history(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> Ledger:
    """`live` runs, `idle` is stopped, `gone` was released."""
    for name in ("live", "idle", "gone"):
        ok(capsys, "rent", "--profile", "autodl", "--instance", name,
           "--at", "2026-11-01T00:00:00Z")
    ok(capsys, "stop", "--instance", "idle", "--at", "2026-11-01T04:00:00Z")
    ok(capsys, "release", "--instance", "gone", "--at", "2026-11-01T05:00:00Z")
    return ledger


@pytest.mark.parametrize(("argv", "words"), REFUSALS)
def test_nonsense_is_refused_and_nothing_is_written(
        history: Ledger, project: Path, snapshot: Snapshot, capsys: pytest.CaptureFixture[str],
        argv: list[str], words: str) -> None:
    before = snapshot(project)
    code, out, err = call(capsys, *argv)
    assert code == 2, err
    assert out == ""
    assert words in err
    assert snapshot(project) == before


def test_a_refusal_in_json_mode_names_the_instance(history: Ledger,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "--json", "release", "--instance", "gone")
    assert code == 2
    error = json.loads(err.strip().splitlines()[-1])
    assert error["type"] == "exit_error"
    assert error["error"] == "InstanceStateError"
    assert error["instance"] == "gone"
    assert error["action"] == "release"


def test_an_invalid_user_profile_refuses_rent_and_writes_nothing(
        history: Ledger, project: Path, snapshot: Snapshot,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = user_profile(project, "mybox", MYBOX.replace("after-hours = 100",
                                                        "after-hours = -1"))
    before = snapshot(project)
    code, _, err = call(capsys, "rent", "--profile", "autodl", "--instance", "new")
    assert code == 2
    assert f"{path}:18: field 'danger-clocks[0].after-hours'" in err
    assert snapshot(project) == before


def test_console_script_exit_codes(history: Ledger, project: Path, snapshot: Snapshot,
                                   run_cli: RunCli) -> None:
    before = snapshot(project)
    proc = run_cli("stop", "--instance", "gone")
    assert proc.returncode == 2, proc.stderr
    assert "cannot stop instance 'gone'" in proc.stderr
    assert snapshot(project) == before
    proc = run_cli("stop", "--instance", "live", "--at", "2026-11-01T06:00:00Z")
    assert proc.returncode == 0, proc.stderr
    assert snapshot(project) != before


# --- the SQL view ---------------------------------------------------------------------------------
def test_the_sql_view_agrees_with_the_projection(history: Ledger,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # anomalies only `emit` can write: a start while running, a stop after release
    ok(capsys, "emit", "instance.started", "--instance", "live", "--at", "2026-11-01T06:00:00Z")
    ok(capsys, "emit", "instance.stopped", "--instance", "gone", "--at", "2026-11-01T07:00:00Z")
    ok(capsys, "emit", "run.launched", "--run", "r1", "--instance", "orphan",
       "--at", "2026-11-01T01:00:00Z")
    ok(capsys, "rent", "--profile", "runpod", "--instance", "again", "--price-per-hour", "3",
       "--currency", "USD", "--spot", "--at", "2026-11-01T00:00:00Z")
    ok(capsys, "release", "--instance", "again", "--at", "2026-11-01T01:00:00Z")
    ok(capsys, "emit", "instance.rented", "--instance", "again", "--set", "profile=runpod",
       "--at", "2026-11-01T02:00:00Z")
    projected = instances(capsys, "2026-11-02T00:00:00Z")
    rows = json.loads(ok(capsys, "sql", "--format", "json",
                         "select instance, platform, state, released_at, price_per_hour, spot, "
                         "stops, starts, runs from instances order by instance"))
    assert [r["instance"] for r in rows] == sorted(projected)
    for row in rows:
        item = projected[row["instance"]]
        assert row["state"] == item["state"], row
        assert row["platform"] == item["platform"], row
        assert row["price_per_hour"] == item["price_per_hour"], row
        assert row["spot"] == item["spot"], row
        assert row["runs"] == item["runs"], row
    by_name = {r["instance"]: r for r in rows}
    assert by_name["idle"]["stops"] == 1
    assert by_name["orphan"]["state"] == "unrecorded"
    assert by_name["gone"]["released_at"] is not None
    assert by_name["again"]["state"] == "running"
    assert by_name["again"]["released_at"] is None


# --- advise cadence -------------------------------------------------------------------------------
def test_advise_cadence_prints_the_arithmetic(capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "advise", "cadence", "--profile", "autodl", "--checkpoint-seconds", "30",
             "--mtbf-hours", "3")
    assert "sqrt(2 * MTBF * C) = sqrt(2 * 10800 s * 30 s) = sqrt(648000) = 805.0 s" in out
    assert out.splitlines()[-1] == "checkpoint every 805 s"


def test_advise_cadence_json_and_grace(project: Path, ledger: Ledger,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(ok(capsys, "advise", "cadence", "--profile", "runpod", "--json",
                         "--announced-share", "0.5"))
    assert data["interval_seconds"] == pytest.approx(804.984, abs=1e-3)
    assert data["save_fits_in_grace"] is False
    assert data["grace_seconds"] == 5
    warned = MYBOX + ('\n[preemption]\nspot = true\ngrace-seconds = 120\nsignal = "SIGTERM"\n'
                      'verified = "2026-06"\nsource = "mine"\n')
    user_profile(project, "mybox", warned)
    data = json.loads(ok(capsys, "advise", "cadence", "--profile", "mybox", "--json",
                         "--announced-share", "0.75"))
    assert data["save_fits_in_grace"] is True
    assert data["interval_seconds"] == pytest.approx(1609.969, abs=1e-3)


# --- help -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["rent"], ["stop"], ["start"], ["release"], ["instances"],
                                  ["advise"], ["advise", "cadence"]])
def test_every_command_documents_an_example(capsys: pytest.CaptureFixture[str],
                                            argv: list[str]) -> None:
    out = ok(capsys, *argv, "--help")
    assert "Example: labledger " in out
    assert f"Usage: labledger {' '.join(argv)}" in out


def test_concurrent_rents_of_one_id_record_one(project: Path, ledger: Ledger) -> None:
    """Six real processes rent the same id at once: the check and the append are one step, so
    exactly one rental is recorded and the others are refused (exit 2)."""
    import os
    import subprocess
    import sys

    exe = Path(sys.executable).with_name("labledger")
    procs = [subprocess.Popen([str(exe), "rent", "--profile", "local", "--instance", "race1"],
                              cwd=project, env={**os.environ, "LABLEDGER_WRITER": f"w{i}"},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for i in range(6)]
    codes = sorted(p.wait(timeout=120) for p in procs)
    for p in procs:
        assert p.stdout is not None
        assert p.stderr is not None
        p.stdout.close()
        p.stderr.close()
    assert codes == [0, 2, 2, 2, 2, 2]
    rented = [r for r in ledger.records() if r.kind == "instance.rented" and r.instance == "race1"]
    assert len(rented) == 1
