"""Checkpoint cadence: Young/Daly's sqrt(2*MTBF*C), and the preemption-grace adjustment."""

from __future__ import annotations

import math

import pytest

from labledger.profiles import Profile, parse_profile, shipped_profiles
from labledger.reconcile.cadence import advise_cadence, young_interval


def profile_with(preemption: str) -> Profile:
    return parse_profile(f"""\
name = "p"
title = "P"
[kind]
value = "gpu-container"
verified = "2026-06"
source = "test"
{preemption}
""", "<test>")


WARNS_120 = """[preemption]
spot = true
grace-seconds = 120
signal = "SIGTERM"
verified = "2026-06"
source = "test"
"""


def test_the_domain_example_gives_about_805_seconds() -> None:
    assert young_interval(3 * 3600, 30) == pytest.approx(804.984, abs=1e-3)
    advice = advise_cadence(shipped_profiles()["autodl"].profile, checkpoint_seconds=30,
                            mtbf_hours=3)
    assert advice.interval_seconds == pytest.approx(804.984, abs=1e-3)
    assert advice.young_seconds == advice.interval_seconds
    assert advice.overhead == pytest.approx(30 / 804.984, abs=1e-6)
    assert advice.expected_loss_seconds == pytest.approx(402.492, abs=1e-3)
    assert "sqrt(2 * 10800 s * 30 s) = sqrt(648000) = 805.0 s" in advice.arithmetic[0]


def test_defaults_are_the_worked_example() -> None:
    advice = advise_cadence(shipped_profiles()["local"].profile)
    assert (advice.checkpoint_seconds, advice.mtbf_hours) == (30, 3)


def test_a_grace_too_short_for_the_save_changes_nothing() -> None:
    """RunPod warns ~5 s before a preemption; a 30 s save does not fit."""
    advice = advise_cadence(shipped_profiles()["runpod"].profile, checkpoint_seconds=30,
                            mtbf_hours=3, announced_share=0.5)
    assert advice.grace_seconds == 5
    assert advice.save_fits_in_grace is False
    assert advice.announced_share == 0
    assert advice.interval_seconds == pytest.approx(804.984, abs=1e-3)
    assert any("shorter than 5 s" in line for line in advice.advice)


def test_a_save_that_fits_in_the_grace_stretches_the_interval() -> None:
    advice = advise_cadence(profile_with(WARNS_120), checkpoint_seconds=30,
                            mtbf_hours=3, announced_share=0.75)
    assert advice.save_fits_in_grace is True
    # failures without warning: every 3 h / (1 - 0.75) = 12 h
    assert advice.interval_seconds == pytest.approx(math.sqrt(2 * 43200 * 30), abs=1e-3)
    assert advice.interval_seconds == pytest.approx(1609.969, abs=1e-3)
    assert any("SIGTERM" in line for line in advice.advice)
    assert any("MTBF / (1 - F) = 43200 s" in line for line in advice.arithmetic)


def test_a_fitting_grace_without_a_share_keeps_young_and_says_so() -> None:
    advice = advise_cadence(profile_with(WARNS_120), checkpoint_seconds=30)
    assert advice.save_fits_in_grace is True
    assert advice.interval_seconds == pytest.approx(804.984, abs=1e-3)
    assert any("--announced-share" in line for line in advice.advice)


def test_the_save_must_fit_the_grace_exactly() -> None:
    profile = profile_with(WARNS_120)
    fits = advise_cadence(profile, checkpoint_seconds=120, announced_share=0.5)
    misses = advise_cadence(profile, checkpoint_seconds=121, announced_share=0.5)
    assert fits.save_fits_in_grace is True
    assert misses.save_fits_in_grace is False
    assert misses.interval_seconds == pytest.approx(young_interval(10800, 121), abs=1e-3)


def test_no_signal_means_no_warning_whatever_the_grace() -> None:
    advice = advise_cadence(profile_with(WARNS_120.replace('"SIGTERM"', '"none"')),
                            checkpoint_seconds=1, announced_share=0.9)
    assert advice.save_fits_in_grace is False
    assert advice.interval_seconds == pytest.approx(young_interval(10800, 1), abs=1e-3)


def test_vastai_gives_no_warning() -> None:
    advice = advise_cadence(shipped_profiles()["vastai"].profile, checkpoint_seconds=1,
                            announced_share=0.5)
    assert advice.save_fits_in_grace is False
    assert any("atomically" in line for line in advice.advice)


@pytest.mark.parametrize("kwargs", [
    {"checkpoint_seconds": 0}, {"checkpoint_seconds": -1}, {"checkpoint_seconds": math.nan},
    {"mtbf_hours": 0}, {"mtbf_hours": math.inf}, {"announced_share": 1},
    {"announced_share": -0.1},
])
def test_out_of_range_numbers_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must be"):
        advise_cadence(shipped_profiles()["local"].profile, **kwargs)
