"""`labledger hook` against the commands that destroy protected bytes by WRITING onto them:
a truncating redirection, a copy, move, install, link or rsync onto a file, ``dd of=``,
``tee``, ``truncate``, an in-place editor (``sed -i``, ``perl -i``), ``git rm``.

A write counts as deleting the file it lands on would (`hook`'s module docstring, "Writes"):

* ``.labledger/`` (its ``cache/`` aside) is written by labledger alone: any write there is
  blocked, an append (which breaks a segment's hash chain or an object's digest) and a new
  file (a forged object or segment) too; its settings (``config.toml``, ``hook.toml``) as
  well: they are the rules the agent is judged by.
* a recorded capsule: overwriting, truncating, replacing or editing a file it holds now is
  judged as deleting it (allowed when the capsule's stored copy verifies); appending to one,
  or writing a new file into it, is what a training run does and passes.
* an ``export-roots`` folder: overwriting a file it holds is always blocked; a new file or an
  append passes.

The project is a real git repository made by ``labledger init`` (the ``ledger`` fixture) with
a real store: ``capsules/c2`` is sealed with no stored copy (unsafe), ``capsules/c3`` is
sealed with its tree stored (`Store.put_tree`: it verifies), ``results`` is an export root.
Each row is judged by `judge` (the console script's own judgment) on a command line, and a
few through the console script with a Claude Code payload on stdin.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from labledger.cas import Store
from labledger.ledger.ledger import Ledger
from labledger.reconcile.hook import judge

EXE = Path(sys.executable).with_name("labledger")


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=agent@example.com", "-c", "user.name=agent",
                    *args], cwd=project, check=True, capture_output=True)


@pytest.fixture
def box(ledger: Ledger, project: Path) -> Path:
    (project / ".labledger" / "hook.toml").write_text('export-roots = ["results"]\n')
    (project / "results" / "r1").mkdir(parents=True)
    (project / "results" / "r1" / "notes.txt").write_text("the run's notes\n")
    for name in ("c2", "c3"):
        (project / "capsules" / name).mkdir(parents=True)
        (project / "capsules" / name / "metrics.json").write_text('{"acc": 0.91}\n')
        (project / "capsules" / name / "train.log").write_text("step 1 loss 0.5\n")
    # c2: its stored copy is not here (deleting it is refused); c3: stored, it verifies
    ledger.append("capsule.sealed", run="r2", path="capsules/c2", digest="blake3:" + "ab" * 32,
                  files=2, bytes=30)
    stored = Store(ledger.paths.cas).put_tree(project / "capsules" / "c3")
    ledger.append("capsule.sealed", run="r3", path="capsules/c3", digest=stored.digest,
                  files=2, bytes=stored.size)
    (project / "src").mkdir()
    (project / "src" / "train.py").write_text("print(1)\n")
    (project / "other").mkdir()
    (project / "other" / "metrics.json").write_text('{"acc": 0.12}\n')
    (project / "notes.txt").write_text("notes\n")
    (project.parent / "scratch").mkdir()  # a folder beside the project
    _git(project, "init", "-q", ".")
    _git(project, "add", "-A")  # the ledger and the capsules tracked too: `git rm` reaches them
    _git(project, "commit", "-qm", "start")
    return project


def _segment(project: Path) -> str:
    """The ledger's open segment, relative to the project."""
    found = sorted((project / ".labledger" / "ledger").rglob("*.jsonl"))
    assert found, "no segment"
    return str(found[0].relative_to(project))


def _judged(box: Path, command: str) -> Any:
    command = command.replace("{SEG}", _segment(box))
    before = {p: p.read_bytes() for p in box.rglob("*") if p.is_file() and ".git" not in p.parts
              and "cache" not in p.parts and p.suffix != ".jsonl"}
    verdict = judge(command, str(box), str(box))
    after = {p: p.read_bytes() for p in before}
    assert after == before, command  # judging wrote nothing
    return verdict


