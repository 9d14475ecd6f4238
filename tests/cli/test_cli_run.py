"""`labledger run`: the real console script wrapping real commands.

Signal tests send the signal to the *wrapper* process and check what its child saw.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from labledger.ledger.query import run_query

PY = sys.executable
EXE = str(Path(sys.executable).with_name("labledger"))
RunCli = Callable[..., subprocess.CompletedProcess[str]]


def events(project: Path, kind: str | None = None) -> list[dict[str, Any]]:
    return [{"kind": r.kind, "run": r.run, **r.body_dict()}
            for r in Ledger.open(project).records() if kind is None or r.kind == kind]


def state_of(project: Path, run: str) -> dict[str, Any]:
    columns, rows = run_query(Ledger.open(project).paths, "select * from runs")
    by_run = {row[0]: dict(zip(columns, row, strict=True)) for row in rows}
    return by_run.get(run, {})


def wait_for(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


# --- exit codes ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("code", "child"), [
    (0, "pass"),
    (3, "raise SystemExit(3)"),
    (137, "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"),
])
def test_exit_status_is_the_commands(ledger: Ledger, project: Path, run_cli: RunCli, code: int,
                                     child: str) -> None:
    proc = run_cli("run", "--run", "r1", "--", PY, "-c", child)
    assert proc.returncode == code, proc.stderr
    assert proc.stderr == "labledger: run r1\n"
    (exited,) = events(project, "run.exited")
    assert (exited.get("exit_code"), exited.get("signal")) == (
        (None, 9) if code == 137 else (code, None))


def test_run_true_and_the_generated_id(ledger: Ledger, project: Path, run_cli: RunCli) -> None:
    proc = run_cli("run", "--", "true")
    assert proc.returncode == 0, proc.stderr
    match = re.fullmatch(r"labledger: run (true-\d{8}-\d{6}-[0-9a-f]{4})\n", proc.stderr)
    assert match is not None, proc.stderr
    assert [e["run"] for e in events(project)] == [match.group(1)] * 2


def test_stdout_belongs_to_the_command(ledger: Ledger, project: Path, run_cli: RunCli) -> None:
    proc = run_cli("run", "--json", "--run", "out", "--", PY, "-c",
                   "import os; print('hello', os.environ['LABLEDGER_RUN'])")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hello out\n"
    lines = [json.loads(line) for line in proc.stderr.splitlines()]
    assert lines[0] == {"type": "status", "run": "out"}
    assert (lines[-1]["type"], lines[-1]["exit_code"], lines[-1]["recorded"]) == (
        "summary", 0, True)


def test_options_after_the_command_belong_to_it(ledger: Ledger, project: Path,
                                                run_cli: RunCli) -> None:
    proc = run_cli("run", "--run", "opts", PY, "-c", "import sys; print(sys.argv[1:])",
                   "--run", "x", "--strict")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "['--run', 'x', '--strict']\n"


def test_listed_in_help(run_cli: RunCli) -> None:
    proc = run_cli("--help")
    assert re.search(r"^\s+run\s+Run a command and record", proc.stdout, re.M), proc.stdout


# --- signals ---------------------------------------------------------------------------------
TRAP = """
import signal, sys, time
from pathlib import Path
marker, ready = Path(sys.argv[1]), Path(sys.argv[2])
def on_signal(signum, frame):
    marker.write_text(signal.Signals(signum).name)
    sys.exit(42)
signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGHUP, on_signal)
signal.signal(signal.SIGUSR1, on_signal)
ready.write_text("ready")
time.sleep(60)
sys.exit(1)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1])
def test_signals_reach_the_child(ledger: Ledger, project: Path, tmp_path: Path,
                                 signum: signal.Signals) -> None:
    script, marker, ready = tmp_path / "trap.py", tmp_path / "marker", tmp_path / "ready"
    script.write_text(TRAP)
    wrapper = subprocess.Popen([EXE, "run", "--run", "sig", "--", PY, str(script), str(marker),
                                str(ready)], cwd=project, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)  # no terminal: forwarding is always on
    try:
        assert wait_for(ready.exists), "the child never started"
        wrapper.send_signal(signum)
        _, err = wrapper.communicate(timeout=30)
    finally:
        wrapper.kill()
        wrapper.communicate()  # also closes the stderr pipe
    assert wrapper.returncode == 42, err
    assert marker.read_text() == signum.name
    (exited,) = events(project, "run.exited")
    assert exited["exit_code"] == 42
    assert exited["extra"]["signals_received"] == [signum.name]
    assert state_of(project, "sig")["state"] == "failed"


