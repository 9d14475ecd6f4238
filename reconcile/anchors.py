"""Anchors: the words that name a claim in prose (its aliases and its metric), found in one pass.

An anchor term is a claim's metric name or one of its aliases, compared case-insensitively with
punctuation and white space folded to single spaces (``PSNR-Y`` = ``psnr y``, ``mAP@50`` =
``map 50``), and matched only as whole words. A metric key that glues two or more letters to a
number (``top1``, ``map50``) is also found written apart (``Top-1``, ``mAP 50``). Terms without
a letter, of one character, or starting with a backslash (a LaTeX macro name, bound instead by
`documents`) are not anchors. An alias of digits alone (``1``: a binary classifier's positive
class, as sklearn's classification report labels it) is no anchor either, never found in text
(every number would be one), but it names its claims in ``claims_of``: a classification
report's row labelled so names them (`documents._Run.table`).

A namespaced metric key (``agieval_aqua_rat/acc_norm``, ``gsm8k/exact_match,strict-match``,
``bbox/AP``) is also found written apart, as a harness's table writes it: its parts
(`_compound_parts`: each level, the metric, its filter) are terms of the pattern that name no
claim alone (not in ``claims_of``); a unit holding all of a claim's parts names it by them and
its key (`AnchorIndex.compounds`, read by `documents._Run._named`).

COCO's AP of one IoU type, as mmdetection and detectron2 key it (``bbox_mAP``, ``segm_mAP``,
``coco/bbox_mAP``, ``bbox/AP``, ``segm/AP``), is also found as their README tables head it:
``box AP``, ``mask AP`` (`_IOU_TYPE_AP`; the overall AP only, not ``bbox_mAP_50``).

A term that ends in a digit is not whole where the text carries its number on into a longer
name (`_carried_on`): ``mAP@0.5`` in ``mAP@0.5:0.95``, ``AP50`` in ``AP50:95`` and
``mAP50-95``, ``GPT-3`` in ``GPT-3.5``. The number goes on after ``.`` and a digit (a decimal or
a version), after ``-`` or ``–`` and a digit (a range, a size: ``Llama-2-7b``), and after ``:``
and a number of the same shape and larger (a threshold range: ``0.5:0.95``, ``.5:.95``,
``50:95``; ``top1:0.91`` and ``F1:0.88`` are a key and its value). There the longest shorter
term ending before the number is the anchor, as elsewhere (``mAP`` in ``mAP@0.5:0.95``), or
none when the number is glued to the name (``AP`` in ``AP50:95``).

A quantity's name in the plural names what the singular names (`_plural`): "PSNRs of 32.14 dB
and 28.51 dB", "SSIMs of 0.902 and 0.781", "top-1 accuracies of 76.2% and 78.9%", "F1 scores of
0.91". The plural is English (``+s``; ``+es`` after ``ss``, ``x``, ``z``, ``ch``, ``sh``;
``y`` to ``ies`` after a consonant) of the term's last word, found as a whole word like the
singular, and the hit carries the singular term (`Hit.term`), so everything downstream reads it
as the singular. Invariants:

* Only a quantity's name takes a plural: the claim's metric (and its key and spaced forms), and
  an alias whose last word is a metric's name or a quantity's noun ("top-1 accuracy", "F1
  score", "error rate"; `_QUANTITY_NOUNS`). A method's or a dataset's name does not: "the
  baselines" are other methods, never the claim on "Baseline".
* No plural of a word that ends in a single ``s`` ("Ours", "FLOPs", "params": already plural or
  no noun), of a word that is no letters alone ("mAP@50", "top1"), nor one that is itself a
  term, a metric's name (COCO's ``APs`` is AP on small objects), or two terms' plural.
* A one-word name's plural that is short (three letters or fewer: "mAPs", "FIDs", "IoUs",
  "ACCs") or a common word of another sense ("times", "means"; `_COMMON_PLURALS`) names the
  claim only written as an acronym: a capital after its first letter and a lower-case ``s``.
  "feature maps", "3 times faster" and "fids" (file ids) name nothing; "inference times" does.

Performance (the 10 MB benchmark): the text is lowered and its punctuation folded to spaces
with ``str.translate`` (C speed, one for one so offsets are kept), then ONE compiled regex finds
every anchor: a trie of all terms behind a literal space, so the regex engine only tries word
starts and walks shared prefixes once instead of trying 1,000 alternatives at every position.
The longer-name rule costs a comparison per hit (its term's last character), never per position.
"""

