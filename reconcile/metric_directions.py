"""Which way is better for a metric name: a small, conservative registry.

A claim needs a direction (DOMAIN "VERIFY": stated for every comparison, never assumed). The
registry knows common metrics (PSNR, SSIM, mAP, accuracy, F1, BLEU: higher is better; LPIPS,
NMSE, loss, error, WER, FID: lower) and the usual spellings around them:

* case is ignored: ``PSNR`` = ``psnr``;
* split and selection prefixes/suffixes are dropped: ``val_loss``, ``test_psnr``, ``best_acc``,
  ``psnr_test``;
* unit suffixes are dropped: ``psnr_db``, ``acc_pct``, ``accuracy(%)``;
* top-k accuracy: ``top1``, ``top5_acc``, ``top1_err`` (an error is lower-is-better);
* a trailing cut-off: ``map50``, ``mAP@0.5``, ``mAP@0.5:0.95``, ``bleu4``, ``recall@10``;
* the keys training frameworks log, for the direction only: a namespace before the name
  (detectron2's ``bbox/AP``, mmdetection's ``coco/bbox_mAP_50``, Ultralytics'
  ``metrics/mAP50-95(B)``), a channel, normalization or object size after it (``psnr_y``,
  lm-evaluation-harness's ``acc_norm``, ``bbox_mAP_l``). These stay in `metric_key`: PSNR on Y
  and PSNR on RGB are two quantities, though both are better higher.

Anything else is unknown, and the caller must be told the direction: a wrong guess would turn
"better" into "worse" in a paper, a missing guess costs one flag.
"""

from __future__ import annotations

import functools
import re
from typing import Literal

Direction = Literal["higher", "lower"]

HIGHER: frozenset[str] = frozenset({
    "psnr", "ssim", "msssim", "map", "ap", "ar", "accuracy", "acc", "f1", "bleu", "chrf", "auc",
    "rocauc", "auroc", "auprc", "precision", "recall", "iou", "miou", "dice", "rouge", "rougel",
    "rougelsum", "meteor", "cider", "spice", "ndcg", "mrr", "r2", "top1", "top5", "exactmatch",
    "em", "pass", "inceptionscore", "clipscore", "musiq", "maniqa", "hota", "mota", "idf1",
    "delta1", "delta2", "delta3", "aps", "apm", "apl",
    # (a classifier's rates beside its accuracy and recall, as medical and detection results
    # write them: "88.3 % accuracy / 91.8 % specificity / 84.7 % recall (K=6)")
    "specificity", "sensitivity",
})
LOWER: frozenset[str] = frozenset({
    "lpips", "dists", "nmse", "mse", "rmse", "rmselog", "mae", "absrel", "sqrel", "loss",
    "error", "err", "errorrate", "wer", "cer", "fid", "kid", "nll", "perplexity", "ppl", "eer",
    "bpd", "bpb", "bpc", "bitsperbyte", "epe", "chamfer", "niqe", "brisque", "ate", "rpe",
})

# Tokens that qualify a name without changing its direction.
_PREFIXES = ("train", "training", "val", "valid", "validation", "dev", "test", "eval",
             "evaluation", "best", "final", "mean", "avg", "average", "overall", "macro",
             "micro", "weighted", "top1", "top5")
_SUFFIXES = ("train", "val", "valid", "validation", "dev", "test", "eval", "db", "pct",
             "percent", "mean", "avg", "macro", "micro", "weighted")
_CUTOFF = re.compile(r"^(?P<name>[a-z]+?)(@?\d[\d.:]*|@k)?$")
# Direction only (see the module docstring): a framework's namespace before a metric, a
# channel, normalization or object size after it, and the unit a perplexity is counted in.
_NAMESPACES = ("bbox", "segm", "coco", "metrics", "keypoints", "word", "byte", "token")
_DIRECTION_SUFFIXES = (*_SUFFIXES, "y", "rgb", "norm", "s", "m", "l", "small", "medium",
                       "large", "b")


