"""pycocotools' ``COCOeval.summarize()`` lines: which metric each line is, and which claims name it.

``summarize()`` prints one line a statistic, as training logs, notebooks and READMEs paste them::

     Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.374
     Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.581
     Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = 0.331

(LVIS' evaluator adds ``catIds=r`` and writes the areas ``s``, ``m``, ``l``; some copies drop
the leading space or indent the lines.) Every line is named by "Average Precision" or
"Average Recall" alike; what tells them apart is the bracket, whose numbers are the
statistic's parameters, not values. So, in a text holding ``maxDets`` (the one cheap test: a
document without it costs nothing here):

* `blank_brackets`: a summary line's bracket is blanked for the number scan (offsets kept): its
  ``0.50``, ``0.95`` and ``100`` are never a claim's value, match or drift.
* `named_lines`: the anchors found on a summary line are dropped and replaced by one anchor
  spanning its label (up to the bracket's ``]``) whose terms are those of the claims whose metric
  key or alias *is* that line (`spec_of`): ``bbox_mAP``, ``AP``, ``mAP@0.5:0.95`` the first line;
  ``bbox_mAP_50``, ``AP50``, ``mAP@0.5`` the second; ``APs``, ``AP_small``, ``bbox_mAP_s``,
  ``map_small`` the small-area AP; ``AR@100``, ``AR_100``, ``mar_100`` the AR at 100 detections;
  ``ARs`` the small-area AR; ``APr`` LVIS' rare categories. A line's value is then judged for
  exactly the claims it is, as a log's ``key: value`` line is (`log_units`): a moved value is
  drift on its own line, not ambiguity among twelve. A log's summary lines are judged apart
  from its other records (`documents._summary_apart`): mmdetection's ``bbox_mAP_50: 0.5810``
  record under the summary is checked on its own, not satisfied by the summary's line.
* `in_points`: a summary's value is a fraction; for a claim recorded in percent points
  (detectron2's and cvpods' ``bbox/AP`` = 37.41) it is read as the points it shows (``0.374``
  is 37.4 at its precision).

Invariants: a name is read only when all of it is understood (``AP`` glued to anything else,
``apple``, ``AP50:95`` written otherwise than a range, names nothing here); a name that fits
several lines of one summary (a bare ``AR``: maxDets 1, 10 and 100) names each of them alike,
so they are judged together (`log_units.strongest_records`: one matching line satisfies it,
none leaves it ambiguous), never guessed. A name saying its IoU type (``bbox_mAP``,
``segm_mAP``, ``bbox/AP``) names only the lines of a summary of that type, when the text
above the summary says which (``Evaluate annotation type *segm*``, ``IoU metric: bbox``,
``Evaluation results for bbox``); a summary of unknown type, or a name of none, fits either.
A training log printing a summary after each evaluation repeats each line: those are one
statistic's history (`progress`), a drift on the last block's line when none matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from labledger.reconcile.anchors import Hit
from labledger.reconcile.numbers import Shown

__all__ = ["TRIGGER", "Spec", "Summary", "blank_brackets", "in_points", "named_lines",
           "parse_line", "spec_of", "summaries"]

# The one substring every summary line holds; nothing here runs on a text without it.
TRIGGER = "maxDets"

_LINE = re.compile(
    r"Average[ \t]+(?:Precision|Recall)[ \t]*\((?P<kind>AP|AR)\)[ \t]*@"
    r"(?P<bracket>\[[ \t]*IoU=(?P<iou>\d*\.\d+(?::\d*\.\d+)?)[ \t]*\|"
    r"[ \t]*area=[ \t]*(?P<area>[a-z]+)[ \t]*\|"
    r"[ \t]*maxDets=[ \t]*(?P<dets>\d+)[ \t]*(?:catIds=[ \t]*(?P<cat>[a-z]+)[ \t]*)?\])"
    r"[ \t]*=[ \t]*(?P<value>-?\d+(?:\.\d+)?)")

_AREAS = {"all": "all", "small": "small", "medium": "medium", "large": "large",
          "s": "small", "m": "medium", "l": "large"}
_CATS = frozenset({"all", "r", "c", "f"})  # LVIS: all, rare, common, frequent categories
_PLAIN = (50, 95)  # IoU=0.50:0.95: the COCO AP ("AP", "mAP", "bbox_mAP")


@dataclass(frozen=True, slots=True)
class Summary:
    """One summary line: its statistic and where its label ends and its value starts."""

    kind: str                 # "AP" or "AR"
    iou: tuple[int, ...]      # in hundredths: (50, 95) for 0.50:0.95, (50,) for 0.50
    area: str                 # all, small, medium, large
    max_dets: int
    cat: str                  # all, or LVIS' r, c, f
    value: str                # as printed: "0.374", "-1.000"
    start: int                # the label's first character ("Average")
    label_end: int            # after the bracket's "]"
    bracket: tuple[int, int]  # the bracket, "[" to "]" inclusive
    value_start: int


def _hundredths(text: str) -> int | None:
    """``0.50`` -> 50, ``.5`` -> 50, ``0.75`` -> 75; None for a threshold of more precision."""
    whole, _, frac = text.partition(".")
    if whole not in ("", "0") or not frac or frac[2:].strip("0"):
        return None
    return int((frac + "0")[:2])


def _iou(text: str) -> tuple[int, ...] | None:
    got = [_hundredths(t) for t in text.split(":")]
    return None if None in got else tuple(g for g in got if g is not None)


def parse_line(line: str, base: int = 0) -> Summary | None:
    """The summary line in ``line`` (offsets plus ``base``), or None when it holds none."""
    m = _LINE.search(line)
    return _summary(m, base) if m is not None else None


def _summary(m: re.Match[str], base: int) -> Summary | None:
    iou = _iou(m["iou"])
    area = _AREAS.get(m["area"])
    cat = m["cat"] or "all"
    if iou is None or area is None or cat not in _CATS:
        return None
    return Summary(kind=m["kind"], iou=iou, area=area, max_dets=int(m["dets"]), cat=cat,
                   value=m["value"], start=m.start() + base, label_end=m.end("bracket") + base,
                   bracket=(m.start("bracket") + base, m.end("bracket") + base),
                   value_start=m.start("value") + base)


def summaries(text: str) -> list[Summary]:
    """Every summary line of ``text``, in order (none without `TRIGGER`)."""
    if TRIGGER not in text:
        return []
    return [s for m in _LINE.finditer(text) if (s := _summary(m, 0)) is not None]


def blank_brackets(text: str) -> str:
    """``text`` with each summary line's bracket blanked (offsets and lines kept): its
    thresholds and detection count are no values."""
    if TRIGGER not in text:
        return text
    return _LINE.sub(lambda m: m[0][:m.start("bracket") - m.start()]
                     + " " * (m.end("bracket") - m.start("bracket"))
                     + m[0][m.end("bracket") - m.start():], text)


def in_points(shown: Shown) -> Shown:
    """A summary's value (a fraction, ``0.374``) as the percent points it is (37.4, at the
    precision shown), for a claim recorded in points: detectron2's ``bbox/AP`` = 37.41 is the
    ``0.374`` its log prints. The text and offsets stay the number's own."""
    literal = str(Decimal(shown.literal).scaleb(2))
    return Shown(shown.text, shown.start, shown.end, literal, shown.sign, False, None,
                 shown.end, False, shown.exponent + 2)


