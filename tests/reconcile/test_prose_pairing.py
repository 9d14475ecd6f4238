"""In prose, a number goes to the claims of the names it is written with, not to every claim its
sentence names (`number_roles.written_with`, `documents._Run._written_with`).

A sentence of an abstract or a README often gives several claims' numbers at once: "a PSNR of
24.81 dB and an SSIM of 0.917 on DPE, and a PSNR of 23.92 dB on UPE", "an accuracy of 89.21%, an
F1-score of 0.8922 and a ROC-AUC of 0.9813". Each number was judged against every claim the
sentence names, so

* two moved numbers of close values were each `ambiguous` between both claims, instead of two
  drifts (each claim had two plausible numbers left);
* two numbers swapped between claims of close values each matched the other's claim: the slip
  was no finding.

Now a number's claims are those the names it is written with name: the name right before it
("PSNR of 24.81", "PSNR: 24.81", "AUC 0.89"), right after it ("31.42 dB PSNR", "0.912 SSIM"),
its setting ("on Set5", "on the Adobe-UPE dataset"), and the setting opening its clause ("On
Set5, ..."); and a claim another number is written with more specifically is not its. A number
written with no name, or with names in a list ("PSNR/SSIM of", "on Set5, Urban100 and Set14"),
is judged as before.

The fixtures follow the shapes of real READMEs and abstracts with names and numbers of our own;
each source is named above its fixture.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.number_roles import list_head, written_with
from labledger.reconcile.numbers import scan_numbers
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

Found = list[tuple[str, tuple[str, ...], int, str | None]]


def _check(text: str, claims: list[Claim], want: Found, matched: set[str] | None = None,
           path: str = "README.md") -> None:
    report = judge(text, claims, path=path)
    assert findings(report) == want
    if matched is not None:
        assert {m[2] for m in matches(report)} == matched


# === 1. "a PSNR of X and an SSIM of Y on A, and a PSNR of Z on B" ===============================

# sjmoran/DeepLPF README.md: "This model achieves a PSNR of 23.94dB and an SSIM of 0.913 on the
# Adobe_DPE image dataset." (two metrics, then the dataset), here with a second dataset's PSNR
# in the same sentence, as abstracts give them. Before: both PSNRs moved were two `ambiguous`
# findings (each PSNR claim could own either number); swapped, each matched the other
# dataset's claim and nothing was reported.
FIVEK = [claim("PD", "psnr", 24.81, unit="dB", aliases=("Adobe-DPE",)),
         claim("SD", "ssim", 0.917, aliases=("Adobe-DPE",)),
         claim("PU", "psnr", 23.92, unit="dB", aliases=("Adobe-UPE",))]


@pytest.mark.parametrize(("shown", "want"), [
    (("24.81", "0.917", "23.92"), []),
    (("24.91", "0.917", "23.82"), [("drift", ("PD",), 1, "24.91"), ("drift", ("PU",), 1, "23.82")]),
    (("24.91", "0.917", "23.92"), [("drift", ("PD",), 1, "24.91")]),
    (("23.92", "0.917", "24.81"), [("drift", ("PD",), 1, "23.92"), ("drift", ("PU",), 1, "24.81")]),
])
def test_each_psnr_goes_to_its_own_dataset(shown: tuple[str, str, str], want: Found) -> None:
    a, b, c = shown
    text = (f"This model achieves a PSNR of {a}dB and an SSIM of {b} on the Adobe-DPE dataset, "
            f"and a PSNR of {c}dB on the Adobe-UPE dataset.\n")
    _check(text, FIVEK, want)


# === 2. "an accuracy of X, an F1-score of Y and a ROC-AUC of Z" =================================

# phantom0345/single-image-dehazing README.md: "it achieves PSNR of 16.82 and SSIM of 0.625"
# (each metric named right before its number), here with three classification metrics of
# close values. Before: accuracy and F1 both moved were two `ambiguous` findings; swapped,
# each matched the other's claim.
CLS = [claim("ACC", "accuracy", 0.8921, aliases=("FooNet",)),
       claim("F1", "f1", 0.8922, aliases=("FooNet",)),
       claim("AUC", "roc_auc", 0.9813, aliases=("FooNet",))]


@pytest.mark.parametrize(("acc", "f1", "want"), [
    ("89.21%", "0.8922", []),
    ("89.50%", "0.8950", [("drift", ("ACC",), 1, "89.50%"), ("drift", ("F1",), 1, "0.8950")]),
    ("89.22%", "0.8921", [("drift", ("ACC",), 1, "89.22%"), ("drift", ("F1",), 1, "0.8921")]),
])
def test_each_metric_goes_to_its_own_claim(acc: str, f1: str, want: Found) -> None:
    text = (f"FooNet achieves an accuracy of {acc}, an F1-score of {f1} and a ROC-AUC of "
            "0.9813 on the held-out set.\n")
    _check(text, CLS, want)


# The same metrics keyed ("NAME NUMBER", no "of"), as a README's summary line gives them
@pytest.mark.parametrize(("text", "want"), [
    ("FooNet: accuracy 89.21%, F1 0.8922, ROC-AUC 0.9813.\n", []),
    ("FooNet: accuracy 89.22%, F1 0.8921, ROC-AUC 0.9813.\n",
     [("drift", ("ACC",), 1, "89.22%"), ("drift", ("F1",), 1, "0.8921")]),
    # the number first: "NUMBER NAME"
    ("FooNet reaches 89.50% accuracy and 0.8950 F1 on the held-out set.\n",
     [("drift", ("ACC",), 1, "89.50%"), ("drift", ("F1",), 1, "0.8950")]),
])
def test_a_name_right_before_or_after_its_number(text: str, want: Found) -> None:
    _check(text, CLS, want)


# === 3. "X dB PSNR and Y SSIM on Set5, and Z dB PSNR on Urban100" ==============================

# The super-resolution abstracts' shape (swz30/MPRNet README.md's abstract names its datasets
# and metrics with its numbers so), each number followed by its metric and its dataset. Before:
# both PSNRs moved were `ambiguous` twice, swapped they matched each other's claims.
SR = [claim("P5", "psnr", 31.42, unit="dB", aliases=("Set5",)),
      claim("S5", "ssim", 0.912, aliases=("Set5",)),
      claim("PU", "psnr", 27.3, unit="dB", aliases=("Urban100",))]


@pytest.mark.parametrize(("text", "want"), [
    ("Our method reaches 31.42 dB PSNR and 0.912 SSIM on Set5, and 27.3 dB PSNR on Urban100.\n",
     []),
    ("Our method reaches 31.50 dB PSNR and 0.912 SSIM on Set5, and 27.5 dB PSNR on Urban100.\n",
     [("drift", ("P5",), 1, "31.50"), ("drift", ("PU",), 1, "27.5")]),
    ("Our method reaches 27.3 dB PSNR and 0.912 SSIM on Set5, and 31.42 dB PSNR on Urban100.\n",
     [("drift", ("P5",), 1, "27.3"), ("drift", ("PU",), 1, "31.42")]),
    # the setting opening each clause
    ("On Set5, our method reaches a PSNR of 31.50 dB, and on Urban100 a PSNR of 27.5 dB.\n",
     [("drift", ("P5",), 1, "31.50"), ("drift", ("PU",), 1, "27.5")]),
    ("On Set5, our method reaches a PSNR of 27.3 dB, and on Urban100 a PSNR of 31.42 dB.\n",
     [("drift", ("P5",), 1, "27.3"), ("drift", ("PU",), 1, "31.42")]),
])
def test_each_number_goes_to_its_metric_and_dataset(text: str, want: Found) -> None:
    _check(text, SR, want)


# === 4. a number written with its name, another written with none ===============================

# HiPatil/SRLunar_CVPR sec/0_abstract.tex: "... gain 0.23 mAP$_{50}$ from a second input
# product, ... and predicted shadows follow the sun the predictor is given (AUC 0.89 with the
# true sun, 0.59 with another)." Before: a moved mAP was `ambiguous` with the control's 0.59,
# a number written with no name; now the mAP claim's number is the one written with "mAP50",
# and the 0.59 is no claim's.
LUNAR = [claim("M50", "map50", 0.412, aliases=("LunaNet",)),
         claim("AUC", "auc", 0.89, aliases=("LunaNet",))]


@pytest.mark.parametrize(("crater", "sun", "want"), [
    ("0.412", "0.89", []),
    ("0.415", "0.89", [("drift", ("M50",), 1, "0.415")]),
    ("0.412", "0.87", [("drift", ("AUC",), 1, "0.87")]),
])
def test_a_number_written_with_no_name_is_not_a_named_claims(crater: str, sun: str,
                                                             want: Found) -> None:
    text = (f"Frozen LunaNet features detect craters at {crater} mAP50, and predicted shadows "
            f"follow the sun (AUC {sun} with the true sun, 0.59 with another).\n")
    _check(text, LUNAR, want)


# === 5. what stays as it was ====================================================================

C1 = claim("C1", "psnr", 31.42, unit="dB", aliases=("PSNR", "Ours"))
C0 = claim("C0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="r0")
PAIRS = [claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours", "Kodak")),
         claim("S1", "ssim", 0.913, aliases=("Ours", "Kodak")),
         claim("P0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="r0"),
         claim("S0", "ssim", 0.888, aliases=("Baseline",), run="r0")]


@pytest.mark.parametrize(("text", "claims", "want", "matched"), [
    # "Ours vs. Baseline" is a list of names: neither is written with the number after it
    ("Ours vs. Baseline: 31.52 vs. 30.10 dB PSNR.\n", [C1, C0],
     [("drift", ("C1",), 1, "31.52")], {"30.10"}),
    # a setting after a number ("for the Baseline") names that number, not the one before
    # the slash: each still matches
    ("Ours reaches a PSNR/SSIM of 31.42/0.913 on Kodak, versus 30.10/0.888 for the "
     "Baseline.\n", PAIRS, [], {"31.42", "0.913", "30.10", "0.888"}),
    # a setting heading a clause an earlier number is in names none of the later ones
    ("For the Baseline we report 30.10 dB, our model improves it to 31.42 dB PSNR.\n", [C1, C0],
     [], {"30.10", "31.42"}),
    # swapped around "vs.": each number is written with its own name
    ("The Baseline's PSNR of 31.42 dB vs. 30.10 dB for Ours.\n", [C1, C0],
     [("drift", ("C0",), 1, "31.42"), ("drift", ("C1",), 1, "30.10")], set()),
    # a list of names after a list of numbers: `respectively` pairs them or nothing does (here
    # the order is unsaid: each number matches as before)
    ("Our model obtains 27.3, 27.58 and 31.42 dB PSNR on Set5, Set14 and Urban100.\n", SR,
     [], {"31.42", "27.3"}),
    # a number written with a name that is no plausible value of its claims (a batch size
    # after the method's name) takes that claim from no other number: before, the 128s took
    # Ours' and the Baseline's claims from the PSNRs after them, and the moved 31.52 was lost
    ("PSNR at batch size: Ours 128 31.52, Baseline 128 30.10.\n", [C1, C0],
     [("drift", ("C1",), 1, "31.52")], {"30.10"}),
])
def test_what_stays(text: str, claims: list[Claim], want: Found, matched: set[str]) -> None:
    _check(text, claims, want, matched)


# === 6. German and French ======================================================================

# The shapes above as German and French READMEs write them, with decimal commas (as the German
# and French documents `test_decimal_commas` follows do: MINT-the-GAP/Aufgabensammlung,
# thecoons/minerminor): "und", "sowie", "bzw." and "et" join lists as "and" does, "jeweils",
# "bzw." and "respectivement" say "respectively", "von"/"de" name a number as "of" does and
# "auf"/"sur" give its setting as "on" does. Before: the swapped numbers each matched the other
# dataset's claim, two moved ones were `ambiguous` twice, and "bzw." ended a sentence, so the
# number after it drifted against the one claim its half named (P5, on "27,58").
SR3 = [claim("P5", "psnr", 32.21, unit="dB", aliases=("Set5",)),
       claim("P14", "psnr", 28.67, unit="dB", aliases=("Set14",)),
       claim("P100", "psnr", 27.58, unit="dB", aliases=("B100",))]
SWAPPED = [("drift", ("P14",), 1, "27,58"), ("drift", ("P100",), 1, "28,67")]


@pytest.mark.parametrize(("text", "want"), [
    ("Unser Modell erreicht auf Set5, Set14 und B100 jeweils 32,21, 27,58 und 28,67 dB PSNR.\n",
     SWAPPED),
    ("Unser Modell erreicht auf Set5, Set14 und B100 jeweils 32,21, 28,67 und 27,58 dB PSNR.\n",
     []),
    ("Unser Modell erreicht PSNR-Werte von 32,21, 27,58 und 28,67 dB auf Set5, Set14 bzw. "
     "B100.\n", SWAPPED),
    ("Unser Modell erreicht eine PSNR von 32,21 dB bzw. 27,58 dB auf Set5 bzw. Set14.\n",
     [("drift", ("P14",), 1, "27,58")]),
    ("Notre modèle obtient 32,21, 27,58 et 28,67 dB de PSNR sur Set5, Set14 et B100 "
     "respectivement.\n", SWAPPED),
    ("Notre modèle obtient 32,21, 28,67 et 27,58 dB de PSNR sur Set5, Set14 et B100 "
     "respectivement.\n", []),
    # no word saying "respectively": the order is unsaid, as in English
    ("Auf Set5, Set14 und B100 erreicht unser Modell PSNR-Werte von 32,21, 27,58 und 28,67 "
     "dB.\n", []),
])
def test_german_and_french_lists_pair_in_order(text: str, want: Found) -> None:
    _check(text, SR3, want, path="LIESMICH.md")


@pytest.mark.parametrize(("text", "want"), [
    ("Unser Modell erreicht eine PSNR von 24,91 dB und eine SSIM von 0,917 auf Adobe-DPE sowie "
     "eine PSNR von 23,82 dB auf Adobe-UPE.\n",
     [("drift", ("PD",), 1, "24,91"), ("drift", ("PU",), 1, "23,82")]),
    ("Unser Modell erreicht eine PSNR von 23,92 dB und eine SSIM von 0,917 auf Adobe-DPE sowie "
     "eine PSNR von 24,81 dB auf Adobe-UPE.\n",
     [("drift", ("PD",), 1, "23,92"), ("drift", ("PU",), 1, "24,81")]),
    ("Notre modèle atteint une PSNR de 24,91 dB et une SSIM de 0,917 sur Adobe-DPE, et une PSNR "
     "de 23,82 dB sur Adobe-UPE.\n",
     [("drift", ("PD",), 1, "24,91"), ("drift", ("PU",), 1, "23,82")]),
    ("Notre modèle atteint une PSNR de 24,81 dB et une SSIM de 0,917 sur Adobe-DPE, et une PSNR "
     "de 23,92 dB sur Adobe-UPE.\n", []),
])
def test_german_and_french_numbers_go_to_their_names(text: str, want: Found) -> None:
    _check(text, FIVEK, want, path="LIESMICH.md")


def test_list_words_join_german_and_french_lists() -> None:
    for text in ("PSNR-Werte von 32,1, 33,4 und 31,4 dB", "32,1 dB bzw. 33,4 dB",
                 "32,1 dB sowie 33,4 dB", "des PSNR de 32,1, 33,4 et 31,4 dB"):
        last = scan_numbers(text, comma=True)[-1]
        first = scan_numbers(text, comma=True)[0]
        assert list_head(text, last.start, last.suffix_end) == first.start, text


# === 7. written_with itself =====================================================================

def _pairs(text: str, names: list[str]) -> list[list[str]]:
    """The names each number of ``text`` is written with, by `written_with`."""
    spans: list[tuple[int, int]] = []
    for name in names:
        at = text.index(name)
        spans.append((at, at + len(name)))
    spans.sort()
    numbers = [(n.start, n.suffix_end) for n in scan_numbers(text)]
    return [[text[spans[k][0]:spans[k][1]] for k in ks]
            for ks in written_with(text, 0, numbers, spans)]


@pytest.mark.parametrize(("text", "names", "want"), [
    ("a PSNR of 31.42 dB and an SSIM of 0.913", ["PSNR", "SSIM"], [["PSNR"], ["SSIM"]]),
    ("PSNR: 31.42 dB, SSIM: 0.913", ["PSNR", "SSIM"], [["PSNR"], ["SSIM"]]),
    ("**PSNR**: **31.42** dB", ["PSNR"], [["PSNR"]]),
    ("31.42 dB PSNR on Set5", ["PSNR", "Set5"], [["PSNR", "Set5"]]),
    ("an F1-score of 0.89", ["F1"], [["F1"]]),
    # a later number of a list: its first number's name
    ("PSNRs of 32.46, 28.80 and 27.71 dB", ["PSNR"], [["PSNR"], ["PSNR"], ["PSNR"]]),
    # names in a list: none
    ("PSNR/SSIM of 31.42/0.913", ["PSNR", "SSIM"], [[], []]),
    ("PSNR and SSIM of 31.42", ["PSNR", "SSIM"], [[]]),
    ("31.42 dB on Set5, Urban100 and Set14", ["Set5", "Set14"], [[]]),
    # "dB and SSIM" is no list of names ("dB" follows a number)
    ("31.42 dB and SSIM of 0.913", ["SSIM"], [[], ["SSIM"]]),
    # "for" is no "or"
    ("30.10 dB for Ours", ["Ours"], [["Ours"]]),
    # a name after a word that is no link: none
    ("PSNR improves to 31.42 dB", ["PSNR"], [[]]),
])
def test_written_with(text: str, names: list[str], want: list[list[str]]) -> None:
    assert _pairs(text, names) == want
