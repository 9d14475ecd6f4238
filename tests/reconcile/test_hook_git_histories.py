"""`labledger hook` against the git commands that lose local work by other roads than a
checkout (`test_hook_git_restores`): a stash then dropped, ``git checkout-index -f``, ``git
read-tree --reset -u``, ``git mv``, and patches applied (``git apply``, GNU ``patch``).

Each was tried on a real repository with git 2.39 (the project of `test_hook_writes`: the
ledger and the capsules committed, ``capsules/c2`` sealed with no stored copy, ``capsules/c3``
with one that verifies) before it was judged:

* ``git stash`` takes the events appended to a tracked ledger out of the work tree (the
  segment is HEAD's again) and ``git stash drop``/``clear`` then deletes the stash: the
  events are gone. A stash alone, or followed by ``pop``/``apply``, keeps them: it passes.
  ``git stash -u`` moves untracked capsules into the stash the same way.
* ``git checkout-index -a -f`` and ``git read-tree -u --reset HEAD`` put the index's or
  HEAD's copy over the appended segment, as ``git reset --hard`` does; without ``-f`` git
  leaves a file that exists ("already exists, no checkout"), ``read-tree -m -u`` keeps a
  local change, and without ``-u`` only the index changes.
* ``git mv capsules/c2 x`` moves a tracked capsule out of its place, as ``mv`` does.
* a patch whose headers name ``.labledger/config.toml`` rewrites the person's settings; one
  with ``+++ /dev/null`` for a capsule's file deletes it.

* ``git merge``, ``git cherry-pick``, ``git rebase`` and ``git pull`` stop over local
  changes to tracked files and over untracked files they would overwrite ("Your local
  changes to the following files would be overwritten by merge", "The following untracked
  working tree files would be overwritten by merge", "cannot rebase: You have unstaged
  changes"), but put a file the other history adds over an IGNORED one without a word: the
  usual layout ignores ``.labledger/`` and the capsules, so a branch that committed its own
  ``.labledger/config.toml`` replaced the person's. Only that is judged (git is asked which
  files the other history adds that are here untracked); what git refuses passes.

All of these passed unjudged.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


def _git(project: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=agent@example.com", "-c",
                           "user.name=agent", *args], cwd=project, check=True,
                          capture_output=True, text=True).stdout


def _segment(project: Path) -> Path:
    return next((project / ".labledger" / "ledger").rglob("*.jsonl"))


@pytest.fixture
def appended(box: Path, ledger: Ledger) -> Path:  # noqa: F811 - the fixture it builds on
    """The project with an event appended to its tracked ledger since the commit."""
    ledger.append("run.launched", run="r4", instance="vast-444", command=["python"])
    return box


def test_git_really_loses_the_appended_events_to_a_stash_then_dropped(appended: Path) -> None:
    """What the rows below stand on: git 2.39 itself."""
    before = _segment(appended).read_bytes()
    _git(appended, "stash")
    _git(appended, "stash", "drop")
    assert _segment(appended).read_bytes() != before
    assert b"vast-444" not in _segment(appended).read_bytes()


@pytest.mark.parametrize("command", [
    "git stash && git stash drop",
    "git stash; git stash clear",
    "git stash push -m wip && git stash drop -q",
    "git stash save wip && git stash drop stash@{0}",
])
def test_a_stash_of_the_ledger_then_dropped_is_blocked(appended: Path, command: str) -> None:
    verdict = _judged(appended, command)
    assert not verdict.allowed, command
    assert any("stashes, for `git stash" in r and "000000000000.jsonl, in " in r
               and "the labledger ledger" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "git stash",
    "git stash && git stash pop",
    "git stash && git pull && git stash pop",
    "git stash && git stash apply && git stash drop",
    "git stash push -- src && git stash drop",  # src has no change: nothing of it is lost
    "git stash list",
    "git stash show -p",
])
def test_a_stash_kept_or_put_back_passes(appended: Path, command: str) -> None:
    verdict = _judged(appended, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_a_stash_of_a_clean_work_tree_then_dropped_passes(box: Path) -> None:  # noqa: F811
    """Nothing changed since the commit, no stash there: nothing is lost."""
    assert _judged(box, "git stash && git stash drop").allowed


@pytest.mark.parametrize("command", [
    "git stash drop",
    "git stash drop 0",
    "git stash drop -q stash@{0}",
    "git stash clear",
    "git status && git stash drop",
])
def test_dropping_a_stash_that_holds_the_ledger_is_blocked(appended: Path,
                                                           command: str) -> None:
    """The stash was made by an earlier command (the agent's previous call): git is asked
    what the entry holds that the work tree does not (read-only)."""
    _git(appended, "stash")
    verdict = _judged(appended, command)
    assert not verdict.allowed, command
    assert any("the stash it drops" in r and "000000000000.jsonl, in " in r
               for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "git stash pop",  # it drops only what it applied
    "git stash apply && git stash drop",
    "git stash drop stash@{1}",  # no such entry: git refuses
    "git stash show --name-only",
])
def test_what_keeps_or_restores_a_stash_of_the_ledger_passes(appended: Path,
                                                             command: str) -> None:
    _git(appended, "stash")
    verdict = _judged(appended, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_dropping_a_stash_already_applied_passes(appended: Path) -> None:
    """``git stash apply`` ran (the agent's previous call): the work tree holds what the
    stash holds, so dropping it loses nothing."""
    _git(appended, "stash")
    _git(appended, "stash", "apply")
    assert _judged(appended, "git stash drop").allowed
    assert _judged(appended, "git stash clear").allowed


@pytest.fixture
def loose(box: Path) -> Path:  # noqa: F811 - the fixture it builds on
    """The project with the capsules and the export root untracked (not ignored) and the
    ledger ignored: ``git stash -u`` takes the capsules into the stash."""
    (box / ".gitignore").write_text(".labledger/\n")
    _git(box, "rm", "-r", "-q", "--cached", ".labledger", "capsules", "results")
    _git(box, "add", ".gitignore")
    _git(box, "commit", "-qm", "untrack the ledger and the capsules")
    return box


def test_dropping_a_stash_of_untracked_capsules_is_blocked(loose: Path) -> None:
    _git(loose, "stash", "-u", "--", "capsules")
    assert not (loose / "capsules").exists()  # git moved them into the stash
    verdict = _judged(loose, "git stash drop")
    assert not verdict.allowed
    assert any("/capsules/c2/" in r and "the capsule" in r for r in verdict.reasons), \
        verdict.reasons


def test_dropping_a_stash_of_a_verified_capsule_passes(loose: Path) -> None:
    _git(loose, "stash", "-u", "--", "capsules/c3")
    assert _judged(loose, "git stash drop").allowed


@pytest.mark.parametrize("command", [
    "git checkout-index -a -f",
    "git checkout-index --all --force",
    "git checkout-index -f -- {SEG}",
    "git read-tree -u --reset HEAD",
    "git read-tree --reset -u HEAD",
])
def test_writing_the_index_or_a_tree_over_the_appended_ledger_is_blocked(
        appended: Path, command: str) -> None:
    verdict = _judged(appended, command)
    assert not verdict.allowed, command
    assert any("overwrites" in r and "000000000000.jsonl, in " in r for r in verdict.reasons), \
        verdict.reasons


@pytest.mark.parametrize("command", [
    "git checkout-index -a",  # git leaves a file that exists
    "git checkout-index -f -- src/train.py",
    "git checkout-index -a -f --prefix=../export/",
    "git read-tree -m -u HEAD",  # a one-tree merge keeps local changes
    "git read-tree --reset HEAD",  # the index alone
])
def test_what_leaves_the_appended_ledger_as_it_is_passes(appended: Path, command: str) -> None:
    verdict = _judged(appended, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    "git mv capsules/c2 archive/c2",
    "git mv -f capsules/c2/metrics.json capsules/c2/old.json",
    "git -C capsules mv c2 ../moved",
])
def test_git_mv_of_an_unverified_capsule_is_blocked(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("deletes the capsule" in r and "/capsules/c2" in r for r in verdict.reasons), \
        verdict.reasons


@pytest.mark.parametrize("command", [
    "git mv capsules/c3 archive/c3",  # its stored copy verifies
    "git mv -n capsules/c2 archive/c2",  # a dry run
    "git mv src/train.py src/main.py",
])
def test_git_mv_of_nothing_unsafe_passes(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.fixture
def patches(box: Path) -> Path:  # noqa: F811 - the fixture it builds on
    """Patch files made by real ``git diff`` of edits since put back: ``cfg.diff`` (a line
    added to .labledger/config.toml), ``del.diff`` (capsules/c2/train.log deleted: ``+++
    /dev/null``), ``mod.diff`` (c2's metrics.json changed), ``add.diff`` (a new file in c2),
    ``del3.diff`` (c3's train.log deleted), ``src.diff`` (src/train.py changed)."""
    def diff(name: str, *paths: str) -> None:
        (box.parent / name).write_text(_git(box, "diff", "--", *paths))
        _git(box, "checkout", "-q", "--", *paths)

    with (box / ".labledger" / "config.toml").open("a") as f:
        f.write("# tuned\n")
    diff("cfg.diff", ".labledger/config.toml")
    (box / "capsules" / "c2" / "train.log").unlink()
    diff("del.diff", "capsules/c2")
    (box / "capsules" / "c2" / "metrics.json").write_text('{"acc": 0.99}\n')
    diff("mod.diff", "capsules/c2")
    (box / "capsules" / "c3" / "train.log").unlink()
    diff("del3.diff", "capsules/c3")
    (box / "src" / "train.py").write_text("print(3)\n")
    diff("src.diff", "src")
    (box / "capsules" / "c2" / "extra.txt").write_text("new\n")
    _git(box, "add", "-N", "capsules/c2/extra.txt")
    (box.parent / "add.diff").write_text(_git(box, "diff", "--", "capsules/c2"))
    _git(box, "rm", "-q", "--cached", "capsules/c2/extra.txt")
    (box / "capsules" / "c2" / "extra.txt").unlink()
    assert "+++ /dev/null" in (box.parent / "del.diff").read_text()
    return box


@pytest.mark.parametrize(("command", "what"), [
    ("git apply ../cfg.diff", "edits in place"),
    ("patch -p1 < ../cfg.diff", "edits in place"),
    ("git apply ../del.diff", "deletes the capsule"),
    ("patch -p1 -i ../del.diff", "deletes the capsule"),
    ("git apply ../mod.diff", "edits in place"),
    ("git apply --index ../mod.diff", "edits in place"),
    ("patch -p1 --input=../mod.diff", "edits in place"),
    ("git apply -R ../add.diff", "deletes the capsule"),  # reversed: the file goes
    ("patch capsules/c2/metrics.json < ../src.diff", "edits in place"),  # onto that file
    ("cd capsules && patch -p2 < ../../mod.diff", "edits in place"),
    ("git diff | git apply -R", "its patch cannot be read here"),
    ("git apply -R < /dev/stdin", "its patch cannot be read here"),
])
def test_a_patch_onto_the_ledger_or_an_unverified_capsule_is_blocked(
        patches: Path, command: str, what: str) -> None:
    verdict = _judged(patches, command)
    assert not verdict.allowed, command
    assert any(what in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "git apply ../src.diff",
    "patch -p1 < ../src.diff",
    "git apply --check ../cfg.diff",  # checks only
    "git apply --stat ../del.diff",
    "git apply --cached ../cfg.diff",  # the index alone
    "patch --dry-run -p1 < ../del.diff",
    "git apply ../add.diff",  # a new file in a capsule destroys nothing
    "git apply ../del3.diff",  # c3's stored copy verifies
    "patch < ../mod.diff",  # no -p: the path as written, or metrics.json here: neither is
])
def test_a_patch_of_nothing_protected_passes(patches: Path, command: str) -> None:
    verdict = _judged(patches, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    "git stash",
    "git stash push -m wip",
    "git stash && git stash pop",
    "git stash drop",  # no stash there
    "git stash clear",
])
def test_a_stash_that_takes_nothing_protected_does_not_read_the_whole_ledger(
        box: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The ledger tracked, only src/ changed, nothing staged: git says (read-only) that the
    stash takes no protected file and that there is no stash to drop, so every line of the
    ledger (`gate_events`: 2 s for 50,000 events, as every ``git stash`` paid) is not read."""
    import labledger.reconcile.pull_verified as pull_verified

    def read_all(*_: object, **__: object) -> None:
        raise AssertionError("the whole ledger was read")

    (box / "src" / "train.py").write_text("print(2)\n")
    monkeypatch.setattr(pull_verified, "gate_events", read_all)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.fixture
def theirs(box: Path) -> Path:  # noqa: F811 - the fixture it builds on
    """The usual layout (the ledger, the capsules and the export root ignored and untracked)
    and a branch ``other`` whose commit adds, forced past .gitignore, its own
    ``.labledger/config.toml`` and ``capsules/c2/metrics.json`` (made in a second work tree:
    the project's own is left as it is)."""
    (box / ".gitignore").write_text(".labledger/\ncapsules/\nresults/\n")
    _git(box, "rm", "-r", "-q", "--cached", ".labledger", "capsules", "results")
    _git(box, "add", ".gitignore")
    _git(box, "commit", "-qm", "untrack the ledger and the capsules")
    other = box.parent / "wt-other"
    _git(box, "worktree", "add", "-q", "-b", "other", str(other))
    (other / "capsules" / "c2").mkdir(parents=True)
    (other / "capsules" / "c2" / "metrics.json").write_text('{"acc": 0.5}\n')
    (other / ".labledger").mkdir()
    (other / ".labledger" / "config.toml").write_text("x = 1\n")
    _git(other, "add", "-f", "capsules/c2/metrics.json", ".labledger/config.toml")
    _git(other, "commit", "-qm", "their results")
    return box


def test_git_really_overwrites_ignored_files_in_a_merge(theirs: Path) -> None:
    """What the rows below stand on: git 2.39 itself, with no word of warning."""
    config = (theirs / ".labledger" / "config.toml").read_text()
    _git(theirs, "merge", "-q", "other")
    assert (theirs / ".labledger" / "config.toml").read_text() == "x = 1\n" != config
    assert (theirs / "capsules" / "c2" / "metrics.json").read_text() == '{"acc": 0.5}\n'


@pytest.mark.parametrize("command", [
    "git merge other",
    "git merge --no-ff -m 'take theirs' other",
    "git cherry-pick other",
    "git rebase other",
    "git pull . other",
])
def test_bringing_in_files_over_the_ignored_ledger_is_blocked(theirs: Path,
                                                              command: str) -> None:
    verdict = _judged(theirs, command)
    assert not verdict.allowed, command
    assert any("git overwrites an ignored file" in r and "/.labledger/config.toml, in " in r
               for r in verdict.reasons), verdict.reasons
    assert any("/capsules/c2/metrics.json, in the capsule" in r for r in verdict.reasons), \
        verdict.reasons


def test_a_pull_from_an_upstream_that_adds_them_is_blocked(theirs: Path) -> None:
    """What the upstream holds as fetched already is asked (what the pull fetches cannot
    be); no upstream: nothing is known, the pull passes."""
    assert _judged(theirs, "git pull").allowed
    _git(theirs, "branch", "--set-upstream-to=other")
    verdict = _judged(theirs, "git pull")
    assert not verdict.allowed
    assert any("/.labledger/config.toml, in " in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "git merge main",  # nothing new
    "git merge no-such-branch",  # git refuses
    "git merge --abort",
    "git cherry-pick --continue",
    "git pull",  # no upstream
    "git fetch && git log other",
])
def test_what_brings_in_nothing_over_an_ignored_file_passes(theirs: Path,
                                                            command: str) -> None:
    _git(theirs, "branch", "-M", "main")
    verdict = _judged(theirs, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_a_merge_adding_files_where_none_is_here_passes(theirs: Path) -> None:
    """A branch that adds, forced past .gitignore, a capsule this project does not have
    (``capsules/c9``): nothing local is overwritten."""
    other = theirs.parent / "wt-new"
    _git(theirs, "worktree", "add", "-q", "-b", "new", str(other), "HEAD")
    (other / "capsules" / "c9").mkdir(parents=True)
    (other / "capsules" / "c9" / "metrics.json").write_text('{"acc": 0.7}\n')
    _git(other, "add", "-f", "capsules/c9/metrics.json")
    _git(other, "commit", "-qm", "a capsule of theirs")
    verdict = _judged(theirs, "git merge new")
    assert verdict.allowed, verdict.reasons
