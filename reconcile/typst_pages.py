"""Typst papers (``.typ``), read as Markdown's text is read (`page_text`), and their tables
(`typst_table`).

Typst writes a paper as markup with code embedded after ``#``: ``= Results`` is a heading,
``#set text(11pt)`` and ``#let`` configure and define, ``#figure(table(columns: 3, [Method],
[PSNR], ...), caption: [...])`` places a table. `page_text` turns the source into the text the
Markdown reader judges (`doc_readers.read_document` reads the result as syntax ``md``):

* **Kept:** markup (prose, lists, ``*strong*``, ``_emph_``, math ``$...$``, ``\\`` escapes);
  raw text in backticks (Markdown's code spans and fences, read as such); the content blocks
  ``[...]`` of code that shows them (a figure's caption, ``#strong[31.42]``, the branches of
  ``#if``), their brackets blanked; ``table(...)`` calls whole, for `typst_table`;
  ``#include "F"`` and an import's ``#import "F"`` (`included` reads the file); the claim
  markers of ``labledger.typ`` (``#claim("C1")[31.42]``, ``#claimdelta("C2", "C1")[+1.47]``,
  ``#noclaim``), for `doc_markers`; a value's definition on a line of its own (``#let psnr =
  31.50``) and a variable's use (``#psnr``), for `shown_values`, which shows the value at each
  use and blanks the rest before judging.
* **Blanked** (one space per character, line breaks kept): comments (``//``, ``/* */``);
  code: a call's name and arguments, a number's ``#``; ``#let`` (of anything but one number),
  ``#set`` and ``#import`` statements with all they hold (a ``#let``'s content is defined, not
  printed; a ``#show`` rule's content is shown: a template's abstract, ``#show:
  ieee.with(abstract: [...])``); labels (``<tab:main>``) and references (``@tab:main``), whose
  digits are no results.
* **Headings** ``= `` ... ``====== `` read as Markdown's ``# `` ..., which name the tables
  under them as a README's headings do.

`typst_table`: a ``table(...)`` call as the `Table` the other readers give. Its cells are its
positional arguments (``[31.42]``, ``"31.42"``, a number, ``table.cell(colspan: 2)[Set5]``, and
content blocks trailing the call), laid out ``columns`` to a row (a number, or an array's
length: ``(auto, 1fr, 1fr)``) as Typst lays them out, ``colspan`` and ``rowspan`` as HTML's
(`html_tables.laid_out`); the header is ``table.header(...)``'s rows, else the first row.
Refused (None: read as prose): no ``columns``, a computed one, an argument spread
(``..rows``), fewer than two rows.

Invariant: the text has the file's length and its line breaks at the same places, so every
offset, line and column a finding gives is the file's.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Iterable

from labledger.reconcile.doc_readers import (
    Cell,
    Segment,
    Table,
    _table_once,
    in_fence,
    is_typst_path,
    span_holding,
)
from labledger.reconcile.html_tables import RawCell, laid_out

__all__ = ["is_typst", "outside_tables", "page_text", "shown_values", "typst_table",
           "typst_values"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# what markup stops at: an escape, a comment, raw text, math, brackets, code, a label or a
# reference, a heading's equals signs at a line's start
_MARKUP_STOP = re.compile(r"[\\/`$\[\]#<@]|(?m:^[ \t]*(=+)[ \t])")
_LABEL = re.compile(r"<[A-Za-z0-9_:.\-]+>")
_REFERENCE = re.compile(r"@[A-Za-z0-9_:.\-]+")
_URL_SCHEME = re.compile(r"https?:\Z")
_BLANKED_STATEMENTS = frozenset({"let", "set", "import"})
# (a show rule's content is shown: a template's title and abstract, `#show: ieee.with(abstract:
# [...])`)
_KEPT_STATEMENTS = frozenset({"show", "if", "else", "for", "while", "context", "return"})
# a definition of a value on a line of its own: `#let psnr = 31.52` (a number, a string or a
# content block of one), kept for `shown_values`; the file an import names
_VALUE_LET = re.compile(r"#let[ \t]+([A-Za-z_][\w-]*)[ \t]*=[ \t]*"
                        r"(\"[^\"\n]*\"|\[[^\[\]\n]*\]|[+\-]?\.?\d[\w.%+\-]*)"
                        r"[ \t]*(?=;|//|\n|\Z)")
_IMPORT_FILE = re.compile(r"#import[ \t]+\"(?!@)[^\"\n]+\"")
# labledger.typ's markers, kept for `doc_markers`
_MARKERS = frozenset({"claim", "claimdelta", "noclaim"})
_MAX_DEPTH = 64  # content blocks nested deeper are blanked whole (no recursion runs away)


def is_typst(segment: Segment) -> bool:
    return is_typst_path(segment.path)


def page_text(text: str) -> str:
    """The Typst source ``text`` as the Markdown reader is to read it (see the module's
    docstring): the same length, the same line breaks."""
    page = _Page(text)
    page.markup(0, closing=False, depth=0)
    return "".join(page.chars)


class _Page:
    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.chars = list(text)

    def blank(self, start: int, end: int) -> None:
        chars = self.chars
        for i in range(start, min(end, self.n)):
            if chars[i] != "\n":
                chars[i] = " "

    # --- markup --------------------------------------------------------------------------

    def markup(self, i: int, closing: bool, depth: int) -> int:
        """Read markup from ``i``: to the text's end, or (``closing``) to the ``]`` closing the
        content block it is in, whose offset is returned."""
        text = self.text
        nested = 0  # brackets opened in the markup itself: "[1]" is text
        while True:
            m = _MARKUP_STOP.search(text, i)
            if m is None:
                return self.n
            j = m.start()
            c = text[j]
            if m.group(1) is not None:  # a heading: "== Results" reads "## Results"
                at = m.start(1)
                self.chars[at:m.end(1)] = "#" * (m.end(1) - at)
                i = m.end()
            elif c == "\\":
                i = j + 2
            elif c == "/":
                i = self.comment(j) if not _URL_SCHEME.search(text, max(0, j - 6), j) else j + 2
            elif c == "`":
                i = self.raw_end(j)
            elif c == "$":
                i = self.math_end(j)
            elif c == "[":
                nested += 1
                i = j + 1
            elif c == "]":
                if nested:
                    nested -= 1
                elif closing:
                    return j
                i = j + 1
            elif c == "#":
                i = self.embedded(j, depth)
            else:  # a label or a reference
                found = (_LABEL if c == "<" else _REFERENCE).match(text, j)
                if found is not None:
                    self.blank(j, found.end())
                    i = found.end()
                else:
                    i = j + 1

    def comment(self, j: int) -> int:
        """Blank the comment at ``j`` (if one starts there); where reading goes on."""
        text = self.text
        if text.startswith("//", j):
            end = text.find("\n", j)
            end = self.n if end < 0 else end
        elif text.startswith("/*", j):
            end, depth = self.n, 0
            for edge in _COMMENT_EDGE.finditer(text, j):  # block comments nest
                depth += 1 if edge.group() == "/*" else -1
                if depth == 0:
                    end = edge.end()
                    break
        else:
            return j + 1
        self.blank(j, end)
        return end

    def raw_end(self, j: int) -> int:
        text = self.text
        k = j
        while k < self.n and text[k] == "`":
            k += 1
        ticks = k - j
        if ticks == 2:
            return k  # empty raw text
        close = text.find("`" * ticks, k)
        return self.n if close < 0 else close + ticks

    def math_end(self, j: int) -> int:
        text = self.text
        k = j + 1
        while True:
            k = text.find("$", k)
            if k < 0:
                return self.n
            if text[k - 1] != "\\":
                return k + 1
            k += 1

    # --- code --------------------------------------------------------------------------------

    def embedded(self, j: int, depth: int) -> int:
        """Read the code embedded at the ``#`` at ``j``; where markup goes on."""
        text = self.text
        word = _IDENT.match(text, j + 1)
        if word is not None:
            name = word.group()
            if name == "let":
                value = _VALUE_LET.match(text, j)
                if value is not None and _shown(value.group(2)) is not None:
                    return value.end()  # kept: `shown_values` reads its number, then blanks it
            if name in _BLANKED_STATEMENTS:
                end = self.code(word.end(), "\n", "blank", depth)
                self.blank(j, end)
                if name == "import":  # the file it imports stays (`included` reads it)
                    module = _IMPORT_FILE.match(text, j)
                    if module is not None:
                        self.chars[j:module.end()] = list(module.group())
                return end
            if name == "include":
                return self.code(word.end(), "\n", "keep", depth)
            if name in _MARKERS:
                return self.marker(word.end(), depth)
            if name in _KEPT_STATEMENTS:
                self.blank(j, word.end())
                return self.code(word.end(), "\n", "content", depth)
            after = text[word.end():word.end() + 2]
            if not after or after[0] not in "([." or after[0] == "." and not (
                    after[1:] and (after[1].isalpha() or after[1] == "_")):
                return word.end()  # a variable's use: `shown_values` shows its value or blanks it
            self.blank(j, j + 1)
            return self.chain(j + 1, depth)
        if j + 1 < self.n and text[j + 1] in "([{":
            self.blank(j, j + 1)
            return self.chain(j + 1, depth)
        if j + 1 < self.n and text[j + 1].isdigit():
            self.blank(j, j + 1)  # "#12" shows 12
        return j + 1

    def marker(self, i: int, depth: int) -> int:
        """Keep a claim marker (``#claim("C1")[31.42]``: `doc_markers` reads it) as written:
        its arguments and the content blocks after it."""
        text = self.text
        if text.startswith("(", i):
            i = min(self.code(i + 1, ")", "keep", depth) + 1, self.n)
        while text.startswith("[", i):
            i = self.content(i, "keep", depth)
        return i

    def chain(self, i: int, depth: int) -> int:
        """Read an expression embedded in markup: a name and its fields (``table.cell``), and
        the calls and content blocks right after them, with no space between; a call of
        ``table`` is kept whole (`typst_table`)."""
        text = self.text
        last = ""
        while i < self.n:
            c = text[i]
            word = _IDENT.match(text, i)
            if word is not None:
                last = word.group()
                self.blank(i, word.end())
                i = word.end()
            elif c == ".":
                if not _IDENT.match(text, i + 1):
                    return i  # a sentence's full stop after "#psnr"
                self.blank(i, i + 1)
                i += 1
            elif c == "(":
                if last == "table" and (i < 6 or text[i - 6] != "."):
                    self.chars[i - 5:i] = list(text[i - 5:i])  # the name, for `typst_table`
                    return self.table_call(i, depth)
                end = self.code(i + 1, ")", "content", depth)
                self.blank(i, i + 1)
                self.blank(end, end + 1)
                i = min(end + 1, self.n)
            elif c == "{":
                end = self.code(i + 1, "}", "content", depth)
                self.blank(i, i + 1)
                self.blank(end, end + 1)
                i = min(end + 1, self.n)
            elif c == "[":
                i = self.content(i, "content", depth)
            else:
                return i
        return i

    def table_call(self, i: int, depth: int) -> int:
        """Keep the arguments of the ``table`` call whose ``(`` is at ``i``, and the content
        blocks right after it, for `typst_table` (comments blanked, code in cells too)."""
        i = min(self.code(i + 1, ")", "table", depth) + 1, self.n)
        while self.text.startswith("[", i):
            i = self.content(i, "keep", depth)
        return i

    def content(self, i: int, mode: str, depth: int) -> int:
        """Read the content block opening at ``i``: markup, its brackets blanked (``mode``
        "content"), kept ("table", "keep") or everything blanked ("blank"); where it ends."""
        if depth >= _MAX_DEPTH:
            end = self.text.find("]", i)
            end = self.n if end < 0 else end
            self.blank(i, end + 1)
            return min(end + 1, self.n)
        end = self.markup(i + 1, closing=True, depth=depth + 1)
        if mode == "blank":
            self.blank(i, end + 1)
        elif mode == "content":
            self.blank(i, i + 1)
            self.blank(end, end + 1)
        return min(end + 1, self.n)

    def code(self, i: int, stop: str, mode: str, depth: int) -> int:
        """Read code from ``i`` to ``stop`` (a ``)`` or ``}`` closing what opened before ``i``;
        ``"\\n"``: a statement's end, a line's end or ``;``, or a ``]`` ending the content block
        it is in) and return its offset. ``mode``: "blank" blanks it all, "content" all but its
        content blocks and ``table`` calls, "table" and "keep" only comments."""
        text = self.text
        blank = mode in ("blank", "content")
        opened: list[str] = []
        while i < self.n:
            c = text[i]
            if c == '"':
                end = _string_end(text, i)
                if blank:
                    self.blank(i, end)
                i = end
            elif c == "/" and text.startswith(("//", "/*"), i):
                i = self.comment(i)
            elif c in "({":
                opened.append(")" if c == "(" else "}")
                if blank:
                    self.blank(i, i + 1)
                i += 1
            elif c in ")}":
                if not opened:
                    if c == stop or stop == "\n":
                        return i
                elif opened[-1] == c:
                    opened.pop()
                if blank:
                    self.blank(i, i + 1)
                i += 1
            elif c == "[":
                i = self.content(i, "blank" if mode == "blank" else
                                 "content" if mode == "content" else "keep", depth)
            elif c == "]":
                if stop == "\n" and not opened:
                    return i  # the content block holding the statement ends
                if blank:
                    self.blank(i, i + 1)
                i += 1
            elif stop == "\n" and not opened and c in "\n;":
                return i
            elif c == "`":
                end = self.raw_end(i)
                if blank:
                    self.blank(i, end)
                i = end
            else:
                word = _IDENT.match(text, i)
                if word is None:
                    if blank:
                        self.blank(i, i + 1)
                    i += 1
                    continue
                end = word.end()
                if mode == "content" and word.group() == "table" \
                        and text.startswith("(", end) and (i == 0 or text[i - 1] != "."):
                    i = self.table_call(end, depth)
                    continue
                if blank:
                    self.blank(i, end)
                i = end
        return self.n


