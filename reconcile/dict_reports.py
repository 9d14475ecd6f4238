"""A classification report printed as a dict, read as the table it is.

``classification_report(..., output_dict=True)`` (seqeval's, sklearn's) returns a row per class
and per average, each a dict of the same keys::

    {'LOC': {'precision': 0.91, 'recall': 0.92, 'f1-score': 0.91, 'support': 1668},
     'micro avg': {'precision': 0.89, 'recall': 0.91, 'f1-score': 0.90, 'support': 5648}, ...}

printed on one line, or by pprint a key a line (its keys sorted), or with numpy 2's reprs
(``np.float64(0.91)``, ``np.int64(1668)``), or nested in the Trainer's metrics
(``'eval_report': {...}``). Read as one sentence (or one record), every row's ``f1-score``
named every F1 claim: a micro-avg F1 claim was satisfied by the macro avg's value, and when
none matched it was ambiguous among all of them. Here the rows are a `Table`'s: a row per
outer key (its label, quotes and all, so a class named ``'1'`` is a label, not a value), a
column per inner key (headed by that key as the first row writes it), and a cell per value,
the number alone (not numpy's wrapper). sklearn's scalar entry between the rows
(``'accuracy': 0.93``) is a row whose value is in a last, unheaded column: named by its label
alone, as in the printed report.

Invariants: a table is two or more such rows one after another, only commas, white space and
scalar entries between them; what is around them (the Trainer's ``'eval_loss'``, a
``Results:`` label) is no part of it. Cell offsets are the segment's. Found once per segment,
and only in a segment writing ``f1-score``, ``precision`` or ``recall`` as a quoted key (one
substring search each otherwise).
"""

from __future__ import annotations

import bisect
import re

from labledger.reconcile.doc_readers import Cell, Segment, Table

__all__ = ["around_reports", "dict_report_table"]

# the keys a classification report's rows hold, quoted as a dict's repr quotes them
_TRIGGERS = ("'f1-score'", '"f1-score"', "'precision'", '"precision"', "'recall'", '"recall"')
_REPORT_KEYS = frozenset(["precision", "recall", "f1-score"])
_LABEL = r"(['\"])([^'\"\n]{1,80})\1[ \t]*:[ \t]*"
_NUMBER = r"([+\-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+\-]?\d+)?)"
# a value: a number, or numpy 2's repr of one ("np.float64(0.91)", "np.int64(1668)")
_VALUE = rf"(?:(?:np|numpy)\.\w+\([ \t]*)?{_NUMBER}\)?"
# a row: "'micro avg': {" (its body runs to the next "}")
_ROW = re.compile(_LABEL + r"\{")
_KEY_VALUE = re.compile(_LABEL + _VALUE)
# what may stand between two rows: commas, white space, scalar entries ("'accuracy': 0.93,")
_BETWEEN = re.compile(rf"(?:[\s,]|{_LABEL}{_VALUE})*")
_MAX_BODY = 2000  # characters of a row's body: a report's row is short


def dict_report_table(segment: Segment, pos: int) -> Table | None:
    """The classification report printed as a dict that holds ``pos``, as a table; None when
    none does."""
    starts, tables = _found(segment)
    i = bisect.bisect_right(starts, pos) - 1
    if i < 0 or pos >= tables[i].end:
        return None
    return tables[i]


def around_reports(segment: Segment, start: int, end: int, pos: int) -> tuple[int, int]:
    """The sentence or line ``(start, end)`` holding ``pos`` cut at the reports in it: the
    Trainer's ``{'eval_loss': ..., 'eval_report': {...}}`` on one line is a line, a table, and
    the rest of the line (the unit around an earlier number held the report whole, and the
    report's cells were never judged as a table's)."""
    starts, tables = _found(segment)
    if not tables:
        return start, end
    for table in tables[max(0, bisect.bisect_right(starts, start) - 1):]:
        if table.start >= end:
            break
        if table.end <= start:
            continue
        if table.end <= pos:
            start = max(start, table.end)
        elif pos < table.start:
            end = min(end, table.start)
    return start, end


def _found(segment: Segment) -> tuple[list[int], list[Table]]:
    """The segment's reports and where each starts, found once."""
    got = segment._cache.get("dict_reports")
    if got is None:
        text = segment.text
        # (every trigger is quoted: a text without quotes, found at memchr speed, holds none)
        quoted = "'" in text or '"' in text
        found = _reports(text) if quoted and any(t in text for t in _TRIGGERS) else []
        got = segment._cache["dict_reports"] = ([t.start for t in found], found)
    assert isinstance(got, tuple)
    return got


class _Row:
    """An outer key and its values: (key, key's cell, value's cell) each."""

    def __init__(self, label: Cell, start: int, end: int) -> None:
        self.label, self.start, self.end = label, start, end
        self.values: list[tuple[str, Cell, Cell]] = []
        self.scalar: Cell | None = None  # sklearn's "'accuracy': 0.93": no dict of its own


def _reports(text: str) -> list[Table]:
    """Every report in ``text``: runs of two or more rows (see the module docstring)."""
    groups: list[list[_Row]] = []
    group: list[_Row] = []
    last_end = -1
    for m in _ROW.finditer(text):
        close = text.find("}", m.end(), m.end() + _MAX_BODY)
        if close < 0 or "{" in text[m.end():close]:
            continue  # an outer dict ("'eval_report': {"), or no closing brace near
        row = _Row(Cell(text[m.start():m.end(2) + 1], m.start(), m.end(2) + 1), m.start(),
                   close + 1)
        for kv in _KEY_VALUE.finditer(text, m.end(), close):
            key = Cell(kv.group(2), kv.start(2), kv.end(2))
            row.values.append((kv.group(2), key, Cell(kv.group(3), kv.start(3), kv.end(3))))
        if _REPORT_KEYS.isdisjoint(k for k, _, _ in row.values):
            continue
        scalars = _scalars_between(text, last_end, m.start()) if group else None
        if group and scalars is None:
            groups.append(group)
            group = []
        group.extend(scalars or ())
        group.append(row)
        last_end = row.end
    groups.append(group)
    return [_table(g) for g in groups if sum(r.scalar is None for r in g) >= 2]


def _scalars_between(text: str, start: int, end: int) -> list[_Row] | None:
    """The scalar entries between two rows as rows of their own, or None when something else
    stands between them (two reports, not one)."""
    if _BETWEEN.fullmatch(text, start, end) is None:
        return None
    out = []
    for kv in _KEY_VALUE.finditer(text, start, end):
        row = _Row(Cell(text[kv.start():kv.end(2) + 1], kv.start(), kv.end(2) + 1),
                   kv.start(), kv.end())
        row.scalar = Cell(kv.group(3), kv.start(3), kv.end(3))
        out.append(row)
    return out


def _table(rows: list[_Row]) -> Table:
    start, end = rows[0].start, rows[-1].end
    names: list[str] = []
    header = [Cell("", start, start)]
    for row in rows:
        for key, cell, _ in row.values:
            if key not in names:
                names.append(key)
                header.append(cell)
    scalar_column = any(r.scalar is not None for r in rows)
    if scalar_column:
        header.append(Cell("", start, start))
    body: list[list[Cell]] = []
    for row in rows:
        values = {key: value for key, _, value in row.values}
        cells = [row.label]
        for name in names:
            cells.append(values.get(name) or Cell("", row.end, row.end))
        if scalar_column:
            cells.append(row.scalar or Cell("", row.end, row.end))
        body.append(cells)
    return Table(start, end, header, body, [header])
