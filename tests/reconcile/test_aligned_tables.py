"""DataFrames as pandas prints them (a notebook's text/plain output, print(df), a results .txt)
are read as tables: each number is judged by its own row and column, not as one long sentence
in which rows could trade values. Rows labelled with a spread statistic (describe()'s count,
std, min, 25%, ...) hold no claimed value."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.doc_readers import Sentence, Table, read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.units import unit_at
from tests.reconcile.test_documents import claim

CLAIMS = [claim("P1", "psnr", 31.42, run="ours", aliases=("Ours",)),
          claim("S1", "ssim", 0.9134, run="ours", aliases=("Ours",)),
          claim("P0", "psnr", 30.18, run="base", aliases=("Baseline",)),
          claim("S0", "ssim", 0.899, run="base", aliases=("Baseline",))]

# pandas 2.x: print(pd.DataFrame({"method": [...], "psnr": [...], "ssim": [...]}))
FRAME = ("     method   psnr    ssim\n"
         "0      Ours  31.42  0.9134\n"
         "1  Baseline  30.18  0.8990\n"
         "2      JPEG  28.50  0.8610")
# the same with .set_index("method")
NAMED = ("           psnr    ssim\n"
         "method                 \n"
         "Ours      31.42  0.9134\n"
         "Baseline  30.18  0.8990")
# df.groupby("method").psnr.describe()-like, one quantity
DESCRIBE = ("        psnr     ssim\n"
            "count  24.00  24.0000\n"
            "mean   31.42   0.9134\n"
            "std     0.11   0.0100\n"
            "min    31.20   0.9000\n"
            "25%    31.35   0.9050\n"
            "max    31.60   0.9300")


def notebook(text: str, output: str = "execute_result") -> str:
    if output == "stream":
        out = {"output_type": "stream", "name": "stdout", "text": text + "\n"}
    else:
        out = {"output_type": output, "execution_count": 1, "metadata": {},
               "data": {"text/plain": text, "text/html": "<table>...</table>"}}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "source": "df", "execution_count": 1,
         "outputs": [out]}]})


def judge(path: str, text: str) -> list[tuple[str, int, tuple[str, ...], str | None]]:
    report = reconcile_segments(read_document(path, text.encode()), CLAIMS, jobs=1)
    return [(f.type, f.line, f.claims, f.shown) for f in report.findings]


@pytest.mark.parametrize("output", ["execute_result", "stream"])
def test_rows_that_trade_values_are_both_drift(output: str) -> None:
    swapped = FRAME.replace("31.42", "3X.XX").replace("30.18", "31.42").replace("3X.XX", "30.18")
    assert judge("nb.ipynb", notebook(swapped, output)) == [
        ("drift", 2, ("P1",), "30.18"), ("drift", 3, ("P0",), "31.42")]


def test_a_drifted_row_is_drift_of_that_row_s_claim() -> None:
    assert judge("nb.ipynb", notebook(FRAME.replace("30.18", "30.28"))) == [
        ("drift", 3, ("P0",), "30.28")]
    assert judge("nb.ipynb", notebook(NAMED.replace("0.9134", "0.9143"))) == [
        ("drift", 3, ("S1",), "0.9143")]


@pytest.mark.parametrize("text", [FRAME, NAMED])
def test_a_correct_frame_is_clean_and_every_claim_is_matched(text: str) -> None:
    report = reconcile_segments(read_document("nb.ipynb", notebook(text).encode()), CLAIMS,
                                jobs=1)
    assert report.findings == []
    assert sorted(c for m in report.matches for c in m.claims) == ["P0", "P1", "S0", "S1"]


def test_a_frame_in_a_text_file() -> None:
    assert judge("results.txt", "Final results:\n\n" + FRAME.replace("0.9134", "0.9143")
                 + "\n") == [("drift", 4, ("S1",), "0.9143")]


def test_describe_rows_other_than_the_mean_hold_no_value() -> None:
    ours = [c for c in CLAIMS if c.run == "ours"]
    for text in (notebook(DESCRIBE), "| | psnr | ssim |\n|---|---|---|\n" + "\n".join(
            "| " + " | ".join(line.split()) + " |" for line in DESCRIBE.splitlines()[1:])):
        path = "nb.ipynb" if text.startswith("{") else "summary.md"
        report = reconcile_segments(read_document(path, text.encode()), CLAIMS, jobs=1)
        assert report.findings == [], path  # was: P0 and S0 ambiguous over count/min/max
        assert sorted(c for m in report.matches for c in m.claims) == \
            sorted(c.id for c in ours)
    # the mean drifted: the column names two runs' PSNR and no row names a run
    wrong = DESCRIBE.replace("mean   31.42", "mean   31.52")
    assert judge("nb.ipynb", notebook(wrong)) == [("ambiguous", 3, ("P0", "P1"), "31.52")]


def test_a_wide_frame_printed_in_blocks() -> None:
    wide = ("     method   psnr  \\\n"
            "0      Ours  31.42   \n"
            "1  Baseline  30.18   \n"
            "\n"
            "     ssim  \n"
            "0  0.9143  \n"
            "1  0.8990  ")
    segments = read_document("nb.ipynb", notebook(wide).encode())
    (segment,) = segments
    assert isinstance(unit_at(segment, segment.text.index("31.42")), Table)
    # the second block names no method: its SSIM column is judged by its header alone
    found = judge("nb.ipynb", notebook(wide))
    assert ("drift", 2, ("P1",), "31.42") not in found


@pytest.mark.parametrize("text", [
    "PSNR of Ours is 31.42 dB and\nthe Baseline reaches 30.18 dB.",
    "Ours   31.42\nwas measured twice on the Baseline at 30.18",
    "psnr ssim\nOurs 31.42 0.9134",  # not aligned: names end where no value does
    "method psnr\n0 Ours",  # no number
])
def test_prose_and_ragged_lines_stay_sentences(text: str) -> None:
    (segment,) = read_document("notes.txt", text.encode())
    assert isinstance(unit_at(segment, segment.text.index("Ours")), Sentence)


NAMES = st.sampled_from(["psnr", "ssim", "lpips", "test psnr", "top1", "loss"])
LABELS = st.sampled_from(["Ours", "Baseline", "JPEG", "BPG-444", "x"])
VALUES = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False).map(lambda v: f"{v:.4g}")


def render(columns: list[str], rows: list[tuple[str, list[str]]], numbered: bool) -> str:
    """What pandas prints: columns right-aligned two spaces apart, the index left-aligned."""
    cells = [columns] + [values for _, values in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    labels = [str(i) if numbered else label for i, (label, _) in enumerate(rows)]
    width = max(len(label) for label in labels)
    lines = [" " * width + "".join("  " + c.rjust(w) for c, w in zip(columns, widths,
                                                                    strict=True))]
    for label, (_, values) in zip(labels, rows, strict=True):
        lines.append(label.ljust(width) + "".join("  " + v.rjust(w)
                                                  for v, w in zip(values, widths, strict=True)))
    return "\n".join(lines)


@given(st.lists(NAMES, min_size=1, max_size=4, unique=True), st.data(), st.booleans())
def test_any_printed_frame_reads_cell_for_cell(columns: list[str], data: st.DataObject,
                                               numbered: bool) -> None:
    rows = data.draw(st.lists(st.tuples(LABELS, st.lists(VALUES, min_size=len(columns),
                                                          max_size=len(columns))),
                              min_size=1, max_size=5))
    text = render(columns, rows, numbered)
    (segment,) = read_document("frame.txt", text.encode())
    table = unit_at(segment, len(text) - 1)
    assert isinstance(table, Table), text
    assert [c.text.strip() for c in table.header[1:]] == columns
    for (label, values), cells in zip(rows, table.rows, strict=True):
        assert [c.text.strip() for c in cells[1:]] == values
        assert cells[0].text.strip() == ("" if numbered else label)
        for cell in cells:  # offsets are the text's own
            assert segment.text[cell.start:cell.end] == cell.text
