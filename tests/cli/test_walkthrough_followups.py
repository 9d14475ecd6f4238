"""More of what a user walkthrough hit, each through the real `labledger` console script:

* `close DIR --run r8` over a capsule whose own run.json says it is r1 sealed it as r8, and a
  seal is final: a typo'd --run labelled r1's results as r8's for good. It is now a capsule-rule
  problem (quarantine, exit 3) naming both ids and the fix, and the run closes correctly after;
  without --run (and $LABLEDGER_RUN), close takes the id the run's files name.
* A review of that `close` change: without --run it read SOURCE/run.json whatever it was, and
  hung for ever on a FIFO; it quarantined every capsule whose run.json holds a tracker's id
  (`wandb-3kq9x1`), though only an id of a run the ledger knows can be a typo'd --run (one it
  has never seen now seals, with a warning); the command its quarantine message printed failed
  as printed (the quarantine folder's own REASON.txt is a forbidden file); and its
  `checkpoint.verified` events lacked pull's `resume_state` and `refused`.
* `claim add` from an empty metrics.json said "is not valid JSON (Expecting value: line 1
  column 1 (char 0))"; claim refusals did not all say that nothing was written.
* reconcile printed a whole-number claim value as "evidence says 123456789012.0".
* reconcile's summary counted only the numbers that matched as "checked" ("1 number(s) checked
  ...: 2 drift"), though the drifted ones were checked too.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def project(project: Path, ledger: Ledger) -> Path:
    """The conftest's project, initialised (``labledger init``)."""
    return project


def _torch():  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():  # the CPU wheel warns without numpy (absent here)
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy",
                                category=UserWarning)
        import torch
    return torch


