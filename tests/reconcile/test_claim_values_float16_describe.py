"""Two gaps in reading a claimed value: float16 Parquet cells, and pandas ``describe()`` tables.

float16: a float16 (Arrow ``halffloat``) cell was claimed as the float it widens to
(31.515625 for a 31.52 someone wrote), where a float32 one is claimed as its shortest decimal.

describe(): a results table written from ``df.describe()`` (one row per statistic: count, mean,
std, min, 25%, 50%, 75%, max) or its transpose was read as a table of runs: ``mean(psnr)``
averaged the count, the mean, the std and the percentiles together (26.66 for a mean of 31.52),
``psnr[0]`` claimed the count of 24 as a PSNR of 24, and ``psnr.mean`` was "no such metric".
"""

from __future__ import annotations

import io
import math
import statistics
import struct
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.ledger import Ledger
from labledger.reconcile import claim_values
from labledger.reconcile.claim_values import Extracted, read_value
from labledger.reconcile.claims import declare_claim
from labledger.reconcile.errors import (
    ClaimInputError,
    DirectionRequiredError,
    MetricNotFoundError,
)
from labledger.reconcile.evidence import build_evidence

WHERE = "r1:summary.csv (blake3:00)"


def parquet(columns: dict[str, Any], metadata: dict[bytes, bytes] | None = None) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(columns)
    if metadata is not None:
        table = table.replace_schema_metadata(metadata)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def half(values: list[float | None]) -> Any:
    import pyarrow as pa

    return pa.array(values, pa.float16())


def stored(value: float) -> float:
    """The float ``value`` is stored as in a float16."""
    return float(struct.unpack("<e", struct.pack("<e", value))[0])


