"""`labledger hook` against ``git worktree remove|move``, and against deletes that reach the
ledger of another project than the one the agent stands in (or when it stands in none).

Tried first with git 2.39 (`test_git_itself_deletes_a_worktrees_ignored_ledger`): git refuses
to remove a worktree with untracked or changed files unless ``--force``, but IGNORED files are
not its concern, and the usual layout ignores ``.labledger/``. ``git worktree remove exp1``
(a worktree named by the end of its path, from anywhere in the repository) and ``git worktree
remove .`` (the one it runs in) deleted the worktree's ledger without a word. Both passed
unjudged, and so did ``rm -rf ../exp1`` from the main worktree, where no ledger is found from
the working folder: the hook protected the project it found from there, and only that.

The layout: ``main`` (a repository ignoring ``.labledger/``, no labledger project), its
worktrees ``exp1`` (a labledger project with a run's event: the agent's experiment) and
``main/wts/exp2`` (no project), and ``plain`` (a folder, no project).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from labledger.reconcile.hook import judge

EXE = Path(sys.executable).with_name("labledger")


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-c", "user.email=agent@example.com", "-c",
                           "user.name=agent", *args], cwd=cwd, capture_output=True, text=True,
                          check=False)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("LABLEDGER_ROOT")  # the project is found from the agent's cwd
    main = tmp_path / "main"
    main.mkdir()
    assert _git(main, "init", "-q").returncode == 0
    (main / ".gitignore").write_text(".labledger/\ncapsules/\n")
    (main / "train.py").write_text("print(1)\n")
    _git(main, "add", ".")
    assert _git(main, "commit", "-qm", "start").returncode == 0
    assert _git(main, "worktree", "add", "-q", "../exp1").returncode == 0
    assert _git(main, "worktree", "add", "-q", "wts/exp2").returncode == 0
    with Ledger.init(tmp_path / "exp1") as ledger:
        ledger.append("run.launched", run="r1", instance="vast-111", command=["python"])
    (tmp_path / "exp1" / "src").mkdir()
    (tmp_path / "exp1" / "src" / "model.py").write_text("x = 1\n")
    (tmp_path / "plain" / "sub").mkdir(parents=True)
    return tmp_path


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
            and "cache" not in p.parts}


def _assert_reaches_exp1s_ledger(verdict: Any, tree: Path, command: str) -> None:
    """``command`` was blocked for deleting exp1's ledger, named with its project."""
    assert not verdict.allowed, command
    home = tree / "exp1" / ".labledger"
    assert any(f"{home}, the labledger ledger and store of the project {tree / 'exp1'}" in r
               for r in verdict.reasons), verdict.reasons


def _judged(tree: Path, where: str, command: str) -> Any:
    before = _files(tree)
    verdict = judge(command, str(tree / where), None)
    assert _files(tree) == before, command  # judging wrote and deleted nothing
    return verdict


def test_git_itself_deletes_a_worktrees_ignored_ledger(tree: Path) -> None:
    """What the rows below stand on: git 2.39 removes a worktree whose only files beside
    the tracked ones are ignored, ledger and all, named by the end of its path; it refuses
    the main worktree, a name that is no worktree, and untracked files without --force."""
    home = tree / "exp1" / ".labledger"
    refused = _git(tree / "exp1", "worktree", "remove", "main")
    assert refused.returncode != 0
    assert "main working tree" in refused.stderr
    assert _git(tree / "exp1", "worktree", "remove", "nope").returncode != 0
    (tree / "main" / "wts" / "exp2" / "new.txt").write_text("untracked\n")
    assert _git(tree / "main", "worktree", "remove", "exp2").returncode != 0
    assert home.is_dir()
    (tree / "exp1" / "src" / "model.py").unlink()  # (untracked: git would refuse it)
    (tree / "exp1" / "src").rmdir()
    done = _git(tree / "main", "worktree", "remove", "exp1")
    assert done.returncode == 0, done.stderr
    assert not home.exists()
    assert not (tree / "exp1").exists()


