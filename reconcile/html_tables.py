"""HTML tables written inside Markdown (``<table><tr><th>Method</th><th>PSNR</th></tr>...``), as
the `Table` the other readers give, so a cell is judged by its row and its column header as in a
pipe table.

Invariants:

* **Offsets are the segment's.** A cell is its inner content (between ``<td ...>`` and its end),
  less the white space around it; its ``start``/``end`` are offsets into the segment's text and
  its ``text`` has exactly ``end - start`` characters: tags inside it (``<b>``, ``<sup>``,
  ``<br>``, ``<a href=..>``) are blanked one space per character (line breaks kept), struck-out
  text with its tags too (``<del>76.9</del>``, ``~~76.9~~``, ``~76.9~``:
  `doc_readers.blank_struck`), and an
  entity (``&plusmn;``, ``&#177;``, ``&nbsp;``) is the character it stands for, padded with
  spaces to its length. A sign (``±``, ``−``) is put at the entity's end, against the number it
  signs; any other character at its start, against what it follows (``91.3&#37;`` reads
  ``91.3%``). HTML comments are left as written (`mask_text` blanks them; a ``claim:`` marker
  in one is seen as in a pipe table).
* **Read:** a ``<table>`` ... ``</table>`` (any case, any attributes) not in a code fence nor in
  an HTML comment; rows ``<tr>``, cells ``<td>`` and ``<th>``, with the end tags HTML lets one
  leave out (``</td>``, ``</th>``, ``</tr>``); ``<thead>``/``<tbody>``/``<tfoot>``;
  ``colspan`` (the cell stands for that many columns; the columns it covers are empty cells in
  a body row, and in a header row are headed by it: ``<th colspan="2">Set5</th>`` over
  PSNR/SSIM heads "Set5 PSNR" and "Set5 SSIM"); ``rowspan`` (a label names every row it spans,
  offsets and all, as LaTeX ``\\multirow`` does; a number is read once, in its own row). The
  header is the ``<thead>`` rows, else the leading rows made only of ``<th>`` cells, else the
  first row. A ``<caption>`` and text between cells without a digit are ignored.
* **Refused** (None: the text is read as prose, as before there was this reader; never an
  exception): a table with no ``</table>``; one holding another table (a layout table; the
  inner one is read); a cell outside a row (but header cells before the first row, which HTML
  puts in a row of their own), an end tag with nothing open to end, a digit in
  text outside every cell (a number the table would hide); a ``colspan`` over
  `_MAX_SPAN`, a grid wider than `_MAX_COLUMNS`, or one whose spans cover far more places than
  its cells fill (`_MAX_COVERED`: 999 cells of ``rowspan="999"`` stepping right row by row
  made a grid of half a million places out of 55 KB); fewer than two rows.
* **Cheap.** A segment without ``<table`` costs one substring search; each table is parsed once
  per segment (`doc_readers._table_once`), however many of its numbers ask for it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from labledger.reconcile.doc_readers import (
    Cell,
    Segment,
    Table,
    _fill_group_labels,
    _split_slash_columns,
    _table_once,
    blank_struck,
    blanked,
    head_spans_by_name,
    in_fence,
    span_holding,
)

__all__ = ["ENTITY", "RawCell", "html_table", "laid_out", "shown_entity"]

_MAX_SPAN = 1000      # a colspan/rowspan past this is a hostile or broken page, not a results table
_MAX_COLUMNS = 1000
# Places a span may cover per cell written, beyond a few hundred: a results table's spans are
# group labels over a handful of rows and dataset headers over two or three columns.
_MAX_COVERED = 16

# <table ...> and </table>, and comments (a table inside one is no table: old results are kept
# commented out); an unclosed comment hides the rest of the text, as a browser reads it
_TABLE_TAG = re.compile(r"<!--(?:.*?-->|.*\Z)|<(/?)table\b[^<>]*>", re.I | re.S)
# Whether a text may hold a table at all: one search, from "<" (the regex engine skips ahead to
# that character; three `in` tests of letters cost a 10 MB tree 12 ms)
_TABLE_OPENS = re.compile(r"<(?:table|TABLE|Table)")
# every tag of a table's body, comments first (a tag inside one is text). A tag ends at its
# first '>' and holds no '<': quotes are not followed (a quote left open made the search
# quadratic), so a '>' written inside an attribute's value ends the tag early.
_TAG = re.compile(r"<!--(?:.*?-->|.*\Z)|<(/?)([A-Za-z][A-Za-z0-9]*)\b([^<>]*)>", re.S)
_SPAN_ATTR = re.compile(r"""\b(colspan|rowspan)\s*=\s*["']?\s*(\d{1,9})""", re.I)
ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_SIGNS = frozenset("\u00b1\u2213\u2212+-")
# a value, not a label, after its formatting (a rowspan value is read once, not in every row)
_VALUE = re.compile(r"[ \t\n*_`~$({]*[+\-\u2212\u00b1]?\.?\d")
_DIGIT = re.compile(r"\d")


