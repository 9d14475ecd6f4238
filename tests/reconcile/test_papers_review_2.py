"""Reconcile on paper text, second review round: false findings and missed drift in the way ML
papers write results tables and prose.

Each row is a document snippet, the claims in force, and the findings it must produce as
``(type, line, claim ids)`` (plus, where it matters, the numbers that matched, as
``(line, claim ids)``). Every row names the defect it guards against; each failed on the code
before its fix.
"""

from __future__ import annotations

from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from labledger.reconcile.numbers import check, parse_number, scan_numbers
from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_papers_review_1 import Case, assert_case

claim = partial(documents_claim, run="ours")


CLAIMS = {c.id: c for c in [
    claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)),
    claim("P0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="base"),
    claim("S1", "ssim", 0.9134, aliases=("Ours",)),
    claim("S0", "ssim", 0.8876, aliases=("Baseline",), run="base"),
    claim("A1", "top1", 0.763, aliases=("top-1 accuracy", "Ours")),
    claim("F1", "fid", 12.7, aliases=("Ours",)),
    claim("F0", "fid", 18.3, aliases=("Baseline",), run="base"),
    claim("Q1", "params", 25.6, unit="M", aliases=("parameters",)),
]}
ALL = tuple(CLAIMS)


def _md(header: str, align: str, ours: str, base: str = "30.10") -> str:
    return f"| Method | {header} |\n|{align}|\n| Baseline | {base} |\n| Ours | {ours} |\n"


