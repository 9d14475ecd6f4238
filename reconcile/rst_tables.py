"""reStructuredText tables as `doc_readers.Table`: grid tables, simple tables, and the
``list-table`` and ``csv-table`` directives (rows written in them, or a csv-table's ``:file:``
that `included` read into the text as its body: `file_tables` finds those).

`rst_table` is what `units.unit_at` asks for a reST segment: the table holding an offset,
or None (the text there is prose, read as sentences). What comes back is judged as any other
table (`documents._Run.table`): a cell by its row's label and its column's header.

Invariants:

* **Offsets point into the segment's text.** Every `Cell`'s ``start``/``end`` are offsets of
  ``segment.text``, and its ``text`` is exactly as long as ``segment.text[start:end]``: a cell
  written over several lines (a grid cell, a simple table's continuation line, a list-table
  item) keeps its own characters where they stand and has every other character of those lines
  (borders, the other columns) blanked to a space, newlines kept, as `doc_readers.mask_text`
  blanks. A header cell over several lines is given one part per line (`Table.header_parts`),
  so the other columns' words between them are never read as its words.
* **Read** (docutils' rules): a grid table (``+---+`` borders, ``|`` cell edges, one
  ``+===+`` line under the header rows, none: no header); its cells spanning columns or rows
  (found as docutils does, by the rectangles their borders close). A simple table (``=====  ===``
  rules; a header between the first two of three; a row whose first column is blank continues
  the row above; ``-----`` under a row joins the columns it spans). A ``.. list-table::``
  (``:header-rows: N``; ``* - cell`` items, an item over several lines). A ``.. csv-table::``
  with its rows written in it (``:header: "A", "B"``, ``:header-rows: N``, ``:delim:``; quoted
  cells, ``""`` in them). A header cell spanning columns heads each of them; a label spanning
  rows labels each of them.
* **Refused** (read as prose, as before; never an exception): a table whose lines do not close
  its cells (ragged edges, a border that runs into text, characters wider than one column), a
  second header rule, a cell across the header rule, text in the gap between a simple table's
  columns with no ``-----`` joining them, a ``-----`` that does not fall on column edges, a
  number in a body cell spanning columns (whose column would it be?), list-table rows of
  different lengths, a csv-table read from ``:url:`` or from a ``:file:`` not read into the
  text, with another quote or escape character, a value over several lines, or an unknown
  ``:delim:``. A number in a body cell spanning rows is read in its first row only (the rows
  below leave that cell empty).
* **Cheap.** A segment is scanned for tables once (regexes that start with a literal
  character, run only when the text holds ``+-``, ``==`` or ``-table::``); each table is parsed
  once however many numbers ask for it (`doc_readers._table_once`).
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from labledger.reconcile.doc_readers import (
    Cell,
    Segment,
    Table,
    _fill_group_labels,
    _split_slash_columns,
    _table_once,
    line_end,
)

__all__ = ["FileTable", "directive_titles", "file_tables", "rst_table"]

_MAX_LINES = 5000  # a longer "table" is not read as one: each number falls back to its sentence

# Tried only where a table's top may start (a line's first non-blank is after a blank or a
# newline): tried from every "+" of a long "+-+-+-" line, each try ran to the line's end, and
# from every "=" of "== == ==", so a long line cost its length squared. A match anywhere else
# was never a table's top (`_line_start`).
_GRID_TOP = re.compile(r"(?<![^\n \t])\+(?:-+\+)+[ \t]*(?=\r?\n|$)")
_SIMPLE_RULE = re.compile(r"(?m:^)[ \t]*=+(?:[ \t]+=+)+[ \t]*(?=\r?\n|$)")
_DIRECTIVE = re.compile(r"\.\.[ \t]+(list-table|csv-table)::")
_RUN = {ch: re.compile(re.escape(ch) + "+") for ch in "=-"}
_DIGIT = re.compile(r"\d")
_BULLET = re.compile(r"[*+\-\u2022](?:[ \t]+|$)")
_OPTION = re.compile(r":([\w-]+):[ \t]*")


@dataclass(frozen=True, slots=True)
class _Span:
    start: int   # offset of the table's first line (its top border, or the directive)
    end: int     # end of its last line
    kind: str    # grid | simple | list-table | csv-table


def rst_table(segment: Segment, pos: int) -> Table | None:
    """The reST table of ``segment`` holding offset ``pos``, or None (prose, or a table refused)."""
    starts, spans = _spans_of(segment)
    i = bisect.bisect_right(starts, pos) - 1
    if i < 0 or pos >= spans[i].end:
        return None
    span: _Span = spans[i]
    # a csv-table whose :file: `included` read into the text as its body
    spliced = any(span.start < s.start <= span.end for s in segment.splices)
    return _table_once(segment, "rst_tables", span.start,
                       lambda: _build(segment.text, span, spliced))


def _spans_of(segment: Segment) -> tuple[list[int], list[_Span]]:
    """The segment's table spans, found once: their starts, and the spans."""
    found = segment._cache.get("rst_table_spans")
    if found is None:
        found = _spans(segment.text)
        segment._cache["rst_table_spans"] = found
    assert isinstance(found, tuple)
    return found