def html_table(segment: Segment, pos: int) -> Table | None:
    """The HTML table of a Markdown ``segment`` that holds offset ``pos``; None when ``pos`` is
    in none, or in one this reader refuses (see the module docstring)."""
    spans = _spans(segment)
    span = span_holding(spans, pos) if spans else None
    if span is None:
        return None
    start, end = span
    return _table_once(segment, "html_tables", start,
                       lambda: _parse(segment.text, start, end))


def _spans(segment: Segment) -> list[tuple[int, int]]:
    """(start, end) of each ``<table>`` ... ``</table>`` holding no other table, in text order."""
    found = segment._cache.get("html_table_spans")
    if isinstance(found, list):
        return found
    text = segment.text
    spans: list[tuple[int, int]] = []
    if _TABLE_OPENS.search(text) is not None:
        # (opening offset, holds another table) per table still open
        open_: list[list[int]] = []
        for m in _TABLE_TAG.finditer(text):
            if m.group(0).startswith("<!--"):
                continue
            if m.group(1) == "":
                if in_fence(segment, m.start()) is None:
                    if open_:
                        open_[-1][1] = 1
                    open_.append([m.start(), 0])
            elif open_ and in_fence(segment, m.start()) is None:
                begin, nested = open_.pop()
                if not nested:
                    spans.append((begin, m.end()))
        spans.sort()
    segment._cache["html_table_spans"] = spans
    return spans


# --- a cell's text: markup blanked, entities replaced, one for one ---------------------------

def shown_entity(m: re.Match[str]) -> str:
    """The entity ``m`` (of `ENTITY`) as the character it stands for, padded with spaces to
    its length: a sign at the end, against the number it signs; any other character at the
    start, against what it follows. One HTML does not know is left as written."""
    raw = m.group(0)
    char = html.unescape(raw)
    if char == raw or len(char) > len(raw):
        return raw  # not an entity HTML knows: left as written
    if char.isspace():
        return " " * len(raw)
    pad = " " * (len(raw) - len(char))
    return pad + char if char in _SIGNS else char + pad


def _plain(raw: str) -> str:
    """``raw`` (a cell's inner HTML) as the text it shows, character for character."""
    if "<" in raw or "~" in raw:
        raw = blank_struck(raw)  # "<del>76.9</del> 76.3": the old value is not shown as one
    if "<" in raw:
        raw = _TAG.sub(lambda m: m.group(0) if m.group(0).startswith("<!--")
                       else blanked(m.group(0)), raw)
    if "&" in raw:
        raw = ENTITY.sub(shown_entity, raw)
    return raw


# --- parsing --------------------------------------------------------------------------------

@dataclass(slots=True)
class RawCell:
    """A cell as written: its spans not yet laid out on the grid."""

    cell: Cell
    th: bool
    colspan: int
    rowspan: int


class _Refused(Exception):
    """The table is not read (a reason for a reader, never raised out of this module)."""


def _parse(text: str, start: int, end: int) -> Table | None:
    try:
        return _build(text, start, end)
    except _Refused:
        return None


