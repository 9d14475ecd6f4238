"""A method (or metric) named through a LaTeX macro anchors its claims (`tex_macros`).

``\\newcommand{\\method}{FooNet\\xspace}`` in ``macros.tex`` and ``\\method{} reaches 31.42 dB`` in
``sections/results.tex``: before, the number next to ``\\method`` was never checked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.anchors import AnchorIndex
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim, judge

CLAIMS = [claim("F1", "psnr", 31.42, unit="dB", aliases=("FooNet",)),
          claim("B0", "psnr", 30.10, unit="dB", aliases=("Bicubic",), run="r0")]


def run(files: dict[str, str], claims: list[Claim] = CLAIMS, cache: Path | None = None) -> Report:
    segments = [s for path, text in files.items() for s in read_document(path, text.encode())]
    return reconcile_segments(segments, claims, jobs=1, cache=cache)


def found(report: Report) -> list[tuple[str, str, tuple[str, ...], str | None]]:
    return [(f.path, f.type, f.claims, f.shown) for f in report.findings]


def matched(report: Report) -> list[tuple[str, tuple[str, ...], str]]:
    return [(m.path, m.claims, m.shown) for m in report.matches]


MACROS = "\\newcommand{\\method}{FooNet\\xspace}\n"


def test_a_macro_defined_in_one_file_anchors_its_uses_in_another() -> None:
    right = run({"macros.tex": MACROS,
                 "results.tex": "\\method{} reaches 31.42 dB PSNR on Set5.\n"})
    assert found(right) == []
    assert matched(right) == [("results.tex", ("F1",), "31.42")]
    moved = run({"macros.tex": MACROS,
                 "results.tex": "\\method{} reaches 31.5 dB PSNR on Set5.\n"})
    assert found(moved) == [("results.tex", "drift", ("F1",), "31.5")]


def test_every_use_form_and_every_definition_form_anchors() -> None:
    uses = ["\\method{} reaches 31.5 dB PSNR.", "\\method reaches 31.5 dB PSNR.",
            "\\method\\ reaches 31.5 dB PSNR."]
    defs = ["\\newcommand{\\method}{FooNet\\xspace}", "\\newcommand*{\\method}{\\textsc{FooNet}}",
            "\\renewcommand{\\method}{\\textbf{FooNet}}", "\\providecommand{\\method}{FooNet}",
            "\\def\\method{FooNet}", "\\DeclareRobustCommand{\\method}{\\mbox{FooNet}\\xspace}",
            "\\NewDocumentCommand{\\method}{}{\\emph{Foo}Net}",
            "\\newcommand\\method{{\\sc FooNet}}"]
    for d in defs:
        for u in uses:
            report = run({"main.tex": d + "\n\n" + u + "\n"})
            assert found(report) == [("main.tex", "drift", ("F1",), "31.5")], (d, u)


def test_a_macro_in_a_table_row_label_anchors_the_row() -> None:
    table = ("\\begin{tabular}{lc}\n\\toprule\nMethod & PSNR \\\\\n\\midrule\n"
             "Bicubic & 30.10 \\\\\n\\method & VALUE \\\\\n\\bottomrule\n\\end{tabular}\n")
    # a third claim on PSNR that the table does not show: the column alone names two unmatched
    claims = [*CLAIMS, claim("X1", "psnr", 29.5, unit="dB", aliases=("BarNet",), run="r2")]
    assert found(run({"m.tex": MACROS, "t.tex": table.replace("VALUE", "31.42")}, claims)) == []
    assert found(run({"m.tex": MACROS, "t.tex": table.replace("VALUE", "31.50")}, claims)) == [
        ("t.tex", "drift", ("F1",), "31.50")]


def test_a_macro_printing_a_macro_anchors_within_the_depth() -> None:
    files = {"m.tex": "\\newcommand{\\name}{FooNet}\n\\newcommand{\\method}{\\name\\xspace}\n",
             "r.tex": "\\method{} reaches 31.5 dB PSNR.\n"}
    assert found(run(files)) == [("r.tex", "drift", ("F1",), "31.5")]
    cycle = {"m.tex": "\\def\\a{\\b}\n\\def\\b{\\a}\n", "r.tex": "\\a{} reaches 31.5 dB PSNR.\n"}
    assert found(run(cycle)) == found(run({"r.tex": cycle["r.tex"]}))


def test_what_is_not_read_anchors_nothing() -> None:
    """Arguments, a comment, verbatim, a bound marker macro, differing definitions, an unknown
    command inside: each leaves the number unchecked exactly as before (no new finding)."""
    use = "\\method{} reaches 31.5 dB on Set5.\n"
    for defs in ["\\newcommand{\\method}[1]{FooNet#1}", "% \\newcommand{\\method}{FooNet}",
                 "\\begin{verbatim}\n\\newcommand{\\method}{FooNet}\n\\end{verbatim}",
                 "\\newcommand{\\method}{FooNet}\n\\renewcommand{\\method}{BarNet}",
                 "\\newcommand{\\method}{FooNet\\textsuperscript{+}}",
                 "\\newcommand{\\method}{31.42}\n\\claimbind{F1}{\\method}"]:
        report = run({"m.tex": defs + "\n", "r.tex": use})
        assert [f for f in found(report) if f[0] == "r.tex"] == [], defs


def test_the_bare_name_is_never_a_word_anchor() -> None:
    for path, text in [("r.md", "Our method reaches 31.5 dB PSNR on Set5.\n"),
                       ("r.tex", "Our method reaches 31.5 dB PSNR on Set5.\n")]:
        with_macro = run({"m.tex": MACROS, path: text})
        assert found(with_macro) == found(run({path: text}))
        assert matched(with_macro) == matched(run({path: text}))


def test_a_changed_definition_never_leaves_a_stale_cached_result(tmp_path: Path) -> None:
    results = "\\method{} reaches 31.5 dB on Set5.\n"
    cache = tmp_path / "cache"
    first = run({"m.tex": "\\newcommand{\\method}{BarNet}\n", "r.tex": results}, cache=cache)
    assert found(first) == []
    files = {"m.tex": MACROS, "r.tex": results}
    assert found(run(files, cache=cache)) == found(run(files)) == [
        ("r.tex", "drift", ("F1",), "31.5")]


def test_many_macros_and_many_uses_stay_linear() -> None:
    claims = [claim(f"M{i}", "psnr", 30 + i / 100, unit="dB", aliases=(f"Model{i:03d}",))
              for i in range(200)]
    defs = "".join(f"\\newcommand{{\\mod{chr(97 + i // 26)}{chr(97 + i % 26)}}}{{Model{i:03d}}}\n"
                   for i in range(200))
    rows = "".join(f"\\mod{chr(97 + i // 26)}{chr(97 + i % 26)} & {30 + i / 100:.2f} \\\\\n"
                   for i in range(200)) * 10
    report = run({"m.tex": defs, "t.tex": "\\begin{tabular}{lc}\nModel & PSNR \\\\\n" + rows
                  + "\\end{tabular}\n"}, claims)
    assert found(report) == []
    assert len(report.matches) == 2000


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["\\newcommand{\\method}{", "\\def\\method", "FooNet", "}", "{",
                                 "\\method", "\\method{}", "%", "\n", "\\xspace", " 31.42 ",
                                 "\\begin{verbatim}", "\\end{verbatim}", "\\\\", "[1]", "#1",
                                 "\\NewDocumentCommand{\\method}{", "\\", " PSNR "]),
                max_size=30),
       # (a NUL makes it no text at all: refused as a DocumentError, test_cli_inputs_round_main)
       st.text(st.characters(exclude_characters="\0", exclude_categories=("Cs",)), max_size=20))
def test_damaged_latex_never_raises_and_hits_point_at_the_macro(parts: list[str],
                                                                noise: str) -> None:
    from labledger.reconcile.tex_macros import MacroAnchors, macro_texts
    text = "".join(parts) + noise
    segments = read_document("p.tex", text.encode())
    texts = macro_texts(segments)
    index = AnchorIndex(CLAIMS)
    anchors = MacroAnchors(texts, index.claims_of)
    for seg in segments:
        for hit in anchors.uses(seg):
            assert seg.text[hit.start - 1] == "\\"
            assert re.fullmatch(r"[A-Za-z@]+", seg.text[hit.start:hit.end])
            assert texts[seg.text[hit.start:hit.end]] == hit.term
    reconcile_segments(segments, CLAIMS, jobs=1)


@pytest.mark.parametrize("define", ["\\newcommand", "\\renewcommand", "\\providecommand",
                                    "\\newcommand*", "\\def"])
def test_a_number_macro_bound_by_a_comment_is_a_marker_whatever_defines_it(define: str) -> None:
    """`\\providecommand{\\psnrours}{31.5} % claim:C1` was never read as a marker (the pattern
    spelt it "providenewcommand"): its drift went unseen."""
    name = "\\psnrours" if define == "\\def" else "{\\psnrours}"
    text = f"{define}{name}{{31.5}} % claim:C1\nWe get \\psnrours{{}} dB.\n"
    report = judge(text, [claim("C1", "psnr", 31.42, unit="dB")], "paper.tex")
    assert [(f.type, f.claims, f.shown) for f in report.findings] == [("drift", ("C1",), "31.5")]
