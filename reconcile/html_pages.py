"""HTML pages (``.html``, ``.htm``): a paper's project page, read as Markdown's text is read.

Papers ship a project page (``index.html``, often from the Nerfies template) that restates their
headline numbers in prose and tables, and it drifts as the paper's did. `page_text` turns the
page into the text the Markdown reader judges (`doc_readers.read_document` reads the result as
syntax ``md``): what a browser shows stays, where it is; the rest is blanked.

* **Blanked** (one space per character, line breaks kept): the elements a page does not show as
  text (``<script>``, ``<style>``, ``<svg>``'s path data, ``<template>``, ``<textarea>``), code
  (``<pre>``, ``<code>``: a BibTeX entry's year and pages, a command's settings), HTML comments
  but a claim marker's (``<!-- claim:C1 -->``, ``<!-- delta:C2,C1 -->``, ``<!-- noclaim -->``),
  and a tag written over several lines (its attributes); a one-line tag is the Markdown
  reader's to mask, as in a README.
* **Blocks end sentences.** A page's lines are not its paragraphs: ``<p>``, ``<div>``,
  ``<li>``, ``<br>``, ``<h1>``-``<h6>``... read as a sentence's end (a ``.`` in the tag's
  place); a heading opening a line reads as a Markdown heading (``<h2>`` as ``## ``), which
  names the table under it as a README's heading does.
* **Entities** outside tables are the characters they stand for, padded to their length, as in a
  table's cells (`html_tables`): ``31.42&plusmn;0.05``, ``91.3&#37;``, ``&minus;0.4``.
* **Tables** (``<table>`` ... ``</table>``) are left as written, for `html_tables`.

Invariant: the text has the page's length and its line breaks at the same places, so every
offset, line and column a finding gives is the file's.
"""

from __future__ import annotations

import re

from labledger.reconcile.fenced import inside, merged
from labledger.reconcile.html_tables import ENTITY, shown_entity

__all__ = ["page_text"]

# elements whose content is no text of the page, and code; comments but a claim marker's
_HIDDEN = re.compile(
    r"<(script|style|svg|template|textarea|pre|code)\b[^>]*>.*?(?:</\1\s*>|\Z)"
    r"|<!--(?![ \t]*(?:claim|delta|noclaim)\b).*?(?:-->|\Z)", re.S | re.I)
_TABLE = re.compile(r"<table\b.*?(?:</table\s*>|\Z)", re.S | re.I)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)\b[^<>]*>", re.S)
_BLOCKS = frozenset((
    "html", "head", "body", "title", "p", "div", "section", "article", "header", "footer",
    "nav", "main", "aside", "ul", "ol", "li", "dl", "dt", "dd", "blockquote", "figure",
    "figcaption", "br", "hr", "center", "details", "summary", "form", "fieldset", "legend",
    "h1", "h2", "h3", "h4", "h5", "h6"))
_HEADING = re.compile(r"[hH]([1-6])")


def page_text(text: str) -> str:
    """The page ``text`` as the Markdown reader is to read it (see the module's docstring):
    the same length, the same line breaks."""
    chars = list(text)
    hidden = [(m.start(), m.end()) for m in _HIDDEN.finditer(text)]
    for start, end in hidden:
        _blank(chars, start, end)
    skip = merged(hidden + [(m.start(), m.end()) for m in _TABLE.finditer(text)])
    for m in _TAG.finditer(text):
        if inside(skip, m.start()):
            continue
        start, end = m.start(), m.end()
        name = m.group(2).lower()
        if name in _BLOCKS:
            heading = _HEADING.fullmatch(name)
            line_start = text.rfind("\n", 0, start) + 1
            _blank(chars, start, end)
            if heading and not m.group(1) and not text[line_start:start].strip() \
                    and end - start > int(heading.group(1)):
                chars[start:start + int(heading.group(1))] = "#" * int(heading.group(1))
            else:
                chars[start] = "."
        elif "\n" in text[start:end]:
            _blank(chars, start, end)
    for m in ENTITY.finditer(text):
        if not inside(skip, m.start()):
            chars[m.start():m.end()] = shown_entity(m)
    return "".join(chars)


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] not in "\r\n":
            chars[i] = " "
