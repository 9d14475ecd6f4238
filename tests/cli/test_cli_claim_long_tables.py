"""`labledger claim add` on a long (tidy) results table and on describe() saved without its
index, end to end through main() with a real ledger and store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.cli.test_cli_claim_describe import _in_project, claims_written, run_with  # noqa: F401
from tests.conftest import cli_call as call
from tests.reconcile.test_claim_values_long_tables import DESCRIBED, TIDY


@pytest.fixture
def run_r1(ledger: Ledger, tmp_path: Path) -> Ledger:
    return run_with(ledger, tmp_path, {"tidy.csv": TIDY, "summary.csv": DESCRIBED})


def test_a_tidy_cell_is_claimed_as_its_quantity(run_r1: Ledger,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "--json", "claim", "add", "C1", "--run", "r1", "--metric",
                          "value[metric=psnr,statistic=mean]", "--from", "tidy.csv")
    assert code == 0, err
    claim = json.loads(out)["claim"]
    assert (claim["metric"], claim["value"], claim["n"], claim["variance"]) == (
        "psnr", 31.42, 24, {"type": "std", "value": 0.11})
    assert claim["direction"] == "higher"  # from the registry: the metric is psnr, not value


@pytest.mark.parametrize(("file", "selector", "said"), [
    ("tidy.csv", "mean(value)", "hold different quantities (metric: psnr, ssim)"),
    ("summary.csv", "mean(psnr)", "pandas describe() saved without its index"),
])
def test_a_mixed_aggregate_exits_2_and_writes_nothing(
        run_r1: Ledger, capsys: pytest.CaptureFixture[str], file: str, selector: str,
        said: str) -> None:
    code, out, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", selector,
                          "--from", file)
    assert code == 2
    assert out == ""
    assert said in err
    assert "Traceback" not in err
    assert claims_written(run_r1) == 0
