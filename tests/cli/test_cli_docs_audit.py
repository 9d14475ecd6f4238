"""What the docs promise about bad input, checked where the code did otherwise (a docs audit).

docs/exit-codes.md: a file or folder named on the command line that does not exist is bad
input (exit 2), and bad input writes nothing. Each test here is a case the code got wrong:

* `close MISSING` exited 1 (a failure) instead of 2;
* an empty path (an unset shell variable: `labledger cas put "$DIR"`) was read by Python as the
  current folder, so `cas put ""` in a subfolder stored all of it;
* `pull` with a run id no event can carry listed the box (over SSH: connected and pinned its
  host key) before the ledger refused the id; `verify-pull`, `gate teardown` and `teardown`
  judged such an id as one with nothing recorded (exit 3) instead of refusing it (exit 2);
* `emit --set K=a --set K=b` and `checkpoint --metric m=1 --metric m=2` kept the last value
  silently, where `--data` with a key given twice is refused (docs/ledger.md).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]
RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def _in_project(ledger: Ledger, project: Path, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.ssh of the developer's
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)


def _refused(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err


# --- close: a missing source is bad input ---------------------------------------------------
def test_close_of_a_source_that_does_not_exist_exits_2_and_writes_nothing(
        capsys: pytest.CaptureFixture[str], project: Path, snapshot: Snapshot) -> None:
    before = snapshot(project)
    code, out, err = call(capsys, "close", "active/typo", "--run", "r7",
                          "--export-root", "export")
    _refused(code, err, "active/typo", "does not exist")
    assert out == ""
    assert snapshot(project) == before  # no export root, no lock file, no event


def test_close_of_a_missing_source_in_json_names_the_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "--json", "close", "active/typo", "--run", "r7",
                        "--export-root", "export")
    assert code == 2
    assert '"error": "CapsuleSourceMissingError"' in err.splitlines()[-1]


# --- empty paths ------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["cas", "put", ""],
    ["cas", "put", "results.csv", ""],
    ["close", "", "--run", "r7", "--export-root", "../export"],
    ["close", ".", "--run", "r7", "--export-root", ""],
], ids=["cas-put", "cas-put-second", "close-source", "close-export-root"])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(
        capsys: pytest.CaptureFixture[str], project: Path, snapshot: Snapshot,
        monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    runs = project / "runs"
    runs.mkdir()
    (runs / "results.csv").write_text("step,loss\n100,0.5\n")
    monkeypatch.chdir(runs)  # a folder that does not hold the ledger: it could be stored
    before = snapshot(project)
    code, out, err = call(capsys, *args)
    _refused(code, err, "empty")
    assert out == ""
    assert snapshot(project) == before


def test_cas_get_to_an_empty_output_is_refused(
        capsys: pytest.CaptureFixture[str], project: Path, snapshot: Snapshot,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "results").mkdir()
    (project / "results" / "a.txt").write_text("a\n")
    code, out, err = call(capsys, "cas", "put", "results")
    assert code == 0, err
    digest = out.split()[0]  # a tree: restored into "" it would fill the current folder
    (project / "restored").mkdir()
    monkeypatch.chdir(project / "restored")
    before = snapshot(project)
    code, _, err = call(capsys, "cas", "get", digest, "-o", "", "--force")
    _refused(code, err, "empty")
    assert snapshot(project) == before


# --- run and instance ids that no event can carry --------------------------------------------
@pytest.mark.parametrize(("option", "value"), [("--run", ""), ("--run", "r 1"),
                                               ("--instance", "box/1")])
def test_pull_refuses_a_bad_id_before_it_reads_the_folder(
        capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, snapshot: Snapshot,
        option: str, value: str) -> None:
    folder = tmp_path / "box"
    folder.mkdir()
    (folder / "train.csv").write_text("step,loss\n100,0.5\n")
    args = {"--run": "r1", "--instance": "box1", option: value}
    before = snapshot(project)
    code, _, err = call(capsys, "pull", "--run", args["--run"], "--instance",
                        args["--instance"], "--from-dir", str(folder))
    _refused(code, err, f"field '{option[2:]}'", f"{value!r} is not a valid")
    assert snapshot(project) == before  # not even the pull lock under cas/tmp


def test_pull_over_ssh_refuses_a_bad_run_id_before_it_connects(
        capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, snapshot: Snapshot,
        sshd: Any) -> None:
    folder = tmp_path / "box"
    folder.mkdir()
    (folder / "train.csv").write_text("step,loss\n100,0.5\n")
    before = snapshot(project)
    code, _, err = call(capsys, "pull", "--run", "", "--from", sshd.target(folder),
                        "--identity", str(sshd.client_key), "--accept-new-host-key")
    _refused(code, err, "field 'run'")
    assert not (project / ".labledger" / "known_hosts").exists()  # the key was not pinned
    assert snapshot(project) == before


@pytest.mark.parametrize("args", [
    ["verify-pull", ""],
    ["verify-pull", "r 1"],
    ["verify-pull", "r1", "--instance", "box 1"],
    ["gate", "teardown", "--instance", ""],
    ["teardown", "--instance", "", "--yes"],
], ids=["verify-empty", "verify-space", "verify-instance", "gate-empty", "teardown-empty"])
def test_judging_a_bad_id_is_bad_input_not_a_refusal(
        capsys: pytest.CaptureFixture[str], project: Path, snapshot: Snapshot,
        args: list[str]) -> None:
    before = snapshot(project)
    code, out, err = call(capsys, *args)
    _refused(code, err, "is not a valid", "nothing was written")
    assert out == ""
    assert snapshot(project) == before


# --- a value given twice ----------------------------------------------------------------------
@pytest.mark.parametrize("sets", [
    ["--set", "text=first", "--set", "text=second"],
    ["--set", "extra.loss=0.5", "--set", "extra.loss=0.4", "--set", "text=x"],
    ["--set", "extra.loss=0.5", "--set", "extra=7", "--set", "text=x"],
], ids=["same-key", "same-nested-key", "over-an-object"])
def test_emit_refuses_a_key_set_twice_on_the_fast_path_too(
        run_cli: RunCli, project: Path, sets: list[str]) -> None:
    done = run_cli("emit", "note", "--run", "r1", *sets)  # the console script: fast path first
    _refused(done.returncode, done.stderr, "given twice" if "extra=7" not in sets else
             "replace")
    assert list(Ledger.open(project).records()) == []


def test_emit_still_lets_set_override_a_data_key(run_cli: RunCli, project: Path) -> None:
    done = run_cli("emit", "note", "--run", "r1", "--data", '{"text": "a"}', "--set", "text=b")
    assert done.returncode == 0, done.stderr
    [record] = Ledger.open(project).records()
    assert record.body_dict()["text"] == "b"


def test_checkpoint_refuses_a_metric_given_twice(capsys: pytest.CaptureFixture[str],
                                                 project: Path, snapshot: Snapshot) -> None:
    (project / "weights.bin").write_bytes(b"\x00" * 64)
    before = snapshot(project)
    code, _, err = call(capsys, "checkpoint", "weights.bin", "--run", "r1",
                        "--metric", "loss=0.5", "--metric", "loss=0.4")
    _refused(code, err, "'loss' is given twice")
    assert snapshot(project) == before
