"""Staleness: which facts were last checked too long ago to bet money or data on.

Only a fact's own ``verified`` stamp counts: the loader reads it from the typed field, never by
searching text, so a date inside a ``source`` or ``note`` neither refreshes nor ages a fact.

A stamp ``YYYY-MM`` is read as the first day of that month (the earliest it may have been
checked), so the rule errs towards re-checking: with ``months=6`` a fact stamped ``2026-06`` is
stale from 2026-12-02 on (more than six months after 2026-06-01).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

import msgspec

from labledger.profiles.loader import LoadedProfile
from labledger.profiles.profile import iter_facts


class StaleFact(msgspec.Struct, frozen=True, kw_only=True):
    """One fact whose stamp is older than the limit."""

    profile: str
    fact: str
    verified: str
    age_months: int
    source: str
    file: str
    line: int | None


def stamp_date(stamp: str) -> date:
    """``"2026-06"`` -> ``date(2026, 6, 1)``."""
    year, month = stamp.split("-")
    return date(int(year), int(month), 1)


def add_months(day: date, months: int) -> date:
    """``day`` moved by whole months (only used on first-of-month dates)."""
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, day.day)


def months_between(start: date, end: date) -> int:
    """Whole months from ``start`` to ``end`` (negative when ``end`` is earlier)."""
    months = (end.year - start.year) * 12 + end.month - start.month
    if end.day < start.day:
        months -= 1
    return months


def is_stale(stamp: str, *, months: int, today: date) -> bool:
    """Whether a fact stamped ``stamp`` is more than ``months`` months old on ``today``."""
    return today > add_months(stamp_date(stamp), months)


def stale(profiles: Iterable[LoadedProfile], *, months: int = 6,
          today: date) -> list[StaleFact]:
    """Every fact of ``profiles`` whose own stamp is more than ``months`` months old.

    Sorted by profile, then file order. ``months`` must be >= 0 (``ValueError`` otherwise).
    """
    if months < 0:
        raise ValueError(f"months must be 0 or more, not {months}")
    found = []
    for loaded in profiles:
        for path, fact in iter_facts(loaded.profile):
            if is_stale(fact.verified, months=months, today=today):
                found.append(StaleFact(
                    profile=loaded.name, fact=path, verified=fact.verified,
                    age_months=months_between(stamp_date(fact.verified), today),
                    source=fact.source, file=loaded.file, line=loaded.line(f"{path}.verified")))
    return found
