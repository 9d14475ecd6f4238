"""LaTeX's strike-through: which of ``\\sout``, ``\\xout`` (ulem) and ``\\st`` (soul) strike a
value out in the documents reconciled, and the text to judge with their spans blanked.

A paper keeps a corrected value in sight struck out (``\\sout{31.52} 31.42``): the struck value
is no claim's. But the names are short and papers define them too (``\\newcommand{\\st}[1]
{\\textbf{#1}}``, the best result of a column): blanking those hid the value shown and let a
baseline's number be judged as the claim's. The rules (docs/reconcile.md, "LaTeX"):

* **The package's macro.** A name strikes only when no LaTeX document reconciled defines it
  (any form `tex_macros` reads, with or without arguments, or ``\\let``), outside comments and
  verbatim text; a definition in any file wins, as macros are collected over every file.
* **Its package is loaded**, by ``\\usepackage`` / ``\\RequirePackage`` (options and lists:
  ``\\usepackage[normalem]{ulem}``, ``\\usepackage{xcolor,soul}``) in a document reconciled; or
  no document reconciled has a preamble (no ``\\documentclass``): a chapter reconciled alone,
  whose preamble is not read, uses the name as the package's. A preamble that loads neither
  package nor defines the name leaves it unknown (a class or style file not read defines it):
  its text is read.
* **Offsets kept.** `blank_strikes` replaces each struck ``\\name{...}`` (nested braces
  included) with spaces, line breaks kept, as masking does; a use in a comment or in verbatim
  text is left as written (masking handles those).

Cost: one substring search per name over each LaTeX segment; a regex pass only over the
segments holding one.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from labledger.reconcile.decimal_mark import in_tex_comment
from labledger.reconcile.doc_markers import braced_end
from labledger.reconcile.doc_readers import Segment, blanked
from labledger.reconcile.fenced import inside, shown_verbatim
from labledger.reconcile.tex_macros import defined_names

__all__ = ["PACKAGES", "blank_strikes", "strike_macros"]

# each strike macro and the packages defining it (soulutf8 loads soul)
PACKAGES: dict[str, frozenset[str]] = {
    "sout": frozenset({"ulem"}), "xout": frozenset({"ulem"}),
    "st": frozenset({"soul", "soulutf8"}),
}
_LOADS = re.compile(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\]\s*)?\{([^{}]*)\}")
_PREAMBLE = re.compile(r"\\documentclass(?![A-Za-z@])")
_LET = re.compile(r"\\let\s*\\([A-Za-z@]+)")
_USE = re.compile(r"\\(sout|xout|st)(?![A-Za-z@])\s*\{")


def strike_macros(segments: Iterable[Segment]) -> frozenset[str]:
    """The names of `PACKAGES` that strike text out in ``segments`` (see the module's rules)."""
    loaded: set[str] = set()
    defined: set[str] = set()
    preamble = False
    for seg in segments:
        if seg.syntax != "tex" or "\\" not in seg.text:
            continue
        text = seg.text
        defined |= defined_names(seg)
        defined.update(m.group(1) for m in _LET.finditer(text)
                       if not in_tex_comment(text, m.start()))
        for m in _LOADS.finditer(text):
            if not in_tex_comment(text, m.start()):
                loaded.update(name.strip() for name in m.group(1).split(","))
        preamble = preamble or any(not in_tex_comment(text, m.start())
                                   for m in _PREAMBLE.finditer(text))
    return frozenset(name for name, packages in PACKAGES.items()
                     if name not in defined and (not preamble or packages & loaded))


def blank_strikes(seg: Segment, names: frozenset[str]) -> Segment:
    """``seg`` with the spans ``names`` strike out blanked (itself when there are none)."""
    text = seg.text
    if seg.syntax != "tex" or not names or not any("\\" + n in text for n in names):
        return seg
    spans: list[tuple[int, int]] = []
    for m in _USE.finditer(text):
        if m.group(1) not in names or (spans and m.start() < spans[-1][1]):
            continue  # another name, or inside a span already struck
        close = braced_end(text, m.end())
        if close < 0 or in_tex_comment(text, m.start()):
            continue
        if inside(shown_verbatim(seg), m.start()):
            continue
        spans.append((m.start(), close + 1))
    if not spans:
        return seg
    pieces: list[str] = []
    last = 0
    for a, b in spans:
        pieces += [text[last:a], blanked(text[a:b])]
        last = b
    pieces.append(text[last:])
    return dataclasses.replace(seg, text="".join(pieces), _cache={})
