"""Which documents to reconcile: paths given, the configured globs, or what git has staged.

Configuration, in ``.labledger/config.toml``::

    [reconcile]
    documents = ["paper/**/*.tex", "README.md", "notebooks/*.ipynb"]

Globs are relative to the project folder (the one holding ``.labledger/``); ``**`` spans any
number of folders (none included). An absolute glob, or one with a ``..`` component, would read
outside the project and is refused. Invariants:

* **Nothing is skipped silently.** A path given on the command line that is missing, a
  directory holding no document, a configuration whose globs match nothing, an unreadable or
  malformed document: each is an error (`DocumentError`, `DocumentsConfigError`) naming it.
  All documents are read before any is judged, so every bad one is reported at once.
* **Staged means the index.** ``--staged`` reads the blobs git would commit (``git cat-file
  --batch`` on ``:path``), never the working tree, so a hook judges exactly what is committed.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labledger.ledger._words import noun_for
from labledger.reconcile.doc_readers import FORMATS, Segment, format_of, read_document
from labledger.reconcile.errors import DocumentError, DocumentsConfigError, GitHookError

if TYPE_CHECKING:
    from labledger.reconcile.included import Files

__all__ = ["configured_globs", "display_path", "git_toplevel", "glob_regex", "read_documents",
           "index_documents", "resolve_documents", "run_git", "staged_blob",
           "staged_documents"]

_SKIP_DIRS = {".git", ".labledger", ".venv", "node_modules", "__pycache__", ".ipynb_checkpoints",
              # a site or book built from the sources beside it (Sphinx, Jupyter Book, Jekyll):
              # its pages restate them, and each finding would be reported twice
              "_build", "_site"}
HOW_TO_CONFIGURE = (
    "no documents to reconcile: pass paths (labledger reconcile paper/ README.md) or configure "
    "them in .labledger/config.toml:\n\n    [reconcile]\n    documents = [\"paper/**/*.tex\", "
    "\"README.md\"]\n")


def configured_globs(config: Path) -> list[str] | None:
    """The ``[reconcile] documents`` globs of ``config``, or None when there are none.

    `DocumentsConfigError` (naming ``config``) for a malformed table, an empty list, or a glob
    that reaches outside the project folder (absolute, or with a ``..`` component)."""
    import tomllib

    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DocumentsConfigError(f"{config}: cannot read it ({exc})", str(config)) from None
    table: Any = data.get("reconcile")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise DocumentsConfigError(f"{config}: 'reconcile' must be a table ([reconcile])",
                                   str(config))
    unknown = sorted(set(table) - {"documents"})
    if unknown:
        raise DocumentsConfigError(f"{config}: unknown [reconcile] "
                                   f"{noun_for(len(unknown), 'option')} {', '.join(unknown)}; "
                                   "known: documents", str(config))
    globs = table.get("documents")
    if globs is None:
        return None
    if not isinstance(globs, list) or not all(isinstance(g, str) and g for g in globs):
        raise DocumentsConfigError(f"{config}: [reconcile] documents must be a list of glob "
                                   "strings, e.g. [\"paper/**/*.tex\"]", str(config))
    if not globs:
        raise DocumentsConfigError(
            f"{config}: [reconcile] documents is an empty list, so there is nothing to "
            "reconcile; list the documents' globs, e.g. [\"paper/**/*.tex\", \"README.md\"], "
            "or remove the setting and pass paths", str(config))
    for pattern in globs:
        problem = _outside_project(pattern)
        if problem:
            raise DocumentsConfigError(
                f"{config}: [reconcile] documents: {pattern!r} {problem}; globs are relative "
                "to the project folder (the one holding .labledger/) and stay inside it",
                str(config))
    return list(globs)


def _outside_project(pattern: str) -> str | None:
    """Why a configured glob could reach outside the project folder, or None."""
    if Path(pattern).is_absolute() or pattern.startswith("/"):
        return "is absolute"
    if ".." in pattern.replace(os.sep, "/").split("/"):
        return "has a '..' component"
    return None


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex matching relative POSIX paths the way ``glob(..., recursive=True)`` does."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            close = pattern.find("]", i + 1)
            if close < 0:
                out.append(re.escape("["))
                i += 1
            else:
                body = pattern[i + 1:close]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = close + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def display_path(path: Path, cwd: Path | None = None) -> str:
    """``path`` relative to the working directory when it is below it."""
    return _below((cwd or Path.cwd()).absolute(), path)


def _below(here: Path, path: Path, here_is_cwd: bool = False) -> str:
    """`display_path` with ``here`` worked out once (for many paths)."""
    if here_is_cwd and not path.is_absolute():
        return str(path)  # what absolute().relative_to(here) gives back: it is lexical
    try:
        return str(path.absolute().relative_to(here))
    except ValueError:
        return str(path)


def _walk(folder: Path) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        found += [Path(root) / f for f in sorted(files) if format_of(f) is not None]
    return found


def resolve_documents(paths: Sequence[str], project: Path | None,
                      globs: list[str] | None) -> list[Path]:
    """The documents to read: ``paths`` (folders expanded to their documents), else the
    configured ``globs`` under ``project``; errors for anything missing or matching nothing."""
    if paths:
        out: list[Path] = []
        for raw in paths:
            path = Path(raw)
            found = _walk(path) if path.is_dir() else []
            # A missing file, or a folder with no document, stays in the list: reading it
            # reports it together with every other bad document.
            out += found or [path]
        return list(dict.fromkeys(out))
    if project is None or not globs:
        raise DocumentsConfigError(HOW_TO_CONFIGURE)
    import glob as globmod

    matched: list[Path] = []
    for pattern in globs:
        for name in sorted(globmod.glob(pattern, root_dir=project, recursive=True)):
            candidate = project / name
            if candidate.is_file():
                matched.append(candidate)
    if not matched:
        raise DocumentsConfigError(
            f"the [reconcile] documents globs ({', '.join(globs)}) match no file under "
            f"{project}; fix them in .labledger/config.toml or pass paths",
            str(project / ".labledger" / "config.toml"))
    return list(dict.fromkeys(matched))


def read_documents(paths: Sequence[Path], cwd: Path | None = None,
                   project: Path | None = None) -> list[Segment]:
    """Read every document, and the files they include (`included.with_included`: a LaTeX
    file's ``\\input``s, a Quarto file's ``{{< include >}}``s), with what other files say
    about it (`included.link`: a reST csv-table's ``:file:``, read from inside ``project``
    only; the decimal mark a LaTeX file's includer declares); one `DocumentError` naming all
    that cannot be read."""
    from labledger.reconcile.included import WorkTree

    read: list[tuple[str, list[Segment]]] = []
    problems: list[tuple[str, str]] = []
    process_cwd = Path.cwd().absolute()
    here = process_cwd if cwd is None else cwd.absolute()
    files = WorkTree(project)
    for path in paths:
        shown = _below(here, path, here == process_cwd)
        try:
            if _is_special(path):  # a FIFO would block the read forever, a device never end
                problems.append((shown, "not a regular file (a FIFO, socket or device)"))
                continue
            data = path.read_bytes()
            read.append((files.key(path), read_document(shown, data)))
        except DocumentError as exc:
            problems += exc.problems
        except FileNotFoundError:
            problems.append((shown, "no such file"))
        except IsADirectoryError:
            problems.append((shown, "a folder holding no document "
                                    f"({', '.join(sorted(FORMATS))})"))
        except OSError as exc:
            problems.append((shown, f"cannot read it ({exc.strerror or exc})"))
    return _linked(read, files, problems)


def _linked(read: list[tuple[str, list[Segment]]], files: Files,
            problems: list[tuple[str, str]]) -> list[Segment]:
    """The segments of the documents ``read``, and of the files they include
    (`included.with_included`), with their context from other files (`included.link`); one
    `DocumentError` naming every problem, ``problems`` (those found reading) first."""
    from labledger.reconcile.included import link, with_included

    try:
        read = with_included(read, files)
    except DocumentError as exc:
        problems += exc.problems
    try:
        segments = link(read, files)
    except DocumentError as exc:
        problems += exc.problems
    if problems:
        raise DocumentError(problems)
    return segments


def included_count(segments: Sequence[Segment]) -> int:
    """How many documents of ``segments`` were read because another includes them."""
    return len({seg.path for seg in segments if seg.included_by is not None})


def _is_special(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return False  # the read reports it
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


# --- git ---------------------------------------------------------------------------------------

def run_git(args: list[str], cwd: Path, data: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True,
                              check=False, timeout=120)
    except FileNotFoundError:
        raise GitHookError("git is not installed (or not on PATH)") from None
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip()
        raise GitHookError(f"`git {' '.join(args)}` failed in {cwd}: {err}", str(cwd))
    return proc.stdout


def git_toplevel(cwd: Path) -> Path:
    """The work tree's top folder; `GitHookError` outside a git work tree."""
    try:
        out = run_git(["rev-parse", "--show-toplevel"], cwd)
    except GitHookError:
        raise GitHookError(f"{cwd} is not inside a git work tree; --staged and hooks need "
                           "one", str(cwd)) from None
    return Path(out.decode().strip())


def _blobs(top: Path, names: list[str]) -> dict[str, bytes]:
    """The staged content of each path, read with one `git cat-file --batch`."""
    if not names:
        return {}
    request = "".join(f":{n}\n" for n in names).encode("utf-8", "surrogateescape")
    raw = run_git(["cat-file", "--batch"], top, request)
    out: dict[str, bytes] = {}
    pos = 0
    for name in names:
        nl = raw.index(b"\n", pos)
        header = raw[pos:nl].split()
        if len(header) < 3 or header[1] != b"blob":
            raise GitHookError(f"cannot read the staged {name} from git ({raw[pos:nl]!r})",
                               name)
        size = int(header[2])
        out[name] = raw[nl + 1:nl + 1 + size]
        pos = nl + 1 + size + 1
    return out


def staged_blob(top: Path, name: str) -> bytes | None:
    """The staged content of one path (relative to ``top``), or None when it is not in the
    index."""
    listed = run_git(["ls-files", "--cached", "-z", "--", name], top)
    if not listed.strip(b"\0"):
        return None
    return _blobs(top, [name])[name]


def staged_names(top: Path) -> list[str]:
    """Paths added, copied, modified or renamed in the index (deleted ones are not content)."""
    raw = run_git(["diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z"], top)
    return [n for n in raw.decode("utf-8", errors="surrogateescape").split("\0") if n]


def staged_documents(top: Path, project: Path, globs: list[str] | None,
                     cwd: Path | None = None) -> tuple[list[Segment], list[str]]:
    """The documents a commit would hold, as the index holds them, and their display paths.

    With globs configured: every path in the index matching one (relative to ``project``),
    changed in this commit or not, because a commit that changes the evidence (a new claim,
    EVIDENCE.json) can make an unchanged paper drift. Without: the staged paths of a known
    document type (a repository's every .md and .csv would be a guess at what the paper is).
    """
    regexes = [glob_regex(g) for g in globs or []]
    chosen: list[str] = []
    names = index_names(top) if regexes else staged_names(top)
    for name in names:
        absolute = top / name
        try:
            rel = absolute.relative_to(project).as_posix()
        except ValueError:
            continue  # outside the project the ledger belongs to
        if regexes:
            if any(r.match(rel) for r in regexes):
                chosen.append(name)
        elif format_of(name) is not None:
            chosen.append(name)
    shown_paths = [display_path(top / name, cwd) for name in chosen]
    return _read_staged(top, list(zip(chosen, shown_paths, strict=True))), shown_paths


def _read_staged(top: Path, chosen: list[tuple[str, str]]) -> list[Segment]:
    """The segments of each ``(path in the work tree, path shown)`` as the index holds it;
    one `DocumentError` naming every document that cannot be read."""
    from labledger.reconcile.included import Index

    blobs = _blobs(top, [name for name, _ in chosen])
    read: list[tuple[str, list[Segment]]] = []
    problems: list[tuple[str, str]] = []
    links = _staged_links(top, blobs)
    files = Index(lambda: index_names(top),
                  lambda name: blobs[name] if name in blobs else _blobs(top, [name])[name])
    for name, shown in chosen:
        try:
            data = blobs[name] if name not in links else _through_link(top, name, blobs[name])
            read.append((files.key(name), read_document(shown, data)))
        except DocumentError as exc:
            problems += [(shown, why) for _, why in exc.problems]
    return _linked(read, files, problems)


def _staged_links(top: Path, blobs: dict[str, bytes]) -> set[str]:
    """Which of the staged paths are symbolic links (git mode 120000: the blob is the link's
    target, not the document)."""
    if not any(len(data) < 4096 and b"\n" not in data for data in blobs.values()):
        return set()  # a link's blob is one short line: none here can be one
    raw = run_git(["ls-files", "--stage", "-z"], top)
    links = set()
    for entry in raw.decode("utf-8", errors="surrogateescape").split("\0"):
        mode, _, rest = entry.partition(" ")
        if mode == "120000":
            links.add(rest.partition("\t")[2])
    return links & blobs.keys()


def _through_link(top: Path, name: str, target: bytes) -> bytes:
    """The document a staged symbolic link points to: the target as staged when the index holds
    it, else as the work tree has it (a link out of the repository); `DocumentError` when it
    points nowhere."""
    import posixpath

    where = target.decode("utf-8", errors="surrogateescape")
    inside = posixpath.normpath(posixpath.join(posixpath.dirname(name), where))
    if not posixpath.isabs(where) and not inside.startswith("../") and inside != "..":
        staged = staged_blob(top, inside)
        if staged is not None:
            return staged
    try:
        return (top / name).read_bytes()
    except OSError as exc:
        raise DocumentError([(name, f"a symbolic link to {where}, which cannot be read "
                                    f"({exc.strerror or exc})")]) from None


def index_names(top: Path) -> list[str]:
    """Every path in the index of the work tree ``top`` (what a commit would contain)."""
    raw = run_git(["ls-files", "--cached", "-z"], top)
    return [n for n in raw.decode("utf-8", errors="surrogateescape").split("\0") if n]


def index_documents(top: Path, project: Path, globs: list[str] | None) -> list[Segment]:
    """Every configured document as the index holds it (what a commit would contain), its
    path shown relative to ``project``: the documents EVIDENCE.json's locations are read
    from in the pre-commit hook."""
    if not globs:
        raise DocumentsConfigError(HOW_TO_CONFIGURE)
    regexes = [glob_regex(g) for g in globs]
    chosen: list[tuple[str, str]] = []  # (path in the work tree, path in the project)
    for name in index_names(top):
        try:
            rel = (top / name).relative_to(project).as_posix()
        except ValueError:
            continue
        if any(r.match(rel) for r in regexes):
            chosen.append((name, rel))
    return _read_staged(top, chosen)
