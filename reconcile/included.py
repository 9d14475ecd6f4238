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
* **Includes.** The files a document reconciled includes are read as documents too
  (`with_included`): the paper LaTeX builds, not the main file's few lines. A LaTeX file's
  ``.tex`` files and the CSV files it typesets (csvsimple, pgfplotstable, datatool); a
  Markdown file's by Quarto, knitr, MyST, MkDocs snippets and Jekyll; a reST file's
  ``.. include::``. Each name is looked up as its tool looks it up (`_files_included`).
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
from labledger.reconcile.doc_readers import Segment, Splice, is_typst_path, read_document
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
    source = _folder_holding(key, ("conf.py",), files)
    if source is None:
        raise _Unreadable("an absolute path is read from the Sphinx source folder (the one "
                          "holding conf.py), as Sphinx does, and no folder over this file "
                          "holds conf.py")
    return files.join(source, name.lstrip("/"))


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
# MkDocs' snippets (pymdownx.snippets): --8<-- "results.md" on a line of its own, or a block of
# names between two --8<-- lines; a ; before the marker escapes it
_SNIPPET = re.compile(r"^[ \t]*(?P<escape>;*)-+8<-+(?:[ \t]+(?P<q>[\"'])(?P<name>[^\n\r]+?)(?P=q))?"
                      r"[ \t]*\r?$", re.M)
# a snippet's line range or section after its name: "a.md:3:9", "a.md:3:9,12:", "a.md:results"
_SNIPPET_PART = re.compile(r"(?:(?::-?\d*){1,2}(?:,-?\d*(?::-?\d*)?)*|:[A-Za-z][-_0-9A-Za-z]*)$")
# Jekyll: {% include_relative results.md %} from the page's folder, {% include x.md %} from
# the site's _includes/ folder (parameters after the name; a name computed by Liquid is not read)
_JEKYLL = re.compile(r"\{%-?\s*(?P<tag>include_relative|include)\s+(?P<name>[^\s%{}]+)"
                     r"[^%\n]*?-?%\}")
# MyST's include directive as a colon fence, :::{include} results.md (a ``` one is a fence)
_MYST_COLON = re.compile(r"^ {0,3}:{3,}[ \t]*\{include\}[ \t]+(?P<name>[^\n]*?)[ \t]*$", re.M)
_MYST_FENCE = re.compile(r"\{include\}[ \t]+(?P<name>\S[^\n]*?)[ \t]*$")
# Typst's include statement, #include "chapters/results.typ", and a module's import, #import
# "results.typ": psnr (its values: `typst_pages.typst_values`); a package's, "@preview/...", not
_TYPST_INCLUDE = re.compile(r"#(?:include|import)[ \t]+\"(?!@)([^\"\n]+)\"")
# reST's include directive: .. include:: results.rst (its options on the lines under it)
_RST_INCLUDE = re.compile(r"^(?P<indent>[ \t]*)\.\.[ \t]+include::[ \t]*(?P<name>[^\n]*?)[ \t]*$",
                          re.M)
# an option making an include show the file as text, not read it as the page's own; the
# option lines under a directive
_SHOWN_AS_CODE = re.compile(r"^[ \t]*:(?:literal|code):", re.M)
_OPTION_LINES = re.compile(r"(?:\n[ \t]*:[^\n]*)*")
# LaTeX typesetting a CSV file as a table: csvsimple's \csvautotabular{f.csv} (and its
# booktabs, longtable and tabularray forms) and \csvreader[..]{f.csv}; pgfplotstable's
# \pgfplotstabletypeset[..]{f.csv} and \pgfplotstableread{f.csv}; datatool's \DTLloaddb{db}{f}
_TEX_TABLE_FILE = re.compile(
    r"\\(?:csvauto[A-Za-z]*|csvreader|pgfplotstabletypeset|pgfplotstableread|DTLloaddb"
    r"(?P<db>))\*?\s*(?:\[(?:[^\[\]]|\[[^\[\]]*\])*\]\s*)?"
    r"(?(db)\{[^{}\n]*\}\s*)\{(?P<name>[^{}\\\n]+)\}")
_TABLE_HINT = re.compile(r"\\(?:csv|pgfplotstable|DTLloaddb)")


def _files_included(key: str, seg: Segment, files: Files) -> list[tuple[int, str]]:
    """(offset, file) of each existing file the segment ``seg`` of the document ``key``
    includes: a LaTeX file's (`_tex_included`), a Markdown file's (`_md_included`) and a
    reST file's (`_rst_included`)."""
    if seg.syntax == "tex" and "\\" in seg.text:
        return _tex_included(key, seg, files)
    if seg.syntax == "md":
        return _md_included(key, seg, files)
    if seg.syntax == "rst" and "include::" in seg.text:
        return _rst_included(key, seg, files)
    return []


