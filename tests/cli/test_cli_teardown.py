"""`labledger verify-pull | gate teardown | teardown`, end to end through main()."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.cli.teardown import _COLUMNS
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n"}


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def kinds(ledger: Ledger, prefix: str) -> list[dict[str, Any]]:
    return [{"kind": r.kind, "instance": r.instance, **r.body_dict()}
            for r in ledger.records() if r.kind.startswith(prefix)]


# --- verify-pull ------------------------------------------------------------------------------
def test_verify_pull_writes_then_invalidates(ledger: Ledger, pull_seed: Any, project: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.full(FILES)
    out = project / "PULL_VERIFIED.json"
    code, stdout, err = call(capsys, "verify-pull", "r1", "--out", str(out))
    assert code == 0, err
    assert stdout.strip() == str(out)
    assert json.loads(out.read_text())["files"] == 2
    pull_seed.corrupt("best.pth")
    code, _, err = call(capsys, "verify-pull", "r1", "--out", str(out))
    assert code == 3
    assert "gap: r1: best.pth: local object is corrupt" in err
    assert not out.exists()
    assert json.loads((project / "PULL_VERIFIED.json.invalid").read_text())["invalidated"]
    assert [e["kind"] for e in kinds(ledger, "object.")] == ["object.quarantined"]


def test_an_old_marker_never_satisfies_a_later_check(ledger: Ledger, pull_seed: Any,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.full(FILES)
    code, stdout, _ = call(capsys, "verify-pull", "r1")
    assert code == 0
    marker = Path(stdout.strip())
    assert marker.is_file()
    pull_seed.listed({**FILES, "extra.csv": b"late"})
    code, _, _ = call(capsys, "verify-pull", "r1")
    assert code == 3
    assert not marker.exists()
    code, _, _ = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3


def test_verify_pull_json(ledger: Ledger, pull_seed: Any,
                          capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.listed(FILES)
    code, stdout, _ = call(capsys, "--json", "verify-pull", "r1")
    assert code == 3
    data = json.loads(stdout)
    assert data["ok"] is False
    assert len(data["verification"]["gaps"]) == 2


# --- the gate ---------------------------------------------------------------------------------
def test_gate_refuses_with_a_table_then_passes(ledger: Ledger, pull_seed: Any,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent()
    ledger.append("run.launched", run="r1", instance="box1")
    pull_seed.listed(FILES)
    code, stdout, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3
    # the table is data (stdout); no earlier pull names the folder on the box, so the next
    # step names the --from it needs, with the host the rent recorded
    assert stdout.splitlines()[0].split() == list(_COLUMNS)
    assert ("labledger pull --run r1 --instance box1 --from root@ssh5.vast.ai:22:DIR "
            "--only train.csv") in stdout
    assert "unmet" not in stdout
    assert "gate REFUSED: box1: 2 unmet checks" in err
    assert "best.pth" not in err
    for path, data in FILES.items():
        pull_seed.pulled(path, data)
    pull_seed.verified("best.pth")
    code, stdout, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 0, err
    assert [line.split()[1] for line in stdout.splitlines()[2:]] == ["best.pth", "train.csv"]
    assert "gate passed: box1: 1 run pull-verified" in err
    code, stdout, err = call(capsys, "gate", "teardown", "--instance", "box1", "--json")
    assert code == 0, err
    assert json.loads(stdout)["ok"] is True


def test_verify_pull_of_an_unknown_run_says_why_once(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = call(capsys, "verify-pull", "nope")
    assert code == 3
    assert stdout.splitlines()[2].split() == ["nope", "-", "NO", "see", "below"]
    assert (stdout + err).count("no pull listing recorded") == 1, err
    assert "gap: nope: no pull listing recorded" in err
    assert "run nope is NOT pull-verified (1 gap)" in err


# --- teardown ---------------------------------------------------------------------------------
def test_refused_teardown_records_nothing(ledger: Ledger, pull_seed: Any,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent()
    ledger.append("run.launched", run="r1", instance="box1")
    code, _, err = call(capsys, "teardown", "--instance", "box1", "--yes")
    assert code == 3
    assert "meter-stop verb 'destroy' (IRREVERSIBLE)" in err
    assert kinds(ledger, "teardown.") == []


def test_a_profile_without_a_meter_stop_verb_says_so(ledger: Ledger, pull_seed: Any,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent(profile="local", host=None)  # a workstation: no meter, no provider verb
    code, _, err = call(capsys, "teardown", "--instance", "box1", "--yes")
    assert code == 3
    assert "meter-stop verb '(none: the local profile names no meter-stop verb)'" in err
    assert "not rented through labledger" not in err
    assert "run  path" not in err  # no run recorded: no empty table, the gate's reason instead
    assert "gate: no run is recorded on this instance" in err


def test_teardown_records_approved_requested_confirmed(
        ledger: Ledger, pull_seed: Any, capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent()
    pull_seed.full(FILES)
    code, stdout, err = call(capsys, "--json", "teardown", "--instance", "box1", "--yes", "--",
                             sys.executable, "-c", "print('destroying instance 123')")
    assert code == 0, err
    result = json.loads(stdout)
    approved, requested = kinds(ledger, "teardown.")
    assert approved["state_digest"] == result["gate"]["state_digest"]
    assert approved["approver"] == "tester@test"
    assert "override" not in approved
    assert requested["command"][1:] == ["-c", "print('destroying instance 123')"]
    assert requested["acknowledged"] is True
    assert requested["exit_code"] == 0
    assert requested["response"] == "destroying instance 123\n"
    assert "destroys: instance disk" in err
    code, _, err = call(capsys, "teardown", "--instance", "box1", "--confirm-absent",
                        "--evidence", "vastai show instances: empty")
    assert code == 0, err
    confirmed = kinds(ledger, "teardown.")[-1]
    assert confirmed == {"kind": "teardown.confirmed", "instance": "box1", "method": "observed",
                         "evidence": "vastai show instances: empty"}
    # Observed gone: the meter stops here; a later `release` would be a second release.
    released = [r.body_dict() for r in ledger.records() if r.kind == "instance.released"]
    assert released == [{"reason": "teardown confirmed (observed)"}]
    code, _, err = call(capsys, "release", "--instance", "box1")
    assert code == 2
    assert "released" in err


def test_a_failing_provider_command_is_not_acknowledged(
        ledger: Ledger, pull_seed: Any, capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.full(FILES)
    code, _, _ = call(capsys, "teardown", "--instance", "box1", "--yes", "--",
                      sys.executable, "-c", "import sys; sys.exit(7)")
    assert code == 1
    requested = kinds(ledger, "teardown.requested")[0]
    assert requested.get("acknowledged", False) is False  # bodies omit defaults
    assert requested["exit_code"] == 7


def test_override_is_recorded_with_reason_and_unmet(
        ledger: Ledger, pull_seed: Any, capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent()
    ledger.append("run.launched", run="r1", instance="box1")
    pull_seed.listed(FILES)
    code, _, err = call(capsys, "teardown", "--instance", "box1", "--yes",
                        "--override", "box is on fire")
    assert code == 0, err
    assert "OVERRIDE" in err
    approved = kinds(ledger, "teardown.approved")[0]
    assert approved["override"] is True
    assert approved["reason"] == "box is on fire"
    assert approved["unmet"] == ["r1: best.pth: never pulled", "r1: train.csv: never pulled"]


def test_no_terminal_and_no_yes_refuses(ledger: Ledger, pull_seed: Any,
                                        capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    pull_seed.full(FILES)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    code, _, err = call(capsys, "teardown", "--instance", "box1")
    assert code == 2
    assert "pass --yes" in err
    assert kinds(ledger, "teardown.") == []


@pytest.mark.parametrize("args", [("--json", "gate", "teardown"), ("gate", "teardown", "--json")])
def test_a_usage_error_with_json_ends_with_the_error_line(ledger: Ledger,
                                                          capsys: pytest.CaptureFixture[str],
                                                          args: tuple[str, ...]) -> None:
    code, out, err = call(capsys, *args)
    assert code == 2
    assert out == ""
    assert "Missing option '--instance'" in err  # click's usage text first, for people
    error = json.loads(err.strip().splitlines()[-1])
    assert error == {"type": "exit_error", "code": 2, "message": "Missing option '--instance'.",
                     "error": "MissingParameter"}


def test_a_mistyped_instance_is_not_an_empty_box(ledger: Ledger, pull_seed: Any,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent("vast-111")
    code, _, err = call(capsys, "gate", "teardown", "--instance", "vast-11")
    assert code == 3
    assert "instance 'vast-11' is not in the ledger" in err
    assert "recorded instances: vast-111" in err


# --- which listings the gate counts ---------------------------------------------------------------
def test_a_pull_with_only_does_not_open_the_gate(ledger: Ledger, pull_seed: Any, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent()
    ledger.append("run.launched", run="r1", instance="box1")
    box = tmp_path / "box-r1"
    box.mkdir()
    (box / "train.csv").write_bytes(FILES["train.csv"])
    (box / "metrics.json").write_text('{"acc": 0.9}\n')
    pull = ["pull", "--run", "r1", "--instance", "box1", "--from-dir", str(box)]
    assert call(capsys, *pull, "--only", "metrics.json")[0] == 0
    code, _, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 3
    assert "no full listing of the box: run `labledger pull --run r1 --instance box1 ...` " \
        "without --only" in err
    code, _, err = call(capsys, "verify-pull", "r1")
    assert code == 3
    assert "gap: r1: no full listing of the box" in err
    assert call(capsys, *pull)[0] == 0
    code, _, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 0, err


def test_a_pull_from_elsewhere_does_not_open_the_gate(ledger: Ledger, pull_seed: Any,
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent("vast-9")
    ledger.append("run.launched", run="r1", instance="vast-9")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("unrelated\n")
    assert call(capsys, "pull", "--run", "r1", "--from-dir", str(other))[0] == 0
    code, stdout, _ = call(capsys, "--json", "gate", "teardown", "--instance", "vast-9")
    assert code == 3
    assert json.loads(stdout)["unmet"] == [
        f"r1: the latest listing of r1 was taken from dir:{other} (no instance), not from "
        "instance vast-9: pull with --instance vast-9 (`labledger pull --run r1 --instance "
        "vast-9 ...`)"]
    code, _, err = call(capsys, "gate", "teardown", "--instance", "vast-9")
    assert code == 3
    assert "gate REFUSED: vast-9: 1 unmet check" in err
    assert "Traceback" not in err
