"""Printed logs read record by record: the headings over a log's lines, and which lines a claim is
judged on.

A plain-text segment that `doc_readers.is_log` finds to be a printed log (a notebook's stream,
a ``.txt`` results log) has one unit per line. Two things then tie lines together:

* **Headings.** A line whose anchors name a claim and that holds no number of its own
  (``Validation Set5``, ``Epoch 11/15``, ``==> Ours``) heads the lines below it, up to the next
  line without a number (another heading: ``Test bird``, ``Epoch 12/15``) or a blank line:
  those lines are judged as if the heading's anchors were in them, as a table row's label names
  its cells (`headed`). In a program's printed output, a line naming a claim with a number of
  another kind and ending in none (``Test accuracy over 5 seeds``) names the line under it
  that names nothing and holds a number (the value ``print()`` wrote next).
* **Records.** A log repeats its keys on every record (``val_accuracy`` on each epoch's line,
  ``# psnr`` under each dataset). A claim named on some line by more anchors than on the others
  (its metric and ``Epoch 11/15``, or ``Validation Set5``) is that line's: the other lines'
  numbers are not candidates for it, as the rows of other methods are not in a table. The lines
  that name it most are judged together, so a claim named on each line alike (its bare metric
  over every epoch) is satisfied by one matching record, as before (`strongest_records`).

Markdown model reports are read the same way: a heading (``#``, or a setext line under its
``===``/``---`` rule) names the list items and ``key: value`` lines under it, a list item naming
a model or metric and holding no number names the items nested under it, and a fenced block of
printed output (`fenced`) is a log of its own, named by the headings over it and by a caption
ending in ":" right above it; all those lines are judged together (`headed`). The same headings
and caption name the tables under them (a pipe table, a classification report in a fence),
cell by cell: `over_table` says which hits name a table and over what part of the text, and
`from_above` lists every heading's hits, for the judge to tell one model's table from another's.

reStructuredText's section titles (`rst_titles`: a title line under an adornment line of one
punctuation character, and maybe over one too; levels in the order the styles first appear, as
docutils numbers them) name the tables under them the same way: "ImageNette" and "CIFAR-10"
over one benchmark ``csv-table`` each. They name no list items or lines: a ``list-table``'s
``* -`` items are its cells.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Sequence
from itertools import accumulate
from typing import NamedTuple, Protocol, TypeVar

from labledger.reconcile.anchors import Hit
from labledger.reconcile.doc_readers import (
    Fence,
    Segment,
    Table,
    fence_at,
    fences,
    in_fence,
    line_at,
    line_end,
    mask_text,
)
from labledger.reconcile.fenced import fenced_unit, is_output, output_lines
from labledger.reconcile.front_matter import FRONT_MATTER
from labledger.reconcile.numbers import scan_numbers
from labledger.reconcile.rst_tables import directive_titles

__all__ = ["Heading", "MdHeadings", "from_above", "heading_reaches", "heading_title", "headed",
           "markdown_headings", "md_headings", "over_table", "rst_titles", "strongest_records"]


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


# A line ending in a number ("after epoch 10", "0.9133", "50%:")
_ENDS_IN_NUMBER = re.compile(r"\d[\s%).,;:]*$")
# ... where that number counts a training's progress ("after epoch 10", "at step 5000", "Epoch
# 3/15:"): a count, never the value the line names, which may follow on the next line
_ENDS_IN_COUNT = re.compile(r"(?i)(?<![a-z])(?:epoch|step|iter|iteration)s?[ \t#:]*\d+"
                            r"(?:[ \t]*/[ \t]*\d+)?[\s).,;:]*$")
_DIGIT = re.compile(r"\d")


def _value_under(text: str, start: int, end: int, stop: int,
                 starts: Sequence[int]) -> tuple[int, int] | None:
    """The line under ``text[start:end]`` (a printed line naming a claim and holding a number)
    as (start, end) when it goes on with that line's value: the line ends in no number (``Test
    accuracy over 5 seeds``, ``After 30 epochs the test accuracy``) and the next names nothing
    and holds a number (``93.17 ± 0.12``, ``was 93.17 percent``: ``print(label)`` then
    ``print(value)``, or a message wrapped). Read a record a line, the value was no claim's
    and the first line's count was no value: the claim went unjudged (read as prose, as before
    a notebook's output was, the two lines are one sentence). A line ending in a progress
    count (``Test accuracy after epoch 10`` over ``is 0.9317``) ends in no value either: the
    count is the epoch's, the value the next line's."""
    if end >= stop or (_ENDS_IN_NUMBER.search(text, start, end) is not None
                       and not _ends_in_count_alone(text, start, end)):
        return None
    nls, nle = line_at(text, end + 1)
    if nle > stop or _DIGIT.search(text, nls, nle) is None:
        return None
    k = bisect.bisect_left(starts, nls)
    if k < len(starts) and starts[k] < nle:
        return None  # a line naming something of its own: a record, not a value
    return nls, nle


def _ends_in_count_alone(text: str, start: int, end: int) -> bool:
    """Whether the line ``text[start:end]`` ends in a progress count and holds no other number
    (``Test accuracy after epoch 10``; not ``val_acc 0.85 (best at epoch 3)``, whose value is
    its own)."""
    count = _ENDS_IN_COUNT.search(text, start, end)
    return count is not None and not scan_numbers(mask_text("txt", text[start:count.start()]))


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
    them; in Markdown, none in code: `fenced.without_code`). In plain text only a log's lines
    are units (`doc_readers.is_log`); the caller asks for those only. In Markdown, the headings
    are ``#`` and setext lines, list items naming what they list, and a fenced block of printed
    output is a log of its own (`md_headings`).
    """
    if segment.syntax == "md":
        return md_headings(segment, hits).lines
    return _log_headed(segment.text, hits, len(segment.text), segment.printed)