def _trimmed(text: str, a: int, b: int) -> Cell:
    """The cell whose inner HTML is ``text[a:b]``, less the white space around it."""
    raw = text[a:b]
    lead = len(raw) - len(raw.lstrip())
    body = raw.strip()
    if not body:
        return Cell("", a, a)
    return Cell(_plain(body), a + lead, a + lead + len(body))


def _stray(text: str) -> None:
    """Refuse the table when ``text``, outside every cell, shows a digit."""
    if _DIGIT.search(text) and _DIGIT.search(_plain(text)):
        raise _Refused


def _read_rows(text: str, start: int, end: int) -> tuple[list[list[RawCell]], set[int]]:
    """The table's rows (cells as written, spans not yet laid out) and which are ``<thead>``'s."""
    opening = _TABLE_TAG.match(text, start)
    assert opening is not None  # the span starts where its <table> tag was found
    body = opening.end()
    close = text.rindex("<", start, end)  # </table>
    rows: list[list[RawCell]] = []
    head_rows: set[int] = set()
    row: list[RawCell] | None = None
    cell: tuple[int, bool, str] | None = None   # content start, <th>?, its attributes
    section = ""
    in_caption = False
    at = body

    def end_cell(upto: int) -> None:
        nonlocal cell
        if cell is not None:
            assert row is not None
            spans = {k.lower(): int(v) for k, v in _SPAN_ATTR.findall(cell[2])}
            colspan, rowspan = spans.get("colspan", 1), spans.get("rowspan", 1)
            if colspan > _MAX_SPAN or rowspan > _MAX_SPAN:
                raise _Refused
            row.append(RawCell(_trimmed(text, cell[0], upto), cell[1], max(colspan, 1),
                            rowspan if rowspan > 0 else _MAX_SPAN))  # 0: to the section's end
            cell = None

    def end_row(upto: int) -> None:
        nonlocal row
        end_cell(upto)
        if row is not None:
            if section == "thead":
                head_rows.add(len(rows))
            rows.append(row)
            row = None

    for m in _TAG.finditer(text, body, close):
        if m.group(0).startswith("<!--"):
            # a comment's digits are no number the table hides (detectron2's "<!-- ROW:
            # faster_rcnn_R_50_FPN_1x -->" over each row)
            if cell is None and not in_caption:
                _stray(text[at:m.start()])
            at = m.end()
            continue
        if cell is None and not in_caption:
            _stray(text[at:m.start()])
        at = m.end()
        name = m.group(2).lower()
        closing = m.group(1) == "/"
        if name == "caption":
            in_caption = not closing
            continue
        if in_caption:
            continue
        if name in ("td", "th"):
            if closing:
                if cell is None:
                    raise _Refused  # </td> with no cell open
                end_cell(m.start())
                continue
            if row is None and name == "th" and not rows:
                # header cells before the first row: HTML opens a row for them, as
                # detectron2's MODEL_ZOO.md writes its header (no <tr> around its <th>s)
                row = []
            if row is None:
                raise _Refused  # a cell outside any row
            end_cell(m.start())
            cell = (m.end(), name == "th", m.group(3))
        elif name == "tr":
            if closing:
                if row is None:
                    raise _Refused
                end_row(m.start())
            else:
                end_row(m.start())
                row = []
        elif name in ("thead", "tbody", "tfoot"):
            end_row(m.start())
            section = "" if closing else name
        elif name == "table":
            raise _Refused  # (a nested table is found before parsing; this is a stray tag)
    if cell is None and not in_caption:
        _stray(text[at:close])
    end_row(close)
    return rows, head_rows


def _build(text: str, start: int, end: int) -> Table | None:
    raws, head_rows = _read_rows(text, start, end)
    return _laid_out(raws, head_rows, start, end)


def laid_out(rows: list[list[RawCell]], head_rows: set[int], start: int,
             end: int) -> Table | None:
    """The `Table` (from ``start`` to ``end``) of ``rows`` of cells as written, spans not yet
    laid out, ``head_rows`` their header rows (none: the leading rows of header cells, else the
    first row); None when it is refused as an HTML table is (see the module's docstring). For
    another markup's tables (`typst_pages`)."""
    try:
        return _laid_out(rows, head_rows, start, end)
    except _Refused:
        return None


