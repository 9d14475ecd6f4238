"""`labledger hook` against the fifth round of gaps, through the real console script.

Program text that text tools run from places the command line only names: GNU sed's ``e``
command and ``s///e`` flag (inline, ``-e``, ``--expression``, ``-f`` files), awk programs in
``-f`` files, and git aliases defined in git's config files. Then the hook's start-up: the
profiles are loaded only when a command could match one of their patterns.

One RunPod box, ``pod-abc123`` at ``203.0.113.7``, whose run r2 was never pulled: every command
that destroys it must exit 2. ``results`` is an export root. Each test feeds the hook a Claude
Code payload on stdin, with a HOME of its own (no git config of the machine's user is read).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_review_fixes import BOX, assert_blocked, claude

DESTROY = "runpodctl remove pod pod-abc123"
EXE = Path(sys.executable).with_name("labledger")


@pytest.fixture
def box(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    pull_seed.rent("pod-abc123", profile="runpod", host=f"{BOX}:22022")
    ledger.append("run.launched", run="r2", instance="pod-abc123", command=["x"])
    (project / ".labledger" / "hook.toml").write_text('export-roots = ["results"]\n')
    (project / "results" / "r1").mkdir(parents=True)
    (project / "results" / "r1" / "best.pth").write_bytes(b"weights")
    (project / "src").mkdir()
    (project / "notes.txt").write_text("x\n")
    return project


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def hook(box: Path, home: Path) -> Callable[..., Any]:
    """Run the hook on ``command`` (payload cwd: the project, or ``cwd``), in an environment
    without the machine's git configuration: HOME is ``home``, no system config, no
    XDG_CONFIG_HOME or GIT_* variable unless ``env`` sets one."""

    def run(command: str, cwd: str | Path | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        clean = {k: v for k, v in os.environ.items()
                 if not k.startswith("GIT_") and k != "XDG_CONFIG_HOME"}
        clean.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", **(env or {}))
        return subprocess.run([str(EXE), "hook"], input=claude(command, cwd or box),
                              capture_output=True, text=True, env=clean, cwd=box, timeout=120,
                              check=False)

    return run


def assert_passes(result: Any, command: str) -> None:
    assert result.returncode == 0, (command, result.stderr)
    assert result.stderr == "", command


# 1: GNU sed's `e` command and `s///e` flag run shell commands ----------------------------------
@pytest.mark.parametrize("command", [
    f"sed -n '1e {DESTROY}' notes.txt",
    f"sed '$e {DESTROY}' notes.txt",
    f"sed 's/.*/{DESTROY}/e' notes.txt",
    f"sed -n 's/x/{DESTROY}/ge' notes.txt",
    f"sed -e p -e '1e {DESTROY}' notes.txt",
    f"sed -ne '1e {DESTROY}' notes.txt",
    f"sed --expression='1e {DESTROY}' notes.txt",
    f"sed --expression '1e {DESTROY}' notes.txt",
    f"sed --expr='1e {DESTROY}' notes.txt",  # getopt takes a unique prefix
    f"sed -i.bak 's/a/b/;1e {DESTROY}' notes.txt",
    f"sed '/x/{{\ne {DESTROY}\n}}' notes.txt",
    f"sed 's/[/]/y/;1e {DESTROY}' notes.txt",  # a delimiter inside a bracket expression
    f"sed 1d notes.txt -e '1e {DESTROY}'",  # options after operands (GNU getopt)
    f"sudo sed -n '1e {DESTROY}' notes.txt",
    f"bash -c \"sed -n '1e {DESTROY}' notes.txt\"",
])
def test_what_sed_runs_is_judged(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize("command", [
    "sed -n 's/^/runpodctl remove pod /e' ids.txt",  # the rest comes from the input
    f"echo '{DESTROY}' | sed e",  # a bare `e` runs the line itself
    f"echo '{DESTROY}' | sed -n 'e'",
    f"sed e <<'EOF'\n{DESTROY}\nEOF",
    f"sed -f - notes.txt <<'EOF'\n1e {DESTROY}\nEOF",  # the script read from stdin
])
def test_what_sed_runs_from_its_input_is_judged(hook: Callable[..., Any],
                                                command: str) -> None:
    assert_blocked(hook(command), command)


def test_sed_e_deleting_an_export_root_is_blocked(hook: Callable[..., Any]) -> None:
    result = hook("sed -n '1e rm -rf results' notes.txt")
    assert_blocked(result, "sed e rm -rf results")
    assert "an export root" in result.stderr


@pytest.mark.parametrize("command", [
    "sed -i 's/a/b/' notes.txt",
    "sed -n '/error/p' notes.txt",
    "sed 's/e/E/g; /e/d' notes.txt",
    f"sed -i 's/{DESTROY}/runpodctl get pod/' notes.txt",  # names a destroy, runs nothing
    f"sed -i '/{DESTROY}/d' notes.txt",
    f"sed '1a {DESTROY}' notes.txt",  # appended text
    f"sed '1i\\\n{DESTROY}' notes.txt",
    f"sed 'c {DESTROY}' notes.txt",
    f"sed 's/x/y/w {DESTROY}' notes.txt",  # a file name
    f"sed -n '# e {DESTROY}\np' notes.txt",  # a comment
    "sed -ie 's/x/y/' notes.txt",  # `-ie` is -i with the suffix `e`
    "sed 'y/abc/xyz/' notes.txt",
    "sed -n '1e nvidia-smi' notes.txt",  # what it runs is harmless
    f"sed --sandbox '1e {DESTROY}' notes.txt",  # sed refuses `e` there: nothing runs
    f"echo '{DESTROY}' | sed 's/pod/pods/'",  # its input is data unless `e` runs it
])
def test_ordinary_sed_passes(hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "sed -f cleanup.sed notes.txt",
    "sed -n -f cleanup.sed notes.txt",
    "sed -nf cleanup.sed notes.txt",
    "sed -fcleanup.sed notes.txt",
    "sed --file=cleanup.sed notes.txt",
    "sed --file cleanup.sed notes.txt",
    "sed -e p -f cleanup.sed notes.txt",
    "sed -f ./cleanup.sed -i notes.txt",
])
def test_a_sed_script_file_is_read_and_judged(hook: Callable[..., Any], box: Path,
                                              command: str) -> None:
    (box / "cleanup.sed").write_text(f"s/a/b/\n/x/{{\n  e {DESTROY}\n}}\n")
    assert_blocked(hook(command), command)


def test_a_sed_script_file_is_read_from_the_payload_cwd(hook: Callable[..., Any],
                                                        box: Path) -> None:
    """The hook runs in the project; the payload's cwd (src/) is where sed runs."""
    (box / "src" / "cleanup.sed").write_text(f"1e {DESTROY}\n")
    assert_blocked(hook("sed -f cleanup.sed ../notes.txt", cwd=box / "src"), "from src/")
    assert_blocked(hook("cd src && sed -f cleanup.sed ../notes.txt"), "after cd src")
    assert_passes(hook("sed -f cleanup.sed notes.txt"), "cleanup.sed is not in the project")


