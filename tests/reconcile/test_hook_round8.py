"""`labledger hook` against what was left from the seventh round, through the real console script.

A listing of a whole folder fed to a computed delete (``ls | xargs rm -rf``) deletes what that
folder holds; ``git clean`` without ``-x`` keeps what git ignores (asked of real git); a
provider CLI asked for its help destroys nothing; a destroy hidden in an ``alias`` of any CLI,
a TPU VM's delete and a script ``runpodctl exec`` runs on a pod are read.

The ledger holds RunPod ``pod-abc123`` at ``203.0.113.7`` (run r2, never pulled: every destroy
that may reach it is refused) and ``capsules/c2``, a sealed capsule whose stored copy is
missing (deleting it is refused). Each test feeds the hook a Claude Code payload.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_review_fixes import BOX, assert_blocked, assert_passes


@pytest.fixture
def box(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    pull_seed.rent("pod-abc123", profile="runpod", host=f"{BOX}:22022")
    ledger.append("run.launched", run="r2", instance="pod-abc123", command=["x"])
    # its stored copy is not here: deleting it is refused
    ledger.append("capsule.sealed", run="r2", path="capsules/c2", digest="blake3:" + "ab" * 32,
                  files=1, bytes=1)
    (project / "capsules" / "c2").mkdir(parents=True)
    (project / "capsules" / "c2" / "metrics.json").write_text('{"acc": 0.91}\n')
    (project / "src" / "__pycache__").mkdir(parents=True)
    (project / "src" / "train.py").write_text("print(1)\n")
    (project / "src" / "__pycache__" / "train.cpython-312.pyc").write_bytes(b"\x00")
    (project / "train.log").write_text("step 1\n")
    (project.parent / "scratch").mkdir()  # a folder beside the project
    (project.parent / "scratch" / "a.tmp").write_text("x\n")
    return project


def assert_deletes_a_capsule(result: Any, command: str) -> None:
    assert_blocked(result, command)
    assert "deletes the capsule" in result.stderr, result.stderr


# 1: a folder listed whole feeds a computed delete everything it holds ---------------------------
# Shapes: `ls | xargs rm -rf` and `find . -mindepth 1 -print0 | xargs -0 rm -rf` (the usual
# "empty this folder" one-liners of shell Q&A), `find . -type d | xargs rm -rf`, `ls -d */ |
# xargs rm -rf`, `printf '%s\n' * | xargs rm -rf`; GNU ls prints bare names (no dot entries
# without -a/-A), GNU find prints every path below its start folders.
@pytest.mark.parametrize("command", [
    "ls | xargs rm -rf",
    "ls -1 | xargs rm -rf",
    "ls . | xargs -n 1 rm -rf",
    "ls -A | xargs rm -rf",
    "ls | grep -v src | xargs rm -rf",  # the filter cannot be read: what ls lists counts
    "find . -type d | xargs rm -rf",
    "find . -mindepth 1 -print0 | xargs -0 rm -rf",
    "find | xargs rm -rf",
    "find -L . -type f | xargs rm -f",
    "find . -name '*.json' | xargs rm -f",  # a test that passes for a file the capsule holds
    "find capsules -type f | xargs rm -f",
    "ls -d */ | xargs rm -rf",
    "printf '%s\\n' * | xargs rm -rf",
])
def test_a_folder_listed_whole_feeds_the_delete_what_it_holds(
        hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


def test_a_listing_from_elsewhere_feeds_the_names_of_its_entries(
        hook: Callable[..., Any], box: Path) -> None:
    # `ls OTHER | xargs rm -rf` run in the project deletes the project's entries of the
    # same names: a folder elsewhere holding a `capsules` entry feeds that name
    other = box.parent / "other"
    (other / "capsules").mkdir(parents=True)
    command = f"ls {other} | xargs rm -rf"
    assert_deletes_a_capsule(hook(command), command)
    assert_passes(hook(f"ls {box.parent / 'scratch'} | xargs rm -rf"), "scratch")


def test_a_plain_ls_does_not_list_the_ledger(hook: Callable[..., Any], box: Path) -> None:
    # no capsule in the listed folder: ls without -a prints no `.labledger`, ls -A does
    cleaned = box / "build"
    cleaned.mkdir()
    (cleaned / ".labledger").mkdir()  # not this project's: its name only
    result = hook("ls -A | xargs rm -rf")
    assert_blocked(result, "ls -A")
    assert ".labledger, the labledger ledger" in result.stderr
    assert ".labledger, the labledger" not in hook("ls | xargs rm -rf").stderr


@pytest.mark.parametrize("command", [
    "find . -name '*.pyc' | xargs rm",
    "find . -name __pycache__ -type d | xargs rm -rf",
    "find src -type f -name '*.pyc' -print0 | xargs -0 rm -f",
    "ls *.log | xargs rm",
    "ls src | xargs rm -f",
    "ls -d src/__pycache__ | xargs rm -rf",
    "find ../scratch -type f | xargs rm",
    "ls ../scratch | xargs -I{} rm ../scratch/{}",
    "ls -la; find ../scratch -name '*.tmp' | xargs rm -f",  # the ls only prints
])
def test_a_listing_of_what_holds_no_protected_folder_passes(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


def test_find_elsewhere_by_absolute_path_passes(hook: Callable[..., Any], box: Path) -> None:
    command = f"find {box.parent / 'scratch'} -type f | xargs rm"
    assert_passes(hook(command), command)


# 2: git clean without -x keeps what git ignores: real git is asked --------------------------------
# A results folder in .gitignore is the usual layout (git-clean(1), git 2.39: "-x Don't use the
# standard ignore rules", "-X Remove only files ignored by Git", "If a <pathspec> is specified,
# -d is irrelevant"; a tracked file is never removed). The repositories are real ones.
def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=agent@example.com", "-c", "user.name=agent",
                    *args], cwd=project, check=True, capture_output=True)


def _repository(project: Path, ignored: str) -> None:
    _git(project, "init", "-q", ".")
    (project / ".gitignore").write_text(ignored)
    _git(project, "add", ".gitignore", "src")
    _git(project, "commit", "-qm", "start")


@pytest.mark.parametrize("command", [
    "git clean -fd",
    "git clean -ffd",
    "git clean -fd capsules",
    "git clean -f capsules",
    "git -C src clean -fd ..",
    "git clean -fd -e build",
    # the last matching pattern decides (gitignore(5)): the capsule stays excluded
    "git clean -fdx -e '!capsules' -e capsules -e .labledger",
])
def test_git_clean_without_x_keeps_an_ignored_capsule(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    _repository(box, ".labledger/\ncapsules/\n")
    assert_passes(hook(command), command)


@pytest.mark.parametrize(("ignored", "command", "what"), [
    (".labledger/\ncapsules/\n", "git clean -fdx", "deletes the capsule"),
    (".labledger/\ncapsules/\n", "git clean -fdX", "deletes the capsule"),
    (".labledger/\ncapsules/\n", "git clean -fd -e '!capsules'", "deletes the capsule"),
    (".labledger/\n", "git clean -fd", "deletes the capsule"),  # untracked, not ignored
    (".labledger/\n", "git clean -f capsules", "deletes the capsule"),  # a path: -d irrelevant
    ("capsules/\n", "git clean -fd", "the labledger ledger"),  # the ledger is not ignored
    # git's view cannot be reproduced here: not asked, refused
    (".labledger/\ncapsules/\n", "git -c core.excludesFile=/dev/null clean -fd",
     "deletes the capsule"),
    (".labledger/\ncapsules/\n", "GIT_DIR=.git git clean -fd", "deletes the capsule"),
    (".labledger/\ncapsules/\n", "git --work-tree=. clean -fd", "deletes the capsule"),
])
def test_git_clean_that_removes_the_capsule_is_refused(
        hook: Callable[..., Any], box: Path, ignored: str, command: str, what: str) -> None:
    _repository(box, ignored)
    result = hook(command)
    assert_blocked(result, command)
    assert what in result.stderr, result.stderr


def test_git_clean_keeps_a_tracked_capsule(hook: Callable[..., Any], box: Path) -> None:
    _repository(box, ".labledger/\n")
    _git(box, "add", "capsules")
    _git(box, "commit", "-qm", "results")
    for command in ("git clean -fd", "git clean -fdx -e .labledger"):
        assert_passes(hook(command), command)
    (box / "capsules" / "c2" / "notes.txt").write_text("untracked\n")  # removed by a clean
    assert_blocked(hook("git clean -fd"), "an untracked file in the capsule")


def test_git_clean_outside_a_repository_is_refused(hook: Callable[..., Any]) -> None:
    # git cannot tell what it would remove: fail closed
    assert_deletes_a_capsule(hook("git clean -fd"), "git clean -fd")


# 3: a provider CLI asked for its help destroys nothing -----------------------------------------
# The CLIs' help conventions: vastai (vast.py, argparse: -h/--help anywhere; argparse refuses
# `--opt -h` rather than take `-h` as the value), runpodctl and kubectl (cobra, spf13/cobra:
# -h/--help flags and a `help` command; a string flag takes the next word as its value), pspace
# (Paperspace/cli, cliffy: -h/--help), the legacy `paperspace` node CLI (--help), sky
# (SkyPilot, click: -h/--help), gcloud (calliope, argparse: -h, --help, `gcloud help ...`), aws
# (awscli's operation parser: a `help` positional, `aws ec2 terminate-instances help`), az
# (knack, argparse: -h/--help).
@pytest.mark.parametrize("command", [
    "pspace machine stop --help",
    "pspace machine delete psz4ktq0 -h",
    "paperspace machines stop --help",
    "vastai destroy instance -h",
    "vastai destroy instance 123 --help",
    "vastai stop instance 123 --raw --help",
    "runpodctl remove pod --help",
    "runpodctl remove pod abc123 -h",
    "runpodctl help remove pod",
    "runpodctl pod delete --help",
    "sky down -h",
    "sky down mycluster --help",
    "gcloud compute instances delete vm1 --zone us-central1-a --help",
    "gcloud help compute instances delete",
    "gcloud compute tpus tpu-vm delete --help",
    "aws ec2 terminate-instances help",
    "az vm delete --name vm1 -h",
    "kubectl delete pod trainer --help",
    "sudo vastai destroy instance 123 --help",
])
def test_a_provider_cli_asked_for_its_help_passes(hook: Callable[..., Any],
                                                  command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "runpodctl remove pod help",  # a pod id here, not the help command
    "runpodctl remove pod abc123 --name -h",  # a string flag's value (cobra)
    "vastai destroy instance 123 -- --help",  # after --: a word, not an option
    "vastai destroy instance 123 --label=--help",
    "aws ec2 terminate-instances --instance-ids i-0abc help",  # may be taken as an id
    "sky down $C --help",  # a computed word may be an option taking --help as its value
    "echo --help; vastai destroy instance 123",  # another command's help flag
    "pspace machine stop --help; pspace machine stop psz4ktq0",
])
def test_a_help_word_that_is_not_the_destroys_own_flag_is_judged(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


# 4: an alias of any destroy, a TPU VM's delete, a script runpodctl runs on a pod ----------------
# Shapes: bash's `alias NAME=VALUE` (the value runs where NAME is used, the use's words after
# it); gcloud's Cloud TPU commands (`gcloud compute tpus tpu-vm delete|stop NAME --zone Z`,
# `gcloud compute tpus queued-resources delete NAME --force`, Cloud TPU docs); runpodctl's
# `exec python --pod_id ID FILE`, which copies the local FILE to the pod and runs it there with
# python3.11 (runpod/runpodctl cmd/exec/commands.go and functions.go, PythonOverSSH).
@pytest.mark.parametrize("command", [
    "alias s=sky; s down c1",
    "alias g=gcloud; g compute instances delete vm1",
    "alias k='curl -X DELETE https://rest.runpod.io/v1/pods/abc123'; k",
    "alias l=lambda; l instance terminate x",
    "alias nuke='vastai destroy instance'; nuke 123",
    "gcloud compute tpus tpu-vm delete mytpu --zone us-central1-a",
    "gcloud compute tpus tpu-vm stop mytpu",
    "gcloud compute tpus delete mytpu",
    "gcloud alpha compute tpus queued-resources delete q1 --force",
    "gcloud compute tpus tpu-vm $VERB mytpu",
    "runpodctl exec python --pod_id abc123 cleanup.py",  # cleanup.py cannot be read now
    "runpodctl exec python --pod_id abc123 wipe.py",
])
def test_a_hidden_destroy_is_read(hook: Callable[..., Any], box: Path, command: str) -> None:
    (box / "wipe.py").write_text("import shutil\nshutil.rmtree('/workspace/runs')\n")
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize("command", [
    "alias x='rm -rf capsules'; x",
    "alias c='rm -rf'; c capsules",
])
def test_an_alias_deleting_a_capsule_is_judged(hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


@pytest.mark.parametrize("command", [
    "alias ll='ls -la'; ll",
    "alias gs='git status'",
    "alias sk='sky status'; sk",
    "alias cl='rm -rf build'; cl",
    "alias",
    "gcloud compute tpus tpu-vm list --zone us-central1-a",
    "gcloud compute tpus tpu-vm ssh mytpu --worker=all --command 'python train.py'",
    "gcloud compute tpus tpu-vm create mytpu --accelerator-type v4-8",
    "runpodctl exec python --pod_id abc123 src/train.py",  # a program that deletes nothing
    "runpodctl exec python --pod_id xyz999 wipe.py",  # a pod this ledger does not know
])
def test_the_same_tools_doing_nothing_destructive_pass(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    (box / "wipe.py").write_text("import shutil\nshutil.rmtree('/workspace/runs')\n")
    assert_passes(hook(command), command)
