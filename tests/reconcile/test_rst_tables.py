"""reStructuredText tables read as tables (`rst_tables`): grid tables, simple tables, and the
``list-table`` and ``csv-table`` directives.

Before, a reST table was prose: a row ``Ours  31.42  0.913`` was judged only by the anchors near
each number, so a row label naming a PSNR and an SSIM claim said neither quantity and a drifted
cell went unseen. Real results tables from public repositories' Sphinx docs (each names its
source, copied verbatim and trimmed to the table), then focused cases per kind of table: a
matching table gives no finding and its bound numbers are matched at their lines; a drifted
cell is `drift` on its claim at its line and column; a noclaim in a row silences that row only;
a malformed table is read as prose and raises nothing.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import Sentence, Table, read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from labledger.reconcile.units import unit_at
from tests.reconcile.test_readme_tables_review import Readme, claim

# dmlc/gluon-cv docs/model_zoo/classification.rst (commit 00876ca7), "ResNet": a grid table in a
# ``.. table::`` directive, footnote references and a :tag: role in the labels, links in cells
GLUON = (
    '.. table::\n'
    '   :widths: 45 5 5 10 20 15\n'
    '\n'
    '   +---------------------------+--------+--------+----------+---------------------------'
    '----------------------------------------------------------------------------------------'
    '-------------------+--------------------------------------------------------------------'
    '-----------------------------------------------------------+\n'
    '   | Model                     | Top-1  | Top-5  | Hashtag  | Training Command          '
    '                                                                                        '
    '                   | Training Log                                                       '
    '                                                           |\n'
    '   +===========================+========+========+==========+==========================='
    '========================================================================================'
    '===================+===================================================================='
    '===========================================================+\n'
    '   | ResNet18_v1 [1]_          | 70.93  | 89.92  | a0666292 | `shell script <https://raw'
    '.githubusercontent.com/dmlc/web-data/master/gluoncv/logs/classification/imagenet/resnet1'
    '8_v1.sh>`_         | `log <https://raw.githubusercontent.com/dmlc/web-data/master/gluonc'
    'v/logs/classification/imagenet/resnet18_v1.log>`_          |\n'
    '   +---------------------------+--------+--------+----------+---------------------------'
    '----------------------------------------------------------------------------------------'
    '-------------------+--------------------------------------------------------------------'
    '-----------------------------------------------------------+\n'
    '   | ResNet50_v1_int8 [1]_     | 76.86  | 93.46  | cc729d95 |                           '
    '                                                                                        '
    '                   |                                                                    '
    '                                                           |\n'
    '   +---------------------------+--------+--------+----------+---------------------------'
    '----------------------------------------------------------------------------------------'
    '-------------------+--------------------------------------------------------------------'
    '-----------------------------------------------------------+\n'
    '   | ResNet50_v1d [1]_         | 79.15  | 94.58  | 117a384e | `shell script <https://raw'
    '.githubusercontent.com/dmlc/web-data/master/gluoncv/logs/classification/imagenet/resnet5'
    '0_v1d-mixup.sh>`_  | `log <https://raw.githubusercontent.com/dmlc/web-data/master/gluonc'
    'v/logs/classification/imagenet/resnet50_v1d-mixup.log>`_   |\n'
    '   +---------------------------+--------+--------+----------+---------------------------'
    '----------------------------------------------------------------------------------------'
    '-------------------+--------------------------------------------------------------------'
    '-----------------------------------------------------------+\n'
    '   | :tag:`ResNet50_v1d` [1]_  | 78.48  | 94.20  | 00319ddc | `shell script <https://raw'
    '.githubusercontent.com/dmlc/web-data/master/gluoncv/logs/classification/imagenet/resnet5'
    '0_v1d.sh>`_        | `log <https://raw.githubusercontent.com/dmlc/web-data/master/gluonc'
    'v/logs/classification/imagenet/resnet50_v1d.log>`_         |\n'
    '   +---------------------------+--------+--------+----------+---------------------------'
    '----------------------------------------------------------------------------------------'
    '-------------------+--------------------------------------------------------------------'
    '-----------------------------------------------------------+\n'
)

# pytorch/vision docs/source/models.rst (commit 00542d95), detection: a simple table, "-" for
# a metric a model has no value of, one row label naming a box AP and a mask AP claim
VISION = (
    'Here are the summary of the accuracies for the models trained on\n'
    'the instances set of COCO train2017 and evaluated on COCO val2017.\n'
    '\n'
    '======================================  =======  ========  ===========\n'
    'Network                                 box AP   mask AP   keypoint AP\n'
    '======================================  =======  ========  ===========\n'
    'Faster R-CNN ResNet-50 FPN              37.0     -         -\n'
    'Faster R-CNN MobileNetV3-Large FPN      32.8     -         -\n'
    'Faster R-CNN MobileNetV3-Large 320 FPN  22.8     -         -\n'
    'RetinaNet ResNet-50 FPN                 36.4     -         -\n'
    'Mask R-CNN ResNet-50 FPN                37.9     34.6      -\n'
    '======================================  =======  ========  ===========\n'
    '\n'
)

# RLinf/RLinf docs/source-en/rst_source/examples/embodied/gr00t.rst (commit 2765fa45), "LIBERO
# Results": a list-table, numbers inside links (not read), bold cells, a Δ column of deltas
RLINF = (
    '.. list-table:: **GR00T-N1.5 model results on LIBERO with Flow-SDE**\n'
    '   :header-rows: 1\n'
    '\n'
    '   * - Model\n'
    '     - Spatial \n'
    '     - Object\n'
    '     - Goal \n'
    '     - Long \n'
    '     - Average\n'
    '     - Δ Avg.\n'
    '\n'
    '   * - GR00T (few-shot)\n'
    '     - |huggingface| `41.4% <https://huggingface.co/RLinf/RLinf-Gr00t-SFT-Spatial>`_\n'
    '     - |huggingface| `58.6% <https://huggingface.co/RLinf/RLinf-Gr00t-SFT-Object>`_\n'
    '     - |huggingface| `48.2% <https://huggingface.co/RLinf/RLinf-Gr00t-SFT-Goal>`_\n'
    '     - |huggingface| `61.9% <https://huggingface.co/RLinf/RLinf-Gr00t-SFT-Long>`_\n'
    '     - 52.5%\n'
    '     - ---\n'
    '\n'
    '   * - +PPO\n'
    '     - |huggingface| `92.5% <https://huggingface.co/RLinf/RLinf-Gr00t-RL-Spatial-Step400'
    '>`_\n'
    '     - |huggingface| `95.0% <https://huggingface.co/RLinf/RLinf-Gr00t-RL-Object-Step400>'
    '`_\n'
    '     - |huggingface| `84.3% <https://huggingface.co/RLinf/RLinf-Gr00t-RL-Goal-Step500>`_'
    '\n'
    '     - |huggingface| `86.3% <https://huggingface.co/RLinf/RLinf-Gr00t-RL-Long-Step300>`_'
    '\n'
    '     - **89.5%**\n'
    '     - **+37.0%**\n'
)

REAL = [
    Readme(
        "dmlc/gluon-cv:docs/model_zoo/classification.rst", GLUON,
        # the row of ResNet50_v1d names its top-1 and its top-5 claim: the column says which
        [claim("G1", "top1", 0.79153, aliases=("ResNet50_v1d",)),
         claim("G5", "top5", 0.94581, aliases=("ResNet50_v1d",)),
         claim("G8", "top1", 0.76862, aliases=("ResNet50_v1_int8",), run="int8")],
        [("G1", 11, "| 79.15 ", "| 79.35 "), ("G5", 11, "| 94.58 ", "| 94.78 "),
         ("G8", 9, "| 76.86 ", "| 76.66 ")]),
    Readme(
        "pytorch/vision:docs/source/models.rst", VISION,
        [claim("V1", "box_ap", 37.93, aliases=("box AP", "Mask R-CNN ResNet-50 FPN")),
         claim("V2", "mask_ap", 34.61, aliases=("mask AP", "Mask R-CNN ResNet-50 FPN")),
         claim("VF", "box_ap", 37.04, aliases=("box AP", "Faster R-CNN ResNet-50 FPN"),
               run="faster")],
        [("V1", 11, "37.9 ", "38.1 "), ("V2", 11, "34.6", "34.8"), ("VF", 7, "37.0", "37.2")]),
    Readme(
        "RLinf/RLinf:docs/source-en/rst_source/examples/embodied/gr00t.rst", RLINF,
        [claim("R1", "success_rate", 0.8953, aliases=("Average", "+PPO")),
         claim("R0", "success_rate", 0.5251, aliases=("Average", "few-shot"), run="sft")],
        [("R1", 25, "**89.5%**", "**89.7%**"), ("R0", 17, "- 52.5%", "- 52.7%")]),
]


def _run(text: str, claims: list[Claim]) -> Report:
    return reconcile_segments(read_document("docs/results.rst", text.encode()), claims)


def _place(text: str, shown: str) -> tuple[int, int]:
    """1-based line and column of the first digit of ``shown`` (once in ``text``)."""
    assert text.count(shown) == 1, shown
    at = text.index(shown)
    at += next(i for i, ch in enumerate(shown) if ch.isdigit())
    return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


@pytest.mark.parametrize("case", REAL, ids=[c.source for c in REAL])
def test_real_rst_table(case: Readme) -> None:
    report = _run(case.text, case.claims)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    matched = {(m.claims, m.line) for m in report.matches}
    for cid, line, shown, moved in case.bound:
        assert ((cid,), line) in matched, (cid, line)
        assert _place(case.text, shown)[0] == line, shown
        got = _run(case.text.replace(shown, moved), case.claims)
        assert [(f.type, f.claims, f.line, f.col) for f in got.findings] == [
            ("drift", (cid,), *_place(case.text, shown))], \
            "\n".join(f.render() for f in got.findings)


# --- one table per kind: Ours names a PSNR and an SSIM claim, Prior a PSNR claim -----------------

CLAIMS = [claim("P", "psnr", 31.4213, unit="dB", aliases=("Ours",)),
          claim("S", "ssim", 0.91312, aliases=("Ours",)),
          claim("B", "psnr", 30.1009, unit="dB", aliases=("Prior",), run="prior")]
PRIOR = "Prior" + " " * 17                     # as wide as the label with a noclaim in it
NOCLAIM = "Prior <!-- noclaim -->"

KINDS = {
    "grid": (
        "Results on Set5.\n"
        "\n"
        "+--------------------------+--------+--------+\n"
        "| Method                   | PSNR   | SSIM   |\n"
        "+==========================+========+========+\n"
        "| Ours                     | 31.42  | 0.913  |\n"
        "+--------------------------+--------+--------+\n"
        "| {prior}   | 30.10  | 0.890  |\n"
        "+--------------------------+--------+--------+\n"
        "\n"
        "More text after it.\n"),
    "simple": (
        "Results on Set5.\n"
        "\n"
        "========================  =====  =====\n"
        "Method                    PSNR   SSIM\n"
        "========================  =====  =====\n"
        "Ours                      31.42  0.913\n"
        "{prior}    30.10  0.890\n"
        "========================  =====  =====\n"
        "\n"
        "More text after it.\n"),
    "list-table": (
        ".. list-table:: Results on Set5\n"
        "   :header-rows: 1\n"
        "   :widths: 30 10 10\n"
        "\n"
        "   * - Method\n"
        "     - PSNR\n"
        "     - SSIM\n"
        "   * - Ours (trained\n"
        "       on DIV2K)\n"
        "     - 31.42\n"
        "     - 0.913\n"
        "   * - {prior}\n"
        "     - 30.10\n"
        "     - 0.890\n"),
    "csv-table": (
        ".. csv-table:: Results on Set5\n"
        '   :header: "Method", "PSNR", "SSIM"\n'
        "   :widths: 30, 10, 10\n"
        "\n"
        '   "Ours, x4", 31.42, 0.913\n'
        '   {prior}, "30.10", 0.890\n'),
}

# each kind broken as an author might break it: then it is prose, as before
MALFORMED = {
    "grid": ("| Ours                     | 31.42  | 0.913  |",
             "| Ours                     | 31.42  | 0.913 |"),        # a ragged right edge
    "simple": ("Ours                      31.42",
               "Ours, a rather long label 31.42"),                    # text in the gap
    "list-table": ("     - 30.10\n     - 0.890\n", "     - 30.10\n"),  # a row one cell short
    "csv-table": ('"Ours, x4", 31.42', '"Ours, x4, 31.42'),           # a quote left open
}


def _kind(kind: str, prior: str = PRIOR) -> str:
    return KINDS[kind].replace("{prior}", prior)


@pytest.mark.parametrize("kind", KINDS)
def test_matching_table_is_read_as_one(kind: str) -> None:
    text = _kind(kind)
    seg = read_document("docs/results.rst", text.encode())[0]
    units = [unit_at(seg, text.index(v)) for v in ("31.42", "0.913", "30.10")]
    assert all(isinstance(u, Table) for u in units)
    assert units[0] is units[1] is units[2]  # parsed once, however many numbers ask
    report = _run(text, CLAIMS)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    got = {(m.claims, m.line, m.shown) for m in report.matches}
    for cid, shown in (("P", "31.42"), ("S", "0.913"), ("B", "30.10")):
        assert ((cid,), _place(text, shown)[0], shown) in got, (cid, got)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("cid", "shown", "moved"), [
    ("P", "31.42", "31.62"),   # Ours' row names P and S: the PSNR column says P
    ("S", "0.913", "0.923"),   # ... and the SSIM column says S
    ("B", "30.10", "30.50"),
])
def test_drifted_cell(kind: str, cid: str, shown: str, moved: str) -> None:
    text = _kind(kind)
    got = _run(text.replace(shown, moved), CLAIMS)
    assert [(f.type, f.claims, f.line, f.col) for f in got.findings] == [
        ("drift", (cid,), *_place(text, shown))], "\n".join(f.render() for f in got.findings)


@pytest.mark.parametrize("kind", KINDS)
def test_noclaim_silences_its_row_only(kind: str) -> None:
    def drifts(prior: str) -> list[tuple[str, tuple[str, ...], int]]:
        text = _kind(kind, prior).replace("31.42", "31.62").replace("30.10", "30.50")
        return [(f.type, f.claims, f.line) for f in _run(text, CLAIMS).findings]

    ours = ("drift", ("P",), _place(_kind(kind), "31.42")[0])
    prior = ("drift", ("B",), _place(_kind(kind), "30.10")[0])
    assert drifts(PRIOR) == [ours, prior]
    assert drifts(NOCLAIM) == [ours]


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_table_is_prose(kind: str) -> None:
    whole, broken = MALFORMED[kind]
    good = _kind(kind)
    assert good.count(whole) == 1
    text = good.replace(whole, broken)
    for doc, unit in ((good, Table), (text, Sentence)):
        seg = read_document("docs/results.rst", doc.encode())[0]
        assert isinstance(unit_at(seg, doc.index("31.42")), unit), kind
    report = _run(text, CLAIMS)  # judged as prose, raising nothing
    assert all(f.type != "drift" for f in report.findings)


# --- spans ------------------------------------------------------------------------------------

# the claims of the two tables below that head a dataset over its PSNR and SSIM columns
DATASET_CLAIMS = [claim("P5", "psnr", 32.1234, unit="dB", aliases=("Ours", "Set5")),
                  claim("S14", "ssim", 0.77904, aliases=("Ours", "Set14")),
                  claim("B14", "psnr", 28.3011, unit="dB", aliases=("Baseline", "Set14"),
                        run="baseline")]

SPANNED = [
    Readme(
        "grid: a header cell over two columns, a label cell over two header rows",
        "+----------+-----------------+-----------------+\n"
        "| Method   | Set5            | Set14           |\n"
        "|          +--------+--------+--------+--------+\n"
        "|          | PSNR   | SSIM   | PSNR   | SSIM   |\n"
        "+==========+========+========+========+========+\n"
        "| Ours     | 32.12  | 0.8995 | 28.50  | 0.7790 |\n"
        "+----------+--------+--------+--------+--------+\n"
        "| Baseline | 31.90  | 0.8900 | 28.30  | 0.7700 |\n"
        "+----------+--------+--------+--------+--------+\n",
        DATASET_CLAIMS,
        [("P5", 6, "32.12", "32.32"), ("S14", 6, "0.7790", "0.7810"),
         ("B14", 8, "28.30", "28.50")]),
    Readme(
        "grid: a label cell over two body rows names both",
        "+----------+---------+--------+\n"
        "| Method   | Dataset | PSNR   |\n"
        "+==========+=========+========+\n"
        "| Ours     | Kodak   | 31.42  |\n"
        "|          +---------+--------+\n"
        "|          | CBSD68  | 29.80  |\n"
        "+----------+---------+--------+\n"
        "| Baseline | Kodak   | 30.10  |\n"
        "+----------+---------+--------+\n",
        [claim("K", "psnr", 31.4213, unit="dB", aliases=("Ours", "Kodak")),
         claim("C", "psnr", 29.8031, unit="dB", aliases=("Ours", "CBSD68"), run="cbsd")],
        [("K", 4, "31.42", "31.62"), ("C", 6, "29.80", "29.50")]),
    Readme(
        "simple: a header over two columns each, joined by a --- line",
        "==========  ======  ======  ======  ======\n"
        "Method      Set5            Set14\n"
        "----------  --------------  --------------\n"
        "            PSNR    SSIM    PSNR    SSIM\n"
        "==========  ======  ======  ======  ======\n"
        "Ours        32.12   0.8995  28.50   0.7790\n"
        "Baseline    31.90   0.8900  28.30   0.7700\n"
        "==========  ======  ======  ======  ======\n",
        DATASET_CLAIMS,
        [("P5", 6, "32.12", "32.32"), ("S14", 6, "0.7790", "0.7810"),
         ("B14", 7, "28.30", "28.50")]),
    Readme(
        "simple: a line with a blank first column continues the row above",
        "========  =====  ==================\n"
        "Method    PSNR   Notes\n"
        "========  =====  ==================\n"
        "Ours      31.42  trained on DIV2K\n"
        "                 for 300 epochs\n"
        "Baseline  30.10  from the paper\n"
        "========  =====  ==================\n",
        [claim("P", "psnr", 31.4213, unit="dB", aliases=("Ours",)),
         claim("B", "psnr", 30.1009, unit="dB", aliases=("Baseline",), run="baseline")],
        [("P", 4, "31.42", "31.62"), ("B", 6, "30.10", "30.50")]),
]


@pytest.mark.parametrize("case", SPANNED, ids=[c.source for c in SPANNED])
def test_spanned_table(case: Readme) -> None:
    test_real_rst_table(case)


def test_prose_with_rules_and_bullets_is_no_table() -> None:
    # a section's over- and underline, a transition and a bullet list: no table among them
    text = ("=======\nResults\n=======\n\nOurs reaches 31.42 dB PSNR.\n\n----\n\n"
            "* Ours: 31.42 dB PSNR\n* 0.913 SSIM\n")
    seg = read_document("docs/results.rst", text.encode())[0]
    assert isinstance(unit_at(seg, text.index("31.42")), Sentence)
    assert isinstance(unit_at(seg, text.index("0.913")), Sentence)
    report = _run(text, CLAIMS)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    assert [(m.claims, m.line) for m in report.matches] == [(("P",), 5), (("P",), 9), (("S",), 10)]


@pytest.mark.parametrize("options", [
    "   :file: results.csv\n",                # rows read from a file: none written here
    "   :delim: ||\n",                        # no delimiter docutils reads
    "   :header-rows: two\n",
])
def test_csv_table_refused(options: str) -> None:
    text = _kind("csv-table").replace("   :widths: 30, 10, 10\n", options)
    seg = read_document("docs/results.rst", text.encode())[0]
    assert isinstance(unit_at(seg, text.index("31.42")), Sentence)
    _run(text, CLAIMS)
