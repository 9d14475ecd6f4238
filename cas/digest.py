"""Digests: ``blake3:<64 lowercase hex>``, the only way objects are named."""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
from blake3 import blake3

from labledger.cas.errors import MalformedDigestError

ALGORITHM = "blake3"
PREFIX = "blake3:"
HEX_LENGTH = 64
DIGEST_PATTERN = r"^blake3:[0-9a-f]{64}$"

Digest = Annotated[str, msgspec.Meta(pattern=DIGEST_PATTERN)]
"""A digest string, for msgspec schemas that persist one."""

_DIGEST_RE = re.compile(DIGEST_PATTERN)
_HEX_RE = re.compile(r"^[0-9a-f]{64}$")


def parse_digest(value: str) -> str:
    """Validate ``value`` and return its 64-character hex part.

    Raises
    ------
    MalformedDigestError
        ``value`` is not ``blake3:`` followed by 64 lowercase hex characters.
    """
    if not isinstance(value, str) or _DIGEST_RE.fullmatch(value) is None:
        raise MalformedDigestError(str(value))
    return value[len(PREFIX) :]


def is_digest(value: str) -> bool:
    """Whether ``value`` is a well-formed digest string."""
    return isinstance(value, str) and _DIGEST_RE.fullmatch(value) is not None


def format_digest(hex_digest: str) -> str:
    """``blake3:<hex>`` from a 64-character lowercase hex string."""
    if _HEX_RE.fullmatch(hex_digest) is None:
        raise MalformedDigestError(hex_digest)
    return PREFIX + hex_digest


def digest_bytes(data: bytes | bytearray | memoryview) -> str:
    """The digest of ``data`` (what `Store.put_bytes` would name it)."""
    return PREFIX + blake3(data).hexdigest()
