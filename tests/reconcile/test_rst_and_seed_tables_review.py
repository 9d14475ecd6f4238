"""Judging gaps found reviewing real Sphinx results pages and CSV results files with a row per
run. Each fixture has the shape of the file named above it (its own names and numbers), with
the findings it gave before and gives now.

1. **reST section titles.** A benchmarks page gives one ``csv-table`` per dataset, each under
   the dataset's title ("ImageNette" over a ``-----`` line, "CIFAR-10" over another), and the
   same method in each. The titles were read as prose, so a claim aliased by its method and its
   dataset was judged in every dataset's table (ambiguous and drift in the others). Now a
   title names the tables under it as a Markdown heading does (`log_units.rst_titles`), and
   one naming a split ("Test results") says the split of the numbers under it
   (`section_splits`).
2. **A row per seed and a mean row.** A results file with a ``seed`` column, one row per seed
   and ``mean``/``std`` rows per model: a claim on the mean was judged against every seed's
   row, so a moved mean drifted on each seed's row (or was ambiguous between them), and was
   missed when a seed's row happened to show it; the ``std`` row was judged as a value when
   the model's name was in the row too. Now the mean row is the claim's (the seeds' rows are
   candidates only for a claim recording that one seed), and a statistic in the seed column
   makes a spread row.
3. **R's ``_sd``.** A summary with ``accuracy_mean`` and ``accuracy_sd`` columns: a claim keyed
   ``accuracy`` drifted against each ``_sd`` cell. ``_sd`` glued to a quantity (or a header
   ``sd``) now heads a spread column, as ``_std`` did.
"""

from __future__ import annotations

import dataclasses

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.log_units import rst_titles
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

# === 1. reST section titles =====================================================================

# lightly-ai/lightly docs/source/getting_started/benchmarks.rst: a page title, then one
# "Dataset\n-----" section per dataset, each holding a csv-table with a "Model" column and a kNN
# accuracy column, the same methods in each (and several rows of one method at other batch
# sizes). Before: C2 (SwAV on ImageNette) ambiguous on the ImageNet table's SwAV row; C1
# (SimCLR on CIFAR-10) and C4 (SimCLR on Imagenet100) ambiguous on the ImageNette SimCLR row;
# C4 drifted on a CIFAR-10 SimCLR row. Now: each claim matches in its own dataset's table, and
# nothing else.
BENCH_RST = (
    "Benchmarks\n"
    "==========\n"
    "\n"
    "Self-supervised methods on public datasets.\n"
    "\n"
    "ImageNet\n"
    "--------\n"
    "\n"
    ".. csv-table:: ImageNet results.\n"
    '  :header: "Model", "Backbone", "Epochs", "Linear Top1", "KNN Top1"\n'
    "\n"
    '  "SimCLR", "Res50", "100", "61.8", "43.7"\n'
    '  "SwAV", "Res50", "100", "66.1", "48.2"\n'
    "\n"
    "ImageNette\n"
    "----------\n"
    "\n"
    ".. csv-table:: kNN accuracy on the held-out images.\n"
    '  :header: "Model", "Batch Size", "Epochs", "KNN Accuracy", "Runtime"\n'
    "\n"
    '  "BYOL", "256", "800", "0.874", "210.4 Min"\n'
    '  "SimCLR", "256", "800", "0.881", "190.2 Min"\n'
    '  "SwAV", "256", "800", "0.897", "280.9 Min"\n'
    "\n"
    "CIFAR-10\n"
    "--------\n"
    "\n"
    ".. csv-table:: kNN accuracy after training.\n"
    '  :header: "Model", "Batch Size", "Epochs", "KNN Accuracy", "Runtime"\n'
    "\n"
    '  "BYOL", "128", "200", "0.861", "120.5 Min"\n'
    '  "SimCLR", "128", "200", "0.839", "96.1 Min"\n'
    '  "SimCLR", "512", "800", "0.872", "330.7 Min"\n'
    "\n"
    "Imagenet100\n"
    "-----------\n"
    "\n"
    ".. csv-table:: kNN accuracy on 100 classes.\n"
    '  :header: "Model", "Batch Size", "Epochs", "KNN Accuracy", "Runtime"\n'
    "\n"
    '  "BYOL", "256", "200", "0.446", "1310.0 Min"\n'
    '  "SimCLR", "256", "200", "0.473", "1201.3 Min"\n'
)
BENCH_CLAIMS = [
    claim("C1", "knn_accuracy", 0.872, aliases=("SimCLR", "CIFAR-10"), run="simclr-c10"),
    claim("C2", "knn_accuracy", 0.897, aliases=("SwAV", "ImageNette"), run="swav-nette"),
    claim("C3", "linear_top1", 61.8, aliases=("SimCLR",), run="simclr-in1k"),
    claim("C4", "knn_accuracy", 0.473, aliases=("SimCLR", "Imagenet100"), run="simclr-in100"),
]


