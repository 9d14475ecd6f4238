# ruff: noqa: E501  (the fixtures keep their tables' rows one a line, as the sources do)
r"""Three judging gaps found by running reconcile on results tables and result sentences of real
LaTeX paper sources. Each fixture follows the shape of the file named above it (its layout,
macros and kind of labels) with method names and numbers of our own; the comment says what
reconcile found there before and finds now.

1. **A row whose label only contains a claim's alias.** A claim aliased "Ours" (or "CalSFT")
   was judged in every row whose label holds the word: "Ours w/o attention", "Ours-S",
   "Ours (variant)", "+ CalSFT" (the method stacked on another run), each another method, and
   drifted there. Now, of the cells naming a claim equally, those whose row label (or header
   part) is the anchor whole are its (`documents._strongest_cells`, `_whole_terms`).
2. **A claim the table names by its metric alone.** The main table's "Top-1" column named the
   ablation's claims (aliased by their variants, "w/o gating", written only in the ablation
   table) as well, and no baseline row matching them made them `ambiguous` on the baselines.
   Now a claim whose every term in a table names another claim of its metric, named there by
   more, and which has an alias the table writes nowhere, is not the table's
   (`documents._Outnamed`).
3. **A confidence level.** "bootstrap 95\% CI for the mean difference" in a sentence naming a
   method drifted against the method's accuracy claim. A percent before *CI*, *confidence
   interval*, *credible interval*... is a level, not a value (`number_roles.role_of`).
"""

from __future__ import annotations

from functools import partial

from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, line_of, matches

judge = partial(judge, path="paper.tex")


def moved(text: str, shown: str, to: str) -> str:
    assert text.count(shown) == 1, shown
    return text.replace(shown, to)


# === 1. a label holding the alias in a longer name ===============================================

# Claydon-Wang/ICLR26VerbalCalibration tables/main_results.tex (commit 538ff78f): table* in a
# \resizebox, \multicolumn groups "In-distribution" / "Out-of-distribution" over the same four
# metric columns, \cmidrule, \rowcolor rows, \textbf best cells, and each calibrated variant of a
# baseline written as a "+ CalibSFT" row under it, the method alone as a "CalibSFT" row.
# Before: a claim aliased by the method's row ("CalSFT"), the group and the metric drifted in
# every "+ CalSFT" row. Now: judged in the "CalSFT" row alone.
STACKED = r"""\begin{table*}[t]
    \centering
    \caption{Results averaged over the datasets of each split.}
    \resizebox{0.98\textwidth}{!}{%
    \begin{tabular}{lcccccc}
        \toprule
        & \multicolumn{3}{c}{In-dist.} & \multicolumn{3}{c}{Out-of-dist.} \\
        \cmidrule(lr){2-4} \cmidrule(lr){5-7}
        Method & Acc $\uparrow$ & AUROC $\uparrow$ & ECE $\downarrow$
        & Acc $\uparrow$ & AUROC $\uparrow$ & ECE $\downarrow$ \\
        \midrule
        Plain & 51.20 & 70.41 & 30.12 & 40.07 & \textbf{64.30} & 41.88 \\
        \rowcolor{calrow} CalSFT & 50.66 & \textbf{77.18} & \textbf{15.02} & \textbf{42.91} & 60.75 & \textbf{24.63} \\
        \midrule
        GRPO & 60.47 & 80.09 & 13.95 & 41.22 & 67.14 & 30.02 \\
        \rowcolor{calrow} + CalSFT & \textbf{62.38} & \textbf{84.51} & \textbf{11.36} & \textbf{43.10} & \textbf{70.27} & \textbf{20.48} \\
        \midrule
        PPO & 59.93 & 79.60 & 15.40 & 40.85 & 66.02 & 28.81 \\
        \rowcolor{calrow} + CalSFT & \textbf{61.74} & \textbf{83.02} & \textbf{12.57} & \textbf{42.66} & \textbf{69.93} & \textbf{19.95} \\
        \bottomrule
    \end{tabular}
    }
\end{table*}
"""
STACKED_CLAIMS = [
    claim("S1", "auroc_id", 77.1838, aliases=("CalSFT", "AUROC", "In-dist.")),
    claim("S2", "ece_ood", 24.6291, aliases=("CalSFT", "ECE", "Out-of-dist.")),
    claim("S3", "acc_id", 60.4702, aliases=("GRPO", "Acc", "In-dist."), run="grpo"),
]