def _laid_out(raws: list[list[RawCell]], head_rows: set[int], start: int,
              end: int) -> Table | None:
    if len(raws) < 2:
        return None
    # lay the cells out on a grid: (rows still covered, the cell, fills with it) per column
    down: dict[int, tuple[int, Cell, bool]] = {}
    spanned: dict[tuple[int, int], Cell] = {}   # (row, column) covered by a colspan: its cell
    grid: list[list[Cell]] = []
    # the places spans may cover in all, beyond which the grid is no results table (building
    # it costs a step per place: see `_MAX_COVERED`)
    room = _MAX_COVERED * sum(len(row) for row in raws) + 256
    for r, raw_row in enumerate(raws):
        slots: dict[int, Cell] = {}
        for col, (left, cell, fills) in list(down.items()):
            slots[col] = cell if fills else Cell("", cell.end, cell.end)
            if not fills and cell.text:
                spanned[(r, col)] = cell
            if left <= 1:
                del down[col]
            else:
                down[col] = (left - 1, cell, fills)
        col = 0
        for raw in raw_row:
            while col in slots:
                col += 1
            if col + raw.colspan > _MAX_COLUMNS:
                raise _Refused
            slots[col] = raw.cell
            label = not _VALUE.match(raw.cell.text)
            for k in range(1, raw.colspan):
                slots[col + k] = Cell("", raw.cell.end, raw.cell.end)
                spanned[(r, col + k)] = raw.cell
            if raw.rowspan > 1:
                for k in range(raw.colspan):
                    # a label names each row it spans; a value, and the columns a colspan
                    # covers, are read once
                    down[col + k] = (raw.rowspan - 1, raw.cell, label and k == 0)
            col += raw.colspan
        row_end = max((c.end for c in slots.values()), default=start)
        width = max(slots, default=-1) + 1
        room -= width - len(raw_row)
        if room < 0:
            raise _Refused
        grid.append([slots.get(c, Cell("", row_end, row_end)) for c in range(width)])
    if head_rows:
        n_head = [i for i in range(len(grid)) if i in head_rows]
    else:
        lead = 0
        while lead < len(raws) and raws[lead] and all(c.th for c in raws[lead]):
            lead += 1
        n_head = list(range(lead if 0 < lead < len(raws) else 1))
    header_rows = [grid[i] for i in n_head]
    in_head = set(n_head)
    rows = [row for i, row in enumerate(grid) if i not in in_head and row]
    if not rows:
        return None
    width = max((len(r) for r in header_rows), default=0)
    header: list[Cell] = []
    header_parts: list[list[Cell]] = []
    for col in range(width):
        parts: list[Cell] = []
        for r, hrow in zip(n_head, header_rows, strict=True):
            if col < len(hrow):
                part = spanned.get((r, col), hrow[col])
                if part not in parts:  # a rowspan header names its column once
                    parts.append(part)
        texts = [p.text.strip() for p in parts if p.text.strip()]
        first = parts[0] if parts else Cell("", start, start)
        header.append(Cell(" ".join(texts), first.start, parts[-1].end if parts else start))
        header_parts.append(parts)
    _fill_group_labels(rows)
    table = Table(start, end, header, rows, header_rows, header_parts)
    _name_spanned_columns(table, spanned, n_head)
    return _split_slash_columns("md", table)


def _name_spanned_columns(table: Table, spanned: dict[tuple[int, int], Cell],
                          head: list[int]) -> None:
    """Head the k-th column a header's ``<th colspan="n">PSNR/SSIM</th>`` covers with the k-th
    of its n slash names (`doc_readers.head_spans_by_name`, as for LaTeX's ``\\multicolumn``)."""
    spans: list[tuple[int, int, Cell, Cell]] = []
    for r, hrow in zip(head, table.header_rows, strict=True):
        for col, cell in enumerate(hrow):
            if "/" not in cell.text or (r, col) in spanned:
                continue
            n = 1
            while spanned.get((r, col + n)) is cell:
                n += 1
            spans.append((col, n, cell, cell))
    head_spans_by_name(table, spans, "md")
