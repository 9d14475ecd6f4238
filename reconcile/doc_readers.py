"""Documents as text segments with positions, and the units (sentences, tables) inside them.

Formats, by file suffix: Markdown (``.md``, ``.markdown``; Quarto's ``.qmd`` and R Markdown's
``.Rmd``, whose code chunks are fenced code: `fenced.info_language`; an HTML page, ``.html``,
``.htm``, as the text it shows: `html_pages`, one character for one; a Typst paper, ``.typ``, as
its markup: `typst_pages`, likewise), LaTeX (``.tex``, ``.latex``),
reStructuredText (``.rst``), plain text (``.txt``, ``.text``), CSV (``.csv``), TSV (``.tsv``,
``.tab``) and Jupyter notebooks (``.ipynb``: markdown cells, and the text of code cells'
outputs: streams, ``text/plain``, ``text/markdown``, ``text/latex``; code itself is not read).

Invariants:

* **Nothing is skipped.** A document that is missing, unreadable, not UTF-8, of an unknown
  type, or a notebook that is not notebook JSON raises `DocumentError` naming it.
* **Offsets are the file's.** A `Segment` is a file's text (or one notebook cell or output)
  unchanged; every offset a caller gets is into it, and `Segment.position` turns an offset into
  a 1-based line and column (for a notebook: within that cell or output). Masking (hiding
  citations, URLs, LaTeX commands, comments and struck-out text from the number scanner, and
  LaTeX's layout: a box's size, angle or scale, a rule's width, a colour's name)
  replaces characters
  with spaces one for one, so offsets never shift. The one exception is another file's lines
  read into a segment (`Splice`: a reST csv-table's ``:file:``, `included`): `Segment.position`
  and `Segment.path_at` give a place in them as that file's line and column.
* **Units are found lazily**, around a position: `units.unit_at` returns the sentence (prose) or the
  table (Markdown pipe table, LaTeX ``tabular``, a plain-text table aligned the way pandas
  prints a DataFrame: `aligned_table`) that holds it. Only text near an anchor or a
  marker is ever split, so a 10 MB tree costs one scan, not one parse per sentence.
"""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from labledger.reconcile._text import decode_text, undecodable
from labledger.reconcile.coco_summary import TRIGGER as _COCO_TRIGGER
from labledger.reconcile.coco_summary import blank_brackets
from labledger.reconcile.decimal_mark import decimal_comma
from labledger.reconcile.errors import DocumentError
from labledger.reconcile.md_strikes import struck_between

__all__ = ["FORMATS", "FORMAT_COMMAND", "Cell", "Fence", "JoinedName", "Segment", "Sentence",
           "Splice", "Table",
           "aligned_table", "blank_struck", "blanked", "delimited_table", "fence_at", "fences",
           "format_of", "head_spans_by_name",
           "in_fence", "is_log", "is_typst_path", "latex_table", "line_at", "line_end",
           "markdown_table", "mask", "mask_text",
           "read_document", "report_table", "sentence_around", "span_holding"]

FORMATS: dict[str, str] = {
    ".md": "md", ".markdown": "md", ".qmd": "md", ".rmd": "md", ".html": "md", ".htm": "md",
    ".typ": "md",
    ".tex": "tex", ".latex": "tex", ".rst": "rst",
    ".txt": "txt", ".text": "txt", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv",
    ".ipynb": "ipynb",
}
_MAX_UNIT = 4000  # a sentence longer than this is cut: no scan runs away on a huge line


@dataclass(frozen=True, slots=True)
class Splice:
    """Another file's lines inserted into a segment's text: a reST ``csv-table``'s ``:file:``
    read as the directive's body (`included`). Its numbers are that file's: a finding there
    names the file, and the line and column the number has in it."""

    start: int   # where the inserted text starts in the segment's text (a blank line first)
    body: int    # where the included file's first line starts
    end: int     # where the inserted text ends (the host's text goes on)
    path: str    # the included file, as displayed
    indent: int  # characters put before each of its lines (the directive's body indent)
    lines: int   # newlines inserted: the host's lines after it are that many lower


@dataclass(eq=False)
class Segment:
    """A run of text in one syntax: a whole file, or one notebook cell or output."""

    path: str            # as displayed (relative to the working directory when possible)
    syntax: str          # md | tex | rst | txt | csv | tsv
    text: str
    where: str | None = None  # "cell 3" / "cell 3, output 1" inside a notebook
    # A printed log by what wrote it (a notebook's stream or text/plain output of several
    # lines, or one holding a progress bar), whatever its lines look like: read a line per unit
    # (`is_log`). Part of the judging cache's key.
    printed: bool = False
    # The headings naming a split (`section_splits`) open where the segment starts, as (level,
    # split), outermost first: a notebook's markdown cells head the cells after them ("## Test"
    # over a cell printing a report). Part of the judging cache's key.
    sections: tuple[tuple[int, str], ...] = ()
    # A notebook's stream output (stdout, stderr: what the code printed as it ran), not a
    # result's repr: a training's epochs are printed so, `evaluate()`'s dict is returned. Read
    # after judging only (`progress.judge_history`), so no part of the judging cache's key.
    stream: bool = False
    # Other files' lines inserted into ``text`` (a reST csv-table's ``:file:``), in text order:
    # `position` and `path_at` give their places in those files. Part of the judging cache's key.
    splices: tuple[Splice, ...] = ()
    # The file whose declaration (babel ngerman, siunitx's decimal marker) says this LaTeX file
    # writes decimal commas: a main.tex that \inputs it, or a preamble that main.tex \inputs
    # (`included`). Part of the judging cache's key.
    decimal_from: str | None = None
    # A LaTeX file read because a document reconciled includes it, not given itself
    # (`included.with_included`): "main.tex:12", where the ``\input`` is
    included_by: str | None = None
    _cache: dict[str, object] = field(default_factory=dict, repr=False)

    def remembered(self, key: str, make: Callable[[], bool]) -> bool:
        """``make()``, worked out once per segment (a fact of its text, as ``key``)."""
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = make()
        return bool(got)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``: in the file `path_at` names."""
        if self.splices:
            return self._spliced(offset)
        return self._position(offset)

    def path_at(self, offset: int) -> str:
        """The file (as displayed) whose text is at ``offset``: ``path``, or a spliced file's."""
        if self.splices:
            splice = self._splice_at(offset)
            if splice is not None:
                return splice.path
        return self.path

    def _splice_at(self, offset: int) -> Splice | None:
        i = bisect.bisect_right(self.splices, offset, key=_body_of) - 1
        if i >= 0 and offset < self.splices[i].end:
            return self.splices[i]
        return None

    def _spliced(self, offset: int) -> tuple[int, int]:
        splice = self._splice_at(offset)
        text = self.text
        if splice is not None:  # the included file's own line and column
            line = 1 + text.count("\n", splice.body, offset)
            return line, max(1, offset - text.rfind("\n", 0, offset) - splice.indent)
        line, col = self._position(offset)
        return line - sum(s.lines for s in self.splices if s.end <= offset), col

    def _position(self, offset: int) -> tuple[int, int]:
        # Counted with str.count from the last place asked (C speed; places are mostly asked in
        # text order), not from a table of line starts: building one loops in Python per line.
        text = self.text
        last = self._cache.get("at")
        if isinstance(last, tuple) and last[0] <= offset:
            line = last[1] + text.count("\n", last[0], offset)
        else:
            line = text.count("\n", 0, offset) + 1
        self._cache["at"] = (offset, line)
        return line, offset - text.rfind("\n", 0, offset)


def _body_of(splice: Splice) -> int:
    return splice.body


def format_of(path: str) -> str | None:
    return FORMATS.get(Path(path).suffix.lower())


def is_typst_path(path: str) -> bool:
    """Whether ``path`` is a Typst paper's (``.typ``): read as Markdown's text, its code
    blanked (`typst_pages`)."""
    return path[-4:].lower() == ".typ"


def read_document(path: str, data: bytes) -> list[Segment]:
    """Split one document's bytes into segments; `DocumentError` when it cannot be read."""
    kind = format_of(path)
    if kind is None:
        known = ", ".join(sorted(FORMATS))
        raise DocumentError([(path, f"unknown document type {Path(path).suffix or '(none)'!r}; "
                                    f"reconcile reads {known}")])
    try:
        text = decode_text(data)
    except UnicodeDecodeError as exc:
        raise DocumentError([(path, undecodable(data, exc))]) from None
    nul = text.find("\0")
    if nul >= 0:
        # valid UTF-8 but no text: UTF-16 without its byte-order mark decodes so (ASCII
        # letters between NULs), and judging it found no number: a silent skip
        raise DocumentError([(path, f"not UTF-8 text (a NUL character at offset {nul}: a "
                                    "binary file, or UTF-16 without its byte-order mark)")])
    if kind == "ipynb":
        # imported here: `notebooks` builds on this module's segments and blanking
        from labledger.reconcile.notebooks import read_notebook

        return read_notebook(path, text)
    if path.lower().endswith((".html", ".htm")):
        # a project page: what a browser shows, where it is (`html_pages`), read as Markdown
        from labledger.reconcile.html_pages import page_text

        text = page_text(text)
    elif is_typst_path(path):
        # a Typst paper: its markup, its code blanked (`typst_pages`), read as Markdown
        from labledger.reconcile.typst_pages import page_text as typst_text

        text = typst_text(text)
    return [Segment(path, kind, text)]


# --- masking: hide what is not prose from the number scanner, one space per character ---------

_MASKS: dict[str, re.Pattern[str]] = {
    "md": re.compile(
        r"<!--.*?-->|<[A-Za-z/][^>\n]*>|\]\([^)\n]*\)|\]\[[^\]\n]*\]|https?://\S+"
        r"|\[\^[^\]\n]*\]|\[\d+(?:\s*[,\u2013-]\s*\d+)*\]"
        # a link's opening bracket (after a citation's "[12]", which goes whole), so its text
        # reads as a cell's whole: "| [31.52](logs/ours.txt) |", a README linking a score to
        # its log (no "[" inside the lookahead: linear in a line of "[[[")
        r"|!?\[(?=[^\[\]\n]*\][(\[])"
        r"|(?m:^[ \t]*(?:#+[ \t]*[\d.]+|\d+[.)])(?=\s))",
        re.S),
    "tex": re.compile(
        r"(?<!\\)%[^\n]*"
        # \href's URL, not the text it prints (\href{https://...}{31.52} shows 31.52)
        r"|\\href\*?\{[^{}]*\}"
        # a tabular's position and column spec, braces nested ("\begin{tabular}[c]{@{}c@{}}", a
        # multi-line cell as LaTeX table generators write it), no cell's text
        r"|\\begin\{(?:tabular[x*]?|array|tabulary)\}(?:\[[^\]]*\])?(?:\{(?:[^{}]|\{[^{}]*\})*\})?"
        r"|\\(?:cite[a-z]*|[a-z]*ref|label|url|includegraphics|input|include|bibliography"
        r"|bibliographystyle|usepackage|documentclass|begin|end|[vh]space|cline|cmidrule"
        r"|setlength|addtolength|definecolor|rule|fontsize|claimref|claimbind|arraystretch"
        r"|setcounter|addlinespace)\*?(?:\[[^\]]*\]|\([^)]*\))*(?:\{[^{}]*\})?(?:\{[^{}]*\})?"
        # (a column spec may nest braces: "{>{\columncolor{green}[0pt][0pt]}c}", "{|>{\centering
        # \arraybackslash}p{1.2cm}|}")
        r"|\\multicolumn\*?(?:\{[^{}]*\}|\[[^\]]*\])(?:\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\})?"
        r"|\\multirow\*?(?:\[[^\]]*\])?\{[^{}]*\}(?:\[[^\]]*\])?(?:\{[^{}]*\})?(?:\[[^\]]*\])?"
        # a rule's width and spacing between rows (\specialrule{.1em}{.05em}{.05em}, makecell's
        # \Xhline{1.2pt}, \noalign{\vskip 0.5mm}, arydshln's \cdashline{2-3}[1pt/1pt]): read as
        # the next row's label, they made its first cell a number, the row unnamed
        r"|\\(?:specialrule\{[^{}]*\}\{[^{}]*\}\{[^{}]*\}|Xhline\{[^{}]*\}"
        r"|noalign\{(?:[^{}]|\{[^{}]*\})*\}|[ch]dashline(?:\{[^{}]*\})?(?:\[[^\]]*\])?)"
        # a colour's model and name, not the cell it colours (\cellcolor{gray!20}{0.912}: the
        # group after the name is the cell's text)
        r"|\\(?:cellcolor|rowcolor|columncolor)(?:\[[^\]]*\])?\{[^{}]*\}"
        # a box's width, height, angle, lift or scale: layout, not a value (\parbox[t]{2cm}{...}
        # read as 2, \rotatebox{90}{...} as 90); what the box holds stays
        r"|\\parbox(?:\[[^\]]*\]){0,3}\{[^{}]*\}|\\(?:makebox|framebox)(?:\[[^\]]*\]){0,2}"
        r"|\\raisebox\{[^{}]*\}(?:\[[^\]]*\]){0,2}|\\rotatebox(?:\[[^\]]*\])?\{[^{}]*\}"
        r"|\\scalebox\{[^{}]*\}(?:\[[^\]]*\])?|\\resizebox\*?\{[^{}]*\}\{[^{}]*\}"
        r"|\\adjustbox\{[^{}]*\}"
        # the \tabincell{c}{...} Chinese papers define for a multi-line cell: its alignment
        r"|\\tabincell\{[^{}]*\}"
        # a colour's name or model, not the text it colours (\textcolor{blue}{18.34}); what a
        # \phantom only makes room for (\phantom{0}9.5: the 0 is never printed), braces nested
        # too: a gain set in a subscript after the value, room made for it before so the value
        # stays centred ("\hphantom{\textsubscript{+4.1}}86.1\textsubscript{\textcolor{red}{
        # +4.1}}", the \dvalp macro of a LaTeX-to-Word converter's tests: its +4.1 was read
        # as the cell's number, the cell no value, round 63)
        r"|\\(?:(?:textcolor|colorbox|color)(?:\[[^\]]*\])?\{[^{}]*\}"
        r"|[hv]?phantom(?:\[[^\]]*\])?\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\})"
        r"|\\\\(?:\[[^\]]*\])?|\\(?!(?:pm|mp|times|cdot)(?![A-Za-z]))[A-Za-z@]+\*?(?:\[[^\]]*\])?"
        r"|\\[^A-Za-z%,\s]", re.S),
    # (a role starts a run of name characters and colons: tried from every colon of a long
    # "a:a:a:" run, it read the run to its end from each, quadratic in the run)
    "rst": re.compile(
        r"(?m:^\.\. .*$)|(?<![\w:.-]):(?:[\w.-]++:)++`[^`]*`|`[^`<]*<[^>]*>`_|\[#?[\w-]*\]_"
        r"|https?://\S+"),
    "txt": re.compile(r"https?://\S+"),
}
_MASKS["csv"] = _MASKS["tsv"] = _MASKS["txt"]