def test_stacked_variant_rows_are_not_the_methods_row() -> None:
    report = judge(STACKED, STACKED_CLAIMS)
    assert findings(report) == []
    assert matches(report) >= {(("S1",), 13, "77.18"), (("S2",), 13, "24.63"),
                               (("S3",), 15, "60.47")}


def test_stacked_variant_rows_still_catch_the_methods_drift() -> None:
    for cid, shown, to in (("S1", r"\textbf{77.18}", r"\textbf{77.28}"),
                           ("S2", r"\textbf{24.63}", r"\textbf{24.53}"),
                           ("S3", "60.47", "60.57")):
        report = judge(moved(STACKED, shown, to), STACKED_CLAIMS)
        assert findings(report) == [("drift", (cid,), line_of(STACKED, shown),
                                     to.removeprefix(r"\textbf{").rstrip("}"))]


# The ablation rows of a main table: the method "Ours" with its variants in the rows above it
# ("Ours w/o attention", "Ours-S"), the shape of most papers' tables (and of the "Venue" column
# of the table in stored file id 54500701810, a paper draft whose repository the index does not
# name: "Ours (variant)" on the row above "\textbf{Ours}"). Before: a claim aliased "Ours" drifted
# in both variant rows (four findings). Now: judged in the "Ours" row alone.
VARIANTS = r"""\begin{tabular}{llcc}
\toprule
Method & Venue & PSNR & SSIM \\
\midrule
Bicubic & --- & 28.63 & 0.8102 \\
TinySR & ICCV '23 & 30.08 & 0.8571 \\
Ours w/o attention & Ours (variant) & 30.91 & 0.8730 \\
Ours-S & Ours (small) & 31.02 & 0.8792 \\
\textbf{Ours} & \textbf{Ours} & \textbf{31.46} & \textbf{0.8864} \\
\bottomrule
\end{tabular}
"""
VARIANT_CLAIMS = [claim("V1", "psnr", 31.4632, aliases=("Ours",)),
                  claim("V2", "ssim", 0.88641, aliases=("Ours",))]


def test_variant_rows_of_an_ablation_are_not_the_methods_row() -> None:
    report = judge(VARIANTS, VARIANT_CLAIMS)
    assert findings(report) == []
    assert matches(report) == {(("V1",), 9, "31.46"), (("V2",), 9, "0.8864")}
    report = judge(moved(VARIANTS, "31.46", "31.56"), VARIANT_CLAIMS)
    assert findings(report) == [("drift", ("V1",), 9, "31.56")]


def test_a_row_of_variants_alone_is_still_judged() -> None:
    """With no row labelled by the alias alone, the rows holding it are judged together, as any
    rows naming a claim alike: none matches, so each claim is one `ambiguous` finding naming
    both rows (it drifted in each, four findings, before test_leftouts_round5)."""
    text = VARIANTS.replace(r"\textbf{Ours} & \textbf{Ours} & \textbf{31.46} & \textbf{0.8864} \\"
                            "\n", "")
    report = judge(text, VARIANT_CLAIMS)
    assert findings(report) == [("ambiguous", ("V1",), 7, "30.91"),
                                ("ambiguous", ("V2",), 7, "0.8730")]
    assert "none of 30.91 at 7:39, 31.02 at 8:25 matches it" in report.findings[0].message


# === 2. a claim named by the table's metric alone ================================================