_COMMENT_EDGE = re.compile(r"/\*|\*/")


def _string_end(text: str, i: int) -> int:
    """Where the string literal opening at ``i`` ends (after its closing quote)."""
    k = i + 1
    while k < len(text):
        c = text[k]
        if c == "\\":
            k += 2
        elif c == '"':
            return k + 1
        elif c == "\n":
            return k
        else:
            k += 1
    return len(text)


# --- values: `#let psnr = 31.52`, shown where `#psnr` is used -----------------------------------

# a variable's use `page_text` kept (a name; no call, no field, no content block after it)
_USE = re.compile(r"#([A-Za-z_][\w-]*)(?![\w(\[-]|\.[A-Za-z_])")
_ONE_NUMBER = re.compile(r"[+\-\u2212]?(?:\d+(?:\.\d*)?|\.\d+)%?")
_NOT_VALUES = frozenset({"include", "import", "let"}) | _MARKERS


def typst_values(segments: Iterable[Segment]) -> dict[str, tuple[str, str]]:
    """``#name`` → (the number it shows, where it is defined: ``results.typ:3``) for each
    ``#let name = VALUE`` of the Typst ``segments`` whose value shows one number, as Typst
    shows it (`_shown`: a float ``31.50`` shows ``31.5``, ``-0.4`` shows ``−0.4``; a string or
    a content block as written); a name defined with differing values is left out."""
    seen: dict[str, set[str | None]] = {}
    places: dict[str, str] = {}
    for seg in segments:
        if not is_typst(seg) or "#let" not in seg.text:
            continue
        for m in _VALUE_LET.finditer(seg.text):
            if in_fence(seg, m.start()) is not None:
                continue
            name = "#" + m.group(1)
            seen.setdefault(name, set()).add(_shown(m.group(2)))
            places.setdefault(name, f"{seg.path}:{seg.position(m.start())[0]}")
    out: dict[str, tuple[str, str]] = {}
    for name, shown in seen.items():
        one = shown.pop() if len(shown) == 1 else None
        if one is not None:
            out[name] = one, places[name]
    return out