def _line(text: str, needle: str) -> int:
    assert text.count(needle) == 1, needle
    return text[:text.index(needle)].count("\n") + 1


def test_each_dataset_title_names_its_own_table() -> None:
    report = judge(BENCH_RST, BENCH_CLAIMS, path="docs/benchmarks.rst")
    assert findings(report) == []
    assert matches(report) == {
        (("C3",), _line(BENCH_RST, '"61.8"'), "61.8"),
        (("C2",), _line(BENCH_RST, '"0.897"'), "0.897"),
        (("C1",), _line(BENCH_RST, '"0.872"'), "0.872"),
        (("C4",), _line(BENCH_RST, '"0.473"'), "0.473"),
    }


def test_a_moved_number_drifts_in_its_own_datasets_table() -> None:
    text = BENCH_RST.replace('"0.897"', '"0.898"').replace('"0.473"', '"0.474"')
    got = findings(judge(text, BENCH_CLAIMS, path="docs/benchmarks.rst"))
    assert got == [("drift", ("C2",), _line(text, '"0.898"'), "0.898"),
                   ("drift", ("C4",), _line(text, '"0.474"'), "0.474")]


# Hoseung/new_doc_platform examples/rst_source/_static/tables/performance_metrics.rst: a
# list-table of metrics by split; here, as results pages are organised, one list-table per
# split under a "Validation results" and a "Test results" title. Before: the test_accuracy
# claim drifted on the validation table's number. Now: it matches on the test table only.
SPLIT_RST = (
    "Results\n"
    "=======\n"
    "\n"
    "Validation results\n"
    "------------------\n"
    "\n"
    ".. list-table::\n"
    "   :header-rows: 1\n"
    "\n"
    "   * - Model\n"
    "     - Accuracy\n"
    "   * - TinyNet\n"
    "     - 0.9472\n"
    "\n"
    "Test results\n"
    "------------\n"
    "\n"
    ".. list-table::\n"
    "   :header-rows: 1\n"
    "\n"
    "   * - Model\n"
    "     - Accuracy\n"
    "   * - TinyNet\n"
    "     - 0.9318\n"
)
SPLIT_CLAIMS = [claim("T1", "test_accuracy", 0.9318, aliases=("TinyNet",))]


def test_a_test_results_title_keeps_a_test_claim_off_the_validation_table() -> None:
    report = judge(SPLIT_RST, SPLIT_CLAIMS, path="docs/results.rst")
    assert findings(report) == []
    assert matches(report) == {(("T1",), _line(SPLIT_RST, "0.9318"), "0.9318")}


def test_a_moved_test_number_drifts() -> None:
    text = SPLIT_RST.replace("0.9318", "0.9319")
    assert findings(judge(text, SPLIT_CLAIMS, path="docs/results.rst")) == [
        ("drift", ("T1",), _line(text, "0.9319"), "0.9319")]


def _titles(text: str) -> list[tuple[str, int]]:
    seg = read_document("docs/page.rst", text.encode())[0]
    return [(seg.text[h.text_start:h.text_end].rsplit("\n", 1)[-1].strip(), h.level)
            for h in rst_titles(seg)]


def test_rst_titles_as_docutils_reads_them() -> None:
    text = (
        "=====\n"
        "Guide\n"
        "=====\n"
        "\n"
        "Setup\n"
        "-----\n"
        "\n"
        "A paragraph\n"
        "over two lines\n"
        "--------------\n"
        "\n"
        "----\n"
        "\n"
        "Results\n"
        "=======\n"
        "\n"
        "Too short\n"
        "---\n"
        "\n"
        "   Indented\n"
        "   --------\n"
        "\n"
        "Test\n"
        "----\n"
    )
    # an overlined title is a style of its own (level 1), "---" under one line a second, "==="
    # alone a third; a paragraph's last line, a transition, an underline shorter than its title
    # and under 4 characters, and an indented line are no titles
    assert _titles(text) == [("Guide", 1), ("Setup", 2), ("Results", 3), ("Test", 2)]


# === 2. a row per seed and a mean row ===========================================================

# Kashif-Mahmood007/chestx6-ssl-benchmark results/per_seed_results.csv has one row per model
# and seed; summary files add "mean" and "std" rows in the seed column. Before: a moved mean
# drifted on each of the model's seed rows and on its std row (5 findings); the file as it
# stands matched. Now: the one drift is on the mean row.
PER_SEED = (
    "model,seed,test_acc,test_f1\n"
    "convnet_s,0,0.8841,0.8712\n"
    "convnet_s,1,0.8873,0.8750\n"
    "convnet_s,2,0.8826,0.8695\n"
    "convnet_s,mean,0.8847,0.8719\n"
    "convnet_s,std,0.0020,0.0023\n"
    "mixer_t,0,0.9012,0.8930\n"
    "mixer_t,1,0.8987,0.8911\n"
    "mixer_t,2,0.9045,0.8962\n"
    "mixer_t,mean,0.9015,0.8934\n"
    "mixer_t,std,0.0024,0.0021\n"
)
SEED_CLAIMS = [claim("S1", "test_acc", 0.8847, aliases=("convnet_s",), run="convnet"),
               claim("S2", "test_f1", 0.8934, aliases=("mixer_t",), run="mixer")]


