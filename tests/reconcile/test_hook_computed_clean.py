"""`labledger hook` on a ``git clean`` or ``git stash`` whose words are computed when it runs.

``F=-fdx; git clean $F`` was allowed: git was asked about the clean with the word as written
(``git clean -n '$F'``), a pathspec that matches nothing, so the hook heard "nothing to remove"
while the real line removes every untracked and ignored file, the ledger among them. So were
``git clean -fd -- $DIR`` (a computed pathspec may be ``.labledger``), ``git clean -n $X`` (the
word may undo the dry run: git takes the last of ``-n``/``--no-dry-run``) and ``git stash $X``
(``$X`` may be ``-a``: a stash of every untracked and ignored file, which leaves the work
tree). A computed word now stands for the worst it may be (`hook._worst_clean`): before ``--``
an option that removes everything, and on either side a pathspec reaching the whole work tree;
a word computed only in part (``runs/$R``, a message ``"wip $(date)"``) is no option.

The project is `test_hook_round8`'s (``capsules/c2`` sealed with no stored copy: deleting it
is refused), in a real git repository; every judgment leaves its files as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile import test_hook_round8 as round8
from tests.reconcile import test_hook_round11 as round11
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes

box, home, hook, judged = round11.box, round11.home, round11.hook, round11.judged

IGNORED = ".labledger/\ncapsules/\n"


@pytest.mark.parametrize("command", [
    "F=-fdx; git clean $F",
    "git clean $OPTS",
    "git clean \"$OPTS\"",
    "git clean -f $(cat opts.txt)",
    "git clean `echo -fdx`",
    "git clean -n $X",  # $X may be --no-dry-run
    "git clean -fdx -- $DIR",  # a computed pathspec may be the ledger's folder
    "git clean -fdx src/$R",  # ... or climb out of its folder (src/..)
    "git clean -fd$X",  # a bundle computed in part
    "cd src && git clean -fdx $P",
])
def test_a_clean_with_computed_words_is_judged_at_its_worst(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, IGNORED)
    result = judged(hook, box, command)
    assert_blocked(result, command)
    assert "/.labledger" in result.stderr or "the capsule" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [
    "git stash $X",  # may be `-a` (or `push -a`)
    "git stash push $X",
    "git stash push -k $X",  # may be --all --no-keep-index
])
def test_a_stash_with_computed_words_is_judged_at_its_worst(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, IGNORED)
    assert_blocked(judged(hook, box, command), command)


def test_a_stash_of_untracked_files_with_a_computed_pathspec_reaches_the_work_tree(
        hook: Callable[..., Any], box: Path) -> None:
    # nothing ignored: `-u` takes the untracked ledger and capsule when the pathspec names
    # them, and `$P` may; a literal pathspec that does not name them passes
    round8._repository(box, "")
    assert_blocked(judged(hook, box, "git stash push -u -- $P"), "git stash push -u -- $P")
    assert_passes(judged(hook, box, "git stash push -u -- src"), "git stash push -u -- src")


@pytest.mark.parametrize("command", [
    "git clean -fd -e \"$KEEP\" src",  # a computed -e pattern only keeps files
    "git clean -fd --exclude=$KEEP src",
    "git stash push -m \"wip $(date)\"",  # a message computed in part: no option
    "git stash save \"wip $(date)\"",
    "git clean -n",
    "git clean -fd src",
    "git stash",
    "echo $X && git clean -fd src",  # computed words of another command
])
def test_computed_words_that_cannot_reach_the_ledger_pass(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, IGNORED)
    assert_passes(judged(hook, box, command), command)