@pytest.mark.parametrize(("script", "command"), [
    ("s/a/b/\n/^#/d\n", "sed -f tidy.sed notes.txt"),
    (f"1a {DESTROY}\n", "sed -f tidy.sed notes.txt"),
    ("", "sed -f missing.sed notes.txt"),  # not there now: nothing to judge
])
def test_a_harmless_or_missing_sed_script_file_passes(hook: Callable[..., Any], box: Path,
                                                      script: str, command: str) -> None:
    (box / "tidy.sed").write_text(script)
    assert_passes(hook(command), command)


def test_a_fifo_named_as_a_script_does_not_hang_the_hook(hook: Callable[..., Any],
                                                         box: Path) -> None:
    os.mkfifo(box / "pipe.sed")
    start = time.monotonic()
    assert_passes(hook("sed -f pipe.sed notes.txt"), "a FIFO")
    assert time.monotonic() - start < 60


# 2: awk -f: the program file is judged as an inline program is --------------------------------
@pytest.mark.parametrize(("program", "command"), [
    (f'BEGIN {{ system("{DESTROY}") }}\n', "awk -f cleanup.awk"),
    (f'BEGIN {{ system("{DESTROY}") }}\n', "gawk -f cleanup.awk data.csv"),
    (f'BEGIN {{ system("{DESTROY}") }}\n', "mawk -fcleanup.awk data.csv"),
    (f'BEGIN {{ system("{DESTROY}") }}\n', "awk --file=cleanup.awk data.csv"),
    (f'BEGIN {{ system("{DESTROY}") }}\n', "gawk --file cleanup.awk data.csv"),
    (f'BEGIN {{ system("{DESTROY}") }}\n', "awk -F, -v n=1 -f cleanup.awk data.csv"),
    (f'BEGIN {{ system("{DESTROY}") }}\n', "gawk -e 'BEGIN { n = 1 }' -f cleanup.awk"),
    (f'{{ print "{DESTROY}" | "sh" }}\n', "awk -f cleanup.awk data.csv"),
    (f'{{ print $0 | "{DESTROY}" }}\n', "awk -f cleanup.awk data.csv"),
    ('{ system("rm -rf results") }\n', "awk -f cleanup.awk data.csv"),
])
def test_an_awk_program_file_is_read_and_judged(hook: Callable[..., Any], box: Path,
                                                program: str, command: str) -> None:
    (box / "cleanup.awk").write_text(program)
    assert_blocked(hook(command), command)


