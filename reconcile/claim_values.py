"""Reading a claimed value out of the bytes of a stored result object.

A claim's value is never typed by hand: `read_value` parses the object's bytes (as stored in the
CAS) and applies a **selector**, the text given to ``labledger claim add --metric``:

JSON (``metrics.json``, any ``*.json``)
    ``test.psnr``      dotted keys; a key that itself holds dots (``mAP@0.5``) is found too, and a
                       selector that reads two ways is refused as ambiguous
    ``/test/psnr``     a JSON pointer (RFC 6901; ``~1`` is ``/``, ``~0`` is ``~``)
    ``mean(per_image.psnr)``  an aggregate over a list of numbers
Tables (``results.parquet``, ``*.csv``, ``*.tsv``; JSON records, below)
    ``mean(psnr)``     an aggregate over the column's non-empty cells, in row order
    ``psnr[-1]``       one cell: data row I of the table (0-based; negative counts from the end),
                       whichever column is read; an empty cell there is refused, naming the row
                       that holds the column's last value (``last(psnr)`` reads it)
    ``psnr[epoch=100]``  one cell: the one row whose column ``epoch`` reads ``100``; several
                       conditions, comma-separated, all hold (``value[metric=psnr,split=test]``);
                       of several rows they pick, those whose ``psnr`` cell is empty are passed
                       over (a sparse log has a training and an evaluation row per epoch), and
                       rows saying the same of it (value, n, split, seeds, spread) are one
    ``mean(psnr[split=test])``  an aggregate over the rows the conditions pick
JSON records (`json_records`): a file of one JSON object per line (``*.jsonl``, ``*.ndjson``,
or a ``*.json`` that JSON itself finds "extra data" in: detectron2's ``metrics.json``,
mmengine's ``scalars.json``) is a table, each line a row, its keys (nested ones joined with a
dot; the metric is the last key) the columns, a missing key an empty cell; so is a list of
objects in a JSON document,
named before the column: ``max(log_history.eval_accuracy)``,
``log_history.eval_accuracy[epoch=3.0]`` (the document itself, when it is such a list: what
``df.to_json(orient="records")`` writes). A column a record gives twice is refused where read.

A long table (one ``value`` column; ``metric``/``variable`` names each row's quantity, ``statistic``
its statistic) is read by conditions, and the claim's metric is the quantity they pick; an
aggregate mixing quantities or statistics there is refused, and so is one over a ``describe()``
saved without its labels (`_unlabelled_describe`).

Aggregates: ``mean median min max sum count first last`` (``count`` counts non-empty cells of any
column). Every value read must be a finite number: a NaN or infinity (or a JSON integer too large
for a float) is refused where it is, for a single value and inside anything an aggregate reads;
a sum that does not fit a float is refused too. A name the file gives twice (a repeated JSON key,
a repeated column in the header) is refused as ambiguous when it is read.

Besides the value, what the object itself says about it is read too, never guessed: ``n``
(samples behind the value: an ``n``-like key, or ``eval_samples`` beside ``eval_accuracy``), the
split it was evaluated on (a ``split`` key or column, else the keys on the way to the value or
the column's name: ``val.psnr``, ``test_psnr``; ``eval_`` names none), seeds (``seed``/``seeds``
keys, a ``seed`` column) and a reported spread (``psnr_std``, ``std: {psnr: ...}``,
``psnr_sem``, the ``std`` beside ``{"mean": ...}``, a ``psnr_std`` column in a cell's row; for
the mean of a table with one row per seed, the sample standard deviation over those rows). An
lm-evaluation-harness ``results.TASK.acc,none`` reads its ``acc_stderr,none`` (sem), the task's
``n-samples`` and its config's test (else validation) split (`_harness_facts`).

The metric is the last key or the column, unless that key is a statistic of the key above it
(``psnr.mean`` reads metric ``psnr``, `metric_name`), or the file names it otherwise
(``acc`` for lm-evaluation-harness's ``acc,none``, ``BLEU`` for sacrebleu's ``score`` beside
``"name": "BLEU"``: `_named_metric`). A float32 or float16 Parquet cell is read
as the shortest decimal that is that float (``31.52``, not 31.520000457763672 or 31.515625), and
an aggregate reads those decimals.

Summary tables (``df.describe()``: a column of row labels count, mean, std, min, 25%, 50%, 75%,
max, one column per quantity; or its transpose, one row per quantity, one column per statistic;
`_summary` says which tables are) are not tables of runs: a selector names a quantity and one of
its statistics, ``psnr.mean``, ``mean(psnr)``, ``psnr[mean]``, or a cell (``psnr[1]``,
``mean[0]``). The metric is the quantity; the ``count`` is ``n``; a mean's spread is the ``std``
(else ``sem``) beside it; a count or a spread read as the value is ``count(psnr)``,
``std(psnr)``. A quantity or a statistic alone (``psnr``, ``mean``, ``mean(mean)``) is refused as
ambiguous, listing the ``QUANTITY.STATISTIC`` selectors that read.

Errors are `ClaimInputError`s naming the selector and ``where`` (run, path, digest) and the place
in the object (JSON pointer; row, line and column); a selector that is none of the forms above
("bad selector") says what the forms are; a well-formed selector that names nothing raises
`MetricNotFoundError` listing the metrics that do exist.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re
import statistics
import struct
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from labledger.ledger._words import counted
from labledger.reconcile._text import decode_text, undecodable
from labledger.reconcile.errors import ClaimInputError, MetricNotFoundError
from labledger.reconcile.json_records import (
    RecordColumns,
    RecordsError,
    is_record_list,
    parse_json_lines,
    records_columns,
)
from labledger.reconcile.metric_directions import PERCENTILE, direction_of, summary_stat

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
# Aggregates whose value is one of the values read (an epoch's, a seed's), not a combination of
# them: the count of values is not the samples behind it (``n``), that row's own ``n`` is.
_PICKS = frozenset({"first", "last", "min", "max"})
_CELL_RE = re.compile(r"^(.+)\[(.+)\]$")
_INT_RE = re.compile(r"^-?\d+$")
_NAME_RE = re.compile(r"^\s*[A-Za-z_][\w.\-/]*\s*$")  # a column a condition names
_CALL_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(")
# lm-evaluation-harness names a value METRIC,FILTER ("acc,none", "exact_match,strict-match")
# and its standard error METRIC_stderr,FILTER.
_FILTERED = re.compile(r"^(?P<metric>[^,\s]+),(?P<filter>[^,\s]+)$")
# A row named before the column of a list of records: log_history[epoch=3.0].eval_accuracy
_ROW_FIRST = re.compile(r"^(?P<list>[^\[\]]+)\[(?P<row>[^\[\]]+)\]\.(?P<column>[^\[\]]+)$")
FORMS = ("a selector is a dotted key (test.psnr) or a JSON pointer (/test/psnr), "
         f"{'|'.join(AGGREGATES)}(KEY or COLUMN), or, in a table, COLUMN[-1] (a data row, "
         "0-based) or COLUMN[KEY=VALUE] (the one row whose column KEY reads VALUE)")
N_KEYS = ("n", "num_samples", "n_samples", "num_images", "n_images", "count")
_SPREAD = (("std", ("std", "sd")), ("sem", ("sem", "stderr", "se")))
_SPLITS = {"test": "test", "testing": "test", "val": "val", "valid": "val", "validation": "val",
           "dev": "val", "train": "train", "training": "train"}
TABLE_SUFFIXES = (".parquet", ".csv", ".tsv")
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")  # always JSON lines; a *.json file may be too


@dataclass(frozen=True)
class Extracted:
    """A value read from an object, and what the object says about it."""

    value: float
    metric: str  # the metric's own name (the last key, or the one above a `mean`; the column)
    selector: str
    n: int | None = None
    split: str | None = None  # the split the object says it was evaluated on
    seeds: tuple[int, ...] = ()
    variance_type: str | None = None  # "std" | "sem"
    variance: float | None = None
    aggregate: str | None = None  # the aggregate applied (mean, count, ...), None for one value

    @property
    def claimed_metric(self) -> str:
        """The metric a claim on this value is about: ``metric``, except that a count is not
        the quantity it counts (``count(psnr)`` is 24 images, not a PSNR of 24), nor a spread
        read from a summary table the quantity it spreads (``std(psnr)``)."""
        return f"{self.aggregate}({self.metric})" if self.aggregate in _OF_STATS else self.metric


def normalize_split(name: str) -> str:
    """``validation``/``valid``/``dev`` -> ``val``, ``testing`` -> ``test``; else lower case."""
    key = name.strip().lower()
    return _SPLITS.get(key, key)


def split_from_path(path: str) -> tuple[str | None, str | None]:
    """The split a path's folders name (``test/kodak/metrics.json`` -> ``test``; the innermost
    such folder) and the test id, the folder after the last ``test/`` folder (``kodak``; in
    ``test/val/metrics.json`` the test id is ``val``, and so is the split); None for either when
    no folder names it."""
    folders = path.split("/")[:-1]
    split: str | None = None
    test_id: str | None = None
    for i, folder in enumerate(folders):
        name = _SPLITS.get(folder.lower())
        if name is not None:
            split = name
        if name == "test" and i + 1 < len(folders):
            test_id = folders[i + 1]
    return split, test_id


def _split_in(name: str) -> str | None:
    """The split a key or column name spells with one of its words (``val``, ``val_psnr``,
    ``test/acc``, ``psnr-validation``); None when it names none, or two (``train_val_gap``)."""
    found = {_SPLITS[w] for w in re.split(r"[^a-z]+", name.lower()) if w in _SPLITS}
    return found.pop() if len(found) == 1 else None


def _key_split(tokens: Sequence[Token]) -> str | None:
    """The split the keys on the way to a value name, the innermost first: ``val.psnr``,
    ``/results/test_psnr`` and the column ``val_psnr`` say where the value was evaluated as
    plainly as a split folder does. A key naming two splits stops the search (unknown)."""
    for token in reversed(tokens):
        if not isinstance(token, str):
            continue
        words = {w for w in re.split(r"[^a-z]+", token.lower()) if w in _SPLITS}
        if words:
            return _split_in(token)
    return None


# A key that names a statistic of a metric, not the metric: in {"psnr": {"mean": 31.5,
# "std": 0.1}} the metric is psnr. A claim's metric names it in documents and picks its
# direction, so "mean" or "best" would anchor every "mean" in the prose and know no direction.
_STAT_KEYS = frozenset({"mean", "avg", "average", "median", "value", "values", "best", "final",
                        "last", "min", "max"})
# Of those, the ones whose sibling std/sem (``{"mean": ..., "std": ...}``) is the value's spread.
_MEAN_KEYS = frozenset({"mean", "avg", "average", "value"})
# psnr_mean / psnr-avg / psnr/mean and mean_psnr: the spread sits at psnr_std, std_psnr (the
# same separator).
_MEAN_SUFFIX = re.compile(r"^(?P<base>.+?)(?P<sep>[_\-/])(?:mean|avg|average)$", re.IGNORECASE)
_MEAN_PREFIX = re.compile(r"^(?:mean|avg|average)(?P<sep>[_\-/])(?P<base>.+)$", re.IGNORECASE)


def metric_name(tokens: Sequence[Token], fallback: str) -> str:
    """The metric a path of keys reads: its last key, unless that is a statistic (``mean``,
    ``best``, ...) of the key above it (``psnr.mean`` -> ``psnr``; a split key above it, as in
    ``test.mean``, is no metric name and is passed over)."""
    names = [t for t in tokens if isinstance(t, str)]
    if not names:
        return fallback
    if names[-1].lower() in _STAT_KEYS:
        for name in reversed(names[:-1]):
            if name.lower() not in _STAT_KEYS and name.strip().lower() not in _SPLITS:
                return name
    return names[-1]


def _spread_keys(leaf: str) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """Where a spread of the value named ``leaf`` may be: flat sibling keys ``(kind, key)``
    (``psnr_std``; for ``psnr_mean`` also ``psnr_std``, for ``mean_psnr`` ``std_psnr``) and
    nested ones ``(kind, object, key)`` (``std: {psnr: ...}``), std before sem; for an
    lm-evaluation-harness ``acc,none`` also ``acc_stderr,none``."""
    suffix, prefix = _MEAN_SUFFIX.match(leaf), _MEAN_PREFIX.match(leaf)
    filtered = _FILTERED.match(leaf)
    flat: list[tuple[str, str]] = []
    nested: list[tuple[str, str, str]] = []
    for kind, names in _SPREAD:
        for name in names:
            flat.append((kind, f"{leaf}_{name}"))
            if filtered:  # acc,none -> acc_stderr,none
                flat.append((kind, f"{filtered['metric']}_{name},{filtered['filter']}"))
            if suffix:
                flat.append((kind, f"{suffix['base']}{suffix['sep']}{name}"))
            if prefix:
                flat.append((kind, f"{name}{prefix['sep']}{prefix['base']}"))
            nested.append((kind, name, leaf))
            for base in (m["base"] for m in (suffix, prefix) if m):
                nested.append((kind, name, base))
    return flat, nested


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
    if lower.endswith(JSON_LINES_SUFFIXES):
        return _from_table(_read_json_lines(data, where), selector, where)
    if lower.endswith(".parquet"):
        return _from_table(_read_parquet(data, where), selector, where)
    if lower.endswith((".csv", ".tsv")):
        return _from_table(_read_csv(data, where, "\t" if lower.endswith(".tsv") else ","),
                           selector, where)
    raise ClaimInputError(
        f"{where}: cannot read a value from a {path.rsplit('/', 1)[-1]!r} file; claims read "
        "*.json (keys), *.jsonl, *.ndjson, *.parquet, *.csv and *.tsv (aggregates and cells)",
        where=where)


# --- numbers --------------------------------------------------------------------------------------
def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class _HugeInt(float):
    """A JSON integer too large for a float: ±inf as a number (so it is never finite), with its
    length kept for the message that refuses it."""

    digits: int

    def __new__(cls, text: str) -> _HugeInt:
        huge = super().__new__(cls, "-inf" if text.startswith("-") else "inf")
        huge.digits = len(text.lstrip("-"))
        return huge


def _parse_int(text: str) -> int | float:
    """A JSON integer as an ``int`` when it converts to a float, else a `_HugeInt`.

    Not plain ``int``: it refuses texts over 4300 digits (``sys.get_int_max_str_digits``), which
    would make a valid file "not valid JSON" and block every claim on it; and an int past
    ~1.8e308 would raise OverflowError wherever it meets a float. Such a number is refused only
    where a selector reads it. JSON has no leading zeros, so the digits give the magnitude: 310 and
    more are past the largest float, and ``int`` is never asked for them.
    """
    if len(text.lstrip("-")) > 309:
        return _HugeInt(text)
    number = int(text)
    try:
        float(number)
    except OverflowError:
        return _HugeInt(text)
    return number


def _shown(value: float) -> str:
    return _describe(value) if isinstance(value, _HugeInt) else str(value)


def _finite(value: float, selector: str, where: str, place: str = "") -> float:
    """``value`` as a float; refused unless finite. ``place`` says where it is (`` (/a/0)``)."""
    if not math.isfinite(value):
        raise ClaimInputError(f"{selector!r} in {where}{place} is {_shown(value)}, not a finite "
                              "number; a claim needs a real value", where=where)
    return float(value)


def _exact(agg: str, values: list[float]) -> float:
    """``agg`` (sum, mean, median) in exact arithmetic, rounded once at the end; raises
    OverflowError when the result itself does not fit a float."""
    assert agg in ("sum", "mean", "median"), agg  # the others cannot leave finite values
    exact = sorted(Fraction(v) for v in values)
    if agg == "median":
        mid = len(exact) // 2
        return float(exact[mid] if len(exact) % 2 else (exact[mid - 1] + exact[mid]) / 2)
    total = sum(exact, Fraction(0))
    return float(total / len(exact) if agg == "mean" else total)


def _aggregate(agg: str, values: list[float]) -> float:
    """``AGGREGATES[agg]`` over finite ``values``; raises OverflowError when the value does not
    fit a float.

    Finite values can still overflow on the way: ``fsum`` raises on an intermediate sum
    (1e308 + 1e308 - 1e308) and median's ``(a + b) / 2`` gives inf for two values near the top.
    Only then (the common path stays bit-for-bit what it was, so re-declaring a claim over the
    same object stays ``unchanged``) the value is computed exactly: a mean or median of finite
    values always fits a float; a sum that truly does not is refused by the caller.
    """
    try:
        result = AGGREGATES[agg](values)
    except OverflowError:
        result = math.inf
    return result if math.isfinite(result) else _exact(agg, values)


def _listing(available: list[str]) -> str:
    more = f", and {len(available) - 40} more" if len(available) > 40 else ""
    return ", ".join(available[:40]) + more if available else "nothing"


def _malformed(selector: str) -> str | None:
    """What is wrong with a selector that reads as no aggregate and no cell, said in a few
    words; None when it writes no ``(`` ``)`` ``[`` ``]`` (it is just a name, and not found)."""
    call = _CALL_RE.match(selector)
    if call is not None:
        name, inner = call.group(1), selector[call.end():]
        if name not in AGGREGATES:
            return f"{name}(...) is not an aggregate"
        if not inner.endswith(")"):
            return f"{name}( is not closed by a final )"
        return f"{name}() names no column or key" if not inner[:-1].strip() else None
    if "[" in selector or "]" in selector:
        column, bracket, row = selector.partition("[")
        if not bracket:
            return "] without ["
        if not row.endswith("]"):
            return f"{column}[ is not closed by a final ]"
        if not column.strip():
            return "[...] follows no column"
        return f"{column}[] names no row" if not row[:-1].strip() else None
    if "(" in selector or ")" in selector:
        return "( and ) only follow an aggregate's name"
    return None


def _bad_selector(selector: str, where: str, problem: str, has: str) -> ClaimInputError:
    return ClaimInputError(f"{selector!r} in {where}: bad selector: {problem}; {FORMS}; {has}; "
                           "nothing was written", where=where)


def _describe(value: Any) -> str:
    if isinstance(value, _HugeInt):
        return f"an integer of {value.digits} digits, too large for a float"
    if isinstance(value, dict):
        return f"an object with keys {', '.join(map(str, list(value)[:10]))}"
    if isinstance(value, list):
        return f"a list of {counted(len(value), 'item')}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    if value is None:
        return "null"
    if isinstance(value, bool):  # as the JSON file writes it, not Python's True
        return f"the JSON value {'true' if value else 'false'}"
    return f"{value!r} ({type(value).__name__})"


# --- JSON -----------------------------------------------------------------------------------------
Token = str | int


class _Object(dict[str, Any]):
    """A JSON object as parsed: a key the text gives more than once keeps its last value (as
    `json` does), and ``repeated`` counts those keys, so that reading one is refused instead."""

    repeated: dict[str, int]


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)
    obj.repeated = {}
    if len(obj) != len(pairs):
        obj.repeated = {k: c for k, c in Counter(k for k, _ in pairs).items() if c > 1}
    return obj


def _refuse_repeated(node: Any, key: Token, selector: str, where: str, at: str) -> None:
    if isinstance(node, _Object) and isinstance(key, str) and key in node.repeated:
        raise ClaimInputError(
            f"{selector!r} in {where} is ambiguous: the object at {at or '/ (the top)'} gives "
            f"key {key!r} {node.repeated[key]} times; JSON does not say which one counts, so "
            "keep one; nothing was written", where=where)


def _unrepeated(doc: Any, tokens: Sequence[Token], selector: str, where: str) -> None:
    """Refuse when a key on the path ``tokens`` is one its object gives more than once
    (repeats elsewhere in the document do not matter to this selector)."""
    node = doc
    for i, token in enumerate(tokens):
        _refuse_repeated(node, token, selector, where, _pointer(tokens[:i]))
        node = node[token]


def _facts_unrepeated(doc: Any, parent: Sequence[Token], leaf: str | None, selector: str,
                      where: str) -> None:
    """Refuse when a key the facts may be read from, next to the value (in the object at
    ``parent``) or at the top, is repeated: what they say goes into the claim too. Every claim
    reads `_split_of` and `_seeds_of`; a single value (``leaf`` its name) also `_n_of` and
    `_spread_of`, an aggregate (``leaf`` None) neither."""
    spread = [name for _, names in _SPREAD for name in names] if leaf is not None else []
    flat, nested_keys = _spread_keys(leaf) if leaf is not None else ([], [])
    keys = ["seeds", "seed", "split", *(_n_keys(leaf) if leaf is not None else ()), *spread,
            *(key for _, key in flat)]
    for tokens in (parent, []):
        node = _by_pointer(doc, _pointer(tokens))[0][1]
        for key in keys:
            _refuse_repeated(node, key, selector, where, _pointer(tokens))
        for _, name, key in nested_keys:
            nested = node.get(name) if isinstance(node, dict) else None
            _refuse_repeated(nested, key, selector, where, _pointer([*tokens, name]))


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
    """The selectors a JSON document answers: dotted keys of its finite numbers, and
    ``mean(KEY)`` for its lists of finite numbers; a JSON pointer where the dotted form would
    not read one way (a key holding a dot, or ``a.b`` next to ``{"a": {"b": ...}}``)."""
    out: list[str] = []

    def name(tokens: list[Token]) -> str:
        dotted = ".".join(str(t) for t in tokens)
        # Shown dotted when that reads one way only (not when a key holds a dot, nor when the
        # document has both {"a": {"b": ...}} and "a.b"): a listed selector is one that works.
        if dotted.startswith("/") or len(_by_dots(doc, dotted.split("."), [])) != 1:
            return _pointer(tokens)
        return dotted

    def finite(value: Any) -> bool:
        return _is_number(value) and math.isfinite(value)

    def walk(node: Any, tokens: list[Token]) -> None:
        if len(out) >= limit:
            return
        if _is_number(node):
            if tokens and math.isfinite(node):  # a NaN is there, but no claim can read it
                out.append(name(tokens))
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(value, [*tokens, key])
        elif isinstance(node, list) and node and all(_is_number(v) for v in node):
            if tokens and all(finite(v) for v in node):
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


def _n_keys(leaf: str | None) -> list[str]:
    """The keys that may give ``n`` for the value named ``leaf``: ``PREFIX_samples`` for a
    ``PREFIX_...`` value (Hugging Face's ``eval_samples`` beside ``eval_accuracy``,
    ``train_samples`` beside ``train_loss``), then `N_KEYS`."""
    prefix = leaf.split("_", 1)[0] if leaf is not None and "_" in leaf else ""
    return [f"{prefix}_samples", *N_KEYS] if prefix else list(N_KEYS)


def _n_of(node: dict[str, Any], leaf: str | None = None) -> int | None:
    for key in _n_keys(leaf):
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


def _spread_of(node: dict[str, Any], leaf: str, beside: bool = False) -> tuple[str, float] | None:
    """The spread ``node`` reports for the value named ``leaf`` (see `_spread_keys`); with
    ``beside`` (``node`` holds the value under a mean-like key: ``{"mean": ..., "std": ...}``)
    also its plain ``std``/``sem`` keys."""
    flat, nested = _spread_keys(leaf)
    for kind, names in _SPREAD:
        candidates: list[Any] = [node.get(key) for k, key in flat if k == kind]
        for k, name, key in nested:
            inner = node.get(name)
            if k == kind and isinstance(inner, dict):
                candidates.append(inner.get(key))
        if beside:
            candidates += [node.get(name) for name in names]
        for value in candidates:
            if _is_number(value) and math.isfinite(value) and value >= 0:
                return kind, float(value)
    return None


def _split_near(parent: Any, doc: Any, tokens: Sequence[Token]) -> str | None:
    """The split a value was evaluated on, as the object says it: a ``split`` key next to it
    in a nested object, else the keys on its path (`_key_split`), else a ``split`` key at the
    top (which speaks for the whole file: ``val_psnr`` beside ``"split": "test"`` is val)."""
    beside = _split_of(parent) if isinstance(parent, dict) and parent is not doc else None
    for found in (beside, _key_split(tokens), (_split_of(doc) if isinstance(doc, dict) else None)):
        if found is not None:
            return found
    return None


def _one(doc: Any, found: list[tuple[list[Token], Any]], selector: str,
         where: str) -> tuple[list[Token], Any]:
    """The one reading (path, value) of a key found; refused when it reads more than one way or
    walks through a key its object gives more than once."""
    if len(found) > 1:
        ways = " or ".join(_pointer(tokens) for tokens, _ in found)
        raise ClaimInputError(f"{selector!r} in {where} is ambiguous: it reads as {ways}; "
                              "name one with a JSON pointer", where=where)
    _unrepeated(doc, found[0][0], selector, where)
    return found[0]


def _at(tokens: Sequence[Token], selector: str) -> str:
    pointer = _pointer(tokens)
    return "" if pointer == selector else f" (at {pointer})"


def _json_loads(text: str) -> Any:
    """``text`` parsed as JSON the way every claim reads it: repeated keys kept countable
    (`_Object`), integers too large for a float kept refusable (`_parse_int`)."""
    return json.loads(text, object_pairs_hook=_object, parse_int=_parse_int)


def _empty(data: bytes, where: str) -> str:
    size = f"{len(data)} bytes of whitespace" if data else "0 bytes"
    return (f"{where} is empty ({size}): there is no value to read (a results file saved "
            "over a failed write, or before the evaluation finished?)")


def _json_text(data: bytes, where: str, what: str = "JSON") -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ClaimInputError(f"{where} is not valid {what} ({exc})", where=where) from None


def _records_table(records: RecordColumns, tokens: Sequence[Token] | None = None) -> _Table:
    """Records (`json_records`) as a table; ``tokens`` is where the list is in a JSON document
    (None for a JSON lines file, whose rows are named by their lines)."""
    return _Table(columns=records.columns, rows=records.rows, text=False, lines=records.lines,
                  ambiguous=records.ambiguous, keys=records.keys, records=True,
                  pointer=None if tokens is None else _pointer(tokens),
                  prefix="".join(f"{t}." for t in tokens or ()))


def _json_lines_table(text: str) -> _Table:
    """A JSON lines text as a table; raises `RecordsError`."""
    lines = parse_json_lines(text, _json_loads)
    return _records_table(records_columns([record for _, record in lines],
                                          [number for number, _ in lines]))


def _read_json_lines(data: bytes, where: str) -> _Table:
    """A ``*.jsonl``/``*.ndjson`` file: one JSON object per line, always a table (one line
    too)."""
    try:
        return _json_lines_table(_json_text(data, where, "JSON lines"))
    except RecordsError as exc:
        raise ClaimInputError(f"{where} is not valid JSON lines: {exc}", where=where) from None


def _load_json(data: bytes, where: str) -> Any:
    """The document in a ``*.json`` file, or, when the file holds one JSON object per line (a
    detectron2 ``metrics.json``, an mmengine ``scalars.json``: JSON itself says "extra data"
    after the first), those lines as a `_Table`."""
    if not data or data.isspace():  # a parser's "Expecting value: line 1 column 1" says less
        raise ClaimInputError(_empty(data, where), where=where)
    text = _json_text(data, where)
    try:
        return _json_loads(text)
    except RecursionError:
        raise ClaimInputError(f"{where} is nested too deeply to read (a results file nests "
                              "a few levels)", where=where) from None
    except ValueError as exc:
        if not (isinstance(exc, json.JSONDecodeError) and exc.msg == "Extra data"):
            raise ClaimInputError(f"{where} is not valid JSON ({exc})", where=where) from None
        try:
            return _json_lines_table(text)
        except RecordsError as lines_error:
            raise ClaimInputError(f"{where} is not valid JSON ({exc}), nor JSON lines "
                                  f"({lines_error})", where=where) from None


def _from_json(data: bytes, selector: str, where: str) -> Extracted:
    doc = _load_json(data, where)
    if isinstance(doc, _Table):
        return _from_table(doc, selector, where)
    # A key is looked up first: JSON keys may hold anything, "mean(x)" and "a[0]" included.
    found = _resolve(doc, selector)
    if not found and not selector.startswith("/"):
        embedded = _record_list_read(doc, selector, where)
        if embedded is not None:
            return embedded
    aggregate = _AGG_RE.match(selector) if not found else None
    if aggregate is not None:
        return _json_aggregate(doc, aggregate.group(1), aggregate.group(2).strip(), selector,
                               where)
    if not found:
        if not selector.startswith("/"):  # a pointer is keys only; nothing in it is syntax
            _refuse_record_list_name(doc, selector, where)
            cell = _CELL_RE.match(selector)
            problem = (f"{cell.group(1)}[...] picks a row of a table; in JSON name a list item "
                       f"by its index ({cell.group(1)}.0 or /{cell.group(1)}/0)" if cell
                       else _row_before_column(doc, selector) or _malformed(selector))
            if problem is not None:
                raise _bad_selector(selector, where, problem,
                                    f"it has: {_listing(json_metrics(doc))}")
        raise MetricNotFoundError(selector, where, json_metrics(doc))
    tokens, value = _one(doc, found, selector, where)
    if isinstance(value, list) and value and all(_is_number(v) for v in value):
        raise ClaimInputError(
            f"{selector!r} in {where} is a list of {counted(len(value), 'number')}, not one "
            f"number; name an aggregate, e.g. mean({selector}) (aggregates: "
            f"{', '.join(AGGREGATES)})",
            where=where)
    if not _is_number(value):
        raise MetricNotFoundError(selector, where, json_metrics(doc),
                                  problem=f"not a number ({_describe(value)})")
    number = _finite(value, selector, where, _at(tokens, selector))
    parent = _by_pointer(doc, _pointer(tokens[:-1]))[0][1]
    leaf = next((str(t) for t in reversed(tokens) if isinstance(t, str)), selector)
    _facts_unrepeated(doc, tokens[:-1], leaf, selector, where)
    spread = (_spread_of(parent, leaf, beside=leaf.lower() in _MEAN_KEYS)
              if isinstance(parent, dict) else None)
    if spread is None and isinstance(doc, dict):
        spread = _spread_of(doc, leaf)
    harness_n, harness_split = _harness_facts(doc, tokens)
    return Extracted(value=number, metric=_named_metric(doc, parent, tokens, leaf),
                     selector=selector,
                     n=harness_n if harness_n is not None else _near(
                         parent, doc, lambda node: _n_of(node, leaf)),
                     split=harness_split or _split_near(parent, doc, tokens),
                     seeds=_near(parent, doc, _seeds_of) or (),
                     variance_type=spread[0] if spread else None,
                     variance=spread[1] if spread else None)


def _is_harness_result(doc: Any, tokens: Sequence[Token]) -> bool:
    """Whether ``tokens`` is ``results/TASK/KEY`` of an lm-evaluation-harness results file (it
    also has ``n-samples`` or ``configs`` by task)."""
    return (isinstance(doc, dict) and len(tokens) == 3 and tokens[0] == "results"
            and isinstance(tokens[1], str)
            and any(isinstance(doc.get(key), dict) for key in ("n-samples", "configs")))


def _harness_facts(doc: Any, tokens: Sequence[Token]) -> tuple[int | None, str | None]:
    """(n, split) an lm-evaluation-harness results file gives for ``results.TASK.KEY``: n is
    ``n-samples.TASK.effective`` (the documents scored, after ``--limit``); the split is the
    task config's ``test_split``, else its ``validation_split`` (the harness scores the test
    documents when a task has them). (None, None) for any other value, or what is not there."""
    if not _is_harness_result(doc, tokens):
        return None, None
    task = tokens[1]
    samples = doc.get("n-samples")
    entry = samples.get(task) if isinstance(samples, dict) else None
    effective = entry.get("effective") if isinstance(entry, dict) else None
    n = (effective if isinstance(effective, int) and not isinstance(effective, bool)
         and effective >= 0 else None)
    configs = doc.get("configs")
    config = configs.get(task) if isinstance(configs, dict) else None
    splits = [config.get(key) for key in ("test_split", "validation_split")
              if isinstance(config, dict)]
    split = next((s for s in splits if isinstance(s, str) and s.strip()), None)
    return n, split


def _named_metric(doc: Any, parent: Any, tokens: Sequence[Token], leaf: str) -> str:
    """The metric a JSON value is a value of: `metric_name`, except where the file names it
    otherwise: an lm-evaluation-harness ``results.TASK.acc,none`` is ``acc`` (the filter is
    in the selector); a ``score`` beside a ``name`` that is a known metric (sacrebleu's
    ``{"name": "BLEU", "score": 20.8}``) is that name. A ``name`` the direction registry does not
    know may be a model's or a dataset's: the metric stays ``score``."""
    name = metric_name(tokens, leaf)
    filtered = _FILTERED.match(name)
    if filtered is not None and _is_harness_result(doc, tokens):
        return filtered["metric"]
    named = parent.get("name") if isinstance(parent, dict) and leaf == "score" else None
    if isinstance(named, str) and direction_of(named.strip()) is not None:
        return named.strip()
    return name


# --- lists of records in a JSON document (trainer_state.json's log_history) ---------------------
def _table_parts(selector: str) -> tuple[str | None, str, str | None] | None:
    """(aggregate, name, row) of a table selector: ``max(NAME)``, ``NAME[ROW]``,
    ``mean(NAME[ROW])``; None for a name alone."""
    aggregate = _AGG_RE.match(selector)
    inner = aggregate.group(2).strip() if aggregate else selector
    cell = _CELL_RE.match(inner)
    if aggregate is None and cell is None:
        return None
    return (aggregate.group(1) if aggregate else None,
            cell.group(1).strip() if cell else inner, cell.group(2) if cell else None)


def _record_lists(doc: Any, name: str) -> list[tuple[list[Token], Any, str]]:
    """Every way of reading the dotted ``name`` as a list of records (`json_records`) and one
    of its columns, as (path to the list, the list, column): ``log_history.eval_accuracy`` is
    the column ``eval_accuracy`` of the list ``log_history``; in a document that is itself a
    list of records (``df.to_json(orient="records")``) the whole name is the column."""
    parts = name.split(".")
    return [(tokens, node, ".".join(parts[k:])) for k in range(len(parts))
            for tokens, node in _by_dots(doc, parts[:k], []) if is_record_list(node)]


def _record_list_read(doc: Any, selector: str, where: str) -> Extracted | None:
    """A table selector on a list of records in the document, read as on any table
    (``max(log_history.eval_accuracy)``, ``log_history.eval_accuracy[epoch=3.0]``); None when
    the selector is no table selector or names no such list."""
    parts = _table_parts(selector)
    lists = _record_lists(doc, parts[1]) if parts is not None else []
    if parts is None or not lists:
        return None
    if len(lists) > 1:
        ways = " or ".join(f"column {column!r} of {_pointer(tokens) or '/ (the top)'}"
                           for tokens, _, column in lists)
        raise ClaimInputError(f"{selector!r} in {where} is ambiguous: it reads as {ways}; "
                              "nothing was written", where=where)
    agg, _, row = parts
    tokens, records, column = lists[0]
    _unrepeated(doc, tokens, selector, where)
    _facts_unrepeated(doc, tokens[:-1], None, selector, where)
    inner = column if row is None else f"{column}[{row}]"
    table = _records_table(records_columns(records), tokens)
    got = _from_table(table, selector, where, parsed=f"{agg}({inner})" if agg else inner)
    # What the document says around the list, where its records say nothing: the split the
    # keys on the way name, a split or the seeds at the top.
    top = doc if isinstance(doc, dict) else {}
    return dataclasses.replace(got, split=got.split or _key_split(tokens) or _split_of(top),
                               seeds=got.seeds or _seeds_of(top) or ())


def _refuse_record_list_name(doc: Any, selector: str, where: str) -> None:
    """A column of a list of records named alone (``log_history.eval_accuracy``) names one
    value per record: refused, saying how to name one."""
    for tokens, records, column in _record_lists(doc, selector):
        if column in records_columns(records).columns:
            raise ClaimInputError(
                f"{selector!r} in {where}: {_pointer(tokens) or 'the document'} is a list of "
                f"records, read as a table, and {column!r} is one of its columns; name an "
                f"aggregate or a cell, e.g. last({selector}), max({selector}) or "
                f"{selector}[KEY=VALUE] (aggregates: {', '.join(AGGREGATES)})", where=where)


def _row_before_column(doc: Any, selector: str) -> str | None:
    """What is wrong with ``log_history[epoch=3.0].eval_accuracy``: in a list of records, as
    in any table, the column comes before the row. None for any other selector."""
    match = _ROW_FIRST.match(selector)
    if match is None or not any(is_record_list(node) for _, node in
                                _by_dots(doc, match["list"].split("."), [])):
        return None
    return (f"in a list of records, as in a table, the column comes before the row: "
            f"{match['list']}.{match['column']}[{match['row']}]")


def _json_aggregate(doc: Any, agg: str, key: str, selector: str, where: str) -> Extracted:
    """``agg`` over the list ``key`` names; every item must be a finite number, as for a single
    value (a NaN skipped or not by ``max`` depending on where it stands is no claim)."""
    found = _resolve(doc, key)
    if not found:
        raise MetricNotFoundError(selector, where, json_metrics(doc))
    tokens, values = _one(doc, found, selector, where)
    if not isinstance(values, list) or not values or not all(_is_number(v) for v in values):
        raise MetricNotFoundError(selector, where, json_metrics(doc),
                                  problem=f"not a list of numbers ({_describe(values)})")
    for i, item in enumerate(values):
        if not math.isfinite(item):
            raise ClaimInputError(
                f"{selector!r} in {where}: item {i} of {_pointer(tokens)} (at "
                f"{_pointer([*tokens, i])}) is {_shown(item)}, not a finite number; every value "
                "an aggregate reads must be a real number", where=where)
    parent = _by_pointer(doc, _pointer(tokens[:-1]))[0][1]
    leaf = next((str(t) for t in reversed(tokens) if isinstance(t, str)), key)
    _facts_unrepeated(doc, tokens[:-1], None, selector, where)
    numbers = [float(v) for v in values]
    try:
        result = _aggregate(agg, numbers)
    except OverflowError:
        raise ClaimInputError(
            f"{selector!r} in {where}: the {agg} of the {len(numbers)} items of "
            f"{_pointer(tokens)} is too large for a float, not a finite number; a claim needs a "
            "real value", where=where) from None
    return Extracted(value=result, metric=metric_name(tokens, leaf), aggregate=agg,
                     selector=selector, n=None if agg in _PICKS else len(numbers),
                     split=_split_near(parent, doc, tokens),
                     seeds=_near(parent, doc, _seeds_of) or ())


# --- tables ---------------------------------------------------------------------------------------
@dataclass
class _Table:
    columns: dict[str, list[Any]]  # None for an empty cell; a repeated name keeps its last column
    rows: int
    text: bool  # CSV: cells are text until read as numbers
    # Names the header gives more than once, with their positions (from 1): reading one is refused.
    repeated: dict[str, list[int]] = field(default_factory=dict)
    # CSV: the file line each data row starts on (blank lines and quoted line breaks counted).
    lines: list[int] = field(default_factory=list)
    # JSON records: columns a record gives twice, with why; reading one is refused.
    ambiguous: dict[str, str] = field(default_factory=dict)
    records: bool = False  # JSON records (`json_records`): a log, never a summary table
    # A list of records inside a JSON document: its JSON pointer (rows are named by it) and its
    # dotted name with a final dot (a selector suggested in a message names the column by it).
    pointer: str | None = None
    prefix: str = ""
    # JSON records: the keys a nested column is made of (its metric is the last, `metric_name`).
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _repeated(names: Sequence[str]) -> dict[str, list[int]]:
    positions: dict[str, list[int]] = {}
    for i, name in enumerate(names, start=1):
        positions.setdefault(name, []).append(i)
    return {name: at for name, at in positions.items() if len(at) > 1}


def _read_parquet(data: bytes, where: str) -> _Table:
    import pyarrow as pa  # only here: importing pyarrow costs ~0.2 s
    import pyarrow.parquet as pq

    try:
        # ParquetFile, not read_table: the dataset reader refuses a whole file whose schema
        # repeats a column name, and a repeat must only block the claims that read it.
        table = pq.ParquetFile(pa.BufferReader(data)).read()
    except (pa.ArrowException, OSError) as exc:
        raise ClaimInputError(f"{where} is not a readable Parquet file ({exc})",
                              where=where) from None
    names = table.column_names
    return _Table(columns={name: _cells(table.column(i)) for i, name in enumerate(names)},
                  rows=table.num_rows, text=False, repeated=_repeated(names))


def _cells(column: Any) -> list[Any]:
    """A Parquet column's cells as Python values (None for a null).

    A float32 cell is read as the shortest decimal that is that float32 (Arrow's own
    rendering, which round-trips): ``31.52`` written as float32 is stored as
    31.520000457763672, which no one wrote and which would make a claim, EVIDENCE.json and every
    reconcile message show float noise. A float16 (halffloat) cell likewise is the shortest
    decimal that is that float16 (`_shortest_half`: ``31.52`` is stored as 31.515625; Arrow
    renders a float16 exactly, not shortest). An aggregate reads these decimals, as written.
    A decimal cell is a number too.
    """
    import pyarrow as pa

    if pa.types.is_float32(column.type):
        return [None if text is None else float(text)
                for text in column.cast(pa.string()).to_pylist()]
    if pa.types.is_float16(column.type):
        return [None if cell is None else _shortest_half(float(cell))
                for cell in column.to_pylist()]
    if pa.types.is_decimal(column.type):
        return [None if cell is None else float(cell) for cell in column.to_pylist()]
    return column.to_pylist()  # type: ignore[no-any-return]


def _shortest_half(value: float) -> float:
    """The float16 ``value`` as the shortest decimal that converts back to it (float16 rounds
    to nearest, ties to even), the closest such decimal of that length; NaN and infinities as
    they are (refused where they are read).

    Five significant digits always tell two float16 apart. Of each length, the nearest decimal
    and its neighbours one unit in the last place away are tried: below a power of two the
    values are twice as dense, so the nearest can fall out while its other neighbour is in
    (0.015625 is 0.01563, not 0.01562).
    """
    if not math.isfinite(value):
        return value
    bits = struct.pack("<e", value)
    exact = Decimal(value)
    for digits in range(1, 6):
        nearest = Decimal(f"{value:.{digits - 1}e}")
        step = Decimal(1).scaleb(nearest.adjusted() - digits + 1)
        back = []
        for text in (nearest, nearest - step, nearest + step):
            try:
                if struct.pack("<e", float(text)) == bits:
                    back.append(text)
            except OverflowError:  # past the largest float16 (65504)
                continue
        if back:
            return float(min(back, key=lambda text: abs(text - exact)))
    return value  # not reached: five digits always round-trip


_SEPARATORS = {";": "';'", "\t": "tabs", ",": "','"}


def _refuse_other_separator(header: list[str], where: str, delimiter: str) -> None:
    """A header that is one cell holding another separator: the file is not separated by
    ``delimiter`` (Excel saves "CSV" with ';' where the decimal mark is a comma), and reading it
    on would only report cell counts or a column named 'epoch;psnr'."""
    if len(header) != 1:
        return
    other = next((sep for sep in _SEPARATORS if sep != delimiter and sep in header[0]), None)
    if other is None:
        return
    expected = "comma-separated" if delimiter == "," else "tab-separated"
    raise ClaimInputError(f"{where}: its header is one cell, {header[0]!r}: the file is "
                          f"separated by {_SEPARATORS[other]}, not {_SEPARATORS[delimiter]}; "
                          f"save it {expected} (with '.' as the decimal mark)", where=where)


def _read_csv(data: bytes, where: str, delimiter: str) -> _Table:
    try:
        text = decode_text(data)
    except UnicodeDecodeError as exc:
        raise ClaimInputError(f"{where} is {undecodable(data, exc)}", where=where) from None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []  # (the file line the row starts on, its cells)
    end = 0
    try:
        for row in reader:
            rows.append((end + 1, row))
            end = reader.line_num  # past a quoted line break, a row ends lines after it starts
    except csv.Error as exc:
        raise ClaimInputError(f"{where} is not valid CSV ({exc})", where=where) from None
    if not rows or not rows[0][1]:
        raise ClaimInputError(f"{where} has no header row", where=where)
    header = [h.strip() for h in rows[0][1]]
    _refuse_other_separator(header, where, delimiter)
    body = [(line, row) for line, row in rows[1:] if row]  # a blank line is no row
    for line, row in body:
        if len(row) != len(header):
            raise ClaimInputError(f"{where} line {line}: {counted(len(row), 'cell')} where the "
                                  f"header has {len(header)}", where=where)
    columns = {h: [c.strip() or None for c in col]
               for h, col in zip(header, zip(*(row for _, row in body), strict=True) if body else
                                 [() for _ in header], strict=True)}
    return _Table(columns=columns, rows=len(body), text=True, repeated=_repeated(header),
                  lines=[line for line, _ in body])


def _column(table: _Table, name: str, selector: str, where: str) -> list[Any]:
    """The cells of column ``name``; refused when the header gives that name more than once,
    or a JSON record gives it twice (which column was meant is not for us to guess)."""
    why = table.ambiguous.get(name)
    if why is not None:
        raise ClaimInputError(f"{selector!r} in {where} is ambiguous: column {name!r}: {why}; "
                              "which value counts is not for us to guess; nothing was written",
                              where=where)
    positions = table.repeated.get(name)
    if positions:
        raise ClaimInputError(
            f"{selector!r} in {where} is ambiguous: the header gives column {name!r} "
            f"{len(positions)} times (columns {', '.join(map(str, positions))}, counting from "
            "1); rename all but one; nothing was written", where=where)
    return table.columns[name]


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


def _int_text(cell: Any) -> int | None:
    """The integer a cell spells (``7``, ``"7"``), else None. A text too long for any seed or
    count reads as none: ``int`` would refuse one over 4300 digits with a ValueError."""
    if isinstance(cell, int) and not isinstance(cell, bool):
        return cell
    text = str(cell) if isinstance(cell, str) else ""
    return int(text) if _INT_RE.match(text) and len(text) <= 30 else None


def _row_name(table: _Table, index: int) -> str:
    if table.lines:
        return f"row {index} (line {table.lines[index]})"
    if table.pointer is not None:
        return f"row {index} (at {table.pointer}/{index})"
    return f"row {index}"


def table_metrics(table: _Table) -> list[str]:
    """Columns holding only numbers, each with the aggregate syntax (``last`` in a log of JSON
    records, ``mean`` else; named as the document names them: ``last(log_history.loss)``); a
    long table's value column once per quantity (and statistic) its rows hold."""
    out = []
    agg = "last" if table.records else "mean"
    for name, cells in table.columns.items():
        filled = [c for c in cells if c is not None]
        if filled and all(_as_number(c, table) is not None for c in filled):
            out.extend(_long_selectors(table, name) or [f"{agg}({table.prefix}{name})"])
    return out


