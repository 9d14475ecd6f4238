"""Document reconcile: tie each claimed number in documents to a claim and judge it.

Two ways a number is tied to a claim, exact first:

1. **Markers** (`doc_markers`) are exact: the marked number is compared with its claim (or a
   delta with the difference of two) whatever its size or surroundings; a marker naming no
   current claim, or marking no number, is a finding of its own.
2. **Anchors** (`anchors`) catch hand-typed numbers. A *unit* is a sentence, or a table in which
   a cell's context is its row and its column header (`units.unit_at`). Per unit:

   * a claim takes part only when a *decisive* anchor names it (its metric, or an alias only
     claims of one metric have), less a claim whose anchors in the unit all name another claim
     of its metric that more anchors name (`_Run._strongest`);
   * a number that matches a taking-part claim at the precision shown (`numbers.check`) is that
     claim's; a claim no number matches owns the one remaining *plausible* number (drift), or is
     ambiguous when several remain (unless they are a log's records of one quantity over a
     training, or one column's cells in a table of epochs: it owns the last, `progress`); a
     number several unmatched claims would own goes to the one named by more anchors, else is
     ambiguous with all their ids, never drift;
   * a namespaced key's parts written apart name its claim together only (`anchors`: the
     task's row and the metric's cell of a harness table), a part alone names none;
   * a metric's name that ``_`` carries on into a longer key of another quantity (``acc`` in
     ``acc_norm``) is no anchor there (`_Run.whole_keys`), and in printed output an anchor
     does not run across a line break (`_Run.lines_apart`: a line is a record there);
   * a table cell whose row and column both name a claim is that claim's and judged alone
     (several rows of a column naming it alike, none matching: one finding, `_alike_cells`); the
     headings over a Markdown table name each cell as its row's label does, and a claim that a
     heading over another part of the page names more (by a term the table writes nowhere) is
     not the table's (`_Over`: one report under "#### NB", one under "#### SVM");
   * a table cell's value is its first number, its formatting looked through (Markdown math's
     ``$\\bf{0.912}$``, ``$\\color{red}{0.912}$``: `doc_readers.FORMAT_COMMAND`); a change's is
     the number its last arrow leads to ("76.1 → 77.3", "21.9 ± 1.3 → 6.8 ± 0.2": a spread
     after a number read with it), a range shows none ("0.5--0.8": `_value_of_two`), a delta or
     a spread after the value ends neither ("31.42 ~ +0.3", "31.42 → (+0.6)": the value stays),
     a change where its row label or column header is a hyperparameter's name is a schedule,
     read where it starts ("| Learning rate | 1e-3 → 1e-5 |": 1e-3), and an interval or a
     spread in words after it ("0.04 (95% CI: 0.03-0.05)") does not make the cell a label
     (`_after_spread`); a mark before the value ("≈0.444", "🥇 0.912", "\\llap{$^*$}0.912":
     `_MARK_BEFORE`), a gain in a subscript after it ("$0.912_{\\uparrow 1.2}$") and a note
     ending a setting's cell ("| Learning rate | 2e-4 (cosine decay) |": `_note_start`) leave
     the value, a split named in parentheses after it makes it that split's ("0.5832 (dev)":
     `_split_note`); a change's end may stand in parentheses alone ("76.1 → (77.3)": 77.3);
   * a model card's YAML ``model-index`` entries are units of their own, named by their
     result's dataset and task, judged together apart from the rest of the page
     (`front_matter`);
   * a number whose key, record label or nearby words name a split (train, val, test, eval)
     is not a candidate of a claim on another split (`_other_splits`: "acc: 0.9874" beside
     "val_acc: 0.9920" is the training accuracy, no test_acc claim's); a split word in prose
     that qualifies a metric names the split of that metric's numbers only ("The val loss
     curve is flat; PSNR is 31.42 dB": no val number, `number_roles.SentenceSplits`).

   * in a sentence naming several claims, a number is only the claims of the names it is
     written with (`_written_with`): in "a PSNR of 24.81 dB and an SSIM of 0.917 on DPE, and a
     PSNR of 23.92 dB on UPE" the 23.92 is the UPE PSNR claim's, and the UPE claim is not
     the 24.81's.

   * a COCOeval ``summarize()`` line is named by the claims whose name is its statistic
     (``bbox_mAP``, ``AP50``, ``AR@100``), not by the "Average Precision" every line writes,
     and its bracket's thresholds are no values (`coco_summary`).
   * a notebook's training outputs (a first ``fit``, a fine-tuning ``fit``) are one history:
     after every segment is judged, a claim's findings there are judged again as one log's
     records across cells (`progress.judge_history`).

   Only values are candidates (`number_roles`: not deltas, bounds, references, uncertainties),
   never the digits of an anchor, and a unit holding ``noclaim`` is not judged by anchors.

Numbers near no anchor and no marker are ignored; in a sentence, "near" means within eight words
of an anchor, on either side. Findings come out in document order; matches
are kept (their line numbers worked out only when rendered).

Performance notes (benchmarks/bench_reconcile.py): each unit is cut and judged once however many
anchors it holds; the candidates of a set of anchor terms are cached; a bare metric name naming
many claims is expanded lazily (`_Run._with_broad`) and its numbers are looked up in a sorted
value index (`_ValueIndex`) instead of being compared with every claim.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import itertools
import math
import re
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from labledger.ledger._words import counted
from labledger.reconcile.anchors import AnchorIndex, Hit, metric_terms, normalize
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.coco_summary import TRIGGER as _COCO_TRIGGER
from labledger.reconcile.coco_summary import (
    Spec,
    blank_brackets,
    in_points,
    named_lines,
    parse_line,
    spec_of,
    summaries,
)
from labledger.reconcile.decimal_mark import decimal_comma
from labledger.reconcile.doc_markers import Marker, find_markers, number_in, tex_bindings
from labledger.reconcile.doc_readers import (
    FORMAT_COMMAND,
    Cell,
    JoinedName,
    Segment,
    Sentence,
    Table,
    fence_at,
    fences,
    is_log,
    line_at,
    mask,
    mask_text,
)
from labledger.reconcile.fanout import cpu_count, fork_each
from labledger.reconcile.fenced import is_output, without_code
from labledger.reconcile.findings import Finding, Match, Report, Tie
from labledger.reconcile.front_matter import model_index
from labledger.reconcile.judge_cache import JudgeCache
from labledger.reconcile.log_units import (
    from_above,
    headed,
    md_headings,
    over_table,
    strongest_records,
    without_argument_titles,
)
from labledger.reconcile.metric_directions import direction_of, metric_key
from labledger.reconcile.number_roles import (
    DELTA_HEADER,
    Key,
    SentenceSplits,
    SplitWord,
    another_named,
    has_split_word,
    header_split,
    is_field_listing,
    is_listing,
    key_split,
    label_split,
    labels,
    list_head,
    metric_mentions,
    metric_split,
    names_a_count,
    names_a_hyperparameter,
    names_a_spread,
    names_another,
    names_runs,
    names_the_mean,
    record_split,
    respective_splits,
    respectively,
    role_of,
    says_respectively,
    slash_pairs,
    split_lists,
    splits_conflict,
    spread_label,
    written_with,
)
from labledger.reconcile.numbers import (
    Check,
    Shown,
    check,
    is_fraction_unit,
    is_multiplier,
    is_percent_unit,
    norm_unit,
    percent_scale,
    pow10,
    scan_numbers,
)
from labledger.reconcile.progress import (
    epoch_rows,
    judge_history,
    last_record,
    last_row,
    series_note,
)
from labledger.reconcile.section_splits import section_splits
from labledger.reconcile.tex_macros import MacroAnchors, macro_texts, with_uses
from labledger.reconcile.tex_strikes import blank_strikes, strike_macros
from labledger.reconcile.tex_values import MacroValues, macro_values
from labledger.reconcile.typst_pages import is_typst, typst_values
from labledger.reconcile.units import unit_at

__all__ = ["reconcile_segments"]

# which number of a sentence goes with which name: (number's index, name's index) pairs from
# the numbers' and the names' spans (`number_roles.respectively`, `number_roles.slash_pairs`)
Pairing = Callable[[str, int, Sequence[tuple[int, int]], Sequence[tuple[int, int]]],
                   list[tuple[int, int]]]

# a word in a cell: a label, not a number (\pm and \mp, also glued to digits: \pm0.05, are not;
# nor a command's name a Markdown cell's math keeps: "$81.3^{\dagger}$", a footnote's mark)
_WORDS = re.compile(r"(?<!\\)(?<![^\W\d_])(?!(?:pm|mp)(?![^\W\d_]))[^\W\d_]{2,}")
# (\s: a LaTeX cell may start on its own line, "Ours & \n\\textbf{29.41} &", one cell a line;
# a Markdown cell's math keeps its commands, "| $\\mathbf{0.5903 \\pm 0.0101}$ |", as papers
# converted to Markdown and READMEs write a best value: a label, before, whose row's claim then
# took the number of the row above it)
# (the commands `doc_markers.number_in` reads a number inside)
_NUMERIC_START = re.compile(
    r"(?:[\s*_`~$({]|" + FORMAT_COMMAND.pattern + r")*[+\-\u2212]?\.?\d")
# A mark a cell's value may be written after (round 63): "about" ("| Heuristic (argmax R_struct)
# | ≈0.444 |", a recommender README's BERTScore table; "$\approx 0.444$" in its math), a medal
# READMEs rank rows with ("🥇 0.912"), or a footnote's mark set before the value where a zero-
# width box keeps the column's digits aligned ("\llap{$^*$}0.912", masked "{$^*$}0.912";
# "$^{\dagger}$0.912", "\textsuperscript{*}0.912"). Before, the cell was a label, its value
# unjudged (a missed drift). Only such a mark: a word before the number still makes a label.
# Also the star and the fire READMEs flag a best result with ("⭐ 0.912", "🔥 0.912").
_MARK_BEFORE = re.compile(
    r"[\s*_`~$({]*(?:\u2248|\\approx(?![A-Za-z])"
    r"|[\U0001F947-\U0001F949\U0001F3C6\u2b50\U0001F31F\U0001F525]\ufe0f?"
    r"|\{?\$?(?:\{\})?\^(?:\{[\s*]*\}|\*)\$?\}?|\{\*\})")


def _marked_start(masked: str) -> int | None:
    """Where a table cell's value starts past a mark written before it (`_MARK_BEFORE`;
    ``masked`` the cell's mask), or None where no mark and number start the cell."""
    mark = _MARK_BEFORE.match(masked)
    if mark is not None and _NUMERIC_START.match(masked, mark.end()):
        return mark.end()
    return None


# a cell showing no value: empty, a dash for a missing one ("-", "--", "–", "$-$"), "n/a", or
# struck out (blanked by the mask: "~~31.52~~", "\\sout{31.52}")
_NO_VALUE = re.compile(r"[\s*_`~${}\-\u2013\u2014\u2212]*|[\s*_]*(?i:n/?a\.?)[\s*_]*")
# a size, not a value: "384x384", "224 × 224", "3x3x3" label a row ("ConvNeXt-T | 384x384")
_DIMENSIONS = re.compile(r"[\s*_`~]*\d+(?:[ \t]*[x\u00d7][ \t]*\d+)+[ \t*_`~]*$")
# What a cell may write between two numbers: an arrow, a change from the first to the second
# ("76.1 → 77.3", "76.1 $\to$ 77.3", "$76.1 \rightarrow 77.3$", as ablation tables show what a
# component changes; READMEs' dingbat arrows too, "62% ➜ 93.8%", and the emoji's, "3.18s ➡️
# 0.52s", with or without its variation selector; the long ASCII one, "30.1 --> 31.42", and
# HTML's entity, "30.1 &rarr; 31.42"), or a range's dash
# ("0.5--0.8", "$0.5\text{--}0.8$", "0.5 – 0.8", "$0.5\sim0.8$", CJK's full-width "0.5～0.8"
# and "0.5〜0.8"; "0.5~0.8" outside LaTeX), each with the formatting and math shifts around
# it. In LaTeX "~" is a tie, a space: "0.5~0.8" is no range there, and a change or a range
# may stand between ties ("76.1~$\rightarrow$~77.3", "0.5~--~0.8"; a report's md2tex writes
# a Markdown "→" so). (LaTeX's commands are read from the cell as written: its mask blanks
# them; a Markdown cell's from its mask, which blanks HTML's tags: "<b>30.1</b> → <b>31.42</b>".)
_ARROW_OR_DASH = (
    r"(?P<arrow>[\u2192\u27f6\u21d2\u21e8\u2794\u279c\u279d\u279e\u27a1\u2b95]"
    r"\ufe0f?|-->|->|=>|&rarr;|&#8594;|&#x2192;"
    r"|\\(?:to|rightarrow|longrightarrow|Rightarrow|Longrightarrow)(?![A-Za-z]))"
    r"|(?P<dash>--|[\u2013\u2014\uff5e\u301c]|\\text\{(?:--|\u2013)\}"
    r"|\\text(?:endash|emdash)(?![A-Za-z])|\\sim(?![A-Za-z]))")
_SET = r"[\s$*_}{`]*"
_BETWEEN = re.compile(_SET + r"(?:" + _ARROW_OR_DASH + r"|~)" + _SET)
_TEX_SET = r"[\s$*_}{~]*"
_TEX_BETWEEN = re.compile(_TEX_SET + r"(?:" + _ARROW_OR_DASH + r")" + _TEX_SET)
# A spread written after a number of a change or a range, before its arrow: "21.9 ± 1.3 →
# 6.8 ± 0.2", "$76.1_{\pm0.2}$ → $77.3_{\pm0.1}$" (the number after "±", to its end), "76.1
# (0.2) → 77.3 (0.1)" (`_SPREAD_AFTER`)
_PLUS_MINUS = re.compile(r"[ \t$~{_]*(?:\\pm|\\mp|\u00b1|\+/-)(?![A-Za-z])[ \t$~{]*"
                         r"\d*[.,]?\d+(?:[ \t]?\\?%)?")
# Where a change's or a range's second number may start: formatting, not a parenthesis (a
# delta or a spread in one is no end of either: "31.42 → (+0.6)", "31.42 -- (0.3)")
_SECOND_START = re.compile(
    r"(?:[\s*_`~${]|" + FORMAT_COMMAND.pattern + r")*[+\-\u2212]?\.?\d")
# ... but an arrow may lead to the change's end set in parentheses alone, unsigned ("76.1 →
# (77.3)", round 63): the parenthesis holds the number and nothing more, so it is no spread or
# delta of the value (those are signed, or follow no arrow: "31.42 → (+0.6)", "31.42 -- (0.3)")
_PAREN_END = re.compile(r"[\s*_`~${]*\((?=[\s*_`${]*\.?\d[\d.,]*(?:[ \t]?\\?%)?[\s*_`${}]*\))")


# An interval or a spread in parentheses right after a cell's value, its words the statistic's
# own ("0.04 (95% CI: 0.03-0.05)", a results table's odds ratio; "0.912 (SD 0.004)", "(std:
# 0.004)", "(IQR 0.90-0.93)", "(95% CI -57.1 to -54.7)"): no label's words, the value stays
_SPREAD_AFTER = re.compile(r"[ \t]*[(\[](?:[^()\[\]\n\w]|\d|(?i:ci|sd|s\.d|std|stdev|se|sem|iqr"
                           r"|to)(?![^\W\d_]))*[)\]]")


def _after_spread(masked: str, shown: Shown) -> int:
    """Where a cell's text after its value ``shown`` starts, past an interval or a spread the
    value is written with (`_SPREAD_AFTER`): a word there makes the cell a label."""
    spread = _SPREAD_AFTER.match(masked, shown.suffix_end)
    return shown.suffix_end if spread is None else spread.end()


# A note in parentheses ending a setting's cell, saying how the setting is used: "| Learning
# rate | 2e-4 (cosine decay) |" (a QLoRA fine-tuning README's training table; "| Learning Rate |
# 0.001 (cosine decay) |", a YOLOv8-OBB README's), "| Learning rate schedule | 8e-4 → 8e-5
# (cosine decay) |" (a pretraining report's configuration table)
_NOTE_END = re.compile(r"\([^()\n]*\)[\s*_`$]*\Z")


# A split named in parentheses after a cell's value: "| Pinnacle closing benchmark | — | 0.5832
# (dev) | — |" (a football model's comparison table, the market's Brier score on the dev
# seasons)
_PAREN_NOTE = re.compile(r"[ \t]*\(([^()\n]{1,24})\)")


def _split_note(masked: str, at: int) -> tuple[str, int] | None:
    """The split a note in parentheses at ``at`` of a cell's mask names alone ("(dev)", "(val
    set)": `number_roles.label_split`) and where the note ends; None where none does. Round
    63: the note's word made the cell a label, the value unjudged; it is the value of that
    split now (no claim on another split's)."""
    note = _PAREN_NOTE.match(masked, at)
    if note is None:
        return None
    split = label_split(note.group(1))
    return None if split is None else (split, note.end())


def _note_start(masked: str) -> int:
    """Where a hyperparameter's cell ``masked`` ends before a note in parentheses that ends it
    (`_NOTE_END`; the cell's end where none does): the note's words leave the setting a value,
    as other words after a value make the cell a label (round 63: the lr claim of "2e-4 (cosine
    decay)" went unjudged)."""
    note = _NOTE_END.search(masked) if ")" in masked else None
    return len(masked) if note is None else note.start()


def _past_spread(masked: str, shown: Shown) -> int:
    """Where ``shown``'s text ends, past a spread written after it with "±" (`_PLUS_MINUS`) or
    in parentheses (`_SPREAD_AFTER`)."""
    spread = _PLUS_MINUS.match(masked, shown.suffix_end)
    return _after_spread(masked, shown) if spread is None else spread.end()


