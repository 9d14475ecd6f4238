"""Reading a claimed value out of the bytes of a stored result object.

A claim's value is never typed by hand: `read_value` parses the object's bytes (as stored in the
CAS) and applies a **selector**, the text given to ``labledger claim add --metric``:

JSON (``metrics.json``, any ``*.json``)
    ``test.psnr``      dotted keys; a key that itself holds dots (``mAP@0.5``) is found too, and a
                       selector that reads two ways is refused as ambiguous
    ``/test/psnr``     a JSON pointer (RFC 6901; ``~1`` is ``/``, ``~0`` is ``~``)
    ``mean(per_image.psnr)``  an aggregate over a list of numbers
Tables (``results.parquet``, ``*.csv``, ``*.tsv``)
    ``mean(psnr)``     an aggregate over the column's non-empty cells, in row order
    ``psnr[-1]``       one cell: data row I of the column (0-based; negative counts from the end)
    ``psnr[epoch=100]``  one cell: the one row whose column ``epoch`` reads ``100``

Aggregates: ``mean median min max sum count first last`` (``count`` counts non-empty cells of any
column). Besides the value, what the object itself says about it is read too, never guessed:
``n`` (samples behind the value), the split it was evaluated on (a ``split`` key or column),
seeds (``seed``/``seeds`` keys, a ``seed`` column) and a reported spread (``psnr_std``,
``std: {psnr: ...}``, ``psnr_sem``; for the mean of a table with one row per seed, the sample
standard deviation over those rows).

Errors are `ClaimInputError`s naming the selector and ``where`` (run, path, digest); a selector
that names nothing raises `MetricNotFoundError` listing the metrics that do exist.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from labledger.reconcile.errors import ClaimInputError, MetricNotFoundError

AGGREGATES: dict[str, Callable[[list[float]], float]] = {
    "mean": lambda v: math.fsum(v) / len(v),
    "median": lambda v: float(statistics.median(v)),
    "min": min,
    "max": max,
    "sum": math.fsum,
    "count": lambda v: float(len(v)),
    "first": lambda v: v[0],
    "last": lambda v: v[-1],
}
_AGG_RE = re.compile(r"^(" + "|".join(AGGREGATES) + r")\((.+)\)$")
_CELL_RE = re.compile(r"^(.+)\[(.+)\]$")
_INT_RE = re.compile(r"^-?\d+$")
N_KEYS = ("n", "num_samples", "n_samples", "num_images", "n_images", "count")
_SPREAD = (("std", ("std", "sd")), ("sem", ("sem", "stderr", "se")))
_SPLITS = {"test": "test", "testing": "test", "val": "val", "valid": "val", "validation": "val",
           "dev": "val", "train": "train", "training": "train"}
TABLE_SUFFIXES = (".parquet", ".csv", ".tsv")


@dataclass(frozen=True)
class Extracted:
    """A value read from an object, and what the object says about it."""

    value: float
    metric: str  # the metric's own name (the last key, or the column)
    selector: str
    n: int | None = None
    split: str | None = None  # the split the object says it was evaluated on
    seeds: tuple[int, ...] = ()
    variance_type: str | None = None  # "std" | "sem"
    variance: float | None = None


def normalize_split(name: str) -> str:
    """``validation``/``valid``/``dev`` -> ``val``, ``testing`` -> ``test``; else lower case."""
    key = name.strip().lower()
    return _SPLITS.get(key, key)


def split_from_path(path: str) -> tuple[str | None, str | None]:
    """The split a path's folders name (``test/kodak/metrics.json`` -> ``test``) and the test
    id after a ``test/`` folder (``kodak``); (None, None) when no folder names a split."""
    folders = path.split("/")[:-1]
    split: str | None = None
    test_id: str | None = None
    for i, folder in enumerate(folders):
        if folder.lower() in _SPLITS:
            split = _SPLITS[folder.lower()]
            test_id = folders[i + 1] if split == "test" and i + 1 < len(folders) else None
    return split, test_id


def read_value(data: bytes, path: str, selector: str, where: str) -> Extracted:
    """Apply ``selector`` to the bytes of the object stored for ``path``.

    ``where`` names the object in messages. Raises `ClaimInputError` (bad bytes, a selector
    that reads as more than one thing, a value that is not a finite number) and
    `MetricNotFoundError` (the selector names nothing; lists what exists).
    """
    selector = selector.strip()
    if not selector:
        raise ClaimInputError("--metric is empty; name a key, e.g. --metric psnr", where=where)
    lower = path.lower()
    if lower.endswith(".json"):
        return _from_json(data, selector, where)
    if lower.endswith(".parquet"):
        return _from_table(_read_parquet(data, where), selector, where, first_line=None)
    if lower.endswith((".csv", ".tsv")):
        return _from_table(_read_csv(data, where, "\t" if lower.endswith(".tsv") else ","),
                           selector, where, first_line=2)
    raise ClaimInputError(
        f"{where}: cannot read a value from a {path.rsplit('/', 1)[-1]!r} file; claims read "
        "*.json (keys), *.parquet, *.csv and *.tsv (aggregates and cells)", where=where)


# --- numbers --------------------------------------------------------------------------------------
def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(value: float, selector: str, where: str) -> float:
    if not math.isfinite(value):
        raise ClaimInputError(f"{selector!r} in {where} is {value}, not a finite number; a "
                              "claim needs a real value", where=where)
    return value


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"an object with keys {', '.join(map(str, list(value)[:10]))}"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    if value is None:
        return "null"
    return f"{value!r} ({type(value).__name__})"


# --- JSON -----------------------------------------------------------------------------------------
Token = str | int


def _pointer(tokens: Sequence[Token]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _child(node: Any, key: str) -> tuple[bool, Any, Token]:
    if isinstance(node, dict):
        return (key in node, node.get(key), key)
    if isinstance(node, list) and _INT_RE.match(key) and not key.startswith("-"):
        index = int(key)
        return (index < len(node), node[index] if index < len(node) else None, index)
    return (False, None, key)


def _by_pointer(doc: Any, pointer: str) -> list[tuple[list[Token], Any]]:
    tokens: list[Token] = []
    node = doc
    for raw in pointer.split("/")[1:]:
        found, node, token = _child(node, raw.replace("~1", "/").replace("~0", "~"))
        if not found:
            return []
        tokens.append(token)
    return [(tokens, node)]


def _by_dots(node: Any, parts: list[str], prefix: list[Token]) -> list[tuple[list[Token], Any]]:
    """Every way of reading ``parts`` as keys (a key may itself hold dots)."""
    if not parts:
        return [(prefix, node)]
    out: list[tuple[list[Token], Any]] = []
    for k in range(1, len(parts) + 1):
        found, child, token = _child(node, ".".join(parts[:k]))
        if found:
            out += _by_dots(child, parts[k:], [*prefix, token])
    return out


def _resolve(doc: Any, key: str) -> list[tuple[list[Token], Any]]:
    if key.startswith("/"):
        return _by_pointer(doc, key)
    return _by_dots(doc, key.split("."), [])


def json_metrics(doc: Any, limit: int = 200) -> list[str]:
    """The selectors a JSON document answers: dotted keys of its numbers, and ``mean(KEY)`` for
    its lists of numbers (a key holding a dot is shown as a JSON pointer)."""
    out: list[str] = []

    def name(tokens: list[Token]) -> str:
        dotted = ".".join(str(t) for t in tokens)
        # A key holding a dot is shown dotted when that still reads one way only.
        if any("." in str(t) for t in tokens) and len(_by_dots(doc, dotted.split("."), [])) != 1:
            return _pointer(tokens)
        return dotted

    def walk(node: Any, tokens: list[Token]) -> None:
        if len(out) >= limit:
            return
        if _is_number(node) and tokens:
            out.append(name(tokens))
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(value, [*tokens, key])
        elif isinstance(node, list) and node and all(_is_number(v) for v in node) and tokens:
            out.append(f"mean({name(tokens)})")
        elif isinstance(node, list):
            for i, value in enumerate(node[:20]):
                walk(value, [*tokens, i])

    walk(doc, [])
    return out


def _near(parent: Any, doc: Any, pick: Callable[[Any], Any]) -> Any:
    """What ``pick`` finds next to the value first, else at the top of the document."""
    for node in (parent, doc):
        if isinstance(node, dict):
            found = pick(node)
            if found is not None:
                return found
    return None


def _n_of(node: dict[str, Any]) -> int | None:
    for key in N_KEYS:
        value = node.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def _seeds_of(node: dict[str, Any]) -> tuple[int, ...] | None:
    seeds = node.get("seeds")
    if isinstance(seeds, list) and seeds and all(
            isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        return tuple(sorted(set(seeds)))
    seed = node.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool):
        return (seed,)
    return None


def _split_of(node: dict[str, Any]) -> str | None:
    split = node.get("split")
    return split if isinstance(split, str) and split.strip() else None


def _spread_of(node: dict[str, Any], leaf: str) -> tuple[str, float] | None:
    for kind, names in _SPREAD:
        for name in names:
            nested = node.get(name)
            candidates: list[Any] = [node.get(f"{leaf}_{name}"),
                                     nested.get(leaf) if isinstance(nested, dict) else None]
            for value in candidates:
                if _is_number(value) and math.isfinite(value) and value >= 0:
                    return kind, float(value)
    return None


def _from_json(data: bytes, selector: str, where: str) -> Extracted:
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ClaimInputError(f"{where} is not valid JSON ({exc})", where=where) from None
    found = _resolve(doc, selector)
    aggregate = _AGG_RE.match(selector) if not found else None
    if aggregate is not None:
        return _json_aggregate(doc, aggregate.group(1), aggregate.group(2), selector, where)
    if not found:
        raise MetricNotFoundError(selector, where, json_metrics(doc))
    if len(found) > 1:
        ways = " or ".join(_pointer(tokens) for tokens, _ in found)
        raise ClaimInputError(f"{selector!r} in {where} is ambiguous: it reads as {ways}; "
                              "name one with a JSON pointer", where=where)
    tokens, value = found[0]
    if isinstance(value, list) and value and all(_is_number(v) for v in value):
        raise ClaimInputError(
            f"{selector!r} in {where} is a list of {len(value)} numbers, not one number; name "
            f"an aggregate, e.g. mean({selector}) (aggregates: {', '.join(AGGREGATES)})",
            where=where)
    if not _is_number(value):
        raise MetricNotFoundError(selector, where, json_metrics(doc),
                                  problem=f"not a number ({_describe(value)})")
    parent = _by_pointer(doc, _pointer(tokens[:-1]))[0][1]
    leaf = next((str(t) for t in reversed(tokens) if isinstance(t, str)), selector)
    spread = _near(parent, doc, lambda node: _spread_of(node, leaf))
    return Extracted(value=_finite(float(value), selector, where), metric=leaf,
                     selector=selector, n=_near(parent, doc, _n_of),
                     split=_near(parent, doc, _split_of),
                     seeds=_near(parent, doc, _seeds_of) or (),
                     variance_type=spread[0] if spread else None,
                     variance=spread[1] if spread else None)


def _json_aggregate(doc: Any, agg: str, key: str, selector: str, where: str) -> Extracted:
    found = _resolve(doc, key)
    if len(found) != 1:
        raise MetricNotFoundError(selector, where, json_metrics(doc))
    tokens, values = found[0]
    if not isinstance(values, list) or not values or not all(_is_number(v) for v in values):
        raise MetricNotFoundError(selector, where, json_metrics(doc),
                                  problem=f"not a list of numbers ({_describe(values)})")
    parent = _by_pointer(doc, _pointer(tokens[:-1]))[0][1]
    leaf = next((str(t) for t in reversed(tokens) if isinstance(t, str)), key)
    numbers = [float(v) for v in values]
    return Extracted(value=_finite(AGGREGATES[agg](numbers), selector, where), metric=leaf,
                     selector=selector, n=len(numbers), split=_near(parent, doc, _split_of),
                     seeds=_near(parent, doc, _seeds_of) or ())


# --- tables ---------------------------------------------------------------------------------------
@dataclass
class _Table:
    columns: dict[str, list[Any]]  # None for an empty cell
    rows: int
    text: bool  # CSV: cells are text until read as numbers


def _read_parquet(data: bytes, where: str) -> _Table:
    import pyarrow as pa  # only here: importing pyarrow costs ~0.2 s
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError) as exc:
        raise ClaimInputError(f"{where} is not a readable Parquet file ({exc})",
                              where=where) from None
    return _Table(columns=table.to_pydict(), rows=table.num_rows, text=False)


def _read_csv(data: bytes, where: str, delimiter: str) -> _Table:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ClaimInputError(f"{where} is not UTF-8 text ({exc})", where=where) from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise ClaimInputError(f"{where} is not valid CSV ({exc})", where=where) from None
    if not rows or not rows[0]:
        raise ClaimInputError(f"{where} has no header row", where=where)
    header = [h.strip() for h in rows[0]]
    body = [r for r in rows[1:] if r]
    for number, row in enumerate(rows[1:], start=2):
        if row and len(row) != len(header):
            raise ClaimInputError(f"{where} line {number}: {len(row)} cell(s) where the header "
                                  f"has {len(header)}", where=where)
    columns = {h: [c.strip() or None for c in col]
               for h, col in zip(header, zip(*body, strict=True) if body else
                                 [() for _ in header], strict=True)}
    return _Table(columns=columns, rows=len(body), text=True)


def _as_number(cell: Any, table: _Table) -> float | None:
    if table.text:
        if cell is None:
            return None
        try:
            return float(cell)
        except ValueError:
            return None
    if _is_number(cell):
        return float(cell)
    return None


def _row_name(table: _Table, index: int, first_line: int | None) -> str:
    return f"row {index}" + (f" (line {index + first_line})" if first_line else "")


def table_metrics(table: _Table) -> list[str]:
    """Columns holding only numbers, each with the aggregate syntax."""
    out = []
    for name, cells in table.columns.items():
        filled = [c for c in cells if c is not None]
        if filled and all(_as_number(c, table) is not None for c in filled):
            out.append(f"mean({name})")
    return out


def _numbers(table: _Table, column: str, rows: Sequence[int], selector: str, where: str,
             first_line: int | None) -> tuple[list[float], list[int]]:
    values: list[float] = []
    used: list[int] = []
    for i in rows:
        cell = table.columns[column][i]
        if cell is None:
            continue
        number = _as_number(cell, table)
        if number is None:
            raise ClaimInputError(
                f"{selector!r} in {where}: {_row_name(table, i, first_line)} of column "
                f"{column!r} is {_describe(cell)}, not a number", where=where)
        values.append(number)
        used.append(i)
    return values, used


def _facts(table: _Table, rows: list[int]) -> tuple[str | None, tuple[int, ...]]:
    """The split and seeds the table's own ``split``/``seed`` columns give for ``rows``."""
    split = None
    if "split" in table.columns:
        names = sorted({str(table.columns["split"][i]) for i in rows
                        if table.columns["split"][i] is not None})
        split = "+".join(names) if names else None
    seeds: set[int] = set()
    for i in rows if "seed" in table.columns else []:
        cell = table.columns["seed"][i]
        if isinstance(cell, int) and not isinstance(cell, bool):
            seeds.add(cell)
        elif isinstance(cell, str) and _INT_RE.match(cell):
            seeds.add(int(cell))
    return split, tuple(sorted(seeds))