def _long_selectors(table: _Table, column: str) -> list[str]:
    """``value[metric=psnr,statistic=mean]`` (one row) or ``mean(value[variable=psnr])``
    (several) for each quantity and statistic a long table's value column holds; [] when
    ``column`` is no such column."""
    keys = [k for k in (*_QUANTITY_COLUMNS, *_STATISTIC_COLUMNS) if k in table.columns]
    if column not in _VALUE_COLUMNS or not keys:
        return []
    groups = Counter(tuple(str(table.columns[k][i]) for k in keys) for i in range(table.rows))
    out = []
    for values, rows in groups.items():
        pick = _shown_conditions(list(zip(keys, values, strict=True)))
        name = table.prefix + column
        out.append(f"{name}[{pick}]" if rows == 1 else f"mean({name}[{pick}])")
    return out


def _non_finite(table: _Table, column: str, index: int, number: float, selector: str,
                where: str) -> ClaimInputError:
    cell = table.columns[column][index]
    # the text as the file writes it; an integer too large for a float by its length
    shown = cell if table.text else _shown(cell) if isinstance(cell, _HugeInt) else number
    return ClaimInputError(
        f"{selector!r} in {where}: {_row_name(table, index)} of column {column!r} "
        f"is {shown}, not a finite number; every value read must be a real number", where=where)


