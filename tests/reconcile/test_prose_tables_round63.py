"""How READMEs and papers write a table's value with a mark, a gain or a note (round 63).

* a mark before the value made the cell a label, its value unjudged (a missed drift): "about"
  ("| Heuristic (argmax R_struct) | ≈0.444 | −0.015 | +0.059 |", a recommender README's
  BERTScore table, "| Empirical base rate | — | ≈0.6455 | — | ≈1.068 |", a football model's
  comparison table; "$\\approx 0.444$" in Markdown math), a medal ("🥇 0.912": READMEs rank
  their rows so, RoboSafeBench's docs/benchmark/results.md heads them "| 🥇 | Method A |
  **96.5%** |"), a footnote's mark set before the value ("\\llap{$^*$}0.912", the zero-width box
  papers keep a column's digits aligned with, as "\\llap{-}1" sets a minus sign in a matrix of a
  public lecture's slides; "$^{\\dagger}$0.912", "\\textsuperscript{*}0.912");
* a gain in a subscript after the value ("$0.912_{\\uparrow 1.2}$", "$31.42_{+0.3}$"): the
  number was unread (a subscript is an index: "x_1"), the cell a label. Papers write a gain so
  (a LaTeX-to-Word converter's tests define the macro ``\\dvalp{86.1}{4.1}`` as
  "\\hphantom{\\textsubscript{+#2}}#1\\textsubscript{\\textcolor{red}{+#2}}"); the phantom that
  makes room for the gain before the value held braces, so its "+4.1" was read as the cell's
  number (the value unjudged);
* a change whose end is set in parentheses ("76.1 → (77.3)") was read where it started (a
  false drift at 76.1);
* a setting's cell with a note ("| Learning rate | 2e-4 (cosine decay) |", a QLoRA fine-tuning
  README's training table; "| Learning Rate | 0.001 (cosine decay) |", a YOLOv8-OBB README's;
  "| Learning rate schedule | 8e-4 → 8e-5 (cosine decay) |", a pretraining report's) was a
  label: an lr claim went unjudged;
* the second of a pair written with its unit each, "108 FPS/74 FPS" (RT-DETR's abstract as a
  README quotes it), was unread;
* a setting written key=value where the result is measured ("at stop=20, 16.8% vs. the
  baseline's 7.1%") was a plausible value: a wrong claim was ambiguous at 20;
* found reading real READMEs and papers after those: "specificity" and "sensitivity" named no
  metric ("88.3 % accuracy / 91.8 % specificity / 84.7 % recall (K=6)": a wrong recall was
  ambiguous); a spread's "SD" sub-column under a spanning "Precision" was the precision's (a
  second, false drift at the SD); a claim keyed "params" was not named by "1.0M parameters"
  (TinyNeXt's README); a split in parentheses after a value ("0.5832 (dev)") made a label.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.numbers import scan_numbers
from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_round62_followup import _rt_detr
from tests.reconcile.test_tables_round62 import SR, _read, claim, run


def _tex(ssim: str, psnr: str = "31.42") -> str:
    return ("\\begin{tabular}{lcc}\n\\toprule\nMethod & PSNR & SSIM \\\\\n\\midrule\n"
            f"Ours & {psnr} & {ssim} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


def _md(ssim: str, psnr: str = "31.42") -> str:
    return f"| Method | PSNR | SSIM |\n|---|---|---|\n| Ours | {psnr} | {ssim} |\n"


def _table(path: str, cell: str) -> str:
    return (_md if path == "a.md" else _tex)(cell)


def _judged(path: str, cell: str, value: str, drifts: bool) -> None:
    findings, matched = _read(run(path, _table(path, cell.format(v=value)), SR))
    assert findings == ([("drift", ("S1",), value)] if drifts else [])
    assert matched == ([("P1",)] if drifts else [("P1",), ("S1",)])


VALUES = [("0.912", False), ("0.922", True)]

# --- 1. a mark before the value ------------------------------------------------------------------

MD_MARKED = ["≈{v}", "≈ {v}", "$\\approx {v}$", "🥇 {v}", "🥈{v}", "🥉 **{v}**", "🏆 {v}",
             "**≈{v}**"]
TEX_MARKED = ["\\llap{{$^*$}}{v}", "$^{{\\dagger}}${v}", "\\textsuperscript{{*}}{v}",
              "${{}}^{{*}}${v}", "\\llap{{$^*$}}\\textbf{{{v}}}"]
# (held before the round: LaTeX's mask blanks \approx as any command)
TEX_MARKED_HELD = ["$\\approx${v}", "$\\approx$ {v}"]


@pytest.mark.parametrize(("path", "cell"), [("a.md", c) for c in MD_MARKED]
                         + [("a.tex", c) for c in TEX_MARKED + TEX_MARKED_HELD])
@pytest.mark.parametrize(("value", "drifts"), VALUES)
def test_a_value_with_a_mark_before_it_is_judged(path: str, cell: str, value: str,
                                                 drifts: bool) -> None:
    _judged(path, cell, value, drifts)


def test_the_bertscore_table_with_an_approximate_heuristic() -> None:
    """The recommender README's table: the heuristic's F1 written "≈0.444"; a claim of 0.454
    on it is reported (before, the cell was a label and the claim went unjudged), the other
    rows' claims still match."""
    text = ("| Method | F1 mean ± std | Δ vs G-Refer | Δ vs XRec |\n|---|---|---|---|\n"
            "| XRec (cached) | 0.3856 | — | — |\n"
            "| G-Refer 8B (cached) | 0.4592 | — | +0.0736 |\n"
            "| Heuristic (argmax R_struct) | ≈0.444 | −0.015 | +0.059 |\n"
            "| PPO 5-seed | 0.4581 ± 0.0008 | −0.0011 | +0.0725 |\n")

    def claims(heuristic: float) -> list:
        return [documents_claim("H", "f1", heuristic, aliases=("Heuristic (argmax R_struct)",),
                                run="heuristic"),
                documents_claim("G", "f1", 0.4592, aliases=("G-Refer 8B (cached)",),
                                run="grefer")]

    assert _read(run("README.md", text, claims(0.444))) == ([], [("G",), ("H",)])
    assert _read(run("README.md", text, claims(0.454))) == (
        [("drift", ("H",), "0.444")], [("G",)])


