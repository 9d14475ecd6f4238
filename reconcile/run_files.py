"""A run's files as the ledger knows them: path inside the run -> stored object.

Routes by which a run's bytes reach the store, each an event of the run naming a digest:

* ``capsule.sealed`` (`labledger close`): a tree; its entries' paths are run paths
  (``test/kodak/metrics.json``).
* ``artifact.recorded`` of type ``tree`` (`labledger ingest-dir`, an attached folder): entries
  relative to the tree.
* ``artifact.recorded`` of type ``file``: its path, made relative to a tree of the same run
  recorded for a folder above it (ingest-dir records both).
* ``artifact.pulled`` (ok, with a local digest): the path relative to the pulled root.
* ``checkpoint.saved``: its path.

Newest wins: a later event (ledger order) replaces an earlier one for the same path, so a re-pull
or a re-sealed capsule is what a claim reads. A tree whose object cannot be read is skipped and
named in ``problems`` (so a refusal can say why a file is not found).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from labledger.cas import Store
from labledger.cas.errors import CasError
from labledger.reconcile.errors import ClaimSourceError
from labledger.reconcile.pull_verified import Event

DEFAULT_RESULT = "metrics.json"


@dataclass(frozen=True)
class RunFile:
    """One file of a run: where it is in the run, its object, and the event that stored it."""

    path: str
    digest: str
    event_id: str
    route: str  # the kind of that event


@dataclass
class RunFiles:
    run: str
    files: dict[str, RunFile] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _tree_paths(events: list[Event]) -> list[str]:
    return sorted({e.body["path"].rstrip("/") for e in events if e.kind == "artifact.recorded"
                   and e.body.get("type") == "tree" and isinstance(e.body.get("path"), str)},
                  key=len, reverse=True)


def _relative(path: str, trees: list[str]) -> str:
    for tree in trees:
        if path.startswith(tree + "/"):
            return path[len(tree) + 1:]
    return path


def run_files(run: str, events: Iterable[Event], store: Store) -> RunFiles:
    """Index every file of ``run`` recorded in ``events`` (ledger order), newest wins."""
    mine = [e for e in events if e.run == run]
    trees = _tree_paths(mine)
    out = RunFiles(run=run)
    for e in mine:
        digest, path = e.body.get("digest"), e.body.get("path")
        if not isinstance(digest, str):
            continue
        is_tree = e.kind == "capsule.sealed" or (
            e.kind == "artifact.recorded" and e.body.get("type") == "tree")
        if is_tree:
            try:
                entries = store.ls(digest)
            except CasError as exc:
                out.problems.append(f"{e.kind} {e.id[:12]}: tree {digest} cannot be listed "
                                    f"({exc})")
                continue
            for entry in entries:
                if entry.kind == "file" and entry.digest is not None:
                    out.files[entry.path] = RunFile(entry.path, entry.digest, e.id, e.kind)
            continue
        stores_file = e.kind in ("artifact.recorded", "checkpoint.saved") or (
            e.kind == "artifact.pulled" and e.body.get("ok"))
        if stores_file and isinstance(path, str):
            rel = _relative(path, trees) if e.kind == "artifact.recorded" else path
            out.files[rel] = RunFile(rel, digest, e.id, e.kind)
    return out


def _one(found: list[RunFile]) -> RunFile | None:
    """The file when every candidate is the same bytes at the same run path seen from deeper
    folders (``export/r1/test/a/metrics.json`` and ``test/a/metrics.json``), else None."""
    shortest = min(found, key=lambda f: (len(f.path), f.path))
    same = all(f.digest == shortest.digest and (f.path == shortest.path or f.path.endswith(
        "/" + shortest.path)) for f in found)
    return shortest if same else None


def locate(files: RunFiles, path: str | None, *, claim: str | None = None) -> RunFile:
    """The file a claim reads: ``path`` (exact, else the one file whose path ends with it), or
    the run's one ``metrics.json`` when ``path`` is None.

    Raises `ClaimSourceError` listing the candidates when there is none or more than one.
    """
    known = sorted(files.files)
    why = f" ({'; '.join(files.problems)})" if files.problems else ""
    if not known:
        raise ClaimSourceError(files.run, "no stored file is recorded for this run (seal it "
                               "with `labledger close`, `labledger ingest-dir` or pull it)" + why,
                               claim=claim)
    if path is None:
        found = [f for p, f in sorted(files.files.items())
                 if posixpath.basename(p) == DEFAULT_RESULT]
        if not found:
            raise ClaimSourceError(files.run, f"no {DEFAULT_RESULT} among its files{why}; name "
                                   "the result file with --from PATH; its files",
                                   candidates=known, claim=claim)
        chosen = _one(found)
        if chosen is None:
            raise ClaimSourceError(files.run, f"{len(found)} {DEFAULT_RESULT} files; choose one "
                                   "with --from PATH", candidates=[f.path for f in found],
                                   claim=claim)
        return chosen
    wanted = posixpath.normpath(path.strip()).removeprefix("./")
    if wanted in files.files:
        return files.files[wanted]
    found = [f for p, f in sorted(files.files.items()) if p.endswith("/" + wanted)]
    if not found:
        raise ClaimSourceError(files.run, f"no stored file {path!r}{why}; its files", path=path,
                               candidates=known, claim=claim)
    chosen = _one(found)
    if chosen is None:
        raise ClaimSourceError(files.run, f"{path!r} matches {len(found)} files; give more of "
                               "the path", path=path, candidates=[f.path for f in found],
                               claim=claim)
    return chosen