# --- float16 --------------------------------------------------------------------------------------
def test_pyarrow_writes_and_reads_float16_parquet() -> None:
    """The premise: this pyarrow keeps a float16 column float16 through Parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = parquet({"psnr": half([31.52])})
    table = pq.ParquetFile(pa.BufferReader(data)).read()
    assert pa.types.is_float16(table.schema.field("psnr").type)
    assert table.column("psnr").to_pylist() == [31.515625]


@pytest.mark.parametrize(("written", "claimed"), [
    (31.52, 31.52),        # stored as 31.515625
    (0.1, 0.1),            # 0.0999755859375
    (0.912, 0.912),        # 0.912109375
    (-2.5, -2.5),
    (65504.0, 65500.0),    # the largest float16: 65500 is the same float16
    (2.0 ** -24, 6e-08),   # the smallest subnormal, 5.960464477539063e-08
    (0.015625, 0.01563),   # a power of two: the shorter decimal lies above it
    (1 / 3, 0.3333),       # 0.333251953125
    (31.41, 31.4),         # float16 cannot tell 31.41 from 31.4: both are 31.40625
])
def test_float16_cell_is_its_shortest_decimal(written: float, claimed: float) -> None:
    """Before: 31.52 written as float16 was claimed as 31.515625."""
    got = read_value(parquet({"psnr": half([written])}), "results.parquet", "psnr[0]", WHERE)
    assert got.value == claimed
    assert struct.pack("<e", got.value) == struct.pack("<e", written)


def test_float16_aggregates_read_the_decimals_as_float32_does() -> None:
    """As for float32, an aggregate is computed (in float64) over the cleaned decimals, not the
    widened stored values: the mean of 31.5, 31.52 and 30.1 is the mean of those decimals."""
    written = [31.5, 31.52, 30.1]
    data = parquet({"seed": [0, 1, 2], "psnr": half(written)})
    mean = read_value(data, "results.parquet", "mean(psnr)", WHERE)
    assert mean.value == math.fsum(written) / 3
    assert mean.value != math.fsum(stored(v) for v in written) / 3  # not 31.036458333333332
    assert (mean.n, mean.seeds) == (3, (0, 1, 2))
    assert mean.variance == statistics.stdev(written)  # one row per seed: spread over seeds
    assert read_value(data, "results.parquet", "max(psnr)", WHERE).value == 31.52
    assert read_value(data, "results.parquet", "median(psnr)", WHERE).value == 31.5
    assert read_value(data, "results.parquet", "sum(psnr)", WHERE).value == math.fsum(written)
    # the same decimals as a float32 column give the same claim
    import pyarrow as pa

    as32 = parquet({"seed": [0, 1, 2], "psnr": pa.array(written, pa.float32())})
    assert read_value(as32, "results.parquet", "mean(psnr)", WHERE).value == mean.value


def test_float16_row_key_matches_what_was_written() -> None:
    """Before: ``psnr[lr=0.1]`` matched no row (the lr cell read 0.0999755859375)."""
    data = parquet({"lr": half([0.1, 0.01]), "psnr": [31.52, 30.9]})
    assert read_value(data, "results.parquet", "psnr[lr=0.1]", WHERE).value == 31.52


def test_float16_nulls_are_empty_and_non_finite_is_refused() -> None:
    data = parquet({"psnr": half([31.5, None, 30.5])})
    got = read_value(data, "results.parquet", "mean(psnr)", WHERE)
    assert (got.value, got.n) == (31.0, 2)
    for bad in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ClaimInputError, match="row 1 of column 'psnr' is -?(nan|inf)"):
            read_value(parquet({"psnr": half([31.5, bad])}), "results.parquet", "mean(psnr)",
                       WHERE)


def _significant(value: float) -> int:
    return len(Decimal(repr(value)).normalize().as_tuple().digits)


def _fewest_digits(bits: int) -> int:
    """An independent oracle: the fewest significant digits of a decimal that rounds (to
    nearest, ties to even) to the float16 ``bits``, searched in exact arithmetic."""
    magnitude = bits & 0x7FFF
    if magnitude == 0:
        return 1
    value = Fraction(struct.unpack("<e", struct.pack("<H", magnitude))[0])
    below = Fraction(struct.unpack("<e", struct.pack("<H", magnitude - 1))[0])
    above = (Fraction(65536) if magnitude == 0x7BFF else
             Fraction(struct.unpack("<e", struct.pack("<H", magnitude + 1))[0]))
    lo, hi, closed = (value + below) / 2, (value + above) / 2, magnitude % 2 == 0
    top = math.floor(math.log10(value))  # value has top + 1 digits before the point
    for digits in range(1, 6):
        for exponent in range(top - digits, top - digits + 3):
            scale = Fraction(10) ** exponent
            first, last = math.ceil(lo / scale), math.floor(hi / scale)
            if not closed:
                first += first * scale == lo
                last -= last * scale == hi
            if max(first, 10 ** (digits - 1)) <= min(last, 10 ** digits - 1):
                return digits
    raise AssertionError(bits)


FINITE_HALF = st.integers(0, 0xFFFF).filter(lambda b: b & 0x7C00 != 0x7C00)


@settings(max_examples=500, deadline=None)
@given(FINITE_HALF)
def test_any_float16_cell_round_trips_as_its_shortest_decimal(bits: int) -> None:
    """The claimed decimal, parsed and converted to float16, is the stored float16, bit for bit;
    and no decimal with fewer significant digits is."""
    raw = struct.pack("<H", bits)
    written = struct.unpack("<e", raw)[0]
    got = read_value(parquet({"x": half([written])}), "results.parquet", "x[0]", WHERE).value
    assert struct.pack("<e", float(repr(got))) == raw
    assert _significant(got) == _fewest_digits(bits)


def test_every_finite_float16_round_trips() -> None:
    """All 63488 finite float16 values, read as one column (the reader claims use), come back
    bit for bit, with at most five significant digits (shortest: the property above)."""
    finite = [b for b in range(0x10000) if b & 0x7C00 != 0x7C00]
    values = [struct.unpack("<e", struct.pack("<H", b))[0] for b in finite]
    cells = claim_values._read_parquet(parquet({"x": half(values)}), WHERE).columns["x"]
    for bits, cell in zip(finite, cells, strict=True):
        assert struct.pack("<e", float(repr(cell))) == struct.pack("<H", bits), bits
        assert _significant(cell) <= 5, (bits, cell)


# --- pandas describe() tables ---------------------------------------------------------------------
# What df.describe().to_csv() writes (the index has no name: the first header cell is empty).
LONG = (b",psnr,ssim\n"
        b"count,24.0,24.0\n"
        b"mean,31.52,0.912\n"
        b"std,0.11,0.004\n"
        b"min,31.3,0.905\n"
        b"25%,31.45,0.909\n"
        b"50%,31.5,0.912\n"
        b"75%,31.6,0.915\n"
        b"max,31.8,0.92\n")
# df.describe().T.to_csv(): one row per quantity.
WIDE = (b",count,mean,std,min,25%,50%,75%,max\n"
        b"psnr,24.0,31.52,0.11,31.3,31.45,31.5,31.6,31.8\n"
        b"ssim,24.0,0.912,0.004,0.905,0.909,0.912,0.915,0.92\n")
# The same with a named index (df.describe().reset_index().to_csv(index=False)).
LONG_NAMED = LONG.replace(b",psnr,ssim", b"index,psnr,ssim")
WIDE_NAMED = WIDE.replace(b",count,", b"index,count,")


def spread(got: Extracted) -> tuple[str | None, float | None]:
    return got.variance_type, got.variance


@pytest.mark.parametrize(("table", "selector"), [
    (LONG, "psnr.mean"), (LONG, "mean(psnr)"), (LONG, "psnr[mean]"), (LONG, "mean[psnr]"),
    (LONG, "psnr[1]"), (LONG_NAMED, "psnr[index=mean]"), (LONG, "psnr.Mean"),
    (WIDE, "psnr.mean"), (WIDE, "mean(psnr)"), (WIDE, "mean[psnr]"), (WIDE, "psnr[mean]"),
    (WIDE, "mean[0]"), (WIDE_NAMED, "mean[index=psnr]"),
])
def test_describe_mean_is_the_mean_row_with_its_std_and_count(table: bytes,
                                                              selector: str) -> None:
    """Before: mean(psnr) on LONG was 26.66 (count, mean, std, ... averaged), psnr.mean was no
    such metric, psnr[1] read 31.52 with no n or spread, mean[0] on WIDE claimed metric
    "mean"."""
    got = read_value(table, "summary.csv", selector, WHERE)
    assert (got.value, got.claimed_metric, got.n) == (31.52, "psnr", 24)
    assert spread(got) == ("std", 0.11)
    other_selector = selector.replace("psnr", "ssim").replace("mean[0]", "mean[1]")
    other = read_value(table, "summary.csv", other_selector, WHERE)
    assert (other.value, other.claimed_metric, spread(other)) == (0.912, "ssim", ("std", 0.004))


@pytest.mark.parametrize("table", [LONG, WIDE])
@pytest.mark.parametrize(("selector", "value", "metric"), [
    ("median(psnr)", 31.5, "psnr"), ("psnr.median", 31.5, "psnr"), ("psnr.50%", 31.5, "psnr"),
    ("max(psnr)", 31.8, "psnr"), ("psnr.min", 31.3, "psnr"), ("psnr.25%", 31.45, "psnr"),
    # the count is the number of samples, not a value of the metric
    ("count(psnr)", 24.0, "count(psnr)"), ("psnr.count", 24.0, "count(psnr)"),
    ("psnr.std", 0.11, "std(psnr)"),
])
def test_describe_other_statistics(table: bytes, selector: str, value: float,
                                   metric: str) -> None:
    got = read_value(table, "summary.csv", selector, WHERE)
    assert (got.value, got.claimed_metric, got.n) == (value, metric, 24)
    assert spread(got) == (None, None)  # only a mean's spread is the std beside it


def test_describe_count_cell_is_not_a_psnr() -> None:
    """Before: psnr[0] on a describe() table claimed a PSNR of 24."""
    got = read_value(LONG, "summary.csv", "psnr[0]", WHERE)
    assert (got.value, got.claimed_metric) == (24.0, "count(psnr)")


@pytest.mark.parametrize("table", [LONG, WIDE])
@pytest.mark.parametrize(("selector", "listed", "absent"), [
    ("psnr", "psnr.count, psnr.mean, psnr.std, psnr.min, psnr.25%, psnr.50%, psnr.75%, psnr.max",
     "ssim."),
    ("mean", "psnr.mean, ssim.mean", "psnr.std"),
    ("mean(mean)", "psnr.mean, ssim.mean", "psnr.std"),
])
def test_describe_ambiguous_selector_is_refused_with_what_exists(table: bytes, selector: str,
                                                                 listed: str,
                                                                 absent: str) -> None:
    """Before: ``psnr`` on LONG said "name an aggregate, e.g. mean(psnr)" (which read 26.66);
    ``mean(mean)`` on WIDE averaged the PSNR and SSIM means (16.216)."""
    with pytest.raises(ClaimInputError, match="is ambiguous") as info:
        read_value(table, "summary.csv", selector, WHERE)
    message = str(info.value)
    assert f"name one: {listed}; nothing was written" in message
    assert absent not in message.split("name one:")[1]


@pytest.mark.parametrize("table", [LONG, WIDE])
@pytest.mark.parametrize(("selector", "problem"), [
    ("sum(psnr)", "gives no sum of 'psnr'"),
    ("first(psnr)", "gives no first of 'psnr'"),
    ("psnr.sem", "no such metric"),
    ("lpips.mean", "no such metric"),
    ("mean(lpips)", "no quantity 'lpips'"),
])
def test_describe_missing_statistic_is_not_found(table: bytes, selector: str,
                                                 problem: str) -> None:
    """Before: sum(psnr) and first(psnr) on LONG read 253.92 and 24 (the count)."""
    with pytest.raises(MetricNotFoundError, match=problem) as info:
        read_value(table, "summary.csv", selector, WHERE)
    assert "psnr.mean" in info.value.available


def test_describe_repeated_statistic_is_refused() -> None:
    """Two describe() outputs stacked: which 'mean' is the claim's is not for us to guess."""
    twice = LONG + b"mean,30.0,0.8\n"
    with pytest.raises(ClaimInputError, match="gives 'mean' 2 times"):
        read_value(twice, "summary.csv", "psnr.mean", WHERE)
    named = read_value(twice, "summary.csv", "psnr[8]", WHERE)  # a row named: its value only
    assert (named.value, named.n, named.variance) == (30.0, None, None)
    with pytest.raises(ClaimInputError, match="gives 'psnr' 2 times"):
        read_value(WIDE + WIDE.splitlines(keepends=True)[1], "summary.csv", "psnr.mean", WHERE)


