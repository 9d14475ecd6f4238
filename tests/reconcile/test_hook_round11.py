"""`labledger hook` against the git commands that remove what a ``git clean`` would, under
other names, through the real console script.

1. A git alias of ``clean``: given on the command line (``git -c alias.c=clean c -fdx``),
   defined earlier in the same line (``git config alias.c clean; git c -fdx``) or in a config
   file git reads (``.git/config``, ``~/.gitconfig``). What cannot be read before the line
   runs (a config written on the way, a subcommand computed when it runs) is judged as a
   clean that may reach anything in the repository (fail closed).
2. A subcommand xargs appends (``echo clean -fdx | xargs git``): the same.
3. ``git stash -u``/``-a`` moves untracked (and, with ``-a``, ignored) files out of the work
   tree: a clean of them, asked of git as a dry run.
4. A ``.gitignore`` written through a computed path (``F=.gitignore; echo x >> $F``) before a
   clean makes git's answer now worthless, as a literal ``.gitignore`` write does.

The project is `test_hook_round8`'s (pod-abc123 unverified, ``capsules/c2`` sealed with no
stored copy: deleting it is refused), in a real git repository. Every judgment must leave the
project's files as they were: the hook's own questions to git are read-only. The hook runs with
a HOME of its own and no system git config (the machine's user config is never read).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes, claude

box = round8.box
EXE = Path(sys.executable).with_name("labledger")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def hook(box: Path, home: Path) -> Callable[..., Any]:
    """The hook on ``command`` (payload cwd: the project, or ``cwd``), HOME ``home``, no
    system git config, no GIT_* or XDG_CONFIG_HOME variable of the machine's."""

    def run(command: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("GIT_") and k != "XDG_CONFIG_HOME"}
        env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1")
        return subprocess.run([str(EXE), "hook"], input=claude(command, cwd or box),
                              capture_output=True, text=True, env=env, cwd=box, timeout=120,
                              check=False)

    return run


def _files(project: Path) -> dict[str, bytes]:
    """Every file of the project (its .git folder aside) and its content."""
    return {str(p.relative_to(project)): p.read_bytes() for p in project.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(project).parts}


def _git_config(project: Path) -> bytes:
    return (project / ".git" / "config").read_bytes()


def judged(hook: Callable[..., Any], box: Path, command: str,
           cwd: Path | None = None) -> Any:
    """The hook's answer on ``command``; judging it changed no file (nor git's config)."""
    before, config = _files(box), _git_config(box)
    result = hook(command, cwd)
    assert _files(box) == before, command
    assert _git_config(box) == config, command
    return result


def assert_deletes(result: Any, command: str, what: str = "deletes the capsule") -> None:
    assert_blocked(result, command)
    assert what in result.stderr, result.stderr


