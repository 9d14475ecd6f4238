"""The anchor index finds exactly the whole-word, leftmost-longest anchors a plain reading does.

The index compiles every term into one trie regex (subtrees shared, built once per distinct set
of suffixes) and scans ASCII text as bytes; both are speed-ups, so both are held here against a
reference that tries each term on its own at each word start of the folded text.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.anchors import (
    _FOLD,
    AnchorIndex,
    Hit,
    _carried_on,
    _trie_pattern,
    normalize,
)
from labledger.reconcile.claim_model import Claim


def _claim(i: int, metric: str, aliases: tuple[str, ...]) -> Claim:
    return Claim(id=f"C{i}", run="r1", metric=metric, value=1.0, direction="higher",
                 source_digest="blake3:" + "0" * 64, event_id=f"e{i}", declared_at="t",
                 aliases=aliases)


def _reference(terms: list[str], text: str) -> list[tuple[int, int, str]]:
    """Leftmost-longest whole-word matches, one term at a time (words apart by any spaces), but
    never a term whose number the text carries on into a longer name (the module's rule)."""
    low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    folded = " " + low.translate(_FOLD)
    singles = [(t, re.compile(" " + " +".join(map(re.escape, t.split(" "))) + r"(?= |\Z)"))
               for t in terms]
    def longest(i: int, endpos: int) -> tuple[int, str] | None:
        best = None
        for term, regex in singles:
            m = regex.match(folded, i, endpos)
            if m and (best is None or m.end() > best[0]):
                best = (m.end(), term)
        return best

    out = []
    i = 0
    while i < len(folded):
        best = longest(i, len(folded)) if folded[i] == " " else None
        if best is None:
            i += 1
            continue
        end, term = best
        found: tuple[int, str] | None = best
        # a term whose number the text carries on ("top-1" in "top-1.0", "GPT-3" in "GPT-3.5")
        # is no anchor there: the longest term ending before that number is, if any
        while found is not None and found[1][-1].isdigit() \
                and _carried_on(text, i, found[0] - 1):
            cut = found[0] - 1  # in `text`
            while cut > i and (text[cut - 1].isdigit() or text[cut - 1] == "."):
                cut -= 1
            found = longest(i, cut + 1) if cut > i + 1 and folded[cut] == " " else None
        if found is not None:  # offsets in `text`: `folded` has one more char
            out.append((i, found[0] - 1, found[1]))
        i = end
    return out


def _hits(hits: list[Hit]) -> list[tuple[int, int, str]]:
    return [(h.start, h.end, h.term) for h in hits]


# Names made of the pieces real ones are made of: words, digits, separators, a capital, a
# character that lowers to two (İ), non-ASCII letters.
_NAME = st.lists(st.sampled_from(["psnr", "PSNR", "model", "Model", "-", " ", "0", "1", "top",
                                  "map", "@", "50", "é", "İ", "ß", "acc", "_", "."]),
                 min_size=1, max_size=5).map("".join)
_TEXT = st.lists(st.sampled_from(["psnr", "PSNR", "model", "Model-01", "Model 01", " ", "  ",
                                  "-", "0", "1", "top-1", "mAP@50", "map50", "é", "İ", "ß",
                                  "acc", ".", "\n", "31.42", "x", "\u00a0", "\t"]),
                 max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NAME, st.lists(_NAME, max_size=3)), min_size=1, max_size=6), _TEXT)
def test_scan_finds_what_the_reference_finds(names: list[tuple[str, list[str]]],
                                             text: str) -> None:
    claims = [_claim(i, metric, tuple(aliases)) for i, (metric, aliases) in enumerate(names)]
    index = AnchorIndex(claims)
    # (an alias of digits alone names a report's class row, never searched for in text)
    want = _reference(sorted(t for t in index.claims_of if not t.isdigit()), text)
    assert _hits(index.scan(text)) == want
    # the str path (non-ASCII text, or a term that is not ASCII) agrees with the bytes path
    index._bytes_regex = None
    assert _hits(index.scan(text)) == want


@settings(max_examples=300, deadline=None)
@given(st.sets(st.text(alphabet="ab 1é", min_size=1, max_size=6), min_size=1, max_size=12),
       st.text(alphabet="ab 1é", max_size=30))
def test_the_shared_trie_matches_the_plain_alternation(terms: set[str], text: str) -> None:
    terms = {t for t in terms if t.strip() == t and "  " not in t}
    if not terms:
        return
    plain = re.compile(" (?:" + "|".join(
        " +".join(map(re.escape, t.split(" "))) + r"(?= |\Z)"
        for t in sorted(terms, key=lambda t: (-len(t), t))) + ")")
    trie = re.compile(" " + _trie_pattern(terms))
    folded = " " + text
    for i in range(len(folded)):  # the longest term at each place (a set: one per length)
        a, b = trie.match(folded, i), plain.match(folded, i)
        assert (a and a.end()) == (b and b.end()), (terms, folded, i)


def test_the_names_a_method_shares_with_its_metrics_are_built_once() -> None:
    methods = [f"Model-{i:03d}" for i in range(100)]
    metrics = ["PSNR", "SSIM", "LPIPS"]
    claims = [_claim(i * 3 + j, metric, (method, f"{method} {metric}"))
              for i, method in enumerate(methods) for j, metric in enumerate(metrics)]
    index = AnchorIndex(claims)
    assert index.pattern is not None
    assert len(index.pattern) < 400  # 300 names, one class
    text = "Model-042 PSNR is 31.4; model 099 reaches an LPIPS of 0.1 (ssim: 0.9)."
    assert [h.term for h in index.scan(text)] == ["model 042 psnr", "model 099", "lpips",
                                                  "ssim"]
    assert index.claims_of[normalize("Model-042 PSNR")] == {"C126"}
