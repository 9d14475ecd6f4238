"""Fixtures the pull command tests share: a box (the project with no developer ssh state,
`pull_project`, is in tests/conftest.py)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest


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
