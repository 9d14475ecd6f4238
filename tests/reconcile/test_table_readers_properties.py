"""Properties of the table readers added for HTML in Markdown, reST and printed logs: whatever
the text (fragments of real table syntax shuffled, cut and repeated), reading it never raises,
every cell's offsets point into the segment with ``text`` exactly as long as the slice it
stands for, and a whole reconcile of it (claims anchored on the table's words) completes.

Hypothesis builds the documents from pieces of the syntax each reader looks for, so the
shapes that stress a parser (unclosed tags, spans past the edge, ragged borders, a rule with no
table) come up far more often than in random characters.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.reconcile import doc_readers
from labledger.reconcile.doc_readers import Segment, Table, is_log
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.units import unit_at
from tests.reconcile.test_documents import claim

CLAIMS = [claim("P", "psnr", 31.4218, run="ours", aliases=("Ours", "Set5")),
          claim("S", "ssim", 0.91341, run="ours", aliases=("Ours",))]

HTML_PIECES = ["<table>", "</table>", "<TABLE border=1>", "<tr>", "</tr>", "<td>", "</td>",
               "<th>", "</th>", "<thead>", "</thead>", "<tbody>", '<td colspan="2">',
               '<th rowspan="3">', '<td rowspan="0">', '<th colspan="999999">', "<b>", "</b>",
               "<br>", "&plusmn;", "&#177;", "&#xZZ;", "&nbsp;", "&amp", "Ours", "PSNR",
               "Set5", "31.42", "0.9134", "<!--", "-->", "<!-- claim:P -->", "```\n", "\n",
               " ", "<a href='x>y'>", "</a>", "<", ">", "|", "---"]
RST_PIECES = ["+-------+------+", "+=======+======+", "| Ours  | 31.42|", "|       |      |",
              "+-------+", "=====  =====", "-----", "Method  PSNR", "Ours    31.42",
              "        0.913", ".. list-table::", "   :header-rows: 1", "   :header-rows: x",
              "   * - Method", "     - PSNR", "   * - Ours", "     - 31.42", ".. csv-table::",
              '   :header: "Method", "PSNR"', '   "Ours", 31.42', '   "unclosed, 1',
              "   :delim: tab", "   :file: x.csv", "\n", "", "  ", "<!-- noclaim -->"]
LOG_PIECES = ["Epoch 1/3", "- loss: 0.2314 - val_accuracy: 0.9123", "Validation Set5",
              "# psnr: 31.4218", "Test baby psnr: 32.11 dB", "Average: 31.42",
              " Average Precision  (AP) @[ IoU=0.50 | area= all | maxDets=100 ] = 0.593",
              "Ours reaches a PSNR of", "31.42 dB on Set5.", "", "DONE (t=0.20s).", "ssim 0.913"]


def documents(pieces: list[str], sep: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=40).map(sep.join)


# Well-formed tables from a grid of cells, then damaged: most examples are tables (or nearly),
# which random fragments almost never are.
CELLS = ["Ours", "PSNR", "SSIM", "Set5", "31.42", "<b>31.42</b>", "0.9134&plusmn;0.01", "",
         "PSNR/SSIM", "30.10/0.88", "Baseline", "&#177;"]
GRIDS = st.lists(st.lists(st.sampled_from(CELLS), min_size=2, max_size=4), min_size=2,
                 max_size=5)
SPANS = st.sampled_from(["", ' colspan="2"', ' rowspan="2"', ' colspan="0"', ' rowspan="9"'])
DAMAGE = st.lists(st.tuples(st.integers(0, 10_000),
                            st.sampled_from(["", "<", ">", "</td>", "<tr>", "|", "+", "=", "\n",
                                             " ", "-"])), max_size=3)


def damaged(text: str, damage: list[tuple[int, str]]) -> str:
    for at, put in damage:  # replace one character (or add at the end)
        i = at % (len(text) + 1)
        text = text[:i] + put + text[i + 1:]
    return text


def html_table(grid: list[list[str]], spans: list[str]) -> str:
    rows = []
    for r, row in enumerate(grid):
        tag = "th" if r == 0 else "td"
        rows.append("<tr>" + "".join(f"<{tag}{spans[(r + c) % len(spans)]}>{cell}</{tag}>"
                                     for c, cell in enumerate(row)) + "</tr>")
    return "Results:\n\n<table>\n" + "\n".join(rows) + "\n</table>\n"


def rst_tables(grid: list[list[str]]) -> str:
    width = max(len(r) for r in grid)
    rows = [[c.replace("<b>", "").replace("</b>", "") for c in r] + [""] * (width - len(r))
            for r in grid]
    w = [max(3, *(len(r[c]) for r in rows)) for c in range(width)]
    line = "+" + "+".join("-" * (n + 2) for n in w) + "+"
    head = line.replace("-", "=")
    cells = ["| " + " | ".join(r[c].ljust(w[c]) for c in range(width)) + " |" for r in rows]
    grid_t = [line, cells[0], head] + [x for c in cells[1:] for x in (c, line)]
    rule = "  ".join("=" * n for n in w)
    lines = ["  ".join(r[c].ljust(w[c]) for c in range(width)).rstrip() for r in rows]
    simple = [rule, lines[0], rule, *lines[1:], rule]
    listed = [".. list-table::", "   :header-rows: 1", ""] + [
        x for r in rows for i, c in enumerate(r) for x in [("   * - " if i == 0 else "     - ")
                                                           + (c or "..")]]
    return "\n".join(["Results", "", *grid_t, "", *simple, "", *listed, ""])


def check_cells(seg: Segment, table: Table) -> None:
    # (a column's merged header, `Table.header`, joins its parts' words: only its place is
    # the segment's; the cells it is made of, `header_parts`, are the text itself)
    for cell in table.header:
        assert 0 <= cell.start <= cell.end <= len(seg.text), (cell, len(seg.text))
    for row in [*table.rows, *table.header_rows, *table.header_parts]:
        for cell in row:
            assert 0 <= cell.start <= cell.end <= len(seg.text), (cell, len(seg.text))
            assert len(cell.text) == cell.end - cell.start, cell


def read_everywhere(seg: Segment) -> None:
    """Ask for the unit at every position (as reconcile asks at anchors and markers), check the
    tables' cells, then reconcile the whole segment."""
    for pos in range(0, len(seg.text), 3):
        unit = unit_at(seg, pos)
        if isinstance(unit, Table):
            check_cells(seg, unit)
        else:
            assert 0 <= unit.start <= unit.end <= len(seg.text)
    reconcile_segments([seg], CLAIMS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(HTML_PIECES, ""))
