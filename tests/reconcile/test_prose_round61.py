"""Results written in sentences (round 61): which number of a sentence is a claim's.

Papers and READMEs state a result in prose beside the data the model was trained on, a
baseline's or the previous best's number, and deltas. Each section below is a bug this round
found, with the sentences that showed it and near misses that already held.

1. **The data a model was trained on is no split of its numbers.** "Trained on the DIV2K
   training images, Ours reaches a PSNR of 31.62 dB": "training images" qualifies the data, so
   the PSNR was read as a training number, the test claim was taken off it, and its drift went
   unreported (the same in "fine-tuned on the training set", "when trained on the full
   training set"). A split word (or a list of them) after a training verb and "on", "with" or
   "using", a few words between, now names the data trained on, no split of the numbers
   (`number_roles._split_runs`, `_trained_on`); "PSNR on the training set" still names the
   training split.
   Sources: "R1 improved from 0.305 to 0.253 when trained on the full training set" (a
   challenge report's README); "The accuracy of the GSM8K test set for LLaMA-2-13B and
   Mistral-7B models fine-tuned on the training set of GSM8K and MATH" (ReAlign's README);
   "The default pretrained checkpoint `RDN_best` was trained on the DIV2K training set"
   (QuADA-GS's README); "The entire framework was trained on the DIV2K training set using the
   Adam optimizer" (an arbitrary-scale SR paper).
2. **A split word qualifying the data is its own clause's.** "The accuracy of the random
   forest model on train set was 82% and that with the test set was 79%": both split words
   were near the 82%, of two splits, so it was read as of neither; with the test claim alone it
   drifted against it (a correct README blocked), and the test claim took the swapped "on the
   train set is 75% and the accuracy on the test set is 76%" as its match. Where the split
   words near a number are of several splits, those qualifying the data are now its clause's
   only (clauses part at ";", ", and", "while", "and that", "and the": `number_roles.
   _CLAUSE_PARTS`, `documents._nearest_split`); a split word qualifying a metric is read as
   before (round 45's "Test PSNR improves to 32.05 dB while the val loss is flat": neither).
   And a split word saying the data a metric before it is measured on ("Perplexity on the dev
   set drops to 11.8, and BLEU reaches 28.9") named the split of the BLEU too, so the test
   BLEU claim's drift went unreported: it is now the split of its clause's numbers only
   (`SplitWord.after_metric`, `SentenceSplits.of`); one after a number ("Ours reaches 89.7%
   top-1 accuracy on the test set, and its top-5 accuracy is 97.1%") is every clause's, as
   before.
   Sources: "The accuracy of the Logistic Regression Model on the train set is 76% and the
   accuracy on the test set is 75%." and "The accuracy of the random forest model on train set
   was 82% and that with the test set was 79%." (a diabetes-prediction README); "Perplexity on
   the validation set" (xLSTM, Beck et al. 2024: "evaluated by their perplexity on the
   validation set"; a GPT-2 fine-tuning README's results heading).
3. **A change's noun after the metric.** "including a 0.74 dB PSNR gain and a 28.5%
   reduction in rotation error" drifted the 0.74 against the PSNR claim (a correct README
   blocked): the word after the number was the metric, no delta's word. A number followed by
   an anchor and a change's noun (gain, improvement, increase, drop, boost, reduction) is now
   a delta (`number_roles._change_of_anchor`); deltas after "by", "+", "a gain of" are read as
   before, and a comparative after the metric ("91.2% accuracy higher than ...") is left a
   value.
   Sources: HLA-WM's README ("including a 0.74 dB PSNR gain and a 28.5% reduction in rotation
   error"); Fused-Planes' README ("Fused-Planes is 7.2× faster, 3.2× more storage-efficient,
   has a 2.32dB PSNR Gain"); a Tigrinya NMT paper ("reporting a 1.3 BLEU improvement over a
   neural baseline"); "The ResNet-101 gains 0.8% mAP improvement" (a detection paper); IDM's
   README ("our IDM achieves up to 10.09dB PSNR gain"); a Transformer summary ("**28.4 BLEU**
   — over 2 BLEU improvement over the best prior result").
4. **A baseline's or the previous best's number.** "Ours improves PSNR by 1.32 dB over the
   baseline (30.10 dB) to 31.42 dB" drifted the baseline's 30.10 against Ours' claim (a correct
   document blocked: the 31.42 is past the anchors' reach), and "Ours reaches a validation
   accuracy of 91.5%, above the previous best validation accuracy of 90.1%" was ambiguous
   between the two numbers instead of a drift at 91.5%. A number written right after a
   baseline or a previous best ("the previous state-of-the-art of 94.76%", "the baseline's
   30.10 dB", "the previous best validation accuracy of 90.1%", "the baseline (30.10 dB)") or
   right before one ("30.10 dB for the baseline", "30.10 dB (baseline)"), or of the second
   best ("the second-best method (31.10 dB)") is now another
   method's, no value (`number_roles._of_another`, role "other"), unless the phrase is a
   claim's anchor (a claim on the baseline, "Baseline" its alias: its number, as before), or
   the number is compared next ("over the baseline (0.6327 vs 0.5290)": the names tell whose).
   A bare "state-of-the-art" says the number is the sentence's own ("achieves a
   state-of-the-art 2.17").
   Sources: "The system has achieved an impressive accuracy of **99.76%**, significantly
   surpassing the previous state-of-the-art of **94.76%**." (a blood-cancer classifier's
   README); "Devin correctly resolves 13.86% of the issues end-to-end, far exceeding the
   previous state-of-the-art of 1.96%" (Cognition's report, quoted in READMEs); "our model
   achieves 99.24% accuracy at evaluation, which greatly improves on the previous
   state-of-the-art of 95.80%" (an AlgoLisp README); "The best-fusion-reranked run achieves
   MAP@100=0.2827, a clear improvement over the previous best of 0.2668 (+6.0%)."; "MixMatch
   ... VAT achieved the previous state-of-the-art of 91.6% test accuracy" (the MixMatch paper);
   "**MPNet reranker** improved MAP by 19.6% over the baseline (0.6327 vs 0.5290)." (a
   retrieval report); "AniMaker outperforms all competitors with a total score of 76.72,
   representing a 14.6% improvement over the second-best method (i.e. VideoGen-of-Thought with
   66.93)." (AniMaker); "SubFLOT attains an average accuracy of 41.58%, more than double that
   of the second-best method (~20%)." (SubFLOT); "RAEv2 achieves a state-of-the-art 2.17 at
   just 80 epochs compared to the previous best 3.26 (800 epochs)" (RAEv2's abstract).
5. **A setting heading the sentence.** "On the test set, top-1 accuracy is 89.7%, and top-5
   accuracy is 97.1%." with a val top-5 claim of 97.4%: the 97.1% is more than eight words from
   "test", so it was read as of no split and drifted against the val claim (a correct document
   blocked). A split word in a setting heading the sentence ("On the test set,", "For the
   validation split of ImageNet,") is now the split of the sentence's numbers that no split
   word is near (`SplitWord.heads`, `documents._nearest_split`); one near a number is its
   split, as before.
   Source: BEVFormer (Li et al. 2022, Sec. 4): "Our method outperforms previous best method
   DETR3D [47] over 9.2 points on val set (51.7% NDS vs. 42.5% NDS), under fair training
   strategy and comparable model scales. On the test set, our model achieves 56.9% NDS without
   bells and whistles, 9.0 points higher than DETR3D (47.9% NDS)." With BEVFormer's val and
   test NDS claimed, DETR3D's 47.9% (test) drifted against the val claim.
6. **Two percents joined by a slash.** "The resulting model achieves around 75.6%/92.7%
   top-1/top-5 accuracy.": the 92.7% was glued to the slash and not read (a slash-joined pair
   was read only of plain decimals, "31.42/0.913"), so a top-5 claim drifted against the top-1
   number (a correct README blocked) and a wrong top-5 went unjudged. A percent after a slash
   and a percent is now read (`numbers._PERCENT_PAIRED_BEFORE`); and "top-5" after
   "top-1/" is a list's name (`number_roles._NAME_LIST_NEXT` took no hyphen), so neither is
   written with the number right before it.
   Sources: Intel Caffe's multinode ResNet-50 README ("The resulting model achieves around
   75.6%/92.7% top-1/top-5 accuracy."); an EEG retrieval paper ("it achieves 53.23%/83.55%
   Top-1/Top-5 accuracy on THINGS-EEG2 and 12.01%/32.16% on Alljoined-1.6M").
7. **A name's change from one number to another.** "The ResNet-101 gains 0.8% mAP
   improvement, and similarly, the mAP result of Swin Transformer increases from 79.1% to
   80.4%." with both models' mAP claimed: the Swin Transformer's 79.1% (its number before) was
   written with no name, so the ResNet-101 claim (81.2%, not stated here) drifted against it (a
   correct paper blocked). A name before a change's verb and "from" ("increases from", "rises
   from", "drops from") is now written with both numbers of the change
   (`number_roles._changes_from` in `written_with`); "Ours improves PSNR over the Baseline from
   30.10 to 31.42 dB" binds nothing, as before.
   Source: a detection paper's backbone ablation ("The ResNet-101 gains 0.8% mAP improvement,
   and similarly, the mAP result of Swin Transformer increases from 79.1% to 80.4%.").
8. **The name after a list of percents.** "Ours reaches 91.5% and 89.7% accuracy on the
   validation and test sets, respectively, while the training loss is 0.12.": the 91.5% was
   written with "Ours" alone (a name of every claim) and the 89.7% with "accuracy" too, more
   specifically, so the val claim was taken off the 91.5% and its drift went unreported. The
   name after a list of percents is now every one's (`number_roles._last_percent_of_list` in
   `written_with`), as SimCSE's abstract writes it ("achieve an average of 76.3% and 81.6%
   Spearman's correlation respectively").
9. **A hyperparameter's value.** VideoMAE's ablation, "Time-only sampling, with a masking
   ratio of 75% (i.e., keep 2 time steps out of 8), performs poorly (79.1%); if we increase its
   masking ratio to 87.5% (keep 1 out of 8), the accuracy drops further to 75.4%.": the claim
   of 75.4% matched the masking ratio's "75%" at the precision shown, so a wrong "75.9%" went
   unreported; and "MAE is pre-trained with a masking ratio of 75% and keeps high top-1
   accuracy." drifted the ratio against the accuracy claim (a correct README blocked). A number
   after a hyperparameter's noun ("masking ratio of", "learning rate of", "weight decay of",
   "dropout", "noise level") or before one ("a 75% masking ratio") is now a setting of the run
   (role "level"), no value, unless the noun is a claim's anchor.
   Sources: VideoMAE (Tong et al. 2022, Sec. 4.2, as quoted); "Our VideoMAE is pre-trained with a
   masking ratio of 75% for 3200 epochs. The batch size and base learning rate are set to 192
   and 3e-4, respectively." (VideoMAE); "We used a masking ratio of 75%, meaning the model only
   saw 25% of the image" (a satellite MAE README).
10. **"N% fewer".** "The 1.5× DS-CNN (13.4M params) achieves SSIM=0.9714, recovering most of
   the accuracy gap to the baseline while still using 57% fewer parameters." drifted the 57%
   against the DS-CNN's accuracy claim: "fewer" is now a delta's word after the number, as
   "less" and "smaller" were.
   Sources: that DS-CNN report; "Achieves comparable accuracy with 40% fewer parameters than
   traditional fully connected layers" (a README); "with ~44% fewer parameters" (an
   experiment log).
11. **A hedge between "by" and the number.** "surpassing SRCNN by roughly 0.87 dB" read the
   0.87 as a value (the word before it, "roughly", says nothing), so a wrong PSNR beside it was
   ambiguous between the two, and "Ours lowers the error rate by roughly 2.1% over the
   baseline" drifted the change against an error-rate claim of 2.3% (a correct document
   blocked). A hedge ("roughly", "about", "approximately", "only", "just") is now passed over:
   the word before it says what the number is (`number_roles._HEDGES` in `_role_before`).
   Source: a VDSR summary ("~37.53 dB PSNR on Set5 (x2), surpassing SRCNN by roughly 0.87 dB;
   consistent PSNR/SSIM gains over Bicubic, A+, RFL, SelfEx, and SRCNN across Set5, Set14,
   B100, and Urban100 at scales x2/x3/x4").
12. **Counts, targets and "N+" in a sentence.** "the model still reaches 90+% accuracy on
   the balanced test data" drifted the 90 against an accuracy claim of 92.1% (a correct README
   blocked: "90+%" is a bound); "Ours ranks 1st in accuracy among 95 submissions" drifted the
   95, "on 94 of 100 tasks" was ambiguous, and "Validated the match rate at 94.6% (above the
   90% target)" was ambiguous between the rate and the target instead of a drift. A number
   with "+" after it is now a bound, a whole number "of N <noun>" a count, a number before
   "target", "goal" or "budget" a bound, and in a sentence "tasks", "datasets", "benchmarks",
   "languages", "submissions"... count as the run's counts do (`_ROLE_COUNTS`; a table's
   header naming one says nothing new: "Avg. over tasks" heads averages).
   Sources: "We can see that even at 0.995 proportion of the dominant class in the training
   data, the model still reaches 90+% accuracy on the balanced test data." (an imbalanced-
   classification README); "Validated the match rate at 94.2% (above the 90% target)" (a data
   pipeline's report); "After quality evaluation passes and benchmark tests succeed (95%
   detection rate on known scenarios — above the 90% target)" (an agents repository's docs).
13. **Points, then a change's word.** "Ours is 1.9 points lower in error than the baseline."
   drifted the 1.9 against an error claim of 2.3% (the word after the number was "points", no
   delta's word). "N points higher", "N percentage points higher", "N pct points higher", "a
   N-point gain" are now deltas (`number_roles._POINTS_THEN_CHANGE`).
   Sources: "the TfidfVectorizer-LogisticRegression combination seemed to work best (93%) and
   has accuracy 6 pct points higher than the baseline" (a text-classification README);
   "pairing SPlanner with Qwen2.5-VL-72B achieves 63.8% success—28.8 points higher than the
   baseline" (a GUI-agents survey); "The GNN model achieves an accuracy of 87.33%, which is
   11.90 percentage points higher than the Baseline model's 75.43%." (a report); "CGVD reaches
   **73.0%** with **4 distractors**, **16.0** percentage points higher than the baseline."
   (CGVD's README).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from labledger.reconcile.claim_model import Claim
from tests.reconcile.test_documents import claim
from tests.reconcile.test_headed_tables_and_splits import findings, judge, matches

Found = list[tuple[str, tuple[str, ...], int, str | None]]

# a test-split claim and a val-split claim of one quantity, as `labledger claim --split` makes
ACC_TEST = replace(claim("T1", "accuracy", 0.897, aliases=("Ours",)), split="test")
ACC_VAL = replace(claim("V1", "val_accuracy", 0.912, aliases=("Ours",)), split="validation")
PSNR_TEST = replace(claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)), split="test")
EER_TEST = replace(claim("R1", "eer", 0.253, aliases=("R1",)), split="test")


# === 1. the data trained on ======================================================================

TRAINED_ON = [
    # (text, claims, the claim's number, a wrong one in its place)
    # ("from X to Y" with neither the claim's: ambiguous between the two, see section 3)
    ("R1 improved from 0.305 to {v} when trained on the full training set.", [EER_TEST],
     "0.253", "0.263"),
    ("Ours is trained on the DIV2K training set and reaches {v} dB PSNR on Set5.",
     [PSNR_TEST], "31.42", "31.62"),
    ("Trained on the DIV2K training images, Ours reaches a PSNR of {v} dB.", [PSNR_TEST],
     "31.42", "31.62"),
    ("Ours, trained on 800 training images, reaches a PSNR of {v} dB.", [PSNR_TEST],
     "31.42", "31.62"),
    ("Fine-tuned on the training set of CIFAR-10, Ours reaches {v} accuracy.", [ACC_TEST],
     "89.7%", "89.9%"),
    ("When trained on only 10% of the training data, Ours reaches {v} accuracy.", [ACC_TEST],
     "89.7%", "89.9%"),
    ("Ours reaches an accuracy of {v} after fine-tuning on the training data.", [ACC_TEST],
     "89.7%", "89.9%"),
    ("Ours is fitted on the training data and reaches an accuracy of {v}.", [ACC_TEST],
     "89.7%", "89.9%"),
    # a test set named too, and a val claim beside: the test one's (as before)
    ("We train on the training set and report {v} accuracy on the test set.",
     [ACC_TEST, ACC_VAL], "89.7%", None),
]


@pytest.mark.parametrize(("text", "claims", "right", "wrong"), TRAINED_ON)
def test_the_data_trained_on_is_no_split_of_the_numbers(text: str, claims: list[Claim],
                                                        right: str, wrong: str | None) -> None:
    cid = claims[0].id
    report = judge(text.format(v=right) + "\n", claims)
    assert findings(report) == []
    assert matches(report) == {((cid,), 1, right)}
    if wrong is not None:
        # before: nothing (the training data's split word took the claim off its number)
        report = judge(text.format(v=wrong) + "\n", claims)
        shown = "0.305" if "from 0.305" in text else wrong
        assert findings(report) == [("drift" if shown == wrong else "ambiguous", (cid,), 1,
                                     shown)]


@pytest.mark.parametrize("text", [
    # the number's own split: the training set's accuracy, no test claim's (as before)
    "Ours reaches 89.9% accuracy on the training set.",
    "On the training set, Ours reaches 89.9% accuracy.",
    "Ours reaches a training accuracy of 89.9% after training on the training set.",
    # another phrase between the verb and the split word: the numbers' split
    "Ours is trained on ImageNet and reaches 89.9% accuracy on the training set.",
    "Trained on ImageNet, Ours reaches 89.9% accuracy on the training set.",
])
def test_a_split_of_the_numbers_still_takes_another_splits_claim_off(text: str) -> None:
    report = judge(text + "\n", [ACC_TEST])
    assert findings(report) == []
    assert matches(report) == set()


def test_a_list_trained_on_still_pairs_with_no_numbers() -> None:
    """test_split_words_review41's list trained on, judged whole: the numbers are of no split,
    each the claim it matches."""
    text = "Trained on the train and val sets, Ours reaches 89.7% and 91.2%, respectively.\n"
    report = judge(text, [ACC_TEST, ACC_VAL])
    assert findings(report) == []
    assert matches(report) == {(("T1",), 1, "89.7%"), (("V1",), 1, "91.2%")}


# === 2. a data split word is its own clause's ====================================================

LR_TRAIN = replace(claim("LT", "accuracy", 0.76, aliases=("Logistic Regression",)), split="train")
LR_TEST = replace(claim("LE", "accuracy", 0.75, aliases=("Logistic Regression",)), split="test")
RF_TRAIN = replace(claim("FT", "accuracy", 0.82, aliases=("random forest",)), split="train")
RF_TEST = replace(claim("FE", "accuracy", 0.79, aliases=("random forest",)), split="test")
LR = "The accuracy of the Logistic Regression Model on the train set is {} and the accuracy on " \
     "the test set is {}."
RF = "The accuracy of the random forest model on train set was {} and that with the test set " \
     "was {}."

CLAUSES: list[tuple[str, list[Claim], Found, set[tuple[tuple[str, ...], int, str]]]] = [
    (LR.format("76%", "75%"), [LR_TRAIN, LR_TEST], [],
     {(("LT",), 1, "76%"), (("LE",), 1, "75%")}),
    (LR.format("76%", "77%"), [LR_TRAIN, LR_TEST], [("drift", ("LE",), 1, "77%")],
     {(("LT",), 1, "76%")}),
    # before: the test claim matched the training number, no drift
    (LR.format("75%", "76%"), [LR_TRAIN, LR_TEST],
     [("drift", ("LT",), 1, "75%"), ("drift", ("LE",), 1, "76%")], set()),
    # before: drift against the test claim (the 79% is past the anchors' reach: not judged)
    (RF.format("82%", "79%"), [RF_TEST], [], set()),
    (RF.format("82%", "79%"), [RF_TRAIN, RF_TEST], [], {(("FT",), 1, "82%")}),
    # before: ambiguous between the two claims
    (RF.format("83%", "79%"), [RF_TRAIN, RF_TEST], [("drift", ("FT",), 1, "83%")], set()),
]


@pytest.mark.parametrize(("text", "claims", "want", "matched"), CLAUSES)
def test_a_data_split_word_is_its_clauses(text: str, claims: list[Claim], want: Found,
                                          matched: set[tuple[tuple[str, ...], int, str]]
                                          ) -> None:
    report = judge(text + "\n", claims)
    assert findings(report) == want
    assert matches(report) == matched


PPL_DEV = replace(claim("L1", "perplexity", 11.8), split="dev", direction="lower")
BLEU_TEST = replace(claim("B1", "bleu", 28.4), split="test")


@pytest.mark.parametrize(("text", "want"), [
    # before: nothing (the dev set's "dev" read as the BLEU's split)
    ("Perplexity on the dev set drops to 11.8, and BLEU reaches 28.9.",
     [("drift", ("B1",), 1, "28.9")]),
    ("Perplexity on the validation set is 11.8, and BLEU is 28.9.",
     [("drift", ("B1",), 1, "28.9")]),
    ("BLEU reaches 28.9, and perplexity on the dev set drops to 11.8.",
     [("drift", ("B1",), 1, "28.9")]),
    ("Perplexity on the dev set drops to 11.9, and BLEU reaches 28.4.",
     [("drift", ("L1",), 1, "11.9")]),
    # as before: the brief's sentence, the split word before the metric
    ("Dev perplexity drops to 11.8 and BLEU reaches 28.9.", [("drift", ("B1",), 1, "28.9")]),
])
def test_the_data_a_metric_is_measured_on_is_its_clauses(text: str, want: Found) -> None:
    assert findings(judge(text + "\n", [PPL_DEV, BLEU_TEST])) == want


TOP5_VAL = replace(claim("V5", "top5", 0.974, aliases=("top-5 accuracy",)), split="val")
TOP1_TEST = replace(claim("T5", "top1", 0.897, aliases=("top-1 accuracy",)), split="test")


@pytest.mark.parametrize("text", [
    # a split word after the number: every clause's, as before
    "Ours reaches 89.7% top-1 accuracy on the test set, and its top-5 accuracy is 97.1%.",
    "Ours reaches 89.7% top-1 and 97.1% top-5 accuracy on the test set.",
])
def test_a_setting_of_the_sentence_is_still_every_clauses(text: str) -> None:
    report = judge(text + "\n", [TOP1_TEST, TOP5_VAL])
    assert findings(report) == []
    assert matches(report) == {(("T5",), 1, "89.7%")}


# === 3. a change's noun after the metric ========================================================

HLA = claim("H1", "psnr", 24.31, unit="dB", aliases=("HLA-WM",))
FUSED = claim("F1", "psnr", 29.02, unit="dB", aliases=("Fused-Planes",))
TIGRINYA = claim("N1", "bleu", 14.2, aliases=("Öktem et al.",))
RESNET = claim("R1", "map", 81.2, aliases=("ResNet-101",))
BLEU_DE = claim("D1", "bleu", 28.4, aliases=("English-to-German",))


@pytest.mark.parametrize(("text", "claims"), [
    # before: drift (the number read as the PSNR's value)
    ("On the 60-second SANA-WM-Bench, HLA-WM improves all six aggregate revisit-consistency and "
     "camera-control metrics of the base autoregressive generator without additional training, "
     "including a 0.74 dB PSNR gain and a 28.5% reduction in rotation error.", [HLA]),
    ("Compared to Tri-Planes, Fused-Planes is 7.2× faster, 3.2× more storage-efficient, has a "
     "2.32dB PSNR Gain, and is 2.1× faster in rendering.", [FUSED]),
    ("Fused-Planes brings a 2.32 dB PSNR improvement over Tri-Planes.", [FUSED]),
    # as before (a BLEU of 14.2 is no plausible 1.3 or 2.2)
    ("Öktem et al. report a 2.2 BLEU increase over a neural baseline.", [TIGRINYA]),
    ("Öktem et al. built a domain-specific Tigrinya→English NMT system using transfer "
     "learning, reporting a 1.3 BLEU improvement over a neural baseline.", [TIGRINYA]),
    ("The ResNet-101 gains 0.8% mAP improvement.", [RESNET]),
    ("Fused-Planes improves PSNR by 2.32 dB over Tri-Planes.", [FUSED]),
    ("Fused-Planes has a PSNR gain of 2.32 dB over Tri-Planes.", [FUSED]),
])
def test_a_change_of_the_metric_is_no_value(text: str, claims: list[Claim]) -> None:
    report = judge(text + "\n", claims)
    assert findings(report) == []
    assert matches(report) == set()


@pytest.mark.parametrize(("text", "want", "matched"), [
    ("English-to-German: **28.4 BLEU** — over 2 BLEU improvement over the best prior result.",
     [], {(("D1",), 1, "28.4")}),
    ("English-to-German: **28.9 BLEU** — over 2 BLEU improvement over the best prior result.",
     [("drift", ("D1",), 1, "28.9")], set()),
    # a comparative after the metric may state the value: judged, as before
    ("English-to-German reaches 28.9 BLEU higher than all prior single models.",
     [("drift", ("D1",), 1, "28.9")], set()),
])
def test_the_value_beside_a_change_is_still_judged(text: str, want: Found,
                                                   matched: set[tuple[tuple[str, ...], int,
                                                                      str]]) -> None:
    report = judge(text + "\n", [BLEU_DE])
    assert findings(report) == want
    assert matches(report) == matched


# === 4. a baseline's or the previous best's number ===============================================

OTHERS = [
    # (text, claim, the claim's number, a wrong one in its place)
    ("The system has achieved an impressive accuracy of **{v}**, significantly surpassing the "
     "previous state-of-the-art of **94.76%**.",
     claim("S1", "accuracy", 0.9976, aliases=("The system",)), "99.76%", "99.46%"),
    ("Devin correctly resolves {v} of issues autonomously, far exceeding the previous "
     "state-of-the-art of 1.96%.", claim("D1", "resolved", 0.1386, aliases=("Devin",)),
     "13.86%", "13.66%"),
    ("In the end, our model achieves {v} accuracy at evaluation, which greatly improves on the "
     "previous state-of-the-art of 95.80% while using fewer parameters.",
     claim("A1", "accuracy", 0.9924, aliases=("our model",)), "99.24%", "99.44%"),
    ("The best-fusion-reranked run achieves MAP@100={v}, a clear improvement over the previous "
     "best of 0.2668 (+6.0%).", claim("F1", "map@100", 0.2827, aliases=("best-fusion-reranked",)),
     "0.2827", "0.2837"),
    ("VAT achieved the previous state-of-the-art of 91.6% test accuracy; MixMatch achieves {v} "
     "test accuracy.", replace(claim("X1", "accuracy", 0.9521, aliases=("MixMatch",)),
                               split="test"), "95.21%", "95.51%"),
    ("This is a 1.5 pp improvement over the previous best of 94.1%, and the new D_e is {v}.",
     claim("E1", "d_e", 0.9564, aliases=("D_e",)), "95.64%", "95.84%"),
    ("Ours reaches a validation accuracy of {v}, above the previous best validation accuracy "
     "of 90.1%.", ACC_VAL, "91.2%", "91.5%"),
    ("Ours improves over the baseline's 30.10 dB to {v} dB PSNR.", PSNR_TEST, "31.42", "31.62"),
    ("Ours achieves {v} dB PSNR compared with 30.10 dB for the baseline.", PSNR_TEST, "31.42",
     "31.62"),
    ("Ours achieves {v} dB PSNR, outperforming the baseline (30.10 dB).", PSNR_TEST, "31.42",
     "31.62"),
    ("PSNR: {v} dB (Ours) vs. 30.10 dB (baseline).", PSNR_TEST, "31.42", "31.62"),
    ("On FDr6, RAEv2 achieves a state-of-the-art {v} at just 80 epochs compared to the previous "
     "best 3.26 (800 epochs) without any post-training.",
     replace(claim("R2", "fdr6", 2.17, aliases=("RAEv2",)), direction="lower"), "2.17", "2.27"),
    # the second best's
    ("Compared with the second-best method (31.10 dB), Ours achieves {v} dB PSNR.", PSNR_TEST,
     "31.42", "31.62"),
    ("AniMaker outperforms all competitors with a total score of {v}, representing a 14.6% "
     "improvement over the second-best method (i.e. VideoGen-of-Thought with 66.93).",
     claim("K1", "total_score", 76.72, aliases=("AniMaker",)), "76.72", "76.92"),
    ("Under the PACS feature-shift setting, SubFLOT attains an average accuracy of {v}, more "
     "than double that of the second-best method (~20%).",
     claim("L1", "accuracy", 0.4158, aliases=("SubFLOT",)), "41.58%", "41.88%"),
]


@pytest.mark.parametrize(("text", "one", "right", "wrong"), OTHERS)
def test_another_methods_number_is_not_the_claims(text: str, one: Claim, right: str,
                                                  wrong: str) -> None:
    report = judge(text.format(v=right) + "\n", [one])
    assert findings(report) == []
    assert matches(report) == {((one.id,), 1, right)}
    # before: ambiguous between the two numbers (the other's plausible too), or as now
    report = judge(text.format(v=wrong) + "\n", [one])
    assert findings(report) == [("drift", (one.id,), 1, wrong)]


def test_the_baselines_number_past_the_claims_is_not_drift() -> None:
    # before: drift at 30.10 (the claim's 31.42 is more than eight words from its anchors)
    text = "Ours improves PSNR by 1.32 dB over the baseline (30.10 dB) to 31.42 dB.\n"
    report = judge(text, [PSNR_TEST])
    assert findings(report) == []


BASE = claim("B0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="r0")
OURS = claim("C1", "psnr", 31.42, unit="dB", aliases=("Ours",))


@pytest.mark.parametrize(("text", "want", "matched"), [
    # a claim on the baseline, "Baseline" its alias: its number, judged (as before)
    ("Ours improves over the Baseline's 30.10 dB to 31.42 dB PSNR.", [],
     {(("B0",), 1, "30.10"), (("C1",), 1, "31.42")}),
    ("Ours improves over the Baseline's 30.20 dB to 31.42 dB PSNR.",
     [("drift", ("B0",), 1, "30.20")], {(("C1",), 1, "31.42")}),
    ("Ours reaches 31.42 dB PSNR, outperforming the Baseline (30.20 dB).",
     [("drift", ("B0",), 1, "30.20")], {(("C1",), 1, "31.42")}),
])
def test_a_claim_on_the_baseline_keeps_its_number(text: str, want: Found,
                                                  matched: set[tuple[tuple[str, ...], int,
                                                                     str]]) -> None:
    report = judge(text + "\n", [OURS, BASE])
    assert findings(report) == want
    assert matches(report) == matched


def test_numbers_compared_next_are_left_to_the_names() -> None:
    """"over the baseline (0.6327 vs 0.5290)": the first is the sentence's own (as before);
    the second, after "vs", the baseline's (round 62: a wrong first number was ambiguous
    between the two, now its drift)."""
    mpnet = claim("M1", "map", 0.6327, aliases=("MPNet reranker",))
    text = "**MPNet reranker** improved MAP by 19.6% over the baseline ({} vs 0.5290).\n"
    report = judge(text.format("0.6327"), [mpnet])
    assert findings(report) == []
    assert matches(report) == {(("M1",), 1, "0.6327")}
    report = judge(text.format("0.6427"), [mpnet])
    assert findings(report) == [("drift", ("M1",), 1, "0.6427")]


# === 5. a setting heading the sentence ===========================================================

@pytest.mark.parametrize(("text", "want", "matched"), [
    # before: drift against the val claim (the 97.1% past the reach of "test")
    ("On the test set, top-1 accuracy is 89.7%, and top-5 accuracy is 97.1%.", [],
     {(("T5",), 1, "89.7%")}),
    ("On the test set, Ours has 89.7% top-1 accuracy, and top-5 accuracy is 97.1%.", [],
     {(("T5",), 1, "89.7%")}),
    ("For the test split of ImageNet, top-1 accuracy is 89.7%, and top-5 accuracy is 97.1%.",
     [], {(("T5",), 1, "89.7%")}),
    # a split word near the number is its split, as before
    ("On the test set, top-1 accuracy is 89.7%, and the validation top-5 accuracy is 97.1%.",
     [("drift", ("V5",), 1, "97.1%")], {(("T5",), 1, "89.7%")}),
    # no setting heading the sentence: as before, a number of no split
    ("Top-1 accuracy on the test set is 89.7%, and the top-5 accuracy of Ours is 97.1%.",
     [("drift", ("V5",), 1, "97.1%")], {(("T5",), 1, "89.7%")}),
])
def test_a_setting_heading_the_sentence_is_its_numbers_split(
        text: str, want: Found, matched: set[tuple[tuple[str, ...], int, str]]) -> None:
    report = judge(text + "\n", [TOP1_TEST, TOP5_VAL])
    assert findings(report) == want
    assert matches(report) == matched


BEV_VAL = replace(claim("BV", "nds", 0.517, aliases=("Our method", "our model")), split="val")
BEV_TEST = replace(claim("BT", "nds", 0.569, aliases=("Our method", "our model")), split="test")
BEV = ("Our method outperforms previous best method DETR3D [47] over 9.2 points on val set "
       "({v} NDS vs. 42.5% NDS), under fair training strategy and comparable model scales. On "
       "the test set, our model achieves {t} NDS without bells and whistles, 9.0 points higher "
       "than DETR3D (47.9% NDS).")


@pytest.mark.parametrize(("v", "t", "claims", "want", "matched"), [
    # before: drift of the val claim at DETR3D's 47.9% (test)
    ("51.7%", "56.9%", [BEV_VAL, BEV_TEST], [], {(("BV",), 1, "51.7%"), (("BT",), 1, "56.9%")}),
    ("51.7%", "56.9%", [BEV_VAL], [], {(("BV",), 1, "51.7%")}),
    # the test claim's drift: ambiguous with DETR3D's number, as before
    ("51.7%", "56.4%", [BEV_VAL, BEV_TEST], [("ambiguous", ("BT",), 1, "56.4%")],
     {(("BV",), 1, "51.7%")}),
])
def test_bevformers_test_set_sentence(v: str, t: str, claims: list[Claim], want: Found,
                                      matched: set[tuple[tuple[str, ...], int, str]]) -> None:
    report = judge(BEV.format(v=v, t=t) + "\n", claims)
    assert findings(report) == want
    assert matches(report) == matched


# === 6. two percents joined by a slash ===========================================================

TOP1 = claim("K1", "top1", 0.756, aliases=("top-1",))
TOP5 = claim("K5", "top5", 0.927, aliases=("top-5",))
CAFFE = "The resulting model achieves around {}/{} top-1/top-5 accuracy."


@pytest.mark.parametrize(("one", "five", "claims", "want", "matched"), [
    # before: drift of the top-5 claim at 75.6% (the 92.7% unread)
    ("75.6%", "92.7%", [TOP5], [], {(("K5",), 1, "92.7%")}),
    # before: the top-5 claim unmatched, no finding
    ("75.6%", "92.7%", [TOP1, TOP5], [], {(("K1",), 1, "75.6%"), (("K5",), 1, "92.7%")}),
    # before: nothing (the wrong top-5 unread)
    ("75.6%", "92.9%", [TOP1, TOP5], [("drift", ("K5",), 1, "92.9%")], {(("K1",), 1, "75.6%")}),
    # before: ambiguous between the two claims
    ("75.9%", "92.7%", [TOP1, TOP5], [("drift", ("K1",), 1, "75.9%")], {(("K5",), 1, "92.7%")}),
])
def test_two_percents_joined_by_a_slash_are_each_read(
        one: str, five: str, claims: list[Claim], want: Found,
        matched: set[tuple[tuple[str, ...], int, str]]) -> None:
    report = judge(CAFFE.format(one, five) + "\n", claims)
    assert findings(report) == want
    assert matches(report) == matched


def test_the_eeg_papers_pairs() -> None:
    e1 = claim("E1", "top1", 0.5323, aliases=("THINGS-EEG2",))
    e5 = claim("E5", "top5", 0.8355, aliases=("THINGS-EEG2",))
    text = ("In 200-way retrieval, it achieves 53.23%/{} Top-1/Top-5 accuracy on THINGS-EEG2 and "
            "12.01%/32.16% on Alljoined-1.6M.\n")
    report = judge(text.format("83.55%"), [e1, e5])
    assert findings(report) == []
    assert matches(report) == {(("E1",), 1, "53.23%"), (("E5",), 1, "83.55%")}
    # before: nothing
    assert findings(judge(text.format("83.85%"), [e1, e5])) == [("drift", ("E5",), 1, "83.85%")]


@pytest.mark.parametrize(("text", "values"), [
    ("achieves around 75.6%/92.7% top-1/top-5", ["75.6", "92.7"]),
    ("The 91%/98% Top-1/Top-5 accuracy is still strong", ["91", "98"]),
    ("rates of 12.5\\%/30.1\\% in LaTeX", ["12.5", "30.1"]),
    # as before: fractions, dates and ratios are no pairs
    ("3/4 of the images", []),
    ("on 12/05/2024", []),
    ("50%/3 of them", ["50"]),
])
def test_which_percents_of_a_slash_are_read(text: str, values: list[str]) -> None:
    from labledger.reconcile.numbers import scan_numbers
    assert [n.text for n in scan_numbers(text)] == values


# === 7. a name's change from one number to another ===============================================

RESNET101 = claim("R1", "map", 0.812, aliases=("ResNet-101",))
SWIN = claim("W1", "map", 0.804, aliases=("Swin Transformer",))
SWIN_TEXT = ("The ResNet-101 gains 0.8% mAP improvement, and similarly, the mAP result of Swin "
             "Transformer increases from {} to {}.")


@pytest.mark.parametrize(("before", "after", "want", "matched"), [
    # before: drift of the ResNet-101 claim at the Swin Transformer's 79.1%
    ("79.1%", "80.4%", [], {(("W1",), 1, "80.4%")}),
    # before: ambiguous for both claims; the Swin Transformer's alone now
    ("79.1%", "80.9%", [("ambiguous", ("W1",), 1, "79.1%")], set()),
])
def test_a_names_change_is_its_numbers(before: str, after: str, want: Found,
                                       matched: set[tuple[tuple[str, ...], int, str]]) -> None:
    report = judge(SWIN_TEXT.format(before, after) + "\n", [RESNET101, SWIN])
    assert findings(report) == want
    assert matches(report) == matched


@pytest.mark.parametrize(("text", "want", "matched"), [
    # no change's verb after the name: as before
    ("Ours improves PSNR over the Baseline from 30.10 to 31.42 dB.", [],
     {(("B0",), 1, "30.10"), (("C1",), 1, "31.42")}),
    ("Ours improves PSNR over the Baseline from 30.10 to 31.62 dB.",
     [("drift", ("C1",), 1, "31.62")], {(("B0",), 1, "30.10")}),
    ("The Baseline reaches 30.10 dB, and Ours improves from 30.20 dB to 31.42 dB.", [],
     {(("B0",), 1, "30.10"), (("C1",), 1, "31.42")}),
])
def test_a_change_not_said_of_a_name_binds_nothing(
        text: str, want: Found, matched: set[tuple[tuple[str, ...], int, str]]) -> None:
    report = judge(text + "\n", [OURS, BASE])
    assert findings(report) == want
    assert matches(report) == matched


# === 8. the name after a list of percents ========================================================

LOSS_TRAIN = replace(claim("R1", "loss", 0.12, aliases=("Ours",)), split="train",
                     direction="lower")
RESPECTIVE = ("Ours reaches {} and {} accuracy on the validation and test sets, respectively, "
              "while the training loss is 0.12.")


@pytest.mark.parametrize(("val", "test", "want", "matched"), [
    # before: the val claim unmatched
    ("91.2%", "89.7%", [], {(("V1",), 1, "91.2%"), (("T1",), 1, "89.7%"), (("R1",), 1, "0.12")}),
    # before: nothing
    ("91.5%", "89.7%", [("drift", ("V1",), 1, "91.5%")],
     {(("T1",), 1, "89.7%"), (("R1",), 1, "0.12")}),
    # before: ambiguous between the two claims
    ("91.2%", "89.9%", [("drift", ("T1",), 1, "89.9%")],
     {(("V1",), 1, "91.2%"), (("R1",), 1, "0.12")}),
])
def test_the_name_after_a_list_of_percents_is_every_ones(
        val: str, test: str, want: Found, matched: set[tuple[tuple[str, ...], int, str]]) -> None:
    report = judge(RESPECTIVE.format(val, test) + "\n", [ACC_VAL, ACC_TEST, LOSS_TRAIN])
    assert findings(report) == want
    assert matches(report) == matched


@pytest.mark.parametrize(("unsup", "sup", "want"), [
    ("76.3%", "81.6%", []),
    ("76.8%", "81.6%", [("drift", ("U1",), 1, "76.8%")]),
    ("76.3%", "81.9%", [("drift", ("S1",), 1, "81.9%")]),
])
def test_simcses_abstract(unsup: str, sup: str, want: Found) -> None:
    """As before: SimCSE (Gao et al. 2021), its abstract."""
    claims = [claim("U1", "spearman", 0.763, aliases=("unsupervised",)),
              claim("S1", "spearman", 0.816, aliases=("supervised",))]
    text = ("We evaluate SimCSE on standard semantic textual similarity (STS) tasks, and our "
            f"unsupervised and supervised models using BERTbase achieve an average of {unsup} and "
            f"{sup} Spearman's correlation respectively, a 4.2% and 2.2% improvement compared to "
            "the previous best results.\n")
    assert findings(judge(text, claims)) == want


# === 9. a hyperparameter's value ==================================================================

VIDEOMAE = claim("TO", "accuracy", 0.754, aliases=("Time-only sampling",))
MAE = claim("MA", "top1", 0.836, aliases=("MAE", "top-1 accuracy"))


@pytest.mark.parametrize(("text", "one", "right", "wrong"), [
    # before: matched the ratio's 75% (the wrong 75.9% unreported)
    ("Time-only sampling, with a masking ratio of 75% (i.e., keep 2 time steps out of 8), "
     "performs poorly (79.1%); if we increase its masking ratio to 87.5% (keep 1 out of 8), the "
     "accuracy drops further to {v}.", VIDEOMAE, "75.4%", "75.9%"),
    # before: ambiguous between the ratio and the accuracy
    ("With a masking ratio of 75%, MAE reaches {v} top-1 accuracy.", MAE, "83.6%", "83.9%"),
    ("MAE reaches {v} top-1 accuracy with a 75% masking ratio.", MAE, "83.6%", "83.9%"),
    ("MAE reaches {v} top-1 accuracy, fine-tuned with a learning rate of 0.8 and a weight decay "
     "of 0.05.", MAE, "83.6%", "83.9%"),
])
def test_a_hyperparameters_value_is_no_claims(text: str, one: Claim, right: str,
                                              wrong: str) -> None:
    report = judge(text.format(v=right) + "\n", [one])
    assert findings(report) == []
    assert matches(report) == {((one.id,), 1, right)}
    assert findings(judge(text.format(v=wrong) + "\n", [one])) == [("drift", (one.id,), 1, wrong)]


@pytest.mark.parametrize("text", [
    # before: drift at 75% / a match of 0.8 (a learning rate) for the accuracy
    "MAE is pre-trained with a masking ratio of 75% and keeps high top-1 accuracy.",
    "MAE is pre-trained with a learning rate of 0.8 and keeps high top-1 accuracy.",
    "MAE keeps high top-1 accuracy with 0.8 dropout.",
])
def test_a_sentence_of_settings_judges_nothing(text: str) -> None:
    report = judge(text + "\n", [MAE])
    assert findings(report) == []
    assert matches(report) == set()


def test_a_claim_on_the_hyperparameter_keeps_its_number() -> None:
    """As before: the noun an anchor, the number is that claim's value."""
    ratio = claim("MR", "masking_ratio", 0.75, aliases=("masking ratio",))
    report = judge("MAE is pre-trained with a masking ratio of 75%.\n", [ratio])
    assert findings(report) == []
    assert matches(report) == {(("MR",), 1, "75%")}


