"""What a number near an anchor is: a value, or a delta, bound, reference or uncertainty.

Only a *value* can be a claimed number found by anchors; the rest are read for what they are:

* delta: written with a ``+`` sign; after *by*, *gain*, *improvement*, *drop*, *Δ*... (also with
  *of* between: "a gain of 0.81 dB"); before
  *higher*, *lower*, *better*, *faster*..., or before a metric's anchor and a change's noun ("a
  0.74 dB PSNR gain") (``-0.3`` is a delta unless the claim is negative, which the caller
  decides);
* bound: after *over*, *above*, *below*, *under*, *than*, *at least*, *up to*, *nearly*,
  *almost*, *close to*, ``<``, ``≥``... (not an arrow's ``>``: "63.5% -> 94.0%" is a change,
  read as "→" is);
  either end of a range in words, *between X and Y*, *ranges from X to Y*, *a range of X to Y*
  (German *zwischen X und Y*, *reicht von X bis Y*; French *entre X et Y*, *varie de X à Y*)
  (a spread, not the value: "from X to Y" alone is read as values, since it says a change as
  often: "improves PSNR from 30.10 to 31.42 dB"); either end of a dash range of percents,
  ``98.43%-99.04%``, ``88.4% – 90.9%`` (of bare numbers, ``3-5``, no number is read at all);
* reference: after *Table*, *Fig.*, *Section*, *Eq.*, *epoch*, *step*, *seed*, *layer*,
  *batch size*, ``#``...;
* count: before *epochs*, *steps*, *layers*, *seeds*, *GPUs*, *cores*, *channels*... ("trained for
  40 epochs": a setting of the run, not a result); in a sentence before *tasks*, *datasets*,
  *languages*... and *of 100 tasks* too, unless an anchor right before it names it ("solves 94
  of 100 tasks" for a claim aliased "solves");
* uncertainty: after ``±``, ``\\pm`` or ``+/-``, or a spread's noun and *of* ("a standard
  deviation of 0.05"); the value of a key naming a metric's spread (``"acc_norm_stderr": 0.0143``,
  ``'acc_stderr,none': 0.01``, ``psnr_std: 0.05``);
* other: another method's result, right after *the baseline('s)*, *the previous best*, *the
  previous state-of-the-art*... or right before *(baseline)*, *for the baseline* ("above the
  previous best validation accuracy of 90.1%", "30.10 dB (baseline)"), unless the phrase is a
  claim's anchor (a claim on the baseline), or labels a number of its own ("0.28 (baseline:
  0.20)", "91.5% from the baseline's 88.0%"), or is what the subject is ("Ours is a strong
  baseline with an accuracy of 91.5%"), or what the subject is compared with and "with",
  "at" or a colon leads to the number ("Ours beats the baseline with a PSNR of 31.42 dB"); and
  the second number of a pair "A vs B" after a comparison with another ("Ours improves PSNR
  over the baseline (31.62 vs 30.10 dB)", "Ours vs. baseline: 89.7% vs. 87.6%": the first is
  the subject's), and the start of a change after one ("improves accuracy over the baseline from
  87.6% to 89.7%"); a value still for a claim whose run or alias holds the phrase
  (`names_another`), and the match of any claim it equals (papers do not always write the
  subject's first: "over the baseline (30.10 vs 31.42 dB)"; a claim on the baseline's run
  may be named otherwise: `documents._Item.may_match`);
* level: a setting of the run, a hyperparameter's value ("a masking ratio of 75%", "a
  learning rate of 0.8", "a 75% masking ratio"); a confidence level, before *CI*, *confidence
  interval*, *credible interval*... ("the bootstrap 95% CI", "a 99% confidence interval": a
  setting of the statistics, not a result);
  or an operating point, before *sparsity*, *FPR*, *IoU*, *threshold*... ("matches full
  attention at 65% sparsity", "TPR at 1% FPR": where the result is measured).

A later number of a list ("gains of 4 dB, 0.81 dB and 0.21 dB", "above 92% and 88%") is what
the words before the list's first number make it (`list_head`).

Which names a number is written with ("PSNR of 31.42", "31.42 dB PSNR on Set5": `written_with`)
and which list of numbers goes with which list of names in order (*respectively*: `respectively`;
a slash-joined list of numbers beside as many slash-joined names, "85.5%/90.5% precision/recall":
`slash_pairs`) are read here too. Lists are joined, and *respectively* said, in English, German
and French ("32,1, 33,4 und 31,4 dB", "jeweils", "bzw.", "respectivement"); deltas and bounds
are read in German and French too ("um 0,4 dB", "0,4 dB höher", "über 90 %", "mehr als"; "une
amélioration de 0,4 dB", "0,4 dB de plus", "améliore le PSNR de 0,4 dB", "plus de 80 %",
"au-dessus de"), each a word or a fixed phrase ("de" alone is any "of").

The words are read from the masked text of the unit (LaTeX commands and URLs blanked), within a
few characters of the number. Markers are never judged by these words: they say what they mark.

Which split a number is of (train, val, test, eval), where its words say so, is read here too
(`metric_split`, `key_split`, `record_split`, `prose_splits`, `respective_splits`): a number of
another split than a claim's is not that claim's. In prose a split word qualifying the data
("on the test set") is the split of the numbers near it; one qualifying a metric ("val loss",
"test PSNR", a claim's own metric or alias) is the split of that metric's numbers only, not of
another metric's in its sentence (`SentenceSplits`), but those of a list of "metric number"
pairs after it in its clause ("The test PSNR is 31.42 dB and SSIM is 0.93"; not "Dev perplexity
is 11.8, and BLEU is 28.9"); one saying the data a metric before it is
measured on ("Perplexity on the dev set drops to 11.8") is its clause's numbers' only, and one
saying the data a model was trained on ("Trained on the DIV2K training images, ...") no split of
its numbers (`_trained_on`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from labledger.reconcile.metric_directions import HIGHER, LOWER, metric_key, summary_stat
from labledger.reconcile.numbers import Shown

__all__ = ["DELTA_HEADER", "Key", "SentenceSplits", "SplitWord", "has_split_word",
           "header_split", "heading_split", "is_field_listing", "is_listing", "key_split",
           "label_split", "labels", "list_head", "metric_mentions", "metric_split",
           "names_a_count", "names_a_hyperparameter", "names_runs", "names_the_mean",
           "prose_splits", "record_split", "respective_splits", "respectively", "role_of",
           "says_respectively", "slash_pairs", "split_words", "splits_conflict", "spread_label",
           "written_with"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_REFERENCE_WORDS = _words("""
table tables tab figure figures fig figs section sections sec secs eq eqs equation equations
appendix app algorithm alg line lines chapter ch theorem thm lemma corollary definition def
proposition prop page pages p pp step steps item items no nr ref version v row rows column col
epoch epochs iteration iter seed seeds layer layers block stage stages id issue pr cell
""")
# (German and French too: "verbessert die PSNR um 0,4 dB", "eine Steigerung von 1,2 %", "une
# amélioration de 0,4 dB", "gagne 0,4 dB"; "0,4 dB höher", "0,4 dB supplémentaires")
_DELTA_BEFORE = _words("by gain gains improvement improvements margin delta Δ increase "
                       "increases decrease decreases drop drops boost reduction "
                       "um verbesserung verbesserungen steigerung zuwachs anstieg erhöhung "
                       "verringerung reduktion reduzierung rückgang abnahme verschlechterung "
                       "gewinn vorsprung "
                       "amélioration améliorations augmentation augmentations hausse baisse "
                       "diminution réduction écart progression gagne gagnent")
_DELTA_AFTER = _words("higher lower better worse more less fewer gain gains improvement increase "
                      "decrease drop faster slower smaller larger ahead behind above below "
                      "greater "
                      "höher niedriger besser schlechter mehr weniger größer kleiner schneller "
                      "langsamer geringer supplémentaire supplémentaires")
# French "0,4 dB de plus" (de moins, de mieux): "de" alone is any "of", with one of these a delta
_MORE_FR = _words("plus moins mieux")
# The noun a number is "of" ("a gain of 0.81 dB"): German "von", French "de"
_OF_WORDS = _words("of von de")
# French says a change by its verb and "de": "améliore le PSNR de 0,4 dB", "réduit l'erreur de
# 1,2 %" ("de" then a number, a few words after the verb, in one clause), unless "à" and a
# number follow: "améliore le PSNR de 30,10 à 31,42 dB" says the values, as "from ... to" does
_CHANGED_BY_FR = re.compile(r"(?i)(?<![^\W\d_])(?:amélior|augment|rédui|diminu|abaiss|accro[iî]t)"
                            r"[^\W\d_]*(?:[ \t]*['’][ \t]*|[ \t]+)(?:[^\W\d_]+(?:[ \t]*['’][ \t]*"
                            r"|[ \t]+)){0,5}de[\s$~]*\Z")
_FROM_TO_FR = re.compile(r"[+\-\u2212]?\.?\d[\d.,]*[\s$~]*(?:\\?%|[^\W\d_]{1,6})?[\s$~]+à[\s$~]+"
                         r"[+\-\u2212]?\.?\d")
_COUNT_AFTER = _words("""
epoch epochs step steps iteration iterations iter iters seed seeds run runs trial trials fold
folds layer layers block blocks stage stages head heads channel channels gpu gpus core cores
node nodes worker workers frame frames crop crops batch batches shot shots
image images sample samples example examples pixel pixels patch patches class classes
category categories prompt prompts participant participants subject subjects annotator
annotators query queries token tokens sequence sequences video videos clip clips scene scenes
episode episodes neighbor neighbors neighbour neighbours
""")
# In a sentence a number before these counts as well ("on 94 of 100 tasks", "among 95
# submissions", "in 28 languages"); a table's header naming one says nothing (`names_a_count`:
# "Avg. over tasks" heads averages)
_ROLE_COUNTS = _COUNT_AFTER | _words("task tasks dataset datasets benchmark benchmarks language "
                                     "languages submission submissions entry entries team teams "
                                     "domain domains")
# A part of a total ("94 of 100 tasks", "9 out of 10"), and a number with "+" after it, "and
# more" ("90+% accuracy")
# (whole numbers, the total's noun after it: "scores 8.99 out of 10 on MT-Bench" and "85 out of
# 100 points" state a score)
_OF_A_TOTAL = re.compile(r"(?i)[ \t]+(?:out[ \t]+)?of[ \t]+\d+[ \t]+(?!(?:on|in|at|for|with|by"
                         r"|points?|pts|and|or)(?![^\W_]))[^\W\d_]")
# (not the "+" of a spread written "+/-" or "+-": "31.42+/-0.05 dB" is the value)
_AND_MORE = re.compile(r"\+(?![\d./\-\u2212\u2013])")
# A number that is a target or budget, not a result ("above the 90% target", "a 5% budget")
_TARGET_AFTER = _words("target targets goal goals budget budgets requirement requirements quota")
# A confidence level ("95% CI", "99% confidence interval", "90% credible region"): the word after
# it, or "confidence"/"credible" and one of these
_LEVEL_AFTER = _words("ci cis hdi hpd")
_LEVEL_OF = _words("confidence credible")
_LEVEL_NOUNS = _words("interval intervals level levels band bands bound bounds region regions")
# An operating point: the number before one of these is where a result is measured ("at 65%
# sparsity", "TPR at 1% FPR", "AP at 0.5 IoU"), not the result (unless the noun is an anchor:
# a claim on the sparsity itself)
_POINT_AFTER = _words("sparsity fpr fnr far frr iou threshold thresholds pruning density "
                      "occlusion")
# Points of a metric, then a change's word: "1.4 points higher than the baseline", "a 1.4-point
# gain", "2.1 percentage points better" (the word after the number is the points, not the change)
_POINTS_THEN_CHANGE = re.compile(r"(?i)[ \t-]*(?:(?:percentage|pct\.?|absolute)[ \t]+)?"
                                 r"(?:points?|pts|pp)[ \t]+"
                                 r"(?:higher|lower|better|worse|more|less|fewer|gain|gains"
                                 r"|improvement|increase|decrease|drop|boost|ahead|behind|above"
                                 r"|below)(?![^\W_])")
# Words hedging a number, between it and the word saying what it is: "by roughly 0.87 dB", "a
# gain of about 0.3 dB", "by only 0.1%"
_HEDGES = _words("roughly about approximately approx around only just merely some "
                 "circa ca")
# A setting of the run, a hyperparameter's value: "a masking ratio of 75%", "with a learning
# rate of 0.8", "its masking ratio to 87.5%", "a 75% masking ratio", "0.1 dropout" (not where
# the noun is an anchor: a claim on it)
_HYPER_NOUNS = (r"(?:learning[ \t]+rate|lr|dropout(?:[ \t]+(?:rate|ratio))?|weight[ \t]+decay"
                r"|momentum|temperature|mask(?:ing)?[ \t]+(?:ratio|rate)|noise[ \t]+level"
                r"|label[ \t]+smoothing|drop[ \t-]+path(?:[ \t]+rate)?|warm-?up[ \t]+ratio)")
_HYPER_BEFORE = re.compile(r"(?i)(?<![^\W_])" + _HYPER_NOUNS + r"(?:[ \t]+(?:of|is|was|to|at|=)"
                           r"|[ \t]*[=:])?[\s$~]*\Z")
_HYPER_AFTER = re.compile(r"(?i)[ \t%$~]*(" + _HYPER_NOUNS + r")(?![^\W_])")
# (the whole label: "+ label smoothing", "w/ dropout", "MoCo (momentum contrast)" are rows of
# an ablation or methods, whose changes are results)
_HYPER_NAME = re.compile(r"(?i)[\s*_`$]*(?:(?:initial|peak|base|max)[ \t]+)?" + _HYPER_NOUNS
                         + r"(?:[ \t]+schedule)?[\s*_`$:]*")


def names_a_hyperparameter(text: str) -> bool:
    """Whether a table's row label or column header is a hyperparameter's name alone
    ("Learning rate", "lr", "weight_decay", "**Peak LR**", `_HYPER_NOUNS`): a change in its
    cell is a schedule of the setting ("1e-3 → 1e-5"), not a result changed."""
    return _HYPER_NAME.fullmatch(_GLUING.sub(" ", text)) is not None


# "_" or "-" between two word characters ("weight_decay", "warm-up"): read as a space
_GLUING = re.compile(r"(?<=\w)[_-](?=\w)")


# A count noun written as a rate ("25 frames per second", "1200 tokens/s") is a quantity: a
# throughput claim's value, not a setting of the run.
_RATE = re.compile(r"\s*(?:/|per\s+(?:s|sec|second|step|iteration|iter)\b)")
def names_a_count(text: str) -> bool:
    """Whether a table header names a count of the run's setting ("Epochs", "GPUs", "Seeds"):
    its numbers are settings, not results, whatever the row is."""
    return not _COUNT_AFTER.isdisjoint(re.findall(r"[a-z]+", text.lower()))


# A table column whose cells say which run of several a row is (a results file with a row per
# seed: "seed", "run", "fold"), and the labels such a column gives the rows summing them up
_RUN_WORDS = _words("seed seeds run runs trial trials fold folds repeat repeats replicate "
                    "replicates")
_MEAN_WORDS = _words("mean avg average")


def names_runs(header: str) -> bool:
    """Whether a table header says its column tells runs apart ("seed", "Run", "fold"): a
    row there is one run's, or a statistic over them ("mean", "std")."""
    words = re.findall(r"[a-z]+", header.lower())
    return len(words) == 1 and words[0] in _RUN_WORDS


