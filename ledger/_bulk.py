"""Bulk ingest: JSON lines straight to record lines, for `labledger ingest` and `Ledger.ingest`.

Two passes, with the same contract as `Ledger.append_batch` (validate everything, then one lock,
one write, one fsync; all or nothing):

1. `parse_lines` (no lock held) decodes each line into its kind's body struct *directly*, with
   unknown fields forbidden (`_strict`), instead of JSON → dict → `validate_body`; it keeps the
   encoded body and a shared, cached encoding of the envelope (ts, actor, kind, run, instance,
   recorded), which a batch repeats a lot. Every event of the batch gets the same timestamp.
   A chunk of lines is taken at once (`_parse_chunk`: each step one C-level ``map`` or scan
   over the chunk, no Python code per line), which leaves room for the duplicate-key check
   (below) at no cost; a chunk it cannot take goes line by line (`_parse_each`).
   With ``parallel`` (the CLI), a large input's second half is parsed by a forked child.
2. `Batch.render` (under the writer's lock, see `SegmentWriter.append_rendered`) chains them:
   one formatted line and one BLAKE3 per event into one buffer, bytes identical to
   `record.encode_record`'s. No `Record`, `Draft` or `EventInput` object per event.

The fast decode is only a shortcut for lines it can prove valid. Any line it cannot take (a
decode or validation failure, an unknown kind, a body whose kind nests structs, a body holding
``null`` (a NaN/infinity check is due), an oversize body, a bad run/instance/at) goes through
the general path for that line: the `EventInput` decoder and `make_draft`, i.e. exactly what
`ingest` did before, so every refusal has the message it had. Errors keep their precedence: a
line that does not decode (UTF-8, JSON, envelope) is reported before any body error, as when
the whole input was decoded before any body was validated.

A key given twice in one object of a line (JSON readers keep the last: ``{"kind":"note",
"kind":"run.exited"}``) is such a decode error, named with its line and path (`duplicate_key`
reads a line exactly). Reading every line twice would halve the rate, so the fast path proves
most lines free of it by counting colons: what a line decodes to never holds more colons than
the line (see `_parse_chunk`), and holds as many only when nothing, no second key, was dropped.
A run event without a run (`make_draft` refuses it) is sent the general way by `_Heads`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import types
from binascii import hexlify
from collections.abc import Callable
from itertools import compress, islice, repeat
from operator import add, attrgetter, is_, itemgetter, ne
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import msgspec
import msgspec.inspect
from blake3 import blake3

from labledger.ledger import events as ev
from labledger.ledger._fast_emit import needs_run
from labledger.ledger._identity import id_problem
from labledger.ledger.errors import InvalidEventError
from labledger.ledger.ledger import EventInput, event_input_problem, make_draft

CHUNK = 1 << 22  # the input is split this many bytes at a time: line objects for a chunk only

_encode = msgspec.json.Encoder().encode
_event_input = msgspec.json.Decoder(EventInput)
_NO_BODY = msgspec.Raw(b"{}")  # msgspec gives this very object for a line without a body


class _Envelope(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`EventInput` with the body left as raw JSON for its kind's decoder: same fields, types."""

    kind: str
    body: msgspec.Raw = _NO_BODY
    run: str | None = None
    instance: str | None = None
    at: str | None = None
    actor: str | None = None


_envelope = msgspec.json.Decoder(_Envelope)


class _Refuse:
    """The 'decoder' of a kind the fast path does not take: sends the line to the general path."""

    def decode(self, raw: Any) -> Any:
        raise msgspec.DecodeError("not for the fast path")


class _Decoders(dict[str, Any]):
    def __missing__(self, kind: str) -> _Refuse:
        return _Refuse()


_INT64 = msgspec.Meta(ge=ev._INT64_MIN, le=ev._INT64_MAX)