@pytest.mark.parametrize(("path", "cell"), [
    ("a.md", "best {v}"), ("a.md", "≈ best {v}"), ("a.md", "top {v}"), ("a.md", "{v} (best)"),
    ("a.tex", "best {v}"), ("a.tex", "$^{{2}}${v}")])
def test_near_miss_a_word_or_a_power_before_the_value_still_makes_a_label(path: str,
                                                                         cell: str) -> None:
    """Only a mark: a word before the number (or a superscript number) leaves the cell a
    label, as before (a claim is not judged by it)."""
    assert _read(run(path, _table(path, cell.format(v="0.922")), SR)) == ([], [("P1",)])


# --- 2. a gain in a subscript after the value -------------------------------------------------

SUB_GAINS = ["${v}_{{\\uparrow 1.2}}$", "${v}_{{\\downarrow 0.3}}$", "${v}_{{+1.2}}$",
             "${v}_{{\\scriptstyle +1.2}}$", "${v}_{{\u2191 1.2}}$"]
# (LaTeX only: a Markdown cell's math keeps the colour's name, a word after the value)
TEX_SUB_GAINS = ["${v}_{{\\textcolor{{red}}{{\\uparrow 1.2}}}}$"]
# (held before the round: the subscript's command word was blanked apart from the value)
TEX_SUB_HELD = ["{v}\\textsubscript{{\\textcolor{{red}}{{+1.2}}}}", "${v}_{{\\pm 0.004}}$"]
# (held before the round in both: the value stands outside the subscript's math)
SUB_HELD = ["{v}$_{{\\uparrow 1.2}}$"]


