"""Declaring and retracting claims: a value bound to the bytes of a stored result object.

`declare_claim` finds the result file of a run in the ledger (`labledger.reconcile.run_files`),
reads its bytes from the CAS (verified on read), applies the selector
(`labledger.reconcile.claim_values`) and appends one ``claim.declared`` recording the object's
digest, the selector, the value read and what the object says about it (n, evaluated split,
seeds, spread). There is no way to pass a value: it comes from the bytes.

Invariants:

* Everything is checked before the one append: a refused declaration writes nothing.
* Re-declaring an id appends a new ``claim.declared`` that supersedes the earlier one (history is
  kept). Re-declaring it with an identical body appends nothing (the ledger already says it).
* The direction comes from ``--direction`` or the registry (`metric_directions`); an unknown
  metric without ``--direction`` is refused rather than guessed.
* Retraction appends ``claim.retracted`` with a reason; only a current claim can be retracted.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from labledger.cas import Store
from labledger.cas.errors import CasError
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record
from labledger.reconcile.claim_model import Claim, current_claims, load_claim_events
from labledger.reconcile.claim_values import Extracted, read_value, split_from_path
from labledger.reconcile.errors import (
    ClaimInputError,
    ClaimNotFoundError,
    ClaimSourceError,
    DirectionRequiredError,
)
from labledger.reconcile.metric_directions import direction_of
from labledger.reconcile.pull_verified import Event, load_events
from labledger.reconcile.run_files import RunFile, RunFiles, locate, run_files

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_IMPL_RE = re.compile(r"^[^:\n]+:[1-9]\d*$")
_TEXT_MAX = 4000


@dataclass(frozen=True)
class Declared:
    """What `declare_claim` did: the claim now in force and the event that says so."""

    claim: Claim
    source: RunFile
    record: Record | None  # None when the same declaration was already current
    superseded: str | None  # the event id of the declaration this one replaced
    warnings: list[str] = field(default_factory=list)

    @property
    def unchanged(self) -> bool:
        return self.record is None


def check_id(claim_id: str) -> None:
    if not ID_RE.fullmatch(claim_id):
        raise ClaimInputError(
            f"claim id {claim_id!r} is not valid: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (e.g. C1, psnr-kodak); nothing was written",
            claim=claim_id)


def _text(name: str, value: str | None, claim: str) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value or len(value) > _TEXT_MAX or "\x00" in value:
        raise ClaimInputError(f"{name} must be non-empty text of at most {_TEXT_MAX} characters;"
                              " nothing was written", claim=claim)
    return value


def _seeds_from_run_json(files: RunFiles, store: Store) -> tuple[int, ...]:
    """Seeds the run's own ``run.json`` (the capsule's identity file) records, if any."""
    found = sorted((f for p, f in files.files.items() if posixpath.basename(p) == "run.json"),
                   key=lambda f: (len(f.path), f.path))
    if not found:
        return ()
    try:
        doc = json.loads(store.read_bytes(found[0].digest))
    except (CasError, ValueError, RecursionError):  # an unreadable run.json only loses seeds
        return ()
    if not isinstance(doc, dict):
        return ()
    seeds = doc.get("seeds")
    if isinstance(seeds, list) and seeds and all(
            isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        return tuple(sorted(set(seeds)))
    seed = doc.get("seed")
    return (seed,) if isinstance(seed, int) and not isinstance(seed, bool) else ()


def _body(claim_id: str, metric: str, direction: str, found: RunFile, got: Extracted, *,
          evaluated_split: str | None, seeds: Sequence[int], split: str | None,
          statement: str | None, unit: str | None, aliases: list[str],
          paper_anchor: str | None, implementation: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "claim": claim_id, "metric": metric, "value": got.value, "direction": direction,
        "source_digest": found.digest, "source_path": found.path, "selector": got.selector,
        "statement": statement, "split": split, "unit": unit, "aliases": aliases,
        "paper_anchor": paper_anchor, "implementation": implementation, "n": got.n,
        "evaluated_split": evaluated_split, "seeds": list(seeds),
        "variance_type": got.variance_type, "variance": got.variance,
        "source_event": found.event_id,
    }
    return {k: v for k, v in body.items() if v is not None and v != []}


def _same(event: Event, body: dict[str, Any]) -> bool:
    return {k: v for k, v in event.body.items() if v is not None and v != []} == body


def declare_claim(
    ledger: Ledger,
    claim_id: str,
    *,
    run: str,
    metric: str,
    source: str | None = None,
    split: str | None = None,
    direction: str | None = None,
    statement: str | None = None,
    aliases: Iterable[str] = (),
    unit: str | None = None,
    paper_anchor: str | None = None,
    implementation: str | None = None,
    events: list[Event] | None = None,
) -> Declared:
    """Bind claim ``claim_id`` to the value ``metric`` selects in a result file of ``run``.

    ``source`` is the file's path in the run (exact, or the one file whose path ends with it);
    by default the run's one ``metrics.json``. ``metric`` is a selector (see
    `labledger.reconcile.claim_values`). ``direction`` defaults from the metric registry.

    Raises
    ------
    ClaimInputError
        Bad id, text, ``implementation`` (not FILE:LINE), selector or value; nothing written.
    ClaimSourceError
        The run or the file is unknown or ambiguous (lists candidates); nothing written.
    MetricNotFoundError
        The selector names nothing in the file (lists what does); nothing written.
    DirectionRequiredError
        An unknown metric without ``direction``; nothing written.
    CasError
        The object cannot be read from the store (missing; corrupt: it is quarantined).
    """
    check_id(claim_id)
    if direction is not None and direction not in ("higher", "lower"):
        raise ClaimInputError(f"direction {direction!r} is not 'higher' or 'lower'",
                              claim=claim_id)
    if implementation is not None and not _IMPL_RE.fullmatch(implementation.strip()):
        raise ClaimInputError(f"--implementation {implementation!r} is not FILE:LINE (e.g. "
                              "src/model.py:120); nothing was written", claim=claim_id)
    texts = {name: _text(name, value, claim_id) for name, value in (
        ("--statement", statement), ("--split", split), ("--unit", unit),
        ("--paper-anchor", paper_anchor), ("--implementation", implementation))}
    alias_list = [a for a in (_text("--alias", a, claim_id) for a in aliases) if a is not None]
    # of a run's heartbeats only the latest are read: they name no file, and a run known by its
    # heartbeats alone keeps one of them (a ledger of 300,000 beats: 2 s -> 0.5 s)
    events = load_events(ledger, latest_heartbeats=True) if events is None else events
    runs = sorted({e.run for e in events if e.run})
    if run not in runs:
        problem = ("no event of this run is in the ledger; known runs" if runs else
                   "no event of this run is in the ledger, which records no run yet (a claim "
                   "binds to a stored result of a recorded run)")
        raise ClaimSourceError(run, problem, candidates=runs, claim=claim_id)
    store = Store(ledger.paths.cas)
    files = run_files(run, events, store)
    found = locate(files, source, claim=claim_id)
    where = f"{run}:{found.path} ({found.digest})"
    got = read_value(store.read_bytes(found.digest), found.path, metric, where)
    warnings: list[str] = []
    metric_name = got.claimed_metric  # count(psnr), not psnr: a count has no PSNR direction
    known = direction_of(metric_name)
    if direction is None:
        if known is None:
            raise DirectionRequiredError(metric_name, claim=claim_id)
        direction = known
    elif known is not None and known != direction:
        warnings.append(f"{metric_name} is usually {known}-is-better; recorded as {direction} "
                        "because --direction says so")
    path_split, _ = split_from_path(found.path)
    body = _body(claim_id, metric_name, direction, found, got,
                 evaluated_split=got.split or path_split,
                 seeds=got.seeds or _seeds_from_run_json(files, store),
                 split=texts["--split"], statement=texts["--statement"], unit=texts["--unit"],
                 aliases=alias_list, paper_anchor=texts["--paper-anchor"],
                 implementation=texts["--implementation"])
    draft = ledger.draft("claim.declared", body, run=run)  # validates before anything is written
    previous = next((c for c in current_claims(events) if c.id == claim_id), None)
    if previous is not None:
        old = next(e for e in events if e.id == previous.event_id)
        if old.run == run and _same(old, body):
            return Declared(claim=previous, source=found, record=None, superseded=None,
                            warnings=warnings)
    record = ledger.append_drafts([draft])[0]
    event = Event(id=record.id, ts=record.ts, writer=record.writer, seq=record.seq,
                  kind=record.kind, run=record.run, instance=record.instance,
                  body=record.body_dict())
    superseded = previous.event_id if previous is not None else None
    claim = Claim.from_event(event, (*previous.superseded, previous.event_id)
                             if previous is not None else ())
    return Declared(claim=claim, source=found, record=record, superseded=superseded,
                    warnings=warnings)


def retract_claim(ledger: Ledger, claim_id: str, reason: str,
                  events: list[Event] | None = None) -> Record:
    """Append ``claim.retracted`` for a current claim, with ``reason``.

    Raises `ClaimNotFoundError` (not a current claim) or `ClaimInputError` (an empty reason);
    nothing is written then.
    """
    check_id(claim_id)
    text = _text("--reason", reason, claim_id)
    current = current_claims(load_claim_events(ledger) if events is None else events)
    claim = next((c for c in current if c.id == claim_id), None)
    if claim is None:
        raise ClaimNotFoundError(claim_id, [c.id for c in current])
    return ledger.append("claim.retracted", run=claim.run, claim=claim_id, reason=text)


@dataclass(frozen=True)
class HistoryEntry:
    """One ``claim.declared`` and what became of it."""

    claim: Claim
    status: str  # "current" | "superseded" | "retracted"
    retraction: str | None = None  # the reason, when retracted


def claim_history(events: Iterable[Event]) -> list[HistoryEntry]:
    """Every declaration in ledger order with its status (for ``claim list --all``)."""
    entries: list[list[Any]] = []  # [claim, status, reason]
    live: dict[str, int] = {}
    for e in events:
        if e.kind == "claim.declared":
            cid = e.body["claim"]
            if cid in live:
                entries[live[cid]][1] = "superseded"
            live[cid] = len(entries)
            entries.append([Claim.from_event(e), "current", None])
        elif e.kind == "claim.retracted" and e.body.get("claim") in live:
            index = live.pop(e.body["claim"])
            entries[index][1:] = ["retracted", e.body.get("reason")]
    return [HistoryEntry(claim=c, status=s, retraction=r) for c, s, r in entries]
