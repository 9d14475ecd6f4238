"""Documents built to make reconcile's readers slow: each is judged in a subprocess, which must
finish within 10 times the CPU time an ordinary document of its size and syntax takes there (at
least 5 s: a ratio, so a slow machine does not fail it, and CPU time, so a busy one does not)
and give a sane report.

`labledger reconcile` runs in pre-commit hooks, where a document that makes it take minutes is a
hook that hangs. Each case below once did: a regex tried from every character of a long line
(``+-+-+-``, ``<a<a<a``, ``](](](``, ``[^[^[^``, a run of word characters before a ``:``), a walk
over the lines above or below every line asked about (a log's every line, pipe rows, ``=====``
rules in prose), and work per number over every anchor or marker of its unit (a log line of
thousands of ``key: value`` pairs, a heading of thousands of anchors over the lines under it,
a table with a marker in every row). The others are shapes the readers must also take in their
stride (unclosed and nested HTML tables, a 300-column grid table, a 10,000-item list-table, a
classification report of 50,000 rows).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import pytest

KB = 1024
KNOWN_FINDINGS = {"drift", "ambiguous", "unit", "unknown_claim", "marker"}

# Judged in a child process: one that hangs is killed at the bound instead of hanging the suite.
_CHILD = r"""
import json, sys, time
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments

def claim(cid, metric, value, aliases, run="r1"):
    return Claim(id=cid, run=run, metric=metric, value=value, direction="higher",
                 source_digest="blake3:" + cid.encode().hex().ljust(64, "0")[:64],
                 event_id="event-" + cid, declared_at="2025-01-01T00:00:00.000000Z",
                 aliases=aliases)

claims = [claim("C1", "psnr", 31.42, ("PSNR", "Ours")),
          claim("C0", "psnr", 30.10, ("Baseline",), run="r0"),
          claim("A1", "accuracy", 0.9134, ("acc", "val_accuracy")),
          claim("S5", "set5_psnr", 38.07, ("Set5",))]
name, path = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    data = f.read()
# CPU time, not wall time: other work on a shared machine (a parallel test run) slowed the
# pathological document measured later, not the reference measured first, past the bound
start = time.process_time()
report = reconcile_segments(read_document(name, data), claims, jobs=1)
print(json.dumps({"seconds": time.process_time() - start,
                  "findings": sorted({f.type for f in report.findings}),
                  "matches": len(report.matches)}))
