"""A document's context that lives in another file: a reST ``csv-table``'s ``:file:``, the
decimal mark a LaTeX document declares in the file that ``\\input``s the one being read, and the
files a LaTeX, Quarto or R Markdown document includes (`with_included`: read as documents too).

Run once over every document read (`link`), after all are read and before any is judged, from
the work tree (`WorkTree`) or from git's index (`Index`: the hook reads the staged CSV too).

* **csv-table ``:file:``.** ``.. csv-table:: Title`` with ``:file: results.csv`` reads its rows
  from the file, relative to the .rst file's folder as docutils resolves it (a path starting
  with ``/`` from the Sphinx source folder, the nearest folder over the .rst holding
  ``conf.py``, as Sphinx does). The file's lines are put into the segment's text as the
  directive's body (a `doc_readers.Splice`), so the table is read as if its rows were written
  there: its title, ``:header:``, ``:header-rows:``, ``:delim:`` and the section titles over
  it apply, and the page around it names it as any table of the page. A number of the file is
  the file's: a finding names the CSV file and the line and column the number has there
  (`Segment.path_at`, `Segment.position`). The CSV is thus part of the segment's text, and of
  the judging cache's key: editing it judges the page again. A CSV file that a reconciled .rst
  reads so is not read a second time as a document of its own (its first row would be taken
  for a header the directive may not have).
* **Errors, never skipped.** A ``:file:`` that is missing, a folder, unreadable, not text in
  its ``:encoding:`` (UTF-8 by default), not in git's index (``--staged``), or outside the
  project (the folder holding ``.labledger/``; with ``--staged``, the git work tree) is a
  `DocumentError` naming the .rst file and the directive's line (exit 2). ``:url:`` is never
  fetched: its table is not read. A directive shown verbatim (in a literal block) reads
  nothing.
* **LaTeX's decimal mark.** The LaTeX files reconciled, linked by ``\\input``, ``\\include``,
  ``\\subfile``, ``\\import``/``\\subimport`` (and a subfile's ``\\documentclass[main.tex]
  {subfiles}``), make documents: a root (a file no other one includes) and every file under it.
  A document one of whose files declares decimal commas (`decimal_mark.declares_decimal_comma`:
  babel ``ngerman`` in main.tex, ``\\sisetup{output-decimal-marker={,}}`` in a preamble.tex
  that main.tex ``\\input``s) declares them for all its files: each is read as if it held the
  declaration (`Segment.decimal_from` names the declaring file), so a chapter's ``31,42`` is
  31.42, unless the chapter writes English decimals itself (then it is read as English, as a
  file declaring and writing English is). A file in several documents takes a declaration
  only when every one of them makes it. The documents reconciled and the files they include
  are read for this.
* **Includes.** The ``.tex`` files a LaTeX document reconciled includes, and the Markdown
  files a Quarto or R Markdown one includes, are read as documents too (`with_included`):
  the paper LaTeX builds, not the main file's few lines.
* **Cheap.** A .rst file is looked at only when it holds ``:file:``; a .tex file costs one
  search for its ``\\input``s (a pattern starting with a literal backslash); declarations are
  searched only in the files of a document that has several.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from labledger.reconcile.decimal_mark import declares_decimal_comma, in_tex_comment
from labledger.reconcile.doc_readers import Segment, Splice, read_document
from labledger.reconcile.errors import DocumentError

__all__ = ["Index", "WorkTree", "link", "with_included"]


class _Unreadable(Exception):
    """Why an included file cannot be read (the message names it)."""


class WorkTree:
    """Included files as the work tree has them. Keys: absolute, normalized paths.
    ``project``: the folder an included file must be inside (None: anywhere)."""

    def __init__(self, project: Path | None) -> None:
        self.project = os.path.realpath(project) if project is not None else None

    def key(self, path: Path | str) -> str:
        return os.path.normpath(os.path.abspath(path))

    def join(self, folder: str, name: str) -> str:
        return os.path.normpath(os.path.join(folder, name))

    def folder(self, key: str) -> str:
        return os.path.dirname(key)

    def top(self, key: str) -> bool:
        return os.path.dirname(key) == key

    def exists(self, key: str) -> bool:
        return os.path.isfile(key)

    def inside(self, key: str) -> bool:
        """Whether ``key`` is a file of the project (the folder holding ``.labledger/``)."""
        if self.project is None:
            return True
        real = os.path.realpath(key)
        return os.path.commonpath([self.project, real]) == self.project

    def relative(self, key: str, folder: str) -> str:
        return os.path.relpath(key, folder)

    def read(self, key: str) -> bytes:
        if not self.inside(key):
            raise _Unreadable("outside the project folder (the one holding .labledger/), "
                              "which reconcile reads nothing beyond")
        try:
            mode = os.stat(key).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a FIFO would block forever
                raise _Unreadable("not a regular file (a FIFO, socket or device)")
            return Path(key).read_bytes()
        except FileNotFoundError:
            raise _Unreadable("no such file") from None
        except IsADirectoryError:
            raise _Unreadable("a folder, not a file") from None
        except OSError as exc:
            raise _Unreadable(f"cannot read it ({exc.strerror or exc})") from None


class Index:
    """Included files as git's index holds them (what a commit would contain). Keys: paths
    relative to the work tree's top, normalized (one climbing out of it starts with ``..``).
    ``names``: every path in the index (asked for once, when first needed); ``read_blob``: a
    staged path's bytes."""

    def __init__(self, names: Callable[[], Iterable[str]],
                 read_blob: Callable[[str], bytes]) -> None:
        self._names = names
        self._known: frozenset[str] | None = None
        self.read_blob = read_blob

    def key(self, name: str) -> str:
        return posixpath.normpath(name)

    def join(self, folder: str, name: str) -> str:
        return posixpath.normpath(posixpath.join(folder, name))

    def folder(self, key: str) -> str:
        return posixpath.dirname(key)

    def top(self, key: str) -> bool:
        return key in ("", ".")

    def exists(self, key: str) -> bool:
        if self._known is None:
            self._known = frozenset(self._names())
        return key in self._known

    def relative(self, key: str, folder: str) -> str:
        return posixpath.relpath(key, folder or ".")

    def inside(self, key: str) -> bool:
        """Whether ``key`` is a path of the work tree (a commit can hold it)."""
        return not (key == ".." or key.startswith("../") or posixpath.isabs(key))

    def read(self, key: str) -> bytes:
        if not self.inside(key):
            raise _Unreadable("outside the git work tree, which a commit cannot hold")
        if not self.exists(key):
            raise _Unreadable("not in git's index (git add it: the commit would lack it)")
        return self.read_blob(key)


