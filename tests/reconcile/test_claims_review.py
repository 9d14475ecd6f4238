"""Claims and EVIDENCE.json as a paper's author uses them: the defects a review found.

Each test names what went wrong before: a count that claimed to be a PSNR, a split spelled in the
result's keys that no disclosure saw, a spread next to a ``mean`` read as "no variance", float32
noise in every message, a listed selector that was refused, a stale claim presented as current,
and a CRLF checkout that failed ``evidence --check``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.ledger import Ledger
from labledger.reconcile.claim_values import json_metrics, read_value, split_from_path
from labledger.reconcile.claims import declare_claim
from labledger.reconcile.errors import (
    ClaimInputError,
    DirectionRequiredError,
    MetricNotFoundError,
)
from labledger.reconcile.evidence import build_evidence, differences, render
from tests.conftest import cli_call as call

WHERE = "r1:metrics.json (blake3:00)"
CLEAN: dict[str, Any] = {"git_commit": "0123456789abcdef", "git_dirty": False}


def js(doc: object) -> bytes:
    return json.dumps(doc).encode()


def parquet(columns: dict[str, Any]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue()


def ingest(ledger: Ledger, folder: Path, run: str, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    ingest_run_dir(folder, run=run, ledger=ledger)


def launched(ledger: Ledger, run: str = "r1") -> None:
    ledger.append("run.launched", run=run, command=["python", "train.py"], **CLEAN)


def claims(ledger: Ledger) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in build_evidence(ledger)["claims"]}


def codes(claim: dict[str, Any]) -> list[str]:
    return [d["code"] for d in claim["disclosures"]]


# --- a count is not the quantity it counts --------------------------------------------------------
def test_a_count_is_its_own_metric_and_needs_a_direction(ledger: Ledger, tmp_path: Path) -> None:
    ingest(ledger, tmp_path / "r1", "r1", {"test/kodak/results.parquet": parquet(
        {"image": list(range(24)), "psnr": [31.5] * 24})})
    with pytest.raises(DirectionRequiredError, match="'count\\(psnr\\)'"):
        declare_claim(ledger, "N", run="r1", metric="count(psnr)", source="results.parquet")
    done = declare_claim(ledger, "N", run="r1", metric="count(psnr)", source="results.parquet",
                         direction="higher")
    assert (done.claim.metric, done.claim.value, done.claim.n) == ("count(psnr)", 24.0, 24)
    # A JSON list counts the same way; the other aggregates keep the metric's name.
    ingest(ledger, tmp_path / "r2", "r2", {"metrics.json": js({"per_image": {"psnr": [1.0, 2.0]}})})
    assert declare_claim(ledger, "M", run="r2", metric="count(per_image.psnr)",
                         direction="higher").claim.metric == "count(psnr)"
    assert declare_claim(ledger, "P", run="r2",
                         metric="mean(per_image.psnr)").claim.metric == "psnr"


def test_a_count_claim_leaves_the_papers_psnr_numbers_to_the_psnr_claim(
        ledger: Ledger, tmp_path: Path, project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: count(psnr) was a claim on metric psnr = 24, higher is better, and every PSNR
    number in the paper became "ambiguous: it could be C1 or N1" instead of C1's drift."""
    monkeypatch.chdir(project)
    launched(ledger)
    ingest(ledger, tmp_path / "r1", "r1", {"test/kodak/results.parquet": parquet(
        {"image": list(range(24)), "psnr": [31.52] * 24})})
    declare_claim(ledger, "C1", run="r1", metric="mean(psnr)", source="results.parquet")
    declare_claim(ledger, "N1", run="r1", metric="count(psnr)", source="results.parquet",
                  direction="higher")
    (project / "paper.md").write_text("Our model reaches a PSNR of 31.6 dB on Kodak.\n")
    code, out, err = call(capsys, "reconcile", "paper.md")
    assert code == 3
    assert "C1 says 31.6, evidence says 31.52" in out + err
    assert "ambiguous" not in out + err


