"""Review of round 63's readings (a setting's key=value in prose, marks and notes in cells).

* a key=value after "(" or "with" is a setting's level only where the key names no result:
  round 63 asked whether the whole key is a metric's name, so a metric's key qualified by its
  split or its IoU type ("val_acc", "eval_accuracy", "test_f1", "bbox_mAP") was taken for a
  setting and its number for a level. Training logs and READMEs write a result so: "[train]
  Best model saved: artifacts/checkpoints/best_model.pth (val_acc=0.889)" (an image
  classifier's README), "- Best single fold: fold 8 (val_acc=0.625)" (a CV report's
  generator); a wrong accuracy claim went unreported there (before the round, a drift);
* once "parameters" named a claim on "params", a heading "Parameters" named what is under it:
  an API's arguments (numpydoc's "Parameters\n----------" section; READMEs and generated docs
  head a function's options "## Parameters": PHP's manual pages, platyPS's cmdlet help, a
  kernel spec's "### Parameters" table of defaults), so a default "(int, default 20)" drifted
  against a model's parameter count (a false drift). ("## Params" did so before the round.)
* in prose "parameters" is as often a method's settings as a model's count ("all other
  parameters are set to 0.0", a mixer's docs; "adjust the parameters of LoRA (3~5 sets of
  parameters is enough)", a course's task): "The remaining parameters are set to 20" drifted
  against a claim on "params". The word names the count where it counts: after a number ("1.0M
  parameters"), after "number of" or "#", before a colon and its number, or heading a column;
* the third of a slashed list with its unit each ("217 FPS/161 FPS/108 FPS") was unread.
"""

from __future__ import annotations

import pytest

from labledger.reconcile.numbers import scan_numbers
from tests.reconcile.test_tables_round62 import _read, claim, run

# --- 1. a qualified metric's key=value is the result, not a setting ------------------------------

@pytest.mark.parametrize(("text", "metric", "shown"), [
    ("[train] Best model saved: artifacts/checkpoints/best_model.pth (val_acc=0.889)\n",
     "acc", "0.889"),
    ("- Best single fold: fold 8 (val_acc=0.625)\n", "acc", "0.625"),
    ("The final model (eval_accuracy=0.912) beats the baseline.\n", "accuracy", "0.912"),
    ("The final model (test_f1=0.87) beats the baseline.\n", "f1", "0.87"),
    ("Our detector (bbox_mAP=41.2) beats the baseline.\n", "map", "41.2"),
    ("Detector results with bbox_mAP=41.2 on COCO.\n", "map", "41.2")])
def test_a_qualified_metrics_key_keeps_its_value(text: str, metric: str, shown: str) -> None:
    """The key's part after its split or IoU type is a metric's name: the number is the result
    (a wrong claim drifts), as "(recall=16.9%)" is."""
    assert _read(run("README.md", text, [claim("A", metric, 0.5)])) == (
        [("drift", ("A",), shown)], [])


@pytest.mark.parametrize("text", [
    "Recall with top_k=20 is {v}% for Ours.", "Recall (max_len=20) is {v}% for Ours.",
    "Recall (num_beams=20) is {v}% for Ours."])
@pytest.mark.parametrize(("value", "drifts"), [("16.8", False), ("16.9", True)])
def test_near_miss_a_settings_key_with_parts_stays_a_level(text: str, value: str,
                                                           drifts: bool) -> None:
    """A key none of whose parts is a metric's name ("top_k", "max_len", "num_beams") is still
    a setting: its 20 no plausible recall."""
    claims = [claim("R", "recall", 16.8, unit="%", aliases=("Ours",))]
    findings, matched = _read(run("a.md", text.format(v=value) + "\n", claims))
    assert findings == ([("drift", ("R",), value + "%")] if drifts else [])
    assert matched == ([] if drifts else [("R",)])


# --- 2. a "Parameters" heading titles an API's arguments -----------------------------------------

API_DOCS = [
    # a README's options under "### Parameters" (as PHP's manual pages, platyPS's cmdlet help
    # and a kernel spec's "### Parameters | epsilon | float | No | > 0 | 1e-5 |" head theirs)
    ("README.md", "### Parameters\n\n- `k` (int, default 20): number of neighbours.\n"
                  "- `alpha` (float, default 0.5): mixing weight.\n"),
    ("README.md", "## Parameters\n\n`k` — number of neighbours (default: 20).\n"),
    ("README.md", "## Parameters\nk : int, default 20\n"),
    # numpydoc's section, its first argument on the line under the rule
    ("README.md", "Parameters\n----------\nk : int, default 20\n    Number of neighbours.\n"),
    ("docs/api.rst", "Parameters\n----------\nk : int, default 20\n    Number of neighbours.\n")]


@pytest.mark.parametrize(("path", "text"), API_DOCS)
@pytest.mark.parametrize("metric", ["params", "num_params"])
def test_a_parameters_heading_names_no_parameter_count(path: str, text: str,
                                                       metric: str) -> None:
    """Round 63 made "parameters" name a claim on "params" (TinyNeXt's "1.0M parameters"); a
    heading "Parameters" then named the arguments under it (or the line it runs on to), and a
    default of 20 drifted against a 12.3M-parameter claim: a false drift in a README
    documenting a function. A heading that is "Parameters" (or "Params") alone names nothing."""
    assert _read(run(path, text, [claim("A", metric, 12.3, unit="M")])) == ([], [])


