"""A memo of judged segments: what reconcile found in one segment, keyed by all it depends on.

Judging a segment (`documents.reconcile_segments`) is a pure function of

* the segment: its path as shown, its place in a notebook, its syntax and its text, with
  what other files give it (`included`: a csv-table's ``:file:`` rows, in its text, and their
  names; the file whose declaration sets a LaTeX file's decimal mark);
* every current claim (ids, values, units, aliases, runs, digests: the anchors, the candidates
  and the messages all come from them);
* the LaTeX macro bindings of all the documents (`doc_markers.tex_bindings`) and the text
  each of their macros prints (`tex_macros.macro_texts`: ``\\method`` naming "FooNet");
* the LaTeX strike-through macros of all the documents (`tex_strikes.strike_macros`);
* the number each LaTeX macro printing one prints (`tex_values.macro_values`);
* the code that judges (the bytes of this package's modules) and the Python that runs it.

The *context* is the BLAKE3 of the last five; a segment's *key* is the BLAKE3 of the context
and the first. Invariants:

* **It cannot go stale, only miss.** A result is used only for the exact bytes that produced
  it: change a character of a document, a claim's value, a binding, or a line of the judging
  code, and the key changes. So a cached run's report equals an uncached run's.
* **It is never needed.** A missing, unreadable, truncated, corrupt or foreign cache file is a
  miss, never an error; a cache that cannot be written (read-only project, disk full) is
  skipped. ``labledger reconcile --no-cache`` bypasses it.
* **Writes are atomic.** One file per context (``<context>.msgpack``), written to a temporary
  file and renamed over, so a concurrent or killed run leaves either file whole. A run keeps the
  entries of its context it did not touch (the pre-commit hook judges only staged documents);
  at most `KEEP_CONTEXTS` context files are kept, the most recently written.

It lives in ``.labledger/cache/reconcile/``, with a ``.gitignore`` of ``*`` and a
``CACHEDIR.TAG`` so neither git nor backup tools pick it up. Deleting it is always safe.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec

from labledger.reconcile.anchors import AnchorIndex
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import Segment
from labledger.reconcile.findings import Finding, Match

__all__ = ["JudgeCache", "KEEP_CONTEXTS", "Judged"]

FORMAT = b"labledger-reconcile-cache-3"
KEEP_CONTEXTS = 8
_STALE_TMP_SECONDS = 600
MAX_ENTRIES = 100_000  # segments kept per context file; beyond it, only this run's are kept
_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by labledger (reconcile results).\n")

# A match as stored: (offset, line, col, claim ids, shown, via).
_StoredMatch = tuple[int, int, int, tuple[str, ...], str, str]
# An entry: (the segment's path and place, which a newer version of it supersedes; findings;
# matches).
_Entry = tuple[str, list[Finding], list[_StoredMatch]]
_Anchors = tuple[dict[str, list[str]], list[str], "str | None", dict[str, list[str]],
                 dict[str, str]]
Judged = tuple[list[Finding], list[Match]]


class _Body(msgspec.Struct, array_like=True):
    entries: dict[str, _Entry]
    anchors: _Anchors | None = None  # the claims' AnchorIndex.parts(): its trie takes a while


class _File(msgspec.Struct, array_like=True):
    format: bytes
    context: bytes
    checksum: bytes  # BLAKE3 of body: a file damaged where it still decodes is a miss too
    body: bytes


_DECODER = msgspec.msgpack.Decoder(_File)
_BODY_DECODER = msgspec.msgpack.Decoder(_Body)
_code_digest: bytes | None = None


def _code() -> bytes:
    """The digest of the judging code: this package's module sources, and the interpreter."""
    global _code_digest
    if _code_digest is None:
        import blake3

        h = blake3.blake3(sys.version.encode())
        here = Path(__file__).resolve().parent
        for path in sorted(here.glob("*.py")):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        _code_digest = h.digest()
    return _code_digest


def _context(claims: Iterable[Claim], binds: dict[str, str],
             macros: dict[str, str] | None = None,
             strikes: frozenset[str] = frozenset(),
             values: dict[str, tuple[str, str]] | None = None) -> bytes:
    import blake3

    h = blake3.blake3(FORMAT + b"\0" + _code())
    # every field of every claim (msgpack: floats as their exact 64 bits), sorted by id
    h.update(msgspec.msgpack.encode(sorted(claims, key=lambda c: c.id)))
    h.update(msgspec.msgpack.encode(sorted(binds.items())))
    # a macro's text decides what it anchors in every file: a changed definition is a new context
    h.update(msgspec.msgpack.encode(sorted((macros or {}).items())))
    # a strike-through macro loaded, or defined by a paper, blanks its text or shows it
    h.update(msgspec.msgpack.encode(sorted(strikes)))
    # a macro's number is read at every use of it, and its definition's place said there: a
    # changed or moved definition is a new context
    h.update(msgspec.msgpack.encode(sorted((values or {}).items())))
    return h.digest()


