"""What an ML researcher hit using labledger end to end (init, run, close, pull, claims,
reconcile, gate): a claim line that printed a large count rounded, a pull from a "box" on the
same machine whose ledger silently could not merge, `--from` given a local folder, a run id typo
in `verify-pull` that read as "pull it first", and a checkpoint load failure that hid the one
line saying why. Every test runs the real `labledger` console script."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

Cli = Callable[..., subprocess.CompletedProcess[str]]


def _torch():  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():  # the CPU wheel warns without numpy (absent here)
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy",
                                category=UserWarning)
        import torch
    return torch


@pytest.fixture
def project(project: Path, ledger: Ledger) -> Path:
    """The conftest's project, initialised (``labledger init``)."""
    return project


def test_a_claim_on_a_large_count_prints_it_in_full(project: Path, run_cli: Cli) -> None:
    # The shape of a Hugging Face Trainer's all_results.json (as in Merlinmy/Whisper_small_hi,
    # all_results.json), with a token count of our own: ``.10g`` printed 209715212345 as
    # 2.097152123e+11, which reads as 209715212300, in the line a user copies into the paper.
    run_dir = project / "runs" / "gpt2-ft"
    run_dir.mkdir(parents=True)
    (run_dir / "all_results.json").write_text(json.dumps({
        "epoch": 3.0, "eval_loss": 2.8613, "eval_samples": 1200, "train_loss": 3.0217,
        "train_runtime": 5123.4471, "train_samples": 48211, "train_tokens": 209715212345,
        "total_flos": 1.2345678912345678e+16}, indent=4))
    assert run_cli("ingest-dir", str(run_dir), "--run", "gpt2-ft", "--settle", "0").returncode == 0
    added = run_cli("claim", "add", "T1", "--run", "gpt2-ft", "--metric", "train_tokens",
                    "--from", "all_results.json", "--direction", "higher")
    assert added.returncode == 0, added.stderr
    assert "T1: train_tokens = 209715212345 (higher is better)" in added.stderr
    flos = run_cli("claim", "add", "F1", "--run", "gpt2-ft", "--metric", "total_flos",
                   "--from", "all_results.json", "--direction", "lower")
    assert flos.returncode == 0, flos.stderr
    assert "F1: total_flos = 1.2345678912345678e+16 (lower is better)" in flos.stderr
    listed = run_cli("claim", "list")
    assert "209715212345" in listed.stdout
    assert "e+11" not in listed.stdout
    # an ordinary metric still reads at ten significant digits, as before
    loss = run_cli("claim", "add", "L1", "--run", "gpt2-ft", "--metric", "eval_loss",
                   "--from", "all_results.json")
    assert "L1: eval_loss = 2.8613 (lower is better)" in loss.stderr


def test_a_box_folder_on_this_machine_says_why_its_ledger_did_not_merge(
        tmp_path: Path, project: Path, run_cli: Cli) -> None:
    # Train in one project, write the paper in another, on one workstation: both ledgers write
    # under this machine's name (here the suite's LABLEDGER_WRITER), so the box's segment
    # collides with the laptop's own.
    box = tmp_path / "box"
    box.mkdir()
    at_box = {"LABLEDGER_ROOT": str(box)}
    assert run_cli("init", "-q", cwd=box, env=at_box).returncode == 0
    run = box / "export" / "r1"
    run.mkdir(parents=True)
    (run / "train.csv").write_text("step,loss\n100,0.52\n200,0.31\n")
    assert run_cli("emit", "note", "--run", "r1", "--data", '{"text": "trained"}',
                   cwd=box, env=at_box).returncode == 0
    pulled = run_cli("pull", "--run", "r1", "--from-dir", str(run))
    assert pulled.returncode == 3
    assert "never overwritten (the box's ledger writes as" in pulled.stderr
    assert "this ledger's own writer name: two ledgers on one machine" in pulled.stderr
    assert "`export LABLEDGER_WRITER=box1` before it records" in pulled.stderr
    # a box with a name of its own merges
    other = tmp_path / "box2"
    other.mkdir()
    named = {"LABLEDGER_WRITER": "box2", "LABLEDGER_ROOT": str(other)}
    assert run_cli("init", "-q", cwd=other, env=named).returncode == 0
    (other / "export" / "r2").mkdir(parents=True)
    (other / "export" / "r2" / "train.csv").write_text("step,loss\n100,0.5\n")
    assert run_cli("emit", "note", "--run", "r2", "--data", '{"text": "x"}', cwd=other,
                   env=named).returncode == 0
    merged = run_cli("pull", "--run", "r2", "--from-dir", str(other / "export" / "r2"))
    assert merged.returncode == 0, merged.stderr
    assert "writer name" not in merged.stderr