def _log_headed(text: str, hits: Sequence[Hit], stop: int,
                printed: bool = False) -> dict[int, tuple[int, list[Hit]]]:
    """`headed` for a log's lines, up to ``stop`` (the end of the text, or of a fenced block):
    a line whose anchors name a claim and that holds no number of its own heads the lines below
    it, up to a blank line or the next line without a number. In a program's ``printed``
    output, a line naming a claim with a number of another kind and ending in none also names
    the value printed on the line under it (`_value_under`)."""
    starts = [h.start for h in hits]
    out: dict[int, tuple[int, list[Hit]]] = {}
    i = 0
    while i < len(hits):
        ls, le = line_at(text, hits[i].start)
        j = bisect.bisect_left(starts, le, i)
        heading = list(hits[i:j])
        i = j
        if not _numberless(text, ls, le, heading):
            under = _value_under(text, ls, le, stop, starts) if printed else None
            if under is not None:
                out[under[0]] = (under[1], _one_per_term(heading))
            continue
        heading = _one_per_term(heading)
        at = text.find("\n", le, stop)
        while at >= 0 and at + 1 < stop:
            nls, nle = line_at(text, at + 1)
            if not text[nls:nle].strip():
                break  # a blank line ends what a heading heads
            lo = bisect.bisect_left(starts, nls)
            if _numberless(text, nls, nle, hits[lo:bisect.bisect_left(starts, nle, lo)]):
                break  # the next heading ("Test bird", "Epoch 12/15")
            out[nls] = (nle, heading)
            at = text.find("\n", nle, stop)
    return out


# A heading: ATX ("## Results", its level its count of #), or a setext heading's underline
# ("Results" over "=======" is level 1, over "-------" level 2); a fence's "# comment" is none
_MD_HEADING = re.compile(r"\n {0,3}(?:(#{1,6})(?=[ \t]|\r?\n|$)|(=+|-{2,})[ \t]*(?=\r?\n|$))")
# A line that is no setext heading's text: blank, indented code, another block's start (a
# heading, list item, quote, fence, HTML, an underline) or a table's row (a pipe in it: the
# "---" under it is no heading's, nor a rule GFM would read a table from)
_NOT_SETEXT_TEXT = re.compile(r"[ \t]*\r?$| {4}|\t|[ \t]*(?:#|[-*+>][ \t]|\d+[.)][ \t]|```|~~~"
                              r"|<|=|-)|[^\n]*\|")
# A line a generated report lists a result on: a list item, or "key: value" ("Accuracy: 0.97",
# "**F1 Score:** 76.67%") where a number follows the key
_MD_RECORD = re.compile(r"[ \t]*(?:[-*+][ \t]|\d+[.)][ \t])"
                        r"|[ \t]*[^\s:=#|><][^:=\n]{0,80}[:=][ \t*_`]*[+\-\u2212]?\.?\d")
_LIST_ITEM = re.compile(r"([ \t]*)(?:[-*+]|\d+[.)])[ \t]")
# A caption right above a fenced block ("Expected output:", "**Results on Set5:**")
_CAPTION_END = re.compile(r"[^\n]*:[ \t*_]*$")