class JudgeCache:
    """The cached judgements of one context, read from and written back to ``folder``."""

    def __init__(self, folder: Path, claims: Sequence[Claim], binds: dict[str, str],
                 macros: dict[str, str] | None = None,
                 strikes: frozenset[str] = frozenset(),
                 values: dict[str, tuple[str, str]] | None = None) -> None:
        self.folder = folder
        self.context = _context(claims, binds, macros, strikes, values)
        self.path = folder / (self.context.hex()[:32] + ".msgpack")
        self._anchors: _Anchors | None = None
        self._changed = False
        self._old = self._load()
        self._new: dict[str, _Entry] = {}
        self.hits = 0

    def _load(self) -> dict[str, _Entry]:
        import blake3

        try:
            stored = _DECODER.decode(self.path.read_bytes())
            if stored.format != FORMAT or stored.context != self.context or \
                    blake3.blake3(stored.body).digest() != stored.checksum:
                return {}
            body = _BODY_DECODER.decode(stored.body)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError, ValueError,
                TypeError):
            return {}
        self._anchors = body.anchors
        return body.entries

    def anchors(self) -> AnchorIndex | None:
        """The claims' anchor index as kept in the file (None when it holds none)."""
        if self._anchors is None:
            return None
        try:
            return AnchorIndex.from_parts(*self._anchors)
        except (re.error, TypeError, ValueError, RecursionError):
            self._anchors = None  # a damaged pattern: built again from the claims
            return None

    def keep_anchors(self, index: AnchorIndex) -> None:
        if self._anchors is None:
            self._anchors = index.parts()
            self._changed = True

    def key(self, seg: Segment) -> str:
        import blake3

        # (the files spliced in are in the text; their names and places, and the file whose
        # declaration sets a LaTeX file's decimal mark, are here: `included`)
        head = (f"{seg.path}\0{seg.where or ''}\0{seg.where is None}\0{seg.syntax}\0"
                f"{seg.printed}\0{seg.sections}\0{seg.splices}\0{seg.decimal_from}\0")
        h = blake3.blake3(self.context + head.encode("utf-8", "surrogatepass"))
        h.update(seg.text.encode("utf-8", "surrogatepass"))
        return h.hexdigest()[:32]

    def get(self, key: str, seg: Segment) -> Judged | None:
        """The findings and matches judged before for ``seg`` (whose key is ``key``)."""
        got = self._old.get(key)
        if got is None:
            return None
        _, findings, stored = got
        self._new[key] = got
        self.hits += 1
        matches = [Match.from_row(seg.path_at(row[0]), seg.where, row) for row in stored]
        return list(findings), matches

    def put(self, key: str, seg: Segment, findings: list[Finding],
            rows: list[_StoredMatch]) -> None:
        """Remember what was judged for ``seg`` (its matches as `Match.row` gives them)."""
        self._new[key] = (_ident(seg), findings, rows)

    def save(self) -> None:
        """Write this context's entries back (atomically); any failure leaves the old file."""
        if not self._changed and self.hits == len(self._new) == len(self._old):
            return  # every entry came from the file, and it has no others: nothing new
        import blake3

        # Kept: this run's entries, and those of segments this run did not read (the hook
        # reads only what is staged); an older version of a segment read now is dropped.
        seen = {entry[0] for entry in self._new.values()}
        entries = {k: v for k, v in self._old.items() if v[0] not in seen}
        if len(entries) + len(self._new) > MAX_ENTRIES:
            entries = {}
        entries.update(self._new)
        try:
            body = _encode_body(entries, self._anchors)
            data = msgspec.msgpack.encode(_File(FORMAT, self.context,
                                                blake3.blake3(body).digest(), body))
            _prepare(self.folder)
            # not tempfile: its import costs more than a run that hits the cache saves
            tmp = self.folder / f".tmp-{os.getpid()}-{time.time_ns()}"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, self.path)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
            _prune(self.folder, keep=self.path)
        except OSError:
            return  # a cache that cannot be written is only a slower next run


def _ident(seg: Segment) -> str:
    return f"{seg.path}\0{seg.where}"


def _encode_body(entries: dict[str, _Entry], anchors: _Anchors | None) -> bytes:
    """The entries as msgpack; those that cannot be (a lone surrogate in a file name or a
    notebook's text: msgpack strings are UTF-8) are left out: they are judged each run."""
    try:
        return msgspec.msgpack.encode(_Body(entries, anchors))
    except UnicodeEncodeError:
        pass
    good = {}
    for key, entry in entries.items():
        try:
            msgspec.msgpack.encode(entry)
        except UnicodeEncodeError:
            continue
        good[key] = entry
    try:
        return msgspec.msgpack.encode(_Body(good, anchors))
    except UnicodeEncodeError:  # in the anchors (a claim's alias): keep them out
        return msgspec.msgpack.encode(_Body(good, None))


def _prepare(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", "# written by labledger: a cache, safe to delete\n*\n"),
                       ("CACHEDIR.TAG", _TAG)):
        marker = folder / name  # keep it out of git and out of backups
        if not marker.exists():
            marker.write_text(text, encoding="utf-8")


def _prune(folder: Path, keep: Path) -> None:
    now = time.time()
    for tmp in folder.glob(".tmp-*"):  # left by a run killed while writing
        try:
            if now - tmp.stat().st_mtime > _STALE_TMP_SECONDS:
                tmp.unlink()
        except OSError:
            continue
    files = []
    for path in folder.glob("*.msgpack"):
        try:
            files.append((path.stat().st_mtime_ns, path))
        except OSError:
            continue
    files.sort(reverse=True)
    for _, path in files[KEEP_CONTEXTS:]:
        if path != keep:
            path.unlink(missing_ok=True)
