"""What a demanding new user hit (round 32): an empty path read as the current folder, an error
whose prefix lost its subject, reconcile's summary in the singular for several findings, and a
`python -m` entry point that ran nothing.

Each test fails on the code before its fix.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call


def test_python_dash_m_on_the_console_scripts_module_runs_the_cli() -> None:
    """`python -m labledger.ledger._main --version` printed nothing and exited 0: the module
    defined main() but never called it, so every command run that way silently did nothing."""
    proc = subprocess.run([sys.executable, "-m", "labledger.ledger._main", "--version"],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("labledger, version ")


def test_an_error_about_an_empty_source_keeps_its_subject() -> None:
    """An empty source made the prefix ", field 'path': ..." (a comma and nothing before it)."""
    message = str(InvalidEventError("it is empty", field="path", source=""))
    assert not message.startswith(",")
    assert message == "'', field 'path': it is empty; nothing was written"


@pytest.mark.parametrize("args", [
    ("emit", "note", "--set", "text=x", "--attach", ""),
    ("ingest", ""),
    ("reconcile", ""),
    ("reconcile", "README.md", ""),
], ids=["emit --attach", "ingest", "reconcile", "reconcile among others"])
def test_an_empty_path_is_refused_as_an_unset_variable(
        args: tuple[str, ...], ledger: Ledger, project: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    """`"$PAPER"` with PAPER unset is "": Python reads Path("") as ".", so reconcile judged
    every document under the project (exit 3 on whatever it found there), `emit --attach ""`
    tried to store the project folder and `ingest ""` said "cannot read : Is a directory".
    As for `cas put ""` and `close ""` (docs/exit-codes.md): exit 2, nothing written."""
    monkeypatch.chdir(project)
    (project / "README.md").write_text("PSNR is 31.4 dB.\n")
    (project / "notes.md").write_text("A <!-- claim:C9 -->3.1 marker for no claim.\n")
    before = snapshot(project)
    code, out, err = call(capsys, *args)
    assert (code, out) == (2, "")
    assert "the path is empty (an unset shell variable?)" in err
    assert "C9" not in err
    assert snapshot(project) == before


def test_reconcile_summary_counts_each_kind_of_finding_in_the_plural(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two unknown-claim markers and two malformed ones read "2 marker, 2 unknown claim"."""
    monkeypatch.chdir(project)
    (project / "paper.md").write_text(
        "A <!-- claim:Z9 -->3.1 and <!-- claim:Z8 -->4.2.\n\n"
        "Bad <!-- claim: -->1.0.\n\nWorse <!-- claim: -->2.0.\n")
    code, _, err = call(capsys, "reconcile", "paper.md")
    assert code == 3
    summary = err.strip().splitlines()[-1]
    assert summary.endswith(": 2 bad markers, 2 unknown claims"), summary
    (project / "paper.md").write_text("One <!-- claim:Z9 -->3.1.\n\nBad <!-- claim: -->2.0.\n")
    code, _, err = call(capsys, "reconcile", "paper.md")
    summary = err.strip().splitlines()[-1]
    assert summary.endswith(": 1 bad marker, 1 unknown claim"), summary


@pytest.mark.parametrize(("line", "problem"), [
    ('{"kind": "note", "text": "eval done"}', "Object contains unknown field `text`"),
    ('{"body": {"text": "eval done"}}', "Object missing required field `kind`"),
], ids=["fields beside kind", "no kind"])
def test_an_ingest_line_with_the_wrong_envelope_says_what_a_line_holds(
        line: str, problem: str, ledger: Ledger, project: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A line written as `emit --set` would write it (the event's fields beside `kind`) was
    refused with msgspec's words alone: "Object contains unknown field `text`", which does not
    say that the event's fields belong under `body`."""
    monkeypatch.chdir(project)
    (project / "events.jsonl").write_text(line + "\n")
    code, _, err = call(capsys, "ingest", "events.jsonl")
    assert code == 2
    assert f"events.jsonl:1: {problem}; an event line is " in err
    assert "the event's own fields go under body" in err
    with pytest.raises(InvalidEventError, match="go under body"):
        ledger.append_batch([{"kind": "note", "text": "eval done"}])


@pytest.mark.usefixtures("pull_project")
def test_a_pull_of_a_folder_with_no_files_warns_that_nothing_came(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`pull --from-dir` of an empty folder (a wrong path on the box: the run's folder before it
    was written, `export/` instead of `export/r1/`...) said only "ok", exit 0, though the run
    then can never be pull-verified from that listing ("the latest listing has no files")."""
    empty = tmp_path / "box" / "r1"
    empty.mkdir(parents=True)
    code, out, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(empty))
    assert code == 0, err
    assert out.splitlines()[2].split()[:2] == ["expected", "0"]
    assert (f"warning: dir:{empty} holds no files: nothing was pulled, and run r1 cannot be "
            "pull-verified from this listing" in err)


@pytest.mark.parametrize("layout", ["empty", "only empty folders"])
def test_ingest_dir_of_a_folder_with_no_files_is_refused(
        layout: str, ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, snapshot: Callable[[Path], dict[str, bytes]]) -> None:
    """`ingest-dir runs/baseline` before the run wrote anything there (or a wrong folder) said
    "recorded 0 files (0 bytes, 1 new object) for run z1", exit 0: a run adopted with no file
    of its own, which no claim can read. Like a folder that does not exist: exit 2, nothing
    stored or recorded."""
    monkeypatch.chdir(project)
    folder = project / "runs" / "baseline"
    folder.mkdir(parents=True)
    if layout == "only empty folders":
        (folder / "ckpt" / "old").mkdir(parents=True)
    before = snapshot(project)
    code, out, err = call(capsys, "ingest-dir", "runs/baseline", "--run", "baseline")
    assert (code, out) == (2, "")
    assert "runs/baseline: it holds no file to record" in err
    assert snapshot(project) == before