class Heading(NamedTuple):
    text_start: int  # the line holding its words (a setext heading's: the line above its rule)
    text_end: int
    body: int        # where the lines it heads start
    level: int


class MdHeadings(NamedTuple):
    """What names a Markdown segment's units from above: its records, each with the hits over
    it (`headed`), and its headings' sections, which name its tables (`over_table`)."""

    lines: dict[int, tuple[int, list[Hit]]]
    sections: list[tuple[int, int, list[Hit]]]  # (body, end, the hits over it), in text order
    bodies: list[int]                           # each section's body: looked up by bisection
    reaches: list[int]  # where each heading's subsections end (the next heading of its level)
    hits: Sequence[Hit]
    starts: list[int]                           # the hits' starts


def md_headings(segment: Segment, hits: Sequence[Hit]) -> MdHeadings:
    """Markdown's records, each with the hits that name it from above:

    * list items and ``key: value`` lines under headings, each with the hits of every heading
      over it: a heading names the records under it up to the next heading of its level or
      higher (a model report's "## RandomForestClassifier" over "- precision: 0.9694"), as a
      row's label names its cells. A prose line under it is not named (a "## Results" over a
      page says little of each sentence). Lines under a heading naming no claim are given too
      (with the hits of the headings over them: none), when some heading of the segment names
      one: they are judged with the others, so the named model's claim is not theirs
      (`strongest_records`);
    * list items nested under an item that names a claim and holds no number ("- ResNet-50"
      over "  - Top-1: 76.1"): they have its hits too (`_list_children`);
    * every line of a fenced block of printed output (`_fence_records`), read as a log's.

    The sections are kept: they name the tables under them too (`over_table`). A reST segment
    has its section titles' sections only (`rst_titles`), and no records.
    """
    text = segment.text
    starts = [h.start for h in hits]
    md = segment.syntax == "md"
    heads = markdown_headings(segment) if md else rst_titles(segment)
    out: dict[int, tuple[int, list[Hit]]] = {}
    sections: list[tuple[int, int, list[Hit]]] = []  # (body, end, the hits over it)
    reaches: list[int] = []
    if any(_holds_hit(starts, h.text_start, h.text_end) for h in heads):
        sections = _sections(text, heads, hits, starts)
        reaches = heading_reaches(heads, len(text))
        if md:
            for body, end, above in sections:
                _section_records(segment, body, end, above, starts, out)
    bodies = [b for b, _, _ in sections]
    if md:
        _list_children(segment, hits, starts, out)
        _fence_records(segment, hits, starts, sections, bodies, out)
    return MdHeadings(out, sections, bodies, reaches, hits, starts)


# A heading that is "Parameters" or "Params" alone titles an API's arguments (numpydoc's
# "Parameters\n----------" section, a README's "## Parameters" over a function's options and
# their defaults), not a model's parameter count
_ARGUMENTS_TITLE = re.compile(r"(?i)[ \t#]*(?:parameters|params)[ \t:#]*")


def without_argument_titles(segment: Segment, hits: list[Hit]) -> list[Hit]:
    """``hits`` less those of a Markdown or reST heading titling an API's arguments
    (`_ARGUMENTS_TITLE`): it names no parameter count's claim, neither the lines under it nor
    the line it runs on to ("Parameters\n----------\nk : int, default 20"). Review of round 63:
    once "parameters" named a claim on "params", such a default drifted against it."""
    if not any(h.term in ("params", "parameters") for h in hits):
        return hits
    heads = markdown_headings(segment) if segment.syntax == "md" else rst_titles(segment)
    titles = [(h.text_start, h.text_end) for h in heads
              if _ARGUMENTS_TITLE.fullmatch(segment.text, h.text_start, h.text_end)]
    if not titles:
        return hits
    return [h for h in hits if not any(s <= h.start < e for s, e in titles)]


def heading_reaches(heads: list[Heading], end: int) -> list[int]:
    """Per heading, where the part of the text it is over ends: at the next heading of its
    level or higher (its subsections are in it), else at ``end``."""
    out = [end] * len(heads)
    open_: list[int] = []  # headings whose reach is not found yet, their levels rising
    for i, head in enumerate(heads):
        while open_ and heads[open_[-1]].level >= head.level:
            out[open_.pop()] = head.text_start
        open_.append(i)
    return out


