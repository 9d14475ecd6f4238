"""`labledger teardown` of an instance already released: refused, nothing written, nothing run;
and a provider command that cannot run is said to have not finished (never "exited None")."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n"}


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def test_teardown_of_a_released_instance_is_refused_and_runs_nothing(
        ledger: Ledger, pull_seed: Any, project: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    pull_seed.rent()
    pull_seed.full(FILES)
    code, _, err = call(capsys, "teardown", "--instance", "box1", "--confirm-absent")
    assert code == 0, err
    assert [r.kind for r in ledger.records()][-2:] == ["teardown.confirmed", "instance.released"]
    ran = tmp_path / "ran"
    before = snapshot(project)
    code, out, err = call(capsys, "teardown", "--instance", "box1", "--yes", "--",
                          sys.executable, "-c", f"open({str(ran)!r}, 'w')")
    assert code == 2
    assert "cannot tear down instance 'box1': it was released at" in err
    assert "nothing was written" in err
    assert out == ""
    assert not ran.exists()
    assert snapshot(project) == before


def test_a_provider_command_that_cannot_run_is_not_acknowledged(
        ledger: Ledger, pull_seed: Any, capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent()
    pull_seed.full(FILES)
    code, _, err = call(capsys, "teardown", "--instance", "box1", "--yes", "--",
                        "no-such-provider-cli-xyz", "destroy", "box1")
    assert code == 1
    assert "exited None" not in err
    assert "provider command did not finish: not acknowledged" in err
    assert "could not run" in err
    requested = [r.body_dict() for r in ledger.records() if r.kind == "teardown.requested"]
    assert requested[-1].get("acknowledged", False) is False  # (a default: omitted)
