"""Training progress: the records a log prints of one quantity epoch after epoch are its history.

A training prints the same metric again and again: Keras' ``val_accuracy`` on every epoch's
line, a PyTorch loop's ``Validation Accuracy: 79.07%`` after each epoch, pycocotools'
``summarize()`` block after each evaluation, and a notebook does so in several cells (a first
``fit``, then a fine-tuning ``fit`` going on from it). A claim is one of those values, most
often the last. Three rules follow: inside a printed log, inside a table of epochs, and across a
notebook's outputs:

* **Inside a log** (`last_record`): the records naming a claim alike are judged together
  (`log_units.strongest_records`), so one matching satisfies the claim. When none matches
  and they are one *progress series* -- each on a line of its own, all under the same key,
  and a progress word (``epoch``, ``step``, ``iter``, ``iteration``) between each and the
  next, or labelling the later one before its number -- the claim drifts on the last of
  them, the most recent value, instead of being ambiguous among them all. Records that are
  no series (per-image or per-dataset lines, one summary's AR@1, AR@10 and AR@100, the bbox
  and the segm summary of one epoch, a final evaluation line of another shape) stay
  ambiguous: which one is the claim's, the log does not say.
* **In a table of epochs** (`epoch_rows`, `last_row`): the Hugging Face Trainer's HTML
  table (``Epoch | Training Loss | Validation Loss | Accuracy``), fastai's (``epoch |
  train_loss | valid_loss | error_rate | time``), a model card's "Training results" (``Epoch |
  Step | ...``) print a row per epoch or evaluation step. The cells of one column naming a
  claim are that quantity's records: one matching satisfies the claim (as any column's), and
  when none does the claim drifts on the last row's, the most recent value, instead of being
  ambiguous among them all. Only a table whose rows a progress column counts, headed by the
  word alone (``Epoch``, ``step``, ``global_step``: not ``Epochs`` or ``Sampling steps``, how
  long each row's run trained, a setting), rising row after row, with no row label but the
  Trainer's ``No log`` and no column of a setting (``warmup_steps``, ``Batch size``: a row
  per run or a configuration; a learning rate is logged every epoch); rows of datasets or
  models, and cells of two columns (``train_loss`` and ``valid_loss`` for a bare ``loss``),
  stay ambiguous.
* **Across a notebook** (`judge_history`): the outputs of code cells are judged one by one
  (each is a segment); afterwards, a claim's findings in the *progress outputs* of one
  notebook (streams that print a progress word: a ``fit``'s epochs, a loop's per-epoch lines,
  tqdm) are judged as one log's records: those under one key (`record_key`: ``val_accuracy``,
  ``validation accuracy``, a summary line's statistic) are satisfied by a match under that key
  that is a fit's last record (a *fit* is one code cell's progress outputs, however many
  outputs tqdm's stderr cuts it into), or any record of the last fit judging the claim (its
  best epoch), and when none matches only the last finding is kept. An HTML table
  of epochs shown by a code cell (`epoch_table`: the Trainer's, fastai's) is a progress output
  too, its cells keyed by their column's header (``Accuracy`` as ``accuracy``, as a stream's
  ``accuracy:``). A code output that is no progress output (a ``model.evaluate`` line,
  ``print('Test accuracy :', acc)``, ``trainer.evaluate()``'s dict, the ``TrainOutput`` under
  the Trainer's table) is a record of its own, judged alone as before: its drift is
  never satisfied by an epoch's line. And a claim that such an output judges *after* the last
  progress output judging it is that evaluation's: the training's lines are history, not its
  record, and their findings for it are dropped (a bare ``accuracy`` claim is the test
  accuracy ``evaluate`` printed, not the training accuracy of the last epoch).

Invariants: only anchored findings on one claim are ever dropped (a marker binds a number
exactly, so a table output holding one is no history; a number two claims could own stays
ambiguous); nothing here runs for a document without findings in a notebook's outputs, and
inside a log or a table only where a claim would otherwise be ambiguous (a table's rows are
looked at once, then), so no number's common path pays for it.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from typing import NamedTuple

from labledger.reconcile.coco_summary import TRIGGER, parse_line
from labledger.reconcile.doc_markers import number_in
from labledger.reconcile.doc_readers import Cell, Segment, Table, line_at, mask_text
from labledger.reconcile.findings import Finding, Report
from labledger.reconcile.html_tables import html_table

__all__ = ["PROGRESS", "Redrift", "epoch_rows", "epoch_table", "judge_history", "last_record",
           "last_row", "record_key", "series_note"]

# A word only a training's progress prints: "Epoch 3/15", "Epoch(val) [2][327]", "epoch: 59/300",
# "iter: 4999", "global_step", "'epoch': 1.0"; not a rate's unit ("37ms/step", "1.2s/it")
PROGRESS = re.compile(r"(?i)(?<![a-z/])(?:iteration|iter|epoch|step)s?(?![a-z])")
# The key a record prints before its number: "val_accuracy: ", "Validation Accuracy: ",
# "acc=", "'eval_accuracy': ", "Test accuracy : " (looked for in the line's last characters)
_KEY = re.compile(r"([A-Za-z][\w./@%-]*(?:[ \t]+[A-Za-z][\w./@%-]*)*)[ \t'\"]*[:=]?[ \t'\"]*\Z")
_KEY_REACH = 80  # characters before a number its key may start in (a long line: no rescans)
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])[+\-]?\d+(?:[.,:]\d+)*(?:[eE][+\-]?\d+)?")
_SPACES = re.compile(r"\s+")
# A table column counting a training's progress, headed by the word alone: the Trainer's
# "Epoch" and "Step", fastai's "epoch", "global_step"; not "Epochs" or "Sampling steps" (a
# setting: how long each row's run trained or sampled)
_COUNTER = re.compile(r"(?i)(?:global[ _]?)?(?:epoch|step|iteration|iter)")
# A column naming a setting of the run ("warmup_steps", "Batch size", "Setting"): the table's
# rows are runs or a configuration, whatever its "Step" or "Epoch" column counts (the steps
# trained, the warmup's, a schedule's), not a training's epochs. Not a quantity a schedule
# changes epoch by epoch (the learning rate, momentum, weight decay, dropout): a training's
# history logs it every epoch (Keras' ReduceLROnPlateau "lr", the Trainer's "learning_rate").
_SETTING = re.compile(r"(?i)(?<![a-z])(?:warm[ _-]?up|batch[ _-]?size|optimi[sz]er|scheduler"
                      r"|seed|settings?|hyper[ _-]?param(?:eter)?s?|config(?:uration)?)"
                      r"(?![a-z])")
# an HTML table's header cell that is such a word: the Trainer's and fastai's epoch tables
_COUNTER_TH = re.compile(r"(?i)<th\b[^>]*>\s*(?:global[ _]?)?(?:epoch|step|iteration|iter)\s*</th>")
# formatting around a header's word ("**Epoch**", "{Epoch}" from \textbf{Epoch})
_DECOR = " \t\r\n{}$^*~_`"
# a cell holding a number (fastai's "00:14" too), and what a training's table writes where a
# row has no value: the Trainer's "No log" (no training loss logged yet), "nan", "-"
_NUMERIC = re.compile(r"[\s*_`~$({]*[+\-\u2212]?\.?\d")
_NO_VALUE = re.compile(r"(?i)\s*(?:no log|nan|none|n/?a|[-\u2013\u2014]+)?\s*")


@functools.lru_cache(maxsize=8192)
def record_key(text: str, at: int) -> str:
    """The key of the record whose number starts at ``at`` in ``text``: the statistic of a
    COCOeval summary line (its bracket), else the words just before the number
    (``val_accuracy``, ``validation accuracy``, lower-cased), else the line with its numbers
    blanked."""
    ls, le = line_at(text, at)
    line = text[ls:le]
    if TRIGGER in line:
        stat = parse_line(line)
        if stat is not None:
            return f"{stat.kind} {stat.iou} {stat.area} {stat.max_dets} {stat.cat}"
    m = _KEY.search(text, max(ls, at - _KEY_REACH), at)
    if m is not None:
        return _SPACES.sub(" ", m.group(1)).lower()
    return _SPACES.sub(" ", _NUMBER.sub("#", line)).strip()


def last_record(text: str, starts: Sequence[int]) -> int | None:
    """The index in ``starts`` of the most recent record when the numbers starting there are
    one quantity's progress series (each on a line of its own, all under one `record_key`, a
    `PROGRESS` word from each line's end to the next record's number); None when they are
    not."""
    if len(starts) < 2:
        return None
    order = sorted(range(len(starts)), key=starts.__getitem__)
    lines = [line_at(text, starts[i]) for i in order]
    if any(a[0] == b[0] for a, b in pairwise(lines)):
        return None  # two on one line: two quantities, not two epochs
    key = record_key(text, starts[order[0]])
    if any(record_key(text, starts[i]) != key for i in order[1:]):
        return None
    # the counter is between the records ("Epoch 3/15" over Keras' line) or labels the later
    # one before its number ("Epoch 3 | val acc 0.88"): not after it, where BasicSR writes the
    # best value's iteration on each dataset's line ("# psnr: 32.45  Best: 32.45 @ 300000 iter")
    if any(PROGRESS.search(text, line[1], starts[i]) is None
           for line, i in zip(lines, order[1:], strict=False)):
        return None
    return order[-1]


# --- in a table of epochs ------------------------------------------------------------------------

def epoch_rows(table: Table, syntax: str, comma: bool = False) -> bool:
    """Whether ``table``'s body rows (its cells' text in ``syntax``; ``comma``: decimal
    commas) are a training's epochs or steps: a column headed by a progress word alone (the
    Trainer's "Epoch", fastai's "epoch", "Step") holds a number in every row, rising row after
    row (one row: a fit of one epoch), and no row has a label but a missing value's ("No
    log"): "| ResNet-50 | 90 | 76.1 |" under "Model | Epoch | Top-1" is a row per model. A
    table with a column of a setting (``warmup_steps``, ``Batch size``, ``Setting``) is a
    configuration or a row per run, its ``Step`` the steps trained or warmed up."""
    rows = [row for row in table.rows if row]
    if not rows:
        return False
    heads = [mask_text(syntax, cell.text).strip(_DECOR) for cell in table.header]
    columns = [column for column, head in enumerate(heads) if _COUNTER.fullmatch(head)]
    if not columns or any(_SETTING.search(head) for head in heads):
        return False  # (a setting's column: runs or a configuration, not epochs)
    for row in rows:
        for cell in row:
            text = mask_text(syntax, cell.text, comma)
            if not _NUMERIC.match(text) and not _NO_VALUE.fullmatch(text):
                return False  # a row's label: a model's, a dataset's
    return any(_rising(rows, column, syntax, comma) for column in columns)


def _rising(rows: list[list[Cell]], column: int, syntax: str, comma: bool) -> bool:
    """Whether every row holds a number in ``column``, each above the one before."""
    last = -math.inf
    for row in rows:
        if column >= len(row):
            return False
        text = mask_text(syntax, row[column].text, comma)
        got = number_in(text, len(text) - len(text.lstrip()), len(text), comma)
        if got is None or not got.fvalue > last:
            return False
        last = got.fvalue
    return True


def last_row(cells: Sequence[tuple[int, int]]) -> int | None:
    """The index in ``cells`` ((row, column) of each number of a table naming one claim, none
    matching it) of the last row's, when they are one quantity's records in a table whose rows
    a progress column counts (the caller's to know): all in one column, each in a row of its
    own; None when they are not."""
    if len(cells) < 2 or len({column for _, column in cells}) > 1:
        return None
    if len({row for row, _ in cells}) < len(cells):
        return None
    return max(range(len(cells)), key=lambda i: cells[i][0])


def epoch_table(segment: Segment) -> bool:
    """Whether a notebook output is an HTML table of a training's epochs or steps
    (`epoch_rows`: the Trainer's, fastai's) holding no claim marker (an HTML comment,
    ``data-claim``): a progress output of the training."""
    text = segment.text
    if segment.syntax != "md" or "<th" not in text or "<!--" in text or "data-claim" in text:
        return False
    head = _COUNTER_TH.search(text)
    table = html_table(segment, head.start()) if head is not None else None
    return table is not None and epoch_rows(table, segment.syntax)


def _column_key(segment: Segment, at: int) -> str | None:
    """The header of the HTML table column whose cell holds ``at`` (lower-cased, its spaces
    one), or None when no table cell does."""
    table = html_table(segment, at)
    got = _table_rows(segment, at, table)
    if table is None or got is None:
        return None
    rows, starts = got
    i = bisect.bisect_right(starts, at) - 1
    if i < 0:
        return None
    for column, cell in enumerate(rows[i]):
        if cell.start <= at < cell.end:
            return _SPACES.sub(" ", table.column_header(column)).strip().lower()
    return None


def _table_rows(segment: Segment, at: int, table: Table | None = None
                ) -> tuple[list[list[Cell]], list[int]] | None:
    """The body rows (not empty) of the HTML table holding ``at``, and where each starts;
    None outside a table. Once per table: every match in it asks."""
    table = table or html_table(segment, at)
    if table is None or not any(table.rows):
        return None
    key = f"progress_rows {table.start}"
    got = segment._cache.get(key)
    if got is None:
        kept = [row for row in table.rows if row]
        got = segment._cache[key] = (kept, [row[0].start for row in kept])
    assert isinstance(got, tuple)
    return got


# --- across a notebook's outputs -----------------------------------------------------------------

# (a code output's segment, the offset of a finding's number in it, the finding, a claim it
# names): the finding as that claim's drift on that number, or None when the number is none
Redrift = Callable[[Segment, int, Finding, str], "Finding | None"]


class _Output(NamedTuple):
    place: int         # its order among the notebook's segments
    segment: Segment
    progress: bool     # a training's progress output: a stream printing a PROGRESS word, or
    table: bool        # an HTML table of epochs (`epoch_table`), its cells keyed by column
    cell: str          # the code cell showing it ("cell 4"): a cell's progress outputs are one
    #                    fit's, however many outputs tqdm's stderr cuts its stdout into

    def key(self, at: int) -> str:
        """The key of the record whose number starts at ``at``: its column's header in a table
        of epochs, else `record_key`."""
        if self.table:
            header = _column_key(self.segment, at)
            if header:
                return header
        return record_key(self.segment.text, at)

    def last_of(self, key: str, at: int) -> bool:
        """Whether the record whose number starts at ``at`` (under ``key``) is the output's
        last under its key: in a table of epochs, a cell of its last row."""
        if self.table:
            rows = _table_rows(self.segment, at)
            if rows is not None:
                return rows[1][-1] <= at
        return _last_of_key(self.segment, key) == line_at(self.segment.text, at)[0]

    def has_key(self, key: str) -> bool:
        """Whether the output holds a record under ``key``: a column so headed in a table of
        epochs, a record so keyed in a stream."""
        if self.table:
            headers = self.segment._cache.get("progress_headers")
            if headers is None:
                table = html_table(self.segment, self.segment.text.find("<th"))
                headers = self.segment._cache["progress_headers"] = frozenset(
                    _SPACES.sub(" ", table.column_header(c)).strip().lower()
                    for c in range(len(table.header))) if table is not None else frozenset()
            assert isinstance(headers, frozenset)
            if key in headers:
                return True
        return _last_of_key(self.segment, key) >= 0


class _Judged(NamedTuple):
    """What a notebook's outputs say of one claim, judged one by one."""

    keys: set[str]     # the keys of its matches in progress outputs
    last: int          # the last progress output judging it (a match or a finding)
    evaluated: int     # the last other code output judging it (-1: none)


def judge_history(segments: Sequence[Segment], report: Report, drift: Redrift) -> None:
    """Judge the findings in a notebook's progress outputs as one log's records (see the module
    docstring): a claim is dropped from a finding where a match under the finding's key in a
    progress output satisfies it, or where an evaluation after the training judges it; an
    ambiguity left with one claim is that claim's drift (``drift`` makes it); of one claim's
    findings under one key, only the last is kept."""
    candidates = [f for f in report.findings if _in_output(f.where)
                  and f.via in ("anchor", "table") and f.claims
                  and f.type in ("drift", "ambiguous")]
    if not candidates:
        return
    outputs = _outputs(segments, {f.path for f in candidates})
    # (a table's cells are "table" findings; only a table of epochs, which holds no marker,
    # has them anchored alone)
    mine = [f for f in candidates
            if (out := outputs.get((f.path, f.where or ""))) is not None and out.progress
            and (f.via == "anchor" or out.table)]
    if not mine:
        return
    judged = _judged(report, outputs)
    kept: dict[int, Finding | None] = {}  # id of a finding: what replaces it (None: nothing)
    newest: dict[tuple[str, str, str], tuple[tuple[int, int, int], int]] = {}
    for f in mine:
        out = outputs[(f.path, f.where or "")]
        at = _offset(out.segment.text, f.line, f.col)
        key = out.key(at)
        left = [c for c in f.claims if not _history_judges(judged.get((f.path, c)), key)]
        now = _narrowed(f, left, drift, out.segment, at)
        if now is not f:
            kept[id(f)] = now
        if now is not None and len(now.claims) == 1:
            # of one claim's findings under one key, the last output's (its last line's) stays
            place = (out.place, f.line, f.col)
            before = newest.setdefault((f.path, now.claims[0], key), (place, id(f)))
            if before[0] < place:
                kept[before[1]] = None
                newest[(f.path, now.claims[0], key)] = (place, id(f))
            elif before[1] != id(f):
                kept[id(f)] = None
    if kept:
        report.findings[:] = [g for f in report.findings
                              if (g := kept.get(id(f), f)) is not None]


def _narrowed(f: Finding, left: list[str], drift: Redrift, segment: Segment,
              at: int) -> Finding | None:
    """``f`` (its number at ``at`` in ``segment``) with only the claims ``left`` that its
    history does not judge away: None when no claim is left; an ambiguity between claims left
    with one is that claim's drift (when ``drift`` makes it); anything else stays as it is."""
    if not left:
        return None
    if len(f.claims) > 1 and len(left) == 1:
        return drift(segment, at, f, left[0]) or f
    return f


def _history_judges(judged: _Judged | None, key: str) -> bool:
    """Whether a claim's history judges a finding of it under ``key`` away: a match under that
    key, or an evaluation after the training."""
    return judged is not None and (key in judged.keys or judged.evaluated > judged.last)


def _in_output(where: str | None) -> bool:
    return where is not None and ", output " in where


def _outputs(segments: Sequence[Segment], paths: set[str]) -> dict[tuple[str, str], _Output]:
    """Per code output of the notebooks ``paths``, keyed by (path, where)."""
    out: dict[tuple[str, str], _Output] = {}
    for n, seg in enumerate(segments):
        if seg.path in paths and _in_output(seg.where):
            table = not seg.stream and epoch_table(seg)
            progress = table or (seg.stream and PROGRESS.search(seg.text) is not None)
            where = seg.where or ""
            out[(seg.path, where)] = _Output(n, seg, progress, table,
                                             where[:where.index(", output ")])
    return out


def _judged(report: Report, outputs: dict[tuple[str, str], _Output]
            ) -> dict[tuple[str, str], _Judged]:
    """Per (notebook, claim) judged in those ``outputs``: the keys of its matches in progress
    outputs, the last progress output and the last other output judging it."""
    last: dict[tuple[str, str], int] = {}
    evaluated: dict[tuple[str, str], int] = {}
    judging: list[tuple[_Output, str, str, int]] = []  # a match in a progress output

    def saw(path: str, where: str | None, cids: Iterable[str], at: int | None) -> None:
        out = outputs.get((path, where or ""))
        if out is None:
            return
        for cid in cids:
            if not out.progress:
                evaluated[(path, cid)] = max(evaluated.get((path, cid), -1), out.place)
                continue
            last[(path, cid)] = max(last.get((path, cid), -1), out.place)
            if at is not None:
                judging.append((out, path, cid, at))

    for m in report.matches:
        saw(m.path, m.where, m.claims, m.offset)
    for f in report.findings:
        saw(f.path, f.where, f.claims, None)
    # a fit is a code cell's progress outputs: a loop printing each epoch in an output of its
    # own (tqdm's stderr cuts its stdout) is one fit, not one fit an epoch
    fits: dict[tuple[str, str], list[_Output]] = {}
    for out in outputs.values():
        if out.progress:
            fits.setdefault((out.segment.path, out.cell), []).append(out)
    at_place = {o.place: o for o in outputs.values()}
    last_fit = {k: at_place[place].cell for k, place in last.items()}
    keys: dict[tuple[str, str], set[str]] = {}
    for out, path, cid, at in judging:
        # only a fit's last record under its key is a training's result: an earlier epoch
        # of another model's fit that happens to print the claim's value satisfies nothing.
        # But any record of the last fit judging the claim is its newest history, which one
        # record matching satisfies (its best epoch, not its last): the earlier fits'
        # records under that key are its past.
        key = out.key(at)
        if out.cell == last_fit[(path, cid)] or (
                out.last_of(key, at) and not any(
                    later.place > out.place and later.has_key(key)
                    for later in fits[(path, out.cell)])):
            keys.setdefault((path, cid), set()).add(key)
    return {k: _Judged(keys.get(k, set()), last.get(k, -1), evaluated.get(k, -1))
            for k in last.keys() | evaluated.keys()}


def _last_of_key(seg: Segment, key: str) -> int:
    """Where the line of ``seg``'s last record under ``key`` starts (-1: none); the records'
    keys are found once per segment."""
    got = seg._cache.get("record_keys")
    if got is None:
        text = seg.text
        lasts: dict[str, int] = {}
        for m in _NUMBER.finditer(text):
            lasts[record_key(text, m.start())] = line_at(text, m.start())[0]
        seg._cache["record_keys"] = got = lasts
    assert isinstance(got, dict)
    return int(got.get(key, -1))


def _offset(text: str, line: int, col: int) -> int:
    """The offset of 1-based (``line``, ``col``) in ``text``."""
    at = 0
    for _ in range(line - 1):
        at = text.index("\n", at) + 1
    return at + col - 1


def series_note(count: int, taken: int = 0) -> str:
    """What a drift on the last of ``count`` records says of the others; ``taken``: how many
    records naming the claim come after it, each another claim's match (a table's last row
    matching the other run's claim): then it is the last of those left, not the last."""
    if not taken:
        return f"; the last of {count} records naming it, none of which matches"
    after = "the one after it is" if taken == 1 else f"the {taken} after it are"
    return (f"; the last of {count} records naming it that no other claim matches ({after} "
            "another claim's), none of which matches it")