def _bounded(t: Any) -> Any:
    """Type ``t`` with every ``int`` in it limited to 64 bits (checked by msgspec, in C)."""
    if t is int:
        return Annotated[int, _INT64]
    origin, args = get_origin(t), get_args(t)
    if origin is Annotated and args[0] is int:
        # A bound already there (NonNeg's ge=0) stays; the other side is added.
        has_ge = any(getattr(m, "ge", None) is not None for m in t.__metadata__)
        extra = msgspec.Meta(le=ev._INT64_MAX) if has_ge else _INT64
        return Annotated[(int, *t.__metadata__, extra)]
    if origin in (Union, types.UnionType):
        return Union[tuple(_bounded(a) for a in args)]  # noqa: UP007 - built from a tuple
    if origin is list:
        return types.GenericAlias(list, (_bounded(args[0]),))
    if origin is dict:
        return types.GenericAlias(dict, (args[0], _bounded(args[1])))
    return t


def _has_any(t: Any) -> bool:
    """Whether ``t`` can hold values of any type (where `_bounded` cannot reach an int)."""
    return t is Any or any(_has_any(a) for a in get_args(t) if not isinstance(a, msgspec.Meta))


def _strict(cls: type[ev.Body]) -> type[ev.Body] | None:
    """``cls`` with unknown fields refused at decode (what `validate_body`'s key check does)
    and integers limited to 64 bits (its range check); None for a kind whose fields, besides
    ``extra``, can hold anything (`_parse_range` checks ``extra`` itself)."""
    hints = get_type_hints(cls, include_extras=True)
    if any(_has_any(hints[name]) for name in cls.__struct_fields__ if name != "extra"):
        return None
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    namespace: dict[str, Any] = {"__annotations__": {}}
    for f in info.fields:
        bounded = _bounded(hints[f.name])
        if bounded is hints[f.name]:
            continue
        namespace["__annotations__"][f.name] = bounded
        if f.default_factory is not msgspec.NODEFAULT:
            namespace[f.name] = msgspec.field(default_factory=f.default_factory)
        elif f.default is not msgspec.NODEFAULT:
            namespace[f.name] = f.default
    return types.new_class(cls.__name__, (cls,), {"forbid_unknown_fields": True, "kw_only": True},
                           lambda ns: ns.update(namespace))


def _decoders() -> _Decoders:
    """A strict JSON decoder per kind whose body holds no struct below its top level.

    A nested struct (pull.listed's entries) would need its own strict variant; such kinds are
    rare in bulk and take the general path, which checks nested members. So do kinds with a
    free-form field besides ``extra`` (instance.rented's profile_snapshot).
    """
    table = _Decoders()
    for kind in ev.KINDS:
        decoder = _BODY_DECODERS[kind]
        if decoder.type is not msgspec.Raw:
            table[kind] = decoder
    return table


class _BodyDecoders(dict[str, "msgspec.json.Decoder[Any]"]):
    """Per kind, a strict JSON decoder of its body (see `_decoders`), or one of raw JSON for a
    kind without a strict type (the general path takes those lines); an unknown kind is a
    KeyError. Built as kinds are met: a batch holds a few, and building them all costs as
    much as ingesting thousands of events."""

    def __missing__(self, kind: str) -> msgspec.json.Decoder[Any]:
        cls = ev.KINDS[kind]
        info = msgspec.inspect.type_info(cls)
        assert isinstance(info, msgspec.inspect.StructType)
        strict = None if any(ev._nests_struct(f.type) for f in info.fields) else _strict(cls)
        self[kind] = found = msgspec.json.Decoder(msgspec.Raw if strict is None else strict)
        return found


_BODY_DECODERS = _BodyDecoders()


def _suspect(body: bytes) -> bool:
    """Whether a body's ``extra`` (free-form: no type bounds its integers or its depth) may
    hold an integer past 64 bits or nest too deeply: then the general path judges it. Both
    tests run in C; only bodies that carry ``extra`` pay for them."""
    return ev._LONG_DIGITS.search(body) is not None or ev.may_be_too_deep(body)


Head = tuple[bytes, bytes, int]