def _numbers(table: _Table, column: str, rows: Sequence[int], selector: str,
             where: str) -> tuple[list[float], list[int]]:
    """The numbers in the non-empty cells of ``rows``, and those rows. Every one is finite:
    the first cell that is not a number, or is NaN or infinite, is refused by its row (``max``
    would skip a NaN or not depending on where it stands)."""
    cells = _column(table, column, selector, where)
    values: list[float] = []
    used: list[int] = []
    for i in rows:
        cell = cells[i]
        if cell is None:
            continue
        number = _as_number(cell, table)
        if number is None:
            raise ClaimInputError(
                f"{selector!r} in {where}: {_row_name(table, i)} of column "
                f"{column!r} is {_describe(cell)}, not a number", where=where)
        if not math.isfinite(number):
            raise _non_finite(table, column, i, number, selector, where)
        values.append(number)
        used.append(i)
    return values, used


def _facts(table: _Table, column: str, rows: list[int], selector: str,
           where: str) -> tuple[str | None, tuple[int, ...]]:
    """The split and seeds the table's own ``split``/``seed`` columns give for ``rows``; the
    split, without a ``split`` column, is the one the read column's name says (``val_psnr``)."""
    split = None
    if "split" in table.columns:
        cells = _column(table, "split", selector, where)
        names = sorted({str(cells[i]) for i in rows if cells[i] is not None})
        split = "+".join(names) if names else None
    if split is None:
        split = _key_split([column])
    seeds: set[int] = set()
    if "seed" in table.columns:
        cells = _column(table, "seed", selector, where)
        seeds = {seed for seed in (_int_text(cells[i]) for i in rows) if seed is not None}
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
              column: str | None = None) -> int:
    """The data row ``row`` names: an index (``-1``), or the one row the ``KEY=VALUE``
    conditions pick; with ``column``, of the rows they pick, the one with a value in it
    (`_rows_with_value`)."""
    text = row.strip()
    if _INT_RE.match(text):
        # A text this long is out of range anyway; int() would refuse one over 4300 digits.
        index = int(text) if len(text) <= 30 else None
        if index is None or not -table.rows <= index < table.rows:
            raise ClaimInputError(f"{selector!r} in {where}: row {text[:32]} is out of range "
                                  f"(the table has {counted(table.rows, 'data row')}, "
                                  "numbered from 0)",
                                  where=where)
        return index % table.rows
    conditions = _conditions(row, table, selector, where)
    hits = _rows_where(table, conditions, selector, where)
    if not hits:
        raise _no_row(table, conditions, selector, where)
    candidates = (_rows_with_value(table, column, hits, selector, where)
                  if column is not None and len(hits) > 1 else hits)
    if len(candidates) > 1 and column is not None and all(
            _same_reading(table, column, candidates[0], i, selector, where)
            for i in candidates[1:]):
        return candidates[0]  # one measurement logged twice (mmengine writes each eval twice)
    if len(candidates) != 1:
        lines = ", ".join(_row_name(table, i) for i in candidates[:10])
        filled = (f", {len(candidates)} with a value in column {column!r}"
                  if len(candidates) != len(hits) else "")
        raise ClaimInputError(f"{selector!r} in {where}: {_shown_conditions(conditions)} "
                              f"matches {len(hits)} rows{filled}{': ' + lines if lines else ''}; "
                              "it must match exactly one", where=where)
    return candidates[0]