def over_table(segment: Segment, headings: MdHeadings,
               pos: int) -> tuple[list[Hit], tuple[int, int] | None]:
    """What names the table at ``pos`` from above, as it names a record's line: (the hits, one
    per term, of the headings over it and, for a classification report or frame printed in a
    fenced block, of the caption ending in ":" right above the block; the part of the text
    they are over: the captioned block, else the innermost heading's section with its
    subsections, None before the first heading). "#### SVM" over one report and "#### NB"
    over another: each names its own report's cells."""
    k = bisect.bisect_right(headings.bodies, pos) - 1
    above: list[Hit] = []
    scope: tuple[int, int] | None = None
    if k >= 0 and pos < headings.sections[k][1]:
        above = list(headings.sections[k][2])
        scope = (headings.bodies[k], headings.reaches[k])
    fence = fence_at(segment, pos) if segment.syntax == "md" else None
    if fence is not None:
        caption = _caption_hits(segment, fence, headings.hits, headings.starts)
        if caption:
            above += caption
            scope = (fence.start, fence.end)
    elif segment.syntax == "rst":
        titles = directive_titles(segment)  # (in text order: found by bisection)
        i = bisect.bisect_right(titles, pos, key=lambda t: t[2]) - 1
        if i >= 0 and pos < titles[i][3]:  # a csv-table's title: its caption
            ts, te, start, end = titles[i]
            title = _hits_between(headings, ts, te)
            if title:
                above += title
                scope = (start, end)
    return _one_per_term(above), scope


def _hits_between(headings: MdHeadings, lo: int, hi: int) -> list[Hit]:
    i = bisect.bisect_left(headings.starts, lo)
    return list(headings.hits[i:bisect.bisect_left(headings.starts, hi, i)])


def from_above(segment: Segment, headings: MdHeadings) -> list[tuple[int, list[Hit]]]:
    """Everything that names units of the segment from above, as (where it starts, its hits):
    each heading's section (with the hits of the headings over it), and each captioned fenced
    block of printed output (with its caption's). A claim one of them names more than the
    headings over a table do, outside that table's part of the text, is not the table's
    (`documents`)."""
    out = [(body, above) for body, _, above in headings.sections]
    for fence in fences(segment) if segment.syntax == "md" else ():
        if is_output(segment, fence):
            caption = _caption_hits(segment, fence, headings.hits, headings.starts)
            if caption:
                k = bisect.bisect_right(headings.bodies, fence.start) - 1
                above = list(headings.sections[k][2]) if k >= 0 \
                    and fence.start < headings.sections[k][1] else []
                out.append((fence.start, above + caption))
    for ts, te, start, _ in directive_titles(segment) if segment.syntax == "rst" else ():
        title = _hits_between(headings, ts, te)
        if title:
            k = bisect.bisect_right(headings.bodies, start) - 1
            above = list(headings.sections[k][2]) if k >= 0 \
                and start < headings.sections[k][1] else []
            out.append((start, above + title))
    return out


def heading_title(line: str) -> str:
    """A Markdown heading's words: its line without the ``#`` marks (or a setext rule's
    characters) and the spaces around them."""
    return line.strip("#= \t\r\n-")


def markdown_headings(segment: Segment) -> list[Heading]:
    """The segment's ATX and setext headings, in text order (none in a fenced block)."""
    text = segment.text
    front = FRONT_MATTER.match(text)  # YAML: its closing "---" underlines no heading
    heads: list[Heading] = []
    for m in _MD_HEADING.finditer("\n" + text):
        ls = m.start()  # the "\n" put before the text: offsets are the text's
        if in_fence(segment, ls) is not None:
            continue
        if front is not None and 0 < ls < front.end():
            continue  # YAML: "  # ARC (25-shot)" is a comment, its "---" closes it
        le = line_at(text, ls)[1]
        if m.group(1) is not None:
            heads.append(Heading(ls, le, le + 1, len(m.group(1))))
            continue
        if ls == 0:
            continue
        above_start, above_end = line_at(text, ls - 1)
        if _NOT_SETEXT_TEXT.match(text, above_start, above_end) is not None \
                or in_fence(segment, above_start) is not None:
            continue
        level = 1 if m.group(2)[0] == "=" else 2
        heads.append(Heading(above_start, above_end, le + 1, level))
    return heads


# A reST adornment line: one punctuation character repeated, at the margin, nothing after it
# (a simple table's "=====  =====" rule has gaps; a grid table's "+----+" border two characters)
_RST_ADORNMENT = re.compile(r"(?m)^([!-/:-@\[-`{-~])\1*[ \t]*(?=\r?$)")