# --- the split a result's keys name ---------------------------------------------------------------
@pytest.mark.parametrize(("path", "data", "selector", "evaluated"), [
    # the value sits under a split key: it beats the folder it was stored in
    ("test/kodak/metrics.json", js({"val": {"psnr": 30.0}, "test": {"psnr": 31.0}}),
     "val.psnr", "val"),
    ("test/kodak/metrics.json", js({"val": {"psnr": 30.0}, "test": {"psnr": 31.0}}),
     "/test/psnr", "test"),
    ("metrics.json", js({"test_psnr": 31.0}), "test_psnr", "test"),
    ("metrics.json", js({"val/loss": 0.3}), "val/loss", "val"),
    ("metrics.json", js({"results": {"best_validation_acc": 0.9}}), "results.best_validation_acc",
     "val"),
    ("metrics.json", js({"per_seed": {"val_psnr": [30.0, 31.0]}}), "mean(per_seed.val_psnr)",
     "val"),
    ("results.csv", b"epoch,val_psnr\n1,30.0\n2,31.0\n", "val_psnr[-1]", "val"),
    ("results.csv", b"epoch,val_psnr\n1,30.0\n2,31.0\n", "max(val_psnr)", "val"),
    # a split key next to the value says more than the key above it
    ("metrics.json", js({"val": {"psnr": 30.0, "split": "test"}}), "val.psnr", "test"),
    # ... and a key above it says more than a split key at the top, which speaks for the file
    ("metrics.json", js({"split": "test", "val": {"psnr": 30.0}}), "val.psnr", "val"),
    ("metrics.json", js({"split": "test", "val_psnr": 30.0}), "val_psnr", "val"),
    ("metrics.json", js({"split": "test", "psnr": 30.0}), "psnr", "test"),
    # a split column says it row by row
    ("results.csv", b"split,val_psnr\ntest,30.0\n", "val_psnr[0]", "test"),
    # a key naming two splits names none; the folder decides
    ("val/metrics.json", js({"train_val_gap": 0.2}), "train_val_gap", "val"),
    # words that only contain a split's letters are no split
    ("metrics.json", js({"contest_score": 1.0, "pretrain_loss": 2.0}), "contest_score", None),
])
def test_the_split_in_the_keys_is_the_evaluated_split(ledger: Ledger, tmp_path: Path, path: str,
                                                       data: bytes, selector: str,
                                                       evaluated: str | None) -> None:
    ingest(ledger, tmp_path / "r1", "r1", {path: data})
    done = declare_claim(ledger, "C1", run="r1", metric=selector, source=path,
                         direction="higher")
    assert done.claim.evaluated_split == evaluated


def test_a_val_number_claimed_as_test_is_disclosed(ledger: Ledger, tmp_path: Path) -> None:
    """Before: the value under "val" in test/kodak/metrics.json was "evaluated on test" (the
    folder), so claiming it as the test PSNR disclosed nothing."""
    launched(ledger)
    ingest(ledger, tmp_path / "r1", "r1", {"test/kodak/metrics.json": js(
        {"seeds": [0, 1, 2], "val": {"psnr": 30.0, "psnr_std": 0.1},
         "test": {"psnr": 31.0, "psnr_std": 0.1}})})
    declare_claim(ledger, "V", run="r1", metric="val.psnr", split="test")
    declare_claim(ledger, "T", run="r1", metric="test.psnr", split="test")
    found = claims(ledger)
    assert found["V"]["disclosures"] == [{"code": "split-mismatch", "message":
                                          "stated split 'test' but the result was evaluated on "
                                          "'val'"}]
    assert found["T"]["disclosures"] == []


def test_a_split_named_by_the_key_is_not_unverified(ledger: Ledger, tmp_path: Path) -> None:
    launched(ledger)
    ingest(ledger, tmp_path / "r1", "r1", {"metrics.json": js(
        {"test_psnr": 31.0, "test_psnr_std": 0.1, "seeds": [0, 1, 2]})})
    declare_claim(ledger, "C1", run="r1", metric="test_psnr", split="test")
    assert codes(claims(ledger)["C1"]) == []


@pytest.mark.parametrize(("rows", "stated", "expected"), [
    (["val", "validation"], "val", []),  # one split, spelled two ways
    (["val", "validation"], "validation", []),
    (["test", "val"], "test", ["split-mismatch"]),  # two splits are not the test split
    (["testing"], "test", []),
])
def test_a_split_column_with_synonyms(ledger: Ledger, tmp_path: Path, rows: list[str],
                                      stated: str, expected: list[str]) -> None:
    launched(ledger)
    ingest(ledger, tmp_path / "r1", "r1", {"results.parquet": parquet(
        {"split": rows, "seed": list(range(len(rows))), "psnr": [31.0 + i for i in
                                                                range(len(rows))]})})
    declare_claim(ledger, "C1", run="r1", metric="mean(psnr)", source="results.parquet",
                  split=stated)
    assert [c for c in codes(claims(ledger)["C1"]) if c.startswith("split")] == expected