def test_describe_with_text_columns_and_sem() -> None:
    """describe(include='all') adds unique/top/freq rows (empty for numbers); a summary with a
    sem and no std gives the sem as the spread."""
    table = (b",method,psnr\ncount,3,3.0\nunique,2,\ntop,ours,\nfreq,2,\nmean,,31.52\n"
             b"std,,0.11\nmin,,31.41\n50%,,31.52\nmax,,31.63\n")
    got = read_value(table, "summary.csv", "mean(psnr)", WHERE)
    assert (got.value, got.n, spread(got)) == (31.52, 3, ("std", 0.11))
    with pytest.raises(ClaimInputError, match="the text 'ours', not a number"):
        read_value(table, "summary.csv", "method.top", WHERE)
    agg = b"stat,psnr,val_ssim\nmean,31.52,0.91\nsem,0.05,0.01\n"  # df.agg(["mean", "sem"])
    got = read_value(agg, "summary.csv", "psnr.mean", WHERE)
    assert (got.value, got.n, spread(got)) == (31.52, None, ("sem", 0.05))
    assert read_value(agg, "summary.csv", "val_ssim.mean", WHERE).split == "val"


def test_describe_parquet_as_pandas_writes_it() -> None:
    """df.describe().to_parquet(): the index is a string column after the data columns."""
    labels = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]
    data = parquet({"psnr": [24.0, 31.52, 0.11, 31.3, 31.45, 31.5, 31.6, 31.8],
                    "ssim": [24.0, 0.912, 0.004, 0.905, 0.909, 0.912, 0.915, 0.92],
                    "__index_level_0__": labels},
                   {b"pandas": b'{"index_columns": ["__index_level_0__"]}'})
    got = read_value(data, "summary.parquet", "mean(psnr)", WHERE)
    assert (got.value, got.claimed_metric, got.n, spread(got)) == (31.52, "psnr", 24,
                                                                   ("std", 0.11))
    wide = parquet({"count": [24.0], "mean": [31.52], "std": [0.11], "50%": [31.5],
                    "__index_level_0__": ["psnr"]})
    got = read_value(wide, "summary.parquet", "psnr.mean", WHERE)
    assert (got.value, got.claimed_metric, got.n, spread(got)) == (31.52, "psnr", 24,
                                                                   ("std", 0.11))


