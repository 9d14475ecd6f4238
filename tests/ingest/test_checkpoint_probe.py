"""The load probe on checkpoints it used to misjudge: float8, sparse, meta, deep nesting, and the
reason a pickled module is refused (the informative line kept, no ANSI codes)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from labledger.ingest.capsule import close_capsule
from labledger.ingest.capsule_rules import CapsuleRules
from labledger.ingest.checkpoint_load import load_checkpoints
from labledger.ingest.errors import CapsuleQuarantinedError
from labledger.ledger.ledger import Ledger

Events = Callable[..., list[dict[str, Any]]]


def _probe(path: Path) -> tuple[bool, str | None]:
    [result] = load_checkpoints([path], timeout=120)
    return result.ok, result.error


def test_float8_weights_load_and_a_float8_nan_is_found(tmp_path: Path, torch: ModuleType
                                                       ) -> None:
    good, bad = tmp_path / "fp8.pth", tmp_path / "fp8nan.pth"
    torch.save({"model_state_dict": {"w": torch.ones(4).to(torch.float8_e4m3fn)}}, good)
    nan = torch.tensor([1.0, float("nan")]).to(torch.float8_e4m3fn)
    torch.save({"model_state_dict": {"w": nan}}, bad)
    assert _probe(good) == (True, None)
    ok, error = _probe(bad)
    assert not ok
    assert error is not None
    assert "NaN" in error


def test_sparse_weights_load_and_a_sparse_nan_is_found(tmp_path: Path, torch: ModuleType
                                                       ) -> None:
    good, bad = tmp_path / "sp.pth", tmp_path / "spnan.pth"
    torch.save({"w": torch.eye(3).to_sparse()}, good)
    torch.save({"w": torch.tensor([[0.0, float("inf")], [1.0, 0.0]]).to_sparse()}, bad)
    assert _probe(good) == (True, None)
    ok, error = _probe(bad)
    assert not ok
    assert error is not None
    assert "NaN or infinity" in error


def test_meta_tensors_fail_with_the_reason_not_as_a_load_error(tmp_path: Path,
                                                               torch: ModuleType) -> None:
    path = tmp_path / "meta.pth"
    torch.save({"model_state_dict": {"w": torch.empty(3, device="meta")}}, path)
    ok, error = _probe(path)
    assert not ok
    assert error is not None
    assert "meta" in error
    assert "no data" in error
    assert "failed" not in error


def test_a_nan_nested_deeper_than_64_levels_is_found(tmp_path: Path, torch: ModuleType) -> None:
    nested: Any = {"w": torch.tensor([float("nan")])}
    for _ in range(80):
        nested = {"x": nested}
    path = tmp_path / "deep.pth"
    torch.save({"model_state_dict": {"w": torch.ones(2)}, "extra": nested}, path)
    ok, error = _probe(path)
    assert not ok
    assert error is not None
    assert "NaN" in error


def test_a_pickled_module_names_the_unsupported_global_without_ansi(
    tmp_path: Path, torch: ModuleType
) -> None:
    path = tmp_path / "module.pth"
    torch.save(torch.nn.Linear(2, 2), path)
    ok, error = _probe(path)
    assert not ok
    assert error is not None
    assert "Unsupported global" in error
    assert "torch.nn.modules.linear.Linear" in error
    assert "\x1b" not in error
    assert len(error) <= 800


def test_a_float8_checkpoint_seals_and_records_its_loader_per_file(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, make_run: Callable[..., Path],
    read_events: Events
) -> None:
    import json
    import struct

    source = make_run("f8")
    torch.save({"model_state_dict": {"w": torch.ones(4).to(torch.float8_e4m3fn)}},
               source / "best.pth")
    # The safetensors format by hand (safetensors' writer needs numpy, absent here).
    raw = bytes(torch.ones(2).untyped_storage())
    header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, len(raw)]}})
    (source / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header.encode()
                                               + raw)
    rules = CapsuleRules(checkpoints=["*.pth", "*.safetensors"])
    close_capsule(source, run="f8", export_root=tmp_path / "export", rules=rules,
                  ledger=ledger)
    loaders = {Path(e["path"]).name: e["loader"]
               for e in read_events(ledger, "checkpoint.verified")}
    assert loaders == {"best.pth": "torch.load(weights_only=True)",
                       "last.pth": "torch.load(weights_only=True)",
                       "model.safetensors": "safetensors"}


def test_a_meta_checkpoint_is_quarantined_with_the_reason(
    ledger: Ledger, tmp_path: Path, torch: ModuleType, make_run: Callable[..., Path]
) -> None:
    source = make_run("m1")
    torch.save({"model_state_dict": {"w": torch.empty(3, device="meta")}}, source / "best.pth")
    with pytest.raises(CapsuleQuarantinedError) as info:
        close_capsule(source, run="m1", export_root=tmp_path / "export", ledger=ledger)
    assert any("best.pth" in p and "meta tensors with no data" in p
               for p in info.value.problems)
