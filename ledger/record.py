"""The on-disk record: one JSON line per event, self-checking by its own hash.

A record line is ``{"id":"<64 hex>",<the rest>}\\n`` where ``id`` is the BLAKE3 of the same
line without its ``"id":"…",`` member, i.e. of ``{<the rest>}``. Verification therefore works on
the raw bytes and needs no schema: an old reader can verify a record written by a newer labledger
whose fields it does not know, and a re-encoding can never disagree with the stored bytes.

``prev`` is the id of the writer's previous record (``null`` for its first) and ``seq`` its position
(0-based, contiguous across the writer's segments): the hash chain that makes a deleted, reordered
or substituted record detectable.
"""

from __future__ import annotations

from typing import Any

import msgspec
from blake3 import blake3

ID_PREFIX = b'{"id":"'
_ID_END = len(ID_PREFIX) + 64  # offset of the '",' that closes the id
_REST = _ID_END + 2  # offset of the first byte after '",'


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
    body: msgspec.Raw = msgspec.Raw(b"{}")


_encoder = msgspec.json.Encoder()
_record_decoder = msgspec.json.Decoder(Record)


def encode_record(
    *, v: int, seq: int, prev: str | None, ts: str, writer: str, actor: str, kind: str,
    run: str | None, instance: str | None, recorded: str | None, body: bytes,
) -> tuple[str, bytes]:
    """Return ``(id, line)`` for a new record; ``line`` ends with a newline."""
    unsigned = _encoder.encode(_Unsigned(
        v=v, seq=seq, prev=prev, ts=ts, writer=writer, actor=actor, kind=kind, run=run,
        instance=instance, recorded=recorded, body=msgspec.Raw(body),
    ))
    digest = blake3(unsigned).hexdigest()
    return digest, b"".join((ID_PREFIX, digest.encode(), b'",', unsigned[1:], b"\n"))


class RecordError(ValueError):
    """A line that is not a valid record; the message says which check failed."""


def verify_line(line: bytes) -> Record:
    """Check a line (without its newline) against its own id and decode it."""
    if not line.startswith(ID_PREFIX) or line[_ID_END:_REST] != b'",':
        raise RecordError("line does not start with a record id")
    claimed = line[len(ID_PREFIX):_ID_END]
    actual = blake3(b"{" + line[_REST:]).hexdigest().encode()
    if claimed != actual:
        raise RecordError(f"content does not match its id {claimed.decode(errors='replace')}")
    try:
        return _record_decoder.decode(line)
    except msgspec.DecodeError as exc:  # hash matched but fields are wrong: a bad writer
        raise RecordError(f"record fields are invalid: {exc}") from None
