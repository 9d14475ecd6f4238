# ruff: noqa: E501  (the fixtures are the wide tables READMEs and papers write)
"""Real results sections, in their shape (helper15's brief, part 2).

Each fixture follows the shape of a real README, paper table, model card or results file
(cited above it) with names and numbers of our own. For each: the right number is clean, a
moved one is exactly one finding at its line and column, and nothing is falsely ambiguous.

Found and fixed here: detectron2's MODEL_ZOO.md writes its header's ``<th>`` cells with no
``<tr>`` around them (HTML opens a row for them); read as a cell outside a row, the whole table
was prose, and a moved box AP was ``ambiguous`` among every row's numbers (`html_tables`).
"""

from __future__ import annotations

import re

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.findings import Report
from labledger.reconcile.html_tables import html_table
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import judge


def _found(report: Report) -> list[tuple[str, tuple[str, ...], int, int, str | None]]:
    return [(f.type, f.claims, f.line, f.col, f.shown) for f in report.findings]


def _matched(report: Report) -> set[tuple[tuple[str, ...], int, str]]:
    return {(m.claims, m.line, m.shown) for m in report.matches}


def _clean_and_moved(text: str, right: list[Claim], moved: list[Claim], path: str,
                     at: tuple[int, str], drift: tuple[str, int, int, str]) -> None:
    """``right``'s claim matches ``at`` (line, shown) and nothing is found; ``moved`` drifts
    once, at ``drift`` (claim id, line, column, shown)."""
    ok = judge(text, right, path)
    assert _found(ok) == []
    assert at in {(m[1], m[2]) for m in _matched(ok)}
    cid, line, col, shown = drift
    assert _found(judge(text, moved, path)) == [("drift", (cid,), line, col, shown)]


# --- 1. mmdetection's per-method README -----------------------------------------------------
# open-mmlab/mmdetection configs/faster_rcnn/README.md: "## Results and models", a centred pipe
# table "Backbone | Style | Lr schd | Mem (GB) | Inf time (fps) | box AP | Config | Download",
# one backbone at two schedules, "-" and blank cells, links joined by "&#124;".
MMDET = """## Results and models

|    Backbone     |  Style  | Lr schd | Mem (GB) | Inf time (fps) | box AP | Config | Download |
| :-------------: | :-----: | :-----: | :------: | :------------: | :----: | :------: | :--------: |
|    Q-34-FPN     | pytorch |   1x    | 3.1      | 24.2           | 35.6   | [config](cfg/q34_1x.py) | [model](https://x.org/q34_1x.pth) &#124; [log](https://x.org/q34_1x.log.json) |
|    Q-34-FPN     | pytorch |   2x    | -        | -              | 36.9   | [config](cfg/q34_2x.py) | [model](https://x.org/q34_2x.pth) &#124; [log](https://x.org/q34_2x.log.json) |
|    Q-68-FPN     |  caffe  |   1x    | 5.2      |                | 38.3   | [config](cfg/q68_1x.py) | [model](https://x.org/q68_1x_bbox_mAP-0.383.pth) &#124; [log](https://x.org/q68_1x.log.json) |
"""


def test_mmdetection_results_table() -> None:
    def d(v: float, name: str) -> list[Claim]:
        return [claim("D", "bbox_mAP", v, aliases=(name, "box AP"))]
    _clean_and_moved(MMDET, d(38.3, "Q-68-FPN"), d(38.8, "Q-68-FPN"), "README.md",
                     (7, "38.3"), ("D", 7, 69, "38.3"))
    # one backbone at two schedules: the row whose cell matches it is its own
    assert _found(judge(MMDET, d(36.9, "Q-34-FPN"))) == []
    assert _found(judge(MMDET, d(35.6, "Q-34-FPN"))) == []


