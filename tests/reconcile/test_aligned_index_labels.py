"""A printed DataFrame whose index labels hold spaces ("Ours (large)", "JPEG 2000 q=90") is
read with each label whole, so its numbers are judged by their own row and column.

Before, the label was each row's first word: "(large)" and "2000 q=90" went into the first
column's cells, which then held no number, and the numbers there were never judged.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.doc_readers import Table, read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.units import unit_at
from tests.reconcile.test_aligned_tables import NAMES, VALUES, render
from tests.reconcile.test_documents import claim

CLAIMS = [claim("L1", "psnr", 31.42, run="large", aliases=("Ours (large)",)),
          claim("L2", "ssim", 0.931, run="large", aliases=("Ours (large)",)),
          claim("J1", "psnr", 29.50, run="jpeg", aliases=("JPEG 2000",)),
          claim("J2", "ssim", 0.880, run="jpeg", aliases=("JPEG 2000",))]

# pandas 2.x: print(pd.DataFrame({"psnr": [...], "ssim": [...]}, index=[...]))
FRAME = ("                 psnr   ssim\n"
         "Ours (large)    31.42  0.931\n"
         "Baseline        30.18  0.899\n"
         "JPEG 2000 q=90  29.50  0.880")
# the same with df.index.name = "method"
NAMED = ("                 psnr   ssim\n"
         "method                      \n"
         "Ours (large)    31.42  0.931\n"
         "Baseline        30.18  0.899\n"
         "JPEG 2000 q=90  29.50  0.880")


def judge(text: str) -> list[tuple[str, int, tuple[str, ...], str | None]]:
    report = reconcile_segments(read_document("results.txt", text.encode()), CLAIMS, jobs=1)
    return [(f.type, f.line, f.claims, f.shown) for f in report.findings]


@pytest.mark.parametrize("frame", [FRAME, NAMED])
def test_labels_with_spaces_are_read_whole(frame: str) -> None:
    (segment,) = read_document("results.txt", frame.encode())
    table = unit_at(segment, frame.index("29.50"))
    assert isinstance(table, Table)
    assert [c.text.strip() for c in table.header[1:]] == ["psnr", "ssim"]
    rows = [[c.text.strip() for c in row] for row in table.rows]
    assert ["Ours (large)", "31.42", "0.931"] in rows
    assert ["JPEG 2000 q=90", "29.50", "0.880"] in rows


@pytest.mark.parametrize("frame", [FRAME, NAMED])
def test_a_correct_frame_is_clean(frame: str) -> None:
    assert judge(frame) == []


@pytest.mark.parametrize("frame", [FRAME, NAMED])
def test_a_drifted_cell_of_a_spaced_label_drifts(frame: str) -> None:
    text = frame.replace("29.50  0.880", "29.70  0.880")
    line = text.count("\n", 0, text.index("29.70")) + 1
    assert judge(text) == [("drift", line, ("J1",), "29.70")]


def test_rows_that_trade_values_both_drift() -> None:
    text = FRAME.replace("31.42", "29.50", 1).replace("q=90  29.50", "q=90  31.42")
    assert sorted(judge(text)) == [("drift", 2, ("L1",), "29.50"),
                                   ("drift", 4, ("J1",), "31.42")]


def test_an_integer_index_and_a_text_column_with_spaces_keep_their_reading() -> None:
    """print(df) of a frame with a text column: the row numbers are the index, and the text
    column's values ("Ours large") are cells, not labels."""
    text = ("       method   psnr\n"
            "0  Ours large  31.42\n"
            "1   Base line  30.18")
    (segment,) = read_document("results.txt", text.encode())
    table = unit_at(segment, text.index("31.42"))
    assert isinstance(table, Table)
    assert [[c.text.strip() for c in row] for row in table.rows] == [
        ["", "Ours large", "31.42"], ["", "Base line", "30.18"]]


SPACED = st.sampled_from(["Ours", "Ours (large)", "JPEG 2000 q=90", "BPG 444", "x", "a b c"])


@given(st.lists(NAMES, min_size=1, max_size=4, unique=True), st.data())
def test_any_frame_with_spaced_labels_reads_cell_for_cell(columns: list[str],
                                                          data: st.DataObject) -> None:
    rows = data.draw(st.lists(st.tuples(SPACED, st.lists(VALUES, min_size=len(columns),
                                                          max_size=len(columns))),
                              min_size=1, max_size=5))
    text = render(columns, rows, numbered=False)
    (segment,) = read_document("frame.txt", text.encode())
    table = unit_at(segment, len(text) - 1)
    assert isinstance(table, Table), text
    assert [c.text.strip() for c in table.header[1:]] == columns
    for (label, values), cells in zip(rows, table.rows, strict=True):
        assert cells[0].text.strip() == label
        assert [c.text.strip() for c in cells[1:]] == values
        for cell in cells:
            assert segment.text[cell.start:cell.end] == cell.text
