"""`reconcile`, `claim list` and `claim retract` read the claim events and no other.

A project's ledger is mostly heartbeats and checkpoints: three long runs beating every 30 s for a
month leave about 250,000 events. Decoding all of them made every `labledger reconcile` (and so
every commit through the hook) and every `claim list` take seconds (1.4-2.1 s with 300,000
heartbeats, against 0.3 s reading the claim events only). These tests pin that those commands
ask the ledger for `CLAIM_KINDS` only, and that what they show is the same as when every event
was read: declarations, supersessions and retractions between thousands of other events, from
two writers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.ledger import Ledger
from labledger.reconcile.claim_model import CLAIM_KINDS, current_claims, load_claim_events
from labledger.reconcile.claims import claim_history
from labledger.reconcile.pull_verified import load_events
from tests.conftest import cli_call as call


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


@pytest.fixture
def busy(ledger: Ledger, tmp_path: Path) -> Ledger:
    """Run r1 with a metrics file, its launch, and 3,000 heartbeats and checkpoints."""
    folder = tmp_path / "src" / "r1"
    folder.mkdir(parents=True)
    (folder / "metrics.json").write_text(json.dumps({"psnr": 31.52, "ssim": 0.912}))
    ledger.append("run.launched", run="r1", command=["python"], git_commit="abc",
                  git_dirty=False)
    ingest_run_dir(folder, run="r1", ledger=ledger)
    _beats(ledger, 3000)
    return ledger


def _beats(ledger: Ledger, count: int) -> None:
    ledger.append_batch([{"kind": "run.heartbeat", "run": "r1", "body": {}}
                         if i % 10 else
                         {"kind": "note", "run": "r1", "body": {"text": f"step {i}"}}
                         for i in range(count)])


@pytest.fixture
def kinds_read(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The ``kinds`` of every `Ledger.records` call made while the test runs."""
    asked: list[Any] = []
    records = Ledger.records

    def spy(self: Ledger, kinds: Any = None) -> Any:
        asked.append(tuple(kinds) if kinds is not None else None)
        return records(self, kinds)

    monkeypatch.setattr(Ledger, "records", spy)
    return asked


def test_claim_commands_and_reconcile_read_only_the_claim_events(
        busy: Ledger, project: Path, capsys: pytest.CaptureFixture[str],
        kinds_read: list[Any]) -> None:
    assert call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr",
                "--alias", "Ours")[0] == 0
    assert call(capsys, "claim", "add", "C2", "--run", "r1", "--metric", "ssim")[0] == 0
    kinds_read.clear()  # `claim add` reads every event (it lists the runs): not judged here
    code, out, _ = call(capsys, "--json", "claim", "list")
    assert code == 0
    assert [c["id"] for c in json.loads(out)] == ["C1", "C2"]
    assert call(capsys, "claim", "retract", "C2", "--reason", "wrong split")[0] == 0
    (project / "paper.md").write_text("Ours reaches a PSNR of 31.6 dB.\n")
    code, out, _ = call(capsys, "--json", "reconcile", "--no-cache", "paper.md")
    assert code == 3
    assert [(f["type"], f["claims"]) for f in json.loads(out)["findings"]] == \
        [("drift", ["C1"])]
    assert kinds_read  # the spy saw the reads
    assert set(kinds_read) == {CLAIM_KINDS}


def test_claims_read_alone_are_the_claims_read_with_every_event(
        busy: Ledger, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Declared, superseded, retracted and declared again between thousands of heartbeats and
    notes, some by a second writer: the same claims and history either way."""
    assert call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr")[0] == 0
    _beats(busy, 500)
    assert call(capsys, "claim", "add", "C2", "--run", "r1", "--metric", "ssim")[0] == 0
    monkeypatch.setenv("LABLEDGER_WRITER", "colleague-laptop")  # a second segment
    other = Ledger.open(busy.paths.project)
    _beats(other, 500)
    assert call(capsys, "claim", "add", "C3", "--run", "r1", "--metric", "psnr")[0] == 0
    monkeypatch.delenv("LABLEDGER_WRITER")
    assert call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "ssim",
                "--statement", "superseded")[0] == 0
    assert call(capsys, "claim", "retract", "C2", "--reason", "typo")[0] == 0
    _beats(busy, 200)
    assert call(capsys, "claim", "add", "C2", "--run", "r1", "--metric", "psnr")[0] == 0
    every = load_events(busy)
    claims_only = load_claim_events(busy)
    assert len({e.writer for e in claims_only}) >= 2
    assert len(claims_only) == 6 < len(every)
    assert current_claims(claims_only) == current_claims(every)
    assert [c.id for c in current_claims(claims_only)] == ["C1", "C2", "C3"]
    assert current_claims(claims_only)[0].superseded  # C1's first declaration is kept
    assert claim_history(claims_only) == claim_history(every)


def test_claim_add_reads_the_latest_heartbeats_and_knows_every_run(
        busy: Ledger, capsys: pytest.CaptureFixture[str], kinds_read: list[Any]) -> None:
    """`claim add` lists the ledger's runs and the files of the claimed one: heartbeats name no
    file, so only the latest of each run and instance are read, and a run known by its
    heartbeats alone is still a known run (its error is about its files, not its existence)."""
    busy.append_batch([{"kind": "run.heartbeat", "run": "r2", "body": {}} for _ in range(50)])
    code, _, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr")
    assert code == 0, err
    # (every event but the superseded heartbeats: read writer by writer, not by kind)
    assert kinds_read == []
    code, _, err = call(capsys, "claim", "add", "C2", "--run", "r2", "--metric", "psnr")
    assert code == 2
    assert "no event of this run" not in err
    assert "r2" in err
    code, _, err = call(capsys, "claim", "add", "C3", "--run", "r9", "--metric", "psnr")
    assert code == 2
    assert "no event of this run is in the ledger; known runs" in err
    assert "r1" in err
    assert "r2" in err
