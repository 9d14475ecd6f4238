"""`claim list` shows ids in the order people number them (C2 before C10)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.ledger.ledger import Ledger
from labledger.reconcile.claim_model import reading_order
from tests.conftest import cli_call as call


def test_numbers_in_ids_sort_by_value() -> None:
    ids = ["C10", "C2", "C1", "C", "T1.10", "T1.9", "C01", "b3", "B3", "C2a", "C2b"]
    assert sorted(ids, key=reading_order) == [
        "B3", "C", "C01", "C1", "C2", "C2a", "C2b", "C10", "T1.9", "T1.10", "b3"]


@given(st.lists(st.text(alphabet="AC01239._-", min_size=1, max_size=6), unique=True))
def test_reading_order_is_a_total_order_of_distinct_ids(ids: list[str]) -> None:
    keys = [reading_order(i) for i in ids]
    assert len(set(keys)) == len(ids)  # distinct ids never tie
    ordered = sorted(ids, key=reading_order)
    assert sorted(reversed(ordered), key=reading_order) == ordered  # stable under input order


def test_claim_list_in_reading_order(ledger: Ledger, project: object,
                                     capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(str(project))
    for cid in ("C10", "C2", "C1"):
        ledger.append("claim.declared", run="r1", claim=cid, metric="psnr", value=31.42,
                      direction="higher", source_digest="blake3:" + "0" * 64)
    code, out, err = call(capsys, "claim", "list")
    assert code == 0, err
    rows = [line.split()[0] for line in out.splitlines()[2:]]
    assert rows == ["C1", "C2", "C10"]
    code, out, _ = call(capsys, "--json", "claim", "list")
    assert [c["id"] for c in json.loads(out)] == ["C1", "C2", "C10"]