"""


def _fill(unit: str, size: int) -> str:
    return unit * (size // len(unit) + 1)


def _ordinary(size: int) -> str:
    return _fill("Ours reaches a PSNR of 31.42 dB on the test set, while Baseline gets 30.10 dB. "
                 "We trained for 40 epochs with a batch size of 16 and the acc was 0.9134.\n\n",
                 size)


def _grid(size: int) -> str:
    border = "+" + "-----+" * 300 + "\n"
    return ("PSNR of Ours\n\n" + border + "|" + "PSNR |" * 300 + "\n" + "+" + "=====+" * 300
            + "\n" + ("|" + "31.42|" * 300 + "\n" + border) * max(2, size // (2 * len(border))))


def _report(rows: int) -> str:
    return ("              precision    recall  f1-score   support\n\n"
            + "         acc       0.91      0.92      0.93        10\n" * rows)


# name -> (file suffix, size, builder of the text from the size)
CASES: dict[str, tuple[str, int, Callable[[int], str]]] = {
    # a long "+-+-+-" line: a grid table's top border tried from every "+"
    "plus-minus line (rst)": (".rst", 256 * KB, lambda n: "PSNR 31.4\n\n+" + _fill("-+", n)
                              + " x\n"),
    # "=====  =====" rules in prose, none closing a table: each walked 5,000 lines down
    "rules in prose (rst)": (".rst", 256 * KB,
                             lambda n: _fill("Ours PSNR 31.42.\n\n=====  =====\n", n)),
    # runs of "a:" in anchored sentences: a role's pattern tried from every colon of a run
    "a:a:a: runs in sentences (rst)": (".rst", 256 * KB, lambda n: _fill(
        "Ours PSNR 31.42 " + "a:" * 1900 + "\n\n", n)),
    "== == == line (rst)": (".rst", 256 * KB, lambda n: "PSNR 31.4\n" + _fill("== ", n) + "x\n"),
    # "<", "](" and "[^" never closed, on one list item a heading names (a unit of any length)
    "<a<a<a under a heading (md)": (".md", 256 * KB,
                                    lambda n: "# PSNR\n- Ours 31.42 " + _fill("<a", n) + "\n"),
    "](](]( under a heading (md)": (".md", 256 * KB,
                                    lambda n: "# PSNR\n- Ours 31.42 " + _fill("](", n) + "\n"),
    "[^[^[^ under a heading (md)": (".md", 256 * KB,
                                    lambda n: "# PSNR\n- Ours 31.42 " + _fill("[^", n) + "\n"),
    "unclosed comments (md)": (".md", 256 * KB,
                               lambda n: "# PSNR\n- Ours 31.42 " + _fill("<!--", n) + "\n"),
    # a 1 MB-like line of "key: value" pairs in a log: every number tried every anchor
    "a: 1 b: 2 line in a log (txt)": (".txt", 256 * KB, lambda n: "x 1\ny 2\n"
                                      + _fill("a: 1 b: 2 PSNR: 31.42 acc: 0.9134 ", n) + "\n"),
    "a: 1 b: 2 line (md)": (".md", 256 * KB, lambda n: _fill("a: 1 b: 2 PSNR: 31.42 ", n) + "\n"),
    "anchors with digits on a log line (txt)": (".txt", 256 * KB, lambda n: "a 1\nb 2\n"
                                                + _fill("Set5 ", n) + "\nc 3\n"),
    # a run of word characters before ": =": a key tried from each of its letters
    "long words before a colon (md)": (".md", 256 * KB, lambda n: _fill(
        "PSNR 31.42 " + "abcdefghij" * 300 + ": = ", n)),
    "many headings with list items (md)": (".md", 256 * KB, lambda n: _fill(
        "# Ours PSNR\n- a: 31.42\n- b: 30.1\n## Baseline\n- PSNR: 30.10\n", n)),
    "a heading of thousands of anchors (md)": (".md", 256 * KB, lambda n: "# "
                                               + _fill("PSNR ", n // 2) + "\n"
                                               + _fill("- x: 1.5\n", n // 2)),
    # a log of a record a line: each line walked back over the 64,000 characters above it
    "a log of short lines (txt)": (".txt", 768 * KB,
                                   lambda n: _fill("epoch 3 PSNR 31.42 acc 0.9134 loss 0.1\n", n)),
    "a log with headings (txt)": (".txt", 256 * KB, lambda n: _fill(
        "Validation Set5\n # psnr: 38.07 Best: 38.07 @ 5 iter\n", n)),
    # pipe rows with no rule line under the first: no table, each walked back to the first
    "pipe rows that are no table (md)": (".md", 256 * KB,
                                         lambda n: _fill("| Ours PSNR 31.42 |\n", n)),
    "a marker in every row (md)": (".md", 256 * KB, lambda n: "| Method | PSNR |\n|---|---|\n"
                                   + _fill("| Ours | <!-- claim:C1 -->31.42 |\n", n)),
    "tens of thousands of <td> without </table> (md)": (".md", 256 * KB, lambda n: "<table>\n"
                                                        + _fill("<tr><td>Ours</td><td>31.42</td>",
                                                                n)),
    # a heading over each of thousands of tables, all naming one claim: each table asks the
    # other headings once per claim, not once per heading
    "thousands of headed tables (md)": (".md", 256 * KB, lambda n: _fill(
        "## Ours on Set5\n\n| Method | PSNR |\n|---|---|\n| Ours | 31.42 |\n\n", n)),
    # each row's cell spans 999 rows, so each row starts a column further right: a grid of
    # half a million places out of 110 KB (refused: read as prose)
    "999 cells of rowspan 999 (md)": (".md", 110 * KB, lambda n: "<table>\n" + "".join(
        f'<tr><td rowspan="999">Ours PSNR {k}</td><td>31.42 dB on Set5, from scratch, '
        f"seed {k}, batch size 16</td></tr>\n" for k in range(999)) + "</table>\n"),
    "nested tables (md)": (".md", 256 * KB, lambda n: "Ours PSNR 31.42\n"
                           + "<table><tr><td>" * (n // 33) + "PSNR 31.42"
                           + "</td></tr></table>" * (n // 33)),
    "a list-table of 10,000 items (rst)": (".rst", 256 * KB, lambda n: (
        ".. list-table::\n   :header-rows: 1\n\n   * - Method\n     - PSNR\n"
        + "   * - Ours\n     - 31.42\n" * 10000)),
    "a grid table 300 columns wide (rst)": (".rst", 256 * KB, _grid),
    "a report header over 50,000 rows (txt)": (".txt", 50000 * 55, lambda n: _report(50000)),
    # fenced blocks (`fenced`): thousands of output and code blocks under a heading, a caption
    # over each; one printed block of a line per record; list items nested hundreds deep
    "thousands of fenced blocks (md)": (".md", 256 * KB, lambda n: "# Ours\n" + _fill(
        "Results on Set5:\n```\nPSNR: 31.42\nacc 0.9134\n```\n```python\nlr = 0.1  # PSNR\n```\n"
        "```bash\npython train.py --psnr 31.42 \\\n  --acc 0.9\n```\n", n)),
    "a printed block of short lines (md)": (".md", 256 * KB, lambda n: "## Ours\n```\n"
                                            + _fill("epoch 3 PSNR 31.42 acc 0.9134\n", n)
                                            + "```\n"),
    "list items nested deep (md)": (".md", 256 * KB, lambda n: "".join(
        "  " * k + "- Ours PSNR\n" + "  " * k + "  - acc: 0.9134\n" for k in range(min(400, n)))
        + _fill("- Ours\n  - PSNR: 31.42\n", n)),
    # decimal-comma evidence: unclosed comments each scanned to the end; siunitx options and
    # babel declarations each walked across the text
    "unclosed comments after a decimal comma (md)": (".md", 100 * KB, lambda n: "31,42 dB "
                                                     + _fill("<!--x", n)),
    "siunitx options never closed (tex)": (".tex", 100 * KB, lambda n: "31,42 dB "
                                           + _fill("\\num[x\n", n)),
    "babel options never closed (tex)": (".tex", 100 * KB, lambda n: "language "
                                         + _fill("\\usepackage[a,", n)),
    # a line of section commands: its comment searched from its start for each; unclosed ones
    # each walked 4,000 characters; tables never ended each searched to the end
    "a line of sections (tex)": (".tex", 100 * KB, lambda n: "Ours PSNR 31.42.\n"
                                 + _fill("\\section{Test results}", n)),
    "unclosed sections (tex)": (".tex", 100 * KB, lambda n: "Ours PSNR 31.42.\n"
                                + _fill("\\section{", n)),
    "tables never ended (tex)": (".tex", 100 * KB, lambda n: "Ours PSNR 31.42.\n"
                                 + _fill("\\begin{table}", n)),
    # a model card of a thousand results: each entry's context rebuilt over every result line
    "a model-index of 1,000 results (md)": (".md", 100 * KB, lambda n: "---\nmodel-index:\n"
                                          "- name: Ours\n  results:\n" + "".join(
        f"  - task: {{type: x}}\n    dataset:\n      name: D{i}\n    metrics:\n"
        f"    - type: psnr\n      value: {30 + i % 3}.42\n" for i in range(1040))
        + "---\n\nOurs PSNR 31.42.\n"),
}

_REFERENCE: dict[tuple[str, int], float] = {}


def _judge(tmp: str, suffix: str, text: str, timeout: float) -> dict[str, object] | None:
    """The child's report, or None when it ran past ``timeout`` seconds."""
    path = f"{tmp}/doc{suffix}"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, "doc" + suffix, path],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    assert proc.returncode == 0, proc.stderr
    got: dict[str, object] = json.loads(proc.stdout)
    return got


@pytest.mark.parametrize("case", list(CASES))
def test_a_pathological_document_is_judged_about_as_fast_as_an_ordinary_one(
        case: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    suffix, size, build = CASES[case]
    tmp = str(tmp_path_factory.mktemp("doc"))
    key = (suffix, size)
    if key not in _REFERENCE:
        ordinary = _judge(tmp, suffix, _ordinary(size), 120)
        assert ordinary is not None
        assert ordinary["matches"], ordinary
        assert isinstance(ordinary["seconds"], float)
        _REFERENCE[key] = ordinary["seconds"]
    bound = max(10 * _REFERENCE[key], 5.0)
    text = build(size)
    assert len(text) >= 100 * KB
    # (the child's start-up, imports included, is not judging: given on top of the bound)
    got = _judge(tmp, suffix, text, bound + 10)
    assert got is not None, f"{case}: still judging after {bound + 10:.1f} s"
    assert isinstance(got["seconds"], float)
    assert got["seconds"] <= bound, (
        f"{case}: {got['seconds']:.2f} s, over 10x an ordinary document's "
        f"{_REFERENCE[key]:.2f} s")
    assert isinstance(got["findings"], list)
    assert set(got["findings"]) <= KNOWN_FINDINGS, got["findings"]