def _shown(literal: str) -> str | None:
    """The text Typst shows for the value ``literal`` when it is one number, else None."""
    if literal[0] in "\"[":
        inner = literal[1:-1].strip()
        return inner if _ONE_NUMBER.fullmatch(inner) else None
    percent = literal.endswith("%")
    body = literal[:-1] if percent else literal
    try:
        number = int(body) if body.lstrip("+-").isdigit() else float(body)
    except ValueError:
        return None
    if isinstance(number, float):
        if not math.isfinite(number):
            return None
        text = repr(abs(number))
        if "e" in text:
            return None  # (Typst writes such floats its own way)
        text = text.removesuffix(".0")
    else:
        text = str(abs(number))
    return ("\u2212" if number < 0 else "") + text + ("%" if percent else "")


def shown_values(seg: Segment, values: dict[str, tuple[str, str]],
                 ) -> tuple[Segment, list[tuple[int, int, str]]]:
    """The Typst ``seg`` as judged: each value's definition `page_text` kept blanked (the
    number is read where it is used), each use of a value (``#psnr``) showing its number,
    right-aligned in the use's place, and every other use kept blanked (its value is not
    known: ``#best`` holding a figure); with (start, end, ``#name``) of each use shown. A use
    shorter than its number is blanked (no room for it); one in raw text stays as written."""
    text = seg.text
    if "#" not in text:
        return seg, []
    from labledger.reconcile.fenced import inside, shown_verbatim

    chars = list(text)
    defined = [(m.start(), m.end()) for m in _VALUE_LET.finditer(text)
               if in_fence(seg, m.start()) is None]
    for start, end in defined:
        chars[start:end] = " " * (end - start)
    uses: list[tuple[int, int, str]] = []
    verbatim: list[tuple[int, int]] | None = None
    touched = bool(defined)
    k = 0
    for m in _USE.finditer(text):
        if m.group(1) in _NOT_VALUES:
            continue
        while k < len(defined) and defined[k][1] <= m.start():
            k += 1
        if k < len(defined) and defined[k][0] <= m.start():
            continue  # (a definition's own)
        if verbatim is None:
            verbatim = shown_verbatim(seg)
        if inside(verbatim, m.start()):
            continue
        width = m.end() - m.start()
        touched = True
        got = values.get(m.group())
        if got is not None and len(got[0]) <= width:
            chars[m.start():m.end()] = " " * (width - len(got[0])) + got[0]
            uses.append((m.start(), m.end(), m.group()))
        else:
            chars[m.start():m.end()] = " " * width
    if not touched:
        return seg, uses
    return dataclasses.replace(seg, text="".join(chars), _cache={}), uses


