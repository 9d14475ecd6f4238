"""`teardown --confirm-absent --at TS`: a confirmation recorded days after the box was gone
stops the meter when it was gone, not when someone got round to confirming it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


@pytest.fixture
def rented(ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> Ledger:
    code, _, err = call(capsys, "rent", "--profile", "vastai", "--instance", "v1",
                        "--price-per-hour", "2", "--currency", "USD", "--at",
                        "2026-05-01T00:00:00Z")
    assert code == 0, err
    return ledger


def instance(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, err = call(capsys, "instances", "--json", "--now", "2026-05-09T00:00:00Z")
    assert code == 0, err
    (item,) = json.loads(out)["instances"]
    assert isinstance(item, dict)
    return item


def test_the_meter_stops_when_the_box_was_gone(rented: Ledger,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "teardown", "--instance", "v1", "--confirm-absent", "--evidence",
                        "vastai show instances: not listed", "--at", "2026-05-01T03:00:00Z")
    assert code == 0, err
    item = instance(capsys)
    assert item["state"] == "released"
    assert item["hours_metered"] == 3.0
    assert item["cost"] == 6.0
    kinds = {r.kind: r for r in rented.records()}
    assert kinds["teardown.confirmed"].ts.startswith("2026-05-01T03:00:00")
    assert kinds["instance.released"].ts.startswith("2026-05-01T03:00:00")
    assert kinds["teardown.confirmed"].recorded is not None  # written now, backfilled


@pytest.mark.parametrize(("at", "says"), [
    ("2026-04-30T23:00:00Z", "before its last recorded change"),
    ("2999-01-01T00:00:00Z", "is in the future"),
    ("yesterday", "--at"),
])
def test_a_bad_time_is_refused_and_writes_nothing(rented: Ledger, project: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  snapshot: Snapshot, at: str, says: str) -> None:
    before = snapshot(project)
    code, out, err = call(capsys, "teardown", "--instance", "v1", "--confirm-absent", "--at", at)
    assert (code, out) == (2, ""), err
    assert says in err
    assert "Traceback" not in err
    assert snapshot(project) == before


def test_at_goes_with_confirm_absent(rented: Ledger, project: Path,
                                     capsys: pytest.CaptureFixture[str],
                                     snapshot: Snapshot) -> None:
    before = snapshot(project)
    code, _, err = call(capsys, "teardown", "--instance", "v1", "--yes", "--override", "x",
                        "--at", "2026-05-01T03:00:00Z")
    assert code == 2
    assert "--at goes with --confirm-absent" in err
    assert snapshot(project) == before
