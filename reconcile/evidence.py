"""EVIDENCE.json: the projection of every current claim, its evidence and its disclosures.

The document keeps the seed's v1.0 shape (``project``, ``authoritative_source``,
``schema_version``, ``claims: [{id, statement, evidence: [{exp_id, run, metric, direction, value,
split, n, variance: {type, value, seeds}, results_json, figure}], paper_anchor,
repo_implementation, disclosure, aliases}]``) and adds what labledger can prove: the source
object's digest and the events that stored it and declared the claim, the run's pull-verified
status and git state, and **disclosures computed from the ledger** (``disclosures``, each a code
and a sentence; ``disclosure`` joins their sentences, as the seed had one string).

Invariants:

* Deterministic: the same ledger and store give the same bytes (keys sorted, claims by id,
  2-space indent, trailing newline). Nothing depends on when it is generated: no generation
  time, no ledger head (an unrelated event would make ``--check`` fail).
* Evaluated, never written into the ledger: pull-verification is evaluated now
  (`pull_verified.verify_run`, local bytes re-hashed) and PULL_VERIFIED.json is neither read nor
  written here. The one write: a stored object found corrupt while re-hashing is quarantined
  by the store, and its ``object.quarantined`` event recorded (as by every reader).
* A run never hosted on a box (no instance, no pull) is said to be local: ``pull_verified`` is
  null with ``"pull": "local run, no remote box"``, never a false ``true``.
* Read fast, judged the same: a project's ledger is mostly heartbeats, and only the latest of
  each run and instance can change a judgement here, so `build_evidence` loads the ledger with
  ``load_events(..., latest_heartbeats=True)``: a heartbeat superseded by a later one of its run
  and instance decides nothing, so it is not verified here; `labledger check` verifies every
  line. The document is the same as from every event (a property test holds it so).
* Document locations (where reconcile finds each claim in the configured documents) are
  opt-in (`add_locations`): a file generated with them says so (``locations_from``) and is
  checked with them, by ``evidence --check`` and by the pre-commit hook alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from labledger.cas import Store
from labledger.ledger.ledger import Ledger
from labledger.reconcile._files import write_text_atomic
from labledger.reconcile.claim_model import Claim, current_claims
from labledger.reconcile.claim_values import normalize_split, split_from_path
from labledger.reconcile.errors import ReconcileError
from labledger.reconcile.pull_verified import (
    Event,
    ObjectChecker,
    load_events,
    record_corrupt,
    verify_run,
)
from labledger.reconcile.run_files import RunFile, RunFiles, run_files

SCHEMA_VERSION = "1.0"
EVIDENCE_NAME = "EVIDENCE.json"
LOCAL_RUN = "local run, no remote box"


def project_name(ledger: Ledger, kept: str | None = None) -> str:
    """The project's name: the one the EVIDENCE.json being written or checked already carries
    (``kept``, see `kept_name`), else the project's folder.

    The name is not evidence: a second clone in a folder of another name (a co-author's
    ``paper-v2``, a CI checkout) must neither fail ``--check`` nor rewrite the name."""
    return kept if kept else ledger.paths.project.name


def kept_name(text: str | None) -> str | None:
    """The ``project`` an existing EVIDENCE.json (``text``) carries, when it is a usable name
    (a non-empty single-line string); None for no file, bad JSON or no such name."""
    document = _parsed(text)
    name = document.get("project") if document is not None else None
    if isinstance(name, str) and name.strip() and name.isprintable():
        return name
    return None


class _Runs:
    """Per-run facts, computed once per document."""

    def __init__(self, events: list[Event], checker: ObjectChecker) -> None:
        self.events, self.checker = events, checker
        self._pull: dict[str, tuple[bool | None, str, list[str]]] = {}
        self._files: dict[str, RunFiles] = {}
        self._launch: dict[str, Event] = {}  # the latest run.launched per run
        self._dirty: dict[str, Event] = {}  # the latest run.launched per run from a dirty tree
        self._remote: set[str] = set()  # runs hosted on an instance or pulled
        for e in events:
            if e.run is None:
                continue
            if e.kind == "run.launched":
                self._launch[e.run] = e
                if e.body.get("git_dirty"):
                    self._dirty[e.run] = e
            if e.instance or e.kind == "pull.listed":
                self._remote.add(e.run)

    def pull(self, run: str | None) -> tuple[bool | None, str, list[str]]:
        if run is None:
            return None, "no run", []
        if run not in self._pull:
            if run not in self._remote:
                self._pull[run] = (None, LOCAL_RUN, [])
            else:
                result = verify_run(run, self.events, self.checker)
                self._pull[run] = (True, "pull-verified", []) if result.ok else (
                    False, "not pull-verified", result.gaps())
        return self._pull[run]

    def launch(self, run: str | None) -> Event | None:
        return self._launch.get(run) if run is not None else None

    def dirty_launch(self, run: str | None) -> Event | None:
        """The latest launch of ``run`` from a dirty tree, even if a clean one came after: a
        run resumed from a clean tree still holds what the dirty code trained."""
        return self._dirty.get(run) if run is not None else None

    def current_file(self, run: str | None, path: str | None) -> RunFile | None:
        """The file the run holds at ``path`` now (the newest event naming it), if known."""
        if run is None or path is None:
            return None
        if run not in self._files:
            self._files[run] = run_files(run, self.events, self.checker.store)
        return self._files[run].files.get(path)


def _fmt(value: float) -> str:
    return f"{value:.6g}"


def _splits(text: str) -> set[str]:
    """The splits a split name covers, synonyms folded: ``test+val`` (a table whose rows are of
    two splits) is {test, val}; ``val+validation`` is {val}."""
    return {normalize_split(part) for part in text.split("+") if part.strip()} or {text}


def disclosures(claim: Claim, runs: _Runs) -> list[dict[str, str]]:
    """Every integrity finding for one claim, in a fixed order, each ``{code, message}``."""
    out: list[dict[str, str]] = []

    def add(code: str, message: str) -> None:
        out.append({"code": code, "message": message})

    seeds = claim.seeds
    spread = (f"{claim.variance_type} {_fmt(claim.variance)}" if claim.variance is not None
              else None)
    if len(seeds) < 2:
        if spread is None:
            which = (f"single seed (seed {seeds[0]})" if seeds else
                     "single run (seed not recorded)")
            add("single-seed", f"{which}, no variance reported")
        elif seeds:
            add("single-seed", f"single seed (seed {seeds[0]}); the reported {spread} is not a "
                               "spread over seeds")
        else:  # a spread is reported: maybe over seeds, but the result does not say which
            add("single-seed", f"seeds not recorded; the reported {spread} is not shown to be "
                               "a spread over seeds")
    elif spread is None:
        add("no-variance", f"{len(seeds)} seeds but no variance reported")
    if claim.n == 0:
        add("empty-result", "n = 0: the result covers no samples")
    if runs.checker.problem(claim.source_digest) is not None:
        add("source-unavailable", f"the result object {claim.source_digest} is not intact in "
                                  f"the local store ({runs.checker.problem(claim.source_digest)})")
    now = runs.current_file(claim.run, claim.source_path)
    if now is not None and now.digest != claim.source_digest:
        add("stale-source", f"run {claim.run}'s {claim.source_path} now holds other bytes "
                            f"({now.digest}, recorded by event {now.event_id[:12]}) than the "
                            f"ones this claim was read from; declare {claim.id} again to read "
                            "them")
    verified, _, gaps = runs.pull(claim.run)
    if verified is False:
        first = gaps[0] if gaps else "no detail"
        add("not-pull-verified", f"run {claim.run} is not pull-verified ({len(gaps)} gap(s), "
                                 f"first: {first})")
    launch, dirty = runs.launch(claim.run), runs.dirty_launch(claim.run)
    if launch is None:
        add("no-launch-record", f"no run.launched is recorded for run {claim.run}: the code and "
                                "git state it ran from are unknown")
    elif dirty is not None:
        commit = str(dirty.body.get("git_commit") or "unknown commit")[:12]
        diff = dirty.body.get("git_diff_digest")
        later = "" if dirty is launch else (
            f"; relaunched later from a clean tree (event {launch.id[:12]}), but what the "
            "dirty launch trained may be in the result")
        add("dirty-git-tree", f"run {claim.run} was launched from a dirty git tree (commit "
                              f"{commit}" + (f", diff {diff}" if diff else "") + ")" + later)
    elif launch.body.get("git_commit") is None:
        add("unknown-code-version", f"run {claim.run} was launched outside a git repository "
                                    "(or git was unavailable): the code version is unknown")
    if claim.split is not None:
        if claim.evaluated_split is None:
            add("split-unverified", f"stated split {claim.split!r} is not recorded by the "
                                    "result (no split folder in its path, no split key)")
        elif _splits(claim.split) != _splits(claim.evaluated_split):
            add("split-mismatch", f"stated split {claim.split!r} but the result was evaluated "
                                  f"on {claim.evaluated_split!r}")
    return out


def _evidence(claim: Claim, runs: _Runs) -> dict[str, Any]:
    verified, pull, gaps = runs.pull(claim.run)
    launch = runs.launch(claim.run)
    _, test_id = split_from_path(claim.source_path or "")
    return {
        "exp_id": test_id or claim.run,
        "run": claim.run,
        "metric": claim.metric,
        "direction": claim.direction,
        "value": claim.value,
        "split": claim.split if claim.split is not None else claim.evaluated_split,
        "n": claim.n,
        "variance": {"type": claim.variance_type, "value": claim.variance,
                     "seeds": list(claim.seeds)},
        "results_json": claim.source_path,
        "figure": None,
        "unit": claim.unit,
        "selector": claim.selector,
        "evaluated_split": claim.evaluated_split,
        "source_digest": claim.source_digest,
        "source_event": claim.source_event,
        "pull_verified": verified,
        "pull": pull,
        "pull_gaps": gaps,
        "launch": None if launch is None else {
            "event": launch.id,
            "git_commit": launch.body.get("git_commit"),
            "git_dirty": launch.body.get("git_dirty"),
            "git_diff_digest": launch.body.get("git_diff_digest"),
        },
    }


def claim_entry(claim: Claim, runs: _Runs) -> dict[str, Any]:
    found = disclosures(claim, runs)
    return {
        "id": claim.id,
        "statement": claim.statement,
        "evidence": [_evidence(claim, runs)],
        "paper_anchor": claim.paper_anchor,
        "repo_implementation": claim.implementation,
        "disclosure": "; ".join(d["message"] for d in found) or None,
        "disclosures": found,
        "aliases": list(claim.aliases),
        "event": claim.event_id,
        "declared_at": claim.declared_at,
        "superseded": list(claim.superseded),
    }


def build_evidence(ledger: Ledger, *, events: list[Event] | None = None,
                   checker: ObjectChecker | None = None,
                   name: str | None = None) -> dict[str, Any]:
    """The EVIDENCE.json document for every current claim (see the module docstring);
    ``name``: the project name to keep (`project_name`). ``events``: the ledger as `load_events`
    gives it, with every heartbeat or only the latest ones (the default reads those only).

    Judging pull-verification re-hashes the runs' stored objects: one found corrupt is moved to
    quarantine by the store, and (unless the caller passed its own ``checker``, and records
    what it found itself) its ``object.quarantined`` event is appended here, as every reader
    that moves an object does.
    """
    events = load_events(ledger, latest_heartbeats=True) if events is None else events
    own = checker is None
    checker = checker or ObjectChecker(Store(ledger.paths.cas))
    runs = _Runs(events, checker)
    name = project_name(ledger, name)
    document = {
        "project": name,
        "authoritative_source": f"labledger ledger ({name}/.labledger)",
        "schema_version": SCHEMA_VERSION,
        "claims": [claim_entry(c, runs) for c in current_claims(events)],
    }
    if own:
        record_corrupt(ledger, checker)
    return document


def add_locations(document: dict[str, Any], report: Any, globs: list[str]) -> dict[str, Any]:
    """``document`` with each claim's ``locations``: every place reconcile tied a number to it
    in the configured documents (``report``, paths relative to the project), with what the
    document shows there and the verdict (``match``, ``drift``, ``ambiguous``, ``unit``,
    ``marker``); ``locations_from`` names the globs read. A claim stated nowhere gets ``[]``.

    Opt-in (`labledger evidence --locations`): lines move with every edit above them, so a
    file with locations must be regenerated whenever the prose around a claimed number moves.
    """
    found: dict[str, list[dict[str, Any]]] = {}

    def put(cid: str, path: str, where: str | None, line: int, col: int, shown: str | None,
            via: str, status: str) -> None:
        found.setdefault(cid, []).append({"path": path, "where": where, "line": line,
                                          "col": col, "shown": shown, "via": via,
                                          "status": status})

    for m in report.matches:
        for cid in m.claims:
            put(cid, m.path, m.where, m.line, m.col, m.shown, m.via, "match")
    for f in report.findings:
        for cid in f.claims:
            put(cid, f.path, f.where, f.line, f.col, f.shown, f.via, f.type)
    for claim in document["claims"]:
        claim["locations"] = sorted(
            found.get(claim["id"], []),
            key=lambda x: (x["path"], x["where"] or "", x["line"], x["col"], x["status"]))
    document["locations_from"] = list(globs)
    return document


def wants_locations(text: str | None) -> bool:
    """Whether a committed EVIDENCE.json was generated with ``--locations`` (then it is
    checked against a projection with them)."""
    committed = _parsed(text)
    return committed is not None and "locations_from" in committed


def _parsed(text: str | None) -> dict[str, Any] | None:
    """A committed EVIDENCE.json's object; None for no file, bad JSON or not an object."""
    if not text:
        return None
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def render(document: dict[str, Any]) -> str:
    """The canonical text: keys sorted, 2-space indent, UTF-8 as is, one trailing newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _same_text(held: str, text: str) -> bool:
    """``held`` is ``text``, perhaps with CRLF line ends: git on Windows (core.autocrlf, its
    default) checks the committed LF file out with CRLF, and that is still the same file."""
    return held == text or held.replace("\r\n", "\n") == text


def write_evidence(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically unless it already holds it (line ends aside, see
    `_same_text`); True when written."""
    try:
        with path.open(encoding="utf-8", newline="") as held:
            if _same_text(held.read(), text):
                return False
    except (OSError, UnicodeDecodeError):
        pass
    try:
        write_text_atomic(path, text)
    except OSError as exc:
        raise ReconcileError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return True