def _same_reading(table: _Table, column: str, a: int, b: int, selector: str,
                  where: str) -> bool:
    """Whether rows ``a`` and ``b`` say the same of ``column``: the same cell, and the same
    facts around it (n, split, seeds, spread). Then which of them is read makes no difference
    (a log writing an evaluation twice, its timings aside); else the choice is not ours."""
    cells = _column(table, column, selector, where)
    return (cells[a] == cells[b]
            and _row_n(table, a, selector, where) == _row_n(table, b, selector, where)
            and _facts(table, column, [a], selector, where)
            == _facts(table, column, [b], selector, where)
            and _cell_spread(table, column, a, selector, where)
            == _cell_spread(table, column, b, selector, where))


def _rows_with_value(table: _Table, column: str, hits: list[int], selector: str,
                     where: str) -> list[int]:
    """Of the rows ``hits`` (more than one), those whose cell in ``column`` is not empty.

    A log is sparse: Lightning's ``metrics.csv`` and detectron2's ``metrics.json`` write a
    training row and an evaluation row for the same epoch or iteration, each leaving the other's
    columns empty. An empty cell is no value, so ``val_acc[epoch=3]`` reads the one row of epoch
    3 that has a ``val_acc``. A failed measurement is a NaN, not an empty cell: it stays a
    candidate (and is refused when read). When every row is empty, there is nothing to read."""
    cells = _column(table, column, selector, where)
    filled = [i for i in hits if cells[i] is not None]
    if not filled:
        shown = ", ".join(_row_name(table, i) for i in hits[:10])
        raise ClaimInputError(f"{selector!r} in {where}: column {column!r} is empty in every "
                              f"row the conditions pick ({shown})", where=where)
    return filled


