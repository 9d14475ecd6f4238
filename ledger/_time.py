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


FUTURE_TOLERANCE_S = 300
"""How far ahead of this clock a given time (`emit --at`, ingest's ``at``) may be: the clock
skew between the machines that write one ledger (the instance commands' ``--at`` allows the
same)."""


def latest_ts() -> str:
    """The latest time an event may say it happened: now plus `FUTURE_TOLERANCE_S`."""
    seconds, rest = divmod(time.time_ns() + FUTURE_TOLERANCE_S * 1_000_000_000, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(seconds)) + f"{rest // 1000:06d}Z"
