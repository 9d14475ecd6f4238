"""LaTeX macros that print a number: ``\\newcommand{\\psnrOurs}{31.42}`` makes each use of
``\\psnrOurs`` a number of the text, judged where it is used.

Careful papers never type a result twice: a script writes ``results.tex`` (``\\newcommand{
\\psnrOurs}{31.42}``, one macro per number) and the paper writes ``Ours reaches
\\psnrOurs{}\\,dB PSNR`` and ``Ours & \\psnrOurs \\\\``. Those numbers drift too: a
``results.tex`` generated from an older run, or edited by hand. Before, a use was no number,
and the definition names no claim, so nothing was checked unless the macro was bound to one
(a marker: ``% claim:C1`` on its line, ``\\claimbind``, a ``\\name`` alias). Now each use reads
as the number its macro prints, judged by the words and the table around the use, as a number
typed there would be. The rules (docs/reconcile.md, "LaTeX"):

* **Read forms** and **defined more than once**: as `tex_macros` reads a name's macro (no
  arguments; differing definitions print no number: which one LaTeX uses depends on the
  ``\\input`` order).
* **The number**: what the body prints (`tex_macros.printed`: formatting, ``$``, braces and
  siunitx's ``\\num`` dropped, the documents' macros inside it printed) is one number: a sign,
  digits with thousands commas, a fraction, an exponent, a percent sign (``91.3\\%``).
* **Not read**: a macro bound to a claim (`doc_markers.tex_bindings`, or ``% claim:ID`` on the
  definition's line): its definition is a marker, checked exactly; reading its uses too would
  report one error twice. A definition in a comment or shown verbatim.
* **The definition** is no number of the text: its body reads as blank (in a ``results.tex``
  of such definitions, "FooNet" of a name's macro next to them named none of their numbers).
* **A use** is ``\\name`` (with the ``{}`` right after it), in LaTeX, not ``\\\\name``, not the name
  being defined or bound (`tex_macros.used_at`). The judged segment shows the number in the
  use's place, right-aligned (spaces before it): what follows the use (``\\%``, ``\\,dB``) is
  read as glued to it, as after a number typed there, and every offset and line stays the
  file's. A use shorter than its number (``\\fid`` printing ``12.34``; ``\\fid{}`` fits) is left
  unread: its number cannot be shown in its place.

A finding at a use points at the use (its line and column); the number to fix is in the
macro's definition.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from labledger.reconcile.doc_markers import COMMENT_BINDING
from labledger.reconcile.doc_readers import Segment
from labledger.reconcile.tex_macros import definitions_at, printed, used_at
from labledger.reconcile.typst_pages import is_typst, shown_values

__all__ = ["MacroValues", "macro_values"]

# the one number a value macro prints (after `printed`)
_NUMBER = re.compile(r"[+\-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+\-]?\d+)?%?")


def macro_values(segments: Iterable[Segment],
                 bound: Iterable[str] = ()) -> dict[str, tuple[str, str]]:
    """Macro name → (the number it prints, as LaTeX source: ``31.42``, ``91.3\\%``; where it
    is defined: ``results.tex:3``), over all LaTeX ``segments`` (read once before judging: a
    macro defined in one file is used in others). A name in ``bound`` or bound by a
    ``% claim:`` comment on its definition's line, defined with arguments, or defined with
    differing bodies is left out."""
    seen: dict[str, list[str | None]] = {}
    places: dict[str, str] = {}
    skip = set(bound)
    for seg in segments:
        if seg.syntax != "tex":
            continue
        for name, body, end in definitions_at(seg):
            line_end = seg.text.find("\n", end)
            if COMMENT_BINDING.search(seg.text, end, len(seg.text) if line_end < 0 else line_end):
                skip.add(name)  # a marker: its definition is checked, exactly
            seen.setdefault(name, []).append(body)
            places.setdefault(name, f"{seg.path_at(end - 1)}:{seg.position(end - 1)[0]}")
    bodies = {name: found[0] if len(set(found)) == 1 else None for name, found in seen.items()}
    out: dict[str, tuple[str, str]] = {}
    for name, found in seen.items():
        if name in skip or None in found:
            continue
        texts = {printed(body, bodies, value=True) for body in found if body is not None}
        if len(texts) != 1 or (text := texts.pop()) is None:
            continue
        number = text.strip()
        if any(c.isdigit() for c in number) and _NUMBER.fullmatch(number):
            out[name] = number.replace("%", "\\%"), places[name]
    return out


class MacroValues:
    """The value macros of the documents (`macro_values`), and each LaTeX segment as judged:
    its uses showing their numbers. ``uses``: (start, end, name) of each use `shown` put a
    number in, in the segment it was last given (`said_by`)."""

    def __init__(self, values: dict[str, tuple[str, str]]) -> None:
        self.values = values
        self.uses: list[tuple[int, int, str]] = []
        # (a Typst paper's values are named "#psnr": `typst_pages.typst_values`)
        names = sorted((n for n in values if not n.startswith("#")), key=lambda n: (-len(n), n))
        self._regex = (re.compile(r"\\(" + "|".join(map(re.escape, names))
                                  + r")(?![A-Za-z@])(?:\{\})?") if names else None)

    def shown(self, seg: Segment) -> Segment:
        """``seg`` with each use of a value macro replaced by its number, right-aligned in the
        use's place (see the module's docstring); ``seg`` itself when it uses none."""
        self.uses = []
        if seg.syntax == "md" and is_typst(seg):
            seg, self.uses = shown_values(seg, self.values)
            return seg
        if self._regex is None or seg.syntax != "tex" or "\\" not in seg.text:
            return seg
        found = used_at(seg, self._regex)
        # its definitions' bodies blanked: the number is read where it is used
        bodies = [(end - 1 - len(body), end - 1) for name, body, end in definitions_at(seg)
                  if name in self.values and body is not None]
        if not found and not bodies:
            return seg
        chars = list(seg.text)
        for start, end in bodies:
            chars[start:end] = " " * (end - start)
        for m in found:
            number = self.values[m.group(1)][0]
            width = m.end() - m.start()
            if len(number) > width:
                continue  # no room for it in the use's place: unread
            chars[m.start():m.end()] = " " * (width - len(number)) + number
            self.uses.append((m.start(), m.end(), m.group(1)))
        return dataclasses.replace(seg, text="".join(chars), _cache={})

    def said_by(self, offset: int) -> str:
        """Where the number at ``offset`` of the segment last `shown` comes from, said after a
        finding there (``\\psnrOurs prints it, defined at results.tex:3``); "" for a number
        typed there."""
        for start, end, name in self.uses:
            if start <= offset < end:
                shown = name if name.startswith("#") else "\\" + name
                return f"{shown} prints it, defined at {self.values[name][1]}"
        return ""