def _tex_included(key: str, seg: Segment, files: Files) -> list[tuple[int, str]]:
    """A LaTeX file's ``.tex`` files (`_included_names`, found as `_find_tex` finds them; not a
    subfile's main file: the chapter alone is asked for) and the CSV files it typesets as
    tables (`_TEX_TABLE_FILE`, found the same way)."""
    out: list[tuple[int, str]] = []
    for at, name, main in _included_names(seg):
        if main or not name:
            continue
        found = _find_tex(key, name, lambda c: c.endswith(".tex") and files.exists(c), files)
        if found is not None:
            out.append((at, found))
    if _TABLE_HINT.search(seg.text) is not None:
        from labledger.reconcile.doc_readers import format_of
        from labledger.reconcile.fenced import inside, shown_verbatim

        for m in _TEX_TABLE_FILE.finditer(seg.text):
            if in_tex_comment(seg.text, m.start()) or inside(shown_verbatim(seg), m.start()):
                continue
            found = _find_tex(key, m.group("name").strip(),
                              lambda c: format_of(c) in ("csv", "tsv") and files.exists(c),
                              files)
            if found is not None:
                out.append((m.start(), found))
        out.sort()
    return out


def _md_included(key: str, seg: Segment, files: Files) -> list[tuple[int, str]]:
    """A Markdown file's Markdown files: Quarto's ``{{< include F >}}`` outside code (a name
    starting with ``/`` from the Quarto project, the folder holding ``_quarto.yml``) and
    knitr's ``child=`` chunks, from its folder; MyST's ``{include}`` directive (reST and text
    files too; ``/`` from the Sphinx source folder); MkDocs' snippets (``--8<--``, from the
    folder holding ``mkdocs.yml``, else the file's); Jekyll's ``include_relative`` (from its
    folder) and ``include`` (from the site's ``_includes/``); a Typst paper's ``#include``
    and ``#import`` (from its folder; what Typst shows as code is blanked by then)."""
    text = seg.text
    names: list[tuple[int, str | None, tuple[str, ...]]] = []  # (offset, file, formats)
    # (each written with a brace but the snippets and Typst's: a one-character search skips
    # a page that writes none for a fraction of what each longer one costs, ~20 us a page)
    brace = "{" in text
    if brace and ("{{<" in text or "child" in text):
        from labledger.reconcile.doc_readers import fence_at, fences
        from labledger.reconcile.fenced import info_language

        for m in _QUARTO_INCLUDE.finditer(text):
            if fence_at(seg, m.start()) is None:
                name = m.group("name")
                if name.startswith("/"):
                    root = _folder_holding(key, ("_quarto.yml", "_quarto.yaml"), files)
                    found = None if root is None else files.join(root, name.lstrip("/"))
                else:
                    found = files.join(files.folder(key), name)
                names.append((m.start(), found, ("md",)))
        names += [(fence.start, files.join(files.folder(key), quoted), ("md",))
                  for fence in fences(seg) if info_language(fence.info) == "r"
                  for m in _KNITR_CHILD.finditer(fence.info)
                  for quoted in _QUOTED.findall(m.group("names"))]
    if brace and "{include}" in text:
        names += [(at, _sphinx_path(key, name, files), ("md", "rst", "txt"))
                  for at, name in _myst_includes(seg)]
    if "<" in text and "8<-" in text:
        names += [(at, found, ("md", "txt")) for at, found in _snippets(key, seg, files)]
    if brace and "{%" in text and "include" in text:
        names += [(at, found, ("md",)) for at, found in _jekyll_includes(key, seg, files)]
    if is_typst_path(key) and "#" in text and ("#include" in text or "#import" in text):
        # a Typst paper's chapters and modules (`typst_pages` keeps the file), from its folder
        names += [(m.start(), files.join(files.folder(key), m.group(1)), ("md",))
                  for m in _TYPST_INCLUDE.finditer(text) if not m.group(1).startswith("/")]
    return _existing(names, files)


def _existing(names: list[tuple[int, str | None, tuple[str, ...]]],
              files: Files) -> list[tuple[int, str]]:
    """The (offset, file) of ``names`` naming an existing file of one of the formats given."""
    from labledger.reconcile.doc_readers import format_of

    return sorted((at, found) for at, found, formats in names
                  if found is not None and format_of(found) in formats and files.exists(found))


def _myst_includes(seg: Segment) -> list[tuple[int, str]]:
    """(offset, name) of each MyST ``{include}`` directive of ``seg`` (a ``` or ~~~ fence, or a
    colon fence outside code) that reads the file as the page's text (not ``:literal:`` or
    ``:code:``, which show it as code)."""
    from labledger.reconcile.doc_readers import fences, line_end
    from labledger.reconcile.fenced import inside, shown_verbatim

    text = seg.text
    out = []
    for fence in fences(seg):
        m = _MYST_FENCE.match(fence.info)
        if m and not _SHOWN_AS_CODE.search(text, fence.body, fence.end):
            out.append((fence.start, m.group("name")))
    for m in _MYST_COLON.finditer(text):
        if inside(shown_verbatim(seg), m.start()):
            continue
        if not _SHOWN_AS_CODE.search(_options_under(text, line_end(text, m.end()), -1)):
            out.append((m.start(), m.group("name")))
    return out


