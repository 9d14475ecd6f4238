"""`labledger run`'s own usage errors and a ledger it cannot read: a mistyped wrapper option is
refused (exit 2, nothing started or written); a heartbeat no timer can wait is refused; a damaged
ledger never keeps the command from running (bookkeeping never blocks training)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

Snapshot = Callable[[Path], dict[str, bytes]]


def _run(project: Path, *args: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("labledger")
    return subprocess.run([str(exe), *args], cwd=project, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("args", [["--instnace", "box1", "--run", "r1"], ["--heartbeet", "5"],
                                  ["--heartbeat", "1e10"], ["--heartbeat", "inf"],
                                  ["--heartbeat", "nan"]])
def test_a_bad_wrapper_option_starts_nothing_and_writes_nothing(
        ledger: Ledger, project: Path, tmp_path: Path, snapshot: Snapshot,
        args: list[str]) -> None:
    ran = tmp_path / "ran"
    before = snapshot(project)
    proc = _run(project, "run", *args, "--", sys.executable, "-c", f"open({str(ran)!r}, 'w')")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not ran.exists()
    assert snapshot(project) == before


def test_verbose_after_the_command_name_is_the_wrappers(ledger: Ledger, project: Path) -> None:
    proc = _run(project, "run", "-v", "--run", "r1", "--", sys.executable, "-c", "print('hi')")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hi\n"
    assert [r.body_dict()["command"][-1] for r in Ledger.open(project).records()
            if r.kind == "run.launched"] == ["print('hi')"]
    assert _run(project, "sql", "-v", "select 1").returncode == 0


def test_a_damaged_ledger_never_keeps_a_named_run_from_starting(ledger: Ledger,
                                                                project: Path) -> None:
    # a damaged capsule.sealed record: one the sealed-run check must read
    ledger.append("capsule.sealed", run="x", path="/export/hello", digest="blake3:" + "0" * 64,
                  files=1, bytes=1)
    segment = next((ledger.paths.segments / ledger.writer).glob("*.jsonl"))
    segment.chmod(0o644)
    segment.write_bytes(segment.read_bytes().replace(b"hello", b"hellO"))
    proc = _run(project, "run", "--run", "c1", "--", sys.executable, "-c",
                "print('CHILD RAN'); raise SystemExit(6)")
    assert proc.returncode == 6, proc.stderr
    assert proc.stdout == "CHILD RAN\n"
    assert "could not check whether run c1 was sealed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_instance_comes_from_the_environment_as_for_checkpoints(ledger: Ledger,
                                                                    project: Path) -> None:
    proc = _run(project, "run", "-q", "--run", "e1", "--", sys.executable, "-c", "pass",
                env={"LABLEDGER_INSTANCE": "box1"})
    assert proc.returncode == 0, proc.stderr
    tagged = {r.kind: r.instance for r in Ledger.open(project).records()}
    assert tagged == {"run.launched": "box1", "run.exited": "box1"}