def rst_titles(segment: Segment) -> list[Heading]:
    """reST's section titles, in text order, as docutils reads them: a line of text at the
    margin, after a blank line (or the text's start), under an adornment line at least as long
    (or of 4 characters or more: docutils only warns that it is short), and maybe over one of
    the same character too; each style (its character, with or without the line over it) is a
    level, numbered in the order the styles first appear. A ``----`` between blank lines is a
    transition, no title. A title's ``text_start`` is its overline's start, where the section
    before it ends."""
    text = segment.text
    heads: list[Heading] = []
    levels: dict[tuple[str, bool], int] = {}
    done = 0  # the end of the last title: its underline is no other title's overline
    for m in _RST_ADORNMENT.finditer(text):
        ls = m.start()
        if ls < done or ls == 0:
            continue
        adornment = m.group(0).rstrip()
        ts = text.rfind("\n", 0, ls - 1) + 1  # the title's line: the one above
        title = text[ts:ls - 1].rstrip()
        if not title.strip() or _RST_ADORNMENT.match(title) is not None:
            continue  # an overline (its title is below it), or a transition
        start, over = ts, False
        if ts > 0:
            above_start = text.rfind("\n", 0, ts - 1) + 1
            above = text[above_start:ts - 1].rstrip()
            if above == adornment:
                start, over = above_start, True
                if above_start > 0 and text[text.rfind("\n", 0, above_start - 1) + 1:
                                            above_start - 1].strip():
                    continue
            elif above.strip():
                continue  # a paragraph's last line: no title
        if not over and (title[0] in " \t" or len(adornment) < min(len(title), 4)):
            continue  # indented (a block quote's, a directive's), or an underline too short
        level = levels.setdefault((m.group(1), over), len(levels) + 1)
        done = line_end(text, ls)
        heads.append(Heading(start, ls - 1, min(done + 1, len(text)), level))
    return heads


def _holds_hit(starts: list[int], lo: int, hi: int) -> bool:
    i = bisect.bisect_left(starts, lo)
    return i < len(starts) and starts[i] < hi


def _sections(text: str, heads: list[Heading], hits: Sequence[Hit],
              starts: list[int]) -> list[tuple[int, int, list[Hit]]]:
    """Per heading, the lines it heads (up to the next heading's words) and the hits of it and
    of every heading over it."""
    out: list[tuple[int, int, list[Hit]]] = []
    stack: list[tuple[int, list[Hit]]] = []  # the open headings: (level, their hits)
    ends = [h.text_start for h in heads[1:]] + [len(text)]  # the end closes every heading
    for head, nxt in zip(heads, ends, strict=True):
        while stack and stack[-1][0] >= head.level:
            stack.pop()
        lo = bisect.bisect_left(starts, head.text_start)
        stack.append((head.level, _one_per_term(
            hits[lo:bisect.bisect_left(starts, head.text_end, lo)])))
        out.append((head.body, nxt, [h for _, own in stack for h in own]))
    return out


def _section_records(segment: Segment, body: int, end: int, above: list[Hit],
                     starts: list[int], out: dict[int, tuple[int, list[Hit]]]) -> None:
    """The list items and ``key: value`` lines of one heading's section (its fenced blocks
    are left to `_fence_records`)."""
    text = segment.text
    at = body
    while at < end:
        ls, le = line_at(text, at)
        fence = fence_at(segment, ls)
        if fence is not None:  # jumped over: its lines are no list's
            at = _after(text, fence.end, end)
            continue
        if _MD_RECORD.match(text, ls, le) and (above or _holds_hit(starts, ls, le)):
            out[ls] = (le, above)
        at = _after(text, ls, end)


def _after(text: str, pos: int, end: int) -> int:
    """The start of the line after the one holding ``pos``, at most ``end``."""
    nxt = text.find("\n", pos, end)
    return end if nxt < 0 else nxt + 1