def test_the_test_id_of_a_test_folder_named_like_a_split() -> None:
    # The capsule layout is test/<test-id>/; a test named "val" keeps its id.
    assert split_from_path("test/val/metrics.json") == ("val", "val")
    assert split_from_path("test/kodak/metrics.json") == ("test", "kodak")
    assert split_from_path("export/r1/test/kodak/val/metrics.json") == ("val", "kodak")
    assert split_from_path("test/metrics.json") == ("test", None)
    assert split_from_path("metrics.json") == (None, None)


def test_exp_id_of_a_test_named_val(ledger: Ledger, tmp_path: Path) -> None:
    ingest(ledger, tmp_path / "r1", "r1", {"test/val/metrics.json": js({"psnr": 30.1})})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    assert claims(ledger)["C1"]["evidence"][0]["exp_id"] == "val"


# --- statistics of a metric -----------------------------------------------------------------------
@pytest.mark.parametrize(("doc", "selector", "metric", "spread"), [
    ({"psnr": {"mean": 31.52, "std": 0.11}}, "psnr.mean", "psnr", ("std", 0.11)),
    ({"psnr": {"avg": 31.52, "sem": 0.05}}, "/psnr/avg", "psnr", ("sem", 0.05)),
    ({"psnr": {"value": 31.52, "sd": 0.11}}, "psnr.value", "psnr", ("std", 0.11)),
    ({"test": {"psnr": {"mean": 31.52, "std": 0.11}}}, "test.psnr.mean", "psnr", ("std", 0.11)),
    ({"psnr_mean": 31.52, "psnr_std": 0.11}, "psnr_mean", "psnr_mean", ("std", 0.11)),
    ({"mean_psnr": 31.52, "std_psnr": 0.11}, "mean_psnr", "mean_psnr", ("std", 0.11)),
    ({"psnr/mean": 31.52, "psnr/std": 0.11}, "psnr/mean", "psnr/mean", ("std", 0.11)),
    ({"psnr-avg": 31.52, "psnr-sem": 0.05}, "psnr-avg", "psnr-avg", ("sem", 0.05)),
    ({"psnr_mean": 31.52, "std": {"psnr": 0.11}}, "psnr_mean", "psnr_mean", ("std", 0.11)),
    # the spread of a distribution is not the spread of its best or its max
    ({"psnr": {"best": 32.1, "std": 0.11}}, "psnr.best", "psnr", None),
    ({"psnr": {"max": 32.1, "std": 0.11}}, "psnr.max", "psnr", None),
    # a split key above a statistic names no metric: the statistic stays the name
    ({"test": {"mean": 31.52}}, "test.mean", "mean", None),
    # a plain top-level std is nobody's spread but a top-level mean's
    ({"psnr": 31.52, "std": 0.3}, "psnr", "psnr", None),
    ({"mean": 31.52, "std": 0.3}, "mean", "mean", ("std", 0.3)),
])
def test_statistic_keys(doc: dict[str, Any], selector: str, metric: str,
                        spread: tuple[str, float] | None) -> None:
    got = read_value(js(doc), "metrics.json", selector, WHERE)
    assert got.value in (31.52, 32.1)
    assert got.metric == metric
    assert ((got.variance_type, got.variance) if got.variance is not None else None) == spread


def test_a_reported_spread_is_not_disclosed_as_missing(ledger: Ledger, tmp_path: Path) -> None:
    """Before: {"psnr": {"mean": ..., "std": ...}} was metric "mean" (no direction; anchored by
    every "mean" in the paper) with "3 seeds but no variance reported" in EVIDENCE.json."""
    launched(ledger)
    ingest(ledger, tmp_path / "r1", "r1", {"metrics.json": js(
        {"psnr": {"mean": 31.52, "std": 0.11, "seeds": [0, 1, 2]}})})
    done = declare_claim(ledger, "C1", run="r1", metric="psnr.mean")
    assert (done.claim.metric, done.claim.direction) == ("psnr", "higher")
    claim = claims(ledger)["C1"]
    assert claim["disclosures"] == []
    assert claim["evidence"][0]["variance"] == {"type": "std", "value": 0.11,
                                                "seeds": [0, 1, 2]}


