"""Reading a claimed value from the bytes of a result object (claim_values) and the direction
registry (metric_directions)."""

from __future__ import annotations

import io
import json
import math
import statistics

import pytest

from labledger.reconcile.claim_values import (
    AGGREGATES,
    normalize_split,
    read_value,
    split_from_path,
)
from labledger.reconcile.errors import ClaimInputError, MetricNotFoundError
from labledger.reconcile.metric_directions import direction_of, metric_key

WHERE = "r1:test/kodak/metrics.json (blake3:00)"
METRICS = {
    "psnr": 31.52, "ssim": 0.912, "n": 24, "split": "test", "mAP@0.5": 0.41,
    "test": {"psnr": 30.25, "lpips": 0.081, "psnr_std": 0.12, "num_samples": 100},
    "per_image": {"psnr": [31.0, 32.0, 30.5]},
    "flag": True, "name": "kodak", "bad": "31.5",
}


def js(doc: object) -> bytes:
    return json.dumps(doc).encode()


def value(selector: str, doc: object = METRICS, path: str = "metrics.json") -> float:
    return read_value(js(doc), path, selector, WHERE).value


# --- JSON -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("selector", "expected"), [
    ("psnr", 31.52),
    ("test.psnr", 30.25),
    ("/test/psnr", 30.25),
    ("/psnr", 31.52),
    ("mAP@0.5", 0.41),  # a key holding a dot, read as one key
    ("/mAP@0.5", 0.41),
    ("per_image.psnr.1", 32.0),
    ("/per_image/psnr/2", 30.5),
])
def test_json_keys_and_pointers(selector: str, expected: float) -> None:
    assert value(selector) == expected


def test_json_pointer_escapes() -> None:
    doc = {"a/b": {"c~d": 1.5}}
    assert value("/a~1b/c~0d", doc) == 1.5


def test_json_leaf_name_and_facts_next_to_the_value() -> None:
    got = read_value(js(METRICS), "metrics.json", "/test/psnr", WHERE)
    assert got.metric == "psnr"
    assert got.n == 100  # num_samples beside the value wins over the top-level n
    assert got.split == "test"
    assert (got.variance_type, got.variance) == ("std", 0.12)
    top = read_value(js(METRICS), "metrics.json", "ssim", WHERE)
    assert top.n == 24
    assert top.variance is None


@pytest.mark.parametrize(("doc", "kind", "spread"), [
    ({"psnr": 30.0, "psnr_sem": 0.05}, "sem", 0.05),
    ({"psnr": 30.0, "std": {"psnr": 0.2}}, "std", 0.2),
    ({"psnr": 30.0, "psnr_sd": 0.3}, "std", 0.3),
])
def test_json_reported_spread(doc: dict[str, object], kind: str, spread: float) -> None:
    got = read_value(js(doc), "m.json", "psnr", WHERE)
    assert (got.variance_type, got.variance) == (kind, spread)


@pytest.mark.parametrize(("doc", "seeds"), [
    ({"psnr": 1.0, "seeds": [2, 0, 1, 1]}, (0, 1, 2)),
    ({"psnr": 1.0, "seed": 7}, (7,)),
    ({"psnr": 1.0, "seed": True}, ()),
    ({"psnr": 1.0}, ()),
])
def test_json_seeds(doc: dict[str, object], seeds: tuple[int, ...]) -> None:
    assert read_value(js(doc), "m.json", "psnr", WHERE).seeds == seeds


def test_json_aggregate_over_a_list() -> None:
    got = read_value(js(METRICS), "metrics.json", "mean(per_image.psnr)", WHERE)
    assert got.value == pytest.approx(31.1666666)
    assert got.n == 3
    assert got.metric == "psnr"
    assert value("max(/per_image/psnr)") == 32.0