def names_the_mean(label: str) -> bool:
    """Whether a row's label in such a column names the runs' mean ("mean", "avg")."""
    return label.strip().lower() in _MEAN_WORDS


def names_a_spread(label: str) -> bool:
    """Whether a row's label says its numbers are not values: a statistic other than the value
    itself (as pandas' describe() labels them: ``count``, ``std``, ``min``, ``25%``...), which
    holds the spread or extent of the column's quantity; a ``mean`` or ``median`` row holds it."""
    stat = summary_stat(label.replace("\\%", "%"))  # LaTeX writes 25\%
    return stat is not None and stat not in ("mean", "median")


# The ends of a range in words: the first after "between" / "ranges from" / "range of", the
# second after that first end (and its unit) and "and" / "to". German and French say so too:
# "zwischen 0,91 und 0,93", "reicht von ... bis", "ein Bereich von ... bis", "entre 0,91 et
# 0,93", "varie de 0,91 à 0,93", "une plage de ... à" (a decimal comma's end reads as any).
_RANGE_OPEN = (r"(?:between|rang(?:e|es|ed|ing)\s+(?:from|of|between)|range\s+of"
               r"|zwischen|(?:reicht|reichen|variiert|variieren|schwankt|schwanken)\s+von"
               r"|(?:bereich|spanne|spannweite)\s+von|entre|(?:varie|varient|va|vont)\s+de"
               r"|(?:plage|fourchette|intervalle)\s+de)")
_RANGE_FIRST = re.compile(r"(?i)\b" + _RANGE_OPEN + r"[\s$~]*$")
_RANGE_SECOND = re.compile(r"(?i)\b" + _RANGE_OPEN + r"[\s$~]*[+\-\u2212]?[\d.,]*\d"
                           r"(?:\s*(?:%|\\%|[^\W\d_]{1,6}))?[\s$~]+(?:and|to|und|bis|et|à)"
                           r"[\s$~]*$")
# The regexes above are searched only before a number whose word before is one a range puts
# there (an opener's last word, or the connector before the second end), and whose 48
# characters before hold an opener's stem (most numbers: a set lookup)
_RANGE_LAST_WORDS = frozenset({"between", "from", "of", "zwischen", "von", "entre", "de",
                               "and", "to", "und", "bis", "et", "à"})
_RANGE_HINTS = ("between", "rang", "zwischen", "reich", "variier", "schwank", "spanne",
                "entre", "varie", "va de", "vont de", "plage", "fourchette", "intervalle")
# "the gap between 31.42 and 30.10": two values compared, not a range
# A dash range of percents ("ResNet-18 achieves 98.43%-99.04% accuracy"): the first end is
# followed by the dash and a digit, the second preceded by a percent and the dash (glued, the
# dash was read as its sign: "-99.04%")
_PERCENT_RANGE_NEXT = re.compile(r"[ \t]?(?:[-\u2013\u2014\u2212~]|--)[ \t]?\d")
_PERCENT_RANGE_BEFORE = re.compile(r"\d[ \t]?\\?%[ \t]?(?:[-\u2013\u2014\u2212~]|--)?[ \t]?$")
_COMPARED = re.compile(r"(?i)\b(?:gap|gaps|difference|differences|margin|comparison|contrast|"
                       r"trade-?off)\s+between\b|(?:abstand|unterschied|differenz|vergleich)"
                       r"\s+zwischen\b|(?:écart|écarts|différence|différences|comparaison)"
                       r"\s+entre\b")
_BATCH_SIZE = re.compile(r"(?i)\bbatch[ -]?sizes?(?:\s+of|\s*[=:])?[\s$~]*$")
_BOUND_BEFORE = _words("above below over under than least most exceeds exceeding within "
                       "upto beyond nearly almost approaching surpassing surpasses exceed "
                       "exceeded "
                       "über unter mindestens höchstens knapp nahezu annähernd beinahe "
                       "oberhalb unterhalb übertrifft überschreitet "
                       "presque dépasse dépassent dépassant surpasse surpassent")
# Bounds of more than one word, before the number, each after no letter ("d'au moins 30 dB")
_BOUND_PHRASES = ("up to", "close to",
                  "bis zu", "mehr als", "weniger als", "größer als", "kleiner als", "höher als",
                  "niedriger als", "besser als", "schlechter als",
                  "plus de", "moins de", "au moins", "au plus", "au-dessus de", "au dessus de",
                  "au-dessous de", "au dessous de", "en dessous de", "en deçà de", "jusqu'à",
                  "jusqu’à", "près de", "supérieur à", "supérieure à", "supérieurs à",
                  "supérieures à", "inférieur à", "inférieure à", "inférieurs à",
                  "inférieures à")
_BOUND_CHARS = frozenset("<>\u2264\u2265")
# ... but the ">" of an ASCII arrow leads to a change's result, as "→" does: "63.5% -> 94.0%"
# ("> 94.0%" read as a bound left the result no value, and a claim on it drifted against 63.5%);
# "-->" closes an HTML comment, a marker shown as an example ("<!-- claim:C1 -->31.50" in a
# reST literal block), whose number stays unread
_ASCII_ARROWS = ("->", "=>")
# A table header whose column holds no claimed values: deltas ("Δ PSNR", "Gain"), or the
# spread of a quantity alone ("psnr_std", "PSNR std", "accuracy_sd", "SEM"; not "mean ± std",
# whose cells hold the value first): a column named by the metric ("psnr_std" names PSNR)
# would otherwise have its spreads judged as the claim's value.
DELTA_HEADER = re.compile(r"(?i)(?:\u0394|\\delta\b|\\Delta\b|\bdelta\b|\bgain\b|\bimprov|"
                           r"\bdiff(?!us)|\bchange\b)"
                           r"|^(?![\s\S]*(?:mean|avg|average|median|\u00b1|\\pm|\+-|\+/-))[\s\S]*?"
                           r"(?<![^\W_])(?:std|stdev|stddev|sem|stderr|variance|ci|ci95"
                           r"|standard\s+(?:deviation|error)|std\.\s*dev"
                           # R's "sd", glued to its quantity ("accuracy_sd", "sd_acc") or
                           # alone: "SD FID" is Stable Diffusion's
                           r"|(?<=_)sd|sd(?=_))(?![^\W_])|^\s*sd\s*$")
# A key or label naming a metric's spread, glued to the metric's name: lm-evaluation-harness
# writes each metric's standard error as METRIC_stderr ("acc_norm_stderr", in 0.4
# "acc_norm_stderr,none" with its filter), as a results JSON's key, a printed dict's, or a row of
# its own in older tables; "psnr_std", R's "accuracy_sd" likewise. The metric's name in it is an
# anchor, so its number read as the metric's value (`role_of`, `spread_label`).
# (glued by "_" only: a module named SEM or STD in an ablation row, "Ours + SEM", is no spread)
_SPREAD_NAME = r"(?i)(?<=_)(?:stderr|stdev|stddev|std|sem|sd)(?:,[\w\-]+)?"
_SPREAD_KEYED = re.compile(_SPREAD_NAME + r"""['"\])]?[ \t]*[:=][ \t]*['"]?[ \t]*\Z""")
_SPREAD_LABEL = re.compile(_SPREAD_NAME + r"[ \t*_`]*\Z")
_SPREAD_KEY_REACH = 64  # characters back from a number: the longest key with its filter
# The noun before "of" that makes the number after it a spread, not the value: "with a standard
# deviation of 0.05", "a std of 0.3", "a standard error of 0.02" (an error alone is a metric:
# "a top-1 error of 23.9%", and so is a variance: "an explained variance of 0.93")
_SPREAD_NOUNS = _words("deviation deviations std stdev stddev sd sem")
_NOUN_OF = re.compile(r"((?:standard\s+)?[^\W\d_]+)[\s.]*$")
# A list of numbers, each with its unit or percent, joined by commas, "and" or "or": a number
# before the separator that ends at a later item (no glued word before it: "Set5, and" is a
# name's digit), and whether the separator has a word ("and"/"or": group 1)
_NUMBER_ITEM = r"(?<![\w.])[+\-\u2212]?\.?\d[\d.,]*\$?(?:[ \t]?(?:\\?%|[^\W\d_]{1,4}\b))?\$?"
# the words joining a list's last item, in English, German and French ("32,1, 33,4 und 31,4 dB",
# "32,21 dB bzw. 27,58 dB", "32,21, 28,67 et 27,58 dB")
_LIST_WORDS = r"and|or|und|oder|sowie|bzw\.|et|ou"
_LIST_PREV = re.compile(_NUMBER_ITEM + r"[ \t]*(?:,[ \t]*(?:(" + _LIST_WORDS + r")[ \t]+)?|("
                        + _LIST_WORDS + r")[ \t]+)"
                        r"[$~ \t]*\Z")
_LIST_GOES_ON = re.compile(r"[$ \t]*,?[ \t]*(?:" + _LIST_WORDS
                           + r")[ \t]+[$~ \t]*[+\-\u2212]?\.?\d")
_LIST_ENDS = (",", "and", "or", "und", "oder", "sowie", "bzw.", "et", "ou")
_LIST_MAX = 8  # items walked back: a list is short, a log line of commas is not one
# ($: LaTeX math around the number, "is $11\%$ higher", "by up to $30\%$", says nothing)
_WORD_BEFORE = re.compile(r"([^\W\d_]+|[Δ#§])[\s.~(:$]*$")
_WORD_AFTER = re.compile(r"[\s%$]*([^\W\d_]+)")
# A count noun hyphenated to its number makes a compound modifier ("25-shot", "5-fold",
# "3-layer"): a setting of the evaluation, as "25 shots" is ("ARC (25-Shot)" next to its score)
_HYPHENATED = re.compile(r"-([^\W\d_]+)")
_NEXT_WORD = re.compile(r"[\w-]*[ \t]+([^\W\d_]+)")
# Words that link a value to what follows ("31.42 on images", "12.7 over samples"): the noun
# after them is not what the number counts.
_LINKS = _words("""
on over across for of in with from per at by to and or the a an all its their our each every
than vs versus when while after before under using via into onto as is are was were
""")


def role_of(shown: Shown, masked: str, base: int,
            anchors: Sequence[tuple[int, int]] = ()) -> str:
    """value | delta | bound | reference | count | uncertainty | level | other, from the
    words around it.

    ``anchors``: the spans (offsets as ``shown``'s) of the anchor terms in the unit. A count
    noun inside one names the claimed quantity itself ("12,000 training images" for a claim
    on the training set's size): the number before it is that quantity's value, not a count.
    """
    if shown.uncertainty:
        return "uncertainty"
    s = shown.start - base
    if _keyed_by_spread(masked, s, anchors, base):
        return "uncertainty"
    head = masked[max(0, s - 24):s]
    if _in_percent_range(shown, masked, base, head):
        return "bound"
    role = _role_before(masked, s, head, anchors, base)
    if role is None and head.rstrip(" \t$~").endswith(_LIST_ENDS) \
            and not _anchor_after(masked, shown.suffix_end - base, anchors, base):
        # a later item of a list ("gains of 4 dB, 0.81 dB and 0.21 dB"): what the words
        # before its first number say it is (not one an anchor names after it: "improves by
        # 1.2% and 76.9% top-1 accuracy is reached")
        first = list_head(masked, s, shown.suffix_end - base)
        if first != s:
            role = _role_before(masked, first, masked[max(0, first - 24):first], anchors,
                                base)
    if role is not None:
        return role
    hyper = _HYPER_AFTER.match(masked, shown.suffix_end - base)
    if hyper is not None and not _in_anchor(hyper.start(1) + base, anchors):
        return "level"  # "a 75% masking ratio", "0.1 dropout"
    if _POINTS_THEN_CHANGE.match(masked, shown.suffix_end - base):
        return "delta"  # "1.4 points higher than the baseline", "a 1.4-point gain"
    after = _WORD_AFTER.match(masked, shown.suffix_end - base)
    if after is None:
        glued = _HYPHENATED.match(masked, shown.suffix_end - base)
        if glued and glued.group(1).lower() in _COUNT_AFTER \
                and _counts(masked, glued, base, anchors):
            return "count"
    if after:
        word = after.group(1).lower()
        if word in _DELTA_AFTER or _change_of_anchor(masked, after, base, anchors):
            return "delta"
        if word == "de":  # French "0,4 dB de plus"
            then = _NEXT_WORD.match(masked, after.end())
            if then and then.group(1).lower() in _MORE_FR:
                return "delta"
        if word in _LEVEL_AFTER:
            return "level"
        if word in _POINT_AFTER and _counts(masked, after, base, anchors) \
                and masked[after.end():after.end() + 1] != "-" \
                and (" " + head.rstrip(" \t$~").lower()).endswith(" at"):
            # "matches full attention at 65% sparsity", "TPR at 1% FPR": where the result is
            # measured ("reaches 0.75 IoU", "0.89 threshold-free" state results)
            return "level"
        if word in _LEVEL_OF:
            then = _NEXT_WORD.match(masked, after.end())
            if then and then.group(1).lower() in _LEVEL_NOUNS:
                return "level"
        if word in _TARGET_AFTER and _counts(masked, after, base, anchors) \
                and not _metric_follows(masked, after.end(), anchors, base):
            return "bound"  # "keeps accuracy above the 90% target"
        if word in _ROLE_COUNTS:
            if _counts(masked, after, base, anchors) \
                    and (word in _COUNT_AFTER or _counts_in_a_sentence(shown, masked, s,
                                                                       anchors, base)):
                return "count"
        elif word not in _LINKS:  # one modifier: "24 test images", "50 denoising steps"
            then = _NEXT_WORD.match(masked, after.end())
            if then and (noun := then.group(1).lower()) in _ROLE_COUNTS \
                    and _counts(masked, then, base, anchors) \
                    and (noun in _COUNT_AFTER
                         or _counts_in_a_sentence(shown, masked, s, anchors, base)):
                return "count"
    total = _OF_A_TOTAL.match(masked, shown.suffix_end - base) \
        if shown.exponent == 0 and not shown.percent else None
    if total is not None and not _in_anchor(total.end() - 1 + base, anchors) \
            and not _named_right_before(masked, s, anchors, base):
        # "on 94 of 100 tasks", "9 out of 10 datasets" (not where an anchor names the number or
        # the noun: "solves 94 of 100 tasks" for a claim on the tasks solved, "solves" its alias)
        return "count"
    if _AND_MORE.match(masked, shown.suffix_end - base):
        return "bound"  # "90+% accuracy", "100+ languages"
    if shown.sign == "+":
        return "delta"
    if _of_another(masked, s, shown.suffix_end - base, anchors, base):
        return "other"
    return "value"


