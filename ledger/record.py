"""The on-disk record: one JSON line per event, self-checking by its own hash.

A record line is ``{"id":"<64 hex>",<the rest>}\\n`` where ``id`` is the BLAKE3 of the same
line without its ``"id":"…",`` member, i.e. of ``{<the rest>}``. Verification therefore works on
the raw bytes and needs no schema: an old reader can verify a record written by a newer labledger
whose fields it does not know, and a re-encoding can never disagree with the stored bytes.

``more`` (present only when true) marks every record of a multi-event batch but its last, so
recovery can cut a batch that a crash left incomplete (all or nothing, see segment.py).

``prev`` is the id of the writer's previous record (``null`` for its first) and ``seq`` its position
(0-based, contiguous across the writer's segments): the hash chain that makes a deleted, reordered
or substituted record detectable.
"""

from __future__ import annotations

from typing import Any

import msgspec
from blake3 import blake3

from labledger.ledger._line import ID_PREFIX, LineError, checked_id

# A record is a `_line.LineError` when it fails; callers catch RecordError (the same class).
RecordError = LineError


class Record(msgspec.Struct, frozen=True, kw_only=True):
    """A decoded record; ``body`` stays raw JSON until a caller asks for its typed form."""

    id: str
    v: int
    seq: int
    prev: str | None
    ts: str
    writer: str
    actor: str
    kind: str
    run: str | None = None
    instance: str | None = None
    recorded: str | None = None
    more: bool = False  # more records of the same batch follow (see segment.py)
    body: msgspec.Raw = msgspec.Raw(b"{}")

    def body_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = msgspec.json.decode(self.body)
        return data

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (body decoded), as `log --json` prints it."""
        out = {f: getattr(self, f) for f in self.__struct_fields__ if f != "body"}
        out["body"] = self.body_dict()
        return out


class _Unsigned(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    # Field order is the byte order of the line: keep it identical to Record minus ``id``.
    v: int
    seq: int
    prev: str | None
    ts: str
    writer: str
    actor: str
    kind: str
    run: str | None = None
    instance: str | None = None
    recorded: str | None = None
    more: bool = False
    body: msgspec.Raw = msgspec.Raw(b"{}")


_encoder = msgspec.json.Encoder()
_record_decoder = msgspec.json.Decoder(Record)


def encode_record(
    *, v: int, seq: int, prev: str | None, ts: str, writer: str, actor: str, kind: str,
    run: str | None, instance: str | None, recorded: str | None, body: bytes, more: bool = False,
) -> tuple[str, bytes]:
    """Return ``(id, line)`` for a new record; ``line`` ends with a newline.

    The fast bulk encoder; `_line.encode_line` writes the same bytes without msgspec.
    """
    unsigned = _encoder.encode(_Unsigned(
        v=v, seq=seq, prev=prev, ts=ts, writer=writer, actor=actor, kind=kind, run=run,
        instance=instance, recorded=recorded, more=more, body=msgspec.Raw(body),
    ))
    digest = blake3(unsigned).hexdigest()
    return digest, b"".join((ID_PREFIX, digest.encode(), b'",', unsigned[1:], b"\n"))


def verify_line(line: bytes) -> Record:
    """Check a line (without its newline) against its own id and decode it."""
    checked_id(line)
    try:
        return _record_decoder.decode(line)
    except msgspec.DecodeError as exc:  # hash matched but fields are wrong: a bad writer
        raise RecordError(f"record fields are invalid: {exc}") from None
