"""Checkpoint cadence: the Young/Daly interval, adjusted to the platform's preemption warning.

Young (1974) and Daly (2006), to first order: with a checkpoint that costs ``C`` seconds and a
mean time between failures ``M``, the interval that wastes least is ``tau = sqrt(2 * M * C)``
(C = 30 s, M = 3 h: about 805 s). Waste per unit of time is then about ``C/tau + tau/(2M)``, and a
failure without warning loses ``tau/2`` of work on average.

Grace adjustment. A platform that warns ``G`` seconds before a preemption lets a signal handler
save on the warning. If the save fits (``G >= C``; a platform whose signal is ``"none"`` gives no
warning at all), an announced preemption loses no work, so periodic checkpoints only have to
cover the failures that come without warning. With a share ``F`` of failures announced, their
mean time apart is ``M / (1 - F)``, and ``tau = sqrt(2 * M / (1 - F) * C)``. If the save does not
fit, the warning buys nothing: ``tau`` stays, ``F`` is ignored, and the advice is to make the
blocking part of the save shorter than ``G``. ``F`` defaults to 0 (count every failure as
unannounced): the only safe answer until someone has measured it.
"""

from __future__ import annotations

import math

import msgspec

from labledger.profiles import Profile

DEFAULT_CHECKPOINT_SECONDS = 30.0  # DOMAIN.md's worked example; measure your own
DEFAULT_MTBF_HOURS = 3.0


class CadenceAdvice(msgspec.Struct, frozen=True, kw_only=True):
    """The advice and every number behind it (fields are only ever added)."""

    profile: str
    checkpoint_seconds: float
    mtbf_hours: float
    young_seconds: float
    grace_seconds: float | None
    signal: str | None
    grace_verified: str | None
    save_fits_in_grace: bool
    announced_share: float
    interval_seconds: float
    overhead: float
    expected_loss_seconds: float
    arithmetic: list[str]
    advice: list[str]


def young_interval(mtbf_seconds: float, checkpoint_seconds: float) -> float:
    """``sqrt(2 * M * C)``, both in seconds."""
    return math.sqrt(2 * mtbf_seconds * checkpoint_seconds)


def _s(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds:.0f} s ({seconds / 3600:.2f} h)"
    if seconds >= 120:
        return f"{seconds:.0f} s ({seconds / 60:.1f} min)"
    return f"{seconds:g} s"


def advise_cadence(profile: Profile, *, checkpoint_seconds: float = DEFAULT_CHECKPOINT_SECONDS,
                   mtbf_hours: float = DEFAULT_MTBF_HOURS,
                   announced_share: float = 0.0) -> CadenceAdvice:
    """Advise a checkpoint interval for ``profile``'s platform.

    Parameters
    ----------
    checkpoint_seconds: what one checkpoint costs (blocking), ``> 0``.
    mtbf_hours: mean time between failures of any kind (preemptions included), ``> 0``.
    announced_share: the share of those failures that come with the platform's warning,
        ``0 <= F < 1``; only used where a save fits in the warning.

    Raises ``ValueError`` for out-of-range numbers.
    """
    if not checkpoint_seconds > 0 or not math.isfinite(checkpoint_seconds):
        raise ValueError(f"checkpoint seconds must be a positive number, not {checkpoint_seconds}")
    if not mtbf_hours > 0 or not math.isfinite(mtbf_hours):
        raise ValueError(f"MTBF hours must be a positive number, not {mtbf_hours}")
    if not 0 <= announced_share < 1:
        raise ValueError(f"the announced share must be in [0, 1), not {announced_share}")
    c, m = checkpoint_seconds, mtbf_hours * 3600
    young = young_interval(m, c)
    if not 0 < young < math.inf:  # 2 * M * C under- or overflowed a float: no advice to give
        raise ValueError(f"a {c:g} s checkpoint with an MTBF of {mtbf_hours:g} h is out of "
                         "range: sqrt(2 * MTBF * C) is not a finite positive number of seconds")
    arithmetic = [
        f"Young/Daly: tau = sqrt(2 * MTBF * C) = sqrt(2 * {m:g} s * {c:g} s) "
        f"= sqrt({2 * m * c:g}) = {young:.1f} s"]
    advice: list[str] = []
    pre = profile.preemption
    grace = pre.grace_seconds if pre is not None else None
    signal = pre.signal if pre is not None else None
    warns = grace is not None and grace > 0 and signal != "none"
    fits = warns and grace is not None and grace >= c
    interval = young
    share = 0.0
    stamp = f" (verified {pre.verified})" if pre is not None else ""
    if pre is None or (not pre.spot and grace is None):
        arithmetic.append(f"grace: {profile.name} records no preemption warning{stamp}; "
                          "tau covers crashes and every other failure")
    elif not warns:
        arithmetic.append(f"grace: {profile.name} preempts with no usable warning{stamp}; "
                          "only periodic checkpoints protect the work")
        advice.append("write each checkpoint atomically (temp file, fsync, rename) so a kill "
                      "mid-save never replaces the last good one")
    elif not fits:
        arithmetic.append(f"grace: {profile.name} warns {grace:g} s before a preemption{stamp}; "
                          f"a {c:g} s save does not fit, so the warning buys nothing")
        advice.append(f"make the blocking part of a save shorter than {grace:g} s (copy the "
                      "state to CPU memory, write it in the background) to save on the warning")
        advice.append("write each checkpoint atomically (temp file, fsync, rename)")
    else:
        on = f" ({signal})" if signal else ""
        arithmetic.append(f"grace: {profile.name} warns {grace:g} s{on} before a "
                          f"preemption{stamp}; a {c:g} s save fits: save on the warning")
        advice.append(f"install a handler for {signal or 'the warning'} that saves a checkpoint "
                      f"and exits; it has {grace:g} s")
        if announced_share > 0:
            share = announced_share
            unannounced = m / (1 - share)
            interval = young_interval(unannounced, c)
            arithmetic.append(
                f"announced share F = {share:g}: failures without warning come every "
                f"MTBF / (1 - F) = {unannounced:g} s; tau = sqrt(2 * {unannounced:g} s * {c:g} s)"
                f" = {interval:.1f} s")
        else:
            advice.append("pass --announced-share F (the share of failures that come with the "
                          "warning) to stretch the interval; 0 is assumed")
    overhead = c / interval
    mtbf_used = m / (1 - share)
    if interval >= mtbf_used:
        advice.append(
            f"the interval ({interval:.0f} s) is not shorter than the mean time between the "
            f"failures it covers ({mtbf_used:g} s): a checkpoint costs too much for this failure "
            "rate, and the first-order formula does not hold here (Daly 2006: with C >= 2 * "
            "MTBF, checkpoint every MTBF); make the save cheaper or the box more reliable")
    arithmetic.append(f"interval: {_s(interval)}; overhead C / tau = {c:g} / {interval:.1f} = "
                      f"{overhead:.1%} of compute; a failure without warning loses tau / 2 = "
                      f"{interval / 2:.0f} s on average")
    return CadenceAdvice(
        profile=profile.name, checkpoint_seconds=c, mtbf_hours=mtbf_hours,
        young_seconds=round(young, 3), grace_seconds=grace, signal=signal,
        grace_verified=pre.verified if pre is not None else None, save_fits_in_grace=fits,
        announced_share=share, interval_seconds=round(interval, 3),
        overhead=round(overhead, 6), expected_loss_seconds=round(interval / 2, 3),
        arithmetic=arithmetic, advice=advice)