# --- tables ----------------------------------------------------------------------------------

_TABLE_CALL = re.compile(r"(?<![.\w-])table\(")
_NAMED = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)\s*:(?!:)")
_MAX_COLUMNS = 1000
# a count written in ASCII digits (str.isdigit also takes "²", which int() refuses)
_COUNT = re.compile(r"[0-9]{1,6}")


class _Refused(Exception):
    """The call is no table this reader reads (never raised out of this module)."""


def typst_table(segment: Segment, pos: int) -> Table | None:
    """The table of the Typst ``segment`` (its `page_text`) whose call holds offset ``pos``;
    None when ``pos`` is in none, or in one this reader refuses (see the module's
    docstring)."""
    if not is_typst(segment):
        return None
    span = span_holding(_spans(segment), pos)
    if span is None:
        return None
    start, end = span
    return _table_once(segment, "typst_tables", start,
                       lambda: _parse(segment.text, start, end))


def outside_tables(segment: Segment, pos: int, start: int, end: int) -> tuple[int, int]:
    """The sentence ``start``-``end`` around ``pos`` cut at the edges of the tables beside it:
    a caption under a table, or the prose over it, does not run into its cells (Markdown's
    sentences end at a pipe row's edge)."""
    for table_start, table_end in _spans(segment):
        if table_start >= end:
            break
        if table_end <= pos and table_end > start:
            start = table_end
        elif pos < table_start < end:
            end = table_start
    return start, end


