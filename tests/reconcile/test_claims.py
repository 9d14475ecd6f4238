"""Declaring, superseding and retracting claims against a real ledger and store."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.cas.errors import ObjectCorruptError
from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from labledger.reconcile.claim_model import current_claims
from labledger.reconcile.claims import claim_history, declare_claim, retract_claim
from labledger.reconcile.errors import (
    ClaimInputError,
    ClaimNotFoundError,
    ClaimSourceError,
    DirectionRequiredError,
    MetricNotFoundError,
)
from labledger.reconcile.pull_verified import load_events

Snapshot = Callable[[Path], dict[str, bytes]]
METRICS = {"psnr": 31.52, "ssim": 0.912, "n": 24, "throughput": 812.0}


def js(doc: object) -> bytes:
    return json.dumps(doc).encode()


def write_tree(folder: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


def ingest(ledger: Ledger, tmp_path: Path, run: str, files: dict[str, bytes]) -> str:
    """`labledger ingest-dir`: returns the tree event id."""
    folder = write_tree(tmp_path / "src" / run, files)
    return ingest_run_dir(folder, run=run, ledger=ledger).event_id


def seal(ledger: Ledger, tmp_path: Path, run: str, files: dict[str, bytes]) -> str:
    """What `labledger close` records: a tree in the store and `capsule.sealed` naming it."""
    folder = write_tree(tmp_path / "export" / run, files)
    put = open_store(ledger).put_tree(folder)
    return ledger.append("capsule.sealed", run=run, path=str(folder), digest=put.digest,
                         files=len(files), bytes=put.size).id


def body_of(ledger: Ledger, event_id: str) -> dict[str, Any]:
    return next(r.body_dict() for r in ledger.records() if r.id == event_id)


# --- routes to a run's files ----------------------------------------------------------------------
def test_value_comes_from_the_stored_bytes(ledger: Ledger, tmp_path: Path) -> None:
    tree_event = ingest(ledger, tmp_path, "r1", {"test/kodak/metrics.json": js(METRICS),
                                                 "train.csv": b"epoch,psnr\n1,30\n"})
    done = declare_claim(ledger, "C1", run="r1", metric="psnr", statement="PSNR on Kodak")
    assert done.record is not None
    body = body_of(ledger, done.record.id)
    stored = open_store(ledger).put_bytes(js(METRICS)).digest
    assert body == {"claim": "C1", "metric": "psnr", "value": 31.52, "direction": "higher",
                    "source_digest": stored, "source_path": "test/kodak/metrics.json",
                    "selector": "psnr", "statement": "PSNR on Kodak", "n": 24,
                    "evaluated_split": "test", "source_event": tree_event}
    assert done.record.run == "r1"
    assert done.source.route == "artifact.recorded"


def test_sealed_capsule_and_seeds_from_run_json(ledger: Ledger, tmp_path: Path) -> None:
    sealed = seal(ledger, tmp_path, "r2", {
        "run.json": js({"run_id": "r2", "seed": 3}),
        "test/div2k/metrics.json": js({"lpips": 0.081}),
        "test/div2k/results.parquet": b"",  # never read: the claim names metrics.json
    })
    done = declare_claim(ledger, "C2", run="r2", metric="lpips")
    assert done.claim.direction == "lower"
    assert done.claim.seeds == (3,)
    assert done.claim.source_event == sealed
    assert done.source.route == "capsule.sealed"


def test_pulled_file(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full({"test/t1/metrics.json": js({"acc": 0.75, "split": "val"}),
                    "best.pth": b"\x80weights"})
    done = declare_claim(ledger, "C3", run="r1", metric="acc", split="test")
    assert done.claim.value == 0.75
    assert done.claim.evaluated_split == "val"  # the object's own split key beats the folder
    assert done.source.route == "artifact.pulled"


def test_attached_file(ledger: Ledger, tmp_path: Path) -> None:
    path = tmp_path / "metrics.json"
    path.write_bytes(js({"wer": 0.081}))
    ledger.append("run.launched", run="r4", command=["python"])
    ledger.attach(path, run="r4")
    assert declare_claim(ledger, "W", run="r4", metric="wer").claim.direction == "lower"


def test_newest_bytes_win(ledger: Ledger, tmp_path: Path) -> None:
    ingest(ledger, tmp_path / "a", "r1", {"test/k/metrics.json": js({"psnr": 30.0})})
    seal(ledger, tmp_path / "b", "r1", {"test/k/metrics.json": js({"psnr": 31.0})})
    assert declare_claim(ledger, "C1", run="r1", metric="psnr").claim.value == 31.0


def test_default_metrics_json_must_be_unambiguous(ledger: Ledger, tmp_path: Path,
                                                  snapshot: Snapshot, project: Path) -> None:
    ingest(ledger, tmp_path, "r1", {"test/kodak/metrics.json": js({"psnr": 31.0}),
                                    "test/div2k/metrics.json": js({"psnr": 29.0})})
    before = snapshot(project)
    with pytest.raises(ClaimSourceError) as info:
        declare_claim(ledger, "C1", run="r1", metric="psnr")
    assert info.value.candidates == ["test/div2k/metrics.json", "test/kodak/metrics.json"]
    assert "2 metrics.json files; choose one with --from PATH" in str(info.value)
    assert snapshot(project) == before
    assert declare_claim(ledger, "C1", run="r1", metric="psnr",
                         source="kodak/metrics.json").claim.value == 31.0
    assert declare_claim(ledger, "C2", run="r1", metric="psnr",
                         source="./test/div2k/metrics.json").claim.value == 29.0


def test_same_bytes_from_two_routes_are_one_file(ledger: Ledger, pull_seed: Any,
                                                 tmp_path: Path) -> None:
    data = js({"psnr": 31.0})
    pull_seed.full({"export/r1/test/k/metrics.json": data})
    ingest(ledger, tmp_path, "r1", {"test/k/metrics.json": data})
    done = declare_claim(ledger, "C1", run="r1", metric="psnr")
    assert done.claim.source_path == "test/k/metrics.json"


@pytest.mark.parametrize(("run", "source", "problem"), [
    ("r9", None, "run 'r9': no event of this run is in the ledger; known runs: r1, r5"),
    ("r1", "nope.json", "run 'r1': no stored file 'nope.json'; its files: test/k/metrics.json"),
    ("r1", "metrics", "no stored file 'metrics'"),
    ("r5", None, "run 'r5': no stored file is recorded for this run"),
])
def test_missing_run_or_file_lists_what_exists(ledger: Ledger, tmp_path: Path, run: str,
                                               source: str | None, problem: str) -> None:
    ingest(ledger, tmp_path, "r1", {"test/k/metrics.json": js(METRICS)})
    ledger.append("run.launched", run="r5", command=["python"])
    with pytest.raises(ClaimSourceError) as info:
        declare_claim(ledger, "C1", run=run, metric="psnr", source=source)
    assert problem in str(info.value)


def test_a_ledger_with_no_run_says_so_instead_of_an_empty_list(ledger: Ledger) -> None:
    with pytest.raises(ClaimSourceError) as info:
        declare_claim(ledger, "C1", run="nope", metric="psnr")
    message = str(info.value)
    assert "which records no run yet" in message
    assert "known runs" not in message
    assert message.endswith("; nothing was written")


def test_no_metrics_json_lists_the_files(ledger: Ledger, tmp_path: Path) -> None:
    ingest(ledger, tmp_path, "r1", {"results.parquet": b"", "train.csv": b"a\n1\n"})
    with pytest.raises(ClaimSourceError, match="no metrics.json among its files; name the "
                                               "result file with --from PATH; its files: "
                                               "results.parquet, train.csv"):
        declare_claim(ledger, "C1", run="r1", metric="psnr")


# --- metric, direction, input ---------------------------------------------------------------------
def test_unknown_metric_needs_a_direction(ledger: Ledger, tmp_path: Path, snapshot: Snapshot,
                                          project: Path) -> None:
    ingest(ledger, tmp_path, "r1", {"metrics.json": js(METRICS)})
    before = snapshot(project)
    with pytest.raises(DirectionRequiredError, match="'throughput' is not in the registry"):
        declare_claim(ledger, "T", run="r1", metric="throughput")
    with pytest.raises(MetricNotFoundError) as info:
        declare_claim(ledger, "T", run="r1", metric="thruput", direction="higher")
    assert info.value.available == ["psnr", "ssim", "n", "throughput"]
    assert snapshot(project) == before
    done = declare_claim(ledger, "T", run="r1", metric="throughput", direction="higher")
    assert done.claim.direction == "higher"
    assert done.warnings == []


def test_direction_against_the_registry_is_recorded_with_a_warning(ledger: Ledger,
                                                                   tmp_path: Path) -> None:
    ingest(ledger, tmp_path, "r1", {"metrics.json": js(METRICS)})
    done = declare_claim(ledger, "C1", run="r1", metric="psnr", direction="lower")
    assert done.claim.direction == "lower"
    assert done.warnings == ["psnr is usually higher-is-better; recorded as lower because "
                             "--direction says so"]


@pytest.mark.parametrize(("options", "problem"), [
    ({"claim_id": "C 1"}, "claim id 'C 1' is not valid"),
    ({"claim_id": "-C1"}, "claim id '-C1' is not valid"),
    ({"claim_id": "C" * 65}, "is not valid"),
    ({"implementation": "model.py"}, "--implementation 'model.py' is not FILE:LINE"),
    ({"implementation": "model.py:0"}, "is not FILE:LINE"),
    ({"statement": "  "}, "--statement must be non-empty text"),
    ({"aliases": ["PSNR", ""]}, "--alias must be non-empty text"),
    ({"direction": "up"}, "direction 'up' is not 'higher' or 'lower'"),
])
def test_bad_input_writes_nothing(ledger: Ledger, tmp_path: Path, snapshot: Snapshot,
                                  project: Path, options: dict[str, Any], problem: str) -> None:
    ingest(ledger, tmp_path, "r1", {"metrics.json": js(METRICS)})
    before = snapshot(project)
    kwargs: dict[str, Any] = {"claim_id": "C1", "run": "r1", "metric": "psnr", **options}
    claim_id = kwargs.pop("claim_id")
    with pytest.raises(ClaimInputError) as info:
        declare_claim(ledger, claim_id, **kwargs)
    assert problem in str(info.value)
    assert snapshot(project) == before


def test_a_corrupt_source_object_is_not_read(ledger: Ledger, tmp_path: Path) -> None:
    ingest(ledger, tmp_path, "r1", {"metrics.json": js(METRICS)})
    store = open_store(ledger)
    obj = store.object_path(store.put_bytes(js(METRICS)).digest)
    obj.chmod(0o644)
    obj.write_bytes(js({"psnr": 99.0, "ssim": 0.912, "n": 24, "throughput": 812.0}))
    count = len(list(ledger.records()))
    with pytest.raises(ObjectCorruptError):
        declare_claim(ledger, "C1", run="r1", metric="psnr")
    assert len(list(ledger.records())) == count


# --- supersede, retract, history ------------------------------------------------------------------
def test_redeclaring_supersedes_and_keeps_history(ledger: Ledger, tmp_path: Path) -> None:
    ingest(ledger, tmp_path / "1", "r1", {"metrics.json": js({"psnr": 30.0})})
    ingest(ledger, tmp_path / "2", "r2", {"metrics.json": js({"psnr": 31.0})})
    first = declare_claim(ledger, "C1", run="r1", metric="psnr")
    second = declare_claim(ledger, "C1", run="r2", metric="psnr", statement="better")
    assert second.superseded == first.claim.event_id
    (claim,) = current_claims(load_events(ledger))
    assert (claim.run, claim.value, claim.statement) == ("r2", 31.0, "better")
    assert claim.superseded == (first.claim.event_id,)
    assert second.claim == claim
    history = claim_history(load_events(ledger))
    assert [(h.claim.run, h.status) for h in history] == [("r1", "superseded"),
                                                           ("r2", "current")]


def test_identical_redeclaration_writes_nothing(ledger: Ledger, tmp_path: Path,
                                                snapshot: Snapshot, project: Path) -> None:
    ingest(ledger, tmp_path, "r1", {"metrics.json": js(METRICS)})
    first = declare_claim(ledger, "C1", run="r1", metric="psnr", aliases=["PSNR"])
    before = snapshot(project)
    again = declare_claim(ledger, "C1", run="r1", metric="psnr", aliases=["PSNR"])
    assert again.unchanged
    assert again.claim == first.claim
    assert snapshot(project) == before
    changed = declare_claim(ledger, "C1", run="r1", metric="psnr", aliases=["PSNR", "psnr_db"])
    assert not changed.unchanged


def test_retract(ledger: Ledger, tmp_path: Path, snapshot: Snapshot, project: Path) -> None:
    ingest(ledger, tmp_path, "r1", {"metrics.json": js(METRICS)})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    declare_claim(ledger, "C2", run="r1", metric="ssim")
    record = retract_claim(ledger, "C1", "evaluated on the wrong checkpoint")
    assert record.kind == "claim.retracted"
    assert record.run == "r1"
    assert [c.id for c in current_claims(load_events(ledger))] == ["C2"]
    before = snapshot(project)
    with pytest.raises(ClaimNotFoundError, match=r"no current claim 'C1' \(current claims: C2\)"):
        retract_claim(ledger, "C1", "again")
    with pytest.raises(ClaimInputError, match="--reason must be non-empty"):
        retract_claim(ledger, "C2", " ")
    assert snapshot(project) == before
    history = claim_history(load_events(ledger))
    assert [(h.claim.id, h.status, h.retraction) for h in history] == [
        ("C1", "retracted", "evaluated on the wrong checkpoint"), ("C2", "current", None)]
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    assert [c.id for c in current_claims(load_events(ledger))] == ["C1", "C2"]


# --- the claims SQL view --------------------------------------------------------------------------
def test_claims_view_agrees_with_the_python_projection(ledger: Ledger, tmp_path: Path) -> None:
    ingest(ledger, tmp_path / "1", "r1", {"metrics.json": js(METRICS)})
    ingest(ledger, tmp_path / "2", "r2", {"test/k/metrics.json": js({"psnr": 29.5, "n": 0})})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    declare_claim(ledger, "C1", run="r2", metric="psnr", split="val")  # supersedes
    declare_claim(ledger, "C2", run="r1", metric="ssim")
    declare_claim(ledger, "C3", run="r1", metric="n", direction="higher")
    retract_claim(ledger, "C3", "not a result")
    declare_claim(ledger, "C4", run="r1", metric="throughput", direction="higher")
    retract_claim(ledger, "C4", "withdrawn")
    declare_claim(ledger, "C4", run="r1", metric="psnr")  # declared again after retraction
    con = ledger.query()
    try:
        rows = con.execute(
            "select claim, run, metric, value, direction, split, evaluated_split, n, "
            "source_digest, source_path, selector, event_id, declarations from claims").fetchall()
    finally:
        con.close()
    python = [(c.id, c.run, c.metric, c.value, c.direction, c.split, c.evaluated_split, c.n,
               c.source_digest, c.source_path, c.selector, c.event_id, 1 + len(c.superseded))
              for c in current_claims(load_events(ledger))]
    assert rows == python
    assert [r[0] for r in rows] == ["C1", "C2", "C4"]
    assert rows[0][5:8] == ("val", "test", 0)