# Another method's result a sentence compares with: the baseline's, the previous best's, the
# second best's ("above the previous best validation accuracy of 90.1%", "surpassing the
# previous state-of-the-art of 94.76%", "over the baseline (30.10 dB)", "the baseline's 30.10
# dB", "88.0% for the baseline", "over the second-best method (i.e. VideoGen-of-Thought with
# 66.93)"). A bare "state-of-the-art" says the number is one ("achieves a state-of-the-art
# 2.17"): it takes "previous", "prior"... before it.
_OTHERS = (r"(?:baselines?|(?:previous|prior|former|earlier)[ \t]+(?:best|state[ \t-]+of[ \t-]+the"
           r"[ \t-]+art|sota|record|results?|works?|methods?)|best[ \t]+(?:prior|previous)"
           r"(?:[ \t]+(?:results?|methods?|works?))?|(?:second|2nd)[ \t-]+best(?:[ \t-]+"
           r"(?:performing[ \t]+)?(?:methods?|models?|approach|approaches|results?))?"
           r"|runner[ \t-]+up)")
# ... then its number: its possessive, metric names and link words between (names blanked),
# or a parenthesis holding the number, a few words before it, and nothing after it ("baseline
# (30.10 dB)", "second-best method (Qwen3OFT at 48.8%)", "the baseline (F1=0.4352)"; not
# "(0.6327 vs 0.5290)", whose first number is the sentence's own)
_OTHERS_THEN = re.compile(r"(?i)(?<![^\W_])(?P<who>" + _OTHERS + r")(?:['’]s)?(?P<links>(?:"
                          r"[ \t*_`]+(?:of|is|was|at|with|the|a|an|score|scores|value|values"
                          r"|result|results|reached|achieved|achieves|reaches|gets|got|obtained"
                          r"|train|training|val|valid|validation|dev|test|testing|eval"
                          r"|evaluation)(?![^\W_]))*)[ \t*_`]*(?:(?P<colon>[:=])|(?P<paren>\("
                          r"(?:[^()\d\n]{0,40}[ \t:=])?))?[ \t*_`$~]*\Z")
# ... but not where the phrase is what a sentence's subject is compared with, and "with", "at"
# or a colon then leads to the subject's number: "Ours beats the baseline with a PSNR of 31.42
# dB", "Ours outperforms the baseline at 31.42 dB", "Ours improves over the baseline: 31.42 dB"
# (read as the baseline's, a wrong 31.42 went unreported)
_COMPARED_BEFORE = re.compile(r"(?i)(?<![^\W_])(?:outperform(?:s|ed|ing)?|beat(?:s|ing)?"
                              r"|surpass(?:es|ed|ing)?|exceed(?:s|ed|ing)?|over|than|above"
                              r"|beyond|vs\.?|versus|(?:compared|relative)[ \t]+(?:to|with))"
                              r"[ \t]+(?:(?:the|our|its|their|a|an|this|that)[ \t]+)*\Z")
# ... nor where the phrase is what the subject is ("Ours is a strong baseline with an accuracy
# of 91.5%", "Ours is the runner-up with 91.5%", "Ours sets a new baseline of 91.5%"): its
# number is the subject's
_SUBJECT_IS = re.compile(r"(?i)(?<![^\W_])(?:is|are|was|were|becomes?|became|as|sets?"
                         r"|establish(?:es|ed)?|serves?|remains?)[ \t]+(?:(?:the|a|an|new"
                         r"|strong|simple|solid|competitive|our)[ \t]+)*\Z")
_SUBJECTS_LINK = re.compile(r"(?i)(?<![^\W_])(?:with|at)(?![^\W_])")
_CLOSED = re.compile(r"[ \t*_`$]*(?:\\?%[ \t*_`$]*)?[),;]")
# ... or the number first: "30.10 dB (baseline)", "88.0% for the baseline", "3.26 of the
# previous best"
_THEN_OTHERS = re.compile(r"(?i)[ \t*_`$]*(?:(?P<paren>\()|(?:for|of|by|from)[ \t]+(?:the[ \t]+)?)"
                          r"(?P<who>" + _OTHERS + r")(?![^\W_]|-[^\W\d_])")
# ... but not where the phrase labels a number of its own: a parenthesis holding one
# ("31.52 dB (baseline: 30.10 dB)", "91.5% (previous best 90.1%)"), or its number right after
# it ("91.5% from the baseline's 88.0%"): the number before is the sentence's own
_PAREN_CLOSES = re.compile(r"[^()\d\n]*\)")
_ITS_OWN_NUMBER = re.compile(r"(?i)(?:['’]s)?(?:[ \t*_`]+(?:of|is|was|at|with|reached|achieved"
                             r"|achieves|reaches|gets|got|obtained)(?![^\W_]))*[ \t*_`]*[:=]?"
                             r"[ \t*_`$~]*[+\-\u2212]?\.?\d")
_COMPARED_NEXT = re.compile(r"(?i)[ \t*_`$]*(?:vs\.?|versus|/|→|->)")
# ... but the second of a pair "A vs B" where a comparison word and another's phrase come
# before the pair ("Ours improves PSNR over the baseline (31.62 vs 30.10 dB)", "Compared with
# the baseline, Ours improves PSNR (31.62 vs 30.10 dB)", "outperforms previous best method
# DETR3D [47] over 9.2 points on val set (51.7% NDS vs. 42.5% NDS)"): the first is the
# subject's, as papers write the pair, the second the other's (both read as values, a wrong
# number of the subject's was ambiguous between them)
_VERSUS_BEFORE = re.compile(r"(?i)(?<![\w.])\d[\d.,]*(?:[ \t]?(?:\\?%|[^\W\d_]{1,4}))?"
                            r"(?:[ \t]+[^\W\d_]{1,6})?[ \t*_`$~]*(?:vs\.?|versus)[ \t*_`$~]*\Z")
# ("vs": "Ours vs. baseline: 89.7% vs. 87.6%", the names in the numbers' order; a few words
# between: "outperforms all baselines", "over the strongest baseline")
_COMPARED_WITH_OTHERS = re.compile(r"(?i)(?<![^\W_])(?:outperform(?:s|ed|ing)?|beat(?:s|ing)?"
                                   r"|surpass(?:es|ed|ing)?|exceed(?:s|ed|ing)?|over|than|above"
                                   r"|beyond|against|vs\.?|versus|(?:compared|relative)[ \t]+"
                                   r"(?:to|with))[ \t]+(?:(?:the|a|an|all|every|each|our|its"
                                   r"|their|these|those|strong|strongest|existing|competing)"
                                   r"[ \t]+){0,3}(?P<who>" + _OTHERS + r")(?![^\W_]|-[^\W\d_])")
# ... and the number a change starts from after such a phrase: "Ours improves accuracy over the
# baseline from 87.6% to 89.7%" (the 87.6% the baseline's)
_FROM_OTHERS = re.compile(_COMPARED_WITH_OTHERS.pattern + r"[ \t]+from[ \t$~]*\Z")
_OTHERS_REACH = 96  # characters back from a number: the phrase and a few names
_OTHERS_WORDS = ("base", "prior", "previous", "former", "earlier", "best", "runner")


def _of_another(masked: str, s: int, end: int, anchors: Sequence[tuple[int, int]],
                base: int) -> str:
    """The phrase (`_OTHERS`) by which the number from ``s`` to ``end`` (with its unit) is
    written as another method's result, or "": right after one ("the previous best of 94.1%",
    metric names between left out), or right before one ("30.10 dB (baseline)"); not where
    the phrase is an anchor (a claim on the baseline: "Baseline" its alias), nor a number
    compared next ("baseline 31.42 vs 30.10", "(0.6327 vs 0.5290)": which is whose is for the
    names to tell)."""
    lowered = masked[max(0, s - _OTHERS_REACH):end + 48].lower()
    if not any(word in lowered for word in _OTHERS_WORDS):
        return ""  # (most numbers: a few substring tests)
    if _COMPARED_NEXT.match(masked, end):
        return ""
    placed = _placed_as_anothers(masked, s, anchors, base)
    if placed is not None:
        return placed
    after = _THEN_OTHERS.match(masked, end)
    if after is not None:
        if _in_anchor(after.end() - 1 + base, anchors) or (
                _PAREN_CLOSES.match(masked, after.end()) is None if after.group("paren")
                else _ITS_OWN_NUMBER.match(masked, after.end()) is not None):
            return ""
        return after.group("who")
    lo = max(0, s - _OTHERS_REACH)
    text = _blank_names(masked, lo, s, anchors, base)
    found = _OTHERS_THEN.search(text)
    if found is None or (found.group("paren") is not None and not _CLOSED.match(masked, end)):
        return ""
    if (found.group("colon") or _SUBJECTS_LINK.search(found.group("links"))) \
            and _COMPARED_BEFORE.search(text, max(0, found.start() - 40), found.start()):
        return ""  # "Ours beats the baseline with a PSNR of 31.42 dB": the subject's number
    if _SUBJECT_IS.search(text, max(0, found.start() - 48), found.start()):
        return ""  # "Ours is a strong baseline with ...": the subject's number
    return "" if _in_anchor(lo + found.start() + base, anchors) else found.group("who")


def _placed_as_anothers(masked: str, s: int, anchors: Sequence[tuple[int, int]],
                        base: int) -> str | None:
    """For the number at ``s``: the other's phrase where its place alone makes it the other's
    (the second of "A vs B" after a comparison with another: `_compared_second`; the start of
    a change after one: `_FROM_OTHERS`), "" where the phrase is a claim's anchor, None where
    its place says nothing."""
    versus = _compared_second(masked, s, anchors, base)
    if versus is not None:
        return versus
    start = _FROM_OTHERS.search(masked, max(0, s - _OTHERS_REACH), s)
    if start is not None:
        return "" if _in_anchor(start.start("who") + base, anchors) else start.group("who")
    return None


def _compared_second(masked: str, s: int, anchors: Sequence[tuple[int, int]],
                     base: int) -> str | None:
    """For the number at ``s`` after "vs" ("A vs B"): the other's phrase that a comparison word
    brings before the pair ("over the baseline (31.62 vs 30.10 dB)"), "" where the phrase is a
    claim's anchor (a claim on the baseline: the names tell whose, as before); None where the
    pair follows no such phrase (`_VERSUS_BEFORE`, `_COMPARED_WITH_OTHERS`)."""
    pair = _VERSUS_BEFORE.search(masked, max(0, s - 32), s)
    if pair is None:
        return None
    lo = max(0, pair.start() - _OTHERS_REACH)
    found = max(_COMPARED_WITH_OTHERS.finditer(masked, lo, pair.start()),
                key=lambda m: m.start(), default=None)  # (the last one before the pair)
    if found is None:
        return None
    return "" if _in_anchor(found.start("who") + base, anchors) else found.group("who")


def another_named(shown: Shown, masked: str, base: int,
                  anchors: Sequence[tuple[int, int]] = ()) -> str:
    """The phrase naming the other method whose result a number of role "other" is ("the
    baseline (30.10 dB)": "baseline"), or "" (`_of_another`)."""
    return _of_another(masked, shown.start - base, shown.suffix_end - base, anchors, base)


# The words of an other's phrase that name no one method ("the second-best method")
_OTHERS_GENERIC = _words("method methods model models approach approaches result results work "
                         "works performing")


def names_another(phrase: str, names: Sequence[str]) -> bool:
    """Whether one of ``names`` (a claim's run and aliases) holds the words of the other's
    ``phrase``: a claim on the baseline run ("baseline", "resnet50_baseline", an alias
    "Baseline (ResNet-50)") has the baseline's number as its own ("Our baseline reaches a PSNR
    of 30.10 dB"), which another claim has not."""
    want = [w[:-1] if w == "baselines" else w for w in re.findall(r"[^\W_]+", phrase.lower())
            if w not in _OTHERS_GENERIC]
    if not want:
        return False
    for name in names:
        words = re.findall(r"[^\W_]+", name.lower())
        if any(words[i:i + len(want)] == want for i in range(len(words) - len(want) + 1)):
            return True
    return False


# Before the word after a noun, and before the word after that: "target accuracy",
# "target-domain accuracy", "goal completion rate"
_WORD_GAP = re.compile(r"[ \t\-]+")
_A_WORD_THEN_GAP = re.compile(r"[^\W\d_]+[ \t\-]+")


def _metric_follows(masked: str, at: int, anchors: Sequence[tuple[int, int]],
                    base: int) -> bool:
    """Whether a metric's name (`_METRIC_MENTION`) or an anchor starts a word or two after
    offset ``at`` of ``masked``: the noun before it qualifies the metric ("93.1% target
    accuracy" on a domain-adaptation benchmark is the accuracy on the target domain, no
    target to reach)."""
    gap = _WORD_GAP.match(masked, at)
    if gap is None:
        return False
    places = [gap.end()]
    then = _A_WORD_THEN_GAP.match(masked, gap.end())
    if then is not None:
        places.append(then.end())
    return any(_METRIC_MENTION.match(masked, p) is not None
               or any(s - base == p for s, _ in anchors) for p in places)


def _counts_in_a_sentence(shown: Shown, masked: str, s: int,
                          anchors: Sequence[tuple[int, int]], base: int) -> bool:
    """Whether the number at offset ``s`` before one of the nouns only a sentence counts
    (`_ROLE_COUNTS`: "on 94 tasks", "among 95 submissions") is a count: a whole number (not
    "a 65.8% task success rate", "85.6% domain classification accuracy": the noun qualifies
    the metric) that no anchor right before it names (`_named_right_before`)."""
    return shown.exponent == 0 and not shown.percent \
        and not _named_right_before(masked, s, anchors, base)


# Between an anchor and the number it names: "solves 94 tasks", "wins: 8 of 12"
_NAMING_GAP = re.compile(r"[ \t*_`]*(?:[:=][ \t*_`]*)?")


def _named_right_before(masked: str, s: int, anchors: Sequence[tuple[int, int]],
                        base: int) -> bool:
    """Whether an anchor ends right before the number at offset ``s`` of ``masked``: it names
    the number ("Ours solves 94 of 100 tasks" for a claim aliased "solves"), whose count nouns
    after it are then its unit, not a setting's (the nouns round 61 added to the counts of a
    sentence: `_ROLE_COUNTS`, `_OF_A_TOTAL`)."""
    return any(e - base <= s and _NAMING_GAP.fullmatch(masked, e - base, s) is not None
               for _, e in anchors)


def _in_anchor(at: int, anchors: Sequence[tuple[int, int]]) -> bool:
    return any(a <= at < b for a, b in anchors)


def _blank_names(masked: str, lo: int, hi: int, anchors: Sequence[tuple[int, int]],
                 base: int) -> str:
    """``masked[lo:hi]`` with each metric's name (`_METRIC_MENTION`) and each anchor wholly in
    it but one holding an other's phrase made spaces ("previous best validation accuracy
    of": "previous best                     of")."""
    text = masked[lo:hi]
    spans = [(m.start(), m.end()) for m in _METRIC_MENTION.finditer(text)]
    spans += [(a - base - lo, b - base - lo) for a, b in anchors
              if a - base >= lo and b - base <= hi]
    out = list(text)
    for a, b in spans:
        if not any(word in text[a:b].lower() for word in _OTHERS_WORDS):
            out[a:b] = " " * (b - a)
    return "".join(out)


