"""A paragraph hard-wrapped between a split word and its noun ("test\\naccuracy") is one sentence.

Papers' LaTeX sources and many READMEs are wrapped at 80 or 100 columns, so "test accuracy"
often falls over a line end. The split words of a sentence (`number_roles.prose_splits`) took only
spaces and tabs between "test" and "accuracy": the wrapped phrase named no split, the sentence's
"training set" was the nearest one named, and a test-accuracy claim's number there was dropped as
the training split's: a wrong number went unreported (the shape of arXiv LaTeX sources: one
sentence over several lines, the split word ending one).
"""

from __future__ import annotations

import pytest

from tests.reconcile.test_documents import claim, judge

TEST_ACC = claim("TA", "test_accuracy", 0.9317, aliases=("test accuracy",))

WRAPPED = {
    "a.md": ("Trained on the full training set for 90 epochs, the model reaches {v}% test\n"
             "accuracy on the held-out images.\n"),
    "a.tex": ("Trained on the full training set for 90 epochs, the model reaches {v}\\% test\n"
              "accuracy on the held-out images~\\cite{{x}}.\n"),
    "a.rst": ("Trained on the full training set for 90 epochs, the model reaches {v}% test\n"
              "accuracy on the held-out images.\n"),
    "b.md": ("Trained on the full training\nset for 90 epochs, the model reaches a test\n"
             "accuracy of {v}%.\n"),
}


@pytest.mark.parametrize("path", sorted(WRAPPED))
def test_a_wrong_number_under_a_wrapped_split_phrase_drifts(path: str) -> None:
    report = judge(WRAPPED[path].format(v="92.00"), [TEST_ACC], path)
    assert [(f.type, f.claims) for f in report.findings] == [("drift", ("TA",))]
    assert "TA says 92.00%" in report.findings[0].message


@pytest.mark.parametrize("path", sorted(WRAPPED))
def test_the_right_number_under_a_wrapped_split_phrase_matches(path: str) -> None:
    report = judge(WRAPPED[path].format(v="93.17"), [TEST_ACC], path)
    assert report.findings == []
    assert [m.claims for m in report.matches] == [("TA",)]


def test_a_wrapped_training_phrase_still_names_the_training_split() -> None:
    """The other side of the same rule: "training\\naccuracy" wrapped is the training split's,
    so a number there is not the test claim's (no drift against the test value)."""
    text = ("The model reaches 99.12% training\naccuracy and a test accuracy of 93.17% on the\n"
            "held-out images.\n")
    report = judge(text, [TEST_ACC])
    assert report.findings == []
    assert [m.claims for m in report.matches] == [("TA",)]
