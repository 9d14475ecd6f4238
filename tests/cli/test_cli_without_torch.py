"""Without torch installed (an optional dependency): `close` says which checkpoints it sealed
unloaded, and a checkpoint that pull or close must load says torch is missing and how to get
it, not "the loader process failed (ModuleNotFoundError ...)"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.ingest import capsule_rules
from labledger.ingest.checkpoint_load import load_checkpoints
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call
from tests.ingest.conftest import _import_torch, write_parquet


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    torch = _import_torch()
    root = tmp_path / "active" / "r1"
    (root / "test" / "t1").mkdir(parents=True)
    (root / "run.json").write_text(json.dumps({"run": "r1", "seed": 0}))
    (root / "config.yaml").write_text("lr: 0.001\n")
    (root / "train.csv").write_text("step,loss\n1,0.9\n")
    torch.save({"w": torch.zeros(2)}, root / "best.pth")
    (root / "test" / "t1" / "metrics.json").write_text(json.dumps({"psnr": 31.05}))
    write_parquet(root / "test" / "t1" / "results.parquet")
    return root


@pytest.mark.parametrize("json_mode", [False, True])
def test_close_without_torch_says_what_it_sealed_unloaded(
        ledger: Ledger, project: Path, run_dir: Path, tmp_path: Path, json_mode: bool,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capsule_rules, "torch_available", lambda: False)
    args = ["--json"] if json_mode else []
    code, out, err = call(capsys, "--root", str(project), *args, "close", str(run_dir),
                          "--run", "r1", "--export-root", str(tmp_path / "export"))
    assert code == 0, err
    assert ("1 checkpoint sealed without being loaded (best.pth): torch is not installed "
            "here. pip install 'labledger[torch]'") in err
    if json_mode:
        assert json.loads(out)["unloaded"] == ["best.pth"]
    assert not [r for r in ledger.records() if r.kind == "checkpoint.verified"]


def test_close_with_torch_says_nothing_of_the_kind(
        ledger: Ledger, project: Path, run_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "--root", str(project), "--json", "close", str(run_dir),
                          "--run", "r1", "--export-root", str(tmp_path / "export"))
    assert code == 0, err
    assert json.loads(out)["unloaded"] == []
    assert "without being loaded" not in err


def test_the_loader_without_torch_names_the_fix(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "notorch"
    fake.mkdir()
    # what a Python without torch raises on `import torch`
    (fake / "torch.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\", "
                                   "name='torch')\n")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    checkpoint = tmp_path / "best.pth"
    checkpoint.write_bytes(b"PK\x03\x04 not loaded anyway")
    (result,) = load_checkpoints([checkpoint])
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith("torch is not installed here, so it cannot be loaded to "
                                   "verify it: pip install 'labledger[torch]'")