def _second_of_two(masked: str, at: int, first: Shown, arrow: bool,
                   comma: bool) -> Shown | None:
    """The number a change's ``arrow`` or a range's dash ending at ``at`` leads to, or None
    where none starts there or the one there is no change's or range's end: in parentheses,
    after "±", or signed where ``first`` is not ("31.42~(+0.3)", "31.42 ~ +0.3", "31.42~-0.3",
    "$31.42$~$\\pm$~$0.05$": a delta or a spread written with the value, as before round 62).
    (An arrow's may fall below zero, "0.12 → -0.05": only a "+" makes its number a delta.)"""
    if not _SECOND_START.match(masked, at):
        paren = _PAREN_END.match(masked, at) if arrow else None
        if paren is None:
            return None
        at = paren.end()
    # (read from where the arrow or the dash ends: a command's letters before it, "0.5\sim0.8",
    # glue no number to them)
    second = number_in(masked[at:], 0, len(masked) - at, comma)
    if second is None or (first.sign is None and (
            second.sign == "+" or (second.sign is not None and not arrow))) \
            or masked[max(0, at - 8):at].rstrip(" \t$~{").endswith(("\u00b1", "\\pm", "\\mp")):
        return None
    return second.moved(at)


def _value_of_two(syntax: str, text: str, masked: str, first: Shown,
                  comma: bool, schedule: bool = False) -> Shown | None:
    """The value a table cell whose first number is ``first`` shows (``text`` the cell as
    written, ``masked`` its mask): ``first``, but where an arrow leads from it to another
    number the last an arrow leads to, the row's result (those before it are where the change
    started: no value of the row, as an old value struck out beside the new one is none), and
    where a range's dash does none (a range is no value, as prose's "0.5–0.8" is none:
    `numbers`). A spread after a number is read with it ("21.9 ± 1.3 → 6.8 ± 0.2" is 6.8).
    A ``schedule`` (a cell whose row label or column header is a hyperparameter's name: "|
    Learning rate | 1e-3 → 1e-5 |", `number_roles.names_a_hyperparameter`) is no change of a
    result: it is read as ``first``, the setting it starts from, as before round 62."""
    between, written = (_TEX_BETWEEN, text) if syntax == "tex" else (_BETWEEN, masked)
    shown = first
    while True:
        got = between.match(written, _past_spread(masked, shown))
        second = None if got is None else _second_of_two(
            masked, got.end(), shown, got.group("arrow") is not None, comma)
        if got is None or second is None:
            return shown
        if got.group("arrow") is None:
            return None
        if schedule:
            return first
        shown = second


# --- assignment ----------------------------------------------------------------------------------

# A time, a size, a rate or a length shown with its unit ("0.7 seconds", "0.7 ms", "0.7 GB")
# is no value of a ratio (an accuracy, an F1, a mAP...) declared with no unit: StarNet's "a
# top-1 accuracy of 73.5% in just 0.7 seconds" matched a top-1 claim of 0.735 at the 0.7, so a
# wrong accuracy beside it went unreported. (A claim declared with no unit is otherwise neither
# confirmed nor contradicted by a unit: `numbers.check`.)
_MEASURE_UNITS = frozenset({
    "ms", "s", "min", "h", "day", "hz", "khz", "mhz", "ghz", "px", "gb", "mb", "kb", "tb",
    "gib", "mib", "kib", "tib", "w", "kw", "j", "flops", "gflops", "tflops", "mflops",
    "pflops", "macs", "gmacs", "fps", "cm", "mm", "km", "°c", "it/s"})
_RATIO_METRICS = frozenset({
    "accuracy", "acc", "top1", "top5", "f1", "precision", "recall", "auc", "auroc", "roc auc",
    "map", "ap", "iou", "miou", "ssim", "em", "exact match", "dice", "mcc", "r2"})
_CUTOFF_TAIL = re.compile(r"@?\d[\d.:]*$")
# ... but a claim whose name also names a measure is that measure, not the ratio: a time to an
# accuracy ("time_to_94_accuracy": DAWNBench's "94% accuracy in 26 seconds"), a latency at one
_MEASURE_WORDS = _MEASURE_UNITS | frozenset({
    "time", "times", "latency", "duration", "runtime", "wallclock", "sec", "secs", "second",
    "seconds", "mins", "minute", "minutes", "hour", "hours", "days", "memory", "mem", "vram",
    "speed", "throughput", "size", "params", "parameters", "epoch", "epochs", "step", "steps",
    "iterations", "iters", "energy", "cost"})


def _measure_of_a_ratio(shown: Shown, claim: Claim) -> bool:
    """Whether ``shown`` carries a unit of measure (`_MEASURE_UNITS`) and ``claim``, declared
    with no unit, is on a ratio (`_RATIO_METRICS`; "map50", "top1 acc" too; not a measure
    named with one: "time_to_94_accuracy", `_MEASURE_WORDS`)."""
    if shown.suffix is None or claim.unit is not None \
            or norm_unit(shown.suffix) not in _MEASURE_UNITS:
        return False
    key = metric_key(claim.metric)
    if key in _RATIO_METRICS:
        return True
    words = [_CUTOFF_TAIL.sub("", word) for word in key.split()]
    return any(word in _RATIO_METRICS for word in words) \
        and not any(word in _MEASURE_WORDS for word in words)


# ... and the mirror: a percent is no value of a rate or a time declared with no unit (frames
# per second, a latency): "RT-DETR-R50/R101 achieves 53.1%/54.3% AP on COCO and 108 FPS/74 FPS"
# left an FPS claim of 74 the AP's percents near "FPS" (drift at 53.1%), unless its name says a
# change or a share of one ("fps_gain", "latency_reduction", "throughput_utilization").
_PERCENTLESS = frozenset({"fps", "latency", "throughput", "runtime"})
_RELATIVE_WORDS = frozenset({
    "gain", "gains", "reduction", "speedup", "improvement", "increase", "decrease", "drop",
    "change", "overhead", "saving", "savings", "ratio", "relative", "rel", "delta", "diff",
    "pct", "percent", "share", "utilization", "util", "usage", "efficiency"})


def _percent_of_a_rate(shown: Shown, claim: Claim) -> bool:
    """Whether ``shown`` is a percent and ``claim``, declared with no unit, is on a rate or a
    time that takes none (`_PERCENTLESS`, not named a change of one: `_RELATIVE_WORDS`)."""
    if not shown.percent or claim.unit is not None:
        return False
    words = set(metric_key(claim.metric).split())
    return not words.isdisjoint(_PERCENTLESS) and words.isdisjoint(_RELATIVE_WORDS)


@dataclass(eq=False, slots=True)
class _Item:
    shown: Shown
    cands: frozenset[str]
    kind: str = "value"         # see _kind_of; "-" numbers are deltas unless a claim is negative
    percent: bool = False
    exact: bool = False         # bound by a table marker: no plausibility window
    via: str = "anchor"
    strength: dict[str, int] = field(default_factory=dict)  # anchor terms naming each claim
    # (masked unit text, its offset, the anchors' spans) for a "?" kind
    context: tuple[str, int, Sequence[tuple[int, int]]] = ("", 0, ())
    alone: bool = False         # its row and column both name the claim: judged by itself
    named: frozenset[str] = frozenset()  # every claim the unit names decisively (see probe)
    owners: set[str] = field(default_factory=set)
    checks: dict[str, Check] = field(default_factory=dict)
    # (its row, the split its column's header names) for a table's cell: see `_one_cell_each`
    cell_split: tuple[int, str] | None = None
    # the terms its row's label and its column's header parts are the whole of ("| Ours |" and
    # "PSNR", not "| Ours w/o attention |"): `_strongest_cells`
    wholes: tuple[frozenset[str], ...] = ()
    column: int = -1            # a table cell's column: see `_one_cell_each`
    row: int = -1               # a table cell's body row: see `_EpochRows`
    # where the header cell spanning its column and the next or previous one starts (a
    # \multicolumn, a colspan): see `_one_cell_each`
    under: int = -1
    # a COCOeval summary's value (a fraction) in percent points, for a claim recorded in them
    # (detectron2's bbox/AP = 37.4): `coco_summary.in_points`
    points: Shown | None = None

    def in_points(self, claim: Claim) -> Shown | None:
        """The number in percent points where it is judged so for ``claim`` (`points`)."""
        if self.points is not None and percent_scale(claim.value, claim.unit) == 0:
            return self.points
        return None

    def check(self, claim: Claim) -> Check:
        got = self.checks.get(claim.id)
        if got is None:
            shown = self.in_points(claim) or self.shown
            if _measure_of_a_ratio(shown, claim) or _percent_of_a_rate(shown, claim):
                got = Check(matches=False, unit_ok=False, unit_shown=shown.suffix,
                            plausible=False, scale=0)
            else:
                got = check(shown, claim.value, claim.unit, percent_context=self.percent)
            self.checks[claim.id] = got
        return got

    def is_value_for(self, claim: Claim) -> bool:
        if self.kind == "?":  # judged from the words around it only when a claim asks
            self.kind = role_of(self.shown, self.context[0], self.context[1], self.context[2])
        if self.kind == "other":
            # another method's number ("the baseline (30.10 dB)") is a claim's on that method
            # (its run or an alias naming it: "baseline", "Baseline (ResNet-50)")
            return names_another(another_named(self.shown, *self.context),
                                 (claim.run or "", *claim.aliases)) \
                and (self.shown.sign != "-" or claim.value < 0)
        if self.kind != "value":
            return False
        return self.shown.sign != "-" or claim.value < 0

    def may_match(self, claim: Claim) -> bool:
        """Whether ``claim`` may match the number: a value for it (`is_value_for`), or another
        method's number (kind "other"), which is no plausible value of a claim it does not
        match, but the match of one it equals: a claim on the baseline's run no alias names
        so ("the baseline (F1=0.4352)" for a claim of run bm25), or a pair papers write the
        other way round ("over the baseline (30.10 vs 31.42 dB)": the second is read as the
        other's). Before, such a claim drifted at the subject's number: a correct document
        blocked."""
        if self.is_value_for(claim):
            return True
        return self.kind == "other" and (self.shown.sign != "-" or claim.value < 0)


class _Above:
    """Per claim, the sets of terms by which the headings of a Markdown segment name it
    (`log_units.from_above`), each with where the first and the last heading naming it so
    start: a segment repeating a heading ("## Ours" over each dataset) keeps one entry."""

    def __init__(self) -> None:
        self.named: dict[str, dict[frozenset[str], tuple[int, int]]] = {}

    def add(self, cid: str, terms: frozenset[str], at: int) -> None:
        places = self.named.setdefault(cid, {})
        first, last = places.get(terms, (at, at))
        places[terms] = (min(first, at), max(last, at))

    def outranks(self, cid: str, scope: tuple[int, int], mine: int,
                 holds: frozenset[str]) -> bool:
        """Whether a heading starting outside ``scope`` (start, end) names ``cid`` by more terms
        than ``mine``, one of them a term not in ``holds``."""
        for terms, (first, last) in self.named.get(cid, {}).items():
            if len(terms) > mine and (first < scope[0] or last >= scope[1]) \
                    and not terms <= holds:
                return True
        return False


@dataclass(slots=True)
class _Over:
    """What names a Markdown table from above (`log_units.over_table`): the terms of the
    headings over it, which name every cell as its row's label does, the claims they name (with
    how many terms), the part of the text those headings are over, and every term the table
    holds (its headings' and its own anchors')."""

    terms: frozenset[str]
    mine: dict[str, int]
    scope: tuple[int, int]
    holds: frozenset[str]
    above: _Above
    _elsewhere: dict[str, bool] = field(default_factory=dict)

    def elsewhere(self, cid: str) -> bool:
        """Whether ``cid`` is another heading's: a heading over another part of the text names
        it by more terms than the table's headings do, one of them written nowhere in the
        table. "#### SVM" over one report and "#### NB" over another: the SVM claim is not the
        NB report's. A summary table under "## Results", whose subsections are "#### NB" and
        "#### SVM", keeps it (they are its own part of the text), and so does a table that
        names the run itself in a row ("| val4 | 0.92 |" under "### Historical Results",
        though "### Latest Validation (val4)" names it too)."""
        got = self._elsewhere.get(cid)
        if got is None:
            got = self._elsewhere[cid] = self.above.outranks(
                cid, self.scope, self.mine.get(cid, 0), self.holds)
        return got


class _Outnamed:
    """Which claims a table names less than another claim of their metric: every term of the
    table's header, row labels and headings (``terms``) naming the claim names the other too,
    which the table names by more, and the claim has an alias the table writes nowhere but the
    document does (``elsewhere``: its own table or sentence). Such a claim is not a number of
    the table's rows that name no claim: an ablation's "w/o gating" top-1 claim, which the main
    results' "Top-1" column names by its metric alone, is not the baseline rows' (it was
    `ambiguous` on them), while "FooNet" in a row names FooNet's claim there. A claim named by
    the metric alone and no alias (nothing says whose it is), or whose aliases the document
    writes nowhere (its row may be its method's, "Ours"), is judged in the column as before:
    a drift there is never silenced. Built per table when a cell needs it; each claim looked
    up once."""

    def __init__(self, run: _Run, terms: frozenset[str], elsewhere: frozenset[str]) -> None:
        claims_of = run.index.claims_of
        self.run, self.terms, self.elsewhere = run, terms, elsewhere
        # a bare metric naming many claims: not expanded, looked up per claim
        self.broad = [t for t in terms if len(claims_of.get(t, ())) > _BROAD]
        self.named = run._named(t for t in terms if len(claims_of.get(t, ())) <= _BROAD)
        self.by_metric: dict[str, list[set[str]]] = {}
        for cid, by in self.named.items():
            by.update(b for b in self.broad if cid in claims_of[b])
            self.by_metric.setdefault(run.metric_of[cid], []).append(by)
        self.memo: dict[str, bool] = {}

    def __call__(self, cid: str) -> bool:
        got = self.memo.get(cid)
        if got is None:
            run = self.run
            mine = self.named.get(cid)
            if mine is None:
                claims_of = run.index.claims_of
                mine = {b for b in self.broad if cid in claims_of[b]}
            got = self.memo[cid] = any(
                mine < other for other in self.by_metric.get(run.metric_of[cid], ())) \
                and any((term := normalize(a)) not in self.terms and term in self.elsewhere
                        for a in run.claims[cid].aliases)
        return got


_INDEXED = 8  # candidates above which a number is looked up in a sorted value index
_BROAD = 16   # a term naming more claims than this is not expanded claim by claim
# A hand-typed number belongs to an anchor in its sentence only within this many words of it:
# a long sentence names other quantities too ("noise 0.2, 400 steps, ... the lowest loss").
_NEAR_WORDS = 8
_WORD = re.compile(r"\S+")
# what separates a table's cells in its text: a hit holding one may run across cells
_CELL_SEP = re.compile(r"[|&\t,;]")
_KEY_MARK = re.compile(r"[:=]")
# what carries a name on into a longer key: "_" and a word ("_norm" of "acc_norm,none")
# A metric's name carried on by "_" into a key of another quantity, by the suffixes that make
# one: a normalised or spread variant (lm-evaluation-harness's acc_norm, acc_stderr), a detection
# metric's IoU threshold or object size (map_50, ap_75, map_s), a loss's component (loss_cls,
# loss_bbox). Any other suffix keeps the quantity (psnr_y, fid_50k, acc_top1, miou_ms,
# loss_total, bleu_4 are still the claim's name).
_KEY_GOES_ON = re.compile(
    r"_(?:(?:norm|stderr|stdev|stddev|std|sem|sd|var)(?![^\W_])"
    r"|(?<=ap_)(?:\d+|s|m|l|small|medium|large)(?![^\W_])"
    r"|(?<=loss_)(?:cls|bbox|mask|iou|dfl|box|obj|rpn_\w+|ce|kl|aux)(?![^\W_]))", re.IGNORECASE)
# words a key ends a metric's name with that name no other quantity ("f1_score", "error_rate")
_NAME_ENDS = (" score", " rate")


def _another_key(text: str, start: int, end: int) -> bool:
    """Whether the name ``text[start:end]`` goes on (`_KEY_GOES_ON`) into a longer key of
    another quantity: ``acc`` in ``acc_norm``, ``exact_match`` in ``exact_match_stderr``, ``map``
    in ``map_50``, ``loss`` in ``loss_cls``; not ``psnr`` in ``psnr_mean``, ``psnr_y`` or
    ``psnr_db``, ``fid`` in ``fid_50k``, nor ``f1`` in ``f1_score``."""
    m = _KEY_GOES_ON.match(text, end)
    return m is not None and _quantity(text[start:m.end()]) != _quantity(text[start:end])


def _in_output(seg: Segment, pos: int) -> bool:
    """Whether ``pos`` is in the text of a fenced block of printed output (`fenced`)."""
    fence = fence_at(seg, pos)
    return fence is not None and pos >= fence.body and is_output(seg, fence)


def _quantity(name: str) -> str:
    key = metric_key(name)
    for end in _NAME_ENDS:
        if key.endswith(end) and len(key) > len(end):
            return key[:-len(end)]
    return key


class _ValueIndex:
    """Claims' values sorted, to find in O(log n) which may match or be near a number."""

    def __init__(self, claims: list[Claim]) -> None:
        plain = sorted((c.value, c.id) for c in claims)
        pct = sorted((c.value * 10.0 ** percent_scale(c.value, c.unit), c.id) for c in claims)
        self.plain = ([v for v, _ in plain], [i for _, i in plain])
        self.pct = ([v for v, _ in pct], [i for _, i in pct])
        self.by_unit: dict[str, list[str]] = {}
        for c in claims:
            if c.unit:
                self.by_unit.setdefault(norm_unit(c.unit), []).append(c.id)

    def around(self, shown: Shown, percent: bool) -> tuple[list[str], list[str]]:
        """(claims within half a unit, claims within the plausibility window or of the unit
        the number shows); a superset: `check` has the last word on each."""
        values, ids = self.pct if (percent or shown.percent) else self.plain
        n = shown.fvalue
        half = 0.5 * pow10(shown.exponent)
        if not (math.isfinite(n) and math.isfinite(half)):
            return [], []  # beyond floats ("1e400"): near no claim
        slack = 1e-9 * max(abs(n), half)
        lo = bisect.bisect_left(values, n - half - slack)
        hi = bisect.bisect_right(values, n + half + slack)
        pool = ids[lo:hi]
        if n > 0:
            a, b = bisect.bisect_left(values, n / 2 * (1 - 1e-12)), \
                bisect.bisect_right(values, n * 2 * (1 + 1e-12))
        elif n < 0:
            a, b = bisect.bisect_left(values, n * 2 * (1 + 1e-12)), \
                bisect.bisect_right(values, n / 2 * (1 - 1e-12))
        else:
            a = b = 0
        near = ids[a:b]
        if shown.suffix is not None:
            same_unit = self.by_unit.get(norm_unit(shown.suffix))
            if same_unit:
                near = list(dict.fromkeys(near + same_unit))
        return pool, near


