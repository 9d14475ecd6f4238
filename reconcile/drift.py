"""Reconcile a project's documents against its ledger: the entry points the CLI calls.

* `reconcile_project`: the documents named (files or folders), else the configured globs.
* `reconcile_staged`: what git would commit (for pre-commit hooks), plus EVIDENCE.json: when it
  is staged (its staged bytes) or present (the file), it must equal the projection of the
  ledger (`labledger.reconcile.evidence`), or the report carries its differences.
* `evidence_document`: that projection, with the claims' document locations when asked (read
  from the configured documents in the work tree, or as the index holds them for the hook).

Claims are the ledger's current claims (`claim_model.current_claims`), read once. Nothing here
writes anything but the judging cache (`judge_cache`, in ``.labledger/cache/reconcile/``), which
only ever makes a run faster: a cached report equals an uncached one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labledger.reconcile.claim_model import Claim, current_claims, load_claim_events
from labledger.reconcile.doc_readers import Segment
from labledger.reconcile.doc_sources import (
    configured_globs,
    display_path,
    git_toplevel,
    included_count,
    index_documents,
    read_documents,
    resolve_documents,
    staged_blob,
    staged_documents,
)
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.errors import DocumentsConfigError
from labledger.reconcile.findings import Report
from labledger.reconcile.pull_verified import Event, load_events

__all__ = ["cache_folder", "evidence_document", "reconcile_paths", "reconcile_project",
           "reconcile_staged"]


def cache_folder(ledger: Any) -> Path:
    """Where a project's judged segments are remembered (`judge_cache`)."""
    return Path(ledger.paths.home) / "cache" / "reconcile"


def reconcile_paths(paths: Sequence[Path], claims: Sequence[Claim],
                    cwd: Path | None = None, jobs: int | None = None,
                    cache: Path | None = None, project: Path | None = None) -> Report:
    """Read ``paths`` (all of them, or `DocumentError`; the files they include from inside
    ``project``) and judge them against ``claims`` (in ``jobs`` processes, remembering judged
    segments in ``cache``: see `reconcile_segments`)."""
    segments = read_documents(paths, cwd, project)
    return _reconciled(segments, claims, len(paths), jobs, cache)


def _reconciled(segments: Sequence[Segment], claims: Sequence[Claim], given: int,
                jobs: int | None, cache: Path | None) -> Report:
    """`reconcile_segments` of the segments of ``given`` documents and the files they include
    (`doc_sources.included_count`: counted apart in the summary)."""
    included = included_count(segments)
    report = reconcile_segments(segments, claims, documents=given + included, jobs=jobs,
                                cache=cache)
    report.included = included
    return report


def reconcile_project(ledger: Any, paths: Sequence[str], cwd: Path | None = None,
                      jobs: int | None = None, use_cache: bool = True) -> Report:
    """`reconcile_paths` over ``paths``, or over the project's configured document globs."""
    globs = None if paths else configured_globs(ledger.paths.config)
    documents = resolve_documents(paths, ledger.paths.project, globs)
    claims = current_claims(load_claim_events(ledger))
    return reconcile_paths(documents, claims, cwd, jobs,
                           cache_folder(ledger) if use_cache else None, ledger.paths.project)


