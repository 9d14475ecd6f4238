"""Printed logs read record by record: the headings over a log's lines, and which lines a claim is
judged on.

A plain-text segment that `doc_readers.is_log` finds to be a printed log (a notebook's stream,
a ``.txt`` results log) has one unit per line. Two things then tie lines together:

* **Headings.** A line whose anchors name a claim and that holds no number of its own
  (``Validation Set5``, ``Epoch 11/15``, ``==> Ours``) heads the lines below it, up to the next
  line without a number (another heading: ``Test bird``, ``Epoch 12/15``) or a blank line:
  those lines are judged as if the heading's anchors were in them, as a table row's label names
  its cells (`headed`).
* **Records.** A log repeats its keys on every record (``val_accuracy`` on each epoch's line,
  ``# psnr`` under each dataset). A claim named on some line by more anchors than on the others
  (its metric and ``Epoch 11/15``, or ``Validation Set5``) is that line's: the other lines'
  numbers are not candidates for it, as the rows of other methods are not in a table. The lines
  that name it most are judged together, so a claim named on each line alike (its bare metric
  over every epoch) is satisfied by one matching record, as before (`strongest_records`).

Markdown model reports are read the same way: a ``#`` heading names the list items and
``key: value`` lines under it, and those lines are judged together (`headed`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Sequence
from itertools import accumulate, pairwise
from typing import Protocol, TypeVar

from labledger.reconcile.anchors import Hit
from labledger.reconcile.doc_readers import Segment, in_fence, line_at, mask_text
from labledger.reconcile.numbers import scan_numbers

__all__ = ["headed", "strongest_records"]


def _numberless(text: str, start: int, end: int, hits: Sequence[Hit]) -> bool:
    """Whether the line ``text[start:end]`` holds no number but the digits of its anchors."""
    line = text[start:end]
    if not any(c.isdigit() for c in line):
        return True
    # by bisection (``hits`` are in text order; the furthest end of those starting at or before
    # each): a line of thousands of anchors with digits ("Set5 Set5 ...") tried each of them
    # for each of its numbers
    starts = [h.start for h in hits]
    reach = list(accumulate((h.end for h in hits), max))

    def in_anchor(at: int) -> bool:
        k = bisect.bisect_right(starts, at)
        return k > 0 and reach[k - 1] > at

    return all(in_anchor(n.start) for n in scan_numbers(mask_text("txt", line), base=start))


def _one_per_term(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` less those naming a term an earlier one names: what a heading gives the lines
    under it is its terms (a heading of thousands of anchors gave each line all of them)."""
    seen: set[str] = set()
    out: list[Hit] = []
    for h in hits:
        if h.term not in seen:
            seen.add(h.term)
            out.append(h)
    return out


def headed(segment: Segment, hits: Sequence[Hit]) -> dict[int, tuple[int, list[Hit]]]:
    """Per line under a heading, keyed by its start: (its end, the heading's hits, the first
    of each term).

    ``hits``: every anchor of the segment, in text order (as `anchors.AnchorIndex.scan` gives
    them). In plain text only a log's lines are units (`doc_readers.is_log`); the caller asks
    for those only. In Markdown, the headings are ``#`` lines (`_md_headed`).
    """
    if segment.syntax == "md":
        return _md_headed(segment, hits)
    text = segment.text
    starts = [h.start for h in hits]
    out: dict[int, tuple[int, list[Hit]]] = {}
    i = 0
    while i < len(hits):
        ls, le = line_at(text, hits[i].start)
        j = bisect.bisect_left(starts, le, i)
        heading = list(hits[i:j])
        i = j
        if not _numberless(text, ls, le, heading):
            continue
        heading = _one_per_term(heading)
        at = text.find("\n", le)
        while at >= 0:
            nls, nle = line_at(text, at + 1)
            if not text[nls:nle].strip():
                break  # a blank line ends what a heading heads
            lo = bisect.bisect_left(starts, nls)
            if _numberless(text, nls, nle, hits[lo:bisect.bisect_left(starts, nle, lo)]):
                break  # the next heading ("Test bird", "Epoch 12/15")
            out[nls] = (nle, heading)
            at = text.find("\n", nle)
    return out


