"""Training progress: the records a log prints of one quantity epoch after epoch are its history.

A training prints the same metric again and again: Keras' ``val_accuracy`` on every epoch's
line, a PyTorch loop's ``Validation Accuracy: 79.07%`` after each epoch, pycocotools'
``summarize()`` block after each evaluation, and a notebook does so in several cells (a first
``fit``, then a fine-tuning ``fit`` going on from it). A claim is one of those values, most
often the last. Two rules follow, one inside a printed log and one across a notebook's outputs:

* **Inside a log** (`last_record`): the records naming a claim alike are judged together
  (`log_units.strongest_records`), so one matching satisfies the claim. When none matches
  and they are one *progress series* -- each on a line of its own, all under the same key,
  and a progress word (``epoch``, ``step``, ``iter``, ``iteration``) between each and the
  next, or labelling the later one before its number -- the claim drifts on the last of
  them, the most recent value, instead of being ambiguous among them all. Records that are
  no series (per-image or per-dataset lines, one summary's AR@1, AR@10 and AR@100, the bbox
  and the segm summary of one epoch, a final evaluation line of another shape) stay
  ambiguous: which one is the claim's, the log does not say.
* **Across a notebook** (`judge_history`): the outputs of code cells are judged one by one
  (each is a segment); afterwards, a claim's findings in the *progress outputs* of one
  notebook (streams that print a progress word: a ``fit``'s epochs, a loop's per-epoch lines,
  tqdm) are judged as one log's records: those under one key (`record_key`: ``val_accuracy``,
  ``validation accuracy``, a summary line's statistic) are satisfied by a match under that key
  in any progress output, and when none matches only the last finding is kept. A code output
  that is no progress output (a ``model.evaluate`` line, ``print('Test accuracy :', acc)``,
  ``trainer.evaluate()``'s dict) is a record of its own, judged alone as before: its drift is
  never satisfied by an epoch's line. And a claim that such an output judges *after* the last
  progress output judging it is that evaluation's: the training's lines are history, not its
  record, and their findings for it are dropped (a bare ``accuracy`` claim is the test
  accuracy ``evaluate`` printed, not the training accuracy of the last epoch).

Invariants: only anchored findings on one claim are ever dropped (a marker binds a number
exactly; a number two claims could own stays ambiguous); nothing here runs for a document
without findings in a notebook's outputs, and inside a log only where a claim would otherwise
be ambiguous, so no number's common path pays for it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from typing import NamedTuple

from labledger.reconcile.coco_summary import TRIGGER, parse_line
from labledger.reconcile.doc_readers import Segment, line_at
from labledger.reconcile.findings import Finding, Report

__all__ = ["PROGRESS", "Redrift", "judge_history", "last_record", "record_key", "series_note"]

# A word only a training's progress prints: "Epoch 3/15", "Epoch(val) [2][327]", "epoch: 59/300",
# "iter: 4999", "global_step", "'epoch': 1.0"; not a rate's unit ("37ms/step", "1.2s/it")
PROGRESS = re.compile(r"(?i)(?<![a-z/])(?:iteration|iter|epoch|step)s?(?![a-z])")
# The key a record prints before its number: "val_accuracy: ", "Validation Accuracy: ",
# "acc=", "'eval_accuracy': ", "Test accuracy : " (looked for in the line's last characters)
_KEY = re.compile(r"([A-Za-z][\w./@%-]*(?:[ \t]+[A-Za-z][\w./@%-]*)*)[ \t'\"]*[:=]?[ \t'\"]*\Z")
_KEY_REACH = 80  # characters before a number its key may start in (a long line: no rescans)
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])[+\-]?\d+(?:[.,:]\d+)*(?:[eE][+\-]?\d+)?")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=8192)
def record_key(text: str, at: int) -> str:
    """The key of the record whose number starts at ``at`` in ``text``: the statistic of a
    COCOeval summary line (its bracket), else the words just before the number
    (``val_accuracy``, ``validation accuracy``, lower-cased), else the line with its numbers
    blanked."""
    ls, le = line_at(text, at)
    line = text[ls:le]
    if TRIGGER in line:
        stat = parse_line(line)
        if stat is not None:
            return f"{stat.kind} {stat.iou} {stat.area} {stat.max_dets} {stat.cat}"
    m = _KEY.search(text, max(ls, at - _KEY_REACH), at)
    if m is not None:
        return _SPACES.sub(" ", m.group(1)).lower()
    return _SPACES.sub(" ", _NUMBER.sub("#", line)).strip()


def last_record(text: str, starts: Sequence[int]) -> int | None:
    """The index in ``starts`` of the most recent record when the numbers starting there are
    one quantity's progress series (each on a line of its own, all under one `record_key`, a
    `PROGRESS` word from each line's end to the next record's number); None when they are
    not."""
    if len(starts) < 2:
        return None
    order = sorted(range(len(starts)), key=starts.__getitem__)
    lines = [line_at(text, starts[i]) for i in order]
    if any(a[0] == b[0] for a, b in pairwise(lines)):
        return None  # two on one line: two quantities, not two epochs
    key = record_key(text, starts[order[0]])
    if any(record_key(text, starts[i]) != key for i in order[1:]):
        return None
    # the counter is between the records ("Epoch 3/15" over Keras' line) or labels the later
    # one before its number ("Epoch 3 | val acc 0.88"): not after it, where BasicSR writes the
    # best value's iteration on each dataset's line ("# psnr: 32.45  Best: 32.45 @ 300000 iter")
    if any(PROGRESS.search(text, line[1], starts[i]) is None
           for line, i in zip(lines, order[1:], strict=False)):
        return None
    return order[-1]


# --- across a notebook's outputs -----------------------------------------------------------------

# (a code output's segment, the offset of a finding's number in it, the finding, a claim it
# names): the finding as that claim's drift on that number, or None when the number is none
Redrift = Callable[[Segment, int, Finding, str], "Finding | None"]


class _Output(NamedTuple):
    place: int         # its order among the notebook's segments
    segment: Segment
    progress: bool     # a stream printing a PROGRESS word: a training's progress output


class _Judged(NamedTuple):
    """What a notebook's outputs say of one claim, judged one by one."""

    keys: set[str]     # the keys of its matches in progress outputs
    last: int          # the last progress output judging it (a match or a finding)
    evaluated: int     # the last other code output judging it (-1: none)


