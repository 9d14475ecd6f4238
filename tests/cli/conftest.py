"""Fixtures the pull command tests share: a project with no developer ssh state, and a box."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger


@pytest.fixture
def pull_project(ledger: Ledger, project: Path, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in the project, with a HOME of its own: no ~/.ssh or agent of the developer's."""
    monkeypatch.chdir(project)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return project


@pytest.fixture
def box(tmp_path: Path) -> Path:
    """A finished run's folder on a box: run.json, a real checkpoint, an empty folder."""
    with warnings.catch_warnings():  # the CPU wheel warns without numpy (absent here)
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy",
                                category=UserWarning)
        import torch

    root = tmp_path / "box"
    (root / "ckpt").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / "run.json").write_text('{"run": "r1"}\n')
    torch.manual_seed(0)
    torch.save({"model_state_dict": torch.nn.Linear(3, 2).state_dict()},
               root / "ckpt" / "best.pth")
    return root
