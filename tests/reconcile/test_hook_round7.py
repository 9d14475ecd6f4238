"""`labledger hook` against what was left from the sixth round, through the real console script.

A Paperspace documentation page is not the Paperspace CLI; a capsule named ``c2`` is not named
by ``ec2`` or ``c21``; a delete's glob is matched against the protected folders' own paths (a
project folder whose name holds ``[`` included); and a computed delete inside ``bash -c '...'``
is judged by the pipelines of that script, as a top-level line is.

The ledger holds RunPod ``pod-abc123`` at ``203.0.113.7`` (run r2, never pulled: every destroy
that may reach it is refused), ``capsules/c2`` (a sealed capsule whose stored copy is missing:
deleting it is refused) and ``exp[v2]/capsules/c7`` (the same, in a folder whose name holds
brackets). ``data/`` holds a small image tree. Each test feeds the hook a Claude Code payload.
"""

from __future__ import annotations

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
    for run, folder in (("r2", "capsules/c2"), ("r3", "exp[v2]/capsules/c7")):
        # their stored copies are not here: deleting either is refused
        ledger.append("capsule.sealed", run=run, path=folder, digest="blake3:" + "ab" * 32,
                      files=1, bytes=1)
        (project / folder).mkdir(parents=True)
        (project / folder / "metrics.json").write_text('{"acc": 0.91}\n')
    for split in ("train", "val"):
        (project / "data" / split).mkdir(parents=True)
        for k in range(20):
            (project / "data" / split / f"img_{k:04d}.jpg").write_bytes(b"\xff\xd8\xff")
    (project / "build").mkdir()
    return project


def assert_deletes_a_capsule(result: Any, command: str) -> None:
    assert_blocked(result, command)
    assert "deletes the capsule" in result.stderr, result.stderr