def test_a_repeated_std_beside_a_mean_is_refused() -> None:
    with pytest.raises(ClaimInputError, match="gives key 'std' 2 times"):
        read_value(b'{"psnr": {"mean": 31.5, "std": 0.1, "std": 0.2}}', "metrics.json",
                   "psnr.mean", WHERE)


@pytest.mark.parametrize(("table", "selector", "spread"), [
    (b"method,psnr_mean,psnr_std\nours,31.52,0.11\nbase,30.1,0.2\n", "psnr_mean[method=ours]",
     ("std", 0.11)),
    (b"method,psnr,psnr_sem\nours,31.52,0.05\n", "psnr[0]", ("sem", 0.05)),
    (b"method,psnr,psnr_std\nours,31.52,\n", "psnr[0]", None),  # an empty spread cell
    (b"method,psnr,psnr_std\nours,31.52,n/a\n", "psnr[0]", None),
    (b"method,psnr\nours,31.52\n", "psnr[0]", None),
])
def test_a_summary_table_cell_reads_its_spread(table: bytes, selector: str,
                                               spread: tuple[str, float] | None) -> None:
    got = read_value(table, "summary.csv", selector, WHERE)
    assert got.value == 31.52
    assert ((got.variance_type, got.variance) if got.variance is not None else None) == spread


def test_a_spread_without_seeds_is_not_called_a_single_run(ledger: Ledger,
                                                            tmp_path: Path) -> None:
    launched(ledger)
    ingest(ledger, tmp_path / "r1", "r1", {"summary.csv": b"method,psnr_mean,psnr_std\n"
                                                          b"ours,31.52,0.11\n"})
    declare_claim(ledger, "C1", run="r1", metric="psnr_mean[0]", source="summary.csv")
    assert claims(ledger)["C1"]["disclosures"] == [{
        "code": "single-seed",
        "message": "seeds not recorded; the reported std 0.11 is not shown to be a spread over "
                   "seeds"}]


# --- what a Parquet cell holds --------------------------------------------------------------------
def test_float32_cells_read_as_written(ledger: Ledger, tmp_path: Path) -> None:
    """Before: a float32 31.52 was claimed as 31.520000457763672 (claim list: 31.52000046;
    reconcile: "evidence says 31.520000457763672")."""
    import pyarrow as pa

    data = parquet({"seed": [0, 1, 2], "psnr": pa.array([31.41, 31.63, 31.52], pa.float32()),
                    "acc": pa.array([0.9134, 0.9, 0.91], pa.float32())})
    assert read_value(data, "results.parquet", "psnr[0]", WHERE).value == 31.41
    assert read_value(data, "results.parquet", "acc[seed=0]", WHERE).value == 0.9134
    assert read_value(data, "results.parquet", "mean(psnr)", WHERE).value == pytest.approx(
        31.52, abs=1e-12)
    assert read_value(data, "results.parquet", "max(psnr)", WHERE).value == 31.63
    ingest(ledger, tmp_path / "r1", "r1", {"results.parquet": data})
    first = declare_claim(ledger, "C1", run="r1", metric="psnr[0]", source="results.parquet")
    again = declare_claim(ledger, "C1", run="r1", metric="psnr[0]", source="results.parquet")
    assert again.unchanged
    assert first.claim.value == 31.41


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_float32_non_finite_is_still_refused(bad: float) -> None:
    import pyarrow as pa

    data = parquet({"psnr": pa.array([31.5, bad], pa.float32())})
    with pytest.raises(ClaimInputError, match="row 1 of column 'psnr' is (nan|inf)"):
        read_value(data, "results.parquet", "mean(psnr)", WHERE)


def test_float32_nulls_are_empty_cells() -> None:
    import pyarrow as pa

    data = parquet({"psnr": pa.array([31.5, None, 30.5], pa.float32())})
    got = read_value(data, "results.parquet", "mean(psnr)", WHERE)
    assert (got.value, got.n) == (31.0, 2)