def _spans(segment: Segment) -> list[tuple[int, int]]:
    """(start, end) of each ``table(...)`` call (and the content blocks trailing it), outside
    raw text, in text order."""
    found = segment._cache.get("typst_table_spans")
    if isinstance(found, list):
        return found
    text = segment.text
    spans: list[tuple[int, int]] = []
    at = 0
    for m in _TABLE_CALL.finditer(text):
        if m.start() < at or in_fence(segment, m.start()) is not None:
            continue
        args = _arguments(text, m.end())
        if args is None:
            break  # never closed: the rest of the text is its (no search from every call)
        end = _trailing_end(text, args[1] + 1)
        spans.append((m.start(), end))
        at = end
    segment._cache["typst_table_spans"] = spans
    return spans


def _arguments(text: str, i: int) -> tuple[list[tuple[int, int]], int] | None:
    """The (start, end) of each argument of the call whose ``(`` ends at ``i``, and the offset of
    its ``)``; None when it never closes."""
    args: list[tuple[int, int]] = []
    opened: list[str] = []
    start = i
    k = i
    n = len(text)
    while k < n:
        c = text[k]
        if c == '"':
            k = _string_end(text, k)
            continue
        if c == "[":
            close = _bracket_end(text, k)
            if close is None:
                return None
            k = close + 1
            continue
        if c in "({":
            opened.append(")" if c == "(" else "}")
        elif c in ")}":
            if not opened:
                if c == ")":
                    args.append((start, k))
                    return [a for a in (_trim(text, *a) for a in args) if a[0] < a[1]], k
                return None
            if opened.pop() != c:
                return None
        elif c == "," and not opened:
            args.append((start, k))
            start = k + 1
        k += 1
    return None


