"""`emit` takes its run and instance from `labledger run`'s environment, as `checkpoint` does,
and refuses a run event with no run at all (it would never show in the runs view). The fast
path and the full CLI agree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

BIN = Path(sys.executable).parent / "labledger"


def emit(project: Path, *args: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items()
            if k not in ("LABLEDGER_RUN", "LABLEDGER_INSTANCE")}
    full.update(env or {}, LABLEDGER_ROOT=str(project))
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, env=full,
                          timeout=60, check=False)


def records(ledger: Ledger) -> list[tuple[str, str | None, str | None]]:
    return [(r.kind, r.run, r.instance) for r in Ledger.open(ledger.paths.project).records()]


DIGEST = "blake3:" + "ab" * 32
VALID = {"run.heartbeat": ["--set", "step=1"], "run.exited": ["--set", "exit_code=0"],
         "checkpoint.saved": ["--set", "path=best.pth", "--set", f"digest={DIGEST}", "--set",
                              "size=1"]}


@pytest.mark.parametrize("full_cli", [False, True])  # --json takes the full CLI
@pytest.mark.parametrize("kind", sorted(VALID))
def test_a_run_event_without_a_run_is_refused(ledger: Ledger, project: Path, full_cli: bool,
                                              kind: str) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    proc = emit(project, *(["--json"] if full_cli else []), "emit", kind, *VALID[kind])
    assert proc.returncode == 2, proc.stderr
    assert f"{kind} belongs to a run: give --run RUN" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_a_body_mistake_is_reported_before_the_missing_run(ledger: Ledger,
                                                           project: Path) -> None:
    proc = emit(project, "emit", "run.exited", "--set", "exit_code=1.5")
    assert proc.returncode == 2
    assert "field 'exit_code'" in proc.stderr


@pytest.mark.parametrize("full_cli", [False, True])
def test_run_and_instance_come_from_the_environment(ledger: Ledger, project: Path,
                                                    full_cli: bool) -> None:
    env = {"LABLEDGER_RUN": "r7", "LABLEDGER_INSTANCE": "box1"}
    flag = ["--json"] if full_cli else []
    assert emit(project, *flag, "emit", "run.heartbeat", "--set", "step=2",
                env=env).returncode == 0
    assert emit(project, *flag, "emit", "note", "--set", "text=x", env=env).returncode == 0
    # given options win over the environment
    assert emit(project, *flag, "emit", "note", "--run", "r8", "--instance", "box2", "--set",
                "text=y", env=env).returncode == 0
    # other kinds need no run
    assert emit(project, *flag, "emit", "note", "--set", "text=z").returncode == 0
    assert records(ledger) == [("run.heartbeat", "r7", "box1"), ("note", "r7", "box1"),
                               ("note", "r8", "box2"), ("note", None, None)]


def test_under_labledger_run_a_shell_hook_records_into_the_run(ledger: Ledger,
                                                              project: Path) -> None:
    proc = emit(project, "run", "--run", "r9", "--", "sh", "-c",
                f"{BIN} emit run.heartbeat --set step=5")
    assert proc.returncode == 0, proc.stderr
    beats = [(run, kind) for kind, run, _ in records(ledger) if kind == "run.heartbeat"]
    assert ("r9", "run.heartbeat") in beats