def directive_titles(segment: Segment) -> list[tuple[int, int, int, int]]:
    """Per ``list-table`` or ``csv-table`` whose directive gives a title (``.. csv-table::
    kNN accuracy on CIFAR-10``): (the title's start and end, the table's start and end). A
    title names its table as a caption does (`log_units.over_table`)."""
    if "-table::" not in segment.text:
        return []
    got = segment._cache.get("rst_table_titles")
    if isinstance(got, list):
        return got
    text = segment.text
    out: list[tuple[int, int, int, int]] = []
    segment._cache["rst_table_titles"] = out
    for span in _spans_of(segment)[1]:
        if span.kind not in ("list-table", "csv-table"):
            continue
        le = line_end(text, span.start)
        m = _DIRECTIVE.search(text, span.start, le)
        if m is None:
            continue
        title = text[m.end():le]
        lead = len(title) - len(title.lstrip())
        if title.strip():
            out.append((m.end() + lead, m.end() + len(title.rstrip()), span.start, span.end))
    return out


def _build(text: str, span: _Span, spliced: bool = False) -> Table | None:
    lines = _lines(text, span.start, span.end)
    if span.kind == "csv-table":
        table = _csv_table(text, lines, spliced)
    else:
        build: Callable[[str, list[tuple[int, str]]], Table | None] = {
            "grid": _grid, "simple": _simple, "list-table": _list_table}[span.kind]
        table = build(text, lines)
    return None if table is None else _split_slash_columns("rst", table)


# --- csv-tables read from a file --------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FileTable:
    """A ``.. csv-table::`` with a ``:file:`` option and no body of its own: where its rows come
    from, and where they go to be read as its body (`included`)."""

    start: int      # offset of the directive's line
    insert_at: int  # after its options' last line (its body's place)
    indent: int     # its options' indent, which its body takes
    file: str
    options: dict[str, str]


_FILE_OPTION = re.compile(r"[ \t]+:([\w-]+):[ \t]*(.*?)[ \t]*$")


def file_tables(text: str) -> list[FileTable]:
    """Every csv-table of ``text`` reading its rows from ``:file:``; one that also has rows
    written in it (which docutils refuses) is not among them."""
    if ":file:" not in text:
        return []
    out: list[FileTable] = []
    for span in _directive_spans(text):
        if span.kind != "csv-table":
            continue
        lines = _lines(text, span.start, span.end)
        options: dict[str, str] = {}
        i = 1
        while i < len(lines) and lines[i][1].strip():  # the option block: to a blank line
            m = _FILE_OPTION.match(lines[i][1])
            if m is not None:  # (a line going on with an option's value is none)
                options.setdefault(m.group(1), m.group(2))
            i += 1
        if "file" not in options or any(line.strip() for _, line in lines[i:]):
            continue
        insert_at = min(len(text), line_end(text, lines[i - 1][0]) + 1)
        out.append(FileTable(span.start, insert_at, _indent(lines[1][1]), options["file"],
                             options))
    return out


