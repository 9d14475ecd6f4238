"""`hook.judge` reads any command text without raising, and judges the same text the same way.

The hook fails closed on an internal error only for a command that looks destructive (the CLI
blocks it as "could not judge"); anything else that raised would pass unjudged. Either is a
defect: a false block a user cannot explain, or a command let through without its reading. So
the judge is fed text built from the words agents' commands are made of (the deletes, writes,
git write-backs, archives, launchers, wrappers, script runs, heredocs and Codex patches the hook
reads, the shell's operators and quoting, the protected paths of a real project), in any order,
including the broken orders (unclosed quotes, a heredoc without its end, `$(` without `)`) an
agent's truncated command has. The judge must return a verdict for every one, and the same
verdict when asked twice (no state carried from one judgement into the next: the script and
file caches are keyed by content).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.reconcile.hook import judge
from tests.reconcile.test_hook_python_writes import box  # noqa: F401 - the project fixture

_WORDS = [
    # deletes and writes of protected paths, and paths that are not
    "rm", "-rf", "-f", "capsules/c2", "capsules/c1/metrics.json", ".labledger/config.toml",
    ".labledger", "results/r1/best.pth", "build", "t", "cp", "-l", "mv", "ln", "-s", "link",
    "dd", "of=capsules/c2/ckpt.pt", "truncate", "-s0", "tee", "-a", "sed", "-i", "s/a/b/",
    "install", "chmod", "000", "find", "-delete", "-exec", "{}", "\\;", "+", "xargs", "-I{}",
    "rsync", "--delete", "--link-dest=capsules",
    # git write-backs
    "git", "checkout", "restore", "reset", "--hard", "stash", "clean", "-fdx", "HEAD", "main",
    # archives and downloads
    "tar", "-xf", "a.tar", "-C", "unzip", "-o", "-d", "7z", "x", "-ocapsules", "curl", "-o",
    "wget", "-O", "-P", "http://example.invalid/a",
    # programs, launchers, wrappers, scripts
    "python", "python3", "-c", "-m", "train.py", "torch.distributed.run", "torchrun",
    "--nproc_per_node=2", "accelerate", "launch", "import shutil;",
    "shutil.rmtree('capsules/c2')", "open('capsules/c2/ckpt.pt','w')", "bash", "sh",
    "clean.sh", "./clean.sh", "source", "sbatch", "srun", "tmux", "new", "screen", "-dm",
    "nohup", "env", "sudo", "timeout", "10", "flock",
    # teardown of instances
    "vastai", "destroy", "instance", "123", "runpodctl", "remove", "pod", "labledger",
    "teardown", "--yes",
    # Codex's patch envelope
    "apply_patch", "*** Begin Patch", "*** Update File: .labledger/hook.toml",
    "*** Delete File: capsules/c2/ckpt.pt", "*** End Patch",
    # worktrees, containers and their binds, cloud storage tools, fd (84b0b46's readers)
    "worktree", "move", "-C", "../exp1", "docker", "podman", "run", "--rm", "-v", "-itv",
    "$PWD:/w", "$(pwd):/w:ro", "/w:", ":", "-w", "/w", "/w/capsules/c2", "--mount",
    "type=bind,source=$PWD,target=/w", "type=bind,src=,dst=/", "apptainer", "exec", "-B",
    "img.sif", "rclone", "sync", "bisync", "purge", "remote:runs", ":s3:b", "aws", "s3",
    "gsutil", "-rd", "gcloud", "storage", "azcopy", "--delete-destination=true", "s5cmd",
    "fd", "-x", "-X", "-H", "-e", "-g", "'(a+)+$'", "'['", "--drive-chunk-size", "64M",
    "-Hx", "-xrm", "--exec=rm", "--entrypoint", "--entrypoint=",
    # handed items, other removers, shell-outs, jobs, hubs, compose (this session's readers)
    "$(pwd)", "`pwd`", "$(git rev-parse --show-toplevel)", "P=../exp1", "$P", "R=$(pwd)/x",
    "ls", "-d", "../exp*", "realpath", "readlink", "printf", "'%s\\n'", "-a", "list.txt",
    "--arg-file=list.txt", "cat", "sort", "trash", "trash-put", "gio", "kioclient5", "srm",
    "wipe", "rename", "'s/c2/c3/'", "mmv", "zip", "-rm", "--move", "-sdel", "node", "perl",
    "ruby", "php", "-r", "Rscript", "julia", "lua", "-ne", "\"system('rm -rf capsules/c2')\"",
    "qx(rm", "%x(", "execSync('rm -rf capsules')", "at", "now", "batch", "hf", "download",
    "--local-dir", "huggingface-cli", "wandb", "artifact", "get", "--root", "kaggle", "-p",
    "gdown", "--folder", "compose", "exec", "trainer", "docker-compose", "pnpm", "-w",
    "--workspace-root", ":local:capsules",
    # a NUL byte: no file has one in its name (an agent's corrupted paste)
    "a\x00b", "\x00",
    # the shell's own words, operators, expansions and quoting
    "echo", "x", "cd", "..", "export", "A=1", "alias", "rm='rm -i'", "f()", "{", "}", "if",
    "then", "fi", "for", "i", "in", "do", "done", "case", "esac", "!", "[[", "]]", "=", "(",
    ")", "$(", "`", "'", '"', "\\", "<<EOF", "<<'EOF'", "EOF", ">", ">>", "<", "2>&1", "|",
    "&&", "||", ";", "&", "\n", "$1", "$@", "*", "~", "$HOME", "${X:-capsules}",
    "$((1+2))", "{a,b}", "#", "--", "-",
]

_commands = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=24).flatmap(
    lambda words: st.sampled_from([" ", "", "\n"]).map(lambda sep: sep.join(words)))


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=_commands)
def test_every_command_gets_a_verdict_and_the_same_one_twice(box: Path, command: str) -> None:  # noqa: F811
    first = judge(command, str(box), str(box))
    again = judge(command, str(box), str(box))
    assert (first.allowed, first.message()) == (again.allowed, again.message()), command



@pytest.mark.parametrize("command", ["bash a\x00b", "ls\x00x", "sh ./run\x00.sh capsules",
                                     "source \x00", "fd -x rm a\x00b", "rclone sync r:x a\x00b",
                                     "docker run -v a\x00b:/w img rm -rf /w"])
def test_a_nul_byte_in_a_word_is_judged(box: Path, command: str) -> None:  # noqa: F811
    """No file has a NUL byte in its name; before, a script run by such a word
    (``bash a\\x00b``) raised ValueError from the path's lookup (present at 1a89c7e too)."""
    verdict = judge(command, str(box), str(box))
    assert verdict.allowed in (True, False)