def test_json_missing_metric_lists_the_ones_that_exist() -> None:
    with pytest.raises(MetricNotFoundError) as info:
        value("psnrr")
    message = str(info.value)
    assert f"'psnrr' in {WHERE}: no such metric; it has: " in message
    assert "psnr, ssim, n, mAP@0.5, test.psnr, test.lpips" in message
    assert "mean(per_image.psnr)" in message
    assert "flag" not in info.value.available  # booleans are not metrics
    assert info.value.where == WHERE


@pytest.mark.parametrize(("selector", "problem"), [
    ("name", "not a number (the text 'kodak')"),
    ("bad", "not a number (the text '31.5')"),
    ("flag", "not a number (the JSON value true)"),
    ("test", "not a number (an object with keys psnr, lpips, psnr_std, num_samples)"),
])
def test_json_non_numbers_are_refused(selector: str, problem: str) -> None:
    with pytest.raises(MetricNotFoundError) as info:
        value(selector)
    assert f"{selector!r} in {WHERE}: {problem}; it has: psnr, ssim" in str(info.value)


def test_json_list_needs_an_aggregate() -> None:
    with pytest.raises(ClaimInputError, match=r"a list of 3 numbers.*mean\(per_image.psnr\)"):
        value("per_image.psnr")


def test_json_ambiguous_dotted_key_is_refused() -> None:
    doc = {"a.b": 1.0, "a": {"b": 2.0}}
    with pytest.raises(ClaimInputError, match="ambiguous: it reads as /a/b or /a.b"):
        value("a.b", doc)
    assert value("/a.b", doc) == 1.0
    assert value("/a/b", doc) == 2.0


@pytest.mark.parametrize("data", [b"{not json", b"\xff\xfe", b"[1, 2"])
def test_json_unreadable_bytes(data: bytes) -> None:
    with pytest.raises(ClaimInputError, match="is not valid JSON"):
        read_value(data, "metrics.json", "psnr", WHERE)


def test_json_non_finite_value_refused() -> None:
    with pytest.raises(ClaimInputError, match="not a finite number"):
        read_value(b'{"psnr": NaN}', "metrics.json", "psnr", WHERE)


# --- Parquet --------------------------------------------------------------------------------------
PSNR = [30.0, 32.0, 31.0, None, 33.5]


