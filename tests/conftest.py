"""Shared fixtures: every test gets its own project folder and ledger environment."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's ledger: LABLEDGER_* point into tmp_path."""
    for name in list(os.environ):
        if name.startswith("LABLEDGER_"):
            monkeypatch.delenv(name)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("LABLEDGER_ROOT", str(project))
    monkeypatch.setenv("LABLEDGER_WRITER", "test-writer")
    monkeypatch.setenv("LABLEDGER_ACTOR", "tester@test")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return tmp_path / "project"


@pytest.fixture
def ledger(project: Path) -> Iterator[Ledger]:
    led = Ledger.init(project)
    yield led
    led.close()


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def snapshot() -> Callable[[Path], dict[str, bytes]]:
    """Every file under a folder with its bytes: compare before/after to prove nothing changed."""
    return _snapshot


@pytest.fixture
def run_cli(project: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run the real `labledger` console script in a subprocess."""
    exe = Path(sys.executable).with_name("labledger")

    def run(*args: str, input: str | None = None, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, **(env or {})}
        return subprocess.run([str(exe), *args], input=input, capture_output=True, text=True,
                              env=full_env, cwd=cwd or project, timeout=120, check=False)

    return run
