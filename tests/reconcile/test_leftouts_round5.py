# ruff: noqa: E501  (the fixtures keep their sources' long lines)
"""Left-outs of the last round, each with what reconcile did before and does now.

1. **A delta's message showed the float's ``.0``.** A whole difference of two claims (BLEU
   35.5 against 32.5) read ``evidence says +3.0`` beside a document's ``+3``, and a fraction's
   difference in percent ``(= +3.0%)``: a decimal the ledger does not hold. Now a delta's
   evidence is shown as claim values are everywhere else (`documents._evidence`, the CLI's
   ``claims._exact``): ``+3``, ``+0.03 (= +3%)``; in the text and in ``--json`` alike. So is
   a value's in percent (``0.9 (= 90%)``, was ``(= 90.0%)``).
2. **One label on several rows of a table column drifted once per row.** A model listed for
   two datasets (or scales, schedules), or a long table repeating its header and the method's
   row under it: a claim the rows name alike that none matches drifted on each, so another
   setting's row was reported as the claim's drift. Now the rows are judged together: the
   same number in each is one drift naming every place (it drifts whichever row is the
   claim's); different numbers are one ``ambiguous`` finding naming each (the table does not
   say which is the claim's). One matching row still satisfies the claim, as before.
3. **A detector's AP key never found its README column.** mmdetection logs ``bbox_mAP`` and
   ``segm_mAP`` (mmengine: ``coco/bbox_mAP``), detectron2 ``bbox/AP`` and ``segm/AP``; their
   READMEs head the same numbers "box AP" and "mask AP". Without a "box AP" alias, a claim
   aliased by its backbone (shared with its mask-AP claim, so naming no quantity) was not
   judged in the table at all: a moved number passed. Now the IoU type's reader's name and AP
   anchor the claim (`anchors._IOU_TYPE_AP`): the overall AP only. detectron2's
   ``box<br/>AP`` header is read as it shows (its tag no word "br").
4. **German and French ranges in words.** `decimal_mark` reads ``31,42`` and a dash range
   ``0,91–0,93`` already; "zwischen 0,91 und 0,93" and "varie de 0,91 à 0,93" were two
   values, so a claim beside them was ambiguous among its value and the range's ends. Now
   they are ranges, as "between 0.91 and 0.93" is (`number_roles._RANGE_OPEN`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.findings import Report
from tests.conftest import cli_call as call
from tests.reconcile.test_documents import claim, judge

# === 1. a delta's evidence as claim values are shown ==========================================

# The shape of a translation README's results (Jason-Young-AI/YoungS-configs README.md: a
# "**Results**" table of test sets by MultiBLEU/SacreBLEU), with a sentence stating the gain
# over the baseline as a delta marker; our own names and numbers.
BLEU = [claim("T", "sacrebleu", 35.5, aliases=("Ours",)),
        claim("B", "sacrebleu", 32.5, aliases=("Baseline",), run="r0")]
ACC = [claim("P", "accuracy", 0.93), claim("Q", "accuracy", 0.90, run="r0")]


@pytest.mark.parametrize(("text", "claims", "says"), [
    # a whole difference: +3, not +3.0 (and the document's own "+4.0" kept as written)
    ("Fine-tuning gains <!-- delta:T,B -->+4 BLEU on newstest2016.\n", BLEU,
     "T\u2212B says +4, evidence says +3 (T 35.5 run r1"),
    ("Fine-tuning gains <!-- delta:T,B -->+4.0 BLEU on newstest2016.\n", BLEU,
     "T\u2212B says +4.0, evidence says +3 (T 35.5 run r1"),
    # a fraction's difference shown in percent: (= +3%), not (= +3.0%)
    ("Accuracy rises by <!-- delta:P,Q -->+4% with the new head.\n", ACC,
     "P\u2212Q says +4%, evidence says +0.03 (= +3%) (P 0.93 run r1"),
    # a loss of a whole point keeps its sign
    ("Ablating the adapter costs <!-- delta:B,T -->-2 BLEU.\n", BLEU,
     "B\u2212T says -2, evidence says -3 (B 32.5 run r0"),
])
def test_a_delta_drift_shows_its_evidence_as_claim_values_are_shown(
        text: str, claims: list[Claim], says: str) -> None:
    (finding,) = judge(text, claims).findings
    assert finding.type == "drift"
    assert finding.message.startswith(says), finding.message


def test_a_delta_in_another_unit_shows_a_whole_difference_whole() -> None:
    claims = [claim("X", "psnr", 31.5, unit="dB"), claim("Y", "psnr", 28.5, unit="dB")]
    (finding,) = judge("Ours is <!-- delta:X,Y -->+3% better.\n", claims).findings
    assert finding.type == "unit"
    assert finding.message.startswith("X\u2212Y says +3%, but its evidence is +3 dB (")


def test_a_value_in_percent_shows_a_whole_percent_whole() -> None:
    (finding,) = judge("Accuracy: 91%\n", [claim("P", "accuracy", 0.9)]).findings
    assert finding.message.startswith("P says 91%, evidence says 0.9 (= 90%) (run r1")


@pytest.fixture
def bleu_project(ledger: Ledger, project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(project)
    for c in BLEU:
        ledger.append("claim.declared", run=c.run, claim=c.id, metric=c.metric, value=c.value,
                      direction="higher", source_digest=c.source_digest,
                      aliases=list(c.aliases))
    return project


def test_reconcile_json_shows_a_delta_drift_and_a_delta_match_as_written(
        bleu_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (bleu_project / "README.md").write_text(
        "## Results\n\n"
        "Fine-tuning gains <!-- delta:T,B -->+3 BLEU on newstest2016,\n"
        "and <!-- delta:T,B -->+4 BLEU on newsdev2016.\n")
    code, out, err = call(capsys, "reconcile", "README.md", "--json")
    assert code == 3, err
    report = json.loads(out)
    (drift,) = report["findings"]
    assert (drift["type"], drift["via"], drift["shown"]) == ("drift", "delta", "+4")
    assert drift["message"].startswith("T\u2212B says +4, evidence says +3 (T 35.5 run r1")
    assert [(m["shown"], m["via"], m["claims"]) for m in report["matches"]] == [
        ("+3", "delta", ["T", "B"])]
    code, out, err = call(capsys, "reconcile", "README.md")
    assert "README.md:4:23: T\u2212B says +4, evidence says +3 (T 35.5 run r1" in out, out


# === 2. one label on several rows of a column =================================================

# The shape of the HiT-SR README's "## Models" table (stored file id 6209430675, its repository
# not named by the index: "Method | #Param. (K) | FLOPs (G) | Dataset | PSNR (dB) | SSIM | Model
# Zoo", a row per model and test set, "Urban100 (x4)"), with one model on two test sets; our
# own names, numbers and links.
MODELS = """## Models