# A change's noun after the metric a number is of: "a 0.74 dB PSNR gain", "has a 2.32dB PSNR
# Gain", "a 1.3 BLEU improvement over a neural baseline", "0.8% mAP improvement" (the metric an
# anchor: the number is its change, not its value). Nouns only: "91.2% accuracy higher than
# ..." may state the value.
_CHANGE_NOUNS = _words("gain gains improvement improvements increase increases decrease "
                       "decreases drop drops boost boosts reduction reductions")
_CHANGE_STEMS = ("gain", "improv", "increas", "decreas", "drop", "boost", "reduc")
_WORD_AT = re.compile(r"[ \t*_`]*([^\W\d_]+)")


def _change_of_anchor(masked: str, after: re.Match[str], base: int,
                      anchors: Sequence[tuple[int, int]]) -> bool:
    """Whether the word ``after`` (group 1) right after a number starts an anchor that a
    change's noun follows ("0.74 dB PSNR gain")."""
    ahead = masked[after.start(1):after.start(1) + 48].lower()  # (cut and lowered once)
    if not any(stem in ahead for stem in _CHANGE_STEMS):
        return False  # no change's noun close after it (most numbers): no anchor looked up
    at = after.start(1) + base
    end = max((e for s, e in anchors if s == at), default=None)
    if end is None:
        return False
    noun = _WORD_AT.match(masked, end - base)
    return noun is not None and noun.group(1).lower() in _CHANGE_NOUNS


def _keyed_by_spread(masked: str, s: int, anchors: Sequence[tuple[int, int]],
                     base: int) -> bool:
    """Whether the number at offset ``s`` of ``masked`` is a key's value ("key: 0.01", "key =
    0.01", "'key': 0.01") whose key names a spread ("acc_norm_stderr", "acc_stderr,none",
    "psnr_std"), a spread word that is part of no anchor (a claim on ``acc_norm_stderr``
    itself is judged on it)."""
    k = s
    while k > 0 and masked[k - 1] in " \t'\"":
        k -= 1
    if k == 0 or masked[k - 1] not in ":=":
        return False  # no key before it (most numbers): no search
    m = _SPREAD_KEYED.search(masked, max(0, s - _SPREAD_KEY_REACH), s)
    if m is None:
        return False
    at = m.start() + base
    return not any(a <= at < b for a, b in anchors)


def spread_label(label: str, terms: Collection[str]) -> bool:
    """Whether a table row's label names a spread of a metric ("acc_norm_stderr",
    "exact_match_stderr,strict-match", "psnr_std"): its cells are no claim's value. A spread
    word that is part of an anchor term naming the row (a claim on ``psnr_std``) says nothing
    of the kind."""
    low = label.lower()
    if "std" not in low and "sem" not in low and "_sd" not in low:
        return False  # most labels: no search
    m = _SPREAD_LABEL.search(label.rstrip())
    if m is None:
        return False
    word = re.match(r"[a-z]+", m.group(0).lower())
    spread = word.group(0) if word else ""
    return not any(f" {spread} " in f" {term} " for term in terms)


def _anchor_after(masked: str, end: int, anchors: Sequence[tuple[int, int]],
                  base: int) -> bool:
    """Whether an anchor (``anchors``: offsets ``base`` on from ``masked``'s) starts right
    after ``end``, spaces and a percent sign between."""
    at = end
    while at < len(masked) and masked[at] in " \t%$":
        at += 1
    return any(a - base == at for a, _ in anchors)


_PAIR_OPENS = re.compile(r"(?i)" + _NUMBER_ITEM + r"[ \t*_`$~]*(?:vs\.?|versus)(?![^\W_])")


def _role_before(masked: str, s: int, head: str, anchors: Sequence[tuple[int, int]] = (),
                 base: int = 0) -> str | None:
    """The role the words before offset ``s`` of ``masked`` give the number there (``head``:
    the 24 characters before it), or None when they give none. ``anchors``: their spans
    (offsets ``base`` on from ``masked``'s): a noun inside one is the claim's quantity ("a mean
    absolute deviation of 0.15" for a claim on it), no spread's or change's."""
    stripped = head.rstrip(" \t$")
    if stripped and stripped[-1] in _BOUND_CHARS and (
            not stripped.endswith(_ASCII_ARROWS) or stripped.endswith("-->")):
        return "bound"
    m = _WORD_BEFORE.search(head)
    before = m.group(1).lower() if m else ""
    if m is not None and before in _HEDGES:
        # "surpassing SRCNN by roughly 0.87 dB", "improves by about 0.3 dB": what the words
        # before the hedge say (it says nothing of its own)
        cut = s - len(head) + m.start(1)
        return _role_before(masked, cut, masked[max(0, cut - 24):cut], anchors, base)
    if m is not None and before in _OF_WORDS:
        # "a gain of 0.81 dB", "a decrease of 2.6%", "a standard deviation of 0.05": the noun
        # the number is of says what it is
        of = _NOUN_OF.search(head, 0, m.start(1))
        noun = of.group(1).lower().split() if of else [""]
        role = "delta" if noun[-1] in _DELTA_BEFORE else "uncertainty" if (
            noun[-1] in _SPREAD_NOUNS or noun == ["standard", "error"]) else None
        if role is not None and of is not None:
            noun_at = s - len(head) + of.end(1) - 1 + base
            if not any(a <= noun_at < b for a, b in anchors):
                return role
    if before in _REFERENCE_WORDS or before in ("#", "§"):
        return "reference"
    if before in _DELTA_BEFORE and not (stripped.endswith("(") and _PAIR_OPENS.match(masked, s)):
        # (not a parenthesis's pair after it: "by a wide margin (31.62 vs. 30.10 dB)" states
        # the values compared)
        return "delta"
    if before in _BOUND_BEFORE or _bound_phrase(head):
        return "bound"
    wide = masked[max(0, s - 48):s]
    if before == "de" and _CHANGED_BY_FR.search(wide) and not _FROM_TO_FR.match(masked, s):
        return "delta"  # "améliore le PSNR de 0,4 dB"
    lowered = wide.lower()
    if before in _RANGE_LAST_WORDS and any(hint in lowered for hint in _RANGE_HINTS) and (
            _RANGE_FIRST.search(wide) or _RANGE_SECOND.search(wide)) \
            and not _COMPARED.search(wide):
        return "bound"
    if _BATCH_SIZE.search(head):
        return "reference"
    hyper = _HYPER_BEFORE.search(head)
    if hyper is not None and not _in_anchor(s - len(head) + hyper.start() + base, anchors) \
            and not _measures(masked, s - len(head) + hyper.start(), anchors, base):
        return "level"  # "a masking ratio of 75%", "a learning rate of 0.8"
    if "=" in head and _setting_key(head, s, anchors, base):
        return "level"  # "at stop=20", "(k=20)": where the result is measured
    return None


# A setting written as a key and its value where prose says the result is measured: "at
# stop=20, 16.8% vs. the baseline's 7.1%", "Recall (k=20) is 16.8%", "with top_k=20"
_SETTING_KEY = re.compile(r"(?i)(?:(?<![^\W_])(?:at|with|using|under|for|when|where)[ \t]+|\()"
                          r"([^\W\d][\w\-]*)[ \t]*=[ \t]*\Z")


def _setting_key(head: str, s: int, anchors: Sequence[tuple[int, int]], base: int) -> bool:
    """Whether ``head`` (the words before offset ``s``) ends with a setting's key and "=" after
    "at", "with", "(" ... (`_SETTING_KEY`): the number is a setting of the run, a level, unless
    the key is a claim's anchor or a metric's name ("at PSNR=31.42": the result itself), or
    holds one as a part (`_names_a_result`). Round 63: "at stop=20" left the 20 a plausible
    number of a recall claim, ambiguous with 16.8%."""
    key = _SETTING_KEY.search(head)
    if key is None:
        return False
    at = s - len(head) + key.start(1)
    return not _in_anchor(at + base, anchors) and not _names_a_result(key.group(1))


def _names_a_result(key: str) -> bool:
    """Whether a key=value's ``key`` is a metric's name, or one qualified by its split or its
    IoU type: "val_acc", "eval_accuracy", "test_f1", "bbox_mAP" are the result a log or a README
    reports in parentheses ("Best model saved: .../best_model.pth (val_acc=0.889)", an image
    classifier's README), not a setting (review of round 63: their numbers were taken for
    levels, a wrong accuracy claim unreported); "top_k", "max_len" name no metric."""
    return _METRIC_MENTION.fullmatch(key) is not None or (
        "_" in key and any(_METRIC_MENTION.fullmatch(part) for part in key.split("_") if part))


# A metric's name (or an anchor), then what it measures: "RMSE on temperature", "the RMSE for
# 2m temperature", "MAE of momentum"
_MEASURES_GAP = re.compile(r"(?i)[ \t]+(?:on|of|for|in)[ \t]+(?:the[ \t]+)?(?:[\w\-]+[ \t]+)?\Z")


def _measures(masked: str, at: int, anchors: Sequence[tuple[int, int]], base: int) -> bool:
    """Whether the noun at offset ``at`` of ``masked`` (a hyperparameter's: "temperature",
    "momentum") is what a metric right before it measures ("The RMSE for 2m temperature is
    1.23": the number is the metric's, no setting of the run)."""
    lo = max(0, at - 40)
    gap = _MEASURES_GAP.search(masked, lo, at)
    if gap is None:
        return False
    metric = _METRIC_MENTION.search(masked, max(0, gap.start() - 24), gap.start())
    return (metric is not None and metric.end() == gap.start()) \
        or any(e - base == gap.start() for _, e in anchors)


def _bound_phrase(head: str) -> bool:
    """Whether ``head`` (the words before a number) ends with a bound of several words ("up to",
    "mehr als", "plus de", "au-dessus de"; `_BOUND_PHRASES`) after no letter."""
    lowered = head.lower().rstrip(" \t\n$~")
    if not lowered.endswith(_BOUND_PHRASES):  # most numbers: one C-speed test
        return False
    return any(lowered.endswith(p) and not lowered[-len(p) - 1:-len(p)].isalpha()
               for p in _BOUND_PHRASES)


def list_head(masked: str, s: int, end: int) -> int:
    """Where the list of numbers holding the number at ``s`` (ending at ``end``, with its unit)
    starts: the offset of its first number ("4 dB, 0.81 dB and 0.21 dB", "31% and 24%",
    "1.19, 2.11, and 0.4"), or ``s`` when it is in none. A number after a bare comma is a list's
    only where the list goes on with "and" or "or" after it ("by 2.3%, 76.1% vs. 73.8%" lists
    nothing)."""
    if not masked[max(0, s - 8):s].rstrip(" \t$~").endswith(_LIST_ENDS):
        return s  # no separator just before it (most numbers): no list, no search
    first = s
    for _ in range(_LIST_MAX):
        prev = _LIST_PREV.search(masked, max(0, first - 40), first)
        if prev is None:
            break
        if first == s and prev.group(1) is None and prev.group(2) is None \
                and not _LIST_GOES_ON.match(masked, end):
            break  # a bare comma, and no "and" after: no list
        first = prev.start()
    return first


# Names of a list joined as numbers are ("Set5, Set14 and B100", "GoPro and DND")
_NAME_GAP = re.compile(r"[ \t]*(?:,[ \t]*(?:(?:" + _LIST_WORDS + r")[ \t]+)?|(?:" + _LIST_WORDS
                       + r")[ \t]+)")
# Words saying a list of numbers goes with a list of names in order: "respectively", "resp.",
# German "jeweils", "respektive", "beziehungsweise" and "bzw.", French "respectivement"
_RESPECTIVELY = ("respectively", "resp.", "respectivement", "jeweils", "respektive",
                 "beziehungsweise", "bzw.")


def says_respectively(masked: str) -> bool:
    """Whether ``masked`` says its lists go together in order (`_RESPECTIVELY`)."""
    return any(word in masked for word in _RESPECTIVELY)