def _empty_cell(table: _Table, column: str, index: int, selector: str,
                where: str) -> ClaimInputError:
    """Row ``index`` of ``column`` is empty: refused. ``[-1]`` is the table's last data row,
    whichever column is read (a row number means one row of the file); in a sparse log that row
    may be a training row after the last evaluation, so the message names the row that holds
    the column's last value and the selector that reads it."""
    filled = [i for i, cell in enumerate(table.columns[column]) if cell is not None]
    hint = (f"; the column's last value is in {_row_name(table, filled[-1])}: "
            f"last({table.prefix}{column}) reads it" if filled else "; the column has no value")
    return ClaimInputError(f"{selector!r} in {where}: {_row_name(table, index)} of column "
                           f"{column!r} is empty{hint}", where=where)


def _conditions(text: str, table: _Table, selector: str, where: str) -> list[tuple[str, str]]:
    """``KEY=VALUE`` conditions, comma-separated (``metric=psnr,split=test``), each naming a
    column; a comma followed by neither a column nor a name and ``=`` belongs to the value
    before it (``config=a,b``)."""
    conditions: list[tuple[str, str]] = []
    for part in text.split(","):
        key, eq, wanted = part.partition("=")
        if eq and (key.strip() in table.columns or _NAME_RE.match(key)) or not conditions:
            conditions.append((key.strip() if eq else "", wanted.strip() if eq else ""))
        else:
            last_key, last = conditions[-1]
            conditions[-1] = (last_key, f"{last},{part}".strip())
    for key, _ in conditions:
        if not key:
            raise ClaimInputError(f"{selector!r} in {where}: the row in [...] is a number "
                                  "(psnr[-1]) or COLUMN=VALUE (psnr[epoch=100]), several "
                                  "separated by commas (value[metric=psnr,split=test])",
                                  where=where)
        if key not in table.columns:
            raise MetricNotFoundError(selector, where, list(table.columns),
                                      problem=f"no column {key!r} to pick a row by")
    return conditions


