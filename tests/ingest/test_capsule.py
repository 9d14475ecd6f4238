"""Capsule closure: sealing, refusing, quarantining (never deleting), rules, and ingest-dir."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from blake3 import blake3

from labledger.cas import Store
from labledger.ingest import (
    CapsuleConfigError,
    CapsuleExistsError,
    CapsuleInterruptedError,
    CapsuleQuarantinedError,
    CapsuleRules,
    CapsuleSourceError,
    close_capsule,
    ingest_run_dir,
)
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger

Events = Callable[..., list[dict[str, Any]]]
Snapshot = Callable[[Path], dict[str, bytes]]
RunFactory = Callable[..., Path]


def b3(path: Path) -> str:
    return "blake3:" + blake3(path.read_bytes()).hexdigest()


@pytest.fixture
def export(tmp_path: Path) -> Path:
    return tmp_path / "export"


@pytest.fixture
def quarantine(tmp_path: Path) -> Path:
    return tmp_path / "quarantine"


def _tree_digest(tmp_path: Path, folder: Path) -> str:
    """The tree digest computed independently, in a store of its own."""
    return Store(tmp_path / "other-store").put_tree(folder).digest


def _quarantined(ledger: Ledger, source: Path, export: Path, **options: Any
                 ) -> CapsuleQuarantinedError:
    with pytest.raises(CapsuleQuarantinedError) as info:
        close_capsule(source, run=source.name, export_root=export, ledger=ledger, **options)
    return info.value


# --- success -------------------------------------------------------------------------------------
def test_close_seals_the_capsule_and_records_its_tree(
    ledger: Ledger, make_run: RunFactory, export: Path, tmp_path: Path, snapshot: Snapshot,
    read_events: Events
) -> None:
    source = make_run("r1")
    before = snapshot(source)
    sealed = close_capsule(source, run="r1", export_root=export, ledger=ledger)
    capsule = export / "r1"
    assert snapshot(capsule) == before
    assert snapshot(source) == before  # copy mode leaves the source alone
    assert not (export / ".partial" / "r1").exists()
    assert sealed.digest == _tree_digest(tmp_path, capsule)
    (event,) = read_events(ledger, "capsule.sealed")
    assert (event["run"], event["path"], event["digest"]) == ("r1", str(capsule), sealed.digest)
    assert (event["files"], event["bytes"]) == (len(before), sum(map(len, before.values())))
    assert open_store(ledger).exists(sealed.digest)


def test_close_records_each_checkpoint_it_loaded(
    ledger: Ledger, make_run: RunFactory, export: Path, read_events: Events
) -> None:
    close_capsule(make_run("r1"), run="r1", export_root=export, ledger=ledger)
    verified = read_events(ledger, "checkpoint.verified")
    assert sorted(Path(e["path"]).name for e in verified) == ["best.pth", "last.pth"]
    assert all(e["ok"] for e in verified)
    assert all(e["digest"] == b3(Path(e["path"])) for e in verified)
    assert all(e["tensors"] == 2 for e in verified)


def test_close_with_move_moves_the_files(
    ledger: Ledger, make_run: RunFactory, export: Path, snapshot: Snapshot
) -> None:
    source = make_run("r1")
    before = snapshot(source)
    sealed = close_capsule(source, run="r1", export_root=export, move=True, ledger=ledger)
    assert sealed.moved
    assert not source.exists()
    assert snapshot(export / "r1") == before


def test_visual_coverage_complete_is_sealed(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    run_json = {"run": "r1", "conditions": ["clean", "noisy"], "roles": ["input", "output"],
                "selection": {"ids": ["s1", "s2"]}}
    source = make_run("r1", run_json=run_json,
                      vis=(["clean", "noisy"], ["input", "output"], ["s1", "s2"]))
    sealed = close_capsule(source, run="r1", export_root=export, ledger=ledger)
    assert sealed.files == 5 + 2 + 8  # top level, test outputs, 2x2x2 images


# --- refusals: nothing copied, moved, deleted or recorded ----------------------------------------
def test_an_existing_destination_is_refused_before_anything_moves(
    ledger: Ledger, make_run: RunFactory, export: Path, quarantine: Path, snapshot: Snapshot,
    read_events: Events
) -> None:
    source = make_run("r1")
    (export / "r1").mkdir(parents=True)
    (export / "r1" / "old.txt").write_text("sealed earlier")
    src_before, dest_before = snapshot(source), snapshot(export / "r1")
    with pytest.raises(CapsuleExistsError, match="never overwritten"):
        close_capsule(source, run="r1", export_root=export, move=True, ledger=ledger)
    assert snapshot(source) == src_before
    assert snapshot(export / "r1") == dest_before
    assert not (export / ".partial" / "r1").exists()
    assert not quarantine.exists()
    assert read_events(ledger) == []


def test_an_empty_existing_destination_is_refused_too(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    (export / "r1").mkdir(parents=True)
    with pytest.raises(CapsuleExistsError):
        close_capsule(make_run("r1"), run="r1", export_root=export, ledger=ledger)
    assert list((export / "r1").iterdir()) == []


def test_a_leftover_partial_is_refused_and_kept(
    ledger: Ledger, make_run: RunFactory, export: Path, snapshot: Snapshot
) -> None:
    leftover = export / ".partial" / "r1"
    leftover.mkdir(parents=True)
    (leftover / "best.pth").write_bytes(b"only copy")
    with pytest.raises(CapsuleInterruptedError, match="interrupted"):
        close_capsule(make_run("r1"), run="r1", export_root=export, ledger=ledger)
    assert snapshot(leftover) == {"best.pth": b"only copy"}


def test_an_export_root_inside_the_source_is_refused(
    ledger: Ledger, make_run: RunFactory, snapshot: Snapshot
) -> None:
    source = make_run("r1")
    before = snapshot(source)
    with pytest.raises(CapsuleSourceError, match="inside it"):
        close_capsule(source, run="r1", export_root=source / "export", ledger=ledger)
    assert snapshot(source) == before


# --- quarantine: every failure keeps every byte --------------------------------------------------
def test_latest_pth_is_quarantined_with_reason_and_event(
    ledger: Ledger, make_run: RunFactory, export: Path, quarantine: Path, snapshot: Snapshot,
    read_events: Events, torch: ModuleType
) -> None:
    source = make_run("r1")
    torch.save({"w": torch.ones(2)}, source / "latest.pth")
    before = snapshot(source)
    error = _quarantined(ledger, source, export)
    target = quarantine / "r1--1"
    assert error.quarantine == target
    assert error.attempt == 1
    assert error.problems == ["forbidden file (latest.pth): latest.pth"]
    reason = (target / "REASON.txt").read_text()
    assert "latest.pth" in reason
    kept = snapshot(target)
    del kept["REASON.txt"]
    assert kept == before
    assert snapshot(source) == before
    assert not (export / "r1").exists()
    assert not (export / ".partial" / "r1").exists()
    (event,) = read_events(ledger, "capsule.quarantined")
    assert (event["run"], event["path"]) == ("r1", str(target))
    assert event.get("attempt", 1) == 1  # bodies omit defaults
    assert "latest.pth" in event["reason"]
    assert event["problems"] == error.problems
    assert read_events(ledger, "capsule.sealed") == []


def test_a_failed_move_leaves_every_file_in_quarantine(
    ledger: Ledger, make_run: RunFactory, export: Path, quarantine: Path, snapshot: Snapshot
) -> None:
    source = make_run("r1")
    (source / "DONE").write_text("done")
    before = snapshot(source)
    _quarantined(ledger, source, export, move=True)
    kept = snapshot(quarantine / "r1--1")
    del kept["REASON.txt"]
    assert kept == before


def test_attempts_count_up_and_never_overwrite(
    ledger: Ledger, make_run: RunFactory, export: Path, quarantine: Path
) -> None:
    source = make_run("r1")
    (source / "COMPLETE.json").write_text("{}")
    first = _quarantined(ledger, source, export)
    second = _quarantined(ledger, source, export)
    assert (first.attempt, second.attempt) == (1, 2)
    assert sorted(p.name for p in quarantine.iterdir()) == ["r1--1", "r1--2"]


def test_a_custom_quarantine_root(
    ledger: Ledger, make_run: RunFactory, export: Path, tmp_path: Path
) -> None:
    source = make_run("r1")
    (source / "train.csv").unlink()
    error = _quarantined(ledger, source, export, quarantine_root=tmp_path / "q2")
    assert error.quarantine == tmp_path / "q2" / "r1--1"
    assert (tmp_path / "q2" / "r1--1" / "REASON.txt").is_file()


@pytest.mark.parametrize(("remove", "problem"), [
    ("config.yaml", "missing required file config.yaml"),
    ("best.pth", "missing required file best.pth"),
    ("run.json", "missing required file run.json"),
    ("test/t1/results.parquet", "missing test/t1/results.parquet"),
    ("test/t1/metrics.json", "missing test/t1/metrics.json"),
])
def test_a_missing_required_file_is_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path, remove: str, problem: str
) -> None:
    source = make_run("r1")
    (source / remove).unlink()
    assert _quarantined(ledger, source, export).problems == [problem]


def test_no_test_directory_is_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    source = make_run("r1")
    for name in ("metrics.json", "results.parquet"):
        (source / "test" / "t1" / name).unlink()
    (source / "test" / "t1").rmdir()
    assert _quarantined(ledger, source, export).problems == [
        "0 tests under test/; at least 1 required"]


@pytest.mark.parametrize("cache", ["__pycache__", ".ipynb_checkpoints", "wandb"])
def test_caches_are_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path, cache: str
) -> None:
    source = make_run("r1")
    (source / "test" / cache).mkdir()
    (source / "test" / cache / "x").write_text("cache")
    assert _quarantined(ledger, source, export).problems == [
        f"forbidden cache directory: test/{cache}"]


@pytest.mark.parametrize("sentinel", ["COMPLETE.json", "MANIFEST.json", "DONE", ".done"])
def test_completion_sentinels_are_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path, sentinel: str
) -> None:
    source = make_run("r1")
    (source / sentinel).write_text("{}")
    assert _quarantined(ledger, source, export).problems == [
        f"forbidden file ({sentinel}): {sentinel}"]


def test_random_bytes_named_best_pth_are_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    source = make_run("r1")
    (source / "best.pth").write_bytes(os.urandom(4096))
    (problem,) = _quarantined(ledger, source, export).problems
    assert problem.startswith("checkpoint best.pth does not load safely: torch.load")


def test_a_checkpoint_with_a_nan_tensor_is_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path, torch: ModuleType
) -> None:
    source = make_run("r1")
    torch.save({"weight": torch.tensor([1.0, float("nan")]), "bias": torch.zeros(2)},
               source / "best.pth")
    assert _quarantined(ledger, source, export).problems == [
        "checkpoint best.pth does not load safely: 1 of 2 tensors hold NaN or infinity"]


def test_a_checkpoint_that_needs_pickle_is_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path, torch: ModuleType
) -> None:
    """weights_only=True refuses arbitrary objects: no pickle code runs in the check."""
    source = make_run("r1")
    torch.save({"weight": torch.ones(2), "opt": Path("x")}, source / "last.pth")
    (problem,) = _quarantined(ledger, source, export).problems
    assert problem.startswith("checkpoint last.pth does not load safely: torch.load")


def test_a_checkpoint_without_tensors_is_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path, torch: ModuleType
) -> None:
    source = make_run("r1")
    torch.save({"step": 3}, source / "best.pth")
    assert _quarantined(ledger, source, export).problems == [
        "checkpoint best.pth does not load safely: it holds no tensors"]


@pytest.mark.parametrize("key", ["files", "manifest", "inventory"])
def test_a_run_json_with_a_file_inventory_is_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path, key: str
) -> None:
    source = make_run("r1", run_json={"run": "r1", key: ["best.pth", "train.csv"]})
    (problem,) = _quarantined(ledger, source, export).problems
    assert problem.startswith(f"run.json carries a file inventory (key {key})")


def test_missing_visual_sample_is_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    run_json = {"run": "r1", "conditions": ["clean"], "roles": ["output"],
                "selection": ["s1", "s2", "s3"]}
    source = make_run("r1", run_json=run_json, vis=(["clean"], ["output"], ["s1", "s2", "s3"]))
    (source / "test" / "t1" / "vis" / "clean" / "output" / "s2.png").unlink()
    assert _quarantined(ledger, source, export).problems == [
        "visual coverage incomplete, 1 image missing: test/t1/vis/clean/output/s2.png"]


def test_malformed_test_outputs_are_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    source = make_run("r1")
    (source / "test" / "t1" / "metrics.json").write_text("[1, 2]")
    (source / "test" / "t1" / "results.parquet").write_text("a,b\n1,2\n")
    assert _quarantined(ledger, source, export).problems == [
        "test/t1/metrics.json is not a JSON object",
        "test/t1/results.parquet is not a Parquet file (no PAR1 magic at both ends)"]


def test_every_problem_is_reported_at_once(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    source = make_run("r1")
    (source / "config.yaml").unlink()
    (source / "DONE").write_text("")
    os.symlink("/etc/hostname", source / "link")
    assert _quarantined(ledger, source, export).problems == [
        "missing required file config.yaml", "forbidden file (DONE): DONE",
        "symlink (a capsule must hold its own bytes): link"]


def test_a_failure_while_copying_is_quarantined(
    ledger: Ledger, make_run: RunFactory, export: Path, quarantine: Path, read_events: Events
) -> None:
    """Any failure, not only a broken rule: a FIFO cannot be copied (and must not block)."""
    source = make_run("r1")
    os.mkfifo(source / "pipe")
    (problem,) = _quarantined(ledger, source, export).problems
    assert problem.startswith("closure failed: OSError")
    assert (quarantine / "r1--1" / "REASON.txt").is_file()
    assert len(read_events(ledger, "capsule.quarantined")) == 1


# --- rules from .labledger/capsule.toml ----------------------------------------------------------
def test_capsule_toml_changes_the_rules(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    (ledger.paths.home / "capsule.toml").write_text(
        'required = ["run.json", "best.pth"]\n'
        'forbidden = ["latest.pth", "*.tmp"]\n'
        "min-tests = 0\n"
        'load-checkpoints = "never"\n')
    source = make_run("r1")
    (source / "train.csv").unlink()
    (source / "DONE").write_text("")  # no longer forbidden
    (source / "best.pth").write_bytes(b"not loaded")  # loading is off
    sealed = close_capsule(source, run="r1", export_root=export, ledger=ledger)
    assert (export / "r1" / "DONE").exists()
    assert sealed.checkpoints == []
    other = make_run("r2")
    (other / "x.tmp").write_text("")
    assert _quarantined(ledger, other, export).problems == ["forbidden file (*.tmp): x.tmp"]


def test_an_unknown_capsule_option_is_refused(
    ledger: Ledger, make_run: RunFactory, export: Path, snapshot: Snapshot
) -> None:
    (ledger.paths.home / "capsule.toml").write_text("requried = []\n")
    source = make_run("r1")
    before = snapshot(source)
    with pytest.raises(CapsuleConfigError, match="requried"):
        close_capsule(source, run="r1", export_root=export, ledger=ledger)
    assert snapshot(source) == before
    assert not export.exists()


def test_rules_can_be_passed_directly(
    ledger: Ledger, make_run: RunFactory, export: Path
) -> None:
    source = make_run("r1")
    (source / "notes.md").write_text("x")
    rules = CapsuleRules(forbidden=["*.md"])
    with pytest.raises(CapsuleQuarantinedError, match="notes.md"):
        close_capsule(source, run="r1", export_root=export, ledger=ledger, rules=rules)


# --- ingest-dir ----------------------------------------------------------------------------------
def test_ingest_dir_records_every_file_and_the_tree_in_one_batch(
    ledger: Ledger, make_run: RunFactory, tmp_path: Path, snapshot: Snapshot,
    read_events: Events
) -> None:
    source = make_run("old-run")
    (source / "latest.pth").write_bytes(b"adopted as is")  # no rules applied to old work
    before = snapshot(source)
    result = ingest_run_dir(source, run="old-run", ledger=ledger)
    recorded = read_events(ledger, "artifact.recorded")
    files = [e for e in recorded if e.get("type", "file") == "file"]
    assert sorted(e["path"] for e in files) == sorted(str(source / p) for p in before)
    assert all(e["digest"] == b3(Path(e["path"])) for e in files)
    assert all(e["run"] == "old-run" for e in recorded)
    (tree,) = [e for e in recorded if e.get("type") == "tree"]
    assert tree["digest"] == result.digest == _tree_digest(tmp_path, source)
    assert (result.files, result.bytes) == (len(before), sum(map(len, before.values())))
    batch = list(ledger.records())
    assert len(batch) == len(before) + 1
    assert [r.more for r in batch] == [True] * len(before) + [False]  # one all-or-nothing batch
    store = open_store(ledger)
    assert all(store.exists(e["digest"]) for e in recorded)
    assert snapshot(source) == before


def test_ingest_dir_of_a_file_is_refused(
    ledger: Ledger, tmp_path: Path, read_events: Events
) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(CapsuleSourceError, match="not a directory"):
        ingest_run_dir(tmp_path / "f", run="r1", ledger=ledger)
    assert read_events(ledger) == []


def test_json_of_a_sealed_capsule(ledger: Ledger, make_run: RunFactory, export: Path) -> None:
    sealed = close_capsule(make_run("r1"), run="r1", export_root=export, ledger=ledger)
    data = json.loads(json.dumps(sealed.to_json()))
    assert data["path"] == str(export / "r1")