@pytest.mark.parametrize(("where", "command"), [
    ("exp1", "git worktree remove ."),
    ("exp1", "git worktree remove --force ."),
    ("exp1", "git worktree remove -f -f ."),
    ("exp1", "git worktree remove exp1"),  # by the end of its path
    ("exp1", "git worktree remove ../exp1"),
    ("exp1", "git worktree remove \"$PWD\""),
    ("exp1", "cd ../main && git worktree remove --force exp1"),
    ("exp1", "git -C ../main worktree remove exp1"),
    ("exp1/src", "git worktree remove .."),
    ("exp1", "git worktree move . ../elsewhere"),  # the ledger leaves its place, as with mv
])
def test_removing_the_worktree_that_holds_the_project_is_blocked(
        tree: Path, where: str, command: str) -> None:
    verdict = _judged(tree, where, command)
    assert not verdict.allowed, command
    assert any(f"{tree / 'exp1' / '.labledger'}, the labledger ledger and store of this "
               "project" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize(("where", "command"), [
    ("exp1", "git worktree remove exp2"),  # another worktree, holding no project
    ("exp1", "git worktree remove ../main/wts/exp2"),
    ("exp1", "git worktree remove main"),  # the main worktree: git refuses it
    ("exp1", "git worktree remove nope"),  # no worktree: git refuses it
    ("exp1", "git worktree prune"),
    ("exp1", "git worktree list --porcelain"),
    ("exp1", "git worktree add ../exp3"),
    ("exp1", "git worktree lock --reason busy ."),
    ("main", "git worktree remove wts/exp2"),
    ("main", "git worktree move wts/exp2 ../exp2b"),
])
def test_other_worktree_commands_pass(tree: Path, where: str, command: str) -> None:
    verdict = _judged(tree, where, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize(("where", "command"), [
    ("main", "git worktree remove exp1"),  # from where no ledger is found
    ("main", "git worktree remove --force ../exp1"),
    ("main", "rm -rf ../exp1"),
    ("main", "rm -rf ../exp1/.labledger/ledger"),
    ("main", "rm -rf ../exp*"),
    ("main", "rm -rf .."),  # a folder holding the project one folder down
    ("main", "cd .. && rm -rf exp1"),
    ("main", "find .. -delete"),
    ("main", "python -c 'import shutil; shutil.rmtree(\"../exp1\")'"),
    ("plain", "git -C ../main worktree remove exp1"),
    ("plain/sub", "rm -r ../../exp1/.labledger"),
])
def test_a_delete_reaching_another_projects_ledger_is_blocked(
        tree: Path, where: str, command: str) -> None:
    _assert_reaches_exp1s_ledger(_judged(tree, where, command), tree, command)


@pytest.mark.parametrize(("where", "command"), [
    ("main", "rm -rf ../exp1/.labledger/cache"),  # its cache is always safe to delete
    ("main", "rm -rf ../exp1/src"),
    ("main", "rm -rf ../plain"),
    ("main", "rm -rf ../nothing-here"),
    ("main", "rm ../exp1/src/model.py"),
    ("main", "ls ../exp1 && cat ../exp1/.labledger/config.toml"),
    ("plain", "rm -rf sub"),
])
def test_deletes_missing_every_ledger_pass(tree: Path, where: str, command: str) -> None:
    verdict = _judged(tree, where, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.fixture
def siblings(tree: Path) -> Path:
    """Two projects beside the worktrees, ``a`` and ``b``, each with a run's event."""
    for name in ("a", "b"):
        with Ledger.init(tree / name) as ledger:
            ledger.append("run.launched", run="r1", instance=f"box-{name}", command=["python"])
    return tree


def test_from_inside_a_project_another_projects_ledger_is_protected_too(siblings: Path) -> None:
    """Standing in one project (``a``), deleting a sibling one (``b``) names b's ledger."""
    tree = siblings
    verdict = _judged(tree, "a", "rm -rf ../b")
    assert not verdict.allowed
    assert verdict.reasons == [f"`rm -rf ../b` deletes {tree / 'b' / '.labledger'}, the labledger "
                               f"ledger and store of the project {tree / 'b'}"]
    # its own ledger is named as its own, once
    verdict = _judged(tree, "a", "rm -rf ../a")
    assert verdict.reasons == [f"`rm -rf ../a` deletes {tree / 'a' / '.labledger'}, the labledger "
                               "ledger and store of this project"]
    verdict = _judged(tree, "a", "rm -rf ..")
    assert sorted(verdict.reasons) == sorted(
        f"`rm -rf ..` deletes {tree / name / '.labledger'}, the labledger ledger and store of "
        + ("this project" if name == "a" else f"the project {tree / name}")
        for name in ("a", "b", "exp1"))


def test_the_hook_command_blocks_it_with_exit_2(tree: Path) -> None:
    """End to end, as Claude Code runs it: the payload on stdin, from the main worktree."""
    payload = {"tool_name": "Bash", "tool_input": {"command": "git worktree remove exp1"},
               "cwd": str(tree / "main"), "hook_event_name": "PreToolUse"}
    done = subprocess.run([str(EXE), "hook"], input=json.dumps(payload), capture_output=True,
                          text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert "the labledger ledger and store of the project" in done.stderr
    assert (tree / "exp1" / ".labledger").is_dir()


def test_a_link_to_a_project_is_removed_not_what_it_leads_to(tree: Path) -> None:
    """``rm -rf lnk`` removes the link alone (tried): the project it leads to stays."""
    (tree / "main" / "lnk").symlink_to(tree / "exp1")
    assert _judged(tree, "main", "rm -rf lnk").allowed
    verdict = _judged(tree, "main", "rm -rf lnk/.labledger")  # through it: the ledger
    assert not verdict.allowed
    subprocess.run(["rm", "-rf", str(tree / "main" / "lnk")], check=True)
    assert (tree / "exp1" / ".labledger").is_dir()


@pytest.fixture
def sealed(tree: Path) -> Path:
    """exp1 with two sealed capsules: c2 with no stored copy, c3 stored (it verifies), and
    an export root ``results``."""
    from labledger.cas.store import Store

    exp = tree / "exp1"
    (exp / ".labledger" / "hook.toml").write_text('export-roots = ["results"]\n')
    (exp / "results").mkdir()
    (exp / "results" / "table.csv").write_text("acc\n0.91\n")
    for name in ("c2", "c3"):
        (exp / "capsules" / name).mkdir(parents=True)
        (exp / "capsules" / name / "metrics.json").write_text('{"acc": 0.91}\n')
    with Ledger.open(exp) as ledger:
        ledger.append("capsule.sealed", run="r2", path="capsules/c2",
                      digest="blake3:" + "ab" * 32, files=1, bytes=14)
        stored = Store(ledger.paths.cas).put_tree(exp / "capsules" / "c3")
        ledger.append("capsule.sealed", run="r3", path="capsules/c3", digest=stored.digest,
                      files=1, bytes=stored.size)
    return tree


@pytest.mark.parametrize(("where", "command", "what"), [
    ("main", "rm -rf ../exp1/capsules/c2", "the capsule {E}/capsules/c2 of run r2 of the "
                                            "project {E}, and its stored copy does not verify"),
    ("main", "rm -rf ../exp1/capsules", "the capsule {E}/capsules/c2 of run r2"),
    ("main", "rm -rf ../exp1/capsules/*", "the capsule {E}/capsules/c2 of run r2"),
    ("main", "rm ../exp1/capsules/c2/metrics.json", "the capsule {E}/capsules/c2"),
    ("main", "rm -rf ../exp1/results", "{E}/results, an export root listed in "
                                        "{E}/.labledger/hook.toml (always protected)"),
    ("main", "git -C ../exp1 clean -fdx capsules", "the capsule {E}/capsules/c2"),
    ("main", "echo x > ../exp1/capsules/c2/metrics.json", "the capsule {E}/capsules/c2"),
    ("plain", "docker run -v {T}/exp1:/w img rm -rf /w/capsules/c2", "the capsule {E}/capsules/c2"),
    # a find at the project folder or above it, limited by a name test: the ledger stays,
    # the capsules' files go (before, only the folders above a place were asked for a
    # project, and those in a folder a delete reaches were asked for their ledger alone)
    ("main", "find ../exp1 -name '*.json' -delete", "the capsule {E}/capsules/c2"),
    ("main", "find .. -name '*.json' -delete", "the capsule {E}/capsules/c2"),
    # computed: what feeds it names a folder of the project
    ("main", "rm -rf $(ls -d ../exp1/capsules/*)", "the capsule {E}/capsules/c2"),
    ("main", "find ../exp1/capsules -name '*.json' | xargs rm", "the capsule {E}/capsules/c2"),
    ("main", "ls ../exp1/results | xargs -I{} cp /dev/null ../exp1/results/{}",
     "{E}/results, an export root"),
])
def test_another_projects_capsules_and_export_roots_are_protected(
        sealed: Path, where: str, command: str, what: str) -> None:
    exp = str(sealed / "exp1")
    verdict = _judged(sealed, where, command.replace("{T}", str(sealed)))
    assert not verdict.allowed, command
    assert any(what.replace("{E}", exp) in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize(("where", "command"), [
    ("main", "rm -rf ../exp1/capsules/c3"),  # stored, it verifies
    ("main", "rm -rf ../exp1/src"),
    ("main", "rm -f ../exp1/notes.txt"),
    ("exp1", "rm -rf src"),
    ("main", "find .. -name '*.pyc' -delete"),
    ("main", "find ../exp1 -name '*.pyc' | xargs rm -f"),
])
def test_what_the_other_project_does_not_protect_passes(sealed: Path, where: str,
                                                        command: str) -> None:
    verdict = _judged(sealed, where, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_from_inside_the_project_its_capsule_is_named_as_its_own(sealed: Path) -> None:
    verdict = _judged(sealed, "exp1", "rm -rf capsules/c2")
    assert verdict.reasons == [
        f"`rm -rf capsules/c2` deletes the capsule {sealed}/exp1/capsules/c2 of run r2, and its "
        "stored copy does not verify: object missing from the local store"]


def test_another_project_whose_ledger_cannot_be_read_fails_closed(sealed: Path) -> None:
    segment = next((sealed / "exp1" / ".labledger" / "ledger").rglob("*.jsonl"))
    segment.write_bytes(segment.read_bytes()[:-20] + b"garbage\n")
    verdict = _judged(sealed, "main", "rm -rf ../exp1/src")
    assert not verdict.allowed
    assert any("whose ledger cannot be read" in r and "fail closed" in r
               for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("where", ["plain", "exp1"])
def test_a_glob_over_many_folders_is_looked_into_on_a_budget(
        tree: Path, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook runs before every command: ``rm -rf runs/*`` over 1,100 runs (each holding
    its checkpoint folders) must not list every run for a ledger below it. Before, each of
    the glob's first 1,000 matches was listed whole (`_homes_below`: 1,000 listings, up to
    1,000 looks each; 0.4 s over 1,000 runs of 1 folder here, 10 ms before 84b0b46); the looks
    are now shared by the whole line (`_HOMES_SCAN` in all)."""
    import os

    runs = tree / where / "runs"
    for k in range(1100):
        for j in range(2):
            (runs / f"r{k}" / f"ckpt{j}").mkdir(parents=True)
    listed: list[str] = []
    scandir = os.scandir

    def counted(path: Any = ".") -> Any:
        listed.append(str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    verdict = judge("rm -rf runs/*", str(tree / where), None)
    assert verdict.allowed, verdict.reasons
    below = [p for p in listed if p.startswith(str(runs) + os.sep)]
    assert len(below) <= 40, len(below)


@pytest.mark.parametrize(("where", "command"), [
    ("main", "ls .. | xargs -I{} rm -rf ../{}"),
    ("main", "cd .. && ls | xargs rm -rf"),
    ("main", "fd . .. -d 1 -x rm -rf"),
    ("plain", "cd .. && find . -maxdepth 1 -type d | xargs rm -rf"),
])
def test_a_computed_delete_fed_another_project_is_blocked(tree: Path, where: str,
                                                          command: str) -> None:
    """A delete whose paths are computed when it runs reaches another project's ledger
    when what feeds it lists or names the project folder (`_Mentions`, as for the project's
    own ledger). Before, only the literal places of a delete were looked into for another
    project: each of these passed, from the main worktree where no ledger is found. (A word
    naming the project folder itself, or one above it, feeds none of its places, as for the
    project's own: ``find ../exp1 -name '*.pyc' | xargs rm -f`` passes below.)"""
    _assert_reaches_exp1s_ledger(_judged(tree, where, command), tree, command)


@pytest.mark.parametrize(("where", "command"), [
    ("main", "ls | xargs rm -rf"),  # main's entries: no project among them
    ("main", "fd -e pyc . .. -x rm"),
    ("main", "ls ../plain | xargs -I{} rm -rf ../plain/{}"),
    ("plain", "find . -name '*.tmp' | xargs rm -f"),
])
def test_a_computed_delete_fed_no_project_passes(tree: Path, where: str, command: str) -> None:
    verdict = _judged(tree, where, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_from_inside_a_project_a_listed_sibling_project_is_protected(siblings: Path) -> None:
    tree = siblings
    verdict = _judged(tree, "a", "ls .. | grep -v a | xargs -I{} rm -rf ../{}")
    assert f"`rm -rf '../{{}}'` deletes {tree / 'b' / '.labledger'}, the labledger ledger " \
           f"and store of the project {tree / 'b'}" in verdict.reasons, verdict.reasons


@pytest.mark.parametrize("command", ["rm -rf " + "x" * 300, "echo x > " + "x" * 300,
                                     "rm -rf ../" + "x" * 300 + "/y"])
def test_a_name_too_long_for_the_system_is_no_project(tree: Path, command: str) -> None:
    """A path part over NAME_MAX (255) makes a lookup raise ENAMETOOLONG, not report a
    missing file: asking whether it holds a ledger must say no, not raise (`judge` raised
    OSError for these from the main worktree, where no ledger is found)."""
    assert _judged(tree, "main", command).allowed


def test_another_projects_whole_ledger_is_read_only_where_the_line_may_reach_its_capsules(
        sealed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A delete or write inside another project that misses its capsules and export roots
    reads their folders alone (its `capsule.sealed` lines: 21 ms against 243 for every line
    of 50,000 events); one that reaches one reads every line, as the first project's does."""
    import labledger.reconcile.pull_verified as pull_verified

    read: list[Path] = []
    real = pull_verified.gate_events

    def counted(ledger: object) -> object:
        read.append(ledger.paths.project)  # type: ignore[attr-defined]
        return real(ledger)  # type: ignore[arg-type]

    monkeypatch.setattr(pull_verified, "gate_events", counted)
    assert _judged(sealed, "main", "echo x > ../exp1/src/log.txt").allowed
    assert _judged(sealed, "main", "rm -rf ../exp1/src").allowed
    assert read == []
    assert not _judged(sealed, "main", "rm -rf ../exp1/capsules/c2").allowed
    assert read == [sealed / "exp1"]
