"""Teardown: approval bound to the gate's state, the provider's request, and confirmation.

Three distinct facts (DOMAIN "Teardown"): ``teardown.requested`` (with ``acknowledged`` = the
provider command exited 0) is not ``teardown.confirmed`` (the resource was observed absent).
``teardown.approved`` is written only when the gate passes, or with an override whose reason and
unmet checks are recorded in the event itself (DOMAIN principle 4).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from labledger.ledger._words import counted
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record
from labledger.reconcile.errors import ReconcileError
from labledger.reconcile.pull_verified import Event, GateResult, load_events

TAIL_CHARS = 4000


class GateRefusedError(ReconcileError):
    """The teardown gate did not pass and no override was given; nothing was written."""

    def __init__(self, gate: GateResult) -> None:
        unmet = gate.unmet()
        super().__init__(
            f"teardown of {gate.instance!r} refused: {counted(len(unmet), 'unmet check')}; run "
            f"`labledger gate teardown --instance {gate.instance}` for what to do next, or "
            "give --override REASON; nothing was written")
        self.instance, self.unmet = gate.instance, unmet

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "instance": self.instance, "unmet": self.unmet}


@dataclass
class TeardownPlan:
    """What tearing an instance down means on its platform (from the rent's profile snapshot)."""

    instance: str
    profile: str | None = None
    host: str | None = None
    verb: str | None = None
    irreversible: bool | None = None
    deletes: list[str] = field(default_factory=list)
    keeps: list[str] = field(default_factory=list)
    confirm: str | None = None
    acknowledged_is_confirmed: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def teardown_plan(events: Sequence[Event], instance: str) -> TeardownPlan:
    """The platform facts recorded with the instance's latest ``instance.rented``."""
    from labledger.ingest.ssh_url import shown_host

    plan = TeardownPlan(instance=instance)
    rents = [e for e in events if e.kind == "instance.rented" and e.instance == instance]
    if not rents:
        return plan
    body = rents[-1].body
    plan.profile, plan.host = body.get("profile"), shown_host(body.get("host"))
    snap = body.get("profile_snapshot") or {}
    meter = snap.get("meter-stop") or {}
    plan.verb = meter.get("verb")
    plan.irreversible = meter.get("irreversible")
    plan.deletes, plan.keeps = list(meter.get("deletes") or []), list(meter.get("keeps") or [])
    teardown = snap.get("teardown") or {}
    plan.confirm = teardown.get("confirm")
    plan.acknowledged_is_confirmed = teardown.get("acknowledged-is-confirmed")
    return plan


def record_approval(ledger: Ledger, gate: GateResult, *, approver: str,
                    override: str | None = None) -> Record:
    """Append ``teardown.approved`` bound to ``gate.state_digest()``.

    Raises :class:`GateRefusedError` (nothing written) when the gate fails and ``override`` (the
    reason) is not given. With an override the event carries the reason and every unmet check.
    """
    if not gate.ok and not override:
        raise GateRefusedError(gate)
    body: dict[str, Any] = {"approver": approver, "state_digest": gate.state_digest()}
    if override and not gate.ok:
        body.update(override=True, reason=override, unmet=gate.unmet())
    elif override:
        body["reason"] = override  # the gate passed: the reason is kept, nothing is overridden
    return ledger.append("teardown.approved", instance=gate.instance, **body)


@dataclass
class ProviderResult:
    command: list[str]
    exit_code: int | None
    output: str
    interrupted: str | None = None  # "SIGINT" when labledger was interrupted while it ran


def ensure_not_released(ledger: Ledger, instance: str) -> None:
    """Raise `InstanceStateError` when ``instance`` was released after its latest rent: there is
    nothing left to approve, request or destroy (a second destroy may hit a reused id)."""
    from labledger.reconcile.errors import InstanceStateError
    from labledger.reconcile.instances import format_time
    from labledger.reconcile.rental import lease_of

    lease = lease_of(ledger, instance)
    if lease is not None and lease.state == "released":
        when = f" at {format_time(lease.released_at)}" if lease.released_at else ""
        raise InstanceStateError(instance, "tear down", f"it was released{when}")


def run_provider_command(command: Sequence[str], *, timeout: float = 600.0,
                         echo: Callable[[str], None] | None = None,
                         grace: float = 5.0) -> ProviderResult:
    """Run the provider's teardown command; its output (stdout and stderr, interleaved as
    written) is passed to ``echo`` as it comes and its tail kept.

    Interrupted (Ctrl-C: `KeyboardInterrupt`), the command is given ``grace`` seconds to end
    on its own (a terminal's Ctrl-C reaches it too), then SIGINT, then killed; the result
    says ``interrupted`` and keeps what it printed so far, so the caller can record the
    request (the provider call may already have gone out) before it stops. A caller that may
    be interrupted again (the CLI) ignores later Ctrl-Cs until it has recorded: the waits here
    are bounded (2 x ``grace``, then a kill), so ignoring them cannot hang.
    """
    import codecs
    import signal
    import threading
    import time

    try:
        proc = subprocess.Popen(list(command), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    except OSError as exc:  # not found, not executable
        if echo is not None:
            echo(f"could not run: {exc}\n")
        return ProviderResult(list(command), None, f"could not run: {exc}")
    assert proc.stdout is not None
    pipe = proc.stdout
    chunks: list[str] = []
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def pump() -> None:
        while data := os.read(pipe.fileno(), 1 << 16):
            text = decoder.decode(data)
            chunks.append(text)
            if echo is not None:
                with contextlib.suppress(Exception):  # a closed stderr never loses the record
                    echo(text)
        chunks.append(decoder.decode(b"", final=True))

    reader = threading.Thread(target=pump, name="labledger-teardown-output", daemon=True)
    reader.start()
    started = time.monotonic()
    interrupted: str | None = None
    note = ""
    code: int | None
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        code, note = None, f"\ntimed out after {timeout} s"
    except KeyboardInterrupt:
        interrupted = "SIGINT"
        after = time.monotonic() - started
        try:
            code = proc.wait(timeout=grace)
        except (subprocess.TimeoutExpired, KeyboardInterrupt):
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGINT)
            try:
                code = proc.wait(timeout=grace)
            except (subprocess.TimeoutExpired, KeyboardInterrupt):
                proc.kill()
                code = proc.wait()
        how = (f"it exited {code}" if code is not None and code >= 0
               else f"it ended on signal {-code}" if code is not None else "")
        note = (f"\n[labledger: interrupted (SIGINT) {after:.1f} s after the command started; "
                f"{how}]")
    reader.join(timeout=5)
    if not reader.is_alive():
        pipe.close()
    if note and echo is not None:
        with contextlib.suppress(Exception):
            echo(note.lstrip("\n") + "\n")
    output = "".join(chunks) + note
    if interrupted is not None and code is not None and code < 0:
        code = None  # ended by a signal: no exit code of its own
    return ProviderResult(list(command), code, output[-TAIL_CHARS:], interrupted)


def record_request(ledger: Ledger, instance: str, result: ProviderResult) -> Record:
    """Append ``teardown.requested``; ``acknowledged`` only when the command exited 0."""
    body: dict[str, Any] = {}
    if result.interrupted:  # the provider call may have gone out: said, never acknowledged
        body["extra"] = {"interrupted": result.interrupted}
    return ledger.append("teardown.requested", instance=instance, command=result.command,
                         response=result.output[-TAIL_CHARS:] or None,
                         acknowledged=result.exit_code == 0,
                         exit_code=result.exit_code, **body)


@dataclass
class Confirmation:
    """What ``record_confirmed`` did: ``record`` is the ``teardown.confirmed`` now in force;
    ``already`` when it was recorded before and nothing was written this time."""

    record: Record
    already: bool = False

    @property
    def message(self) -> str:
        r = self.record
        if not self.already:
            return f"recorded teardown.confirmed for {r.instance}"
        return (f"instance {r.instance!r} was already confirmed absent at {r.ts} by {r.id}; "
                "nothing was written")


def latest_confirmation(ledger: Ledger, instance: str) -> Record | None:
    """The latest ``teardown.confirmed`` of ``instance`` since its latest ``instance.rented``
    (ordered by ``ts``, then writer, then seq, like every projection), or None."""
    rented = ""
    confirmed: list[Record] = []
    for r in ledger.records(kinds=("instance.rented", "teardown.confirmed")):
        if r.instance != instance:
            continue
        if r.kind == "instance.rented":
            rented = max(rented, r.ts)
        else:
            confirmed.append(r)
    current = [r for r in confirmed if r.ts >= rented]
    return max(current, key=lambda r: (r.ts, r.writer, r.seq)) if current else None


def _conflicts(record: Record, *, method: str | None, evidence: str | None,
               at_text: str | None) -> list[str]:
    """What a repeated confirmation says differently from the recorded one."""
    body = record.body_dict()
    said = [("--method", method, body.get("method")),
            ("--evidence", evidence, body.get("evidence")),
            ("--at", at_text, record.ts)]
    return [f"{name} {given!r} (recorded: {recorded!r})" for name, given, recorded in said
            if given is not None and given != recorded]


def record_confirmed(ledger: Ledger, instance: str, *, method: str | None = None,
                     evidence: str | None = None, at: str | None = None) -> Confirmation:
    """Append ``teardown.confirmed``: the resource was observed absent (``method`` defaults
    to ``"observed"``).

    An instance observed gone no longer bills: when its lease is still running or stopped,
    ``instance.released`` is recorded in the same batch (so `labledger instances` stops the
    meter at this moment, or at ``at``: when it was gone, for a confirmation recorded days
    later; never before the instance's last recorded change, never in the future, and a later
    `labledger release` is refused as a second release). Raises `InstanceStateError` (nothing
    written) for an instance the ledger knows nothing to tear down of: never rented, and no
    teardown approved or requested for it.

    Idempotent: when the instance was already confirmed absent (since its latest rent),
    nothing is written and the recorded confirmation comes back with ``already`` set. A
    repeat may leave out ``method``, ``evidence`` and ``at`` (None: not said); any of them it
    does give must equal the recorded one, else `InstanceStateError` (nothing written): the
    first confirmation is the fact (the meter stopped at its time), and the log is never
    rewritten. More evidence belongs in a ``note`` event on the instance.
    """
    from labledger.reconcile.errors import InstanceStateError
    from labledger.reconcile.rental import (
        lease_of,
        lifecycle_lock,
        not_before_last_change,
        time_of,
    )

    body: dict[str, Any] = {"method": method or "observed"}
    if evidence:
        body["evidence"] = evidence
    at_text, when = time_of("teardown.confirmed", at, datetime.now(UTC))
    drafts = [ledger.draft("teardown.confirmed", body, instance=instance, at=at_text)]
    with lifecycle_lock(ledger):
        earlier = latest_confirmation(ledger, instance)
        if earlier is not None:
            conflicts = _conflicts(earlier, method=method, evidence=evidence or None,
                                   at_text=at_text)
            if conflicts:
                raise InstanceStateError(
                    instance, "confirm the teardown of",
                    f"it was already confirmed absent at {earlier.ts} by {earlier.id}, and this "
                    f"confirmation differs: {'; '.join(conflicts)}; the first confirmation "
                    "stands (add more evidence with `labledger emit note --instance "
                    f"{instance} --set text=...`)")
            return Confirmation(earlier, already=True)
        lease = lease_of(ledger, instance)
        if lease is not None and at_text is not None:
            not_before_last_change(lease, "confirm the teardown of", when)
        if (lease is None or lease.state == "unrecorded") and not any(
                r.instance == instance
                for r in ledger.records(kinds=("teardown.approved", "teardown.requested"))):
            raise InstanceStateError(
                instance, "confirm the teardown of",
                "no instance.rented records it and no teardown was approved for it (is the id "
                "right? `labledger instances` lists the rented ones)")
        if lease is not None and lease.state in ("running", "stopped"):
            drafts.append(ledger.draft("instance.released",
                                       {"reason": f"teardown confirmed ({body['method']})"},
                                       instance=instance, at=at_text))
        return Confirmation(ledger.append_drafts(drafts)[0])


def approved_for(events: Sequence[Event], gate: GateResult) -> Event | None:
    """The latest ``teardown.approved`` of the instance bound to exactly the gate's state now."""
    digest = gate.state_digest()
    for e in reversed(events):
        if e.kind == "teardown.approved" and e.instance == gate.instance:
            return e if e.body.get("state_digest") == digest else None
    return None


def is_gone(events: Sequence[Event], instance: str) -> bool:
    """Released or confirmed absent after its latest rent."""
    gone = False
    for e in events:
        if e.instance != instance:
            continue
        if e.kind == "instance.rented":
            gone = False
        elif e.kind in ("instance.released", "teardown.confirmed"):
            gone = True
    return gone


__all__ = ["Confirmation", "GateRefusedError", "ProviderResult", "TeardownPlan", "approved_for",
           "is_gone", "latest_confirmation", "load_events", "record_approval", "record_confirmed",
           "record_request", "run_provider_command", "teardown_plan"]
