"""Validate and encode an event body without msgspec, for `labledger emit`'s fast path.

Conservative by design: it accepts only what it can prove msgspec would accept, and returns the
same bytes msgspec would write (`tests/ledger/test_fast_path.py` checks both, differentially).
Anything else (an unknown field, a type it does not model, a float that msgspec would write in
exponent form, text that is not valid UTF-8, ...) returns None, and the caller takes the full
path, which reports errors exactly as always. It never raises for bad input.
"""

from __future__ import annotations

import json
import re

from labledger.ledger._kinds_table import TABLE

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs `emit` milliseconds
if TYPE_CHECKING:
    from typing import Any

MAX_BODY_BYTES = 64 * 1024  # events.MAX_BODY_BYTES; a test pins that they agree
MAX_DEPTH = 256  # events.MAX_DEPTH; a test pins that they agree
# JSON's number grammar (no leading zeros, no sign but minus), which is what msgspec's lax mode
# reads from text; "-0" is left to the full path (msgspec reads it as an int, then a float).
_INT_TEXT = re.compile(r"0|-?[1-9][0-9]{0,17}")
_FLOAT_TEXT = re.compile(r"-?(?:0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?")
_patterns: dict[str, re.Pattern[str]] = {}
_known: dict[str, frozenset[str]] = {}


class _Refused(Exception):
    pass


def _convert(value: Any, spec: tuple[Any, ...], coerce: bool) -> Any:
    tag = spec[0]
    if tag == "opt":
        if value is None:
            return None
        if coerce and value == "null":
            raise _Refused  # msgspec's lax mode has its own opinion: let it decide
        return _convert(value, spec[1], coerce)
    if tag == "str":
        if not isinstance(value, str):
            raise _Refused
        low, high, pattern = spec[1], spec[2], spec[3]
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            raise _Refused
        if pattern is not None:
            compiled = _patterns.get(pattern)
            if compiled is None:
                compiled = _patterns[pattern] = re.compile(pattern)
            if not compiled.search(value):
                raise _Refused
        return value
    if tag == "int":
        if isinstance(value, bool):
            raise _Refused
        if coerce and isinstance(value, str) and _INT_TEXT.fullmatch(value):
            value = int(value)
        if not isinstance(value, int) or (spec[1] is not None and value < spec[1]):
            raise _Refused
        if not -(2**63) <= value < 2**63:  # the full path refuses it, naming the field
            raise _Refused
        return value
    if tag == "float":
        if isinstance(value, bool):
            raise _Refused
        if coerce and isinstance(value, str) and _FLOAT_TEXT.fullmatch(value):
            if value.startswith("-") and float(value) == 0:
                raise _Refused
            value = float(value)
        if isinstance(value, int):
            value = float(value)
        if not isinstance(value, float) or (spec[1] is not None and value < spec[1]):
            raise _Refused
        text = repr(value)
        if "e" in text or "n" in text:  # exponent form differs from msgspec's; nan/inf refused
            raise _Refused
        return value
    if tag == "bool":
        if coerce and value in ("true", "false"):
            return value == "true"
        if not isinstance(value, bool):
            raise _Refused
        return value
    if tag == "lit":
        if not isinstance(value, str) or value not in spec[1]:
            raise _Refused
        return value
    if tag == "list":
        if not isinstance(value, list):
            raise _Refused
        return [_convert(item, spec[1], coerce) for item in value]
    if tag == "dict":
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise _Refused
        return {k: _convert(v, spec[1], coerce) for k, v in value.items()}
    raise _Refused


def _encode(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ",".join(_encode(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_encode(k)}:{_encode(v)}" for k, v in value.items()) + "}"
    raise _Refused


def _is_default(value: object, default: object) -> bool:
    # omit_defaults: msgspec leaves out a value equal to the field's default
    return type(value) is type(default) and value == default


def encode_body(kind: str, body: object, *, coerce: bool) -> bytes | None:
    """The body's JSON exactly as the full path would write it, or None (take the full path)."""
    fields = TABLE.get(kind)
    if fields is None or not isinstance(body, dict):
        return None
    known = _known.get(kind)
    if known is None:
        known = _known[kind] = frozenset(f[0] for f in fields)
    if not known.issuperset(body):
        return None
    parts = []
    try:
        for name, spec, required, default in fields:
            if name not in body:
                if required:
                    return None
                continue
            value = _convert(body[name], spec, coerce)
            if not required and _is_default(value, default):
                continue
            parts.append(f"{_encode(name)}:{_encode(value)}")
        data = ("{" + ",".join(parts) + "}").encode("utf-8")
    except (_Refused, UnicodeEncodeError, RecursionError):
        return None
    return data if len(data) <= MAX_BODY_BYTES else None
