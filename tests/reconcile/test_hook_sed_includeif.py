"""`labledger hook` against two left-outs, through the real console script.

1. GNU sed's ``e`` runs commands the line only names: the lines of its *input files* (a bare
   ``e``: ``sed e cmds.txt``), and a script file that cannot be read here (missing now, a FIFO,
   a name computed when it runs) runs something unknown: the line, which may write that file,
   is judged as a script that cannot be read (a destroy through ssh in it stands for every
   live instance). Real GNU sed shows which forms run what.
2. git's ``[includeIf]`` sections are evaluated as git evaluates them (``gitdir:``,
   ``gitdir/i:``, ``onbranch:``, ``hasconfig:remote.*.url:``): an alias from a file whose
   condition holds is judged, one whose condition does not hold is not (before: every
   included file counted). Real repositories, and real ``git config`` confirms which alias
   git sees.

One RunPod box, ``pod-abc123`` at ``203.0.113.7``, whose run r2 was never pulled: every command
that destroys it must exit 2 (fixtures of `test_hook_round3`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile import test_hook_round3 as round3
from tests.reconcile.test_hook_review_fixes import assert_blocked
from tests.reconcile.test_hook_round3 import DESTROY, assert_passes, write

box, home, hook = round3.box, round3.home, round3.hook  # that file's fixtures

SSH_DESTROY = "ssh root@203.0.113.7 rm -rf /root/autodl-tmp"


# 1: GNU sed ------------------------------------------------------------------------------------
def real_sed(args: list[str], cwd: Path) -> str:
    sed = shutil.which("sed")
    assert sed is not None
    done = subprocess.run([sed, *args], cwd=cwd, capture_output=True, text=True, timeout=30,
                          check=False)
    return done.stdout


def test_real_gnu_sed_runs_the_input_lines_of_a_bare_e_and_never_what_r_reads(
        tmp_path: Path) -> None:
    """The semantics the hook follows, shown by GNU sed itself with a harmless command."""
    (tmp_path / "cmds.txt").write_text("echo RAN-FROM-INPUT\n")
    (tmp_path / "notes.txt").write_text("echo FROM-NOTES\n")
    (tmp_path / "bare.sed").write_text("e\n")
    assert "RAN-FROM-INPUT" in real_sed(["e", "cmds.txt"], tmp_path)
    assert "RAN-FROM-INPUT" in real_sed(["1e", "cmds.txt"], tmp_path)
    assert "RAN-FROM-INPUT" in real_sed(["-f", "bare.sed", "cmds.txt"], tmp_path)
    # `R`/`r` queue the file's lines for output: a later bare `e` runs the input line only
    assert real_sed(["R cmds.txt\ne", "notes.txt"], tmp_path).splitlines() == [
        "FROM-NOTES", "echo RAN-FROM-INPUT"]


@pytest.mark.parametrize("command", [
    "sed e cmds.txt",
    "sed -n e cmds.txt",
    "sed '1e' cmds.txt",
    "sed -n '$e' cmds.txt",
    "sed -s e notes.txt cmds.txt",
    "sed -e p -e e cmds.txt",
    "sed -f bare.sed cmds.txt",
    "sed e -- cmds.txt",
])
def test_the_input_lines_a_bare_e_runs_are_judged(hook: Callable[..., Any], box: Path,
                                                  command: str) -> None:
    (box / "cmds.txt").write_text(f"{DESTROY}\n")
    (box / "bare.sed").write_text("e\n")
    assert_blocked(hook(command), command)


def test_input_lines_run_through_ssh_are_judged(hook: Callable[..., Any], box: Path) -> None:
    (box / "cmds.txt").write_text(f"{SSH_DESTROY}\n")
    result = hook("sed e cmds.txt")
    assert_blocked(result, "sed e cmds.txt")
    assert "pod-abc123" in result.stderr


@pytest.mark.parametrize("command", [
    # the line writes the script it then runs: it cannot be read now
    f"printf '1e {SSH_DESTROY}\\n' > late.sed && sed -f late.sed notes.txt",
    "echo 'e ssh box rm -rf /root/autodl-tmp' > late.sed; sed -n -f late.sed notes.txt",
    f"cat > late.sed <<'EOF'\n1e {DESTROY}\nEOF\nsed -f late.sed notes.txt",
    f"echo '{SSH_DESTROY}' > cmds.new && sed e cmds.new",  # an input file, written first
    "S=late.sed; echo '1e ssh box pkill -f train.py' > $S; sed -f $S notes.txt",
    "(echo '1e ssh box rm -rf /root/autodl-tmp' > pipe.sed &); sed -f pipe.sed notes.txt",
    "printf '1e rm -rf results\\n' > late.sed && sed -f late.sed notes.txt",
])
def test_a_script_that_cannot_be_read_is_judged_on_the_line(hook: Callable[..., Any],
                                                            box: Path, command: str) -> None:
    os.mkfifo(box / "pipe.sed")
    result = hook(command)
    assert_blocked(result, command)


def test_an_unreadable_script_deleting_an_export_root_says_why(hook: Callable[..., Any]
                                                               ) -> None:
    result = hook("printf '1e rm -rf results\\n' > late.sed && sed -f late.sed notes.txt")
    assert_blocked(result, "late.sed")
    assert "sed's script file 'late.sed', which cannot be read here" in result.stderr
    assert "an export root" in result.stderr


@pytest.mark.parametrize("command", [
    "sed -f missing.sed notes.txt",  # nothing on the line could write it, or destroy
    "sed e missing.txt",
    "printf 's/a/b/\\n' > tidy.sed && sed -f tidy.sed notes.txt",
    "sed -f $SCRIPT notes.txt",
    "ssh devbox 'sed -i -f fix.sed app.conf'",  # on another machine: unread, harmless line
    "sed 'R cmds.txt' notes.txt",  # R's lines are output, never run
    "sed --sandbox -f missing.sed notes.txt",  # sed refuses `e` there
    "sed -f tidy.sed cmds.txt",  # no bare `e`: the input is data
])
def test_unreadable_or_harmless_sed_still_passes(hook: Callable[..., Any], box: Path,
                                                 command: str) -> None:
    (box / "cmds.txt").write_text(f"{DESTROY}\n")
    (box / "tidy.sed").write_text("s/a/b/\n")
    assert_passes(hook(command), command)


# 2: git's [includeIf] conditions ----------------------------------------------------------------
# Run by real git, this prints ACTIVE-WORK and destroys nothing (`true` ignores its words); to
# the hook it is `runpodctl remove pod pod-abc123`: what git runs and what the hook judges are
# the same text.
WORK_ALIAS = "!true runpodctl remove pod pod-abc123 && echo ACTIVE-WORK"
PLAY_ALIAS = "!echo ACTIVE-PLAY"


def git_env(home: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("GIT_") and k != "XDG_CONFIG_HOME"}
    return {**clean, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}


def git(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, env=git_env(home), capture_output=True,
                          text=True, timeout=60, check=False)


def new_repo(home: Path, where: Path, branch: str = "main") -> Path:
    where.mkdir(parents=True)
    assert git(home, where, "init", "-q", "-b", branch).returncode == 0
    return where


def alias_git_sees(home: Path, repo: Path, name: str) -> str | None:
    done = git(home, repo, "config", "--get", f"alias.{name}")
    return done.stdout.strip() if done.returncode == 0 else None


def test_gitdir_conditions_pick_the_alias_git_runs(hook: Callable[..., Any], home: Path,
                                                   box: Path) -> None:
    work = new_repo(home, box / "work" / "repo")
    play = new_repo(home, box / "play" / "repo")
    write(home / ".gitconfig", f'[includeIf "gitdir:{box}/work/"]\n\tpath = work.inc\n'
                               f'[includeIf "gitdir:{box}/play/"]\n\tpath = play.inc\n')
    write(home / "work.inc", f"[alias]\n\tnuke = {WORK_ALIAS}\n")
    write(home / "play.inc", f"[alias]\n\tnuke = {PLAY_ALIAS}\n")
    # git itself: which alias runs where
    assert git(home, work, "nuke").stdout.strip() == "ACTIVE-WORK"
    assert git(home, play, "nuke").stdout.strip() == "ACTIVE-PLAY"
    assert git(home, box, "nuke").returncode != 0  # not a repository: neither holds
    # the hook agrees
    assert_blocked(hook("git nuke", cwd=work), "in work/")
    (work / "sub").mkdir()
    assert_blocked(hook("git nuke", cwd=work / "sub"), "below work/")
    assert_blocked(hook("git -C work/repo nuke"), "git -C work/repo")
    assert_passes(hook("git nuke", cwd=play), "in play/ (before: work.inc counted too)")
    assert_passes(hook("git -C play/repo nuke"), "git -C play/repo")
    assert_passes(hook("git nuke"), "outside any repository")


def test_gitdir_forms_home_relative_case_and_git_files(hook: Callable[..., Any], home: Path,
                                                       box: Path) -> None:
    """``~/``, ``./`` (the including file's folder), a pattern without a leading ``/``
    (``**/`` in front), ``gitdir/i:``, and a worktree whose ``.git`` is a file."""
    src = new_repo(home, home / "src" / "a")
    near = new_repo(home, home / "near" / "b")
    anywhere = new_repo(home, box / "deep" / "team-x" / "c")
    cased = new_repo(home, box / "Cased" / "d")
    write(home / ".gitconfig",
          '[includeIf "gitdir:~/src/"]\n\tpath = src.inc\n'
          '[includeIf "gitdir:./near/"]\n\tpath = near.inc\n'
          '[includeIf "gitdir:team-x/"]\n\tpath = team.inc\n'
          f'[includeIf "gitdir/i:{str(box).upper()}/CASED/"]\n\tpath = cased.inc\n'
          f'[includeIf "gitdir:{box}/CASED/"]\n\tpath = nocase.inc\n')
    for name in ("src", "near", "team", "cased"):
        write(home / f"{name}.inc", f"[alias]\n\t{name}nuke = {WORK_ALIAS}\n")
    write(home / "nocase.inc", f"[alias]\n\tnocase = {WORK_ALIAS}\n")
    for repo, name in ((src, "srcnuke"), (near, "nearnuke"), (anywhere, "teamnuke"),
                       (cased, "casednuke")):
        assert git(home, repo, name).stdout.strip() == "ACTIVE-WORK", name
        assert_blocked(hook(f"git {name}", cwd=repo), name)
    assert alias_git_sees(home, cased, "nocase") is None  # case matters without /i
    assert_passes(hook("git nocase", cwd=cased), "gitdir: is case-sensitive")
    assert_passes(hook("git srcnuke", cwd=near), "~/src/ does not hold in ~/near")
    # a worktree: its git folder is the one its .git file names
    assert git(home, src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
               "--allow-empty", "-m", "x").returncode == 0
    assert git(home, src, "worktree", "add", "-q", str(box / "wt"), "-b", "wt").returncode == 0
    assert git(home, box / "wt", "srcnuke").stdout.strip() == "ACTIVE-WORK"
    assert_blocked(hook("git srcnuke", cwd=box / "wt"), "a worktree of ~/src/a")


def test_onbranch_follows_head(hook: Callable[..., Any], home: Path, box: Path) -> None:
    """``git config`` applies ``onbranch:`` (git resolves aliases before it sets up the
    repository and skips ``onbranch:`` for them; the hook counts it when the branch matches:
    more to judge, never less)."""
    repo = new_repo(home, box / "repo")
    write(repo / ".git" / "config", (repo / ".git" / "config").read_text()
          + '[includeIf "onbranch:main"]\n\tpath = ../main.inc\n'
          + '[includeIf "onbranch:feature/"]\n\tpath = ../feature.inc\n')
    write(repo / "main.inc", f"[alias]\n\tboom = {WORK_ALIAS}\n")
    write(repo / "feature.inc", f"[alias]\n\tboom = {PLAY_ALIAS}\n")
    assert alias_git_sees(home, repo, "boom") == WORK_ALIAS
    assert_blocked(hook("git boom", cwd=repo), "on main")
    assert git(home, repo, "checkout", "-q", "-b", "feature/x").returncode == 0
    assert alias_git_sees(home, repo, "boom") == PLAY_ALIAS
    assert_passes(hook("git boom", cwd=repo), "on feature/x (before: main.inc counted too)")
    (repo / ".git" / "HEAD").write_text("0" * 40 + "\n")  # detached: no branch holds
    assert alias_git_sees(home, repo, "boom") is None
    assert_passes(hook("git boom", cwd=repo), "detached")


def test_hasconfig_remote_url_reads_the_remotes(hook: Callable[..., Any], home: Path,
                                                box: Path) -> None:
    repo = new_repo(home, box / "repo")
    assert git(home, repo, "remote", "add", "origin",
               "https://github.com/acme/denoise.git").returncode == 0
    write(home / ".gitconfig",
          '[includeIf "hasconfig:remote.*.url:https://github.com/acme/**"]\n'
          '\tpath = acme.inc\n'
          '[includeIf "hasconfig:remote.*.url:https://github.com/*"]\n'  # `*` stops at `/`
          '\tpath = shallow.inc\n'
          '[includeIf "hasconfig:remote.*.url:git@gitlab.com:*/**"]\n\tpath = gitlab.inc\n')
    write(home / "acme.inc", f"[alias]\n\tship = {WORK_ALIAS}\n")
    write(home / "shallow.inc", f"[alias]\n\tshallow = {WORK_ALIAS}\n")
    write(home / "gitlab.inc", f"[alias]\n\tlint = {WORK_ALIAS}\n")
    assert git(home, repo, "ship").stdout.strip() == "ACTIVE-WORK"
    assert_blocked(hook("git ship", cwd=repo), "an acme remote")
    for name in ("shallow", "lint"):
        assert alias_git_sees(home, repo, name) is None
        assert_passes(hook(f"git {name}", cwd=repo), f"{name}: no remote matches")
    assert git(home, repo, "remote", "add", "mirror",
               "git@gitlab.com:acme/denoise.git").returncode == 0
    assert git(home, repo, "lint").stdout.strip() == "ACTIVE-WORK"
    assert_blocked(hook("git lint", cwd=repo), "a gitlab remote now")


@pytest.mark.parametrize("condition", ["future:thing", "gitdir:%(prefix)/x/"])
def test_a_condition_that_cannot_be_evaluated_counts(hook: Callable[..., Any], home: Path,
                                                     box: Path, condition: str) -> None:
    new_repo(home, box / "repo")
    write(home / ".gitconfig", f'[includeIf "{condition}"]\n\tpath = x.inc\n')
    write(home / "x.inc", f"[alias]\n\tnuke = {WORK_ALIAS}\n")
    assert_blocked(hook("git nuke", cwd=box / "repo"), condition)
