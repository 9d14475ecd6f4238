"""What a new user hit: a --root that names no ledger, a log filtered by a run id with a typo, an
SSH pull without the optional paramiko. Each now says what is wrong and what to do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call


def test_a_root_that_does_not_exist_says_so(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "not" / "here"
    code, out, err = call(capsys, "--root", str(missing), "log")
    assert (code, out) == (1, "")
    assert f"no labledger ledger at {missing} (given by --root): it does not exist" in err
    assert "or any parent folder" not in err  # nothing was searched: --root named the folder


def test_a_root_from_the_environment_that_holds_no_ledger(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABLEDGER_ROOT", str(tmp_path))
    code, _, err = call(capsys, "log")
    assert code == 1
    assert "(given by LABLEDGER_ROOT): it holds no .labledger/; point LABLEDGER_ROOT at" in err


def test_log_of_a_run_no_event_names_warns_and_lists_the_runs(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger.append("note", run="r1", text="one")
    ledger.append("note", run="r2", instance="box1", text="two")
    root = ["--root", str(project)]
    code, out, err = call(capsys, *root, "log", "--run", "r3")
    assert (code, out) == (0, "")
    assert "no event names run 'r3'; the runs in the ledger: r1, r2" in err
    code, _, err = call(capsys, *root, "log", "--instance", "box9")
    assert "no event names instance 'box9'; the instances in the ledger: box1" in err
    # a run that exists but has no event of the kind asked for is no typo: no warning
    code, out, err = call(capsys, *root, "log", "--run", "r1", "--kind", "run.exited")
    assert (code, out, err) == (0, "", "")
    code, out, err = call(capsys, *root, "log", "--run", "r1")
    assert code == 0
    assert "warning" not in err
    assert "one" in out


def test_an_ssh_pull_without_paramiko_says_how_to_get_it(ledger: Ledger, project: Path) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    script = ("import sys; sys.modules['paramiko'] = None\n"
              "from labledger.ledger.cli import main\n"
              f"main(['--root', {str(project)!r}, 'pull', '--run', 'r1', '--from', "
              "'root@203.0.113.7:/root/export/r1'])\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0  # one line
    assert "pulling over SSH needs paramiko, which is not installed: pip install " \
        "'labledger[ssh]'" in proc.stderr
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before