def _rows_where(table: _Table, conditions: list[tuple[str, str]], selector: str,
                where: str) -> list[int]:
    """The rows whose every condition's column reads its value."""
    rows = list(range(table.rows))
    for key, wanted in conditions:
        cells = _column(table, key, selector, where)
        rows = [i for i in rows if _matches(cells[i], wanted, table)]
    return rows


def _shown_conditions(conditions: list[tuple[str, str]]) -> str:
    return ",".join(f"{key}={wanted}" for key, wanted in conditions)


def _no_row(table: _Table, conditions: list[tuple[str, str]], selector: str,
            where: str) -> ClaimInputError:
    """No row meets ``conditions``: say which condition left none, and what its column reads
    in the rows the ones before it left."""
    rows = list(range(table.rows))
    for k, (key, wanted) in enumerate(conditions):
        left = _rows_where(table, [(key, wanted)], selector, where)
        kept = [i for i in rows if i in set(left)]
        if not kept:
            cells = _column(table, key, selector, where)
            reads = list(dict.fromkeys(str(cells[i]) for i in rows if cells[i] is not None))
            after = f" among the rows {_shown_conditions(conditions[:k])} picks" if k else ""
            return ClaimInputError(
                f"{selector!r} in {where}: no row has {key}={wanted}{after}; {key} reads "
                f"{_listing(reads)}", where=where)
        rows = kept
    return ClaimInputError(f"{selector!r} in {where}: {_shown_conditions(conditions)} matches "
                           "no row", where=where)


_DESCRIBE_ROWS = 8  # count, mean, std, min, 25%, 50%, 75%, max


def _unlabelled_describe(table: _Table) -> bool:
    """Whether ``table`` is what ``df.describe().to_csv(path, index=False)`` writes: no
    column of labels, 8 rows, and every column reads as count, mean, std, min, 25%, 50%,
    75%, max (one count for all, a whole number; min <= mean <= max; the std not negative;
    the quantiles in order), not every column constant (8 equal cells are no summary)."""
    if table.rows != _DESCRIBE_ROWS:
        return False
    counts = set()
    varied = False
    for name in table.columns:
        numbers = [_as_number(c, table) for c in table.columns[name]]
        if any(n is None or not math.isfinite(n) for n in numbers):
            return False
        count, mean, std, low, q1, q2, q3, high = (float(n) for n in numbers if n is not None)
        if not (count >= 1 and count == int(count) and std >= 0
                and low <= mean <= high and low <= q1 <= q2 <= q3 <= high):
            return False
        counts.add(count)
        varied = varied or len(set(numbers)) > 1
    return varied and len(counts) == 1


# The column a long table (pandas melt(), a tidy results log) keeps its numbers in.
_VALUE_COLUMNS = frozenset({"value", "values", "score", "result"})


def _refuse_mixed(table: _Table, column: str, rows: Sequence[int], agg: str,
                  conditions: list[tuple[str, str]], selector: str, where: str) -> None:
    """An aggregate over a long table's value column must not mix quantities (a PSNR and an
    SSIM) or statistics (a mean and a std): refuse it, naming the conditions that pick one."""
    if column not in _VALUE_COLUMNS:
        return
    named = {key for key, _ in conditions}
    for kinds, what in ((_QUANTITY_COLUMNS, "quantities"), (_STATISTIC_COLUMNS, "statistics")):
        for key in kinds:
            if key not in table.columns or key in named:
                continue
            cells = _column(table, key, selector, where)
            reads = list(dict.fromkeys(str(cells[i]) for i in rows if cells[i] is not None))
            if len(reads) > 1:
                pick = _shown_conditions([*conditions, (key, reads[0])])
                raise ClaimInputError(
                    f"{selector!r} in {where}: the rows it reads hold different {what} "
                    f"({key}: {_listing(reads)}); the {agg} across them is the result of none; "
                    f"pick one, e.g. {agg}({column}[{pick}])", where=where)


# A long ("tidy") table names the quantity of each row in a column (pandas melt() calls it
# "variable") and, when it holds summaries, the statistic in another: its value column's cell
# picked by them is a value of that quantity (value[metric=psnr,statistic=mean] is a PSNR).
_QUANTITY_COLUMNS = ("metric", "metric_name", "measure", "quantity", "variable")
_STATISTIC_COLUMNS = ("statistic", "stat", "agg", "aggregate", "aggregation")


def _long_quantity(table: _Table, conditions: list[tuple[str, str]],
                   ) -> tuple[str | None, str | None]:
    """(the quantity, the statistic) the conditions pick in a long table, each None when no
    condition is on such a column (a statistic only when it is one: mean, std, 25%, ...)."""
    named = dict(conditions)
    quantity = next((named[c] for c in _QUANTITY_COLUMNS if c in named and named[c]), None)
    stat_column = next((c for c in _STATISTIC_COLUMNS if c in named), None)
    stat = summary_stat(named[stat_column]) if stat_column is not None else None
    return quantity, stat


def _long_companions(table: _Table, column: str, conditions: list[tuple[str, str]],
                     selector: str, where: str) -> tuple[int | None, tuple[str, float] | None]:
    """(n, spread) of a mean picked in a long table: the cells of ``column`` in the one row
    each that the same conditions pick with the statistic ``count``, ``std`` or ``sem``."""
    stat_column = next(c for c in _STATISTIC_COLUMNS if c in dict(conditions))
    others = [(k, v) for k, v in conditions if k != stat_column]
    cells = _column(table, stat_column, selector, where)
    rows = _rows_where(table, others, selector, where)

    def companion(name: str) -> float | None:
        found = [i for i in rows if cells[i] is not None and summary_stat(str(cells[i])) == name]
        if len(found) != 1:
            return None  # none, or several: which one goes with the mean is not known
        number = _as_number(table.columns[column][found[0]], table)
        return number if number is not None and math.isfinite(number) and number >= 0 else None

    count = companion("count")
    n = int(count) if count is not None and count == int(count) else None
    for kind, _names in _SPREAD:
        number = companion(kind)
        if number is not None:
            return n, (kind, number)
    return n, None


