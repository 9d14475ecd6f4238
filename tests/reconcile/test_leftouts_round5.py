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
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
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
        text: str, claims: list, says: str) -> None:
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
        "Q says 32.51, evidence says 32.41 (run r1, object blake3:510000000000\u2026); the same "
        "32.51 at 7:33: 2 rows name Q alike")
    assert report.to_json()["compared"] == 1
    fixed = judge(REPEATED.replace("32.51", "32.41"), [QUUX], "README.md")
    assert _found(fixed) == []