from __future__ import annotations

import re
import string
from collections.abc import Collection, Iterable, Iterator
from typing import AnyStr

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.metric_directions import HIGHER, KEY_QUALIFIERS, LOWER, metric_key

__all__ = ["AnchorIndex", "Hit", "metric_terms", "normalize"]

# Symbols papers glue to a metric's name fold like punctuation: "PSNR↑", "FID↓", "SSIM†",
# "PSNR–Y", “PSNR” (each is one character, so offsets are kept). Arrows of every font READMEs
# take them from say which way is better as ↑ does: "PSNR⬆" (an emoji's, "⬆️" with its
# variation selector), "PSNR⇧", "PSNR↗", "LPIPS⭣", "PSNR 🡑" (`_ARROWS`).
_ARROWS = ("\u2191\u2193\u2190\u2192\u2195\u21d1\u21d3\u21e7\u21e9\u2197\u2198\u2b06\u2b07"
           "\u2b08\u2b0a\u2b61\u2b63\u23f6\u23f7\u25b4\u25be\U0001f815\U0001f817\U0001f851"
           "\U0001f853\U0001f845\U0001f847\U0001f53c\U0001f53d\ufe0f")
_SYMBOLS = (_ARROWS + "\u25b2\u25bc\u25b3\u25bd\u2020\u2021"
            "\u00a7\u00b6\u00b7\u2022\u2013\u2014\u2018\u2019\u201c\u201d\u2026\u00b1\u2009\u202f")
_FOLD = str.maketrans({c: " " for c in string.punctuation + "\t\n\r\x0b\x0c\u00a0" + _SYMBOLS}
                      | {"\u00d7": "x"})  # "256×256" is the "256x256" an alias types
# The same folding and lower-casing for ASCII text as bytes, in one C-speed table lookup.
_FOLD_ASCII = bytes(
    ord(" ") if chr(b) in string.punctuation + "\t\n\r\x0b\x0c" else ord(chr(b).lower())
    for b in range(256))


_SPLIT_DIGITS = re.compile(r"(?<=[a-z]{2})(?=\d)")


def normalize(term: str) -> str:
    """The form terms are compared in: lower case, punctuation and runs of space as one space."""
    return " ".join(term.lower().translate(_FOLD).split())


def _is_anchor(term: str, raw: str) -> bool:
    return len(term) >= 2 and not raw.startswith("\\") and any(c.isalpha() for c in term)


def _trie_pattern(terms: Iterable[str]) -> str:
    built: dict[frozenset[str], str] = {}

    def build(suffixes: frozenset[str]) -> str:
        # The trie node whose terms end in ``suffixes``. A method's hundred names are followed
        # by the same metric names: each distinct set of suffixes is built once (a frozenset
        # keeps its hash).
        got = built.get(suffixes)
        if got is not None:
            return got
        children: dict[str, set[str]] = {}
        for suffix in suffixes:
            if suffix:
                children.setdefault(suffix[0], set()).add(suffix[1:])
        # Children whose subtrees are the same pattern are merged into a character class
        # ("model-000 psnr" ... "model-099 psnr" becomes model +0[0-9][0-9]...): the pattern
        # stays small (fast to compile) and each position tries one class, not ten branches.
        by_tail: dict[str, list[str]] = {}
        for ch in sorted(children):
            by_tail.setdefault(build(frozenset(children[ch])), []).append(ch)
        alts = []
        for tail, chars in by_tail.items():
            if chars == [" "]:
                head = " +"
            elif len(chars) == 1:
                head = re.escape(chars[0])
            elif " " in chars:
                head = "(?:" + "|".join(" +" if c == " " else re.escape(c) for c in chars) + ")"
            else:
                head = "[" + "".join(_class_char(c) for c in chars) + "]"
            alts.append(head + tail)
        if "" in suffixes:
            alts.append(r"(?= |\Z)")  # whole words only; longer terms are tried first
        got = built[suffixes] = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return got

    return build(frozenset(terms))


# lm-evaluation-harness's default filter (its table writes "none" in the Filter column), and the
# namespaces frameworks put before a metric that no document writes beside it (mmengine's
# `coco/bbox_mAP`, Ultralytics' `metrics/mAP50-95(B)`); detectron2's `bbox/` and `segm/` say
# which quantity, and its log's "Evaluation results for bbox:" writes them
_NO_FILTER = "none"
_FRAMEWORK_NAMESPACES = frozenset({"coco", "metrics"})


