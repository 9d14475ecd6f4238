"""Documents that write decimal commas ("31,42 dB", "0,912", "91,2 %", LaTeX ``31{,}42``,
siunitx with ``output-decimal-marker={,}``): their numbers are read as written, a moved one is
drift, and a document with mixed or no evidence keeps the English reading.

Before: "31,42" was no number (drift went unreported), "0,912" read as 912, and LaTeX
``$31{,}45$`` read as 31 and 45, so the 31 matched 31.42 at whole precision.

The fixtures follow the shapes of real documents with numbers of our own:
thecoons/minerminor working_env/resultats/tw1_resultats/README.md (a results table mixing
"87.5%" and "97,65%": mixed, so English), MINT-the-GAP/Aufgabensammlung
01_Algebraische_Grundlagen/09_Prozentrechnung/Aufgabe_0006.md and
1_Algebraische_Grundlagen/05_Dezimalzahlen/Aufgabe_0008.md (German Markdown: "4,7 %",
"0,009", "720,4704"), signalwerk/webtypo content/zahlen/index.md ("3,14" beside a struck
"3.14": mixed), TanML08/cas-ml-document-classification results/RESULTS_SUMMARY.md (German
prose, English decimals: English).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.decimal_mark import writes_decimal_comma
from labledger.reconcile.doc_readers import Segment, read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.judge_cache import JudgeCache
from labledger.reconcile.numbers import check, scan_numbers
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

PSNR = claim("C1", "psnr", 31.42, unit="dB", aliases=("Ours", "PSNR"), run="r1")
ACC = claim("A1", "acc", 0.912, aliases=("Genauigkeit", "précision", "accuracy"), run="r1")
CLAIMS = [PSNR, ACC]


def test_german_prose_reads_the_decimal_comma() -> None:
    report = judge("Unser Modell (Ours) erreicht einen PSNR von 31,42 dB.\n", CLAIMS,
                   path="notes.md")
    assert findings(report) == []
    assert matches(report) == {(("C1",), 1, "31,42")}


def test_german_prose_moved_value_is_drift() -> None:
    # before: no number at all, so nothing was reported
    report = judge("Unser Modell (Ours) erreicht einen PSNR von 31,45 dB.\n", CLAIMS,
                   path="notes.md")
    assert findings(report) == [("drift", ("C1",), 1, "31,45")]


def test_leading_zero_is_a_decimal_not_a_thousand() -> None:
    # before: "0,912" was 912, nobody's number
    ok = judge("Die Genauigkeit beträgt 0,912.\n", CLAIMS, path="notes.md")
    assert matches(ok) == {(("A1",), 1, "0,912")}
    moved = judge("Die Genauigkeit beträgt 0,915.\n", CLAIMS, path="notes.md")
    assert findings(moved) == [("drift", ("A1",), 1, "0,915")]


def test_french_percent_with_decimal_comma_against_a_fraction() -> None:
    ok = judge("La précision atteint 91,2 % sur le jeu de test.\n", CLAIMS, path="rapport.md")
    assert matches(ok) == {(("A1",), 1, "91,2%")}
    moved = judge("La précision atteint 91,5 % sur le jeu de test.\n", CLAIMS, path="rapport.md")
    assert findings(moved) == [("drift", ("A1",), 1, "91,5%")]


def test_latex_math_comma_is_read_whole() -> None:
    # before: $31{,}45$ was 31 (and 45), and 31 matched 31.42 at whole precision
    text = ("\\documentclass{article}\n\\usepackage[ngerman]{babel}\n\\begin{document}\n"
            "Ours erreicht einen PSNR von $31{,}45$~dB.\n\\end{document}\n")
    report = judge(text, CLAIMS, path="thesis.tex")
    assert findings(report) == [("drift", ("C1",), 4, "31{,}45")]
    assert matches(report) == set()


def test_latex_table_with_math_commas_and_siunitx() -> None:
    text = ("\\usepackage{siunitx}\n\\sisetup{output-decimal-marker={,}}\n"
            "\\begin{tabular}{lcc}\n"
            "Methode & PSNR (dB) & Genauigkeit \\\\\n"
            "Ours & $31{,}42$ & \\num{0.915} \\\\\n"
            "\\end{tabular}\n")
    report = judge(text, CLAIMS, path="thesis.tex")
    # \num{0.915} prints 0,915 with the comma marker: drift, shown as printed
    assert findings(report) == [("drift", ("A1",), 5, "0,915")]
    assert matches(report) == {(("C1",), 5, "31{,}42")}


def test_siunitx_input_comma_is_a_decimal_marker_in_english_too() -> None:
    # siunitx reads "," as the decimal marker of its input by default: \num{31,45} prints 31.45
    report = judge("Ours reaches a PSNR of \\SI{31,45}{dB}.\n", CLAIMS, path="paper.tex")
    assert findings(report) == [("drift", ("C1",), 1, "31.45")]


def test_markdown_table_with_decimal_commas() -> None:
    text = ("| Methode | PSNR (dB) | Genauigkeit |\n|---|---|---|\n"
            "| Basis | 29,80 | 0,871 |\n| Ours | 31,45 | 0,912 |\n")
    report = judge(text, CLAIMS, path="README.md")
    assert findings(report) == [("drift", ("C1",), 4, "31,45")]
    assert matches(report) == {(("A1",), 4, "0,912")}


def test_mixed_document_keeps_the_english_reading() -> None:
    # a results table mixing "87.5%" and "97,65%" (minerminor's shape): no guess, English
    text = ("| Modell | Adjacency |\n|---|---|\n| Tree | 87.5% |\n\n"
            "| Modell | Genauigkeit |\n|---|---|\n| Ours | 91,5% |\n")
    report = judge(text, CLAIMS, path="README.md")
    assert findings(report) == []
    assert matches(report) == set()
    assert not writes_decimal_comma("md", text)


def test_thousands_with_dot_space_and_thin_space() -> None:
    big = claim("N1", "images", 1234.5, aliases=("Bilder",), run="r1")
    for shown in ("1.234,5", "1 234,5", "1\u202f234,5"):
        report = judge(f"Wir zählen 0,50 und {shown} Bilder.\n", [big], path="notes.md")
        assert matches(report) == {(("N1",), 1, shown)}, shown
    tex = judge("\\usepackage[french]{babel}\nIl y a $1\\,234{,}5$ Bilder.\n", [big],
                path="these.tex")
    assert matches(tex) == {(("N1",), 2, "1\\,234{,}5")}


def test_ambiguous_number_follows_the_convention() -> None:
    # "1,234" is 1.234 where the document writes decimal commas, a thousand where it does not
    loss = claim("L1", "loss", 1.234, aliases=("Verlust",), run="r1")
    de = judge("Der Verlust sinkt von 2,50 % auf 1,234.\n", [loss], path="notes.md")
    assert matches(de) == {(("L1",), 1, "1,234")}
    en = judge("The loss falls from 2.5 to 1,234.\n", [loss], path="notes.md")
    assert matches(en) == set()


def test_comma_list_still_reads() -> None:
    report = judge("Ours erreicht PSNR-Werte von 32,1, 33,4 und 31,4 dB.\n", CLAIMS,
                   path="notes.md")
    assert matches(report) == {(("C1",), 1, "31,4")}
    numbers = [s.text for s in scan_numbers("32,1, 33,4 und 31,4 dB", comma=True)]
    assert numbers == ["32,1", "33,4", "31,4"]


def test_evidence() -> None:
    assert writes_decimal_comma("md", "PSNR: 31,42 dB")
    assert writes_decimal_comma("md", "Genauigkeit 0,912")
    assert writes_decimal_comma("tex", "\\usepackage[english,ngerman]{babel}\nPSNR 31 dB")
    assert writes_decimal_comma("tex", "\\sisetup{locale = DE}\n")
    assert writes_decimal_comma("tex", "$31{,}42$ mit \\includegraphics[width=0.5\\textwidth]{a}")
    assert writes_decimal_comma("md", "Siehe Tabelle 4.2: 31,42 dB (Python 3.10)")
    assert writes_decimal_comma("md", "31,42 dB\n\n```python\nlr = 0.001\n```\n")
    # English, or no evidence: today's reading
    assert not writes_decimal_comma("tex", "\\usepackage[ngerman,english]{babel}\nPSNR 31 dB")
    assert not writes_decimal_comma("md", "We use 1,000 images and [1,2] cite 31.42 dB.")
    assert not writes_decimal_comma("md", "Wir nutzen 1,000 Bilder.")
    assert not writes_decimal_comma("md", "PSNR 31,42 dB und 0.912 Genauigkeit")
    assert not writes_decimal_comma("csv", "a;b\n31,42;1\n")  # read by delimited_table
    # ids, tuples and options are no decimals: one such number, or two, is no evidence
    assert not writes_decimal_comma("md", "Trained on 12,500 images (seeds 1,2) with GPUs 0,1.")
    assert not writes_decimal_comma("md", "GPUs 0,1 and batch sizes 32,64, kernel (3,3).")
    assert writes_decimal_comma("md", "Werte 32,1 und 33,4 und 31,4 im Mittel.")


def test_the_convention_is_the_texts_so_the_cache_key_holds_it(tmp_path: Path) -> None:
    # The convention is decided from the segment's syntax and text alone, which the judging
    # cache's key holds: the key does not decide it (a cached run pays no reading of it), and a
    # cached run reports what an uncached one does.
    cache = JudgeCache(tmp_path, CLAIMS, {})
    de = Segment("a.md", "md", "PSNR 31,42 dB")
    assert cache.key(de) != cache.key(Segment("a.md", "md", "PSNR 31.42 dB"))
    assert "decimal_comma" not in de._cache
    text = "Ours erreicht einen PSNR von 31,45 dB.\n"
    uncached = reconcile_segments(read_document("a.md", text.encode()), CLAIMS, jobs=1)
    for _ in range(2):  # filling the cache, then answered from it
        cached = reconcile_segments(read_document("a.md", text.encode()), CLAIMS, jobs=1,
                                    cache=tmp_path / "c")
        assert [(f.type, f.shown) for f in cached.findings] == \
            [(f.type, f.shown) for f in uncached.findings] == [("drift", "31,45")]


# --- properties ------------------------------------------------------------------------------

_VALUES = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


def _comma(v: float, places: int) -> str:
    return f"{v:.{places}f}".replace(".", ",")


@settings(max_examples=200, deadline=None)
@given(value=_VALUES, places=st.integers(min_value=1, max_value=6))
def test_value_with_decimal_comma_never_drifts(value: float, places: int) -> None:
    text = f"Wert: {_comma(value, places)} ms"
    shown = scan_numbers(text, comma=True)
    assert len(shown) == 1
    assert check(shown[0], value, "ms").matches


@settings(max_examples=200, deadline=None)
@given(value=_VALUES, places=st.integers(min_value=1, max_value=5),
       units=st.integers(min_value=-9, max_value=9).filter(bool))
def test_value_off_by_more_than_half_a_unit_drifts(value: float, places: int,
                                                    units: int) -> None:
    unit = Decimal(1).scaleb(-places)
    moved = Decimal(value).quantize(unit) + units * unit
    text = "Wert: " + f"{moved:f}".replace(".", ",") + " ms"
    shown = scan_numbers(text, comma=True)
    assert len(shown) == 1
    if abs(moved - Decimal(value)) > unit / 2:
        assert not check(shown[0], value, "ms").matches


_ENGLISH_TEXT = st.lists(st.sampled_from([
    "31.42", "0.912", "1,000", "1,234.5", "[1,2]", "Ours", "PSNR", " ", "dB", "and", ", ",
    "91.3%", "3-5", "12:30", "1.2e-3", "\n", "v1.2", "x_1"]), max_size=20).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=_ENGLISH_TEXT)
def test_english_reading_is_unchanged(text: str) -> None:
    # a text with an English decimal is English whatever else it holds
    text = "PSNR 31.42 dB. " + text
    assert not writes_decimal_comma("md", text)
    assert not writes_decimal_comma("tex", text)
