"""Which unit of a segment holds a position: a table (of any kind a reader knows) or a sentence.

Units are found lazily, around the positions reconcile asks about (an anchor, a marker), never by
cutting whole documents (see `doc_readers`). Tables are tried first, by syntax: CSV/TSV (the whole
segment), Markdown (in a fenced block, `fenced`: a line, or in printed output a report or
printed frame; else an HTML table, `html_tables`, a pipe table, or sklearn's classification
report pasted unfenced), LaTeX tabulars, reST tables (`rst_tables`), and for plain text a
printed frame (or sklearn's classification report, blank lines and all, or one printed as a
dict: `dict_reports`) or a pipe table (as detectron2 prints its results in its log), else one
line of a printed log
(`doc_readers.is_log`). Everything else is the sentence around the position.
Each table is built once per segment, however many positions ask for it.
"""

from __future__ import annotations

from labledger.reconcile.dict_reports import around_reports, dict_report_table
from labledger.reconcile.doc_readers import (
    Segment,
    Sentence,
    Table,
    aligned_table,
    delimited_table,
    is_log,
    latex_table,
    line_at,
    markdown_table,
    report_table,
    sentence_around,
)
from labledger.reconcile.fenced import fenced_unit
from labledger.reconcile.html_tables import html_table
from labledger.reconcile.rst_tables import rst_table
from labledger.reconcile.typst_pages import typst_table

__all__ = ["unit_at"]


def unit_at(segment: Segment, pos: int) -> Sentence | Table:
    """The sentence or table of ``segment`` that holds offset ``pos``."""
    if segment.syntax in ("csv", "tsv"):
        return delimited_table(segment)
    if segment.syntax == "md":
        fenced = fenced_unit(segment, pos)
        if fenced is not None:
            return fenced
        table = (html_table(segment, pos) or typst_table(segment, pos)
                 or markdown_table(segment, pos)
                 or report_table(segment, pos) or dict_report_table(segment, pos))
        if table is not None:
            return table
    elif segment.syntax == "tex":
        tex_table = latex_table(segment, pos)
        if tex_table is not None:
            return tex_table
    elif segment.syntax == "txt":
        # a pipe table in a log or a printed report: detectron2's evaluator prints its results
        # as one (tabulate's "pipe" format) between its log lines, lm-evaluation-harness its
        # results table
        table = (markdown_table(segment, pos) or dict_report_table(segment, pos)
                 or aligned_table(segment, pos))
        if table is not None:
            return table
        if is_log(segment):  # a printed log: a record a line
            return Sentence(*around_reports(segment, *line_at(segment.text, pos), pos))
    elif segment.syntax == "rst":
        rst = rst_table(segment, pos)
        if rst is not None:
            return rst
    if segment.syntax in ("txt", "md"):  # a report printed as a dict is no sentence's
        return Sentence(*around_reports(segment, *sentence_around(segment, pos), pos))
    return Sentence(*sentence_around(segment, pos))
