"""Left-outs of the last round, each checked with real `labledger` processes:

* `ingest-dir DIR --run R` never compared R with the run DIR's own files name (`run.json`'s
  `run_id` or `run`): r1's results were recorded as r8's for good. It now applies `close`'s
  rule and words: a run the ledger knows refuses the folder (exit 2, nothing stored), one it has
  never seen is a warning;
* several run ids the ledger has never seen gave one warning line per id (close): now one line;
* `pull --run R --instance I` with an I no event names (a typo) was refused with a hint that
  repeated the typo (`--instance bxo1 --from ...`) as if it were a box not rented through
  labledger: it now names the instances the ledger knows, and leaves the project as it was.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.cli.test_walkthrough_followups import _finished_run

Cli = Callable[..., subprocess.CompletedProcess[str]]
Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.fixture(autouse=True)
def _initialised(ledger: Ledger) -> None:
    """Every test works in an initialised project."""


def _launched(run_cli: Cli, run: str) -> None:
    """The ledger knows ``run``: `labledger run` recorded its launch and exit."""
    done = run_cli("run", "--run", run, "--", sys.executable, "-c", "pass")
    assert done.returncode == 0, done.stderr


def _old_run(folder: Path, run_json: dict[str, object]) -> Path:
    """A run folder from before labledger: a run.json of the run's own metadata (its id, how it
    was started, its flags: the fields `guild runs info` shows for a run in guildai/guildai
    guild/tests/uat/run-info-after-mnist-logreg-train.md; our names and numbers), a training
    log and one result file."""
    (folder / "test").mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps(
        {**run_json, "status": "completed", "started": "2026-10-02T08:14:55Z",
         "flags": {"batch-size": 64, "epochs": 30, "learning-rate": 0.0003}}, indent=2))
    (folder / "train.csv").write_text("epoch,loss\n1,0.412\n30,0.093\n")
    (folder / "test" / "metrics.json").write_text('{"psnr": 30.77}\n')
    return folder


def _runs(project: Path, kind: str) -> list[str | None]:
    with Ledger.open(project) as led:
        return [r.run for r in led.records(kinds=(kind,))]


def test_ingest_dir_refuses_a_run_its_own_run_json_contradicts(
        project: Path, run_cli: Cli, snapshot: Snapshot) -> None:
    # before: recorded at once as r8 (exit 0), r1's results filed under r8 for good
    _launched(run_cli, "r1")
    _old_run(project / "runs" / "r1", {"run_id": "r1"})
    before = snapshot(project)
    typo = run_cli("ingest-dir", "runs/r1", "--run", "r8")
    assert typo.returncode == 2, typo.stderr
    assert "Traceback" not in typo.stderr
    assert ("run.json says this is run 'r1' (run_id), but it is being recorded as run 'r8'"
            in typo.stderr)
    printed = "labledger ingest-dir runs/r1 --run r1"
    assert f"If it is r1, record it as that run (`{printed}`); if it is r8, fix run.json's " \
           "run_id; nothing was written" in typo.stderr
    assert snapshot(project) == before  # no object stored, no event
    fixed = run_cli(*shlex.split(printed)[1:])  # the fix runs as printed
    assert fixed.returncode == 0, fixed.stderr
    assert "warning" not in fixed.stderr
    assert set(_runs(project, "artifact.recorded")) == {"r1"}


def test_ingest_dir_compares_after_the_folder_settled_and_honours_capsule_toml(
        project: Path, run_cli: Cli) -> None:
    # the check runs inside the settled read (--settle > 0) as well, and reads capsule.toml's
    # run-id-fields: a project that turns the check off records the folder as given
    _launched(run_cli, "r1")
    _old_run(project / "runs" / "r1", {"run_id": "r1"})
    settled = run_cli("--json", "ingest-dir", "runs/r1", "--run", "r8", "--settle", "0.05")
    assert settled.returncode == 2
    error = json.loads(settled.stderr.strip().splitlines()[-1])
    assert (error["error"], error["field"]) == ("InvalidEventError", "run")
    (project / ".labledger" / "capsule.toml").write_text("run-id-fields = []\n")
    off = run_cli("ingest-dir", "runs/r1", "--run", "r8")
    assert off.returncode == 0, off.stderr
    assert "warning" not in off.stderr


def test_ingest_dir_warns_once_for_every_id_the_ledger_never_saw(
        project: Path, run_cli: Cli) -> None:
    # a tracker's id and a sweep's name, neither a run of this ledger: recorded, one warning
    _old_run(project / "runs" / "b", {"run_id": "wandb-3kq9x1", "run": "sweep-b7"})
    done = run_cli("ingest-dir", "runs/b", "--run", "baseline-b")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "labledger: warning: run.json's run_id names run 'wandb-3kq9x1' and run.json's run "
        "names run 'sweep-b7', runs this ledger has never seen; recorded as run 'baseline-b' "
        "(if they are a tracker's ids, set run-id-fields in .labledger/capsule.toml to "
        "silence this)"]
    as_json = run_cli("--json", "ingest-dir", "runs/b", "--run", "baseline-c")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["warnings"] == [warnings[0][len("labledger: warning: "):]
                                                      .replace("'baseline-b'", "'baseline-c'")]


def test_close_warns_one_line_naming_every_id_the_ledger_never_saw(
        project: Path, run_cli: Cli) -> None:
    # before: one warning line per id
    _finished_run(project / "active" / "b", {"run_id": "wandb-3kq9x1", "run": "sweep-b7"})
    (project / "active" / "b" / "PULL_MANIFEST.json").write_text(json.dumps(
        {"schema": "PULL/v1", "run_id": "wandb-3kq9x1", "files": []}))
    closed = run_cli("close", "active/b", "--run", "sweep-b", "--export-root", "export",
                     "--settle", "0")
    assert closed.returncode == 0, closed.stderr
    warnings = [line for line in closed.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "labledger: warning: run.json's run_id and PULL_MANIFEST.json's run_id name run "
        "'wandb-3kq9x1' and run.json's run names run 'sweep-b7', runs this ledger has never "
        "seen; sealed as run 'sweep-b' (if they are a tracker's ids, set run-id-fields in "
        ".labledger/capsule.toml to silence this)"]


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` (folders too: an empty one is a trace) with its bytes."""
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*"))}