# The main results of a classification paper and its ablation, as in stored file id 12329365845
# (a paper's sources kept as Markdown, repository not named by the index: a "Top-1" results
# table, then an ablation whose rows are the variants, each with its "Top-1"). Before: the
# ablation's two claims were `ambiguous` on the main table's first baseline row (76.1). Now:
# they are not the main table's; each is matched in its own row.
MAIN_AND_ABLATION = r"""\begin{table}[t]
\caption{Main results on ImageNet.}
\begin{tabular}{lcc}
\toprule
Method & Top-1 (\%) & Params (M) \\
\midrule
ResNet-50 & 76.1 & 25.6 \\
DeiT-S & 79.8 & 22.1 \\
GateMix (ours) & \textbf{81.4} & 24.0 \\
\bottomrule
\end{tabular}
\end{table}

\begin{table}[t]
\caption{Ablation of GateMix.}
\begin{tabular}{lc}
\toprule
Variant & Top-1 (\%) \\
\midrule
w/o gating & 80.2 \\
w/o mixing & 79.5 \\
\bottomrule
\end{tabular}
\end{table}
"""
ABLATION_CLAIMS = [claim("G1", "top1", 0.81412, aliases=("GateMix",)),
                   claim("G2", "top1", 0.80213, aliases=("w/o gating",), run="g"),
                   claim("G3", "top1", 0.79514, aliases=("w/o mixing",), run="m")]


def test_an_ablations_claims_are_not_the_main_tables() -> None:
    report = judge(MAIN_AND_ABLATION, ABLATION_CLAIMS)
    assert findings(report) == []
    assert matches(report) == {(("G1",), 9, "81.4"), (("G2",), 20, "80.2"),
                               (("G3",), 21, "79.5")}
    for cid, shown, to, line in (("G1", r"\textbf{81.4}", r"\textbf{81.6}", 9),
                                 ("G2", "80.2", "80.4", 20), ("G3", "79.5", "79.7", 21)):
        report = judge(moved(MAIN_AND_ABLATION, shown, to), ABLATION_CLAIMS)
        assert findings(report) == [("drift", (cid,), line,
                                     to.removeprefix(r"\textbf{").rstrip("}"))]


def test_a_claim_with_no_alias_is_still_judged_in_the_metrics_column() -> None:
    """A claim the metric alone names (no alias says whose it is) keeps the column: the
    baseline's number, which no row's alias names, satisfies it. (Before, the ablation's claims
    were `ambiguous` on the second baseline row here.)"""
    claims = [*ABLATION_CLAIMS, claim("G0", "top1", 0.76104, run="base")]
    report = judge(MAIN_AND_ABLATION, claims)
    assert findings(report) == []
    assert (("G0",), 7, "76.1") in matches(report)


# === 3. a confidence level =======================================================================

# The sentence after the table in stored file id 54500701810 (see above): the gain over the
# baseline, Cohen's d, and "bootstrap 95\% CI for mean difference: [+0.08\%, +0.68\%]", in a
# sentence naming the baseline. Before: the baseline's accuracy claim drifted against "95%"
# there; here, naming both methods, "95%" was `ambiguous` (L1, L2). Now: the level is no value;
# the claimed accuracies in the next sentence are judged as before.
LEVEL = r"""The gain of EqNorm over FixBase is +0.41\% (Cohen's $d = 1.58$, bootstrap 95\% CI for the mean difference: [+0.07\%, +0.72\%]).
A 99\% confidence interval around FixBase's accuracy of 71.93\% excludes EqNorm's 72.34\%.
"""
LEVEL_CLAIMS = [claim("L1", "top1", 0.71928, aliases=("FixBase",), run="fix"),
                claim("L2", "top1", 0.72341, aliases=("EqNorm",))]


def test_a_confidence_level_is_not_a_value() -> None:
    report = judge(LEVEL, LEVEL_CLAIMS)
    assert findings(report) == []
    assert matches(report) == {(("L1",), 2, "71.93%"), (("L2",), 2, "72.34%")}
    report = judge(moved(LEVEL, "71.93", "71.83"), LEVEL_CLAIMS)
    assert findings(report) == [("drift", ("L1",), 2, "71.83%")]