# --- finding the tables ----------------------------------------------------------------------

def _line_start(text: str, at: int) -> int | None:
    """Start of the line of ``at`` when only blanks come before ``at`` on it, else None."""
    ls = text.rfind("\n", 0, at) + 1
    return ls if not text[ls:at].strip() else None


def _lines(text: str, start: int, end: int) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    at = start
    while at <= end and at < len(text):
        le = line_end(text, at)
        out.append((at, text[at:le].rstrip("\r")))
        at = le + 1
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _spans(text: str) -> tuple[list[int], list[_Span]]:
    found: list[_Span] = []
    if "+-" in text:
        found += _grid_spans(text)
    if "==" in text:
        found += _simple_spans(text)
    if "-table::" in text:
        found += _directive_spans(text)
    found.sort(key=lambda s: s.start)
    spans: list[_Span] = []
    for span in found:  # a table inside another (a list-table cell) is that cell's text
        if not spans or span.start >= spans[-1].end:
            spans.append(span)
    return [s.start for s in spans], spans


def _grid_spans(text: str) -> list[_Span]:
    out: list[_Span] = []
    last = -1
    for m in _GRID_TOP.finditer(text):
        ls = _line_start(text, m.start())
        if ls is None or ls < last:
            continue
        lead = text[ls:m.start()]
        at, end, count = ls, ls, 0
        while at < len(text) and count <= _MAX_LINES:
            le = line_end(text, at)
            line = text[at:le]
            body = line[len(lead):]
            if not line.startswith(lead) or body[:1] not in ("+", "|"):
                break
            end, at, count = le, le + 1, count + 1
        if count <= _MAX_LINES:
            out.append(_Span(ls, end, "grid"))
        last = end
    return out


def _indexed_lines(text: str) -> tuple[list[int], list[float], list[int]]:
    """Per line of ``text``: its start and its indent (infinite when blank); and the indexes
    of the lines that end a simple table (a ``=`` rule followed by a blank line or the end)."""
    starts: list[int] = []
    indents: list[float] = []
    closers: list[int] = []
    raw = text.split("\n")
    at = 0
    for i, piece in enumerate(raw):
        if at >= len(text):
            break
        line = piece.rstrip("\r")
        starts.append(at)
        indents.append(_indent(line) if line.strip() else math.inf)
        if _is_rule(line, "=") and (i + 1 == len(raw) or not raw[i + 1].strip()):
            closers.append(i)
        at += len(piece) + 1
    return starts, indents, closers


def _simple_spans(text: str) -> list[_Span]:
    out: list[_Span] = []
    last = -1
    lines: tuple[list[int], list[float], list[int]] | None = None
    for m in _SIMPLE_RULE.finditer(text):
        ls = _line_start(text, m.start())
        if ls is None or ls < last:
            continue
        rule = text[ls:m.end()].rstrip()
        d = _indent(rule)
        # The table runs to the first rule followed by a blank line (or the end) within
        # _MAX_LINES lines, unless a line less indented than its rule comes first. Looked up in
        # the segment's lines, indexed once: walking them from every rule was quadratic ("=====
        # =====" rules in prose: each walked the 5,000 lines below it to find no end).
        if lines is None:
            lines = _indexed_lines(text)
        starts, indents, closers = lines
        at = m.end() + 1
        first = bisect.bisect_left(starts, at)
        count = 0 if first < len(starts) and starts[first] == at else 1  # "\r": a blank line
        c = bisect.bisect_left(closers, first)
        end = None
        if at < len(text) and c < len(closers) and closers[c] - first + count <= _MAX_LINES \
                and min(indents[first:closers[c] + 1]) >= d:
            end = line_end(text, starts[closers[c]])
        if end is not None:
            out.append(_Span(ls, end, "simple"))
            last = end
    return out


def _directive_spans(text: str) -> list[_Span]:
    out: list[_Span] = []
    for m in _DIRECTIVE.finditer(text):
        ls = _line_start(text, m.start())
        if ls is None:
            continue
        d = m.start() - ls
        end = line_end(text, m.end())
        at, count = end + 1, 0
        while at < len(text) and count <= _MAX_LINES:
            le = line_end(text, at)
            line = text[at:le].rstrip("\r")
            if line.strip():
                if _indent(line) <= d:
                    break
                end = le
            at, count = le + 1, count + 1
        if count <= _MAX_LINES:
            out.append(_Span(ls, end, m.group(1)))
    return out