def test_sigint_interrupts_a_python_child(ledger: Ledger, project: Path, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    code = f"import pathlib, time; pathlib.Path({str(ready)!r}).write_text('r'); time.sleep(60)"
    wrapper = subprocess.Popen([EXE, "run", "--run", "int", "--", PY, "-c", code], cwd=project,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert wait_for(ready.exists), "the child never started"
        wrapper.send_signal(signal.SIGINT)
        wrapper.communicate(timeout=30)
    finally:
        wrapper.kill()
        wrapper.communicate()  # also closes the stderr pipe
    # Python re-raises an unhandled KeyboardInterrupt as death by SIGINT: 128 + 2
    assert wrapper.returncode == 130
    (exited,) = events(project, "run.exited")
    assert exited["signal"] == signal.SIGINT
    assert state_of(project, "int")["state"] == "killed"


# --- heartbeats --------------------------------------------------------------------------------
def test_running_while_it_beats_then_exited(ledger: Ledger, project: Path, tmp_path: Path) -> None:
    stop = tmp_path / "stop"
    code = ("import pathlib, time\n"
            f"while not pathlib.Path({str(stop)!r}).exists(): time.sleep(0.05)")
    wrapper = subprocess.Popen([EXE, "run", "--run", "hb", "--heartbeat", "1", "--", PY, "-c",
                                code], cwd=project, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: state_of(project, "hb").get("state") == "running")
        stop.write_text("x")
        wrapper.communicate(timeout=30)
    finally:
        stop.write_text("x")
        wrapper.kill()
        wrapper.communicate()  # also closes the stderr pipe
    assert wrapper.returncode == 0
    row = state_of(project, "hb")
    assert (row["state"], row["heartbeat_interval_s"]) == ("exited-ok", 1.0)
    assert row["last_heartbeat_ts"] is not None


def test_stalled_from_backfilled_heartbeats(ledger: Ledger, project: Path,
                                            run_cli: RunCli) -> None:
    for args in (["run.launched", "--set", "heartbeat_interval_s=0.2",
                  "--at", "2024-05-01T00:00:00Z"],
                 ["run.heartbeat", "--at", "2024-05-01T00:00:01Z"]):
        proc = run_cli("emit", *args, "--run", "old")
        assert proc.returncode == 0, proc.stderr
    proc = run_cli("sql", "select state, stalled_after_s from runs", "--json")
    (row,) = json.loads(proc.stdout)
    assert row["state"] == "stalled"
    assert row["stalled_after_s"] == pytest.approx(0.6)


# --- secrets -----------------------------------------------------------------------------------
SECRETS = {
    "argv": "argv-secret-7f3a91",
    "argv_eq": "argv-eq-secret-2b8c44",
    "hydra": "hydra-secret-9d1e07",
    "url": "url-pass-5c6b13",
    "header": "bearer-secret-0a4d2e",
    "env_hf": "hf-env-secret-3e9f58",
    "env_wandb": "wandb-env-secret-8d2c61",
    "env_allowlisted": "nccl-secret-1b7a39",
    "config": "config-secret-6f0e24",
    "config_url": "config-url-pass-4a9b75",
    "diff": "diff-secret-2c8d93",
}


def test_secrets_never_reach_any_file(ledger: Ledger, project: Path, tmp_path: Path) -> None:
    s = SECRETS
    git_env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "i"]):
        subprocess.run(["git", *args], cwd=project, env=git_env, check=True)
    (project / "settings.py").write_text(f'LR = 0.1\nWANDB_API_KEY = "{s["diff"]}"\n')
    subprocess.run(["git", "add", "-N", "settings.py"], cwd=project, check=True)
    config = project / "config.yaml"
    config.write_text(f"lr: 0.1\nwandb:\n  api_key: {s['config']}\n"
                      f"data: https://reader:{s['config_url']}@data.example.com/x\n")
    command = [EXE, "run", "--run", "secret-run", "--config", str(config), "--heartbeat", "1",
               "--", PY, "-c", "import time; time.sleep(0.3)",
               "--api-key", s["argv"], f"--hf-token={s['argv_eq']}",
               f"wandb.api_key={s['hydra']}", f"--data=https://user:{s['url']}@host/d",
               "-H", f"Authorization: Bearer {s['header']}", "--lr", "3e-4"]
    env = {**os.environ, "HF_TOKEN": s["env_hf"], "WANDB_API_KEY": s["env_wandb"],
           "NCCL_IB_AUTH_KEY": s["env_allowlisted"], "CUDA_VISIBLE_DEVICES": "0"}
    proc = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    files = [p for p in (project / ".labledger").rglob("*") if p.is_file()]
    assert len(files) >= 4  # segment, lock/config, the diff and config objects
    for path in files:
        raw = path.read_bytes()
        for name, secret in s.items():
            assert secret.encode() not in raw, f"{name} leaked into {path}"
    # ...while what is not secret was recorded
    (launched,) = events(project, "run.launched")
    assert launched["command"][-2:] == ["--lr", "3e-4"]
    assert launched["env"] == {"CUDA_VISIBLE_DEVICES": "0", "NCCL_IB_AUTH_KEY": "<redacted>"}
    assert launched["git_dirty"] is True
    assert launched["extra"]["git_diff_scrubbed"] is True
    assert launched["extra"]["config_scrub"]["redactions"] == 2
    assert any(b"LR = 0.1" in p.read_bytes() for p in files)
    assert any(b"data.example.com" in p.read_bytes() for p in files)


