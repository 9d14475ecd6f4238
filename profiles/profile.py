"""The profile schema: one platform's facts, each carrying its own stamp and source.

A profile is human-written TOML. Every *fact* is a table with ``verified = "YYYY-MM"`` (the month
someone last checked it against the provider) and ``source`` (where: a docs URL, the seed
document, or "working knowledge, not re-checked"). A stamp is a real stamp only when it is the
``verified`` key of a fact: a date inside ``source`` or ``note`` text is never read as one, so a
fact cannot look fresher than it is.

Hierarchy of a profile (TOML keys are kebab-case)::

    name, title                       identity (name = the file's stem)
    kind            Fact              what sort of platform it is
    meter-stop      Fact              the verb that stops compute billing; irreversible? deletes?
    stop            Fact, optional    a reversible pause, where the meter-stop verb is not one
    storage         [Fact]            tiers: path, survives stop, survives destroy, inode caps
    danger-clocks   [Fact]            timers that destroy or stop on their own (AutoDL: 15 days)
    preemption      Fact, optional    spot offered? grace window and signal
    billing-traps   [Fact]            what still bills while running, stopped, released, always
    teardown        Fact, optional    is an acknowledged delete a confirmed one? how to confirm
    shell-patterns  [Fact]            regexes of commands that stop or destroy (for the agent hook)
    durable-paths   [Fact]            where to write what must survive, and why
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

import msgspec

Stamp = Annotated[str, msgspec.Meta(
    pattern=r"^[0-9]{4}-(0[1-9]|1[0-2])(?!\n)$",
    description="Month the fact was last checked against the provider, YYYY-MM.")]
Text = Annotated[str, msgspec.Meta(min_length=1)]
ProfileName = Annotated[str, msgspec.Meta(pattern=r"^[a-z0-9][a-z0-9-]{0,63}(?!\n)$")]
Hours = Annotated[float, msgspec.Meta(gt=0)]
Seconds = Annotated[float, msgspec.Meta(ge=0)]

PlatformKind = Literal[
    "gpu-container",    # a container with a GPU, billed per hour (AutoDL, Featurize, ...)
    "gpu-marketplace",  # hosts rented from third parties through a market (vast.ai)
    "gpu-vm",           # a whole virtual machine (Lambda, Paperspace)
    "ssh-host",         # any box reached over SSH with no provider API
    "batch-scheduler",  # a queue with walltime limits (Slurm)
    "orchestrator",     # pods on a cluster (Kubernetes)
    "notebook",         # a hosted notebook runtime (Colab)
    "workstation",      # a machine you own
]
BillingState = Literal["running", "stopped", "released", "always"]
ClockStart = Literal["stopped", "running", "rented"]


class Base(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
           rename="kebab"):
    """Base of every profile table.

    * ``forbid_unknown_fields=True``: a misspelt key (``survives-stopp``) is an error naming the
      file, line and field, never a silently ignored fact.
    * ``rename="kebab"``: TOML keys are kebab-case (``after-hours``); attributes snake_case.
    * ``frozen=True, kw_only=True``: a loaded profile is a value; fields are named, not ordered.
    """


class Fact(Base, frozen=True, kw_only=True):
    """One stamped fact: what is claimed plus ``verified`` (YYYY-MM) and ``source``."""

    verified: Stamp
    source: Text
    note: str | None = None


class KindFact(Fact, frozen=True, kw_only=True):
    value: PlatformKind


class MeterStop(Fact, frozen=True, kw_only=True):
    """The verb that stops compute billing. ``irreversible``: the instance is gone after it."""

    verb: Text
    irreversible: bool
    command: str | None = None
    deletes: list[str] = []
    keeps: list[str] = []


class Stop(Fact, frozen=True, kw_only=True):
    """A reversible pause (RunPod's stop, vast.ai's stop) next to an irreversible meter-stop."""

    verb: Text
    stops_compute_billing: bool
    command: str | None = None
    deletes: list[str] = []


class StorageTier(Fact, frozen=True, kw_only=True):
    name: Text
    path: str | None = None
    survives_stop: bool
    survives_destroy: bool
    inode_limit: Annotated[int, msgspec.Meta(gt=0)] | None = None


class DangerClock(Fact, frozen=True, kw_only=True):
    """A timer that acts on its own: ``after-hours`` from the moment the instance enters
    ``starts-when`` (its last stop, its last start, or the rent), the platform does ``action``."""

    name: Text
    starts_when: ClockStart
    after_hours: Hours
    action: Text


class Preemption(Fact, frozen=True, kw_only=True):
    """Spot/interruptible capacity: the warning before the kill (``grace-seconds``, ``signal``);
    a missing ``signal`` means no warning reaches the process."""

    spot: bool
    grace_seconds: Seconds | None = None
    signal: str | None = None


class BillingTrap(Fact, frozen=True, kw_only=True):
    when: BillingState
    what: Text


class Teardown(Fact, frozen=True, kw_only=True):
    """Whether the provider's acknowledgement of a delete proves the resource is gone."""

    acknowledged_is_confirmed: bool
    confirm: Text


class ShellPattern(Fact, frozen=True, kw_only=True):
    """A Python regex (searched in a shell command line) for a command that stops or destroys."""

    pattern: Text
    effect: Literal["stop", "destroy"]


class DurablePath(Fact, frozen=True, kw_only=True):
    path: str | None = None
    advice: Text


class Profile(Base, frozen=True, kw_only=True):
    """One platform's facts. Load with :func:`labledger.profiles.load_profiles`."""

    name: ProfileName
    title: Text
    kind: KindFact
    meter_stop: MeterStop | None = None
    stop: Stop | None = None
    storage: list[StorageTier] = []
    danger_clocks: list[DangerClock] = []
    preemption: Preemption | None = None
    billing_traps: list[BillingTrap] = []
    teardown: Teardown | None = None
    shell_patterns: list[ShellPattern] = []
    durable_paths: list[DurablePath] = []


def iter_facts(profile: Profile) -> Iterator[tuple[str, Fact]]:
    """Every stamped fact with its path in the file (``kind``, ``danger-clocks[0]``)."""
    for field in msgspec.structs.fields(profile):
        value = getattr(profile, field.name)
        if isinstance(value, Fact):
            yield field.encode_name, value
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, Fact):
                    yield f"{field.encode_name}[{index}]", item


def snapshot(profile: Profile) -> dict[str, Any]:
    """The profile as plain data (TOML key names), for ``instance.rented``'s snapshot."""
    data: dict[str, Any] = msgspec.to_builtins(profile)
    return data