def _tex(cell: str, header: str = "PSNR (dB)", base: str = "30.10") -> str:
    return ("\\begin{tabular}{lc}\n\\toprule\nMethod & " + header + " \\\\\n\\midrule\n"
            f"Baseline & {base} \\\\\nOurs & {cell} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


TABLE3 = ("| Method | PSNR (dB) ↑ | SSIM ↑ | FID ↓ |\n|:--|:-:|:-:|:-:|\n"
          "| Baseline | 30.10 | 0.888 | 18.3 |\n| Ours | **{p}** | **{s}** | **{f}** |\n")

CASES = [
    # --- Markdown: a centred column's rule `:-:` (one dash) was no alignment row, so the whole
    # table was read as a sentence and its drifted cells passed --------------------------------
    Case("a table centred with :-: is a table: a drifted cell is drift", "a.md",
         TABLE3.format(p="31.52", s="0.913", f="12.7"), [("drift", 4, ("P1",))],
         [(3, ("P0",)), (3, ("S0",)), (3, ("F0",)), (4, ("S1",)), (4, ("F1",))], ("31.52",)),
    Case("a table centred with :-: is a table: every cell is checked", "a.md",
         TABLE3.format(p="31.42", s="0.913", f="12.7"), [],
         [(3, ("P0",)), (3, ("S0",)), (3, ("F0",)), (4, ("P1",)), (4, ("S1",)), (4, ("F1",))]),
    Case("a one-dash rule |-|-| is an alignment row", "a.md",
         _md("PSNR (dB)", "-|-", "31.52"), [("drift", 4, ("P1",))], [(3, ("P0",))]),
    # --- a fraction shown in percent points without a % sign ("Top-1 Acc." over 76.3): a correct
    # cell was drift (76.3 vs 0.763), and in prose a wrong one passed unseen --------------------
    Case("a percent column without % that agrees is no drift", "a.md",
         _md("Top-1 Acc. ↑", ":--|--:", "**76.3**", "75.1"), [], [(4, ("A1",))]),
    Case("a percent column without % that differs is drift in percent", "a.md",
         _md("Top-1 Acc. ↑", ":--|--:", "**76.8**", "75.1"), [("drift", 4, ("A1",))]),
    Case("a LaTeX accuracy column without % that agrees is no drift", "t.tex",
         _tex("\\textbf{76.3}", "Top-1 Acc.", "75.1"), [], [(6, ("A1",))]),
    Case("a fraction in percent points in prose matches", "a.md",
         "Ours obtains 76.3 top-1 accuracy on ImageNet.\n", [], [(1, ("A1",))]),
    Case("a fraction in percent points in prose that differs drifts", "a.md",
         "Ours obtains 76.8 top-1 accuracy on ImageNet.\n", [("drift", 1, ("A1",))]),
    # --- `million` spelled out for a claim counted in M ----------------------------------------
    Case("25.6 million parameters is a claim of 25.6 M", "a.md",
         "Ours uses only 25.6 million parameters.\n", [], [(1, ("Q1",))]),
    Case("26.6 million parameters drifts from 25.6 M", "a.md",
         "Ours uses only 26.6 million parameters.\n", [("drift", 1, ("Q1",))]),
    # --- LaTeX math: a subscripted uncertainty or a superscript footnote mark after the number
    # made it read as an index (x_1) or an exponent (10^3): the number vanished ----------------
    Case("a subscripted uncertainty leaves the number a value", "t.tex",
         _tex("$31.52_{\\pm 0.05}$"), [("drift", 6, ("P1",))], [(5, ("P0",))], ("31.52",)),
    Case("a subscripted scriptstyle uncertainty", "t.tex",
         _tex("$\\mathbf{31.52}_{\\scriptstyle\\pm0.05}$"), [("drift", 6, ("P1",))]),
    Case("a subscripted uncertainty in a Markdown table", "a.md",
         _md("PSNR (dB) ↑", ":--|--:", "$31.52_{\\pm 0.05}$"), [("drift", 4, ("P1",))]),
    Case("a subscripted uncertainty that agrees matches", "t.tex",
         _tex("$31.42_{\\pm 0.05}$"), [], [(5, ("P0",)), (6, ("P1",))]),
    Case("a dagger superscript is a footnote mark", "t.tex",
         _tex("$31.52^\\dagger$"), [("drift", 6, ("P1",))]),
    Case("a braced star superscript is a footnote mark", "t.tex",
         _tex("$31.52^{*}$"), [("drift", 6, ("P1",))]),
    Case("a footnote-marked number in prose", "t.tex",
         "The PSNR of Ours is $31.52^{\\ddagger}$ on Kodak.\n", [("drift", 1, ("P1",))]),
    Case("a footnote-marked number in Markdown math", "a.md",
         "The PSNR of Ours is $31.52^*$ on Kodak.\n", [("drift", 1, ("P1",))]),
    # --- `\pm0.05` glued: the cell's "pm0" read as a word, so the cell as a label --------------
    Case("a glued \\pm uncertainty in a LaTeX cell", "t.tex",
         _tex("$31.52\\pm0.05$"), [("drift", 6, ("P1",))], [(5, ("P0",))]),
    Case("a glued \\pm uncertainty in a Markdown cell", "a.md",
         _md("PSNR (dB) ↑", ":--|--:", "$31.52\\pm0.05$"), [("drift", 4, ("P1",))]),
    # --- siunitx \num{} followed by a LaTeX space and its unit: the unit read as a label ---------
    Case("\\num{...}\\,dB in a cell is the cell's number", "t.tex",
         _tex("\\num{31.52}\\,dB"), [("drift", 6, ("P1",))], [(5, ("P0",))]),
    # --- "nearly 32 dB" is an approximation from below, not 32 at integer precision ------------
    Case("nearly is a bound, not a rounded value", "a.md",
         "Our model reaches nearly 32 dB PSNR on Kodak.\n", []),
    Case("almost is a bound, not a rounded value", "a.md",
         "Our model reaches almost 32 dB PSNR on Kodak.\n", []),
    Case("close to is a bound, not a rounded value", "a.md",
         "Our model reaches close to 32 dB PSNR on Kodak.\n", []),
    Case("about is still a rounded value", "a.md",
         "Ours reaches about 31.5 dB PSNR on Kodak.\n", [("drift", 1, ("P1",))]),
    # --- arrows glued to a header's metric ("PSNR↑", "FID↓"): the anchor was not a whole word,
    # so the table named no claim and none of its cells was checked ------------------------------
    Case("glued arrows in a header still name the metric: drift", "a.md",
         "| Method | PSNR↑ | SSIM↑ | FID↓ |\n|---|---|---|---|\n"
         "| Baseline | 30.10 | 0.888 | 18.3 |\n| Ours | 31.52 | 0.913 | 12.7 |\n",
         [("drift", 4, ("P1",))], [(3, ("P0",)), (3, ("S0",)), (3, ("F0",)), (4, ("S1",)),
                                   (4, ("F1",))]),
    Case("a dagger glued to the metric in prose", "a.md",
         "The PSNR† of Ours is 31.52 dB.\n", [("drift", 1, ("P1",))]),
    # --- a column of standard deviations named by the metric ("psnr_std" names PSNR): its
    # spreads were judged as the claims' values (0.11 "drifts" from 30.10) ----------------------
    Case("a psnr_std column holds no PSNR values", "r.csv",
         "method,psnr_mean,psnr_std,ssim_mean\nbaseline,30.10,0.11,0.8876\n"
         "ours,31.42,0.09,0.9134\n", [],
         [(2, ("P0",)), (2, ("S0",)), (3, ("P1",)), (3, ("S1",))]),
    Case("a psnr_std column beside a drifted mean", "r.csv",
         "method,psnr_mean,psnr_std\nbaseline,30.10,0.11\nours,31.52,0.09\n",
         [("drift", 3, ("P1",))], [(2, ("P0",))], ("31.52",)),
    Case("a 'PSNR std' column in Markdown", "a.md",
         "| Method | PSNR (dB) | PSNR std |\n|---|---|---|\n| Baseline | 30.10 | 0.11 |\n"
         "| Ours | 31.42 | 0.09 |\n", [], [(3, ("P0",)), (4, ("P1",))]),
    Case("a 'mean ± std' column still holds values", "a.md",
         "| Method | PSNR (mean ± std) |\n|---|---|\n| Baseline | 30.10 ± 0.11 |\n"
         "| Ours | 31.52 ± 0.09 |\n", [("drift", 4, ("P1",))], [(3, ("P0",))]),
    # --- slash pairs: "31.42/0.913 PSNR/SSIM" (the way papers quote two metrics) were read as a
    # fraction and dropped, so a drifted one passed ---------------------------------------------
    Case("a PSNR/SSIM slash pair that agrees", "a.md",
         "Ours achieves 31.42/0.913 PSNR/SSIM on Kodak.\n", [], [(1, ("P1",)), (1, ("S1",))]),
    Case("a PSNR/SSIM slash pair whose PSNR drifts", "a.md",
         "Ours achieves 31.52/0.913 PSNR/SSIM on Kodak.\n", [("drift", 1, ("P1",))],
         [(1, ("S1",))], ("31.52",)),
    Case("a PSNR/SSIM slash pair whose SSIM drifts", "a.md",
         "Ours achieves 31.42/0.931 PSNR/SSIM on Kodak.\n", [("drift", 1, ("S1",))],
         [(1, ("P1",))], ("0.931",)),
    Case("a slash triple whose last drifts", "a.md",
         "Ours achieves 31.42/0.913/12.9 PSNR/SSIM/FID on Kodak.\n", [("drift", 1, ("F1",))]),
    Case("two methods' slash pairs", "a.md",
         "Ours reaches a PSNR/SSIM of 31.42/0.913 on Kodak, versus 30.10/0.888 for the "
         "Baseline.\n", [], [(1, ("P1",)), (1, ("S1",)), (1, ("P0",)), (1, ("S0",))]),
]


# --- LaTeX \multirow labels: the rows under a \multirow{2}{*}{Baseline} had no label, so a value
# swapped between two methods' rows passed (each matched the other method's claim) -------------
DATASETS = {c.id: c for c in [
    claim("K1", "psnr", 31.42, unit="dB", aliases=("Ours", "Kodak"), run="ours-kodak"),
    claim("B1", "psnr", 28.73, unit="dB", aliases=("Ours", "CBSD68"), run="ours-bsd"),
    claim("K0", "psnr", 30.10, unit="dB", aliases=("Baseline", "Kodak"), run="base-kodak"),
    claim("B0", "psnr", 27.90, unit="dB", aliases=("Baseline", "CBSD68"), run="base-bsd"),
]}
MULTIROW = ("\\begin{{tabular}}{{llc}}\n\\toprule\nMethod & Dataset & PSNR \\\\\n\\midrule\n"
            "\\multirow{{2}}{{*}}{{Baseline}} & Kodak & 30.10 \\\\\n & CBSD68 & {base} \\\\\n"
            "\\midrule\n\\multirow[c]{{2}}{{*}}{{Ours}} & Kodak & 31.42 \\\\\n"
            "\\cmidrule{{2-3}}\n & CBSD68 & {ours} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


@pytest.mark.parametrize(("base", "ours", "findings"), [
    ("27.90", "28.73", []),
    ("28.73", "27.90", [("drift", 6, ("B0",)), ("drift", 10, ("B1",))]),  # swapped rows
    ("27.98", "28.73", [("drift", 6, ("B0",))]),
    ("27.90", "28.93", [("drift", 10, ("B1",))]),
])
def test_multirow_label_names_the_rows_under_it(
        base: str, ours: str, findings: list[tuple[str, int, tuple[str, ...]]]) -> None:
    text = MULTIROW.format(base=base, ours=ours)
    report = reconcile_segments(read_document("t.tex", text.encode()), list(DATASETS.values()))
    assert [(f.type, f.line, f.claims) for f in report.findings] == findings, \
        "\n".join(f.render() for f in report.findings)
    if not findings:
        assert sorted((m.line, m.claims) for m in report.matches) == [
            (5, ("K0",)), (6, ("B0",)), (8, ("K1",)), (10, ("B1",))]


def run_case(case: Case) -> Report:
    segments = read_document(case.path, case.text.encode())
    return reconcile_segments(segments, [CLAIMS[c] for c in ALL])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert_case(run_case(case), case)


def test_a_diffusion_column_is_no_difference_column() -> None:
    # "diff" abbreviates a difference column; "Diffusion" names a method, whose cells are values
    methods = [claim("D1", "fid", 12.7, aliases=("Diffusion",), run="diffusion")]
    text = "| Dataset | GAN | Diffusion |\n|---|---|---|\n| FID | 20.1 | 12.9 |\n"
    report = reconcile_segments(read_document("a.md", text.encode()), methods)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("D1",))]


