"""The split (train, val, test, eval) each section of a document reports, by its heading.

"## Test results" over a table or a sentence says its numbers are the test split's; a claim on
another split (`number_roles.metric_split`) is not theirs, as when the numbers' own words say
so. A unit's own words (a column's header, a row's label, a key, a sentence's "on the training
data") come first; a section's split is the fallback (`documents`).

Invariants: sections are read from Markdown headings (ATX and setext, none in a fence),
reST section titles (`log_units.rst_titles`), LaTeX sectioning commands outside comments, and,
in a notebook, from the markdown cells above
a cell (`Segment.sections`, the headings still open where it starts: "## Test" over the next
cells' outputs); a section runs to the next heading of its level or higher. A LaTeX table or
figure environment whose ``\\caption`` names a split ("Accuracy on the test set.") is a
section of its own, inside the one it is in. The split over a place is that of the innermost
section holding it whose heading names one (`number_roles.heading_split`), so "## Test
results" then "### CIFAR-10" is still the test split's. Other syntaxes have no sections of
their own.
"""

from __future__ import annotations

import bisect
import re

from labledger.reconcile.doc_markers import braced_end
from labledger.reconcile.doc_readers import Segment
from labledger.reconcile.log_units import (
    Heading,
    heading_reaches,
    heading_title,
    markdown_headings,
    rst_titles,
)
from labledger.reconcile.number_roles import heading_split

__all__ = ["SectionSplits", "section_splits"]

_TEX_LEVELS = {"part": -1, "chapter": 0, "section": 1, "subsection": 2, "subsubsection": 3,
               "paragraph": 4, "subparagraph": 5}
_TEX_SECTION = re.compile(r"\\(" + "|".join(_TEX_LEVELS) + r")\*?(?:\[[^\]\n]*\])?\{")
_TEX_COMMENT = re.compile(r"(?<!\\)%")
_TITLE_MAX = 300  # characters a section's title may take (on its line)
_TEX_FLOAT = re.compile(r"\\begin\{(table|figure)(\*?)\}")
_TEX_CAPTION = re.compile(r"\\caption(?:\[[^\]\n]*\])?\{")


class SectionSplits:
    """The sections of one segment whose headings name a split: `at` answers for a place."""

    def __init__(self, sections: list[tuple[int, int, str]]) -> None:
        self._sections = sections  # (body, end, split), by body
        self._bodies = [body for body, _, _ in sections]

    def at(self, pos: int) -> str | None:
        """The split of the innermost section holding ``pos`` whose heading names one."""
        # sections nest: of those starting at or before pos, the last one still open holds it
        for k in range(bisect.bisect_right(self._bodies, pos) - 1, -1, -1):
            _, end, split = self._sections[k]
            if pos < end:
                return split
        return None


def section_splits(seg: Segment) -> SectionSplits | None:
    """The segment's sections naming a split, or None when none does (most documents)."""
    # the headings open where the segment starts (a notebook's cells above it) come first, as
    # headings at its start: a heading of the segment closes those of its level or lower
    heads = [Heading(0, 0, 0, level) for level, _ in seg.sections]
    splits: list[str | None] = [split for _, split in seg.sections]
    if seg.syntax == "md":
        own = markdown_headings(seg)
        titles = [heading_title(seg.text[h.text_start:h.text_end]) for h in own]
    elif seg.syntax == "tex":
        own, titles = _tex_headings(seg.text)
    elif seg.syntax == "rst":
        own = rst_titles(seg)
        # (an overlined title's text_start is its overline: the title is its last line)
        titles = [seg.text[h.text_start:h.text_end].rsplit("\n", 1)[-1].strip() for h in own]
    elif not heads:
        return None
    else:
        own, titles = [], []
    heads += own
    splits += [heading_split(title) for title in titles]
    reaches = heading_reaches(heads, len(seg.text))
    sections = [(head.body, end, split) for head, end, split in zip(heads, reaches, splits,
                                                                    strict=True)
                if split is not None]
    if seg.syntax == "tex":
        sections = sorted(sections + _tex_floats(seg.text))
    return SectionSplits(sections) if sections else None


class _Comments:
    """Whether a place of a LaTeX text is in a comment: each line's ``%`` found once (a line
    of a thousand ``\\section{...}`` was searched from its start a thousand times)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._line = (-1, -1)  # (a line's start, where its comment starts, or its end)

    def __contains__(self, pos: int) -> bool:
        text = self._text
        ls = text.rfind("\n", 0, pos) + 1
        if self._line[0] != ls:
            le = text.find("\n", ls)
            le = len(text) if le < 0 else le
            m = _TEX_COMMENT.search(text, ls, le)
            self._line = (ls, m.start() if m else le)
        return pos > self._line[1]


def _tex_headings(text: str) -> tuple[list[Heading], list[str]]:
    """LaTeX's sectioning commands outside comments, with their titles."""
    heads: list[Heading] = []
    titles: list[str] = []
    comments = _Comments(text)
    for m in _TEX_SECTION.finditer(text):
        if m.start() in comments:
            continue
        # (a title on its line, of a few words: an unclosed brace is no title, and is not
        # walked past them)
        le = text.find("\n", m.end(), m.end() + _TITLE_MAX)
        close = braced_end(text, m.end(), _TITLE_MAX if le < 0 else le - m.end())
        if close < 0:
            continue
        heads.append(Heading(m.start(), close + 1, close + 1, _TEX_LEVELS[m.group(1)]))
        titles.append(text[m.end():close])
    return heads, titles


def _tex_floats(text: str) -> list[tuple[int, int, str]]:
    """(start, end, split) of each table or figure environment outside comments whose caption
    names a split."""
    out: list[tuple[int, int, str]] = []
    comments = _Comments(text)
    unended: set[str] = set()  # environments with no \end after some \begin: none after later
    for m in _TEX_FLOAT.finditer(text):
        name = m.group(1) + m.group(2)
        if name in unended or m.start() in comments:
            continue
        end = text.find(f"\\end{{{name}}}", m.end())
        if end < 0:
            unended.add(name)
            continue
        caption = _TEX_CAPTION.search(text, m.end(), end)
        if caption is None:
            continue
        close = braced_end(text, caption.end())
        if close < 0 or close > end:
            continue
        split = heading_split(text[caption.end():close])
        if split is not None:
            out.append((m.start(), end, split))
    return out