def _matches(cell: Any, wanted: str, table: _Table) -> bool:
    if cell is None:
        return False
    if str(cell) == wanted:
        return True
    number = _as_number(cell, table)
    try:
        return number is not None and number == float(wanted)
    except ValueError:
        return False


def _pick_row(table: _Table, row: str, selector: str, where: str,
              first_line: int | None) -> int:
    if _INT_RE.match(row.strip()):
        index = int(row)
        if not -table.rows <= index < table.rows:
            raise ClaimInputError(f"{selector!r} in {where}: row {index} is out of range (the "
                                  f"table has {table.rows} data row(s), numbered from 0)",
                                  where=where)
        return index % table.rows
    key, eq, wanted = row.partition("=")
    key, wanted = key.strip(), wanted.strip()
    if not eq or not key:
        raise ClaimInputError(f"{selector!r}: the row in [...] is a number (psnr[-1]) or "
                              "COLUMN=VALUE (psnr[epoch=100])", where=where)
    if key not in table.columns:
        raise MetricNotFoundError(selector, where, list(table.columns),
                                  problem=f"no column {key!r} to pick a row by")
    hits = [i for i in range(table.rows) if _matches(table.columns[key][i], wanted, table)]
    if len(hits) != 1:
        lines = ", ".join(_row_name(table, i, first_line) for i in hits[:10])
        raise ClaimInputError(f"{selector!r} in {where}: {key}={wanted} matches {len(hits)} "
                              f"rows{': ' + lines if lines else ''}; it must match exactly one",
                              where=where)
    return hits[0]


