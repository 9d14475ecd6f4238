"""LaTeX macros that name a claim: ``\\newcommand{\\method}{FooNet\\xspace}`` makes ``\\method`` an
anchor of the claims "FooNet" names, wherever the documents use it.

Papers name their method (or a metric) through a macro defined once (``macros.tex``, the
preamble) and used everywhere (``\\method{} reaches 31.42 dB``, ``\\method & 31.42 \\\\``). The
word a macro prints is its definition's *text*; the rules (docs/reconcile.md, "LaTeX"):

* **Read forms**: ``\\newcommand``, ``\\renewcommand``, ``\\providecommand`` (each also with
  ``*``), ``\\DeclareRobustCommand``, ``\\def``, and ``\\NewDocumentCommand`` /
  ``\\RenewDocumentCommand`` / ``\\ProvideDocumentCommand`` / ``\\DeclareDocumentCommand`` with an
  empty argument spec. A macro taking arguments (``[1]``, ``#1``, a non-empty spec) prints no
  fixed text: it is no anchor.
* **The text**: formatting is dropped (``\\textsc``, ``\\textbf``, ``\\mbox``, ``\\emph``,
  ``\\text``..., ``\\bf``-style switches, ``\\xspace``, braces, ``$``); ``~`` and ``\\ `` are
  spaces.
  A macro of the documents inside it is replaced by its text, up to `MAX_DEPTH` levels (a cycle
  or a deeper chain: no anchor). Any other command (``\\mathbb``, ``\\textsuperscript``) leaves
  the text unknown: no anchor. The text is compared as anchors are (`anchors.normalize`), and
  the macro anchors only when it equals an anchor term exactly.
* **Defined more than once** (in any documents): an anchor only when every definition has the
  same text. Which one LaTeX uses depends on the order files are ``\\input``, which reconcile
  does not know; guessing could tie a number to the wrong claim, so differing ones are refused.
* **Not read**: a definition in a ``%`` comment or in text shown verbatim
  (`fenced.shown_verbatim`).
* **Markers stay markers**: a macro bound to a claim (`doc_markers.tex_bindings`) is no anchor.
* **Uses**: ``\\name`` not followed by a letter (``\\method``, ``\\method{}``, ``\\method\\ ``), in
  LaTeX segments only, outside verbatim text, and not as the name being defined. The macro's
  bare name is never an anchor: "method" in prose stays a plain word.

Cost: `macro_texts` looks at a segment only when ``ommand`` or ``\\def`` is in it; a segment is
searched for uses only when the documents define a macro that anchors, by one substring search
per such macro (at most `_FEW`), else one regex pass whose every alternative starts with ``\\``.
Both are linear in the text.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

from labledger.reconcile.anchors import Hit, normalize
from labledger.reconcile.doc_markers import braced_end
from labledger.reconcile.doc_readers import Segment
from labledger.reconcile.fenced import inside, shown_verbatim

__all__ = ["MAX_DEPTH", "MacroAnchors", "defined_names", "definitions_at", "macro_texts",
           "printed", "used_at"]

MAX_DEPTH = 4  # a macro printing a macro printing ...: enough for papers, bounded for cycles

_DEFINE = re.compile(
    r"\\(?P<kind>(?:(?:re)?new|provide)command|DeclareRobustCommand|def"
    r"|(?:New|Renew|Provide|Declare)DocumentCommand)(?![A-Za-z@])\*?[ \t]*")
_NAME = re.compile(r"\{[ \t]*\\(?P<a>[A-Za-z@]+)[ \t]*\}|\\(?P<b>[A-Za-z@]+)")
_SPACE = re.compile(r"[ \t\r\n]*")
# commands that only format their argument or the text after them: dropped, text kept
_FORMATTING = frozenset((
    "textsc", "textbf", "textit", "textrm", "textsf", "texttt", "textnormal", "textup", "emph",
    "text", "mbox", "hbox", "ensuremath", "mathrm", "mathbf", "mathsf", "mathtt", "mathit",
    "bf", "it", "sc", "rm", "sf", "tt", "em", "scshape", "bfseries", "itshape", "upshape",
    "normalfont", "xspace", "protect", "relax", "nobreak"))
# (TeX skips the spaces after a control word: "{\\sc FooNet}" prints "FooNet")
_COMMAND = re.compile(r"\\(?:([A-Za-z@]+)[ \t\r\n]*|(.))", re.S)
_SPACES = frozenset(" ,;:!/@\n")  # \  \, \; \: \! \/ \@: spacing and kerning


def _definitions(seg: Segment) -> Iterable[tuple[str, str | None]]:
    """(name, body) of every macro defined in ``seg``, in order; body None when it takes
    arguments or cannot be read."""
    for name, body, _ in definitions_at(seg):
        yield name, body


def definitions_at(seg: Segment) -> Iterable[tuple[str, str | None, int]]:
    """(name, body, where the definition ends) of every macro defined in ``seg``, in order
    (`_definitions`)."""
    text = seg.text
    if "ommand" not in text and "\\def" not in text:  # (c|C)ommand
        return
    shown: list[tuple[int, int]] | None = None
    for m in _DEFINE.finditer(text):
        if _in_comment(text, m.start()):
            continue
        if shown is None:
            shown = shown_verbatim(seg)
        if inside(shown, m.start()):
            continue  # shown, not read
        got = _read_definition(text, m.end(), m.group("kind"))
        if got is not None:
            yield got


def defined_names(seg: Segment) -> set[str]:
    """The names of every macro ``seg`` defines (with arguments or without)."""
    return {name for name, _ in _definitions(seg)}


def _in_comment(text: str, pos: int) -> bool:
    """Whether ``pos`` follows an unescaped ``%`` on its line."""
    line = text[text.rfind("\n", 0, pos) + 1:pos]
    i = line.find("%")
    while i >= 0:
        slashes = len(line[:i]) - len(line[:i].rstrip("\\"))
        if slashes % 2 == 0:
            return True
        i = line.find("%", i + 1)
    return False


def _read_definition(text: str, pos: int, kind: str) -> tuple[str, str | None, int] | None:
    """The (name, body, end) defined from ``pos`` (just after the defining command), or None
    when no name is there."""
    m = _NAME.match(text, pos)
    if m is None:
        return None
    name = m.group("a") or m.group("b")
    pos = _SPACE.match(text, m.end()).end()  # type: ignore[union-attr]
    if kind.endswith("DocumentCommand"):
        if not text.startswith("{", pos):
            return name, None, pos
        close = braced_end(text, pos + 1)
        if close < 0 or text[pos + 1:close].strip():
            return name, None, pos  # an argument spec: it takes arguments
        pos = _SPACE.match(text, close + 1).end()  # type: ignore[union-attr]
    if not text.startswith("{", pos):
        return name, None, pos  # [1] or #1: it takes arguments (\def\x#1{...})
    close = braced_end(text, pos + 1)
    return (name, text[pos + 1:close], close + 1) if close >= 0 else (name, None, pos)


def _plain(body: str, bodies: Mapping[str, str | None], depth: int = 0) -> str | None:
    """The text ``body`` prints (see the module's docstring), or None when it is not fixed."""
    text = printed(body, bodies, depth)
    return text if text is not None and any(c.isalpha() for c in text) else None


def printed(body: str, bodies: Mapping[str, str | None], depth: int = 0, *,
            value: bool = False) -> str | None:
    """What ``body`` prints, formatting dropped and the macros of ``bodies`` inside it
    printed (`MAX_DEPTH` levels), or None when that is not fixed. A name's (`_plain`): any
    symbol but a space (``\\%``) makes it None, and a macro inside must print a name too.
    A number's (``value``, `tex_values`): ``\\%`` prints ``%``, siunitx's ``\\num`` its
    argument."""
    if "#" in body or depth > MAX_DEPTH:
        return None
    out: list[str] = []
    pos = 0
    for m in _COMMAND.finditer(body):
        out.append(body[pos:m.start()])
        pos = m.end()
        name, symbol = m.group(1), m.group(2)
        if symbol is not None:
            if symbol in _SPACES:
                out.append(" ")
                continue
            if value and symbol == "%":
                out.append("%")
                continue
            return None  # \& \% \$ ...: a symbol, no word
        if name in _FORMATTING or (value and name == "num"):
            continue
        inner = bodies.get(name)
        if inner is None:
            return None  # a command we cannot print (\mathbb) or one taking arguments
        got = printed(inner, bodies, depth + 1, value=value) if value else \
            _plain(inner, bodies, depth + 1)
        if got is None:
            return None
        out.append(got)
    out.append(body[pos:])
    return "".join(out).translate(_DROPPED)


_DROPPED = str.maketrans({"{": None, "}": None, "$": None, "~": " "})  # \textsc{Foo}Net: FooNet


def macro_texts(segments: Iterable[Segment], bound: Iterable[str] = ()) -> dict[str, str]:
    """Macro name → the normalized text it prints, over all LaTeX ``segments`` (computed once
    before judging: a macro defined in one file is used in others). A name in ``bound``
    (`doc_markers.tex_bindings`: a marker), defined with arguments, or defined with differing
    texts is left out."""
    seen: dict[str, list[str | None]] = {}
    for seg in segments:
        if seg.syntax == "tex":
            for name, body in _definitions(seg):
                seen.setdefault(name, []).append(body)
    # a macro used inside another is printed by its only definition (or not at all)
    bodies = {name: found[0] if len(set(found)) == 1 else None for name, found in seen.items()}
    skip = set(bound)
    out: dict[str, str] = {}
    for name, found in seen.items():
        if name in skip or None in found:
            continue
        texts = {_plain(body, bodies) for body in found if body is not None}
        if len(texts) == 1 and (text := texts.pop()) is not None:
            term = normalize(text)
            if term:
                out[name] = term
    return out


_FEW = 4  # up to this many anchoring macros, a substring search each tells a segment uses none
_DEFINED_HERE = re.compile(
    r"(?:[cC]ommand|\\def|claimbind\{[^{}]*\})\*?"
    r"[ \t]*\{?[ \t]*$")


class MacroAnchors:
    """The macros (of `macro_texts`) whose text is an anchor term of ``claims_of``, and where a
    LaTeX segment uses them.

    Invariant: every hit `uses` returns lies at a use ``\\name``: its start is the name's first
    letter (``text[start - 1] == "\\\\"``), its end the name's end, its term the macro's text.
    """

    def __init__(self, texts: Mapping[str, str], claims_of: Mapping[str, object]) -> None:
        self.term_of = {name: term for name, term in texts.items() if term in claims_of}
        names = sorted(self.term_of, key=lambda n: (-len(n), n))
        self._needles = tuple("\\" + n for n in names)
        self._regex = (re.compile(r"\\(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z@])")
                       if names else None)

    def uses(self, seg: Segment) -> list[Hit]:
        """A hit for each use of an anchoring macro in ``seg`` (LaTeX only), in text order."""
        if self._regex is None or seg.syntax != "tex":
            return []
        if len(self._needles) <= _FEW and not any(n in seg.text for n in self._needles):
            return []
        return [Hit(m.start() + 1, m.end(), self.term_of[m.group(1)])
                for m in used_at(seg, self._regex)]


def used_at(seg: Segment, regex: re.Pattern[str]) -> list[re.Match[str]]:
    """The matches of ``regex`` (``\\(name|...)(?![A-Za-z@])``) in ``seg`` that use a macro:
    not ``\\\\name`` (a line break, then the word), not the name being defined or bound,
    not in text shown verbatim."""
    text = seg.text
    found = [m for m in regex.finditer(text)
             if not (m.start() > 0 and text[m.start() - 1] == "\\")
             and not _DEFINED_HERE.search(text, max(0, m.start() - 60), m.start())]
    if found:
        shown = shown_verbatim(seg)
        if shown:
            found = [m for m in found if not inside(shown, m.start())]
    return found


def with_uses(seg: Segment, hits: list[Hit], uses: list[Hit]) -> tuple[Segment, list[Hit]]:
    """The segment to judge and its hits once ``uses`` (of `MacroAnchors.uses`) are in.

    Each use's backslash reads as a space in the judged segment: the macro prints a word, which
    the masking of LaTeX commands (`doc_readers.mask_text`) must leave visible, as it leaves
    "FooNet" written out. Nothing else of the text changes (same length, same lines); a scan hit
    inside a use (``\\ours`` is also the word "ours") gives way to the use's."""
    if not uses:
        return seg, hits
    chars = list(seg.text)
    for use in uses:
        chars[use.start - 1] = " "
    view = dataclasses.replace(seg, text="".join(chars), _cache={})
    covered = iter(uses)
    current = next(covered, None)
    kept: list[Hit] = []
    for hit in hits:
        while current is not None and current.end <= hit.start:
            current = next(covered, None)
        if current is None or not current.start - 1 <= hit.start < current.end:
            kept.append(hit)
    merged = sorted(kept + uses, key=lambda h: h.start)
    return view, merged
