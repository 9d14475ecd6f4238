"""Result files a new user really has, refused in words that say what is wrong with them.

* A CSV saved by Excel in a locale whose decimal mark is a comma (de-DE, fr-FR, ...): Excel's
  "CSV (delimiter-separated)" then separates fields with ';' and writes 29,5 for 29.5
  (Microsoft support, "Import or export text (.txt or .csv) files": the list separator comes
  from the regional settings). Read as comma-separated, its header is one cell.
* A JSON value that is a boolean is shown as JSON writes it (`true`), not as Python does.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.claim_values import read_value
from labledger.reconcile.errors import ClaimInputError

WHERE = "r1:train.csv (blake3:00)"


@pytest.mark.parametrize("data", [
    b"epoch;psnr\n1;29,5\n2;30,5\n",  # decimal commas: the rows split into two cells
    b"epoch;psnr\n1;29.5\n2;30.5\n",  # decimal points: every row one cell, as the header
], ids=["decimal comma", "decimal point"])
def test_a_semicolon_separated_csv_is_named_as_such(data: bytes) -> None:
    """Before: "line 2: 2 cells where the header has 1" and "no column 'psnr'; it has:
    mean(epoch;psnr)", neither saying that the file is not comma-separated."""
    with pytest.raises(ClaimInputError) as info:
        read_value(data, "train.csv", "mean(psnr)", WHERE)
    message = str(info.value)
    assert f"{WHERE}: its header is one cell, 'epoch;psnr': the file is separated by ';'" \
        in message
    assert "save it comma-separated" in message


def test_a_one_column_csv_is_still_read() -> None:
    assert read_value(b"psnr\n29.5\n30.5\n", "train.csv", "mean(psnr)", WHERE).value == 30.0


@pytest.mark.parametrize(("text", "shown"), [("true", "the JSON value true"),
                                             ("false", "the JSON value false")])
def test_a_boolean_is_shown_as_json_writes_it(text: str, shown: str) -> None:
    """Before: "not a number (True (bool))"."""
    with pytest.raises(ClaimInputError) as info:
        read_value(f'{{"psnr": {text}}}'.encode(), "metrics.json", "psnr", "r1:metrics.json")
    assert f"not a number ({shown})" in str(info.value)


def test_a_list_of_one_number_is_counted_in_the_singular() -> None:
    """A per-image list of a one-image test set: before, "is a list of 1 numbers"."""
    with pytest.raises(ClaimInputError) as info:
        read_value(b'{"psnr": [31.5]}', "metrics.json", "psnr", "r1:metrics.json")
    assert "'psnr' in r1:metrics.json is a list of 1 number, not one number" in str(info.value)
