"""What GitHub strikes out in Markdown text: GFM's strikethrough (``~~old~~``, ``~old~``) and
HTML's ``<del>``, ``<s>`` and ``<strike>``, as (start, end) spans of the text.

GitHub renders Markdown with cmark-gfm; these rules follow it (each checked against cmarkgfm
0.29.0.gfm.13, the library GitHub's renderer is built on: tests/reconcile/
test_reading_round49.py quotes its renderings):

* **Blocks first.** Inline markup pairs only inside one inline block: a paragraph (its lines,
  lazy ones and a quote's included), an ATX heading's line, a pipe table's cell (a table: a
  line with a ``|`` over a delimiter row, ``|---|``, and the lines after them up to a blank
  line or a block's start). A blank line, a heading, a list item (one numbered from 1, or any
  after a paragraph's end), a quote, a thematic break or setext underline, a fence and an HTML
  block start a new one. An HTML block (CommonMark's seven
  kinds: ``<details>``, ``<div>``, ``<!--`` ... to a blank line or their end marker; a line of
  one other tag alone only where it interrupts no paragraph) is raw: no tilde nor code span
  there, while its tags are HTML and strike. An indented code block (four columns past its list
  item's text, after a blank line or a block's end) is shown as written: nothing strikes there.
* **Code spans** are a run of backticks up to the next run of as many in the same inline
  block; what is inside is text (`` `~~` ``, `` `</del>` ``). A strike may hold a code span.
* **Tildes** pair by cmark's delimiter algorithm over the whole inline block, line breaks
  included: a run of one or two that may close (right-flanking) takes the nearest run before it
  that may open (left-flanking), whatever its length, except one of the other length where
  either run may both open and close (the "rule of 3"); the two strike only when their lengths
  agree, and the runs between them pair with nothing after. Runs of three or more are text.
* **Tags** run from ``<del>`` (``<s>``, ``<strike>``) to its end tag in the same paragraph
  (never past a blank line, nor over a pipe table's rows), outside code.

Invariants: offsets are the text's (spans are sorted, disjoint, each within the piece asked
about); cost is linear in the text: a line is classified by one or two anchored matches, a
backtick run is paired once, a tilde run is pushed and popped once, and an end tag is looked
for past the last one found only.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field

__all__ = ["struck_between"]

_TILDES = re.compile(r"(?<!~)~~?(?!~)")
_TICKS = re.compile(r"`+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*(?:\n|$)")
_STRUCK_OPEN = re.compile(r"<(del|s|strike)(?=[\s>])[^<>]*>", re.I)
_STRUCK_CLOSE = {tag: re.compile(rf"</{tag}\s*>", re.I) for tag in ("del", "s", "strike")}

# a line's quote markers and the indentation of what follows them
_LINE_HEAD = re.compile(r"((?:[ ]{0,3}>[ ]?)*)([ \t]*)")
# what may start a block where a line's text starts (up to three columns in)
_BLOCK_START = re.compile(
    r"(?P<heading>#{1,6}(?:[ \t]|$))"
    r"|(?P<rule>(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$)"  # a thematic break
    r"|(?P<fence>```|~~~)"
    r"|(?P<item>(?:[-*+]|(?P<number>\d{1,9})[.)])(?P<gap>[ \t]+|$))"
    r"|(?P<html><)")
# a pipe table's delimiter row (GFM 0.29, 4.10): under its header row, it makes a table of both
_DELIMITER_ROW = re.compile(r"(?:[ ]{0,3}>[ ]?)*[ \t]*(?=[^\n]*\|)\|?(?:[ \t]*:?-+:?[ \t]*\|)*"
                            r"[ \t]*:?-+:?[ \t]*\|?[ \t]*\r?$")
# a setext heading's underline: under a paragraph's line, it makes that a heading
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
# the characters a block's start begins with: a line starting with none of them is prose
_STARTERS = frozenset("#-=*_`~+<0123456789")
# the first characters of a line that may be more than a paragraph's text (or blank)
_NOT_PROSE = frozenset("#-=*_`+<0123456789 \t>\r")
# HTML blocks (CommonMark 0.30, 4.6), by their start: the pattern of the line that ends them
# (None: a blank line ends it)
_HTML_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd"
    "|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset"
    "|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol"
    "|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr"
    "|track|ul")
_HTML_STARTS: tuple[tuple[re.Pattern[str], re.Pattern[str] | None], ...] = (
    (re.compile(r"<(?i:script|pre|style|textarea)(?:[ \t>]|$)"),
     re.compile(r"</(?i:script|pre|style|textarea)>")),
    (re.compile(r"<!--"), re.compile(r"-->")),
    (re.compile(r"<\?"), re.compile(r"\?>")),
    (re.compile(r"<![A-Za-z]"), re.compile(r">")),
    (re.compile(r"<!\[CDATA\["), re.compile(r"\]\]>")),
    (re.compile(r"</?(?i:" + _HTML_BLOCK_TAGS + r")(?:[ \t>]|/>|$)"), None),
)
# the seventh kind: one whole open or end tag alone on its line; it interrupts no paragraph
_HTML_LINE_TAG = re.compile(
    r"(?:<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^\s\"'=<>`]+"
    r"|'[^'\n]*'|\"[^\"\n]*\"))?)*[ \t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$")


def struck_between(text: str, a: int, b: int, document: bool = True) -> list[tuple[int, int]]:
    """The struck-out spans of ``text[a:b]``, a piece no fenced block cuts, sorted and
    disjoint. ``document``: the piece is a document's text, with its indented code and HTML
    blocks; else a fragment (a table's cell, one line), all of it inline text."""
    tildes = text.find("~", a, b) >= 0
    tags = text.find("<", a, b) >= 0 and _STRUCK_OPEN.search(text, a, b) is not None
    if not (tildes or tags):
        return []  # (most READMEs' "<": tags that strike nothing)
    blocks = _Blocks.of(text, a, b, document)
    ticks = text.find("`", a, b) >= 0
    spans: list[tuple[int, int]] = []
    code: list[tuple[int, int]] = []  # code spans, indented code blocks: what holds no tag
    for x, y in blocks.inline:
        in_block = _code_spans(text, x, y) if ticks else []
        code += in_block
        if tildes and text.find("~", x, y) >= 0:
            spans += _tilde_spans(text, x, y, in_block)
    if tags:
        spans += _tag_spans(text, a, b, _Verbatim(sorted(code + blocks.code)))
    return _merged(spans)


# --- blocks ------------------------------------------------------------------------------------

@dataclass
class _Blocks:
    """A text's inline blocks and indented code blocks, each as (start, end), in text order, as
    one pass over its lines finds them (`of`)."""

    inline: list[tuple[int, int]] = field(default_factory=list)
    code: list[tuple[int, int]] = field(default_factory=list)
    # the state between lines: the open paragraph (its start, end and quote depth; start -1:
    # none), the open code block (start -1: none) and the columns it needs, the open HTML
    # block and its end pattern (None: a blank line ends it), whether a pipe table is open, and
    # the open list items' text columns
    para: int = -1
    para_end: int = 0
    para_depth: int = 0
    code_start: int = -1
    code_end: int = 0
    code_columns: int = 0
    in_html: bool = False
    in_table: bool = False
    html_end: re.Pattern[str] | None = None
    html_inside: tuple[int, int] = (0, 0)  # the columns and quote depth its lines need
    items: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, text: str, a: int, b: int, document: bool) -> _Blocks:
        blocks = cls()
        pos = a
        while pos < b:
            nl = text.find("\n", pos, b)
            le = b if nl < 0 else nl
            if not blocks._prose_at(text, pos, le):
                blocks._line(text, pos, le - 1 if le > pos and text[le - 1] == "\r" else le,
                             le, document)
            pos = le + 1
        blocks._close_paragraph()
        blocks._close_code()
        return blocks

    def _prose_at(self, text: str, ls: int, le: int) -> bool:
        """Read the line from ``ls`` to ``le`` as `_line` would where that is quick: a line of
        an HTML block, or plain prose (most lines: flush left, starting no block, holding no
        pipe) where no block but a paragraph is open; False, reading nothing, elsewhere."""
        if self.in_html and self.html_end is None and self.html_inside == (0, 0):
            # an HTML block's line (the block not in a list item or quote): it goes on to a
            # blank line
            self.in_html = ls < le and not text[ls:le].isspace()
            return True
        if ls >= le or self.in_html or self.in_table or self.code_start >= 0:
            return False
        c = text[ls]
        if c in _NOT_PROSE or c == "~" and text.startswith("~~~", ls) \
                or text.find("|", ls, le) >= 0:
            return False
        if self.para >= 0:
            self.para_end = le
        else:
            self.items.clear()  # (flush left: out of every list item)
            self._open_paragraph(ls, le, 0)
        return True

    def _line(self, text: str, ls: int, end: int, le: int, document: bool,
              at: int | None = None, column: int = 0) -> None:
        """Read the line from ``ls`` to ``end`` (``le``: its line break), or from ``at`` on,
        the text of a list item whose marker ends at ``column``."""
        head = _LINE_HEAD.match(text, ls if at is None else at, end)
        assert head is not None
        cs = head.end()  # where the line's text starts
        columns = column + len(head.group(2).expandtabs(4))
        depth = head.group(1).count(">")
        if self.in_html and (cs >= end or columns >= self.html_inside[0]
                             and depth >= self.html_inside[1]):
            self._html_line(text, ls, end, cs)
            return
        self.in_html = False  # (a line out of the list item or quote holding it ends it)
        if self.code_start >= 0:
            if cs >= end or columns >= self.code_columns:
                self.code_end = le
                return
            self._close_code()
        if cs >= end:  # a blank line
            self._close_paragraph()
            self.in_table = False
            return
        base = next((c for c in reversed(self.items) if c <= columns), 0)
        if columns - base >= 4:
            if self.para >= 0 and depth <= self.para_depth:
                self.para_end = le  # a paragraph's line (or a lazy one), indented
            elif document:
                self._close_paragraph()
                self._pop_items(columns)
                self.code_start, self.code_end, self.code_columns = ls, le, base + 4
            else:
                self._close_paragraph()
                self._open_paragraph(ls, le, depth)
            return
        if text[cs] in "=-" and self.para >= 0 and not self._lazy(columns, depth) \
                and _SETEXT.match(text, cs, end):
            self._close_paragraph()  # (a heading now, its underline no text)
            return
        start = None if text[cs] not in _STARTERS else _BLOCK_START.match(text, cs, end)
        if start is not None and not self._is_prose(start, text, cs, end, columns, depth,
                                                     document):
            self.in_table = False
            self._block_line(text, start, ls, end, le, columns, depth, document)
        elif self.in_table or text.find("|", cs, end) >= 0 \
                and not (self.para >= 0 and self._lazy(columns, depth)) \
                and _table_follows(text, le):
            # a pipe table's row (its header row: the next line is its delimiter row): each of
            # its cells a block of its own
            self._close_paragraph()
            self._pop_items(columns)
            self.inline += _cells(text, cs, le)
            self.in_table = True
        elif self.para >= 0 and depth <= self.para_depth:
            self.para_end = le  # the paragraph's next line (a quote's lazy one too)
        else:
            self._close_paragraph()
            self._pop_items(columns)
            self._open_paragraph(ls, le, depth)

    def _is_prose(self, start: re.Match[str], text: str, cs: int, end: int, columns: int,
                  depth: int, document: bool) -> bool:
        """Whether a line that looks like a block's start is a paragraph's text: a list item
        numbered from other than 1, or empty, interrupts no paragraph (but may follow an item
        of its list), nor does a line of one inline tag (nor, in a fragment, any tag)."""
        # (a line out of the open list item's text is no paragraph's but by laziness: it may
        # start what interrupts none)
        in_paragraph = self.para >= 0 and not self._lazy(columns, depth)
        if start.group("html") is not None:
            return not document or _html_start(text, cs, end, in_paragraph) is None
        if start.group("fence") == "```" and text.find("`", start.end(), end) >= 0:
            return True  # ("```inline code```": no fence)
        if not in_paragraph or start.group("item") is None:
            return False
        number = start.group("number")
        return (number is not None and number != "1") or start.end() >= end

    def _block_line(self, text: str, start: re.Match[str], ls: int, end: int, le: int,
                    columns: int, depth: int, document: bool) -> None:
        self._close_paragraph()
        self._pop_items(columns)
        if start.group("html") is not None:
            found = _html_start(text, start.start(), end, False)
            assert found is not None
            self.in_html, self.html_end = True, found[1]
            self.html_inside = (self.items[-1] if self.items else 0, depth)
            if found[1] is not None and found[1].search(text, found[0], end):
                self.in_html = False  # ended on its first line
            return
        if start.group("item") is not None:
            self._item_line(text, start, ls, end, le, columns, document)
            return
        if start.group("rule") is None:  # a heading or a fence line: a block of its own
            self.inline.append((ls, le))

    def _lazy(self, columns: int, depth: int) -> bool:
        """Whether a line starting at ``columns``, in ``depth`` quotes, is out of the open
        paragraph's list item or quote: it goes on the paragraph only as a lazy line (where it
        starts no block)."""
        return depth < self.para_depth or bool(self.items) and columns < self.items[-1]

    def _item_line(self, text: str, start: re.Match[str], ls: int, end: int, le: int,
                   columns: int, document: bool) -> None:
        """A list item's first line: its text is read as a line of its own (a paragraph's, an
        HTML block's, or indented code's where five or more spaces follow the marker)."""
        marker = start.start("gap") - start.start()
        gap = len(start.group("gap").expandtabs(4))
        if 1 <= gap <= 4 and start.end() < end:
            at, column = start.end(), columns + marker + gap
        else:  # (one space of the gap, the rest indents the item's first block)
            at, column = start.start("gap") + (gap > 0), columns + marker + 1
        self.items.append(column)
        if at < end:
            self._line(text, ls, end, le, document, at, column)

    def _html_line(self, text: str, ls: int, end: int, cs: int) -> None:
        if self.html_end is None:
            self.in_html = cs < end  # a blank line ends it
        elif self.html_end.search(text, ls, end):
            self.in_html = False

    def _open_paragraph(self, ls: int, le: int, depth: int) -> None:
        self.para, self.para_end, self.para_depth = ls, le, depth

    def _close_paragraph(self) -> None:
        if self.para >= 0:
            self.inline.append((self.para, self.para_end))
            self.para = -1

    def _close_code(self) -> None:
        if self.code_start >= 0:
            self.code.append((self.code_start, self.code_end))
            self.code_start = -1

    def _pop_items(self, columns: int) -> None:
        """A line that is no paragraph's lazy one ends the list items whose text is further in."""
        while self.items and self.items[-1] > columns:
            self.items.pop()


