"""Fixtures for the capture tests: real torch, real checkpoints, real Parquet, a canonical run.

`make_run` builds a run directory that meets every default capsule rule, so a test breaks
exactly one rule and expects exactly that problem.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from labledger.ingest.transport import RemoteHash, RemoteStat, Transport
from labledger.ledger.ledger import Ledger


def _import_torch() -> ModuleType:
    # Imported on first use, so tests in this folder that need no torch do not pay for it.
    with warnings.catch_warnings():
        # The CPU wheel warns on import when numpy is absent; pytest would make that an error.
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy",
                                category=UserWarning)
        import torch
    return torch


@pytest.fixture
def torch() -> ModuleType:
    return _import_torch()


def tiny_model_state(seed: int = 0) -> dict[str, Any]:
    torch = _import_torch()
    torch.manual_seed(seed)
    state: dict[str, Any] = torch.nn.Linear(4, 2).state_dict()
    return state


@pytest.fixture
def model_state() -> Callable[[int], dict[str, Any]]:
    """``model_state(seed)``: the state dict of a real, freshly initialised nn.Linear(4, 2)."""
    return tiny_model_state


def write_parquet(path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"sample": ["a", "b"], "psnr": [31.2, 30.9]}), path)


RunFactory = Callable[..., Path]


@pytest.fixture
def make_run(tmp_path: Path) -> RunFactory:
    """``make_run(run_id, run_json=None, vis=None)`` -> a valid run directory under active/."""

    def make(run_id: str = "r1", *, run_json: dict[str, Any] | None = None,
             vis: tuple[list[str], list[str], list[str]] | None = None) -> Path:
        root = tmp_path / "active" / run_id
        test = root / "test" / "t1"
        test.mkdir(parents=True)
        (root / "run.json").write_text(json.dumps(run_json or {"run": run_id, "seed": 0}))
        (root / "config.yaml").write_text("lr: 0.001\nbatch: 8\n")
        (root / "train.csv").write_text("step,loss\n1,0.9\n2,0.5\n")
        torch = _import_torch()
        torch.save(tiny_model_state(1), root / "best.pth")
        torch.save({"model_state_dict": tiny_model_state(2), "step": 2}, root / "last.pth")
        (test / "metrics.json").write_text(json.dumps({"psnr": 31.05}))
        write_parquet(test / "results.parquet")
        if vis is not None:
            conditions, roles, samples = vis
            for condition in conditions:
                for role in roles:
                    folder = test / "vis" / condition / role
                    folder.mkdir(parents=True)
                    for sample in samples:
                        (folder / f"{sample}.png").write_bytes(b"\x89PNG fake " + sample.encode())
        return root

    return make


def _events(ledger: Ledger, kind: str | None = None) -> list[dict[str, Any]]:
    out = []
    for record in ledger.records():
        if kind is None or record.kind == kind:
            out.append({"kind": record.kind, "run": record.run, "seq": record.seq,
                        "ts": record.ts, **record.body_dict()})
    return out


@pytest.fixture
def read_events() -> Callable[..., list[dict[str, Any]]]:
    """``read_events(ledger, kind=None)``: events as {kind, run, seq, ts, **body}, in order."""
    return _events


class Forwarding:
    """A transport that forwards every call to ``inner``: tests subclass it and override only
    the call they interfere with (a cut read, a file removed before the hash)."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.source = inner.source

    def list_dir(self, rel: str) -> list[RemoteStat]:
        return self.inner.list_dir(rel)

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        return self.inner.hash_files(rels)

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        return self.inner.read(rel, offset)

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        return self.inner.read_many(items)

    def exists_dir(self, rel: str) -> bool:
        return self.inner.exists_dir(rel)

    def reconnect(self) -> None:
        self.inner.reconnect()

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
def writer() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``start(code, path, seconds)``: a writer process running ``code``, returned once its
    first line is out (the first half is on disk, or an endless writer has started)."""
    procs: list[subprocess.Popen[str]] = []

    def start(code: str, path: Path, seconds: float) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-c", code, str(path), str(seconds)],
                                stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout is not None
        assert proc.stdout.readline() in ("half\n", "started\n")
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