def evidence_document(ledger: Any, *, locations: bool, events: list[Event] | None = None,
                      index_of: Path | None = None, written_with: str | None = None,
                      cache: Path | None = None, name: str | None = None) -> dict[str, Any]:
    """EVIDENCE.json's projection; with ``locations``, each claim's places in the configured
    documents (the work tree's, or those in the index of the git work tree ``index_of``).
    ``name``: the project name the file being written or checked keeps (`project_name`).

    ``written_with``: the committed file whose ``locations_from`` asked for locations (named in
    the error when no documents are configured, instead of an option nobody gave). ``cache``:
    the judging cache to use for the locations (None: none; `evidence` writes nothing).
    """
    from labledger.reconcile.evidence import add_locations, build_evidence

    # only the latest heartbeat of each run and instance can change the projection
    # (`load_events`): a ledger of hundreds of thousands of beats loads in a fraction
    events = load_events(ledger, latest_heartbeats=True) if events is None else events
    document = build_evidence(ledger, events=events, name=name)
    if not locations:
        return document
    project = Path(ledger.paths.project).absolute()
    globs = configured_globs(ledger.paths.config)
    if not globs:
        how = ("\n\n    [reconcile]\n    documents = [\"paper/**/*.tex\", \"README.md\"]\n")
        if written_with is None:
            problem = ("evidence --locations reads the [reconcile] documents of "
                       ".labledger/config.toml, and none are configured; add them, e.g." + how)
        else:
            problem = (f"{written_with} was written with locations (`labledger evidence "
                       "--locations`: it has locations_from), so it is checked against the "
                       "locations read now from the [reconcile] documents of "
                       ".labledger/config.toml, and none are configured; configure them, e.g."
                       + how + f"\nor regenerate it without locations (`labledger evidence -o "
                       f"{written_with}`)")
        raise DocumentsConfigError(problem, str(ledger.paths.config))
    if index_of is None:
        segments = read_documents(resolve_documents([], project, globs), project, project)
    else:
        segments = index_documents(index_of, project.resolve(), globs)
    report = reconcile_segments(segments, current_claims(events), cache=cache)
    return add_locations(document, report, globs)


def _evidence_module() -> Any:
    """`labledger.reconcile.evidence`, or None in a build without claim capture."""
    try:
        from labledger.reconcile import evidence
    except ImportError:
        return None
    return evidence


def _kept_evidence(ledger: Any, top: Path, name: str) -> tuple[Path, str] | None:
    """The project's EVIDENCE.json as the commit would hold it (its staged bytes, else the
    file), with its text; None when the project keeps none."""
    path = Path(ledger.paths.project) / name
    try:
        rel = path.relative_to(top).as_posix()
    except ValueError:
        rel = None
    data = staged_blob(top, rel) if rel is not None else None
    if data is None:
        if not path.exists():
            return None  # no EVIDENCE.json in this project: nothing to keep in step
        data = path.read_bytes()
    return path, data.decode("utf-8", errors="replace")


def _check_evidence(ledger: Any, evidence: Any, kept: tuple[Path, str], events: list[Event],
                    top: Path, report: Report, cwd: Path | None, cache: Path | None) -> None:
    path, text = kept
    shown = display_path(path, cwd)
    document = evidence_document(ledger, locations=evidence.wants_locations(text),
                                 events=events, index_of=top, written_with=shown, cache=cache,
                                 name=evidence.kept_name(text))
    report.evidence = {"path": shown, "differences": evidence.differences(text, document),
                       "locations": evidence.wants_locations(text)}


def reconcile_staged(ledger: Any, cwd: Path, jobs: int | None = None,
                     use_cache: bool = True) -> Report:
    """Judge the staged documents and EVIDENCE.json of the git work tree holding ``cwd``."""
    top = git_toplevel(cwd)
    project = Path(ledger.paths.project).resolve()
    globs = configured_globs(ledger.paths.config)
    segments, shown = staged_documents(top.resolve(), project, globs, cwd)
    cache = cache_folder(ledger) if use_cache else None
    evidence = _evidence_module()
    kept = _kept_evidence(ledger, top.resolve(), evidence.EVIDENCE_NAME) if evidence else None
    # The ledger is read once: the claim events alone, unless the project keeps an
    # EVIDENCE.json, whose projection needs the runs' pulls and latest activity too (of the
    # heartbeats only the latest of each run and instance: `load_events`)
    events = (load_events(ledger, latest_heartbeats=True) if kept is not None
              else load_claim_events(ledger))
    report = _reconciled(segments, current_claims(events), len(shown), jobs, cache)
    if evidence is None:
        report.notes.append("EVIDENCE.json not checked: labledger.reconcile.evidence is missing")
    elif kept is not None:
        _check_evidence(ledger, evidence, kept, events, top.resolve(), report, cwd, cache)
    return report