Files = WorkTree | Index


def link(documents: Sequence[tuple[str, list[Segment]]], files: Files) -> list[Segment]:
    """The segments of ``documents`` (each ``(key, segments)``, in reading order) with their
    context from other files (see the module's docstring); `DocumentError` naming every
    directive whose file cannot be read."""
    problems: list[tuple[str, str]] = []
    read_as_tables: set[str] = set()
    linked: list[tuple[str, list[Segment]]] = []
    for key, segments in documents:
        out = []
        for seg in segments:
            if seg.syntax == "rst" and ":file:" in seg.text:
                seg = _spliced(seg, key, files, problems, read_as_tables)
            out.append(seg)
        linked.append((key, out))
    if problems:
        raise DocumentError(problems)
    _declare_decimal_commas([(k, s) for k, segs in linked for s in segs if s.syntax == "tex"],
                            files)
    return [seg for key, segs in linked for seg in segs
            if key not in read_as_tables or seg.syntax not in ("csv", "tsv")]


# --- csv-table :file: ------------------------------------------------------------------------

def _spliced(seg: Segment, key: str, files: Files, problems: list[tuple[str, str]],
             read_as_tables: set[str]) -> Segment:
    """``seg`` with each csv-table's ``:file:`` read into its text as the table's body."""
    # imported here: only a page with a :file: option pays for them
    from labledger.reconcile.fenced import inside, shown_verbatim
    from labledger.reconcile.rst_tables import file_tables

    tables = [t for t in file_tables(seg.text) if not inside(shown_verbatim(seg), t.start)]
    if not tables:
        return seg
    pieces: list[str] = []
    splices: list[Splice] = []
    at = 0
    length = 0  # of the text built so far
    for table in tables:
        where = f"{seg.path}:{seg.text.count(chr(10), 0, table.start) + 1}"
        name = table.file
        shown = None
        try:
            csv_key = _resolve(key, name, files)
            shown = os.path.normpath(os.path.join(
                os.path.dirname(seg.path), files.relative(csv_key, files.folder(key))))
            body = _decoded(files.read(csv_key), table.options.get("encoding"))
        except _Unreadable as exc:
            read = f" ({shown})" if shown is not None and shown != name else ""
            problems.append((where, f"csv-table :file: {name}{read}: {exc}"))
            continue
        read_as_tables.add(csv_key)
        host = seg.text[at:table.insert_at]
        pieces.append(host)
        length += len(host)
        lead = "\n" if host.endswith("\n") or not host else "\n\n"
        pad = " " * table.indent
        lines = body.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the file's last newline ends its last line
        inserted = lead + "".join(pad + line + "\n" for line in lines)
        splices.append(Splice(length, length + len(lead), length + len(inserted), shown,
                              len(pad), inserted.count("\n")))
        pieces.append(inserted)
        length += len(inserted)
        at = table.insert_at
    if not splices:
        return seg
    pieces.append(seg.text[at:])
    return Segment(seg.path, seg.syntax, "".join(pieces), where=seg.where, printed=seg.printed,
                   sections=seg.sections, splices=tuple(splices), decimal_from=seg.decimal_from)


