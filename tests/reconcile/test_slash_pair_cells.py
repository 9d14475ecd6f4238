"""Slash-pair table cells: "31.42/0.9134" under a "PSNR/SSIM" header is two numbers, each judged
against the metric named in the same place of the header's slash list, the row choosing the
method (as image-restoration and super-resolution papers write their tables).

Before: only a cell's first number was read, against every metric of the header, so a drifted
PSNR came out `ambiguous` (P1 or S1) and the SSIM half was never checked.
"""

from __future__ import annotations

from decimal import Decimal
from functools import partial

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.findings import Report
from tests.reconcile.test_documents import claim as documents_claim
from tests.reconcile.test_papers_review_1 import Case, assert_case

claim = partial(documents_claim, run="ours")

CLAIMS = [
    claim("P1", "psnr", 31.42, unit="dB", aliases=("Ours",)),
    claim("P0", "psnr", 30.10, unit="dB", aliases=("Baseline",), run="base"),
    claim("S1", "ssim", 0.9134, aliases=("Ours",)),
    claim("S0", "ssim", 0.8876, aliases=("Baseline",), run="base"),
    claim("L1", "lpips", 0.123, aliases=("Ours",)),
    claim("L0", "lpips", 0.187, aliases=("Baseline",), run="base"),
]


def _md(header: str, base: str, ours: str) -> str:
    return (f"| Method | {header} |\n|---|:-:|\n| Baseline | {base} |\n| Ours | {ours} |\n")


def _tex(header: str, base: str, ours: str) -> str:
    return ("\\begin{tabular}{lc}\n\\toprule\nMethod & " + header + " \\\\\n\\midrule\n"
            f"Baseline & {base} \\\\\nOurs & {ours} \\\\\n\\bottomrule\n\\end{{tabular}}\n")


BASE_MATCHED: list[tuple[int, tuple[str, ...]]] = [(3, ("P0",)), (3, ("S0",))]
TEX_BASE: list[tuple[int, tuple[str, ...]]] = [(5, ("P0",)), (5, ("S0",))]