def parquet(columns: dict[str, list[object]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue()


RESULTS = parquet({"image": ["a", "b", "c", "d", "e"], "psnr": PSNR,
                   "epoch": [1, 2, 3, 4, 5], "split": ["test"] * 5})


@pytest.mark.parametrize(("agg", "expected"), [
    ("mean", (30.0 + 32.0 + 31.0 + 33.5) / 4),
    ("median", 31.5),
    ("min", 30.0),
    ("max", 33.5),
    ("sum", 126.5),
    ("count", 4.0),
    ("first", 30.0),
    ("last", 33.5),
])
def test_parquet_aggregates(agg: str, expected: float) -> None:
    got = read_value(RESULTS, "test/kodak/results.parquet", f"{agg}(psnr)", WHERE)
    assert got.value == pytest.approx(expected)
    # the null cell is not a sample; a picked value (min, first...) is one row's, whose n the
    # table does not give
    assert got.n == (None if agg in ("min", "max", "first", "last") else 4)
    assert got.metric == "psnr"
    assert got.split == "test"


def test_every_aggregate_is_tested() -> None:
    assert set(AGGREGATES) == {"mean", "median", "min", "max", "sum", "count", "first", "last"}


def test_parquet_cells() -> None:
    assert read_value(RESULTS, "r.parquet", "psnr[0]", WHERE).value == 30.0
    assert read_value(RESULTS, "r.parquet", "psnr[-1]", WHERE).value == 33.5
    assert read_value(RESULTS, "r.parquet", "psnr[epoch=3]", WHERE).value == 31.0
    assert read_value(RESULTS, "r.parquet", "psnr[image=b]", WHERE).value == 32.0


@pytest.mark.parametrize(("selector", "problem"), [
    ("psnr", "is a table; name an aggregate or a cell, e.g. mean(psnr) or psnr[-1]"),
    ("psnr[9]", "row 9 is out of range (the table has 5 data rows"),
    ("psnr[3]", "row 3 of column 'psnr' is empty"),
    ("psnr[split=test]", "split=test matches 5 rows"),
    ("psnr[epoch=9]", "no row has epoch=9; epoch reads 1, 2, 3, 4, 5"),
    ("mean(image)", "row 0 of column 'image' is the text 'a', not a number"),
    ("psnr[x]", "is a number (psnr[-1]) or COLUMN=VALUE"),
])
def test_parquet_bad_selectors(selector: str, problem: str) -> None:
    with pytest.raises(ClaimInputError) as info:
        read_value(RESULTS, "r.parquet", selector, WHERE)
    assert problem in str(info.value)


def test_parquet_missing_column_lists_numeric_columns() -> None:
    with pytest.raises(MetricNotFoundError) as info:
        read_value(RESULTS, "r.parquet", "mean(ssim)", WHERE)
    assert info.value.available == ["mean(psnr)", "mean(epoch)"]
    assert f"'mean(ssim)' in {WHERE}: no column 'ssim'; it has: mean(psnr)" in str(info.value)


def test_parquet_unreadable() -> None:
    with pytest.raises(ClaimInputError, match="is not a readable Parquet file"):
        read_value(b"PAR1 not really", "r.parquet", "mean(psnr)", WHERE)


def test_parquet_one_row_per_seed_gives_the_spread_over_seeds() -> None:
    data = parquet({"seed": [0, 1, 2], "psnr": [31.0, 31.5, 30.8]})
    got = read_value(data, "r.parquet", "mean(psnr)", WHERE)
    assert got.seeds == (0, 1, 2)
    assert got.variance_type == "std"
    assert got.variance == pytest.approx(statistics.stdev([31.0, 31.5, 30.8]))
    cell = read_value(data, "r.parquet", "psnr[seed=1]", WHERE)
    assert cell.seeds == (1,)
    assert cell.variance is None


def test_parquet_per_sample_rows_are_not_a_seed_spread() -> None:
    data = parquet({"seed": [0, 0, 0], "psnr": [31.0, 31.5, 30.8]})
    got = read_value(data, "r.parquet", "mean(psnr)", WHERE)
    assert got.seeds == (0,)
    assert got.variance is None


def test_parquet_mixed_splits_are_reported_as_such() -> None:
    data = parquet({"split": ["val", "test"], "psnr": [1.0, 2.0]})
    assert read_value(data, "r.parquet", "mean(psnr)", WHERE).split == "test+val"


# --- CSV ------------------------------------------------------------------------------------------
TRAIN = b"epoch,loss,psnr,split\n1,0.50,29.1,val\n2,0.40,30.2,val\n3,0.35,,val\n4,0.30,31.0,val\n"


def test_csv_cells_and_aggregates() -> None:
    assert read_value(TRAIN, "train.csv", "psnr[epoch=2]", WHERE).value == 30.2
    assert read_value(TRAIN, "train.csv", "loss[-1]", WHERE).value == 0.30
    assert read_value(TRAIN, "train.csv", "psnr[1]", WHERE).value == 30.2
    last = read_value(TRAIN, "train.csv", "last(psnr)", WHERE)
    assert last.value == 31.0  # the empty cell of epoch 3 is skipped
    assert last.n is None  # one epoch's value: the epochs logged are not its samples
    assert last.split == "val"
    assert read_value(TRAIN, "train.csv", "min(loss)", WHERE).value == 0.30
    assert read_value(TRAIN, "train.csv", "count(psnr)", WHERE).value == 3


def test_tsv_and_bom() -> None:
    data = "\ufeffstep\tacc\n1\t0.5\n2\t0.75\n".encode()
    assert read_value(data, "log.tsv", "max(acc)", WHERE).value == 0.75


@pytest.mark.parametrize(("data", "selector", "problem"), [
    (b"a,b\n1,2\n3\n", "mean(a)", "line 3: 1 cell where the header has 2"),
    (b"a,b\n1,x\n", "b[0]", "row 0 (line 2) of column 'b' is the text 'x', not a number"),
    (b"", "mean(a)", "has no header row"),
    (b"a\ninf\n", "a[0]", "not a finite number"),
    (b"a,b\n1,2\n", "mean(c)", f"'mean(c)' in {WHERE}: no column 'c'; it has: mean(a)"),
    (b"a,b\n1,2\n", "c", f"'c' in {WHERE}: no such metric; it has: mean(a), mean(b)"),
])
def test_csv_bad_input(data: bytes, selector: str, problem: str) -> None:
    with pytest.raises(ClaimInputError) as info:
        read_value(data, "r.csv", selector, WHERE)
    assert problem in str(info.value)


def test_unsupported_file_type() -> None:
    with pytest.raises(ClaimInputError, match=r"cannot read a value from a 'best.pth' file"):
        read_value(b"x", "best.pth", "psnr", WHERE)


def test_empty_selector() -> None:
    with pytest.raises(ClaimInputError, match="--metric is empty"):
        read_value(b"{}", "m.json", "  ", WHERE)


# --- splits and directions ------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "split", "test_id"), [
    ("test/kodak/metrics.json", "test", "kodak"),
    ("export/r1/test/kodak/metrics.json", "test", "kodak"),
    ("val/metrics.json", "val", None),
    ("validation/results.parquet", "val", None),
    ("metrics.json", None, None),
    ("test.json", None, None),
])
def test_split_from_path(path: str, split: str | None, test_id: str | None) -> None:
    assert split_from_path(path) == (split, test_id)