def blanked(text: str) -> str:
    """``text`` with every character but its line breaks a space (offsets and lines kept)."""
    return re.sub(r"[^\n]", " ", text)


def _blank(m: re.Match[str]) -> str:
    return blanked(m.group(0))


# --- struck-out text: an old value a corrected document keeps in sight, shown beside the new one
# ("| Ours | ~~76.9~~ 76.3 |"): no claim's value, blanked whole, markup and all. What GitHub
# strikes (`md_strikes`): GFM's strikethrough (one or two tildes, paired by cmark-gfm's
# delimiter rules over the lines of one paragraph) and HTML's <del>, <s> and <strike> up to
# their end tag in the same paragraph; never inside a code span (`<s>`, a tokenizer's token, is
# text there), an indented code block or a fenced one, nor tildes in an HTML block. A segment's
# strikes are found once, over its whole text (`struck_spans`): a strike over a sentence's end
# is seen from both.


def blank_struck(text: str) -> str:
    """``text`` (a fragment: a table's cell, a line) with its struck-out spans blanked (offsets
    and lines kept). Linear (`md_strikes`)."""
    if "~" not in text and "<" not in text:
        return text
    return _blank_spans(text, 0, struck_between(text, 0, len(text), document=False))


def struck_spans(segment: Segment) -> list[tuple[int, int]]:
    """The struck-out spans of a Markdown segment outside its fenced blocks, as sorted, disjoint
    (start, end) offsets; found once per segment."""
    found = segment._cache.get("struck")
    if found is None:
        found = segment._cache["struck"] = _struck_outside_fences(segment)
    assert isinstance(found, list)
    return found


def _struck_outside_fences(segment: Segment) -> list[tuple[int, int]]:
    text = segment.text
    if "~" not in text and "<" not in text:
        return []
    spans: list[tuple[int, int]] = []
    at = 0
    for fence in fences(segment):
        spans += struck_between(text, at, fence.start)
        at = min(len(text), line_end(text, fence.end) + 1)  # after its closing line
    return spans + struck_between(text, at, len(text))


def _blank_spans(text: str, base: int, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` (which starts at offset ``base``) with the parts of ``spans`` in it blanked."""
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for x, y in spans:
        x, y = max(0, x - base), min(len(text), y - base)
        if x >= y:
            continue
        pieces += [text[last:x], blanked(text[x:y])]
        last = y
    pieces.append(text[last:])
    return "".join(pieces)


# Without one of these a text has nothing to mask (most table cells): skip the big regex.
_MASK_TRIGGERS = {
    "md": re.compile(r"[<\[\]:~]|(?:^|\n)[ \t]*[#\d]"), "tex": re.compile(r"[\\%]"),
    "rst": re.compile(r"[.:`\[]"), "txt": re.compile(":"),
}
_MASK_TRIGGERS["csv"] = _MASK_TRIGGERS["tsv"] = _MASK_TRIGGERS["txt"]


def mask_text(syntax: str, text: str, comma: bool = False, struck: bool = True) -> str:
    """``text`` with non-prose spans (commands, URLs, citations, comments) blanked (siunitx's
    numbers printed with a decimal comma where ``comma``: see `siunitx_plain`), and in Markdown
    its struck-out text (`blank_struck`) where ``struck``."""
    if _COCO_TRIGGER in text:  # a COCOeval summary's bracket: thresholds, no values
        text = blank_brackets(text)
    if _MASK_TRIGGERS[syntax].search(text) is None:
        return text
    if syntax == "tex":
        text = siunitx_plain(text, comma)
    elif syntax == "rst" and "`" in text:
        text = _RST_SHOWN.sub(_rst_shown, text)
    elif syntax == "md":
        return _mask_md(blank_struck(text) if struck else text)
    return _MASKS[syntax].sub(_blank, text)


# Markdown openers that match nothing when their closer does not follow (on their line; for a
# comment, anywhere after it): (the opener, the character of it a stand-in replaces, what
# closes it). Each failed try of `_MASKS["md"]` scanned to the line's end (a comment's to the
# text's), so a long line of "<a<a<a", "](](](" or "[^[^[^" (a log line, a list item under a
# heading: units of any length) cost its length squared.
_DEAD_OPENERS = ((re.compile(r"<[A-Za-z/]"), 0, ">"), (re.compile(r"\]\("), 1, ")"),
                 (re.compile(r"\[\^"), 1, "]"))
_STAND_IN = "\x00"  # matched by every other alternative as the character it stands for


def _mask_md(text: str) -> str:
    """`_MASKS` for Markdown, linear in the text: the openers after the last closer of their
    line (or, for a comment, of the text) are first replaced by a character that starts no
    match (they start none anyway) and is read as they are by every other alternative; those
    left unblanked are put back."""
    rx = _MASKS["md"]
    if _STAND_IN in text or text.count("<") + text.count("](") + text.count("[^") < 32:
        return rx.sub(_blank, text)
    dead: list[tuple[int, str]] = []
    for opener, at, stop in _DEAD_OPENERS:
        # each line's tail after its last closer (a line without one: all of it)
        tails = re.compile(rf"(?<![^{re.escape(stop)}\n])[^{re.escape(stop)}\n]*+")
        for tail in tails.finditer(text):
            if tail.end() < len(text) and text[tail.end()] != "\n":
                continue  # a closer follows: this is no tail
            dead += [(m.start() + at, m.group(0)[at])
                     for m in opener.finditer(text, tail.start(), tail.end())]
    last = text.rfind("-->")
    at = text.find("<!--", max(0, last - 3))
    while at >= 0:
        if last < at + 4:
            dead.append((at, "<"))
        at = text.find("<!--", at + 1)
    if not dead:
        return rx.sub(_blank, text)
    chars = list(text)
    for at, _ in dead:
        chars[at] = _STAND_IN
    out = list(rx.sub(_blank, "".join(chars)))
    for at, ch in dead:
        if out[at] == _STAND_IN:
            out[at] = ch
    return "".join(out)


# reST roles whose content is printed as it stands (:math:`0.913`, :strong:`31.42`): the role
# and its backticks are blanked, the content stays (other roles, :ref: :cite: :doc:..., name
# something else and are blanked whole)
_RST_SHOWN = re.compile(r":(?:math|strong|emphasis|sup|sub|superscript|subscript|literal|code"
                        r"|samp|abbr):`([^`]*)`")


def _rst_shown(m: re.Match[str]) -> str:
    inner = m.start(1) - m.start()
    return " " * inner + m.group(1) + " "


# siunitx: \num{31.4}, \SI{91.3}{\percent}, \qty{91.3}{\%}, \si{\percent}, \SI[opts]{..}{..}
# (options hold no backslash: an unclosed "[" stops at the next command instead of being
# searched to the end of the text from every \num, a quadratic scan)
_SIUNITX = re.compile(r"\\(num|SI|qty|si)\b\s*(?:\[[^\]{}\\]*\])?\s*\{([^{}]*)\}"
                      r"(?:\s*\{((?:[^{}]|\{[^{}]*\})*)\})?")
_PERCENT_UNIT = re.compile(r"\\percent\b|\\%|(?<!\\)%")


def _siunitx(m: re.Match[str], comma: bool = False) -> str:
    command, first, second = m.group(1), m.group(2), m.group(3)
    if command in ("num", "si") and second is not None:  # one argument: the group after is text
        head = m.end(2) + 1 - m.start()
        alone = _SIUNITX.match(m.string, m.start(), m.start() + head)
        assert alone is not None  # the same command and argument, cut before the second group
        return _siunitx(alone, comma) + m.group(0)[head:]
    out = [" "] * len(m.group(0))
    # a percent is written \% (a bare % starts a LaTeX comment, and is masked as one)
    if command == "si":  # a unit alone ("PSNR (\si{\percent})")
        if _PERCENT_UNIT.search(first):
            at = m.start(2) - m.start() - 1
            out[at:at + 2] = "\\%"
        return "".join(out)
    at = m.start(2) - m.start()
    unit = second if command in ("SI", "qty") else None
    if unit is None and command in ("SI", "qty"):
        return m.group(0)  # \SI{x} without its unit: not siunitx's form, left as it is
    # An uncertainty: compact (31.42(5): 31.42 ± 0.05) is blanked, one after \pm or +- stays
    # (read as an uncertainty) behind the value's percent sign: "91.3\% \pm 0.2"
    value = _SI_VALUE.match(first)
    shown = first
    if value is not None:
        # siunitx reads both "." and "," as the decimal marker of its input, and prints the
        # document's (output-decimal-marker): \num{31,42} is 31.42 in an English text, and
        # \num{31.42} is 31,42 in one that writes decimal commas
        lead = value.group(0).replace(*((".", ",") if comma else (",", ".")))
        shown = lead + first[value.end():]
    if value is not None and value.end() < len(first):
        rest = _SI_COMPACT.sub(lambda c: " " * len(c.group(0)), first[value.end():])
        shown = lead + rest
    percent = unit is not None and _PERCENT_UNIT.search(unit) is not None
    if percent and value is not None and shown[value.end():].strip():
        shown = lead + "\\% " + shown[value.end():].strip()
        percent = False
    out[at:at + len(shown)] = shown  # the number where it stands: offsets are kept
    if percent:
        # on the "}{" between the two: read as 91.3\%
        end = at + len(shown.rstrip())
        gap = m.group(0).index("{", at + len(first)) + 1 - end
        if gap >= 2:
            out[end:end + 2] = "\\%"
    return "".join(out)


_SI_VALUE = re.compile(r"\s*[+\-\u2212]?(?:\d[\d.,]*|[.,]\d+)(?:[eE][+\-\u2212]?\d+)?")
_SI_COMPACT = re.compile(r"\(\s*\d+(?:[.,]\d+)?\s*\)")
# Whether a text may use siunitx at all (\num, \SI, \qty, \si and what starts so): one search
# from each backslash, twenty times faster than four `in` tests
_SIUNITX_NAMES = re.compile(r"\\(?:num|SI|qty|si)")


def siunitx_plain(text: str, comma: bool = False) -> str:
    r"""``text`` (LaTeX) with siunitx's number and unit macros as the plain text they print,
    ``\SI{91.3}{\percent}`` as ``91.3\%``, character for character (same length, same offsets);
    its numbers with a decimal comma where ``comma`` (the text writes them: `decimal_mark`)."""
    if _SIUNITX_NAMES.search(text) is None:
        return text
    return _SIUNITX.sub((lambda m: _siunitx(m, True)) if comma else _siunitx, text)


