"""Staleness is judged from each fact's own `verified` stamp, and from nothing else."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from labledger.profiles import LoadedProfile, is_stale, load_profiles, shipped_profiles, stale

PROFILE = """\
name = "mybox"
title = "My box, last audited 2019-01"

[kind]
value = "ssh-host"
verified = "2026-06"
source = "provider docs as of 2019-01 (an old date in the text)"
note = "first written 2018-03"

[preemption]
spot = false
verified = "2019-01"
source = "re-checked 2026-07 (a fresh date in the text does not refresh it)"
note = "verified = \\"2026-07\\" is only words here"

[[durable-paths]]
advice = "verified = 2026-08"
verified = "2026-05"
source = "me"
"""


@pytest.fixture
def mybox(tmp_path: Path) -> list[LoadedProfile]:
    folder = tmp_path / "profiles"
    folder.mkdir()
    (folder / "mybox.toml").write_text(PROFILE, encoding="utf-8")
    return [load_profiles(folder)["mybox"]]


def test_only_the_stamp_counts_never_a_date_elsewhere(mybox: list[LoadedProfile]) -> None:
    found = stale(mybox, months=6, today=date(2026, 8, 15))
    assert [(s.fact, s.verified) for s in found] == [("preemption", "2019-01")]
    assert found[0].line == 12  # the line of its `verified` key
    assert found[0].age_months == 91
    assert found[0].profile == "mybox"


def test_a_fresh_limit_catches_the_younger_stamps(mybox: list[LoadedProfile]) -> None:
    found = stale(mybox, months=1, today=date(2026, 8, 15))
    assert [s.fact for s in found] == ["kind", "preemption", "durable-paths[0]"]
    assert [s.line for s in found] == [6, 12, 18]


@pytest.mark.parametrize(("today", "months", "expected"), [
    (date(2026, 12, 1), 6, False),   # exactly six months after 2026-06-01: not yet older
    (date(2026, 12, 2), 6, True),    # one day more
    (date(2026, 6, 1), 0, False),
    (date(2026, 6, 2), 0, True),
    (date(2027, 6, 1), 12, False),
    (date(2027, 6, 2), 12, True),
    (date(2025, 1, 1), 6, False),    # a stamp in the future is not stale
])
def test_boundaries(today: date, months: int, expected: bool) -> None:
    assert is_stale("2026-06", months=months, today=today) is expected


def test_year_wrap() -> None:
    assert is_stale("2026-09", months=6, today=date(2027, 3, 1)) is False
    assert is_stale("2026-09", months=6, today=date(2027, 3, 2)) is True


def test_negative_months_are_refused(mybox: list[LoadedProfile]) -> None:
    with pytest.raises(ValueError, match="months"):
        stale(mybox, months=-1, today=date(2026, 1, 1))


def test_shipped_seed_facts_are_fresh_until_december_2026() -> None:
    """DOMAIN.md's facts are stamped 2026-06; only older stamps are stale before 2026-12-02."""
    shipped = list(shipped_profiles().values())
    found = stale(shipped, months=6, today=date(2026, 12, 1))
    assert found
    assert {s.verified for s in found} == {"2025-01"}
    later = stale(shipped, months=6, today=date(2026, 12, 2))
    assert {s.verified for s in later} == {"2025-01", "2026-06"}