# === 10. "N% fewer" ===============================================================================

@pytest.mark.parametrize("text", [
    # before: drift at 57% / 40%
    "The 1.5× DS-CNN (13.4M params) achieves SSIM=0.9714, recovering most of the accuracy gap "
    "to the baseline while still using 57% fewer parameters.",
    "**Parameter Efficiency**: DS-CNN achieves comparable accuracy with 40% fewer parameters "
    "than traditional fully connected layers.",
])
def test_n_percent_fewer_is_a_delta(text: str) -> None:
    ssim = claim("S1", "ssim", 0.9714, aliases=("DS-CNN",))
    accuracy = claim("A2", "accuracy", 0.62, aliases=("DS-CNN",))
    report = judge(text + "\n", [ssim, accuracy])
    assert findings(report) == []


# === 11. a hedge between "by" and the number =====================================================

def test_vdsrs_summary() -> None:
    vdsr = claim("VD", "psnr", 37.53, unit="dB", aliases=("VDSR",))
    text = ("VDSR reaches ~{} dB PSNR on Set5 (x2), surpassing SRCNN by roughly 0.87 dB; "
            "consistent PSNR/SSIM gains over Bicubic, A+, RFL, SelfEx, and SRCNN across Set5, "
            "Set14, B100, and Urban100 at scales x2/x3/x4.\n")
    report = judge(text.format("37.53"), [vdsr])
    assert findings(report) == []
    assert matches(report) == {(("VD",), 1, "37.53")}
    # before: ambiguous between the PSNR and the 0.87 dB
    assert findings(judge(text.format("37.63"), [vdsr])) == [("drift", ("VD",), 1, "37.63")]