def test_normalize_split() -> None:
    assert normalize_split("Validation") == normalize_split("val") == "val"
    assert normalize_split("test") == normalize_split("TESTING") == "test"
    assert normalize_split("holdout") == "holdout"


@pytest.mark.parametrize(("name", "direction"), [
    ("PSNR", "higher"), ("psnr_db", "higher"), ("SSIM", "higher"), ("ms_ssim", "higher"),
    ("mAP", "higher"), ("mAP@0.5", "higher"), ("map50", "higher"), ("accuracy", "higher"),
    ("top1_acc", "higher"), ("top5", "higher"), ("val_acc", "higher"), ("F1", "higher"),
    ("macro_f1", "higher"), ("f1_score", "higher"), ("BLEU", "higher"), ("bleu4", "higher"),
    ("accuracy(%)", "higher"), ("test_psnr", "higher"), ("psnr_test", "higher"),
    ("LPIPS", "lower"), ("NMSE", "lower"), ("loss", "lower"), ("val_loss", "lower"),
    ("train_loss", "lower"), ("error", "lower"), ("error_rate", "lower"), ("top1_err", "lower"),
    ("WER", "lower"), ("FID", "lower"),
])
def test_registry_knows_common_metrics(name: str, direction: str) -> None:
    assert direction_of(name) == direction