# --- what a claim's name says --------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Spec:
    """The summary line(s) a metric name is: None where the name leaves a field open."""

    kind: str
    iou: tuple[int, ...] = _PLAIN
    area: str = "all"
    cat: str = "all"
    max_dets: int | None = None  # AP: any (the summary prints one AP line a threshold and area)
    task: str | None = None      # bbox, segm, keypoints

    def fits(self, line: Summary, task: str | None) -> bool:
        return (line.kind == self.kind and line.iou == self.iou and line.area == self.area
                and line.cat == self.cat
                and (self.max_dets is None or line.max_dets == self.max_dets)
                and (self.task is None or task is None or self.task == task))


_TASKS = {"bbox": "bbox", "box": "bbox", "det": "bbox", "segm": "segm", "mask": "segm",
          "seg": "segm", "keypoints": "keypoints", "keypoint": "keypoints", "kpt": "keypoints"}
_PREFIXES = "|".join([*_TASKS, "eval", "val", "valid", "validation", "test", "coco"])
# (a task or split word, then) AP/mAP or AR/mAR, then what the rest says; written as frameworks
# key them (mmdetection `bbox_mAP_50`, detectron2 `bbox/AP50`, torchmetrics `map_small`,
# `mar_100`, Ultralytics `mAP50-95`) and as papers head them (`AP_S`, `AR@100`, `mAP@0.5:0.95`)
_NAME = re.compile(
    rf"(?P<pre>(?:(?:{_PREFIXES})[_\- ])*)m?(?P<kind>ap|ar)(?:[_\-@ ]?(?P<num>\[?"
    r"(?:\d*\.\d+|\d+)(?:[:\-_](?:\d*\.\d+|\d+))?\]?))?"
    r"(?:[_\-@ ]?(?P<area>small|medium|large|s|m|l))?"
    r"(?:[_\-@ ]?(?P<cat>[rcf]))?"
    r"(?:[_\-@ ]?(?P<dets>\d+))?")