def _is_rule(line: str, ch: str) -> bool:
    core = line.strip()
    return bool(core) and ch in core and not core.replace(ch, "").replace(" ", "").replace(
        "\t", "")


def _runs(line: str, ch: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _RUN[ch].finditer(line)]


# --- cells over several lines ----------------------------------------------------------------

def _piece_cell(text: str, pieces: list[tuple[int, int]]) -> Cell:
    """One cell made of ``pieces`` (offsets of ``text``, one per line, in order): from its first
    non-blank piece to its last, every character outside the pieces blanked (newlines kept)."""
    kept = [(a, b) for a, b in pieces if text[a:b].strip()]
    if not kept:
        at = pieces[0][0] if pieces else 0
        return Cell("", at, at)
    start, end = kept[0][0], kept[-1][1]
    out: list[str] = []
    at = start
    for a, b in kept:
        out.append(re.sub(r"[^\n]", " ", text[at:a]))
        out.append(text[a:b])
        at = b
    return Cell("".join(out), start, end)


def _line_parts(text: str, pieces: list[tuple[int, int]]) -> list[Cell]:
    """A header cell's non-blank pieces, one part each: where its anchors are looked for."""
    return [Cell(text[a:b], a, b) for a, b in pieces if text[a:b].strip()]


def _header(text: str, parts: list[list[Cell]], at: int) -> tuple[list[Cell], list[list[Cell]]]:
    """Per column: the header cell (its parts' words joined) and its parts."""
    header: list[Cell] = []
    for col in parts:
        if col:
            words = " ".join(p.text.strip() for p in col)
            header.append(Cell(words, col[0].start, col[-1].end))
        else:
            header.append(Cell("", at, at))
    return header, parts


# --- grid tables -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Rect:
    top: int
    left: int
    bottom: int
    right: int


def _grid(text: str, lines: list[tuple[int, str]]) -> Table | None:
    d = _indent(lines[0][1])
    g = [line[d:].rstrip() for _, line in lines]
    width = len(g[0])
    if len(g) < 3 or any(len(row) != width for row in g) or not g[-1].startswith("+"):
        return None  # ragged: a cell not closed, or wide characters shifting the edges
    rects = _grid_cells(g)
    if rects is None:
        return None
    heads = [i for i, row in enumerate(g) if row[0] == "+" and "=" in row]
    if len(heads) > 1 or (heads and set(g[heads[0]]) != {"+", "="}):
        return None
    sep = heads[0] if heads else 0
    row_edges = sorted({r.top for r in rects} | {r.bottom for r in rects})
    col_edges = sorted({r.left for r in rects} | {r.right for r in rects})
    n_rows, n_cols = len(row_edges) - 1, len(col_edges) - 1
    at: list[list[_Rect | None]] = [[None] * n_cols for _ in range(n_rows)]
    for rect in rects:
        if rect.top < sep < rect.bottom:
            return None  # a cell across the header rule
        for r in range(row_edges.index(rect.top), row_edges.index(rect.bottom)):
            for c in range(col_edges.index(rect.left), col_edges.index(rect.right)):
                at[r][c] = rect

    def pieces(rect: _Rect) -> list[tuple[int, int]]:
        return [(lines[i][0] + d + rect.left + 1, lines[i][0] + d + rect.right)
                for i in range(rect.top + 1, rect.bottom)]

    cells = {rect: _piece_cell(text, pieces(rect)) for rect in rects}
    n_head = sum(1 for e in row_edges[1:] if e <= sep)
    header_rows: list[list[Cell]] = []
    parts: list[list[Cell]] = [[] for _ in range(n_cols)]
    seen: list[set[_Rect]] = [set() for _ in range(n_cols)]
    for r in range(n_head):
        hrow: list[Cell] = []
        for c in range(n_cols):
            head = at[r][c]
            assert head is not None  # the cells tile the table (checked by _grid_cells)
            hrow.append(cells[head])
            if head not in seen[c]:  # a header cell over two header rows is one part
                seen[c].add(head)
                parts[c] += _line_parts(text, pieces(head))
        header_rows.append(hrow)
    rows: list[list[Cell]] = []
    for r in range(n_head, n_rows):
        row: list[Cell] = []
        for c in range(n_cols):
            own = at[r][c]
            assert own is not None
            cell = cells[own]
            first_col = col_edges.index(own.left) == c
            first_row = row_edges.index(own.top) == r
            numeric = _DIGIT.search(cell.text) is not None
            if not first_col:
                if numeric:
                    return None  # a number spanning columns: no one column is its
                row.append(Cell("", cell.end, cell.end))
            elif not first_row and numeric:
                row.append(Cell("", cell.end, cell.end))  # read once, in its first row
            else:
                row.append(cell)  # a label spanning rows labels each of them
        rows.append(row)
    header, header_parts = _header(text, parts, lines[0][0])
    end = lines[-1][0] + len(lines[-1][1])
    return Table(lines[0][0], end, header if n_head else [], rows, header_rows,
                 header_parts if n_head else [])


