"""A document's context that lives in another file: the decimal mark a LaTeX document declares
in the file that ``\\input``s the one being read.

Run once over every document read (`link`), after all are read and before any is judged, from
the work tree (`WorkTree`) or from git's index (`Index`).

* **LaTeX's decimal mark.** The LaTeX files reconciled, linked by ``\\input``, ``\\include``,
  ``\\subfile``, ``\\import``/``\\subimport`` (and a subfile's ``\\documentclass[main.tex]
  {subfiles}``), make documents: a root (a file no other one includes) and every file under it.
  A document one of whose files declares decimal commas (`decimal_mark.declares_decimal_comma`:
  babel ``ngerman`` in main.tex, ``\\sisetup{output-decimal-marker={,}}`` in a preamble.tex
  that main.tex ``\\input``s) declares them for all its files: each is read as if it held the
  declaration (`Segment.decimal_from` names the declaring file), so a chapter's ``31,42`` is
  31.42, unless the chapter writes English decimals itself (then it is read as English, as a
  file declaring and writing English is). A file in several documents takes a declaration
  only when every one of them makes it. Only the documents reconciled are read for this.
* **Cheap.** A .tex file is looked at only when it holds ``\\input``, ``\\include``,
  ``\\subfile`` or ``import``; declarations are searched only in the files of a document that
  has several.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path

from labledger.reconcile.decimal_mark import declares_decimal_comma
from labledger.reconcile.doc_readers import Segment

__all__ = ["Index", "WorkTree", "link"]


class WorkTree:
    """Documents as the work tree has them. Keys: absolute, normalized paths."""

    def key(self, path: Path | str) -> str:
        return os.path.normpath(os.path.abspath(path))

    def join(self, folder: str, name: str) -> str:
        return os.path.normpath(os.path.join(folder, name))

    def folder(self, key: str) -> str:
        return os.path.dirname(key)

    def top(self, key: str) -> bool:
        return os.path.dirname(key) == key


class Index:
    """Documents as git's index holds them (what a commit would contain). Keys: paths relative
    to the work tree's top, normalized."""

    def key(self, name: str) -> str:
        return posixpath.normpath(name)

    def join(self, folder: str, name: str) -> str:
        return posixpath.normpath(posixpath.join(folder, name))

    def folder(self, key: str) -> str:
        return posixpath.dirname(key)

    def top(self, key: str) -> bool:
        return key in ("", ".")


Files = WorkTree | Index


def link(documents: Sequence[tuple[str, list[Segment]]], files: Files) -> list[Segment]:
    """The segments of ``documents`` (each ``(key, segments)``, in reading order) with their
    context from other files (see the module's docstring)."""
    _declare_decimal_commas([(k, s) for k, segs in documents for s in segs if s.syntax == "tex"],
                            files)
    return [seg for _, segs in documents for seg in segs]


# --- LaTeX documents and their decimal mark --------------------------------------------------

# \input{x} \include{x} \subfile{x} \InputIfFileExists{x}, TeX's \input x, and the import
# package's \import{dir}{x}, \subimport{dir}{x} (and \inputfrom, \includefrom...)
_INCLUDE = re.compile(
    r"\\(?:input|include|subfile|InputIfFileExists)\s*\{(?P<name>[^{}\n]+)\}"
    r"|\\input[ \t]+(?P<bare>[^\s{}\\%]+)"
    r"|\\(?:sub)?(?:import|inputfrom|includefrom)\*?\s*\{(?P<dir>[^{}\n]*)\}\s*"
    r"\{(?P<file>[^{}\n]+)\}"
    r"|\\documentclass\s*\[(?P<main>[^\]\n]+)\]\s*\{subfiles\}")
_INCLUDING = ("\\input", "\\include", "\\subfile", "import", "from{", "{subfiles}")
_COMMENT = re.compile(r"(?<!\\)%")


def _declare_decimal_commas(tex: list[tuple[str, Segment]], files: Files) -> None:
    """Set `Segment.decimal_from` on the LaTeX files of each document that declares decimal
    commas in one of its files (see the module's docstring)."""
    if len(tex) < 2:
        return
    by_key = {key: seg for key, seg in tex}
    children: dict[str, list[str]] = {}
    parents: dict[str, set[str]] = {}
    for key, seg in tex:
        for parent, child in _includes(key, seg, by_key, files):
            if child != parent:
                children.setdefault(parent, []).append(child)
                parents.setdefault(child, set()).add(parent)
    if not children:
        return
    roots = [k for k in children if k not in parents]
    declaring: dict[str, bool] = {}

    def declares(k: str) -> bool:
        got = declaring.get(k)
        if got is None:
            got = declaring[k] = declares_decimal_comma(by_key[k].text)
        return got

    # per file, the declaring file of each document it is in (None: a document declaring none)
    declared_by: dict[str, list[str | None]] = {}
    for root in roots:
        members = _reachable(root, children)
        declarer = next((m for m in members if declares(m)), None)
        for member in members:
            declared_by.setdefault(member, []).append(declarer)
    for k, declarers in declared_by.items():
        if len(declarers) > 0 and all(declarers) and not declares(k):
            first = declarers[0]
            assert first is not None
            by_key[k].decimal_from = by_key[first].path
            by_key[k]._cache.pop("decimal_comma", None)


def _reachable(root: str, children: dict[str, list[str]]) -> list[str]:
    seen = {root}
    order = [root]
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                order.append(child)
                todo.append(child)
    return order


def _includes(key: str, seg: Segment, by_key: dict[str, Segment],
              files: Files) -> list[tuple[str, str]]:
    """(includer, included) for each reconciled LaTeX file ``seg`` includes, and for the main
    file it names (a subfile's ``\\documentclass[../main.tex]{subfiles}``)."""
    text = seg.text
    if not any(word in text for word in _INCLUDING):
        return []
    # imported here: only a file including another pays for them
    from labledger.reconcile.fenced import inside, shown_verbatim

    out: list[tuple[str, str]] = []
    for m in _INCLUDE.finditer(text):
        if _COMMENT.search(text, text.rfind("\n", 0, m.start()) + 1, m.start()) \
                or inside(shown_verbatim(seg), m.start()):
            continue  # commented out, or shown: not compiled
        name = m.group("name") or m.group("bare") or m.group("main")
        if m.group("file") is not None:
            name = posixpath.join(m.group("dir").strip(), m.group("file").strip())
        found = _find_tex(key, name.strip(), by_key, files)
        if found is not None:
            out.append((found, key) if m.group("main") else (key, found))
    return out


def _find_tex(key: str, name: str, by_key: dict[str, Segment], files: Files) -> str | None:
    """The reconciled file ``name`` is, looked up as LaTeX would from the includer's folder
    or the folder it is compiled in (an ancestor: chapters/a.tex's ``\\input{chapters/b}`` is
    from main.tex's folder); ``.tex`` added as LaTeX adds it."""
    if name.startswith("/"):
        candidates = [files.key(name + ".tex"), files.key(name)] \
            if isinstance(files, WorkTree) else []
        return next((c for c in candidates if c in by_key), None)
    folder = files.folder(key)
    for _ in range(64):
        for candidate in (name + ".tex", name):
            found = files.join(folder, candidate)
            if found in by_key:
                return found
        if files.top(folder) or not folder:
            return None
        folder = files.folder(folder)
    return None