def _compound_parts(metric: str) -> list[str]:
    """The parts a namespaced metric key is written in, apart, as anchor terms: each ``/``
    level (a task, an IoU type) and the metric with its lm-evaluation-harness filter
    (``exact_match,strict-match``: "exact match" and "strict match"), less a split or selection
    level (``val/``: the key's quantity anchors it already) and a framework's namespace no
    document writes (mmengine's ``coco/``, Ultralytics' ``metrics/``). ``[]`` for a plain key.
    A key left with one part (``coco/bbox_mAP``) is anchored by its whole only: its metric
    alone begins other keys of the same log (``bbox_mAP_copypaste: 0.804 0.967 ...``)."""
    if "/" not in metric:
        return []
    *levels, leaf = metric.split("/")
    name, _, filters = leaf.partition(",")
    out = []
    for raw in (*levels, name, *filters.split(",")):
        term = normalize(raw)
        if not _is_anchor(term, raw.strip()) or term == _NO_FILTER \
                or term in _FRAMEWORK_NAMESPACES or all(w in KEY_QUALIFIERS for w in term.split()):
            continue
        if term not in out:
            out.append(term)
    return out


def metric_terms(metric: str) -> frozenset[str]:
    """The anchor terms a claim's metric gives it (its aliases give others), as `AnchorIndex`
    finds them: the key (``acc_norm``), written apart where it glues letters to a number
    (``map 50``), its quantity alone (``psnr`` of ``test_psnr``), a namespaced key's metric
    (``acc norm`` of ``arc_challenge/acc_norm``, ``exact match`` of
    ``gsm8k/exact_match,strict-match``), and COCO's AP of an IoU type as detection READMEs
    head it (``box ap`` of ``bbox_mAP`` and ``bbox/AP``, ``mask ap`` of ``segm_mAP``:
    `_IOU_TYPE_AP`), and a parameter count's key spelled out as prose writes it
    (``parameters`` of ``params``, ``num_params``: `_PARAMETER_COUNT`)."""
    term = normalize(metric)
    out = {term, _SPLIT_DIGITS.sub(" ", term), metric_key(metric)}
    if "/" in metric:
        out.add(normalize(metric.rsplit("/", 1)[1].partition(",")[0]))
    header = _iou_type_header(term)
    if header is not None:
        out.add(header)
    if "param" in term:
        out |= _spelled_count(term)
    return frozenset(t for t in out if _is_anchor(t, t))


# A model's parameter count, keyed by the abbreviation ("params", "num_params", "params_m",
# "param_count") that prose spells out: "our TinyNeXt-T achieves a remarkable 71.5% top-1
# accuracy with only 1.0M parameters on ImageNet-1K" (TinyNeXt's README), "75.1% ImageNet top-1
# accuracy with only 5.7M parameters" (iLLaMA's abstract). Before round 63 a claim on "params"
# was named by "Params" only: a wrong count in prose went unreported.
# A count qualified ("total_params", "trainable_params") keeps its qualifier: "Trainable params:
# 592,660" is no total's number (torchsummary prints both).
# In prose "parameters" names the count only where it counts (`documents._counted_parameters`):
# "the remaining parameters are set to 20" are a method's settings.
_PARAMETER_COUNT = re.compile(r"(?:(num|n|total|model|trainable)\s)?(?:params|parameters"
                              r"|param\scount)(?:\s[mbk])?$")


def _spelled_count(term: str) -> frozenset[str]:
    """The anchor terms a parameter count's normalized key ``term`` is written with in prose
    (`_PARAMETER_COUNT`): "params" and "parameters", with the key's qualifier if it has one
    ("total parameters"); none for another key."""
    count = _PARAMETER_COUNT.match(term)
    if count is None:
        return frozenset()
    qualifier = count.group(1)
    if qualifier in (None, "num", "n"):
        return frozenset({"params", "parameters"})
    return frozenset({f"{qualifier} params", f"{qualifier} parameters"})