def _from_table(table: _Table, selector: str, where: str, first_line: int | None) -> Extracted:
    aggregate = _AGG_RE.match(selector)
    cell = _CELL_RE.match(selector) if aggregate is None else None
    if aggregate is None and cell is None:
        hint = f"e.g. mean({selector}) or {selector}[-1]"
        if selector not in table.columns:
            raise MetricNotFoundError(selector, where, table_metrics(table))
        raise ClaimInputError(
            f"{selector!r}: {where} is a table; name an aggregate or a cell, {hint} "
            f"(aggregates: {', '.join(AGGREGATES)})", where=where)
    column = (aggregate.group(2) if aggregate else cell.group(1) if cell else "").strip()
    if column not in table.columns:
        raise MetricNotFoundError(selector, where, table_metrics(table),
                                  problem=f"no column {column!r}")
    if cell is not None:
        index = _pick_row(table, cell.group(2), selector, where, first_line)
        values, _ = _numbers(table, column, [index], selector, where, first_line)
        if not values:
            raise ClaimInputError(f"{selector!r} in {where}: "
                                  f"{_row_name(table, index, first_line)} of column {column!r} "
                                  "is empty", where=where)
        split, seeds = _facts(table, [index])
        n_cell = next((table.columns[k][index] for k in N_KEYS if k in table.columns), None)
        n = int(n_cell) if n_cell is not None and _INT_RE.match(str(n_cell)) else None
        return Extracted(value=_finite(values[0], selector, where), metric=column,
                         selector=selector, n=n, split=split, seeds=seeds)
    assert aggregate is not None
    agg = aggregate.group(1)
    if agg == "count":
        used = [i for i in range(table.rows) if table.columns[column][i] is not None]
        values = [1.0] * len(used)
    else:
        values, used = _numbers(table, column, range(table.rows), selector, where, first_line)
    if not values:
        raise ClaimInputError(f"{selector!r} in {where}: column {column!r} has no values",
                              where=where)
    split, seeds = _facts(table, used)
    variance = None
    if agg == "mean" and len(seeds) >= 2 and len(seeds) == len(values):
        variance = statistics.stdev(values)  # one row per seed: the spread over seeds
    return Extracted(value=_finite(AGGREGATES[agg](values), selector, where), metric=column,
                     selector=selector, n=len(values), split=split, seeds=seeds,
                     variance_type="std" if variance is not None else None, variance=variance)