class _Heads(dict[tuple[str, str | None, str | None, str | None, str | None], "Head | None"]):
    """(kind, run, instance, at, actor) → (encoded ts, ``,"actor":…`` up to the body, how many
    colons the line's envelope holds outside its body when it gives one), cached.

    None for an envelope with a bad run, instance or at, or a run event without a run: the
    general path reports it.
    """

    def __init__(self, now: str, actor: str) -> None:
        super().__init__()
        self.now, self.actor = _encode(now), actor
        self.latest = ev.latest_ts()  # an `at` after this is in the future

    def __missing__(self, key: tuple[str, str | None, str | None, str | None, str | None]
                    ) -> Head | None:
        kind, run, instance, at, actor = key
        head: Head | None = None
        if (id_problem("run", run) is None and id_problem("instance", instance) is None
                and (run is not None or not needs_run(kind))):
            try:
                ts = self.now if at is None else _encode(ev.parse_ts(at))
            except ValueError:
                pass
            else:
                if at is not None and ev.future_problem(ts[1:-1].decode(), self.latest):
                    self[key] = None
                    return None
                parts = [b',"actor":', _encode(actor or self.actor), b',"kind":', _encode(kind)]
                if run is not None:
                    parts += (b',"run":', _encode(run))
                if instance is not None:
                    parts += (b',"instance":', _encode(instance))
                if at is not None:
                    parts += (b',"recorded":', self.now)
                given = [value for value in (kind, run, instance, at, actor) if value is not None]
                # the colons of its members (kind, body and those given) and in their values
                colons = len(given) + 1 + sum(value.count(":") for value in given)
                head = (ts, b"".join(parts), colons)
        self[key] = head
        return head


class Ingested:
    """What a batch ingest acknowledged: how many events, and their first and last seq."""

    __slots__ = ("appended", "first_seq", "last_id", "last_seq")

    def __init__(self, appended: int, first_seq: int | None, last_id: str | None) -> None:
        self.appended, self.first_seq, self.last_id = appended, first_seq, last_id
        self.last_seq = None if first_seq is None else first_seq + appended - 1

    def __repr__(self) -> str:
        return (f"Ingested(appended={self.appended}, first_seq={self.first_seq}, "
                f"last_seq={self.last_seq})")


_RENDER_BLOCK = 1 << 16  # records rendered between two progress reports


class Batch:
    """Validated events, encoded but for their place in the chain (see `render`)."""

    __slots__ = ("bodies", "heads")

    def __init__(self, heads: list[Head], bodies: list[bytes]) -> None:
        self.heads, self.bodies = heads, bodies

    def __len__(self) -> int:
        return len(self.bodies)

    def render(self, seq: int, prev: str | None, writer: str,
               progress: Callable[[int], None] | None = None) -> tuple[bytearray, str]:
        """The record lines from ``seq`` on, chained to ``prev``: the bytes `encode_record`
        writes for the same fields (field order v, seq, prev, ts, writer, actor, kind, run,
        instance, recorded, more, body; ``more`` on all but the last). ``progress`` is called
        with a count of records as they are rendered (`_RENDER_BLOCK` at a time)."""
        count = len(self.bodies)
        if count == 0:
            raise ValueError("an empty batch has no records")
        v = str(ev.SCHEMA_VERSION).encode()
        w = _encode(writer).replace(b"%", b"%%")
        start = b'{"v":' + v + b',"seq":%d,"prev":'
        middle = b',"ts":%b,"writer":' + w + b"%b"
        more_end, last_end = b',"more":true,"body":%b}', b',"body":%b}'
        chained = start + b'"%b"' + middle + more_end  # every record but the first and the last
        first_prev = b"null" if prev is None else b'"' + prev.encode() + b'"'
        out = bytearray()
        heads, bodies = self.heads, self.bodies
        # One hasher, reset for each record: a third cheaper per record than a new one.
        hasher = blake3()
        reset, update, digest = hasher.reset, hasher.update, hasher.digest
        (ts, meta, _), body = heads[0], bodies[0]
        first = start + first_prev.replace(b"%", b"%%") + middle + (
            more_end if count > 1 else last_end)
        unsigned = first % (seq, ts, meta, body)
        update(unsigned)
        rid = hexlify(digest())
        out += b'{"id":"%b",%b\n' % (rid, unsigned[1:])
        unreported = 1  # the first record
        for block in range(1, count - 1, _RENDER_BLOCK):
            stop = min(block + _RENDER_BLOCK, count - 1)
            for (ts, meta, _), body in zip(islice(heads, block, stop), islice(bodies, block, stop),
                                         strict=True):
                seq += 1
                unsigned = chained % (seq, rid, ts, meta, body)
                reset()
                update(unsigned)
                rid = hexlify(digest())
                out += b'{"id":"%b",%b\n' % (rid, unsigned[1:])
            if progress is not None:
                progress(stop - block + unreported)
                unreported = 0
        if count > 1:
            (ts, meta, _), body = heads[-1], bodies[-1]
            unsigned = (start + b'"%b"' + middle + last_end) % (seq + 1, rid, ts, meta, body)
            reset()
            update(unsigned)
            rid = hexlify(digest())
            out += b'{"id":"%b",%b\n' % (rid, unsigned[1:])
        if progress is not None:  # the last record (and the first, when no block ran)
            progress(unreported + (count > 1))
        return out, rid.decode()