def judge_history(segments: Sequence[Segment], report: Report, drift: Redrift) -> None:
    """Judge the findings in a notebook's progress outputs as one log's records (see the module
    docstring): a claim is dropped from a finding where a match under the finding's key in a
    progress output satisfies it, or where an evaluation after the training judges it; an
    ambiguity left with one claim is that claim's drift (``drift`` makes it); of one claim's
    findings under one key, only the last is kept."""
    candidates = [f for f in report.findings if _in_output(f.where) and f.via == "anchor"
                  and f.claims and f.type in ("drift", "ambiguous")]
    if not candidates:
        return
    outputs = _outputs(segments, {f.path for f in candidates})
    mine = [f for f in candidates
            if (out := outputs.get((f.path, f.where or ""))) is not None and out.progress]
    if not mine:
        return
    judged = _judged(report, outputs)
    kept: dict[int, Finding | None] = {}  # id of a finding: what replaces it (None: nothing)
    newest: dict[tuple[str, str, str], tuple[tuple[int, int, int], int]] = {}
    for f in mine:
        out = outputs[(f.path, f.where or "")]
        at = _offset(out.segment.text, f.line, f.col)
        key = record_key(out.segment.text, at)
        left = [c for c in f.claims if not _history_judges(judged.get((f.path, c)), key)]
        now = _narrowed(f, left, drift, out.segment, at)
        if now is not f:
            kept[id(f)] = now
        if now is not None and len(now.claims) == 1:
            # of one claim's findings under one key, the last output's (its last line's) stays
            place = (out.place, f.line, f.col)
            before = newest.setdefault((f.path, now.claims[0], key), (place, id(f)))
            if before[0] < place:
                kept[before[1]] = None
                newest[(f.path, now.claims[0], key)] = (place, id(f))
            elif before[1] != id(f):
                kept[id(f)] = None
    if kept:
        report.findings[:] = [g for f in report.findings
                              if (g := kept.get(id(f), f)) is not None]