# 1: the Paperspace CLI's name is a command word, not part of a docs URL -------------------------
# Shapes: Paperspace's documentation site (docs.paperspace.com/core/api-reference/machines; the
# archived Paperspace/Docs machines/using-machines/stop-machine.md), the `pspace machine stop ID`
# of the current CLI (Paperspace/cli commands/machine/stop/mod.ts) and the legacy node CLI's
# `paperspace machines stop --machineId ID`.
@pytest.mark.parametrize("command", [
    "curl -s https://docs.paperspace.com/core/api-reference/machines/stop",
    'curl -sL "https://docs.paperspace.com/core/api-reference/machines/#destroy"',
    "wget -qO- https://docs.paperspace.com/core/api-reference/machines/delete",
    "python -c \"import webbrowser; webbrowser.open('https://docs.paperspace.com/core/"
    "api-reference/machines/stop')\"",
])
def test_a_paperspace_documentation_page_is_not_a_stop(hook: Callable[..., Any],
                                                       command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "pspace machine stop psz4ktq0",
    "pspace machine delete psz4ktq0",
    "/usr/local/bin/pspace machine stop psz4ktq0",
    "paperspace machines stop --machineId psz4ktq0",
    "sudo paperspace machines destroy --machineId psz4ktq0",
    "python -c \"import subprocess; subprocess.run(['pspace', 'machine', 'stop', 'psz4ktq0'])\"",
    "python -c \"import os; os.system('pspace machine delete psz4ktq0')\"",
])
def test_the_paperspace_cli_stopping_a_machine_is_still_a_destroy(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "live instance 'pod-abc123'" in result.stderr


# 2: a capsule is mentioned by a word holding its name as a path part ----------------------------
# Shapes: `find ./ -name '*~' | xargs rm -f` (Makefile clean targets), `ls -t DIR/*.gz | tail -n
# +8 | xargs rm -f` (backup rotation scripts), with folders named after AWS's EC2 and a run c21.
@pytest.mark.parametrize("command", [
    "ls -t /tmp/ec2-logs/*.gz | tail -n +8 | xargs rm -f",
    "find /tmp/scratch -name 'c21*' | xargs rm -rf",
    "find /tmp/ec2 -name '*.tmp' -print0 | xargs -0 rm -f",
    # a glob of several parts is a path: matched against the capsule's path, not its name
    "ls */*/*.jpg | xargs rm -f",
])
def test_a_word_only_containing_the_capsules_name_does_not_mention_it(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "ls capsules | xargs rm -rf",
    "ls capsules/c2 | xargs rm",
    "find . -name c2 | xargs rm -rf",
    "find . -name 'c?' -print0 | xargs -0 rm -rf",
    "find . -type d -name '*c2*' | xargs rm -rf",
])
def test_a_word_naming_the_capsule_still_feeds_the_delete(hook: Callable[..., Any],
                                                          command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


# 3: a delete's glob is matched against the protected folders, not expanded ----------------------
# Shapes: `rm -rf data/*/*.jpg` clearing an image cache, `rm -rf capsules/c*` clearing old runs;
# a project folder named after an experiment's variant, `exp[v2]` (brackets are literal in a
# working folder's name: only the written glob is a pattern).
@pytest.mark.parametrize("command", [
    "rm -rf data/*/*.jpg",
    "rm -f data/train/img_00[0-9]?.jpg",
    "rm -rf build/*",
])
def test_a_glob_away_from_the_capsules_passes(hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "rm -rf capsules/c*",
    "rm -rf caps*",
    "rm -rf */c[0-9]",
    "rm -rf capsules/*/metrics.json",
    "rm -rf exp*/capsules",
    "find caps* -name '*.json' -delete",
])
def test_a_glob_reaching_a_capsule_is_blocked(hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


@pytest.mark.parametrize("command", [
    "rm -rf capsules/c*",
    "rm -rf capsules/*/metrics.json",
    "rm -rf ./*",
])
def test_a_glob_from_a_folder_whose_name_holds_brackets_is_blocked(
        hook: Callable[..., Any], box: Path, command: str) -> None:
    assert_deletes_a_capsule(hook(command, cwd=box / "exp[v2]"), command)


# 4: a computed delete inside `bash -c` is judged by that script's own pipelines -------------------
# Shapes: the sixth round's (`du -sh DIR` to look, then `find ... | xargs rm -f` elsewhere), as
# an agent writes them for a tool that takes one shell string (`bash -c '...'`, `sh -c "..."`).
@pytest.mark.parametrize("command", [
    "bash -c 'du -sh capsules; find /tmp/scratch -name \"*.tmp\" | xargs rm -f'",
    "sh -c \"ls -la capsules && find /tmp/scratch -name '*.tmp' | xargs rm -f\"",
    "bash -lc 'wc -l capsules/c2/metrics.json\nfind /tmp/scratch -type f | xargs rm -f'",
    "du -sh build; bash -c 'du -sh capsules; find /tmp/scratch -name x | xargs rm -f'",
    "bash -c \"sh -c 'du -sh capsules; find /tmp/scratch -name x | xargs rm -f'\"",
])
def test_a_look_beside_a_computed_delete_inside_bash_c_passes(hook: Callable[..., Any],
                                                             command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "bash -c 'ls capsules | xargs rm -rf'",
    "bash -c 'du -sh capsules; ls capsules | xargs rm -rf'",
    "ls capsules | bash -c 'xargs rm -rf'",
    "bash -c 'cd capsules; ls | xargs rm -rf'",
    "bash -c 'D=capsules; ls $D | xargs rm -rf'",
    "export D=capsules; bash -c 'ls $D | xargs rm -rf'",
    "bash -c 'ls -d capsules/* > /tmp/old.txt; xargs rm -rf < /tmp/old.txt'",
    "bash -c \"sh -c 'ls capsules | xargs rm -rf'\"",
    "bash -c 'du -sh build; sh -c \"ls capsules\" | xargs rm -rf'",
    "ls capsules > /tmp/old.txt; bash -c 'cat /tmp/old.txt | xargs rm -rf'",
])
def test_a_computed_delete_inside_bash_c_fed_the_capsules_is_blocked(
        hook: Callable[..., Any], command: str) -> None:
    assert_deletes_a_capsule(hook(command), command)


# Review: the general clouds' patterns took any non-word character between their words, so a
# path, a file name or a sentence holding them read as the command. Their words are apart by
# blanks, or are the quoted items of a list.
@pytest.mark.parametrize("command", [
    "cp -r az/vm/stop.py backup/",
    "tar czf az.tgz vm/delete",
    'python plot.py --title "blue sky, down"',
    "cat notes/gcloud/compute/instances/delete.md",
])
def test_a_path_or_sentence_holding_a_cloud_clis_words_is_no_destroy(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "/usr/bin/az vm deallocate -g rg -n x",
    "python -c \"import subprocess; subprocess.run(['sky', 'down', 'c1'])\"",
    "sudo sky stop c1",
    "aws --region us-east-1 ec2 stop-instances --instance-ids i-1",
])
def test_the_cloud_clis_own_destroys_stay_blocked(hook: Callable[..., Any],
                                                  command: str) -> None:
    assert_blocked(hook(command), command)