def test_gawk_source_and_include_are_read(hook: Callable[..., Any], box: Path) -> None:
    command = f"gawk --source='BEGIN {{ system(\"{DESTROY}\") }}'"
    assert_blocked(hook(command), command)
    (box / "lib.awk").write_text(f'function boom() {{ system("{DESTROY}") }}\n')
    (box / "main.awk").write_text('@include "lib.awk"\nBEGIN { boom() }\n')
    assert_blocked(hook("gawk -f main.awk"), "@include")
    assert_blocked(hook("gawk -i lib.awk 'BEGIN { boom() }'"), "-i lib.awk")


def test_an_awk_program_file_is_read_from_the_payload_cwd(hook: Callable[..., Any],
                                                          box: Path) -> None:
    (box / "src" / "cleanup.awk").write_text(f'BEGIN {{ system("{DESTROY}") }}\n')
    assert_blocked(hook("awk -f cleanup.awk", cwd=box / "src"), "from src/")
    assert_blocked(hook("cd src && awk -f cleanup.awk"), "after cd src")


@pytest.mark.parametrize(("program", "command"), [
    ("{ s += $2 } END { print s }\n", "awk -f sum.awk data.csv"),
    (f'{{ print "{DESTROY}" }}\n', "awk -f sum.awk data.csv"),  # prints it, runs nothing
    ('BEGIN { system("nvidia-smi") }\n', "awk -f sum.awk"),
    ("", "awk -f missing.awk data.csv"),
])
def test_a_harmless_or_missing_awk_program_file_passes(hook: Callable[..., Any], box: Path,
                                                       program: str, command: str) -> None:
    (box / "sum.awk").write_text(program)
    assert_passes(hook(command), command)


# 3: git aliases in git's config files ----------------------------------------------------------
def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("config", [
    f"[alias]\n\tnuke = !{DESTROY}\n",
    f'[alias]\n\tnuke = "!{DESTROY}" ; a comment\n',
    "[core]\n\tbare = false\n[Alias]\n\tNuke = !runpodctl remove \\\n\t\tpod pod-abc123\n",
    f"[alias] nuke = !{DESTROY}\n",
    "[alias]\n\tnuke = bisect run " + DESTROY + "\n",  # git words: judged as a git command
    f"[alias]\n\tnuke = boom\n\tboom = !{DESTROY}\n",  # an alias of an alias
])
def test_an_alias_in_the_repository_config_is_judged(hook: Callable[..., Any], box: Path,
                                                     config: str) -> None:
    write(box / ".git" / "config", config)
    result = hook("git nuke")
    assert_blocked(result, config)
    assert "instance 'pod-abc123'" in result.stderr
    assert "names none" not in result.stderr  # the alias's words name the instance


def test_a_shell_function_alias_is_judged(hook: Callable[..., Any], box: Path) -> None:
    write(box / ".git" / "config",
          '[alias]\n\tnuke = "!f() { runpodctl remove pod \\"$1\\"; }; f"\n')
    assert_blocked(hook("git nuke pod-abc123"), "a shell function alias")


