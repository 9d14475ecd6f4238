"""A Hugging Face model card's ``model-index``: the results its YAML front matter declares.

A model card (``README.md`` on the Hub) opens with YAML front matter whose ``model-index`` lists
each result as data, the Hub's evaluation widget shows them, and the card's prose and tables
repeat them::

    model-index:
    - name: TinyNet-S
      results:
      - task: {type: image-classification}
        dataset:
          name: ImageNet-1k
          split: validation
        metrics:
        - type: accuracy
          value: 81.6
          name: Top-1 Accuracy

Read as Markdown, those lines were list items and ``key: value`` lines, judged together with
every other headed line of the page (`log_units`): a right value in the YAML satisfied a claim
whose number had drifted in the card's results list, and the reverse, and a ``value`` whose
metric and dataset sit on other lines than its own (``type: acc_norm`` over it, ``name: AI2
Reasoning Challenge`` in the dataset above) was judged by nothing.

Here each metric entry (a list item holding a ``value`` key) is a unit of its own
(`Entry`): its words (``type``, ``name``) are its anchors, and the lines of its result that
say what was measured, the task and dataset (and the model's ``name``), name it from above, as
a heading names the lines under it. The entries of a card are judged together, apart from the
rest of the page: a claim the entries name alike (a bare ``accuracy``) is satisfied by one
matching entry, a claim one entry names more (by its dataset) is that entry's. The dataset's
``split`` is the entry's split (``validation``: not a test-accuracy claim's). The other lines
of the ``model-index`` block are no unit: they describe, they state no result.

Invariants: only a Markdown segment starting with ``---`` is looked at (one check for any other
document); the block is read by indentation, line by line (no YAML library: offsets are kept),
and anything it does not understand is left to be read as before.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from labledger.reconcile.doc_readers import Segment
from labledger.reconcile.number_roles import header_split, label_split

__all__ = ["FRONT_MATTER", "Entry", "ModelIndex", "model_index"]

# YAML front matter: "---" on the first line, up to a closing "---" (or "...") line
FRONT_MATTER = re.compile(r"---[ \t]*\r?\n((?:[^\n]*\n)*?)(?:---|\.\.\.)[ \t]*\r?(?:\n|$)")
_MODEL_INDEX = re.compile(r"^model-index[ \t]*:[ \t]*\r?$", re.MULTILINE)
# a line's indentation, its list dash, and its key ("- type: accuracy", "  value: 81.6")
_LINE = re.compile(r"([ ]*)(-(?:[ ]+|$))?(?:([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]|$))?")


@dataclass(frozen=True, slots=True)
class Entry:
    """One metric of a result: its lines, and the lines naming it from above."""

    start: int
    end: int
    context: tuple[tuple[int, int], ...]  # its result's task and dataset lines, its model's name
    split: str | None                     # the dataset's split, when it is one (`label_split`)


@dataclass(frozen=True, slots=True)
class ModelIndex:
    start: int  # the block: from the "model-index:" line to the next top-level key
    end: int
    entries: tuple[Entry, ...]

    def entry_at(self, pos: int) -> Entry | None:
        # (entries are in text order and apart: the last starting at or before pos)
        k = bisect.bisect_right(self.entries, pos, key=lambda e: e.start) - 1
        return self.entries[k] if k >= 0 and pos < self.entries[k].end else None


@dataclass(slots=True)
class _Item:
    """A YAML list item being read: where its dash is, its own keys, where it ends."""

    start: int
    dash: int          # the dash's column
    keys_at: int       # the column of its own keys
    parent: _Item | None
    keys: dict[str, tuple[int, int]]  # its own keys' lines
    lines: list[tuple[int, int]]      # every line of it
    end: int = 0


def model_index(segment: Segment) -> ModelIndex | None:
    """The ``model-index`` of a Markdown segment's YAML front matter, when it holds a metric
    entry; else None (most documents: one ``startswith``)."""
    text = segment.text
    if segment.syntax != "md" or not text.startswith("---"):
        return None
    front = FRONT_MATTER.match(text)
    if front is None:
        return None
    block = _MODEL_INDEX.search(text, front.start(1), front.end(1))
    if block is None:
        return None
    items: list[_Item] = []
    open_: list[_Item] = []
    at = block.end() + 1
    stop = front.end(1)
    while at < stop:
        le = text.find("\n", at, stop)
        le = stop if le < 0 else le
        ls, at = at, le + 1
        line = text[ls:le].rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        assert m is not None  # every part of it is optional
        indent = len(m.group(1))
        if indent == 0 and m.group(2) is None:
            stop = ls  # the next top-level key ends the block
            break
        # an item holds the lines indented past its dash (a dash at the column closes it)
        while open_ and (indent < open_[-1].keys_at if m.group(2) is None
                         else indent <= open_[-1].dash):
            open_.pop().end = ls
        if m.group(2) is not None:
            item = _Item(ls, indent, m.end(2), open_[-1] if open_ else None, {}, [])
            items.append(item)
            open_.append(item)
        for item in open_:
            item.lines.append((ls, le))
        key = m.group(3)
        if key is not None and open_ and (m.group(2) is not None or indent == open_[-1].keys_at):
            open_[-1].keys.setdefault(key, (ls, le))
    for item in open_:
        item.end = stop
    # per result, the lines of its metric entries (each result's context is made once)
    metric_lines: dict[int, set[int]] = {}
    for item in items:
        if "value" in item.keys and item.parent is not None:
            metric_lines.setdefault(id(item.parent), set()).update(ls for ls, _ in item.lines)
    contexts: dict[int, tuple[tuple[int, int], ...]] = {}
    entries = [_entry(text, item, metric_lines, contexts) for item in items
               if "value" in item.keys and item.parent is not None]
    return ModelIndex(block.start(), stop, tuple(entries)) if entries else None


def _entry(text: str, item: _Item, metric_lines: dict[int, set[int]],
           contexts: dict[int, tuple[tuple[int, int], ...]]) -> Entry:
    """A metric entry: the lines of its result that are no metric's (the task, the dataset)
    and its model's ``name`` line name it (``contexts``: those made, per result)."""
    result = item.parent
    assert result is not None
    context = contexts.get(id(result))
    if context is None:
        inside = metric_lines[id(result)]
        lines = [(ls, le) for ls, le in result.lines
                 if ls not in inside and ls != result.keys.get("metrics", (-1, -1))[0]]
        model = result.parent
        if model is not None and "name" in model.keys:
            lines.append(model.keys["name"])
        context = contexts[id(result)] = tuple(lines)
    # the split its own name says ("Test ROUGE-1", as a column's header would), else its
    # dataset's ("split: validation")
    split = None
    name = item.keys.get("name")
    if name is not None:
        split = header_split(_scalar(text, *name))
    if split is None:
        for ls, le in context:
            if _SPLIT_KEY.match(text, ls, le):
                split = label_split(_scalar(text, ls, le))
                break
    return Entry(item.start, item.end, context, split)


_SPLIT_KEY = re.compile(r"[ \t]*split[ \t]*:")


def _scalar(text: str, ls: int, le: int) -> str:
    """The value of the ``key: value`` line ``text[ls:le]``, unquoted."""
    line = text[ls:le]
    return line[line.index(":") + 1:].strip().strip("'\"")
