"""`labledger hook` against what the review of the eighth round found, through the real console
script.

A redirection's target is no help flag (``vastai destroy instance 123 -y > -h`` destroys);
``git clean`` is judged as git would run it at its place in the line; what ``runpodctl exec
python FILE`` runs on the pod is FILE's program; more listings feed a computed delete.

The ledger holds RunPod ``pod-abc123`` at ``203.0.113.7`` (run r2, never pulled: every destroy
that may reach it is refused) and ``capsules/c2``, a sealed capsule whose stored copy is
missing (deleting it is refused): the fixture of `test_hook_round8`. Each test feeds the hook a
Claude Code payload.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes

box = round8.box  # the same project: pod-abc123 unverified, capsules/c2 not stored
assert_deletes_a_capsule = round8.assert_deletes_a_capsule


# 1: a redirection and its target are not the CLI's words -----------------------------------------
# bash(1) REDIRECTION: `[n]>word`, `[n]>>word`, `[n]>|word`, `&>word`, `&>>word`, `[n]<word`,
# `[n]<>word`, `[n]>&digit`, `<<<word`; the word may follow the operator after blanks. vastai
# 1.9.1 run with `> -h` sends the DELETE: argparse never sees the `-h`, bash opens a file of
# that name.
@pytest.mark.parametrize("command", [
    "vastai destroy instance 123 -y > -h",
    "vastai destroy instance 123 -y 2> --help",
    "vastai destroy instance 123 -y >-h",
    "vastai destroy instance 123 -y &> --help",
    "vastai destroy instance 123 -y &>> -h",
    "vastai destroy instance 123 -y >| -h",
    "vastai destroy instance 123 -y < -h",
    "vastai destroy instance 123 -y <> -h",
    "vastai destroy instance 123 -y 2>&1 >--help",
    "vastai destroy instance 123 <<< --help",
    "runpodctl remove pod abc123 >> -h",
    "kubectl delete pod trainer > --help",
    "gcloud compute tpus tpu-vm delete t1 --zone z --quiet > -h",
])
def test_a_redirection_target_is_no_help_flag(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize("command", [
    "vastai destroy instance 123 --help > help.txt",
    "vastai destroy instance 123 -h 2>&1 | less",
    "runpodctl remove pod abc123 -h >/dev/null 2>&1",
    "kubectl delete pod trainer --help &> out.txt",
    "vastai destroy instance 123 2>err.txt --help",
])
def test_a_help_flag_beside_a_redirection_still_passes(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


# 2: git clean is judged as the repository will be when it runs -----------------------------------
# Each earlier command below changes what git ignores or tracks (git-stash(1) stashes an
# uncommitted .gitignore entry, git-rm(1) --cached untracks, git-reset(1) HEAD~1 untracks the
# last commit's files; core.excludesFile defaults to $XDG_CONFIG_HOME/git/ignore, else
# $HOME/.config/git/ignore: git-config(1)); the clean then removes the capsule. Repositories
# are real ones (`round8._repository`).
@pytest.mark.parametrize("command", [
    "git stash && git clean -fd",
    "git checkout -- . && git clean -fd",
    "rm .gitignore; git clean -fd",
    "mv .gitignore old && git clean -fd",
    "echo src > .gitignore; git clean -fd",
    "git rm -r -q --cached capsules && git clean -fd",
    "git reset -q HEAD~1 && git clean -fd",
    "git clean -fd -e capsules; git clean -fd",  # the first may remove an untracked .gitignore
    "bash -c 'git stash && git clean -fd'",
    "HOME=/tmp git clean -fd",
    "XDG_CONFIG_HOME=/tmp git clean -fd",
    "export XDG_CONFIG_HOME=/tmp; git clean -fd",
    "env HOME=/tmp git clean -fd",
])
def test_git_clean_after_what_may_change_the_repository_is_refused(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    assert_deletes_a_capsule(hook(command), command)


@pytest.mark.parametrize("command", [
    "git status && git clean -fd",
    "git status --short; git diff --stat; git clean -fd",
    "git log -1 --oneline && git clean -fdn && git clean -fd",
    "git branch --list && git rev-parse HEAD && git ls-files && git clean -fd",
    "cat .gitignore; git clean -fd",
    "make clean && git clean -fd",
    "git clean -fd && git stash",  # after the clean: too late to matter
    "OUT=build git clean -fd",
])
def test_git_clean_after_read_only_commands_is_asked_of_git(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\ncapsules/\n")
    assert_passes(hook(command), command)


# 3, 4: what git clean removes is what git itself says it would remove ----------------------------
# git-clean(1), git 2.39: -ff removes an untracked nested repository whole (one -f skips it);
# a pathspec may carry magic (gitglossary(7): `:!`/`:(exclude)`, `:(glob)`, `:(icase)`, `:/`
# for the top) and its wildcards match across `/` (`'*.json'` matches capsules/c2/metrics.json);
# `-C ''` leaves the working folder as it is (git(1)). The hook asks `git clean -n` with the
# clean's own arguments.
@pytest.mark.parametrize("command", [
    "git clean -fd ':!src'",
    "git clean -fd ':(exclude)src'",
    "git clean -f '*.json'",
    "git clean -fd ':(glob)**/*.json'",
    "git clean -fd ':(icase)CAPSULES'",
    "git -C '' clean -fd",
    "cd src && git clean -fd ':/'",
    "git clean -f capsules/c2",
    "git clean -fq -d",  # quiet: git prints nothing even for a dry run, the hook asks without it
])
def test_git_clean_by_pathspec_magic_or_glob_is_refused(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\n")
    assert_deletes_a_capsule(hook(command), command)


def test_git_clean_twice_forced_removes_a_nested_repository(
        hook: Callable[..., Any], box: Path) -> None:
    round8._repository(box, ".labledger/\n")
    round8._git(box / "capsules", "init", "-q", ".")  # an untracked repository of its own
    for command in ("git clean -ffd", "git clean -ffd capsules", "git clean -ffdx -e .labledger"):
        assert_deletes_a_capsule(hook(command), command)
    # one -f skips a nested repository (git-clean(1)): git would keep it
    assert_passes(hook("git clean -fd"), "git clean -fd")


@pytest.mark.parametrize("command", [
    "git clean -fd ':!capsules'",
    "git clean -f '*.pyc'",
    "git clean -fd build",
    "git clean -fdx build",
    "git clean -fdn",
])
def test_git_clean_that_git_says_keeps_the_capsule_passes(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    round8._repository(box, ".labledger/\n")
    (box / "build").mkdir()
    (box / "build" / "out.o").write_text("x\n")
    assert_passes(hook(command), command)


def test_git_clean_of_a_path_git_quotes_is_read(hook: Callable[..., Any], box: Path,
                                                ledger: Ledger) -> None:
    # git quotes a path holding a quote or a control character ("we\"ird/", core.quotePath);
    # the capsule itself named so: the quoted path is read back
    round8._repository(box, ".labledger/\ncapsules/\n")
    odd = box / 'we"ird\tc3'
    odd.mkdir()
    (odd / "m.json").write_text("{}\n")
    ledger.append("capsule.sealed", run="r2", path=odd.name,
                                      digest="blake3:" + "cd" * 32, files=1, bytes=1)
    result = hook("git clean -fd")
    assert_deletes_a_capsule(result, "git clean -fd")
    assert "c3" in result.stderr


# 5: what runpodctl exec python runs on the pod is FILE's program ---------------------------------
# runpod/runpodctl cmd/exec/commands.go: `exec python` takes a `--pod_id` string flag (cobra:
# flags may stand before or after the subcommand's words; -h/--help prints the help and runs
# nothing) and copies FILE to the pod, run there with python3.11 (functions.go, PythonOverSSH).
# The programs are Python as agents write them: os.system/subprocess with a command line or
# an argument list.
@pytest.mark.parametrize(("program", "command"), [
    ('import os\nos.system("rm -rf /workspace/runs")\n', "python --pod_id abc123 job.py"),
    ('import subprocess\nsubprocess.run(["poweroff"])\n', "python --pod_id abc123 job.py"),
    ('from subprocess import check_call\ncheck_call(["rm", "-rf", "/workspace"])\n',
     "python --pod_id abc123 job.py"),
    ('import os\nos.popen("pkill -f train.py").read()\n', "python --pod_id abc123 job.py"),
    ('import subprocess\nsubprocess.run("shutdown -h now", shell=True)\n',
     "--pod_id abc123 python job.py"),
    ('import os\nos.system("rm -rf /workspace/runs")\n', "--pod_id=abc123 python job.py"),
    ('import os\nCMD = "rm -rf /workspace/runs"\nos.system(CMD)\n',
     "python --pod_id abc123 job.py"),  # a command held in a variable: the literals count
    ("print(1)\n", "--pod_id abc123 python missing.py"),  # cannot be read: unknown
])
def test_what_runpodctl_exec_python_runs_on_the_pod_is_judged(
        hook: Callable[..., Any], box: Path, program: str, command: str) -> None:
    (box / "job.py").write_text(program)
    line = f"runpodctl exec {command}"
    result = hook(line)
    assert_blocked(result, line)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize(("program", "command"), [
    ('import subprocess\nsubprocess.run(["nvidia-smi"])\n', "python --pod_id abc123 job.py"),
    ('import os\nos.system("ls -la /workspace")\n', "--pod_id abc123 python job.py"),
    ('import subprocess\nout = subprocess.check_output(["df", "-h"])\nprint(out)\n',
     "python --pod_id abc123 job.py"),
    ("print(1)\n", "python --pod_id abc123 missing.py -h"),  # cobra prints the help
    ("print(1)\n", "python --help"),
])
def test_a_harmless_program_on_the_pod_passes(
        hook: Callable[..., Any], box: Path, program: str, command: str) -> None:
    (box / "job.py").write_text(program)
    line = f"runpodctl exec {command}"
    assert_passes(hook(line), line)


@pytest.mark.parametrize("command", [
    "ssh root@203.0.113.7 'python3 -c \"import subprocess; subprocess.run([\\\"poweroff\\\"])\"'",
    "ssh root@203.0.113.7 python3 - <<'EOF'\nimport os\nos.system('rm -rf /workspace/runs')\nEOF",
])
def test_what_python_starts_on_a_box_through_ssh_is_judged(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize("command", [
    "python3 -c 'import os; os.system(\"rm -rf capsules\")'",
    "python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"capsules/c2\"])'",
])
def test_what_python_starts_here_is_judged(hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


@pytest.mark.parametrize("command", [
    "python3 -c 'import os; os.system(\"ls capsules\")'",
    "ssh root@203.0.113.7 'python3 -c \"import subprocess; subprocess.run([\\\"nvidia-smi\\\"])\"'",
    "python3 -c 'import subprocess; print(subprocess.check_output([\"git\", \"status\"]))'",
])
def test_what_python_starts_that_deletes_nothing_passes(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


# 6: more listings feed a computed delete ----------------------------------------------------------
# GNU ls (coreutils 9.1) options taking a value as the next word: -I/--ignore, --hide,
# -w/--width, -T/--tabsize, --sort, --format, --time-style, --time, --block-size,
# --quoting-style, --indicator-style (--color takes one only after `=`). `dir` is ls in
# columns. fd (fd 8.x: `fd [PATTERN] [PATH...]`), `rg --files [PATH...]`, `git ls-files` and
# `du -a` print every path below their folders.
@pytest.mark.parametrize("command", [
    "ls -I '*.py' | xargs rm -rf",
    "ls --hide x | xargs rm -rf",
    "ls -w 80 | xargs rm -rf",
    "ls --sort time | xargs rm -rf",
    "ls -T 4 | xargs rm -rf",
    "ls -lI '*.py' | xargs rm -rf",
    "ls > /tmp/l.txt; xargs rm -rf < /tmp/l.txt",
    "ls > l.txt; rm -rf $(cat l.txt)",
    "find $(pwd) -type d | xargs rm -rf",
    "find \"$PWD\" -mindepth 1 | xargs rm -rf",
    "dir | xargs rm -rf",
    "fd . | xargs rm -rf",
    "rg --files | xargs rm -f",
    "git ls-files --others | xargs rm -f",
    "du -a | cut -f2 | xargs rm -rf",
])
def test_more_listings_feed_the_delete(hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


@pytest.mark.parametrize("command", [
    "ls -I '*.py' ../scratch | xargs -I{} rm -f ../scratch/{}",
    "fd . ../scratch | xargs rm -f",
    "rg --files src | xargs rm -f",
    "du -a ../scratch | cut -f2 | xargs rm -f",
    # 12: rm without -r/-R/-d cannot remove a folder: ls lists the capsule folder, not its files
    "ls -t | tail -n +5 | xargs rm -f",
    "ls | xargs rm",
    "dir | xargs rm -f",
    # 12: an alias that only prints and is never used hands nothing on
    "alias ll='ls -la'; rm -rf \"$OUT\"",
])
def test_listings_that_reach_no_protected_folder_pass(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "alias l='ls capsules'; l | xargs rm -rf",  # the alias is used: its listing feeds
    "find . -type f | xargs rm -f",  # find prints the capsule's files: rm -f deletes them
    "ls -d capsules/* | xargs rm -f",
])
def test_listings_that_do_reach_it_still_block(hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


# 8: bash's `function NAME { …; }` form (bash(1) Shell Function Definitions: `function` with
# or without `()`) holds commands like `NAME() { …; }` does ----------------------------------------
@pytest.mark.parametrize("command", [
    "function x { rm -rf capsules; }; x",
    "function x() { rm -rf capsules; }; x",
    "function x {\n  rm -rf capsules\n}\nx",
])
def test_a_function_keyword_body_is_judged(hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


def test_a_function_keyword_body_through_ssh_is_judged(hook: Callable[..., Any]) -> None:
    command = "function x { ssh root@203.0.113.7 poweroff; }; x"
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


def test_a_harmless_function_keyword_body_passes(hook: Callable[..., Any]) -> None:
    assert_passes(hook("function x { ls -la; }; x"), "function x { ls -la; }")


# 9: gcloud's flags may stand between its group words (calliope parses a flag wherever it
# stands after the group that defines it; --project, --quiet are gcloud-wide) ----------------------
@pytest.mark.parametrize("command", [
    "gcloud compute tpus tpu-vm --quiet delete t1 --zone z",
    "gcloud compute --project p tpus tpu-vm delete t1 --zone z",
    "gcloud compute tpus --project=p tpu-vm stop t1 --zone z",
    "gcloud compute --project p instances delete vm1 --zone z",
    "gcloud --quiet beta compute instances --zone z stop vm1",
])
def test_gcloud_flags_between_group_words_are_read(hook: Callable[..., Any],
                                                   command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize("command", [
    "gcloud compute --project p instances list",
    "gcloud compute tpus tpu-vm --quiet list --zone z",
    "gcloud compute --project p instances create vm1 --zone z",
])
def test_gcloud_with_flags_doing_nothing_destructive_passes(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


# 7: an alias runs its value with the words of the place it is used (bash(1) ALIASES; the
# BASH_ALIASES array defines one too) ----------------------------------------------------------
@pytest.mark.parametrize("command", [
    "alias x='ssh root@203.0.113.7'\nx poweroff",
    "alias x='ssh root@203.0.113.7'; x rm -rf /workspace",
    "alias v=vastai; v destroy instance 123",
])
def test_an_alias_used_with_words_runs_them(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize("command", [
    "BASH_ALIASES[x]='rm -rf capsules'\nx",
    "BASH_ALIASES[c]='rm -rf'; c capsules",
])
def test_a_bash_aliases_entry_is_an_alias(hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


@pytest.mark.parametrize("command", [
    "alias x='ssh root@203.0.113.7'; x nvidia-smi",
    "alias ls='ls -la'; ls src",  # an alias of its own name is not expanded again
    "BASH_ALIASES[c]='rm -rf'; c build",
])
def test_an_alias_used_harmlessly_passes(hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)