@pytest.mark.parametrize(("table", "selector", "value"), [
    (b"method,psnr_mean,psnr_std\nours,31.52,0.11\nbase,30.1,0.2\n", "psnr_mean[method=ours]",
     31.52),
    (b"split,psnr\nval,31.0\ntest,32.0\n", "mean(psnr)", 31.5),
    # a table of models (no count, a named label column): the metric stays the column
    (b"model,mean,std\nours,31.52,0.11\n", "mean[model=ours]", 31.52),
    (b"epoch,psnr\n1,29.1\n2,30.2\n", "max(psnr)", 30.2),
    # a sweep over the pooling: its labels are statistics, but no count or spread
    (b"pool,psnr\nmean,31.2\nmax,31.5\n", "mean(psnr)", 31.35),
    (b"pool,psnr\nmean,31.2\nmax,31.5\n", "min(psnr)", 31.2),
])
def test_tables_that_are_no_summary_read_as_before(table: bytes, selector: str,
                                                   value: float) -> None:
    got = read_value(table, "results.csv", selector, WHERE)
    assert got.value == value
    assert got.metric == selector.partition("(")[2].rstrip(")") or selector.partition("[")[0]


def test_transposed_agg_without_count_is_a_summary_in_pandas_index() -> None:
    """df.agg(["mean", "std"]).T.to_csv(): no count, but the labels are pandas' index."""
    got = read_value(b",mean,std\npsnr,31.52,0.11\n", "summary.csv", "psnr.mean", WHERE)
    assert (got.value, got.metric, got.n, spread(got)) == (31.52, "psnr", None, ("std", 0.11))