def _grid_cells(g: list[str]) -> list[_Rect] | None:
    """The cells of grid ``g`` (lines without their indent) as docutils finds them: from each
    top-left corner, the smallest rectangle whose borders close; None when they do not tile it."""
    height, width = len(g), len(g[0])
    if g[0][0] != "+" or g[0][-1] != "+":
        return None
    todo = [(0, 0)]
    done: set[tuple[int, int]] = set()
    rects: set[_Rect] = set()
    while todo:
        top, left = todo.pop()
        if (top, left) in done or top >= height - 1 or left >= width - 1:
            continue
        done.add((top, left))
        found = _scan_cell(g, top, left)
        if found is None:
            return None
        bottom, right = found
        rects.add(_Rect(top, left, bottom, right))
        todo += [(top, right), (bottom, left)]
    area = sum((r.bottom - r.top) * (r.right - r.left) for r in rects)
    return sorted(rects, key=lambda r: (r.top, r.left)) if area == (height - 1) * (
        width - 1) else None


def _scan_cell(g: list[str], top: int, left: int) -> tuple[int, int] | None:
    if g[top][left] != "+":
        return None
    for right in range(left + 1, len(g[top])):
        ch = g[top][right]
        if ch == "+":
            bottom = _scan_down(g, top, left, right)
            if bottom is not None:
                return bottom, right
        elif ch not in "-=":
            return None
    return None


def _scan_down(g: list[str], top: int, left: int, right: int) -> int | None:
    for bottom in range(top + 1, len(g)):
        ch = g[bottom][right]
        if ch == "+":
            if _closes(g, top, left, bottom, right):
                return bottom
        elif ch != "|":
            return None
    return None


def _closes(g: list[str], top: int, left: int, bottom: int, right: int) -> bool:
    """Whether the bottom edge runs back to a corner at ``left`` and the left edge up to ``top``."""
    if g[bottom][left] != "+" or any(ch not in "-=+" for ch in g[bottom][left + 1:right]):
        return False
    return all(g[r][left] in "|+" for r in range(top + 1, bottom))


# --- simple tables ---------------------------------------------------------------------------

