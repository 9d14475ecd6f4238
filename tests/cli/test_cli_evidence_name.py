"""EVIDENCE.json's ``project`` is a name, not evidence: a project whose folder was renamed or
copied (a co-author's clone in ``paper-v2``, a CI checkout) neither fails ``evidence --check``
or the pre-commit hook, nor gets the name rewritten by ``evidence -o``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

BIN = Path(sys.executable).parent
FIXED_TEXT = "# Results\n\nOurs: PSNR 31.42 dB.\n"


@pytest.fixture
def claimed(ledger: Ledger, project: Path) -> Path:
    """A project (folder ``project``) with claim C1 and its EVIDENCE.json written."""
    ledger.append("claim.declared", run="r1", claim="C1", metric="psnr", value=31.42,
                  direction="higher", source_digest="blake3:" + "0" * 64, unit="dB",
                  aliases=["PSNR", "Ours"])
    ledger.close()
    return project


def evidence(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    return call(capsys, "--root", str(root), "evidence", *args)


def moved(project: Path, name: str) -> Path:
    target = project.parent / name
    shutil.copytree(project, target, symlinks=True)
    return target


def test_a_renamed_project_folder_still_checks_and_keeps_its_name(
        claimed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    written = claimed / "EVIDENCE.json"
    assert evidence(capsys, claimed, "-o", str(written))[0] == 0
    before = written.read_bytes()
    assert json.loads(before)["project"] == "project"
    copy = moved(claimed, "paper-v2")
    code, _, err = evidence(capsys, copy, "--check", "-o", str(copy / "EVIDENCE.json"))
    assert code == 0, err
    code, _, err = evidence(capsys, copy, "-o", str(copy / "EVIDENCE.json"))
    assert code == 0, err
    assert "(unchanged)" in err
    assert (copy / "EVIDENCE.json").read_bytes() == before
    # with no file to keep a name from, the folder names the project
    code, out, _ = evidence(capsys, copy)
    assert code == 0
    assert json.loads(out)["project"] == "paper-v2"
    assert json.loads(out)["authoritative_source"] == "labledger ledger (paper-v2/.labledger)"


def test_a_name_given_by_hand_is_kept_and_checked(claimed: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    written = claimed / "EVIDENCE.json"
    assert evidence(capsys, claimed, "-o", str(written))[0] == 0
    document = json.loads(written.read_text())
    document["project"] = "Learned image compression (CVPR)"
    document["authoritative_source"] = \
        "labledger ledger (Learned image compression (CVPR)/.labledger)"
    written.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    code, _, err = evidence(capsys, claimed, "--check")
    assert code == 0, err
    assert evidence(capsys, claimed, "-o", str(written))[0] == 0
    assert json.loads(written.read_text())["project"] == "Learned image compression (CVPR)"
    # the source line still has to follow the name: a file edited half-way is a difference
    document["authoritative_source"] = "labledger ledger (elsewhere/.labledger)"
    written.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    code, _, err = evidence(capsys, claimed, "--check")
    assert code == 3
    assert "authoritative_source: file has" in err


@pytest.mark.parametrize("name", ["", "  ", 7, None, "two\nlines"])
def test_an_unusable_name_in_the_file_is_a_difference(
        claimed: Path, capsys: pytest.CaptureFixture[str], name: object) -> None:
    written = claimed / "EVIDENCE.json"
    assert evidence(capsys, claimed, "-o", str(written))[0] == 0
    document = json.loads(written.read_text())
    document["project"] = name
    written.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    code, _, err = evidence(capsys, claimed, "--check")
    assert code == 3
    assert "project: file has" in err
    assert 'the ledger gives "project"' in err
    # -o replaces the unusable name with the folder's
    assert evidence(capsys, claimed, "-o", str(written))[0] == 0
    assert json.loads(written.read_text())["project"] == "project"


def _git(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, timeout=300)


def test_the_pre_commit_hook_passes_in_a_renamed_clone(claimed: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    env.pop("LABLEDGER_ROOT", None)
    config = claimed / ".labledger" / "config.toml"
    config.write_text(config.read_text() + '\n[reconcile]\ndocuments = ["paper/*.md"]\n')
    (claimed / "paper").mkdir()
    (claimed / "paper" / "results.md").write_text(FIXED_TEXT)
    (claimed / ".gitignore").write_text(".labledger/\n")
    assert _git(claimed, env, "init", "-q", "-b", "main").returncode == 0
    labledger = str(BIN / "labledger")
    subprocess.run([labledger, "evidence", "-o", "EVIDENCE.json"], cwd=claimed, env=env,
                   check=True, capture_output=True, timeout=120)
    subprocess.run([labledger, "hooks", "install"], cwd=claimed, env=env, check=True,
                   capture_output=True, timeout=120)
    _git(claimed, env, "add", "-A")
    first = _git(claimed, env, "commit", "-q", "-m", "paper")
    assert first.returncode == 0, first.stdout + first.stderr
    copy = moved(claimed, "paper-final")  # the folder renamed, its ledger moved with it
    (copy / "paper" / "results.md").write_text(FIXED_TEXT + "\nMore prose.\n")
    _git(copy, env, "add", "-A")
    second = _git(copy, env, "commit", "-q", "-m", "more prose")
    assert second.returncode == 0, second.stdout + second.stderr
    assert json.loads((copy / "EVIDENCE.json").read_text())["project"] == "project"