@pytest.mark.parametrize("text", [
    "## Model size\n\nOurs has 12.1M parameters.\n",
    "### Parameters\n\n| Model | Params |\n|---|---|\n| Ours | 12.1M |\n",
    "## Parameters and FLOPs\n\n| Model | Params | FLOPs |\n|---|---|---|\n"
    "| Ours | 12.1M | 2.1G |\n"])
def test_near_miss_a_count_under_any_heading_is_still_judged(text: str) -> None:
    """A count written with its own "parameters" or in a "Params" column is still the claim's,
    under a "Parameters" heading too, and a heading naming more than the word still names."""
    claims = [claim("A", "params", 12.3, unit="M", aliases=("Ours",))]
    assert _read(run("README.md", text, claims)) == ([("drift", ("A",), "12.1M")], [])


# --- 3. "parameters" in prose: a count's name only where it counts -------------------------------

SETTINGS_PROSE = [
    # a mixer's docs: "scaling of all axes is set to 1.0, all other parameters are set to 0.0"
    "The remaining parameters are set to 20.\n",
    "We use the default parameters (window 20, alpha 0.5).\n",
    "The learning-rate parameters are 1e-3 and 20.\n",
    # a course's task: "adjust the parameters of LoRA (3~5 sets of parameters is enough)"
    "Parameters of the LoRA adapters: r=16, alpha=32.\n"]


@pytest.mark.parametrize("text", SETTINGS_PROSE)
@pytest.mark.parametrize("metric", ["params", "params_m"])
def test_parameters_of_a_method_name_no_parameter_count(text: str, metric: str) -> None:
    """"parameters" is English for a method's settings: in these sentences it names no model's
    count, and their numbers drifted against a claim on "params" once round 63 made the word
    name it (before, nothing: "params" is no word prose writes so)."""
    assert _read(run("README.md", text, [claim("A", metric, 12.3, unit="M")])) == ([], [])


@pytest.mark.parametrize(("text", "shown"), [
    ("Our TinyNeXt-T achieves 71.5% top-1 accuracy with only 1.0M parameters.\n", "1.0M"),
    ("The model has 1.2 million parameters.\n", "1.2 million"),
    ("It trains 1.0M learnable parameters.\n", "1.0M"),
    ("The number of parameters is 1.0M.\n", "1.0M"),
    ("- **Parameters**: 1.0M\n", "1.0M"),
    ("#Parameters: 1.0M\n", "1.0M"),
    ("| Model | Parameters |\n|---|---|\n| TinyNeXt-T | 1.0M |\n", "1.0M"),
    ("Ours reaches 71.5\\% top-1 with only $1.0\\mathrm{M}$ parameters.\n", "1.0"),
    ("Ours reaches 71.5\\% top-1 with only 1.0\\,M parameters.\n", "1.0 M")])
def test_near_miss_a_counted_parameters_still_names_the_claim(text: str, shown: str) -> None:
    """After a number, after "number of" or "#", before a colon and its number, or heading a
    table's column, "parameters" counts: a wrong count drifts (in LaTeX too)."""
    claims = [claim("A", "params", 1.1, unit="M", aliases=("TinyNeXt-T",))]
    path = "a.tex" if "\\%" in text else "README.md"
    assert _read(run(path, text, claims))[0] == [("drift", ("A",), shown)]


def test_near_miss_parameters_of_a_number_counts() -> None:
    """UltraLight VM-UNet's README: "the UltraLight VM-UNet exhibits the same strong performance
    competitiveness with parameters of only 0.049M and GFLOPs of 0.060": "parameters of" and a
    number counts too (a wrong count drifts, as in the round)."""
    text = ("The UltraLight VM-UNet exhibits the same strong performance competitiveness with "
            "parameters of only 0.049M.\n")
    assert _read(run("README.md", text, [claim("A", "params", 0.051, unit="M")])) == (
        [("drift", ("A",), "0.049M")], [])


# --- 4. a list of numbers each with its unit ------------------------------------------------------

@pytest.mark.parametrize(("text", "numbers"), [
    ("217 FPS/161 FPS/108 FPS", ["217", "161", "108"]),
    ("12 GB/24 GB/48 GB", ["12", "24", "48"]),
    ("1/2 GB/3 GB", []),  # (a fraction first: no pair, as round 63 read "1/2 GB")
    ("108 FPS/74 FPS/s", ["108", "74"])])
def test_every_number_of_a_slashed_list_with_units_is_read(text: str, numbers: list) -> None:
    """Round 63 read the second of "108 FPS/74 FPS"; a third ("217 FPS/161 FPS/108 FPS", as
    RT-DETR's R18/R34/R50 rows are quoted) followed a slash after the second's unit, and the
    pair's rule wanted no slash before the number before it: the 108 was unread."""
    assert [s.text for s in scan_numbers(text)] == numbers
