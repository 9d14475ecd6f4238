"""`labledger hook` against the git commands of review 50 that still removed a capsule (or
the ledger) unseen, through the real console script, and the false alarms of round 11.

1. A ``-C``/``--work-tree`` computed when it runs (``git -C "$D" clean -fdx``) may name any
   repository the line reaches: the project's included.
2. ``--config-env=alias.c=V`` takes V's value from the environment git inherits: only a
   literal assignment in front of that same command says what it is. Any other (``export
   V=...`` earlier, ``V=$(...)``, an assignment to the shell that runs git) is unread.
   A word holding ``$(...)`` with blanks inside is one word (``X=$(echo a b) rm -rf
   capsules`` ran ``rm``, not a command named ``b)``).
3. ``git -c include.path=FILE`` (``includeIf.COND.path``, ``GIT_CONFIG_KEY_n``) reads FILE's
   aliases too: followed when it can be read, unread (fail closed) when it cannot.
4. Text order is not run order: a loop runs its body again, a function runs where it is
   called, ``&`` runs both sides at once. ``git config alias.X`` anywhere in the line defines
   X for every git command of it, and where the line holds a loop, a function or a ``&``, a
   command after an alias's use that may change git's config makes the alias unread.
5. A write whose target is a glob or computed (``echo x >> .g?tignore``, ``>> $F`` where
   ``F=$(printf .%s gitignore)``) may write a git file: a later clean is not asked of git.
6. A plain ``git stash`` removes from the work tree the staged files HEAD does not hold
   (``git add -f capsules && git stash`` deletes the capsule): git is asked which staged
   files are new; after an earlier ``git add`` of the line, what it may add counts too.
7. Only what may change git's aliases makes a later alias unread: a ``git config`` write of
   an alias or include key (not ``user.email``), a write to a config file or to a file a
   config ``[include]`` names (also one in the work tree written by any command), and a git
   command that writes the work tree (``checkout``, ``pull``...) only when an ``[include]``
   points into it. ``git fetch && git st`` (``st = status``) passes.

Every judgment must leave the project's files and its git config as they were (`judged`):
the hook's own questions to git are read-only. The project is `test_hook_round8`'s
(``capsules/c2`` sealed with no stored copy: deleting it is refused) in a real git repository
(git 2.39 on the test machine).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import assert_passes
from tests.reconcile.test_hook_round11 import assert_deletes, home, hook, judged

box = round8.box
__all__ = ["box", "home", "hook"]  # fixtures, used by name

BOTH = ".labledger/\ncapsules/\n"


# 1: a computed -C or --work-tree ---------------------------------------------------------------
# git(1): `-C PATH` runs git as if started in PATH, `--work-tree=PATH` sets the work tree; a
# value computed when it runs may be any folder, the project's repository included
@pytest.mark.parametrize("command", [
    "D=.; git -C $D clean -fdx",
    "D=.; git -C $D stash -a",
    'git -C "$(git rev-parse --show-toplevel)" clean -fdx',
    'git -C "$(git rev-parse --show-toplevel)" stash -a',
    "D=.; echo clean -fdx | xargs git -C $D",
    'D=.; git -C "$D" -c alias.c=clean c -fdx',
    'D=$(pwd); S=clean; git -C "$D" $S -fdx',
    'S=clean; git -C "$(pwd)" $S -fdx',
    'git --work-tree="$(git rev-parse --show-toplevel)" clean -fdx',
    "git -C `pwd` clean -fdx",
])
def test_a_computed_git_folder_stands_for_every_repository_it_may_reach(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    assert_deletes(judged(hook, box, command), command)


def test_a_computed_git_folder_reaches_the_project_from_a_nested_repository(
        hook: Callable[..., Any], box: Path) -> None:
    # the agent works in a repository of its own inside the project (a vendored library):
    # `..` from there, computed, is the project's repository
    round8._repository(box, BOTH)
    vendor = box / "vendor"
    vendor.mkdir()
    subprocess.run(["git", "init", "-q", "."], cwd=vendor, check=True)
    command = "D=..; git -C $D clean -fdx"
    assert_deletes(judged(hook, box, command, cwd=vendor), command)


@pytest.mark.parametrize("command", [
    "D=src; git -C $D status",
    'git -C "$(git rev-parse --show-toplevel)" clean -ndx',
    'git -C "$(git rev-parse --show-toplevel)" log -3',
    "D=.; git -C $D stash list",
])
def test_a_computed_git_folder_that_removes_nothing_passes(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    assert_passes(judged(hook, box, command), command)


# 2: --config-env whose value the line does not say -------------------------------------------
# git(1) `--config-env=NAME=ENVVAR`: NAME's value is ENVVAR's in git's environment (git 2.39
# dies when it is unset: "missing environment variable")
@pytest.mark.parametrize("command", [
    "export V='clean -fdx'; git --config-env=alias.c=V c",
    "V='clean -fdx'; export V; git --config-env alias.c=V c",
    "declare -x V='clean -fdx'; git --config-env=alias.c=V c",
    "(export V='clean -fdx'; git --config-env=alias.c=V c)",
    "V=$(echo clean) git --config-env=alias.c=V c -fdx",
    "V='clean -fdx' bash -c 'git --config-env=alias.c=V c'",
    "V=clean; git --config-env=include.path=V c -fdx",
])
def test_a_config_env_value_not_given_with_the_command_fails_closed(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    result = judged(hook, box, command)
    assert_deletes(result, command)
    assert "may be an alias" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [
    "V=status git --config-env=alias.c=V c",
    "env V=status git --config-env alias.c=V c",
    "export V='clean -fdx'; git --config-env=alias.c=V status",  # git's own command first
])
def test_a_config_env_value_given_with_the_command_is_read(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    assert_passes(judged(hook, box, command), command)


# bash(1) "Command Substitution": `$(command)` is one word, blanks inside and all
@pytest.mark.parametrize("command", [
    "X=$(echo a b) rm -rf capsules",
    "X=$(echo a b) git clean -fdx",
    "X=`echo a b` rm -rf capsules",
    "git -C $(echo . x) clean -fdx",
])
def test_a_substitution_with_blanks_is_one_word(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    assert_deletes(judged(hook, box, command), command)


# 3: a config file included from the command line ---------------------------------------------
# git-config(1) "Includes": `include.path` and `includeIf.<condition>.path` name a file whose
# config is read as if it stood there, also given by `-c` or GIT_CONFIG_KEY_n (git 2.39 reads
# them; a relative path from the command line is refused: "relative config includes must
# come from files", and git dies)
def _included(box: Path, text: str) -> Path:
    folder = box.parent / "cfg"
    folder.mkdir(exist_ok=True)
    (folder / "inner.cfg").write_text("[alias]\n\tinner = clean -fdx\n")
    (folder / "team.cfg").write_text(text)
    return folder / "team.cfg"


@pytest.mark.parametrize(("config", "command"), [
    ("[alias]\n\tzz = clean -fdx\n", "git -c include.path={cfg} zz"),
    ("[alias]\n\tzz = clean\n", "git -c include.path={cfg} zz -fdx"),
    ("[alias]\n\tzz = clean -fdx\n", "git -c 'includeIf.gitdir:**.path={cfg}' zz"),
    ("[alias]\n\tzz = clean -fdx\n",
     "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0={cfg} git zz"),
    ("[include]\n\tpath = inner.cfg\n", "git -c include.path={cfg} inner"),
    ('[alias]\n\tzz = "!git clean -fdx"\n', "git -c include.path={cfg} zz"),
])
def test_a_config_included_from_the_command_line_is_read(
        hook: Callable[..., Any], box: Path, config: str, command: str) -> None:
    round8._repository(box, BOTH)
    command = command.format(cfg=_included(box, config))
    assert_deletes(judged(hook, box, command), command)


def test_a_config_included_from_home_is_read(
        hook: Callable[..., Any], box: Path, home: Path) -> None:
    round8._repository(box, BOTH)
    (home / "team.cfg").write_text("[alias]\n\tzz = clean -fdx\n")
    command = "git -c include.path=~/team.cfg zz"
    assert_deletes(judged(hook, box, command), command)


@pytest.mark.parametrize("command", [
    "git -c include.path={missing} zz",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0={missing} git zz",
    "git -c includeIf.onbranch:main.path={missing} zz -fdx",
])
def test_an_included_config_that_cannot_be_read_fails_closed(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    # the line may write it before git reads it: `zz` may then be any alias
    round8._repository(box, BOTH)
    command = command.format(missing=box.parent / "nowhere.cfg")
    result = judged(hook, box, command)
    assert_deletes(result, command)
    assert "may be an alias" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [
    "git -c include.path={cfg} zz",  # zz = status
    "git -c include.path={missing} status",  # git's own command: no alias looked up
    "git -c include.path=team.cfg zz",  # relative: git refuses it
])
def test_an_included_config_without_a_clean_passes(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    cfg = _included(box, "[alias]\n\tzz = status\n")
    command = command.format(cfg=cfg, missing=box.parent / "nowhere.cfg")
    assert_passes(judged(hook, box, command), command)


# 4: text order is not run order -----------------------------------------------------------------
# bash(1): `for`/`while` run their body again (the second `git c` runs after the `git config`),
# a function's body runs where it is called, `A & B` runs A in the background beside B
@pytest.mark.parametrize("command", [
    "for i in 1 2; do git c -fdx; git config alias.c clean; done",
    "while true; do git c -fdx; git config alias.c clean; done",
    "f(){ git c -fdx; }; git config alias.c clean; f",
    "function f { git c -fdx; }; git config alias.c clean; f",
    "git c -fdx & git config alias.c clean",
    "git c -fdx; git config alias.c clean",
    "bash -c 'git c -fdx'; git config alias.c clean",
    "git d -fdx; git config alias.d c; git config alias.c clean",
])
def test_an_alias_defined_later_in_the_line_is_judged(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    assert_deletes(judged(hook, box, command), command)


@pytest.mark.parametrize("command", [
    "for i in 1 2; do git c -fdx; echo '[alias] c = clean' >> .git/config; done",
    "f(){ git c -fdx; }; git config -e; f",
    "git c -fdx & printf '[alias]\\n\\tc = clean\\n' >> .git/config",
])
def test_a_config_change_after_an_alias_in_a_loop_fails_closed(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    result = judged(hook, box, command)
    assert_deletes(result, command)
    assert "may be an alias" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [
    "git config alias.c status; git c",
    "for i in 1 2; do git st; done",
    "git st; echo '[alias] c = clean' >> .git/config",  # in order: st ran first
    "for f in src/*.py; do git add $f; done; git st",
])
def test_aliases_in_and_out_of_order_that_run_no_clean_pass(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    with (box / ".git" / "config").open("a") as f:
        f.write("[alias]\n\tst = status\n")
    assert_passes(judged(hook, box, command), command)


# 5: a glob or a computed write target ------------------------------------------------------
# bash(1) "Redirection": the word after `>`/`>>` is expanded, a glob included (one match: that
# file); gitignore(5): a pattern added before a `git clean -X` changes what it removes
@pytest.mark.parametrize(("ignored", "command"), [
    ("build/\n", "echo capsules/ >> .g?tignore; git clean -fdX"),
    (BOTH, "echo src > .g?tignore; git clean -fd"),
    ("build/\n", "echo capsules/ >> .git[i]gnore; git clean -fdX"),
    ("build/\n", "echo capsules/ >> .git/info/ex*; git clean -fdX"),
    ("build/\n", "F=$(printf .%s gitignore); echo capsules/ >> $F; git clean -fdX"),
    ("build/\n", "echo capsules/ >> $(printf .%s gitignore); git clean -fdX"),
    ("build/\n", "F=.gi; echo capsules/ >> ${F}tignore; git clean -fdX"),
    ("build/\n", "F=.gitignore; G=$F; echo capsules/ >> $G; git clean -fdX"),
    (BOTH, "echo src > .g?tignore; git stash -u"),
    ("build/\n", "sed -i 's/build/capsules/' .g*; git clean -fdX"),
])
def test_a_glob_or_computed_write_target_fails_closed(
        hook: Callable[..., Any], box: Path, ignored: str, command: str) -> None:
    round8._repository(box, ignored)
    assert_deletes(judged(hook, box, command), command)


@pytest.mark.parametrize("command", [
    "OUT=out.txt; echo hi > $OUT; git clean -fdX",
    'echo "$(date)" >> notes.txt; git clean -fdX',
    "rm -f src/*.pyc; git clean -fdX",
    "echo hi > logs/*.txt; git clean -fdX",
    "echo hi > $HOME/notes.txt; git clean -fdX",
])
def test_a_glob_or_computed_write_naming_no_git_file_still_asks_git(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, "build/\n")
    assert_passes(judged(hook, box, command), command)


# 6: a plain stash takes the staged files HEAD does not hold --------------------------------------
# git-stash(1), git 2.39 do_push_stash: without --keep-index the work tree is reset to HEAD
# (`reset --hard`, or the pathspec's files checked out from HEAD), so a file added to the index
# but not in HEAD leaves it; `--staged` does the same for the staged changes; `-k` keeps them.
# Checked against git 2.39.5: `git add -f caps; git stash` removes caps/, `git stash -k` not.
@pytest.mark.parametrize(("command", "what"), [
    ("git stash", "deletes the capsule"),
    ("git stash push -m wip", "deletes the capsule"),
    ("git stash save wip", "deletes the capsule"),
    ("git stash --staged", "deletes the capsule"),
    ("git stash push -- capsules", "deletes the capsule"),
    ("git stash -k --no-keep-index", "deletes the capsule"),
    ("cd src && git stash", "deletes the capsule"),
    ("git -c alias.s=stash s", "deletes the capsule"),
    ("git stash -u", "deletes the capsule"),  # the staged capsule is no untracked file
])
def test_a_stash_of_a_staged_capsule_is_judged_as_its_delete(
        hook: Callable[..., Any], box: Path, command: str, what: str) -> None:
    round8._repository(box, BOTH)
    round8._git(box, "add", "-f", "capsules")
    result = judged(hook, box, command)
    assert_deletes(result, command, what)
    assert "staged" in result.stderr, result.stderr


@pytest.mark.parametrize(("command", "what"), [
    ("git add -f capsules && git stash", "deletes the capsule"),
    ("git add -f capsules/c2/metrics.json; git stash", "deletes the capsule"),
    ("git add --force . && git stash", "deletes the capsule"),
    ("git add -A && git stash", "deletes the capsule"),
    ("git add -f .labledger && git stash push -m x", "the labledger ledger"),
    ("cd capsules && git add -f c2 && git stash", "deletes the capsule"),
    ("echo capsules | xargs git add -f && git stash", "deletes the capsule"),
    ("git update-index --add capsules/c2/metrics.json && git stash", "deletes the capsule"),
    ("git stash; git add -f capsules & git stash", "deletes the capsule"),
    # git-checkout(1): `checkout TREE-ISH -- PATHSPEC` stages what it checks out
    ("git checkout HEAD~1 -- capsules && git stash", "deletes the capsule"),
    ("git restore --staged --source=HEAD~1 capsules && git stash", "deletes the capsule"),
])
def test_a_stash_after_an_add_that_may_stage_a_capsule_fails_closed(
        hook: Callable[..., Any], box: Path, command: str, what: str) -> None:
    round8._repository(box, BOTH)
    assert_deletes(judged(hook, box, command), command, what)


@pytest.mark.parametrize(("staged", "command"), [
    (False, "git stash"),
    (False, "git stash && git pull && git stash pop"),
    (False, "git add src/train.py && git stash"),
    (False, "git add -u && git stash"),  # -u stages no new file
    (False, "git commit -am wip && git stash"),
    (False, "git checkout main && git stash"),
    (False, "git checkout -b feat && git stash"),
    (False, "git checkout -- src && git stash"),
    (False, "git restore src && git stash"),
    (True, "git stash -k"),
    (True, "git stash push --keep-index -m wip"),
    (True, "git stash push -- src"),
    (True, "git stash list"),
    (True, "git stash show -p"),
])
def test_a_stash_that_leaves_the_capsule_passes(
        hook: Callable[..., Any], box: Path, staged: bool, command: str) -> None:
    round8._repository(box, BOTH)
    if staged:
        round8._git(box, "add", "-f", "capsules")
    assert_passes(judged(hook, box, command), command)


# 7: what may change git's aliases, and what may not -------------------------------------------
ALIASES = "[alias]\n\tst = status\n\tlg = log --oneline\n"


@pytest.mark.parametrize("command", [
    "git checkout main && git st",
    "git pull && git lg",
    "git fetch && git st",
    "git switch -c feat && git st",
    "git checkout -b x && git lg -3",
    "git config user.email a@b && git st",
    "git config --global core.editor vim && git st",
    "echo '*.pyc' >> .gitignore && git st",  # an ignore file defines no alias
    "git pull && git lfs pull",  # git-lfs may be missing: `lfs` is then an alias's name
    "git remote add up https://example.com/r.git && git st",
    "git stash && git pull && git stash pop && git st",
    "printf x > tools/notes.txt; git st",
    "git worktree add ../wt && cd ../wt && git st",
    "git clone https://example.com/r.git x && cd x && git st",
])
def test_commands_that_leave_git_aliases_alone_keep_them_readable(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    (box / "tools").mkdir()
    with (box / ".git" / "config").open("a") as f:
        f.write(ALIASES)
    assert_passes(judged(hook, box, command), command)


@pytest.mark.parametrize("command", [
    "git config --file .git/config alias.st clean && git st",
    "git config --global include.path ~/x.cfg; git st",
    "git config --unset alias.lg && git lg",
    "git config -e && git st",
    "echo '[alias] st = clean -fdx' >> ~/.gitconfig; git st",
    "cp /tmp/other.cfg .git/config && git st",
    "K=alias.st; git config $K clean && git st",
])
def test_commands_that_may_change_git_aliases_make_them_unread(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    with (box / ".git" / "config").open("a") as f:
        f.write(ALIASES)
    result = judged(hook, box, command)
    assert_deletes(result, command)
    assert "may be an alias" in result.stderr, result.stderr


# git-config(1) "Includes": a path relative to the config file holding the [include]; a file
# of the work tree that checkout, pull or any writing command may change
@pytest.mark.parametrize("command", [
    "git checkout main && git st",
    "git pull && git lg",
    "printf '[alias]\\n\\tst = clean -fdx\\n' > tools/git.cfg; git st",
    "cp /tmp/other.cfg tools/git.cfg && git st",
    "cp -r /tmp/t tools && git st",
    "F=tools/git.cfg; echo x >> $F; git st",
    "echo x >> tools/*.cfg; git st",
])
def test_an_include_into_the_work_tree_makes_aliases_unread_after_a_write(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, BOTH)
    (box / "tools").mkdir()
    (box / "tools" / "git.cfg").write_text("\n")
    with (box / ".git" / "config").open("a") as f:
        f.write(ALIASES + "[include]\n\tpath = ../tools/git.cfg\n")
    result = judged(hook, box, command)
    assert_deletes(result, command)
    assert "may be an alias" in result.stderr, result.stderr


def test_a_config_included_from_the_command_line_and_written_before_fails_closed(
        hook: Callable[..., Any], box: Path) -> None:
    round8._repository(box, BOTH)
    cfg = _included(box, "[alias]\n\tzz = status\n")
    command = f"printf '[alias]\\n\\tzz = clean -fdx\\n' > {cfg}; git -c include.path={cfg} zz"
    result = judged(hook, box, command)
    assert_deletes(result, command)
    assert "may be an alias" in result.stderr, result.stderr


def test_a_remote_that_may_meet_a_hasconfig_include_makes_aliases_unread(
        hook: Callable[..., Any], box: Path) -> None:
    # git-config(1) "hasconfig:remote.*.url:": the include holds once a remote's URL matches
    round8._repository(box, BOTH)
    cfg = _included(box, "[alias]\n\tst = clean -fdx\n")
    with (box / ".git" / "config").open("a") as f:
        f.write(ALIASES + f'[includeIf "hasconfig:remote.*.url:https://example.com/**"]\n'
                f"\tpath = {cfg}\n")
    command = "git remote add up https://example.com/r.git && git st"
    result = judged(hook, box, command)
    assert_deletes(result, command)


@pytest.mark.parametrize("command", [
    "git config user.name x && git -c alias.c=clean c -fd",
    "git config --global user.email a@b && git clean -fd",
    "git config pull.rebase true; git stash -u",
])
def test_a_config_write_that_changes_nothing_a_clean_reads_still_asks_git(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    # git-clean(1) without -x keeps what .gitignore ignores: the capsule and the ledger
    round8._repository(box, BOTH)
    assert_passes(judged(hook, box, command), command)