# 1: the ledger and the store are written by labledger alone ----------------------------------
@pytest.mark.parametrize(("command", "what"), [
    ("cp /dev/null {SEG}", "overwrites"),
    (": > {SEG}", "truncates"),
    (": >| {SEG}", "truncates"),
    ("python src/train.py &> {SEG}", "truncates"),
    ("echo x 1>{SEG}", "truncates"),
    ("python src/train.py 2> {SEG}", "truncates"),
    ("echo x>{SEG}", "truncates"),  # bash(1): `>` ends the word `x`
    ("> {SEG}", "truncates"),
    ("echo '{}' >> {SEG}", "appends to"),  # an appended line breaks the hash chain
    ("truncate -s 0 {SEG}", "truncates"),
    ("truncate --size=0 {SEG}", "truncates"),
    ("dd if=/dev/zero of={SEG} bs=1 count=1 conv=notrunc", "overwrites"),
    ("echo hi | tee {SEG}", "truncates"),
    ("echo hi | tee -a {SEG}", "appends to"),
    ("ln -sf /dev/null {SEG}", "replaces"),
    ("mv notes.txt .labledger/config.toml", "replaces"),
    ("install -m644 notes.txt .labledger/config.toml", "overwrites"),
    ("rsync -a other/ .labledger/", "writes"),
    ("rsync -a other .labledger/cas/", "writes"),
    ("cp notes.txt .labledger/", "writes"),  # the last word a folder: .labledger/notes.txt
    ("cp -t .labledger notes.txt", "writes"),
    ("cp --target-directory=.labledger/ledger notes.txt", "writes"),
    ("cp -r other .labledger/cas/objects", "writes"),
    ("sed -i d .labledger/config.toml", "edits in place"),
    ("sed -i.bak -e 's/1/2/' .labledger/config.toml", "edits in place"),
    ("sed --in-place=.bak 's/1/2/' .labledger/config.toml", "edits in place"),
    ("sed -Ei 's/1/2/' .labledger/config.toml", "edits in place"),
    ("perl -pi -e 's/1/2/' .labledger/config.toml", "edits in place"),
    ("perl -i.bak -pe 's/1/2/' {SEG}", "edits in place"),
    ("bash -c ': > .labledger/config.toml'", "truncates"),
    ("(cd .labledger && : > config.toml)", "truncates"),
    ("cd .labledger; echo x >> config.toml", "appends to"),
    ("find .labledger -type f -exec truncate -s0 {} +", "truncates"),
    ("find .labledger/ledger -name '*.jsonl' -exec sh -c ': > \"$1\"' _ {} \\;", "truncates"),
    ("ls .labledger/ledger | xargs -I{} cp /dev/null .labledger/ledger/{}", "overwrites"),
    ("F=.labledger/config.toml; : > $F", "truncates"),
    # $PWD is the payload's working folder, not the hook's own
    (": > $PWD/.labledger/config.toml", "truncates"),
    ("D=.labledger; cp notes.txt \"${PWD}/$D/config.toml\"", "overwrites"),
    ("echo x > \"$(ls -d .labledger)/config.toml\"", "truncates"),
    ("sudo tee .labledger/config.toml < notes.txt", "truncates"),
    ("printf 'x' | sponge .labledger/config.toml", "overwrites"),
])
def test_a_write_into_the_ledger_is_blocked(box: Path, command: str, what: str) -> None:
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any(what in r and "the labledger ledger and store" in r for r in verdict.reasons), \
        verdict.reasons


def test_git_rm_of_the_ledger_deletes_it_from_the_work_tree(box: Path) -> None:
    """git-rm(1): "remove files from the working tree and from the index" (``--cached``:
    from the index only)."""
    for command in ("git rm -r -q .labledger", "git rm -rf .labledger/config.toml",
                    "git -C .labledger rm -q config.toml", "git rm -q '*.toml'"):
        verdict = _judged(box, command)
        assert not verdict.allowed, command
        assert "deletes" in verdict.reasons[0], verdict.reasons


@pytest.mark.parametrize("command", [
    "cat > .labledger/hook.toml <<'EOF'\nexport-roots = []\nEOF",
    "sed -i '/export-roots/d' .labledger/hook.toml",
    "echo 'patterns = []' >> .labledger/hook.toml",
    "cp /dev/null .labledger/config.toml",
])
def test_the_settings_are_no_agents_to_write(box: Path, command: str) -> None:
    """``hook.toml`` holds the rules this hook judges by (an agent that empties
    ``export-roots`` deletes ``results`` with its next command) and ``config.toml`` the
    format every reader checks: a person edits them in their own editor, as they record a
    teardown override in their own terminal."""
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert "a person edits" in verdict.reasons[0], verdict.reasons