def _fields(claim: dict[str, Any]) -> dict[str, Any]:
    """A claim's fields, its evidence split into ``evidence[i].field`` (one line per change)."""
    out = {k: v for k, v in claim.items() if k != "evidence"}
    evidence = claim.get("evidence")
    if isinstance(evidence, list):
        for i, item in enumerate(evidence):
            if isinstance(item, dict):
                out.update({f"evidence[{i}].{k}": v for k, v in item.items()})
            else:
                out[f"evidence[{i}]"] = item
    return out


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 80 else text[:79] + "…"


def _by_id(claims: Any) -> dict[str, Any]:
    if not isinstance(claims, list):
        return {}
    return {str(c.get("id")): c for c in claims if isinstance(c, dict)}


def differences(text: str | None, document: dict[str, Any], *, limit: int = 50) -> list[str]:
    """How a committed EVIDENCE.json (``text``; None: missing) differs from ``document``, one
    line per difference; empty when it is byte-for-byte the canonical rendering (CRLF line
    ends aside: `_same_text`)."""
    if text is None:
        return ["the file does not exist"]
    if _same_text(text, render(document)):
        return []
    try:
        committed = json.loads(text)
    except ValueError as exc:
        return [f"the file is not valid JSON ({exc})"]
    except RecursionError:
        return ["the file is nested too deeply to be an EVIDENCE.json"]
    if not isinstance(committed, dict):
        return ["the file is not a JSON object"]
    out: list[str] = []
    for key in sorted(set(committed) | set(document)):
        if key != "claims" and committed.get(key) != document.get(key):
            out.append(f"{key}: file has {_short(committed.get(key))}, the ledger gives "
                       f"{_short(document.get(key))}")
    listed = committed.get("claims")
    if not isinstance(listed, list):  # (not read as "no claims": say what is there)
        out.append(f"claims: file has {_short(listed)}, not a list of claims")
    else:
        out.extend(f"claims: item {n} of the file is {_short(item)}, not a claim (an object)"
                   for n, item in enumerate(listed, 1) if not isinstance(item, dict))
    mine, theirs = _by_id(document.get("claims")), _by_id(listed)
    for cid in sorted(set(mine) | set(theirs)):
        if cid not in theirs:
            out.append(f"claim {cid}: missing from the file")
        elif cid not in mine:
            out.append(f"claim {cid}: in the file but not a current claim in the ledger")
        else:
            a, b = _fields(theirs[cid]), _fields(mine[cid])
            for name in sorted(set(a) | set(b)):
                if a.get(name) != b.get(name):
                    out.append(f"claim {cid}: {name}: file has {_short(a.get(name))}, the "
                               f"ledger gives {_short(b.get(name))}")
    if not out:
        out.append("same content, different formatting (regenerate it with `labledger "
                   "evidence -o FILE`)")
    return out[:limit] + ([f"and {len(out) - limit} more"] if len(out) > limit else [])
