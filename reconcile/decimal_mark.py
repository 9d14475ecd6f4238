"""Whether a segment writes decimal commas (``31,42`` for 31.42), from unambiguous evidence.

German, French, Spanish, Portuguese, Russian... theses and READMEs write ``31,42 dB``,
``0,912``, ``91,3 %``, LaTeX ``$31{,}42$`` and siunitx ``\\num{31.42}`` printed with
``output-decimal-marker={,}``. Read as English, ``31,42`` is no number (or ``31{,}42`` is 31
and 42, so a drifted ``31{,}45`` still matched 31.42 at whole precision), and ``0,912`` was 912.

Invariants:

* **Per segment, never guessed.** A segment (a document, a notebook cell or output) writes
  decimal commas when it shows evidence of them and none of English decimals. Evidence: a
  babel or polyglossia main language that writes them (``\\usepackage[ngerman]{babel}``), a
  siunitx locale or ``output-decimal-marker={,}``, the ``icomma``/``ncccomma`` packages, or a
  number no thousands reading explains: a comma (or LaTeX ``{,}``) between digits followed by
  other than three digits (``31,42``, ``32,1``) or after a lone 0 (``0,912``). English: a
  decimal point so written (``31.42``, ``0.912``). Both, or neither: English, today's reading.
  A declaration in a ``%`` comment is none. A LaTeX file whose document declares them in
  another file (main.tex, or a preamble main.tex ``\\input``s: `Segment.decimal_from`, set by
  `included`) is read as if it held the declaration.
* **Not English evidence:** what is no decimal of a result, whatever the document's language:
  a dot number with three decimals (``1.234`` is a thousand in German), a section, table or
  version number (``Tabelle 4.2``, ``Python 3.10``), TeX lengths and settings (``0.5\\textwidth``,
  ``1.5pt``, ``scale=0.8``, ``\\linespread{1.3}``), siunitx's input (``\\num{31.42}`` prints
  ``31,42`` with a comma marker), comments, and Markdown code.
* **English segments pay one search.** `_COMMA_DIGIT` finds any number with a comma (checked
  where found: a few in an English text), and in LaTeX `_DECLARED_PATTERN` any declaration (searched
  only in a text holding one of its words); only a segment where they find evidence is read
  further. CSV and TSV are not judged here: a
  semicolon-separated file reads its decimal commas itself (`doc_readers.delimited_table`).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # doc_readers reads siunitx's numbers by `decimal_comma`
    from labledger.reconcile.doc_readers import Segment

__all__ = ["decimal_comma", "declares_decimal_comma", "writes_decimal_comma"]

# The main languages whose numbers take a decimal comma (babel and polyglossia names).
_LANGS = (r"(?:n?german|n?austrian|n?swissgerman|french|francais|frenchb|acadian|spanish"
          r"|catalan|galician|portuges|portuguese|brazil|brazilian|italian|dutch|polish"
          r"|czech|slovak|russian|ukrainian|bulgarian|serbian|croatian|slovene|romanian"
          r"|hungarian|finnish|swedish|danish|norsk|nynorsk|norwegian|estonian|latvian"
          r"|lithuanian|turkish|greek|indonesian|vietnamese)")
_LOCALES = r"(?:DE|FR|ES|IT|PT|NL|PL|CZ|RU|SE|DK|FI|NO|AT|CH)"
# Declared: babel's last language option (or main=), polyglossia, siunitx, comma packages.
_DECLARED_PATTERN = (
    r"\\usepackage\[(?:[^\]\n]{0,200},\s*)?(?:main\s*=\s*)?" + _LANGS + r"\s*\]\s*\{babel\}"
    r"|\\usepackage\[[^\]\n]{0,200}main\s*=\s*" + _LANGS + r"\b[^\]\n]{0,200}\]\s*\{babel\}"
    r"|\\set(?:main|default)language\s*(?:\[[^\]]*\])?\s*\{" + _LANGS + r"\}"
    r"|output-decimal-marker\s*=\s*\{?\s*,|locale\s*=\s*" + _LOCALES + r"\b"
    r"|\\usepackage(?:\[[^\]]*\])?\{(?:icomma|ncccomma)\}")
# A comma between digits that no thousands reading explains (not a list's: "1,2,3", "[1,2]")
# (nor a tuple's or an option's: "(3,3)", "(seeds 1,2)", "gpus=0,1")
_WRITTEN = (r"(?<![\w.,\[(=])(?:0(?:,|\{,\})\d+|\d+(?:,|\{,\})(?!\d{3}(?!\d))\d+)"
            r"(?![\w\])]|[.,]\d)")
# One is enough where it cannot be a list of ids: a leading zero and two digits or more
# ("0,912"), LaTeX's "{,}" (not "1{,}000": a thousand), or a unit after it ("31,42 dB",
# "91,3 %"); else it takes three ("GPUs 0,1" and "batch sizes 32,64" in an English README
# with no decimal point are two)
_STRONG = re.compile(r"0(?:,|\{,\})\d\d|\d+\{,\}")
_UNIT_AFTER = re.compile(r"[ \t\u00a0\u202f~]?(?:\\?%|(?:dB|ms|Mio|MB|GB)\b)")
_ENOUGH = 3
_WRITTEN_RX = re.compile(_WRITTEN)
# Where such a number may be: found from its comma, a literal the regex engine skips ahead to
# (tried from every digit, `_WRITTEN` cost an English text twenty times as much)
_COMMA_DIGIT = re.compile(r",\}?\d")
# What each declaration holds: `_DECLARED_PATTERN` is searched only in a text holding one of them
_DECLARING = ("{babel}", "language", "decimal-marker", "locale", "comma}")

# What is read past when looking for English decimals: comments, code, siunitx input, the
# numbers of sections, tables and versions, TeX settings.
_SKIP = {
    "tex": r"(?<!\\)%[^\n]*|\\(?:num|SI|qty|numlist|numrange|SIrange|SIlist|qtyrange|ang)\s*"
           r"(?:\[[^\]\n]*\])?\{[^{}]*\}|\[[^\]\n]*\]"
           r"|\\(?:linespread|setstretch|arraystretch\}|baselinestretch\})\s*\{[^{}]*\}",
    "md": r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]*`|<!--.*?(?:-->|$)|https?://\S+",
    "rst": r"``[^`]*``|::\n(?:[ \t]*\n|[ \t]+[^\n]*\n)*|https?://\S+",
    "txt": r"https?://\S+",
}
_REFERENCE = (r"(?i:tab(?:elle|le|la|ela|leau)?|abb(?:ildung)?|fig(?:ure|ura)?|kap(?:itel)?"
              r"|abschnitt|section|sec|chapitre|chapter|cap[ií]tulo|secci[oó]n|se[cç][cç][aã]o"
              r"|gl(?:eichung)?|eq(?:uation)?|version|python|v)\.?[ \t~]*\d+(?:\.\d+)+")
_ENGLISH = r"(?P<en>(?<![\w.,\\])(?P<int>\d*)\.(?P<frac>\d+))(?!\w|[.,]\d)"
_TEX_SETTING_AFTER = re.compile(r"[ \t]*(?:(?:pt|cm|mm|em|ex|in|bp|sp|pc|dd|cc|mu)\b"
                                r"|\\[a-z]*(?:width|height|skip|size|sep|stretch)\b)")


@functools.cache
def _compiled(name: str) -> re.Pattern[str]:
    """A pattern compiled when first needed: an English segment (nearly all) never reads past
    `_COMMA_DIGIT`, and compiling these at import cost every command's start-up 3 ms."""
    if name == "declared":
        return re.compile(_DECLARED_PATTERN)
    return re.compile(rf"{_SKIP[name]}|{_REFERENCE}|{_ENGLISH}", re.S)