# 2: a capsule: overwriting what it holds is deleting it; appending, or a new file, is not ----
@pytest.mark.parametrize(("command", "what"), [
    ("cp /dev/null capsules/c2/metrics.json", "overwrites"),
    (": > capsules/c2/train.log", "truncates"),
    ("python src/train.py > capsules/c2/metrics.json", "truncates"),
    ("sed -i s/0.91/0.99/ capsules/c2/metrics.json", "edits in place"),
    ("mv notes.txt capsules/c2/metrics.json", "replaces"),
    ("cp other/metrics.json capsules/c2/", "overwrites"),
    ("cp -r other/. capsules/c2", "overwrites"),
    ("rsync -a other/ capsules/c2/", "overwrites"),
    ("rsync -a other/ capsules/c2", "overwrites"),
    ("echo 0.99 | tee capsules/c2/metrics.json", "truncates"),
    ("truncate -s0 capsules/c2/*.json", "truncates"),
    ("find capsules/c2 -type f -exec truncate -s0 {} +", "truncates"),
    ("ls capsules/c2/* | xargs -n1 cp /dev/null", "overwrites"),
    ("dd if=/dev/urandom of=capsules/c2/train.log count=1", "overwrites"),
    ("ln -sf /dev/null capsules/c2/metrics.json", "replaces"),
    ("install notes.txt capsules/c2/metrics.json", "overwrites"),
    ("M=capsules/c2/metrics.json; echo '{}' > $M", "truncates"),
    ("cp notes.txt ${PWD}/capsules/c2/metrics.json", "overwrites"),
])
def test_overwriting_a_file_of_an_unsafe_capsule_is_blocked(box: Path, command: str,
                                                            what: str) -> None:
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any(what in r and "capsule" in r and "does not verify" in r
               for r in verdict.reasons), verdict.reasons


def test_git_rm_of_a_capsule_file_is_judged_as_its_delete(box: Path) -> None:
    verdict = _judged(box, "git rm -q capsules/c2/metrics.json")
    assert not verdict.allowed
    assert "deletes the capsule" in verdict.reasons[0], verdict.reasons


# 3: an export root: overwriting what it holds is always blocked -----------------------------
@pytest.mark.parametrize("command", [
    ": > results/r1/notes.txt",
    "cp notes.txt results/r1/notes.txt",
    "sed -i d results/r1/notes.txt",
    "rsync -a other/ results/r1/ && cp notes.txt results/r1/",
])
def test_overwriting_a_file_of_an_export_root_is_blocked(box: Path, command: str) -> None:
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert "an export root" in verdict.reasons[0], verdict.reasons