class _Deferred(Exception):  # noqa: N818 - a control-flow signal, caught in this module
    """A body error: reported only if no later line fails to decode (see the module doc)."""

    def __init__(self, error: InvalidEventError, line: int) -> None:
        super().__init__(str(error))
        self.error, self.line = error, line


def _decode_problem(line: bytes, number: int, check_utf8: bool,
                    source: str | None) -> InvalidEventError | EventInput:
    """What decoding one line gives: the event, or the error `ingest` has always reported."""
    if check_utf8:
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return InvalidEventError(f"invalid UTF-8 at byte {exc.start}", line=number,
                                     source=source)
    invalid: msgspec.ValidationError | None = None
    try:
        item: EventInput = _event_input.decode(line)
    except RecursionError:
        return InvalidEventError(ev.TOO_DEEP, line=number, source=source)
    except msgspec.ValidationError as exc:
        invalid = exc
    except msgspec.DecodeError as exc:
        return InvalidEventError(_not_json(line, number, exc), line=number, source=source)
    twice = duplicate_key(line)  # JSON, but which of two values would it mean?
    if twice is not None:
        return InvalidEventError(twice_problem(twice[1]), field=twice[0], line=number,
                                 source=source)
    if invalid is not None:
        return InvalidEventError(event_input_problem(invalid), line=number, source=source)
    return item


class _Twice(dict[str, Any]):
    """An object that holds ``key`` more than once (the members kept: the last of each)."""

    key = ""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    twice, seen = _Twice(found), set()
    for key, _ in pairs:
        if key in seen:
            twice.key = key
            break
        seen.add(key)
    return twice


def duplicate_key(line: bytes | str) -> tuple[str, str] | None:
    """(path, key) of the first key given twice in one object of the JSON ``line`` (in document
    order; the path as labledger's messages write it, e.g. ``body.metrics.loss``), or None
    (also for a line that is not JSON, or too deep to read: other checks refuse those)."""
    try:
        value = json.loads(line, object_pairs_hook=_pairs)
    except (ValueError, RecursionError):
        return None
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _Twice):
            return (f"{path}.{item.key}" if path else item.key), item.key
        if isinstance(item, dict):
            children = [(v, f"{path}.{k}" if path else k) for k, v in item.items()]
        elif isinstance(item, list):
            children = [(v, f"{path}[{i}]") for i, v in enumerate(item)]
        else:
            continue
        stack.extend(reversed(children))
    return None


def twice_problem(key: str) -> str:
    return (f"key {key!r} is given twice in one object (a JSON reader would keep only the "
            "last); give each key once")


_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _not_json(line: bytes, number: int, exc: msgspec.DecodeError) -> str:
    """Why a line is not JSON, in words where msgspec's would mislead."""
    if number == 1 and line.startswith(b"\xef\xbb\xbf"):
        return ("not a JSON event (the file starts with a UTF-8 byte-order mark; save it "
                "without one)")
    if "truncated" in str(exc) and _SURROGATE.search(line):
        # msgspec reads an unpaired \ud800 escape as text cut short
        return ("not a JSON event (invalid text: a lone surrogate, a \\ud800-\\udfff escape "
                "without its pair)")
    return f"not a JSON event ({exc})"


def _raise_first_decode_error(data: bytes, after: int, check_utf8: bool, source: str | None,
                              start: int = 0, end: int | None = None, first: int = 1) -> None:
    """Raise the decode error of the first line past line ``after`` that has one, if any.

    Looks at ``data[start:end]``, whose first line is line ``first``.
    """
    for number, line in enumerate(data[start:end].split(b"\n"), start=first):
        if number <= after or not line or line.isspace():
            continue
        found = _decode_problem(line, number, check_utf8, source)
        if isinstance(found, InvalidEventError):
            raise found