class _Run:
    """One reconcile: claims, the anchor index, and the report being filled."""

    def __init__(self, claims: Sequence[Claim], index: AnchorIndex | None = None) -> None:
        self.claims = {c.id: c for c in claims}
        self.metric_of = {c.id: metric_key(c.metric) for c in claims}  # as anchors has it
        self.index = AnchorIndex(claims) if index is None else index
        # the anchor terms that are a claim's metric (not an alias): `_Run.whole_keys`
        self.metric_terms = frozenset().union(*map(metric_terms, {c.metric for c in claims}))
        # the anchor terms that name a claim's metric, its aliases that do too ("FVD" of
        # video_fvd, "SSIM"; not a method's "Ours", nor "training time", whose split word is a
        # word of the quantity): what a split word qualifies (`number_roles.SentenceSplits`)
        # (each alias and metric once: a project's thousand claims share a few of each)
        self.metric_names = self.metric_terms | frozenset(
            term for a, metric in {(a, c.metric): None for c in claims for a in c.aliases}
            if _names_its_metric(term := normalize(a), metric)
            and not has_split_word(term))
        self._cache: dict[frozenset[str], dict[str, int]] = {}
        self._cache_ids: dict[frozenset[str], frozenset[str]] = {}  # (their keys: `candidate_ids`)
        self._values: dict[frozenset[str], _ValueIndex] = {}
        self._named_cache: dict[frozenset[str], frozenset[str]] = {}
        self._claims_named: dict[frozenset[str], frozenset[str]] = {}  # every claim terms name
        self._cell_cache: dict[tuple[frozenset[str], frozenset[str], frozenset[str]],
                               tuple[dict[str, int], bool]] = {}
        # the split each claim on one is on (`number_roles.metric_split`): "test" for
        # test_accuracy; a number whose words name another split is not its
        self.split_of = {c.id: split for c in claims if (split := metric_split(
            c.metric, c.split, c.evaluated_split)) is not None}
        # the aliases of digits alone ("1", sklearn's positive class): they name a
        # classification report's row labelled so, nothing else (`_class_row`)
        self.class_labels = frozenset(t for t in self.index.claims_of if t.isdigit())
        # the LaTeX macros printing an anchor (`tex_macros`), read over every document
        self.macros: MacroAnchors | None = None
        # the LaTeX strike-through macros the documents load and do not define (`tex_strikes`)
        self.strikes: frozenset[str] = frozenset()
        # the LaTeX macros printing a number (`tex_values`), read over every document
        self.values: MacroValues | None = None
        self.report = Report()
        self._coco: list[tuple[str, Spec]] | None = None
        # where the segment being judged shows a COCOeval summary's values (`coco_summary`)
        self.summary_values: frozenset[int] = frozenset()

    def coco_specs(self) -> list[tuple[str, Spec]]:
        """(anchor term, the summary lines it names) of each decisive term that is a COCO
        statistic's name (`coco_summary.spec_of`), made on the first document needing them.
        A term that two names of different statistics fold to names none."""
        if self._coco is None:
            got: dict[str, Spec | None] = {}
            claims_of, decisive = self.index.claims_of, self.index.decisive
            for claim in self.claims.values():
                for raw in (claim.metric, *claim.aliases):
                    term = normalize(raw)
                    if term not in decisive or claim.id not in claims_of.get(term, ()):
                        continue
                    spec = spec_of(raw)
                    if spec is not None:
                        got[term] = spec if got.get(term, spec) == spec else None
            self._coco = [(t, s) for t, s in got.items() if s is not None]
        return self._coco

    # -- recording --
    def tie(self, claim: Claim) -> Tie:
        return Tie(claim=claim.id, value=claim.value, unit=claim.unit, run=claim.run,
                   object=claim.source_digest, event=claim.event_id)

    def add(self, seg: Segment, offset: int, kind: str, claims: Sequence[Claim], message: str,
            shown: Shown | None, via: str, **extra: object) -> None:
        line, col = seg.position(offset)
        said = self.values.said_by(offset) if self.values is not None else ""
        if said:  # the number a macro prints (`tex_values`): where to mend it
            message = message[:-1] + f"; {said})" if message.endswith(")") \
                else f"{message} ({said})"
        self.report.findings.append(Finding(
            type=kind, path=seg.path_at(offset), line=line, col=col, where=seg.where,
            claims=tuple(c.id for c in claims), shown=shown.display() if shown else None,
            evidence=tuple(self.tie(c) for c in claims), via=via, message=message,
            **extra))  # type: ignore[arg-type]

    def matched(self, seg: Segment, shown: Shown, claims: Sequence[Claim], via: str) -> None:
        self.report.matches.append(Match(seg.path_at(shown.start), seg.where, seg, shown.start,
                                         tuple([c.id for c in claims]), shown.display(), via))

    # -- explicit markers --
    def unknown(self, seg: Segment, marker: Marker) -> bool:
        missing = [i for i in marker.ids if i not in self.claims]
        if missing:
            known = ", ".join(sorted(self.claims)[:20]) or "none"
            self.add(seg, marker.start, "unknown_claim", [],
                     f"marker names {', '.join(missing)}, which is not a current claim in the "
                     f"ledger (current claims: {known})", marker.number, marker.via,
                     unknown=tuple(missing))
            return True
        return False

    def marker(self, seg: Segment, marker: Marker, percent: bool = False) -> None:
        if marker.kind == "malformed":
            self.add(seg, marker.start, "marker", [], marker.problem or "malformed marker",
                     None, marker.via)
            return
        if self.unknown(seg, marker):
            return
        if marker.kind == "empty" or marker.number is None:
            if marker.delta and len(marker.ids) != 2:
                what = (f"a delta marker needs two claim ids (delta:A,B: A minus B); this one "
                        f"names {len(marker.ids)}")
            elif marker.delta:
                what = f"delta marker for {marker.ids[0]}\u2212{marker.ids[1]} is not followed " \
                       "by a number"
            else:
                what = f"marker for {marker.ids[0]} is not followed by a number"
            self.add(seg, marker.start, "marker", [self.claims[i] for i in marker.ids], what,
                     None, marker.via)
            return
        shown = marker.number
        if marker.kind == "delta":
            self.delta(seg, marker, shown, percent)
            return
        claim = self.claims[marker.ids[0]]
        got = check(shown, claim.value, claim.unit, percent_context=percent)
        self.judge_exact(seg, shown, claim, got, marker.via)

    def judge_exact(self, seg: Segment, shown: Shown, claim: Claim, got: Check,
                    via: str) -> None:
        if got.matches:
            self.matched(seg, shown, [claim], via)
        elif not got.unit_ok:
            self.add(seg, shown.start, "unit", [claim],
                     f"{claim.id} says {shown.display_unit()}, but its evidence is "
                     f"{_value(claim)} (run {claim.run}, object {_short(claim.source_digest)})",
                     shown, via)
        else:
            self.add(seg, shown.start, "drift", [claim], _drift_message(claim, shown, got),
                     shown, via)

    def delta(self, seg: Segment, marker: Marker, shown: Shown, percent: bool) -> None:
        a, b = self.claims[marker.ids[0]], self.claims[marker.ids[1]]
        diff = Decimal(a.value) - Decimal(b.value)
        if shown.sign is None:
            diff = abs(diff)
        got = check(shown, diff, a.unit, percent_context=percent)
        if got.matches:
            self.matched(seg, shown, [a, b], "delta")
            return
        evidence = _signed(round(a.value - b.value, 12))
        if not got.unit_ok:  # "+4.4%" for a difference of two dB values
            self.add(seg, shown.start, "unit", [a, b],
                     f"{a.id}\u2212{b.id} says {shown.display_unit()}, but its evidence is "
                     f"{evidence}" + (f" {a.unit}" if a.unit else "") + f" ({a.id} "
                     f"{_evidence(a.value)} run {a.run}; {b.id} {_evidence(b.value)} run {b.run})",
                     shown, "delta")
            return
        scaled = _in_scale(_signed(got.expected(diff)), got.scale)
        self.add(seg, shown.start, "drift", [a, b],
                 f"{a.id}\u2212{b.id} says {shown.display()}, evidence says "
                 f"{evidence}{_unit_after(a)}{scaled} ({a.id} {_evidence(a.value)} run {a.run}, "
                 f"object {_short(a.source_digest)}; {b.id} {_evidence(b.value)} run {b.run}, "
                 f"object {_short(b.source_digest)})", shown, "delta")

    # -- anchored numbers --
    def probe(self, it: _Item) -> tuple[list[str], list[str]]:
        """(claims ``it`` matches, claims it could plausibly be) among its candidates, both only
        where it reads as a value for the claim (a match also where it is another method's:
        `_Item.may_match`)."""
        claims = self.claims
        if len(it.cands) <= _INDEXED or it.exact or it.alone or (
                is_multiplier(it.shown.suffix)):
            pool: Iterable[str] = it.cands
            near: Iterable[str] = it.cands
        else:
            # Many candidates (a bare metric name in a project with a hundred claims of it):
            # bisect the candidates' sorted values instead of comparing with each one.
            index = self._values.get(it.cands)
            if index is None:
                index = self._values[it.cands] = _ValueIndex([claims[c] for c in it.cands])
            pool, near = index.around(it.shown, it.percent)
        matches = [c for c in pool if it.may_match(claims[c]) and it.check(claims[c]).matches]
        if matches:
            return matches, []
        # A number that matches a claim its unit names, though another claim is named more
        # ("31.42 dB PSNR, 1.32 dB higher than the baseline"), is that claim's: never drift
        # against the other (DOMAIN: two claims on one metric must not drift against each other)
        matches = [c for c in it.named if c not in it.cands and it.may_match(claims[c])
                   and it.check(claims[c]).matches]
        if matches:
            return matches, []
        plausible = [c for c in near if it.is_value_for(claims[c])
                     and (it.exact or it.check(claims[c]).plausible)]
        return [], plausible

    def assign(self, seg: Segment, items: list[_Item], records: bool = False,
               epochs: _EpochRows | None = None) -> None:
        """Give each number to the anchored claim it matches; report what is left over.

        A number matching a candidate claim is that claim's. An unmatched claim then owns its
        one remaining plausible number (drift), or is ambiguous between several; a number that
        several unmatched claims would own goes to the most specifically named one, and is
        ambiguous when they are named equally. An item marked ``alone`` is judged by itself.
        ``records``: the items are a log's records (`log_units.strongest_records`); a claim
        left with several that are one training's progress series owns the last of them, the
        most recent value (`progress.last_record`), instead of being ambiguous among them.
        ``epochs``: the items are a table's cells, and its rows may be a training's epochs
        (`_EpochRows`): a claim left with several cells of one column owns the last row's.
        """
        claims = self.claims
        satisfied: set[str] = set()
        rests: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            matches, plausible = self.probe(it)
            if matches:
                it.owners.update(matches)
                if not it.alone:
                    satisfied.update(matches)
                self.matched(seg, it.shown, [claims[c] for c in sorted(matches)], it.via)
            elif not it.alone:
                for cid in plausible:
                    rests.setdefault(cid, []).append(i)
        pending: dict[int, list[str]] = {}
        for i, it in enumerate(items):
            if it.alone and not it.owners:
                values = [c for c in it.cands if it.is_value_for(claims[c])]
                if values:
                    pending[i] = values
        series: dict[tuple[int, str], int] = {}  # (item, claim): the records it is the last of
        taken: dict[tuple[int, str], int] = {}  # ... and the later ones other claims matched
        for cid in sorted(rests.keys() - satisfied):
            claim = claims[cid]
            rest = rests[cid]
            last = None
            if len(rest) > 1 and records:
                last = last_record(seg.text, [items[i].shown.start for i in rest])
            elif len(rest) > 1 and epochs is not None:
                last = epochs.last([items[i] for i in rest])
            if last is not None:
                pending.setdefault(rest[last], []).append(cid)
                series[(rest[last], cid)] = len(rest)
                at = items[rest[last]].shown.start
                # records naming it after the one judged, each another claim's match: the
                # note says so, not that the judged one is the last (`series_note`)
                # (not a cell judged alone that matched this claim: its own, no other's)
                taken[(rest[last], cid)] = sum(1 for it in items
                                               if it.shown.start > at and it.owners
                                               and cid in it.cands and cid not in it.owners)
            elif len(rest) == 1:
                pending.setdefault(rest[0], []).append(cid)
            elif rest:
                first = items[rest[0]]
                where = ", ".join(f"{items[i].shown.display()} at "
                                  f"{':'.join(map(str, seg.position(items[i].shown.start)))}"
                                  for i in rest[:8]) + (", ..." if len(rest) > 8 else "")
                self.add(seg, first.shown.start, "ambiguous", [claim],
                         f"{cid} ({_value(claim)}, run {claim.run}) is named here but none of "
                         f"{where} matches it; mark the one that is {cid}'s with a claim marker",
                         first.shown, first.via,
                         candidates=tuple(items[i].shown.display() for i in rest))
        alike: dict[tuple[str, int], list[_Item]] = {}  # (claim, column): its cells left
        for i, cids in sorted(pending.items()):
            it = items[i]
            top = max(it.strength.get(c, 0) for c in cids)
            cids = sorted(c for c in cids if it.strength.get(c, 0) == top)
            if len(cids) == 1:
                claim = claims[cids[0]]
                got = it.check(claim)
                if it.alone and it.column >= 0 and got.unit_ok:
                    alike.setdefault((claim.id, it.column), []).append(it)  # judged below
                elif not got.unit_ok:
                    self.add(seg, it.shown.start, "unit", [claim],
                             f"{claim.id} says {it.shown.display_unit()}, but its evidence is "
                             f"{_value(claim)} (run {claim.run}, object "
                             f"{_short(claim.source_digest)})", it.shown, it.via)
                else:
                    count = series.get((i, claim.id))
                    self.add(seg, it.shown.start, "drift", [claim],
                             _drift_message(claim, it.shown, got, it.in_points(claim))
                             + (series_note(count, taken[(i, claim.id)]) if count else ""),
                             it.shown, it.via)
            else:
                owners = [claims[c] for c in cids]
                could = " or ".join(f"{c.id} ({_value(c)}, run {c.run})" for c in owners[:6])
                if len(owners) > 6:
                    could += f" or {len(owners) - 6} more"
                self.add(seg, it.shown.start, "ambiguous", owners,
                         f"{it.shown.display()} is ambiguous: it could be {could} and matches "
                         "none; mark it with a claim marker", it.shown, it.via)
        for (cid, _), cells in alike.items():
            self._alike_cells(seg, claims[cid], cells)

    def _alike_cells(self, seg: Segment, claim: Claim, cells: list[_Item]) -> None:
        """Judge ``claim`` on the ``cells`` of one table column naming it alike (its row and
        the column both name it, as strongly), none of which matches it: one model in two
        rows, for two datasets, resolutions or schedules the claim does not name, or a long
        table repeating its header and the method's row under it.

        One cell is drift. Several showing one number are one drift, at the first, naming
        the others: whichever row is the claim's, its number drifts. Several showing
        different numbers are one ``ambiguous`` finding naming each: the claim is one row's,
        and the table does not say which (before, each drifted, so a row of another setting
        was reported as this claim's drift)."""
        first = cells[0]
        if len(cells) == 1 or len({it.shown.display() for it in cells}) == 1:
            also = ""
            if len(cells) > 1:
                also = (f"; the same {first.shown.display()} at "
                        + ", ".join(_place(seg, it) for it in cells[1:])
                        + f": {len(cells)} rows name {claim.id} alike")
            self.add(seg, first.shown.start, "drift", [claim],
                     _drift_message(claim, first.shown, first.check(claim),
                                    first.in_points(claim)) + also, first.shown, first.via)
            return
        where = ", ".join(f"{it.shown.display()} at {_place(seg, it)}" for it in cells)
        self.add(seg, first.shown.start, "ambiguous", [claim],
                 f"{claim.id} ({_value(claim)}, run {claim.run}) is named alike by "
                 f"{len(cells)} rows of this column, and none of {where} matches it; mark "
                 f"the one that is {claim.id}'s with a claim marker (or alias {claim.id} by "
                 "what its row says and the others do not)", first.shown, first.via,
                 candidates=tuple(it.shown.display() for it in cells))

    def visible(self, hits: Iterable[Hit], masked: str, base: int) -> frozenset[str]:
        """The anchor terms among ``hits`` that the mask left visible."""
        # a masked hit is inside a URL, a citation, a LaTeX command or comment
        return frozenset(h.term for h in hits if masked[h.start - base] != " ")

    def _named(self, terms: Iterable[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        claims_of = self.index.claims_of
        if self.index.compound:
            terms = set(terms)
            # a namespaced key written apart ("agieval_aqua_rat" over "acc_norm") names its
            # claim as the key whole does, by its parts and its key; a part alone names none
            for cid, parts, key in self.index.compounds(terms):
                out.setdefault(cid, set()).update(parts, (key,))
        for term in terms:
            for cid in claims_of.get(term, ()):
                named = out.get(cid)
                if named is None:
                    out[cid] = {term}
                else:
                    named.add(term)
        return out

    def _strongest(self, named: dict[str, set[str]]) -> dict[str, int]:
        """The claims of ``named`` (claim -> the terms naming it) that take part, with how many
        terms name each: those a decisive term names, less any whose terms another claim of its
        metric is named by too, and more ("PSNR" and "Ours" point at Ours' PSNR claim, not at
        every PSNR claim; "top-1 accuracy", "Ours" and "Baseline" keep the Baseline's claim,
        which "Baseline" names and Ours' claim is not named by)."""
        decisive = self.index.decisive
        metric_of = self.metric_of
        by_metric: dict[str, list[tuple[str, set[str]]]] = {}
        for cid, terms in named.items():
            if not terms.isdisjoint(decisive):
                by_metric.setdefault(metric_of[cid], []).append((cid, terms))
        out: dict[str, int] = {}
        for group in by_metric.values():
            if len(group) == 1:
                cid, terms = group[0]
                out[cid] = len(terms)
                continue
            # most terms first: a set is named by fewer terms than any set strictly holding it,
            # and whatever holds it is inside a kept (undominated) set, so only those are tried
            group.sort(key=lambda ct: -len(ct[1]))
            kept: list[set[str]] = []
            for cid, terms in group:
                if not any(len(terms) < len(k) and terms < k for k in kept):
                    kept.append(terms)
                    out[cid] = len(terms)
        return out

    def named(self, terms: frozenset[str]) -> frozenset[str]:
        """Every claim a decisive term of ``terms`` names (a bare metric name naming more than
        a few claims left out: its numbers are judged through `candidates`). Cached."""
        got = self._named_cache.get(terms)
        if got is None:
            claims_of, decisive = self.index.claims_of, self.index.decisive
            ids: set[str] = set()
            for term in terms:
                members = claims_of.get(term, ())
                if term in decisive and len(members) <= _INDEXED:
                    ids.update(members)
            got = self._named_cache[terms] = frozenset(ids)
        return got

    def candidates(self, terms: frozenset[str]) -> dict[str, int]:
        """The claims that may own a number of a unit naming ``terms``, with how many of the
        terms name each.

        A claim takes part only when a *decisive* term names it (one that says which quantity:
        its metric, or an alias only claims of that metric have), less those whose terms all
        name another claim of the metric too that more terms name (a sentence naming "Ours" and
        "PSNR" points at Ours' PSNR claim, not at every PSNR claim; see `_strongest`). Cached:
        units repeat the same few term sets.
        """
        got = self._cache.get(terms)
        if got is None:
            claims_of = self.index.claims_of
            broad = [t for t in terms if len(claims_of.get(t, ())) > _BROAD]
            if len(broad) == 1:
                got = self._with_broad(terms, broad[0])
            else:
                got = self._strongest(self._named(terms))
            self._cache[terms] = got
        return got

    def candidate_ids(self, terms: frozenset[str]) -> frozenset[str]:
        """The claims of `candidates` (its keys), as a set. Cached: a bare metric name's
        hundred claims were copied into a new set for every sentence naming it."""
        got = self._cache_ids.get(terms)
        if got is None:
            got = self._cache_ids[terms] = frozenset(self.candidates(terms))
        return got

    def _with_broad(self, terms: frozenset[str], broad: str) -> dict[str, int]:
        """`_strongest(_named(terms))` without expanding the one term that names many claims
        (a bare metric name): its claims named by nothing else take part (named by it alone)
        only when no claim it names is named by another term too."""
        claims_of = self.index.claims_of
        named = self._named(t for t in terms if t != broad)
        members = claims_of[broad]
        member_set = frozenset(members)
        specific = False
        for cid, by in named.items():
            if cid in member_set:
                by.add(broad)
                specific = True
        out = self._strongest(named)
        if broad in self.index.decisive and not specific:
            for cid in members:  # the bare metric name: every claim of it, each named once
                out.setdefault(cid, 1)
        return out

    def cell_candidates(self, col: frozenset[str], row: frozenset[str],
                        above: frozenset[str] = frozenset()) -> tuple[dict[str, int], bool]:
        """`candidates` for a table cell; true when its row and its column both name them
        (then the cell is that claim's number and is judged by itself). ``above``: the terms
        naming the whole table from above (its headings): they name each cell as its row's
        label does, but only a row and a column together make a cell a claim's alone."""
        key = (col, row, above)
        got = self._cell_cache.get(key)
        if got is None:
            claims_of = self.index.claims_of
            by_row = self._named(row)  # row labels are usually narrow: expand them, not the
            both: dict[str, set[str]] = {}  # column's bare metric name
            for cid, terms in by_row.items():
                named = {t for t in col if cid in claims_of.get(t, ())}
                if named:
                    both[cid] = terms | named | {t for t in above if cid in claims_of.get(t, ())}
            if self.index.compound:
                # a namespaced key's parts split between the row and the column (a task's row
                # under an "acc_norm" column): the cell is its claim's as row and column
                for cid, parts, _ in self.index.compounds(row | col | above):
                    if not parts.isdisjoint(row) and not parts.isdisjoint(col):
                        both.setdefault(cid, set()).update(
                            t for t in row | col | above if cid in claims_of.get(t, ())
                            or t in parts)
            strength = self._strongest(both)
            alone = bool(strength)
            if not alone:
                strength = self.candidates(col | row | above)
            got = self._cell_cache[key] = (strength, alone)
        return got

    def _heading_terms(self, terms: Iterable[str]) -> dict[str, set[str]]:
        """Per claim, which of ``terms`` name it; a term naming more than `_BROAD` claims (a
        bare metric name in a big project) tells none of them apart, and is left out."""
        claims_of = self.index.claims_of
        return self._named(t for t in set(terms) if len(claims_of.get(t, ())) <= _BROAD)

    def above(self, headings: list[tuple[int, list[Hit]]]) -> _Above:
        """`_Above` of a segment's ``headings`` (`log_units.from_above`)."""
        out = _Above()
        for at, hits in headings:
            for cid, terms in self._heading_terms(h.term for h in hits).items():
                out.add(cid, frozenset(terms), at)
        return out

    def over(self, hits: Sequence[Hit], scope: tuple[int, int], above: _Above,
             inside: Sequence[Hit]) -> _Over:
        """`_Over` of a table under the headings whose hits are ``hits`` (``inside``: the
        table's own hits)."""
        terms = frozenset([h.term for h in hits])
        mine = {cid: len(by) for cid, by in self._heading_terms(terms).items()}
        return _Over(terms, mine, scope, terms | {h.term for h in inside}, above)

    def sentence(self, seg: Segment, unit: Sentence, markers: list[Marker],
                 hits: list[Hit], heading: Sequence[Hit] = (),
                 records: list[_Item] | None = None, section: str | None = None) -> None:
        """Judge a sentence's anchored numbers. A log's line (`log_units`) is given the hits of
        the heading over it, which name every number of the line as a row's label names its
        cells, and hands its numbers to ``records``: the log's lines are judged together.
        ``section``: the split the section holding the sentence reports (`section_splits`)."""
        for marker in markers:
            if marker.kind == "bind":
                if not self.unknown(seg, marker):
                    self.add(seg, marker.start, "marker",
                             [self.claims[i] for i in marker.ids],
                             f"marker for {marker.ids[0]} is not followed by a number (a bare "
                             "marker binds only a table's header or row-label cell)",
                             None, marker.via)
            elif marker.kind != "noclaim":
                self.marker(seg, marker)
        if not (hits or heading) or any(m.kind == "noclaim" for m in markers):
            return
        above = frozenset([h.term for h in heading]) if heading else frozenset()
        # No claim takes part for all the unit's terms, so none does for the visible ones (a
        # subset): skip masking and scanning (a marker's sentence naming just a method).
        named_here = frozenset([h.term for h in hits])
        if not self.candidates(named_here | above if above else named_here):
            return
        start = unit.start
        masked = mask(seg, start, unit.end)
        terms = self.visible(hits, masked, start)
        if above:
            terms |= above
        strength = self.candidates(terms)
        if not strength:
            return
        found = scan_numbers(masked, base=start, comma=decimal_comma(seg))
        if not found:
            return
        cands = self.candidate_ids(terms)
        taken = [(h.start, h.end) for h in hits]
        # whether a number is in an anchor, by bisection when there are many: a log line or a
        # headed line is a unit of any length, and trying each of its anchors for each of its
        # numbers was quadratic (hits come in text order; the furthest end of those starting
        # at or before each). A sentence's few anchors are tried one by one: cheaper.
        many = len(taken) > 16
        hit_starts = [s for s, _ in taken] if many else []
        reach = list(itertools.accumulate((e for _, e in taken), max)) if many else []
        marked = {m.number.start for m in markers if m.number is not None}
        words: list[int] | None = None
        anchored: list[int] = []
        items = []
        for shown in found:
            at = shown.start
            if at in marked:
                continue  # a marker's number is checked exactly
            if many:
                k = bisect.bisect_right(hit_starts, at)
                if k and reach[k - 1] > at:
                    continue  # an anchor's digits are no value
            elif any(s <= at < e for s, e in taken):
                continue
            if words is None:
                words = [m.start() + start for m in _WORD.finditer(masked)]
                # an anchor's first and last words: a label of many words ("IoU=0.50 | area=
                # all | maxDets=100") ends near its number, though it starts far from it
                anchored = sorted(bisect.bisect_right(words, p) for h in hits
                                  if masked[h.start - start] != " " for p in (h.start, h.end - 1))
            if not above and not _near(anchored, bisect.bisect_right(words, at)):
                # "noise 0.2) with ... the lowest loss": another noun's number; a list's later
                # item is as near as its first ("On Set5, Set14 and B100, ... PSNRs of 32.46,
                # 28.80 and 27.71 dB, respectively")
                first = list_head(masked, at - start, shown.suffix_end - start) + start
                if first == at or not _near(anchored, bisect.bisect_right(words, first)):
                    continue
            items.append(_Item(shown, cands, "?", strength=strength,
                               context=(masked, start, taken), named=self.named(terms)))
        if self.summary_values:
            for it in items:
                if it.shown.start in self.summary_values:
                    it.points = in_points(it.shown)
        names_paired = len(items) > 1 and (
            says_respectively(masked) and self._respectively(items, found, hits, masked, start)
            or "/" in masked and self._respectively(items, found, hits, masked, start,
                                                    slash_pairs))
        # "loss: 0.04 - val_accuracy: 0.99": keys say whose; a log's record, one pair a line
        # ("  predict_accuracy = 0.9826"), too
        keys: list[Key | None] | None = None
        fields = False
        if items and ((is_listing(masked) if records is None else _KEY_MARK.search(masked))
                      or (fields := is_field_listing(masked))):
            keys = self._keyed(items, hits, masked, start, fields)
        elif items and records is None and len(cands) > 1 and len(hits) > 1:
            # several claims named: each number is the claims of the names it is written
            # with (a sentence naming one claim pays nothing)
            self._written_with(items, found, hits, masked, start)
        if records is None and keys is None and len(items) > 1:
            self._another_metrics(items, found, hits, masked, start)
        if items and self.split_of and self._names_a_split(cands, self.named(terms)):
            assert words is not None
            # (a "respectively" that pairs the numbers with names pairs them with no splits)
            paired = self._respective_splits(seg, items, found, masked, start, hits) \
                if records is None and len(items) > 1 and not names_paired else None
            self._other_splits(items, masked, start, keys, records is not None, words,
                               section, _held_out_keys(seg) if records is not None else None,
                               paired, hits)
        if records is not None:
            records.extend(items)
        elif items:
            self.assign(seg, items)

    def _keyed(self, items: list[_Item], hits: list[Hit], masked: str,
               start: int, fields: bool = False) -> list[Key | None]:
        """In a listing of "key: value" pairs (a Keras log line, a printed dict, "BLEU4 = 34.78
        ... BP=0.963"), a claim that one of its names keys a number is judged only on the
        numbers its fullest name keys: "val_accuracy: 0.9920" is the val_accuracy claim's, and
        "accuracy: 0.9874" (the training accuracy) or "loss: 0.0406" beside it is not, which
        else made the claim ambiguous among them, or drift on the wrong one. Returns each
        number's key (`number_roles.labels`)."""
        keys = labels(masked, start, [it.shown.start for it in items],
                      [(h.start, h.end, h.term) for h in hits if masked[h.start - start] != " "],
                      fields)
        name_of = self._key_names
        fullest: dict[str, int] = {}  # claim -> the most words of a name keying its numbers
        for key in keys:
            if key is not None and not key.glued:
                for cid in name_of(key.term):
                    fullest[cid] = max(fullest.get(cid, 0), len(key.term.split()))
        for it, key in zip(items, keys, strict=True):
            term, glued = (key.term, key.glued) if key is not None else ("", False)
            named = name_of(term) if term and not glued else frozenset()
            size = len(term.split()) if term and not glued else 0
            drop = {c for c in fullest if not (c in named and size == fullest[c])}
            if glued:  # "predict_accuracy = 0.9826": not the eval_accuracy claim's
                drop |= name_of(term)
            elif term:  # keyed by a name: only the claims that name is a name of
                drop |= (it.cands | it.named) - named
            if drop & (it.cands | it.named):
                it.cands, it.named = it.cands - drop, it.named - drop
        return keys

    def whole_keys(self, text: str, hits: list[Hit]) -> list[Hit]:
        """``hits`` less each metric's name that ``_`` carries on into a longer key naming
        another quantity (`_another_key`): lm-evaluation-harness's ``acc_norm`` (a row's label,
        a results JSON's key) holds the anchor ``acc`` of an ``acc`` claim, and read so, the
        task's ``acc_norm`` value was as much the claim's as its ``acc`` value (ambiguous
        between them). A key that only begins with a metric's name is another metric's, as
        one that only ends with it is (`_keyed`: ``predict_accuracy``)."""
        out: list[Hit] | None = None
        for i, h in enumerate(hits):
            # (one character compared per hit: nearly none is followed by "_")
            if text.startswith("_", h.end) and h.term in self.metric_terms \
                    and _another_key(text, h.start, h.end):
                if out is None:
                    out = hits[:i]
                continue
            if out is not None:
                out.append(h)
        return hits if out is None else out

    def lines_apart(self, seg: Segment, hits: list[Hit], log: bool) -> list[Hit]:
        """``hits`` with each that runs across a line break of printed output (a log's, ``log``;
        a fenced block of output, or into one) replaced by the anchors each line holds alone.
        There a line is a record, and a line holding anchors and no number names the lines
        under it (`log_units`): folded to words, a results JSON's ``"arc_challenge": {`` over
        ``"acc_norm": 0.2901,`` held the key ``arc_challenge/acc_norm`` whole, which named every
        line under the task as much as its own (its ``acc`` line too: ambiguous)."""
        text = seg.text
        out: list[Hit] | None = None
        for i, h in enumerate(hits):
            # (one bounded search per hit, over its few characters: nearly none crosses a line)
            crosses = text.find("\n", h.start, h.end) >= 0 and (
                log or _in_output(seg, h.start) or _in_output(seg, h.end - 1))
            if crosses and out is None:
                out = hits[:i]
            if not crosses:
                if out is not None:
                    out.append(h)
                continue
            assert out is not None
            ls = text.rfind("\n", 0, h.start) + 1
            while ls < h.end:
                le = text.find("\n", ls)
                le = len(text) if le < 0 else le
                line = text[ls:le]
                out.extend(Hit(ls + g.start, ls + g.end, g.term)
                           for g in self.whole_keys(line, self.index.scan(line))
                           if h.start <= ls + g.start < h.end)
                ls = le + 1
        return hits if out is None else out

    def _key_names(self, term: str) -> frozenset[str]:
        """The claims a listing's key ``term`` names: those it is a name of, and those whose
        namespaced key it is a part of (`anchors._compound_parts`): in libai's printed dict
        ``{'exact_match,flexible-extract': 0.0129, ...}`` under ``'gsm8k':``, the key's anchor is
        the filter "flexible extract", a part of ``gsm8k/exact_match,flexible-extract``, which
        names no claim alone; read as no claim's name, it took the claim off its own value (the
        line's other parts and its heading name the claim: `_named`)."""
        named = self.index.claims_of.get(term, frozenset())
        parts = self.index.parts_of.get(term) if self.index.compound else None
        return named | parts if parts else named

    def _respectively(self, items: list[_Item], found: list[Shown], hits: list[Hit],
                      masked: str, start: int, pair: Pairing = respectively) -> bool:
        """"32.46, 28.80 and 27.71 dB on Set5, Set14 and B100, respectively": each number of
        the list is only the claims its own name names (`number_roles.respectively`, over all
        the sentence's numbers ``found``), so two numbers swapped drift instead of each
        matching the other's claim; so too a list of numbers and one of names joined by
        slashes, ``pair`` `number_roles.slash_pairs` ("85.5%/90.5% precision/recall": swapped,
        each matched the other's claim). Nothing changes unless every number of the list is
        judged here and every name of it names one of its number's candidates. Whether the
        list of numbers pairs with a list of names (then it pairs with no list of splits)."""
        names = _one_a_place(hits, masked, start)
        pairs = pair(masked, start, [(n.start, n.suffix_end) for n in found],
                     [(h.start, h.end) for h in names])
        judged = {it.shown.start: it for it in items}
        claims_of = self.index.claims_of
        own = [(judged[found[i].start],
                claims_of.get(names[k].term, frozenset()) & judged[found[i].start].cands)
               for i, k in pairs if found[i].start in judged]
        if own and len(own) == len(pairs) and all(mine for _, mine in own):
            for it, mine in own:
                it.cands, it.named = mine, it.named & mine
        return bool(pairs)

    def _written_with(self, items: list[_Item], found: list[Shown], hits: list[Hit],
                      masked: str, start: int) -> None:
        """"31.42 dB PSNR and 0.912 SSIM on Set5, and 27.3 dB PSNR on Urban100": each number is
        only the claims the names it is written with name (`number_roles.written_with`), so a
        moved number drifts against its own claim, not ambiguous with every claim the sentence
        names, and two swapped numbers drift instead of each matching the other's claim. A
        name naming none of a number's claims, or none its stronger names left, narrows
        nothing. Then a claim that one number is written with more specifically than another
        (27.3 with "PSNR" and "Urban100", 31.42 with "PSNR" alone) is not the other's."""
        names = _one_a_place(hits, masked, start)
        if len(names) < 2:
            return
        # (every number of the sentence but an anchor's digits: one between a setting and a
        # number parts them)
        starts = [h.start for h in names]
        numbers = [n for n in found if (k := bisect.bisect_right(starts, n.start) - 1) < 0
                   or names[k].end <= n.start]
        every = written_with(masked, start, [(n.start, n.suffix_end) for n in numbers],
                             [(h.start, h.end) for h in names])
        at = {n.start: i for i, n in enumerate(numbers)}
        own = [every[at[it.shown.start]] if it.shown.start in at else [] for it in items]
        claims_of = self.index.claims_of
        # per set of claims numbers are written with (few: a sentence names few claims), and
        # whether a name narrowed them (or named them all): its numbers
        groups: dict[tuple[frozenset[str], bool], list[_Item]] = {}
        for it, ks in zip(items, own, strict=True):
            mine, bound = it.cands, False
            for k in ks:
                narrower = mine & claims_of.get(names[k].term, frozenset())
                if narrower:
                    mine, bound = narrower, True
            groups.setdefault((mine, bound), []).append(it)
        if not any(bound for _, bound in groups):
            return  # no number is written with a name
        # a claim's number written with it more specifically: not a number of the others
        # written with its names, nor, when that number is written with its one claim alone,
        # of a number written with none ("AUC 0.89 with the true sun, 0.59 with another": the
        # 0.59 is no mAP claim's). A number written with none is otherwise left as it was:
        # "30.10/0.888 for the Baseline" names the pair's first number too.
        drops: dict[tuple[frozenset[str], bool], set[str]] = {}
        for (narrow, bound), members in groups.items():
            values = self._values_of(members, narrow) if bound else set()
            if not values:
                continue
            for key in groups:
                wide, wide_bound = key
                if (wide_bound or len(narrow) == 1) and narrow < wide \
                        and not values.isdisjoint(wide):
                    drops.setdefault(key, set()).update(values)
        claims = self.claims
        for key, members in groups.items():
            mine = key[0] - drops[key] if key in drops else key[0]
            for it in members:
                # (a number written with no name keeps a claim it matches: "31.20 dB at 200k
                # iterations, and with self-ensemble 31.42 dB" keeps 31.42 Ours' though 31.20 is
                # written with Ours; one written with a name loses it, so swapped numbers drift)
                kept = mine | {c for c in key[0] - mine if it.check(claims[c]).matches} \
                    if key in drops and not key[1] else mine
                if kept != it.cands:
                    it.cands, it.named = kept, it.named - (it.cands - kept)

    def _another_metrics(self, items: list[_Item], found: list[Shown], hits: list[Hit],
                         masked: str, start: int) -> None:
        """"Movement pruning achieves 75.6% top-1 and 92.8% top-5 accuracy" with a top-1 claim:
        a number written with another metric's name only ("top-5 accuracy", a name of the
        direction registry's that no anchor is in) is not the claim's where another number of
        the sentence is written with the claim's own name and may be its value (both were its
        candidates: a wrong 75.6% was ambiguous, not its drift). It is still the claim's match
        where it equals the claim: papers name one quantity several ways ("41.2 AP on COCO"
        beside "a mAP of 80.1 on VOC"). A claim no number is written with keeps every number
        it had (`number_roles.written_with`)."""
        mentions = metric_mentions(masked, start)
        if not mentions:
            return
        names = _one_a_place(hits, masked, start)
        foreign = [span for span in mentions
                   if not any(h.start < span[1] and span[0] < h.end for h in hits)]
        if not foreign:
            return
        spans = sorted([(h.start, h.end) for h in names] + foreign)
        term_at = {h.start: h.term for h in names}
        starts = [s for s, _ in spans]
        numbers = [n for n in found if (k := bisect.bisect_right(starts, n.start) - 1) < 0
                   or spans[k][1] <= n.start]
        every = written_with(masked, start, [(n.start, n.suffix_end) for n in numbers], spans)
        at = {n.start: i for i, n in enumerate(numbers)}
        claims_of = self.index.claims_of
        # per item: the claims its own names name, and whether another metric's name is one
        written: list[tuple[frozenset[str], bool]] = []
        for it in items:
            own = every[at[it.shown.start]] if it.shown.start in at else []
            mine: frozenset[str] = frozenset()
            for k in own:
                term = term_at.get(spans[k][0])
                if term is not None:
                    mine |= claims_of.get(term, frozenset())
            written.append((mine, any(spans[k][0] not in term_at for k in own)))
        bound: set[str] = set()
        for it, (mine, _) in zip(items, written, strict=True):
            bound |= self._values_of([it], mine & it.cands) if mine & it.cands else set()
        for it, (mine, other) in zip(items, written, strict=True):
            drop = (bound & it.cands) - mine if other else set()
            if drop:
                # no plausible value of the claim, but still its match: the other name may be
                # the claim's quantity by another name ("41.2 AP on COCO" for a mAP claim,
                # "76.1% top-1" for an accuracy claim; `probe` matches a claim in ``named``)
                it.cands, it.named = it.cands - drop, it.named | drop

    def _values_of(self, members: list[_Item], claim_ids: frozenset[str]) -> set[str]:
        """The claims of ``claim_ids`` that a number of ``members`` could be the value of (a
        value, and plausible: "BYOL 128 200 0.861" writes 128 with BYOL, but 128 is no kNN
        accuracy's, so it takes BYOL's claim from no other number)."""
        out: set[str] = set()
        claims = self.claims
        any_claim = claims[next(iter(claim_ids))]
        for it in members:
            it.is_value_for(any_claim)  # (reads its kind from its words, once)
            if it.kind != "value":
                continue
            out.update(c for c in claim_ids
                       if c not in out and (it.exact or it.check(claims[c]).plausible))
        return out

    def _names_a_split(self, *claim_sets: frozenset[str]) -> bool:
        """Whether a claim of ``claim_sets`` is on one split (`split_of`)."""
        on_one = self.split_of.keys()
        return any(not on_one.isdisjoint(ids) for ids in claim_sets)

    def _respective_splits(self, seg: Segment, items: list[_Item], found: list[Shown],
                           masked: str, start: int, hits: list[Hit]) -> dict[int, str] | None:
        """"31.42 and 32.05 dB on the validation and test sets, respectively": the split of each
        number of a list paired in order with the sentence's list of splits
        (`number_roles.respective_splits`, over all its numbers ``found``), by the number's
        start. A list of another length than the splits' is no pass: each claim on a split
        that one of its numbers could be is `ambiguous` there, and none of them is judged on
        those numbers. A claim's anchor after a split word is qualified by it as a metric's
        name is ("the val and test FVD": `number_roles.split_words`)."""
        if not says_respectively(masked):
            return None  # (most sentences: no anchors gathered)
        anchors = dict(self._metric_spans(hits, masked, start))
        paired, unpaired = respective_splits(masked, start,
                                             [(n.start, n.suffix_end) for n in found], anchors)
        if unpaired:
            self._unpaired_splits(seg, items, [[found[i] for i in ids] for ids in unpaired],
                                  masked, start, anchors)
        return {found[i].start: split for i, split in paired} if paired else None

    def _metric_spans(self, hits: Sequence[Hit], masked: str,
                      start: int) -> list[tuple[int, int]]:
        """The spans of a unit's anchors that name a claim's metric (`metric_names`), written in
        it: the only anchors a split word qualifies ("val PSNR"; not "Val Ours")."""
        return [(h.start, h.end) for h in hits
                if h.term in self.metric_names and masked[h.start - start] != " "]

    def _unpaired_splits(self, seg: Segment, items: list[_Item], lists: list[list[Shown]],
                         masked: str, start: int, anchors: dict[int, int]) -> None:
        """Report (`_respective_splits`) the claims on a split that a number of ``lists`` is a
        candidate of, and take them off those numbers."""
        splits = [masked[at - start:].split(maxsplit=1)[0].rstrip(",/")
                  for at, _ in next(run for run in split_lists(masked, start, anchors)
                                    if len(run) > 1)]
        judged = {it.shown.start: it for it in items}
        split_of = self.split_of
        for numbers in lists:
            mine = [judged[n.start] for n in numbers if n.start in judged]
            on_a_split = sorted({c for it in mine for c in it.cands | it.named if c in split_of})
            if not on_a_split:
                continue
            where = ", ".join(f"{n.display()} at {':'.join(map(str, seg.position(n.start)))}"
                              for n in numbers)
            for cid in on_a_split:
                claim = self.claims[cid]
                # (not "named here": a claim may be a number's candidate by its metric's or
                # its value alone, "PSNR" naming the baseline's PSNR claim too)
                self.add(seg, mine[0].shown.start, "ambiguous", [claim],
                         f"{cid} ({_value(claim)}, run {claim.run}, on the {split_of[cid]} "
                         f"split) may be one of {counted(len(numbers), 'number')} ({where}) "
                         f"given for {counted(len(splits), 'split')} ({', '.join(splits)}), "
                         f"respectively: which, if any, is {cid}'s cannot be told; mark it "
                         "with a claim marker", mine[0].shown, mine[0].via,
                         candidates=tuple(n.display() for n in numbers))
            drop = frozenset(on_a_split)
            for it in mine:
                it.cands, it.named = it.cands - drop, it.named - drop

    def _other_splits(self, items: list[_Item], masked: str, start: int,
                      keys: list[Key | None] | None, record: bool, words: list[int],
                      section: str | None, held_out: frozenset[str] | None = None,
                      paired: dict[int, str] | None = None, hits: Sequence[Hit] = ()) -> None:
        """Drop from each number the claims on a split its words say it is not of
        (`_split_named`): "acc: 0.9874" beside "val_acc: 0.9920" is not a test_acc claim's, nor
        "an accuracy of 0.989 on the training data" a test_accuracy claim's; where its words
        name none, the split its ``section``'s heading names ("## Validation"). ``held_out``:
        a log record's, the quantities its log keys with a held-out split on any line
        (`_held_out_keys`). ``paired``: a number's split by its start, where the sentence lists
        splits *respectively* (`_respective_splits`). ``hits``: the sentence's anchors; a split
        word in prose is the split of the numbers of the metric it qualifies, not of every
        number near it (`number_roles.SentenceSplits`: "The val loss curve is flat; PSNR is
        31.42 dB")."""
        split_of = self.split_of
        unit = record_split(masked, epochs=record)
        prose: SentenceSplits | None = None
        if keys is None and unit is None and has_split_word(masked):
            anchors = _anchor_spans(hits, masked, start)
            prose = SentenceSplits(masked, start, anchors,
                                   self._metric_spans(hits, masked, start))
            if not prose.words:
                prose = None
        qualified = _qualified(masked, start, keys) if keys is not None else frozenset()
        for i, it in enumerate(items):
            key = keys[i] if keys is not None else None
            split = _split_named(masked, start, key, qualified) or unit
            if split is None and held_out and key is not None \
                    and metric_key(key.term) in held_out:
                split = "train"  # its log keys the quantity with a held-out split elsewhere
            if split is None and paired:
                split = paired.get(it.shown.start)
            if split is None and prose is not None:
                split = _nearest_split(prose.of(it.shown.start, it.shown.suffix_end), words,
                                       it.shown.start, prose.same_clause,
                                       prose.names_another_split)
            if split is None:
                split = section
            if split is None:
                continue
            drop = {c for c in it.cands | it.named
                    if c in split_of and splits_conflict(split, split_of[c])}
            if drop:
                it.cands, it.named = it.cands - drop, it.named - drop

    def table(self, seg: Segment, table: Table, markers: list[Marker], hits: list[Hit],
              over: _Over | None = None, section: str | None = None,
              written: frozenset[str] = frozenset()) -> None:
        """Judge a table's anchored numbers: a cell's context is its row and its column header,
        and ``over``, what names the whole table from above (a Markdown table's headings).
        ``section``: the split the section holding the table reports (`section_splits`), where
        its header and row labels name none. ``written``: every anchor term the document writes
        (`_Outnamed`)."""
        hits = self._cell_hits(seg, table, hits)
        starts = [h.start for h in hits]
        comma = decimal_comma(seg)  # its cells write decimal commas ("31,42")
        col_terms: list[frozenset[str]] = []
        col_bind: list[set[str]] = []
        col_pct: list[bool] = []
        col_words: list[bool] = []  # the header names a count of a setting (Epochs, GPUs)
        col_hyper: list[bool] = []  # the header is a hyperparameter's name ("Learning rate")
        col_delta: list[bool] = []
        col_scale: list[str | None] = []  # "Params (M)": the column's numbers are in millions
        col_split: list[str | None] = []  # "Val Acc": the column's numbers are of that split
        col_head: list[str] = []
        col_whole: list[frozenset[str]] = []  # the terms a header part is the whole of ("PSNR")
        # a noclaim outside the body rows, or on the header's line ("Method & PSNR \\\\ % noclaim"),
        # silences the whole table
        last_head = table.header_rows[-1] if table.header_rows else []
        head_end = _row_end(seg.text, max(c.end for c in last_head)) if last_head else -1
        table_off = any(m.kind == "noclaim" and (m.start < head_end or not _in_rows(table, m.start))
                        for m in markers)
        # (sorted, and the binding markers alone: looked up by bisection per row and cell, as a
        # table may hold a marker in every row)
        noclaims = sorted(m.start for m in markers if m.kind == "noclaim")
        markers_by_start = sorted((m for m in markers if m.kind == "bind"), key=lambda m: m.start)
        bind_starts = [m.start for m in markers_by_start]
        run_col = -1  # a column telling runs apart ("seed"): its "mean" row states their value
        for column, cell in enumerate(table.header):
            terms: frozenset[str] = frozenset()
            binds: set[str] = set()
            pct = words = hyper = False
            heads: list[str] = []
            written_heads: list[str] = []
            whole: set[str] = set()
            for part in table.parts_of(column):  # a multi-row header: each row's cell, not between
                masked = mask(seg, part.start, part.end)
                in_part = _within(hits, starts, part)
                if isinstance(part, JoinedName):
                    # a name a header's slash list shares a stem with ("MNLI-(m/mm)" read as
                    # "MNLI-m"): read from the name, which the text writes nowhere whole
                    masked = mask_text(seg.syntax, part.text)
                    in_part = self._read_hits(part)
                elif seg.text.find("<", part.start, part.end) >= 0 \
                        and part.text != seg.text[part.start:part.end]:
                    in_part = self._read_hits(part)  # an HTML cell: "box<br/>AP"
                named = self.visible(in_part, masked, part.start)
                if named:
                    terms |= named
                    whole |= _whole_terms(in_part, masked, part.start)
                binds |= self._binds(seg, markers_by_start, bind_starts, part)
                # \si{\percent} masks to \%; a threshold in a name ("Ag@5\%", "Recall@1%") is
                # no unit: its column holds fractions, not percents
                pct = pct or "%" in _AT_THRESHOLD.sub("", part.text) \
                    or "%" in _AT_THRESHOLD.sub("", masked)
                words = words or names_a_count(masked)
                hyper = hyper or names_a_hyperparameter(masked)
                heads.append(masked)
                written_heads.append(part.text)
            col_terms.append(terms)
            col_whole.append(frozenset(whole))
            header = " ".join(heads)
            col_split.append(header_split(header))
            col_head.append(header)
            if run_col < 0 and names_runs(header):
                run_col = column  # telling runs apart ("seed"): its "mean" row is the runs'
            col_bind.append(binds)
            col_pct.append(pct)
            col_words.append(words)
            col_hyper.append(hyper)
            # (each header row's part alone: "SD" under a spanning "Precision", "| Mean | SD |"
            # sub-columns of a paper's tool comparison, is the spread's column; read with the
            # part above it, "Precision SD", it was the precision's, its 0.02 a drift, round 63)
            col_delta.append(any(_delta_column(text, terms)
                                 for text in dict.fromkeys((cell.text, *written_heads))))
            col_scale.append(_header_scale(cell.text))
        col_under = _spanned_from(table)
        _bare_is_training(col_split, col_head)
        value_markers = [m for m in markers if m.kind in ("value", "delta", "empty",
                                                          "malformed")]
        marked = {m.number.start for m in value_markers if m.number is not None}
        in_cells = sorted(m.start for m in value_markers)
        items: list[_Item] = []
        rows: list[tuple[list[tuple[int, Cell, str]], frozenset[str], set[str], bool,
                         str | None, frozenset[str]]] = []
        above = head_end  # where the row above ends: text before it is that row's, not this one's
        # per row, its labels but its run's (the group it is a run of) and whether it is the mean
        run_rows: list[tuple[tuple[str, ...] | None, bool]] = []
        blanks: list[list[int]] = []  # per row, its cells showing no value (`_NO_VALUE`)
        hyper_rows: set[int] = set()  # rows labelled by a hyperparameter's name ("lr")
        classes = self.class_labels if self.class_labels and _is_report(table) else None
        for row in table.rows:
            if not row:
                continue
            # A noclaim silences the row it is written in: not the rows under a \multirow label
            # (their first cell is that label, back in the row above), nor the row after a
            # "... \\ % noclaim" comment, which ends the line of the row it follows.
            own_end = _row_end(seg.text, row[-1].end)
            row_off = table_off or _holds(noclaims, Cell("", max(row[0].start, above), own_end))
            above = own_end
            numeric: list[tuple[int, Cell, str]] = []
            blank: list[int] = []  # the columns where the row shows no value ("", "-", struck)
            row_terms: set[str] = set()
            whole_labels: set[str] = set()
            row_bind: set[str] = set()
            labels: list[str] = []
            for ci, cell in enumerate(row):
                masked = mask_text(seg.syntax, cell.text, comma)
                if classes is not None and ci == 0 \
                        and (label := _class_row(masked, seg.text, cell.start, classes)):
                    labels.append(masked)  # class "1" of a report: a label, its claims' row
                    row_terms.add(label)
                    continue
                # (a first cell "25%" is describe()'s label of a quartile row, not a value)
                if (_NUMERIC_START.match(masked) or _marked_start(masked) is not None) \
                        and not (ci == 0 and names_a_spread(masked)) \
                        and not _DIMENSIONS.match(masked):
                    numeric.append((ci, cell, masked))  # parsed below, only where it matters
                    continue
                if masked.strip():
                    labels.append(masked)
                if ci and _NO_VALUE.fullmatch(masked):
                    blank.append(ci)
                in_row = _within(hits, starts, cell)
                if in_row:
                    row_terms |= self.visible(in_row, masked, cell.start)
                    whole_labels |= _whole_terms(in_row, masked, cell.start)
                if markers:
                    row_bind |= self._binds(seg, markers_by_start, bind_starts, cell)
            if any(names_a_hyperparameter(label) for label in labels):
                hyper_rows.add(len(rows))
            if len(labels) == 1 and names_a_spread(labels[0]):
                row_off = True  # "std", "min", "25%": the column's spread, not its value
            elif any(spread_label(label, row_terms) for label in labels):
                row_off = True  # "acc_norm_stderr": the metric's standard error, no value
            run_key: tuple[str, ...] | None = None
            run_mean = False
            if 0 <= run_col < len(row):
                run_label = mask_text(seg.syntax, row[run_col].text).strip()
                if names_a_spread(run_label):
                    row_off = True  # "resnet18,std,0.0023": the model's runs' spread
                run_key = tuple(lb.strip() for lb in labels if lb.strip() != run_label)
                run_mean = names_the_mean(run_label)
            run_rows.append((run_key, run_mean))
            # a row labelled by a split alone ("| Val | 93.4 |"): its numbers are of that split
            row_split = next((sp for label in labels if (sp := label_split(label))), None) \
                if self.split_of else None
            rows.append((numeric, frozenset(row_terms), row_bind, row_off, row_split,
                         frozenset(whole_labels)))
            blanks.append(blank if numeric else [])  # (a group's heading row holds none)
        # A results file with a row per seed and a "mean" row over them ("resnet18,mean,0.9127"):
        # a claim is the mean's, not one seed's (unless it records that one seed), so the rows
        # of the runs the mean sums up are not candidates for it. Before, a moved mean that
        # another seed's row happened to show matched it, and one matching no row was
        # ambiguous between every seed's.
        means = {key for key, mean in run_rows if mean and key is not None}
        runs_only = {row_no for row_no, (key, mean) in enumerate(run_rows)
                     if key in means and not mean} if means else set()
        # A claim whose own row names it ("| Ours | 31.42 |" under "PSNR") is that row's: the
        # rows of other methods ("| JPEG | 28.50 |") are not candidates for it. So too where
        # that row shows no value in the column ("| Ours | - | 0.9134 |", "| Ours | ~~31.52~~ |
        # 0.9134 |"): the baseline's number above it is not the claim's (it drifted so).
        taken: set[str] = set()
        for (numeric, rterms, _, _, row_split, _), blank in zip(rows, blanks, strict=True):
            if rterms:
                for ci in [ci for ci, _, _ in numeric] + blank:
                    if ci < len(col_terms) and col_terms[ci]:
                        strength, alone = self._cell(col_terms[ci], rterms, over)
                        split = col_split[ci] or row_split or section
                        if split is not None:
                            strength = self._of_split(strength, split)
                        if alone:
                            taken.update(strength)
        outnamed: _Outnamed | None = None  # built when a cell no row and column name needs it
        # the runs each row's label names, and all of them: see the row filter below
        runs_of = {rterms: {self.claims[c].run for c in self.named(rterms)}
                   for _, rterms, _, _, _, _ in rows}
        all_runs = set().union(*runs_of.values()) if runs_of else set()
        per_class = table.per_class()
        for row_no, (numeric, rterms, row_bind, row_off, row_split, row_whole) \
                in enumerate(rows):
            row_decisive = not rterms.isdisjoint(self.index.decisive) or (
                bool(self.index.compound) and self._names_compound(
                    rterms | over.terms if over is not None else rterms))
            for ci, cell, masked in numeric:
                if not (row_bind or row_decisive or (ci < len(col_terms) and col_terms[ci])
                        or (ci < len(col_bind) and col_bind[ci])):
                    continue  # nothing here names a claim: the number is nobody's
                # from the cell's first non-blank: a LaTeX cell may start on a line of its own
                parsed = number_in(masked, len(masked) - len(masked.lstrip()), len(masked),
                                   comma)
                if parsed is None and (mark := _marked_start(masked)) is not None:
                    parsed = number_in(masked, mark, len(masked), comma)  # "≈0.444", "🥇 0.912"
                schedule = row_no in hyper_rows or (ci < len(col_hyper) and col_hyper[ci])
                if parsed is not None:
                    parsed = _value_of_two(seg.syntax, cell.text, masked, parsed, comma,
                                           schedule)
                after = 0 if parsed is None else _after_spread(masked, parsed)
                note_split = _split_note(masked, after) if parsed is not None \
                    and "(" in masked else None
                if note_split is not None:
                    after = note_split[1]
                if parsed is None or _WORDS.search(masked, after, _note_start(masked)
                                                   if schedule else len(masked)):
                    continue
                shown = _shift(parsed, cell.start)
                scale_word = col_scale[ci] if ci < len(col_scale) else None
                if scale_word is not None and shown.suffix is None and not shown.percent:
                    # A multiplier in the header ("Params (M)", "FLOPs (G)") scales the column's
                    # bare numbers as a glued one ("20.8M") would: without it, 20.8 under
                    # "Params(M)" drifted against the parameter count 20,770,000 the evidence
                    # records (a claim recorded in millions says so with its unit, "M").
                    shown = shown.scaled_by(scale_word)
                if shown.start in marked or _holds(in_cells, cell):
                    continue  # a value marker in the cell: checked exactly below
                pct = ci < len(col_pct) and col_pct[ci]
                bound = (col_bind[ci] if ci < len(col_bind) else set()) | row_bind
                if bound:
                    items.append(_Item(shown, frozenset(bound), "value", pct, exact=True,
                                       via="table"))
                    continue
                if row_off or (ci < len(col_delta) and col_delta[ci]):
                    continue
                cterms = col_terms[ci] if ci < len(col_terms) else frozenset()
                if not cterms and not rterms:
                    continue
                if per_class and not rterms:
                    continue  # one class's score, no claim's: a claim on a class names its row
                if not cterms and ci < len(col_words) and col_words[ci]:
                    continue  # "Epochs", "GPUs": settings of the run, not its results
                strength, alone = self._cell(cterms, rterms, over)
                if per_class:  # a class's row: no other claim's (the overall AP's) number
                    by_row = self.named(rterms)
                    strength = {c: n for c, n in strength.items() if c in by_row}
                split = (note_split[0] if note_split is not None else None) \
                    or (col_split[ci] if ci < len(col_split) else None) or row_split or section
                if split is not None:  # "Val Acc" is not a test_acc claim's column
                    strength = self._of_split(strength, split)
                if not alone and taken:
                    strength = {c: n for c, n in strength.items() if c not in taken}
                if not alone and strength:
                    if outnamed is None:
                        outnamed = _Outnamed(self, frozenset().union(
                            *col_terms, *(r[1] for r in rows),
                            over.terms if over is not None else ()), written)
                    if any(outnamed(c) for c in strength):
                        strength = {c: n for c, n in strength.items() if not outnamed(c)}
                if not alone and rterms:
                    # a claim whose run another row names ("Ours" in its own row) is not a
                    # number of this row ("Baseline"): the rows say whose each number is
                    mine = runs_of[rterms]
                    strength = {c: n for c, n in strength.items()
                                if self.claims[c].run in mine
                                or self.claims[c].run not in all_runs}
                if row_no in runs_only:  # one seed's row: a claim on that seed's alone
                    strength = {c: n for c, n in strength.items()
                                if len(self.claims[c].seeds) == 1}
                if not strength:
                    continue
                kind = "uncertainty" if shown.uncertainty else (
                    "delta" if shown.sign == "+" else "value")
                col_named = col_split[ci] if ci < len(col_split) else None
                col_whole_ = col_whole[ci] if ci < len(col_whole) else frozenset()
                items.append(_Item(shown, frozenset(strength), kind, pct, via="table",
                                   strength=strength, alone=alone,
                                   cell_split=(row_no, col_named) if col_named else None,
                                   wholes=(row_whole, col_whole_)
                                   if alone and (row_whole or col_whole_) else (),
                                   column=ci, row=row_no,
                                   under=col_under[ci] if ci < len(col_under) else -1))
        columns = _columns_of(table, [m.start for m in value_markers])
        for m in value_markers:
            col = columns.get(m.start)
            self.marker(seg, m, percent=col is not None and col < len(col_pct) and col_pct[col])
        items = self._one_cell_each(
            self._strongest_rows(_strongest_cells(items, self._wholes)), _column_of)
        items = self._one_cell_each(items, _row_of_split_cell)
        table_terms = frozenset().union(*col_terms, *(r[1] for r in rows),
                                        over.terms if over is not None else ())
        names_shown: dict[str, bool] = {}  # (asked per cell: each claim looked up once)

        def names_no_setting(cid: str) -> bool:
            got = names_shown.get(cid)
            if got is None:
                got = names_shown[cid] = self._names_all_shown(cid, table_terms)
            return got

        self.assign(seg, self._one_cell_each(items, _row_under_span, names_no_setting),
                    epochs=_EpochRows(seg, table))

    def _names_all_shown(self, cid: str, shown: frozenset[str]) -> bool:
        """Whether the table's terms ``shown`` hold each of claim ``cid``'s names (its metric,
        by any of its terms, and each alias that anchors it): a claim whose name the table
        writes nowhere ("psnr_x4" over "$\\times$4", the alias "BSD100" over "B100") may name
        one of the settings side by side under a spanning header, which the reader cannot
        tell, so its number is not taken to be whichever of them matches (`_row_under_span`)."""
        claim, claims_of = self.claims[cid], self.index.claims_of
        names = [metric_terms(claim.metric), *({normalize(a)} for a in claim.aliases)]
        return all(shown.intersection(mine) for name in names
                   if (mine := {t for t in name if cid in claims_of.get(t, ())}))

    def _one_cell_each(self, items: list[_Item], group: Callable[[_Item], Hashable | None],
                       names_no_setting: Callable[[str], bool] | None = None) -> list[_Item]:
        """``items`` less, among the cells judged alone (``alone``) that ``group`` puts
        together, a claim several of them name in those that do not match it, when one does;
        when none matches, each is judged (a column's cells together: `_alike_cells`). The
        groups:

        * a column (`_Item.column`): one model at two resolutions ("| resnet152d | 320 | 83.67
          |" and "| resnet152d | 256 | 83.14 |" under "top1"), one backbone at two schedules.
          The claim names no setting, and the table gives one number per setting;
        * a row's cells under different splits' headers (`_Item.cell_split`: "| LiteNet |
          93.63 | 81.62 |" under "Val Acc" and "Test Acc"). A claim on no split (or "eval",
          either held-out split) is the one number of the row it matches;
        * a row's cells under one header cell spanning their columns (`_Item.under`: "| Ours |
          38.21 | 32.10 |" under "\\multicolumn{2}{c}{Set5 PSNR}" over "×2" and "×4", a
          super-resolution paper's scales side by side). Columns under two header cells
          (Set5's and Urban100's) are not one quantity's settings, and stay apart; so does a
          claim ``names_no_setting`` says may name one (`_names_all_shown`).

        Before, the claim drifted against every other setting's or split's cell."""
        seen: dict[tuple[str, Hashable], int] = {}  # (claim, group) -> the cells naming it
        for it in items:
            at = group(it) if it.alone else None
            if at is not None:
                for cid in it.strength:
                    if names_no_setting is None or names_no_setting(cid):
                        seen[cid, at] = seen.get((cid, at), 0) + 1
        if all(n == 1 for n in seen.values()):
            return items
        claims = self.claims

        def matches(it: _Item, cid: str) -> bool:
            return it.is_value_for(claims[cid]) and it.check(claims[cid]).matches

        matched = {(cid, at) for it in items if it.alone and (at := group(it)) is not None
                   for cid in it.strength if seen.get((cid, at), 0) > 1 and matches(it, cid)}
        if not matched:
            return items
        return _narrowing(items, lambda it: it.alone and group(it) is not None,
                          lambda it, c, _: (c, group(it)) not in matched or matches(it, c))

    def _cell_hits(self, seg: Segment, table: Table, hits: list[Hit]) -> list[Hit]:
        """``hits`` with each that runs across cells replaced by the anchors each cell it spans
        holds alone: cells fold to words as prose does, so "| musr_average | - |
        naive_average |" (OpenCompass' dataset, version and metric) read as the key
        `musr_average/naive_average` whole, which no one cell holds, and hid its parts."""
        text = seg.text
        if not any(_CELL_SEP.search(text, h.start, h.end) for h in hits):
            return hits  # (nearly always: one search per hit, over the hit's few characters)
        cells = sorted({(c.start, c.end) for row in (table.header, *table.rows) for c in row})
        firsts = [s for s, _ in cells]
        out: list[Hit] = []
        for h in hits:
            i = bisect.bisect_right(firsts, h.start) - 1
            if i < 0 or cells[i][1] >= h.end or not _CELL_SEP.search(text, h.start, h.end):
                out.append(h)
                continue
            while i < len(cells) and cells[i][0] < h.end:
                a, b = cells[i]
                out.extend(Hit(a + g.start, a + g.end, g.term)
                           for g in self.whole_keys(text[a:b], self.index.scan(text[a:b]))
                           if h.start <= a + g.start < h.end)
                i += 1
        return out

    def _read_hits(self, cell: Cell) -> list[Hit]:
        """The anchors in a header cell as its reader gives its text, where that is not the
        segment's: an HTML cell with its tags blanked (`html_tables`). The segment's text
        reads a tag's name as a word ("box<br/>AP" as "box br AP", detectron2's MODEL_ZOO.md
        header), so the "box AP" it shows named nothing."""
        text = cell.text
        return [Hit(cell.start + h.start, cell.start + h.end, h.term)
                for h in self.whole_keys(text, self.index.scan(text))]

    def _strongest_rows(self, items: list[_Item]) -> list[_Item]:
        """``items`` less, in each cell no row and column both name a claim in, the claims
        another such cell names with more anchors (as `_strongest_cells` does for the cells
        they do).

        An lm-evaluation-harness table names a task once, in its first row, and each metric in
        its own row: a claim on a task's ``acc_norm``, aliased by the task, is named by the
        task's ``acc`` row (its alias) and its ``acc_norm`` row (its alias and its metric), and
        a claim on ``acc`` by every task's ``acc`` row. Judged in each, a moved value was
        ambiguous between its row and the others; its number is the row naming it most."""
        best: dict[str, int] = {}
        claims = self.claims
        for it in items:
            if not it.alone:
                for cid, n in it.strength.items():
                    if n > best.get(cid, 0) and it.is_value_for(claims[cid]):
                        best[cid] = n
        if not best or all(n == 1 for n in best.values()):
            return items
        return _narrowing(items, lambda it: not it.alone, lambda _, c, n: n >= best.get(c, 0))

    def _names_compound(self, terms: frozenset[str]) -> bool:
        """Whether ``terms`` hold every part of a namespaced key (`AnchorIndex.compounds`)."""
        return next(self.index.compounds(terms), None) is not None

    def _of_split(self, strength: dict[str, int], split: str) -> dict[str, int]:
        """``strength`` less the claims on a split that ``split`` is not (`split_of`)."""
        split_of = self.split_of
        if not any(c in split_of and splits_conflict(split, split_of[c]) for c in strength):
            return strength
        return {c: n for c, n in strength.items()
                if not (c in split_of and splits_conflict(split, split_of[c]))}

    def _cell(self, col: frozenset[str], row: frozenset[str],
              over: _Over | None) -> tuple[dict[str, int], bool]:
        """`cell_candidates` of a cell of a table named from above by ``over``, less the claims
        another heading names more (`_Over.elsewhere`)."""
        if over is None:
            return self.cell_candidates(col, row)
        strength, alone = self.cell_candidates(col, row, over.terms)
        if any(over.elsewhere(c) for c in strength):
            strength = {c: n for c, n in strength.items() if not over.elsewhere(c)}
        return strength, alone

    def _wholes(self, strength: dict[str, int], *parts: frozenset[str]) -> dict[str, int]:
        """Per claim of ``strength``, how many of ``parts`` (each the terms a label or header
        part is the whole of) name it."""
        out: dict[str, int] = {}
        for terms in parts:
            if not terms:
                continue
            named = self._claims_named.get(terms)
            if named is None:  # (a row's or a column's: asked once per cell, kept per run)
                claims_of = self.index.claims_of
                named = self._claims_named[terms] = frozenset().union(
                    *(claims_of.get(t, ()) for t in terms))
            for c in strength:
                if c in named:
                    out[c] = out.get(c, 0) + 1
        return out

    def _binds(self, seg: Segment, binders: list[Marker], starts: list[int],
               cell: Cell) -> set[str]:
        """The claims the bind markers in ``cell`` bind (``binders``: the table's bind markers
        in text order; ``starts``: theirs)."""
        out: set[str] = set()
        lo = bisect.bisect_left(starts, cell.start)
        for m in binders[lo:bisect.bisect_left(starts, cell.end, lo)]:
            if not self.unknown(seg, m):
                out.update(m.ids)
        return out


# what may surround an anchor in a label or header cell it is the whole of: formatting left by
# the mask ("{Ours}", "Ours$^       $" from \textbf{Ours}, Ours$^\dagger$), footnote marks
_DECOR = " \t\r\n{}$^*~_\u2020\u2021"


# a classification report's columns (sklearn's, seqeval's; printed as text or as a dict)
_REPORT_COLUMNS = frozenset(["precision", "recall", "f1-score"])


def _is_report(table: Table) -> bool:
    """Whether ``table`` is a classification report: a column headed precision, recall or
    f1-score (a dict report's header keeps the key's quotes)."""
    return any(c.text.strip().strip("'\"").lower() in _REPORT_COLUMNS for c in table.header)


def _class_row(label: str, text: str, at: int, classes: frozenset[str]) -> str | None:
    """The class label of digits (one of ``classes``, the claims' aliases of digits) that a
    report's row label ``label`` (its cell at ``at`` in ``text``) is: ``'1'`` in the dict,
    ``1`` in the printed report (whose reader leaves an integer label's cell empty, as a
    frame's row numbers: read from the line); None if none.
    sklearn labels a binary classifier's classes so: an alias "1" names the positive class's
    row, which else named nothing (its claim judged against every row of its column: the
    weighted avg's recall satisfied a class-1 recall claim, a moved one was ambiguous)."""
    if not label.strip():
        end = text.find("\n", at)
        words = text[at:end if end >= 0 else len(text)].split(maxsplit=1)
        label = words[0] if words else ""
    got = label.strip().strip("'\"")
    return got if got in classes else None


def _one_a_place(hits: list[Hit], masked: str, start: int) -> list[Hit]:
    """The visible names among ``hits`` in text order, one a place: the longest ("Set14", not
    a term in it)."""
    names: list[Hit] = []
    for h in sorted(hits, key=lambda h: (h.start, -h.end)):
        if masked[h.start - start] != " " and not (names and h.end <= names[-1].end):
            names.append(h)
    return names


def _summary_apart(records: list[_Item], values: frozenset[int]) -> list[list[_Item]]:
    """``records`` as groups judged apart: the values of COCOeval summary lines (``values``:
    where they start), and the rest (one group, all of them, in a text without a summary)."""
    if not values:
        return [records]
    groups = ([it for it in records if it.shown.start in values],
              [it for it in records if it.shown.start not in values])
    return [g for g in groups if g]


def _whole_terms(hits: list[Hit], masked: str, base: int) -> set[str]:
    """The terms of ``hits`` that are the whole of the cell whose masked text is ``masked``
    (at ``base``): "Ours" in "\\textbf{Ours}", not in "Ours w/o attention", "Ours-S" or
    "+ Ours" (each another method, a variant of Ours)."""
    # (the text before the hit is all decoration where the cell's first other character is at
    # or after the hit's start; likewise after its end)
    lead = len(masked) - len(masked.lstrip(_DECOR))
    tail = len(masked.rstrip(_DECOR))
    return {h.term for h in hits
            if lead >= h.start - base and tail <= h.end - base and masked[h.start - base] != " "}


def _strongest_cells(items: list[_Item],
                     wholes_of: Callable[..., dict[str, int]]) -> list[_Item]:
    """``items`` less, in each cell its row and column both name claims in (``alone``), the
    claims another such cell names with more anchors.

    A claim aliased by its method and its dataset ("DeFT", "Q1") is named by its row and by
    the "Q2 PSNR" column too (its method and its metric), and "ConvNeXt-T | 384x384" is named
    by the "ConvNeXt-T | 224x224" row as well: judged alone in each, the claim drifted against
    its method's every other dataset or resolution. Its number is the cell naming it most;
    a cell left with no claim is nobody's. Of the cells naming a claim equally, those where a
    whole row label or header part is its anchor ("| Ours |", "PSNR") are its, not those where
    the anchor is part of a longer label ("| Ours w/o attention |", "| Ours-S |", "| + Ours |",
    "PSNR-Y"): an ablation's variants of the method, written in the rows under or above it,
    drifted against the method's claim (``wholes_of``: `_Run._wholes`). Cells naming a claim
    equally and alike are all judged."""
    best: dict[str, int] = {}
    for it in items:
        if it.alone:
            for cid, n in it.strength.items():
                best[cid] = max(best.get(cid, 0), n)
    if not best:
        return items
    # the tie-break, for the claims several cells name at their best only (most name one)
    at_best: dict[str, int] = {}
    for it in items:
        if it.alone:
            for cid, n in it.strength.items():
                if n == best[cid]:
                    at_best[cid] = at_best.get(cid, 0) + 1
    tied = {cid for cid, k in at_best.items() if k > 1}
    whole: dict[str, int] = {}
    wholes: dict[int, dict[str, int]] = {}  # per item (its id), per claim
    if tied:
        for it in items:
            if it.alone and it.wholes and not tied.isdisjoint(it.strength):
                got = wholes[id(it)] = wholes_of(it.strength, *it.wholes)
                for cid, w in got.items():
                    if cid in tied and it.strength[cid] == best[cid]:
                        whole[cid] = max(whole.get(cid, 0), w)
    return _narrowing(items, lambda it: it.alone, lambda it, c, n: n >= best[c] and wholes.get(
        id(it), {}).get(c, 0) >= whole.get(c, 0))


def _narrowing(items: list[_Item], applies: Callable[[_Item], bool],
               kept: Callable[[_Item, str, int], bool]) -> list[_Item]:
    """``items``, each that ``applies`` to judged for the claims of its strength ``kept``
    (the item, the claim, the anchors naming it) says only (`_narrowed`), and left out when
    none is kept: a cell left with no claim is nobody's."""
    out: list[_Item] = []
    for it in items:
        if applies(it):
            strength = {c: n for c, n in it.strength.items() if kept(it, c, n)}
            if len(strength) < len(it.strength):
                if not strength:
                    continue
                it = _narrowed(it, strength)
        out.append(it)
    return out


class _EpochRows:
    """Whether a table's body rows are a training's epochs or steps (`progress.epoch_rows`),
    worked out once, when a claim is left with several of its cells (`assign`); then a
    claim's cells of one column are its history, and it owns the last row's
    (`progress.last_row`)."""

    def __init__(self, seg: Segment, table: Table) -> None:
        self.seg, self.table = seg, table
        self._epochs: bool | None = None

    def last(self, cells: list[_Item]) -> int | None:
        """The index in ``cells`` of the last row's when they are one column's history."""
        if any(it.row < 0 for it in cells):
            return None
        if self._epochs is None:
            self._epochs = epoch_rows(self.table, self.seg.syntax, decimal_comma(self.seg))
        return last_row([(it.row, it.column) for it in cells]) if self._epochs else None


def _column_of(it: _Item) -> int | None:
    return it.column if it.column >= 0 else None


def _names_its_metric(term: str, metric: str) -> bool:
    """Whether a claim's alias ``term`` (normalized) names a metric: one of the direction
    registry's, or one holding a word of the claim's own ``metric``'s key."""
    # (the word test first: it is the cheaper, and most aliases pass it)
    return not set(term.split()).isdisjoint(metric_key(metric).split()) \
        or direction_of(term) is not None


def _row_of_split_cell(it: _Item) -> int | None:
    return it.cell_split[0] if it.cell_split is not None else None


def _row_under_span(it: _Item) -> tuple[int, int] | None:
    return (it.row, it.under) if it.row >= 0 and it.under >= 0 else None


def _spanned_from(table: Table) -> list[int]:
    """Per column, where the narrowest header part it shares with the column before or after
    it starts (a \\multicolumn or colspan cell heading both: "Set5 PSNR" over "×2" and "×4";
    the words a slash list's names share, "Set5" of "Set5 PSNR/SSIM"); -1 where it shares
    none. The narrowest: under "PSNR" over every dataset and "Set5" over its scales, Set5's.
    A part holding a slash ("\\multicolumn{2}{c}{PSNR/SSIM/LPIPS}") names several quantities,
    no one quantity's settings: it is none."""
    spans = [{(p.start, p.end) for p in table.parts_of(c) if p.text.strip() and "/" not in p.text}
             for c in range(len(table.header))]
    width: dict[tuple[int, int], int] = {}
    for mine in spans:
        for span in mine:
            width[span] = width.get(span, 0) + 1
    out: list[int] = []
    for c, mine in enumerate(spans):
        shared = mine & ((spans[c - 1] if c else set())
                         | (spans[c + 1] if c + 1 < len(spans) else set()))
        out.append(min(shared, key=lambda sp: (width[sp], sp))[0] if shared else -1)
    return out


def _narrowed(it: _Item, strength: dict[str, int]) -> _Item:
    """The table cell ``it`` judged for the claims of ``strength`` only (its checks kept: the
    same number against the same claims)."""
    return _Item(it.shown, frozenset(strength), it.kind, it.percent, via=it.via,
                 strength=strength, alone=it.alone, checks=it.checks,
                 cell_split=it.cell_split, wholes=it.wholes, column=it.column, row=it.row)


def _near(anchored: list[int], word: int) -> bool:
    """Whether word number ``word`` of a sentence is within `_NEAR_WORDS` of an anchor's."""
    i = bisect.bisect_left(anchored, word)
    return any(abs(anchored[j] - word) <= _NEAR_WORDS
               for j in (i - 1, i) if 0 <= j < len(anchored))


_HEAD_WORDS = re.compile(r"[^\W_]+")


def _bare_is_training(col_split: list[str | None], col_head: list[str]) -> None:
    """A column headed by a quantity alone beside one of the same quantity on a held-out split
    ("accuracy" beside "val_accuracy": Keras' ``pd.DataFrame(history.history)``, "Acc" beside
    "Val Acc") holds the training split's numbers, as the bare key beside "val_acc" does on a
    log's line (`_qualified`); before, a val_accuracy claim was ambiguous over both columns."""
    held = {metric_key(head) for head, split in zip(col_head, col_split, strict=True)
            if split in ("val", "test", "eval")}
    if not held:
        return
    for i, head in enumerate(col_head):
        if col_split[i] is None and metric_key(head) in held \
                and " ".join(_HEAD_WORDS.findall(head.lower())) == metric_key(head):
            col_split[i] = "train"


def _qualified(masked: str, start: int, keys: list[Key | None]) -> frozenset[str]:
    """The quantities a listing keys with a held-out split ("acc" for "val_acc: 0.9920",
    "test_loss = 0.31"): beside one, the bare key of the quantity ("acc: 0.9874") is the
    training split's, as Keras' fit() prints them."""
    out: set[str] = set()
    for key in keys:
        if key is not None and key_split(masked, start, key) in ("val", "test", "eval"):
            out.add(metric_key(key.term))
    return frozenset(out)


# A key of a held-out split on a log's line: "val_acc: ", "Test accuracy : ", "eval_loss = "
_HELD_OUT_KEY = re.compile(r"(?i)(?<![^\W_])(?:val|valid|validation|test|eval)[_ ]"
                           r"([a-z][\w@.\-]*)['\"]?[ \t]*[:=]")


def _held_out_keys(seg: Segment) -> frozenset[str]:
    """The quantities a log keys with a held-out split on a line of their own (``accuracy``
    for ``Test accuracy : 0.9479``): beside them, another line's bare key of the quantity that
    names no split itself (Keras' ``- loss: 0.16 - accuracy: 0.9479`` bar over that print)
    names no held-out split's claim, as beside ``val_accuracy`` on its line (`_qualified`).
    A line keying the quantity bare too (fit()'s ``- accuracy: ... - val_accuracy: ...``)
    says nothing of the other lines: an evaluate() bar after it is the held-out split's. Found
    once per segment."""
    got = seg._cache.get("held_out")
    if got is None:
        text = seg.text
        found: set[str] = set()
        for m in _HELD_OUT_KEY.finditer(text):
            ls = text.rfind("\n", 0, m.start()) + 1
            le = text.find("\n", m.end())
            line = text[ls:len(text) if le < 0 else le]
            bare = re.compile(r"(?i)(?<![\w-])" + re.escape(m.group(1)) + r"['\"]?[ \t]*[:=]")
            if not any(b.start() + ls != m.start(1) for b in bare.finditer(line)):
                found.add(metric_key(m.group(1)))
        got = frozenset(found)
        seg._cache["held_out"] = got
    assert isinstance(got, frozenset)
    return got


def _split_named(masked: str, start: int, key: Key | None,
                 qualified: frozenset[str]) -> str | None:
    """The split a number's key names (`number_roles.key_split`), or "train" for a bare key
    of a quantity the listing also keys with a held-out split (`_qualified`)."""
    if key is None:
        return None
    split = key_split(masked, start, key)
    if split is None and qualified and metric_key(key.term) in qualified:
        return "train"
    return split


def _nearest_split(prose: list[SplitWord], words: list[int], at: int,
                   same_clause: Callable[[int, int], bool] | None = None,
                   another_split: Callable[[int, str], bool] | None = None) -> str | None:
    """The split a sentence names near the number at ``at``: that of every split word of it
    (`SentenceSplits.of`) within `_NEAR_WORDS` words of it ("an accuracy of 0.989 (i.e. 98.9%)
    on the training data"), when they are of one split; where they are of several, the words
    qualifying the data are those of the number's clause only (``same_clause``: "The accuracy
    ... on train set was 82% and that with the test set was 79%": the 82% is the training one),
    and their split is the number's when of one with the words qualifying a metric; else None
    ("training accuracy 0.99, test accuracy 0.97" beside a number of both; "Test PSNR improves
    to 32.05 dB while the val loss is flat": which metric the number is of is not told). Where
    none is near, the split of a setting heading the sentence (`SplitWord.heads`), unless the
    number's clause writes another split (``another_split``: "On the test set, Ours reaches
    80.1%, and it scored 81.5% at validation time")."""
    word = bisect.bisect_right(words, at)
    close = [w for w in prose if abs(bisect.bisect_right(words, w.at) - word) <= _NEAR_WORDS]
    if not close:
        # none near: a setting heading the sentence ("On the test set, top-1 accuracy is
        # 89.7%, and top-5 accuracy is 97.1%") is the split of its numbers however far
        close = [w for w in prose if w.heads and not (
            another_split is not None and another_split(at, w.family))]
    near = {w.family for w in close}
    if len(near) > 1 and same_clause is not None:
        near = {w.family for w in close if w.metrics or same_clause(w.at, at)}
    return near.pop() if len(near) == 1 else None


def _anchor_spans(hits: Sequence[Hit], masked: str, start: int) -> list[tuple[int, int]]:
    """The spans of a unit's anchors written in it (``masked`` from ``start``; an anchor whose
    text is masked is none)."""
    return [(h.start, h.end) for h in hits if masked[h.start - start] != " "]


def _holds(places: list[int], cell: Cell) -> bool:
    """Whether one of ``places`` (sorted) is in ``cell``: by bisection, as a table may hold a
    marker in every cell."""
    i = bisect.bisect_left(places, cell.start)
    return i < len(places) and places[i] < cell.end


def _within(hits: list[Hit], starts: list[int], cell: Cell) -> list[Hit]:
    """The hits inside ``cell`` (``starts``: the hits' start offsets, sorted)."""
    lo = bisect.bisect_left(starts, cell.start)
    hi = bisect.bisect_left(starts, cell.end, lo)
    return [h for h in hits[lo:hi] if h.end <= cell.end]


# a LaTeX row's end (\\), the rules after it (\midrule, \cmidrule(lr){2-3}), and a comment
# ending its line: a "% noclaim" there is written on that row's line
_ROW_COMMENT = re.compile(r"\\\\(?:\[[^\]\n]*\])?(?:[ \t]*\\[A-Za-z]+\*?(?:\([^)\n]*\))?"
                          r"(?:\{[^{}\n]*\})?)*[ \t]*%[^\n]*")


def _row_end(text: str, end: int) -> int:
    """Where a table row whose last cell ends at ``end`` ends, its trailing comment included."""
    m = _ROW_COMMENT.match(text, end)
    return m.end() if m else end


def _in_rows(table: Table, pos: int) -> bool:
    return any(row and row[0].start <= pos < row[-1].end for row in table.rows)


def _columns_of(table: Table, places: list[int]) -> dict[int, int]:
    """The column of the first cell (header rows first) holding each of ``places``, for those
    in one. One pass over the cells for all places: a pass per marker was quadratic."""
    todo = sorted(set(places))
    out: dict[int, int] = {}
    for row in (*table.header_rows, *table.rows):
        if len(out) == len(todo):
            break
        for ci, cell in enumerate(row):
            lo = bisect.bisect_left(todo, cell.start)
            for pos in todo[lo:bisect.bisect_left(todo, cell.end, lo)]:
                out.setdefault(pos, ci)
    return out


_AT_THRESHOLD = re.compile(r"@[ \t]*\d+(?:\.\d+)?[ \t]*\\?%")

# A multiplier alone in parentheses in a column header: "Params(M)", "#Params (M)",
# "FLOPs<br><sup>@640 (B)", "Multi-Adds(G)" (not a unit: "(ms)", "(dB)", "(%)")
_HEADER_SCALE = re.compile(r"\(\s*([kKMBG])\s*\)")
# A score's task tag, not a multiplier: Ultralytics' results.csv heads its columns
# "metrics/mAP50(B)", "metrics/precision(M)" (box, mask); a score is never in billions
_TASK_TAGGED = re.compile(r"(?<![A-Za-z])(?:[Pp]recision|[Rr]ecall|m?AP[\d.\-:]*|map[\d.\-:]*"
                          r"|F1|f1|[Ff]itness)[ \t]*$")


def _header_scale(header: str) -> str | None:
    """The multiplier a column's header writes in parentheses ("Params (M)": millions), or
    None (none, or a score's task tag: "mAP50-95(B)")."""
    m = _HEADER_SCALE.search(header)
    if m is None or _TASK_TAGGED.search(header, 0, m.start()):
        return None
    return m.group(1)



def _shift(shown: Shown, base: int) -> Shown:
    return shown if base == 0 else shown.moved(base)


def _short(digest: str) -> str:
    algo, _, hexpart = digest.partition(":")
    return f"{algo}:{hexpart[:12]}\u2026" if hexpart else digest


def _place(seg: Segment, it: _Item) -> str:
    """``line:col`` of ``it``'s number in ``seg`` (a message naming more than one)."""
    return ":".join(map(str, seg.position(it.shown.start)))


def _value(claim: Claim) -> str:
    return _evidence(claim.value) + (f" {claim.unit}" if claim.unit else "")


def _evidence(value: float) -> str:
    """A claim's value as a message shows it: every digit (repr), but a whole number without
    the float's ".0" (``123456789012``, not ``123456789012.0``, which reads as a measured
    fraction). Rendering only: comparisons use the value itself."""
    if float(value).is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    return repr(value)


def _signed(value: float) -> str:
    """A difference as a delta's message shows it: `_evidence` with its sign, ``+3`` for a
    whole difference (not the float's ``+3.0``, which claims a decimal the document may not
    write), ``+0.03``, ``-1.5``."""
    shown = _evidence(value)
    return shown if shown.startswith("-") else "+" + shown


def _delta_column(header: str, terms: frozenset[str]) -> bool:
    """Whether a column's header says it holds differences or spreads ("\u0394 PSNR", "Gain",
    "std"): a word that is part of an anchor naming the column's quantity says nothing of the
    kind (a census frame's "capital-gain" column, a claim aliased "PSNR gain": the gain is the
    claim's own value)."""
    for m in DELTA_HEADER.finditer(header):
        word = normalize(m.group(0))
        if not word or not any(f" {word} " in f" {term} " for term in terms):
            return True
    return False


def _drift_at(claims: dict[str, Claim], seg: Segment, at: int, finding: Finding,
              cid: str) -> Finding | None:
    """``finding`` (a number two unmatched claims could own) as ``cid``'s drift on its number
    at ``at``, once a notebook's training history satisfied the others
    (`progress.judge_history`); None when that number is no drift of ``cid``."""
    claim = claims.get(cid)
    if claim is None:
        return None
    ls, le = line_at(seg.text, at)
    line = seg.text[ls:le]
    shown = next((n for n in scan_numbers(mask_text(seg.syntax, blank_brackets(line)), base=ls)
                  if n.start == at), None)
    if shown is None:
        return None
    it = _Item(shown, frozenset([cid]))
    if _COCO_TRIGGER in line and parse_line(line) is not None:
        it.points = in_points(shown)
    got = it.check(claim)
    if got.matches or not got.unit_ok:
        return None
    return replace(finding, type="drift", claims=(cid,), candidates=(),
                   evidence=tuple(t for t in finding.evidence if t.claim == cid),
                   message=_drift_message(claim, shown, got, it.in_points(claim)))


def _drift_message(claim: Claim, shown: Shown, got: Check, points: Shown | None = None) -> str:
    scaled = _in_scale(_evidence(got.expected(claim.value)), got.scale)
    # a COCOeval summary's fraction judged in the claim's percent points says so
    said = f"{shown.display()} (= {points.literal} points)" if points is not None \
        else shown.display()
    return (f"{claim.id} says {said}, evidence says {_evidence(claim.value)}{_unit_after(claim)}"
            f"{scaled} (run {claim.run}, object {_short(claim.source_digest)})")


def _in_scale(expected: str, scale: int) -> str:
    """The evidence in the scale the number was shown in, when another: `` (= 76.34%)`` for a
    fraction claim's ``76.3%``. (A percent claim's number is never read as a fraction: a
    number shown at most 1 near its name is too often a ratio, threshold or correlation.)"""
    return f" (= {expected}%)" if scale > 0 else ""


def _unit_after(claim: Claim) -> str:
    """The claim's unit after its value in a message: ``%`` against it for a percent claim, as
    the document writes it (``76.34%``: a bare ``76.34`` beside ``says 77.3%`` read as another
    scale), any other after a space (``31.42 dB``, ``12.5 ms``, ``25.6 M``: the evidence says
    what it measures, though the document's number may show no unit); nothing without one or
    for a plain fraction (``--unit fraction``: ``0.955 (= 95.5%)``, not ``0.955 fraction``)."""
    if is_percent_unit(claim.unit):
        return "%"
    return f" {claim.unit}" if claim.unit and not is_fraction_unit(claim.unit) else ""


# Below this much text a fork costs more than it saves; above, one process per this much, at
# most one per core (judging is pure Python: a process per core is the only way to use more
# than one).
_SHARE_CHARS = 512 * 1024


def reconcile_segments(segments: Sequence[Segment], claims: Sequence[Claim],
                       documents: int | None = None, jobs: int | None = None,
                       cache: Path | None = None) -> Report:
    """Find every claimed number in ``segments`` and judge it against ``claims``.

    Returns a `Report`: its findings (drift, ambiguous, unit, unknown_claim, marker) in document
    order, and the numbers that matched. ``documents`` is the count reported (default: distinct
    paths). ``jobs``: how many processes judge (None: one per core, and one per 512 KB of
    text; 1: this process only). ``cache``: a folder where judged segments are remembered
    (`judge_cache`: keyed by everything a judgement depends on), so an unchanged segment is
    not judged again. The report is the same whatever ``jobs`` and ``cache`` are.
    """
    binds = tex_bindings(segments, claims)  # before the fork: a macro bound in one file binds all
    # likewise a macro naming the method (`tex_macros`): defined in one file, used in others
    texts = macro_texts(segments, binds)
    # and a macro printing a number (`tex_values`): each use is that number, where it is used
    values = macro_values(segments, binds)
    typst = any(is_typst(s) for s in segments)
    if typst:  # likewise a Typst paper's `#let psnr = 31.52` (`typst_pages`)
        values.update(typst_values(segments))
    # and whether \sout, \xout, \st strike text out: the packages' macros, not a paper's own
    strikes = strike_macros(segments)
    memo = JudgeCache(cache, claims, binds, texts, strikes, values) if cache is not None \
        else None
    report = Report()
    todo: list[int] = []
    keys: list[str] = []
    for i, seg in enumerate(segments):
        if memo is not None:
            key = memo.key(seg)
            keys.append(key)
            got = memo.get(key, seg)
            if got is not None:
                report.findings.extend(got[0])
                report.matches.extend(got[1])
                continue
        todo.append(i)
    if todo:
        run = _Run(claims, memo.anchors() if memo is not None else None)
        if memo is not None:
            memo.keep_anchors(run.index)
        run.macros = MacroAnchors(texts, run.index.claims_of)
        run.strikes = strikes
        # (a Typst paper's variables are read, or blanked, whatever the values)
        run.values = MacroValues(values) if values or typst else None
        sizes = [len(segments[i].text) for i in todo]
        if jobs is None:
            jobs = min(cpu_count(), sum(sizes) // _SHARE_CHARS)
        rows = memo is not None or jobs > 1  # kept or sent back: plain data, without the text

        def judge(k: int) -> tuple[list[Finding], list[Any]]:
            run.report = Report()  # k: a position in `todo`
            _segment(run, segments[todo[k]], binds)
            matches = run.report.matches
            return run.report.findings, [m.row() for m in matches] if rows else matches

        with _collection_paused():  # (the matches sent back made here too)
            for k, (findings, judged) in enumerate(fork_each(judge, sizes, jobs)):
                i = todo[k]
                report.findings.extend(findings)
                if not rows:
                    report.matches.extend(judged)
                    continue
                seg = segments[i]
                report.matches.extend([Match.from_row(seg.path_at(row[0]), seg.where, row)
                                       for row in judged])
                if memo is not None:
                    memo.put(keys[i], seg, findings, judged)
    if memo is not None:
        memo.save()
    # a notebook's training prints its metrics in several cells: judged as one log's history
    by_id = {c.id: c for c in claims}
    judge_history(segments, report,
                  lambda seg, at, f, cid: _drift_at(by_id, seg, at, f, cid))
    report.documents = documents if documents is not None else len({s.path for s in segments})
    report.claims = len(claims)
    report.findings.sort(key=lambda f: (f.path, f.where or "", f.line, f.col))
    report.matches.sort(key=lambda m: (m.path, m.where or "", m.offset))
    return report


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    """Garbage collection paused while judging, then resumed if it ran. Judging makes hundreds
    of thousands of short-lived objects, freed by their reference counts, and almost no
    reference cycle (a few dozen objects a run over a 10 MB tree, left to the next collection
    after), and the collections they set off (about a hundred a run, some of them over every
    object the segments and the anchor index hold) cost a few percent of a cold run's time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# "parameters" names a parameter count's claim (`anchors._PARAMETER_COUNT`) where it is counted:
# after a number ("with only 1.0M parameters", "7B parameters", "25.6M trainable parameters"),
# after "number of" or "#", before its number ("Parameters: 25.6M", "**Total parameters**:
# 592,660", "with parameters of only 5.7M"), or heading a table's column. Elsewhere in prose the
# word is a method's settings: "The remaining parameters are set to 20", "We use the default
# parameters (window 20)", "Parameters of the LoRA adapters: r=16, alpha=32"; read as a count's
# name, their numbers drifted against a model's parameter count (review of round 63).
_COUNTED_BEFORE = re.compile(
    # a number and its scale ("1.0M", "$1.0$M", "1.0\\,M", "$1.0\\mathrm{M}$", "1.2 million")
    r"(?i)(?:\d[\d.,]*[ \t$~{}]*(?:\\(?:,|[A-Za-z]+\{)[ \t]*)?"
    r"(?:[kmbgt]|mn|bn|thousand|million|billion|trillion)?"
    r"|(?<![^\W_])(?:number|count|amount|num|no\.)[ \t]+of(?:[ \t]+the)?|\#[ \t]*(?:of[ \t]+)?)"
    r"[ \t*_`~)$}]*(?:[^\W\d_]+[ \t]+)?\Z")
_COUNTED_AFTER = re.compile(r"[ \t*_`]*(?:\([^()\n]{0,12}\)[ \t*_`]*)?[:=|]"
                            r"|[ \t]+of[ \t]+(?:(?:only|about|approximately|around)[ \t]+|~)?"
                            r"[$~]*\d")


def _counted_parameters(seg: Segment, hits: list[Hit]) -> list[Hit]:
    """``hits`` less a "parameters" of prose that counts nothing: no number or "number of"
    before it (`_COUNTED_BEFORE`), no colon or "of" and a number after it (`_COUNTED_AFTER`),
    in no table."""
    text = seg.text
    out = []
    for hit in hits:
        if hit.term.endswith("parameters"):
            ls = text.rfind("\n", 0, hit.start) + 1
            if not (_COUNTED_BEFORE.search(text, ls, hit.start)
                    or _COUNTED_AFTER.match(text, hit.end)
                    or isinstance(unit_at(seg, hit.start), Table)):
                continue
        out.append(hit)
    return out


def _segment(run: _Run, seg: Segment, binds: dict[str, str]) -> None:
    seg = blank_strikes(seg, run.strikes)  # "\sout{31.52} 31.42": the old value is no value
    if run.values is not None:  # "\psnrOurs{} dB": the number its macro prints (`tex_values`)
        seg = run.values.shown(seg)
    markers = find_markers(seg, binds)
    hits = run.whole_keys(seg.text, run.index.scan(seg.text))
    if any(h.term.endswith("parameters") for h in hits):
        hits = _counted_parameters(seg, hits)  # "the remaining parameters": no count's name
    if run.macros is not None:  # \method naming "FooNet": judged as the word (`tex_macros`)
        seg, hits = with_uses(seg, hits, run.macros.uses(seg))
    log = seg.syntax == "txt" and is_log(seg)
    if hits and (log or seg.syntax == "md" and fences(seg)):
        hits = run.lines_apart(seg, hits, log)
    run.summary_values = frozenset()
    if _COCO_TRIGGER in seg.text:
        # a COCOeval summary line is named by the claims that are its statistic, not by the
        # "Average Precision" every line writes (`coco_summary`); before `without_code`, which
        # drops those of a program's string as any
        hits = named_lines(seg.text, hits, run.coco_specs())
        run.summary_values = frozenset(s.value_start for s in summaries(seg.text))
    if hits and seg.syntax == "md":
        hits = without_code(seg, hits)  # a fenced program's anchors name no result
    if hits and seg.syntax in ("md", "rst"):
        hits = without_argument_titles(seg, hits)  # "## Parameters": an API's, no count
    if not markers and not hits:
        return
    # A printed log: a unit a line, the lines under a heading named by it too, and every line's
    # numbers judged together (`log_units`). Markdown: its list items and "key: value" lines
    # under headings (or under a list item naming them), and the lines of a fenced block of
    # printed output, are units of their own, named from above and judged so too.
    # (a reST page's section titles name its tables as Markdown's headings do: no lines)
    md = md_headings(seg, hits) if hits and seg.syntax in ("md", "rst") else None
    headings = md.lines if md is not None else headed(seg, hits) if hits and log else {}
    # a model card's YAML model-index: each metric entry a unit, named by its result's dataset
    # and task, judged with the other entries only (`front_matter`)
    card = model_index(seg) if md is not None and seg.syntax == "md" else None
    if card is not None:
        for start in [s for s in headings if card.start <= s < card.end]:
            del headings[start]
    if log:
        for start in list(headings):
            if isinstance(unit_at(seg, start), Table):  # a frame's rows: named by its header
                del headings[start]
    text = seg.text
    heads = sorted(headings) if seg.syntax == "md" else []

    def unit_of(pos: int) -> Sentence | Table:
        if card is not None and card.start <= pos < card.end:
            entry = card.entry_at(pos)
            if entry is not None:
                return Sentence(entry.start, entry.end)
        if not headings:
            return unit_at(seg, pos)
        ls = text.rfind("\n", 0, pos) + 1
        got = headings.get(ls)
        if got is not None:
            return Sentence(ls, got[0])
        unit = unit_at(seg, pos)
        if heads and isinstance(unit, Sentence):
            # a Markdown sentence runs on over the lines under a heading ("## Model\nacc:
            # 0.97"): it ends where a headed line starts, as their numbers are the line's
            i = bisect.bisect_right(heads, pos)
            start, end = unit.start, unit.end
            if i < len(heads) and heads[i] < end:
                end = heads[i]
            if i > 0 and headings[heads[i - 1]][0] > start:
                start = headings[heads[i - 1]][0]
            if (start, end) != (unit.start, unit.end):
                unit = Sentence(start, end)
        return unit

    # keyed by start and end: a headed line and the Markdown sentence it opens start together
    units: dict[tuple[bool, int, int], tuple[Sentence | Table, list[Marker], list[Hit]]] = {}
    # the markers each unit holds, as a set: a list's `in` made a table of thousands of markers
    # quadratic
    held: dict[tuple[bool, int, int], set[Marker]] = {}
    for marker in markers:
        places = [marker.start]
        if marker.kind == "noclaim":
            # "... 29.8 dB. <!-- noclaim -->": it also silences the sentence it follows
            before = len(text[:marker.start].rstrip())
            if before > 0:
                places.append(before - 1)
        for place in places:
            unit = unit_of(place)
            key = (isinstance(unit, Table), unit.start, unit.end)
            entry = units.setdefault(key, (unit, [], []))
            if marker not in held.setdefault(key, set()):
                held[key].add(marker)
                entry[1].append(marker)
    current: tuple[Sentence | Table, list[Marker], list[Hit]] | None = None
    for hit in hits:  # in text order: most hits fall in the unit of the one before
        if card is not None and card.start <= hit.start < card.end \
                and card.entry_at(hit.start) is None:
            continue  # a model-index line of no metric (its dataset) names entries, no unit
        inside = current is not None and current[0].start <= hit.start < current[0].end
        if inside and headings and current is not None and current[0].start not in headings:
            inside = text.rfind("\n", 0, hit.start) + 1 not in headings  # a headed line's own
        if not inside:
            unit = unit_of(hit.start)
            current = units.setdefault((isinstance(unit, Table), unit.start, unit.end),
                                       (unit, [], []))
        assert current is not None
        current[2].append(hit)
    for start, (end, _) in headings.items():
        units.setdefault((False, start, end), (Sentence(start, end), [], []))
    for one in card.entries if card is not None else ():  # named by its dataset alone
        units.setdefault((False, one.start, one.end), (Sentence(one.start, one.end), [], []))
    records: list[_Item] | None = [] if log or headings else None
    by_headings: _Above | None = None  # made for the first table under a heading
    # "## Test results": the split a section's numbers are of, where their own words say none
    sections = section_splits(seg) if run.split_of else None
    written: frozenset[str] | None = None  # every anchor the segment writes (for its tables)
    entries = {e.start: e for e in card.entries} if card is not None else {}
    results: list[_Item] = []  # the model-index entries' numbers, judged together
    over_entry: dict[tuple[tuple[int, int], ...], list[Hit]] = {}  # (a result's, once)
    hit_starts = [h.start for h in hits] if entries else []
    for unit, unit_markers, unit_hits in units.values():
        result = entries.get(unit.start) if entries else None
        if result is not None and result.end == unit.end and isinstance(unit, Sentence):
            named = over_entry.get(result.context)
            if named is None:
                named = over_entry[result.context] = [
                    h for s, e in result.context
                    for h in hits[bisect.bisect_left(hit_starts, s):
                                  bisect.bisect_left(hit_starts, e)]]
            run.sentence(seg, unit, unit_markers, unit_hits, named, results, result.split)
            continue
        if isinstance(unit, Table):
            over: _Over | None = None
            if md is not None:
                over_hits, scope = over_table(seg, md, unit.start)
                if scope is not None:
                    if by_headings is None:
                        by_headings = run.above(from_above(seg, md))
                    over = run.over(over_hits, scope, by_headings, unit_hits)
            if written is None:
                written = frozenset([h.term for h in hits])
            run.table(seg, unit, unit_markers, unit_hits, over,
                      sections.at(unit.start) if sections is not None else None, written)
            continue
        above = headings.get(unit.start)
        if above is not None and above[0] != unit.end:
            above = None  # the sentence a headed line opens, not the line
        run.sentence(seg, unit, unit_markers, unit_hits, above[1] if above else (),
                     records if log or above is not None else None,
                     sections.at(unit.start) if sections is not None else None)
    # COCOeval summary lines are judged apart from the log's other records: mmdetection's
    # "bbox_mAP_50: 0.5810" under the summary reports the same evaluation, and a moved value
    # there is drift, not satisfied by the summary's line (`coco_summary`)
    for group in _summary_apart(records, run.summary_values) if records else ():
        whole: Collection[str]
        if log:
            whole = run.candidates(frozenset([h.term for h in hits]))
        else:
            # every claim a line names: a claim named on one line only by a bare metric
            # that names another claim more there ("- precision: 0.9694" under "## Notes",
            # the forest's) still takes part on another line
            whole = frozenset().union(*(it.cands | it.named for it in group))
        run.assign(seg, strongest_records(group, whole), records=True)
    if results:
        run.assign(seg, strongest_records(
            results, frozenset().union(*(it.cands | it.named for it in results))))