def test_html_fragments_never_raise_and_keep_offsets(text: str) -> None:
    read_everywhere(Segment("README.md", "md", text))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GRIDS, st.lists(SPANS, min_size=1, max_size=4), DAMAGE)
def test_html_tables_damaged_or_not_never_raise_and_keep_offsets(
        grid: list[list[str]], spans: list[str], damage: list[tuple[int, str]]) -> None:
    read_everywhere(Segment("README.md", "md", damaged(html_table(grid, spans), damage)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(RST_PIECES, "\n"))
def test_rest_fragments_never_raise_and_keep_offsets(text: str) -> None:
    read_everywhere(Segment("index.rst", "rst", text))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GRIDS, DAMAGE)
def test_rest_tables_damaged_or_not_never_raise_and_keep_offsets(
        grid: list[list[str]], damage: list[tuple[int, str]]) -> None:
    read_everywhere(Segment("index.rst", "rst", damaged(rst_tables(grid), damage)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(LOG_PIECES, "\n"))
def test_printed_logs_never_raise_and_each_record_is_one_line(text: str) -> None:
    seg = Segment("out.txt", "txt", text)
    read_everywhere(seg)
    if is_log(seg):
        for pos in range(len(text)):
            unit = unit_at(seg, pos)
            if not isinstance(unit, Table):  # a log's unit never spans two lines
                assert "\n" not in text[unit.start:unit.end], (pos, unit)


def _walk_back(text: str, pos: int, keep: Callable[[str], bool], most: int) -> int | None:
    """The block start as it was found before runs were indexed: line by line, backwards."""
    ls = text.rfind("\n", 0, pos) + 1
    le = text.find("\n", pos)
    if not keep(text[ls:len(text) if le < 0 else le]):
        return None
    start = ls
    while start > 0:
        prev = text.rfind("\n", 0, start - 1) + 1
        if not keep(text[prev:start - 1]):
            break
        start = prev
        if ls - start > most:
            return None
    return start


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "\n", "|", "\t", "b c", "\n\n", " \n", "| x |"]),
                max_size=40).map("".join), st.sampled_from([5, 1000]))
def test_indexed_runs_find_the_block_start_the_walk_back_found(text: str, most: int) -> None:
    # _block_start looks runs of kept lines up (found once per segment, by string searches);
    # it must answer exactly what walking back from each position answered
    for keep in (doc_readers._piped, doc_readers._filled, str.isupper):
        seg = Segment("x.md", "md", text)
        for pos in range(len(text) + 1):
            assert doc_readers._block_start(seg, pos, keep, most) == \
                _walk_back(text, pos, keep, most), (pos, keep)