CASES = [
    # --- Markdown -------------------------------------------------------------------------------
    Case("md: a correct pair is clean, both halves matched", "a.md",
         _md("Set5 PSNR/SSIM", "30.10/0.8876", "**31.42**/0.9134"), [],
         [*BASE_MATCHED, (4, ("P1",)), (4, ("S1",))]),
    Case("md: a drifted PSNR half is drift on P1 (was ambiguous P1/S1)", "a.md",
         _md("Set5 PSNR/SSIM", "30.10/0.8876", "31.52/0.9134"), [("drift", 4, ("P1",))],
         [*BASE_MATCHED, (4, ("S1",))], ("31.52",)),
    Case("md: a drifted SSIM half is drift on S1 (was never read)", "a.md",
         _md("Set5 PSNR/SSIM", "30.10/0.8876", "31.42/0.9234"), [("drift", 4, ("S1",))],
         [*BASE_MATCHED, (4, ("P1",))], ("0.9234",)),
    Case("md: both halves drifted", "a.md",
         _md("Set5 PSNR/SSIM", "30.10/0.8876", "31.52/0.9234"),
         [("drift", 4, ("P1",)), ("drift", 4, ("S1",))], BASE_MATCHED, ("31.52", "0.9234")),
    Case("md: spaces around the slash", "a.md",
         _md("PSNR / SSIM", "30.10 / 0.8876", "31.42 / 0.9234"), [("drift", 4, ("S1",))],
         [*BASE_MATCHED, (4, ("P1",))]),
    Case("md: the baseline's row is judged against the baseline's claims", "a.md",
         _md("PSNR↑/SSIM↑", "30.10/0.8976", "31.42/0.9134"), [("drift", 3, ("S0",))],
         [(3, ("P0",)), (4, ("P1",)), (4, ("S1",))]),
    Case("md: a triple PSNR/SSIM/LPIPS, its last drifted", "a.md",
         _md("PSNR/SSIM/LPIPS", "30.10/0.8876/0.187", "31.42/0.9134/0.132"),
         [("drift", 4, ("L1",))],
         [*BASE_MATCHED, (3, ("L0",)), (4, ("P1",)), (4, ("S1",))], ("0.132",)),
    Case("md: two datasets' pair columns", "a.md",
         "| Method | Set5 PSNR/SSIM | Urban100 PSNR/SSIM |\n|---|---|---|\n"
         "| Ours | 31.42/0.9134 | 31.42/0.9234 |\n", [("drift", 3, ("S1",))],
         [(3, ("P1",)), (3, ("S1",)), (3, ("P1",))]),
    Case("md: a missing half (a dash) is no number", "a.md",
         _md("PSNR/SSIM", "30.10/–", "31.52/0.9134"), [("drift", 4, ("P1",))],
         [(3, ("P0",)), (4, ("S1",))]),
    Case("md: a header without a slash list keeps today's reading (first number only)",
         "a.md", _md("PSNR (dB)", "30.10", "31.42/0.9234"), [], [(3, ("P0",)), (4, ("P1",))]),
    Case("md: a slash list the cells do not follow is not split", "a.md",
         _md("PSNR/SSIM", "30.10", "31.52"), [("ambiguous", 4, ("P1", "S1"))], [(3, ("P0",))]),
    # --- LaTeX ----------------------------------------------------------------------------------
    Case("tex: a correct pair with \\textbf/\\underline is clean", "t.tex",
         _tex("PSNR/SSIM", "30.10/0.8876", "\\textbf{31.42}/\\underline{0.9134}"), [],
         [*TEX_BASE, (6, ("P1",)), (6, ("S1",))]),
    Case("tex: a drifted PSNR half is drift on P1", "t.tex",
         _tex("PSNR/SSIM", "30.10/0.8876", "\\textbf{31.52}/\\underline{0.9134}"),
         [("drift", 6, ("P1",))], [*TEX_BASE, (6, ("S1",))], ("31.52",)),
    Case("tex: a drifted SSIM half is drift on S1", "t.tex",
         _tex("PSNR$\\uparrow$ / SSIM$\\uparrow$", "30.10 / 0.8876",
              "\\textbf{31.42} / \\underline{0.9234}"),
         [("drift", 6, ("S1",))], [*TEX_BASE, (6, ("P1",))], ("0.9234",)),
    Case("tex: both halves drifted", "t.tex",
         _tex("PSNR/SSIM", "30.10/0.8876", "31.52/0.9234"),
         [("drift", 6, ("P1",)), ("drift", 6, ("S1",))], TEX_BASE),
    Case("tex: a two-row header (dataset over PSNR/SSIM)", "t.tex",
         "\\begin{tabular}{lc}\n\\toprule\n & Set5 \\\\\nMethod & PSNR/SSIM \\\\\n\\midrule\n"
         "Baseline & 30.10/0.8876 \\\\\nOurs & 31.42/0.9234 \\\\\n\\bottomrule\n\\end{tabular}\n",
         [("drift", 7, ("S1",))], [(6, ("P0",)), (6, ("S0",)), (7, ("P1",))]),
    Case("tex: a header without a slash list keeps today's reading", "t.tex",
         _tex("PSNR", "30.10", "31.42/0.9234"), [], [(5, ("P0",)), (6, ("P1",))]),
    # --- a marker binds its whole row or column: that cell is read whole, as before ----------
    Case("md: a row marker keeps its row's cell whole (its first number bound)", "a.md",
         _md("PSNR/SSIM", "30.10/0.8876", "31.42/0.9134").replace(
             "| Ours |", "| <!-- claim:P1 --> Ours |"), [], [*BASE_MATCHED, (4, ("P1",))]),
    Case("md: a header marker keeps the column whole", "a.md",
         _md("<!-- claim:P1 --> PSNR/SSIM", "30.10/0.8876", "31.42/0.9134"), [],
         [(4, ("P1",))]),
]