def test_the_mean_row_matches() -> None:
    report = judge(PER_SEED, SEED_CLAIMS, path="results/summary.csv")
    assert findings(report) == []
    assert matches(report) == {(("S1",), 5, "0.8847"), (("S2",), 10, "0.8934")}


def test_a_moved_mean_drifts_on_the_mean_row_alone() -> None:
    text = PER_SEED.replace("convnet_s,mean,0.8847", "convnet_s,mean,0.8851")
    assert findings(judge(text, SEED_CLAIMS, path="results/summary.csv")) == [
        ("drift", ("S1",), 5, "0.8851")]


# The same shape with no model column (one run's seeds), three decimals: seed 1's row shows the
# mean's value. Before: a moved mean was missed (seed 1's row matched the claim). Now: drift.
ONE_MODEL = (
    "seed,val_acc,val_loss\n"
    "0,0.912,0.301\n"
    "1,0.915,0.296\n"
    "2,0.918,0.288\n"
    "mean,0.915,0.295\n"
    "std,0.002,0.005\n"
)


def test_a_moved_mean_is_not_satisfied_by_a_seed_showing_the_claim() -> None:
    claims = [claim("V1", "val_acc", 0.915)]
    assert findings(judge(ONE_MODEL, claims, path="results/seeds.csv")) == []
    text = ONE_MODEL.replace("mean,0.915", "mean,0.916")
    assert findings(judge(text, claims, path="results/seeds.csv")) == [
        ("drift", ("V1",), 5, "0.916")]


def test_a_claim_recording_one_seed_is_still_judged_on_the_seed_rows() -> None:
    one_seed = dataclasses.replace(claim("V2", "val_acc", 0.918), seeds=(2,))
    report = judge(ONE_MODEL, [one_seed], path="results/seeds.csv")
    assert findings(report) == []
    assert matches(report) == {(("V2",), 4, "0.918")}


# TingtingChentt/facebase_3d_encoder_benchmark results/per_seed_results.csv is long format
# (task, encoder, ..., seed, metric, value); with mean and std rows per encoder. Before: a
# moved mean was ambiguous between every seed's row. Now: drift on the mean row.
LONG = (
    "encoder,seed,metric,value\n"
    "pointnet,0,macro_f1,0.1412\n"
    "pointnet,1,macro_f1,0.1377\n"
    "pointnet,2,macro_f1,0.1451\n"
    "pointnet,mean,macro_f1,0.1413\n"
    "pointnet,std,macro_f1,0.0030\n"
    "meshcnn,0,macro_f1,0.1208\n"
    "meshcnn,mean,macro_f1,0.1208\n"
)


def test_long_format_mean_row_drifts_alone() -> None:
    claims = [claim("F1", "macro_f1", 0.1413, aliases=("pointnet",), run="pn")]
    assert findings(judge(LONG, claims, path="results/long.csv")) == []
    text = LONG.replace("pointnet,mean,macro_f1,0.1413", "pointnet,mean,macro_f1,0.1415")
    assert findings(judge(text, claims, path="results/long.csv")) == [
        ("drift", ("F1",), 5, "0.1415")]


# === 3. R's "_sd" ===============================================================================

# AparajeetS/PEA-002-fedprox results/summary.csv: method, a setting, n_seeds, then
# accuracy_mean, accuracy_sd, loss_mean, loss_sd. Before: an "accuracy" claim on one method
# drifted on each of its rows' accuracy_sd cells. Now: no finding; a moved mean is still found
# (one `ambiguous` finding naming the method's rows, none matching: as any rows naming a claim
# alike; test_leftouts_round5).
SD_SUMMARY = (
    "method,drop_fraction,n_seeds,accuracy_mean,accuracy_sd,loss_mean,loss_sd\n"
    "fedavg,0.0,3,0.7114,0.0102,0.6433,0.0061\n"
    "fedavg,0.5,3,0.6391,0.0093,0.7102,0.0133\n"
    "fedprox,0.0,3,0.7085,0.0131,0.6578,0.0059\n"
    "fedprox,0.5,3,0.6977,0.0117,0.6811,0.0048\n"
)


def test_an_sd_column_holds_spreads() -> None:
    claims = [claim("P1", "accuracy", 0.6977, aliases=("fedprox",), run="prox")]
    report = judge(SD_SUMMARY, claims, path="results/summary.csv")
    assert findings(report) == []
    assert matches(report) == {(("P1",), 5, "0.6977")}
    text = SD_SUMMARY.replace("0.6977", "0.6979")
    assert findings(judge(text, claims, path="results/summary.csv")) == [
        ("ambiguous", ("P1",), 4, "0.7085")]