@pytest.mark.parametrize(("name", "direction"), [
    # the keys frameworks write (detectron2, mmdetection, Ultralytics, lm-evaluation-harness,
    # Hugging Face, BasicSR, depth and tracking benchmarks): they needed --direction before
    ("bbox/AP", "higher"), ("bbox/AP50", "higher"), ("bbox/APl", "higher"),
    ("segm/AP", "higher"), ("coco/bbox_mAP", "higher"), ("coco/bbox_mAP_50", "higher"),
    ("coco/bbox_mAP_l", "higher"), ("metrics/mAP50-95(B)", "higher"),
    ("metrics/precision(B)", "higher"), ("AR_100", "higher"), ("acc_norm", "higher"),
    ("exact_match", "higher"), ("eval_rougeL", "higher"), ("pass@1", "higher"),
    ("chrf", "higher"), ("psnr_y", "higher"), ("ssim_rgb", "higher"),
    ("inception_score", "higher"), ("clip_score", "higher"), ("delta1", "higher"),
    ("HOTA", "higher"), ("IDF1", "higher"), ("word_perplexity", "lower"),
    ("bits_per_byte", "lower"), ("abs_rel", "lower"), ("sq_rel", "lower"),
    ("rmse_log", "lower"), ("ATE", "lower"), ("NIQE", "lower"), ("DISTS", "lower"),
])
def test_registry_knows_the_keys_frameworks_log(name: str, direction: str) -> None:
    assert direction_of(name) == direction


def test_a_channel_is_no_key_of_the_quantity() -> None:
    """PSNR on Y and on RGB are both better higher, and still two quantities."""
    assert metric_key("psnr_y") != metric_key("psnr") == metric_key("test_psnr")


@pytest.mark.parametrize("name", ["throughput", "latency", "psnr_ssim", "loss_acc", "lossless",
                                  "n", "score", "gap", "delta_psnr", "reward", "grad_norm",
                                  "bbox", "metrics", "norm", "y", "lr", "coco/time"])
def test_registry_is_conservative(name: str) -> None:
    assert direction_of(name) is None


def test_finite_helper_sanity() -> None:
    assert math.isfinite(read_value(b'{"x": 1e308}', "m.json", "x", WHERE).value)


# --- values that are not finite numbers -----------------------------------------------------------
HUGE = "1" + "0" * 400  # an integer past the largest float (~1.8e308)


@pytest.mark.parametrize(("data", "selector", "place"), [
    (f'{{"x": {HUGE}}}', "x", "(at /x) is an integer of 401 digits, too large for a float"),
    (f'{{"x": -{HUGE}}}', "/x", "is an integer of 401 digits, too large for a float"),
    (f'{{"il": [1, {HUGE}]}}', "il.1", "(at /il/1) is an integer of 401 digits"),
    (f'{{"il": [1, {HUGE}]}}', "mean(il)", "item 1 of /il (at /il/1) is an integer of 401"),
    (f'{{"il": [1, {HUGE}]}}', "median(il)", "item 1 of /il (at /il/1) is an integer of 401"),
    (f'{{"il": [1, {HUGE}]}}', "max(il)", "item 1 of /il (at /il/1) is an integer of 401"),
])
def test_json_integer_too_large_for_a_float_is_refused(data: str, selector: str,
                                                       place: str) -> None:
    with pytest.raises(ClaimInputError) as info:  # was an uncaught OverflowError
        read_value(data.encode(), "metrics.json", selector, WHERE)
    assert f"{selector!r} in {WHERE}" in str(info.value)
    assert place in str(info.value)
    assert "not a finite number" in str(info.value)


def test_json_integer_over_4300_digits_is_refused_only_where_read() -> None:
    data = ('{"x": 1' + "0" * 5000 + ', "psnr": 31.5}').encode()
    assert read_value(data, "metrics.json", "psnr", WHERE).value == 31.5  # the file is JSON
    with pytest.raises(ClaimInputError) as info:
        read_value(data, "metrics.json", "x", WHERE)
    assert f"'x' in {WHERE} (at /x) is an integer of 5001 digits, too large for a float, not " \
           "a finite number" in str(info.value)


@pytest.mark.parametrize(("data", "path", "place"), [
    (b"b\n1e308\n1e308\n", "r.csv", "the sum of the 2 values of column 'b'"),
    (b'{"b": [1e308, 1e308]}', "metrics.json", "the sum of the 2 items of /b"),
])
def test_sum_past_the_largest_float_is_refused(data: bytes, path: str, place: str) -> None:
    with pytest.raises(ClaimInputError) as info:  # was OverflowError: intermediate overflow
        read_value(data, path, "sum(b)", WHERE)
    assert f"'sum(b)' in {WHERE}: {place} is too large for a float, not a finite number" \
        in str(info.value)


