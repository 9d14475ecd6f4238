"""`labledger hook` against what the review of the ninth round found: judging a ``git clean``
must never run one.

The hook asks git what a clean removes by a dry run of the clean's own arguments. It appended
``-n`` after them; where they end in ``-e``/``--exclude`` still waiting for its value, or in
``--end-of-options``, git read that ``-n`` as the pattern or as a pathspec and the hook's own
question was a real ``git clean -fdx``: the ledger and the capsules were gone before the agent's
command was even refused. And git takes the last of ``-n``/``--no-dry-run``, so ``git clean -n
-fdx --no-dry-run`` cleans, though it was let through as a dry run.

The project is `test_hook_round8`'s (pod-abc123 unverified, capsules/c2 sealed with no stored
copy), in a git repository that ignores the ledger and the capsules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes

box = round8.box


def _files(project: Path) -> set[str]:
    return {str(p.relative_to(project)) for p in project.rglob("*") if ".git/" not in str(p)}


@pytest.mark.parametrize("command", [
    "git clean -fdx -e",
    "git clean -fdx --exclude",
    "git clean -fdxe",
    "git clean -fX --exclude",
    "git clean -fdx --end-of-options .labledger",
    "git clean -fdx --end-of-options",
    "git clean -n -fdx --no-dry-run",
    "git clean -nfdx --no-d",
    "git clean --dry-run -fdx --no-dry-run",
    # twice forced (the question then holds -ff itself, after its -n)
    "git clean -ffdx -e",
    "git clean -ffdx --end-of-options",
    "git clean -n -ffdx --no-dry-run",
    "git clean -f -f -dx --exclude",
])
def test_judging_a_clean_never_runs_one_and_refuses_it(
        hook: Callable[..., Any], box: Path, ledger: Ledger, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    before = _files(box)
    result = hook(command)
    # the critical part: the hook's question removed nothing
    assert _files(box) == before, sorted(before - _files(box))[:5]
    assert_blocked(result, command)


@pytest.mark.parametrize("command", [
    "git clean -fdx -enope",  # -e's pattern holds an n: no dry run
    "git clean -fdx -e nope",
])
def test_an_exclude_pattern_holding_n_is_no_dry_run(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    before = _files(box)
    result = hook(command)
    assert _files(box) == before
    assert_blocked(result, command)


@pytest.mark.parametrize("command", [
    "git clean -fd",  # the capsules are ignored: -fd keeps them
    "git clean -n -fdx",
    "git clean -fdx --dry-run",
    "git clean -nfdx",
    "git clean -fd -e build",
    "git clean -fd --end-of-options build",
])
def test_cleans_that_keep_the_capsules_or_only_list_pass(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    before = _files(box)
    assert_passes(hook(command), command)
    assert {f for f in before if f.startswith((".labledger", "capsules"))} <= _files(box)