def test_decimal_cells_are_numbers() -> None:
    import decimal

    import pyarrow as pa

    data = parquet({"psnr": pa.array([decimal.Decimal("31.52"), decimal.Decimal("30.10")],
                                     pa.decimal128(5, 2))})
    assert read_value(data, "results.parquet", "psnr[0]", WHERE).value == 31.52
    assert read_value(data, "results.parquet", "max(psnr)", WHERE).value == 31.52


# --- what "it has:" offers ------------------------------------------------------------------------
def test_every_listed_metric_reads() -> None:
    doc = {"a": {"b": 1.0}, "a.b": 2.0, "mAP@0.5": 0.4, "x": float("nan"),
           "l": [1.0, float("nan")], "ok": [1.0, 2.0], "/slash": 3.0}
    data = json.dumps(doc).encode()  # json writes NaN, as a careless logger does
    listed = json_metrics(json.loads(data))
    assert listed == ["/a/b", "/a.b", "mAP@0.5", "mean(ok)", "/~1slash"]
    for selector in listed:
        read_value(data, "metrics.json", selector, WHERE)  # none is refused
    with pytest.raises(MetricNotFoundError) as info:
        read_value(data, "metrics.json", "nope", WHERE)
    assert info.value.available == listed


# --- a claim whose file changed since -------------------------------------------------------------
def test_a_stale_claim_is_disclosed_until_declared_again(ledger: Ledger, tmp_path: Path) -> None:
    """Before: re-evaluating a run (new bytes at the same path) left the claim on the old bytes
    with nothing in EVIDENCE.json saying so."""
    launched(ledger)
    metrics = {"psnr": 31.52, "psnr_std": 0.1, "seeds": [0, 1, 2]}
    ingest(ledger, tmp_path / "a", "r1", {"test/k/metrics.json": js(metrics)})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    ingest(ledger, tmp_path / "b", "r1", {"test/k/metrics.json": js(metrics)})  # same bytes
    assert codes(claims(ledger)["C1"]) == []
    ingest(ledger, tmp_path / "c", "r1", {"test/k/metrics.json": js({**metrics, "psnr": 30.0})})
    (stale,) = claims(ledger)["C1"]["disclosures"]
    assert stale["code"] == "stale-source"
    assert stale["message"].startswith("run r1's test/k/metrics.json now holds other bytes "
                                       "(blake3:")
    assert stale["message"].endswith("than the ones this claim was read from; declare C1 again "
                                     "to read them")
    assert declare_claim(ledger, "C1", run="r1", metric="psnr").claim.value == 30.0
    assert codes(claims(ledger)["C1"]) == []


# --- evidence --check on a Windows checkout -------------------------------------------------------
def test_check_ignores_crlf_line_ends(ledger: Ledger, tmp_path: Path, project: Path,
                                      capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    launched(ledger)
    ingest(ledger, tmp_path / "r1", "r1", {"metrics.json": js({"psnr": 31.52})})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    text = render(build_evidence(ledger))
    target = project / "EVIDENCE.json"
    target.write_bytes(text.replace("\n", "\r\n").encode())
    assert differences(target.read_bytes().decode(), build_evidence(ledger)) == []
    code, _, err = call(capsys, "evidence", "--check")
    assert code == 0, err
    code, _, _ = call(capsys, "evidence", "-o", "EVIDENCE.json")
    assert code == 0
    assert b"\r\n" in target.read_bytes()  # the same file: left as it is
    target.write_bytes(text.replace("31.52", "31.5").replace("\n", "\r\n").encode())
    code, _, err = call(capsys, "evidence", "--check")
    assert code == 3
    assert "claim C1: evidence[0].value: file has 31.5, the ledger gives 31.52" in err


def test_output_is_byte_identical_across_builds(ledger: Ledger, tmp_path: Path) -> None:
    launched(ledger)
    ingest(ledger, tmp_path / "a", "r1", {"test/val/metrics.json": js(
        {"psnr": {"mean": 31.52, "std": 0.11}, "val_loss": 0.2})})
    declare_claim(ledger, "C2", run="r1", metric="psnr.mean", split="test")
    declare_claim(ledger, "C1", run="r1", metric="val_loss", split="val")
    ingest(ledger, tmp_path / "b", "r1", {"test/val/metrics.json": js({"psnr": 1.0})})
    first = render(build_evidence(ledger))
    ledger.append("note", text="unrelated")
    assert render(build_evidence(ledger)) == first
    assert [c["id"] for c in json.loads(first)["claims"]] == ["C1", "C2"]