def _bracket_end(text: str, i: int) -> int | None:
    """The offset of the ``]`` closing the content block opening at ``i`` (raw text and nested
    brackets skipped), or None."""
    return _bracket_pairs(text).get(i)


@functools.lru_cache(maxsize=4)
def _bracket_pairs(text: str) -> dict[int, int]:
    """Each ``[`` of ``text`` that is closed, to its ``]``: found in one pass (a search from
    every bracket made a text of unclosed ones quadratic). An escaped bracket and raw text are
    skipped."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    k = 0
    while True:
        m = _BRACKET_STOP.search(text, k)
        if m is None:
            return pairs
        k = m.start()
        c = text[k]
        if c == "\\":
            k += 2
            continue
        if c == "`":
            close = text.find("`", k + 1)
            if close < 0:
                return pairs
            k = close + 1
            continue
        if c == "[":
            opened.append(k)
        elif opened:
            pairs[opened.pop()] = k
        k += 1


_BRACKET_STOP = re.compile(r"[\\`\[\]]")


def _trailing_end(text: str, i: int) -> int:
    """Past the content blocks written right after a call's ``)`` (``table(..)[a][b]``)."""
    while i < len(text) and text[i] == "[":
        close = _bracket_end(text, i)
        if close is None:
            break
        i = close + 1
    return i


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _parse(text: str, start: int, end: int) -> Table | None:
    try:
        return _build(text, start, end)
    except _Refused:
        return None


def _build(text: str, start: int, end: int) -> Table | None:
    got = _arguments(text, start + len("table("))
    assert got is not None  # `_spans` found the call closed
    args, close = got
    args += _trailing_blocks(text, close + 1, end)
    columns: int | None = None
    head: list[RawCell] = []
    body: list[RawCell] = []
    for a, b in args:
        arg = text[a:b]
        named = _NAMED.match(arg)
        if named is not None and not arg.startswith(("[", '"')):
            if named.group(1) == "columns":
                columns = _column_count(arg[named.end():].strip())
            continue
        if arg.startswith(".."):
            raise _Refused
        if arg.startswith("table.header"):
            head += _cells_of(text, a + len("table.header"), b, header=True)
        elif arg.startswith("table.footer"):
            body += _cells_of(text, a + len("table.footer"), b, header=False)
        elif arg.startswith(("table.hline", "table.vline")):
            continue
        else:
            body.append(_cell(text, a, b, header=False))
    if not columns or columns > _MAX_COLUMNS:
        raise _Refused
    head_rows = _flowed(head, columns)
    rows = head_rows + _flowed(body, columns)
    return laid_out(rows, set(range(len(head_rows))), start, end)