# --- 2. a paper's LaTeX results table ---------------------------------------------------------
# The shape of a semi-supervised paper's main table (\multirow dataset groups, a
# \multicolumn{2} header split by \cmidrule, "mean $\pm$ std" cells, best \textbf, second best
# \underline), as papers write it and table generators emit it (e.g. the "grouped_multirow_latex"
# table of the swizz package, GitHub index search "multirow pm textbf best"); our own numbers.
TEX = r"""\begin{table}[t]
\centering
\caption{Top-1 accuracy (\%) on the test set, mean $\pm$ std over 3 seeds. Best in \textbf{bold}, second best \underline{underlined}.}
\begin{tabular}{llcc}
\toprule
\multirow{2}{*}{Dataset} & \multirow{2}{*}{Method} & \multicolumn{2}{c}{Top-1 (\%)} \\
\cmidrule(lr){3-4}
 & & 10\% labels & 100\% labels \\
\midrule
\multirow{3}{*}{CIFAR-10} & Baseline & 81.24 $\pm$ 0.31 & 93.10 $\pm$ 0.12 \\
 & PriorNet & \underline{84.02 $\pm$ 0.27} & \underline{94.05 $\pm$ 0.10} \\
 & FooNet (ours) & \textbf{86.47 $\pm$ 0.22} & \textbf{95.12 $\pm$ 0.08} \\
\midrule
\multirow{3}{*}{CIFAR-100} & Baseline & 52.18 $\pm$ 0.44 & 72.33 $\pm$ 0.25 \\
 & PriorNet & \underline{55.61 $\pm$ 0.39} & \underline{74.02 $\pm$ 0.21} \\
 & FooNet (ours) & \textbf{58.90 $\pm$ 0.35} & \textbf{75.84 $\pm$ 0.19} \\
\bottomrule
\end{tabular}
\end{table}
"""


def _foonet(cid: str, value: float, dataset: str, labels: str) -> Claim:
    return claim(cid, "top1", value, aliases=("FooNet", dataset, labels))


def test_latex_multirow_pm_bold_and_underline() -> None:
    _clean_and_moved(TEX, [_foonet("F", 0.8647, "CIFAR-10", "10% labels")],
                     [_foonet("F", 0.8657, "CIFAR-10", "10% labels")], "paper.tex",
                     (12, "86.47"), ("F", 12, 28, "86.47"))
    other = _foonet("F", 0.8647, "CIFAR-10", "10% labels")
    _clean_and_moved(TEX, [_foonet("G", 0.7584, "CIFAR-100", "100% labels"), other],
                     [_foonet("G", 0.7594, "CIFAR-100", "100% labels"), other], "paper.tex",
                     (16, "75.84"), ("G", 16, 56, "75.84"))


# --- 3. Ultralytics' README performance table -------------------------------------------------
# ultralytics/ultralytics README.md: headers with <br> and <sup> ("mAP<sup>val<br>50-95",
# "params<br><sup>(M)"), linked model names, one row per model size.
YOLO = """## Performance

| Model | size<br><sup>(pixels) | mAP<sup>val<br>50-95 | Speed<br><sup>CPU ONNX<br>(ms) | Speed<br><sup>T4 TensorRT<br>(ms) | params<br><sup>(M) | FLOPs<br><sup>(B) |
| ----- | --------------------- | -------------------- | ------------------------------ | ------------------------------- | ------------------ | ----------------- |
| [QOLO-n](https://x.org/qolo-n.pt) | 640 | 38.1 | 52.3 | 1.61 | 3.0 | 8.4 |
| [QOLO-s](https://x.org/qolo-s.pt) | 640 | 45.9 | 118.9 | 2.42 | 10.8 | 27.9 |
| [QOLO-m](https://x.org/qolo-m.pt) | 640 | 50.8 | 241.6 | 4.97 | 24.6 | 77.1 |
"""


def test_ultralytics_performance_table() -> None:
    def y(v: float) -> list[Claim]:
        return [claim("Y", "map50-95", v, aliases=("QOLO-s",))]
    _clean_and_moved(YOLO, y(45.9), y(46.4), "README.md", (6, "45.9"), ("Y", 6, 45, "45.9"))
    # "params<br><sup>(M)": the cell is in millions
    assert _found(judge(YOLO, [claim("P", "params", 10.9e6, aliases=("QOLO-s",))])) == [
        ("drift", ("P",), 6, 67, "10.8")]


# --- 4. timm's results CSV -----------------------------------------------------------------
# huggingface/pytorch-image-models results/results-imagenet.csv: "model,top1,top1_err,top5,
# top5_err,param_count,img_size,crop_pct,interpolation", one model at two resolutions.
TIMM = """model,top1,top1_err,top5,top5_err,param_count,img_size,crop_pct,interpolation
quuxnet_l.in1k,84.912,15.088,97.204,2.796,88.59,384,1.0,bicubic
quuxnet_l.in1k,84.310,15.690,96.998,3.002,88.59,288,0.95,bicubic
quuxnet_b.in1k,83.127,16.873,96.551,3.449,50.22,224,0.95,bicubic
"""


