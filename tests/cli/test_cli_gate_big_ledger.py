"""`gate teardown`, `teardown`, `verify-pull`, `instances` and `hook` on a ledger of many
heartbeats: the same output as judged from every event, and a damaged line, even a beat a later
one supersedes, still stops the gate and the hook.

The commands read only the heartbeats that can decide (`pull_verified.gate_events`,
`instances.load_events(..., latest_heartbeats=True)`); these tests hold their output to the
judgement over every event, computed here from `load_events`.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from labledger.ledger.ledger import Ledger
from labledger.ledger.query import SegmentDamageWarning
from labledger.reconcile import instances
from labledger.reconcile.pull_verified import (
    ObjectChecker,
    evaluate_gate,
    load_events,
    open_store,
)
from tests.conftest import cli_call as call

FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n"}
# A provider's destroy as scripts run it, `vastai destroy instance ID` (after
# FrozenWolf-Cyber/crypto-mlops, utils/kill_vast_ai_instances.py), as Claude Code hands it over.
DESTROY = json.dumps({"tool_name": "Bash",
                      "tool_input": {"command": "vastai destroy instance 31337"}})
NOW = "2025-03-01T14:00:00.000000Z"


def stamp(seconds: int) -> str:
    return f"2025-03-01T{10 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:" \
           f"{seconds % 60:02d}.000000Z"


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


@pytest.fixture
def beating(ledger: Ledger, pull_seed: Any) -> Ledger:
    """box-a rented; r1 launched on it beats every 10 s for an hour (a training loop's fixed
    log interval, as in LeeJeongWoon-Workout/Deep_Learning,
    PyTorch_Practice/Optimization_Training/train.py), then is pulled and verified in full; r2 on
    box-b beats on (its gate refuses)."""
    pull_seed.rent("box-a")
    pull_seed.rent("box-b")
    ledger.append("run.launched", run="r1", instance="box-a", at=stamp(0),
                  command=["python", "train.py"], heartbeat_interval_s=10)
    ledger.append_batch([{"kind": "run.heartbeat", "run": run, "instance": box,
                          "at": stamp(10 * step), "body": {"step": step, "pid": 4242}}
                         for step in range(1, 360) for run, box in (("r1", "box-a"),
                                                                    ("r2", "box-b"))])
    ledger.append("run.exited", run="r1", instance="box-a", at=stamp(3600), exit_code=0)
    pull_seed.full(FILES, instance="box-a")
    return ledger


def every_event_gate(ledger: Ledger, instance: str) -> dict[str, Any]:
    return evaluate_gate(ledger, instance, events=load_events(ledger),
                         checker=ObjectChecker(open_store(ledger))).to_json()


def test_gate_teardown_says_what_every_event_says(beating: Ledger,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    for instance, want_code in (("box-a", 0), ("box-b", 3)):
        code, out, _ = call(capsys, "gate", "teardown", "--instance", instance, "--json")
        assert code == want_code
        assert json.loads(out) == every_event_gate(beating, instance)


def test_teardown_approves_the_state_every_event_gives(beating: Ledger,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    want = every_event_gate(beating, "box-a")["state_digest"]
    code, out, err = call(capsys, "teardown", "--instance", "box-a", "--yes", "--json")
    assert code == 0, err
    assert json.loads(out)["approved"]["body"]["state_digest"] == want


def test_verify_pull_writes_the_head_every_event_gives(beating: Ledger, project: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    want = every_event_gate(beating, "box-a")["ledger_head"]
    code, out, err = call(capsys, "verify-pull", "r1", "--instance", "box-a")
    assert code == 0, err
    assert json.loads(Path(out.strip()).read_text())["ledger_head"] == want


def test_instances_says_what_every_event_says(beating: Ledger,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    events = instances.load_events(beating.paths)
    for now in (NOW, stamp(1800), stamp(1805)):
        code, out, _ = call(capsys, "instances", "--json", "--now", now)
        assert code == 0
        when = datetime.strptime(now, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        want = [msgspec.to_builtins(r) for r in instances.report(events, now=when)]
        assert json.loads(out)["instances"] == want


def damage_a_superseded_beat(ledger: Ledger) -> tuple[Path, int]:
    """Flip a key of r1's tenth beat (one of 359, superseded): its line no longer matches its
    id. Returns the segment and the line's offset."""
    segment = next((ledger.paths.segments / "test-writer").glob("*.jsonl"))
    data = segment.read_bytes()
    at = data.index(b'"step":10}')
    start = data.rfind(b"\n", 0, at) + 1
    segment.chmod(0o644)
    segment.write_bytes(data[:at] + b'"stap":10}' + data[at + len(b'"step":10}'):])
    return segment, start


def test_a_damaged_superseded_beat_stops_the_gate(beating: Ledger,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    segment, offset = damage_a_superseded_beat(beating)
    code, out, err = call(capsys, "gate", "teardown", "--instance", "box-a")
    assert code == 1
    assert out == ""
    assert f"{segment} (byte {offset}): content does not match its id" in err
    with pytest.warns(SegmentDamageWarning):  # said first, by the lease's read (DuckDB)
        code, _, err = call(capsys, "teardown", "--instance", "box-a", "--yes")
    assert code == 1
    assert f"{segment} (byte {offset})" in err
    assert not [r for r in Ledger.open(beating.paths.project).records(
        kinds=("teardown.approved",))]


def test_a_damaged_superseded_beat_makes_the_hook_block(
        beating: Ledger, run_cli: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    assert run_cli("hook", input=DESTROY).returncode == 2  # box-b's gate refuses anyway
    run_cli("release", "--instance", "box-b")
    assert run_cli("hook", input=DESTROY).returncode == 0  # box-a's gate passes
    damage_a_superseded_beat(beating)
    done = run_cli("hook", input=DESTROY)
    assert done.returncode == 2
    assert "could not judge a destructive command (CorruptionError" in done.stderr
