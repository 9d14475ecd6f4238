"""PULL_VERIFIED as a projection: is every expected file of a run safe on this machine *now*?

For one run the **expected set** is the union of

* the roster (the files named by ``--roster`` at the latest pull: the listing minus its
  ``unexpected`` entries plus its ``missing`` ones),
* every file of the **latest full** ``pull.listed`` of the run (directories and symlinks carry
  no bytes and are not expected here), updated by the listings restricted by ``pull --only``
  (partial: ``only`` in the body) recorded after it: a file one of them shows is expected with
  the digests it shows; a file it does not show stays expected. A partial listing adds, never
  removes, and never stands for the whole box: without a full listing the run does not hold,
* the latest ``checkpoint.saved`` or ``artifact.recorded`` of each path of the run (what the box
  announced and still holds: an earlier save of the same path was overwritten there; a
  ``role="latest"`` resume anchor is not expected unless listed).

An expected file **holds** when

1. it was pulled: an ok ``artifact.pulled`` of the run for that path whose remote SHA-256 (hashed
   on the box) equals the local SHA-256 and the listing's SHA-256, whose size matches, and whose
   local object digest equals the listing's BLAKE3 where the box computed one (an announced
   artifact is matched by its digest instead: content addressing makes the path irrelevant);
2. the local object is present and re-hashes to its digest *at evaluation time*
   (``Store.verify``; a corrupt object is quarantined by the store and the file does not hold);
3. a checkpoint (by suffix, or announced by ``checkpoint.saved``) also has an ok
   ``checkpoint.verified`` bound to the same digest, and no later failed one;
4. the listing entry that shows it names no ``writers``: no process on the box held the file
   open for writing when the box hashed it (`labledger.ingest.pull`). One that did may be
   half-written, and its box hash and the copy then agree on the half: it holds only once a
   later listing (a full one, or ``--only`` matching it) shows it closed. Listings recorded
   before labledger looked carry no ``writers`` and read as closed.

At the teardown gate of instance I only listings taken from I count (the event's
``instance``): a pull from a copy, another box or no box says nothing about I's disk. A run
with no counted listing (or no full one) does not hold, and the refusal names the listing taken
elsewhere. ``verify_run(..., instance=I)`` is that judgement for one run (what the gate of I
says of it); without an instance a run is judged from its latest full listing from anywhere.

Each problem's ``next_step`` is a command that runs as printed: paths are shell-quoted and their
glob characters escaped for ``--only``, and it names where to pull from (``--instance I`` when
a pull from I named the folder, else the ``--from``/``--from-dir`` of the listing that showed
the file).

Reading a large ledger: `load_events(..., latest_heartbeats=True)` reads of a run's heartbeats
only the latest of each writer and instance, and every judgement here gives the same result from
it as from every event (the argument is in its docstring; `build_evidence` reads it so). The
teardown gate reads with `gate_events`: the same few heartbeats made into events, every line of
the ledger still verified, so damage anywhere stops the gate as reading every event would.

Invariant (DOMAIN principle 3): nothing here reads a PULL_VERIFIED.json. The marker is written
from a passing evaluation and invalidated by a failing one; it never satisfies a check.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from blake3 import blake3

from labledger.cas import Store
from labledger.cas.errors import CasError, ObjectCorruptError, ObjectNotFoundError
from labledger.ledger.events import now_ts
from labledger.ledger.ledger import Ledger
from labledger.ledger.record import Record
from labledger.reconcile._files import write_text_atomic

SCHEMA = "remote-gpu-trainer/PULL-VERIFIED/v1"
CHECKPOINT_SUFFIXES = (".pth", ".pt", ".ckpt", ".bin", ".safetensors")
MARKER_NAME = "PULL_VERIFIED.json"
_MARKER_INDEX = "markers.json"  # under .labledger/verified/: every marker verify-pull wrote


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """The part of a record the projection reads (body decoded)."""

    id: str
    ts: str
    writer: str
    seq: int
    kind: str
    run: str | None
    instance: str | None
    body: dict[str, Any]


HEARTBEAT = "run.heartbeat"


def load_events(ledger: Ledger, kinds: Sequence[str] | None = None, *,
                latest_heartbeats: bool = False, verify_superseded: bool = False
                ) -> list[Event]:
    """Every readable event (of ``kinds``, when given) in ledger time order (ts, writer, seq);
    no DuckDB involved.

    ``latest_heartbeats`` (with no ``kinds``): of the ``run.heartbeat`` events, only the latest
    per (writer, run, instance) are read, the one last in ledger order and the one last in
    chain order (`labledger.ledger.read.iter_writer_records_latest`); every other event is
    read as without it. A heartbeat superseded by a later one of its run and instance decides
    nothing, so it is not verified here; `labledger check` verifies every line.

    ``verify_superseded`` (with ``latest_heartbeats``): the superseded heartbeats are verified
    all the same, each line against its id and its fields decoded, only not made into events
    (`labledger.ledger.read.iter_writer_records_checked_latest`): a damaged line, even a
    superseded beat's, raises exactly as reading every event raises it. The first heartbeat of
    each (writer, run, instance) in ledger order is kept too. The teardown gate reads so
    (`gate_events`): before a box is destroyed, any damaged line should stop it.

    What the judgements here read of heartbeats, and why those kept say all of it:

    * `verify_run`: whether the run was active (a heartbeat or an exit; at a gate, on its
      instance or on none) after its latest full listing, and which such event came last in
      ledger order. The last of a run's heartbeats (of an instance) is the last of its writers'
      lasts, and one came after the listing exactly when the last one did.
    * which (run, instance) pairs occur (`evidence`'s remote runs, `hosted_runs`, the gate's
      known instances): every pair keeps a heartbeat.
    * `ledger_head`: the event of a writer it names (the first in ledger order of those with the
      writer's highest seq) is kept.
    * the agent hook's instances, in the order the ledger first names each one (its reasons
      follow that order): the first event naming an instance is another kind's, or the first
      heartbeat of its (writer, run, instance), kept with ``verify_superseded``.

    Every other reader (`run_files`, `pull_source`, the claims, announcements, launches and
    verifications, the gate's approvals, rents and releases) passes heartbeats over by kind. A
    property test (tests/reconcile/test_evidence_big_ledger.py) holds `verify_run`,
    `evaluate_gate` and `build_evidence` to the same results either way, and
    tests/reconcile/test_gate_big_ledger.py the gate's callers with ``verify_superseded``.
    """
    if kinds is not None:
        records: Iterable[Record] = ledger.records(kinds=tuple(kinds))
    elif latest_heartbeats:
        records = _records_with_latest_heartbeats(ledger, verify_superseded)
    else:
        records = ledger.records()
    events = [Event(id=r.id, ts=r.ts, writer=r.writer, seq=r.seq, kind=r.kind, run=r.run,
                    instance=r.instance, body=r.body_dict()) for r in records]
    events.sort(key=lambda e: (e.ts, e.writer, e.seq))
    return events


def gate_events(ledger: Ledger) -> list[Event]:
    """The events the teardown gate reads (`gate teardown`, `teardown`, `verify-pull`, the
    agent hook): every line verified as reading every event verifies it, so any damage stops
    the gate as it would there; of heartbeats only those that can decide are made into events
    (`load_events`, ``verify_superseded``). Every judgement is the same as from every event."""
    return load_events(ledger, latest_heartbeats=True, verify_superseded=True)


def _records_with_latest_heartbeats(ledger: Ledger, verify_superseded: bool
                                    ) -> Iterator[Record]:
    """`Ledger.records`, writer by writer, with only the latest heartbeats (`load_events`)."""
    from labledger.ledger.read import (
        iter_writer_records_checked_latest,
        iter_writer_records_latest,
    )

    read = iter_writer_records_checked_latest if verify_superseded else \
        iter_writer_records_latest
    for writer in ledger.writers():
        yield from read(ledger.paths.segments / writer, HEARTBEAT)


def ledger_head(events: Iterable[Event]) -> dict[str, str]:
    """The latest event id per writer: the ledger state an evaluation was derived from."""
    head: dict[str, tuple[int, str]] = {}
    for e in events:
        if e.writer not in head or e.seq > head[e.writer][0]:
            head[e.writer] = (e.seq, e.id)
    return {w: v[1] for w, v in sorted(head.items())}


# The same words whether this reader found the object corrupt or an earlier one did (no moved-to
# path with its timestamp): EVIDENCE.json must not change between two runs over the same state.
_QUARANTINED = ("local object is corrupt (quarantined; store the original again with "
                "`labledger cas put`, or pull it again)")


class ObjectChecker:
    """Re-hashes each object once per evaluation; remembers what it found."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._seen: dict[str, str | None] = {}
        self.corrupt: list[ObjectCorruptError] = []

    def problem(self, digest: str) -> str | None:
        """None when the object is present and verifies (a tree: with every file in it)."""
        if digest not in self._seen:
            self._seen[digest] = self._check(digest)
        return self._seen[digest]

    def _check(self, digest: str) -> str | None:
        try:
            self.store.verify(digest)
            if self.store.stat(digest).type == "tree":
                for entry in self.store.ls(digest):
                    if entry.digest is not None:
                        found = self.problem(entry.digest)
                        if found is not None:
                            return f"{entry.path}: {found}"
        except ObjectNotFoundError:
            if self.store.quarantined(digest):  # found corrupt by an earlier reader
                return _QUARANTINED
            return "object missing from the local store"
        except ObjectCorruptError as exc:
            self.corrupt.append(exc)
            return _QUARANTINED
        except CasError as exc:
            return f"local object unreadable: {exc}"
        return None


@dataclass
class ArtifactCheck:
    """One expected file of a run and what holds for it."""

    run: str
    path: str
    sources: list[str]
    size: int | None = None
    sha256: str | None = None
    digest: str | None = None
    is_checkpoint: bool = False
    pulled: bool = False
    digest_match: bool | None = None
    stored: bool | None = None
    verified: bool | None = None  # checkpoints only
    problems: list[str] = field(default_factory=list)
    next_step: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"run": self.run, "path": self.path, "expected": self.sources, "size": self.size,
                "sha256": self.sha256, "digest": self.digest, "checkpoint": self.is_checkpoint,
                "pulled": self.pulled, "digest_match": self.digest_match, "stored": self.stored,
                "verified": self.verified, "ok": self.ok, "problems": self.problems,
                "next": self.next_step}