def test_timm_results_csv() -> None:
    def t(v: float, name: str = "quuxnet_b.in1k") -> list[Claim]:
        return [claim("T", "top1", v, aliases=(name,))]
    _clean_and_moved(TIMM, t(83.127), t(83.227), "results-imagenet.csv", (4, "83.127"),
                     ("T", 4, 16, "83.127"))
    assert _found(judge(TIMM, t(0.83127), "results-imagenet.csv")) == []  # a fraction
    # one model at two resolutions: the matching row is the claim's
    assert _found(judge(TIMM, t(84.310, "quuxnet_l.in1k"), "results-imagenet.csv")) == []


# --- 5. a Hugging Face Trainer model card -------------------------------------------------------
# The Trainer's generated README (huggingface/transformers modelcard.py): "It achieves the
# following results on the evaluation set:" list, then "## Training results" epoch table.
CARD = """---
license: apache-2.0
---

# bert-tiny-finetuned-sst2

It achieves the following results on the evaluation set:
- Loss: 0.4127
- Accuracy: 0.8532

## Training results

| Training Loss | Epoch | Step | Validation Loss | Accuracy |
|:-------------:|:-----:|:----:|:---------------:|:--------:|
| 0.5121        | 1.0   | 527  | 0.4588          | 0.8211   |
| 0.3302        | 2.0   | 1054 | 0.4127          | 0.8532   |
"""


def test_trainer_model_card() -> None:
    def a(v: float) -> list[Claim]:
        return [claim("A", "eval_accuracy", v, aliases=("Accuracy",))]
    ok = judge(CARD, a(0.8532))
    assert _found(ok) == []
    assert _matched(ok) == {(("A",), 9, "0.8532"), (("A",), 16, "0.8532")}
    # both places show the number: each is checked, once
    assert _found(judge(CARD, a(0.8611))) == [("drift", ("A",), 9, 13, "0.8532"),
                                              ("drift", ("A",), 16, 52, "0.8532")]


# --- 6. detectron2's MODEL_ZOO.md ---------------------------------------------------------------
# facebookresearch/detectron2 MODEL_ZOO.md: gen_html_table.py's tables, "<table><tbody>", header
# "<th valign="bottom">" cells with no <tr> around them, "box<br/>AP", a row per config with its
# name a link, a model id column.
D2 = """## COCO Object Detection Baselines

<table><tbody>
<!-- START TABLE -->
<!-- TABLE HEADER -->
<th valign="bottom">Name</th>
<th valign="bottom">lr<br/>sched</th>
<th valign="bottom">train<br/>time<br/>(s/iter)</th>
<th valign="bottom">inference<br/>time<br/>(s/im)</th>
<th valign="bottom">box<br/>AP</th>
<th valign="bottom">model id</th>
<!-- TABLE BODY -->
<!-- ROW: qr_50_fpn_1x -->
 <tr><td align="left"><a href="configs/qr_50_fpn_1x.yaml">QR50-FPN</a></td>
<td align="center">1x</td>
<td align="center">0.210</td>
<td align="center">0.038</td>
<td align="center">37.6</td>
<td align="center">137257794</td>
</tr>
<!-- ROW: qr_101_fpn_3x -->
 <tr><td align="left"><a href="configs/qr_101_fpn_3x.yaml">QR101-FPN</a></td>
<td align="center">3x</td>
<td align="center">0.286</td>
<td align="center">0.051</td>
<td align="center">42.3</td>
<td align="center">137851257</td>
</tr>
</tbody></table>
"""


def test_detectron2_model_zoo_html_table() -> None:
    def b(v: float) -> list[Claim]:
        return [claim("B", "bbox/AP", v, aliases=("QR101-FPN",))]
    line = D2[:D2.index("42.3")].count("\n") + 1
    # before: ("ambiguous", ("B",), 17, 20, "37.6"): read as prose, every row's numbers
    _clean_and_moved(D2, b(42.3), b(42.8), "MODEL_ZOO.md", (line, "42.3"), ("B", line, 20, "42.3"))