def test_the_repository_is_found_upward_and_through_a_git_file(hook: Callable[..., Any],
                                                               box: Path) -> None:
    write(box / ".git" / "config", f"[alias]\n\tnuke = !{DESTROY}\n")
    assert_blocked(hook("git nuke", cwd=box / "src"), "from src/")
    assert_blocked(hook("cd src && git nuke"), "after cd src")
    assert_blocked(hook("bash -c 'git nuke'"), "in bash -c")
    # a worktree or submodule: .git is a file naming the git folder
    write(box / "src" / "lib" / ".git", "gitdir: ../../modules/lib\n")
    write(box / "modules" / "lib" / "config", f"[alias]\n\tzap = !{DESTROY}\n")
    assert_blocked(hook("git zap", cwd=box / "src" / "lib"), ".git file")
    assert_blocked(hook("git -C src/lib zap"), "git -C")


def test_the_alias_arguments_follow_its_command(hook: Callable[..., Any], box: Path) -> None:
    write(box / ".git" / "config", "[alias]\n\tnuke = !runpodctl remove pod\n")
    result = hook("git nuke pod-abc123")
    assert_blocked(result, "git nuke pod-abc123")
    assert "instance 'pod-abc123'" in result.stderr
    assert "names none" not in result.stderr


@pytest.mark.parametrize(("where", "env"), [
    (".gitconfig", {}),
    (".config/git/config", {}),  # XDG_CONFIG_HOME unset: ~/.config
    ("xdg/git/config", {"XDG_CONFIG_HOME": "{home}/xdg"}),
    ("elsewhere.cfg", {"GIT_CONFIG_GLOBAL": "{home}/elsewhere.cfg"}),
])
def test_an_alias_in_the_global_config_is_judged(hook: Callable[..., Any], home: Path,
                                                 where: str, env: dict[str, str]) -> None:
    write(home / where, f"[alias]\n\tnuke = !{DESTROY}\n")
    result = hook("git nuke", env={k: v.format(home=home) for k, v in env.items()})
    assert_blocked(result, where)


def test_a_config_the_line_points_git_to_is_read(hook: Callable[..., Any], box: Path) -> None:
    write(box / "team.gitconfig", f"[alias]\n\tnuke = !{DESTROY}\n")
    write(box / "elsewhere" / ".gitconfig", f"[alias]\n\tzap = !{DESTROY}\n")
    assert_blocked(hook("GIT_CONFIG_GLOBAL=team.gitconfig git nuke"), "GIT_CONFIG_GLOBAL=")
    assert_blocked(hook(f"env HOME={box}/elsewhere git zap"), "env HOME=")
    assert_passes(hook("git nuke"), "not read without the assignment")
    assert_passes(hook("git zap"), "not read without the assignment")
    command = "git --config-env=alias.nuke=NUKE nuke"  # a value from the environment
    assert_blocked(hook(command, env={"NUKE": f"!{DESTROY}"}), command)


def test_included_config_files_are_followed(hook: Callable[..., Any], home: Path,
                                            box: Path) -> None:
    write(home / ".gitconfig", "[include]\n\tpath = git/aliases.inc\n"
                               '[includeIf "gitdir:~/work/"]\n\tpath = ~/work.inc\n')
    write(home / "git" / "aliases.inc", f"[alias]\n\tnuke = !{DESTROY}\n")
    write(home / "work.inc", f"[alias]\n\tzap = !{DESTROY}\n")
    assert_blocked(hook("git nuke"), "[include] relative to the including file")
    # (the project is not under ~/work: test_hook_sed_includeif evaluates the conditions)
    assert_passes(hook("git zap"), "[includeIf] whose condition does not hold here")
    write(box / ".git" / "config", "[include]\n\tpath = ../team.gitconfig\n")
    write(box / "team.gitconfig", f"[alias]\n\tboom = !{DESTROY}\n")
    assert_blocked(hook("git boom"), "the repository's include")


@pytest.mark.parametrize("command", [
    "git status",  # git's own command wins over an alias of its name
    "git lg",
    "git undefined-alias",
    f"git commit -m 'nuke = !{DESTROY}'",
    "git log -- nuke",
])
def test_harmless_git_commands_pass(hook: Callable[..., Any], box: Path,
                                    command: str) -> None:
    write(box / ".git" / "config", f"[alias]\n\tstatus = !{DESTROY}\n"
                                   "\tlg = log --oneline --graph\n")
    assert_passes(hook(command), command)