# 4: the near misses -----------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    # the ledger's cache is derived data, safe to write
    ": > .labledger/cache/x",
    "echo x >> .labledger/cache/y",
    "cp notes.txt .labledger/cache/",
    # writes elsewhere, reads from the protected places
    "python src/train.py > train.log 2>&1",
    "python src/train.py 2>/dev/null",
    "ls capsules > /dev/null",
    "python src/train.py > /dev/stderr",
    "cp .labledger/config.toml ../scratch/config.toml",
    "cat .labledger/config.toml > ../scratch/c.toml",
    "dd if=.labledger/config.toml of=../scratch/c.toml",
    "rsync -a .labledger/ ../scratch/backup/",
    "cp -r capsules/c2 ../scratch/",
    "tee ../scratch/x < .labledger/config.toml",
    "sed -n p .labledger/config.toml",
    "sed 's/a/b/' capsules/c2/metrics.json > ../scratch/m.json",
    "perl -ne 'print' capsules/c2/metrics.json",
    "git rm --cached -r -q .labledger",
    "git rm -r --cached capsules/c2",
    "git rm -n -r capsules/c2",
    "git commit -qm 'x > .labledger/config.toml'",  # quoted text, no redirection
    "echo 'truncate -s0 .labledger/config.toml'",
    # a training run writes into its capsule: appends, new files
    "echo 'step 2 loss 0.4' >> capsules/c2/train.log",
    "python src/train.py >> capsules/c2/train.log 2>&1",
    "python src/train.py 2>&1 | tee -a capsules/c2/train.log",
    "python src/train.py > capsules/c2/eval.log",
    "cp notes.txt capsules/c2/notes.txt",
    "LOG=capsules/c2/run2.log; python src/train.py > $LOG",
    "python src/train.py > \"$OUT/train.log\"",
    "cp -n notes.txt capsules/c2/metrics.json",  # no clobber: an existing file stays
    "ln -s ../../notes.txt capsules/c2/metrics.json",  # without -f: fails on an existing file
    # a capsule whose stored copy verifies: as safe to overwrite as to delete
    "cp /dev/null capsules/c3/metrics.json",
    ": > capsules/c3/train.log",
    "sed -i s/0.91/0.99/ capsules/c3/metrics.json",
    # an export root: a new file, an append
    "python src/train.py > results/r1/eval.txt",
    "echo more >> results/r1/notes.txt",
    "cp notes.txt results/r1/new.txt",
])
def test_near_misses_pass(box: Path, command: str) -> None:
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


# 5: through the console script, as an agent's hook runs ------------------------------------
@pytest.mark.parametrize(("command", "code"), [
    ("cp /dev/null {SEG}", 2),
    (": > .labledger/config.toml", 2),
    ("git rm -r -q .labledger", 2),
    ("find .labledger -type f -exec truncate -s0 {} +", 2),
    ("python src/train.py > capsules/c2/new.log", 0),
    ("echo x >> capsules/c2/train.log", 0),
])
def test_the_console_script_blocks_a_write_into_the_ledger(box: Path, command: str,
                                                            code: int) -> None:
    command = command.replace("{SEG}", _segment(box))
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": command},
                          "cwd": str(box)})
    result = subprocess.run([str(EXE), "hook"], input=payload, capture_output=True, text=True,
                            cwd=box, timeout=120, check=False)
    assert result.returncode == code, (command, result.stderr)
    if code:
        assert result.stderr.startswith("labledger: blocked: "), result.stderr


@pytest.mark.parametrize(("command", "code"), [
    (": > capsules/c2/metrics.json", 2),
    (": > .labledger/config.toml", 2),
    ("cd capsules/c2 && sed -i d metrics.json", 2),
    ("rm capsules/c2/metrics.json", 2),  # as a delete is
    ("echo 'step 2' >> capsules/c2/train.log", 0),  # destroys nothing, whatever the ledger says
    ("python src/train.py > ../scratch/train.log", 0),
])
def test_a_ledger_that_cannot_be_read_fails_closed_on_a_write_that_may_destroy(
        box: Path, command: str, code: int) -> None:
    """A record whose bytes no longer match its id: judging raises, and the console script
    blocks what may destroy protected bytes (`looks_destructive`), a write as a delete."""
    segment = box / _segment(box)
    segment.write_bytes(segment.read_bytes().replace(b'"capsules/c3"', b'"capsules/c4"', 1))
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": command},
                          "cwd": str(box)})
    result = subprocess.run([str(EXE), "hook"], input=payload, capture_output=True, text=True,
                            cwd=box, timeout=120, check=False)
    assert result.returncode == code, (command, result.stderr)
    if code:
        assert "could not judge" in result.stderr, result.stderr


@pytest.mark.parametrize("command", [
    "ls capsules/c2/* | xargs -n1 dd if=/dev/zero",  # xargs hands dd its `of=FILE`
    "ls capsules/c2/* | xargs cp notes.txt",  # the last appended word is where it lands
    "ls capsules/c2/* | xargs -n1 truncate -s0",
    "ls src | xargs cp -t .labledger/ledger",  # xargs's words are sources, landing there
])
def test_files_xargs_appends_to_a_writer_are_computed(box: Path, command: str) -> None:
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert "computed when it runs" in verdict.reasons[0], verdict.reasons