def _resolve(key: str, name: str, files: Files) -> str:
    """The file a ``:file:`` option of the document ``key`` names: relative to its folder, or
    (``/...``) to the Sphinx source folder, the nearest over it holding ``conf.py``."""
    if not name:
        raise _Unreadable("names no file")
    if not name.startswith("/"):
        return files.join(files.folder(key), name)
    folder = files.folder(key)
    while True:
        if files.exists(files.join(folder, "conf.py")):
            return files.join(folder, name.lstrip("/"))
        if files.top(folder) or not folder:
            raise _Unreadable("an absolute path is read from the Sphinx source folder (the one "
                              "holding conf.py), as Sphinx does, and no folder over this file "
                              "holds conf.py")
        folder = files.folder(folder)


def _decoded(data: bytes, encoding: str | None) -> str:
    name = (encoding or "utf-8-sig").strip()
    if name.replace("-", "").replace("_", "").lower() == "utf8":
        name = "utf-8-sig"  # (a BOM is no part of the first header cell)
    try:
        return data.decode(name)
    except LookupError:
        raise _Unreadable(f"unknown :encoding: {encoding!r}") from None
    except UnicodeDecodeError as exc:
        raise _Unreadable(f"not {encoding or 'UTF-8'} text (byte {exc.start}: {exc.reason}); "
                          "say its encoding with :encoding:") from None


# --- LaTeX documents and their decimal mark --------------------------------------------------

# \input{x} \include{x} \subfile{x} \InputIfFileExists{x}, TeX's \input x, and the import
# package's \import{dir}{x}, \subimport{dir}{x} (and \inputfrom, \includefrom...)
_INCLUDE = re.compile(
    r"\\(?:input|include|subfile|InputIfFileExists)\s*\{(?P<name>[^{}\n]+)\}"
    r"|\\input[ \t]+(?P<bare>[^\s{}\\%]+)"
    r"|\\(?:sub)?(?:import|inputfrom|includefrom)\*?\s*\{(?P<dir>[^{}\n]*)\}\s*"
    r"\{(?P<file>[^{}\n]+)\}"
    r"|\\documentclass\s*\[(?P<main>[^\]\n]+)\]\s*\{subfiles\}")


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
    out: list[tuple[str, str]] = []
    for _, name, main in _included_names(seg):
        found = _find_tex(key, name, by_key.__contains__, files)
        if found is not None:
            out.append((found, key) if main else (key, found))
    return out


def _included_names(seg: Segment) -> list[tuple[int, str, bool]]:
    """(offset, name, whether it is the main file a subfile names) of each file the LaTeX
    ``seg`` includes (`_INCLUDE`), outside comments and text shown verbatim (not compiled)."""
    text = seg.text
    # (one search, from the literal backslash: a substring test per command word cost ten times
    # as much over an ordinary paper's .tex files)
    first = _INCLUDE.search(text)
    if first is None:
        return []
    # imported here: only a file including another pays for them
    from labledger.reconcile.fenced import inside, shown_verbatim

    out: list[tuple[int, str, bool]] = []
    for m in _INCLUDE.finditer(text, first.start()):
        if in_tex_comment(text, m.start()) or inside(shown_verbatim(seg), m.start()):
            continue
        name = m.group("name") or m.group("bare") or m.group("main")
        if m.group("file") is not None:
            name = posixpath.join(m.group("dir").strip(), m.group("file").strip())
        out.append((m.start(), name.strip(), m.group("main") is not None))
    return out


def _find_tex(key: str, name: str, known: Callable[[str], bool], files: Files) -> str | None:
    """The file ``name`` is among those ``known`` accepts, looked up as LaTeX would from the
    includer's folder or the folder it is compiled in (an ancestor: chapters/a.tex's
    ``\\input{chapters/b}`` is from main.tex's folder); ``.tex`` added as LaTeX adds it."""
    if name.startswith("/"):
        candidates = [files.key(name + ".tex"), files.key(name)] \
            if isinstance(files, WorkTree) else []
        return next((c for c in candidates if known(c)), None)
    folder = files.folder(key)
    for _ in range(64):
        for candidate in (name + ".tex", name):
            found = files.join(folder, candidate)
            if known(found):
                return found
        if files.top(folder) or not folder:
            return None
        folder = files.folder(folder)
    return None


