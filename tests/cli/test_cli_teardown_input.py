"""`labledger teardown`: an interrupted provider command, and input refused before anything is
written (a never-rented instance confirmed absent, a blank override reason)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def teardown_events(ledger: Ledger) -> list[dict[str, Any]]:
    return [{"kind": r.kind, **r.body_dict()} for r in ledger.records()
            if r.kind.startswith("teardown.")]


def teardown_running(project: Path, tmp_path: Path, script: str,
                     *options: str) -> subprocess.Popen[str]:
    """`labledger [OPTIONS] teardown --instance box1 --yes -- python PROVIDER`, returned once
    the provider command (``script``, then a signal that it started, then a long sleep) runs:
    synchronised on a file it writes, not on a guessed delay."""
    started = tmp_path / "started"
    provider = tmp_path / "provider.py"
    provider.write_text(script + f"import pathlib, time\npathlib.Path({str(started)!r}).touch()\n"
                        "time.sleep(60)\nprint('done')\n")
    exe = Path(sys.executable).with_name("labledger")
    proc = subprocess.Popen([str(exe), *options, "teardown", "--instance", "box1", "--yes",
                             "--", sys.executable, str(provider)], cwd=project, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while not started.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return proc


def test_interrupting_the_provider_command_records_it_and_keeps_its_output(
        ledger: Ledger, pull_seed: Any, project: Path, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the process group) while the provider command runs: what it printed
    was shown as it came, `teardown.requested` records it with the interruption, exit 130."""
    pull_seed.rent()
    pull_seed.full({"train.csv": b"step,loss\n1,0.5\n"})
    proc = teardown_running(project, tmp_path,
                            "import sys\n"
                            "print('destroying instance 123...', flush=True)\n"
                            "print('request sent', file=sys.stderr, flush=True)\n")
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "destroying instance 123...\nrequest sent\n" in err  # streamed, not lost
    assert "done" not in err
    assert err.rstrip().endswith("labledger: interrupted")
    approved, requested = teardown_events(Ledger.open(project))
    assert approved["kind"] == "teardown.approved"
    assert out.strip() == next(iter(Ledger.open(project).records(
        kinds=("teardown.approved",)))).id  # the approval's id, as without an interruption
    assert requested["kind"] == "teardown.requested"
    assert requested["extra"] == {"interrupted": "SIGINT"}
    assert requested.get("acknowledged", False) is False
    assert requested["response"].startswith("destroying instance 123...\nrequest sent\n")
    assert "interrupted (SIGINT)" in requested["response"]
    assert "recorded teardown.requested" in err


def test_ctrl_c_pressed_again_and_again_still_records_the_request(
        ledger: Ledger, pull_seed: Any, project: Path, tmp_path: Path) -> None:
    """Ctrl-C four times in a row while a provider command that ignores it runs: labledger waits
    for it (bounded), kills it, and still records teardown.requested before it stops."""
    pull_seed.rent()
    pull_seed.full({"train.csv": b"step,loss\n1,0.5\n"})
    proc = teardown_running(project, tmp_path,
                            "import signal\n"
                            "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                            "print('destroy request sent', flush=True)\n")
    for pause in (0.3, 0.3, 0.01, 0.0):
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(pause)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    kinds = [e["kind"] for e in teardown_events(Ledger.open(project))]
    assert kinds == ["teardown.approved", "teardown.requested"]
    requested = teardown_events(Ledger.open(project))[1]
    assert requested["extra"] == {"interrupted": "SIGINT"}
    assert requested["response"].startswith("destroy request sent\n")
    assert "s after the command started" in requested["response"]


def test_an_interrupted_teardown_with_json_prints_one_document(
        ledger: Ledger, pull_seed: Any, project: Path, tmp_path: Path) -> None:
    pull_seed.rent()
    pull_seed.full({"train.csv": b"step,loss\n1,0.5\n"})
    proc = teardown_running(project, tmp_path, "print('bye', flush=True)\n", "--json")
    os.kill(proc.pid, signal.SIGINT)  # labledger alone: it stops the command itself
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    document = json.loads(out)
    assert document["interrupted"] == "SIGINT"
    assert document["requested"]["body"]["extra"] == {"interrupted": "SIGINT"}


def test_confirm_absent_of_a_never_rented_instance_is_refused(
        ledger: Ledger, project: Path, snapshot: Callable[[Path], dict[str, bytes]],
        capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(ledger.paths.segments)
    code, out, err = call(capsys, "teardown", "--instance", "nope", "--confirm-absent")
    assert code == 2
    assert out == ""
    assert "instance 'nope'" in err
    assert "no instance.rented records it" in err
    assert snapshot(ledger.paths.segments) == before


def test_confirm_absent_after_a_requested_teardown_of_an_unrented_box(
        ledger: Ledger, pull_seed: Any, capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.full({"train.csv": b"step,loss\n1,0.5\n"})  # runs recorded on box1, no rent
    code, _, err = call(capsys, "teardown", "--instance", "box1", "--yes", "--",
                        sys.executable, "-c", "pass")
    assert code == 0, err
    code, _, err = call(capsys, "teardown", "--instance", "box1", "--confirm-absent")
    assert code == 0, err
    assert [e["kind"] for e in teardown_events(ledger)] == [
        "teardown.approved", "teardown.requested", "teardown.confirmed"]


@pytest.mark.parametrize("reason", ["", "   ", "\t\n"])
def test_a_blank_override_reason_is_refused(
        ledger: Ledger, pull_seed: Any, project: Path, reason: str,
        snapshot: Callable[[Path], dict[str, bytes]],
        capsys: pytest.CaptureFixture[str]) -> None:
    pull_seed.rent()
    ledger.append("run.launched", run="r1", instance="box1")
    before = snapshot(ledger.paths.segments)
    code, out, err = call(capsys, "teardown", "--instance", "box1", "--yes",
                          "--override", reason)
    assert code == 2
    assert out == ""
    assert "--override" in err
    assert "blank" in err
    assert snapshot(ledger.paths.segments) == before