def run(path: str, text: str) -> Report:
    return reconcile_segments(read_document(path, text.encode()), CLAIMS)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case) -> None:
    assert_case(run(case.path, case.text), case)


def test_csv_pair_column() -> None:
    text = "method,PSNR/SSIM\nBaseline,30.10/0.8876\nOurs,31.42/0.9234\n"
    report = run("r.csv", text)
    assert [(f.type, f.line, f.claims) for f in report.findings] == [("drift", 3, ("S1",))]


# --- property: correct tables are clean, a value off by more than half a unit drifts ------------

def _shown(value: float, places: int) -> str:
    return f"{value:.{places}f}"


def _off(value: float, places: int, units: int) -> str | None:
    """``value`` shown at ``places`` decimals and moved by ``units`` in its last digit; None
    when that is not more than half a unit from ``value``."""
    unit = Decimal(1).scaleb(-places)
    moved = Decimal(_shown(value, places)) + units * unit
    if abs(moved - Decimal(value)) <= unit / 2 * (1 + Decimal("1e-9")):
        return None
    return f"{moved:.{places}f}"


psnrs = st.floats(min_value=20, max_value=45, allow_nan=False)
ssims = st.floats(min_value=0.3, max_value=0.85, allow_nan=False)
units = st.integers(min_value=-3, max_value=3).filter(lambda k: k != 0)


def _table(latex: bool, base: tuple[str, str], ours: tuple[str, str]) -> tuple[str, str]:
    if latex:
        return "t.tex", _tex("PSNR/SSIM", "/".join(base), f"\\textbf{{{ours[0]}}}/{ours[1]}")
    return "a.md", _md("Set5 PSNR/SSIM", " / ".join(base), f"**{ours[0]}**/{ours[1]}")


def _claims(p1: float, s1: float, p0: float, s0: float) -> list[Claim]:
    return [claim("P1", "psnr", p1, unit="dB", aliases=("Ours",)),
            claim("P0", "psnr", p0, unit="dB", aliases=("Baseline",), run="base"),
            claim("S1", "ssim", s1, aliases=("Ours",)),
            claim("S0", "ssim", s0, aliases=("Baseline",), run="base")]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(psnrs, ssims, psnrs, ssims, st.integers(0, 3), st.integers(1, 4), st.booleans())
def test_a_correct_table_is_clean(p1: float, s1: float, p0: float, s0: float,
                                  pp: int, sp: int, latex: bool) -> None:
    path, text = _table(latex, (_shown(p0, pp), _shown(s0, sp)), (_shown(p1, pp), _shown(s1, sp)))
    report = reconcile_segments(read_document(path, text.encode()), _claims(p1, s1, p0, s0))
    assert report.findings == [], "\n".join(f.render() for f in report.findings)
    assert sorted(c for m in report.matches for c in m.claims) == ["P0", "P1", "S0", "S1"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(psnrs, ssims, psnrs, ssims, st.integers(0, 3), st.integers(1, 4), units,
       st.sampled_from(["P1", "S1", "P0", "S0"]), st.booleans())
def test_a_value_off_by_more_than_half_a_unit_drifts_on_its_claim(
        p1: float, s1: float, p0: float, s0: float, pp: int, sp: int, k: int, which: str,
        latex: bool) -> None:
    values = {"P1": (p1, pp), "S1": (s1, sp), "P0": (p0, pp), "S0": (s0, sp)}
    shown = {cid: _shown(v, places) for cid, (v, places) in values.items()}
    moved = _off(*values[which], k)
    assume(moved is not None)
    assert moved is not None
    assume(0 < float(moved) < 1 if which[0] == "S" else True)  # an SSIM stays a fraction
    shown[which] = moved
    path, text = _table(latex, (shown["P0"], shown["S0"]), (shown["P1"], shown["S1"]))
    report = reconcile_segments(read_document(path, text.encode()), _claims(p1, s1, p0, s0))
    got = [(f.type, f.claims, f.shown) for f in report.findings]
    assert got == [("drift", (which,), moved)], "\n".join(f.render() for f in report.findings)