PARALLEL_MIN = 32 << 20  # inputs from this size parse in two processes (see parse_lines)


def parse_lines(data: bytes, *, actor: str, source: str | None = None,
                parallel: bool = False, progress: Callable[[int], None] | None = None) -> Batch:
    """Validate a JSON-lines batch (blank lines skipped) and encode it; raises
    `InvalidEventError` naming the line (numbered in ``data``), the kind and the field.

    ``actor`` is the default for events that name none (the ledger's). ``parallel`` lets a
    large input's second half be parsed in a forked child while this process parses the first
    (for a single-threaded caller such as the CLI: forking a threaded program is unsafe); the
    outcome, errors included, is the same as parsing it in one piece. ``progress`` is called
    with a count of bytes as they are validated (a chunk of megabytes at a time; in two
    processes, this one's share stands for the whole: the halves are parsed side by side).
    """
    all_utf8 = data.isascii()
    if not all_utf8:
        try:
            data.decode("utf-8")
            all_utf8 = True
        except UnicodeDecodeError:
            # Some line is not UTF-8, so the batch fails at the first line that does not
            # decode: that line or an earlier one.
            _raise_first_decode_error(data, 0, True, source)
            raise InvalidEventError("input is not valid UTF-8", source=source) from None
    heads_of = _Heads(ev.now_ts(), actor)
    size = len(data)
    if parallel and size >= PARALLEL_MIN and hasattr(os, "fork") and _cpus() > 1:
        middle = data.find(b"\n", size // 2)
        if middle >= 0:
            return _parse_in_two(data, middle, heads_of, source, progress)
    try:
        heads, bodies = _parse_range(data, 0, size, 1, heads_of, source, progress)
    except _Deferred as deferred:  # no line after it fails to decode
        raise deferred.error from None
    return Batch(heads, bodies)


_PLACEHOLDER = ev.Body()  # a body the general path replaces: no keys, `extra` None
_NO_HEAD: Head = (b"", b"", 0)  # stands in for a None head until the general path fills it
_BODY = attrgetter("body")
_EXTRA = attrgetter("extra")
_KIND = attrgetter("kind")
_KEY = attrgetter("kind", "run", "instance", "at", "actor")  # a `_Heads` key
_COLONS = itemgetter(2)
_DECODE = msgspec.json.Decoder.decode


def _parse_range(data: bytes, pos: int, end: int, first: int, heads_of: _Heads,
                 source: str | None, progress: Callable[[int], None] | None = None,
                 ) -> tuple[list[Head], list[bytes]]:
    """Parse the lines of ``data[pos:end]`` (the first is line ``first``).

    Raises `InvalidEventError` for the first line that does not decode, or `_Deferred` for the
    first body error when no later line of the range fails to decode.
    """
    heads: list[Head] = []
    bodies: list[bytes] = []
    number, start = first, pos  # the number of the chunk's first line
    try:
        while pos < end:
            cut = data.find(b"\n", pos + CHUNK, end)
            if cut < 0:
                cut = end
            chunk = data[pos:cut]
            lines = chunk.split(b"\n")
            if not _parse_chunk(chunk, lines, number, heads_of, source, heads, bodies):
                _parse_each(lines, number, heads_of, source, heads, bodies)
            number += len(lines)
            if progress is not None:
                progress(min(cut + 1, end) - pos)
            pos = cut + 1
    except _Deferred as deferred:
        _raise_first_decode_error(data, deferred.line, False, source, start, end, first)
        raise
    return heads, bodies


def _parse_chunk(chunk: bytes, lines: list[bytes], first: int, heads_of: _Heads,
                 source: str | None, heads: list[Head], bodies: list[bytes]) -> bool:
    """Parse a chunk's lines (the first is line ``first``) with no Python code per line,
    appending their heads and bodies; False (nothing appended) when some line does not decode
    as an event of a known kind with a valid body (or is blank, but for the last): then
    `_parse_each` takes the chunk, line by line.

    Each step is one C-level ``map`` (or one scan) over the chunk; the lines a step finds
    wrong or doubtful (a None head, an oversize body, a ``null``, a suspect ``extra``, a kind
    without a strict type, a duplicate key or a key count that cannot rule one out) then go
    line by line, in order, as `_parse_each` takes them, so outcomes and errors are the same.
    """
    if lines and not lines[-1]:
        lines = lines[:-1]  # the input's final newline: a blank last line, no event
    try:
        envs = list(map(_envelope.decode, lines))
        typed = list(map(_DECODE, map(_BODY_DECODERS.__getitem__, map(_KIND, envs)),
                         map(_BODY, envs)))
    except (msgspec.DecodeError, RecursionError, KeyError):
        return False
    general: set[int] = set()
    if any(map(isinstance, typed, repeat(msgspec.Raw))):  # kinds the general path takes
        for i, body in enumerate(typed):
            if isinstance(body, msgspec.Raw):
                general.add(i)
                typed[i] = _PLACEHOLDER
    encoded = list(map(_encode, typed))
    found: list[Any] = list(map(heads_of.__getitem__, map(_KEY, envs)))
    if None in found:
        for i, head in enumerate(found):
            if head is None:
                general.add(i)
                found[i] = _NO_HEAD
    if max(map(len, encoded), default=0) > ev.MAX_BODY_BYTES:
        general.update(i for i, body in enumerate(encoded) if len(body) > ev.MAX_BODY_BYTES)
    joined = b"\n".join(encoded)
    if b"null" in joined:  # ("null" cannot span two bodies: each is an object)
        general.update(i for i, body in enumerate(encoded) if b"null" in body)
    if any(map(_EXTRA, typed)):
        general.update(i for i, (t, body) in enumerate(zip(typed, encoded, strict=True))
                       if t.extra is not None and _suspect(body))
    # Duplicate keys, ruled out by counting colons (one after every key, whatever the spacing,
    # and those inside text). What a line decodes to is part of what it holds: its envelope's
    # members and values (`_Heads` counts their colons) and its body's (its encoding holds
    # them), never more. So it holds as many colons only if it holds nothing more: not a
    # second copy of a key. Unless some line breaks a premise (a backslash: an escape can
    # spell a colon; no body: `_Heads` counted one), the sums over the chunk decide at once
    # (equal sums: every line's are equal); else line by line, and a line whose counts differ
    # is checked exactly.
    no_body = any(map(is_, map(_BODY, envs), repeat(_NO_BODY)))
    plain = b"\\" not in chunk
    if not (plain and not no_body and chunk.count(b":") == sum(map(_COLONS, found))
            + joined.count(b":")):
        doubtful = set(compress(range(len(lines)), map(
            ne, map(bytes.count, lines, repeat(b":")),
            map(add, map(_COLONS, found), map(bytes.count, encoded, repeat(b":"))))))
        if no_body:
            doubtful.update(compress(range(len(envs)), map(is_, map(_BODY, envs),
                                                          repeat(_NO_BODY))))
        if not plain:
            doubtful.update(compress(range(len(lines)), map(bytes.__contains__, lines,
                                                            repeat(b"\\"))))
        general.update(i for i in doubtful - general if duplicate_key(lines[i]) is not None)
    for i in sorted(general):
        found[i], encoded[i] = _general(lines[i], first + i, heads_of, source)
    heads += found
    bodies += encoded
    return True


def _parse_each(lines: list[bytes], first: int, heads_of: _Heads, source: str | None,
                heads: list[Head], bodies: list[bytes]) -> None:
    """`_parse_chunk` one line at a time: a line it cannot take goes the general way."""
    decoders, decode_envelope, encode, suspect = _BODY_DECODERS, _envelope.decode, _encode, _suspect
    limit, DecodeError, Raw = ev.MAX_BODY_BYTES, msgspec.DecodeError, msgspec.Raw  # noqa: N806
    for number, line in enumerate(lines, start=first):
        try:
            env = decode_envelope(line)
            typed = decoders[env.kind].decode(env.body)
            body = encode(typed)
            head = None if isinstance(typed, Raw) else heads_of[
                env.kind, env.run, env.instance, env.at, env.actor]
        except (DecodeError, RecursionError, KeyError):  # too deep: the general path says so
            head = None
        if head is None or len(body) > limit or b"null" in body or (
                typed.extra is not None and suspect(body)) or (
                (env.body is _NO_BODY or line.count(b":") != head[2] + body.count(b":")
                 or b"\\" in line) and duplicate_key(line) is not None):
            if not line or line.isspace():
                continue
            head, body = _general(line, number, heads_of, source)
        heads.append(head)
        bodies.append(body)


def _parse_in_two(data: bytes, middle: int, heads_of: _Heads, source: str | None,
                  progress: Callable[[int], None] | None = None) -> Batch:
    """`parse_lines` with ``data[middle + 1:]`` parsed by a forked child, sent back pickled.

    Errors keep their precedence: a line of the first half that does not decode wins; a body
    error of the first half loses only to a decode error of the second; then the second half's
    own outcome.
    """
    import pickle

    second = data.count(b"\n", 0, middle + 1) + 1  # the number of the second half's first line
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its outcome is checked through the parent)
        code = 0
        try:
            os.close(read_end)
            try:
                outcome: tuple[Any, ...] = ("ok", *_parse_range(
                    data, middle + 1, len(data), second, heads_of, source))
            except _Deferred as deferred:
                outcome = ("body", _fields(deferred.error), deferred.line)
            except InvalidEventError as exc:
                outcome = ("decode", _fields(exc))
            with open(write_end, "wb") as out:
                pickle.dump(outcome, out, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - the parent parses the half itself
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    pipe = open(read_end, "rb")  # noqa: SIM115 - closed in the finally below
    child_done = False
    try:
        try:
            scaled = None
            if progress is not None:  # the child's half goes on alongside: report both
                share, told = len(data) / max(1, middle), [0, 0]  # (bytes parsed, reported)

                def scaled(n: int) -> None:
                    told[0] += n
                    step = int(told[0] * share) - told[1]
                    told[1] += step
                    progress(step)
            heads, bodies = _parse_range(data, 0, middle, 1, heads_of, source, scaled)
            mine: _Deferred | None = None
        except _Deferred as deferred:
            mine = deferred
        try:
            theirs = pickle.load(pipe)
        except Exception:  # noqa: BLE001 - a child that died: parse its half here
            theirs = None
        _, status = os.waitpid(pid, 0)
        child_done = True
        if theirs is None or os.waitstatus_to_exitcode(status) != 0:
            try:
                theirs = ("ok", *_parse_range(data, middle + 1, len(data), second, heads_of,
                                              source))
            except _Deferred as deferred:
                theirs = ("body", _fields(deferred.error), deferred.line)
            except InvalidEventError as exc:
                theirs = ("decode", _fields(exc))
        if theirs[0] == "decode" or (mine is None and theirs[0] == "body"):
            raise InvalidEventError(**theirs[1], source=source)
        if mine is not None:
            raise mine.error from None
        heads += theirs[1]
        bodies += theirs[2]
        return Batch(heads, bodies)
    finally:
        pipe.close()
        if not child_done:  # the first half failed to decode: its error wins, stop the child
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _cpus() -> int:
    """CPUs this process may run on (its affinity), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _fields(error: InvalidEventError) -> dict[str, Any]:
    return {"problem": error.problem, "kind": error.kind, "field": error.field,
            "line": error.line}


def _general(line: bytes, number: int, heads_of: _Heads,
             source: str | None) -> tuple[Head, bytes]:
    """One line the long way (as `ingest` always did): the event's head and body, or its error."""
    item = _decode_problem(line, number, False, source)
    if isinstance(item, InvalidEventError):
        raise item
    try:
        draft = make_draft(item.kind, item.body, run=item.run, instance=item.instance,
                           at=item.at, actor=item.actor or heads_of.actor,
                           latest=heads_of.latest)
    except InvalidEventError as exc:
        raise _Deferred(InvalidEventError(exc.problem, kind=exc.kind, field=exc.field,
                                          line=number, source=source), number) from None
    head = heads_of[item.kind, item.run, item.instance, item.at, item.actor]
    assert head is not None, "make_draft accepted what _Heads refused"
    return head, draft.body