def mask(segment: Segment, start: int, end: int) -> str:
    """``segment.text[start:end]`` masked (see `mask_text`); offsets are kept. In Markdown the
    segment's struck-out spans (`struck_spans`: none in a fenced block, where tildes and tags
    are text as shown) are blanked where they cross the range, found over the whole text (a
    strike may start before ``start`` and end after ``end``)."""
    if segment.syntax == "md":
        text = segment.text[start:end]
        struck = struck_spans(segment)
        if struck:
            text = _blank_spans(text, start, _spans_over(struck, start, end))
        return mask_text("md", text, struck=False)
    return mask_text(segment.syntax, segment.text[start:end],
                     segment.syntax == "tex" and decimal_comma(segment))


def _spans_over(spans: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """The spans of sorted, disjoint ``spans`` that cross ``[start, end)``."""
    i = bisect.bisect_right(spans, start, key=_span_end)
    j = bisect.bisect_left(spans, end, lo=i, key=_span_start)
    return spans[i:j]


def _span_start(span: tuple[int, int]) -> int:
    return span[0]


def _span_end(span: tuple[int, int]) -> int:
    return span[1]


# --- sentences ---------------------------------------------------------------------------------

# Where one unit of prose ends and the next begins: sentence punctuation before white space, a
# colon ending a line, a blank line, or a line that starts a block (heading, list item, quote,
# table row, fence; in LaTeX \item, sectioning, \begin/\end, and the \\ line break).
# A period after an abbreviation ends no sentence ("Ours vs. Baseline: 31.52 vs. 30.10 dB",
# German "32,21 bzw. 27,58 dB").
# detectron2's and mmdetection's per-category AP tables head their label column so ("Class"
# heads a classification report's rows, where a binary task's F1 claim is its positive class's)
_PER_CLASS = re.compile(r"(?i:categor(?:y|ies))")
_NOT_ABBREV = (r"(?<!\b(?i:vs)\.)(?<!\b(?i:cf)\.)(?<!\b(?i:al)\.)(?<!\b(?i:fig)\.)"
               r"(?<!\b(?i:eq)\.)(?<!\b(?i:approx)\.)(?<!\b(?i:resp)\.)(?<!\b(?i:e\.g)\.)"
               r"(?<!\b(?i:i\.e)\.)(?<!\b(?i:bzw)\.)")
# Each alternative starts with one literal character, so the regex engine skips ahead to the next
# '.', '?', '!', ':', '\\' or newline instead of trying every position (twice as fast as a
# leading [.?!] class; the same matches).
_SENTENCE_END = r"\." + _NOT_ABBREV + r"(?=\s)|\?(?=\s)|!(?=\s)"
_BOUNDARY: dict[str, re.Pattern[str]] = {
    # (a table's lines are no sentence's: a newline before a pipe row or a <table>, the end
    # of a pipe row and a </table> end one, so prose next to a table never runs into it)
    "md": re.compile(_SENTENCE_END + r"|:(?=\r?\n)|\|(?=[ \t]*\r?\n)|</(?i:table)>"
                     r"|\n(?=[ \t]*(?:\r?\n|#{1,6}\s|[-*+>]\s|\d+[.)]\s|\||```|~~~|<!--"
                     r"|<(?i:table)\b))"),
    "tex": re.compile(_SENTENCE_END + r"|:(?=\r?\n)|\\\\"
                      r"|\n(?=[ \t]*(?:\r?\n|\\item\b|\\(?:sub)*section\b"
                      r"|\\(?:paragraph|caption|begin|end)\b))"),
    "rst": re.compile(_SENTENCE_END + r"|:(?=\r?\n)"
                      r"|\n(?=[ \t]*(?:\r?\n|[-*+]\s|\d+[.)]\s|\.\. ))"),
    "txt": re.compile(_SENTENCE_END + r"|:(?=\r?\n)|\n(?=[ \t]*\r?\n)"),
}


def sentence_around(segment: Segment, pos: int) -> tuple[int, int]:
    # Boundaries are looked for around ``pos`` only (a few hundred characters, rarely more):
    # splitting whole documents into sentences would cost more than everything else together.
    text = segment.text
    rx = _BOUNDARY.get(segment.syntax, _BOUNDARY["txt"])
    half = _MAX_UNIT // 2
    start = max(0, pos - half)
    for width in (160, half):
        lo = max(0, pos - width)
        ends = [m.end() for m in rx.finditer(text, lo, pos)]
        if ends:
            start = ends[-1]
            break
        if lo == 0:
            start = 0
            break
    hi = min(len(text), pos + half)
    after = rx.search(text, pos, hi)
    end = after.end() if after is not None else hi
    if segment.syntax == "md" and is_typst_path(segment.path):
        # a Typst table is a call, no pipe rows: the prose next to one ends at its edges
        from labledger.reconcile.typst_pages import outside_tables

        return outside_tables(segment, pos, start, end)
    return start, end


# --- tables --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    start: int   # offsets into the segment's text
    end: int


@dataclass(frozen=True, slots=True)
class JoinedName(Cell):
    """A header part that is a name the text writes only in pieces ("MNLI-(m/mm)" holds MNLI-m
    and MNLI-mm): its anchors are read from its ``text``, not from the segment between its
    offsets (which span the whole written form)."""


@dataclass(eq=False)
class Table:
    """A table: header rows merged per column, body rows of cells; offsets into the segment."""

    start: int
    end: int
    header: list[Cell]          # one per column (multi-row headers joined with a space)
    rows: list[list[Cell]]
    header_rows: list[list[Cell]] = field(default_factory=list)
    # per column, the header cells it is made of (one per header row; a \multicolumn cell
    # heads every column it spans): where its anchors and markers are looked for
    header_parts: list[list[Cell]] = field(default_factory=list)

    def column_header(self, col: int) -> str:
        return self.header[col].text if col < len(self.header) else ""

    def per_class(self) -> bool:
        """Whether the rows are classes, labelled by a first column headed "category"
        (detectron2's and mmdetection's per-category AP): no row is the whole."""
        return _PER_CLASS.fullmatch(self.column_header(0).strip()) is not None

    def parts_of(self, col: int) -> list[Cell]:
        if col < len(self.header_parts):
            return self.header_parts[col]
        return [self.header[col]] if col < len(self.header) else []


def _split_cells(line: str, base: int, sep: str) -> list[Cell]:
    cells: list[Cell] = []
    pos = 0
    for part in line.split(sep):
        cells.append(Cell(part, base + pos, base + pos + len(part)))
        pos += len(part) + len(sep)
    return cells


# A table quoted in Markdown ("> | EDSR | 32.12 |", as READMEs fold results into a quote or a
# <details> block): the quote markers are not a cell, and the rule line under the header is one.
_QUOTED = re.compile(r"[ \t]*>(?:[ \t]*>)*[ \t]?")


def _unquoted(line: str) -> int:
    """Where ``line`` starts after its Markdown quote markers and indentation."""
    m = _QUOTED.match(line)
    at = m.end() if m else 0
    return at + len(line[at:]) - len(line[at:].lstrip())


def _pipe_cells(line: str, base: int) -> list[Cell]:
    body_start = 0
    body_end = len(line)
    stripped = line.rstrip()
    lead = _unquoted(line)
    if line[lead:lead + 1] == "|":
        body_start = lead + 1
    if stripped.endswith("|") and len(stripped) - 1 >= body_start:
        body_end = len(stripped) - 1
    cells: list[Cell] = []
    pos = body_start
    # Split on unescaped pipes only (a \| is text).
    for m in re.finditer(r"(?<!\\)\|", line[body_start:body_end]):
        end = body_start + m.start()
        cells.append(Cell(line[pos:end], base + pos, base + end))
        pos = end + 1
    cells.append(Cell(line[pos:body_end], base + pos, base + body_end))
    return cells


# --- slash columns: "PSNR/SSIM" over "31.42/0.9134" -------------------------------------------

# A list of names joined by slashes in a header ("Set5 PSNR/SSIM", "PSNR↑ / SSIM↑ / LPIPS↓",
# "PSNR$\uparrow$/SSIM", "#Params/FLOPs"): each name starts with a letter and stands apart from
# its neighbours. Looked for in the header as shown, its emphasis and tags blanked
# (`_without_markup`: "**EM/F1**", "<b>MNLI</b>-(m/mm)").
_SLASH_NAME = r"[A-Za-z][^\s/|&()]*"
_APART = r"(?<![^\s(\[{#])"
# A name of a slash list as headers write it: the name, the marks set apart after it (an arrow
# saying which way is better, a footnote's dagger: "PSNR ↑ / SSIM ↑", "**PSNR**↑/**SSIM**↑" with
# its emphasis blanked, "PSNR $\uparrow$ / SSIM $\uparrow$") and one parenthesised word after it
# (its own unit, split or arrow: "Params (M)/GFLOPs", "PSNR (dB) / SSIM", "PSNR (val) / PSNR
# (test)", "PSNR (↑) / SSIM (↑)"), which heads its own sub-column only. Before, such a header
# was no slash list: the column was read whole, the first number under the first name and the
# second one judged by no claim.
_SET_APART_MARK = (r"(?:[\u2191\u2193\u21d1\u21d3\u21e7\u21e9\u2197\u2198\u2b06\u2b07\u2b61\u2b63"
                   r"\U0001f815\U0001f817\U0001f851\U0001f853\u25b2\u25bc\u2020\u2021*]\ufe0f?"
                   r"|\$\\(?:up|down|Up|Down)arrow\$|\$\^\{?(?:\\dagger|\\ddagger|\*)\}?\$)")
# A rate is such a unit too, its slash no list's ("Latency (ms) / Throughput (img/s)",
# "Speed (tokens/s)"): read as a list of its own, it made the header's lists two, and the
# column was read whole, its throughput judged by no claim.
_PER_UNIT = (r"[A-Za-z]+[ \t]*/[ \t]*(?:s|sec|min|h|hr|it|iter|step|img|image|frame|sample"
             r"|token|epoch|GPU|day)s?")
_SLASH_ITEM = (_SLASH_NAME + r"(?:[ \t]*" + _SET_APART_MARK + r")*(?:[ \t]*\((?:[^()/|&\n]*|"
               + _PER_UNIT + r")\)(?:[ \t]*" + _SET_APART_MARK + r")*)?")
# (a count's "#" may come before each name: "#Params/#FLOPs")
_SLASH_LIST = re.compile(_APART + _SLASH_ITEM + r"(?:[ \t]*/[ \t]*#?" + _SLASH_ITEM
                         + r")+(?![^\s)\],;])")
_SLASH_ITEMS = re.compile(_SLASH_ITEM)
# A stem shared by the names of a slash list in parentheses after it, "MNLI-(m/mm)",
# "MNLI (m/mm)" or "MNLI(m/mm)" (GLUE tables since Devlin et al. 2019, BERT, Table 1): the names
# are MNLI-m and MNLI-mm. Group 1 is the stem, group 2 what joins it to the names (a hyphen
# where nothing does; blanked markup around it: "<b>MNLI</b>-(m/mm)").
_SHARED_STEM = re.compile(r"(?<![^\s(\[{|#])([A-Za-z][\w.]*)([ \t]*-?[ \t]*)\($")
# A unit or multiplier in a header's parentheses, one per quantity of a column holding two or
# more ("Params/FLOPs (M/G)", "Params (M) / FLOPs (G)": model-zoo tables print parameters in
# millions and FLOPs in billions, and READMEs fold the two into one column of "25.6/4.1"). Only
# these: "MNLI-(m/mm)" names MNLI-m and MNLI-mm, no lengths.
_UNIT = r"(?:[KMGT]?FLOPs|[KMGT]?MACs|dB|ms|fps|FPS|px|[kKMBGT]B?|s|%)"
_UNIT_ALONE = re.compile(_UNIT)
_NAME_IN_UNIT = _SLASH_NAME + r"[ \t]*\([ \t]*" + _UNIT + r"[ \t]*\)"
# names each with its own unit: "Params (M) / FLOPs (G)", "Params(M)/FLOPs(G)",
# "#Params (M) / #FLOPs (G)"
_NAMES_IN_UNITS = re.compile(_APART + _NAME_IN_UNIT + r"(?:[ \t]*/[ \t]*#?" + _NAME_IN_UNIT
                             + r")+(?![^\s)\],;])")
_NAME_AND_UNIT = re.compile(r"(" + _SLASH_NAME + r")[ \t]*\([ \t]*(" + _UNIT + r")[ \t]*\)")
# the units of a slash list's names after it: "Params/FLOPs (M/G)"
_UNITS_AFTER = re.compile(r"[ \t]*\([ \t]*" + _UNIT + r"(?:[ \t]*/[ \t]*" + _UNIT
                          + r")+[ \t]*\)")
_UNIT_PIECE = re.compile(r"[^\s/()]+")
# what a header shows that is no part of a name: emphasis (**, __, *, _ at a word's edge), code
# spans' backticks ("`PSNR`/`SSIM`"), a link's brackets and target ("[PSNR](https://x.org/a)/SSIM",
# the target's slashes no list's), a footnote's mark ("PSNR<sup>1</sup>/SSIM", "PSNR[^1]"),
# LaTeX's emphasis commands ("\textbf{PSNR}$\uparrow$ / \textbf{SSIM}$\uparrow$": the closing
# brace is left, as a name may hold one), an HTML entity ("PSNR &uarr; / SSIM &uarr;") and tags
_HEADER_MARKUP = re.compile(
    r"\\(?:textbf|textit|emph|underline|textsc|mathbf|mathrm|bm|boldsymbol)[ \t]*\{"
    r"|\{?\\(?:bf|it|bfseries)(?![A-Za-z])[ \t]*"
    r"|<sup>[ \t]*(?:\d{1,2}|[*\u2020\u2021\u00a7\u00b6]+|[a-z]|\[\d{1,2}\])[ \t]*</sup>"
    r"|\[\^[^\]\s]+\]|\[(?=[^\[\]\n]*\]\([^()\s]*\))|\]\([^()\s]*\)"
    r"|&(?:[A-Za-z]{2,8}|#\d{1,6}|#[xX][0-9a-fA-F]{1,6});"
    r"|</?[A-Za-z][^<>\n]*>|\*+|`+|(?<![^\W_])_+|_+(?![^\W_])")
# a claim marker (<!-- claim:C1 -->, \claimref{C1}, claim:C1) binds a whole header or row: a
# column headed by one, or a row labelled by one, is not split (noclaim only silences anchors)
_MARKER_WORD = re.compile(r"(?<!no)claim", re.I)
# A command a number is set in, as a Markdown cell's math and a marker's text keep them
# (`doc_markers.number_in`, a table cell's value, a slash pair's pieces): its emphasis
# ("\textbf{", "$\bf{8.105 \pm 0.066}$", "$\bf 0.912$"), its face ("$\mathsf{8.09\ s}$", a
# README's benchmark; "\texttt{", "\mathit{") or its colour ("$\color{red}{0.912}$",
# "\textcolor{red}{"; the colour's name is no number's text)
FORMAT_COMMAND = re.compile(
    r"\\(?:(?:textbf|mathbf|underline|num|emph|textit|boldsymbol|bm|mathrm|text|bf"
    r"|mathsf|textsf|mathtt|texttt|mathit|textrm)\{|bf[ \t]+"
    r"|(?:textcolor|color)(?:\[[^\]{}\\\n]*\])?\{[^{}\\\n]*\}[ \t]*\{?)")
_NUMBER_PIECE = re.compile(r"(?:[ \t*_`~$({]|" + FORMAT_COMMAND.pattern
                           + r")*[+\-\u2212]?\.?\d")
_DIGIT = re.compile(r"\d")


_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")


def _slash_pieces(text: str) -> list[tuple[int, int]]:
    """``text`` cut at its slashes outside braces, as (start, end) spans."""
    spans: list[tuple[int, int]] = []
    depth = at = 0
    # The slash of an HTML closing tag ("<u>30.25</u> / 0.6570", the underline READMEs mark a
    # second best with) joins no values: cutting there made the cell no k-tuple, so the whole
    # column was read unsplit (a drifted SSIM half unseen, the PSNR half ambiguous).
    in_tag = ({i for m in _HTML_TAG.finditer(text) for i in range(m.start(), m.end())}
              if "<" in text else set())
    for i, ch in enumerate(text):
        if i in in_tag:
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == "/" and depth == 0:
            spans.append((at, i))
            at = i + 1
    spans.append((at, len(text)))
    return spans


def _slash_cells(syntax: str, cell: Cell, k: int) -> list[Cell] | None:
    """``cell`` as its k slash-joined values (31.42/0.9134, \\textbf{31.42} / 0.9134), a cell
    with no digit as itself and k-1 empty cells; None when it holds digits but no such k-tuple."""
    if _DIGIT.search(cell.text) is None:
        return [cell] + [Cell("", cell.end, cell.end)] * (k - 1)
    spans = _slash_pieces(cell.text)
    if len(spans) != k:
        return None
    numeric = False
    for a, b in spans:
        piece = cell.text[a:b]
        if _DIGIT.search(piece) is None:
            continue
        if not _NUMBER_PIECE.match(mask_text(syntax, piece)):
            return None
        numeric = True
    if not numeric:
        return None
    return [Cell(cell.text[a:b], cell.start + a, cell.start + b) for a, b in spans]


@dataclass(frozen=True, slots=True)
class _SlashList:
    """A slash list in a header part's text: where it is written (``start``, ``end``: the units
    after it included), its names' and their units' spans, in order. No names: units alone in
    parentheses ("Params (M/G)"), the first of them the header's name's; no units: names alone."""

    start: int
    end: int
    names: tuple[tuple[int, int], ...]
    units: tuple[tuple[int, int], ...]


def _without_markup(text: str) -> str:
    """``text`` with its emphasis and tags blanked (offsets kept), as a header shows it."""
    if not any(ch in text for ch in "<*_`[\\&"):
        return text
    return _HEADER_MARKUP.sub(_blank, text)


def _slash_lists(plain: str) -> list[_SlashList]:
    """The slash lists of a header part's text (markup blanked), in text order."""
    found: list[_SlashList] = []
    for m in _NAMES_IN_UNITS.finditer(plain):
        pairs = list(_NAME_AND_UNIT.finditer(plain, m.start(), m.end()))
        found.append(_SlashList(m.start(), m.end(), tuple(p.span(1) for p in pairs),
                                tuple(p.span(2) for p in pairs)))
    taken = found[-1].end if found else -1
    for m in _SLASH_LIST.finditer(plain):
        if m.start() < taken or any(f.start <= m.start() < f.end for f in found):
            continue  # a list's units, or a name of "Params (M) / FLOPs (G)"
        names = tuple(n.span() for n in _SLASH_ITEMS.finditer(plain, m.start(), m.end()))
        units = _UNITS_AFTER.match(plain, m.end())
        if units is not None:
            spans = _unit_spans(plain, m.end(), units.end())
            if len(spans) == len(names):  # "Params/FLOPs (M/G)"
                found.append(_SlashList(m.start(), units.end(), names, spans))
                taken = units.end()
                continue
        if _in_parentheses(plain, m.start(), m.end()) and all(
                _UNIT_ALONE.fullmatch(plain, a, b) for a, b in names):
            found.append(_SlashList(m.start(), m.end(), (), names))  # "Params (M/G)"
        else:
            found.append(_SlashList(m.start(), m.end(), names, ()))
    return found


def _unit_spans(text: str, a: int, b: int) -> tuple[tuple[int, int], ...]:
    return tuple(u.span() for u in _UNIT_PIECE.finditer(text, a, b))


def _in_parentheses(text: str, a: int, b: int) -> bool:
    return text[:a].rstrip(" \t").endswith("(") and text[b:].lstrip(" \t").startswith(")")


def _slash_header(table: Table, col: int) -> list[tuple[str, list[Cell]]] | None:
    """Per name of the one slash list in column ``col``'s header: the sub-column's header text
    and parts (the name, with the header's other words: "Set5 PSNR/SSIM" gives "Set5 PSNR" and
    "Set5 SSIM"; with its own unit where the list gives each one: "Params/FLOPs (M/G)" gives
    "Params (M)" and "FLOPs (G)"); None without exactly one list, or with a claim marker in the
    header."""
    parts = table.parts_of(col)
    found: tuple[int, _SlashList] | None = None
    for i, part in enumerate(parts):
        if "/" not in part.text:
            continue
        for got in _slash_lists(_without_markup(part.text)):
            if found is not None:
                return None
            found = (i, got)
    if found is None or any(_MARKER_WORD.search(p.text) for p in parts):
        return None
    i, got = found
    head = _without_markup(table.header[col].text)
    if not got.units:
        subs = _named_subcolumns(head, parts[i], got)
    elif got.names:
        subs = _subcolumns_in_units(head, parts[i], got)
    else:
        subs = _subcolumns_of_units(head, parts[i], got)
    return [(text, [*parts[:i], *own, *parts[i + 1:]]) for text, own in subs]


def _piece(part: Cell, a: int, b: int) -> Cell:
    return Cell(part.text[a:b], part.start + a, part.start + b)


def _around(part: Cell, got: _SlashList) -> tuple[Cell, Cell]:
    """The part's text before and after the list."""
    return _piece(part, 0, got.start), _piece(part, got.end, len(part.text))


def _named_subcolumns(head: str, part: Cell, got: _SlashList) -> list[tuple[str, list[Cell]]]:
    """"Set5 PSNR/SSIM": a sub-column per name, the header's other words kept; "MNLI-(m/mm)":
    the names joined to the stem they share."""
    plain = _without_markup(part.text)
    written = plain[got.start:got.end]
    before, after = _around(part, got)
    shared = _SHARED_STEM.search(plain, 0, got.start) \
        if plain[got.end:].startswith(")") else None
    out: list[tuple[str, list[Cell]]] = []
    for a, b in got.names:
        name = plain[a:b]
        own = [c for c in (before, _piece(part, a, b), after) if c.text.strip()]
        text = head.replace(written, name, 1)
        if shared is not None:
            # "MNLI-(m/mm)": the name is the stem's variant, "MNLI-m", which no part shows
            # whole; its text is read for anchors in the place of the whole "MNLI-(m/mm)"
            joiner = "-" if "-" in shared.group(2) or not shared.group(2) else " "
            joined = shared.group(1) + joiner + name
            own.append(JoinedName(joined, part.start + shared.start(), part.start + got.end + 1))
            text = text.replace(shared.group(0) + name + ")", joined, 1)
        out.append((text, own))
    return out


def _subcolumns_in_units(head: str, part: Cell,
                         got: _SlashList) -> list[tuple[str, list[Cell]]]:
    """"Params/FLOPs (M/G)", "Params (M) / FLOPs (G)": a sub-column per name headed by the
    name and its own unit ("Params (M)"), so the unit scales that name's numbers alone."""
    plain = _without_markup(part.text)
    written = plain[got.start:got.end]
    before, after = _around(part, got)
    out: list[tuple[str, list[Cell]]] = []
    for (a, b), (x, y) in zip(got.names, got.units, strict=True):
        own = [c for c in (before, _piece(part, a, b), _piece(part, x, y), after)
               if c.text.strip()]
        out.append((head.replace(written, f"{plain[a:b]} ({plain[x:y]})", 1), own))
    return out


def _subcolumns_of_units(head: str, part: Cell,
                         got: _SlashList) -> list[tuple[str, list[Cell]]]:
    """"Params (M/G)": the header names the first quantity only: the first sub-column is
    "Params (M)", each other one is headed by its unit alone (named by no claim's anchor)."""
    plain = _without_markup(part.text)
    written = plain[got.start:got.end]
    before, after = _around(part, got)
    (a, b), rest = got.units[0], got.units[1:]
    first = [c for c in (before, _piece(part, a, b), after) if c.text.strip()]
    out = [(head.replace(written, plain[a:b], 1), first)]
    out += [(f"({plain[x:y]})", [_piece(part, x, y)]) for x, y in rest]
    return out


def _split_slash_columns(syntax: str, table: Table) -> Table:
    """``table`` with each column headed by a slash list of k names ("PSNR/SSIM") whose cells
    hold k slash-joined values ("31.42/0.9134") split into k columns, each value under its own
    name: the judging of a cell by its row and column applies to each unchanged. A column with
    a cell that is no such k-tuple, or with a claim marker in its header, is left whole. Then
    each row labelled so, in a table transposed (`_split_slash_rows`)."""
    return _split_slash_rows(syntax, _split_slash_header_columns(syntax, table))


def _split_slash_header_columns(syntax: str, table: Table) -> Table:
    if not any("/" in c.text for c in table.header):
        return table
    plan: dict[int, list[tuple[str, list[Cell]]]] = {}
    for col in range(len(table.header)):
        if "/" in table.header[col].text:
            subs = _slash_header(table, col)
            if subs is not None:
                plan[col] = subs
    if 0 in plan and _labels_only(syntax, table, len(plan[0])):
        _plan_from_corner(table, plan)
    if not plan:
        return table
    split_rows = [list(row) for row in table.rows]
    # a row bound by a marker (its label's <!-- claim:C1 -->) keeps its cells whole, each under
    # the first name: the marker binds the row's numbers, read as before
    bound = [any(_MARKER_WORD.search(c.text) for c in row) for row in table.rows]
    for col in sorted(plan, reverse=True):  # right to left: the columns left of it keep place
        k = len(plan[col])
        cut: list[list[Cell] | None] = []
        for row, marked in zip(split_rows, bound, strict=True):
            if col >= len(row):
                cut.append(None)
            elif marked:
                cut.append([row[col], *[Cell("", row[col].end, row[col].end)] * (k - 1)])
            else:
                cut.append(_slash_cells(syntax, row[col], k))
        if not any(c is not None and any(_DIGIT.search(x.text) for x in c) for c in cut):
            del plan[col]
            continue
        if any(c is None and col < len(row) for c, row in zip(cut, split_rows, strict=True)):
            del plan[col]
            continue
        for c, row in zip(cut, split_rows, strict=True):
            if c is not None:
                row[col:col + 1] = c
    if not plan:
        return table
    header: list[Cell] = []
    parts: list[list[Cell]] = []
    for col, cell in enumerate(table.header):
        if col in plan:
            for text, own in plan[col]:
                header.append(Cell(text, cell.start, cell.end))
                parts.append(own)
        else:
            header.append(cell)
            parts.append(table.parts_of(col))
    header_rows = []
    for hrow in table.header_rows:
        wide = list(hrow)
        for col in sorted(plan, reverse=True):
            if col < len(wide):
                head = wide[col]
                wide[col:col + 1] = [head, *[Cell("", head.end, head.end)] * (len(plan[col]) - 1)]
        header_rows.append(wide)
    return Table(table.start, table.end, header, split_rows, header_rows, parts)


def _labels_only(syntax: str, table: Table, k: int) -> bool:
    """Whether no body row's first cell holds k slash-joined numbers: the column is labels."""
    return not any(row and _DIGIT.search(row[0].text) and _slash_cells(syntax, row[0], k)
                   for row in table.rows)


def _plan_from_corner(table: Table, plan: dict[int, list[tuple[str, list[Cell]]]]) -> None:
    """A slash list over the column of labels ("| algorithms & PSNR/SSIM | Set5 | Set14 |",
    the corner cell of a table whose columns are datasets) names the quantities of each value
    column's pairs ("30.48/0.8628"): each column with no list of its own is planned as split
    into one sub-column per name, headed by its header and the name (the corner's piece of text
    that writes it), in place of the labels' column, which holds no numbers to split. Before,
    no column named a quantity, and a drifted pair was judged by no claim."""
    names = _corner_names(table)
    del plan[0]
    if names is None:
        return
    for col in range(1, len(table.header)):
        if col not in plan:
            head = table.header[col]
            plan[col] = [(f"{head.text.strip()} {name}", [*table.parts_of(col), piece])
                         for name, piece in names]


def _corner_names(table: Table) -> list[tuple[str, Cell]] | None:
    """The names of the one slash list in the labels' column's header, each with the piece of
    the header part writing it; None where it is not one list of quantities' names ("Params
    (M/G)", "MNLI-(m/mm)", "Method / Dataset", two lists, a claim marker)."""
    parts = table.parts_of(0)
    found: list[tuple[Cell, str, _SlashList]] = []
    for part in parts:
        if "/" in part.text:
            plain = _without_markup(part.text)
            found += [(part, plain, got) for got in _slash_lists(plain)]
    if len(found) != 1 or any(_MARKER_WORD.search(p.text) for p in parts):
        return None
    part, plain, got = found[0]
    if got.units or any(_NOT_A_QUANTITY.fullmatch(plain, a, b) for a, b in got.names):
        return None  # units, or "MNLI-(m/mm)": the names of a stem's variants
    if any(_AXIS_NAME.match(plain, a, b) for a, b in got.names):
        return None  # "Method / Dataset": the corner names the table's axes, no quantities
    return [(plain[a:b], _piece(part, a, b)) for a, b in got.names]


# what a corner's slash list names when it names the table's axes (rows / columns), not the
# quantities of its cells
_AXIS_NAME = re.compile(r"(?i)(?:methods?|models?|datasets?|data|benchmarks?|tasks?|metrics?"
                        r"|settings?|scales?|backbones?|approach(?:es)?|networks?|arch\w*"
                        r"|algorithms?|baselines?|splits?|languages?)(?![^\W_])")


# a name of a slash list in a row's label or a corner that is no quantity's: one letter, as in
# "Ours w/o attention" (an ablation's row) or "MNLI-(m/mm)" (the stem's variants)
_NOT_A_QUANTITY = re.compile(r"[A-Za-z]")


def _split_slash_rows(syntax: str, table: Table) -> Table:
    """``table`` with each body row whose label (its first cell) is one slash list of k names
    ("PSNR ↑ / SSIM ↑", a table transposed: metrics as rows, methods as columns) and whose
    other cells each hold k slash-joined values ("31.42 / 0.922") or no number, split into k
    rows on the same line, each value under its own name: the label of the j-th shows the j-th
    name, the others blanked (a label's anchors are the hits its text leaves visible). Before,
    the row was read whole: the first number under both names, the second judged by none."""
    if not any(row and "/" in row[0].text for row in table.rows):
        return table
    rows: list[list[Cell]] = []
    changed = False
    for row in table.rows:
        split = _slash_row(syntax, row) if row and "/" in row[0].text else None
        if split is None:
            rows.append(row)
        else:
            rows.extend(split)
            changed = True
    if not changed:
        return table
    return Table(table.start, table.end, table.header, rows, table.header_rows,
                 table.header_parts)


def _slash_row(syntax: str, row: list[Cell]) -> list[list[Cell]] | None:
    """``row`` as its k rows (`_split_slash_rows`), or None where it is not one to split."""
    label = row[0]
    if any(_MARKER_WORD.search(c.text) for c in row):
        return None  # a marker binds the row's numbers, read as before
    plain = _without_markup(label.text)
    found = _slash_lists(plain)
    if len(found) != 1 or found[0].units:
        return None  # none, two, or units ("Params (M/G)"): as before
    names = found[0].names
    if any(_NOT_A_QUANTITY.fullmatch(plain, a, b) for a, b in names):
        return None  # "w/o", "MNLI-(m/mm)" (the stem's variants, which no part shows whole)
    k = len(names)
    cut: list[list[Cell]] = []
    for cell in row[1:]:
        pieces = _slash_cells(syntax, cell, k)
        if pieces is None:
            return None
        cut.append(pieces)
    if not any(_DIGIT.search(c[1].text) for c in cut):
        return None  # no k-tuple of values: the row holds one number a cell
    out: list[list[Cell]] = []
    for j in range(k):
        shown = _blank_spans(label.text, 0, [n for i, n in enumerate(names) if i != j])
        out.append([Cell(shown, label.start, label.end), *(c[j] for c in cut)])
    return out


_PIPE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")


def _block_start(segment: Segment, pos: int, keep: Callable[[str], bool],
                 most: int) -> int | None:
    """Where the run of lines that ``keep`` accepts, holding the line of ``pos``, starts; None
    when that line is not kept or the run reaches back more than ``most`` characters."""
    # The runs of kept lines are found once per segment and looked up by bisection: walking
    # back line by line from every position asked about was quadratic (a log's every line is a
    # unit, and each walked back over up to 64,000 characters of the lines above it; every line
    # of a Markdown page of pipe rows walked back to the first).
    key = "runs:" + keep.__name__
    runs = segment._cache.get(key)
    if runs is None:
        runs = segment._cache[key] = _kept_runs(segment.text, keep)
    assert isinstance(runs, tuple)
    starts, ends = runs
    text = segment.text
    ls = text.rfind("\n", 0, pos) + 1
    i = bisect.bisect_right(starts, ls) - 1
    if i < 0 or ls > ends[i]:
        return None  # the line of ``pos`` is not kept
    return None if ls - starts[i] > most else starts[i]


_BLANK_RUN = re.compile(r"\n(?:[^\S\n]*\n)+")


def _kept_runs(text: str, keep: Callable[[str], bool]) -> tuple[list[int], list[int]]:
    """The runs of consecutive lines ``keep`` accepts: (their starts, where their last line
    ends), in text order. `_piped` and `_filled` are found with C-speed string searches (pipes
    are rare in prose; blank lines split a text into its runs), any other ``keep`` line by
    line."""
    starts: list[int] = []
    ends: list[int] = []

    def add(ls: int, le: int) -> None:
        if ends and ends[-1] + 1 == ls:  # the line right after the run's last: the same run
            ends[-1] = le
        else:
            starts.append(ls)
            ends.append(le)

    if keep is _piped:  # a line with a pipe is never blank
        at = text.find("|")
        while at >= 0:
            ls = text.rfind("\n", 0, at) + 1
            le = text.find("\n", at)
            le = len(text) if le < 0 else le
            add(ls, le)
            at = text.find("|", le)
    elif keep is _filled:
        # the blocks between runs of blank lines (a match's offsets in the padded text are one
        # more than in ``text``); a block runs from its first line holding something to the
        # end of its last
        bounds = [0]
        for m in _BLANK_RUN.finditer("\n" + text + "\n"):
            bounds += [max(0, m.start() - 1), min(len(text), m.end() - 1)]
        bounds.append(len(text))
        for block_start, block_end in zip(bounds[::2], bounds[1::2], strict=True):
            chunk = text[block_start:block_end]
            if chunk.strip():
                lead = len(chunk) - len(chunk.lstrip())
                starts.append(text.rfind("\n", 0, block_start + lead) + 1)
                ends.append(block_start + len(chunk.rstrip()))
    else:
        at = 0
        for line in text.split("\n"):
            if keep(line):
                add(at, at + len(line))
            at += len(line) + 1
    return starts, ends


def _block_lines(text: str, start: int, keep: Callable[[str], bool],
                 most: int) -> list[tuple[int, str]]:
    """The lines (offset, text) from ``start`` while ``keep`` accepts them, at most ``most``+1."""
    lines: list[tuple[int, str]] = []
    cur = start
    while cur < len(text) and len(lines) <= most:
        nxt = text.find("\n", cur)
        nxt = len(text) if nxt < 0 else nxt
        line = text[cur:nxt]
        if not keep(line):
            break
        lines.append((cur, line))
        cur = nxt + 1
    return lines


def _piped(line: str) -> bool:
    return "|" in line and bool(line.strip())


def _filled(line: str) -> bool:
    return bool(line.strip())


def markdown_table(segment: Segment, pos: int) -> Table | None:
    text = segment.text
    start = _block_start(segment, pos, _piped, len(text))
    if start is None:
        return None

    def build() -> Table | None:
        lines = _block_lines(text, start, _piped, len(text))
        rule = lines[1][1] if len(lines) > 1 else ""
        if len(lines) < 2 or not _PIPE_RULE.match(rule, _unquoted(rule)):
            return None
        header = _pipe_cells(lines[0][1], lines[0][0])
        rows = [_pipe_cells(line, base) for base, line in lines[2:]]
        _fill_group_labels(rows)
        return _split_slash_columns(segment.syntax, Table(
            start, lines[-1][0] + len(lines[-1][1]), header, rows, [header]))

    return _table_once(segment, "md_tables", start, build)


def _fill_group_labels(rows: list[list[Cell]]) -> None:
    """A row whose leading cells are empty and that has a label of its own, under a row whose
    cells there are labels, is a row of that group: "|  | **FGA** | 32.30 |" under
    "| EDSR-µ | SPC | 32.12 |" is EDSR-µ's FGA row, as READMEs and spreadsheet exports (merged
    cells) write groups. Its empty cells take the labels above, offsets and all, as a
    ``\\multirow`` label does in LaTeX (`_fill_multirow`), so the row names its group.
    A row with no label of its own ("|  | 31.20 |": a total) is left alone. A number among the
    labels above (lm-evaluation-harness's Version column: "|agieval_aqua_rat| 0|acc|", then
    "|  |  |acc_norm|" for the task's next metric) is not taken: it is no label; nor is an
    empty cell (a group's third row, under its second)."""
    above: list[Cell] = []
    for cells in rows:
        lead = 0
        while lead < len(cells) and not cells[lead].text.strip():
            lead += 1
        if (0 < lead < len(cells) and lead <= len(above)
                and not _NUMBER_PIECE.match(cells[lead].text)
                and _label(above[0])):
            cells[:lead] = [above[k] if _label(above[k]) else cells[k] for k in range(lead)]
        above = cells


def _label(cell: Cell) -> bool:
    return bool(cell.text.strip()) and not _NUMBER_PIECE.match(cell.text)


def span_holding(spans: list[tuple[int, int]], pos: int) -> tuple[int, int] | None:
    """The one of ``spans`` (sorted, not overlapping) holding offset ``pos``, or None."""
    i = bisect.bisect_right(spans, (pos, sys.maxsize)) - 1
    return spans[i] if i >= 0 and spans[i][0] <= pos < spans[i][1] else None


def _table_once(segment: Segment, kind: str, start: int,
                build: Callable[[], Table | None]) -> Table | None:
    """The table (or None: no table) of ``kind`` starting at ``start``, built once per segment:
    every number of a table asks for it."""
    cache = segment._cache.setdefault(kind, {})
    assert isinstance(cache, dict)
    if start not in cache:
        cache[start] = build()
    table: Table | None = cache[start]
    return table


_TAB_BEGIN = re.compile(r"\\begin\{(tabular[x*]?|longtable|array|tabulary)\}")
_RULES = re.compile(r"\\(?:hline|toprule|midrule|bottomrule|endhead|endfirsthead|endfoot"
                    r"|hhline\{[^}]*\}|cmidrule(?:\([^)]*\))?\{[^}]*\}|cline\{[^}]*\}"
                    r"|addlinespace(?:\[[^\]]*\])?)")


def _skip_group(text: str, pos: int) -> int:
    """End of a balanced {...} starting at ``pos`` (which must be '{'), else ``pos``."""
    if pos >= len(text) or text[pos] != "{":
        return pos
    depth = 0
    for i in range(pos, min(len(text), pos + 2000)):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return pos


_MULTICOLUMN = re.compile(r"\s*\\multicolumn\s*\{\s*(\d{1,2})\s*\}")


def _spanning(row: list[Cell], col: int) -> Cell:
    """The \\multicolumn cell that covers column ``col`` of ``row`` (the last non-empty one
    before it: covered columns are empty cells)."""
    while col > 0 and row[col].start == row[col].end and not row[col].text:
        col -= 1
    return row[col]


_TEX_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_MULTIROW = re.compile(r"\s*\\multirow\s*(?:\[[^\]]*\])?\s*\{\s*(\d{1,2})\s*\}")


def _fill_multirow(cells: list[Cell], down: dict[int, tuple[int, Cell]]) -> None:
    """A row's empty cells under a ``\\multirow{n}`` label above (within its n rows) take that
    cell, offsets and all: "\\multirow{2}{*}{Ours} & Kodak & ... \\\\ & CBSD68 & ..." names Ours
    in both rows (where its anchors and markers are looked for), and the label cell itself
    starts the count for the rows below it."""
    filled: set[int] = set()
    for col, (left, label) in list(down.items()):
        # a comment is no label: "... \\ % noclaim" ends the line of the row above, and the
        # next row's first cell, which starts with that comment, is still empty under the label
        if col < len(cells) and not _TEX_COMMENT.sub("", cells[col].text).strip():
            cells[col] = label
            filled.add(col)
        if left <= 1:
            del down[col]
        else:
            down[col] = (left - 1, label)
    for col, cell in enumerate(cells):
        span = _MULTIROW.match(cell.text) if col not in filled else None
        if span is not None and int(span.group(1)) > 1:
            down[col] = (int(span.group(1)) - 1, cell)


def latex_table(segment: Segment, pos: int) -> Table | None:
    text = segment.text
    found = segment._cache.get("tex_tables")
    if found is None:
        spans: list[tuple[int, int, int]] = []
        around = -1  # where the outermost tabular found so far closes
        outer = -1  # its index in spans
        layouts: set[int] = set()
        for m in _TAB_BEGIN.finditer(text):
            close = _tab_end(text, m)
            if close < 0:
                continue
            if m.start() < around:
                # a tabular in a cell of the one around it: part of that cell where it is the
                # cell's lines ("\begin{tabular}[c]{@{}c@{}}PSNR\\ (dB)\end{tabular}"), a table
                # of its own where it holds rows of cells (tables side by side in a layout tabular,
                # "\begin{tabular}{cc} \begin{tabular}{lc}...\end{tabular} & ..."), and the
                # one around it then lays tables out, no table itself. Before, those were read
                # as one cell of the layout, their numbers judged by no claim. (An array is a
                # cell's math: "$\begin{array}{cc} 1 & 0 \\ 0 & 1 \end{array}$".)
                if m.group(1) == "array" or not _CELL_SEP_TEX.search(text, m.end(), close) \
                        or text.find("\\\\", m.end(), close) < 0:
                    continue
                layouts.add(outer)
            else:
                around, outer = close, len(spans)
            body = m.end()
            while body < len(text) and text[body] in " \t\n[":
                if text[body] == "[":
                    body = text.find("]", body) + 1 or body + 1
                else:
                    body += 1
            if m.group(1) in ("tabularx", "tabular*"):
                body = _skip_group(text, body)
                while body < len(text) and text[body] in " \t\n":
                    body += 1
            body = _skip_group(text, body)
            spans.append((m.start(), body, close))
        if layouts:
            spans = [span for i, span in enumerate(spans) if i not in layouts]
        segment._cache["tex_tables"] = found = spans
    assert isinstance(found, list)
    starts = [s[0] for s in found]
    i = bisect.bisect_right(starts, pos) - 1
    if i < 0 or not found[i][1] <= pos < found[i][2]:
        return None
    begin, body, close = found[i]
    cache = segment._cache.setdefault("tex_table_objs", {})
    assert isinstance(cache, dict)
    if begin in cache:
        table: Table = cache[begin]
        return table
    masked = _RULES.sub(lambda m: " " * len(m.group(0)), text[body:close])
    # A %-comment is no part of the table: papers keep old rows and cells as comments inside
    # it ("% & 0.053 & 0.179 & ... \\"), whose & and \\ would split cells and rows and shift
    # every column after them. Blanked one for one (offsets kept); a "% noclaim" is found on
    # the document's text, not here.
    masked = _TEX_COMMENT.sub(lambda m: " " * len(m.group(0)), masked)
    rows: list[list[Cell]] = []
    spanned: dict[tuple[int, int], str] = {}  # (row, column) covered by a \multicolumn: its text
    midrule_at: int | None = None
    # (column) -> (rows still covered, the \multirow cell): its label names those rows too
    down: dict[int, tuple[int, Cell]] = {}
    offset = 0
    # rows and cells end at a \\ and an & outside braces only: a line break inside a cell's
    # group ("\makecell{PSNR\\(dB)}", "\shortstack{31.42\\(0.05)}") ends no row
    flat = _groups_filled(masked)
    for chunk in _split_kept(_TEX_ROW_END, flat, masked):
        if chunk.startswith("\\\\"):
            offset += len(chunk)
            continue
        # (a rule commented out, "% \\midrule", is none)
        raw_rule = _TEX_COMMENT.sub("", text[body + offset:body + offset + len(chunk)])
        # \toprule too: a table may open with its header rows and put the top rule under them
        if midrule_at is None and rows and re.search(r"\\(?:midrule|hline|toprule)", raw_rule):
            midrule_at = len(rows)
        if chunk.strip():
            cells: list[Cell] = []
            pos_in = 0
            # (every other piece: the &s between the cells)
            for part in _split_kept(_TEX_CELL_END, flat[offset:offset + len(chunk)], chunk)[::2]:
                end = body + offset + pos_in + len(part)
                cells.append(Cell(part, end - len(part), end))
                span = _MULTICOLUMN.match(part)
                # \multicolumn{n}: the cell stands for n columns; the ones it covers are empty
                # (no number is read twice) but a header's text heads each of them
                for _ in range(int(span.group(1)) - 1 if span else 0):
                    cells.append(Cell("", end, end))
                    spanned[(len(rows), len(cells) - 1)] = part
                pos_in += len(part) + 1
            _fill_multirow(cells, down)
            rows.append(cells)
        offset += len(chunk)
    n_head = midrule_at if midrule_at else 1
    header_rows = rows[:n_head]
    width = max((len(r) for r in header_rows), default=0)
    header = []
    header_parts: list[list[Cell]] = []
    for col in range(width):
        parts = [(r, header_rows[r][col]) for r in range(len(header_rows))
                 if col < len(header_rows[r])]
        texts = [spanned.get((r, col), cell.text).strip() for r, cell in parts]
        header.append(Cell(" ".join(texts), parts[0][1].start, parts[-1][1].end))
        header_parts.append([_spanning(header_rows[r], col) if (r, col) in spanned else cell
                             for r, cell in parts])
    table = Table(begin, close, header, rows[n_head:], header_rows, header_parts)
    _name_spanned_columns(table, segment.syntax)
    table = _split_slash_columns(segment.syntax, table)
    cache[begin] = table
    return table


_TEX_ROW_END = re.compile(r"(\\\\(?:\[[^\]]*\])?)")
_CELL_SEP_TEX = re.compile(r"(?<!\\)&")
_TEX_CELL_END = re.compile(r"((?<!\\)&)")
_BRACE = re.compile(r"(?<!\\)[{}]")


def _groups_filled(text: str) -> str:
    """``text`` with what its outermost balanced {...} groups and the tabulars nested in it
    hold filled with "x" (offsets kept): a \\\\ or & there is no row's or cell's end. A brace
    left open groups nothing."""
    if "{" not in text:
        return text
    nested: list[tuple[int, int]] = []
    for m in _TAB_BEGIN.finditer(text):
        close = _tab_end(text, m)
        if close >= 0 and not (nested and m.start() < nested[-1][1]):
            nested.append((m.end(), close))
    if nested:
        text = _spans_filled(text, nested)
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    for m in _BRACE.finditer(text):
        if m.group(0) == "{":
            opened.append(m.start())
        elif opened:
            a = opened.pop()
            if not opened:
                spans.append((a + 1, m.start()))
    return _spans_filled(text, spans) if spans else text


def _spans_filled(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (in order, apart) filled with "x"."""
    pieces: list[str] = []
    last = 0
    for a, b in spans:
        pieces += [text[last:a], "x" * (b - a)]
        last = b
    pieces.append(text[last:])
    return "".join(pieces)


def _tab_end(text: str, begin: re.Match[str]) -> int:
    """Where the environment ``begin`` opens is closed, the same environment nested in it
    skipped (a cell's "\\begin{tabular}[c]{@{}c@{}}31.42\\\\ (0.05)\\end{tabular}", the
    multi-line cell LaTeX table generators write); -1 where it is not."""
    depth = 1
    ends = re.compile(r"\\(begin|end)\{" + re.escape(begin.group(1)) + r"\}")
    for m in ends.finditer(text, begin.end()):
        depth += 1 if m.group(1) == "begin" else -1
        if depth == 0:
            return m.start()
    return -1


def _split_kept(pattern: re.Pattern[str], find_in: str, text: str) -> list[str]:
    """``text`` cut where ``pattern`` (one group) matches ``find_in`` (of the same length), the
    separators kept as pieces of their own, as ``re.split`` with a group gives them."""
    pieces: list[str] = []
    last = 0
    for m in pattern.finditer(find_in):
        pieces += [text[last:m.start()], text[m.start():m.end()]]
        last = m.end()
    pieces.append(text[last:])
    return pieces


def _multicolumn_body(cell: Cell) -> tuple[int, Cell] | None:
    """A ``\\multicolumn{n}{c}{text}`` cell's n and its text argument (offsets and all); None
    for another cell."""
    span = _MULTICOLUMN.match(cell.text)
    if span is None:
        return None
    at = span.end()
    for _ in range(2):  # the column format, then the text
        while at < len(cell.text) and cell.text[at] in " \t\n":
            at += 1
        start, at = at, _skip_group(cell.text, at)
        if at == start:
            return None
    return int(span.group(1)), Cell(cell.text[start + 1:at - 1], cell.start + start + 1,
                                    cell.start + at - 1)


def _name_spanned_columns(table: Table, syntax: str) -> None:
    """Head the k-th column a header's ``\\multicolumn{n}{c}{PSNR/SSIM}`` covers with the k-th
    of its n slash names (`head_spans_by_name`; the names are read from the cell's text
    argument, not its column format)."""
    spans: list[tuple[int, int, Cell, Cell]] = []
    for hrow in table.header_rows:
        for col, cell in enumerate(hrow):
            found = _multicolumn_body(cell) if "/" in cell.text else None
            if found is not None:
                spans.append((col, found[0], cell, found[1]))
    head_spans_by_name(table, spans, syntax)


def head_spans_by_name(table: Table, spans: Sequence[tuple[int, int, Cell, Cell]],
                       syntax: str = "md") -> None:
    """For each header cell spanning columns (``(first column, n, the cell as the header's
    parts hold it, the part of it holding the names)``: a LaTeX ``\\multicolumn``, an HTML
    ``colspan``), head the k-th column it covers with the k-th of its n slash names, the
    header's other words kept (as `_slash_header` keeps them): the columns under "PSNR/SSIM"
    are PSNR and SSIM side by side, and the whole text heading each named both, so a drifted
    SSIM read as PSNR-or-SSIM. Another count of names, a second slash list in the column's
    header, or a claim marker in it leaves every covered column headed by the whole; so do
    covered columns whose cells hold n slash-joined numbers ("PSNR / SSIM" over "Set5" and
    "Set14", each cell "38.21 / 0.9614"): the names are each pair's, split in each column
    (`_split_slash_columns`). Before, PSNR headed Set5's pairs and SSIM Set14's, and Set14's
    PSNR was judged against its SSIM claim (false drift)."""
    plans: list[tuple[int, tuple[str, list[Cell]]]] = []
    for col, n, cell, names in spans:
        if n < 2 or col + n > len(table.header) or _holds_tuples(syntax, table, col, n):
            continue
        # each covered column's own parts (its other header rows' cells differ), with the part
        # holding the names in the cell's place
        view = table if names is cell else Table(
            table.start, table.end, table.header, [], table.header_rows,
            [[names if p == cell else p for p in table.parts_of(c)]
             for c in range(len(table.header))])
        subs = [_slash_header(view, col + k) for k in range(n)]
        # the names still whole in a column's parts: the one slash list was found elsewhere
        if all(s is not None and len(s) == n and names not in s[k][1]
               for k, s in enumerate(subs)):
            plans.extend((col + k, s[k]) for k, s in enumerate(subs) if s is not None)
    # planned on the table as read: a column under two such cells has two lists, and no plan
    for col, (text, parts) in plans:
        head = table.header[col]
        table.header[col] = Cell(text, head.start, head.end)
        table.header_parts[col] = parts


def _holds_tuples(syntax: str, table: Table, col: int, n: int) -> bool:
    """Whether a body cell of the n columns from ``col`` holds n slash-joined numbers."""
    return any(c < len(row) and _DIGIT.search(row[c].text) and _slash_cells(syntax, row[c], n)
               for row in table.rows for c in range(col, col + n))


def delimited_table(segment: Segment) -> Table:
    """A CSV/TSV segment as one table: first non-empty row the header."""
    cached = segment._cache.get("table")
    if isinstance(cached, Table):
        return cached
    text = segment.text
    sep = "\t" if segment.syntax == "tsv" else _csv_separator(text)
    rows: list[list[Cell]] = []
    pos = 0
    while pos < len(text):
        nl = text.find("\n", pos)
        nl = len(text) if nl < 0 else nl
        line = text[pos:nl].rstrip("\r")
        if line.strip():
            cells = (_quoted_cells(line, pos, sep) if '"' in line
                     else _split_cells(line, pos, sep))
            if sep == ";":  # the decimal comma goes with the semicolon (31,42 is 31.42)
                cells = [Cell(c.text.replace(",", "."), c.start, c.end)
                         if _DECIMAL_COMMA.fullmatch(c.text) else c for c in cells]
            rows.append(cells)
        pos = nl + 1
    header = rows[0] if rows else []
    _fill_group_labels(rows[1:])
    table = _split_slash_columns(segment.syntax, Table(0, len(text), header, rows[1:],
                                                       [header] if rows else []))
    segment._cache["table"] = table
    return table


_DECIMAL_COMMA = re.compile(r"\s*[+\-\u2212]?\d+,\d+\s*")


def _csv_separator(text: str) -> str:
    """``;`` when the first line holds semicolons and no commas (a spreadsheet's export where
    the comma is the decimal mark), else ``,``."""
    first = text.lstrip("\ufeff\r\n").split("\n", 1)[0]
    return ";" if ";" in first and "," not in first else ","


def _quoted_cells(line: str, base: int, sep: str) -> list[Cell]:
    cells: list[Cell] = []
    i = 0
    while i <= len(line):
        if i < len(line) and line[i] == '"':
            j = i + 1
            while j < len(line):
                if line[j] == '"':
                    if j + 1 < len(line) and line[j + 1] == '"':
                        j += 2
                        continue
                    break
                j += 1
            cells.append(Cell(line[i + 1:j].replace('""', '"'), base + i + 1, base + j))
            k = line.find(sep, j)
            i = len(line) + 1 if k < 0 else k + 1
        else:
            k = line.find(sep, i)
            k = len(line) if k < 0 else k
            cells.append(Cell(line[i:k], base + i, base + k))
            i = k + 1
    return cells


# --- plain-text tables: a DataFrame as pandas prints it ---------------------------------------

_TOKEN = re.compile(r"\S+")
_INTEGER = re.compile(r"[+\-]?\d+")
_ALIGNED_MAX_LINES = 1000  # a longer block of lines is prose or a log, not a printed frame


def aligned_table(segment: Segment, pos: int,
                  within: tuple[int, int] | None = None) -> Table | None:
    """The plain-text table around ``pos``, when the block of non-blank lines holding it is one
    as pandas prints a DataFrame (a notebook's ``text/plain`` output, a ``print(df)`` stream,
    a results log): a header line of column names, each right-aligned with its column's values;
    an optional line naming the index; then one line per row, its label (the index) on the left.

    A column's edge is where a header name and every row's value end together; names with a
    space in them join up with the next edge. A block whose lines do not all keep to the edges
    is no table (prose is read as sentences). An integer index (0, 1, 2: row numbers) is not a
    value, so its cells are given as empty; a named index (method names) labels the rows.
    sklearn's classification report is one (`report_table`). ``within``: the (start, end) the
    block is cut to (a Markdown fence's text: its ``` lines are none of the frame's).

    A frame wider than the display, which pandas prints as blocks of columns a blank line
    apart, each block's header line but the last ending in `` \\``, is one table
    (`_wrapped_frame`): the blocks' columns side by side, a row's cells from every block, so a
    label or text column of the first block ("Model") names the row's numbers in the others.
    """
    report = report_table(segment, pos)
    if report is not None:
        return report
    start = _block_start(segment, pos, _filled, 64 * _ALIGNED_MAX_LINES)
    if start is None:
        return None
    lo, hi = within if within is not None else (0, len(segment.text))
    start = max(start, lo)  # (the fence's opening line may start the block: it is no row)
    frame = _wrapped_frame(segment, start, lo, hi)
    return frame if frame is not None else _printed_block(segment, start, hi)


def _printed_block(segment: Segment, start: int, hi: int) -> Table | None:
    """The block of non-blank lines at ``start`` (cut at ``hi``) read as a printed frame, or
    None; built once per segment."""
    text = segment.text

    def build() -> Table | None:
        lines = [(at, line.rstrip()) for at, line in
                 _block_lines(text, start, _filled, _ALIGNED_MAX_LINES) if at < hi]
        return _parse_aligned(lines) if 2 <= len(lines) <= _ALIGNED_MAX_LINES else None

    return _table_once(segment, "aligned_tables", start, build)


# --- a wide frame printed in blocks of columns ------------------------------------------------

def _wrapped_frame(segment: Segment, start: int, lo: int, hi: int) -> Table | None:
    """The wrapped frame whose blocks include the block of lines at ``start`` (within ``lo``,
    ``hi``), as one table; None when that block is none of one. Built once per frame."""
    blocks = _frame_blocks(segment, start, lo, hi)
    if blocks is None:
        return None
    cache = segment._cache.setdefault("wrapped_frames", {})
    assert isinstance(cache, dict)
    got = cache.get(blocks[0])
    if got is None:
        got = cache[blocks[0]] = _joined_blocks(segment, blocks, hi)
    table, joined = got
    return table if start in joined else None


def _frame_blocks(segment: Segment, start: int, lo: int, hi: int) -> tuple[int, ...] | None:
    """Where the blocks of the wrapped frame holding the block at ``start`` begin: the block
    and its neighbours (blocks of non-blank lines, a blank line apart) chained by header lines
    ending in `` \\``; None when the block is chained to none. Each frame is walked once (the
    answer is kept for each of its blocks), so a frame of many blocks costs no more per block."""
    starts, ends = _filled_runs(segment)
    memo = segment._cache.setdefault("frame_blocks", {})
    assert isinstance(memo, dict)
    i = bisect.bisect_right(starts, start) - 1
    if (i, lo, hi) in memo:
        found: tuple[int, ...] | None = memo[(i, lo, hi)]
        return found
    text = segment.text

    def begin(j: int) -> int:
        return max(starts[j], lo)

    first = i
    while first > 0 and ends[first - 1] > lo and _continued(text, begin(first - 1)):
        first -= 1
    last = first
    while last + 1 < len(starts) and starts[last + 1] < hi and _continued(text, begin(last)):
        last += 1
    found = tuple(begin(j) for j in range(first, last + 1)) if first < last else None
    for j in range(first, max(last, i) + 1):
        memo[(j, lo, hi)] = found
    return found


def _filled_runs(segment: Segment) -> tuple[list[int], list[int]]:
    """The runs of non-blank lines (`_kept_runs`), as `_block_start` keeps them."""
    runs = segment._cache.get("runs:_filled")
    if runs is None:
        runs = segment._cache["runs:_filled"] = _kept_runs(segment.text, _filled)
    assert isinstance(runs, tuple)
    return runs


def _continued(text: str, at: int) -> bool:
    """Whether the line at ``at`` ends in `` \\``: a wrapped frame's header, continued in the
    next block."""
    end = text.find("\n", at)
    line = text[at:len(text) if end < 0 else end].rstrip()
    return len(line) > 2 and line.endswith(" \\")


def _joined_blocks(segment: Segment, blocks: tuple[int, ...],
                   hi: int) -> tuple[Table | None, frozenset[int]]:
    """The consecutive ``blocks``, from the first that reads as a frame, that read as frames
    of the same rows (count, labels, index name), joined side by side; with where they begin.
    (None, nothing) when fewer than two do: each block is then read alone."""
    text = segment.text
    group: list[tuple[int, Table]] = []
    for at in blocks:
        table = _printed_block(segment, at, hi)
        if table is not None and (not group or _same_rows(text, group[0][1], table)):
            group.append((at, table))
        elif group:
            break  # (the blocks after it are read alone)
    if len(group) < 2:
        return None, frozenset()
    return _side_by_side([t for _, t in group]), frozenset(at for at, _ in group)


def _same_rows(text: str, a: Table, b: Table) -> bool:
    """Whether two blocks of a wrapped frame print the same rows: pandas repeats the index (its
    name and each row's label) in every block."""
    return (len(a.rows) == len(b.rows) and a.header[0].text == b.header[0].text
            and all(_row_label(text, x) == _row_label(text, y)
                    for x, y in zip(a.rows, b.rows, strict=True)))


def _row_label(text: str, row: list[Cell]) -> str:
    """A printed frame's row label as printed (an integer one too, whose cell is empty): the
    text from the line's start to its first value."""
    return text[row[0].start:row[1].start].strip() if len(row) > 1 else row[0].text.strip()


def _side_by_side(tables: list[Table]) -> Table:
    """Blocks of one frame as one table: the first block's index and columns, then each later
    block's columns (its index repeats the first's)."""
    first = tables[0]
    header = list(first.header)
    parts = [first.parts_of(col) for col in range(len(first.header))]
    rows = [list(row) for row in first.rows]
    for table in tables[1:]:
        header += table.header[1:]
        parts += [table.parts_of(col) for col in range(1, len(table.header))]
        for row, more in zip(rows, table.rows, strict=True):
            row += more[1:]
    return Table(first.start, tables[-1].end, header, rows, [header], parts)


def report_table(segment: Segment, pos: int) -> Table | None:
    """sklearn's classification report holding ``pos`` as one table (`_report_around`), or
    None; built once per segment. Costs one substring search on a text without one."""
    report = _report_around(segment, pos)
    if report is None:
        return None
    return _table_once(segment, "reports", report[0][0], lambda: _parse_report(report))


def _parse_report(lines: list[tuple[int, str]]) -> Table | None:
    """A classification report's lines as a table, its header line first put back over the
    columns: pasted into a README, the header often lost (or gained) leading spaces that the
    rows kept ("precision    recall  f1-score   support" flush left over rows indented as
    printed), so no header name ended where its column does. Its last name, ``support``,
    ends where the rows end (every row's last value is its support, right-aligned)."""
    (head_at, head), body = lines[0], lines[1:]
    shift = len(body[0][1]) - len(head)
    if shift < 0 and head[:-shift].strip():
        return None  # words where the header would have to lose spaces: no report
    table = _parse_aligned([(head_at - shift, " " * shift + head[max(0, -shift):]), *body],
                           gaps=True)
    if table is None or shift <= 0:
        return table
    # the spaces put before the header are not the text's: its cells start at the line
    header = [Cell(c.text, max(c.start, head_at), max(c.end, head_at)) for c in table.header]
    return Table(max(table.start, head_at), table.end, header, table.rows, [header])


def _parse_aligned(lines: list[tuple[int, str]], gaps: bool = False) -> Table | None:
    """``lines`` (offset, text) as a printed frame, or None. ``gaps``: a row may leave a
    column blank (a classification report's ``accuracy`` row has no precision or recall)."""
    (head_at, head), body = lines[0], lines[1:]
    if head.endswith(" \\"):  # a wide frame printed in blocks: "...  psnr  \\"
        head = head[:-2].rstrip()
    index_name: tuple[int, str] | None = None
    first = _TOKEN.findall(body[0][1])
    if len(first) == 1 and body[0][1].startswith(first[0]) and len(body) > 1:
        index_name, body = body[0], body[1:]  # "method" under the names: the index's name
    tokens = list(_TOKEN.finditer(head))
    names = [m.end() for m in tokens]
    # A line holding a decimal value is a record, not column names: COCO's summarize() lines
    # (" Average Precision  (AP) @[ ... ] = 0.405") align too, and read as a frame their first
    # line headed the others' values
    if not names or _DECIMAL_TOKEN.search(head) \
            or any(len(line) > len(head) for _, line in body):
        return None
    edges = [m.end() for m in tokens
             if all((m.end() <= len(line) and line[m.end() - 1] != " "
                     and (m.end() == len(line) or line[m.end()] == " "))
                    or (gaps and not line[m.start():m.end()].strip())
                    for _, line in body)]
    if not edges or edges[-1] != len(head):
        return None
    width = _index_width([line for _, line in body], edges[0])
    if width is None or width >= edges[0] or head[:width].strip():
        return None
    bounds = [width, *edges]
    header = [Cell(index_name[1].strip() if index_name else "", head_at, head_at + width)]
    header += [Cell(head[a:b], head_at + a, head_at + b) for a, b in pairwise(bounds)]
    rows: list[list[Cell]] = []
    numeric = False
    for at, line in body:
        label = line[:width].strip()
        index = (Cell("", at, at) if _INTEGER.fullmatch(label)  # row numbers: no label
                 else Cell(line[:width], at, at + width))
        cells = [index]
        for a, b in pairwise(bounds):
            value = line[a:b] if a < len(line) else ""
            numeric = numeric or bool(_NUMBER_CELL.match(value))
            # a column the line stops short of: an empty cell at the line's end, never past it
            # (the last line of the text ends there too)
            lo = min(a, len(line))
            cells.append(Cell(value, at + lo, at + max(lo, min(b, len(line)))))
        rows.append(cells)
    if not numeric:
        return None
    end = body[-1][0] + len(body[-1][1])
    return _split_slash_columns("txt", Table(head_at, end, header, rows, [header]))


# sklearn's classification_report: its header line, a blank line, a row per class (labels
# right-aligned, "macro avg" with its space), a blank line, then the averages, where "accuracy"
# leaves precision and recall blank. Blank lines cut it into blocks of which none is a frame,
# so each line was read as a log record and its label named none of its numbers.
_REPORT_HEAD = re.compile(r"[ \t]*precision[ \t]+recall[ \t]+f1-score[ \t]+support[ \t]*\r?$")
_REPORT_AVERAGES = ("accuracy", "macro avg", "weighted avg", "micro avg", "samples avg")


def _report_around(segment: Segment, pos: int) -> list[tuple[int, str]] | None:
    """The lines (offset, text) of the classification report holding ``pos``, its header
    first and its blank lines left out; None outside one."""
    found = segment._cache.get("reports_at")
    if found is None:
        reports = _reports(segment.text)
        found = segment._cache["reports_at"] = ([lines[0][0] for lines in reports], reports)
    assert isinstance(found, tuple)
    starts, reports = found
    if not reports:
        return None
    i = bisect.bisect_right(starts, pos) - 1
    if i < 0:
        return None
    lines = reports[i]
    return lines if pos <= lines[-1][0] + len(lines[-1][1]) else None


def _reports(text: str) -> list[list[tuple[int, str]]]:
    """Every classification report in ``text``, found once per segment."""
    out: list[list[tuple[int, str]]] = []
    at = text.find("f1-score")
    while at >= 0:
        ls, le = line_at(text, at)
        if _REPORT_HEAD.match(text, ls, le):
            lines = [(ls, text[ls:le].rstrip())]
            averages = False
            cur = text.find("\n", le)
            while cur >= 0:
                ls, le = line_at(text, cur + 1)
                line = text[ls:le].rstrip()
                if not line:
                    if averages:
                        break  # the averages close the report
                elif line[-1].isdigit():  # a row ends in its support
                    average = line.lstrip().startswith(_REPORT_AVERAGES)
                    if averages and not average:
                        break
                    averages = averages or average
                    lines.append((ls, line))
                else:
                    break
                cur = text.find("\n", le)
            if len(lines) > 1:
                out.append(lines)
        at = text.find("f1-score", le)
    return out


def _index_width(rows: list[str], edge: int) -> int | None:
    """How wide the index (the row labels, left-aligned) of a printed frame is, given the
    right edge of its first column; 0: no index (printed with ``index=False``).

    pandas keeps two spaces between the index and the first column, whose value (words one
    space apart: "Ours large" in a text column) ends at ``edge``: what is left of that is the
    label, spaces and all ("JPEG 2000 q=90"). Rows that do not read so (a label one space from
    its value) have as label their first word, and no index when each row's first word ends
    at the edge. None: a row with nothing in it.
    """
    ends: list[int] = []
    starts: list[int] = []
    for line in rows:
        gap = line.rfind("  ", 0, edge)
        value = gap + 2 if gap >= 0 else len(line) - len(line.lstrip())
        starts.append(value)
        ends.append(len(line[:value].rstrip()))
    width = max(ends)
    if width and all(width < value for value in starts):
        return width
    firsts = [_TOKEN.search(line) for line in rows]
    if any(m is None for m in firsts):
        return None
    words = [m.end() for m in firsts if m is not None]
    return 0 if all(e == edge for e in words) else max(words)


_NUMBER_CELL = re.compile(r"\s*[+\-\u2212]?(?:\d|\.\d)")
_DECIMAL_TOKEN = re.compile(r"(?<!\S)[+\-\u2212]?\d*\.\d+(?!\S)")


# --- units -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Fence:
    """A fenced code block of Markdown: offsets into the segment's text."""

    start: int  # its opening line
    body: int   # its first line after the opening one
    end: int    # where its closing line starts (the text's end when it is never closed)
    info: str   # the info string after the opening ``` or ~~~ ("python", "", "shell script")


# a line that may open or close a fence (found as "\n" + text: a regex starting with ^ would be
# tried at every place), then the line itself: its ``` or ~~~ and what follows them
_FENCE = re.compile(r"\n[ \t]*(?:```|~~~)")
_FENCE_LINE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*([^\n]*?)[ \t\r]*(?:\n|$)")


def fences(segment: Segment) -> list[Fence]:
    """The fenced code blocks of a Markdown segment, in text order; found once per segment.

    As CommonMark pairs them: a block is closed by a line of the same character, at least as
    many of them and nothing after; a line with an info string, or of the other character,
    inside a block is its text. A backtick line whose info string holds a backtick is inline
    code, no fence; a block never closed runs to the text's end."""
    found = segment._cache.get("fence_blocks")
    if found is None:
        found = segment._cache["fence_blocks"] = _fences(segment.text)
    assert isinstance(found, list)
    return found


def _fences(text: str) -> list[Fence]:
    # most documents hold none: a search for the one character first (memchr speed), as a
    # search for three of them looks at nearly every character
    if ("`" not in text or "```" not in text) and ("~" not in text or "~~~" not in text):
        return []
    out: list[Fence] = []
    opened: tuple[int, int, str, str] | None = None  # (line start, body, marker, info)
    for m in _FENCE.finditer("\n" + text):
        ls = m.start()  # (the "\n" put before the text: offsets are the text's)
        line = _FENCE_LINE.match(text, ls)
        if line is None:
            continue
        marker, info = line.group(1), line.group(2)
        if marker[0] == "`" and "`" in info:
            continue  # ```inline code``` at a line's start
        if opened is None:
            opened = (ls, line.end(), marker, info)
        elif marker[0] == opened[2][0] and len(marker) >= len(opened[2]) and not info:
            out.append(Fence(opened[0], opened[1], ls, opened[3]))
            opened = None
    if opened is not None:
        out.append(Fence(opened[0], opened[1], len(text), opened[3]))
    return out


def fence_at(segment: Segment, pos: int) -> Fence | None:
    """The fenced block whose opening line or text holds ``pos`` (its closing line is not in
    it), or None."""
    blocks = fences(segment)
    if not blocks:
        return None
    starts = segment._cache.get("fence_starts")
    if starts is None:
        starts = segment._cache["fence_starts"] = [f.start for f in blocks]
    assert isinstance(starts, list)
    i = bisect.bisect_right(starts, pos) - 1
    return blocks[i] if i >= 0 and pos < blocks[i].end else None


def in_fence(segment: Segment, pos: int) -> tuple[int, int] | None:
    """The line around ``pos`` when it is inside a fenced code block (Markdown)."""
    if fence_at(segment, pos) is None:
        return None
    text = segment.text
    ls = text.rfind("\n", 0, pos) + 1
    le = text.find("\n", pos)
    return ls, len(text) if le < 0 else le


# --- printed logs: a record a line ----------------------------------------------------------

# What may follow a log record's last number: closing brackets and quotes, a comma, the period
# of "DONE (t=11.52s).", and one unit word ("31.42 dB", "@ 5000 iter", "37ms").
_RECORD_TAIL = " \t\r%)]}'\"`,.;"
_UNIT_WORDS = frozenset(["db", "ms", "s", "sec", "secs", "min", "h", "it", "its", "iter",
                         "iters", "step", "steps", "epoch", "epochs", "k", "m", "g", "b", "t",
                         "kb", "mb", "gb", "x", "fps"])
_LOG_SAMPLE = 2000  # lines: enough to tell a log from prose; a huge file is not read twice


def _ends_in_number(line: str) -> bool:
    end = line.rstrip(_RECORD_TAIL)
    if end[-1:].isdigit():
        return True
    word = end.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/")
    if word == end or end[len(word):].lower() not in _UNIT_WORDS:
        return False
    return word.rstrip(" \t@")[-1:].isdigit()


def _telling(line: str) -> bool:
    """Whether a line tells a log from prose: not blank, no pipe table's row (detectron2 prints
    its results as a table between its log lines) and no progress message ending in an
    ellipsis (pycocotools' "Loading and preparing results...", "creating index..."), which
    count neither way."""
    body = line.strip()
    return bool(body) and not body.startswith("|") and not body.endswith(("...", "\u2026"))


def is_log(segment: Segment) -> bool:
    """Whether a plain-text segment is a printed log: 3 or more non-blank lines, 60% or more of
    them ending in a number (a metric's value, "Epoch 3/15", "DONE (t=0.20s)."), or two lines
    that both end in one (a notebook cell's ``print(f"Test loss {loss}")`` and ``print(f"Test
    accuracy {acc}")``, a two-line results file).

    Such text has no sentence punctuation, so read as prose the whole log (up to 4,000
    characters) was one unit and every line's anchors named every line's numbers: an earlier
    epoch's value satisfied the last epoch's claim, per-image lines made a dataset's average
    ambiguous, the test loss went to the test accuracy's claim. Decided once per segment;
    hard-wrapped prose (lines ending in words) stays prose, and so does a single line.
    """
    if segment.printed:
        return True
    got = segment._cache.get("log")
    if got is None:
        lines = [line for line in segment.text.split("\n", _LOG_SAMPLE) if _telling(line)]
        # (60% of two lines is both: the bar a longer log must clear, kept for the shortest)
        got = len(lines) >= 2 and sum(map(_ends_in_number, lines)) >= 0.6 * len(lines)
        segment._cache["log"] = got
    return bool(got)


def line_end(text: str, at: int) -> int:
    """Where the line holding ``at`` ends: its newline, or the text's end."""
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def line_at(text: str, pos: int) -> tuple[int, int]:
    """The line holding ``pos`` as (start, end), its newline (and a CR before it) left out."""
    ls = text.rfind("\n", 0, pos) + 1
    le = text.find("\n", pos)
    le = len(text) if le < 0 else le
    return ls, le - 1 if le > ls and text[le - 1] == "\r" else le
