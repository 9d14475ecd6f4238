"""The fast paths of reconcile's whole-text searches find what the plain searches they replace
find (benchmarks/bench_reconcile.py: each was a few percent of a cold run over a 10 MB tree).

* `doc_markers._tex_places`: two patterns, one per first character, merged, instead of one
  pattern starting with ``[\\%]`` (which the regex engine tries at every place of a text).
* the checks whether a text may hold something at all (an HTML table, a dict report, a fence,
  a reST literal block, siunitx): a regex from a rare first character, or a search for one
  character first, instead of several ``in`` tests.
* `numbers._tokens`: the number tokens of a text found from the characters one can start
  with (a sign, a digit, a point), instead of the number pattern tried at every place.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from labledger.reconcile import dict_reports, doc_markers, doc_readers, fenced, html_tables, numbers

# the characters and words the patterns are made of, and a little else: texts dense in near
# misses, overlaps and matches
_TEX_PIECES = ["\\", "%", " ", "\t", "\n", "{", "}", "claim", "ledger", "delta", "ref", "no",
               "noclaim", "new", "renew", "provide", "command", "def", "x", "b", "\\\\"]
_tex_texts = st.lists(st.sampled_from(_TEX_PIECES), max_size=40).map("".join)


@settings(max_examples=400)
@given(_tex_texts)
@example("%def\\def\\claim{C1}{31.4}")  # a match of one ends where one of the other starts
@example("%def \\claim{C1}{31.4} % noclaim \\noclaim")
def test_tex_places_are_the_one_patterns_matches(text: str) -> None:
    one = re.compile(r"[\\%]" + doc_markers._TEX_FIND_TAIL)
    assert [m.span() for m in doc_markers._tex_places(text)] == \
        [m.span() for m in one.finditer(text)]


_TRIGGER_PIECES = ["<", "table", "TABLE", "Table", "'", '"', "precision", "recall", "f1-score",
                   "`", "``", "~", "~~", ":", "\\", "num", "SI", "qty", "si", " ", "\n", "a"]
_trigger_texts = st.lists(st.sampled_from(_TRIGGER_PIECES), max_size=30).map("".join)


@settings(max_examples=400)
@given(_trigger_texts)
def test_whole_text_checks_agree_with_in_tests(text: str) -> None:
    assert (html_tables._TABLE_OPENS.search(text) is not None) == \
        ("<table" in text or "<TABLE" in text or "<Table" in text)
    assert (doc_readers._SIUNITX_NAMES.search(text) is None) == (
        "\\num" not in text and "\\SI" not in text and "\\qty" not in text
        and "\\si" not in text)
    assert (fenced._DOUBLE_COLON.search(text) is None) == ("::" not in text)
    # the fence check and the dict report check, through what they decide
    fences_found = bool(doc_readers._fences(text))
    assert not fences_found or "```" in text or "~~~" in text
    segment = doc_readers.Segment("t.md", "md", text)
    reports = dict_reports._found(segment)[1]
    assert not reports or any(t in text for t in dict_reports._TRIGGERS)


def test_a_report_quoted_either_way_is_still_found() -> None:
    # sklearn's classification_report(output_dict=True), printed (scikit-learn 1.x)
    body = ("{'0': {'precision': 0.95, 'recall': 0.9, 'f1-score': 0.92, 'support': 50}, "
            "'1': {'precision': 0.91, 'recall': 0.96, 'f1-score': 0.93, 'support': 50}}")
    for text in (body, body.replace("'", '"')):
        segment = doc_readers.Segment("r.txt", "txt", text)
        assert dict_reports._found(segment)[1], text


# the characters numbers are written with (signs, separators, points, exponents, Unicode digits
# and minus, LaTeX's thin space and times), and words they are glued to
_NUMBER_PIECES = ["0", "1", "12", "345", "6789", ".", ",", "{,}", "\\,", "~", " ", "\u2009",
                  "\u00a0", "+", "-", "\u2212", "e", "E", "x", "\\times", "\u00d7", "10^",
                  "{", "}", "\u0663", "\u00b2", "%", "a", "_", "/", ":", "\n"]
_number_texts = st.lists(st.sampled_from(_NUMBER_PIECES), max_size=40).map("".join)


@settings(max_examples=600)
@given(_number_texts, st.integers(0, 60), st.integers(0, 60))
@example(".5 -.5 +1,234.5e-3", 0, 60)  # a bare fraction's point, signs, an exponent
@example("1 234,5 x \u22123{,}2", 0, 60)  # a decimal comma's thousands and minus
@example("12.34", 1, 4)  # a range cutting numbers at both ends
def test_number_tokens_are_finditers(text: str, start: int, end: int) -> None:
    end = min(end, len(text))
    for pattern in (numbers._NUMBER, numbers._NUMBER_COMMA):
        assert [m.span() for m in numbers._tokens(pattern, text, start, end)] == \
            [m.span() for m in pattern.finditer(text, start, end)]