def test_pull_instance_no_event_names_is_refused_naming_those_it_knows(
        project: Path, run_cli: Cli, tmp_path: Path) -> None:
    assert run_cli("rent", "--profile", "vastai", "--instance", "vast-123", "--host",
                   "root@127.0.0.1:1").returncode == 0
    assert run_cli("emit", "note", "--instance", "box1", "--set", "text=owned box").returncode == 0
    before = _tree(project)
    typo = run_cli("pull", "--run", "r1", "--instance", "vast-132")
    assert typo.returncode == 2, typo.stderr
    assert "Traceback" not in typo.stderr
    assert ("instance 'vast-132' is not in the ledger (no event names it; recorded instances: "
            "box1, vast-123)") in typo.stderr
    assert "--instance vast-132 --from" not in typo.stderr  # no hint that repeats the typo
    assert _tree(project) == before  # byte for byte, folders and caches included
    as_json = run_cli("--json", "pull", "--run", "r1", "--instance", "vast-132")
    assert json.loads(as_json.stderr.strip().splitlines()[-1])["code"] == 2
    # a known instance with no folder pulled yet still gets the --from form with its host
    known = run_cli("pull", "--run", "r1", "--instance", "vast-123")
    assert known.returncode == 2
    assert "labledger pull --run r1 --instance vast-123 --from root@127.0.0.1:1:DIR" \
        in known.stderr


def test_pull_from_a_folder_names_a_new_instance(project: Path, run_cli: Cli,
                                                 tmp_path: Path) -> None:
    # with --from-dir (or --from) the pull is how a box that was never rented enters the
    # ledger (docs/pull.md: a run resumed on box2): the instance is taken, and the bare
    # --instance form then finds its folder
    box2 = _old_run(tmp_path / "box2" / "r1", {"run_id": "r1"})
    first = run_cli("pull", "--run", "r1", "--instance", "box2", "--from-dir", str(box2),
                    "--no-verify")
    assert first.returncode == 0, first.stderr
    again = run_cli("pull", "--run", "r1", "--instance", "box2", "--no-verify")
    assert again.returncode == 0, again.stderr
    assert f"pulling from {box2}" in again.stderr


def test_ingest_dir_without_run_takes_the_one_its_own_files_name(
        project: Path, run_cli: Cli) -> None:
    # before: "no run id to record a run directory" (exit 2), where close took run.json's id
    _old_run(project / "runs" / "sweep-12", {"run_id": "sweep-12"})
    done = run_cli("ingest-dir", "runs/sweep-12", env={"LABLEDGER_RUN": ""})
    assert done.returncode == 0, done.stderr
    assert "run sweep-12: the run runs/sweep-12's own files name" in done.stderr
    assert set(_runs(project, "artifact.recorded")) == {"sweep-12"}


def test_ingest_dir_without_run_refuses_files_naming_two_runs(
        project: Path, run_cli: Cli, snapshot: Snapshot) -> None:
    _old_run(project / "runs" / "mixed", {"run_id": "r1", "run": "r2"})
    before = snapshot(project)
    refused = run_cli("ingest-dir", "runs/mixed", env={"LABLEDGER_RUN": ""})
    assert refused.returncode == 2, refused.stderr
    assert "Traceback" not in refused.stderr
    assert ("no --run given, and runs/mixed names more than one run: r1 (run.json's run_id), "
            "r2 (run.json's run)") in refused.stderr
    assert snapshot(project) == before
