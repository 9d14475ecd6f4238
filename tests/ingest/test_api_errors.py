"""The Python API's likely mistakes raise `InvalidEventError` naming the field, write nothing;
and `save_checkpoint` outside a ledger still saves the checkpoint before it raises."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from labledger.ingest import save_checkpoint
from labledger.ledger.errors import InvalidEventError, LedgerError
from labledger.ledger.ledger import Ledger

Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.mark.parametrize(("call", "field", "says"), [
    (lambda led, torch: led.append("run.heartbeat", run="r1", step=1,
                                   extra={"loss": torch.tensor(0.5)}), "extra.loss", "Tensor"),
    (lambda led, _: led.append("run.heartbeat", run=5, step=1), "run", "must be text"),
    (lambda led, _: led.append("note", instance=["b"], text="x"), "instance", "must be text"),
    (lambda led, _: led.append_batch({"kind": "note", "body": {"text": "x"}}), None,
     "takes a list of events"),
    (lambda led, _: led.append_batch(["note"]), None, "not str"),
    (lambda led, _: save_checkpoint({}, "a.pth", run="r1", metrics=[1, 2], ledger=led),
     "metrics", "must map names to numbers"),
])
def test_a_likely_mistake_is_an_invalid_event_naming_the_field(
        ledger: Ledger, project: Path, snapshot: Snapshot, torch: ModuleType,
        call: Callable[[Ledger, ModuleType], Any], field: str | None, says: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    before = snapshot(project)
    with pytest.raises(InvalidEventError, match=says) as info:
        call(ledger, torch)
    assert info.value.field == field
    assert snapshot(project) == before


def test_save_checkpoint_outside_a_ledger_saves_then_says_it_was_not_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, torch: ModuleType) -> None:
    monkeypatch.delenv("LABLEDGER_ROOT")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(LedgerError):
        save_checkpoint({"w": torch.ones(2)}, "ckpt/a.pth", run="r1")
    loaded = torch.load(tmp_path / "ckpt" / "a.pth", weights_only=True)
    assert torch.equal(loaded["w"], torch.ones(2))
    with pytest.raises(InvalidEventError):  # bad arguments still save nothing
        save_checkpoint({"w": torch.ones(2)}, "ckpt/b.pth", run="bad id!")
    assert not (tmp_path / "ckpt" / "b.pth").exists()
