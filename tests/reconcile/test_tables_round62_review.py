"""Review of round 62's table reading (a change's arrow, a range's tilde, an interval's words).

* the emoji arrow READMEs and CLI output write most, ➡ (U+27A1, with or without its emoji
  variation selector: "➡️"), between a value before and after a change (opentensor's btcli
  docs print a stake moving "11.2528 ኤ ➡ 0.0000 ኤ", a Korean web-performance note heads its
  section "LCP 차이 (3.18s ➡ 0.52s)"), was no arrow of round 62's: the cell was still read as
  its first number, where the change started (a right result drifted against it);
* near misses that held before the round and must keep their reading: a tilde meaning
  "about" before a cell's number ("~31.42") or LaTeX's tie before its unit ("31.42~dB"), a
  word in parentheses after a value ("31.42 (ours)", a label), a bare spread in parentheses
  ("0.912 (0.004)", the value).
"""

from __future__ import annotations

from functools import partial

import pytest

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim

claim = partial(documents_claim, run="ours")

ACC = [claim("A", "accuracy", 77.3, unit="%", aliases=("Ours",))]


def run(path: str, text: str, claims: list) -> Report:
    return reconcile_segments(read_document(path, text.encode()), claims)


def _read(report: Report) -> tuple[list[tuple[str, tuple[str, ...], str]], list[tuple[str, ...]]]:
    return ([(f.type, f.claims, f.shown) for f in report.findings],
            sorted(m.claims for m in report.matches))


def _ablation(path: str, cell: str) -> str:
    if path == "a.md":
        return f"| Variant | Top-1 Acc |\n|---|---|\n| Ours | {cell} |\n"
    return ("\\begin{tabular}{lc}\n\\toprule\nVariant & Top-1 Acc \\\\\n\\midrule\n"
            f"Ours & {cell} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


@pytest.mark.parametrize("form", ["{a} ➡ {b}", "{a} ➡\ufe0f {b}", "{a}➡️{b}"])
@pytest.mark.parametrize("path", ["a.md", "a.tex"])
@pytest.mark.parametrize(("after", "drifts"), [("77.3", False), ("77.9", True)])
def test_the_emoji_right_arrow_is_a_changes_arrow(form: str, path: str, after: str,
                                                   drifts: bool) -> None:
    findings, matched = _read(run(path, _ablation(path, form.format(a="76.1", b=after)), ACC))
    assert findings == ([("drift", ("A",), after)] if drifts else [])
    assert matched == ([] if drifts else [("A",)])