def _options_under(text: str, at: int, indent: int) -> str:
    """The option lines (``:name: value``) right after offset ``at`` (a directive's line end),
    each indented more than ``indent`` columns."""
    m = _OPTION_LINES.match(text, at)
    lines = m.group().split("\n")[1:] if m else []
    kept = []
    for line in lines:
        if len(line) - len(line.lstrip()) <= indent:
            break
        kept.append(line)
    return "\n".join(kept)


def _snippets(key: str, seg: Segment, files: Files) -> list[tuple[int, str | None]]:
    """(offset, file) of each MkDocs snippet of ``seg`` outside code: a ``--8<-- "name"`` line,
    and each name in a block between two ``--8<--`` lines (a name starting with ``;`` is
    skipped, as the extension skips it); a name with a line range or section (``a.md:3:9``,
    ``a.md:results``) is its file; a URL is never fetched."""
    from labledger.reconcile.fenced import inside, shown_verbatim

    text = seg.text
    roots = [r for r in (_folder_holding(key, ("mkdocs.yml", "mkdocs.yaml"), files),
                         files.folder(key)) if r is not None]
    out: list[tuple[int, str | None]] = []
    block: int | None = None  # where the open block's first marker ends
    for m in _SNIPPET.finditer(text):
        if m.group("escape") or inside(shown_verbatim(seg), m.start()):
            continue
        if m.group("name") is not None:
            out.append((m.start(), _snippet_file(m.group("name"), roots, files)))
        elif block is None:
            block = m.end()
        else:
            for at, line in _lines_between(text, block, m.start()):
                if line and not line.startswith(";"):
                    out.append((at, _snippet_file(line, roots, files)))
            block = None
    return out


def _lines_between(text: str, start: int, end: int) -> list[tuple[int, str]]:
    out = []
    at = start
    for line in text[start:end].split("\n"):
        out.append((at, line.strip()))
        at += len(line) + 1
    return out


def _snippet_file(name: str, roots: list[str], files: Files) -> str | None:
    if "://" in name:
        return None
    part = _SNIPPET_PART.search(name)
    candidates = [name] + ([name[:part.start()]] if part and part.start() else [])
    for candidate in candidates:
        for root in roots:
            found = files.join(root, candidate.lstrip("/"))
            if files.exists(found):
                return found
    return None


def _jekyll_includes(key: str, seg: Segment, files: Files) -> list[tuple[int, str | None]]:
    """(offset, file) of each Jekyll ``{% include_relative F %}`` (from the page's folder) and
    ``{% include F %}`` (from ``_includes/`` in the site's source, the folder holding
    ``_config.yml``) of ``seg`` outside code."""
    from labledger.reconcile.fenced import inside, shown_verbatim

    found = [m for m in _JEKYLL.finditer(seg.text) if not inside(shown_verbatim(seg), m.start())]
    site = _folder_holding(key, ("_config.yml", "_config.yaml"), files) \
        if any(m.group("tag") == "include" for m in found) else None
    out: list[tuple[int, str | None]] = []
    for m in found:
        name = m.group("name").strip("\"'")
        if m.group("tag") == "include_relative":
            out.append((m.start(), files.join(files.folder(key), name)))
        else:
            out.append((m.start(), None if site is None
                        else files.join(files.join(site, "_includes"), name)))
    return out


def _rst_included(key: str, seg: Segment, files: Files) -> list[tuple[int, str]]:
    """A reST file's ``.. include::`` files (reST, text, or Markdown read by MyST) outside
    literal blocks, from its folder (``/`` from the Sphinx source folder); not one shown as
    code (``:literal:``, ``:code:``) nor docutils' own (``<isonum.txt>``)."""
    from labledger.reconcile.fenced import inside, shown_verbatim

    text = seg.text
    names: list[tuple[int, str | None, tuple[str, ...]]] = []
    for m in _RST_INCLUDE.finditer(text):
        name = m.group("name")
        if not name or name.startswith("<") or inside(shown_verbatim(seg), m.start()):
            continue
        if _SHOWN_AS_CODE.search(_options_under(text, m.end(), len(m.group("indent")))):
            continue
        names.append((m.start(), _sphinx_path(key, name, files), ("rst", "txt", "md")))
    return _existing(names, files)


def _sphinx_path(key: str, name: str, files: Files) -> str | None:
    """The file a Sphinx page's include names (`_resolve`), or None when it names none."""
    try:
        return _resolve(key, name, files)
    except _Unreadable:
        return None


def _folder_holding(key: str, markers: tuple[str, ...], files: Files) -> str | None:
    """The nearest folder over the file ``key`` holding one of ``markers`` (a project's
    ``_quarto.yml``, ``mkdocs.yml``, ``_config.yml``), or None."""
    folder = files.folder(key)
    for _ in range(64):
        if any(files.exists(files.join(folder, marker)) for marker in markers):
            return folder
        if files.top(folder) or not folder:
            return None
        folder = files.folder(folder)
    return None


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