def test_a_copy_run_by_xargs_with_a_target_folder_lands_there(box: Path) -> None:
    """``cp -t DIR`` names where xargs's files land: a folder outside the protected ones
    passes, whatever the listing names (what is copied is only read)."""
    verdict = _judged(box, "ls capsules/c2/* | xargs cp -t ../scratch")
    assert verdict.allowed, verdict.reasons


# 6: everyday overwrites, outside every protected folder --------------------------------------
@pytest.mark.parametrize("command", [
    "python src/train.py > notes.txt 2>&1",  # notes.txt exists: the redirection truncates it
    "python src/train.py 2>&1 | tee notes.txt",
    "truncate -s 0 notes.txt",
    "sed -i 's/a/b/' src/*.py",
    "cp -r src/ ../scratch/backup/",
    "rsync -a src/ other/",
    "cp other/metrics.json notes.txt",
])
def test_an_everyday_overwrite_does_not_read_the_whole_ledger(
        box: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook runs before every command an agent runs, and most redirect into a log that is
    there already. A write onto a file in no protected folder is allowed from the recorded
    capsules' paths alone (the `capsule.sealed` lines of the ledger): reading and verifying
    every line (`gate_events`: about a second on a ledger of 50,000 events) is for a write
    that may land in a protected folder."""
    import labledger.reconcile.pull_verified as pull_verified

    def read_all(*_: Any, **__: Any) -> Any:
        raise AssertionError("the whole ledger was read")

    monkeypatch.setattr(pull_verified, "gate_events", read_all)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    ": > capsules/c2/metrics.json",
    "sed -i 's/0/1/' capsules/*/metrics.json",
    "cp -rT other capsules/c2",  # other/metrics.json onto the capsule's
    "python src/train.py > results/r1/notes.txt",
])
def test_an_overwrite_in_a_protected_folder_still_reads_the_whole_ledger(
        box: Path, command: str) -> None:
    """The cheap read above only lets writes outside the protected folders through: one that
    lands in a capsule or an export root is judged on every verified line, as before."""
    verdict = _judged(box, command)
    assert not verdict.allowed, command


# 7: a symbolic link to a protected place -------------------------------------------------------
@pytest.mark.parametrize(("link", "to", "command"), [
    ("L", ".labledger", ": > L/config.toml"),
    ("L", ".labledger", "cp notes.txt L/ledger/x"),
    ("latest", "capsules/c2", "python src/train.py > latest/train.log"),
    ("m.json", "capsules/c2/metrics.json", "cp notes.txt m.json"),
    ("m.json", "capsules/c2/metrics.json", "echo '{}' > m.json"),
])
def test_a_write_through_a_symbolic_link_lands_where_it_points(
        box: Path, link: str, to: str, command: str) -> None:
    """The kernel follows a link in a path it opens for writing (open(2)): ``: > L/x`` with
    ``L -> .labledger`` truncates ``.labledger/x``, and a redirection onto a link to a file
    truncates that file. An earlier command made the link (`ln -s .labledger L`: a new file
    outside every protected folder, which passes)."""
    (box / link).symlink_to(box / to)
    verdict = _judged(box, command)
    assert not verdict.allowed, command


# 8: rsync that never touches a file the receiver has ----------------------------------------
def test_rsync_ignore_existing_only_adds(box: Path) -> None:
    """rsync(1): ``--ignore-existing`` "skip[s] updating files that already exist on the
    receiver": pulling every run folder of a box next to a sealed capsule adds the new runs
    and leaves the capsule's files as they are. Without it the same pull may overwrite them."""
    pull = "rsync -a --ignore-existing box:/root/proj/capsules/ capsules/"
    assert _judged(box, pull).allowed, pull
    assert not _judged(box, pull.replace("--ignore-existing ", "")).allowed


# 9: a quoted `>` is text, no redirection -------------------------------------------------------
@pytest.mark.parametrize("command", [
    "grep '>' capsules/c2/train.log",  # a FASTA header count: `grep -c '>' seqs.fa`
    "grep -c \">\" capsules/c2/metrics.json | wc -l",
    "grep -v '^>' capsules/c2/train.log",
    "awk -F'>' '{print $2}' capsules/c2/train.log",
    "grep -n '\\->' capsules/c2/train.log",
    "python src/train.py --sep '>' capsules/c2/metrics.json",
    "echo step\\>1 capsules/c2/train.log",  # an escaped `>` too
    "cd capsules && grep '>' c2/train.log",
])
def test_a_quoted_redirection_sign_is_an_argument(box: Path, command: str) -> None:
    """bash(1) QUOTING: quoting "remove[s] the special meaning of certain characters": a
    quoted ``>`` is a word the command reads, as FASTA tools grep for headers (Biostars
    "count sequences in a fasta file": ``grep -c '>' file.fasta``,
    https://www.biostars.org/p/17680/). The file after it is read, not truncated."""
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    "grep '>' notes.txt > capsules/c2/train.log",  # the unquoted one still redirects
    "echo '>'>capsules/c2/train.log",
    "echo \"a\"'b'> capsules/c2/train.log",
    ": > capsules/c2/$(echo train.log)",
    "echo > capsules/c2/train.log $(date +%s) '>'",
])
def test_an_unquoted_redirection_beside_quoted_text_still_counts(box: Path,
                                                                 command: str) -> None:
    verdict = _judged(box, command)
    assert not verdict.allowed, command


