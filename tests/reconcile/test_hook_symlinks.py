"""`labledger hook` on protected folders reached through symbolic links.

On a cluster a project's outputs usually live on a scratch disk, linked into the project
(``runs -> /scratch/me/runs``), and a capsule is recorded as ``runs/exp1``. Paths were compared
as written, so the same folder by its real path was not protected: ``rm -rf
/scratch/me/runs/exp1`` and ``: > /scratch/me/runs/exp1/metrics.json`` passed while ``rm -rf
runs/exp1`` was blocked. And a link to the ledger (``L -> .labledger``) let ``rm L/config.toml``
and ``rm -rf L/`` (rm follows a link named with a trailing slash) through. Each protected
folder now also counts by its real path (`hook._protected_places`, `_guarded_folders`), and a
target by where it really leads (`hook._expand`: its folder's links followed; its own name
only with a trailing slash, as rm reads it: ``rm -rf L`` removes the link alone).

A real project (``labledger init``), the capsule ``runs/exp1`` sealed with no stored copy on a
real folder outside the project reached by a real link; judged through the console script.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

EXE = Path(sys.executable).with_name("labledger")


@pytest.fixture
def box(ledger: Ledger, project: Path, tmp_path: Path) -> Path:
    scratch = tmp_path / "scratch"
    (scratch / "runs" / "exp1").mkdir(parents=True)
    (scratch / "runs" / "exp1" / "metrics.json").write_text('{"acc": 0.91}\n')
    (project / "runs").symlink_to(scratch / "runs")
    (project / "L").symlink_to(".labledger")
    ledger.append("capsule.sealed", run="r1", path="runs/exp1", digest="blake3:" + "ab" * 32,
                  files=1, bytes=14)
    (project / "notes.txt").write_text("notes\n")
    return project


def _hook(project: Path, command: str) -> subprocess.CompletedProcess[str]:
    command = command.replace("SCRATCH", str(project.parent / "scratch"))
    payload = {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(project)}
    return subprocess.run([str(EXE), "hook"], input=json.dumps(payload), capture_output=True,
                          text=True, cwd=project, timeout=120, check=False)


@pytest.mark.parametrize(("command", "what"), [
    ("rm -rf SCRATCH/runs/exp1", "the capsule"),
    ("rm -rf SCRATCH/runs", "the capsule"),
    ("cd SCRATCH && rm -rf runs/exp1", "the capsule"),
    ("find SCRATCH/runs -name '*.json' -delete", "the capsule"),
    (": > SCRATCH/runs/exp1/metrics.json", "truncates"),
    ("cp notes.txt SCRATCH/runs/exp1/metrics.json", "overwrites"),
    ("rm -rf runs/exp1", "the capsule"),  # as recorded: as before
    ("rm L/config.toml", "the labledger ledger"),
    ("rm -rf L/", "the labledger ledger"),
    ("rm -rf L/ledger", "the labledger ledger"),
    (": > L/config.toml", "the labledger ledger"),
])
def test_a_protected_folder_by_its_real_path_or_through_a_link_is_protected(
        box: Path, command: str, what: str) -> None:
    result = _hook(box, command)
    assert result.returncode == 2, (command, result.stderr)
    assert what in result.stderr
    assert (box.parent / "scratch" / "runs" / "exp1" / "metrics.json").exists()
    assert result.stderr.count("labledger: blocked:") == 1


@pytest.mark.parametrize("command", [
    "rm -rf L",  # rm removes the link itself, not the ledger it points to
    "rm -rf SCRATCH/runs/exp2",
    ": > SCRATCH/runs/exp1/new.json",  # a new file in the capsule loses nothing
    "echo x >> SCRATCH/runs/exp1/metrics.json",
    "cat L/config.toml",
    "rm -rf L/cache",
])
def test_what_links_lead_to_that_is_not_protected_passes(box: Path, command: str) -> None:
    result = _hook(box, command)
    assert result.returncode == 0, (command, result.stderr)