def _narrowed(f: Finding, left: list[str], drift: Redrift, segment: Segment,
              at: int) -> Finding | None:
    """``f`` (its number at ``at`` in ``segment``) with only the claims ``left`` that its
    history does not judge away: None when no claim is left; an ambiguity between claims left
    with one is that claim's drift (when ``drift`` makes it); anything else stays as it is."""
    if not left:
        return None
    if len(f.claims) > 1 and len(left) == 1:
        return drift(segment, at, f, left[0]) or f
    return f


def _history_judges(judged: _Judged | None, key: str) -> bool:
    """Whether a claim's history judges a finding of it under ``key`` away: a match under that
    key, or an evaluation after the training."""
    return judged is not None and (key in judged.keys or judged.evaluated > judged.last)


def _in_output(where: str | None) -> bool:
    return where is not None and ", output " in where


def _outputs(segments: Sequence[Segment], paths: set[str]) -> dict[tuple[str, str], _Output]:
    """Per code output of the notebooks ``paths``, keyed by (path, where)."""
    out: dict[tuple[str, str], _Output] = {}
    for n, seg in enumerate(segments):
        if seg.path in paths and _in_output(seg.where):
            progress = seg.stream and PROGRESS.search(seg.text) is not None
            out[(seg.path, seg.where or "")] = _Output(n, seg, progress)
    return out


def _judged(report: Report, outputs: dict[tuple[str, str], _Output]
            ) -> dict[tuple[str, str], _Judged]:
    """Per (notebook, claim) judged in those ``outputs``: the keys of its matches in progress
    outputs, the last progress output and the last other output judging it."""
    keys: dict[tuple[str, str], set[str]] = {}
    last: dict[tuple[str, str], int] = {}
    evaluated: dict[tuple[str, str], int] = {}

    def saw(path: str, where: str | None, cids: Iterable[str], at: int | None) -> None:
        out = outputs.get((path, where or ""))
        if out is None:
            return
        for cid in cids:
            if not out.progress:
                evaluated[(path, cid)] = max(evaluated.get((path, cid), -1), out.place)
                continue
            last[(path, cid)] = max(last.get((path, cid), -1), out.place)
            if at is not None:
                # only an output's last record under its key is a training's result: an
                # earlier epoch of another model's fit that happens to print the claim's value
                # satisfies nothing
                key = record_key(out.segment.text, at)
                if _last_of_key(out.segment, key) == line_at(out.segment.text, at)[0]:
                    keys.setdefault((path, cid), set()).add(key)

    for m in report.matches:
        saw(m.path, m.where, m.claims, m.offset)
    for f in report.findings:
        saw(f.path, f.where, f.claims, None)
    return {k: _Judged(keys.get(k, set()), last.get(k, -1), evaluated.get(k, -1))
            for k in last.keys() | evaluated.keys()}


def _last_of_key(seg: Segment, key: str) -> int:
    """Where the line of ``seg``'s last record under ``key`` starts (-1: none); the records'
    keys are found once per segment."""
    got = seg._cache.get("record_keys")
    if got is None:
        text = seg.text
        lasts: dict[str, int] = {}
        for m in _NUMBER.finditer(text):
            lasts[record_key(text, m.start())] = line_at(text, m.start())[0]
        seg._cache["record_keys"] = got = lasts
    assert isinstance(got, dict)
    return int(got.get(key, -1))


def _offset(text: str, line: int, col: int) -> int:
    """The offset of 1-based (``line``, ``col``) in ``text``."""
    at = 0
    for _ in range(line - 1):
        at = text.index("\n", at) + 1
    return at + col - 1


def series_note(count: int) -> str:
    """What a drift on the last of ``count`` records says of the others."""
    return f"; the last of {count} records naming it, none of which matches"