| Method    | #Param. (K) | FLOPs (G) | Dataset  | PSNR (dB) |  SSIM  | Model Zoo |
| :-------- | :----: | :-------: | :------: | :-------: | :----: | :-------: |
| QuuxSR    | 812 |  54.1   | Set5 (x4)     |   32.41   | 0.8978 | [link](https://x.org/a) |
| QuuxSR    | 812 |  54.1   | Urban100 (x4) |   26.73   | 0.8051 | [link](https://x.org/b) |
| PriorSR   | 878 |  63.6   | Urban100 (x4) |   26.47   | 0.7980 | [link](https://x.org/c) |
"""
QUUX = claim("Q", "psnr", 32.41, unit="dB", aliases=("QuuxSR",))


def _found(report: Report) -> list[tuple[str, tuple[str, ...], int, str | None]]:
    return [(f.type, f.claims, f.line, f.shown) for f in report.findings]


def test_one_model_on_two_datasets_is_satisfied_by_its_matching_row() -> None:
    report = judge(MODELS, [QUUX], "README.md")
    assert _found(report) == []
    assert [(m.line, m.shown) for m in report.matches] == [(5, "32.41")]


def test_one_model_on_two_datasets_none_matching_is_one_ambiguous_finding() -> None:
    report = judge(MODELS.replace("32.41", "32.51"), [QUUX], "README.md")
    # before: drift on line 5 (32.51) and drift on line 6 (26.73, the Urban100 row)
    assert _found(report) == [("ambiguous", ("Q",), 5, "32.51")]
    (finding,) = report.findings
    assert finding.message == (
        "Q (32.41 dB, run r1) is named alike by 2 rows of this column, and none of 32.51 at "
        "5:49, 26.73 at 6:49 matches it; mark the one that is Q's with a claim marker (or "
        "alias Q by what its row says and the others do not)")
    assert finding.candidates == ("32.51", "26.73")
    assert report.to_json()["compared"] == 0  # an ambiguous number was compared with nothing


def test_an_alias_naming_the_dataset_makes_the_row_the_claims_own() -> None:
    """The remedy the message names: a claim aliased by its row's setting is that row's."""
    on_set5 = claim("Q", "psnr", 32.41, unit="dB", aliases=("QuuxSR", "Set5"))
    moved = judge(MODELS.replace("32.41", "32.51"), [on_set5], "README.md")
    assert _found(moved) == [("drift", ("Q",), 5, "32.51")]


# The same table grown long and repeating its header row before the next block of rows (as
# long Markdown tables do so the columns stay labelled), the method's row under each header.
REPEATED = """| Method    | Dataset  | PSNR (dB) |  SSIM  |
| :-------- | :------: | :-------: | :----: |
| PriorSR   | Set5 (x4)     |   32.19   | 0.8950 |
| QuuxSR    | Set5 (x4)     |   32.51   | 0.8978 |
| Method    | Dataset  | PSNR (dB) |  SSIM  |
| PriorSR   | Set5 (x4)     |   32.19   | 0.8950 |
| QuuxSR    | Set5 (x4)     |   32.51   | 0.8978 |
"""


def test_a_repeated_row_showing_one_drifted_number_is_one_drift_naming_both() -> None:
    report = judge(REPEATED, [QUUX], "README.md")
    # before: two drifts, one per copy of the row
    assert _found(report) == [("drift", ("Q",), 4, "32.51")]
    assert report.findings[0].message == (
        "Q says 32.51, evidence says 32.41 dB (run r1, object blake3:510000000000\u2026); the same "
        "32.51 at 7:33: 2 rows name Q alike")
    assert report.to_json()["compared"] == 1
    fixed = judge(REPEATED.replace("32.51", "32.41"), [QUUX], "README.md")
    assert _found(fixed) == []


# === 3. "box AP" / "mask AP" for a detector's keys ============================================

# open-mmlab/mmdetection configs/mask_rcnn/README.md: "## Results and models", a centred pipe
# table "Backbone | Style | Lr schd | Mem (GB) | Inf time (fps) | box AP | mask AP | Config |
# Download", values in percent points, the checkpoint's name carrying its keys
# ("..._bbox_mAP-0.38__segm_mAP-0.344_...pth"); our own backbones and numbers.
MASK_RCNN = """## Results and models

|    Backbone     |  Style  | Lr schd | Mem (GB) | Inf time (fps) | box AP | mask AP | Config | Download |
| :-------------: | :-----: | :-----: | :------: | :------------: | :----: | :-----: | :------: | :--------: |
|    Q-50-FPN     | pytorch |   1x    | 4.5      | 15.8           | 38.4   | 34.9    | [config](cfg/q50_1x.py) | [model](https://x.org/q50_1x_bbox_mAP-0.384__segm_mAP-0.349.pth) &#124; [log](https://x.org/q50_1x.log.json) |
|    Q-101-FPN    | pytorch |   1x    | 6.3      | 13.1           | 40.2   | 36.3    | [config](cfg/q101_1x.py) | [model](https://x.org/q101_1x.pth) &#124; [log](https://x.org/q101_1x.log.json) |
"""


def _detector(box: str, mask: str, b: float, m: float) -> list[Claim]:
    """A box-AP and a mask-AP claim on one model, aliased by its backbone only (no "box AP")."""
    return [claim("B", box, b, aliases=("Q-101-FPN",)),
            claim("S", mask, m, aliases=("Q-101-FPN",))]


@pytest.mark.parametrize(("box", "mask"), [("bbox_mAP", "segm_mAP"),
                                           ("coco/bbox_mAP", "coco/segm_mAP")])
def test_mmdetection_keys_find_the_box_ap_and_mask_ap_columns(box: str, mask: str) -> None:
    report = judge(MASK_RCNN, _detector(box, mask, 0.402, 0.363), "README.md")
    assert _found(report) == []
    assert [(m.line, m.shown, m.claims) for m in report.matches] == [
        (6, "40.2", ("B",)), (6, "36.3", ("S",))]
    # before: neither found nor matched, so the moved numbers passed
    moved = judge(MASK_RCNN, _detector(box, mask, 0.407, 0.368), "README.md")
    assert _found(moved) == [("drift", ("B",), 6, "40.2"), ("drift", ("S",), 6, "36.3")]


# facebookresearch/detectron2 MODEL_ZOO.md (gen_html_table.py's table: "<th valign=bottom>"
# cells outside any row, "box<br/>AP" and "mask<br/>AP", a row per config, a model id), as
# test_real_results_shapes.D2 has it, with a mask AP column; detectron2's metrics.json keys
# them `bbox/AP` and `segm/AP`, in percent points.
D2 = """<table><tbody>
<th valign="bottom">Name</th>
<th valign="bottom">lr<br/>sched</th>
<th valign="bottom">box<br/>AP</th>
<th valign="bottom">mask<br/>AP</th>
<th valign="bottom">model id</th>
 <tr><td align="left"><a href="configs/qr_50_fpn_1x.yaml">QR50-FPN</a></td>
<td align="center">1x</td>
<td align="center">38.6</td>
<td align="center">35.2</td>
<td align="center">137260431</td>
</tr>
 <tr><td align="left"><a href="configs/qr_101_fpn_3x.yaml">Q-101-FPN</a></td>
<td align="center">3x</td>
<td align="center">42.9</td>
<td align="center">38.6</td>
<td align="center">138205316</td>
</tr>
</tbody></table>
"""


def test_detectron2_keys_find_the_box_ap_and_mask_ap_columns() -> None:
    report = judge(D2, _detector("bbox/AP", "segm/AP", 42.9, 38.6), "MODEL_ZOO.md")
    assert _found(report) == []
    assert {(m.line, m.shown, m.claims) for m in report.matches} == {
        (15, "42.9", ("B",)), (16, "38.6", ("S",))}
    moved = judge(D2, _detector("bbox/AP", "segm/AP", 42.7, 38.6), "MODEL_ZOO.md")
    assert _found(moved) == [("drift", ("B",), 15, "42.9")]


def test_box_ap_names_the_overall_ap_only() -> None:
    """A threshold's AP (`bbox_mAP_50`) is headed "AP50": the "box AP" column is not its."""
    report = judge(MASK_RCNN, [claim("B", "bbox_mAP_50", 0.612, aliases=("Q-101-FPN",)),
                               claim("S", "segm_mAP", 0.363, aliases=("Q-101-FPN",))],
                   "README.md")
    assert _found(report) == []
    assert [(m.shown, m.claims) for m in report.matches] == [("36.3", ("S",))]


def test_box_ap_in_prose_names_the_claim() -> None:
    report = judge("Q-101-FPN reaches a box AP of 40.5 and a mask AP of 36.3 on COCO val.\n",
                   _detector("bbox_mAP", "segm_mAP", 0.402, 0.363))
    assert _found(report) == [("drift", ("B",), 1, "40.5")]


# === 4. ranges in words with decimal commas ===================================================

# decimal_mark already reads "31,42", "0,912" and a dash range "0,91–0,93" (each end a bound);
# what German and French wrote in words was not a range. The shape of a German docs page's
# "Der Wert der Genauigkeit liegt zwischen 0,0 und 1,0" (stored file id 15801711036, the index
# names no repository), as a thesis states a spread over seeds; our own numbers.
GENAU = claim("A", "accuracy", 0.92, aliases=("Genauigkeit", "précision"))


@pytest.mark.parametrize("text", [
    "Die Genauigkeit beträgt 0,95 und liegt zwischen 0,91 und 0,93 über fünf Läufe.\n",
    "Die Genauigkeit beträgt 0,95; sie reicht von 0,91 bis 0,93 über fünf Läufe.\n",
    "La précision atteint 0,95 et varie entre 0,91 et 0,93 selon la graine.\n",
    "La précision atteint 0,95 et varie de 0,91 à 0,93 selon la graine.\n",
    "The accuracy reaches 0.95 and lies between 0.91 and 0.93 over five seeds.\n",  # as before
])
def test_a_range_in_words_is_two_bounds_and_the_value_is_judged_alone(text: str) -> None:
    # before (German, French): ambiguous among 0,95, 0,91 and 0,93
    report = judge(text, [GENAU])
    assert [(f.type, f.shown) for f in report.findings] == [
        ("drift", "0.95" if "0.95" in text else "0,95")]


@pytest.mark.parametrize("text", [
    "Die Genauigkeit liegt zwischen 0,91 und 0,93 über fünf Läufe.\n",
    "La précision varie entre 0,91 et 0,93 selon la graine.\n",
])
def test_a_range_alone_is_no_finding(text: str) -> None:
    # before: ambiguous between its two ends
    assert judge(text, [GENAU]).findings == []


def test_a_difference_between_two_numbers_stays_values() -> None:
    """"Der Unterschied zwischen 0,95 und 0,91", "l'écart entre": two values compared, as "the
    gap between" is in English, not a range."""
    for text in ("Die Genauigkeit: der Unterschied zwischen 0,95 und 0,91 ist groß.\n",
                 "La précision : l'écart entre 0,95 et 0,91 est grand.\n"):
        (finding,) = judge(text, [GENAU]).findings
        assert finding.type == "ambiguous"
