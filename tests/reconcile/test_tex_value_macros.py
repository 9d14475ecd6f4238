"""A LaTeX macro printing a number is read where it is used (`tex_values`).

A script writes ``results.tex`` (``\\newcommand{\\psnrOurs}{31.52}``) and the paper writes
``FooNet reaches \\psnrOurs{}\\,dB PSNR`` and ``FooNet & \\psnrOurs \\\\``. Before, a use was no
number and the definition named no claim: a ``results.tex`` generated from an older run
passed. Now each use reads as its macro's number, judged by the words and the table around
it, and a finding says which macro prints it and where it is defined.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.tex_values import MacroValues, macro_values
from tests.reconcile.test_documents import claim
from tests.reconcile.test_tex_macro_anchors import CLAIMS, found, matched, run

ACC = claim("A1", "top1", 0.9134, aliases=("FooNet top-1 accuracy", "top-1 accuracy"))
RESULTS = ("\\newcommand{\\psnrOurs}{31.52}\n"
           "\\newcommand{\\psnrBicubic}{30.10}\n"
           "\\newcommand{\\accOurs}{\\textbf{91.3}\\%}\n")
PAPER = ("FooNet reaches \\psnrOurs{}\\,dB PSNR, and Bicubic \\psnrBicubic~dB.\n\n"
         "\\begin{tabular}{lc}\nMethod & PSNR \\\\\nFooNet & \\psnrOurs \\\\\n"
         "Bicubic & \\psnrBicubic \\\\\n\\end{tabular}\n\n"
         "Its top-1 accuracy is \\accOurs.\n")


def test_a_drifted_value_macro_is_reported_at_each_use_with_its_definition() -> None:
    report = run({"results.tex": RESULTS, "main.tex": PAPER}, [*CLAIMS, ACC])
    assert found(report) == [("main.tex", "drift", ("F1",), "31.52"),
                             ("main.tex", "drift", ("F1",), "31.52")]
    assert [(f.line, f.col) for f in report.findings] == [(1, 22), (5, 14)]
    for finding in report.findings:
        assert finding.message.startswith("F1 says 31.52, evidence says 31.42 dB (run r1")
        assert finding.message.endswith("; \\psnrOurs prints it, defined at results.tex:1)")
    assert sorted(matched(report)) == [("main.tex", ("A1",), "91.3%"),
                                       ("main.tex", ("B0",), "30.10"),
                                       ("main.tex", ("B0",), "30.10")]


def test_value_macros_matching_the_ledger_pass() -> None:
    results = RESULTS.replace("31.52", "31.42")
    report = run({"results.tex": results, "main.tex": PAPER}, [*CLAIMS, ACC])
    assert found(report) == []
    assert sorted(matched(report)) == [
        ("main.tex", ("A1",), "91.3%"), ("main.tex", ("B0",), "30.10"),
        ("main.tex", ("B0",), "30.10"), ("main.tex", ("F1",), "31.42"),
        ("main.tex", ("F1",), "31.42")]


@pytest.mark.parametrize(("results", "why"), [
    ("\\newcommand{\\psnrOurs}{31.52} % claim:F1\n", "bound by its comment: a marker"),
    ("\\newcommand{\\psnrOurs}{31.52}\n\\claimbind{F1}{\\psnrOurs}\n", "bound: a marker"),
])
def test_a_bound_value_macro_is_one_marker_finding_not_one_per_use(results: str,
                                                                     why: str) -> None:
    report = run({"results.tex": results, "main.tex": PAPER})
    assert [(f.path, f.type, f.claims, f.via) for f in report.findings] == [
        ("results.tex", "drift", ("F1",), "macro")], why


@pytest.mark.parametrize(("results", "paper"), [
    # defined twice, differently: which one LaTeX uses depends on the \input order
    ("\\newcommand{\\psnrOurs}{31.52}\n\\renewcommand{\\psnrOurs}{31.62}\n", PAPER),
    ("\\newcommand{\\psnrOurs}[1]{31.52#1}\n", PAPER),  # takes an argument
    ("\\newcommand{\\psnrOurs}{31.52 or so}\n", PAPER),  # prints more than a number
    ("\\newcommand{\\psnrOurs}{\\mathbb{31.52}}\n", PAPER),  # a command it cannot print
    ("% \\newcommand{\\psnrOurs}{31.52}\n", PAPER),  # a comment defines nothing
    ("\\newcommand{\\fid}{31.52}\n", "FooNet reaches \\fid\\,dB PSNR.\n"),  # no room: unread
    ("\\newcommand{\\psnrOurs}{31.52}\n",
     "\\begin{verbatim}\nFooNet reaches \\psnrOurs{} dB PSNR.\n\\end{verbatim}\n"),
    ("\\newcommand{\\psnrOurs}{31.52}\n", "FooNet's PSNR:\\\\psnrOurs is a macro.\n"),
])
def test_a_macro_that_prints_no_one_number_is_not_read(results: str, paper: str) -> None:
    report = run({"results.tex": results, "main.tex": paper})
    assert [f for f in report.findings if f.path == "main.tex"] == []


def test_a_use_with_its_braces_has_room_for_the_number() -> None:
    report = run({"results.tex": "\\newcommand{\\fid}{31.52}\n",
                  "main.tex": "FooNet reaches \\fid{}\\,dB PSNR.\n"})
    assert found(report) == [("main.tex", "drift", ("F1",), "31.52")]


def test_a_macro_printing_a_value_macro_prints_its_number() -> None:
    report = run({"results.tex": RESULTS + "\\newcommand{\\bestpsnr}{\\psnrOurs}\n",
                  "main.tex": "FooNet reaches \\bestpsnr{} dB PSNR.\n"})
    assert found(report) == [("main.tex", "drift", ("F1",), "31.52")]
    assert report.findings[0].message.endswith("\\bestpsnr prints it, defined at results.tex:4)")


def test_a_name_macro_stays_an_anchor_beside_value_macros() -> None:
    results = RESULTS + "\\newcommand{\\method}{FooNet\\xspace}\n"
    report = run({"results.tex": results,
                  "main.tex": "\\method{} reaches \\psnrOurs{}\\,dB PSNR.\n"})
    assert found(report) == [("main.tex", "drift", ("F1",), "31.52")]


def test_editing_only_the_definition_is_never_judged_from_a_stale_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    clean = run({"results.tex": RESULTS.replace("31.52", "31.42"), "main.tex": PAPER},
                cache=cache)
    assert found(clean) == []
    assert found(run({"results.tex": RESULTS.replace("31.52", "31.42"), "main.tex": PAPER},
                     cache=cache)) == []  # (the cached judgement)
    drifted = run({"results.tex": RESULTS, "main.tex": PAPER}, cache=cache)
    assert [f.shown for f in drifted.findings] == ["31.52", "31.52"]


def test_macro_values_reads_the_forms_a_script_writes() -> None:
    text = ("\\newcommand{\\a}{31.42}\n\\def\\b{-0.5}\n\\providecommand{\\c}{$1,234$}\n"
            "\\newcommand*{\\d}{\\num{0.912}}\n\\DeclareRobustCommand{\\e}{{\\bf 7.5}\\%}\n"
            "\\NewDocumentCommand{\\f}{}{1e-3}\n\\newcommand{\\g}{v1.2}\n"
            "\\newcommand{\\h}{12.3 dB}\n\\newcommand{\\i}{}\n")
    values = macro_values(read_document("r.tex", text.encode()))
    assert {name: number for name, (number, _) in values.items()} == {
        "a": "31.42", "b": "-0.5", "c": "1,234", "d": "0.912", "e": "7.5\\%", "f": "1e-3"}
    assert values["c"][1] == "r.tex:3"


@settings(max_examples=150, deadline=None)
@given(number=st.from_regex(r"-?[0-9]{1,4}(\.[0-9]{1,4})?%?", fullmatch=True),
       name=st.from_regex(r"[A-Za-z]{1,12}", fullmatch=True),
       before=st.text(alphabet="ab \n{}$\\~%&", max_size=20),
       after=st.sampled_from(["", "{}", "{} dB", "\\,dB", "~dB", "\\%", "}", "\n"]))
def test_a_use_keeps_every_offset_and_shows_its_number_or_nothing(
        number: str, name: str, before: str, after: str) -> None:
    source = number.replace("%", "\\%")
    values = {name: (source, "r.tex:1")}
    text = f"{before}\\{name}{after} and \\{name}"
    seg = read_document("p.tex", text.encode())[0]
    macros = MacroValues(values)
    out = macros.shown(seg).text
    assert len(out) == len(text)
    assert out.count("\n") == text.count("\n")
    for start, end, used in macros.uses:
        assert used == name
        assert out[start:end].lstrip(" ") == source  # right-aligned in the use's place
        assert text[start] == "\\"
    changed = [i for i, (a, b) in enumerate(zip(text, out, strict=True)) if a != b]
    assert all(any(s <= i < e for s, e, _ in macros.uses) for i in changed)
    if len(source) <= len(name) + 1 and "\\\\" not in text and "verbatim" not in text:
        assert macros.uses  # room for it: the last use at least is read


@pytest.mark.parametrize("use", [
    "FooNet reaches \\SI{\\psnrOurs}{\\decibel} PSNR.\n",  # siunitx around the use
    "FooNet reaches \\num{\\psnrOurs}\\,dB PSNR.\n",
    "FooNet reaches $\\psnrOurs$\\,dB PSNR.\n",
    "FooNet reaches \\textbf{\\psnrOurs}\\,dB PSNR.\n",
    "\\begin{tabular}{lc}\nMethod & PSNR \\\\\nFooNet & $\\mathbf{\\psnrOurs}$ \\\\\n"
    "\\end{tabular}\n",
])
def test_a_use_inside_formatting_is_read(use: str) -> None:
    report = run({"results.tex": RESULTS, "main.tex": use})
    assert found(report) == [("main.tex", "drift", ("F1",), "31.52")]