def _simple(text: str, lines: list[tuple[int, str]]) -> Table | None:
    rule = lines[0][1]
    cols = _runs(rule, "=")
    if len(cols) < 2:
        return None
    d = cols[0][0]
    rules = [0]
    # each row: its lines (offset, text) and the column ranges its cells cover
    rows: list[tuple[list[tuple[int, str]], list[tuple[int, int]]]] = []
    head = 0
    open_row = False  # a rule or a "---" line ends the row above: the next line starts one
    for off, line in lines[1:]:
        if not line.strip():
            continue
        if _is_rule(line, "="):
            if _runs(line, "=") != cols:
                return None
            rules.append(len(rows))
            open_row = False
            continue
        if line[:d].strip():
            return None
        if _is_rule(line, "-"):
            spans = _column_spans(_runs(line, "-"), cols)
            if not open_row or spans is None:
                return None
            rows[-1] = (rows[-1][0], spans)
            open_row = False
            continue
        first = line[cols[0][0]:cols[0][1]]
        if open_row and not first.strip():
            rows[-1][0].append((off, line))  # a blank first column: the row above goes on
            continue
        rows.append(([(off, line)], [(k, k) for k in range(len(cols))]))
        open_row = True
    if len(rules) == 3:
        head = rules[1]
    elif len(rules) != 2:
        return None  # a second header rule
    built: list[list[Cell]] = []
    header_parts: list[list[Cell]] = [[] for _ in cols]
    for i, (row_lines, spans) in enumerate(rows):
        cells: list[Cell] = []
        for k, m in spans:
            a = cols[k][0]
            b = cols[m][1] if m + 1 < len(cols) else None
            pieces = []
            for off, line in row_lines:
                gap_end = cols[m + 1][0] if m + 1 < len(cols) else None
                if b is not None and gap_end is not None and line[b:gap_end].strip():
                    return None  # text between two columns that no "---" joins
                lo = min(a, len(line))
                hi = len(line) if b is None else min(b, len(line))
                pieces.append((off + lo, off + hi))
            cell = _piece_cell(text, pieces)
            if i < head:
                for col in range(k, m + 1):  # a header spanning columns heads each of them
                    header_parts[col] += _line_parts(text, pieces)
            elif k != m and _DIGIT.search(cell.text):
                return None  # a number spanning columns: no one column is its
            cells.append(cell)
            cells += [Cell("", cell.end, cell.end)] * (m - k)
        built.append(cells)
    header, parts = _header(text, header_parts, lines[0][0])
    end = lines[-1][0] + len(lines[-1][1])
    return Table(lines[0][0], end, header if head else [], built[head:], built[:head],
                 parts if head else [])