def test_unreadable_or_broken_git_config_expands_nothing(hook: Callable[..., Any], home: Path,
                                                         box: Path) -> None:
    os.mkfifo(home / ".gitconfig")  # reading it would block: it is not a regular file
    write(box / ".git" / "config", "[alias\n\tnuke = \x00 !\n[[[\n")
    start = time.monotonic()
    assert_passes(hook("git nuke"), "a FIFO and a broken config")
    assert time.monotonic() - start < 60


# 4: start-up: the profiles are loaded only when a command could match one of their patterns --
def imported_modules(payload: str, cwd: Path) -> set[str]:
    """The modules `labledger hook` imports for ``payload`` (``-X importtime``)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "import sys; from labledger.ledger._main import main; "
         "sys.argv = ['labledger', 'hook']; main()"],
        input=payload, capture_output=True, text=True, cwd=cwd, timeout=120, check=False)
    assert proc.returncode in (0, 2), proc.stderr
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:")}


@pytest.mark.parametrize("command", ["ls -la", "git status", "python train.py --epochs 3",
                                     "cd src && nvidia-smi"])
def test_a_harmless_command_does_not_load_the_profiles(box: Path, command: str) -> None:
    imported = imported_modules(claude(command, box), box)
    assert "labledger.reconcile.hook" in imported  # the probe sees the hook's imports
    assert "labledger.profiles.loader" not in imported
    assert "msgspec" not in imported


def test_a_command_a_profile_pattern_matches_loads_them(box: Path) -> None:
    imported = imported_modules(claude("sudo shutdown -h now", box), box)
    assert "labledger.profiles.loader" in imported


MYCLOUD = ("\n[[shell-patterns]]\npattern = '\\bmycloud\\s+kill\\b'\neffect = \"destroy\"\n"
           'verified = "2025-01"\nsource = "test"\n')


def shipped_text(name: str) -> str:
    from importlib import resources

    return (resources.files("labledger.profiles") / f"{name}.toml").read_text(encoding="utf-8")


def test_the_quick_read_holds_every_profile_pattern(box: Path) -> None:
    """The patterns read without validating the files are those the loader loads (shipped
    and the user's), so a command none of them matches matches no loaded pattern."""
    from labledger.profiles.loader import load_profiles
    from labledger.reconcile.hook import _profile_pattern_strings

    write(box / ".labledger" / "profiles" / "mycloud.toml",
          shipped_text("runpod").replace('name = "runpod"', 'name = "mycloud"') + MYCLOUD)
    loaded = {p.pattern for lp in load_profiles(box / ".labledger" / "profiles").values()
              for p in lp.profile.shell_patterns}
    quick = _profile_pattern_strings(box / ".labledger")
    assert quick is not None
    assert {p.pattern for p in quick} == loaded
    assert r"\bmycloud\s+kill\b" in loaded


def test_a_user_profile_pattern_still_blocks(hook: Callable[..., Any], box: Path) -> None:
    write(box / ".labledger" / "profiles" / "runpod.toml", shipped_text("runpod") + MYCLOUD)
    assert_blocked(hook("mycloud kill all"), "a user profile's pattern")
    assert_passes(hook("mycloud list"), "mycloud list")


def test_a_broken_user_profile_fails_closed_on_a_destroy_only(hook: Callable[..., Any],
                                                              box: Path) -> None:
    write(box / ".labledger" / "profiles" / "runpod.toml", "name = [\n")
    result = hook("sudo shutdown -h now")  # only the profiles' patterns find this one
    assert_blocked(result, "shutdown")
    assert "could not judge a destructive command (InvalidProfileError" in result.stderr
    assert "fail closed" in result.stderr
    result = hook(DESTROY)  # the built-ins find this one: the gate judges it
    assert_blocked(result, DESTROY)
    assert "instance 'pod-abc123' is not pull-verified" in result.stderr
    assert_passes(hook("ls -la"), "ls -la")
    assert_passes(hook("python train.py"), "python train.py")


def test_no_ledger_still_blocks_a_profile_pattern(tmp_path: Path) -> None:
    folder = tmp_path / "bare"
    folder.mkdir()
    proc = subprocess.run([str(EXE), "hook"], input=json.dumps(
        {"tool_name": "Bash", "tool_input": {"command": "sudo shutdown -h now"},
         "cwd": str(folder)}), capture_output=True, text=True, cwd=folder, timeout=120,
        check=False)
    assert_blocked(proc, "shutdown without a ledger")
