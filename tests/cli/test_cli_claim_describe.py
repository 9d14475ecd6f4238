"""`labledger claim add` on a pandas ``describe()`` results table, end to end through main()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

SUMMARY = (",psnr,ssim\ncount,24.0,24.0\nmean,31.52,0.912\nstd,0.11,0.004\nmin,31.3,0.905\n"
           "25%,31.45,0.909\n50%,31.5,0.912\n75%,31.6,0.915\nmax,31.8,0.92\n")


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


def run_with(ledger: Ledger, tmp_path: Path, files: dict[str, bytes]) -> Ledger:
    """Run r1 launched, and a folder of ``files`` ingested into it (store and events)."""
    folder = tmp_path / "src" / "r1"
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    ledger.append("run.launched", run="r1", command=["python"], git_commit="abc",
                  git_dirty=False)
    ingest_run_dir(folder, run="r1", ledger=ledger)
    return ledger


@pytest.fixture
def run_r1(ledger: Ledger, tmp_path: Path) -> Ledger:
    return run_with(ledger, tmp_path, {"summary.csv": SUMMARY.encode()})


def claims_written(ledger: Ledger) -> int:
    return sum(r.kind == "claim.declared" for r in ledger.records())


def test_mean_of_a_describe_table_is_its_mean_row(run_r1: Ledger,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Before: C1: psnr = 26.66 (count, mean, std, min, percentiles and max averaged)."""
    code, out, err = call(capsys, "--json", "claim", "add", "C1", "--run", "r1", "--metric",
                          "mean(psnr)", "--from", "summary.csv")
    assert code == 0, err
    claim = json.loads(out)["claim"]
    assert (claim["metric"], claim["value"], claim["n"], claim["variance"]) == (
        "psnr", 31.52, 24, {"type": "std", "value": 0.11})


@pytest.mark.parametrize(("selector", "listed"), [
    ("psnr", "psnr.count, psnr.mean, psnr.std, psnr.min, psnr.25%, psnr.50%, psnr.75%, "
             "psnr.max"),
    ("mean", "psnr.mean, ssim.mean"),
])
def test_an_ambiguous_selector_exits_2_and_writes_nothing(
        run_r1: Ledger, capsys: pytest.CaptureFixture[str], selector: str, listed: str) -> None:
    """Before: ``--metric psnr`` said to name an aggregate, e.g. mean(psnr) (which read 26.66);
    ``--metric mean`` was "no such metric" listing mean(psnr), mean(ssim)."""
    code, out, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", selector,
                          "--from", "summary.csv")
    assert code == 2
    assert out == ""
    assert "is ambiguous" in err
    assert f"name one: {listed}; nothing was written" in err
    assert "Traceback" not in err
    assert claims_written(run_r1) == 0


def test_a_count_is_no_psnr(run_r1: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: ``psnr[0]`` declared a PSNR of 24 (higher is better)."""
    code, _, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr[0]",
                        "--from", "summary.csv")
    assert code == 2
    assert "metric 'count(psnr)' is not in the registry" in err
    assert claims_written(run_r1) == 0
