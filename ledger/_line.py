"""The record line at the byte level, with nothing but `json` and `blake3`.

This is the half of `labledger.ledger.record` that the write path needs: computing a line's id,
checking a stored line against its id, and reading the chain fields of a tail line. It imports
no msgspec, so `labledger emit` can append without paying for it (see `_fast_emit`). The bytes
`encode_line` produces are identical to `record.encode_record`'s (a differential test pins it):
`json.dumps(..., ensure_ascii=False)` escapes strings exactly as msgspec does.
"""

from __future__ import annotations

import json

from blake3 import blake3

ID_PREFIX = b'{"id":"'
ID_END = len(ID_PREFIX) + 64  # offset of the '",' that closes the id
REST = ID_END + 2  # offset of the first byte after '",'


class LineError(ValueError):
    """A line that is not a valid record; the message says which check failed."""


def checked_id(line: bytes) -> str:
    """The id of a line (without its newline) after checking the content hashes to it."""
    if not line.startswith(ID_PREFIX) or line[ID_END:REST] != b'",':
        raise LineError("line does not start with a record id")
    claimed = line[len(ID_PREFIX):ID_END]
    if blake3(b"{" + line[REST:]).hexdigest().encode() != claimed:
        raise LineError(f"content does not match its id {claimed.decode(errors='replace')}")
    return claimed.decode()


def chain_fields(line: bytes) -> tuple[int, str, bool]:
    """(seq, id, more) of a verified line: what an appender needs from the tail."""
    rid = checked_id(line)
    try:
        data = json.loads(line)
        seq, more = data["seq"], data.get("more", False)
    except (ValueError, KeyError, TypeError) as exc:
        raise LineError(f"record fields are invalid: {exc}") from None
    if not isinstance(seq, int) or isinstance(seq, bool) or not isinstance(more, bool):
        raise LineError("record fields are invalid: seq or more has the wrong type")
    return seq, rid, more


def _text(value: str | None) -> str:
    return "null" if value is None else json.dumps(value, ensure_ascii=False)


def encode_line(
    *, v: int, seq: int, prev: str | None, ts: str, writer: str, actor: str, kind: str,
    run: str | None, instance: str | None, recorded: str | None, body: bytes, more: bool = False,
) -> tuple[str, bytes]:
    """Return ``(id, line)`` for a new record; ``line`` ends with a newline."""
    parts = [f'{{"v":{v},"seq":{seq},"prev":{_text(prev)},"ts":{_text(ts)},'
             f'"writer":{_text(writer)},"actor":{_text(actor)},"kind":{_text(kind)}']
    if run is not None:
        parts.append(f',"run":{_text(run)}')
    if instance is not None:
        parts.append(f',"instance":{_text(instance)}')
    if recorded is not None:
        parts.append(f',"recorded":{_text(recorded)}')
    if more:
        parts.append(',"more":true')
    unsigned = "".join(parts).encode() + b',"body":' + body + b"}"
    digest = blake3(unsigned).hexdigest()
    return digest, b"".join((ID_PREFIX, digest.encode(), b'",', unsigned[1:], b"\n"))
