"""`run_command`: real child processes, a real ledger, and run states derived from real events.

Signals sent *to the wrapper* need it to be a process of its own; those tests live in
tests/cli/test_cli_run.py.
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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from labledger.cas import Store
from labledger.ingest.errors import RunRefusedError
from labledger.ingest.run import make_run_id, run_command
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from labledger.ledger.query import run_query

PY = sys.executable


def events(project: Path, kind: str | None = None, run: str | None = None
           ) -> list[dict[str, Any]]:
    out = []
    for record in Ledger.open(project).records():
        if (kind is None or record.kind == kind) and (run is None or record.run == run):
            out.append({"kind": record.kind, "run": record.run, "ts": record.ts,
                        **record.body_dict()})
    return out


def runs(project: Path) -> dict[str, dict[str, Any]]:
    columns, rows = run_query(Ledger.open(project).paths, "select * from runs")
    return {row[0]: dict(zip(columns, row, strict=True)) for row in rows}


def py(code: str) -> list[str]:
    return [PY, "-c", textwrap.dedent(code)]


def ago(seconds: float) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# --- exit codes ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("code", "state"), [(0, "exited-ok"), (3, "failed")])
def test_exit_code_is_the_commands(ledger: Ledger, project: Path, code: int, state: str) -> None:
    result = run_command(py(f"import sys; sys.exit({code})"), run="r1", cwd=project)
    assert (result.exit_code, result.returncode, result.signal) == (code, code, None)
    (exited,) = events(project, "run.exited")
    assert exited["exit_code"] == code
    assert "signal" not in exited
    assert exited["duration_s"] >= 0
    assert runs(project)["r1"]["state"] == state


def test_killed_by_sigkill_exits_137(ledger: Ledger, project: Path) -> None:
    result = run_command(py("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"),
                         run="k", cwd=project)
    assert (result.exit_code, result.returncode, result.signal) == (137, None, 9)
    (exited,) = events(project, "run.exited")
    assert (exited["signal"], exited.get("exit_code")) == (9, None)
    row = runs(project)["k"]
    assert (row["state"], row["exit_signal"], row["exit_code"]) == ("killed", 9, None)


def test_peak_memory_is_the_childs(ledger: Ledger, project: Path) -> None:
    # 200 MiB touched by the child: far above what the wrapper's probes use
    result = run_command(py("b = b'x' * (200 * 1024 * 1024)"), run="mem", cwd=project)
    (exited,) = events(project, "run.exited")
    assert result.peak_rss_bytes == exited["peak_rss_bytes"]
    assert exited["peak_rss_bytes"] > 200 * 1024 * 1024


def test_command_not_found_is_127_and_recorded(ledger: Ledger, project: Path) -> None:
    warnings: list[str] = []
    result = run_command(["no-such-command-xyz"], run="nf", cwd=project,
                         report=lambda kind, msg: warnings.append(msg) if kind == "warning"
                         else None)
    assert result.exit_code == 127
    assert "command not found" in warnings[0]
    (exited,) = events(project, "run.exited")
    assert exited["exit_code"] == 127
    assert runs(project)["nf"]["state"] == "failed"


# --- what run.launched records --------------------------------------------------------------------
def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_launch_records_facts_and_exports_the_run(ledger: Ledger, project: Path,
                                                  tmp_path: Path) -> None:
    git(project, "init", "-q")
    (project / "train.py").write_text("print('v1')\n")
    git(project, "add", "train.py")
    git(project, "commit", "-qm", "init")
    head = git(project, "rev-parse", "HEAD")
    (project / "train.py").write_text("print('v2')\n")
    config = project / "conf.yaml"
    config.write_text("lr: 0.01\n")
    out = tmp_path / "env.json"
    child = py(f"""
        import json, os
        keys = ("LABLEDGER_RUN", "LABLEDGER_ROOT", "LABLEDGER_INSTANCE")
        json.dump({{k: os.environ.get(k) for k in keys}}, open({str(out)!r}, "w"))
    """)
    result = run_command(child, run="facts", instance="box-1", config=config, cwd=project,
                         env={**os.environ, "OMP_NUM_THREADS": "4", "SOME_VAR": "x"})
    assert result.exit_code == 0
    assert json.loads(out.read_text()) == {"LABLEDGER_RUN": "facts",
                                           "LABLEDGER_ROOT": str(project),
                                           "LABLEDGER_INSTANCE": "box-1"}
    (launched,) = events(project, "run.launched")
    assert launched["command"] == child
    assert (launched["cwd"], launched["pid"]) == (str(project), os.getpid())
    assert launched["host"]
    assert launched["user"]
    assert launched["python"] == sys.version.split()[0]
    assert launched["torch"]  # installed in this venv, read from metadata without importing it
    assert (launched["git_commit"], launched["git_dirty"]) == (head, True)
    assert launched["env"] == {"OMP_NUM_THREADS": "4"}
    assert launched["config_path"] == str(config)
    store = Store(ledger.paths.cas)
    diff = store.read_bytes(launched["git_diff_digest"])
    assert b"-print('v1')" in diff
    assert b"+print('v2')" in diff
    assert launched["config_digest"] == store.put_bytes(b"lr: 0.01\n").digest
    assert launched["extra"]["config_scrub"] == {"method": "unchanged", "redactions": 0,
                                                 "verified": True}


def test_versions_come_from_the_commands_interpreter(ledger: Ledger, project: Path,
                                                     tmp_path: Path) -> None:
    """A `python` on PATH that is not this interpreter is probed itself: here one started
    without site-packages, so it has no torch although this venv does."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "python"
    shim.write_text(f'#!/bin/sh\nexec {PY} -S "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    result = run_command(["python", "-c", "pass"], run="shim", cwd=project, env=env)
    assert result.exit_code == 0
    (launched,) = events(project, "run.launched")
    assert launched["python"] == sys.version.split()[0]
    assert "torch" not in launched
    assert launched["extra"]["python_executable"] == PY


def test_console_scripts_and_other_commands(ledger: Ledger, project: Path,
                                            tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool = bindir / "trainer"  # what `pip install` writes for a console script
    tool.write_text(f"#!{PY}\nraise SystemExit(0)\n")
    tool.chmod(0o755)
    shim = bindir / "python3"
    shim.write_text(f'#!/bin/sh\nexec {PY} -S "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    for run in ("trainer", "true"):
        assert run_command([run], run=run, cwd=project, env=env).exit_code == 0
    found = {e["run"]: (e["extra"]["python_source"], "torch" in e)
             for e in events(project, "run.launched")}
    assert found == {"trainer": ("shebang", True), "true": ("PATH", False)}


def test_clean_tree_has_no_diff(ledger: Ledger, project: Path) -> None:
    git(project, "init", "-q")
    (project / ".gitignore").write_text(".labledger/\n")
    git(project, "add", ".gitignore")
    git(project, "commit", "-qm", "init")
    run_command(["true"], run="clean", cwd=project)
    (launched,) = events(project, "run.launched")
    assert launched["git_dirty"] is False
    assert "git_diff_digest" not in launched


def test_generated_run_id_is_readable_and_unique(ledger: Ledger, project: Path) -> None:
    seen: list[str] = []
    first = run_command(py("pass"), cwd=project, report=lambda k, m: seen.append(m))
    second = run_command([PY, "train.py"], cwd=project)  # fails (no file) but is recorded
    assert re.fullmatch(r"python3?[0-9.]*-\d{8}-\d{6}-[0-9a-f]{4}", first.run)
    assert re.fullmatch(r"train-\d{8}-\d{6}-[0-9a-f]{4}", second.run)
    assert seen == [first.run]
    assert {e["run"] for e in events(project, "run.launched")} == {first.run, second.run}


@pytest.mark.parametrize(("argv", "stem"), [
    (["python", "-m", "pkg.train", "--x"], "train"),
    (["torchrun", "--nproc-per-node=8", "scripts/pretrain.py"], "pretrain"),
    (["env", "A=1", "bash", "go.sh"], "go"),
    (["./my tool!"], "my-tool"),
])
def test_run_id_stems(argv: list[str], stem: str) -> None:
    when = datetime(2026, 12, 2, 14, 1, 22, tzinfo=UTC)
    assert re.fullmatch(re.escape(stem) + r"-20261202-140122-[0-9a-f]{4}", make_run_id(argv, when))


def test_bad_input_starts_nothing(ledger: Ledger, project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(InvalidEventError, match="not a valid run id"):
        run_command(["touch", str(marker)], run="bad id", cwd=project)
    with pytest.raises(InvalidEventError, match="heartbeat"):
        run_command(["touch", str(marker)], heartbeat=0, cwd=project)
    with pytest.raises(InvalidEventError, match="heartbeat interval is 0.2"):
        run_command(["touch", str(marker)], heartbeat=0.2, cwd=project)  # below the 1 s floor
    assert not marker.exists()
    assert events(project) == []


# --- heartbeats and the states that read them -----------------------------------------------------
def test_heartbeats_while_it_runs(ledger: Ledger, project: Path) -> None:
    # The shortest interval the API takes (MIN_HEARTBEAT_S), as the command line.
    result = run_command(py("import time; time.sleep(2.5)"), run="hb", heartbeat=1.0,
                         cwd=project)
    beats = events(project, "run.heartbeat")
    assert 1 <= len(beats) <= 3  # every 1 s for 2.5 s; slow fsyncs on a loaded disk delay them
    assert result.heartbeats == len(beats)
    assert {b["pid"] for b in beats} == {result.pid}
    (launched,) = events(project, "run.launched")
    assert launched["heartbeat_interval_s"] == 1.0
    kinds = [e["kind"] for e in events(project)]
    assert kinds[0] == "run.launched"
    assert kinds[-1] == "run.exited"  # no heartbeat after the exit
    row = runs(project)["hb"]
    assert (row["state"], row["heartbeat_interval_s"]) == ("exited-ok", 1.0)
    assert row["stalled_after_s"] == pytest.approx(3.0)


def test_running_then_stalled_from_backfilled_heartbeats(ledger: Ledger, project: Path) -> None:
    a = ledger.append
    a("run.launched", run="fresh", heartbeat_interval_s=60.0, at=ago(300))
    a("run.heartbeat", run="fresh", at=ago(30))
    a("run.launched", run="old", heartbeat_interval_s=60.0, at=ago(3600))
    a("run.heartbeat", run="old", at=ago(1800))
    a("run.launched", run="default-threshold", at=ago(3600))  # no interval: 10 minutes
    a("run.heartbeat", run="default-threshold", at=ago(500))
    a("run.launched", run="default-stale", at=ago(3600))
    a("run.heartbeat", run="default-stale", at=ago(700))
    a("run.launched", run="never-beat", heartbeat_interval_s=1.0, at=ago(60))
    a("run.launched", run="no-promise", at=ago(86400))
    states = {run: row["state"] for run, row in runs(project).items()}
    assert states == {"fresh": "running", "old": "stalled", "default-threshold": "running",
                      "default-stale": "stalled", "never-beat": "stalled",
                      "no-promise": "launched"}
    row = runs(project)["old"]
    assert row["stalled_after_s"] == 180.0
    assert row["last_heartbeat_ts"] == row["state_ts"]


def test_a_later_heartbeat_wins_over_an_earlier_exit(ledger: Ledger, project: Path) -> None:
    """Later by time wins, whatever the append order: never inferred from an earlier state."""
    ledger.append("run.launched", run="r", heartbeat_interval_s=60.0, at=ago(600))
    ledger.append("run.heartbeat", run="r", at=ago(10))
    ledger.append("run.exited", run="r", exit_code=0, at=ago(300))  # written late, happened early
    row = runs(project)["r"]
    assert (row["state"], row["exit_code"]) == ("running", 0)


def test_stalled_when_heartbeats_stop(ledger: Ledger, project: Path, tmp_path: Path) -> None:
    """The wrapper dies (SIGKILL): heartbeats stop, no exit is written, the run goes stalled."""
    script = tmp_path / "wrap.py"
    script.write_text(textwrap.dedent(f"""
        from labledger.ingest.run import run_command
        run_command([{PY!r}, "-c", "import time; time.sleep(60)"], run="orphan", heartbeat=1.0,
                    cwd={str(project)!r})
    """))
    wrapper = subprocess.Popen([PY, str(script)], cwd=project)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and runs(project).get("orphan", {}).get(
                "state") != "running":
            time.sleep(0.1)
        assert runs(project)["orphan"]["state"] == "running"
        wrapper.kill()
        wrapper.wait()
        time.sleep(3.2)  # > 3 x 1 s since the last heartbeat, at the latest the kill
        row = runs(project)["orphan"]
        assert (row["state"], row["exit_code"]) == ("stalled", None)
    finally:
        wrapper.kill()
        wrapper.wait()
        for beat in events(project, "run.heartbeat"):
            try:
                os.kill(beat["pid"], signal.SIGKILL)  # the orphaned command
            except ProcessLookupError:
                pass


# --- evidence: "done" in a log is not a checkpoint -----------------------------------------------
TRAIN = """
import os, sys
from pathlib import Path
from labledger.cas import digest_bytes
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger

mode, target = sys.argv[1], Path(sys.argv[2])
run = os.environ["LABLEDGER_RUN"]
led = Ledger.open()
try:
    data = run.encode() * 100
    target.write_bytes(data)                    # the save; fails when the folder is missing
    if mode == "stored":
        put = open_store(led).put_file(target)
        led.append("checkpoint.saved", run=run, path=target.name, digest=put.digest,
                   size=put.size, step=10)
    elif mode == "digest-only":                 # bytes stay on the box, only the digest is told
        led.append("checkpoint.saved", run=run, path=target.name, digest=digest_bytes(data),
                   size=len(data), stored=False)
except OSError as exc:
    print("save failed:", exc, file=sys.stderr)  # and the loop goes on, as real ones do
print("done")
led.append("note", run=run, text="done")
"""


def train(project: Path, tmp_path: Path, run: str, mode: str, target: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    result = run_command([PY, str(script), mode, str(target)], run=run, heartbeat=5.0,
                         cwd=project)
    assert result.exit_code == 0


def test_done_without_a_checkpoint_on_disk_is_not_evidence(ledger: Ledger, project: Path,
                                                           tmp_path: Path) -> None:
    train(project, tmp_path, "lost", "stored", tmp_path / "missing-dir" / "best.pth")
    train(project, tmp_path, "kept", "stored", tmp_path / "best.pth")
    train(project, tmp_path, "claimed", "digest-only", tmp_path / "last.pth")
    assert [e["text"] for e in events(project, "note", run="lost")] == ["done"]
    table = {run: (row["state"], row["checkpoints"], row["checkpoints_stored"])
             for run, row in runs(project).items()}
    assert table == {"lost": ("exited-ok", 0, 0), "kept": ("exited-ok", 1, 1),
                     "claimed": ("exited-ok", 1, 0)}


def test_quarantined_bytes_stop_counting(ledger: Ledger, project: Path, tmp_path: Path,
                                         run_cli: Any) -> None:
    train(project, tmp_path, "rot", "stored", tmp_path / "best.pth")
    assert runs(project)["rot"]["checkpoints_stored"] == 1
    (saved,) = events(project, "checkpoint.saved")
    obj = Store(ledger.paths.cas).object_path(saved["digest"])
    obj.chmod(0o644)
    obj.write_bytes(b"bit rot")
    checked = run_cli("check", "--deep")
    assert checked.returncode == 3, checked.stderr
    row = runs(project)["rot"]
    assert (row["state"], row["checkpoints"], row["checkpoints_stored"]) == ("exited-ok", 1, 0)
    # one rule, two views: the checkpoints view agrees
    _, rows = run_query(ledger.paths, "select count(*) filter (where in_store) from checkpoints "
                                      "where run = 'rot'")
    assert rows == [(0,)]


def test_verified_checkpoints_are_counted(ledger: Ledger, project: Path, tmp_path: Path) -> None:
    train(project, tmp_path, "v", "stored", tmp_path / "best.pth")
    (saved,) = events(project, "checkpoint.saved")
    ledger.append("checkpoint.verified", run="v", path="best.pth", digest=saved["digest"],
                  ok=True)
    assert runs(project)["v"]["checkpoints_verified"] == 1
    ledger.append("checkpoint.verified", run="v", path="best.pth", digest=saved["digest"],
                  ok=False, error="does not load")
    assert runs(project)["v"]["checkpoints_verified"] == 0


def test_capsule_events_set_the_state_and_a_relaunch_resets_it(ledger: Ledger, project: Path,
                                                                tmp_path: Path) -> None:
    run_command(["true"], run="s", cwd=project)
    ledger.append("capsule.sealed", run="s", path="export/s", digest="blake3:" + "a" * 64,
                  files=5, bytes=100)
    run_command(["false"], run="q", cwd=project)
    ledger.append("capsule.quarantined", run="q", path="quarantine/q--1", reason="no best.pth")
    states = {run: (row["state"], row["exit_code"]) for run, row in runs(project).items()}
    assert states == {"s": ("sealed", 0), "q": ("quarantined", 1)}
    run_command(py("import time; time.sleep(0.3)"), run="q", heartbeat=1.0, cwd=project)
    assert runs(project)["q"]["state"] == "exited-ok"


# --- bookkeeping never blocks training (unless --strict) ------------------------------------------
def test_no_ledger_still_runs_the_command(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    warnings: list[str] = []
    result = run_command(py(f"open({str(marker)!r}, 'w').write('x'); raise SystemExit(5)"),
                         run="free", cwd=project, heartbeat=1.0,
                         report=lambda kind, msg: warnings.append(msg) if kind == "warning"
                         else None)
    assert marker.exists()
    assert result.exit_code == 5
    assert len(warnings) == 1
    assert "labledger init" in warnings[0]
    assert result.launched_id is None
    assert not (project / ".labledger").exists()


def test_no_ledger_with_strict_refuses(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(RunRefusedError, match="run strict-1 was not started"):
        run_command(["touch", str(marker)], run="strict-1", strict=True, cwd=project)
    assert not marker.exists()


def broken_writer(ledger: Ledger) -> None:
    """The writer's segment folder is a plain file: every append fails, even as root."""
    ledger.close()
    target = ledger.paths.segments / ledger.writer
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("not a folder")


def test_unwritable_ledger_still_runs_and_reports(ledger: Ledger, project: Path,
                                                  tmp_path: Path) -> None:
    broken_writer(ledger)
    marker = tmp_path / "ran"
    warnings: list[str] = []
    result = run_command(["touch", str(marker)], run="w", cwd=project, heartbeat=1.0,
                         report=lambda kind, msg: warnings.append(msg) if kind == "warning"
                         else None)
    assert marker.exists()
    assert result.exit_code == 0
    assert result.is_recorded is False
    assert any("could not record the launch of run w" in w for w in warnings)
    assert any("could not record run.exited" in w for w in warnings)
    assert result.problems == warnings


def test_unwritable_ledger_with_strict_refuses(ledger: Ledger, project: Path,
                                               tmp_path: Path) -> None:
    broken_writer(ledger)
    marker = tmp_path / "ran"
    with pytest.raises(RunRefusedError, match="could not record its launch"):
        run_command(["touch", str(marker)], run="w", cwd=project, strict=True)
    assert not marker.exists()


# --- staying light ---------------------------------------------------------------------------
def test_importing_ingest_and_running_never_imports_heavy_packages(ledger: Ledger,
                                                                    project: Path) -> None:
    code = textwrap.dedent("""
        import sys
        import labledger.ingest, labledger.ingest.run, labledger.ingest.secrets
        from labledger.ingest.run import run_command
        run_command(["true"], run="light")
        heavy = {"torch", "duckdb", "pyarrow", "paramiko", "numpy", "click"}
        print(sorted({m.split(".")[0] for m in sys.modules} & heavy))
    """)
    proc = subprocess.run([PY, "-c", code], cwd=project, capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
    assert [e["run"] for e in events(project, "run.exited")] == ["light"]