# --- the files a document includes: the paper as LaTeX (Quarto, knitr) builds it -------------

_MOST_INCLUDED = 2000  # files the includes of the documents read pull in, at most


# Quarto's include shortcode, {{< include _results.qmd >}} (outside code), and a knitr chunk's
# child documents, ```{r child="results.Rmd"} or child = c('a.Rmd', 'b.Rmd')
_QUARTO_INCLUDE = re.compile(r"\{\{<\s*include\s+(?P<q>[\"']?)(?P<name>[^\s\"'>]+)(?P=q)\s*>\}\}")
_KNITR_CHILD = re.compile(r"\bchild\s*=\s*(?:c\(\s*)?(?P<names>(?:[\"'][^\"'\n]+[\"'][\s,]*)+)")
_QUOTED = re.compile(r"[\"']([^\"'\n]+)[\"']")


def _files_included(key: str, seg: Segment, files: Files) -> list[tuple[int, str]]:
    """(offset, file) of each existing file the segment ``seg`` of the document ``key``
    includes: a LaTeX file's ``.tex`` files (`_included_names`, found as `_find_tex` finds
    them; not a subfile's main file: the chapter alone is asked for); a Markdown file's
    (Quarto, R Markdown) Markdown files, by Quarto's ``{{< include F >}}`` outside code and
    knitr's ``child=`` chunks, from its folder."""
    out: list[tuple[int, str]] = []
    if seg.syntax == "tex" and "\\" in seg.text:
        for at, name, main in _included_names(seg):
            if main or not name:
                continue
            found = _find_tex(key, name, lambda c: c.endswith(".tex") and files.exists(c),
                              files)
            if found is not None:
                out.append((at, found))
    elif seg.syntax == "md" and ("{{<" in seg.text or "child" in seg.text):
        from labledger.reconcile.doc_readers import fence_at, fences, format_of
        from labledger.reconcile.fenced import info_language

        names = [(m.start(), m.group("name")) for m in _QUARTO_INCLUDE.finditer(seg.text)
                 if fence_at(seg, m.start()) is None]
        names += [(fence.start, quoted) for fence in fences(seg)
                  if info_language(fence.info) == "r"
                  for m in _KNITR_CHILD.finditer(fence.info)
                  for quoted in _QUOTED.findall(m.group("names"))]
        for at, name in names:
            if name.startswith("/"):
                continue  # (from the Quarto project's root: not looked for)
            found = files.join(files.folder(key), name)
            if format_of(found) == "md" and files.exists(found):
                out.append((at, found))
    return out


def with_included(documents: Sequence[tuple[str, list[Segment]]],
                  files: Files) -> list[tuple[str, list[Segment]]]:
    """``documents`` (each ``(key, segments)``), then each file one of them includes that is
    not among them (`_files_included`: a LaTeX file's ``\\input``, ``\\include``,
    ``\\subfile``, ``\\import``...; a Quarto or R Markdown file's ``{{< include >}}`` and
    ``child=`` chunks), and the files those include: ``reconcile paper/main.tex`` judges the
    paper LaTeX builds, its ``\\input{sections/results}`` and generated ``\\input{tables/main}``
    too. Each is marked `Segment.included_by`. Read: an existing file of the includer's kind
    inside the project (or in git's index); one that cannot be read or is not UTF-8 is a
    `DocumentError` naming it and the line including it. Not read: a name naming no file yet
    (a table a script writes, ``\\InputIfFileExists``), another kind of file
    (``\\input{plot.pgf}``), a file outside the project, an include in a comment or code."""
    out = list(documents)
    known = {key for key, _ in documents}
    problems: list[tuple[str, str]] = []
    todo = [(key, segs) for key, segs in documents]
    while todo and len(known) - len(documents) < _MOST_INCLUDED:
        key, segments = todo.pop(0)
        for seg in segments:
            for at, found in _files_included(key, seg, files):
                if found in known or not files.inside(found):
                    continue
                known.add(found)
                where = f"{seg.path}:{seg.text.count(chr(10), 0, at) + 1}"
                shown = os.path.normpath(os.path.join(
                    os.path.dirname(seg.path), files.relative(found, files.folder(key))))
                try:
                    read = read_document(shown, files.read(found))
                except _Unreadable as exc:
                    problems.append((shown, f"included at {where}: {exc}"))
                    continue
                except DocumentError as exc:
                    problems += [(shown, f"included at {where}: {why}")
                                 for _, why in exc.problems]
                    continue
                for one in read:
                    one.included_by = where
                out.append((found, read))
                todo.append((found, read))
    if problems:
        raise DocumentError(problems)
    return out