@pytest.mark.parametrize(("text", "numbers"), [
    ("31.42/0.913", ["31.42", "0.913"]),
    ("(31.42/0.913/12.7)", ["31.42", "0.913", "12.7"]),
    ("3/4", []),                 # a fraction
    ("12/05/2024", []),          # a date
    ("1.2/3", []),
    ("1.2.3/4.5", []),           # a version
    ("a/1.5/2.5", []),           # a path
    ("10^3", []),                # an exponent
    ("2^n", []),
    ("x_1", []),                 # a subscript
    ("$31.42_{\\pm 0.05}$", ["31.42", "0.05"]),
    ("$31.42^\\dagger$", ["31.42"]),
])
def test_what_reads_as_numbers(text: str, numbers: list[str]) -> None:
    assert [s.text for s in scan_numbers(text)] == numbers


@pytest.mark.parametrize(("shown", "value", "unit", "matches", "plausible"), [
    ("76.3", 0.763, None, True, True),            # percent points of a fraction
    ("76.8", 0.763, None, False, True),           # ... and their drift
    ("76.3", 0.763, "fraction", True, True),
    ("76.3", 76.3, None, True, True),             # a claim above 1 is compared as it is
    ("1", 0.88, None, False, False),              # a whole 1 is still no fraction's number
    ("300", 0.763, None, False, False),           # nor any number beyond 100
    ("76.3 ms", 0.763, None, False, False),       # another unit shown: not percent points
    ("25.6 million", 25.6, "M", True, True),
    ("25.6 thousand", 25.6, "k", True, True),
    ("25.6 million", 25_600_000, None, True, True),
])
def test_check_percent_points_and_spelled_multipliers(shown: str, value: float,
                                                      unit: str | None, matches: bool,
                                                      plausible: bool) -> None:
    token = parse_number(shown)
    assert token is not None
    got = check(token, value, unit)
    assert (got.matches, got.plausible) == (matches, plausible)