def _finished_run(folder: Path, run_json: dict[str, object]) -> Path:
    """A finished run in the canonical layout (DOMAIN.md), with a real checkpoint and Parquet.

    run.json follows the shape of a per-run ``run.json`` such as enyst/oh-llm documents in
    docs/runs.md (``schema_version``, ``run_id``, ``created_at``, then what the run used), with
    our own values; the caller says which identity fields it holds."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    torch = _torch()
    (folder / "test" / "kodak").mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps(
        {"schema_version": 1, **run_json, "created_at": "2026-11-30T21:04:11Z", "seed": 3,
         "git_sha": "5f0c2a9", "split": {"train": "div2k", "test": "kodak"}}, indent=2))
    (folder / "config.yaml").write_text("lr: 0.0002\nbatch_size: 16\nepochs: 40\n")
    (folder / "train.csv").write_text("epoch,loss,val_psnr\n1,0.0412,27.91\n40,0.0139,31.42\n")
    (folder / "test" / "kodak" / "metrics.json").write_text('{"psnr": 31.42, "ssim": 0.8871}')
    pq.write_table(pa.table({"image": ["kodim01", "kodim02"], "psnr": [30.9, 31.94]}),
                   folder / "test" / "kodak" / "results.parquet")
    torch.manual_seed(0)
    torch.save({"model_state_dict": torch.nn.Linear(3, 2).state_dict()}, folder / "best.pth")
    return folder


def _launched(run_cli: Cli, run: str) -> None:
    """The ledger knows ``run``: `labledger run` recorded its launch and exit."""
    done = run_cli("run", "--run", run, "--", sys.executable, "-c", "pass")
    assert done.returncode == 0, done.stderr


def _events(project: Path, kind: str) -> list[dict[str, object]]:
    with Ledger.open(project) as led:
        return [{"run": r.run, **r.body_dict()} for r in led.records(kinds=(kind,))]


def test_close_refuses_a_run_id_that_the_runs_own_run_json_contradicts(
        project: Path, run_cli: Cli) -> None:
    _launched(run_cli, "r1")
    _finished_run(project / "active" / "r1", {"run_id": "r1"})
    typo = run_cli("close", "active/r1", "--run", "r8", "--export-root", "export",
                   "--settle", "0")
    assert typo.returncode == 3, typo.stderr
    assert "run r8 quarantined in" in typo.stderr
    assert ("run.json says this is run 'r1' (run_id), but it is being closed as run 'r8'"
            in typo.stderr)
    assert ("close it as that run (`labledger close active/r1 --export-root export --run r1`); "
            "if it is r8, fix run.json's run_id") in typo.stderr
    assert not (project / "export" / "r8").exists()
    reason = (project / "quarantine" / "r8--1" / "REASON.txt").read_text()
    assert "run.json says this is run 'r1'" in reason
    assert _events(project, "capsule.sealed") == []
    (quarantined,) = _events(project, "capsule.quarantined")
    assert quarantined["run"] == "r8"
    assert "'r1'" in str(quarantined["reason"])
    # the source was only copied: closing it as the run it is now seals it
    fixed = run_cli("close", "active/r1", "--run", "r1", "--export-root", "export",
                    "--settle", "0")
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stdout.strip() == str(project / "export" / "r1")
    assert [e["run"] for e in _events(project, "capsule.sealed")] == ["r1"]


def test_close_without_run_takes_the_id_the_run_json_names(project: Path, run_cli: Cli) -> None:
    # before: refused, exit 2 ("no run id to close a capsule"), though run.json says it
    _finished_run(project / "active" / "denoise-7", {"run": "denoise-7"})
    closed = run_cli("close", "active/denoise-7", "--export-root", "export", "--settle", "0",
                     env={"LABLEDGER_RUN": ""})
    assert closed.returncode == 0, closed.stderr
    assert closed.stdout.strip() == str(project / "export" / "denoise-7")
    assert "run denoise-7: the run active/denoise-7's own files name" in closed.stderr
    assert [e["run"] for e in _events(project, "capsule.sealed")] == ["denoise-7"]


def test_close_without_run_refuses_files_that_name_two_runs(project: Path,
                                                            run_cli: Cli) -> None:
    run = _finished_run(project / "active" / "r1", {"run_id": "r1", "run": "r1-retry"})
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    refused = run_cli("close", str(run), "--export-root", "export", "--settle", "0",
                      env={"LABLEDGER_RUN": ""})
    assert refused.returncode == 2, refused.stderr
    assert "names more than one run: r1 (run.json's run_id), r1-retry (run.json's run)" \
        in refused.stderr
    assert "pass --run RUN" in refused.stderr
    assert "nothing was written" in refused.stderr
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before


def test_labledger_run_env_that_contradicts_run_json_is_quarantined(project: Path,
                                                                    run_cli: Cli) -> None:
    # `labledger run` exports LABLEDGER_RUN to the script it wraps, which may close its run
    _launched(run_cli, "r1")
    _finished_run(project / "active" / "r1", {"run_id": "r1"})
    closed = run_cli("close", "active/r1", "--export-root", "export", "--settle", "0",
                     env={"LABLEDGER_RUN": "r2"})
    assert closed.returncode == 3
    assert "but it is being closed as run 'r2'" in closed.stderr


def test_a_moved_run_is_told_to_close_its_quarantined_folder(project: Path,
                                                            run_cli: Cli) -> None:
    # before: the printed command quarantined it again ("forbidden file (REASON.txt)")
    _launched(run_cli, "r1")
    _finished_run(project / "active" / "r1", {"run_id": "r1"})
    moved = run_cli("close", "active/r1", "--run", "r8", "--move", "--export-root", "export",
                    "--settle", "0")
    assert moved.returncode == 3
    folder = project / "quarantine" / "r8--1"
    assert not (project / "active" / "r1").exists()
    printed = f"labledger close {folder} --export-root export --run r1"
    assert f"`{printed}`" in moved.stderr
    again = run_cli(*shlex.split(printed)[1:])  # as printed, REASON.txt still in the folder
    assert again.returncode == 0, again.stderr
    assert (project / "export" / "r1" / "run.json").exists()
    assert not (project / "export" / "r1" / "REASON.txt").exists()
    reason = (folder / "REASON.txt").read_text()  # a copy: the folder keeps it
    assert reason.startswith("labledger quarantined run r8 (attempt 1) at ")
    assert "closing this folder sets this file aside" in reason


def test_a_quarantine_folder_moved_into_a_capsule_sets_its_reason_aside(project: Path,
                                                                        run_cli: Cli) -> None:
    _finished_run(project / "active" / "r2", {"run_id": "r2"})
    (project / "active" / "r2" / "latest.pth").write_bytes(b"resume anchor")
    assert run_cli("close", "active/r2", "--export-root", "export",
                   "--settle", "0").returncode == 3
    folder = project / "quarantine" / "r2--1"
    (folder / "latest.pth").unlink()  # fixed in quarantine, then moved from there
    again = run_cli("close", str(folder), "--move", "--export-root", "export", "--settle", "0")
    assert again.returncode == 0, again.stderr
    assert not (project / "export" / "r2" / "REASON.txt").exists()
    assert not folder.exists()
    aside = project / "quarantine" / "r2--1.REASON.txt"  # set aside beside it, not deleted
    assert aside.read_text().startswith("labledger quarantined run r2 (attempt 1) at ")
    # a REASON.txt labledger did not write is still a forbidden file
    _finished_run(project / "active" / "r3", {"run_id": "r3"})
    (project / "active" / "r3" / "REASON.txt").write_text("why this run was rerun: OOM\n")
    stale = run_cli("close", "active/r3", "--export-root", "export", "--settle", "0")
    assert stale.returncode == 3
    assert "forbidden file (REASON.txt)" in stale.stderr


def test_close_without_run_never_blocks_on_a_fifo_run_json(project: Path) -> None:
    # before: `close` read run.json for its run id and blocked for ever on the FIFO
    run = _finished_run(project / "active" / "r1", {"run_id": "r1"})
    (run / "run.json").unlink()
    os.mkfifo(run / "run.json")
    exe = Path(sys.executable).with_name("labledger")
    try:
        done = subprocess.run([str(exe), "close", "active/r1", "--export-root", "export"],
                              capture_output=True, text=True, cwd=project, timeout=60,
                              env={**os.environ, "LABLEDGER_RUN": ""}, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("close blocked reading a FIFO named run.json")
    assert done.returncode == 2, done.stderr
    assert "no run id" in done.stderr
    assert not (project / "export").exists()


def test_a_run_number_that_is_no_id_and_a_project_that_turns_the_check_off(
        project: Path, run_cli: Cli) -> None:
    # "run": 3 is an index, not an id: it says nothing
    _finished_run(project / "active" / "a", {"run": 3})
    assert run_cli("close", "active/a", "--run", "sweep-a", "--export-root", "export",
                   "--settle", "0").returncode == 0
    # a tracker's id (a run this ledger has never seen): sealed, with one warning line
    # (before: quarantined unless the project set run-id-fields = [])
    _finished_run(project / "active" / "b", {"run_id": "wandb-3kq9x1"})
    tracked = run_cli("close", "active/b", "--run", "sweep-b", "--export-root", "export",
                      "--settle", "0")
    assert tracked.returncode == 0, tracked.stderr
    (warning,) = [line for line in tracked.stderr.splitlines() if "warning" in line]
    assert warning.startswith("labledger: warning: run.json's run_id names run 'wandb-3kq9x1', "
                              "which this ledger has never seen; sealed as run 'sweep-b'")
    assert [e["run"] for e in _events(project, "capsule.sealed")] == ["sweep-a", "sweep-b"]
    # a run it knows (sealed above) is a problem; a project that turns the check off seals it
    _finished_run(project / "active" / "d", {"run_id": "sweep-a"})
    assert run_cli("close", "active/d", "--run", "sweep-d", "--export-root", "export",
                   "--settle", "0").returncode == 3
    (project / ".labledger" / "capsule.toml").write_text("run-id-fields = []\n")
    off = run_cli("close", "active/d", "--run", "sweep-e", "--export-root", "export",
                  "--settle", "0")
    assert off.returncode == 0, off.stderr
    assert "warning" not in off.stderr
    (project / ".labledger" / "capsule.toml").write_text('run-id-fields = ["run_id"]\n')
    bad = run_cli("close", "active/b", "--run", "sweep-c", "--export-root", "export")
    assert bad.returncode == 1
    assert "run-id-fields: 'run_id' is not FILE:KEY" in bad.stderr


@dataclasses.dataclass
class GradScalerState:
    """Stands in for an object a trainer pickles whole into its resume state (weights_only
    refuses its class; the archive alone is checked)."""

    scale: float = 65536.0
    growth_tracker: int = 12


def test_close_records_resume_state_and_refused_like_pull(project: Path, run_cli: Cli) -> None:
    # before: close's checkpoint.verified had path, digest, ok, tensors and loader only
    run = _finished_run(project / "active" / "ft-2", {"run_id": "ft-2"})
    torch = _torch()
    from tests.ingest.test_pull_resume_state import _as_library_class

    # (pickled as a trainer library's own class: only those pass on the archive alone)
    _as_library_class(GradScalerState, "accelerate.utils.dataclasses", "GradScalerState")
    torch.save(GradScalerState(), run / "scaler.pt")
    closed = run_cli("close", "active/ft-2", "--export-root", "export", "--settle", "0")
    assert closed.returncode == 0, closed.stderr
    rows = run_cli("--json", "sql", "select path, resume_state, refused from verifications "
                   "order by path")
    assert rows.returncode == 0, rows.stderr
    got = {Path(r["path"]).name: (r["resume_state"], r["refused"])
           for r in json.loads(rows.stdout)}
    assert got["best.pth"] == (False, None)
    assert got["scaler.pt"][0] is True
    assert re.fullmatch(r"Unsupported global: GLOBAL \S+\.GradScalerState", got["scaler.pt"][1])


def _ingest(project: Path, run_cli: Cli, run: str, files: dict[str, str]) -> None:
    folder = project / "runs" / run
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    done = run_cli("ingest-dir", str(folder), "--run", run, "--settle", "0")
    assert done.returncode == 0, done.stderr


def test_a_claim_from_an_empty_metrics_file_says_it_is_empty(project: Path,
                                                             run_cli: Cli) -> None:
    # an evaluation killed before it wrote its metrics.json (test/<id>/metrics.json, DOMAIN.md)
    _ingest(project, run_cli, "r1", {"test/kodak/metrics.json": ""})
    empty = run_cli("claim", "add", "C1", "--run", "r1", "--metric", "psnr", "--from",
                    "test/kodak/metrics.json")
    assert empty.returncode == 2
    assert "r1:test/kodak/metrics.json (blake3:" in empty.stderr
    assert "is empty (0 bytes)" in empty.stderr
    assert "not valid JSON" not in empty.stderr
    assert empty.stderr.rstrip().endswith("; nothing was written")
    # a torn write still reads as what it is, and says nothing was written too
    _ingest(project, run_cli, "r2", {"test/kodak/metrics.json": '{"psnr": 31.4'})
    torn = run_cli("claim", "add", "C1", "--run", "r2", "--metric", "psnr", "--from",
                   "test/kodak/metrics.json")
    assert torn.returncode == 2
    assert "is not valid JSON (Expecting ',' delimiter" in torn.stderr
    assert torn.stderr.rstrip().endswith("; nothing was written")
    assert run_cli("claim", "list", "--json").stdout.strip() in ("[]", "")


def test_reconcile_prints_a_whole_number_claim_without_a_fraction(project: Path,
                                                                 run_cli: Cli) -> None:
    # the shape of a Hugging Face Trainer's train_results.json (as in Merlinmy/Whisper_small_hi,
    # train_results.json), with a token count of our own
    _ingest(project, run_cli, "lm-1", {"train_results.json": json.dumps(
        {"epoch": 3.0, "train_loss": 2.4113, "train_runtime": 9120.3381, "train_samples": 48211,
         "train_tokens": 123456789012}, indent=4)})
    added = run_cli("claim", "add", "T1", "--run", "lm-1", "--metric", "train_tokens",
                    "--from", "train_results.json", "--direction", "higher")
    assert added.returncode == 0, added.stderr
    (project / "paper.md").write_text(
        "We train on <!-- claim:T1 -->123,456,789,000 tokens.\n")
    drift = run_cli("reconcile", "paper.md")
    assert drift.returncode == 3
    assert "T1 says 123,456,789,000, evidence says 123456789012 (run lm-1" in drift.stdout
    assert "123456789012.0" not in drift.stdout


def test_reconcile_counts_drifted_numbers_as_checked(project: Path, run_cli: Cli) -> None:
    _ingest(project, run_cli, "r1", {"test/kodak/metrics.json": json.dumps(
        {"psnr": 31.42, "ssim": 0.8871, "lpips": 0.1034})})
    for claim, metric in (("P1", "psnr"), ("S1", "ssim"), ("L1", "lpips")):
        added = run_cli("claim", "add", claim, "--run", "r1", "--metric", metric, "--from",
                        "test/kodak/metrics.json")
        assert added.returncode == 0, added.stderr
    (project / "paper.md").write_text(
        "PSNR <!-- claim:P1 -->31.42 dB, SSIM <!-- claim:S1 -->0.891 and LPIPS "
        "<!-- claim:L1 -->0.097 on Kodak.\n")
    text = run_cli("reconcile", "paper.md")
    assert text.returncode == 3
    # before: "1 number(s) checked against 3 claim(s): 2 drift"
    assert "reconcile: 1 document, 3 numbers checked against 3 claims: 2 drift" \
        in text.stderr
    data = json.loads(run_cli("reconcile", "paper.md", "--json").stdout)
    assert (data["compared"], data["checked"], data["counts"]) == (3, 1, {"drift": 2})
