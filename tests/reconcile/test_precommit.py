"""A real git repository: `git commit` is refused on drift and passes after the fix, through the
plain hook (`labledger hooks install`) and through the real pre-commit framework using this
repository's .pre-commit-hooks.yaml (a local hooks repo: no network)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def git(cwd: Path, *args: str, env: dict[str, str] | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
                          env=env, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stdout}{proc.stderr}")
    return proc


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment a developer's `git commit` runs in: labledger on PATH, no global config."""
    home = tmp_path / "home"
    home.mkdir()
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PRE_COMMIT_HOME": str(tmp_path / "pc"),
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t"}


def git_project(ledger: Ledger, project: Path, env: dict[str, str], documents: str,
                claim: str = "C1", aliases: tuple[str, ...] = ("PSNR", "Ours")) -> Path:
    """``project`` made a git work tree (the ledger ignored) whose ledger holds ``claim``
    (PSNR 31.42 dB, named by ``aliases``) and whose configured documents are ``documents``."""
    ledger.append("claim.declared", run="r1", claim=claim, metric="psnr", value=31.42,
                  direction="higher", source_digest="blake3:" + "0" * 64, unit="dB",
                  aliases=list(aliases))
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + f'\n[reconcile]\ndocuments = ["{documents}"]\n')
    git(project, "init", "-q", "-b", "main", env=env)
    (project / ".gitignore").write_text(".labledger/\n")
    return project


def install_hooks(project: Path, env: dict[str, str]) -> None:
    """`labledger hooks install` in ``project`` (a git work tree), which must succeed."""
    installed = subprocess.run([str(BIN / "labledger"), "hooks", "install"], cwd=project,
                               env=env, capture_output=True, text=True, check=False, timeout=120)
    assert installed.returncode == 0, installed.stderr


def commit_all(project: Path, env: dict[str, str],
               message: str = "paper") -> subprocess.CompletedProcess[str]:
    """``git add -A`` then ``git commit``: the hook's verdict is the commit's exit status."""
    git(project, "add", "-A", env=env)
    return git(project, "commit", "-q", "-m", message, env=env, check=False)


@pytest.fixture
def repo(ledger: Ledger, project: Path, env: dict[str, str]) -> Path:
    """A git work tree holding a ledger with claim C1 (PSNR 31.42 dB) and a configured paper."""
    git_project(ledger, project, env, "paper/*.md")
    (project / "paper").mkdir()
    (project / "paper" / "results.md").write_text("# Results\n\nOurs: PSNR 31.42 dB.\n")
    return project


def commit(repo: Path, env: dict[str, str], text: str, message: str,
           ) -> subprocess.CompletedProcess[str]:
    (repo / "paper" / "results.md").write_text(text)
    git(repo, "add", "-A", env=env)
    return git(repo, "commit", "-q", "-m", message, env=env, check=False)


def committed(repo: Path, env: dict[str, str]) -> str:
    return git(repo, "show", "HEAD:paper/results.md", env=env).stdout


DRIFT = "# Results\n\nOurs: PSNR 31.5 dB.\n"
FIXED = "# Results\n\nOurs: PSNR 31.4 dB.\n"


def test_plain_hook_blocks_drift_then_passes(repo: Path, env: dict[str, str]) -> None:
    installed = subprocess.run([str(BIN / "labledger"), "hooks", "install"], cwd=repo, env=env,
                               capture_output=True, text=True, check=False, timeout=120)
    assert installed.returncode == 0, installed.stderr
    assert commit(repo, env, "# Results\n\nOurs: PSNR 31.42 dB.\n", "clean").returncode == 0
    blocked = commit(repo, env, DRIFT, "drift")
    assert blocked.returncode != 0
    # git passes the hook's stdout on to its own stderr
    output = blocked.stdout + blocked.stderr
    assert "paper/results.md:3:12: C1 says 31.5, evidence says 31.42" in output
    assert "commit blocked" in output
    assert committed(repo, env) == "# Results\n\nOurs: PSNR 31.42 dB.\n"
    passed = commit(repo, env, FIXED, "fixed")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert committed(repo, env) == FIXED