def _trailing_blocks(text: str, i: int, end: int) -> list[tuple[int, int]]:
    out = []
    while i < end and text[i] == "[":
        close = _bracket_end(text, i)
        if close is None:
            break
        out.append((i, close + 1))
        i = close + 1
    return out


def _column_count(value: str) -> int:
    """``columns: 3`` or ``columns: (auto, 1fr, 1fr)``; a computed count is refused."""
    if _COUNT.fullmatch(value):
        return int(value)
    if value.startswith("(") and value.endswith(")"):
        inner = _arguments(value, 1)
        if inner is not None and inner[1] == len(value) - 1:
            return len(inner[0])
    raise _Refused


def _cells_of(text: str, i: int, end: int, header: bool) -> list[RawCell]:
    """The cells of ``table.header(..)`` / ``table.header[..][..]`` (from ``i``, after its
    name, to ``end``)."""
    cells: list[RawCell] = []
    if text.startswith("(", i):
        got = _arguments(text, i + 1)
        if got is None:
            raise _Refused
        args, close = got
        for a, b in args:
            named = _NAMED.match(text, a)
            if named is not None and text[a] not in "[\"":
                continue  # repeat: true
            cells.append(_cell(text, a, b, header))
        i = close + 1
    for a, b in _trailing_blocks(text, i, end):
        cells.append(_cell(text, a, b, header))
    return cells


def _cell(text: str, a: int, b: int, header: bool) -> RawCell:
    """The cell an argument ``text[a:b]`` writes: a content block's or a string's inside, a
    ``table.cell(..)``'s content and spans, any other expression whole."""
    colspan = rowspan = 1
    if text.startswith("table.cell", a):
        got = _arguments(text, a + len("table.cell("))
        if got is None:
            raise _Refused
        args, close = got
        body = None
        for x, y in args:
            named = _NAMED.match(text, x)
            if named is not None and text[x] not in "[\"":
                value = text[named.end():y].strip()
                if named.group(1) in ("colspan", "rowspan"):
                    if not _COUNT.fullmatch(value) or not 0 < int(value) <= _MAX_COLUMNS:
                        raise _Refused
                    if named.group(1) == "colspan":
                        colspan = int(value)
                    else:
                        rowspan = int(value)
                continue
            body = (x, y)
        trailing = _trailing_blocks(text, close + 1, b)
        if trailing:
            body = trailing[0]
        if body is None:
            return RawCell(Cell("", b, b), header, colspan, rowspan)
        a, b = body
    if text[a] == "[" and text[b - 1] == "]" or text[a] == '"' and text[b - 1] == '"' \
            and b - a >= 2:
        a, b = _trim(text, a + 1, b - 1)
    return RawCell(Cell(text[a:b], a, b), header, colspan, rowspan)


def _flowed(cells: list[RawCell], columns: int) -> list[list[RawCell]]:
    """``cells`` laid in rows of ``columns`` as Typst lays them: each in the next free place,
    left to right, a row's places under a rowspan from above taken."""
    rows: list[list[RawCell]] = []
    row: list[RawCell] = []
    col = 0
    covered: dict[int, int] = {}  # column -> the last row a rowspan above covers
    r = 0

    def free(c: int) -> bool:
        return covered.get(c, -1) < r

    for cell in cells:
        span = min(cell.colspan, columns)
        while col < columns and not free(col):
            col += 1
        if col + span > columns:
            rows.append(row)
            row, col, r = [], 0, r + 1
            while col < columns and not free(col):
                col += 1
        row.append(cell)
        if cell.rowspan > 1:
            for k in range(span):
                covered[col + k] = r + cell.rowspan - 1
        col += span
        if col >= columns:
            rows.append(row)
            row, col, r = [], 0, r + 1
    if row:
        rows.append(row)
    return rows