def _from_table(table: _Table, selector: str, where: str, parsed: str | None = None) -> Extracted:
    """Apply ``selector`` to a table. ``parsed`` is the selector as the table reads it when that
    differs from the one shown in messages (``eval_accuracy[epoch=3.0]`` for
    ``log_history.eval_accuracy[epoch=3.0]`` in a JSON document)."""
    text = selector if parsed is None else parsed
    summary = None if table.records else _summary(table)
    if summary is not None:
        return _from_summary(table, summary, selector, where)
    aggregate = _AGG_RE.match(text)
    cell = _CELL_RE.match(text) if aggregate is None else None
    if aggregate is None and cell is None:
        hint = (f"e.g. last({selector}) or {selector}[KEY=VALUE]" if table.records
                else f"e.g. mean({selector}) or {selector}[-1]")
        if selector not in table.columns:
            problem = _malformed(selector)
            if problem is not None:
                raise _bad_selector(selector, where, problem,
                                    f"its columns: {_listing(list(table.columns))}")
            raise MetricNotFoundError(selector, where, table_metrics(table))
        raise ClaimInputError(
            f"{selector!r}: {where} is a table; name an aggregate or a cell, {hint} "
            f"(aggregates: {', '.join(AGGREGATES)})", where=where)
    column = (aggregate.group(2) if aggregate else cell.group(1) if cell else "").strip()
    where_rows: list[tuple[str, str]] = []
    filtered = _CELL_RE.match(column) if aggregate is not None else None
    if filtered is not None and filtered.group(1).strip() in table.columns:
        # mean(value[metric=psnr]): the aggregate over the rows the conditions pick
        column = filtered.group(1).strip()
        where_rows = _conditions(filtered.group(2), table, selector, where)
    if column not in table.columns:
        # A cell names a column, which need not hold numbers: list the columns themselves.
        raise MetricNotFoundError(selector, where, table_metrics(table) if aggregate else
                                  [table.prefix + name for name in table.columns],
                                  problem=f"no column {column!r}")
    if cell is not None:
        index = _pick_row(table, cell.group(2), selector, where, column)
        values, _ = _numbers(table, column, [index], selector, where)
        if not values:
            raise _empty_cell(table, column, index, selector, where)
        split, seeds = _facts(table, column, [index], selector, where)
        n = _row_n(table, index, selector, where)
        spread = _cell_spread(table, column, index, selector, where)
        metric, stat = _column_metric(table, column), None
        if not _INT_RE.match(cell.group(2).strip()):  # picked by conditions: a long table?
            conditions = _conditions(cell.group(2), table, selector, where)
            quantity, stat = _long_quantity(table, conditions)
            metric = quantity or metric
            if stat == "mean":
                n, spread = _long_companions(table, column, conditions, selector, where)
        return Extracted(value=values[0], metric=metric, aggregate=stat,
                         selector=selector, n=n, split=split, seeds=seeds,
                         variance_type=spread[0] if spread else None,
                         variance=spread[1] if spread else None)
    assert aggregate is not None
    agg = aggregate.group(1)
    rows: Sequence[int] = range(table.rows)
    if where_rows:
        rows = _rows_where(table, where_rows, selector, where)
        if not rows:
            raise _no_row(table, where_rows, selector, where)
    _refuse_mixed(table, column, rows, agg, where_rows, selector, where)
    if not where_rows and _unlabelled_describe(table):
        raise ClaimInputError(
            f"{selector!r} in {where}: the table reads as pandas describe() saved without its "
            "index (to_csv(index=False)): 8 unlabelled rows, in every column a count, a mean "
            "between the min and the max, a spread, and min <= 25% <= 50% <= 75% <= max; the "
            f"{agg} of column {column!r} would mix those statistics. Save it with its index "
            f"(df.describe().to_csv(path)) so {column}.mean reads, or name the row: "
            f"{column}[1] is its mean", where=where)
    if agg == "count":
        # count reads no values, so text counts; but a cell that reads as NaN or inf is a
        # failed measurement, and is refused here as in every other aggregate.
        cells = _column(table, column, selector, where)
        used = [i for i in rows if cells[i] is not None]
        for i in used:
            number = _as_number(cells[i], table)
            if number is not None and not math.isfinite(number):
                raise _non_finite(table, column, i, number, selector, where)
        values = [1.0] * len(used)
    else:
        values, used = _numbers(table, column, rows, selector, where)
    if not values:
        raise ClaimInputError(f"{selector!r} in {where}: column {column!r} has no values",
                              where=where)
    split, seeds = _facts(table, column, used, selector, where)
    try:
        result = _aggregate(agg, values)
        variance = None
        if agg == "mean" and len(seeds) >= 2 and len(seeds) == len(values):
            variance = statistics.stdev(values)  # one row per seed: the spread over seeds
    except OverflowError:
        what = "the spread over seeds" if agg == "mean" else f"the {agg}"
        raise ClaimInputError(
            f"{selector!r} in {where}: {what} of the {len(values)} values of column {column!r} "
            "is too large for a float, not a finite number; a claim needs a real value",
            where=where) from None
    quantity, _stat = _long_quantity(table, where_rows)
    if agg in _PICKS:  # the n of the row the value is from (the first such, for a tie)
        at = {"first": 0, "last": len(values) - 1}.get(agg)
        n = _row_n(table, used[values.index(result) if at is None else at], selector, where)
    else:
        n = len(values)
    return Extracted(value=result, metric=quantity or _column_metric(table, column), aggregate=agg,
                     selector=selector, n=n, split=split, seeds=seeds,
                     variance_type="std" if variance is not None else None, variance=variance)


def _row_n(table: _Table, index: int, selector: str, where: str) -> int | None:
    """The samples behind row ``index``'s values: its ``n``-like cell, else None."""
    n_column = next((k for k in N_KEYS if k in table.columns), None)
    return (_int_text(_column(table, n_column, selector, where)[index])
            if n_column is not None else None)


def _column_metric(table: _Table, column: str) -> str:
    """The metric a column holds: its name, or for a nested JSON record key the last key, as in
    a JSON document (``val.mAP@0.5`` holds ``mAP@0.5``; ``psnr.mean`` holds ``psnr``)."""
    keys = table.keys.get(column)
    return metric_name(list(keys), column) if keys else column


def _cell_spread(table: _Table, column: str, index: int, selector: str,
                 where: str) -> tuple[str, float] | None:
    """The spread a summary table reports for one cell, in the same row: ``psnr_std`` next to
    ``psnr`` (or ``psnr_mean``), ``psnr_sem``... (`_spread_keys`, std before sem)."""
    flat, _ = _spread_keys(column)
    for kind, name in flat:
        if name in table.columns:
            cell = _column(table, name, selector, where)[index]
            number = _as_number(cell, table) if cell is not None else None
            if number is not None and math.isfinite(number) and number >= 0:
                return kind, number
    return None


# --- summary tables (pandas describe()) -----------------------------------------------------------
# The statistics a summary table labels its rows with (df.describe(), df.agg(["mean", "std"])), or
# its columns when transposed (df.describe().T); a percentile is "25%", "2.5%". Case is ignored.
# Statistics that are a value of the quantity (the mean PSNR is a PSNR); a table needs one to be
# a summary. Every percentile is one too.
_VALUE_STATS = frozenset({"mean", "median", "min", "max", "sum"})
# Statistics that are not a value of the quantity: a claim on one is on `std(psnr)`, not on psnr
# (`Extracted.claimed_metric`); 24 images or a spread of 0.11 dB are no PSNR.
_OF_STATS = frozenset({"count", "std", "sem", "var", "unique", "freq"})
# What pandas names an unnamed index column: to_csv() leaves the header cell empty,
# reset_index() calls it "index", to_parquet() "__index_level_0__".
_INDEX_NAMES = frozenset({"", "index", "__index_level_0__"})
# Statistics no table of runs labels its rows with: a label column naming one is a summary's.
_SIGNS = frozenset({"count", "std", "sem", "var"})


def _is_value_stat(stat: str | None) -> bool:
    return stat is not None and (stat in _VALUE_STATS or bool(PERCENTILE.match(stat)))


@dataclass(frozen=True)
class _Summary:
    """A table of statistics, one per quantity: ``by_rows`` when each row is a statistic (a
    ``label`` column reads count, mean, std, ..., each other column is a quantity: what
    ``df.describe()`` writes), else each row is a quantity (the ``label`` column names it) and
    each other column a statistic (``df.describe().T``)."""

    by_rows: bool
    label: str  # the column of row labels (the index pandas writes: "", "index", ...)
    quantities: list[str]  # in table order; as the rows give them when not by_rows
    stats: list[str]  # the statistics given (lower case), in table order
    repeated: bool = False  # by_rows: a statistic labels two rows (describe() outputs stacked)

    @property
    def what(self) -> str:
        return ("a summary table (one row per statistic, as pandas describe() writes it)"
                if self.by_rows else "a summary table (one row per quantity, one column per "
                "statistic, as pandas describe().T writes it)")


def _labels(table: _Table, name: str) -> list[str] | None:
    """Column ``name``'s cells as row labels: every cell filled with text that is not a
    number; else None."""
    cells = table.columns[name]
    if not cells or not all(isinstance(c, str) and c.strip() and _as_number(c, table) is None
                            for c in cells):
        return None
    return [c.strip() for c in cells]


def _summary(table: _Table) -> _Summary | None:
    """The table as a summary of statistics (`_Summary`), or None when it is not one: exactly
    one column of text labels, and either every label is a statistic (with a count or a spread
    among them, or the labels in pandas' unnamed index) or every other column's name is (two or
    more of them, with ``count`` among them or the labels in pandas' unnamed index); at least
    one of the statistics must be a value (mean, median, min, max, sum or a percentile).
    Anything else (a table of runs, epochs, seeds or models, a sweep over the pooling) is read
    row by row as before."""
    if table.rows == 0 or len(table.columns) < 2:
        return None
    labelled = [name for name in table.columns if _labels(table, name) is not None]
    if len(labelled) != 1:
        return None
    label = labelled[0]
    labels = _labels(table, label) or []
    row_stats = [summary_stat(text) for text in labels]
    # The labels must be pandas' index or name a count or a spread: `pool,psnr` with rows
    # `mean` and `max` is a sweep over the pooling, read row by row as before.
    signed = label in _INDEX_NAMES or any(stat in _SIGNS for stat in row_stats)
    if signed and all(row_stats) and any(_is_value_stat(stat) for stat in row_stats):
        stats = list(dict.fromkeys(stat for stat in row_stats if stat))
        return _Summary(by_rows=True, label=label,
                        quantities=[name for name in table.columns if name != label],
                        stats=stats, repeated=len(stats) != len(row_stats))
    others = [name for name in table.columns if name != label]
    column_stats = [summary_stat(name) for name in others]
    # Transposed, the labels must be pandas' index (unnamed) or the stats describe()'s (with a
    # count): `model,mean,std` is a table of models, read row by row as before.
    index = label in _INDEX_NAMES or "count" in column_stats
    if (index and len(others) >= 2 and all(column_stats)
            and any(_is_value_stat(s) for s in column_stats)):
        return _Summary(by_rows=False, label=label, quantities=list(dict.fromkeys(labels)),
                        stats=list(dict.fromkeys(stat for stat in column_stats if stat)))
    return None