@pytest.mark.parametrize("source", ["/mnt/nfs/runs/r1", "../box/export/r1", "./runs/r1"])
def test_from_given_a_local_folder_points_to_from_dir(project: Path, run_cli: Cli,
                                                      source: str) -> None:
    done = run_cli("pull", "--run", "r1", "--from", source)
    assert done.returncode == 2
    assert f"a folder on this machine is pulled with --from-dir {source}" in done.stderr
    # an ssh command line still gets its own hint, not this one
    ssh = run_cli("pull", "--run", "r1", "--from", "ssh -p 41234 root@ssh5.vast.ai")
    assert ssh.returncode == 2
    assert "--from-dir" not in ssh.stderr


def test_the_from_dir_hint_expands_a_tilde(project: Path, run_cli: Cli) -> None:
    """After `--from=~/runs` the shell leaves the "~" as it is; the hint printed
    `--from-dir '~/runs'`, which --from-dir then refused as a folder that does not exist
    (review). It prints the home folder's path."""
    done = run_cli("pull", "--run", "r1", "--from", "~/runs/r1")
    assert done.returncode == 2
    home = os.path.expanduser("~")
    assert f"--from-dir {home}/runs/r1" in done.stderr
    assert "'~" not in done.stderr


def test_verify_pull_of_a_mistyped_run_lists_the_runs(project: Path, tmp_path: Path,
                                                      run_cli: Cli) -> None:
    box = tmp_path / "box" / "r1"
    box.mkdir(parents=True)
    (box / "train.csv").write_text("step,loss\n100,0.5\n")
    assert run_cli("pull", "--run", "r1", "--from-dir", str(box)).returncode == 0
    assert run_cli("verify-pull", "r1").returncode == 0
    typo = run_cli("verify-pull", "R1")
    assert typo.returncode == 3  # as before: a run with nothing pulled is not verified
    assert "warning: no event names run 'R1'; the runs in the ledger: r1" in typo.stderr
    # a run the ledger knows, pulled or not, gets no such warning
    assert "no event names" not in run_cli("verify-pull", "r1").stderr


def test_a_file_that_is_no_pickle_names_the_unsupported_opcode(
        project: Path, tmp_path: Path, run_cli: Cli) -> None:
    # nanoGPT's data/prepare.py writes token ids as raw uint16 (train.bin, val.bin): a *.bin
    # that the default checkpoint glob loads. torch's message is three paragraphs; the line
    # that says what is wrong is the "Unsupported operand" one, which was dropped for the
    # generic "Please file an issue ... WeightsUnpickler error:" line.
    box = tmp_path / "box" / "r1"
    box.mkdir(parents=True)
    tokens = [15496, 11, 616, 1438, 318, 50256, 464, 2068] * 64
    (box / "val.bin").write_bytes(struct.pack(f"<{len(tokens)}H", *tokens))
    _torch().save(_torch().nn.Linear(2, 2).state_dict(), box / "ckpt.pt")
    done = run_cli("pull", "--run", "r1", "--from-dir", str(box))
    assert done.returncode == 3
    line = next(x for x in done.stderr.splitlines() if x.startswith("checkpoint: val.bin:"))
    assert "Unsupported operand" in line
    assert "Please file an issue" not in line