# COCO's AP (IoU 0.50:0.95, all areas) of one IoU type, as mmdetection logs it (`bbox_mAP`,
# `segm_mAP`; mmengine's `coco/bbox_mAP`) and detectron2 (`bbox/AP`, `segm/AP`), is what both
# projects' results tables head "box AP" and "mask AP" (open-mmlab/mmdetection
# configs/mask_rcnn/README.md, a pipe table per method; facebookresearch/detectron2
# MODEL_ZOO.md, `box<br/>AP` and `mask<br/>AP` header cells): one quantity, the key's IoU type
# named as a reader knows it. Only the overall AP: a threshold's or an area's (`bbox_mAP_50`,
# `bbox/APs`) is headed by its own name (`AP50`, `APs`). (Matched on the normalized key:
# `coco bbox map`, `bbox ap`.)
_IOU_TYPE_AP = re.compile(r"(?:^| )(bbox|segm) m?ap$")
_IOU_TYPE_HEADER = {"bbox": "box ap", "segm": "mask ap"}


def _iou_type_header(term: str) -> str | None:
    """``box ap`` / ``mask ap`` for a normalized metric ``term`` that is COCO's AP of that IoU
    type (`_IOU_TYPE_AP`), else None."""
    if "bbox" not in term and "segm" not in term:
        return None  # (nearly every metric: no search)
    found = _IOU_TYPE_AP.search(term)
    return _IOU_TYPE_HEADER[found.group(1)] if found is not None else None


def _parts_index(compound: dict[str, tuple[frozenset[str], str]]) -> dict[str, frozenset[str]]:
    """part term -> the claims whose namespaced key has it (`_compound_parts`)."""
    out: dict[str, set[str]] = {}
    for cid, (parts, _) in compound.items():
        for part in parts:
            out.setdefault(part, set()).add(cid)
    return {t: frozenset(ids) for t, ids in out.items()}