def _summary_cells(table: _Table, summary: _Summary) -> list[tuple[str, str, int, str]]:
    """Every (quantity, statistic, row, column) of a summary, quantity by quantity."""
    labels = table.columns[summary.label]
    if summary.by_rows:
        return [(quantity, stat, i, quantity) for quantity in summary.quantities
                for i, stat in enumerate(summary_stat(str(text)) or "" for text in labels)]
    return [(str(labels[i]).strip(), summary_stat(column) or "", i, column)
            for i in range(table.rows) for column in table.columns if column != summary.label]


def _summary_listing(table: _Table, summary: _Summary, quantity: str | None = None,
                     stat: str | None = None) -> list[str]:
    """The ``QUANTITY.STATISTIC`` selectors that read a number (of one quantity, or of one
    statistic, when given)."""
    out = []
    for q, s, i, column in _summary_cells(table, summary):
        if (quantity is None or q == quantity) and (stat is None or s == stat):
            number = _as_number(table.columns[column][i], table)
            if number is not None and math.isfinite(number):
                out.append(f"{q}.{s}")
    return list(dict.fromkeys(out))


def _wanted_stat(summary: _Summary, text: str) -> str | None:
    """The statistic ``text`` names among those the summary gives (``median`` is the ``50%``
    row when there is no ``median`` one), else None."""
    stat = summary_stat(text)
    if stat == "median" and stat not in summary.stats and "50%" in summary.stats:
        return "50%"
    return stat if stat in summary.stats else None


def _ambiguous(selector: str, where: str, what: str, options: list[str]) -> ClaimInputError:
    return ClaimInputError(f"{selector!r} in {where} is ambiguous: {what}; name one: "
                           f"{_listing(options)}; nothing was written", where=where)


def _summary_place(table: _Table, summary: _Summary, quantity: str, stat: str, selector: str,
                   where: str, index: int | None = None) -> tuple[int, str] | None:
    """The (row, column) of ``quantity``'s ``stat``; None when the table gives none. ``index``
    is the row the selector names, when it names one (the statistic's row when by_rows, else
    the quantity's). A statistic (or a quantity) the table gives twice is refused otherwise:
    which one counts is not for us to guess."""
    labels = _column(table, summary.label, selector, where)
    if summary.by_rows and index is not None:
        return index, quantity  # the row the selector names (psnr[1], psnr[index=mean])
    if summary.by_rows:
        rows = [i for i, text in enumerate(labels) if summary_stat(str(text)) == stat]
        if len(rows) > 1:
            raise ClaimInputError(
                f"{selector!r} in {where} is ambiguous: {summary.what} gives {stat!r} "
                f"{len(rows)} times ({', '.join(_row_name(table, i) for i in rows[:10])}); "
                "keep one; nothing was written", where=where)
        return (rows[0], quantity) if rows else None
    if index is None:
        rows = [i for i, text in enumerate(labels) if str(text).strip() == quantity]
        if len(rows) > 1:
            raise ClaimInputError(
                f"{selector!r} in {where} is ambiguous: {summary.what} gives {quantity!r} "
                f"{len(rows)} times ({', '.join(_row_name(table, i) for i in rows[:10])}); "
                "keep one; nothing was written", where=where)
        if not rows:
            return None
        index = rows[0]
    columns = [c for c in table.columns if c != summary.label and summary_stat(c) == stat]
    if len(columns) > 1:
        raise ClaimInputError(
            f"{selector!r} in {where} is ambiguous: {summary.what} gives {stat!r} as "
            f"{len(columns)} columns ({', '.join(map(repr, columns))}); keep one; nothing was "
            "written", where=where)
    return (index, columns[0]) if columns else None


def _summary_number(table: _Table, place: tuple[int, str] | None, selector: str,
                    where: str) -> float | None:
    """The finite number at ``place``, else None (a companion value, the count or the spread,
    that is missing, empty or not a number is not known; it blocks nothing)."""
    if place is None:
        return None
    cell = _column(table, place[1], selector, where)[place[0]]
    number = _as_number(cell, table) if cell is not None else None
    return number if number is not None and math.isfinite(number) else None


def _summary_value(table: _Table, summary: _Summary, quantity: str, stat: str,
                   place: tuple[int, str], selector: str, where: str,
                   named_row: bool = False) -> Extracted:
    """``quantity``'s ``stat`` at ``place``, with what the summary says about it: ``n`` is
    its ``count``; the spread of a mean is its ``std`` (else ``sem``). ``named_row``: the
    selector named the row (``psnr[8]``)."""
    index, column = place
    values, _ = _numbers(table, column, [index], selector, where)
    if not values:
        raise ClaimInputError(f"{selector!r} in {where}: the {stat} of {quantity!r} "
                              f"({_row_name(table, index)} of column {column!r}) is empty",
                              where=where)
    known = None if summary.by_rows else index

    def companion(name: str) -> float | None:
        if name not in summary.stats or (summary.by_rows and summary.repeated and named_row):
            return None  # which count or std goes with a row named in a stack is not known
        return _summary_number(table, _summary_place(table, summary, quantity, name, selector,
                                                     where, known), selector, where)

    count = companion("count")
    n = int(count) if count is not None and count >= 0 and count == int(count) else None
    spread: tuple[str, float] | None = None
    if stat == "mean":
        for kind, _names in _SPREAD:
            number = companion(kind)
            if number is not None and number >= 0:
                spread = (kind, number)
                break
    return Extracted(value=values[0], metric=quantity, selector=selector, n=n,
                     split=_key_split([quantity]), aggregate=stat,
                     variance_type=spread[0] if spread else None,
                     variance=spread[1] if spread else None)


def _from_summary(table: _Table, summary: _Summary, selector: str, where: str) -> Extracted:
    """Apply ``selector`` to a summary table: it names a quantity and one of its statistics,
    ``psnr.mean``, ``mean(psnr)``, ``psnr[mean]`` (or ``mean[psnr]``), or a cell by row
    (``psnr[1]``, ``psnr[index=mean]``; ``mean[0]`` when transposed). Aggregating the rows of a
    statistic column would mix count, mean and std, so an aggregate reads the statistic of that
    name; a name alone is refused as ambiguous (which statistic, which quantity?), unless the
    table gives only one."""
    everything = _summary_listing(table, summary)

    def read(quantity: str, stat: str, index: int | None = None) -> Extracted:
        place = _summary_place(table, summary, quantity, stat, selector, where, index)
        if place is None:
            raise MetricNotFoundError(selector, where, everything,
                                      problem=f"{summary.what} gives no {stat} of {quantity!r}")
        return _summary_value(table, summary, quantity, stat, place, selector, where,
                              named_row=index is not None)

    def pick(pairs: list[tuple[str, str]]) -> Extracted | None:
        pairs = list(dict.fromkeys(pairs))
        if len(pairs) > 1:
            raise _ambiguous(selector, where, "it names more than one statistic",
                             [f"{q}.{s}" for q, s in pairs])
        return read(*pairs[0]) if pairs else None

    # QUANTITY.STATISTIC, split at any dot (a quantity may hold dots: mAP@0.5.mean)
    parts = selector.split(".")
    dotted = [(q, s) for q, s in ((".".join(parts[:k]), _wanted_stat(summary, ".".join(parts[k:])))
                                  for k in range(1, len(parts)))
              if q in summary.quantities and s is not None]
    found = pick(dotted)
    if found is not None:
        return found
    only_stat = summary.stats[0] if len(summary.stats) == 1 else None
    if selector in summary.quantities:
        if only_stat is not None:
            return read(selector, only_stat)
        raise _ambiguous(selector, where, f"{summary.what} gives several statistics of "
                         f"{selector!r}", _summary_listing(table, summary, quantity=selector))
    stat = _wanted_stat(summary, selector)
    if stat is not None:
        if len(summary.quantities) == 1:
            return read(summary.quantities[0], stat)
        raise _ambiguous(selector, where, f"{summary.what} gives the {stat} of several "
                         "quantities", _summary_listing(table, summary, stat=stat))
    aggregate = _AGG_RE.match(selector)
    if aggregate is not None:
        agg, name = aggregate.group(1), aggregate.group(2).strip()
        if name in summary.quantities:
            stat = _wanted_stat(summary, agg)
            if stat is None:
                raise MetricNotFoundError(
                    selector, where, _summary_listing(table, summary, quantity=name),
                    problem=f"{summary.what} gives no {agg} of {name!r} ({agg} over its "
                            "rows would mix different statistics)")
            return read(name, stat)
        stat = _wanted_stat(summary, name)
        if stat is not None:
            raise _ambiguous(selector, where, f"{name!r} holds the {stat} of every quantity "
                             f"in {summary.what}; the {agg} across them is the result of none",
                             _summary_listing(table, summary, stat=stat))
        raise MetricNotFoundError(selector, where, everything, problem=f"no quantity {name!r}")
    cell = _CELL_RE.match(selector)
    if cell is not None:
        column, row = cell.group(1).strip(), cell.group(2).strip()
        data = [c for c in table.columns if c != summary.label]
        if _INT_RE.match(row) or "=" in row:
            if column not in data:
                raise MetricNotFoundError(selector, where, everything,
                                          problem=f"no column {column!r} of values")
            index = _pick_row(table, row, selector, where)
            text = str(_column(table, summary.label, selector, where)[index]).strip()
            if summary.by_rows:
                return read(column, summary_stat(text) or text, index)
            return read(text, summary_stat(column) or column, index)
        named = [(column, s) for s in [_wanted_stat(summary, row)]
                 if column in summary.quantities and s is not None]
        named += [(row, s) for s in [_wanted_stat(summary, column)]
                  if row in summary.quantities and s is not None]
        found = pick(named)
        if found is not None:
            return found
        raise MetricNotFoundError(selector, where, everything,
                                  problem=f"no statistic {row!r} of a quantity {column!r}")
    problem = _malformed(selector)
    if problem is not None:
        raise _bad_selector(selector, where, problem, f"it has: {_listing(everything)}")
    raise MetricNotFoundError(selector, where, everything)