# 1: git aliases of clean --------------------------------------------------------------------
# git(1) `-c name=value`; git-config(1) "alias.*": an alias whose value starts with `!` is a
# shell command, any other expands to git's own words, with the use's words after them; git
# 2.39 runs a builtin command before looking up an alias of its name. `git config set` is
# git 2.46's form of `git config NAME VALUE`.
@pytest.mark.parametrize("command", [
    "git -c alias.c=clean c -fdx",
    "git -c alias.c='!git clean -fdx' c",
    "git -c 'alias.c=clean -fdx' c",
    "git -c alias.c=clean -c alias.d=c d -fdx",  # an alias of an alias
    "git -c Alias.C=clean c -fdx",  # section and key are case-insensitive
    "git config alias.c clean; git c -fdx",
    "git config --local alias.c clean && git c -fdx",
    "git config --global alias.c 'clean -fdx' && git c",
    "git config set alias.c clean; git c -fdx",
    "git config alias.c '!rm -rf capsules'; git c",
    "git -c alias.c='!rm -rf' c capsules",  # the use's words follow a `!` alias's command
    "CMD=clean git --config-env alias.c=CMD c -fdx",
    # git-config(1) ENVIRONMENT: GIT_CONFIG_COUNT pairs of GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.c GIT_CONFIG_VALUE_0=clean git c -fdx",
])
def test_an_alias_of_clean_on_the_line_is_judged_as_the_clean(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    assert_deletes(judged(hook, box, command), command)


@pytest.mark.parametrize("command", [
    "echo '[alias] c = clean' >> .git/config; git c -fdx",
    "git config --file .git/config alias.c clean; git c -fdx",
    "git config include.path ../shared.cfg && git c -fdx",
    "printf '[alias]\\n\\tc = clean\\n' >> ~/.gitconfig; git c -fdx",
    "export HOME=/tmp/elsewhere; git c -fdx",
    "git config -e; git c -fdx",
    "git -c $SETTING c -fdx",  # a config value computed when it runs
    "GIT_CONFIG_PARAMETERS=\"'alias.c'='clean'\" git c -fdx",  # git's own -c channel
])
def test_an_alias_that_cannot_be_read_before_the_line_runs_fails_closed(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    # the config is written on the way: `c` may then be any alias, `clean` included
    round8._repository(box, ".labledger/\n")
    result = judged(hook, box, command)
    assert_deletes(result, command)
    assert "may be an alias" in result.stderr, result.stderr


@pytest.mark.parametrize(("config", "command"), [
    ("[alias]\n\tnuke = clean -fdx\n", "git nuke"),
    ("[alias]\n\tnuke = clean\n", "git nuke -fdx"),
    ("[alias]\n\twipe = clean -fdx\n\tnuke = wipe\n", "git nuke"),
    ('[alias]\n\tnuke = "!git clean -fdx"\n', "git nuke"),
    ("[alias]\n\tnuke = clean -fdx\n", "cd src && git nuke ':/'"),
])
def test_an_alias_of_clean_in_the_repository_config_is_judged(
        hook: Callable[..., Any], box: Path, config: str, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    with (box / ".git" / "config").open("a") as f:
        f.write(config)
    assert_deletes(judged(hook, box, command), command)


def test_an_alias_of_clean_in_the_global_config_is_judged(
        hook: Callable[..., Any], box: Path, home: Path) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    (home / ".gitconfig").write_text("[alias]\n\tnuke = clean -fdx\n")
    assert_deletes(judged(hook, box, "git nuke"), "git nuke")


@pytest.mark.parametrize("command", [
    "git -c alias.c=clean c -fd",  # git says -fd keeps the ignored capsule
    "git config alias.st status; git st",
    "git -c color.ui=always status",
    "git config --get alias.x",
    "git config alias.c clean",  # defined, never run
    "git add -A && git ci -m wip",  # `ci` from .git/config: `add` writes no config
    "git nuke",  # .git/config: nuke = status
    "git ls-files -z | xargs -0 git add",
])
def test_harmless_aliases_and_config_reads_pass(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    with (box / ".git" / "config").open("a") as f:
        f.write("[alias]\n\tci = commit\n\tnuke = status\n")
    assert_passes(judged(hook, box, command), command)


# 2: a subcommand computed when it runs ------------------------------------------------------
# xargs(1) appends what it reads (or puts it where -I's string stands): `echo clean -fdx |
# xargs git` runs `git clean -fdx`
@pytest.mark.parametrize("command", [
    "echo clean -fdx | xargs git",
    "printf 'clean\\n-fdx\\n' | xargs git",
    "echo c | xargs -I{} git {} -fdx",
    "xargs git < cmds.txt",
    "S=clean; git $S -fdx",
    "git $(echo clean) -fdx",
    "echo -fdx | xargs git clean",  # the clean's options are appended
])
def test_a_git_subcommand_computed_when_it_runs_fails_closed(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    (box / "cmds.txt").write_text("clean -fdx\n")
    assert_deletes(judged(hook, box, command), command)


# 3: git stash with untracked files -----------------------------------------------------------
# git-stash(1), git 2.39 builtin/stash.c do_push_stash: `-u`/`--include-untracked` stashes
# the untracked files and then runs `git clean --force --quiet -d :/` (from the original
# working folder: the whole work tree), `-a`/`--all` adds `-x`; with pathspecs it removes
# what they match (`add [--force] -- PATHSPEC`, then the diff applied in reverse). The last
# of -u/-a/--no-include-untracked counts. Without either, only tracked files change.
@pytest.mark.parametrize(("ignored", "command", "what"), [
    (".labledger/\ncapsules/\n", "git stash -a", "deletes the capsule"),
    (".labledger/\ncapsules/\n", "git stash --all", "the labledger ledger"),
    (".labledger/\ncapsules/\n", "git stash push --all", "deletes the capsule"),
    (".labledger/\ncapsules/\n", "git stash push -a -m wip", "deletes the capsule"),
    (".labledger/\ncapsules/\n", "git stash save --all wip", "deletes the capsule"),
    (".labledger/\ncapsules/\n", "git stash push -qa", "deletes the capsule"),
    (".labledger/\ncapsules/\n", "git stash --a", "deletes the capsule"),  # a unique prefix
    (".labledger/\n", "git stash -u", "deletes the capsule"),
    (".labledger/\n", "git stash --include-untracked", "deletes the capsule"),
    (".labledger/\n", "git stash push -k -u -- capsules", "deletes the capsule"),
    (".labledger/\n", "git stash push -mwip -u", "deletes the capsule"),
    (".labledger/\n", "cd src && git stash -u", "deletes the capsule"),  # the whole tree
    (".labledger/\n", "git -C src stash --include-untracked", "deletes the capsule"),
    # git cannot be asked after `add` changed what it tracks: the whole repository counts
    (".labledger/\n", "git -C src add -A && git -C src stash -u", "deletes the capsule"),
    (".labledger/\n", "echo -u | xargs git stash", "deletes the capsule"),
    ("capsules/\n", "git stash -u", "the labledger ledger"),
])
def test_git_stash_of_untracked_files_is_judged_as_their_clean(
        hook: Callable[..., Any], box: Path, ignored: str, command: str, what: str) -> None:
    round8._repository(box, ignored)
    assert_deletes(judged(hook, box, command), command, what)


@pytest.mark.parametrize("command", [
    "git stash",
    "git stash list",
    "git stash pop",
    "git stash push -m wip",
    "git stash -u",  # the capsules and the ledger are ignored: -u leaves them
    "git stash -a -u",  # the last one counts: untracked only
    "git stash --all --no-include-untracked",
    "git stash push -u -- src",
    "git stash show -p",
    "git stash -m 'message -a'",  # -m's value is no option
])
def test_git_stash_that_leaves_the_capsule_passes(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    assert_passes(judged(hook, box, command), command)


# 4: .gitignore written through a computed path -----------------------------------------------
# gitignore(5): a pattern added to .gitignore or .git/info/exclude changes what `git clean -X`
# removes (and `-d` without -x keeps); the clean must not be judged by git's answer now.
@pytest.mark.parametrize(("ignored", "command"), [
    (".labledger/\ncapsules/\n", "F=.gitignore; echo src > $F; git clean -fd"),
    ("build/\n", "F=.gitignore; echo capsules/ >> $F; git clean -fdX"),
    ("build/\n", "F=.git/info/exclude; echo capsules/ >> \"$F\"; git clean -fdX"),
    ("build/\n", "F=.gitignore; tee -a $F <<< capsules/; git clean -fdX"),
    ("build/\n", "F=$(printf .gitignore); echo capsules/ >> $F; git clean -fdX"),
])
def test_a_gitignore_written_through_a_computed_path_fails_closed(
        hook: Callable[..., Any], box: Path, ignored: str, command: str) -> None:
    round8._repository(box, ignored)
    assert_deletes(judged(hook, box, command), command)


@pytest.mark.parametrize("command", [
    "OUT=out.txt; echo hi > $OUT; git clean -fdX",
    "echo \"$HOSTNAME\" >> notes.txt; git clean -fdX",
])
def test_a_computed_write_naming_no_git_file_still_asks_git(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, "build/\n")
    assert_passes(judged(hook, box, command), command)