# a makefile and a package.json of any text: `make` and `npm run` read them (`makefiles`,
# `package_scripts`)
_MAKE_WORDS = [
    "clean", "all", ":", "::", "=", ":=", "?=", "+=", "!=", "\t", "\n", "\\\n", "#", ";", "|",
    "$(", "${", ")", "}", "$$", "$@", "$<", "$(@D)", "$(A)", "$(A:%=capsules/%)", "A", "B",
    "$(call A,", "$(foreach a,", "$(if ", "$(shell ", "$(wildcard *)", "$(patsubst %,", ",",
    "%", "define", "endef", "override", "export", "include", "-include", "Makefile", "ifeq",
    "ifdef", "else", "endif", ".RECIPEPREFIX", ".DEFAULT_GOAL", ".PHONY", "rm -rf",
    "capsules/c2", ".labledger", "@", "-", "+", "$(MAKE)", "\x00", "\udcff", "\r",
]
_makefiles = st.lists(st.sampled_from(_MAKE_WORDS), max_size=40).map("".join)
_packages = st.one_of(
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8)
                 | st.sampled_from(["rm -rf capsules/c2", "npm run clean", "clean"]),
                 lambda inner: st.lists(inner, max_size=4)
                 | st.dictionaries(st.sampled_from(["scripts", "clean", "preclean",
                                                     "postinstall", "workspaces", "name"]),
                                   inner, max_size=4), max_leaves=12).map(json.dumps),
    st.text(max_size=60))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(makefile=_makefiles, package=_packages,
       command=st.sampled_from(["make", "make clean", "make -C . all A=x", "make -n clean",
                                "npm run clean", "npm install", "npm run clean -ws",
                                "yarn clean", "npm restart"]))
def test_any_makefile_or_package_json_gets_a_verdict(
        box: Path, makefile: str, package: str, command: str) -> None:  # noqa: F811
    _judged_twice_among(box, command, {"Makefile": makefile, "package.json": package})


def _judged_twice_among(box: Path, command: str, files: dict[str, str]) -> None:  # noqa: F811
    """``command`` gets the same verdict twice (no raise) with ``files`` written in ``box``
    (their text as given, lone surrogates and all)."""
    for name, text in files.items():
        (box / name).write_bytes(text.encode("utf-8", "surrogatepass"))
    first = judge(command, str(box), str(box))
    again = judge(command, str(box), str(box))
    assert (first.allowed, first.message()) == (again.allowed, again.message()), command


_COMPOSE_WORDS = ["services:", "\n", "  trainer:", "    volumes:", "      - ", ".:/w",
                  "./capsules:/c", ":ro", "type: bind", "source: .", "target: /w",
                  "read_only: true", "working_dir: /w", "[", "]", "{", "}", "&a", "*a", "7",
                  "\x00", "\udcff", "'", '"', "- x"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(compose=st.lists(st.sampled_from(_COMPOSE_WORDS), max_size=40).map("".join),
       listed=st.lists(st.sampled_from(["capsules/c2", "build", "\n", " ", "\x00", "*",
                                        "$(rm)", "../", "\udcff"]), max_size=12).map("".join),
       command=st.sampled_from(["docker compose run trainer rm -rf /w/capsules",
                                "docker compose exec trainer rm -rf /c/c2",
                                "docker-compose -f compose.yaml run trainer ls /w",
                                "xargs -a list.txt rm -rf", "rm -rf $(cat list.txt)",
                                "cat list.txt | xargs rm -rf", "at -f list.txt now"]))
def test_any_compose_file_or_list_gets_a_verdict(
        box: Path, compose: str, listed: str, command: str) -> None:  # noqa: F811
    _judged_twice_among(box, command, {"compose.yaml": compose, "list.txt": listed})
