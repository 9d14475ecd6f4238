"""`labledger hook` against the tools that delete a file other than ``rm``.

These passed unjudged with the capsule ``capsules/c2`` recorded and its stored copy missing:

- trash tools (``trash``, ``trash-put`` of trash-cli, ``gio trash``, ``kioclient5 move X
  trash:/``): the capsule leaves its recorded place for a trash can; an agent told to "use
  trash instead of rm" takes them;
- secure deletes (``srm -r``, ``wipe -rf``);
- renames (``rename 's/c2/c3/' capsules/c2``, ``mmv``): the capsule's recorded path is gone;
- archivers told to delete what they pack (``zip -m``, ``7z a -sdel``; ``tar
  --remove-files`` was judged already);
- a program's delete call in node, Ruby, Perl or Julia (``fs.rmSync``, ``FileUtils.rm_rf``,
  ``remove_tree``, ``unlink "f"``, ``rm(p; recursive=true)``); R's ``unlink(`` was judged;
- a shell command such a program runs (``perl -e 'system("rm -rf …")'``, node's
  ``execSync``/``spawnSync``, Ruby's backticks and ``%x()``, PHP's ``shell_exec``, Lua's
  ``os.execute``, Julia's ``run(`…`)``); Python's ``os.system`` was judged;
- the job ``at``/``batch`` runs later (``at now <<< 'rm -rf …'``, ``at -f job.sh now``).

The project is `test_hook_writes`' (``capsules/c2`` unverified, ``capsules/c3`` stored and
verifying, ``results`` an export root). The tools installed here (trash-cli's ``trash-put``
from the dev extras, ``zip`` from ``.ci/run``, node with npm, perl) are first run on a copy:
what the hook blocks they really delete, and what it passes they leave.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture

BIN = Path(sys.executable).parent


@pytest.mark.parametrize("command", [
    "trash capsules/c2",
    "trash-put capsules/c2",
    "trash-put -v capsules/c2/metrics.json",
    "gio trash capsules/c2",
    "gio remove capsules/c2/metrics.json",
    "gio move capsules/c2 /tmp/elsewhere",
    "kioclient5 move capsules/c2 trash:/",
    "srm -r capsules/c2",
    "wipe -rf capsules/c2",
    "rename 's/c2/c9/' capsules/c2",
    "prename -v 's/c2/c9/' capsules/*",
    "mmv 'capsules/c2' 'capsules/c9'",
    "zip -rm backup.zip capsules/c2",
    "zip -r -m backup.zip capsules",
    "zip --move -r backup.zip capsules/c2",
    "7z a -sdel backup.7z capsules/c2",
    "node -e \"require('fs').rmSync('capsules/c2', {recursive: true})\"",
    "node -e \"require('fs').rm('capsules/c2', {recursive: true}, () => {})\"",
    "node -e \"require('fs').promises.rm('capsules/c2', {recursive: true, force: true})\"",
    "ruby -e \"require 'fileutils'; FileUtils.rm_rf('capsules/c2')\"",
    "ruby -e \"require 'fileutils'; FileUtils.rm_rf 'capsules/c2'\"",
    "perl -MFile::Path=remove_tree -e 'remove_tree(\"capsules/c2\")'",
    "perl -e 'unlink \"capsules/c2/metrics.json\"'",
    "julia -e 'rm(\"capsules/c2\"; recursive=true)'",
    "trash results",  # an export root
])
def test_other_removers_of_a_capsule_are_blocked(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("capsules/c2" in r or "results" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "trash build",
    "trash-put capsules/c3",  # its stored copy verifies
    "gio trash /tmp/scratch.txt",
    "gio info capsules/c2",
    "kioclient5 exec capsules/c2/metrics.json",
    "rename 's/\\.txt$/.md/' notes/*.txt",
    "zip -r backup.zip capsules/c2",  # zipped, not deleted
    "zip -r -b /tmp backup.zip capsules/c2",
    "zip -rm logs.zip logs",
    "7z a backup.7z capsules/c2",
    "7z x backup.7z -o/tmp/out",
    "node -e \"require('fs').rmSync('build', {recursive: true})\"",
    "node -e 'console.log(process.version)'",
    "perl -e 'print \"remove the tree\\n\"'",
    "rmdir capsules/c2",  # refuses a folder with files
])
def test_other_tools_that_spare_it_pass(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


def _run_on_a_copy(box: Path, tmp_path: Path, command: list[str]) -> Path:  # noqa: F811
    copy = tmp_path / "copy"
    shutil.copytree(box, copy, symlinks=True)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "PATH": f"{BIN}:{os.environ['PATH']}"}
    (tmp_path / "home").mkdir()
    subprocess.run(command, cwd=copy, env=env, capture_output=True, check=False, timeout=60)
    return copy


@pytest.mark.parametrize(("command", "deletes"), [
    (["trash-put", "capsules/c2"], True),
    (["zip", "-rm", "backup.zip", "capsules/c2"], True),
    (["zip", "-r", "backup.zip", "capsules/c2"], False),
    (["node", "-e", "require('fs').rmSync('capsules/c2', {recursive: true})"], True),
    (["perl", "-MFile::Path=remove_tree", "-e", "remove_tree('capsules/c2')"], True),
    (["perl", "-e", "unlink 'capsules/c2/metrics.json'"], True),
    (["rmdir", "capsules/c2"], False),
])
def test_what_the_real_tools_do(box: Path, tmp_path: Path, command: list[str],  # noqa: F811
                                deletes: bool) -> None:
    """What the rows above stand on, for the tools installed here (none is skipped: the dev
    extras install trash-cli, ``.ci/run`` zip and npm, which brings node)."""
    assert shutil.which(command[0], path=f"{BIN}:{os.environ['PATH']}"), command[0]
    copy = _run_on_a_copy(box, tmp_path, command)
    assert (copy / "capsules" / "c2" / "metrics.json").exists() is not deletes, command
    assert _judged(box, shlex.join(command)).allowed is not deletes, command


# A shell command run by a program in another language than Python (Python's is read whole):
# each string literal of the inline program (and all of them joined, for an argument list)
# is read as a line it may run, once the program calls something that runs one.
@pytest.mark.parametrize("command", [
    "perl -e 'system(\"rm -rf capsules/c2\")'",
    "perl -e 'qx(rm -rf capsules/c2)'",
    "perl -e 'my $x = qx{rm -rf capsules/c2};'",
    "perl -ne 'system(\"rm -rf capsules/c2\") if /x/' list.txt",
    "node -e \"require('child_process').execSync('rm -rf capsules/c2')\"",
    "node -e \"require('child_process').spawnSync('rm', ['-rf', 'capsules/c2'])\"",
    "node --eval=\"require('child_process').exec('rm -rf capsules/c2')\"",
    "ruby -e 'system(\"rm -rf capsules/c2\")'",
    "ruby -e '`rm -rf capsules/c2`'",
    "ruby -e '%x(rm -rf capsules/c2)'",
    "php -r 'shell_exec(\"rm -rf capsules/c2\");'",
    "Rscript -e 'system(\"rm -rf capsules/c2\")'",
    "lua -e 'os.execute(\"rm -rf capsules/c2\")'",
    "julia -e 'run(`rm -rf capsules/c2`)'",
])
def test_a_programs_shell_command_is_judged(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("capsules/c2" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "node -e \"require('child_process').execSync('ls capsules')\"",
    "perl -e 'system(\"echo hi\")'",
    "node -e \"console.log('rm -rf capsules/c2')\"",  # printed, never run
    "ruby -e 'puts \"rm -rf capsules/c2\"'",
])
def test_a_program_that_runs_no_delete_passes(box: Path, command: str) -> None:  # noqa: F811
    assert _judged(box, command).allowed, command


@pytest.mark.parametrize("program", [
    ["perl", "-e", "system('rm -rf capsules/c2')"],
    ["node", "-e", "require('child_process').execSync('rm -rf capsules/c2')"],
    ["node", "-e", "require('child_process').spawnSync('rm', ['-rf', 'capsules/c2'])"],
])
def test_real_interpreters_run_the_delete(box: Path, tmp_path: Path,  # noqa: F811
                                          program: list[str]) -> None:
    copy = _run_on_a_copy(box, tmp_path, program)
    assert not (copy / "capsules" / "c2" / "metrics.json").exists(), program
    assert not _judged(box, shlex.join(program)).allowed, program


# `at`/`batch` run the job they read (stdin, or `-f FILE`) here, later: it passed unjudged.
@pytest.mark.parametrize(("command", "allowed"), [
    ("at now <<< 'rm -rf capsules/c2'", False),
    ("echo 'rm -rf capsules/c2' | at now + 1 hour", False),
    ("batch <<< 'rm -rf capsules/c2'", False),
    ("at -f job.sh now", False),
    ("at now <<< 'python train.py'", True),
    ("at -l", True),
])
def test_the_job_at_runs_is_judged(box: Path, command: str, allowed: bool) -> None:  # noqa: F811
    (box / "job.sh").write_text("rm -rf capsules/c2\n")
    verdict = _judged(box, command)
    assert verdict.allowed is allowed, (command, verdict.reasons)