# --- bookkeeping never blocks training ---------------------------------------------------------
def test_no_ledger_runs_and_reports(project: Path, tmp_path: Path, run_cli: RunCli) -> None:
    marker = tmp_path / "ran"
    proc = run_cli("run", "--run", "free", "--", PY, "-c",
                   f"open({str(marker)!r}, 'w').write('x'); raise SystemExit(4)")
    assert proc.returncode == 4
    assert marker.exists()
    assert "labledger: warning: could not record the launch of run free" in proc.stderr
    assert "labledger init" in proc.stderr


def test_strict_refuses_without_a_ledger(project: Path, tmp_path: Path, run_cli: RunCli) -> None:
    marker = tmp_path / "ran"
    proc = run_cli("run", "--strict", "--run", "s", "--", "touch", str(marker))
    assert proc.returncode == 1
    assert not marker.exists()
    assert "run s was not started" in proc.stderr


def test_strict_refuses_an_unwritable_ledger(ledger: Ledger, project: Path, tmp_path: Path,
                                             run_cli: RunCli) -> None:
    (ledger.paths.segments / ledger.writer).write_text("a file where the writer folder goes")
    marker = tmp_path / "ran"
    refused = run_cli("run", "--strict", "--run", "s", "--", "touch", str(marker))
    assert refused.returncode == 1
    assert not marker.exists()
    allowed = run_cli("run", "--run", "s", "--", "touch", str(marker))
    assert allowed.returncode == 0
    assert marker.exists()
    assert "could not record run.exited for run s" in allowed.stderr


def test_bad_options_are_usage_errors(ledger: Ledger, project: Path, run_cli: RunCli) -> None:
    for args in (["--heartbeat", "0"], ["--config", "missing.yaml"], []):
        proc = run_cli("run", *args, "--", "true") if args else run_cli("run")
        assert proc.returncode == 2, (args, proc.stderr)
    bad_id = run_cli("run", "--run", "bad id", "--", "true")
    assert bad_id.returncode == 2
    assert events(project) == []


def test_a_child_can_record_into_its_run(ledger: Ledger, project: Path, tmp_path: Path,
                                         run_cli: RunCli) -> None:
    child = textwrap.dedent("""
        import os
        from labledger.ledger.ledger import Ledger
        Ledger.open().append("note", run=os.environ["LABLEDGER_RUN"], text="from inside")
    """)
    proc = run_cli("run", "--run", "inner", "--", PY, "-c", child, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [(e["kind"], e["run"]) for e in events(project)] == [
        ("run.launched", "inner"), ("note", "inner"), ("run.exited", "inner")]