def _tokens(name: str) -> list[str]:
    text = name.lower().replace("%", "_pct").replace("-", "_")
    text = re.sub(r"\(([^)]*)\)", r"_\1", text)  # accuracy(%) -> accuracy__pct
    return [t for t in re.split(r"[_\s/]+", text) if t]


def _lookup(token: str) -> Direction | None:
    if token in HIGHER:
        return "higher"
    if token in LOWER:
        return "lower"
    match = _CUTOFF.match(token)
    if match and match.group(2):
        return _lookup(match.group("name"))
    return None


@functools.lru_cache(maxsize=4096)  # pure; reconcile asks it of every alias and metric pair
def direction_of(metric: str) -> Direction | None:
    """The registry's direction for ``metric`` (``"higher"``/``"lower"``), or None when unknown.

    Examples: ``direction_of("val_loss") == "lower"``, ``direction_of("PSNR_dB") == "higher"``,
    ``direction_of("top1_err") == "lower"``, ``direction_of("throughput") is None``.
    """
    tokens = _tokens(metric)
    while len(tokens) > 1 and tokens[-1] in _DIRECTION_SUFFIXES:
        tokens.pop()
    while len(tokens) > 1 and (tokens[0] in _PREFIXES or tokens[0] in _NAMESPACES):
        qualifier = tokens.pop(0)
        if qualifier in ("top1", "top5") and tokens in (["err"], ["error"]):
            return "lower"
    if len(tokens) > 1 and _lookup("".join(tokens)) is not None:
        tokens = ["".join(tokens)]  # ms_ssim, roc_auc, clip_score, map_50 (mmdetection)
    if len(tokens) == 2 and tokens[1] in ("rate", "score"):
        tokens = tokens[:1]  # error_rate, f1_score
    if len(tokens) != 1:
        return None  # two names (psnr_ssim, loss_acc): unsure, so unknown
    return _lookup(tokens[0])


# top-1 and top-5 accuracy are different quantities: those prefixes stay in a metric's key.
_KEY_PREFIXES = tuple(q for q in _PREFIXES if q not in ("top1", "top5"))
# The words a metric key's split or selection is (`val`, `test`, `best`): a namespaced key's
# level of these alone (`val/`) names no part of it (`anchors`).
KEY_QUALIFIERS = frozenset(_KEY_PREFIXES)


@functools.lru_cache(maxsize=4096)  # pure; a project's thousand claims share a few metrics
def metric_key(metric: str) -> str:
    """The quantity ``metric`` names, without the split, selection, statistic and unit words
    around it, lower case and space-separated: ``test_psnr``, ``psnr_mean``, ``val/PSNR_dB``
    and ``PSNR`` are all ``psnr``; ``top1_acc`` stays ``top1 acc``. Two claims with one key are
    claims on one quantity (reconcile's anchors treat them so)."""
    tokens = _tokens(metric)
    while len(tokens) > 1 and tokens[-1] in _SUFFIXES:
        tokens.pop()
    while len(tokens) > 1 and tokens[0] in _KEY_PREFIXES:
        tokens.pop(0)
    return " ".join(" ".join(tokens).translate(_FOLD).split())


_FOLD = str.maketrans({c: " " for c in __import__("string").punctuation})


# The statistics pandas' describe() labels its rows (or, transposed, its columns) with; every
# percentile ("25%") is one too. Claims read summary tables by them (`claim_values`), and
# reconcile tells a summary's spread rows from its value rows by them (`number_roles`).
SUMMARY_STATS = frozenset({"count", "mean", "std", "sem", "var", "min", "max", "median", "sum",
                           "unique", "top", "freq"})
PERCENTILE = re.compile(r"^\d+(?:\.\d+)?%$")


def summary_stat(label: str) -> str | None:
    """The statistic a row or column label names (lower case: ``Mean`` is ``mean``), else None."""
    key = label.strip().lower()
    return key if key in SUMMARY_STATS or PERCENTILE.match(key) else None