def test_detectron2_header_cells_outside_a_row_make_a_table() -> None:
    """The header's <th>s before the first <tr> (and a "<!-- ROW: qr_50_fpn_1x -->" comment's
    digits) refused the table: read as prose."""
    seg = read_document("MODEL_ZOO.md", D2.encode())[0]
    table = html_table(seg, D2.index("42.3"))
    # before: None (a cell outside a row; the ROW comment's "50" a digit outside every cell)
    assert table is not None
    assert [" ".join(c.text.split()) for c in table.header][4] == "box AP"
    bare = re.sub(r"<!-- ROW:[^>]*-->\n", "", D2).replace(
        '<a href="configs/qr_50_fpn_1x.yaml">QR50-FPN</a>', "QR_50_FPN_1x").replace(
        '<a href="configs/qr_101_fpn_3x.yaml">QR101-FPN</a>', "QR_101_FPN_3x")
    line = bare[:bare.index("42.3")].count("\n") + 1
    moved = judge(bare, [claim("B", "bbox/AP", 42.8, aliases=("QR_101_FPN_3x",))])
    # before: ("ambiguous", ("B",), 15, 20, "37.6") among both rows' numbers
    assert _found(moved) == [("drift", ("B",), line, 20, "42.3")]


def test_a_td_outside_a_row_is_still_prose() -> None:
    """Pinned: only header cells before the first row are put in one; a <td> outside every
    row still refuses the table (read as prose)."""
    text = "<table><td>QR101-FPN</td><td>42.3</td><tr><td>x</td></tr></table>\n"
    report = judge(text, [claim("B", "bbox/AP", 42.8, aliases=("QR101-FPN",))])
    assert [f[0] for f in _found(report)] == ["drift"]


# --- 7. fairseq's translation README -------------------------------------------------------------
# facebookresearch/fairseq examples/translation/README.md: a "Model | Description | Dataset |
# Download" table with no outer pipes, then results as BLEU per model ("+ back-translation").
FAIRSEQ = """## Pre-trained models

Model | Description | Dataset | Download
---|---|---|---
`transformer.wmt99.en-xx` | Transformer ([Us et al., 2099](https://x.org)) | WMT99 English-Xx | model: [download (.tar.gz)](https://x.org/m.tar.gz)

## Results

We report case-sensitive detokenized BLEU on newstest2099 with sacrebleu:

| Model | BLEU | chrF |
|---|---|---|
| Transformer big | 29.8 | 57.3 |
| + back-translation | **31.4** | **58.9** |
"""


def test_fairseq_bleu_table() -> None:
    def bt(v: float) -> list[Claim]:
        return [claim("BT", "bleu", v, aliases=("back-translation",))]
    _clean_and_moved(FAIRSEQ, bt(31.4), bt(31.9), "README.md", (14, "31.4"),
                     ("BT", 14, 26, "31.4"))


# --- 8. a super-resolution paper's PSNR/SSIM table ------------------------------------------------
# The SR papers' table (e.g. the tables of XPixelGroup/BasicSR's and the EDSR/RCAN papers):
# \multirow Method and Params, \multicolumn{2}{c|}{Set5} over PSNR & SSIM, "1,592" params,
# best \textbf and second \underline.
SR = r"""\begin{table*}[t]
\caption{Quantitative comparison (PSNR/SSIM) for $\times 4$ super-resolution. The best and second best results are \textbf{bold} and \underline{underlined}.}
\begin{tabular}{l|c|cc|cc}
\hline
\multirow{2}{*}{Method} & \multirow{2}{*}{Params (K)} & \multicolumn{2}{c|}{Set5} & \multicolumn{2}{c}{Urban100} \\
 & & PSNR & SSIM & PSNR & SSIM \\
\hline
Bicubic & - & 28.42 & 0.8104 & 23.14 & 0.6577 \\
PriorSR & 1,592 & \underline{32.46} & \underline{0.8968} & \underline{26.64} & \underline{0.8033} \\
QuuxSR (Ours) & 1,518 & \textbf{32.61} & \textbf{0.8999} & \textbf{26.92} & \textbf{0.8102} \\
\hline
\end{tabular}
\end{table*}
"""


def test_super_resolution_psnr_ssim_table() -> None:
    def u(v: float) -> list[Claim]:
        return [claim("U", "psnr", v, unit="dB", aliases=("QuuxSR", "Urban100"))]
    _clean_and_moved(SR, u(26.92), u(27.02), "paper.tex", (10, "26.92"), ("U", 10, 68, "26.92"))

    def s(v: float) -> list[Claim]:
        return [claim("S", "ssim", v, aliases=("QuuxSR", "Set5"))]
    _clean_and_moved(SR, s(0.8999), s(0.8989), "paper.tex", (10, "0.8999"),
                     ("S", 10, 50, "0.8999"))
    assert _found(judge(SR, [claim("P", "params", 1518e3, aliases=("QuuxSR",))],
                        "paper.tex")) == []