@pytest.mark.parametrize(("data", "path"), [
    (b"b\n1e308\n1e308\n", "r.csv"),
    (b'{"b": [1e308, 1e308]}', "metrics.json"),
])
@pytest.mark.parametrize("agg", ["mean", "median"])
def test_mean_and_median_near_the_largest_float_are_exact(data: bytes, path: str,
                                                          agg: str) -> None:
    # fsum overflows on the way and (a + b) / 2 gives inf, but the value itself is 1e308.
    assert read_value(data, path, f"{agg}(b)", WHERE).value == 1e308


def test_sum_whose_partial_sums_overflow_is_exact() -> None:
    assert read_value(b"b\n1e308\n1e308\n-1e308\n", "r.csv", "sum(b)", WHERE).value == 1e308


def test_spread_over_seeds_past_the_largest_float_is_refused() -> None:
    data = b"seed,b\n0,1.7e308\n1,-1.7e308\n"
    with pytest.raises(ClaimInputError) as info:  # was an uncaught OverflowError from stdev
        read_value(data, "r.csv", "mean(b)", WHERE)
    assert f"'mean(b)' in {WHERE}: the spread over seeds of the 2 values of column 'b' is too " \
           "large for a float" in str(info.value)


@pytest.mark.parametrize("agg", sorted(AGGREGATES))
@pytest.mark.parametrize(("data", "path", "place"), [
    # NaN last, first or in the middle: max() kept or dropped it depending on where it stood.
    (b'{"a": [1, NaN]}', "m.json", "item 1 of /a (at /a/1) is nan"),
    (b'{"a": [NaN, 1]}', "m.json", "item 0 of /a (at /a/0) is nan"),
    (b'{"a": [1, Infinity, NaN]}', "m.json", "item 1 of /a (at /a/1) is inf"),
    (b'{"a": [1, -Infinity]}', "m.json", "item 1 of /a (at /a/1) is -inf"),
    (b"epoch,a\n1,30\n2,\n3,nan\n", "r.csv", "row 2 (line 4) of column 'a' is nan"),
    (b"epoch,a\n1,nan\n2,\n3,30\n", "r.csv", "row 0 (line 2) of column 'a' is nan"),
    (b"epoch,a\n1,30\n2,-inf\n3,nan\n", "r.csv", "row 1 (line 3) of column 'a' is -inf"),
    (b"a\n30\n\nInfinity\n", "r.csv", "row 1 (line 4) of column 'a' is Infinity"),  # blank line
    (parquet({"e": [1, 2, 3], "a": [30.0, None, math.nan]}), "r.parquet",
     "row 2 of column 'a' is nan"),
])
def test_every_aggregate_refuses_a_non_finite_value(data: bytes, path: str, place: str,
                                                    agg: str) -> None:
    with pytest.raises(ClaimInputError) as info:
        read_value(data, path, f"{agg}(a)", WHERE)
    assert f"'{agg}(a)' in {WHERE}: {place}, not a finite number" in str(info.value)


def test_table_cell_that_is_not_finite_names_its_row() -> None:
    with pytest.raises(ClaimInputError) as info:
        read_value(b"epoch,psnr\n1,30\n2,nan\n", "r.csv", "psnr[epoch=2]", WHERE)
    assert f"'psnr[epoch=2]' in {WHERE}: row 1 (line 3) of column 'psnr' is nan, not a " \
           "finite number" in str(info.value)


