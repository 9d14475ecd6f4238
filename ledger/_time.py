"""The ledger's one timestamp format, from the `time` module alone (no datetime import).

RFC 3339 UTC with exactly six fractional digits, e.g. ``2026-12-02T14:01:22.000123Z``: DuckDB
reads it as one type and text order equals time order.
"""

from __future__ import annotations

import time

_cache: tuple[int, str] = (-1, "")


def now_ts() -> str:
    """The current UTC time in the ledger format."""
    global _cache
    ns = time.time_ns()
    seconds, rest = divmod(ns, 1_000_000_000)
    cached_second, prefix = _cache
    if seconds != cached_second:  # strftime is most of the cost: reuse it within a second
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(seconds))
        _cache = (seconds, prefix)
    return f"{prefix}{rest // 1000:06d}Z"
