"""`labledger hook` against the git commands that write tracked files back over the work tree:
``git checkout [TREE-ISH] -- PATH``, ``git checkout .``, ``git restore [--source=X] PATH``,
``git reset --hard``, a forced switch (``git checkout -f BRANCH``).

They passed unjudged: with the ledger or a capsule tracked (`test_hook_writes`'s project: it
commits both), ``git checkout -- .labledger/config.toml`` put back an old config over a
person's edit, ``git reset --hard`` rolled the ledger back past the events appended since the
commit, and ``git checkout HEAD -- capsules/c2`` overwrote a capsule whose stored copy does not
verify. Each is now judged as the write it is: git is asked, read-only, which tracked files the
command would change (``git diff --name-only``); one of the ledger (its cache aside) is always
refused, one of a capsule is judged as deleting the capsule (allowed when its stored copy
verifies). What changes the index alone (``git restore --staged``), a switch git itself refuses
over local changes, a new branch from HEAD and a path whose tracked copy is the file as it is
now pass.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=agent@example.com", "-c", "user.name=agent",
                    *args], cwd=project, check=True, capture_output=True)


@pytest.fixture
def edited(box: Path) -> Path:  # noqa: F811 - the fixture it builds on
    """The project with a person's edit of the tracked config.toml, a changed file in the
    unverified capsule c2 and in the verified c3, and a changed source file."""
    with (box / ".labledger" / "config.toml").open("a") as f:
        f.write("# tuned by hand\n")
    for name in ("c2", "c3"):
        (box / "capsules" / name / "metrics.json").write_text('{"acc": 0.93}\n')
    (box / "src" / "train.py").write_text("print(2)\n")
    _git(box, "branch", "other")
    return box


@pytest.mark.parametrize(("command", "what"), [
    ("git checkout -- .labledger/config.toml", "the labledger ledger"),
    ("git checkout .labledger", "the labledger ledger"),
    ("git checkout HEAD -- .labledger/config.toml", "the labledger ledger"),
    ("git checkout .", "the labledger ledger"),
    ("git restore .labledger/config.toml", "the labledger ledger"),
    ("git restore -W -- .labledger", "the labledger ledger"),
    ("git restore --source=HEAD .", "the labledger ledger"),
    ("git -C .labledger restore config.toml", "the labledger ledger"),
    ("git reset --hard", "the labledger ledger"),
    ("git reset --hard HEAD", "the labledger ledger"),
    ("git checkout HEAD -- capsules/c2", "the capsule"),
    ("git checkout -- capsules/c2/metrics.json", "the capsule"),
    ("git checkout HEAD capsules", "the capsule"),
    ("git restore capsules/c2/metrics.json", "the capsule"),
    ("git restore -s HEAD capsules/c2", "the capsule"),
    ("git restore --staged --worktree capsules/c2", "the capsule"),
    ("cd capsules && git restore c2", "the capsule"),
    ("git checkout -f other", "the capsule"),
    ("git switch --discard-changes other", "the capsule"),
])
def test_writing_back_a_changed_protected_file_is_blocked(edited: Path, command: str,
                                                          what: str) -> None:
    verdict = _judged(edited, command)
    assert not verdict.allowed, command
    assert any("overwrites" in r and what in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "git checkout other",  # git itself refuses to switch over local changes
    "git checkout -b next",
    "git switch -c next",
    "git checkout -q other -- src/train.py",
    "git checkout -- src/train.py",
    "git restore src",
    "git restore --staged .labledger/config.toml capsules",  # the index alone
    "git restore -S .",
    "git checkout -- capsules/c3",  # its stored copy verifies
    "git checkout -- results",  # tracked, and as it is now
    "git reset HEAD .labledger/config.toml",  # the index alone
    "git reset --soft HEAD",
    "git log -- .labledger/config.toml",
    "git diff -- capsules",
])
def test_what_writes_no_changed_protected_file_passes(edited: Path, command: str) -> None:
    verdict = _judged(edited, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_reset_hard_over_events_appended_since_the_commit_is_blocked(
        box: Path, ledger: Ledger) -> None:  # noqa: F811 - the fixture it builds on
    """The ledger tracked in git, one event appended after the commit: ``git reset --hard``
    would take it out of the segment (the hash chain then ends before it)."""
    ledger.append("run.launched", run="r4", instance="vast-444", command=["python"])
    verdict = _judged(box, "git reset --hard")
    assert not verdict.allowed
    assert any("overwrites" in r and "the labledger ledger" in r for r in verdict.reasons), \
        verdict.reasons
    assert _judged(box, "git reset --hard && git status").allowed is False


def test_a_clean_work_tree_passes_a_hard_reset(box: Path) -> None:  # noqa: F811
    assert _judged(box, "git reset --hard").allowed
    assert _judged(box, "git checkout .").allowed
    assert _judged(box, "git restore .").allowed


@pytest.fixture
def ignored(edited: Path) -> Path:
    """`edited` with the ledger, the capsules and the export root untracked and ignored (the
    usual layout: ``.labledger/`` and run folders in .gitignore)."""
    (edited / ".gitignore").write_text(".labledger/\ncapsules/\nresults/\n")
    _git(edited, "rm", "-r", "-q", "--cached", ".labledger", "capsules", "results")
    _git(edited, "add", ".gitignore")
    _git(edited, "commit", "-qm", "untrack the ledger and the capsules")
    return edited


@pytest.mark.parametrize("command", [
    "git stash && git checkout other",
    "git pull && git checkout -- .",
    "git add -A && git reset --hard",
    "git fetch && git reset --hard HEAD",
    'F=src; git checkout -- "$F"',
])
def test_after_a_git_state_change_only_tracked_protected_files_count(
        ignored: Path, edited: Path, command: str) -> None:
    """What git would change cannot be asked before an earlier command of the line runs (a
    stash, a pull, an add) or for a computed word: every tracked file may change. Nothing
    protected is tracked here: the line passes; in `edited` (all tracked) it is blocked."""
    assert _judged(ignored, command).allowed, command


@pytest.mark.parametrize("command", [
    "git stash && git checkout -- capsules/c2",
    "git add -A && git reset --hard",
    'F=capsules; git checkout -- "$F"',
])
def test_after_a_git_state_change_a_tracked_protected_file_is_blocked(
        edited: Path, command: str) -> None:
    verdict = _judged(edited, command)
    assert not verdict.allowed, command
    assert any("may overwrite" in r for r in verdict.reasons), verdict.reasons


def test_the_reason_names_the_file_git_writes_back(edited: Path) -> None:
    verdict = _judged(edited, "git checkout .")
    assert any("overwrites" in r and "/.labledger/config.toml, in " in r
               for r in verdict.reasons), verdict.reasons
    assert any("/capsules/c2/metrics.json, in the capsule" in r for r in verdict.reasons), \
        verdict.reasons


@pytest.mark.parametrize("command", [
    "git add -f .labledger && git reset --hard",
    "git add --force capsules/c2 && git reset --hard HEAD",
    "git add -A -f; git reset --hard",
])
def test_a_hard_reset_after_a_forced_add_of_an_ignored_protected_folder_is_blocked(
        ignored: Path, command: str) -> None:
    """git-reset(1) --hard: "Any untracked files or directories in the way of writing any
    tracked files are simply deleted", and a file staged that the commit does not hold leaves
    the index and the work tree: ``git add -f .labledger && git reset --hard`` leaves an
    empty ``.labledger/cas`` (tried with git 2.39). Nothing protected is tracked here, so git
    cannot be asked beforehand; what the add stages of a protected folder is (``git ls-files
    --others``, read-only)."""
    verdict = _judged(ignored, command)
    assert not verdict.allowed, command
    assert any("deletes" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "git add -A && git reset --hard",  # git adds no ignored file without -f
    "git add -f src && git reset --hard",
    "git add -f .labledger/cache && git reset --hard",  # the ledger's cache is spared
    "git add -f capsules/c3 && git reset --hard",  # c3's stored copy verifies
])
def test_a_hard_reset_after_an_add_of_nothing_protected_passes(ignored: Path,
                                                               command: str) -> None:
    verdict = _judged(ignored, command)
    assert verdict.allowed, (command, verdict.reasons)


def _ledger_branch(project: Path, name: str) -> None:
    """A branch ``name`` whose commit changes the tracked .labledger/config.toml (made in a
    second work tree: the project's own is left as it is)."""
    other = project.parent / f"wt-{name}"
    _git(project, "worktree", "add", "-q", "-b", name, str(other))
    with (other / ".labledger" / "config.toml").open("a") as f:
        f.write("# the branch's config\n")
    _git(other, "commit", "-qam", "the branch's config")


@pytest.mark.parametrize("command", [
    "git stash && git checkout main && git stash pop",
    "git stash && git switch main",
    "git add src && git checkout main",
])
def test_a_switch_after_a_stash_is_asked_of_git(edited: Path, command: str) -> None:
    """A switch writes what differs between HEAD and the branch (`_switch`), and a stash or
    an add before it changes neither: git is asked as for the switch alone. ``main`` is
    HEAD's commit: nothing changes, the line passes (it was blocked as if every tracked file
    of the ledger might be written); to a branch whose ledger config differs it is blocked.
    (A branch named as a folder of the work tree, ``other``, may be read as a path by git:
    what an earlier command changes still counts for it.)"""
    _git(edited, "branch", "-M", "main")
    assert _judged(edited, command).allowed, command
    _ledger_branch(edited, "tuned")
    verdict = _judged(edited, command.replace("main", "tuned"))
    assert not verdict.allowed
    assert any("/.labledger/config.toml, in " in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "git reset --hard",
    "git checkout .",
    "git restore .",
    "git checkout other",
    "git switch other",
])
def test_a_write_back_that_changes_no_protected_file_does_not_read_the_whole_ledger(
        box: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The ledger tracked, only src/ changed: git says which files it changes (none in a
    protected folder), so every line of the ledger (`gate_events`: 0.3 s for 50,000
    events) need not be read and verified."""
    import labledger.reconcile.pull_verified as pull_verified

    def read_all(*_: object, **__: object) -> None:
        raise AssertionError("the whole ledger was read")

    _git(box, "branch", "other")
    (box / "src" / "train.py").write_text("print(2)\n")
    monkeypatch.setattr(pull_verified, "gate_events", read_all)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)