# --- names given twice ----------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "path", "selector", "problem"), [
    (b"psnr,psnr\n1,2\n", "r.csv", "mean(psnr)", "column 'psnr' 2 times (columns 1, 2"),
    (b"psnr,psnr\n1,2\n", "r.csv", "psnr[0]", "column 'psnr' 2 times (columns 1, 2"),
    (b"x,epoch,epoch\n1,2,3\n", "r.csv", "x[epoch=2]", "column 'epoch' 2 times (columns 2, 3"),
    (b"x,split,split\n1,a,b\n", "r.csv", "mean(x)", "column 'split' 2 times (columns 2, 3"),
    (b"a\tpsnr\tpsnr\n1\t2\t3\n", "r.tsv", "last(psnr)", "column 'psnr' 2 times (columns 2, 3"),
    (b'{"psnr": 1, "psnr": 2}', "m.json", "psnr",
     "the object at / (the top) gives key 'psnr' 2 times"),
    (b'{"t": {"psnr": 1, "psnr": 2}}', "m.json", "/t/psnr", "the object at /t gives key 'psnr'"),
    (b'{"t": {"psnr": [1], "psnr": [2, 3]}}', "m.json", "mean(t.psnr)",
     "the object at /t gives key 'psnr' 2 times"),
    (b'{"t": {"psnr": 1, "n": 3, "n": 4}}', "m.json", "t.psnr",  # n goes into the claim too
     "the object at /t gives key 'n' 2 times"),
])
def test_a_name_given_twice_is_refused_as_ambiguous(data: bytes, path: str, selector: str,
                                                    problem: str) -> None:
    with pytest.raises(ClaimInputError) as info:  # the last one used to win silently
        read_value(data, path, selector, WHERE)
    assert f"{selector!r} in {WHERE} is ambiguous: " in str(info.value)
    assert problem in str(info.value)


@pytest.mark.parametrize(("data", "path", "selector", "expected"), [
    (b"psnr,psnr,x\n1,2,3\n", "r.csv", "mean(x)", 3.0),
    (b'{"t": {"psnr": 1.5}, "other": 1, "other": 2}', "m.json", "t.psnr", 1.5),
    (b'{"t": {"psnr": 1.5}, "u": {"psnr": 1, "psnr": 2}}', "m.json", "/t/psnr", 1.5),
])
def test_a_repeat_elsewhere_does_not_block_a_claim(data: bytes, path: str, selector: str,
                                                  expected: float) -> None:
    assert read_value(data, path, selector, WHERE).value == expected


def test_parquet_repeated_column_is_refused_only_where_read() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.Table.from_arrays([pa.array([1.0]), pa.array([2.0]), pa.array([3.0])],
                                        names=["x", "x", "y"]), sink)
    assert read_value(sink.getvalue(), "r.parquet", "mean(y)", WHERE).value == 3.0
    with pytest.raises(ClaimInputError) as info:
        read_value(sink.getvalue(), "r.parquet", "mean(x)", WHERE)
    assert f"'mean(x)' in {WHERE} is ambiguous: the header gives column 'x' 2 times " \
           "(columns 1, 2" in str(info.value)


# --- malformed selectors --------------------------------------------------------------------------
@pytest.mark.parametrize(("selector", "problem"), [
    ("mean(", "mean( is not closed by a final )"),
    ("mean()", "mean() names no column or key"),
    ("mean(psnr", "mean( is not closed by a final )"),
    ("psnr[", "psnr[ is not closed by a final ]"),
    ("psnr[]", "psnr[] names no row"),
    ("psnr[epoch=1", "psnr[ is not closed by a final ]"),
    ("foo(psnr)", "foo(...) is not an aggregate"),
    ("psnr]", "] without ["),
])
def test_table_bad_selector_says_what_selectors_are(selector: str, problem: str) -> None:
    with pytest.raises(ClaimInputError) as info:
        read_value(TRAIN, "train.csv", selector, WHERE)
    message = str(info.value)
    assert not isinstance(info.value, MetricNotFoundError)  # not "no such metric"
    assert f"{selector!r} in {WHERE}: bad selector: {problem}; " in message
    assert "mean|median|min|max|sum|count|first|last(KEY or COLUMN)" in message
    assert "COLUMN[-1]" in message
    assert "COLUMN[KEY=VALUE]" in message
    assert "its columns: epoch, loss, psnr, split" in message