def _column_spans(runs: list[tuple[int, int]],
                  cols: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """The (first, last) columns each ``-----`` run covers; None when a run is off the edges."""
    starts = [a for a, _ in cols]
    ends = [b for _, b in cols]
    out: list[tuple[int, int]] = []
    for a, b in runs:
        if a not in starts:
            return None
        k = starts.index(a)
        if b in ends:
            m = ends.index(b)
        elif b > ends[-1]:
            m = len(cols) - 1  # the last column is as wide as its text
        else:
            return None
        if m < k:
            return None
        out.append((k, m))
    covered = [c for k, m in out for c in range(k, m + 1)]
    return out if covered == list(range(len(cols))) else None


# --- directives --------------------------------------------------------------------------------

def _options(lines: list[tuple[int, str]]) -> tuple[dict[str, tuple[int, str]], int] | None:
    """A directive's options (name -> (offset of its value, value)) and the index of the first
    line after them; None for an option written over several lines."""
    d = _indent(lines[0][1])
    opts: dict[str, tuple[int, str]] = {}
    i = 1
    while i < len(lines) and lines[i][1].strip():
        off, line = lines[i]
        m = _OPTION.match(line, _indent(line))
        if m is None:
            if opts:
                return None  # an option's value going on: not read
            break
        opts[m.group(1)] = (off + m.end(), line[m.end():].rstrip())
        i += 1
    if i < len(lines) and lines[i][1].strip() and _indent(lines[i][1]) <= d:
        return None
    return opts, i


def _header_rows(opts: dict[str, tuple[int, str]]) -> int | None:
    raw = opts.get("header-rows", (0, "0"))[1].strip()
    return int(raw) if raw.isdigit() else None


def _assemble(text: str, start: int, end: int, head: list[list[Cell]],
              body: list[list[Cell]]) -> Table:
    width = max((len(r) for r in head), default=0)
    parts: list[list[Cell]] = [[] for _ in range(width)]
    for hrow in head:
        for col, cell in enumerate(hrow):
            if cell.text.strip():
                parts[col].append(cell)
    header, header_parts = _header(text, parts, start)
    _fill_group_labels(body)
    return Table(start, end, header, body, head, header_parts)


def _list_table(text: str, lines: list[tuple[int, str]]) -> Table | None:
    read = _options(lines)
    if read is None:
        return None
    opts, i = read
    n_head = _header_rows(opts)
    rows: list[list[list[tuple[int, int]]]] = []
    row_indent: int | None = None
    cell_col: int | None = None
    for off, line in lines[i:]:
        if not line.strip():
            continue
        ind = _indent(line)
        stripped = line.rstrip()
        if row_indent is None:
            row_indent = ind
        bullet = _BULLET.match(line, ind)
        if ind < row_indent:
            return None
        if ind == row_indent:
            if bullet is None:
                return None
            rows.append([])
            cell_col = None
            rest = bullet.end()
            if rest < len(stripped):
                inner = _BULLET.match(line, rest)
                if inner is None:
                    return None
                cell_col = rest
                rows[-1].append([(off + inner.end(), off + len(stripped))])
            continue
        if not rows:
            return None
        if bullet is not None and (cell_col is None or ind == cell_col):
            cell_col = ind
            rows[-1].append([(off + min(bullet.end(), len(stripped)), off + len(stripped))])
        elif cell_col is not None and ind > cell_col and rows[-1]:
            rows[-1][-1].append((off + ind, off + len(stripped)))  # the item goes on
        else:
            return None
    if n_head is None or not rows or len({len(r) for r in rows}) != 1 or n_head > len(rows):
        return None
    table = [[_piece_cell(text, pieces) for pieces in row] for row in rows]
    return _assemble(text, lines[0][0], lines[-1][0] + len(lines[-1][1]), table[:n_head],
                     table[n_head:])


_DELIMS = {"tab": "\t", "space": " "}


def _csv_table(text: str, lines: list[tuple[int, str]], spliced: bool = False) -> Table | None:
    """``spliced``: its ``:file:`` was read into the text as its body (`included`)."""
    read = _options(lines)
    if read is None:
        return None
    opts, i = read
    n_head = _header_rows(opts)
    if n_head is None or ("file" in opts and not spliced) or "url" in opts or "escape" in opts \
            or opts.get("quote", (0, '"'))[1].strip() != '"':
        return None
    raw = opts.get("delim", (0, ","))[1].strip()
    sep = _DELIMS.get(raw, raw)
    if len(sep) != 1 or sep == '"':
        return None
    head: list[list[Cell]] = []
    if "header" in opts:
        at, value = opts["header"]
        cells = _csv_cells(value, at, sep)
        if cells is None:
            return None
        head.append(cells)
    body: list[list[Cell]] = []
    for off, line in lines[i:]:
        if not line.strip():
            continue
        ind = _indent(line)
        cells = _csv_cells(line[ind:].rstrip(), off + ind, sep)
        if cells is None:
            return None
        body.append(cells)
    if not body or n_head > len(body):
        return None
    head += body[:n_head]
    return _assemble(text, lines[0][0], lines[-1][0] + len(lines[-1][1]), head, body[n_head:])


def _csv_cells(line: str, base: int, sep: str) -> list[Cell] | None:
    """``line``'s cells as docutils' csv-table reads them (blanks after a delimiter skipped,
    ``"..."`` quoting, ``""`` inside); None for a quote left open (a value over several lines)
    or text after a closing quote."""
    cells: list[Cell] = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i] in " \t" and line[i] != sep:
            i += 1
        if i < n and line[i] == '"':
            j = i + 1
            while True:
                k = line.find('"', j)
                if k < 0:
                    return None
                if line.startswith('""', k):
                    j = k + 2
                    continue
                break
            cells.append(Cell(line[i + 1:k], base + i + 1, base + k))
            nxt = line.find(sep, k + 1)
            if line[k + 1:n if nxt < 0 else nxt].strip():
                return None
            if nxt < 0:
                return cells
            i = nxt + 1
        else:
            nxt = line.find(sep, i)
            end = n if nxt < 0 else nxt
            cells.append(Cell(line[i:end], base + i, base + end))
            if nxt < 0:
                return cells
            i = nxt + 1