@dataclass
class RunVerification:
    """The PULL_VERIFIED projection of one run."""

    run: str
    artifacts: list[ArtifactCheck]
    problems: list[str]  # run-level gaps (no listing, ...)
    listing_id: str | None = None
    source: str | None = None
    manifest_digest: str | None = None
    roster_digest: str | None = None
    unexpected: list[str] = field(default_factory=list)
    instance: str | None = None  # judged from this instance's listings only (the gate's view)

    @property
    def ok(self) -> bool:
        return not self.problems and all(a.ok for a in self.artifacts)

    def gaps(self) -> list[str]:
        """Every reason the run is not pull-verified, one line each."""
        out = [f"{self.run}: {p}" for p in self.problems]
        out += [f"{self.run}: {a.path}: {p}" for a in self.artifacts for p in a.problems]
        return out

    @property
    def files(self) -> int:
        return len(self.artifacts)

    @property
    def bytes(self) -> int:
        return sum(a.size or 0 for a in self.artifacts)

    def manifest_sha256(self) -> str:
        """SHA-256 of the seed-style manifest (``files: [{path, bytes, sha256}]``, sorted,
        canonical JSON) of what was verified."""
        files = [{"path": a.path, "bytes": a.size or 0, "sha256": a.sha256}
                 for a in sorted(self.artifacts, key=lambda a: a.path)]
        text = json.dumps({"files": files}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def to_json(self) -> dict[str, Any]:
        # ``instance`` is not repeated here: the gate's document names it once, at its top
        return {"run": self.run, "ok": self.ok, "listing": self.listing_id,
                "source": self.source, "manifest_digest": self.manifest_digest,
                "roster_digest": self.roster_digest, "unexpected": self.unexpected,
                "problems": self.problems, "gaps": self.gaps(),
                "artifacts": [a.to_json() for a in self.artifacts]}

    def bad_digests(self) -> set[str]:
        """Objects this evaluation found unusable here: corrupt or missing locally, or a
        checkpoint whose latest load failed (any marker naming them is stale)."""
        return {a.digest for a in self.artifacts
                if a.digest and (a.stored is False or a.verified is False)}


def _is_checkpoint(path: str) -> bool:
    return path.lower().endswith(CHECKPOINT_SUFFIXES)


def _verified_state(events: list[Event]) -> dict[str, bool]:
    """Per digest, whether its latest checkpoint.verified was ok."""
    state: dict[str, bool] = {}
    for e in events:
        if e.kind == "checkpoint.verified" and isinstance(e.body.get("digest"), str):
            state[e.body["digest"]] = bool(e.body.get("ok"))
    return state


def _pulled_match(entry: Mapping[str, Any], pulls: list[dict[str, Any]]) -> tuple[
        dict[str, Any] | None, str | None]:
    """The ok pull of this listed file with matching digests, or the reason there is none."""
    sha, b3, size = entry.get("sha256"), entry.get("blake3"), entry.get("size")
    if not pulls:
        return None, "never pulled"
    reason = "last pull failed"
    for pull in reversed(pulls):
        if not pull.get("ok"):
            reason = f"pull failed: {pull.get('error') or 'no reason recorded'}"
            continue
        remote, local, digest = pull.get("remote_sha256"), pull.get("local_sha256"), \
            pull.get("digest")
        if sha is None:
            reason = "the listing has no SHA-256 for it (hash it on the box and pull again)"
        elif remote != sha:
            reason = "pulled bytes are from an older listing (remote SHA-256 differs)"
        elif local != remote:
            reason = "local SHA-256 differs from the box's"
        elif digest is None:
            reason = "pull recorded no local object digest"
        elif b3 is not None and digest != b3:
            reason = "local BLAKE3 differs from the box's"
        elif size is not None and pull.get("size") is not None and pull["size"] != size:
            reason = "size differs from the listing"
        else:
            return pull, None
        if remote == sha:
            return None, reason  # the newest pull of these bytes decides
    return None, reason


def _still_written(entry: Mapping[str, Any]) -> str | None:
    """Why a listed file may be half-written (the box processes its entry names as holding it
    open for writing when the box hashed it), or None when it names none."""
    writers = entry.get("writers")
    if not isinstance(writers, list) or not writers:
        return None
    named = [f"pid {w.get('pid')} ({w.get('command') or '?'})" if isinstance(w, dict)
             else "an unnamed process" for w in writers]
    who = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
    return (f"still being written on the box when it was listed: {who} held it open for "
            f"writing, so the copy may be a partial file; pull it again once it is closed")


def _current_announcements(run_events: list[Event]) -> list[Event]:
    """The box's announcements that still name bytes it holds: per path, the latest one.

    A training loop that re-saves ``best.pth`` on every improvement announces many digests
    for one path; the older ones were overwritten on the box and can never be pulled, so only
    the latest save of each path is expected. A ``role="latest"`` checkpoint (the rolling
    resume anchor, which DOMAIN keeps out of capsules) is not expected unless a listing shows
    it.
    """
    latest: dict[str, Event] = {}
    for e in run_events:
        if e.kind in ("checkpoint.saved", "artifact.recorded"):
            latest[str(e.body.get("path"))] = e
    return [e for e in latest.values()
            if not (e.kind == "checkpoint.saved" and e.body.get("role") == "latest")]


_ACTIVITY = frozenset({HEARTBEAT, "run.exited"})


def _partial(listing: Event) -> bool:
    """A listing restricted by ``pull --only``: it shows part of the box, never all of it."""
    return bool(listing.body.get("only"))


def _looked_for(listing: Event, path: str) -> bool:
    """Whether ``listing`` looked for ``path`` (a full listing looked for every path)."""
    only = listing.body.get("only") or []
    return not only or any(fnmatch.fnmatchcase(path, g) for g in only)


def _taken_from(listing: Event) -> str:
    from labledger.ingest.ssh_url import canonical_source

    where = f"instance {listing.instance}" if listing.instance else "no instance"
    source = listing.body.get("source")
    shown = canonical_source(source) if isinstance(source, str) and source else None
    return f"{shown or 'an unnamed source'} ({where})"


@dataclass
class _Listed:
    """What the counted listings show of the box: the latest full listing, updated by the
    partial ones recorded after it (all of them when there is no full one)."""

    base: Event | None
    partials: list[Event]
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # path -> latest entry
    shown_by: dict[str, Event] = field(default_factory=dict)  # path -> the listing of that entry
    missing: dict[str, None] = field(default_factory=dict)  # roster paths absent (ordered set)
    refused: dict[str, None] = field(default_factory=dict)
    mismatched: dict[str, None] = field(default_factory=dict)


def _listed(listings: list[Event]) -> _Listed:
    fulls = [e for e in listings if not _partial(e)]
    base = fulls[-1] if fulls else None
    out = _Listed(base=base, partials=listings[listings.index(base) + 1:] if base is not None
                  else list(listings))
    for listing in ([base] if base is not None else []) + out.partials:
        body = listing.body
        for entry in body.get("entries") or []:
            if entry.get("type", "file") == "file":  # dirs and links carry no bytes
                out.files[entry["path"]] = entry
                out.shown_by[entry["path"]] = listing
                out.missing.pop(entry["path"], None)
        # A partial listing only adds: a file it does not show stays expected (its globs may
        # not match it, or it vanished from the box after the full listing), and its roster's
        # `missing` counts only inside its globs (it never looked for the rest).
        for path in body.get("missing") or []:
            if path not in out.files and _looked_for(listing, path):
                out.missing[path] = None
        out.refused.update(dict.fromkeys(body.get("refused") or []))
        out.mismatched.update(dict.fromkeys(body.get("roster_mismatched") or []))
    return out


def _from(instance: str | None) -> str:
    """The ``--instance`` a suggested pull needs for the gate of ``instance`` to count it."""
    return f" --instance {instance}" if instance else ""


_GLOB_CHARS = re.compile(r"([*?\[])")


def _only(path: str) -> str:
    """``--only PATH`` as shell words that select exactly ``path``: its glob characters are
    escaped (``[`` -> ``[[]``) and the word is quoted (spaces, quotes, ``$``)."""
    return "--only " + shlex.quote(_GLOB_CHARS.sub(r"[\1]", path))


_ANY_BOX = " --from [USER@]HOST[:PORT]:DIR"


def _listing_options(listing: Event | None) -> str:
    """The options that pull again from where ``listing`` was taken: its ``--instance``, and its
    ``--from``/``--from-dir`` (quoted); a placeholder when it named no usable source."""
    if listing is None:
        return _ANY_BOX
    inst = _from(listing.instance)
    found = _source_option(listing.body.get("source"))
    if found is None:
        return inst + _ANY_BOX
    return f"{inst} {found[0]} {shlex.quote(found[1])}"


# Events `pull_source` reads (callers that load only these stay fast on a long ledger).
PULL_SOURCE_KINDS = ("instance.rented", "pull.listed")


def _source_option(source: object) -> tuple[str, str] | None:
    """A recorded ``pull.listed`` source as the option that pulls from it again:
    ``("--from", "user@host:port:dir")`` or ``("--from-dir", "/abs/dir")``."""
    if not isinstance(source, str):
        return None
    if source.startswith("dir:") and len(source) > 4:
        return "--from-dir", source[4:]
    if not source.startswith("ssh://"):
        return None
    from labledger.ingest.ssh_url import url_as_spec

    spec = url_as_spec(source)
    return None if spec is None else ("--from", spec)


@dataclass
class PullSource:
    """Where `labledger pull --run R --instance I` (no --from, no --from-dir) pulls from.

    ``option``/``value``: the source of the latest listing of R recorded from I (the folder
    that was pulled before), or None. ``host``: what I's latest ``instance.rented`` recorded
    (``rent --host``), ``rented``: whether I was rented through labledger at all.
    """

    run: str
    instance: str
    option: str | None = None
    value: str | None = None
    host: str | None = None
    profile: str | None = None
    rented: bool = False

    def template(self) -> str:
        """The options of a pull whose folder must still be named (DIR is a placeholder)."""
        if self.host:
            return f"--from {self.host}:DIR"
        if self.profile == "local":
            return "--from-dir DIR"
        return "--from [USER@]HOST[:PORT]:DIR"

    def hint(self) -> str:
        """`` --instance I`` when a pull with just that finds its folder, else the options it
        also needs (with a DIR placeholder)."""
        if self.option is not None:
            return f" --instance {self.instance}"
        return f" --instance {self.instance} {self.template()}"

    def problem(self) -> str:
        """Why a pull without --from/--from-dir cannot tell where to pull from."""
        where = (f"instance {self.instance} was rented with host {self.host}" if self.host
                 else f"instance {self.instance} has no host recorded (`labledger rent "
                      f"--host`)" if self.rented
                 else f"instance {self.instance} was not rented through labledger (no host)")
        return (f"{where}, and no earlier pull of run {self.run} from it names the folder on "
                f"the box: give it, e.g. `labledger pull --run {self.run} --instance "
                f"{self.instance} {self.template()}` (later pulls of {self.run} with "
                f"--instance {self.instance} reuse it), or --from-dir DIR for a folder here")


def pull_source(events: Sequence[Event], run: str, instance: str) -> PullSource:
    """Where a pull of ``run`` from ``instance`` without --from/--from-dir pulls from: the
    source of the latest listing of ``run`` taken from ``instance`` (same user, host, port and
    folder). ``events`` in ledger order; only `PULL_SOURCE_KINDS` are read."""
    from labledger.ingest.ssh_url import shown_host

    found = PullSource(run=run, instance=instance)
    for e in events:
        if e.instance != instance:
            continue
        if e.kind == "instance.rented":  # a new rent of the id is a new box: start over
            # (a host an older labledger recorded bare, root@fe80::1, in brackets: the
            # ``--from HOST:DIR`` offered must parse back to it)
            found.rented, found.host = True, shown_host(e.body.get("host")) or None
            found.profile, found.option, found.value = e.body.get("profile"), None, None
        elif e.kind == "pull.listed" and e.run == run:
            option = _source_option(e.body.get("source"))
            if option is not None:
                found.option, found.value = option
    return found


def verify_run(run: str, events: list[Event], checker: ObjectChecker, *,
               instance: str | None = None) -> RunVerification:
    """Evaluate PULL_VERIFIED for ``run`` from ``events`` (see the module docstring).

    With ``instance`` (the teardown gate) only listings taken from that instance count.
    """
    run_events = [e for e in events if e.run == run]
    every_listing = [e for e in run_events if e.kind == "pull.listed"]
    listings = [e for e in every_listing if instance is None or e.instance == instance]
    elsewhere = [e for e in every_listing if instance is not None and e.instance != instance]
    listed = _listed(listings)
    latest = listed.base
    verified = _verified_state(events)
    problems: list[str] = []
    checks: dict[str, ArtifactCheck] = {}
    pulls_by_path: dict[str, list[dict[str, Any]]] = {}
    for e in run_events:
        if e.kind == "artifact.pulled" and isinstance(e.body.get("path"), str):
            pulls_by_path.setdefault(e.body["path"], []).append(e.body)

    result = RunVerification(run=run, artifacts=[], problems=problems, instance=instance)
    command = f"`labledger pull --run {run}{f' --instance {instance}' if instance else ''} ...`"
    # What a suggested pull must name: with an instance, a pull finds the folder it pulled
    # before by itself (`pull_source`), else the hint names the --from it still needs. Without
    # one, each file's hint names where the listing that showed it was taken (`where`).
    gate_from = pull_source(events, run, instance).hint() if instance is not None else None
    where: dict[int, str] = {}

    def nxt(check: ArtifactCheck) -> str:
        return gate_from if gate_from is not None else where.get(id(check), _ANY_BOX)

    if not every_listing:
        problems.append("no pull listing recorded (run `labledger pull --run "
                        f"{run} ...`)")
    elif listings and latest is None:
        globs = sorted({g for e in listed.partials for g in e.body.get("only") or []})
        problems.append(f"no full listing of the box: run {command} without --only (each "
                        f"listing recorded was restricted by --only {' '.join(globs)})")
    # A pull from a copy, another box or no box at all says nothing about this box's disk:
    # named when it is why nothing (or nothing full) counts.
    foreign: Event | None = None
    if elsewhere and not listings:
        foreign = elsewhere[-1]
    elif elsewhere and latest is None:
        foreign = next((e for e in reversed(elsewhere) if not _partial(e)), None)
    if foreign is not None:
        problems.append(f"the latest {'full ' if listings else ''}listing of {run} was taken "
                        f"from {_taken_from(foreign)}, not from instance {instance}: pull with "
                        f"--instance {instance} ({command})")
    if latest is not None:
        # A later state needs its own evidence: a run still beating or exiting after the
        # full listing may have written files it (and so this pull) never saw; a partial
        # listing since then looked at part of the box only.
        after = run_events[run_events.index(latest) + 1:]
        active = [e for e in after if e.kind in _ACTIVITY
                  # the run on another box (a resumed copy) says nothing of this one
                  and (instance is None or e.instance in (None, instance))]
        if active:
            last = active[-1]
            problems.append(f"the run was still active after the latest full pull listing "
                            f"({last.kind} at {last.ts}, listing at {latest.ts}): what it wrote "
                            f"since is not in that listing; pull again without --only "
                            f"({command})")
    shown = latest or (listed.partials[-1] if listed.partials else None)
    if shown is not None:
        body = latest.body if latest is not None else {}
        result.listing_id, result.source = shown.id, shown.body.get("source")
        result.manifest_digest = body.get("manifest_digest")
        extra = body.get("extra") or {}
        result.roster_digest = body.get("roster_digest") or extra.get("roster_digest")
        unexpected = set(body.get("unexpected") or [])
        result.unexpected = sorted(unexpected)
        has_roster = bool(result.roster_digest or unexpected or body.get("missing"))
        for path, entry in sorted(listed.files.items()):
            sources = ["roster", "listing"] if has_roster and path not in unexpected \
                else ["listing"]
            check = ArtifactCheck(run=run, path=path, sources=sources, size=entry.get("size"),
                                  sha256=entry.get("sha256"),
                                  is_checkpoint=_is_checkpoint(path))
            where[id(check)] = _listing_options(listed.shown_by.get(path))
            pull, why = _pulled_match(entry, pulls_by_path.get(path, []))
            if pull is None:
                check.problems.append(why or "not pulled")
                check.digest_match = False if why and "differ" in why else None
                check.next_step = f"labledger pull --run {run}{nxt(check)} {_only(path)}"
            else:
                check.pulled, check.digest_match, check.digest = True, True, pull["digest"]
            writing = _still_written(entry)
            if writing is not None:
                check.problems.append(writing)
                check.next_step = f"labledger pull --run {run}{nxt(check)} {_only(path)}"
            checks[path] = check
        # Written by pull when it refused an entry (unsafe name, symlink out of the tree) or
        # when the box's hash of a roster entry differs from the roster's: never safe.
        for path in listed.refused:
            problems.append(f"{path}: refused at the latest listing (not pulled)")
        for path in listed.mismatched:
            problems.append(f"{path}: the box's copy differs from the roster's hash")
        for path in listed.missing:
            checks[path] = ArtifactCheck(
                run=run, path=path, sources=["roster"], is_checkpoint=_is_checkpoint(path),
                problems=["in the roster but not on the box at the latest listing"],
                next_step="find the file on the box, or pull again with a corrected roster")

    by_digest = {c.digest: c for c in checks.values() if c.digest}
    listed_b3 = {en.get("blake3"): path for path, en in listed.files.items() if en.get("blake3")}
    for e in _current_announcements(run_events):
        digest = e.body.get("digest")
        if not isinstance(digest, str):
            continue
        tag = "box:" + e.kind
        known = by_digest.get(digest) or checks.get(listed_b3.get(digest, ""))
        if known is not None:
            if tag not in known.sources:
                known.sources.append(tag)
            known.is_checkpoint = known.is_checkpoint or e.kind == "checkpoint.saved"
            continue
        key = f"{e.body.get('path')}@{digest}"
        if key in checks:
            continue
        check = ArtifactCheck(run=run, path=str(e.body.get("path")), sources=[tag],
                              size=e.body.get("size"), sha256=e.body.get("sha256"),
                              digest=digest, is_checkpoint=e.kind == "checkpoint.saved")
        # Announced on a box: pull from that box (the folder its latest pull named, else its
        # rented host and a DIR to fill in); announced by no box: from where the run's latest
        # listing was taken.
        where[id(check)] = (pull_source(events, run, e.instance).hint() if e.instance
                            else _listing_options(shown))
        # An announced object already in the local store counts as pulled (same bytes).
        check.pulled = checker.problem(digest) is None
        check.digest_match = True if check.pulled else None
        if not check.pulled:
            why = checker.problem(digest)
            check.problems.append(f"announced by the box but not pulled ({why})")
            check.next_step = f"labledger pull --run {run}{nxt(check)}"
        checks[key] = check
        by_digest[digest] = check

    for check in checks.values():
        if check.digest is not None and check.pulled:
            found = checker.problem(check.digest)
            check.stored = found is None
            if found is not None:
                check.problems.append(found)
                check.next_step = f"labledger pull --run {run}{nxt(check)} {_only(check.path)}"
        if check.is_checkpoint and check.digest is not None and not check.pulled:
            pass  # not here yet: "verified" would describe bytes this machine does not hold
        elif check.is_checkpoint and check.digest is not None:
            check.verified = verified.get(check.digest)
            if check.verified is None:
                check.problems.append("checkpoint never verified (loaded safely)")
            elif not check.verified:
                check.problems.append("checkpoint failed verification")
            if not check.verified and check.next_step is None:
                check.next_step = f"labledger pull --run {run}{nxt(check)} {_only(check.path)}"
        elif check.is_checkpoint and not check.problems:
            check.problems.append("checkpoint has no digest")
    result.artifacts = sorted(checks.values(), key=lambda c: c.path)
    if shown is not None and not result.artifacts:
        problems.append("the latest listing has no files")
    return result


# --- the teardown gate ----------------------------------------------------------------------------
@dataclass
class GateResult:
    """The teardown gate for one instance, evaluated now."""

    instance: str
    runs: list[RunVerification]
    problems: list[str]
    head: dict[str, str]

    @property
    def ok(self) -> bool:
        return not self.problems and all(r.ok for r in self.runs)

    def unmet(self) -> list[str]:
        return [f"{self.instance}: {p}" for p in self.problems] + [
            g for r in self.runs for g in r.gaps()]

    def state(self) -> dict[str, Any]:
        """What the gate judged: bound into `teardown.approved` by its digest."""
        return {"instance": self.instance, "ok": self.ok, "problems": self.problems,
                "runs": [{"run": r.run, "listing": r.listing_id, "ok": r.ok,
                          "artifacts": [[a.path, a.sha256, a.digest, a.ok] for a in r.artifacts],
                          "gaps": r.gaps()} for r in self.runs]}

    def state_digest(self) -> str:
        data = msgspec.json.encode(self.state(), order="deterministic")
        return "blake3:" + blake3(data).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {"instance": self.instance, "ok": self.ok, "state_digest": self.state_digest(),
                "problems": self.problems, "unmet": self.unmet(),
                "runs": [r.to_json() for r in self.runs], "ledger_head": self.head}


def hosted_runs(events: Iterable[Event], instance: str) -> list[str]:
    """Every run id of an event tagged with ``instance``."""
    return sorted({e.run for e in events if e.instance == instance and e.run})


def unknown_instance(events: Iterable[Event], instance: str) -> str | None:
    """Why ``instance`` is refused when no event names it (a typo must not read as a box with
    nothing recorded), naming the instances that some event names (20 at most); else None.
    The gate, `verify-pull --instance` and `pull --instance` (without a source) say it."""
    known: set[str] = set()
    for e in events:
        if e.instance == instance:
            return None
        if e.instance is not None:
            known.add(e.instance)
    shown = ", ".join(sorted(known)[:20]) + (", ..." if len(known) > 20 else "")
    return (f"instance {instance!r} is not in the ledger (no event names it; recorded "
            f"instances: {shown or 'none'})")


# How alike two instance ids must be (difflib's ratio, case ignored) for a new one to read as
# a typo of a known one: "vast-132" ~ "vast-123" (0.88), "gpubox" ~ "gpu-box" (0.92); the
# numbered "box2" ~ "box1" (0.75) is not, a second box being as likely as a slip there.
_TYPO_RATIO = 0.8


@dataclass
class NewInstance:
    """An instance no event names, about to enter the ledger through a pull of ``run``.
    ``typo_of``: a known instance whose id it is close to (the run's own box first), else None.
    ``run_on``: the instances ``run``'s events name; ``pulled_from``: those of them it was
    pulled from."""

    instance: str
    run: str
    typo_of: str | None
    run_on: list[str]
    pulled_from: list[str]

    def message(self) -> str:
        inst, run = self.instance, self.run
        if self.typo_of is not None:
            meant = self.typo_of
            why = (f", which run {run} was pulled from" if meant in self.pulled_from else
                   f", where run {run} is recorded" if meant in self.run_on else "")
            return (f"instance {inst!r} is not in the ledger yet (no event names it) and is "
                    f"close to {meant!r}{why}: this pull records {inst} as another box, and "
                    f"the teardown gate of {meant} does not count it. If you meant {meant}, "
                    f"pull again with --instance {meant} (files already stored are not "
                    "transferred again)")
        names = ", ".join(self.run_on[:5]) + (", ..." if len(self.run_on) > 5 else "")
        return (f"instance {inst!r} is not in the ledger yet: this pull records it as a box "
                f"of its own, besides {names}, where run {run} is recorded (a run resumed on "
                f"a second box is pulled from both); the teardown gate of "
                f"{'each of those' if len(self.run_on) > 1 else names} does not count it")


def new_instance(events: Iterable[Event], run: str, instance: str) -> NewInstance | None:
    """What `pull --from/--from-dir --instance I` tells the user when no event names ``I``
    yet, else None (``I`` is known, or nothing makes a new id worth a word: no known id is
    like it and ``run`` is recorded on no other box). The pull goes on either way: a box not
    rented through labledger enters the ledger so; but the teardown gate of another box will
    not count it, and a typo is cheapest to fix now."""
    import difflib

    known: dict[str, None] = {}  # ordered sets
    run_on: dict[str, None] = {}
    pulled_from: dict[str, None] = {}
    for e in events:
        if e.instance is None:
            continue
        if e.instance == instance:
            return None
        known[e.instance] = None
        if e.run == run:
            run_on[e.instance] = None
            if e.kind == "pull.listed":
                pulled_from[e.instance] = None
    ratio = {k: difflib.SequenceMatcher(None, k.lower(), instance.lower()).ratio()
             for k in known}
    # the run's own box first, then the likest
    close = sorted((k for k in known if ratio[k] >= _TYPO_RATIO),
                   key=lambda k: (k not in run_on, -ratio[k], k))
    if not close and not run_on:
        return None
    return NewInstance(instance=instance, run=run, typo_of=close[0] if close else None,
                       run_on=list(run_on), pulled_from=list(pulled_from))


def evaluate_gate(ledger: Ledger, instance: str, *, events: list[Event] | None = None,
                  checker: ObjectChecker | None = None) -> GateResult:
    """Whether instance ``instance`` may be torn down now: every run it hosted pull-verified
    from listings taken from this instance, local bytes re-verified. An instance with no
    recorded run never passes (nothing proves its results are safe)."""
    events = gate_events(ledger) if events is None else events
    checker = checker or ObjectChecker(open_store(ledger))
    runs = hosted_runs(events, instance)
    problems = [] if runs else [
        "no run is recorded on this instance, so nothing shows its results are safe "
        "(record runs with --instance, or override with a reason)"]
    unknown = unknown_instance(events, instance)
    if unknown is not None:  # a typo must not read as an empty box
        problems = [unknown]
    return GateResult(instance=instance,
                      runs=[verify_run(r, events, checker, instance=instance) for r in runs],
                      problems=problems, head=ledger_head(events))


def open_store(ledger: Ledger) -> Store:
    return Store(ledger.paths.cas)


# --- the marker ---------------------------------------------------------------------------------
def default_marker(ledger: Ledger, run: str, instance: str | None = None) -> Path:
    """``.labledger/verified/RUN/PULL_VERIFIED.json``; judged from one instance's listings:
    ``.labledger/verified/RUN/instances/INSTANCE/PULL_VERIFIED.json``."""
    folder = ledger.paths.home / "verified" / run
    if instance is not None:
        folder = folder / "instances" / instance
    return folder / MARKER_NAME


def marker_document(result: RunVerification, head: Mapping[str, str]) -> dict[str, Any]:
    """PULL_VERIFIED.json: the seed's v1 fields first, then labledger's bindings (``instance``
    only when the run was judged from one instance's listings)."""
    document = {
        "schema": SCHEMA,
        "run_id": result.run,
        "manifest_sha256": result.manifest_sha256(),
        "verified_at_utc": now_ts(),
        "files": result.files,
        "bytes": result.bytes,
        "manifest_digest": result.manifest_digest,
        "roster_digest": result.roster_digest,
        "listing_event": result.listing_id,
        "source": result.source,
        "ledger_head": dict(head),
        "digests": [{"path": a.path, "bytes": a.size, "sha256": a.sha256, "digest": a.digest,
                     "checkpoint_verified": a.verified if a.is_checkpoint else None}
                    for a in result.artifacts],
    }
    if result.instance is not None:
        document["instance"] = result.instance
    return document


def _index_path(ledger: Ledger) -> Path:
    return ledger.paths.home / "verified" / _MARKER_INDEX


def _read_index(ledger: Ledger) -> dict[str, list[str]]:
    try:
        data = json.loads(_index_path(ledger).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_marker(ledger: Ledger, result: RunVerification, head: Mapping[str, str],
                 out: Path) -> dict[str, Any]:
    """Write PULL_VERIFIED.json for a passing run and remember where (for invalidation).

    Raises ``ValueError`` when the run does not pass: a marker is never written for a gap.
    """
    if not result.ok:
        raise ValueError(f"run {result.run} is not pull-verified; no marker is written")
    document = marker_document(result, head)
    write_text_atomic(out, json.dumps(document, indent=2) + "\n")
    index = _read_index(ledger)
    paths = index.setdefault(result.run, [])
    if str(out.resolve()) not in paths:
        paths.append(str(out.resolve()))
        write_text_atomic(_index_path(ledger), json.dumps(index, indent=2) + "\n")
    return document


def invalidate_markers(ledger: Ledger, result: RunVerification,
                       extra: Iterable[Path] = ()) -> list[Path]:
    """Rename every PULL_VERIFIED.json written for the run (and ``extra`` paths holding one)
    to ``<name>.invalid``, adding why; returns the new paths. Files that are not a
    PULL-VERIFIED marker for this run are left alone.

    Markers of the same scope are invalidated (judged from the same instance's listings, or
    both from the run's latest listing from anywhere); a marker of the other scope only when it
    names an object this evaluation found unusable (`RunVerification.bad_digests`): a gap of
    box2 says nothing about what was verified from box1, changed bytes say it of every marker.
    """
    bad = result.bad_digests()
    candidates = [Path(p) for p in _read_index(ledger).get(result.run, [])] + list(extra)
    moved: list[Path] = []
    seen: set[Path] = set()
    for path in candidates:
        path = path.resolve()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(document, dict) or document.get("schema") != SCHEMA or \
                document.get("run_id") != result.run:
            continue
        named = {d.get("digest") for d in document.get("digests") or [] if isinstance(d, dict)}
        if document.get("instance") != result.instance and not named & bad:
            continue
        document["invalidated"] = {"at_utc": now_ts(), "reason": "re-verification failed",
                                   "gaps": result.gaps()}
        target = path.with_name(path.name + ".invalid")
        write_text_atomic(target, json.dumps(document, indent=2) + "\n")
        path.unlink()
        moved.append(target)
    return moved


def record_corrupt(ledger: Ledger, checker: ObjectChecker) -> int:
    """Append one ``object.quarantined`` per corrupt object the evaluation found; the count."""
    drafts = [ledger.draft("object.quarantined", {
        "digest": exc.digest, "path": str(exc.quarantine_path or exc.path),
        "reason": ("content hashes to " + exc.actual_digest) if exc.actual_digest
        else "content could not be read"}) for exc in checker.corrupt]
    if drafts:
        ledger.append_drafts(drafts)
    checker.corrupt.clear()
    return len(drafts)