@pytest.mark.parametrize(("selector", "problem"), [
    ("mean(", "mean( is not closed by a final )"),
    ("foo(psnr)", "foo(...) is not an aggregate"),
    ("psnr[0]", "psnr[...] picks a row of a table; in JSON name a list item by its index "
                "(psnr.0 or /psnr/0)"),
])
def test_json_bad_selector_says_what_selectors_are(selector: str, problem: str) -> None:
    with pytest.raises(ClaimInputError) as info:
        value(selector)
    assert f"{selector!r} in {WHERE}: bad selector: {problem}; a selector is a dotted key " \
        in str(info.value)
    assert "it has: psnr, ssim" in str(info.value)


def test_cell_of_a_missing_column_lists_the_columns() -> None:
    with pytest.raises(MetricNotFoundError) as info:
        read_value(TRAIN, "train.csv", "nope[0]", WHERE)
    assert f"'nope[0]' in {WHERE}: no column 'nope'; it has: epoch, loss, psnr, split;" \
        in str(info.value)


def test_names_with_brackets_and_parentheses_are_still_read() -> None:
    assert value("foo(psnr)", {"foo(psnr)": 1.5, "a[0]": 2.5}) == 1.5
    assert value("a[0]", {"foo(psnr)": 1.5, "a[0]": 2.5}) == 2.5
    data = b"accuracy(%),top[1]\n91.5,80\n92.5,81\n"
    assert read_value(data, "r.csv", "mean(accuracy(%))", WHERE).value == 92.0
    assert read_value(data, "r.csv", "top[1][-1]", WHERE).value == 81.0


PER_SEED = b"seed,n,psnr\n0,24,30.9\n1,24,31.3\n2,12,31.3\n"


@pytest.mark.parametrize(("selector", "value", "n"), [
    ("mean(psnr)", 31.166666666666668, 3),  # three values combined: three behind it
    ("median(psnr)", 31.3, 3),
    ("count(psnr)", 3.0, 3),
    ("first(psnr)", 30.9, 24),  # one row's value: that row's n
    ("last(psnr)", 31.3, 12),  # the last row, not the first row holding the same value
    ("max(psnr)", 31.3, 24),  # a tie: the first row holding it
    ("min(psnr)", 30.9, 24),
])
def test_n_of_an_aggregate_is_what_is_behind_its_value(selector: str, value: float,
                                                        n: int) -> None:
    got = read_value(PER_SEED, "seeds.csv", selector, WHERE)
    assert (got.value, got.n) == (value, n)


@pytest.mark.parametrize(("selector", "n"), [("mean(per_image)", 3), ("max(per_image)", None),
                                             ("last(per_image)", None)])
def test_n_of_a_json_list_aggregate(selector: str, n: int | None) -> None:
    doc = json.dumps({"per_image": [30.1, 31.2, 29.9]}).encode()
    assert read_value(doc, "metrics.json", selector, WHERE).n == n


@pytest.mark.parametrize(("second_n", "ok"), [("24", True), ("12", False)])
def test_a_row_logged_twice_is_read_when_both_say_the_same(second_n: str, ok: bool) -> None:
    """Two rows the conditions pick, with the same value and the same facts (n, split...):
    either says the same, so the value is read; with another n they are two measurements."""
    data = f"epoch,n,psnr,time\n3,24,31.42,1.5\n3,{second_n},31.42,1.7\n".encode()
    if ok:
        got = read_value(data, "log.csv", "psnr[epoch=3]", WHERE)
        assert (got.value, got.n) == (31.42, 24)
    else:
        with pytest.raises(ClaimInputError, match="epoch=3 matches 2 rows"):
            read_value(data, "log.csv", "psnr[epoch=3]", WHERE)