def _list_children(segment: Segment, hits: Sequence[Hit], starts: list[int],
                   out: dict[int, tuple[int, list[Hit]]]) -> None:
    """Give the records nested under a list item the hits of the item (one per term) when it
    names a claim and holds no number of its own: "- **ResNet-50**" over "  - Top-1: 76.1",
    "- **FLOPs**:" over "  - ResNet-50: 84,342,784", as a heading names the lines under it. A
    parent holding a number ("- Ours reaches 76.1% top-1") states a result; it labels nothing.
    Each line is walked once, however deep the nesting."""
    text = segment.text
    walked = -1  # the end of the last subtree walked: a parent inside it was already seen
    i = 0
    while i < len(hits):
        ls, le = line_at(text, hits[i].start)
        j = bisect.bisect_left(starts, le, i)
        own, i = hits[i:j], j
        item = _LIST_ITEM.match(text, ls, le)
        if ls < walked or item is None or not _numberless(text, ls, le, own) \
                or fence_at(segment, ls) is not None:
            continue
        walked = _walk_subtree(segment, ls, le, len(item.group(1).expandtabs()),
                               _one_per_term(own), hits, starts, out)


def _walk_subtree(segment: Segment, ls: int, le: int, indent: int, own: list[Hit],
                  hits: Sequence[Hit], starts: list[int],
                  out: dict[int, tuple[int, list[Hit]]]) -> int:
    """The lines more indented than the item at ``ls`` (blank lines between them too): each
    record among them gets the hits of the numberless items over it. Returns where the walk
    stopped."""
    text = segment.text
    stack: list[tuple[int, list[Hit]]] = [(indent, own)]
    at = le + 1
    while at < len(text):
        nls, nle = line_at(text, at)
        line = text[nls:nle]
        if line.strip():
            width = len(line) - len(line.lstrip())
            depth = len(line[:width].expandtabs())
            if depth <= indent:
                return nls
            fence = fence_at(segment, nls)
            if fence is not None:
                at = _after(text, fence.end, len(text))
                continue
            while len(stack) > 1 and stack[-1][0] >= depth:
                stack.pop()
            if _MD_RECORD.match(text, nls, nle):
                above = [h for _, hs in stack for h in hs]
                if above:
                    got = out.get(nls)
                    out[nls] = (nle, above if got is None else [*got[1], *above])
            lo = bisect.bisect_left(starts, nls)
            mine = hits[lo:bisect.bisect_left(starts, nle, lo)]
            if _LIST_ITEM.match(text, nls, nle):
                stack.append((depth, _one_per_term(mine) if _numberless(text, nls, nle, mine)
                              else []))
        at = _after(text, nls, len(text))
    return len(text)


def _fence_records(segment: Segment, hits: Sequence[Hit], starts: list[int],
                   sections: list[tuple[int, int, list[Hit]]], bodies: list[int],
                   out: dict[int, tuple[int, list[Hit]]]) -> None:
    """Every line of each fenced block of printed output, with the hits that name it from
    above: the headings over the block, a caption ending in ":" right above it ("Results on
    wikisql:", "**Best model:**"), and a line inside it holding anchors and no number
    ("Best Model Performance:", "Validation Set5"), as in a log. A line of a classification
    report or printed frame inside it is that table's (`fenced.fenced_unit`), no record."""
    text = segment.text
    for fence in fences(segment):
        if not is_output(segment, fence):
            continue
        k = bisect.bisect_right(bodies, fence.start) - 1
        above = list(sections[k][2]) if k >= 0 and fence.start < sections[k][1] else []
        above += _caption_hits(segment, fence, hits, starts)
        lo = bisect.bisect_left(starts, fence.body)
        inside = hits[lo:bisect.bisect_left(starts, fence.end, lo)]
        if not above and not inside:
            continue
        inner = _log_headed(text, inside, fence.end)
        for ls, le in output_lines(segment, fence):
            heading = inner.get(ls)
            named = above + heading[1] if heading is not None else above
            if (named or _holds_hit(starts, ls, le)) \
                    and not isinstance(fenced_unit(segment, ls), Table):
                got = out.get(ls)
                out[ls] = (le, named if got is None else [*got[1], *named])


def _caption_hits(segment: Segment, fence: Fence, hits: Sequence[Hit],
                  starts: list[int]) -> list[Hit]:
    """The hits (one per term) of the line introducing ``fence``: the last non-blank line above
    it, at most one blank line up, when it ends with ":" and is no heading."""
    text = segment.text
    at = fence.start - 1
    for _ in range(2):
        if at <= 0:
            return []
        ls, le = line_at(text, at - 1)
        if text[ls:le].strip():
            if text[ls:le].lstrip().startswith("#") or not _CAPTION_END.match(text, ls, le) \
                    or fence_at(segment, ls) is not None:
                return []
            lo = bisect.bisect_left(starts, ls)
            return _one_per_term(hits[lo:bisect.bisect_left(starts, le, lo)])
        at = ls
    return []


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
