"""Claims on long ("tidy") results tables and on describe() saved without its index.

A long table keeps every number in one column (pandas ``melt()``: ``variable,value``; a tidy
log: ``metric,statistic,value``); a cell is picked by several conditions
(``value[metric=psnr,statistic=mean]``) and an aggregate over the rows some pick
(``mean(value[variable=psnr])``); the claim's metric is the quantity the ``metric``/``variable``
column names, not "value". Before: several conditions were read as one (``statistic`` =
``"mean,metric=psnr"``: "matches 0 rows"), and ``mean(value)`` averaged PSNR and SSIM together.

``df.describe().to_csv(index=False)`` loses the statistic labels: ``mean(psnr)`` averaged the
count, mean, std, min, quantiles and max (18.5 for a PSNR of 31.4). Now refused, naming the fix.
"""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.claim_values import read_value
from labledger.reconcile.errors import ClaimInputError, MetricNotFoundError

WHERE = "r1:results.csv (blake3:00)"
TIDY = (b"metric,statistic,value\npsnr,mean,31.42\npsnr,std,0.11\npsnr,count,24\n"
        b"ssim,mean,0.93\nssim,std,0.01\n")
MELTED = (b"seed,variable,value\n0,psnr,31.4\n1,psnr,31.5\n2,psnr,31.3\n"
          b"0,ssim,0.93\n1,ssim,0.94\n2,ssim,0.92\n")
# pandas 2.x: df.describe().to_csv(index=False) of 24 PSNR and SSIM values
DESCRIBED = (b"psnr,ssim\n24.0,24.0\n31.388586157731822,0.9325301696060745\n"
             b"0.08669787535212907,0.00890226322329439\n31.167496922536117,0.9174093446789588\n"
             b"31.336624548472532,0.9265012643268085\n31.386968023688233,0.932174271229882\n"
             b"31.437410392527564,0.9381384914795895\n31.53664634705497,0.9496025831644997\n"
             )


def test_a_cell_picked_by_quantity_and_statistic() -> None:
    got = read_value(TIDY, "results.csv", "value[metric=psnr,statistic=mean]", WHERE)
    assert (got.value, got.claimed_metric, got.n) == (31.42, "psnr", 24)
    assert (got.variance_type, got.variance) == ("std", 0.11)
    got = read_value(TIDY, "results.csv", "value[statistic=mean, metric=ssim]", WHERE)
    assert (got.value, got.claimed_metric, got.n, got.variance) == (0.93, "ssim", None, 0.01)


@pytest.mark.parametrize(("stat", "value", "metric"), [
    ("std", 0.11, "std(psnr)"), ("count", 24.0, "count(psnr)")])
def test_a_spread_or_a_count_is_no_value_of_the_quantity(stat: str, value: float,
                                                         metric: str) -> None:
    got = read_value(TIDY, "results.csv", f"value[metric=psnr,statistic={stat}]", WHERE)
    assert (got.value, got.claimed_metric) == (value, metric)


def test_an_aggregate_over_the_rows_conditions_pick() -> None:
    got = read_value(MELTED, "results.csv", "mean(value[variable=psnr])", WHERE)
    assert got.claimed_metric == "psnr"
    assert math.isclose(got.value, 31.4)
    assert (got.n, got.seeds, got.variance_type) == (3, (0, 1, 2), "std")
    assert math.isclose(got.variance or 0, statistics.stdev([31.4, 31.5, 31.3]))
    got = read_value(MELTED, "results.csv", "last(value[variable=ssim])", WHERE)
    assert (got.value, got.claimed_metric) == (0.92, "ssim")
    got = read_value(MELTED, "results.csv", "value[variable=psnr,seed=1]", WHERE)
    assert (got.value, got.claimed_metric, got.seeds) == (31.5, "psnr", (1,))


@pytest.mark.parametrize(("data", "selector", "problem"), [
    (MELTED, "mean(value)", "the rows it reads hold different quantities (variable: psnr, "
                            "ssim); the mean across them is the result of none; pick one, e.g. "
                            "mean(value[variable=psnr])"),
    (TIDY, "mean(value[metric=psnr])", "hold different statistics (statistic: mean, std, "
                                       "count)"),
    (TIDY, "value[metric=psnr,statistic=max]", "no row has statistic=max among the rows "
                                               "metric=psnr picks; statistic reads mean, std, "
                                               "count"),
    (TIDY, "value[metric=lpips]", "no row has metric=lpips; metric reads psnr, ssim"),
    (TIDY, "value[metric=psnr]", "metric=psnr matches 3 rows"),
    (MELTED, "mean(value[variable=psnr,seed=7])", "no row has seed=7 among the rows "
                                                  "variable=psnr picks; seed reads 0, 1, 2"),
])
def test_mixed_or_missing_rows_are_refused_with_what_to_pick(data: bytes, selector: str,
                                                             problem: str) -> None:
    with pytest.raises(ClaimInputError) as info:
        read_value(data, "results.csv", selector, WHERE)
    assert problem in str(info.value)