# 10: rsync that removes what it sent ---------------------------------------------------------
@pytest.mark.parametrize("command", [
    "rsync -a --remove-source-files .labledger/ ../scratch/ledger/",
    "rsync -av --remove-source-files capsules/c2 ../scratch/",
    "rsync -a --remove-source-files capsules/c2/metrics.json box:/root/",
])
def test_rsync_remove_source_files_deletes_its_sources(box: Path, command: str) -> None:
    """rsync(1): ``--remove-source-files`` "tells rsync to remove from the sending side the
    files ... that are a part of the transfer": a move, judged as ``mv`` of the sources is."""
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert "deletes" in verdict.reasons[0], verdict.reasons


def test_rsync_remove_source_files_of_an_unprotected_folder_passes(box: Path) -> None:
    verdict = _judged(box, "rsync -a --remove-source-files src/ ../scratch/src/")
    assert verdict.allowed, verdict.reasons


# 11: scp lands as cp does ---------------------------------------------------------------------
@pytest.mark.parametrize(("command", "allowed"), [
    ("scp box:/root/proj/capsules/c2/metrics.json capsules/c2/", False),
    ("scp -P 2222 box:/root/m.json capsules/c2/metrics.json", False),
    ("scp -r box:/root/proj/capsules/c2 capsules/", False),  # may overwrite its files
    ("scp box:/root/x.json .labledger/", False),
    ("scp -r box:/root/proj/capsules/c9 capsules/", True),  # a new capsule folder
    ("scp box:/root/ckpt.pt capsules/c2/new.pt", True),  # a new file
    ("scp capsules/c2/metrics.json box:/root/", True),  # read here, written there
])
def test_scp_writes_where_it_lands(box: Path, command: str, allowed: bool) -> None:
    """scp(1) "copies files between hosts": a local target is written as ``cp`` writes it
    (``-r``: folders whole), a ``host:`` one is on another machine."""
    verdict = _judged(box, command)
    assert verdict.allowed is allowed, (command, verdict.reasons)


# 12: git rm of the files already deleted ------------------------------------------------------
@pytest.mark.parametrize("command", [
    # oh-my-zsh's git plugin, `gwip` (plugins/git/README.md)
    "git add -A; git rm $(git ls-files --deleted) 2> /dev/null; "
    "git commit --no-verify --no-gpg-sign --message '--wip-- [skip ci]'",
    "git ls-files -d | xargs git rm",
    "git ls-files --deleted -z | xargs -0 git rm --quiet",
])
def test_git_rm_of_the_deleted_files_deletes_nothing(box: Path, command: str) -> None:
    """git-ls-files(1): ``-d``/``--deleted`` shows "files with an unstaged deletion": they
    are gone from the work tree, and ``git rm`` of them only records that in the index."""
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


def test_git_rm_of_every_listed_file_is_still_judged(box: Path) -> None:
    verdict = _judged(box, "git rm -r $(git ls-files --deleted --cached)")
    assert not verdict.allowed
