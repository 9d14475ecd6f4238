"""The checkpoint API: atomic save of a real torch model, recording, digest-only, the view."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from blake3 import blake3

from labledger.ingest import CheckpointSourceError, record_checkpoint, save_checkpoint
from labledger.ledger.artifacts import open_store
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import Ledger

Events = Callable[..., list[dict[str, Any]]]
State = Callable[[int], dict[str, Any]]


def b3(path: Path) -> str:
    return "blake3:" + blake3(path.read_bytes()).hexdigest()


def test_save_checkpoint_writes_loads_and_records_the_exact_bytes(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, model_state: State, read_events: Events
) -> None:
    path = tmp_path / "best.pth"
    state = model_state(0)
    record = save_checkpoint(state, path, run="r1", step=100, epoch=2, role="best",
                             metrics={"val_psnr": 31.42}, ledger=ledger)
    body = record.body_dict()
    assert body["digest"] == b3(path)
    assert body["size"] == path.stat().st_size
    assert (body["step"], body["epoch"], body["role"]) == (100, 2, "best")
    assert body["metrics"] == {"val_psnr": 31.42}
    assert body.get("stored", True) is True
    assert record.run == "r1"
    loaded = torch.load(path, map_location="cpu", weights_only=True)
    assert sorted(loaded) == sorted(state)
    assert all(torch.equal(loaded[k], state[k]) for k in state)
    assert open_store(ledger).read_bytes(body["digest"]) == path.read_bytes()
    assert [e["kind"] for e in read_events(ledger)] == ["checkpoint.saved"]


def test_save_checkpoint_creates_missing_folders(
    ledger: Ledger, tmp_path: Path, model_state: State
) -> None:
    path = tmp_path / "active" / "r1" / "ckpt" / "best.pth"
    record = save_checkpoint(model_state(0), path, run="r1", ledger=ledger)
    assert record.body_dict()["digest"] == b3(path)


def test_save_leaves_no_temp_file_and_replaces_atomically(
    ledger: Ledger, tmp_path: Path, model_state: State, read_events: Events
) -> None:
    path = tmp_path / "last.pth"
    first = save_checkpoint(model_state(0), path, run="r1", step=1, role="last", ledger=ledger)
    second = save_checkpoint(model_state(1), path, run="r1", step=2, role="last", ledger=ledger)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["last.pth"]
    assert first.body_dict()["digest"] != second.body_dict()["digest"]
    assert second.body_dict()["digest"] == b3(path)
    store = open_store(ledger)
    assert store.exists(first.body_dict()["digest"])  # the old bytes are still evidence
    assert [e["step"] for e in read_events(ledger, "checkpoint.saved")] == [1, 2]


def test_a_failed_save_keeps_the_previous_checkpoint_and_records_nothing(
    ledger: Ledger, tmp_path: Path, model_state: State, read_events: Events
) -> None:
    path = tmp_path / "best.pth"
    save_checkpoint(model_state(0), path, run="r1", step=1, ledger=ledger)
    before = path.read_bytes()
    with pytest.raises(Exception, match="lambda|pickle|local object"):
        save_checkpoint({"fn": lambda: 1}, path, run="r1", step=2, ledger=ledger)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["best.pth"]
    assert len(read_events(ledger)) == 1


def test_bad_input_writes_no_file_no_object_no_event(
    ledger: Ledger, tmp_path: Path, model_state: State, read_events: Events
) -> None:
    path = tmp_path / "best.pth"
    role: Any = "final"
    with pytest.raises(InvalidEventError, match="role"):
        save_checkpoint(model_state(0), path, run="r1", role=role, ledger=ledger)
    assert not path.exists()
    assert read_events(ledger) == []
    assert [p for p in open_store(ledger).objects_dir.rglob("*") if p.is_file()] == []


def test_record_checkpoint_stores_an_existing_file(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, model_state: State
) -> None:
    path = tmp_path / "epoch3.pt"
    torch.save(model_state(3), path)
    record = record_checkpoint(path, run="r1", epoch=3, role="latest", ledger=ledger)
    assert record.body_dict()["digest"] == b3(path)
    assert open_store(ledger).exists(b3(path))


def test_digest_only_records_digest_and_size_without_a_copy(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, model_state: State
) -> None:
    path = tmp_path / "best.pth"
    torch.save(model_state(0), path)
    record = record_checkpoint(path, run="r1", step=5, digest_only=True, ledger=ledger)
    body = record.body_dict()
    assert body["stored"] is False
    assert body["digest"] == b3(path)
    assert body["size"] == path.stat().st_size
    assert not open_store(ledger).exists(body["digest"])


def test_run_defaults_from_the_environment(
    ledger: Ledger, tmp_path: Path, model_state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LABLEDGER_RUN", "from-env")
    record = save_checkpoint(model_state(0), tmp_path / "a.pth", ledger=ledger)
    assert record.run == "from-env"
    assert record.instance is None


def test_instance_defaults_from_the_environment(
    ledger: Ledger, tmp_path: Path, model_state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `labledger run --instance box1` exports LABLEDGER_INSTANCE with LABLEDGER_RUN
    monkeypatch.setenv("LABLEDGER_RUN", "r1")
    monkeypatch.setenv("LABLEDGER_INSTANCE", "box1")
    saved = save_checkpoint(model_state(0), tmp_path / "a.pth", ledger=ledger)
    recorded = record_checkpoint(tmp_path / "a.pth", ledger=ledger)
    explicit = record_checkpoint(tmp_path / "a.pth", instance="box2", ledger=ledger)
    assert [saved.instance, recorded.instance, explicit.instance] == ["box1", "box1", "box2"]


def test_no_run_id_is_refused_before_anything_is_written(
    ledger: Ledger, tmp_path: Path, model_state: State, read_events: Events
) -> None:
    with pytest.raises(InvalidEventError, match="LABLEDGER_RUN"):
        save_checkpoint(model_state(0), tmp_path / "a.pth", ledger=ledger)
    assert not (tmp_path / "a.pth").exists()
    assert read_events(ledger) == []


def test_non_finite_metrics_are_kept_as_text(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, model_state: State
) -> None:
    path = tmp_path / "a.pth"
    record = save_checkpoint(model_state(0), path, run="r1", ledger=ledger,
                             metrics={"loss": torch.tensor(float("nan")), "acc": 0.5})
    body = record.body_dict()
    assert body["metrics"] == {"acc": 0.5}
    assert body["extra"] == {"non_finite_metrics": {"loss": "nan"}}


def test_a_missing_file_is_refused(ledger: Ledger, tmp_path: Path, read_events: Events) -> None:
    with pytest.raises(CheckpointSourceError, match="no such file"):
        record_checkpoint(tmp_path / "nope.pth", run="r1", ledger=ledger)
    assert read_events(ledger) == []


def test_the_api_opens_the_ledger_from_the_environment(
    ledger: Ledger, tmp_path: Path, model_state: State
) -> None:
    """No ledger argument: found through $LABLEDGER_ROOT, like a training script would."""
    record = save_checkpoint(model_state(0), tmp_path / "a.pth", run="r9")
    assert [r.id for r in Ledger.open().records()] == [record.id]


def test_importing_ingest_imports_no_heavy_package(project: Path) -> None:
    code = ("import sys, labledger.ingest, labledger.ingest.checkpoint, labledger.ingest.capsule\n"
            "heavy = {'torch', 'duckdb', 'pyarrow', 'paramiko', 'click'}\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=project, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.replace("'", '"')) == []


# --- the checkpoints view ------------------------------------------------------------------------
def _view(ledger: Ledger) -> list[dict[str, Any]]:
    con = ledger.query()
    try:
        result = con.execute("SELECT * FROM checkpoints")
        columns = [d[0] for d in result.description]
        return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]
    finally:
        con.close()


def test_checkpoints_view_lists_every_checkpoint_and_where_its_bytes_are(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, model_state: State
) -> None:
    stored = tmp_path / "best.pth"
    save_checkpoint(model_state(0), stored, run="r1", step=10, epoch=1, role="best",
                    metrics={"psnr": 30.5}, ledger=ledger)
    remote = tmp_path / "remote.pth"
    torch.save(model_state(1), remote)
    record_checkpoint(remote, run="r2", step=20, role="latest", digest_only=True, ledger=ledger)
    rows = _view(ledger)
    assert [(r["run"], r["step"], r["epoch"], r["role"]) for r in rows] == [
        ("r1", 10, 1, "best"), ("r2", 20, None, "latest")]
    assert [r["digest"] for r in rows] == [b3(stored), b3(remote)]
    assert [r["size"] for r in rows] == [stored.stat().st_size, remote.stat().st_size]
    assert [(r["stored"], r["in_store"]) for r in rows] == [(True, True), (False, False)]
    assert json.loads(rows[0]["metrics"]) == {"psnr": 30.5}
    assert rows[0]["ts"] is not None


def test_checkpoints_view_in_store_follows_later_events(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, model_state: State
) -> None:
    path = tmp_path / "remote.pth"
    torch.save(model_state(1), path)
    record_checkpoint(path, run="r2", digest_only=True, ledger=ledger)
    assert [r["in_store"] for r in _view(ledger)] == [False]
    ledger.attach(path, run="r2")  # the bytes arrive later (e.g. after a pull)
    assert [r["in_store"] for r in _view(ledger)] == [True]
    ledger.append("object.quarantined", digest=b3(path), path="q/x", reason="corrupt")
    assert [r["in_store"] for r in _view(ledger)] == [False]
    ledger.append("checkpoint.verified", run="r2", path=str(path), digest=b3(path), ok=True)
    assert [r["verified"] for r in _view(ledger)] == [True]