def test_plain_hook_judges_the_staged_version_not_the_working_tree(
        repo: Path, env: dict[str, str]) -> None:
    subprocess.run([str(BIN / "labledger"), "hooks", "install"], cwd=repo, env=env, check=True,
                   capture_output=True, timeout=120)
    (repo / "paper" / "results.md").write_text(DRIFT)
    git(repo, "add", "-A", env=env)
    (repo / "paper" / "results.md").write_text(FIXED)  # fixed on disk, not staged
    blocked = git(repo, "commit", "-q", "-m", "x", env=env, check=False)
    assert blocked.returncode != 0
    assert "C1 says 31.5" in blocked.stdout + blocked.stderr


def test_plain_hook_ignores_unstaged_and_unconfigured_files(repo: Path,
                                                            env: dict[str, str]) -> None:
    subprocess.run([str(BIN / "labledger"), "hooks", "install"], cwd=repo, env=env, check=True,
                   capture_output=True, timeout=120)
    (repo / "notes.md").write_text("PSNR 99 dB\n")  # not in [reconcile] documents
    passed = commit(repo, env, FIXED, "ok")
    assert passed.returncode == 0, passed.stdout + passed.stderr


@pytest.fixture
def hooks_repo(tmp_path: Path, env: dict[str, str]) -> tuple[Path, str]:
    """A local git repo holding a copy of this repository's .pre-commit-hooks.yaml."""
    hooks = tmp_path / "hooks-repo"
    hooks.mkdir()
    shutil.copy(REPO / ".pre-commit-hooks.yaml", hooks / ".pre-commit-hooks.yaml")
    git(hooks, "init", "-q", "-b", "main", env=env)
    git(hooks, "add", ".pre-commit-hooks.yaml", env=env)
    git(hooks, "commit", "-q", "-m", "hooks", env=env)
    return hooks, git(hooks, "rev-parse", "HEAD", env=env).stdout.strip()