def _cells(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The cells of the pipe table row ``text[a:b]``: split at each pipe no backslash escapes
    (a code span's too, as GFM splits a row before reading its cells)."""
    cells: list[tuple[int, int]] = []
    at = a
    while (bar := text.find("|", at, b)) >= 0:
        if bar == a or text[bar - 1] != "\\":
            cells.append((a, bar))
            a = bar + 1
        at = bar + 1
    cells.append((a, b))
    return cells


def _table_follows(text: str, le: int) -> bool:
    """Whether the line after the one ending at ``le`` is a pipe table's delimiter row."""
    if le >= len(text):
        return False
    end = text.find("\n", le + 1)
    return _DELIMITER_ROW.match(text, le + 1, len(text) if end < 0 else end) is not None


def _html_start(text: str, at: int, end: int,
                in_paragraph: bool) -> tuple[int, re.Pattern[str] | None] | None:
    """The HTML block a line starting with ``<`` at ``at`` opens, as (where to look for its
    end, the pattern that ends it; None: a blank line); None where it opens none."""
    for opens, ends in _HTML_STARTS:
        m = opens.match(text, at, end)
        if m is not None:
            return m.end(), ends
    if not in_paragraph and _HTML_LINE_TAG.match(text, at, end):
        return end, None
    return None


# --- code spans, tildes, tags ------------------------------------------------------------------

def _code_spans(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The code spans of the inline block ``text[a:b]``, backticks included: a run of backticks
    up to the next run of as many (CommonMark); an unmatched run is text."""
    if text.find("`", a, b) < 0:
        return []
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, a, b)]
    after: list[int | None] = [None] * len(runs)  # the next run of the same length
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        n = runs[i][1] - runs[i][0]
        after[i] = last.get(n)
        last[n] = i
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        j = after[i]
        if j is None:
            i += 1
            continue
        spans.append((runs[i][0], runs[j][1]))
        i = j + 1
    return spans


_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _punct(ch: str) -> bool:
    if ch < "\x80":
        return ch in _ASCII_PUNCT
    return unicodedata.category(ch)[0] in "PS"


def _tilde_spans(text: str, a: int, b: int, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The GFM strikethrough spans of the inline block ``text[a:b]`` (``code``: its code
    spans, whose tildes are text), by cmark-gfm's delimiter algorithm (see the module's
    docstring)."""
    spans: list[tuple[int, int]] = []
    # the runs that may open, as (start, length, may close too): cmark's delimiter stack
    stack: list[tuple[int, int, bool]] = []
    # per closer length, the opener (its start) at which a search stops: cmark-gfm 0.29's
    # openers_bottom, set where a closer of that length found no opener
    bottom: dict[int, int] = {}
    k, n_code, n_text = 0, len(code), len(text)
    for m in _TILDES.finditer(text, a, b):
        x, y = m.span()
        if n_code:
            while k < n_code and code[k][1] <= x:
                k += 1
            if k < n_code and code[k][0] <= x:
                continue  # in a code span
        n = y - x
        before = text[x - 1] if x > 0 else " "
        after = text[y] if y < n_text else " "
        space_before, space_after = before.isspace(), after.isspace()
        punct_before = not space_before and _punct(before)
        punct_after = not space_after and _punct(after)
        opens = not space_after and (not punct_after or space_before or punct_before)
        closes = not space_before and (not punct_before or space_after or punct_after)
        if closes:
            found = _opener(stack, n, opens, bottom.get(n, -1)) if stack else -1
            if found >= 0:
                start, length, _ = stack[found]
                if length == n:
                    spans.append((start, y))
                del stack[found:]  # the runs between pair with nothing after
                continue
            bottom[n] = stack[-1][0] if stack else -1
        if opens:
            stack.append((x, n, closes))
    return spans


def _opener(stack: list[tuple[int, int, bool]], n: int, opens: bool, stop: int) -> int:
    """Where in ``stack`` the opener of a closing run of ``n`` tildes is (that may ``opens``
    too), searched down to the opener starting at ``stop``; -1 for none."""
    for i in range(len(stack) - 1, -1, -1):
        start, length, closes = stack[i]
        if start == stop:
            break
        if length == n or not (opens or closes):  # (the rule of 3: 1 + 2 tildes)
            return i
    return -1


@dataclass(frozen=True)
class _Verbatim:
    """Sorted, disjoint spans whose text is shown as written (code): where no tag is one."""

    spans: list[tuple[int, int]]

    def around(self, pos: int) -> tuple[int, int] | None:
        i = bisect.bisect_right(self.spans, pos, key=_span_start) - 1
        return self.spans[i] if i >= 0 and pos < self.spans[i][1] else None

    def search(self, rx: re.Pattern[str], text: str, at: int, b: int) -> re.Match[str] | None:
        """``rx``'s first match in ``text[at:b]`` outside the spans."""
        while (m := rx.search(text, at, b)) is not None:
            span = self.around(m.start())
            if span is None:
                return m
            at = span[1]
        return None


def _span_start(span: tuple[int, int]) -> int:
    return span[0]


def _tag_spans(text: str, a: int, b: int, code: _Verbatim) -> list[tuple[int, int]]:
    """The spans of ``<del>``, ``<s>``, ``<strike>`` to their end tag between ``a`` and ``b``,
    outside ``code``, in one paragraph, over no pipe table's rows."""
    breaks = [m.start() for m in _PARAGRAPH_BREAK.finditer(text, a, b)] \
        if text.find("\n", a, b) >= 0 else []
    spans: list[tuple[int, int]] = []
    found: dict[str, int | None] = {}  # a tag's next end tag, searched for once per end tag
    at = a
    while (m := code.search(_STRUCK_OPEN, text, at, b)) is not None:
        tag = m.group(1).lower()
        close = found.get(tag, -1)
        if close is not None and close < m.end():
            got = code.search(_STRUCK_CLOSE[tag], text, m.end(), b)
            close = found[tag] = None if got is None else got.start()
        if close is None or _paragraph_between(breaks, m.end(), close) \
                or _across_rows(text, m.end(), close):
            at = m.end()
            continue
        end = _STRUCK_CLOSE[tag].match(text, close)
        assert end is not None
        spans.append((m.start(), end.end()))
        at = end.end()
    return spans


def _paragraph_between(breaks: list[int], a: int, b: int) -> bool:
    i = bisect.bisect_left(breaks, a)
    return i < len(breaks) and breaks[i] < b


def _across_rows(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` runs over a line break and a pipe: over a pipe table's rows."""
    return text.find("\n", a, b) >= 0 and text.find("|", a, b) >= 0


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, overlapping ones joined (a tag pair and tildes striking over each
    other: GitHub strikes both)."""
    out: list[tuple[int, int]] = []
    for x, y in sorted(spans):
        if out and x < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], y))
        else:
            out.append((x, y))
    return out
