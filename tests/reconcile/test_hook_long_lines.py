"""`labledger hook` on a generated line of many deletes whose paths are computed when it runs.

Each computed delete was fed its own text (its pipeline, then every other pipeline of the line
that may hand it something), read word by word once per delete: a line of N such deletes
cost N readings of the whole line. 1,000 deletes took 48 s to judge, 2,000 took 168 s, past an
agent's hook timeout, which lets the command run unjudged. The deletes of one line now share
one feed (the line's handing pipelines in order, built once; a line of more than
`hook._FEEDS_APART_LIMIT` commands feeds each the whole line, a superset: fail closed), the
variables it assigns and the patterns found in it are read once per text, and what a feed
reaches is asked once per protected folder. The verdicts must be the ones the per-delete
reading gave: a feed that names a protected folder still blocks, one that does not passes.

The project is `test_hook_writes`'s (``capsules/c2`` unverified, ``capsules/c3`` verified).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labledger.reconcile.hook import _FEEDS_APART_LIMIT, judge
from tests.reconcile.test_hook_writes import box  # noqa: F401 - the project fixture

SIZES = [10, _FEEDS_APART_LIMIT // 2 - 1, _FEEDS_APART_LIMIT + 1, 1500]


def _line(n: int, form: str) -> str:
    return "; ".join(form.format(i=i) for i in range(n))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("form", ['rm -rf "$D{i}"', "rm -f $F{i}", 'bash -c "rm -rf $D{i}"',
                                  "echo x > $F{i}"])
def test_many_computed_deletes_that_name_nothing_protected_pass(
        box: Path, n: int, form: str) -> None:  # noqa: F811
    verdict = judge(_line(n, form), str(box), str(box))
    assert verdict.allowed, verdict.reasons[:2]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize(("first", "form"), [
    ("D0=capsules", 'rm -rf "$D{i}"'),  # a literal assignment feeds them
    ("D0=$(ls -d capsules/*)", 'rm -rf "$D{i}"'),  # a listing of the capsules' folder
    # a pipeline that hands on (to a file) names the folder; a bare `ls capsules` only
    # prints, and feeds nothing below the limit
    ("ls capsules > names.txt", 'rm -rf "$D{i}"'),
    ("cd capsules", 'bash -c "rm -rf $D{i}"'),
])
def test_many_computed_deletes_fed_a_capsule_are_blocked(
        box: Path, n: int, first: str, form: str) -> None:  # noqa: F811
    verdict = judge(f"{first}; " + _line(n, form), str(box), str(box))
    assert not verdict.allowed
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons[:2]


@pytest.mark.parametrize("n", SIZES)
def test_a_computed_delete_among_many_fed_by_its_own_pipeline_is_blocked(
        box: Path, n: int) -> None:  # noqa: F811
    # the one delete fed a capsule by what is piped into it, in the middle of the line
    line = "; ".join([_line(n // 2, "rm -f $F{i}"), "ls capsules/c2 | xargs rm -rf",
                      _line(n // 2, "echo {i}")])
    verdict = judge(line, str(box), str(box))
    assert not verdict.allowed
