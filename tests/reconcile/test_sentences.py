"""Sentence boundaries: the literal-first patterns find exactly what the plain rules describe."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.doc_readers import _BOUNDARY, _NOT_ABBREV

# The rules as first written (a leading [.?!] class, which makes the regex engine try every
# position): the reference the faster patterns must agree with.
_END = r"[.?!]" + _NOT_ABBREV + r"(?=\s)"
_REFERENCE = {
    # (a pipe row's end, a </table>, and a newline before a pipe row or a <table> end a
    # Markdown sentence: prose next to a table never runs into it)
    "md": re.compile(_END + r"|:(?=\r?\n)|\|(?=[ \t]*\r?\n)|</(?i:table)>"
                     r"|\n(?=[ \t]*(?:\r?\n|#{1,6}\s|[-*+>]\s|\d+[.)]\s|\||```|~~~|<!--"
                     r"|<(?i:table)\b))"),
    "tex": re.compile(_END + r"|:(?=\r?\n)|\\\\"
                      r"|\n(?=[ \t]*(?:\r?\n|\\item\b|\\(?:sub)*section\b"
                      r"|\\(?:paragraph|caption|begin|end)\b))"),
    "rst": re.compile(_END + r"|:(?=\r?\n)|\n(?=[ \t]*(?:\r?\n|[-*+]\s|\d+[.)]\s|\.\. ))"),
    "txt": re.compile(_END + r"|:(?=\r?\n)|\n(?=[ \t]*\r?\n)"),
}

_PIECES = st.sampled_from([".", "?", "!", ":", "\n", "\r\n", " ", "\t", "\\\\", "\\item ",
                           "\\section", "\\begin", "# ", "- ", "1. ", "2) ", "|", "```", "~~~",
                           "<!--", ".. ", "a", "PSNR", "31.42", "x", "vs", "e.g", "Fig", " al",
                           "VS", "<table>", "</TABLE>"])


@settings(max_examples=400)
@given(st.lists(_PIECES, max_size=40), st.sampled_from(sorted(_REFERENCE)),
       st.integers(min_value=0, max_value=200), st.integers(min_value=0, max_value=200))
def test_boundaries_equal_the_reference_rules(pieces: list[str], syntax: str, lo: int,
                                              hi: int) -> None:
    text = "".join(pieces)
    lo, hi = min(lo, len(text)), min(max(lo, hi), len(text))
    want = [m.span() for m in _REFERENCE[syntax].finditer(text, lo, hi)]
    assert [m.span() for m in _BOUNDARY[syntax].finditer(text, lo, hi)] == want
    first = _REFERENCE[syntax].search(text, lo, hi)
    got = _BOUNDARY[syntax].search(text, lo, hi)
    assert (got.span() if got else None) == (first.span() if first else None)