@pytest.mark.parametrize(("path", "cell"), [(p, c) for p in ("a.md", "a.tex")
                                           for c in SUB_GAINS + SUB_HELD]
                         + [("a.tex", c) for c in TEX_SUB_GAINS + TEX_SUB_HELD])
@pytest.mark.parametrize(("value", "drifts"), VALUES)
def test_a_gain_in_a_subscript_after_the_value_leaves_the_value(path: str, cell: str,
                                                                value: str, drifts: bool) -> None:
    _judged(path, cell, value, drifts)


@pytest.mark.parametrize(("value", "drifts"), [("86.1", False), ("86.4", True)])
def test_the_dvalp_macro_written_out_reads_its_value(value: str, drifts: bool) -> None:
    """The converter's test table, the macro written out as it expands: room made for the
    gain before the value, "\\hphantom{\\textsubscript{+4.1}}"."""
    cell = (f"\\hphantom{{\\textsubscript{{+4.1}}}}{value}"
            "\\textsubscript{\\textcolor{red}{+4.1}}")
    text = f"\\begin{{tabular}}{{lc}}\nMethod & Accuracy \\\\\nA & {cell} \\\\\n\\end{{tabular}}\n"
    claims = [claim("A", "accuracy", 86.1, aliases=("A",))]
    findings, matched = _read(run("a.tex", text, claims))
    assert findings == ([("drift", ("A",), value)] if drifts else [])
    assert matched == ([] if drifts else [("A",)])


@pytest.mark.parametrize("text", ["$0.912_{1}$", "$0.912_{t}$", "$0.912_{ij}$", "$10_{+}$",
                                  "$10_{\\uparrow 2}$"])
def test_near_miss_a_subscript_index_leaves_the_number_before_it_unread(text: str) -> None:
    """An index in a subscript ("x_1", "0.912_{1}") and a whole number before a subscript stay
    unread, as before; only a decimal's subscript holding a gain's arrow or sign leaves the
    decimal a number."""
    assert [s.text for s in scan_numbers(text)][:1] not in (["0.912"], ["10"])


# --- 3. a change's end in parentheses -----------------------------------------------------------

ACC = [claim("A", "accuracy", 77.3, unit="%", aliases=("Ours",))]