# An ATX heading: its level is its count of #; a fence's "# comment" is none (`in_fence`)
_MD_HEADING = re.compile(r"\n {0,3}(#{1,6})(?=[ \t]|\r?\n|$)")
# A line a generated report lists a result on: a list item, or "key: value" ("Accuracy: 0.97",
# "**F1 Score:** 76.67%") where a number follows the key
_MD_RECORD = re.compile(r"[ \t]*(?:[-*+][ \t]|\d+[.)][ \t])"
                        r"|[ \t]*[^\s:=#|><][^:=\n]{0,80}[:=][ \t*_`]*[+\-\u2212]?\.?\d")


def _md_headed(segment: Segment, hits: Sequence[Hit]) -> dict[int, tuple[int, list[Hit]]]:
    """Markdown's list items and ``key: value`` lines under headings, each with the hits of
    every heading over it: a heading names the records under it up to the next heading of its
    level or higher (a model report's "## RandomForestClassifier" over "- precision: 0.9694"),
    as a row's label names its cells. A prose line under it is not named (a "## Results" over
    a page says little of each sentence). Lines under a heading naming no claim are given too
    (with the hits of the headings over them: none), when some heading of the segment names
    one: they are judged with the others, so the named model's claim is not theirs
    (`strongest_records`). Empty when no heading holds an anchor."""
    text = segment.text
    starts = [h.start for h in hits]
    heads: list[tuple[int, int, int]] = []  # (line start, line end, level)
    named = False
    for m in _MD_HEADING.finditer("\n" + text):
        ls = m.start()  # the "\n" put before the text: offsets are the text's
        if in_fence(segment, ls) is not None:
            continue
        le = line_at(text, ls)[1]
        heads.append((ls, le, len(m.group(1))))
        lo = bisect.bisect_left(starts, ls)
        named = named or (lo < len(starts) and starts[lo] < le)
    out: dict[int, tuple[int, list[Hit]]] = {}
    if not named:
        return out
    heads.append((len(text), len(text), 0))  # the end closes every heading
    stack: list[tuple[int, list[Hit]]] = []  # the open headings: (level, their hits)
    for (ls, le, level), (nxt, _, _) in pairwise(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        lo = bisect.bisect_left(starts, ls)
        stack.append((level, _one_per_term(hits[lo:bisect.bisect_left(starts, le, lo)])))
        above = [h for _, own in stack for h in own]
        at = le + 1
        while at < nxt:
            ls2, le2 = line_at(text, at)
            if _MD_RECORD.match(text, ls2, le2) and in_fence(segment, ls2) is None:
                lo = bisect.bisect_left(starts, ls2)
                if above or (lo < len(starts) and starts[lo] < le2):
                    out[ls2] = (le2, above)
            at = text.find("\n", le2, nxt)
            at = nxt if at < 0 else at + 1
    return out


class _Record(Protocol):
    cands: frozenset[str]
    named: frozenset[str]
    strength: dict[str, int]


_R = TypeVar("_R", bound=_Record)


def strongest_records(items: Sequence[_R], taking_part: Collection[str]) -> list[_R]:
    """``items`` (numbers of a log's lines) less, for each claim, the lines that name it with
    fewer anchors than another line does; an item left with no candidate is dropped.

    ``taking_part``: the claims that take part for the whole log's anchors. A claim that the
    log names only with anchors that name another claim of its metric more (``test_accuracy``
    by the ``accuracy`` of a line where ``val_accuracy`` is printed) is none of its lines' either
    (a Keras epoch cut short prints "accuracy: 0.9877" alone: the training accuracy)."""
    best: dict[str, int] = {}
    for it in items:
        for cid in it.cands:
            best[cid] = max(best.get(cid, 0), it.strength.get(cid, 0))
    out: list[_R] = []
    for it in items:
        weaker = {c for c in it.cands | it.named
                  if it.strength.get(c, 0) < best.get(c, 0) or c not in taking_part}
        if weaker:
            it.cands = it.cands - weaker
            it.named = it.named - weaker
            it.strength = {c: n for c, n in it.strength.items() if c not in weaker}
        if it.cands:
            out.append(it)
    return out