def test_an_unknown_name_lists_the_long_selectors() -> None:
    with pytest.raises(MetricNotFoundError) as info:
        read_value(TIDY, "results.csv", "psnr", WHERE)
    assert ("it has: value[metric=psnr,statistic=mean], value[metric=psnr,statistic=std], "
            "value[metric=psnr,statistic=count], value[metric=ssim,statistic=mean]"
            ) in str(info.value)
    with pytest.raises(MetricNotFoundError) as info:
        read_value(MELTED, "results.csv", "mean(psnr)", WHERE)
    assert "mean(value[variable=psnr]), mean(value[variable=ssim])" in str(info.value)


def test_a_comma_inside_a_value_stays_in_it() -> None:
    data = b'config,value\n"a,b",1.5\nc,2\n'
    assert read_value(data, "results.csv", "value[config=a,b]", WHERE).value == 1.5


def test_a_condition_on_no_column_is_refused() -> None:
    for selector in ("value[metric=psnr,foo=1]", "value[foo=1]", "mean(value[foo=1])"):
        with pytest.raises(MetricNotFoundError) as info:
            read_value(TIDY, "results.csv", selector, WHERE)
        assert "no column 'foo' to pick a row by; it has: metric, statistic, value" in str(
            info.value)


@pytest.mark.parametrize("selector", ["mean(psnr)", "max(ssim)", "median(psnr)"])
def test_describe_saved_without_its_index_is_refused(selector: str) -> None:
    with pytest.raises(ClaimInputError) as info:
        read_value(DESCRIBED, "summary.csv", selector, WHERE)
    message = str(info.value)
    assert "pandas describe() saved without its index (to_csv(index=False))" in message
    assert "df.describe().to_csv(path)" in message


def test_a_cell_of_it_can_still_be_named() -> None:
    got = read_value(DESCRIBED, "summary.csv", "psnr[1]", WHERE)
    assert got.value == 31.388586157731822


@pytest.mark.parametrize("text", [
    # eight epochs, the metric rising: no count row, so an ordinary table of runs
    "epoch,psnr\n1,28.1\n2,29.0\n3,29.6\n4,30.2\n5,30.7\n6,31.0\n7,31.3\n8,31.4\n",
    # eight seeds
    "seed,psnr\n0,31.41\n1,31.44\n2,31.38\n3,31.47\n4,31.40\n5,31.43\n6,31.39\n7,31.45\n",
    # eight equal cells
    "psnr\n5\n5\n5\n5\n5\n5\n5\n5\n",
])
def test_eight_rows_of_runs_still_aggregate(text: str) -> None:
    got = read_value(text.encode(), "results.csv", "mean(psnr)", WHERE)
    column = [float(line.split(",")[-1]) for line in text.splitlines()[1:]]
    assert got.value == math.fsum(column) / len(column)


QUANTITIES = st.lists(st.sampled_from(["psnr", "ssim", "lpips", "top1"]), min_size=1,
                      max_size=4, unique=True)
NUMBERS = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(lambda v: round(v, 4))


@settings(max_examples=60, deadline=None)
@given(QUANTITIES, st.integers(1, 5), st.data())
def test_any_melted_table_reads_each_quantity_alone(quantities: list[str], seeds: int,
                                                    data: st.DataObject) -> None:
    values = {q: [data.draw(NUMBERS) for _ in range(seeds)] for q in quantities}
    lines = ["seed,variable,value"] + [f"{s},{q},{values[q][s]!r}" for q in quantities
                                       for s in range(seeds)]
    table = ("\n".join(lines) + "\n").encode()
    for q in quantities:
        got = read_value(table, "results.csv", f"mean(value[variable={q}])", WHERE)
        assert got.claimed_metric == q
        assert got.value == math.fsum(values[q]) / seeds
        assert got.seeds == tuple(range(seeds))
    if len(quantities) > 1:
        with pytest.raises(ClaimInputError):
            read_value(table, "results.csv", "mean(value)", WHERE)