def _english(syntax: str, text: str) -> bool:
    """Does ``text`` write a decimal point as English does (one instance is enough)?"""
    for m in _compiled(syntax).finditer(text):
        if m.group("en") is None:
            continue
        whole, frac = m.group("int"), m.group("frac")
        if len(frac) == 3 and whole not in ("", "0"):
            continue  # 1.234: a thousand where commas are decimal, a decimal where not
        if syntax == "tex" and (text[max(0, m.start() - 1):m.start()] == "="
                                or _TEX_SETTING_AFTER.match(text, m.end())):
            continue  # scale=0.8, 0.5\textwidth, 1.5pt: TeX's own numbers are always dotted
        return True
    return False


def _written(text: str) -> bool:
    """Does ``text`` hold numbers with a comma no thousands reading explains (`_WRITTEN`): one
    that cannot be a list of ids (`_STRONG`), or `_ENOUGH` of them?"""
    found = 0
    for m in _COMMA_DIGIT.finditer(text):
        mark = m.start() - (text[m.start() - 1:m.start()] == "{")  # 31{,}42
        start = mark
        while start > 0 and text[start - 1].isdigit():
            start -= 1
        if start < mark and (got := _WRITTEN_RX.match(text, start)) is not None:
            found += 1
            if found >= _ENOUGH or _STRONG.match(got.group(0)) \
                    or _UNIT_AFTER.match(text, got.end()):
                return True
    return False


def declares_decimal_comma(text: str) -> bool:
    """Whether LaTeX ``text`` declares decimal commas (a babel or polyglossia main language,
    siunitx's marker or locale, icomma), outside ``%`` comments: a thesis keeps
    ``%\\usepackage[ngerman]{babel}`` beside the English it is written in."""
    if not any(word in text for word in _DECLARING):
        return False
    return any(not in_tex_comment(text, m.start())
               for m in _compiled("declared").finditer(text))


_COMMENTED = re.compile(r"(?<!\\)%")


def in_tex_comment(text: str, at: int) -> bool:
    """Whether ``at`` in LaTeX ``text`` is after an unescaped ``%`` on its line."""
    return _COMMENTED.search(text, text.rfind("\n", 0, at) + 1, at) is not None


def writes_decimal_comma(syntax: str, text: str, declared_elsewhere: bool = False) -> bool:
    """Whether ``text`` (of ``syntax``) writes decimal commas (see the module's invariants).
    ``declared_elsewhere``: another file of the same LaTeX document declares them (the main
    file that \\inputs this one: `included`), as if ``text`` did."""
    if syntax not in _SKIP:
        return False
    # the searches an English text pays: any evidence for decimal commas at all
    # (every declaration is LaTeX's: a Markdown or text segment shows its numbers only)
    declared = syntax == "tex" and (declared_elsewhere or declares_decimal_comma(text))
    if not declared and not (_written(text) and _written(_strip(syntax, text))):
        return False  # none, or in a comment or code only
    return not _english(syntax, text)


def _strip(syntax: str, text: str) -> str:
    """``text`` with what `_SKIP` reads past blanked (offsets kept)."""
    return re.sub(_SKIP[syntax], lambda m: " " * len(m.group(0)), text, flags=re.S)


def decimal_comma(seg: Segment) -> bool:
    """`writes_decimal_comma` of a segment, worked out once per segment."""
    return seg.remembered("decimal_comma", lambda: writes_decimal_comma(
        seg.syntax, seg.text, seg.decimal_from is not None))