@pytest.mark.parametrize("text", [
    # before: drift at the change
    "Ours lowers the error rate by roughly 2.1% over the baseline.",
    "Ours lowers the error rate by only 2.1% on CIFAR-10.",
    "Ours cuts the error rate by about 2.1 points.",
])
def test_a_hedged_change_is_a_delta(text: str) -> None:
    error = replace(claim("ER", "error_rate", 0.023, aliases=("Ours",)), direction="lower")
    report = judge(text + "\n", [error])
    assert findings(report) == []
    assert matches(report) == set()


@pytest.mark.parametrize(("text", "want"), [
    # a hedged value is still a value (as before)
    ("Ours reaches about 91.2% accuracy.", []),
    ("Ours reaches roughly 91.6% accuracy.", [("drift", ("A9",), 1, "91.6%")]),
    ("Ours reaches an accuracy of only 91.6%.", [("drift", ("A9",), 1, "91.6%")]),
])
def test_a_hedged_value_is_still_judged(text: str, want: Found) -> None:
    accuracy = claim("A9", "accuracy", 0.912, aliases=("Ours",))
    assert findings(judge(text + "\n", [accuracy])) == want


# === 12. counts, targets and "N+" in a sentence ==================================================

@pytest.mark.parametrize(("text", "one"), [
    # before: drift at 90 / at 95, ambiguous at 94
    ("We can see that even at 0.995 proportion of the dominant class in the training data, the "
     "model still reaches 90+% accuracy on the balanced test data.",
     claim("AC", "accuracy", 0.921, aliases=("the model",))),
    ("Ours ranks 1st in accuracy among 95 submissions.",
     claim("A1", "accuracy", 0.912, aliases=("Ours",))),
    ("Ours reaches state-of-the-art accuracy on 94 of 100 tasks.",
     claim("A1", "accuracy", 0.912, aliases=("Ours",))),
])
def test_counts_and_bounds_are_no_values(text: str, one: Claim) -> None:
    report = judge(text + "\n", [one])
    assert findings(report) == []
    assert matches(report) == set()