_NAMESPACE = re.compile(r"/|\.(?=[a-z])")
_DETS = frozenset({1, 10, 20, 100, 300, 1000})


def spec_of(name: str) -> Spec | None:
    """The summary line(s) the metric name ``name`` is, or None when it is none of them (or
    says something this does not read: it then names no summary line)."""
    levels = _NAMESPACE.split(name.strip().lower())
    m = _NAME.fullmatch(levels[-1])
    if m is None:
        return None
    # the task a namespace level or a prefix word says ("bbox/AP", "segm_mAP")
    words = [w for part in (*levels[:-1], m["pre"]) for w in re.split(r"[_\- ]", part)]
    tasks = {_TASKS[w] for w in words if w in _TASKS}
    if len(tasks) > 1:
        return None
    rest = levels[-1][len(m["pre"]):]
    if rest.startswith("map") and rest[3:4].isdigit():
        # Ultralytics' mAP50, mAP50-95: its own evaluator's, which differs from pycocotools'
        # in the third decimal (a YOLO log prints both): no summary line is it
        return None
    kind = m["kind"].upper()
    iou: tuple[int, ...] = _PLAIN
    dets: int | None = int(m["dets"]) if m["dets"] else None
    num = m["num"].strip("[]") if m["num"] else None
    if num is not None:
        if kind == "AR" and num.isdigit() and int(num) in _DETS and dets is None:
            dets = int(num)  # AR1, AR@100, mar_100: detections per image
        else:
            got = _threshold(num)
            if got is None:
                return None
            iou = got
    if kind == "AP" and dets is not None:
        return None  # an AP's detection count is the summary's own: no name writes it
    return Spec(kind=kind, iou=iou, area=_AREAS[m["area"]] if m["area"] else "all",
                cat=m["cat"] or "all", max_dets=dets, task=tasks.pop() if tasks else None)


def _threshold(num: str) -> tuple[int, ...] | None:
    """``50`` / ``0.5`` / ``.50`` -> (50,); ``50:95``, ``50-95``, ``0.5:0.95`` -> (50, 95)."""
    parts = re.split(r"[:\-_]", num)
    got: list[int] = []
    for p in parts:
        if "." in p:
            h = _hundredths(p)
        else:
            h = int(p) if len(p) == 2 else None
        if h is None:
            return None
        got.append(h)
    return tuple(got) if len(got) == 1 or got == list(_PLAIN) else None


# --- which claims a line is ----------------------------------------------------------------------

# pycocotools' "Evaluate annotation type *segm*", torchvision's "IoU metric: bbox", detectron2's
# and cvpods' "Evaluation results for bbox:", mmdetection's "Evaluating bbox..."
_TASK_SAID = re.compile(r"IoU metric:[ \t]*(\w+)|[Ee]valuat\w*[ \t]+"
                        r"(?:annotation type \*|results[ \t]+for[ \t]+)?(\w+)")


def _task_above(text: str, lo: int, hi: int) -> str | None:
    """The IoU type the text between ``lo`` and ``hi`` (above a summary) last names."""
    found = None
    for m in _TASK_SAID.finditer(text, lo, hi):
        word = (m[1] or m[2]).lower()
        if word in _TASKS:
            found = _TASKS[word]
    return found


def named_lines(text: str, hits: Sequence[Hit],
                specs: Iterable[tuple[str, Spec]]) -> list[Hit]:
    """``hits`` with each summary line's own anchors replaced by one spanning its label, one
    for each term of ``specs`` ((anchor term, the line(s) it names)) that the line is."""
    lines = summaries(text)
    if not lines:
        return list(hits)
    specs = list(specs)
    out: list[Hit] = []
    k = 0
    added: list[Hit] = []
    prev_end = 0
    task: str | None = None
    for i, line in enumerate(lines):
        ls = text.rfind("\n", 0, line.start) + 1
        le = text.find("\n", line.value_start)
        le = len(text) if le < 0 else le
        while k < len(hits) and hits[k].start < ls:
            out.append(hits[k])
            k += 1
        while k < len(hits) and hits[k].start < le:
            k += 1  # "Average Precision", "AP", "IoU", "all": every line says them alike
        # a summary's first line (a gap of other lines above it): read the type said above
        if i == 0 or text.count("\n", prev_end, ls) > 1:
            task = _task_above(text, prev_end, ls)
        prev_end = le
        for term, spec in specs:
            if spec.fits(line, task):
                added.append(Hit(line.start, line.label_end, term))
        out.extend(added)
        added.clear()
    out.extend(hits[k:])
    return out