def respectively(masked: str, base: int, numbers: Sequence[tuple[int, int]],
                 names: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """In a sentence saying *respectively*, which number goes with which name: (number's index,
    name's index) pairs, when the sentence holds one list of numbers (``numbers``: (start,
    end with its unit)) and one list of names (``names``: anchors' (start, end), in text order)
    of the same length ("32.46, 28.80 and 27.71 dB on Set5, Set14 and B100, respectively");
    else none. Offsets are ``base`` on from ``masked``'s start."""
    if len(numbers) < 2 or len(names) < 2 or not says_respectively(masked):
        return []
    heads: dict[int, list[int]] = {}
    for i, (at, end) in enumerate(numbers):
        heads.setdefault(list_head(masked, at - base, end - base), []).append(i)
    lists = [ids for ids in heads.values() if len(ids) > 1]
    runs: list[list[int]] = []
    for k, (at, _) in enumerate(names):
        if runs and _NAME_GAP.fullmatch(masked, names[runs[-1][-1]][1] - base, at - base):
            runs[-1].append(k)
        else:
            runs.append([k])
    named = [run for run in runs if len(run) > 1]
    if len(lists) != 1 or len(named) != 1 or len(lists[0]) != len(named[0]):
        return []
    return list(zip(lists[0], named[0], strict=True))


_SLASH_JOIN = re.compile(r"[ \t]*/[ \t]*")


def slash_pairs(masked: str, base: int, numbers: Sequence[tuple[int, int]],
                names: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Which number goes with which name where a list of numbers joined by slashes stands right
    before or after a list of as many names joined by slashes ("85.5%/90.5% precision/recall",
    "Precision/recall are 90.5%/85.5%", "PSNR/SSIM: 31.42/0.913"): (number's index, name's
    index) pairs, in order, as *respectively* says them (`respectively`); else none. The
    arguments are `respectively`'s."""
    def runs(spans: Sequence[tuple[int, int]]) -> list[list[int]]:
        out: list[list[int]] = []
        for i, (at, _) in enumerate(spans):
            if out and _SLASH_JOIN.fullmatch(masked, spans[out[-1][-1]][1] - base, at - base):
                out[-1].append(i)
            else:
                out.append([i])
        return [run for run in out if len(run) > 1]

    pairs: list[tuple[int, int]] = []
    named = runs(names)
    if not named:
        return pairs
    for listed in runs(numbers):
        first, last = numbers[listed[0]][0], numbers[listed[-1]][1]
        for run in named:
            if len(run) != len(listed):
                continue
            after, before = names[run[0]][0], names[run[-1]][1]
            if (last <= after and _AFTER_GAP.fullmatch(masked, last - base, after - base)) or (
                    before <= first and _BEFORE_GAP.fullmatch(masked, before - base,
                                                              first - base)):
                pairs += zip(listed, run, strict=True)
                break
    return pairs


# What may stand between a name and the number it is written with, the name first: "PSNR of
# 31.42", "an SSIM of 0.913", "PSNR: 31.42", "PSNR=31.42", "AUC 0.89", "Ours reaches 31.42",
# "**PSNR**: **31.42**", "Ours (31.42 dB)", "an F1-score of 0.89", "a PSNR value of 31.42",
# "PSNRs of 32.46, 28.80 and 27.71 dB"; and
# the number first: "31.42 dB PSNR", "91.3% top-1 accuracy", "0.912 in SSIM"
_DECOR_CHARS = r"[*_`~$ \t]*"
# (its runs of decoration possessive: what follows each starts with another character, so a gap
# is read one way, in one pass, however long its run of spaces, as a masked comment leaves)
_DECOR_RUN = r"[*_`~$ \t]*+"
_BEFORE_GAP = re.compile(r"s?(?:[- ](?i:score|scores|value|values|measure))?"
                         + _DECOR_RUN + r"(?:(?:[:=\u2248]|(?<![^\W\d_])(?:of|is|was|are|were|"
                         r"reaches|reached|achieves|achieved|attains|attained|equals|"
                         r"von|ist|beträgt|erreicht|de|est|atteint)"
                         r"(?![^\W\d_]))" + _DECOR_RUN + r")?\(?" + _DECOR_RUN)
# (a split word between: "78.28% test top-1 and 92.65% test top-5", "32.05 dB val PSNR")
_AFTER_GAP = re.compile(_DECOR_CHARS + r"(?:(?:in|de)[ \t]+" + _DECOR_CHARS + r")?(?:(?i:train"
                        r"|training|val|valid|validation|dev|test|eval)[ \t]+" + _DECOR_CHARS
                        + r")?")
# A setting a number is written with, after it ("31.42 dB on Set5", "0.912 SSIM on the DPE
# set") or heading its clause before it ("On Set5, our model reaches a PSNR of 31.42 dB")
_SETTING_WORDS = r"(?i:on|for|in|auf|für|sur|pour|dans)[ \t]+(?i:(?:the|dem|le|la|les)[ \t]+)?"
_SETTING_AFTER = re.compile(_DECOR_CHARS + r"[ \t]+" + _SETTING_WORDS + _DECOR_CHARS)
_CLAUSE_BREAK = re.compile(r"[,;]")
_SETTING_BEFORE = re.compile(r"(?<![^\W\d_])" + _SETTING_WORDS + _DECOR_CHARS + r"\Z")
# Names joined into a list ("Set5, Set14 and B100", "PSNR/SSIM", "PSNR and SSIM", "Ours vs.
# Baseline", "top-1/top-5"): a name of one is written with no one number. A list's other item
# may be a word no claim has ("on Set5, Urban100 and Set14"): a word after the name, capitalized
# or holding a digit, hyphens within ("Set5, and 27.3 dB" and "Set5, while" list nothing), or
# one before it joined by a word or a slash ("Urban100 and Set14"; "On Set5, Ours reaches" is no
# list), that follows no number ("31.42 dB and SSIM of 0.912" is none)
_JOIN_WORD = r"[ \t]+(?:" + _LIST_WORDS + r"|&|vs\.?|versus)[ \t]+"
_NAME_LIST_NEXT = re.compile(r"(?:[ \t]*,[ \t]*(?:(?:" + _LIST_WORDS + r")[ \t]+)?|" + _JOIN_WORD
                             + r"|[ \t]*/[ \t]*)(?=[^\W\d_])(?:[^\W_]|-(?=[^\W_]))*[A-Z\d]")
_SLASH_GAP = re.compile(r"[ \t*_`]*/[ \t*_`]*")
_NAME_LIST_PREV = re.compile(r"(?<![\w.,%])(?<![\d.,%][ \t])[^\W\d_][\w\-]*(?:,?"
                             + _JOIN_WORD + r"|[ \t]*/[ \t]*)\Z")


def written_with(masked: str, base: int, numbers: Sequence[tuple[int, int]],
                 names: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Per number (``numbers``: (start, end with its unit), in text order), the names it is
    written with (indices into ``names``: anchors' (start, end), in text order, one a place),
    strongest first:

    1. the name right before it ("PSNR of 31.42", "PSNR: 31.42", "Ours 31.42"; a later number
       of a list, its first number's: "PSNRs of 32.46, 28.80 and 27.71 dB") and the name
       right after it ("31.42 dB PSNR", "0.912 SSIM", "78.28% test top-1"; an earlier
       percent of a list of percents, its last one's: "91.5% and 89.7% accuracy");
    2. its setting after it ("31.42 dB on Set5", "27.3 dB PSNR on Urban100");
    3. the setting heading its clause, with no other number between ("On Set5, our model
       reaches a PSNR of 31.42 dB, and on Urban100 ...").

    A name in a list of names ("Set5, Set14 and B100", "PSNR/SSIM of 31.42/0.912") is written
    with no one number (`respectively` pairs such lists). Offsets are ``base`` on from
    ``masked``'s start."""
    starts = [s for s, _ in names]
    firsts = [s for s, _ in numbers]

    def joined_before(k: int) -> bool:
        at = names[k][0] - base
        return _NAME_LIST_PREV.search(masked, max(0, at - 40), at) is not None

    def joined_after(k: int) -> bool:
        # a slash to the next name is a list whatever that name's case ("precision/recall":
        # `_NAME_LIST_NEXT` wants a capital or a digit of a word no claim has)
        return _NAME_LIST_NEXT.match(masked, names[k][1] - base) is not None or (
            k + 1 < len(names) and _SLASH_GAP.fullmatch(masked, names[k][1] - base,
                                                         names[k + 1][0] - base) is not None)

    def alone(k: int) -> bool:
        return not joined_before(k) and not joined_after(k)

    out: list[list[int]] = []
    heads = [list_head(masked, at - base, end - base) + base for at, end in numbers]
    for i, (_, end) in enumerate(numbers):
        own: list[int] = []
        head = heads[i]
        k = bisect.bisect_right(starts, head) - 1
        if k >= 0 and names[k][1] <= head and alone(k) \
                and (_BEFORE_GAP.fullmatch(masked, names[k][1] - base, head - base)
                     or _changes_from(masked, base, names[k][1], head)) \
                and not _compared_pair_after(masked, base, names[k], end):
            own.append(k)
        last = _last_percent_of_list(masked, base, numbers, heads, i)
        after = bisect.bisect_left(starts, end)
        if bisect.bisect_left(starts, last) != after:
            last = end  # a name within the list: its own numbers'
        tail = end
        if after < len(names) and alone(after) \
                and _AFTER_GAP.fullmatch(masked, last - base, names[after][0] - base):
            own.append(after)
            tail = names[after][1]
            after += 1
        if after < len(names) and alone(after) \
                and _SETTING_AFTER.fullmatch(masked, tail - base, names[after][0] - base):
            own.append(after)
        # the clause's setting: the nearest name before the number (its list's) that follows
        # "on", "for" or "in", with no number between, nor a number before it in its clause
        # (then it is that number's setting: "0.912 SSIM on Set5, and 27.3 dB")
        k = bisect.bisect_right(starts, head) - 1
        before = bisect.bisect_left(firsts, head) - 1  # the number before this one's list
        lo = numbers[before][1] if before >= 0 else base
        while k >= 0 and names[k][0] >= lo:
            if _SETTING_BEFORE.search(masked, max(0, names[k][0] - base - 12),
                                      names[k][0] - base) and alone(k):
                if k not in own and ";" not in masked[names[k][1] - base:head - base] \
                        and (before < 0 or _CLAUSE_BREAK.search(
                            masked, lo - base, names[k][0] - base)):
                    own.append(k)
                break
            k -= 1
        out.append(own)
    return out


# A pair "A vs B" in a parenthesis after the name a subject is compared with: "Ours improves
# PSNR over the Baseline (31.62 vs 30.10 dB)" (the first is the subject's, not the Baseline's)
_VERSUS_AFTER = re.compile(r"(?i)[ \t*_`$~]*(?:vs\.?|versus)(?![^\W_])")


def _compared_pair_after(masked: str, base: int, name: tuple[int, int], end: int) -> bool:
    """Whether the number ending at ``end`` opens a pair "A vs B" in a parenthesis right after
    the ``name`` that a comparison word leads to ("over the Baseline (31.62 vs 30.10 dB)")."""
    return _VERSUS_AFTER.match(masked, end - base) is not None \
        and "(" in masked[name[1] - base:end - base] \
        and _COMPARED_BEFORE.search(masked, max(0, name[0] - base - 40), name[0] - base) \
        is not None


# A name's change from one number to another: "the mAP result of Swin Transformer increases from
# 79.1% to 80.4%", "PSNR rises from 30.10 to 31.42 dB": both numbers are the name's. (Not "Ours
# improves PSNR over the Baseline from 30.10 to 31.42 dB": the Baseline changes nothing.)
_CHANGE_VERB_FROM = re.compile(r"(?i)" + _DECOR_RUN + r"(?:increases|increased|improves|improved"
                               r"|rises|rose|grows|grew|climbs|climbed|jumps|jumped|goes|went"
                               r"|drops|dropped|falls|fell|decreases|decreased|declines|declined"
                               r"|changes|changed|moves|moved)[ \t]+from[ \t$~]+\Z")
_FROM_NUMBER_TO = re.compile(r"(?i)(" + _NUMBER_ITEM + r")[ \t]+to[ \t$~]+\Z")


def _changes_from(masked: str, base: int, name_end: int, head: int) -> bool:
    """Whether the name ending at ``name_end`` changes from or to the number at ``head``
    (offsets ``base`` on): "Swin Transformer increases from 79.1%", "... from 79.1% to 80.4%"."""
    if head - name_end > _GAP_REACH:
        return False
    gap_end = head - base
    to = _FROM_NUMBER_TO.search(masked, max(0, gap_end - 40), gap_end)
    if to is not None and _CHANGE_VERB_FROM.fullmatch(masked, name_end - base, to.start()):
        return True
    return _CHANGE_VERB_FROM.fullmatch(masked, name_end - base, gap_end) is not None


def _last_percent_of_list(masked: str, base: int, numbers: Sequence[tuple[int, int]],
                          heads: list[int], i: int) -> int:
    """Where the list of percents holding the number ``i`` ends (its own end when it is in
    none, or the list's last number): the name after a list of percents is every one's
    ("91.5% and 89.7% accuracy": both accuracies). Offsets ``base`` on."""
    end = numbers[i][1]
    if masked[end - base - 1] != "%":
        return end
    j = i
    while j + 1 < len(numbers) and heads[j + 1] == heads[i] \
            and masked[numbers[j + 1][1] - base - 1] == "%":
        j += 1
    return numbers[j][1]


def _in_percent_range(shown: Shown, masked: str, base: int, head: str) -> bool:
    """Whether ``shown`` is an end of a dash range of percents (``98.43%-99.04%``)."""
    if shown.percent and _PERCENT_RANGE_NEXT.match(masked, shown.suffix_end - base):
        return True
    before = _PERCENT_RANGE_BEFORE.search(head)
    return before is not None and (shown.sign == "-" or before.group(0).rstrip()[-1] != "%")


_LABEL_NUMBER = re.compile(r"[ \t]*[#:]?[ \t]*\d")


def _counts(masked: str, noun: re.Match[str], base: int,
            anchors: Sequence[tuple[int, int]]) -> bool:
    """Whether the count noun ``noun`` (group 1) counts a setting: not a rate ("tokens/s"), and
    not part of an anchor term (then it names the claimed quantity)."""
    if _RATE.match(masked, noun.end()):
        return False
    # A count noun followed by a number of its own labels that number ("... val_accuracy: 0.9920"
    # then "Epoch 11/15" on the next line of a Keras log; "0.91 step 500"): it counts nothing
    # before it, so the number before is a value, not a count of epochs.
    if _LABEL_NUMBER.match(masked, noun.end()):
        return False
    at = noun.start(1) + base
    return not any(s <= at < e for s, e in anchors)


# A metric printed as "key: value" / "key = value" ("- loss: 0.0406 - val_accuracy: 0.9920",
# "'eval_f1': 0.953", "BLEU4 = 34.78", "BP=0.963", "# psnr: 28.4321"): the gap between a key and
# its number, and a whole pair.
_KEY_GAP = re.compile(r"""['"\])]?[ \t]*[:=][ \t]*['"]?[ \t]*""")
_GAP_CHARS = frozenset("'\"])\t :=")  # every character _KEY_GAP matches
# lm-evaluation-harness 0.4 keys a metric with no filter by its name and "none" ("'acc,none':
# 0.853", "acc_norm,none"): the filter says nothing, the metric's name is the key. (Another
# filter, "exact_match,strict-match", is a part of its own key: `anchors._compound_parts`.)
_NO_FILTER = ",none"
# A pair is a key (a word character that is no digit, then key characters) and the gap and
# number after it. Searched for as runs of key characters, each tried once: a regex starting
# the key at every letter of a long run ("abcdefghij..." or "a1a1a1...") scanned to the run's
# end from each, which cost a unit its length squared.
_KEY_RUN = re.compile(r"[\w.\-/@]++")
_KEY_START = re.compile(r"[^\W\d]")
_KEY_TAIL = re.compile(r"""['"\])]?[ \t]*[:=][ \t]*['"]?[ \t]*[+\-\u2212]?\.?\d""")


def _key_value_end(masked: str, pos: int) -> int | None:
    """Where the first "key: value" pair of ``masked`` that starts at ``pos`` or later ends."""
    for run in _KEY_RUN.finditer(masked, pos):
        tail = _KEY_TAIL.match(masked, run.end())
        if tail is not None and _KEY_START.search(masked, run.start(), run.end()):
            return tail.end()
    return None


def is_listing(masked: str) -> bool:
    """Whether a unit lists values under keys (two or more "key: value" pairs): a log line,
    a printed dict. In prose a single "Ours vs. Baseline: 31.52 vs. 30.10" labels nothing."""
    if masked.count(":") + masked.count("=") < 2:  # most sentences: no regex search at all
        return False
    found = _key_value_end(masked, 0)
    return found is not None and _key_value_end(masked, found) is not None


# A custom loop (or a Lightning callback) printing an epoch's metrics as fields between pipes,
# each a name and then its value: "Epoch 3 | train loss 0.4521 | val acc 0.8012". No ":" or "="
# keys the values, but each field is one: read as a sentence, the line's "val acc" named its
# train loss as much as its val acc (two candidates a line: no series, ambiguous).
# (possessive: the name's words and the gaps between them cannot trade spaces, which made a
# run of spaces between two pipes take quadratic time)
_FIELD_PAIR = re.compile(r"(?:^|\|)[ \t]*+[^\W\d][\w.\-/@]*+(?:[ \t]++[\w.\-/@]++)*?[ \t]++"
                         r"[+\-\u2212]?\.?\d")
_SPACE_GAP = frozenset(" \t")


def is_field_listing(masked: str) -> bool:
    """Whether a unit prints its values as two or more "name value" fields between pipes
    (`_FIELD_PAIR`): "Epoch 3 | train loss 0.4521 | val acc 0.8012"."""
    if "|" not in masked:  # nearly every unit: no regex search at all
        return False
    first = _FIELD_PAIR.search(masked)
    return first is not None and _FIELD_PAIR.search(masked, first.end()) is not None


class Key(NamedTuple):
    """The anchor keying a number in a listing (`labels`)."""

    term: str
    glued: bool  # the key only ends with it: "accuracy" in "predict_accuracy = 0.9826"
    start: int   # where the anchor starts (offsets as the numbers')


def labels(masked: str, base: int, numbers: Sequence[int],
           anchors: Sequence[tuple[int, int, str]], fields: bool = False) -> list[Key | None]:
    """Per number (its start offset), the anchor term that is its key in a listing ("val
    accuracy" for "val_accuracy: 0.9920") and whether the key only ends with it (True for
    "accuracy" in "predict_accuracy = 0.9826", another split's accuracy), None when no
    anchor is its key (another word's, "loss: 0.0406", or none). In a listing of fields
    (``fields``: `is_field_listing`) an anchor right before the number, spaces between, keys
    it too ("val acc 0.8012").
    ``anchors``: (start, end, term), offsets as the numbers'."""
    ends = {e: (s, t) for s, e, t in anchors}
    # Only the anchors ending in the gap before a number can be its key: they are found by
    # bisection, and tried in the order of ``ends`` as before. Trying every anchor for every
    # number cost a long log line (thousands of each) its length squared.
    rank = {e: i for i, e in enumerate(ends)}
    by_end = sorted(ends)
    out: list[Key | None] = []
    for at in numbers:
        key: Key | None = None
        gap_end = at - base
        # the gap: what _KEY_GAP may match, back from the number (never past the line's start:
        # a newline is none of it)
        lo = gap_end
        while lo > 0 and masked[lo - 1] in _GAP_CHARS:
            lo -= 1
        gap = lo
        if masked.endswith(_NO_FILTER, 0, lo):
            lo -= len(_NO_FILTER)  # "'acc,none': 0.853": the key is "acc"
        near = sorted(by_end[bisect.bisect_left(by_end, base + lo):
                             bisect.bisect_right(by_end, at)], key=rank.__getitem__)
        for end in near:
            begin, name = ends[end]
            after = end - base
            if after == lo < gap:
                after = gap  # (the anchor ends at ",none")
            if _KEY_GAP.fullmatch(masked, after, gap_end) or (
                    fields and after < gap_end and _SPACE_GAP.issuperset(masked[after:gap_end])):
                # the tail of a longer key ("accuracy" in "predict_accuracy = 0.9826") is not
                # that key: the number is another key's
                key = Key(name, begin > base and masked[begin - base - 1] in "_./@-", begin)
                break
        out.append(key)
    return out


# --- splits: which data a number is of -----------------------------------------------------------
#
# A claim on one split (`test_accuracy`, `val/loss`, or `Claim.split`) is named by its bare
# quantity ("accuracy") wherever that is written, and the bare quantity is written of every
# split: Keras' fit() prints the training accuracy as "acc: 0.9874" beside "val_acc: 0.9920",
# tqdm's "epoch 1: ... {'acc': 0.8315}" is the training pass, "an accuracy of 0.989 on the
# training data" says so. A number whose words name another split than the claim's is not that
# claim's (`documents._other_splits`). The words, one family each:
_SPLIT_FAMILY = {"train": "train", "training": "train", "val": "val", "valid": "val",
                 "validation": "val", "dev": "val", "test": "test", "testing": "test",
                 "eval": "eval", "evaluation": "eval",
                 # benchmark servers' test splits (COCO's test-dev and test-challenge, VQA's
                 # test-dev and test-std): "test-dev AP" is no "dev AP", the val split's
                 "test-dev": "test", "test-std": "test", "test-challenge": "test"}
_SPLIT_WORD = "|".join(sorted(_SPLIT_FAMILY, key=len, reverse=True))
_LONGEST_SPLIT_WORD = max(map(len, _SPLIT_FAMILY))
_BARE_SPLIT = re.compile(r"(?i)(?<![^\W_])(" + _SPLIT_WORD + r")(?![^\W_])")
# In prose, a split word that qualifies the data or a metric ("the training data", "test set",
# "validation accuracy", "test PSNR", "val mAP@50"): "after training, ..." or "we test on ..."
# names no split. Any space between the two (a paragraph hard-wrapped at "test\naccuracy" is
# one sentence: before, its "training set" was the nearest split named and the test claim's
# number went unjudged). The metrics are every name of the direction registry
# (`metric_directions`), also with a cut-off ("mAP@50", "AP50", "BLEU-4"), and the usual
# spellings of those it writes glued (before, a fixed few: "a test PSNR of 32.05 dB" named no
# split and matched the val claim of that value); not "pass" ("a training pass", "the test
# passes"), nor "precision" after a training word ("bf16 training precision"), which say
# something else there (`_OTHER_SENSE`).
# (top-k of any k to 10: "92.4% top-3 accuracy" is another metric's number than a top-1 claim's)
_SPELLED_APART = (r"top[\s\-]?(?:[1-9]|10)(?!\d)(?:[\s\-]acc(?:uracy)?|[\s\-]err(?:or)?)?"
                  r"|ms[\s\-]ssim|exact[\s\-]match|roc[\s\-]auc|error[\s\-]rate|f1[\s\-]scores?")
_METRIC_NAMES = "|".join(sorted((HIGHER | LOWER) - {"pass"}, key=len, reverse=True))
_SPLIT_NOUNS = (_SPELLED_APART + r"|sets?|data|datasets?|splits?|images|samples|examples|scores?"
                r"|metrics?|results?|performance|(?:" + _METRIC_NAMES + r")(?:[@\-]?\d[\d.:]*)?")
_PROSE_SPLIT = re.compile(r"(?i)(?<![^\W_])(" + _SPLIT_WORD + r")[\s_\-/]+(" + _SPLIT_NOUNS
                          + r")(?![^\W_])")
_OTHER_SENSE = {"train": frozenset({"precision"})}
# A record's label at the start of its line: "valid: 100%|...", "Test set: Average loss: ...",
# "Train: Loss=0.0047 ...", "[Validation] ..."; or an epoch's record ("epoch 1: 100%|...",
# "Epoch 3/10 - loss: ..."), which is the training pass when it names no split
_RECORD_LABEL = re.compile(r"(?i)[\s\W_]*(" + _SPLIT_WORD + r")(?:[ \t]+(?:set|data|split))?"
                           r"[ \t]*[:\]|]")
_EPOCH_RECORD = re.compile(r"(?i)[\s\W_]*epoch[ \t]*\d")
_ANY_SPLIT = re.compile(r"(?i)(?<![^\W_])(?:" + _SPLIT_WORD + r")(?![^\W_])")
_TOKENS = re.compile(r"[^\W_]+")


def splits_conflict(a: str, b: str) -> bool:
    """Whether a number of split ``a`` cannot be a claim's of split ``b``: two of train, val and
    test; "eval" (a held-out split: validation or test, as frameworks print it) conflicts with
    train only."""
    if a == b:
        return False
    return "train" in (a, b) or "eval" not in (a, b)


def metric_split(metric: str, split: str | None = None,
                 evaluated: str | None = None) -> str | None:
    """The split a claim is on: its ``split`` (``Claim.split``), else the split word its metric
    key carries beside the quantity (``test_accuracy``, ``val/loss``, ``psnr_test``: test, val,
    test), else the split its result says it was evaluated on (``Claim.evaluated_split``: the
    keys the value was read under, ``test.em`` and ``/test/em`` in ``{"test": {"em": 85.2}}``,
    whose metric is ``em``; a split key; a split folder), else None. Two split words of two
    families name none (``test+val``: a split column's rows of both)."""
    if split:
        return _one_family(_TOKENS.findall(split.lower()), set())
    named = _one_family(_TOKENS.findall(metric.lower()), set(metric_key(metric).split()))
    if named is None and evaluated:
        return _one_family(_TOKENS.findall(evaluated.lower()), set())
    return named


def _one_family(words: list[str], quantity: set[str]) -> str | None:
    """The split family ``words`` name, when one; the words of ``quantity`` (a metric key that
    is a split word, ``dev``) and ``dev`` after ``std`` (a spread) name none."""
    families = {_SPLIT_FAMILY[w] for i, w in enumerate(words)
                if w in _SPLIT_FAMILY and w not in quantity
                and not (w == "dev" and i > 0 and words[i - 1] == "std")}  # std_dev: no split
    return families.pop() if len(families) == 1 else None


def key_split(masked: str, base: int, key: Key) -> str | None:
    """The split a listing's key names: its anchor's own split word ("val accuracy", an anchor
    of the val_accuracy claim), else the word glued before its anchor ("val_" in "val_acc",
    none in "predict_accuracy"), else a split word written before it ("Train accuracy:
    0.9978", "Test Loss = 0.31")."""
    words = key.term.split()
    for word in (words[0], words[-1]):
        if word in _SPLIT_FAMILY:
            return _SPLIT_FAMILY[word]
    if not key.glued:
        # "Train accuracy: 0.9978" printed on a log's line of its own: the key is the anchor
        # "accuracy", qualified by the word before it. Read as a sentence, the prose rule
        # (`prose_splits`) saw it; read as a log's record, the line was every split's and a
        # test_accuracy claim drifted against the training line.
        end = key.start - base
        while end > 0 and masked[end - 1] in " \t":
            end -= 1
        if end == key.start - base:
            return None
        begin = end
        while begin > 0 and end - begin <= _LONGEST_SPLIT_WORD and masked[begin - 1].isalnum():
            begin -= 1  # (a bounded walk back: a log line has thousands of keys)
        return _SPLIT_FAMILY.get(masked[begin:end].lower())
    at = key.start - base - 1  # the "_" before the anchor
    begin = at
    while begin > 0 and (masked[begin - 1].isalnum()):
        begin -= 1
    return _SPLIT_FAMILY.get(masked[begin:at].lower())


def record_split(masked: str, epochs: bool = True) -> str | None:
    """The split a unit names by its label ("valid: 100%|...", "Test set: ...", "Train:
    Loss=..."), or, with ``epochs`` (a log's record), "train" for an epoch's record that names
    no split anywhere ("epoch 1: 100%|... {'acc': 0.8315}": frameworks print a validation pass
    on a line of its own, or with keys of its own, "val_acc"); else None."""
    label = _RECORD_LABEL.match(masked)
    if label is not None:
        return _SPLIT_FAMILY[label.group(1).lower()]
    if epochs and _EPOCH_RECORD.match(masked) and not _ANY_SPLIT.search(masked):
        return "train"
    return None


# A table's header naming a split ("Val Acc", "Test accuracy", "Accuracy (val)", "Val. F1"); a
# split word before "time" names a phase, not data ("Test-time aug.", "Train time (h)").
_HEADER_SPLIT = re.compile(r"(?i)(?<![^\W_])(" + _SPLIT_WORD + r")(?![^\W_])(?![ \t\-_]*time\b)")
# A row label that is a split alone ("Val", "Test set", "validation split").
_LABEL_SPLIT = re.compile(r"(?i)[\s\W_]*(" + _SPLIT_WORD + r")(?:[ \t]+(?:set|data|split))?"
                          r"[\s\W_]*")


def header_split(header: str) -> str | None:
    """The split a table column's header names ("Val Acc": val; "Test F1": test), when it names
    one family; else None ("Train/Test", "Test-time aug.", "PSNR")."""
    families = {_SPLIT_FAMILY[m.group(1).lower()] for m in _HEADER_SPLIT.finditer(header)}
    return families.pop() if len(families) == 1 else None


def label_split(label: str) -> str | None:
    """The split a table row's label names when the label is that split alone ("Val", "Test
    set"): the rows of a table transposed, a split a row; else None."""
    m = _LABEL_SPLIT.fullmatch(label)
    return _SPLIT_FAMILY[m.group(1).lower()] if m else None


_TRAIN_DATA = re.compile(r"(?i)(?<![^\W_])(?:train|training)[ \t_\-/]+(?:sets?|data|datasets?"
                         r"|splits?|images|samples|examples|accuracy|acc|loss|error|err|f1|auc)"
                         r"(?![^\W_])")


def heading_split(heading: str) -> str | None:
    """The split a section's heading says its results are of: a split word qualifying the data
    or a metric ("Test results", "Results on the validation set", "Validation accuracy"), when
    one family; else None. A split word alone names none: "## Testing" and "## Test" head how
    to run an evaluation (whose expected numbers may be any split's), "## Training" how to
    train."""
    named = {_SPLIT_FAMILY[m.group(0).lower()] for m in _ANY_SPLIT.finditer(heading)}
    if len(named) != 1:  # "Validation and test results": neither
        return None
    if named == {"train"}:
        # "Training results" heads a training run's results, which are its validation numbers
        # (the Hugging Face Trainer's card: "### Training results" over each epoch's
        # "Validation Loss" and metrics); only the training data or a metric on it says train
        return "train" if _TRAIN_DATA.search(heading) else None
    return named.pop() if any(_qualifying(m) for m in _PROSE_SPLIT.finditer(heading)) else None


def prose_splits(masked: str, base: int,
                 anchors: Mapping[int, int] | None = None) -> list[tuple[int, str]]:
    """(offset, family) of each split word of a sentence that qualifies the data or a metric
    ("on the training data", "the test set", "validation accuracy"), also as a word of a list
    of splits ("the validation and test sets"; `split_lists`): each word of a list is given
    with every family of the list, so a number near one of its words is near all its splits.
    ``anchors``: as `split_words` has them."""
    return [(w.at, w.family) for w in split_words(masked, base, anchors)]


class SplitWord(NamedTuple):
    """A split word of a sentence that qualifies the data or a metric (`split_words`)."""

    at: int      # where the word starts (``base`` on)
    family: str  # one of its list's families (a word of "the val and test sets": one each)
    # the spans of the metrics it qualifies, with those listed with it ("test PSNR and SSIM":
    # both); () where it qualifies the data ("the test set", "test results"), which is what
    # every number of the sentence near it is of
    metrics: tuple[tuple[int, int], ...]
    # whether only a claim's anchor makes it a split word ("test FVD", "test time": no name the
    # direction registry knows), which before round 45 named no split: it is the split of its
    # own metric's numbers only (`SentenceSplits.of`)
    anchored: bool = False
    # whether it qualifies the data a metric before it is measured on ("Perplexity on the dev
    # set drops to 11.8", "the accuracy on the test set is 75%"): the split of its clause's
    # numbers only (`SentenceSplits.of`)
    after_metric: bool = False
    # whether it is in a setting heading the sentence ("On the test set, ...", "For the
    # validation split of ImageNet, ..."): the split of its numbers however far
    # (`documents._nearest_split`)
    heads: bool = False


def split_words(masked: str, base: int, anchors: Mapping[int, int] | None = None,
                metrics: Mapping[int, int] | None = None) -> list[SplitWord]:
    """Each split word of a sentence that qualifies the data or a metric (`prose_splits`), with
    the metrics it qualifies. ``anchors``: where a claim's anchor term starts, and ends (offsets
    ``base`` on): a claim's metric or alias after a split word is qualified by it as the direction
    registry's metrics are ("a test FVD of 131.7", "dev MCC"). Metrics listed after the first
    ("test PSNR and SSIM", "val PSNR/SSIM/LPIPS": the registry's, and ``metrics``, those of
    ``anchors`` that are a claim's metric) are qualified too."""
    out: list[SplitWord] = []
    for run, noun in _split_runs(masked, base, anchors):
        listed: tuple[tuple[int, int], ...] = ()
        if noun is not None:
            listed = _listed_metrics(masked, base, noun, metrics)
        families = dict.fromkeys(family for _, family in run)
        anchored = noun is not None and _PROSE_SPLIT.match(masked, run[-1][0] - base) is None
        after = noun is None and _measured_on(masked, base, run[0][0], metrics)
        heads = noun is None and _heads_the_sentence(masked, run[0][0] - base,
                                                     run[-1][0] - base)
        out.extend(SplitWord(at, family, listed, anchored, after, heads) for at, _ in run
                   for family in families)
    return out


# A setting heading a sentence: "On the test set, ...", "For the validation split of ImageNet,
# ...", "On the validation and test sets, ..." (a list's last word `_PROSE_SPLIT`'s)
_SETTING_OPENS = re.compile(r"(?i)[\s*_>#\-]*(?:on|for|in|across|over)[ \t]+(?:the[ \t]+)?"
                            r"(?:[^\W\d_][\w\-]*[ \t]+)?\Z")
_SETTING_CLOSES = re.compile(r"(?i)(?:[ \t]+(?:of|in)[ \t]+[^\W\d_][\w\-]*)?[ \t]*,")


def _heads_the_sentence(masked: str, first: int, last: int) -> bool:
    """Whether the run of split words from ``first`` to ``last`` (offsets in ``masked``) is in a
    setting heading the sentence and closed by a comma (`_SETTING_OPENS`)."""
    if first > 48 or _SETTING_OPENS.fullmatch(masked, 0, first) is None:
        return False
    noun = _PROSE_SPLIT.match(masked, last)
    return noun is not None and _SETTING_CLOSES.match(masked, noun.end()) is not None


# A metric's name, then the preposition and article before the data it is measured on:
# "Perplexity on the dev set", "the accuracy on the test set", "BLEU on the test split"
_MEASURED_ON = r"[ \t]+(?:on|in|for|with|of|over)[ \t]+(?:the[ \t]+)?\Z"
_METRIC_MEASURED_ON = re.compile(r"(?i)(?<![^\W_])(?:" + _SPELLED_APART + r"|(?:" + _METRIC_NAMES
                                 + r")(?:[@\-]?\d[\d.:]*)?(?:e?s)?)" + _MEASURED_ON)
_PREPOSITION_BEFORE = re.compile(r"(?i)" + _MEASURED_ON)


def _measured_on(masked: str, base: int, at: int, metrics: Mapping[int, int] | None) -> bool:
    """Whether the split word at ``at`` (``base`` on) says the data the metric right before it
    is measured on ("Perplexity on the dev set"; a claim's metric of ``metrics``, start ->
    end, too), that metric written after no number ("97.1% top-5 accuracy on the test set" is
    that number's setting, as "on the test set" alone is)."""
    lo = max(0, at - base - 64)
    found = _METRIC_MEASURED_ON.search(masked, lo, at - base)
    start = found.start() + base if found is not None else None
    if start is None and metrics:
        prep = _PREPOSITION_BEFORE.search(masked, lo, at - base)
        if prep is not None:
            start = next((s for s, e in metrics.items() if e == prep.start() + base), None)
    if start is None:
        return False
    return _NUMBER_RIGHT_BEFORE.search(masked, max(0, start - base - 24), start - base) is None


# A number right before a metric, with its unit: "97.1% top-5 accuracy", "31.42 dB PSNR" (not
# "28.9, and perplexity")
_NUMBER_RIGHT_BEFORE = re.compile(r"(?<![\w.])\d(?:[\d.,]*\d)?[ \t]?(?:\\?%|(?!(?:and|or|to|vs)"
                                  r"(?![^\W_]))[^\W\d_]{1,3}(?![^\W\d_]))?[ \t~$*_`()]*\Z")


# Where a sentence's clauses part: a semicolon, a comma and a conjunction that joins no list of
# numbers (", and the PSNR ...", not "91.2%, and 89.7%"), "while" or "whereas", and "and" or
# "but" before a word opening a clause ("... is 76% and the accuracy on the test set is 75%",
# "... was 82% and that with the test set was 79%")
_CLAUSE_PARTS = re.compile(r"(?i);|,[ \t]*(?:and|but|while|whereas|whilst)(?![^\W_])"
                           r"(?![ \t$~]*[+\-\u2212]?\.?\d)|(?<![^\W_])(?:while|whereas|whilst)"
                           r"(?![^\W_])|(?<![^\W_])(?:and|but)[ \t]+(?=(?:that|the|its|their|this"
                           r"|those|these|it|we|our)(?![^\W_]))")


# The nouns after a split word that are the data, not a metric: "the test set", "val results"
_DATA_NOUN = re.compile(r"(?i)sets?|data|datasets?|splits?|images|samples|examples|scores?"
                        r"|metrics?|results?|performance")


# A split word joined to the next one of a list ("validation and test sets", "train, val, and
# test splits", "the val/test sets"): it qualifies what the list's last word does. Not in
# "a train/test split" nor "train/val/test splits", which name the partition, not the data a
# number is of: such a list names no split at all.
_SPLIT_IN_LIST = re.compile(r"(?i)(?<![^\W_])(" + _SPLIT_WORD + r")[ \t]*(?:,[ \t]*(?:(?:"
                            + _LIST_WORDS + r")[ \t]+)?|(?:" + _LIST_WORDS + r")[ \t]+)\Z")
_SPLIT_SLASHED = re.compile(r"(?i)(?<![^\W_])(" + _SPLIT_WORD + r")[ \t]*/[ \t]*\Z")
# between a split word and a claim's anchor it qualifies, as `_PROSE_SPLIT` has it
_QUALIFIER_GAP = re.compile(r"[\s_\-/]+")


def split_lists(masked: str, base: int,
                anchors: Mapping[int, int] | None = None) -> list[list[tuple[int, str]]]:
    """The split words of a sentence that qualify the data or a metric, as (offset, family),
    one list each run joined by commas or "and" ("on the validation and test sets": one of
    two; "the test set": one of one), in text order. Offsets are ``base`` on. ``anchors``: as
    `split_words` has them."""
    return [run for run, _ in _split_runs(masked, base, anchors)]


def _split_runs(masked: str, base: int, anchors: Mapping[int, int] | None
                ) -> list[tuple[list[tuple[int, str]], tuple[int, int] | None]]:
    """`split_lists`' runs, each with the span of the metric its last word qualifies (None:
    the data). Offsets are ``base`` on."""
    if not _ANY_SPLIT.search(masked):  # most sentences: one search, no list
        return []
    out: list[tuple[list[tuple[int, str]], tuple[int, int] | None]] = []
    for word in _ANY_SPLIT.finditer(masked):
        qualified = _qualified_noun(masked, base, word, anchors)
        if qualified is None:
            continue
        family, noun, is_data = qualified
        if is_data and masked[noun[0] - base:noun[1] - base].lower() in ("split", "splits") \
                and _joined_before((_SPLIT_SLASHED,), masked, word.start()) is not None:
            continue  # "a train/val/test split of 80/10/10": the partition, no split's data
        run = [(word.start() + base, family)]
        at = word.start()
        joins = (_SPLIT_IN_LIST, _SPLIT_SLASHED)
        while (prev := _joined_before(joins, masked, at)) is not None:
            run.append((prev.start() + base, _SPLIT_FAMILY[prev.group(1).lower()]))
            at = prev.start()
        if is_data and _trained_on(masked, at):
            # "Trained on the DIV2K training set, Ours reaches 31.62 dB": the data trained on,
            # not the split of the sentence's numbers (it took the test claim off them)
            continue
        out.append((run[::-1], None if is_data else noun))
    return out


def _qualified_noun(masked: str, base: int, word: re.Match[str],
                    anchors: Mapping[int, int] | None) -> tuple[str, tuple[int, int], bool] | None:
    """(family, the span of the noun it qualifies, whether that is the data) for the split word
    ``word`` (an `_ANY_SPLIT` match) where it qualifies the data or a metric: a noun of
    `_PROSE_SPLIT`'s, or a claim's anchor (``anchors``) right after it or holding it ("test
    FVD" for a claim on "test_fvd"); else None (`_qualifying`: a verb, another sense)."""
    found = _PROSE_SPLIT.match(masked, word.start())
    if found is not None:
        family = _qualifying(found)
        if family is None:
            return None
        noun = found.group(2)
        return family, (found.start(2) + base, found.end(2) + base), \
            _DATA_NOUN.fullmatch(noun) is not None
    if not anchors:
        return None
    gap = _QUALIFIER_GAP.match(masked, word.end())
    if gap is None:
        return None
    end = anchors.get(gap.end() + base)
    if end is None:  # not before an anchor: one holding the word ("test fvd"), if any
        held = anchors.get(word.start() + base)
        if held is None or held <= gap.end() + base:
            return None
        end = held
    if _is_verb(masked, word.group(0).lower(), word.start()):
        return None
    return _SPLIT_FAMILY[word.group(0).lower()], (gap.end() + base, end), False


def _joined_before(joins: tuple[re.Pattern[str], ...], masked: str,
                   at: int) -> re.Match[str] | None:
    """The split word joined to the list's word at ``at`` by one of ``joins``, if any (a
    bounded look back: a list's gap is a few characters)."""
    if not masked[max(0, at - 8):at].rstrip(" \t").endswith(_LIST_ENDS + ("/",)):
        return None  # no comma, list word or slash just before it (most words): no search
    for join in joins:
        if (prev := join.search(masked, max(0, at - 24), at)) is not None:
            return prev
    return None


# A split word (or a list of them) that says what a model was trained on, not what its numbers
# are of: "trained on the train and val sets", "training on", "fine-tuned on", "pre-trained on
# both", "trained on the DIV2K training set", "fine-tuned on the full training set", "when
# trained on only 10% of the training data", "fitted on the training data". A few words may
# stand between, none a clause's or another phrase's ("trained on ImageNet and evaluated on the
# test set", "trained on X, PSNR on the test set": the test set is the numbers')
_TRAINED_ON = re.compile(r"(?i)(?<![^\W_])(?:(?:pre|fine)[\s\-]?)?(?:train(?:ed|ing)?"
                         r"|tun(?:ed|ing)|fit(?:ted|ting)?)[ \t]+(?:on|with|using)[ \t]+"
                         r"(?:(?!(?:on|in|at|for|and|or|but|while|whereas|then|before|after"
                         r"|when|than|vs|versus)(?![^\W_]))[^\s,;:()\[\]]+[ \t]+){0,4}\Z")
_TRAINED_ON_REACH = 64  # characters back from the split word: the verb and a few words


def _trained_on(masked: str, at: int) -> bool:
    """Whether the words just before ``at`` say the data a model was trained on."""
    if "n" not in masked[max(0, at - _TRAINED_ON_REACH):at]:
        return False  # no "train", "tun" or "on" (many split words): no search
    return _TRAINED_ON.search(masked, max(0, at - _TRAINED_ON_REACH), at) is not None


def respective_splits(masked: str, base: int, numbers: Sequence[tuple[int, int]],
                      anchors: Mapping[int, int] | None = None
                      ) -> tuple[list[tuple[int, str]], list[list[int]]]:
    """In a sentence saying *respectively* with one list of splits ("31.42 and 32.05 dB on the
    validation and test sets, respectively"): (number's index, split) for each number of a list
    as long as the splits', in order (every such list: "PSNRs of A and B and SSIMs of C and
    D"), and the lists of numbers of another length (their indices: which number is of which
    split cannot be told). ``numbers``: (start, end with its unit), in text order; offsets are
    ``base`` on from ``masked``'s start. Else none of either, also where the sentence names a
    split outside the list or the list is what was trained on (`_TRAINED_ON`). ``anchors``: as
    `split_words` has them."""
    if len(numbers) < 2 or not says_respectively(masked):
        return [], []
    runs = split_lists(masked, base, anchors)
    if len(runs) != 1 or len(runs[0]) < 2 or _trained_on(masked, runs[0][0][0] - base):
        # a split also named on its own ("... on the test set, after training on the train
        # and val splits"), or a list of the data trained on: the numbers are not of its splits
        return [], []
    splits = [family for _, family in runs[0]]
    heads: dict[int, list[int]] = {}
    for i, (at, end) in enumerate(numbers):
        heads.setdefault(list_head(masked, at - base, end - base), []).append(i)
    paired: list[tuple[int, str]] = []
    unpaired: list[list[int]] = []
    for ids in heads.values():
        if len(ids) == len(splits):
            paired.extend(zip(ids, splits, strict=True))
        elif len(ids) > 1:
            unpaired.append(ids)
    return paired, unpaired


def _qualifying(found: re.Match[str]) -> str | None:
    """The family of a `_PROSE_SPLIT` match's split word, or None where the word after it
    says something else after that split's words (`_OTHER_SENSE`: "training precision") or
    the word is a verb there ("we test PSNR"; `_VERB_SUBJECT`)."""
    word = found.group(1).lower()
    if _is_verb(found.string, word, found.start()):
        return None  # "We test PSNR on Kodak": the verb (`_VERBS`), no split
    family = _SPLIT_FAMILY[word]
    return None if found.group(2).lower() in _OTHER_SENSE.get(family, ()) else family


def _is_verb(masked: str, word: str, at: int) -> bool:
    """Whether the split word ``word`` (lower case) at ``at`` is a verb there (`_VERBS`)."""
    return word in _VERBS and _VERB_SUBJECT.search(masked, max(0, at - 24), at) is not None


# Split words that are also verbs, and what says they are one there: a subject or an
# infinitive's "to" right before ("we test PSNR on Kodak", "we then test PSNR", "in order to
# test SSIM", "they train ..."). Not a bare "to", a preposition as often ("close to test
# accuracy", "compared to test PSNR").
_VERBS = frozenset({"test", "train"})
_VERB_SUBJECT = re.compile(r"(?i)(?<![^\W_])(?:we|they|i|you|(?:order|want|wants|need|needs|"
                           r"used|use|able|aim|aims|how|try|tries)[ \t]+to)(?:[ \t]+(?:then|"
                           r"also|first|further|now|next|additionally|again))?[ \t]+\Z")


# --- which numbers of a sentence a split word is the split of ----------------------------------
#
# A split word qualifying the data ("on the test set", "test results") says what the numbers
# near it are of. One qualifying a metric ("val loss", "test PSNR") says so of that metric: of
# the number it is written with, of the metrics listed with it ("test PSNR and SSIM"), and of a
# metric given next in a list of "metric number" pairs ("a test PSNR of 31.42 dB and SSIM of
# 0.91"); not of another metric's number ("The training loss converges and PSNR is 32.05"),
# nor across a clause ("The val loss curve is flat; ... reaches 31.42 dB").

# A metric's name as a sentence writes it: the direction registry's (as `_PROSE_SPLIT` has
# them), with a cut-off ("mAP@50") or a plural ("PSNRs")
_METRIC_MENTION = re.compile(r"(?i)(?<![^\W_])(?:" + _SPELLED_APART + r"|(?:" + _METRIC_NAMES
                             + r")(?:[@\-]?\d[\d.:]*)?(?:e?s)?)(?![^\W_])")
# What joins a metric to the next of a list: "PSNR and SSIM", "PSNR, SSIM and LPIPS",
# "PSNR/SSIM", "PSNR and the SSIM"
_METRIC_JOIN = re.compile(r"(?i)[ \t]*(?:,[ \t]*(?:(?:and|or)[ \t]+)?|(?:and|or|&)[ \t]+"
                          r"|/[ \t]*)(?:the[ \t]+)?")
_CLOSES_A_LIST = re.compile(r"(?i)and|or|&|/")
# Between a number and the metric after it that it is written with: "32.05 dB test PSNR",
# "31.42 dB in test PSNR", "0.91 on the val SSIM" (not "31.42 dB, with a val loss")
_NUMBER_THEN_METRIC = re.compile(r"(?i)[ \t~$*_`()]*+(?>(?:in|on|of|for|the|a|an|"
                                 + _SPLIT_WORD + r")[ \t\-_/]++)*+")
# Between a metric and the next metric of a list of "metric number" pairs (metrics' and claims'
# names blanked): "a test PSNR of 31.42 dB and an SSIM of 0.91", "test PSNR 31.42, SSIM
# 0.91", "the test PSNR is 31.42 dB and SSIM is 0.91" (in one clause: `SentenceSplits._of`):
# link words, numbers with a short unit, punctuation; no other word ("loss plateaus after 40
# epochs and the PSNR"). Each
# token atomic and the run possessive: a long gap of digits and commas is read in one pass.
_PAIR_GAP = re.compile(r"(?i)(?>[\s,:=/()\[\]±~$*_`+\-\u2212%\\]++|\d[\d.,]*+(?:[ \t]?"
                       r"[^\W\d_]{1,3}(?![^\W\d_]))?|(?<![^\W\d_])(?:is|are|was|were|of|at|to"
                       r"|and|the|a|an|its|our|with|vs|reaches|reached|achieves|achieved"
                       r"|attains|attained|equals|yields|gets)(?![^\W\d_]))*+")
_PAIR_REACH = 160  # characters: a list's link between two pairs is short
# The most characters between a number and the metric it is written with: "PSNR is 31.42" is
# short, a longer gap (a masked comment) writes none, and is not read (`_BEFORE_GAP` for each
# number of a long paragraph)
_GAP_REACH = 80
# A metric's own number right after it ("a test PSNR of 31.42 dB", "test loss: 0.12") and
# right before it, names between left out ("0.15 test loss", "94.0% top-5 validation
# accuracy"): the metric is one of a list of "metric number" pairs, not a word of a remark
# A number's neighbour in a list of numbers: "92.0%, 0.12", "31.42/0.93"
_NEXT_NUMBER = re.compile(r"[^\s,/;]{0,3}[ \t]*[,/][ \t]*[-+\u2212]?\.?\d")
_PREVIOUS_NUMBER = re.compile(r"\d[^\s,/;]{0,3}[ \t]*[,/][ \t]*\Z")
_NUMBER_AFTER = re.compile("(?:" + _BEFORE_GAP.pattern + r")[-+\u2212]?\.?\d")
_NUMBER_BEFORE = re.compile(r"(?<![\w.])\d[\d.,]*+%?(?:[ \t]?[^\W\d_]{1,3}(?![^\W\d_]))?"
                            r"[\s~$*_`()]*+\Z")


def metric_mentions(masked: str, base: int,
                    anchors: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The spans (``base`` on) of the metrics a sentence names: the direction registry's names
    and ``anchors`` (spans of a claim's metric or alias, where the caller knows it is one),
    overlapping ones merged, in text order."""
    spans = sorted([(m.start() + base, m.end() + base) for m in _METRIC_MENTION.finditer(masked)]
                   + list(anchors))
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _listed_metrics(masked: str, base: int, noun: tuple[int, int],
                    metrics: Mapping[int, int] | None) -> tuple[tuple[int, int], ...]:
    """``noun`` (a metric's span) and those listed after it ("PSNR, SSIM and LPIPS",
    "PSNR/SSIM"): the direction registry's names and claims' metrics (``metrics``: start ->
    end). Items joined by a comma alone are listed only where "and", "or" or a slash joins a
    later one ("loss, PSNR reaches" is no list)."""
    spans, pending = [noun], []
    end = noun[1]
    while (join := _METRIC_JOIN.match(masked, end - base)) is not None:
        start = join.end() + base
        named = _METRIC_MENTION.match(masked, join.end())
        end = max(named.end() + base if named is not None else -1,
                  metrics.get(start, -1) if metrics else -1)
        if end < 0:
            break
        pending.append((start, end))
        if _CLOSES_A_LIST.search(join.group(0)):
            spans.extend(pending)
            pending = []
    return tuple(spans)


def has_split_word(masked: str) -> bool:
    """Whether ``masked`` holds a split word at all (one search: most sentences do not)."""
    return _ANY_SPLIT.search(masked) is not None


class SentenceSplits:
    """The split words of one sentence (`split_words`) and which of them each of its numbers is
    of (`of`). ``anchors``: the spans of the claims' anchors in it (offsets ``base`` on);
    ``metrics``: those of them that name a claim's metric (not a method's "Ours", nor an alias
    holding a split word, "training time"): only these are qualified by a split word.

    Invariant: a split word is taken off a number only where the number's own metric is written
    right with it (`_own_metric`) and is another metric than the one the word qualifies, not
    listed with it; anywhere else every split word of the sentence is the number's, as before
    round 45 (a false drift blocks a commit: where unsure, the old reading)."""

    def __init__(self, masked: str, base: int, anchors: Sequence[tuple[int, int]] = (),
                 metrics: Sequence[tuple[int, int]] = ()) -> None:
        self.masked, self.base = masked, base
        self.words = split_words(masked, base, dict(metrics), dict(metrics))
        self._parts: list[int] | None = None  # where its clauses part (`same_clause`)
        self._metric_spans = list(metrics)
        self._clause_metrics: list[tuple[int, int]] | None = None  # (`_another_metric_in_clause`)
        self._of_metrics = any(w.metrics for w in self.words)
        # the spans of the metrics it names (`metric_mentions`), where a word qualifies one
        self.mentions: list[tuple[int, int]] = []
        if self._of_metrics:
            qualified = [span for w in self.words for span in w.metrics]
            self.mentions = metric_mentions(masked, base, [*metrics, *qualified])
            self._starts = [s for s, _ in self.mentions]
            # names left out of a list of pairs' link (`_without_names`), by start
            self._names = sorted({*self.mentions, *anchors})
            self._name_starts = [s for s, _ in self._names]

    def of(self, at: int, end: int) -> list[SplitWord]:
        """The split words that may say the split of the number at ``at`` (``end``: with its
        unit): all of them but the anchored ones, unless the metric it is written with is told
        (`_own_metric`); then every word qualifying the data, those qualifying its metric if
        any does, else those (not anchored) qualifying a metric listed with it in a list of
        pairs (`_listed_with`). A word saying the data a metric is measured on ("Perplexity on
        the dev set drops to 11.8, and BLEU reaches 28.4") is its own clause's only."""
        words = self._of(at, end)
        if any(w.after_metric for w in words):
            words = [w for w in words if not w.after_metric or self.same_clause(w.at, at)
                     or not self._another_metric_in_clause(w.at, at)]
        return words

    def _another_metric_in_clause(self, word: int, at: int) -> bool:
        """Whether the clause of the number at ``at`` names a metric that the clause of the
        split word at ``word`` (one saying the data a metric is measured on) does not: "...
        on the dev set drops to 11.8, and BLEU reaches 28.9" (the BLEU's data not told), not
        "We report accuracy on the test set, and Ours reaches 80.5%" (the accuracy's)."""
        if self._clause_metrics is None:
            self._clause_metrics = metric_mentions(self.masked, self.base, self._metric_spans)
        names = [(self.clause_of(s), self.masked[s - self.base:e - self.base].lower())
                 for s, e in self._clause_metrics]
        word_clause, number_clause = self.clause_of(word), self.clause_of(at)
        told = {name for clause, name in names if clause == word_clause}
        return any(clause == number_clause and name not in told for clause, name in names)

    def names_another_split(self, at: int, family: str) -> bool:
        """Whether the clause of the number at ``at`` writes a split word of another split than
        ``family`` (one qualifying nothing too: "at validation time", "on val"): then a setting
        heading the sentence ("On the test set, ...") is not told to reach its numbers."""
        at_clause = self.clause_of(at)
        return any(_SPLIT_FAMILY[m.group(1).lower()] != family
                   and self.clause_of(m.start() + self.base) == at_clause
                   for m in _BARE_SPLIT.finditer(self.masked))

    def clause_of(self, at: int) -> int:
        """The index of the clause of the sentence holding the offset ``at`` (`_CLAUSE_PARTS`)."""
        if self._parts is None:
            self._parts = [m.start() + self.base for m in _CLAUSE_PARTS.finditer(self.masked)]
        return bisect.bisect_right(self._parts, at)

    def same_clause(self, a: int, b: int) -> bool:
        """Whether the offsets ``a`` and ``b`` (``base`` on) are in one clause of the sentence
        (`_CLAUSE_PARTS`)."""
        return self.clause_of(a) == self.clause_of(b)

    def _of(self, at: int, end: int) -> list[SplitWord]:
        """`of`, but for the clauses."""
        words = self.words
        if not self._of_metrics:
            return words
        own = self._own_metric(at, end)
        if own is None:  # (an anchored word is its own metric's only: none told here)
            return [w for w in words if not w.anchored]
        mine = [w for w in words if w.metrics and _holds_span(w.metrics, own)]
        if mine:
            return [w for w in words if not w.metrics] + mine
        # (a list of pairs in one clause: "Dev perplexity is 11.8, and BLEU is 28.9" parts two,
        # the "Dev" the perplexity's only)
        return [w for w in words if not w.metrics
                or (not w.anchored and self._listed_with(w, own, at, end)
                    and self.same_clause(w.at, at))]

    def _own_metric(self, at: int, end: int) -> tuple[int, int] | None:
        """The metric the number at ``at`` is written with, where that is told: one right
        before it ("PSNR is 31.42", `_BEFORE_GAP`), else one right after it ("32.05 dB test
        PSNR"); else None ("Test accuracy (top-1) is 91.3%", "Val PSNR, unlike SSIM, keeps
        rising to 32.05 dB": which metric is not for this reading to guess)."""
        base, mentions = self.base, self.mentions
        k = bisect.bisect_right(self._starts, at)
        if k:
            before = mentions[k - 1]
            if before[1] <= at and at - before[1] <= _GAP_REACH \
                    and _BEFORE_GAP.fullmatch(self.masked, before[1] - base, at - base):
                # (the last of a list of names is no one number's: "Validation accuracy,
                # loss: 92.0%, 0.12")
                return None if self._joined(k - 2, k - 1, at, end) else before
        if k < len(mentions):
            after = mentions[k]
            if end <= after[0] and after[0] - end <= _GAP_REACH \
                    and _NUMBER_THEN_METRIC.fullmatch(self.masked, end - base, after[0] - base):
                return None if self._joined(k, k + 1, at, end) else after
        return None

    def _joined(self, i: int, j: int, at: int, end: int) -> bool:
        """Whether the mentions ``i`` and ``j`` are joined as a list's ("PSNR/SSIM", "PSNR and
        SSIM": `_METRIC_JOIN`); by a comma alone only beside a list of numbers, the number at
        ``at`` (``end``) one of it ("Validation accuracy, loss: 92.0%, 0.12"; not "With an L1
        training loss, PSNR reaches 32.05 dB")."""
        mentions, base, text = self.mentions, self.base, self.masked
        if i < 0 or j >= len(mentions):
            return False
        frm, to = mentions[i][1] - base, mentions[j][0] - base
        join = _METRIC_JOIN.fullmatch(text, frm, to) if 0 <= to - frm <= _GAP_REACH else None
        if join is None:
            return False
        return _CLOSES_A_LIST.search(join.group(0)) is not None \
            or _NEXT_NUMBER.match(text, end - base) is not None \
            or _PREVIOUS_NUMBER.search(text, max(0, at - base - _GAP_REACH), at - base) is not None

    def _listed_with(self, word: SplitWord, own: tuple[int, int], at: int, end: int) -> bool:
        """Whether the metric ``word`` qualifies and the number at ``at`` (``end``) with its
        metric ``own`` are two pairs of one list ("a test PSNR of 31.42 dB and an SSIM of 0.91",
        "91.3% test accuracy and an F1 of 0.89", "0.15 test loss and 91.3% accuracy"): the
        qualified metric has a number of its own and only a list's link is between them
        (`_PAIR_GAP`). Not where ``own`` is that metric written again ("The training FVD is 99.0
        and FVD is 120.3": the second is a number of no split word)."""
        base, text = self.base, self.masked
        name = text[own[0] - base:own[1] - base].lower()
        if any(text[s - base:e - base].lower() == name for s, e in word.metrics):
            return False
        w_start, w_end = min(word.at, word.metrics[0][0]), word.metrics[-1][1]
        n_start, n_end = min(at, own[0]), max(end, own[1])
        if w_end <= n_start:
            gap = (w_end, n_start)
        elif n_end <= w_start:
            gap = (n_end, w_start)
        else:
            return True  # (interleaved: no telling them apart, the word is the number's)
        return self._has_number(w_start, w_end) and self._pairs(*gap)

    def _has_number(self, start: int, end: int) -> bool:
        """Whether the metric from ``start`` to ``end`` (with its split word) is written with a
        number: right after it (`_NUMBER_AFTER`), or right before it, names between left out
        (`_NUMBER_BEFORE`)."""
        base, text = self.base, self.masked
        if _NUMBER_AFTER.match(text[end - base:end - base + _GAP_REACH]) is not None:
            return True
        before = self._without_names(max(base, start - _GAP_REACH), start)
        return _NUMBER_BEFORE.search(before) is not None

    def _pairs(self, frm: int, to: int) -> bool:
        """Whether the text from ``frm`` to ``to`` is a list's link between two pairs of a
        "metric number" list, names of metrics and claims left out (`_PAIR_GAP`)."""
        if to - frm > _PAIR_REACH:
            return False
        return _PAIR_GAP.fullmatch(self._without_names(frm, to)) is not None

    def _without_names(self, frm: int, to: int) -> str:
        """The text from ``frm`` to ``to``, each name of a metric or claim wholly in it a space."""
        base, text = self.base, self.masked
        parts, at = [], frm
        for s, e in self._names[bisect.bisect_left(self._name_starts, frm):]:
            if s >= to:
                break
            if s >= at and e <= to:
                parts.append(text[at - base:s - base])
                at = e
        parts.append(text[at - base:to - base])
        return " ".join(parts)


def _holds_span(spans: tuple[tuple[int, int], ...], span: tuple[int, int]) -> bool:
    """Whether ``span`` overlaps one of ``spans``."""
    return any(s < span[1] and span[0] < e for s, e in spans)
