"""Left-outs of the last round, each with what reconcile did before and does now.

1. **A delta's message showed the float's ``.0``.** A whole difference of two claims (BLEU
   35.5 against 32.5) read ``evidence says +3.0`` beside a document's ``+3``, and a fraction's
   difference in percent ``(= +3.0%)``: a decimal the ledger does not hold. Now a delta's
   evidence is shown as claim values are everywhere else (`documents._evidence`, the CLI's
   ``claims._exact``): ``+3``, ``+0.03 (= +3%)``; in the text and in ``--json`` alike. So is
   a value's in percent (``0.9 (= 90%)``, was ``(= 90.0%)``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
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