def _ablation(path: str, cell: str) -> str:
    if path == "a.md":
        return f"| Variant | Top-1 Acc |\n|---|---|\n| Ours | {cell} |\n"
    return ("\\begin{tabular}{lc}\n\\toprule\nVariant & Top-1 Acc \\\\\n\\midrule\n"
            f"Ours & {cell} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


@pytest.mark.parametrize(("path", "form"), [
    ("a.md", "76.1 → ({b})"), ("a.md", "76.1 → (**{b}**)"), ("a.md", "76.1 -> ({b})"),
    ("a.tex", "76.1 $\\to$ ({b})"), ("a.tex", "76.1 $\\rightarrow$ (\\textbf{{{b}}})")])
@pytest.mark.parametrize(("after", "drifts"), [("77.3", False), ("77.9", True)])
def test_a_change_whose_end_is_in_parentheses_is_its_end(path: str, form: str, after: str,
                                                         drifts: bool) -> None:
    findings, matched = _read(run(path, _ablation(path, form.format(b=after)), ACC))
    assert findings == ([("drift", ("A",), after)] if drifts else [])
    assert matched == ([] if drifts else [("A",)])


@pytest.mark.parametrize("cell", ["77.3 → (+1.2)", "77.3 → (−1.2)", "77.3 -- (0.4)",
                                  "77.3 ~ (0.4)", "77.3 (76.1)"])
def test_near_miss_a_signed_or_unarrowed_parenthesis_is_no_changes_end(cell: str) -> None:
    """A delta in parentheses after an arrow, a spread after a dash or a tilde, a number in
    parentheses with no arrow: the value stays the first number, as before the round."""
    assert _read(run("a.md", _ablation("a.md", cell), ACC)) == ([], [("A",)])


# --- 4. a setting's cell with a note -------------------------------------------------------------

LR = [claim("L", "learning_rate", 0.0002)]


@pytest.mark.parametrize(("label", "cell"), [
    ("Learning rate", "{v} (cosine decay)"), ("**Learning Rate**", "{v} (cosine decay)"),
    ("Learning rate schedule", "{v} → 8e-6 (cosine decay)"), ("Learning rate", "{v} (warmup 2K)"),
    ("Learning rate", "{v} (cosine to 1e-5)")])
@pytest.mark.parametrize(("value", "drifts"), [("2e-4", False), ("3e-4", True)])
def test_a_settings_value_with_a_note_is_its_value(label: str, cell: str, value: str,
                                                   drifts: bool) -> None:
    text = ("| Parameter | Value |\n|---|---|\n| Training pairs | 4,652 |\n| Epochs | 3 |\n"
            f"| {label} | {cell.format(v=value)} |\n| LoRA rank / alpha | 32 / 32 |\n")
    findings, matched = _read(run("README.md", text, LR))
    assert findings == ([("drift", ("L",), value)] if drifts else [])
    assert matched == ([] if drifts else [("L",)])


@pytest.mark.parametrize("cell", ["77.9 (cosine decay)", "77.9 (ours)", "77.9 (cosine) best"])
def test_near_miss_a_results_cell_with_a_note_is_still_a_label(cell: str) -> None:
    """Not a setting's row or column: words after the value make the cell a label, as before."""
    assert _read(run("a.md", _ablation("a.md", cell), ACC)) == ([], [])


# --- 5. a pair of numbers each with its unit, joined by a slash ---------------------------------

RT_DETR = ("RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and {fps} on T4 GPU, "
           "outperforming advanced YOLOs.\n")


@pytest.mark.parametrize("aliases", [((), ()), (("RT-DETR-R50",), ("RT-DETR-R101", "R101"))])
@pytest.mark.parametrize("fps", ["108 FPS/{v} FPS", "108 fps/{v} fps", "108 FPS/{v}FPS"])
@pytest.mark.parametrize(("value", "drifts"), [("74", False), ("77", True)])
def test_the_second_of_a_pair_with_its_unit_each_is_read(
        aliases: tuple[tuple[str, ...], tuple[str, ...]], fps: str, value: str,
        drifts: bool) -> None:
    """RT-DETR's abstract as a README quotes it, "... and 108 FPS/74 FPS on T4 GPU": the 74
    was glued to the slash after "FPS", unread, so a wrong R101 FPS went unreported."""
    text = RT_DETR.format(fps=fps.format(v=value))
    findings, matched = _read(run("README.md", text, _rt_detr(*aliases)))
    assert findings == ([("drift", ("F101",), value)] if drifts else [])
    assert ("F50",) in matched
    assert (("F101",) in matched) is not drifts


@pytest.mark.parametrize("text", ["108 FPS/74 FPS", "12 GB/24 GB", "12 GB/24GB", "108 FPS/74FPS"])
def test_a_slash_pair_with_a_unit_each_reads_both(text: str) -> None:
    want = ["108", "74"] if "FPS" in text else ["12", "24"]
    assert [s.text for s in scan_numbers(text)] == want


@pytest.mark.parametrize(("text", "numbers"), [
    ("12 GB / 24 GB", ["12", "24"]), ("108 FPS/74", ["108"]), ("3 km/5 m", ["3"]),
    ("a 3 m/s wind", ["3"]), ("12 GB/24 GBs", ["12"]), ("v2 ms/3 ms", []),
    ("ResNet 50/101 layers", [])])
def test_near_miss_a_slash_after_a_unit_pairs_only_the_same_unit(text: str,
                                                                 numbers: list[str]) -> None:
    """Only the unit before the slash following the number after it makes a pair: a rate's
    "m/s", a number with no unit or another unit after it stay as they were read."""
    assert [s.text for s in scan_numbers(text)] == numbers


# --- 6. a setting written key=value where the result is measured --------------------------------

SETTINGS = ["At stop=20, Ours reaches a recall of {v}% vs. the baseline's 7.1%.",
            "Ours reaches a recall at stop=20 of {v}% vs. the baseline's 7.1%.",
            "Recall (k=20) is {v}% for Ours.", "Recall with top_k=20 is {v}% for Ours.",
            "With Ours, recall at K=20 is {v}%."]


@pytest.mark.parametrize("text", SETTINGS)
@pytest.mark.parametrize(("value", "drifts"), [("16.8", False), ("16.9", True)])
def test_a_settings_key_and_value_is_no_claimed_value(text: str, value: str,
                                                      drifts: bool) -> None:
    """"at stop=20, 16.8% vs. the baseline's 7.1%": the 20 was a plausible number of the recall
    claim, so a wrong recall was ambiguous between 20 and 16.8% instead of a drift. A key and
    its value after "at", "with", "(" ... is where the result is measured, as "at 65% sparsity"
    is (papers and notes write so: ReasoningBank's "success rate drops from 49.7% at k=1 to
    44.4% at k=4", a detector's write-up's "84.7 % recall (K=6)")."""
    claims = [claim("R", "recall", 16.8, unit="%", aliases=("Ours",))]
    findings, matched = _read(run("a.md", text.format(v=value) + "\n", claims))
    assert findings == ([("drift", ("R",), value + "%")] if drifts else [])
    assert matched == ([] if drifts else [("R",)])


@pytest.mark.parametrize(("text", "want"), [
    ("Ours (recall=16.9%) beats the baseline.\n", [("drift", ("R",), "16.9%")]),
    ("Ours reaches recall=16.9% at stop=20.\n", [("drift", ("R",), "16.9%")]),
    ("epoch=20, loss=0.31, recall=16.9\n", [("drift", ("R",), "16.9")])])
def test_near_miss_a_metrics_key_still_gives_its_value(text: str, want: list) -> None:
    """A key that is the claim's metric ("(recall=16.9%)"), or one with no "at", "with" or "("
    before it (a log's record) keeps its number a value."""
    claims = [claim("R", "recall", 16.8, unit="%", aliases=("Ours",))]
    assert _read(run("a.md", text, claims))[0] == want


# --- 7. a classifier's rates named beside the claim's ------------------------------------------

@pytest.mark.parametrize("text", [
    "The decision layer reaches 88.3 % accuracy / 91.8 % specificity / {v} % recall (K=6).",
    "The system reaches 91.8% specificity and {v}% recall.",
    "The system reaches a sensitivity of 91.8% and a recall of {v}%."])
@pytest.mark.parametrize(("value", "drifts"), [("84.7", False), ("84.9", True)])
def test_a_number_named_specificity_is_not_a_recall_claims(text: str, value: str,
                                                           drifts: bool) -> None:
    """A detector's write-up: "multi-cycle aggregation + unsupervised per-installation
    calibration reaches 88.3 % accuracy / 91.8 % specificity / 84.7 % recall (K=6)". Specificity
    and sensitivity were no metric's names, so a wrong recall claim was ambiguous between 91.8%
    and 84.7% (the accuracy's 88.3% was already another metric's)."""
    claims = [claim("R", "recall", 84.7, unit="%")]
    findings, matched = _read(run("a.md", text.format(v=value) + "\n", claims))
    assert findings == ([("drift", ("R",), value + "%")] if drifts else [])
    assert matched == ([] if drifts else [("R",)])


# --- 8. a spread's sub-column under a spanning metric -------------------------------------------

TOOLS = r"""\begin{tabular}{lcccccc}
\toprule
\multirow{2}{*}{Tool} & \multicolumn{2}{c}{Precision} &
  \multicolumn{2}{c}{Recall} & \multicolumn{2}{c}{F1} \\
\cmidrule(lr){2-3}\cmidrule(lr){4-5}\cmidrule(lr){6-7}
      & Mean & SD & Mean & SD & Mean & SD \\
\midrule
Tool A & 0.72 & 0.05 & 0.68 & 0.04 & 0.70 & 0.03 \\
Tool B & 0.81 & 0.03 & 0.74 & 0.06 & 0.77 & 0.04 \\
\textbf{Ours} & \textbf{0.85} & \textbf{0.02} & \textbf{0.79} & \textbf{0.03}
  & \textbf{0.82} & \textbf{0.02} \\
\bottomrule
\end{tabular}
"""


@pytest.mark.parametrize(("sd", "precision", "want"), [
    ("SD", 0.85, []), ("SD", 0.86, [("drift", ("P",), "0.85")]),
    # (held before the round: "Std" read with "Precision" was a spread's header already)
    ("Std", 0.86, [("drift", ("P",), "0.85")]), ("std", 0.86, [("drift", ("P",), "0.85")])])
def test_a_spreads_sub_column_is_no_value_of_the_metric_over_it(sd: str, precision: float,
                                                                want: list) -> None:
    """A paper-writing guide's LaTeX example: Precision, Recall and F1 each spanning a "Mean" and
    an "SD" column. A wrong precision claim drifted twice, at 0.85 and at the SD column's 0.02:
    the "SD" part was read with the "Precision" over it, no spread's header."""
    claims = [claim("P", "precision", precision, aliases=("Ours",)),
              claim("R", "recall", 0.79, aliases=("Ours",))]
    findings, matched = _read(run("a.tex", TOOLS.replace("& SD ", f"& {sd} "), claims))
    assert findings == want
    assert matched == ([("P",), ("R",)] if not want else [("R",)])


def test_a_wrong_recall_drifts_at_its_mean_alone() -> None:
    """The "Mean" column under "Recall" is the recall's, its "SD" column no value (a wrong
    recall drifted at 0.79 and at 0.03 before)."""
    claims = [claim("R", "recall", 0.78, aliases=("Ours",))]
    assert _read(run("a.tex", TOOLS, claims)) == ([("drift", ("R",), "0.79")], [])


# --- 9. a parameter count spelled out in prose ---------------------------------------------------

@pytest.mark.parametrize(("text", "alias", "shown"), [
    ("For instance, our TinyNeXt-T achieves a remarkable 71.5% top-1 accuracy with only 1.0M "
     "parameters on ImageNet-1K.\n", "TinyNeXt-T", "1.0M"),
    ("iLLaMA rivals the performance with its encoder-only counterparts, achieving 75.1% "
     "ImageNet top-1 accuracy with only 5.7M parameters.\n", "iLLaMA", "5.7M")])
@pytest.mark.parametrize("metric", ["params", "num_params", "parameters", "n_params"])
@pytest.mark.parametrize("drifts", [False, True])
def test_a_parameter_count_keyed_params_is_named_by_parameters(text: str, alias: str, shown: str,
                                                               metric: str,
                                                               drifts: bool) -> None:
    """TinyNeXt's README and iLLaMA's abstract write a model's size as "1.0M parameters"; a claim
    keyed "params" (a results file's usual key) was named by "Params" alone, so a wrong count
    went unreported."""
    value = float(shown[:-1]) + (0.2 if drifts else 0.0)
    claims = [documents_claim("N", metric, value, unit="M", aliases=(alias,))]
    findings, matched = _read(run("README.md", text, claims))
    assert findings == ([("drift", ("N",), shown)] if drifts else [])
    assert matched == ([] if drifts else [("N",)])


@pytest.mark.parametrize("metric", ["param_norm", "params_lr", "grad_params"])
def test_near_miss_other_keys_with_param_are_not_counts(metric: str) -> None:
    """Only a count's key ("params", "num_params", "params_m"): "param_norm" is a norm."""
    text = "Ours reaches 71.5% top-1 accuracy with only 1.0M parameters.\n"
    claims = [documents_claim("N", metric, 1.2, aliases=("Ours",))]
    assert _read(run("README.md", text, claims)) == ([], [])


# --- 10. a split named in parentheses after a value ----------------------------------------------

BRIER = ("| Model | Best method | Brier | 95% CI | LogLoss | ECE |\n|---|---|---|---|---|---|\n"
         "| Uniform baseline | — | 0.6667 | — | 1.099 | — |\n"
         "| **M2 Elo** | Platt (chron) | **0.5977** | [0.581, 0.615] | 1.001 | 0.037 |\n"
         "| Pinnacle closing benchmark | — | 0.5832 {note} | — | — | — |\n")


@pytest.mark.parametrize(("note", "metric", "value", "want"), [
    (note, metric, value, want)
    for note in ("(dev)", "(val)", "(dev set)", "(Dev)")
    for metric, value, want in (("brier", 0.5832, []),
                                ("brier", 0.5842, [("drift", ("PB",), "0.5832")]),
                                (("val_brier" if "val" in note else "dev_brier"), 0.5842,
                                 [("drift", ("PB",), "0.5832")]))])
def test_a_value_with_its_split_in_parentheses_is_judged(note: str, metric: str, value: float,
                                                         want: list) -> None:
    """A football model's comparison table: the market's benchmark "0.5832 (dev)". The split's
    word made the cell a label: the benchmark's Brier claim went unjudged."""
    claims = [documents_claim("PB", metric, value, aliases=("Pinnacle closing benchmark",),
                              run="pinnacle"),
              documents_claim("B", "brier", 0.5977, aliases=("M2 Elo",), run="elo")]
    findings, matched = _read(run("README.md", BRIER.format(note=note), claims))
    assert findings == want
    assert matched == ([("B",)] if want else [("B",), ("PB",)])


@pytest.mark.parametrize(("note", "metric"), [("(dev)", "test_brier"), ("(best)", "brier"),
                                              ("(dev only)", "brier"), ("(train)", "val_brier")])
def test_near_miss_another_splits_or_a_words_note(note: str, metric: str) -> None:
    """The dev split's value is no test claim's; a note that is no split alone ("(best)", "(dev
    only)") leaves the cell a label, as before."""
    claims = [documents_claim("PB", metric, 0.5842, aliases=("Pinnacle closing benchmark",),
                              run="pinnacle")]
    assert _read(run("README.md", BRIER.format(note=note), claims)) == ([], [])


@pytest.mark.parametrize(("value", "drifts"), [(592660, False), (592670, True)])
def test_near_miss_a_qualified_count_keeps_its_qualifier(value: float, drifts: bool) -> None:
    """torchsummary prints "Total params" and "Trainable params" (pratikiiitb2013/ERA's S5
    README): a claim keyed "total_params" is named by "total params" and "total parameters",
    never by the trainable count's "params"."""
    text = ("```\nTotal params: 592,660\nTrainable params: 592,660\nNon-trainable params: 0\n"
            "```\n\nThe model has 592,660 total parameters.\n")
    claims = [documents_claim("P", "total_params", value)]
    report = run("README.md", text, claims)
    assert [(f.type, f.claims, f.line) for f in report.findings] == (
        [("drift", ("P",), 2), ("drift", ("P",), 7)] if drifts else [])
    assert sorted(m.line for m in report.matches) == ([] if drifts else [2, 7])
