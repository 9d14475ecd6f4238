"""JSON records read as a table: a JSON lines file, or a JSON list of objects.

Training loops log one JSON object per step or evaluation: detectron2's ``metrics.json`` and
mmengine's ``vis_data/scalars.json`` write one per line (JSON lines), Hugging Face's
``trainer_state.json`` keeps them in its ``log_history`` list. Each object is a **record**; here
the records become the cells of a table, which `claim_values` reads with its table selectors
(``last(bbox/AP)``, ``bbox/AP[iteration=89999]``, ``log_history.eval_accuracy[epoch=3.0]``).

Invariants:

* a record is a JSON object; anything else (a number, a list, a string) where a record belongs
  is refused, naming its line;
* a record's keys are its columns; a nested object's keys are joined to the key above with a
  dot (``{"val": {"acc": 0.9}}`` is the column ``val.acc``), a list stays one cell (it is no
  number, and is refused where a number is read);
* a key a record lacks, or gives as ``null``, is an empty cell (``None``): logs are sparse, the
  training rows lack the evaluation keys and the other way round;
* columns are in the order they are first seen, rows in the order of the records;
* a column name one record gives twice (a repeated key, or ``"a.b"`` next to ``{"a": {"b":
  ...}}``) is ambiguous: the column is marked, and reading it is refused (not the file);
* lines are counted from 1 as an editor counts them, blank lines included; a blank line is no
  record.

Nothing here knows selectors or claims; errors are `RecordsError` (a message without the
object's name, which the caller adds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any


class RecordsError(ValueError):
    """The text is not JSON records; the message says where and why."""


@dataclass
class RecordColumns:
    """Records as columns of equal length (``None`` for an empty cell)."""

    columns: dict[str, list[Any]]
    rows: int
    lines: list[int] = field(default_factory=list)  # the line each row is on (JSON lines)
    # Columns a record gives twice, with why (the first such record): reading them is refused.
    ambiguous: dict[str, str] = field(default_factory=dict)
    # The keys a nested column is made of (``val.mAP@0.5`` is ``("val", "mAP@0.5")``): a key may
    # hold a dot itself, so the name alone does not say.
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)


def is_record_list(value: Any) -> bool:
    """Whether ``value`` is a non-empty list of JSON objects (``log_history``)."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def parse_json_lines(text: str, loads: Callable[[str], Any]) -> list[tuple[int, Any]]:
    """``(line, value)`` for each non-blank line of ``text``, parsed with ``loads``.

    Raises `RecordsError` for a line that is not JSON or not an object, and for a text with no
    record at all. A line ends at ``\\n`` only (``\\r\\n`` too): JSON escapes every other line
    break inside a string, so a record never spans two lines."""
    records: list[tuple[int, Any]] = []
    for number, line in _numbered_lines(text):
        if not line.strip():
            continue
        try:
            value = loads(line)
        except RecursionError:
            raise RecordsError(f"line {number} is nested too deeply to read") from None
        except ValueError as exc:
            raise RecordsError(f"line {number} is not valid JSON ({exc}); a JSON lines file "
                               "holds one JSON object per line") from None
        if not isinstance(value, dict):
            raise RecordsError(f"line {number} is {_kind(value)}, not a JSON object; a JSON "
                               "lines file holds one object per line")
        records.append((number, value))
    if not records:
        raise RecordsError("holds no JSON object (every line is blank)")
    return records


def _numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line.removesuffix("\r")


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a JSON list"
    if isinstance(value, str):
        return "a JSON string"
    if value is None:
        return "null"
    return f"the {type(value).__name__} {value!r}"


def records_columns(records: Sequence[dict[str, Any]],
                    lines: Sequence[int] = ()) -> RecordColumns:
    """The records as columns; ``lines`` (one per record, when read from a file) name a record
    in what `RecordColumns.ambiguous` says."""
    flat = [flatten(record) for record in records]
    names: dict[str, tuple[str, ...]] = {}
    for cells, _clashes in flat:
        for name, (keys, _) in cells.items():
            names.setdefault(name, keys)
    ambiguous: dict[str, str] = {}
    for index, (_cells, clashes) in enumerate(flat):
        place = f"line {lines[index]}" if lines else f"record {index}"
        for name in clashes:
            ambiguous.setdefault(name, f"{place} gives {name!r} more than once (a repeated key, "
                                       "or a dotted key next to the nested one)")
    columns = {name: [cells[name][1] if name in cells else None for cells, _ in flat]
               for name in names}
    return RecordColumns(columns=columns, rows=len(records), lines=list(lines),
                         ambiguous=ambiguous,
                         keys={name: keys for name, keys in names.items() if len(keys) > 1})


def flatten(record: dict[str, Any]
            ) -> tuple[dict[str, tuple[tuple[str, ...], Any]], list[str]]:
    """A record's cells by column name (nested objects joined with dots, depth first, in key
    order), each with the keys it is made of, and the names it gives more than once. An object
    that carries a ``repeated`` mapping (keys its JSON text repeats, as `claim_values` parses
    them) marks those keys too.

    Iterative, not recursive: a record nested as deeply as the JSON parser allows must not
    overflow the stack here."""
    cells: dict[str, tuple[tuple[str, ...], Any]] = {}
    clashes: list[str] = list(getattr(record, "repeated", {}))
    stack: list[tuple[tuple[str, ...], Iterator[tuple[str, Any]]]] = [((), iter(record.items()))]
    while stack:
        above, items = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            continue
        keys = (*above, item[0])
        name = ".".join(keys)
        value = item[1]
        if isinstance(value, dict) and value:
            clashes += [f"{name}.{key}" for key in getattr(value, "repeated", {})]
            stack.append((keys, iter(value.items())))
            continue
        if name in cells:
            clashes.append(name)
        cells[name] = (keys, value)
    return cells, clashes