def _class_char(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[" else ch


# --- plurals: "PSNRs of 32.14 dB and 28.51 dB", "top-1 accuracies of 76.2% and 78.9%" ----------

_METRIC_NAMES = HIGHER | LOWER
# The nouns that end a quantity's name in an alias ("F1 score", "error rate", "top-1 accuracy",
# "cosine similarity"), besides the metrics' own names: such an alias takes a plural.
_QUANTITY_NOUNS = _METRIC_NAMES | frozenset({
    "score", "rate", "ratio", "distance", "similarity", "coefficient", "latency", "throughput",
    "speed", "accuracy", "error", "metric"})
# Plurals that are common words of another sense ("feature maps", "3 times faster", "by means
# of", "training steps"): they name a claim only written as an acronym.
_COMMON_PLURALS = frozenset({"maps", "times", "means", "sets", "runs", "steps", "points",
                             "lines", "units", "parts", "bits", "ones", "tops"})
_SHORT = 3  # letters: a name this short ("map", "fid", "acc") is an acronym's


def _plural(term: str) -> str | None:
    """The English plural of ``term`` (its last word's), or None where it takes none (see the
    module's docstring)."""
    head, _, last = term.rpartition(" ")
    if len(last) < 2 or not (last.isascii() and last.isalpha()):
        return None
    if last.endswith("s") and not last.endswith("ss"):
        return None  # "ours", "flops", "params": already plural, or no noun
    if last.endswith(("ss", "x", "z", "ch", "sh")):
        plural = last + "es"
    elif last.endswith("y") and last[-2] not in "aeiou":
        plural = last[:-1] + "ies"
    else:
        plural = last + "s"
    if plural in _METRIC_NAMES:
        return None  # COCO's "APs" is AP on small objects, no plural of AP
    return f"{head} {plural}" if head else plural


def _plurals(eligible: Iterable[str], taken: Collection[str]) -> dict[str, str]:
    """plural term -> its singular, for the ``eligible`` terms whose plural is no term of
    ``taken`` and the plural of no other eligible term."""
    out: dict[str, str] = {}
    clashing: set[str] = set()
    for term in eligible:
        plural = _plural(term)
        if plural is None or plural in taken:
            continue
        if out.get(plural, term) != term:
            clashing.add(plural)
        out[plural] = term
    for plural in clashing:
        del out[plural]
    return out


def _names_a_quantity(alias: str, metric: str) -> bool:
    """Whether the alias term ``alias`` of a claim on the quantity ``metric`` (its key) names
    a quantity by its last word ("top 1 accuracy", "f1 score", "psnr" for `psnr`), not a
    method or a dataset ("baseline", "set5")."""
    last = alias.rpartition(" ")[2]
    return last in _QUANTITY_NOUNS or last == metric.rpartition(" ")[2]


def _acronym_only(plural: str, singular: str) -> bool:
    """Whether ``plural`` names its claim only written as an acronym (see the module's
    docstring): a name of one word, short or a common word's plural. A longer name says what it
    is ("inference times", "val accs")."""
    return " " not in plural and (plural in _COMMON_PLURALS or len(singular) <= _SHORT)


def _written_as_acronym(text: str, end: int, plural: str) -> bool:
    """Whether the plural ending at ``end`` of ``text`` is written as an acronym's: a capital
    after the word's first letter, and a lower-case ``s`` ("mAPs", "FIDs"; not "maps")."""
    word = text[end - len(plural.rpartition(" ")[2]):end]
    return word.endswith("s") and any(c.isupper() for c in word[1:-1])


def _metric_anchors(metric: str, key: str) -> tuple[str, tuple[str, ...], frozenset[str]]:
    """(``metric`` normalized, the anchor terms besides it and its aliases that ``metric`` (its
    key ``key``) gives a claim, the parts of a namespaced key, empty unless two or more) — made
    once per metric, which a project's claims share."""
    # A metric key glues its name to a number that prose writes apart: the claim on
    # `top1` is anchored by "Top-1" too, `map50` by "mAP 50" (not `f1` by "f 1").
    term = normalize(metric)
    more: list[str] = []
    spaced = _SPLIT_DIGITS.sub(" ", term)
    if spaced != term:
        more.append(spaced)
    # A result file's key names the split or statistic too (`test_psnr`, `psnr_mean`,
    # `val/loss`), which prose does not write: the quantity alone anchors it as well.
    if key != term and _is_anchor(key, key):
        more.append(key)
    # A detector's COCO AP of one IoU type (`bbox_mAP`, `bbox/AP`) is headed "box AP"
    # (`segm_mAP`: "mask AP") in its README's tables
    header = _iou_type_header(term)
    if header is not None:
        more.append(header)
    # A parameter count's abbreviated key is spelled out in prose (`_PARAMETER_COUNT`)
    if "param" in term:
        more.extend(sorted(_spelled_count(term)))  # (sorted: the same index every process)
    # A namespaced key (`agieval_aqua_rat/acc_norm`, `gsm8k/exact_match,strict-match`,
    # `bbox/AP`) is written apart in a harness's table: the task in one cell (or the
    # heading), the metric and its filter in others. Its parts name it together only.
    parts = _compound_parts(metric)
    return term, tuple(more), frozenset(parts) if len(parts) > 1 else frozenset()


class Hit:
    """One anchor found: offsets into the segment's text and the normalized term."""

    __slots__ = ("end", "start", "term")

    def __init__(self, start: int, end: int, term: str) -> None:
        self.start, self.end, self.term = start, end, term

    def __repr__(self) -> str:
        return f"Hit({self.term!r} at {self.start})"


class AnchorIndex:
    """Every claim's anchor terms and one regex that finds them all."""

    def __init__(self, claims: Iterable[Claim]) -> None:
        claims_list = list(claims)
        found: dict[str, set[str]] = {}
        compound: dict[str, tuple[frozenset[str], str]] = {}  # claim -> (its parts, its key)
        # raw name -> its anchor terms: a method's name or a metric's is shared by many claims
        terms_of: dict[str, tuple[str, ...]] = {}
        of_metric: dict[str, tuple[str, tuple[str, ...], frozenset[str]]] = {}  # (likewise)
        quantities: set[str] = set()  # the terms naming a quantity: they take a plural
        for claim in claims_list:
            key = metric_key(claim.metric)
            for place, raw in enumerate((claim.metric, *claim.aliases)):
                terms = terms_of.get(raw)
                if terms is None:
                    term = normalize(raw)
                    terms = terms_of[raw] = (term,) if _is_anchor(term, raw.strip()) \
                        or (place and term.isdigit()) else ()
                for term in terms:
                    found.setdefault(term, set()).add(claim.id)
                    if place == 0 or _names_a_quantity(term, key):  # (0: the metric)
                        quantities.add(term)
            got = of_metric.get(claim.metric)
            if got is None:
                got = of_metric[claim.metric] = _metric_anchors(claim.metric, key)
            metric, more, parts = got
            for term in more:
                found.setdefault(term, set()).add(claim.id)
                quantities.add(term)
            if parts and metric in found:
                compound[claim.id] = (parts, metric)
        self.claims_of = {t: frozenset(ids) for t, ids in found.items()}
        self.compound = compound
        self.parts_of = _parts_index(compound)
        # claims on one quantity (`test_psnr`, `psnr`) have one metric here: "PSNR" stays decisive
        metric_of = {c.id: metric_key(c.metric) for c in claims_list}
        # A term is decisive when it says which quantity is meant: every claim it names has the
        # same metric ("PSNR", "Model-017 PSNR"); "Model-017" alone, naming ten metrics, is not.
        self.decisive = frozenset(t for t, ids in found.items()
                                  if len({metric_of[i] for i in ids}) == 1)
        # "PSNRs of 32.14 dB and 28.51 dB": a quantity's plural names what its singular does
        self.plurals = _plurals(sorted(quantities & found.keys()),
                                found.keys() | self.parts_of.keys())
        # (a class label of digits names claims but is never searched for: see the docstring)
        every = {t for t in found if not t.isdigit()} | self.parts_of.keys() \
            | self.plurals.keys()
        self.pattern = " " + _trie_pattern(every) if every else None
        self._compile()

    def parts(self) -> tuple[dict[str, list[str]], list[str], str | None,
                             dict[str, list[str]], dict[str, str]]:
        """What `from_parts` rebuilds this index from (plain data, to be kept in a cache)."""
        return ({t: sorted(ids) for t, ids in self.claims_of.items()}, sorted(self.decisive),
                self.pattern,
                {cid: [key, *sorted(parts)] for cid, (parts, key) in self.compound.items()},
                dict(self.plurals))

    @classmethod
    def from_parts(cls, claims_of: dict[str, list[str]], decisive: list[str],
                   pattern: str | None,
                   compound: dict[str, list[str]] | None = None,
                   plurals: dict[str, str] | None = None) -> AnchorIndex:
        """The index `parts` described, without building the trie again."""
        index = cls.__new__(cls)
        index.claims_of = {t: frozenset(ids) for t, ids in claims_of.items()}
        index.decisive = frozenset(decisive)
        index.compound = {cid: (frozenset(got[1:]), got[0])
                          for cid, got in (compound or {}).items()}
        index.parts_of = _parts_index(index.compound)
        index.plurals = dict(plurals or {})
        index.pattern = pattern
        index._compile()
        return index

    def compounds(self, terms: Collection[str]) -> Iterator[tuple[str, frozenset[str], str]]:
        """(claim, its parts, its key) of each namespaced key all of whose parts ``terms``
        holds (`_compound_parts`): "agieval aqua rat" and "acc norm" in one table row."""
        parts_of = self.parts_of
        seen: set[str] = set()
        for term in terms:
            for cid in parts_of.get(term, ()):
                if cid not in seen:
                    seen.add(cid)
                    parts, key = self.compound[cid]
                    if parts.issubset(terms):
                        yield cid, parts, key

    def _compile(self) -> None:
        self._acronyms = frozenset(p for p, one in self.plurals.items() if _acronym_only(p, one))
        self._regex = re.compile(self.pattern) if self.pattern else None
        # ASCII text (nearly all) is folded and scanned as bytes: a regex over bytes runs as
        # fast, and one 256-entry table both lowers and folds (the str path takes two passes).
        self._bytes_regex = (re.compile(self.pattern.encode("ascii"))
                             if self.pattern and self.pattern.isascii() else None)

    def scan(self, text: str) -> list[Hit]:
        """Every whole-word anchor in ``text``, left to right, longest at each place."""
        if self._regex is None:
            return []
        hits: list[Hit] = []
        if self._bytes_regex is not None and text.isascii():
            folded_bytes = b" " + text.encode("ascii").translate(_FOLD_ASCII)
            for mb in self._bytes_regex.finditer(folded_bytes):
                term = mb.group(0)[1:].decode("ascii")
                if "  " in term:
                    term = " ".join(term.split())
                hit = _whole(self._bytes_regex, folded_bytes, text,
                             Hit(mb.start(), mb.end() - 1, term))
                if hit is not None and (hit.term[-1] != "s" or self._singular(text, hit)):
                    hits.append(hit)
            return hits
        low = text.lower()
        if len(low) != len(text):  # a few characters lower to two (İ): keep offsets exact
            low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        folded = " " + low.translate(_FOLD)
        for m in self._regex.finditer(folded):
            term = m.group(0)[1:]
            if "  " in term:
                term = " ".join(term.split())
            # m.start() is the space before the term in `folded`: the term's offset in `text`.
            hit = _whole(self._regex, folded, text, Hit(m.start(), m.end() - 1, term))
            if hit is not None and (hit.term[-1] != "s" or self._singular(text, hit)):
                hits.append(hit)
        return hits

    def _singular(self, text: str, hit: Hit) -> bool:
        """Whether ``hit`` names its claims: a singular term does; a plural (`_plural`) where
        written so (as an acronym if it must be: `_acronym_only`), and then it carries its
        singular term from now on. (Called for terms ending in "s" only, as every plural does.)"""
        singular = self.plurals.get(hit.term)
        if singular is None:
            return True
        if hit.term in self._acronyms and not _written_as_acronym(text, hit.end, hit.term):
            return False
        hit.term = singular
        return True


# --- a number carried on into a longer name: "mAP@0.5" in "mAP@0.5:0.95" ------------------------

# What follows a term's last digit when its number goes on: "." and a digit ("GPT-3.5"), a dash
# and a digit ("mAP50-95", "mAP@.5-.95", "Llama-2-7b"), or ":" and a number (group 1), which
# goes on only when it is a threshold range ("0.5:0.95"), not a key's value ("top1:0.91").
_CARRIERS = frozenset(".:-\u2013")
_CARRIED = re.compile(r"\.\d|[-\u2013]\.?\d|:(\.?\d+(?:\.\d+)?)")
_NUMBER_END = re.compile(r"[\d.]*$")


def _whole(regex: re.Pattern[AnyStr], folded: AnyStr, text: str, hit: Hit) -> Hit | None:
    """``hit``, or the shorter term it holds where the text carries its number on into a longer
    name (`_carried_on`), or None where it holds none."""
    # (the character after the term first: nearly always none of "." ":" "-")
    if text[hit.end:hit.end + 1] in _CARRIERS and hit.term[-1].isdigit() \
            and _carried_on(text, hit.start, hit.end):
        return _before_number(regex, folded, text, hit)
    return hit


def _carried_on(text: str, start: int, end: int) -> bool:
    """Whether the number that ends the term ``text[start:end]`` goes on past ``end`` into a
    longer name (see the module's docstring)."""
    m = _CARRIED.match(text, end)
    if m is None:
        return False
    if m.group(1) is None:
        return True
    return _threshold_range(_trailing_number(text, start, end), m.group(1))


def _trailing_number(text: str, start: int, end: int) -> str:
    """The digits and decimal points that end ``text[start:end]`` ("0.5" of "mAP@0.5")."""
    found = _NUMBER_END.search(text, start, end)
    return found.group(0) if found else ""


def _threshold_range(first: str, second: str) -> bool:
    """Whether ``first:second`` reads as a range of thresholds: two numbers of one shape (whole
    numbers of as many digits, "50:95"; decimals with the same whole part, "0.5:0.95",
    ".5:.95"), the second larger. "1:0.9134" (top1:0.9134) is a key's value."""
    whole1, dot1, _ = first.partition(".")
    whole2, dot2, _ = second.partition(".")
    if dot1 != dot2 or not first.strip("."):
        return False
    same_shape = whole1 == whole2 if dot1 else len(whole1) == len(whole2)
    return same_shape and float(second) > float(first)


def _before_number(regex: re.Pattern[AnyStr], folded: AnyStr, text: str,
                   hit: Hit) -> Hit | None:
    """The longest anchor at ``hit``'s place that ends before the number it carries on (the
    regex tried again with the text cut there), or None: the number is glued to the name
    ("AP50:95" holds no whole "AP"), or no shorter term is there. Runs once per such hit."""
    while True:
        cut = hit.end
        while cut > hit.start and (text[cut - 1].isdigit() or text[cut - 1] == "."):
            cut -= 1
        # `folded` has a space put before the text: its index cut is the text's cut - 1, which
        # must fold to a space (a word ends there) for a shorter term to be whole
        if cut <= hit.start + 1 or folded[cut] not in (32, " "):
            return None
        m = regex.match(folded, hit.start, cut)
        if m is None:
            return None
        got = m.group(0)[1:]
        term = got.decode("ascii") if isinstance(got, bytes) else got
        if "  " in term:
            term = " ".join(term.split())
        # (it ends before ``cut``, so each round is shorter: the loop ends)
        hit = Hit(m.start(), m.end() - 1, term)
        if not (term[-1].isdigit() and _carried_on(text, hit.start, hit.end)):
            return hit
