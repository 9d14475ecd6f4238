"""Reconcile against results tables and sentences as public ML repositories' README.md files
write them (copied verbatim, trimmed to the table or sentence; each case names its source).

Per case: the claims a user would declare for 2-4 of its numbers (the value as the evidence
records it, more digits than the README shows; aliases as the method and dataset names), then
(a) the README as written gives no finding and each bound number is matched to its claim at its
line, and (b) each bound number moved by more than half a unit in its last digit is `drift` on
that claim, at that line, and nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial

import pytest

from labledger.reconcile.claim_model import Claim
from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_documents import judge

claim = partial(documents_claim, run="ours")


@dataclass
class Readme:
    source: str                               # repo/path it was copied from
    text: str
    claims: list[Claim]
    bound: list[tuple[str, int, str, str]]    # (claim, line, as shown, moved past half a unit)


_run = partial(judge, path="README.md")


_YOLO = "https://github.com/ultralytics/yolov5/releases/download/v7.0/"

CASES = [
    # ultralytics/yolov5 README.md ("Classification Checkpoints"): <br><sup> in the headers,
    # links as row labels, bold best values, accuracy in percent points of a fraction
    Readme(
        "ultralytics/yolov5:README.md#classification",
        "| Model                                                                                  "
        "            | size<br><sup>(pixels) | acc<br><sup>top1 | acc<br><sup>top5 | Training<br>"
        "<sup>90 epochs<br>4xA100 (hours) | Speed<br><sup>ONNX CPU<br>(ms) | Speed<br><sup>"
        "TensorRT V100<br>(ms) | params<br><sup>(M) | FLOPs<br><sup>@224 (B) |\n"
        "| ---------------------------------------------------------------------------------------"
        "----------- | --------------------- | ---------------- | ---------------- | -------------"
        "------------------------------- | ------------------------------ | ---------------------"
        "-------------- | ------------------ | ---------------------- |\n"
        f"| [YOLOv5s-cls]({_YOLO}yolov5s-cls.pt)         | 224                   | 71.5       "
        "      | 90.2             | 8:09                                         | 6.6          "
        "                  | 0.6                                 | 5.4                | 1.4      "
        "              |\n"
        f"| [YOLOv5x-cls]({_YOLO}yolov5x-cls.pt)         | 224                   | **79.0**   "
        "      | **94.4**         | 15:04                                        | 54.3         "
        "                  | 1.8                                 | 48.1               | 15.9     "
        "              |\n"
        f"| [ResNet50]({_YOLO}resnet50.pt)               | 224                   | 76.8       "
        "      | 93.4             | 11:10                                        | 23.4         "
        "                  | 1.0                                 | 25.6               | 8.5      "
        "              |\n",
        [claim("C1", "top1", 0.79012, aliases=("YOLOv5x-cls",)),
         claim("C5", "top5", 0.94402, aliases=("YOLOv5x-cls",)),
         claim("C0", "top1", 0.76813, aliases=("ResNet50",), run="resnet50"),
         claim("CP", "params", 48072560, aliases=("YOLOv5x-cls",))],
        [("C1", 4, "**79.0**", "**79.2**"), ("C5", 4, "**94.4**", "**94.6**"),
         ("C0", 5, "| 76.8 ", "| 76.6 "), ("CP", 4, "| 48.1 ", "| 48.3 ")]),
    # XPixelGroup/HAT README.md: "Params(M)" over bare numbers, a dataset per column and no
    # metric name (PSNR is implied), a link as a row label, padded cells
    Readme(
        "XPixelGroup/HAT:README.md",
        "| Model | Params(M) | Multi-Adds(G) | Set5 | Set14 | BSD100 | Urban100 | Manga109 |\n"
        "|-------|:---------:|:---------:|:---------:|:---------:|:---------:|:---------:"
        "|:---------:|\n"
        "| [SwinIR](https://github.com/JingyunLiang/SwinIR) |   11.9    | 53.6 | 32.92 | 29.09 |"
        " 27.92 | 27.45 | 32.03 |\n"
        "| HAT-S |   9.6    | 54.9 | 32.92 | 29.15 | 27.97 | 27.87 | 32.35 |\n"
        "| HAT |   20.8    | 102.4 | 33.04 | 29.23 | 28.00 | 27.97 | 32.48 |\n",
        [claim("H1", "psnr", 27.9712, unit="dB", aliases=("HAT", "Urban100")),
         claim("H2", "psnr", 32.9241, unit="dB", aliases=("HAT-S", "Set5"), run="hat-s"),
         claim("H3", "params", 20770000, aliases=("HAT",)),
         claim("H4", "params", 9.62, unit="M", aliases=("HAT-S",), run="hat-s")],
        [("H1", 5, "| 27.97 | 32.48", "| 28.07 | 32.48"),
         ("H2", 4, "| 32.92 | 29.15", "| 32.82 | 29.15"),
         ("H3", 5, "|   20.8  ", "|   21.0  "), ("H4", 4, "|   9.6  ", "|   9.8  ")]),
    # ming053l/SimFlowSR README.md: whole rows in bold, multipliers glued to the numbers
    Readme(
        "ming053l/SimFlowSR:README.md",
        "| Model | Params | FLOPs | Set5 | Set14 | BSD100 | Urban100 | Manga109 |\n"
        "|:-----:|:------:|:-----:|:----:|:-----:|:------:|:--------:|:--------:|\n"
        "| SwinIR | 11.90M | 45.65G | 32.92 | 29.09 | 27.92 | 27.45 | 32.03 |\n"
        "| HAT | 20.77M | 104.22G | 33.04 | 29.23 | 28.00 | 27.97 | 32.48 |\n"
        "| **SimFlowSR-SwinIR** | **13.22M** | **58.76G** | **33.16** | **29.33** | **28.15** |"
        " **28.06** | **32.52** |\n"
        "| **SimFlowSR-MambaIR** | **12.71M** | **59.30G** | **33.07** | **29.14** | **27.95** |"
        " **27.72** | **32.50** |\n",
        [claim("S1", "psnr", 33.1573, unit="dB", aliases=("SimFlowSR-SwinIR", "Set5")),
         claim("S2", "params", 13221504, aliases=("SimFlowSR-SwinIR",)),
         claim("S3", "psnr", 27.7204, unit="dB", aliases=("SimFlowSR-MambaIR", "Urban100"),
               run="mambair")],
        [("S1", 5, "**33.16**", "**33.26**"), ("S2", 5, "**13.22M**", "**13.42M**"),
         ("S3", 6, "**27.72**", "**27.62**")]),
    # Xiao-Zhanpeng/DeFT README.md: slash pairs under "Q1 PSNR / SSIM", the pair in bold, the
    # second best underlined with <u>…</u> inside a pair
    Readme(
        "Xiao-Zhanpeng/DeFT:README.md",
        "| Method | Q1 PSNR / SSIM | Q2 PSNR / SSIM | Q3 PSNR / SSIM |\n"
        "|--------|:---:|:---:|:---:|\n"
        "| **DeFT (Ours)** | **32.56 / 0.7841** | **29.38 / 0.7712** | **31.82 / 0.8535** |\n"
        "| Restormer | 30.16 / 0.5957 | 29.03 / 0.7402 | <u>30.25</u> / 0.6570 |\n"
        "| SwinIR | 29.05 / 0.5580 | <u>29.32</u> / 0.7525 | 28.73 / 0.5756 |\n"
        "| AP-BSN | <u>30.64</u> / 0.6822 | 27.01 / 0.6651 | 28.99 / <u>0.8508</u> |\n",
        [claim("D1", "psnr", 32.5613, unit="dB", aliases=("DeFT", "Q1")),
         claim("D2", "ssim", 0.78412, aliases=("DeFT", "Q1")),
         claim("D3", "ssim", 0.85347, aliases=("DeFT", "Q3")),
         claim("D4", "psnr", 30.2491, unit="dB", aliases=("Restormer", "Q3"), run="restormer")],
        [("D1", 3, "**32.56 /", "**32.66 /"), ("D2", 3, "/ 0.7841**", "/ 0.7861**"),
         ("D3", 3, "/ 0.8535**", "/ 0.8555**"), ("D4", 4, "<u>30.25</u>", "<u>30.35</u>")]),
    # facebookresearch/ConvNeXt README.md (ImageNet-22K): rows with no closing pipe, "acc@1",
    # multipliers glued to counts ("89M", "15.4G"), link cells
    Readme(
        "facebookresearch/ConvNeXt:README.md#imagenet-22k",
        "| name | resolution |acc@1 | #params | FLOPs | 22k model | 1k model |\n"
        "|:---:|:---:|:---:|:---:| :---:| :---:|:---:|\n"
        "| ConvNeXt-S | 224x224 | 84.6 | 50M | 8.7G | [model](https://dl.fbaipublicfiles.com/"
        "convnext/convnext_small_22k_224.pth)   | [model](https://dl.fbaipublicfiles.com/convnext/"
        "convnext_small_22k_1k_224.pth)\n"
        "| ConvNeXt-B | 224x224 | 85.8 | 89M | 15.4G | [model](https://dl.fbaipublicfiles.com/"
        "convnext/convnext_base_22k_224.pth)   | [model](https://dl.fbaipublicfiles.com/convnext/"
        "convnext_base_22k_1k_224.pth)\n",
        [claim("X1", "acc@1", 0.85816, aliases=("ConvNeXt-B",)),
         claim("X2", "params", 88591464, aliases=("ConvNeXt-B",)),
         claim("X3", "acc@1", 0.84612, aliases=("ConvNeXt-S",), run="small")],
        [("X1", 4, "| 85.8 ", "| 85.6 "), ("X2", 4, "| 89M ", "| 91M "),
         ("X3", 3, "| 84.6 ", "| 84.8 ")]),
    # a GluonNLP README (intent detection and slot filling): "mean±std" cells glued without
    # spaces, "(%)" headers, an "Ours" row under linked baselines
    Readme(
        "GluonNLP intent/slot README (index file id 21640346952; repository not resolved)",
        "| Models | Intent Detection Acc (%) | Slot F1 (%) |\n"
        "| ------ | ------------------------ | ----------- |\n"
        "| [Intent Gating & self-attention](https://www.aclweb.org/anthology/D18-1417) | 98.77 |"
        " 96.52 |\n"
        "| [BLSTM-CRF + ELMo](https://arxiv.org/abs/1811.05370) | 97.42 | 95.62 |\n"
        "| [Joint BERT](https://arxiv.org/pdf/1902.10909.pdf) |  97.5 | 96.1 |\n"
        "| Ours | 98.69±0.11  | 95.71±0.19 |\n",
        [claim("N1", "intent_acc", 0.98693, aliases=("Ours", "Intent Detection Acc")),
         claim("N2", "slot_f1", 0.95712, aliases=("Ours", "Slot F1"))],
        [("N1", 6, "98.69±", "98.89±"), ("N2", 6, "95.71±", "95.51±")]),
    # the same README's prose: percentages in backticks after "="
    Readme(
        "GluonNLP intent/slot README (index file id 21640346952; repository not resolved)",
        "It produces the final slot filling F1 = `95.76%` and intent detection accuracy = "
        "`98.71%`\n",
        [claim("N3", "slot_f1", 0.95763, aliases=("slot filling F1",)),
         claim("N4", "intent_acc", 0.98712, aliases=("intent detection accuracy",))],
        [("N3", 1, "95.76%", "95.96%"), ("N4", 1, "98.71%", "98.51%")]),
    # RUCAIBox/ChatCoT README.md: best in bold, second best underlined with <u>…</u>, a
    # metric named by the user for columns that name datasets only
    Readme(
        "RUCAIBox/ChatCoT:README.md",
        "| Methods      | Algebra   | CP    | PC    | PA    | Geometry  | IA    | NT    |\n"
        "| :-----:      | :-:       | :-:   | :-:   |:-:    | :-:       | :-:   |:-:    |\n"
        "| CoT          | 48.10     | 31.43 | 21.06 | 56.60 | 22.34     | 18.27 | 29.07 |\n"
        "| CoT w/ Tool  | 35.89     | 22.57 |  9.34 | 40.53 | 13.57     |  9.41 | 19.44 |\n"
        "| CoT w/ Retri | <u>52.74</u> | <u>32.70</u> | <u>18.86</u> | <u>58.44</u> | <u>29.23</u>"
        " | **19.93** | <u>31.67</u> |\n"
        "| ChatCoT      | 56.11     | **34.18** | **23.81** | **59.24** | **29.85** | <u>19.49</u>"
        " | **32.59** |\n",
        [claim("R1", "accuracy", 0.5611, aliases=("ChatCoT", "Algebra")),
         claim("R2", "accuracy", 0.29851, aliases=("ChatCoT", "Geometry")),
         claim("R3", "accuracy", 0.5274, aliases=("CoT w/ Retri", "Algebra"), run="retri")],
        [("R1", 6, "| 56.11 ", "| 56.31 "), ("R2", 6, "**29.85**", "**29.65**"),
         ("R3", 5, "<u>52.74</u>", "<u>52.94</u>")]),
    # Nota-NetsPresso/BK-SDM README.md: FID↓ / IS↑ arrows, <br> inside headers, "(Ours)"
    # after a linked model name
    Readme(
        "Nota-NetsPresso/BK-SDM:README.md",
        "| Model | FID↓ | IS↑ | CLIP Score↑<br>(ViT-g/14) | # Params,<br>U-Net | # Params,<br>"
        "Whole SDM |\n"
        "|:---:|:---:|:---:|:---:|:---:|:---:|\n"
        "| Stable Diffusion v1.4 | 13.05 | 36.76 | 0.2958 | 0.86B | 1.04B |\n"
        "| [BK-SDM-Base](https://huggingface.co/nota-ai/bk-sdm-base) (Ours) | 15.76 | 33.79 |"
        " 0.2878 | 0.58B | 0.76B |\n"
        "| [BK-SDM-Small](https://huggingface.co/nota-ai/bk-sdm-small) (Ours) | 16.98 | 31.68 |"
        " 0.2677 | 0.49B | 0.66B |\n",
        [claim("B1", "fid", 15.7623, aliases=("BK-SDM-Base",)),
         claim("B2", "is", 33.7915, aliases=("BK-SDM-Base",)),
         claim("B3", "fid", 16.9811, aliases=("BK-SDM-Small",), run="small"),
         claim("B4", "fid", 13.0512, aliases=("Stable Diffusion v1.4",), run="sd14")],
        [("B1", 4, "| 15.76 ", "| 15.86 "), ("B2", 4, "| 33.79 ", "| 33.59 "),
         ("B3", 5, "| 16.98 ", "| 17.08 "), ("B4", 3, "| 13.05 ", "| 13.15 ")]),
    # facebookresearch/ConvNeXt README.md (ImageNet-1K, as a fork's README copies it without
    # the model links; index file id 10891616902): a model at two resolutions, the resolution
    # ("384x384") a row label and not a number
    Readme(
        "facebookresearch/ConvNeXt:README.md#imagenet-1k (copy)",
        "| name | resolution |acc@1 | #params | FLOPs |\n"
        "|:---:|:---:|:---:|:---:| :---:|\n"
        "| ConvNeXt-T | 224x224 | 82.1 | 28M | 4.5G |\n"
        "| ConvNeXt-S | 224x224 | 83.1 | 50M | 8.7G |\n"
        "| ConvNeXt-B | 224x224 | 83.8 | 89M | 15.4G |\n"
        "| ConvNeXt-B | 384x384 | 85.1 | 89M | 45.0G |\n",
        [claim("V1", "acc@1", 0.85104, aliases=("ConvNeXt-B", "384x384")),
         claim("V2", "acc@1", 0.83817, aliases=("ConvNeXt-B", "224x224"), run="b224"),
         claim("V3", "acc@1", 0.82093, aliases=("ConvNeXt-T", "224x224"), run="t224")],
        [("V1", 6, "| 85.1 ", "| 85.3 "), ("V2", 5, "| 83.8 ", "| 83.6 "),
         ("V3", 3, "| 82.1 ", "| 82.3 ")]),
    # HPC-Lab-KOREATECH/FGA-SR README.md: the table inside a quote ("> |", folded into a
    # <details> block), a backbone's second row with an empty first cell (its group's label
    # above), bold best values
    Readme(
        "HPC-Lab-KOREATECH/FGA-SR:README.md",
        "> <details>\n"
        "> <summary><b>Metric: PSNR (Set5 / Set14 / BSD100 / Urban100 / Manga109 / DTD235)"
        "</b></summary>\n"
        "> \n"
        "> | Backbone (scale) | Upsampler | Set5      | Set14     | BSD100    | Urban100  |"
        " Manga109  | DTD235    |\n"
        "> | :--------------- | :-------- | :-------- | :-------- | :-------- | :-------- |"
        " :-------- | :-------- |\n"
        "> | EDSR-\u00b5           | SPC       | 32.12     | 28.59     | 27.58     | 26.08     |"
        " 30.41     | 29.73     |\n"
        "> |                  | **FGA**   | **32.30** | **28.68** | **27.64** | **26.27** |"
        " **30.74** | **29.80** |\n"
        "> | EDSR-origin      | SPC       | 32.46     | 28.80     | 27.71     | 26.64     |"
        " 31.02     | **29.91** |\n"
        "> |                  | **FGA**   | **32.50** | 28.80     | **27.74** | **26.67** |"
        " **31.05** | 29.89     |\n"
        "> \n"
        "> </details>\n",
        [claim("F1", "psnr", 32.3012, unit="dB", aliases=("EDSR-\u00b5", "FGA", "Set5")),
         claim("F2", "psnr", 26.6698, unit="dB", aliases=("EDSR-origin", "FGA", "Urban100"),
               run="origin"),
         claim("F3", "psnr", 32.4611, unit="dB", aliases=("EDSR-origin", "SPC", "Set5"),
               run="origin-spc")],
        [("F1", 7, "**32.30**", "**32.40**"), ("F2", 9, "**26.67**", "**26.77**"),
         ("F3", 8, "| 32.46 ", "| 32.36 ")]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.source for c in CASES])
def test_readme_table(case: Readme) -> None:
    report = _run(case.text, case.claims)
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    matched = {(m.claims, m.line, m.shown) for m in report.matches}
    lines = case.text.splitlines()
    for cid, line, shown, moved in case.bound:
        found = re.search(r"\d[\d.]*M?%?", shown.replace("<u>", ""))
        assert found is not None, shown
        assert ((cid,), line, found.group(0)) in matched, (cid, line, found.group(0))
        assert lines[line - 1].count(shown) == 1, shown  # the bound number, and only it, moves
        assert case.text.count(shown) == 1, shown
        drifted = case.text.replace(shown, moved)
        got = _run(drifted, case.claims)
        assert [(f.type, f.claims, f.line) for f in got.findings] == [("drift", (cid,), line)], \
            "\n".join(f.render() for f in got.findings)
