"""Explicit claim markers in documents: exact ties of one number to one claim (or a delta).

Syntaxes (the contract documented in docs/reconcile.md):

* Markdown, reST, text, notebook markdown: ``<!-- claim:C1 -->31.42`` (emphasis, code and ``$``
  may wrap the number), ``<span data-claim="C1">31.42</span>``, a delta
  ``<!-- delta:C2,C1 -->+1.47`` (C2 − C1), and ``<!-- noclaim -->`` (no anchored checks here).
* LaTeX (``labledger.sty``): ``\\claim{C1}{31.42}`` (or ``\\ledgerclaim``),
  ``\\claimdelta{C2}{C1}{+1.47}``, ``\\claimref{C1}`` (binds a table header or row label),
  ``\\noclaim`` or a ``% noclaim`` comment; a ``\\newcommand``/``\\def`` macro holding a
  number is a marker when its name is bound: ``\\claimbind{C1}{\\psnrours}`` anywhere in the
  documents, a ``% claim:C1`` comment on its line, or a claim alias ``\\psnrours``.
* Typst (``labledger.typ``): ``#claim("C1")[31.42]``, ``#claimdelta("C2", "C1")[+1.47]``,
  ``#noclaim``.
* CSV/TSV: ``claim:C1`` in a header or row-label cell binds that column or row; ``noclaim`` in a
  cell silences anchors for its row (in the header: the table).

A marker is found where it is written; its number must start right after it (after formatting
only), else the marker is reported as marking nothing. A marker in text shown verbatim (a
Markdown fenced block or code span, a reST literal block or inline literal, a LaTeX
``verbatim``/``lstlisting``/``minted`` environment or ``\\verb``: `fenced.shown_verbatim`) is
shown, not read: it is text, as the page renders it (a README showing how to write one).

Every regex here that runs over a whole document starts with a literal character, so the regex
engine skips ahead instead of trying every position (a pattern starting with a group or ``^``
does not).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.decimal_mark import decimal_comma
from labledger.reconcile.doc_readers import (
    FORMAT_COMMAND,
    Segment,
    is_typst_path,
    siunitx_plain,
)
from labledger.reconcile.fenced import inside, shown_verbatim
from labledger.reconcile.numbers import Shown, number_at

__all__ = ["COMMENT_BINDING", "Marker", "braced_end", "find_markers", "number_in", "tex_bindings"]

# a LaTeX definition bound to a claim by the comment after it ("\\newcommand{\\x}{31.42}
# % claim:C1"): its number is a marker's (`_tex_markers`), its uses no number (`tex_values`)
COMMENT_BINDING = re.compile(r"(?<!\\)%[ \t]*claim:(\S+)")

# --- markers -------------------------------------------------------------------------------------

_MD_MARKERS = re.compile(
    r"<!--\s*(?:(?P<kind>(?i:claim|delta))\s*:\s*(?P<ids>[^\s>]+)|(?P<noclaim>(?i:noclaim)))"
    r"\s*-->"
    r"|<span\s+data-claim\s*=\s*(?:\"(?P<span>[^\"]+)\"|'(?P<span1>[^']+)')\s*>"
    r"(?P<content>[^<]*)</span>")
# What starts like a marker: one the full pattern does not read is a finding, never ignored (a
# drifted number behind a mistyped marker would otherwise pass as unmarked text). A keyword
# followed by ':' or by one id-like word and the end of the comment is a marker being written;
# prose in a comment that starts with the word ("<!-- Delta between the runs ... -->") is not.
_MD_SUSPECT = re.compile(
    r"<!--\s*(?i:(?:claim|delta)\s*:|(?:claim|delta)\s+[\w.,-]+\s*(?:-->|$)|noclaim\b)"
    r"|<span\s[^>]*?data-claim\b", re.MULTILINE)
# labledger.typ's, in a Typst paper (`typst_pages` keeps them as written), and what starts like
# one (a finding when the full pattern does not read it)
_TYPST_MARKERS = re.compile(
    r"#(?:claim\(\s*\"(?P<claim>[^\"\n]+)\"\s*\)"
    r"|claimdelta\(\s*\"(?P<delta>[^\"\n]+)\"\s*,\s*\"(?P<base>[^\"\n]+)\"\s*\))"
    r"\[(?P<content>[^\[\]\n]*)\]|#(?P<noclaim>noclaim)\b")
_TYPST_SUSPECT = re.compile(r"#(?:claim|claimdelta|noclaim)\b")
_TEX_MARKERS = re.compile(
    r"\\(?:ledger)?claim\{(?P<claim>[^{}]+)\}\{"
    r"|\\(?:ledger)?claimdelta\{(?P<a>[^{}]+)\}\{(?P<b>[^{}]+)\}\{"
    r"|\\claimref\{(?P<ref>[^{}]+)\}"
    r"|(?P<noclaim>\\noclaim\b|%[ \t]*noclaim\b)"
    r"|\\(?:(?:re)?new|provide)command\*?\s*\{?\\(?P<name>[A-Za-z@]+)\}?\s*(?:\[\d\])?\s*\{"
    r"|\\def\s*\\(?P<defname>[A-Za-z@]+)\s*\{")
_TEX_FIND_TAIL = (r"(?:(?:ledger)?claim(?:delta)?\{|claimref\{|noclaim\b|[ \t]*noclaim\b"
                  r"|(?:(?:re)?new|provide)command|def\s*\\)")
# Where a marker may start: a backslash or a percent sign, then one of the tails. One pattern
# per first character: the regex engine skips ahead to a pattern's first literal character, but
# tries a pattern starting with a class ("[\\%]") at every place of the text, thirty times as
# slow over a LaTeX file (`_tex_places` finds what the one pattern's finditer found).
_TEX_FIND = (re.compile(r"\\" + _TEX_FIND_TAIL), re.compile("%" + _TEX_FIND_TAIL))
_TEX_BIND = re.compile(r"\\claimbind\{([^{}]+)\}\{\\([A-Za-z@]+)\}")
_CELL_BIND = re.compile(r"\bclaim:([^\s,;|<>\"]+)")
_LEAD = re.compile(r"[ \t*_`~$({]*")


@dataclass(frozen=True, slots=True)
class Marker:
    kind: str                   # value | delta | bind | noclaim | empty | malformed
    ids: tuple[str, ...]
    start: int
    end: int
    number: Shown | None = None
    via: str = "marker"         # marker | macro
    delta: bool = False         # written as a delta marker (an "empty" one says why)
    problem: str | None = None  # a "malformed" one: what is wrong with it


def braced_end(text: str, pos: int, limit: int = 4000) -> int:
    """Offset of the ``}`` closing a group whose ``{`` is just before ``pos`` (or -1), within
    ``limit`` characters."""
    depth = 1
    for i in range(pos, min(len(text), pos + limit)):
        ch = text[i]
        if ch == "{" and text[i - 1] != "\\":
            depth += 1
        elif ch == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return i
    return -1


def number_in(text: str, start: int, end: int, comma: bool = False) -> Shown | None:
    """The first number of ``text[start:end]`` when only formatting comes before it (``comma``:
    the text writes decimal commas, `decimal_mark`)."""
    lead = _LEAD.match(text, start, end)
    pos = lead.end() if lead else start
    while (command := FORMAT_COMMAND.match(text, pos, end)) is not None:
        pos = command.end()
        lead = _LEAD.match(text, pos, end)
        pos = lead.end() if lead else pos
    return number_at(text, pos, end, comma=comma)


def _md_markers(seg: Segment) -> list[Marker]:
    text = seg.text
    out: list[Marker] = []
    if is_typst_path(seg.path) and "#" in text:
        out = _typst_markers(seg)
    if "<!--" not in text and "data-claim" not in text:
        out.sort(key=lambda marker: marker.start)
        return _not_verbatim(seg, out)
    comma = decimal_comma(seg)
    read: set[int] = set()
    for m in _MD_MARKERS.finditer(text):
        read.add(m.start())
        span = m.group("span") or m.group("span1")
        if m.group("noclaim"):
            out.append(Marker("noclaim", (), m.start(), m.end()))
        elif span:
            shown = number_in(text, m.start("content"), m.end("content"), comma)
            out.append(Marker("value" if shown else "empty", (span.strip(),),
                              m.start(), m.end(), shown))
        else:
            kind = m.group("kind").lower()
            ids = tuple(i for i in m.group("ids").split(",") if i)
            nl = text.find("\n", m.end())
            shown = number_in(text, m.end(), len(text) if nl < 0 else nl, comma)
            if kind == "delta":
                out.append(Marker("delta" if shown and len(ids) == 2 else "empty", ids,
                                  m.start(), m.end(), shown, delta=True))
            else:
                out.append(Marker("value" if shown else "bind", ids, m.start(), m.end(), shown))
    for m in _MD_SUSPECT.finditer(text):
        if m.start() not in read:
            out.append(_malformed(text, m.start()))
    out.sort(key=lambda marker: marker.start)
    return _not_verbatim(seg, out)


def _typst_markers(seg: Segment) -> list[Marker]:
    """A Typst paper's markers (labledger.typ): ``#claim("C1")[31.42]``,
    ``#claimdelta("C2", "C1")[+1.47]``, ``#noclaim``; what starts like one but is not read is
    a finding."""
    text = seg.text
    out: list[Marker] = []
    comma = decimal_comma(seg)
    read: set[int] = set()
    for m in _TYPST_MARKERS.finditer(text):
        read.add(m.start())
        if m.group("noclaim"):
            out.append(Marker("noclaim", (), m.start(), m.end()))
            continue
        shown = number_in(text, m.start("content"), m.end("content"), comma)
        if m.group("delta"):
            out.append(Marker("delta" if shown else "empty",
                              (m.group("delta").strip(), m.group("base").strip()),
                              m.start(), m.end(), shown, delta=True))
        else:
            out.append(Marker("value" if shown else "empty", (m.group("claim").strip(),),
                              m.start(), m.end(), shown))
    for m in _TYPST_SUSPECT.finditer(text):
        if m.start() not in read:
            line, shown_line = _marker_line(text, m.start())
            out.append(Marker("malformed", (), m.start(), m.start() + len(line), problem=(
                f"malformed claim marker `{shown_line}`; it marks nothing (expected "
                '#claim("C1")[31.42], #claimdelta("C2", "C1")[+1.47] or #noclaim)')))
    return out


def _not_verbatim(seg: Segment, markers: list[Marker]) -> list[Marker]:
    """``markers`` (in text order) less those in text ``seg`` shows verbatim; the spans are
    found only when there are markers, and walked once beside them."""
    if not markers:
        return markers
    shown = shown_verbatim(seg)
    if not shown:
        return markers
    out: list[Marker] = []
    k = 0
    for marker in markers:
        while k < len(shown) and shown[k][1] <= marker.start:
            k += 1
        if k == len(shown) or marker.start < shown[k][0]:
            out.append(marker)
    return out


def _marker_line(text: str, start: int) -> tuple[str, str]:
    """The rest of the line from ``start`` (a marker not read), and as a finding quotes it."""
    line_end = text.find("\n", start)
    line = text[start:len(text) if line_end < 0 else line_end]
    return line, line if len(line) <= 60 else line[:57] + "..."


def _malformed(text: str, start: int) -> Marker:
    """A marker the syntax does not read: a finding that shows it and the form expected."""
    line, shown = _marker_line(text, start)
    if line.startswith("<span"):
        expected = '<span data-claim="C1">31.42</span>'
    elif "-->" not in line:
        return Marker("malformed", (), start, start + len(line), problem=(
            f"claim marker `{shown}` is not closed with `-->` on its line; it marks nothing"))
    else:
        expected = "<!-- claim:C1 -->31.42 (or <!-- delta:C2,C1 -->, <!-- noclaim -->)"
    return Marker("malformed", (), start, start + len(line), problem=(
        f"malformed claim marker `{shown}`; it marks nothing (expected {expected})"))


def _tex_markers(seg: Segment, binds: dict[str, str]) -> list[Marker]:
    text = seg.text
    out: list[Marker] = []
    if "\\" not in text and "noclaim" not in text:
        return out
    comma = decimal_comma(seg)
    plain = siunitx_plain(text, comma)  # numbers are read from it: \SI{91.3}{\percent} is 91.3%
    for found in _tex_places(text):
        # NOTE: the full pattern starts with groups, which stops the regex engine from skipping
        # ahead by its first character; a plain prefix finds the places, the full one reads them.
        m = _TEX_MARKERS.match(text, found.start())
        if m is None:
            continue
        if m.group("noclaim"):
            if text[m.start()] == "%" and m.start() > 0 and text[m.start() - 1] == "\\":
                continue  # \% noclaim: a percent sign, not a comment
            out.append(Marker("noclaim", (), m.start(), m.end()))
        elif m.group("ref"):
            out.append(Marker("bind", (m.group("ref").strip(),), m.start(), m.end()))
        elif m.group("claim") or m.group("a"):
            close = braced_end(text, m.end())
            shown = number_in(plain, m.end(), close, comma) if close >= 0 else None
            if m.group("claim"):
                ids: tuple[str, ...] = (m.group("claim").strip(),)
                kind = "value"
            else:
                ids, kind = (m.group("a").strip(), m.group("b").strip()), "delta"
            out.append(Marker(kind if shown else "empty", ids, m.start(),
                              close + 1 if close >= 0 else m.end(), shown,
                              delta=kind == "delta"))
        else:
            name = m.group("name") or m.group("defname")
            close = braced_end(text, m.end())
            if close < 0:
                continue
            line_end = text.find("\n", close)
            tail = text[close:len(text) if line_end < 0 else line_end]
            cm = COMMENT_BINDING.search(tail)
            cid = cm.group(1) if cm else binds.get(name)
            body = text[m.end():close]
            if cid is None or "\\claim" in body:
                continue  # not bound, or bound by the \claim marker inside it
            shown = number_in(plain, m.end(), close, comma)
            out.append(Marker("value" if shown else "empty", (cid,), m.start(), close + 1,
                              shown, via="macro"))
    return _not_verbatim(seg, out)


def _tex_places(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``[\\%]`` and `_TEX_FIND_TAIL`, left to right and apart, as that one
    pattern's ``finditer`` finds them: each time the first of the two patterns' next matches,
    each searched again from the end of the match taken when it started before that end (a
    match of one may end where one of the other starts: "%def\\claim{")."""
    backslash, percent = _TEX_FIND
    b, p = backslash.search(text), percent.search(text)
    while b is not None or p is not None:
        if b is not None and (p is None or b.start() < p.start()):
            found = b
        else:
            assert p is not None  # (one of the two is, or the loop had ended)
            found = p
        yield found
        at = found.end()
        if b is not None and b.start() < at:
            b = backslash.search(text, at)
        if p is not None and p.start() < at:
            p = percent.search(text, at)


def _cell_markers(seg: Segment) -> list[Marker]:
    text = seg.text
    out: list[Marker] = []
    if "claim" not in text:
        return out
    for m in _CELL_BIND.finditer(text):
        out.append(Marker("bind", (m.group(1),), m.start(), m.end()))
    for m in re.finditer(r"\bnoclaim\b", text):
        out.append(Marker("noclaim", (), m.start(), m.end()))
    return out


def tex_bindings(segments: Iterable[Segment], claims: Iterable[Claim]) -> dict[str, str]:
    """Macro name → claim id, from ``\\claimbind`` anywhere and from ``\\name`` aliases."""
    binds: dict[str, str] = {}
    for claim in claims:
        for alias in claim.aliases:
            if alias.startswith("\\") and alias[1:].isalpha():
                binds[alias[1:]] = claim.id
    for seg in segments:
        if seg.syntax == "tex" and "\\claimbind" in seg.text:
            for m in _TEX_BIND.finditer(seg.text):
                if not inside(shown_verbatim(seg), m.start()):  # (shown, not read)
                    binds[m.group(2)] = m.group(1).strip()
    return binds


def find_markers(seg: Segment, binds: dict[str, str]) -> list[Marker]:
    """Every marker of ``seg``, by its syntax (``binds``: `tex_bindings` of all documents)."""
    if seg.syntax == "tex":
        return _tex_markers(seg, binds)
    if seg.syntax in ("csv", "tsv"):
        return _cell_markers(seg)
    return _md_markers(seg)