def test_pre_commit_framework_blocks_drift_then_passes(repo: Path, env: dict[str, str],
                                                       hooks_repo: tuple[Path, str]) -> None:
    hooks, rev = hooks_repo
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: labledger-reconcile\n")
    assert commit(repo, env, "# Results\n\nOurs: PSNR 31.42 dB.\n", "init").returncode == 0
    installed = subprocess.run([str(BIN / "pre-commit"), "install"], cwd=repo, env=env,
                               capture_output=True, text=True, check=False, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    blocked = commit(repo, env, DRIFT, "drift")
    assert blocked.returncode != 0
    output = blocked.stdout + blocked.stderr
    assert "labledger reconcile" in output
    assert "Failed" in output
    assert "paper/results.md:3:12: C1 says 31.5, evidence says 31.42" in output
    assert committed(repo, env) == "# Results\n\nOurs: PSNR 31.42 dB.\n"
    passed = commit(repo, env, FIXED, "fixed")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert committed(repo, env) == FIXED


def test_shipped_hooks_manifest_is_valid() -> None:
    from pre_commit.clientlib import load_manifest

    (hook,) = load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
    assert hook["id"] == "labledger-reconcile"
    assert hook["entry"] == "labledger reconcile --staged"
    assert hook["pass_filenames"] is False


def test_plain_hook_blocks_a_stale_evidence_json(repo: Path, ledger: Ledger,
                                                 env: dict[str, str]) -> None:
    run = [str(BIN / "labledger")]
    subprocess.run([*run, "hooks", "install"], cwd=repo, env=env, check=True,
                   capture_output=True, timeout=120)
    subprocess.run([*run, "evidence", "-o", "EVIDENCE.json"], cwd=repo, env=env, check=True,
                   capture_output=True, timeout=120)
    assert commit(repo, env, FIXED, "evidence").returncode == 0
    ledger.append("claim.declared", run="r1", claim="C1", metric="psnr", value=31.38,
                  direction="higher", source_digest="blake3:" + "0" * 64, unit="dB",
                  aliases=["PSNR", "Ours"])  # re-declared: the committed EVIDENCE.json is stale
    blocked = commit(repo, env, FIXED.replace("31.4 ", "31.38 "), "stale evidence")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0
    assert "EVIDENCE.json: differs from the ledger: claim C1: evidence[0].value: file has 31.42" \
        in output
    assert "labledger evidence -o EVIDENCE.json" in output
    subprocess.run([*run, "evidence", "-o", "EVIDENCE.json"], cwd=repo, env=env, check=True,
                   capture_output=True, timeout=120)
    passed = commit(repo, env, FIXED.replace("31.4 ", "31.38 "), "evidence regenerated")
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_plain_hook_refuses_a_malformed_staged_notebook(repo: Path, env: dict[str, str]) -> None:
    config = repo / ".labledger" / "config.toml"
    config.write_text(config.read_text().replace('["paper/*.md"]',
                                                 '["paper/*.md", "paper/*.ipynb"]'))
    subprocess.run([str(BIN / "labledger"), "hooks", "install"], cwd=repo, env=env, check=True,
                   capture_output=True, timeout=120)
    (repo / "paper" / "eval.ipynb").write_text('{"cells": [')
    blocked = commit(repo, env, FIXED, "notebook")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0
    assert "paper/eval.ipynb: not a valid notebook: malformed JSON" in output
    assert "Traceback" not in output


def test_a_commit_that_leaves_the_paper_alone_still_judges_it(repo: Path, ledger: Ledger,
                                                             env: dict[str, str]) -> None:
    """New evidence can make an unchanged paper drift: the hook judges every configured
    document as the commit holds it, not only the ones this commit changes."""
    installed = subprocess.run([str(BIN / "labledger"), "hooks", "install"], cwd=repo, env=env,
                               capture_output=True, text=True, check=False, timeout=120)
    assert installed.returncode == 0, installed.stderr
    assert commit(repo, env, "# Results\n\nOurs: PSNR 31.42 dB.\n", "paper").returncode == 0
    ledger.append("claim.declared", run="r1", claim="C1", metric="psnr", value=30.0,
                  direction="higher", source_digest="blake3:" + "1" * 64, unit="dB",
                  aliases=["PSNR", "Ours"])  # re-declared: the paper's 31.42 is stale now
    (repo / "train.py").write_text("print('code only')\n")
    git(repo, "add", "train.py", env=env)
    blocked = git(repo, "commit", "-q", "-m", "code only", env=env, check=False)
    assert blocked.returncode != 0
    assert "C1 says 31.42, evidence says 30 dB (" in blocked.stdout + blocked.stderr


def test_evidence_with_locations_is_checked_with_them_by_the_hook(repo: Path,
                                                                  env: dict[str, str]) -> None:
    run = [str(BIN / "labledger")]
    subprocess.run([*run, "hooks", "install"], cwd=repo, env=env, check=True,
                   capture_output=True, timeout=120)
    git(repo, "add", "-A", env=env)
    subprocess.run([*run, "evidence", "--locations", "-o", "EVIDENCE.json"], cwd=repo, env=env,
                   check=True, capture_output=True, timeout=120)
    written = json.loads((repo / "EVIDENCE.json").read_text())
    assert written["locations_from"] == ["paper/*.md"]
    # `evidence` (and `--check`) write nothing but the file asked for; `--no-cache` neither
    # reads nor writes the judging cache, for the documents or for EVIDENCE.json's locations
    cache = repo / ".labledger" / "cache"
    git(repo, "add", "-A", env=env)
    for args in (["evidence", "--check"], ["reconcile", "--staged", "--no-cache"]):
        checked = subprocess.run([*run, *args], cwd=repo, env=env, capture_output=True,
                                 text=True, timeout=120, check=False)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert not cache.exists(), args
    assert written["claims"][0]["locations"] == [
        {"path": "paper/results.md", "where": None, "line": 3, "col": 12, "shown": "31.42",
         "via": "anchor", "status": "match"}]
    assert commit(repo, env, "# Results\n\nOurs: PSNR 31.42 dB.\n", "with locations") \
        .returncode == 0
    # The claimed number moves down a line: the committed locations no longer hold.
    moved = commit(repo, env, "# Results\n\nIntro.\n\nOurs: PSNR 31.42 dB.\n", "moved")
    assert moved.returncode != 0
    assert ("EVIDENCE.json: differs from the ledger: claim C1: locations: file has "
            '[{"col": 12, "line": 3,') in moved.stdout + moved.stderr
    # the hint keeps the locations (without them the file would drop them and still pass)
    assert "regenerate it with `labledger evidence --locations -o" in moved.stderr
    subprocess.run([*run, "evidence", "--locations", "-o", "EVIDENCE.json"], cwd=repo, env=env,
                   check=True, capture_output=True, timeout=120)
    assert commit(repo, env, "# Results\n\nIntro.\n\nOurs: PSNR 31.42 dB.\n", "regenerated") \
        .returncode == 0, "the regenerated file matches what is staged"


def test_hooks_install_over_a_hooks_path_that_is_a_file(repo: Path, env: dict[str, str]) -> None:
    """The real console script: core.hooksPath naming a regular file is exit 1 naming it (it
    was a FileExistsError traceback); nothing is written."""
    (repo / "hooks-file").write_text("not a folder\n")
    git(repo, "config", "core.hooksPath", "hooks-file", env=env)
    installed = subprocess.run([str(BIN / "labledger"), "hooks", "install"], cwd=repo, env=env,
                               capture_output=True, text=True, check=False, timeout=120)
    assert installed.returncode == 1
    assert installed.stdout == ""
    assert f"{repo / 'hooks-file'} is a file, not a folder" in installed.stderr
    assert "core.hooksPath is 'hooks-file'" in installed.stderr
    assert "Traceback" not in installed.stderr
    assert (repo / "hooks-file").read_text() == "not a folder\n"
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()


def test_plain_hook_with_a_locations_file_and_no_documents_says_why(
        repo: Path, env: dict[str, str]) -> None:
    """EVIDENCE.json written with --locations, then the [reconcile] documents removed: the
    hook refuses the commit saying the file has locations, not blaming `evidence --locations`."""
    run = [str(BIN / "labledger")]
    subprocess.run([*run, "hooks", "install"], cwd=repo, env=env, check=True,
                   capture_output=True, timeout=120)
    subprocess.run([*run, "evidence", "--locations", "-o", "EVIDENCE.json"], cwd=repo, env=env,
                   check=True, capture_output=True, timeout=120)
    config = repo / ".labledger" / "config.toml"
    config.write_text(config.read_text().replace('documents = ["paper/*.md"]', ""))
    blocked = commit(repo, env, FIXED, "no documents")
    assert blocked.returncode != 0
    output = blocked.stdout + blocked.stderr
    assert "EVIDENCE.json was written with locations" in output
    assert "none are configured" in output
    assert "evidence --locations reads" not in output
    assert "Traceback" not in output


def test_staged_symbolic_links_are_read_through(repo: Path, env: dict[str, str]) -> None:
    """git stages a link as its target's name; the hook judges the document it points to (as
    staged), and says so when it points nowhere. A file name that is not UTF-8 is read too."""
    paper = repo / "paper"
    (paper / "results.md").write_text(DRIFT)
    (paper / "link.md").symlink_to("results.md")
    (paper / "dangling.md").symlink_to("gone.md")
    os.symlink("results.md", os.fsencode(paper) + b"/odd\xff.md")
    git(repo, "add", "-A", env=env)
    run = subprocess.run([str(BIN / "labledger"), "reconcile", "--staged", "--json"], cwd=repo,
                         env=env, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "paper/dangling.md: a symbolic link to gone.md, which cannot be read" in run.stderr
    assert "Traceback" not in run.stderr
    (paper / "dangling.md").unlink()
    git(repo, "add", "-A", env=env)
    run = subprocess.run([str(BIN / "labledger"), "reconcile", "--staged", "--json"], cwd=repo,
                         env=env, capture_output=True, text=True, timeout=120, check=False,
                         errors="surrogateescape")
    assert run.returncode == 3, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert sorted((f["path"], f["line"], f["type"]) for f in report["findings"]) == [
        ("paper/link.md", 3, "drift"), ("paper/odd\udcff.md", 3, "drift"),
        ("paper/results.md", 3, "drift")]