@pytest.mark.parametrize(("text", "one", "right", "wrong"), [
    # before: the wrong one ambiguous with the target
    ("Validated the match rate at {v} (above the 90% target)",
     claim("MR", "match_rate", 0.942, aliases=("match rate",)), "94.2%", "94.6%"),
    ("After quality evaluation passes and benchmark tests succeed ({v} detection rate on known "
     "scenarios — above the 90% target), the agent type status is updated.",
     claim("DR", "detection_rate", 0.95, aliases=("detection rate",)), "95%", "96%"),
    # a score out of a total is the score (as before)
    ("GPT-4 scores {v} out of 10 on MT-Bench.", claim("MT", "mt_bench", 8.99, aliases=("GPT-4",)),
     "8.99", None),
])
def test_a_value_beside_a_target_is_judged(text: str, one: Claim, right: str,
                                           wrong: str | None) -> None:
    report = judge(text.format(v=right) + "\n", [one])
    assert findings(report) == []
    assert matches(report) == {((one.id,), 1, right)}
    if wrong is not None:
        assert findings(judge(text.format(v=wrong) + "\n", [one])) == [
            ("drift", (one.id,), 1, wrong)]


# === 13. points, then a change's word =============================================================

@pytest.mark.parametrize("text", [
    # before: drift at 1.9
    "Ours is 1.9 points lower in error than the baseline.",
    "Ours has an error 1.9 percentage points lower than the baseline's.",
    # as before
    "Ours has error 1.9 pct points lower than the baseline.",
])
def test_points_then_a_change_are_a_delta(text: str) -> None:
    error = replace(claim("ER", "error", 0.023, aliases=("Ours",)), direction="lower")
    report = judge(text + "\n", [error])
    assert findings(report) == []
    assert matches(report) == set()


@pytest.mark.parametrize(("text", "one", "right", "wrong"), [
    # as before
    ("On the AndroidWorld benchmark, pairing SPlanner with Qwen2.5-VL-72B achieves {v} "
     "success—28.8 points higher than the baseline.",
     claim("SP", "success", 0.638, aliases=("SPlanner",)), "63.8%", "63.4%"),
    ("Accuracy: The GNN model achieves an accuracy of {v}, which is 11.90 percentage points "
     "higher than the Baseline model's 75.43%.",
     claim("GN", "accuracy", 0.8733, aliases=("GNN model",)), "87.33%", "87.53%"),
    ("CGVD reaches **{v}** with **4 distractors**, **16.0** percentage points higher than the "
     "baseline.", claim("CG", "success", 0.73, aliases=("CGVD",)), "73.0%", "72.0%"),
])
def test_the_value_beside_points_higher_is_judged(text: str, one: Claim, right: str,
                                                  wrong: str) -> None:
    report = judge(text.format(v=right) + "\n", [one])
    assert findings(report) == []
    assert matches(report) == {((one.id,), 1, right)}
    assert findings(judge(text.format(v=wrong) + "\n", [one])) == [("drift", (one.id,), 1, wrong)]
