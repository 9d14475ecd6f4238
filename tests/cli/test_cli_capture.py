"""`labledger checkpoint`, `close` and `ingest-dir` end to end, exit codes included."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from blake3 import blake3

from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch

Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.fixture(autouse=True)
def _in_project(ledger: Ledger, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def b3(path: Path) -> str:
    return "blake3:" + blake3(path.read_bytes()).hexdigest()


def kinds(ledger: Ledger) -> list[str]:
    return [r.kind for r in ledger.records()]


@pytest.fixture
def ckpt(project: Path) -> Path:
    torch.manual_seed(0)
    path = project / "best.pth"
    torch.save(torch.nn.Linear(3, 2).state_dict(), path)
    return path


@pytest.fixture
def run_dir(project: Path, ckpt: Path) -> Path:
    root = project / "active" / "r1"
    (root / "test" / "t1").mkdir(parents=True)
    (root / "run.json").write_text('{"run": "r1"}')
    (root / "config.yaml").write_text("lr: 1\n")
    (root / "train.csv").write_text("step,loss\n1,0.5\n")
    (root / "best.pth").write_bytes(ckpt.read_bytes())
    (root / "test" / "t1" / "metrics.json").write_text('{"psnr": 31.4}')
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": [1]}), root / "test" / "t1" / "results.parquet")
    return root


# --- checkpoint ----------------------------------------------------------------------------------
def test_checkpoint_stores_and_records(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, ckpt: Path
) -> None:
    code, out, err = call(capsys, "checkpoint", "best.pth", "--run", "r1", "--step", "40",
                          "--epoch", "2", "--role", "best", "--metric", "psnr=31.42",
                          "--metric", "loss=0.1")
    assert code == 0, err
    (record,) = ledger.records()
    assert out.strip() == record.id
    body = record.body_dict()
    assert body == {"path": "best.pth", "digest": b3(ckpt), "size": ckpt.stat().st_size,
                    "step": 40, "epoch": 2, "role": "best",
                    "metrics": {"psnr": 31.42, "loss": 0.1}}
    assert open_store(ledger).exists(b3(ckpt))
    assert "stored blake3:" in err


def test_checkpoint_digest_only_json(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, ckpt: Path
) -> None:
    code, out, _ = call(capsys, "checkpoint", "best.pth", "--run", "r1", "--digest-only",
                        "--json")
    assert code == 0
    data = json.loads(out)
    assert data["kind"] == "checkpoint.saved"
    assert data["body"]["stored"] is False
    assert data["body"]["digest"] == b3(ckpt)
    assert not open_store(ledger).exists(b3(ckpt))


def test_checkpoint_run_from_environment(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, ckpt: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LABLEDGER_RUN", "env-run")
    code, _, _ = call(capsys, "checkpoint", "best.pth")
    assert code == 0
    assert [r.run for r in ledger.records()] == ["env-run"]


@pytest.mark.parametrize("args", [
    ["--metric", "psnr"],
    ["--metric", "psnr=high"],
    ["--role", "final"],
    ["--step", "-1"],
])
def test_checkpoint_bad_input_exits_2_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, ckpt: Path, args: list[str]
) -> None:
    code, _, _ = call(capsys, "checkpoint", "best.pth", "--run", "r1", *args)
    assert code == 2
    assert kinds(ledger) == []
    assert not open_store(ledger).exists(b3(ckpt))


def test_checkpoint_without_run_exits_2(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, ckpt: Path
) -> None:
    code, _, err = call(capsys, "checkpoint", "best.pth")
    assert code == 2
    assert "LABLEDGER_RUN" in err


def test_a_missing_path_is_bad_input_exit_2(
    capsys: pytest.CaptureFixture[str], ledger: Ledger
) -> None:
    # as for ingest FILE and cas put PATH: a path named on the command line that is not there
    code, _, err = call(capsys, "checkpoint", "nope.pth", "--run", "r1")
    assert code == 2
    assert "File 'nope.pth' does not exist" in err
    code, _, err = call(capsys, "ingest-dir", "nodir", "--run", "r1")
    assert code == 2
    assert "Directory 'nodir' does not exist" in err
    assert kinds(ledger) == []


# --- close ---------------------------------------------------------------------------------------
def test_close_prints_the_capsule_path(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, run_dir: Path, project: Path
) -> None:
    code, out, err = call(capsys, "close", "active/r1", "--run", "r1", "--export-root", "export")
    assert code == 0, err
    assert out.strip() == str(project / "export" / "r1")
    assert (project / "export" / "r1" / "best.pth").is_file()
    assert kinds(ledger) == ["capsule.sealed", "checkpoint.verified"]


def test_close_json(capsys: pytest.CaptureFixture[str], run_dir: Path) -> None:
    code, out, _ = call(capsys, "close", "active/r1", "--run", "r1", "--export-root", "export",
                        "--json")
    assert code == 0
    data = json.loads(out)
    assert data["sealed"] is True
    assert data["files"] == 6
    assert data["digest"].startswith("blake3:")


def test_close_quarantine_exits_3(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, run_dir: Path, project: Path
) -> None:
    (run_dir / "latest.pth").write_bytes((run_dir / "best.pth").read_bytes())
    code, out, err = call(capsys, "close", "active/r1", "--run", "r1", "--export-root", "export",
                          "--move")
    assert code == 3
    assert out == ""
    assert "forbidden file (latest.pth)" in err
    kept = project / "quarantine" / "r1--1"
    assert (kept / "latest.pth").is_file()
    assert (kept / "REASON.txt").is_file()
    assert kinds(ledger) == ["capsule.quarantined"]


def test_close_quarantine_json(capsys: pytest.CaptureFixture[str], run_dir: Path) -> None:
    (run_dir / "MANIFEST.json").write_text("{}")
    code, out, _ = call(capsys, "close", "active/r1", "--run", "r1", "--export-root", "export",
                        "--json", "--quarantine-root", "q")
    assert code == 3
    data: dict[str, Any] = json.loads(out)
    assert data["sealed"] is False
    assert data["problems"] == ["forbidden file (MANIFEST.json): MANIFEST.json"]
    assert data["quarantine"].endswith(os.path.join("q", "r1--1"))
    assert data["event_id"] is not None


def test_close_onto_an_existing_capsule_exits_1(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, run_dir: Path, project: Path,
    snapshot: Snapshot
) -> None:
    (project / "export" / "r1").mkdir(parents=True)
    before = snapshot(run_dir)
    code, _, err = call(capsys, "close", "active/r1", "--run", "r1", "--export-root", "export",
                        "--move")
    assert code == 1
    assert "already exists" in err
    assert snapshot(run_dir) == before
    assert kinds(ledger) == []


# --- ingest-dir and the view ---------------------------------------------------------------------
def test_ingest_dir_prints_the_tree_digest(
    capsys: pytest.CaptureFixture[str], ledger: Ledger, run_dir: Path
) -> None:
    code, out, err = call(capsys, "ingest-dir", "active/r1", "--run", "r1")
    assert code == 0, err
    tree = [r for r in ledger.records() if r.body_dict().get("type") == "tree"]
    assert [r.body_dict()["digest"] for r in tree] == [out.strip()]
    assert kinds(ledger) == ["artifact.recorded"] * 7
    assert "recorded 6 files" in err


def test_checkpoints_view_through_sql(
    capsys: pytest.CaptureFixture[str], ckpt: Path
) -> None:
    call(capsys, "checkpoint", "best.pth", "--run", "r1", "--step", "1", "--digest-only")
    call(capsys, "checkpoint", "best.pth", "--run", "r1", "--step", "2", "--role", "last")
    code, out, _ = call(capsys, "sql", "--json",
                        "select step, role, stored, in_store from checkpoints order by step")
    assert code == 0
    assert json.loads(out) == [{"step": 1, "role": None, "stored": False, "in_store": True},
                    {"step": 2, "role": "last", "stored": True, "in_store": True}]


def test_help_lists_the_capture_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "--help")
    assert code == 0
    assert all(name in out for name in ("checkpoint", "close", "ingest-dir"))