# --- declared through the ledger ------------------------------------------------------------------
def _ingest(ledger: Ledger, folder: Path, files: dict[str, bytes]) -> None:
    ledger.append("run.launched", run="r1", command=["python", "train.py"],
                  git_commit="0123456789abcdef", git_dirty=False)
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    ingest_run_dir(folder, run="r1", ledger=ledger)


def test_declared_describe_claim_carries_n_and_spread(ledger: Ledger, tmp_path: Path) -> None:
    _ingest(ledger, tmp_path / "r1", {"test/kodak/summary.csv": LONG})
    done = declare_claim(ledger, "C1", run="r1", metric="mean(psnr)", source="summary.csv")
    assert (done.claim.metric, done.claim.value, done.claim.direction, done.claim.n) == (
        "psnr", 31.52, "higher", 24)
    (claim,) = build_evidence(ledger)["claims"]
    assert claim["evidence"][0]["variance"] == {"type": "std", "value": 0.11, "seeds": []}
    assert [d["code"] for d in claim["disclosures"]] == ["single-seed"]
    assert "reported std 0.11 is not shown to be a spread over seeds" in claim["disclosure"]
    with pytest.raises(DirectionRequiredError, match="count\\(psnr\\)"):
        declare_claim(ledger, "C2", run="r1", metric="psnr.count", source="summary.csv")
    before = [r.id for r in ledger.records()]
    with pytest.raises(ClaimInputError, match="is ambiguous"):
        declare_claim(ledger, "C3", run="r1", metric="psnr", source="summary.csv")
    assert [r.id for r in ledger.records()] == before
