"""`labledger hook` against patches an agent applies in the ways it usually writes them
(review of `test_hook_git_histories`): a patch given as a here-document (``git apply
<<'EOF'``, ``patch -p1 <<'EOF'``), one written to a file by ``cat > FILE <<'EOF'`` earlier on
the line and applied from it, a patch file that does not exist (git and patch refuse it and
write nothing), and one applied after a ``cd``.

These were blocked as patches "that cannot be read here", over the ledger, the export root
and every capsule, though their text is on the line: a false block of an everyday command.
What the text names is judged as a patch file's headers are: a patch of ``src/model.py``
passes, one of ``.labledger/config.toml`` is still blocked. A file written earlier on the
line by a command whose output cannot be read here (``git diff > x.diff``) still counts as
unreadable (fail closed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reconcile.test_hook_git_histories import _git, patches  # noqa: F401 - fixtures
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


def _line(form: str, text: str, tmp: Path) -> str:
    """The command line ``form`` with ``{DOC}`` the opening of a here-document and
    ``{BODY}`` its lines and closing word (a here-document starts on the next line: what
    follows ``<<'EOF'`` on its own line is still the line's), ``{TMP}`` a scratch folder."""
    return form.replace("{DOC}", "<<'EOF'").replace("{BODY}", f"\n{text}EOF").replace(
        "{TMP}", str(tmp))


@pytest.mark.parametrize("form", [
    "git apply {DOC}{BODY}",
    "git apply - {DOC}{BODY}",
    "git apply --index {DOC}{BODY}",
    "patch -p1 {DOC}{BODY}",
    "cat > {TMP}/fix.patch {DOC}{BODY}\ngit apply {TMP}/fix.patch",
    "cat > {TMP}/fix.patch {DOC} && git apply {TMP}/fix.patch{BODY}",
    "cat > {TMP}/fix.patch {DOC} && patch -p1 < {TMP}/fix.patch{BODY}",
    "cat > fix.patch {DOC} && git apply fix.patch && rm fix.patch{BODY}",
])
def test_a_patch_of_source_given_on_the_line_passes(patches: Path, form: str,  # noqa: F811
                                                     tmp_path: Path) -> None:
    text = (patches.parent / "src.diff").read_text()
    command = _line(form, text, tmp_path)
    verdict = _judged(patches, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("form", [
    "git apply {DOC}{BODY}",
    "git apply - {DOC}{BODY}",
    "patch -p1 {DOC}{BODY}",
    "cat > {TMP}/fix.patch {DOC} && git apply {TMP}/fix.patch{BODY}",
    "cat > {TMP}/fix.patch {DOC}{BODY}\npatch -p1 < {TMP}/fix.patch",
])
def test_a_patch_of_the_ledger_config_given_on_the_line_is_blocked(
        patches: Path, form: str, tmp_path: Path) -> None:  # noqa: F811
    text = (patches.parent / "cfg.diff").read_text()
    command = _line(form, text, tmp_path)
    verdict = _judged(patches, command)
    assert not verdict.allowed, command
    assert any("edits in place" in r and "/.labledger/config.toml" in r
               for r in verdict.reasons), verdict.reasons
    assert not any("cannot be read here" in r for r in verdict.reasons), verdict.reasons


def test_a_later_write_of_the_patch_file_is_not_what_it_applies(
        patches: Path, tmp_path: Path) -> None:  # noqa: F811
    """The file is applied before the line writes it: what it holds now counts (here the
    config's patch), not the here-document written after."""
    fix = tmp_path / "fix.patch"
    fix.write_text((patches.parent / "cfg.diff").read_text())
    src = (patches.parent / "src.diff").read_text()
    verdict = _judged(patches, _line(f"git apply {fix} && cat > {fix} {{DOC}}{{BODY}}", src,
                                     tmp_path))
    assert not verdict.allowed


@pytest.mark.parametrize("command", [
    "git apply missing.diff",
    "git apply -p0 x.patch",
    "patch -p1 < missing.diff",
    "patch -p1 -i missing.diff",
    "git apply --3way missing.diff",
])
def test_a_patch_file_that_is_not_there_passes(patches: Path, command: str) -> None:  # noqa: F811
    """git ("can't open patch") and the shell (``< missing.diff``: "No such file") refuse
    it: nothing is written."""
    verdict = _judged(patches, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    "git diff > x.diff && git apply -R x.diff",
    "git diff > x.diff; patch -p1 -R < x.diff",
    "F=x.diff; git diff > $F && git apply -R x.diff",
    "python make_patch.py && git apply x.diff",
])
def test_a_patch_file_written_earlier_by_what_cannot_be_read_is_blocked(
        patches: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(patches, command)
    assert not verdict.allowed, command
    assert any("its patch cannot be read here" in r for r in verdict.reasons), verdict.reasons


def test_a_patch_of_source_applied_from_a_subfolder_passes(patches: Path) -> None:  # noqa: F811
    """``cd src && git apply ../mod.diff``: ``../mod.diff`` is the project's own patch (of
    src/train.py) from src; from the project's folder it would be another file (the
    fixture's capsule patch beside the project), which the command never reads: the ``cd``
    succeeds (src is there), so the apply runs in src."""
    (patches / "mod.diff").write_text((patches.parent / "src.diff").read_text())
    for command in ("cd src && git apply ../mod.diff", "cd src; patch -p2 < ../mod.diff"):
        verdict = _judged(patches, command)
        assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("command", [
    "(cd src && ls); git apply ../mod.diff",  # the subshell's cd ends with it
    "cd no-such-folder; git apply ../mod.diff",  # the cd fails: it runs where it started
    "bash -c 'cd src' && git apply ../mod.diff",
])
def test_a_patch_applied_where_a_cd_may_not_lead_is_judged_there(
        patches: Path, command: str) -> None:  # noqa: F811
    """The same patch file where the apply may run in the project's folder: ``../mod.diff``
    is then the capsule's patch."""
    (patches / "mod.diff").write_text((patches.parent / "src.diff").read_text())
    verdict = _judged(patches, command)
    assert not verdict.allowed, command
    assert any("capsules/c2/metrics.json" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize(("form", "allowed"), [
    ("cat {DOC} | git apply{BODY}", True),
    ("cat {DOC} | patch -p1{BODY}", True),
    ("cat - {DOC} | git apply -v{BODY}", True),
    ("cat {DOC} | tee {TMP}/x | git apply{BODY}", False),  # tee: not read as a printer
    ("{ cat {DOC}; echo; } | git apply{BODY}", False),  # more than the here-document
])
def test_a_here_document_piped_through_cat_is_the_patch(
        patches: Path, form: str, allowed: bool, tmp_path: Path) -> None:  # noqa: F811
    """``cat <<'EOF' | git apply`` (the form agents write a patch in) applies the
    here-document: read as the patch. A pipeline where anything else may print stays a
    patch that cannot be read (fail closed)."""
    text = (patches.parent / "src.diff").read_text()
    command = _line(form, text, tmp_path)
    verdict = _judged(patches, command)
    assert verdict.allowed is allowed, (command, verdict.reasons)
    if not allowed:
        assert any("its patch cannot be read here" in r for r in verdict.reasons)


def test_a_here_document_of_the_config_piped_through_cat_is_blocked(
        patches: Path, tmp_path: Path) -> None:  # noqa: F811
    text = (patches.parent / "cfg.diff").read_text()
    verdict = _judged(patches, _line("cat {DOC} | git apply{BODY}", text, tmp_path))
    assert not verdict.allowed
    assert any("edits in place" in r and "/.labledger/config.toml" in r
               for r in verdict.reasons), verdict.reasons


def test_dropping_a_stash_applied_before_more_events_were_appended_passes(
        box: Path) -> None:  # noqa: F811
    """``git stash``, ``git stash apply`` (the agent's earlier calls), then a run appends
    events to the tracked ledger: the work tree's segment holds every event the stash holds,
    and more after them, so ``git stash drop`` loses nothing (it was blocked: the segment
    differs from the stash's copy). A stash whose copy the work tree does not begin with
    (the events it holds were since taken out) is still blocked."""
    from labledger.ledger.ledger import Ledger

    def append(instance: str) -> None:
        led = Ledger.open(box)
        try:
            led.append("run.launched", run="r9", instance=instance, command=["python"])
        finally:
            led.close()

    append("vast-444")
    _git(box, "stash")
    _git(box, "stash", "apply")
    append("vast-555")
    assert _judged(box, "git stash drop").allowed
    _git(box, "checkout", "--", ".labledger")  # the events the stash holds leave the tree
    verdict = _judged(box, "git stash drop")
    assert not verdict.allowed
    assert any("the stash it drops" in r and ".jsonl, in " in r for r in verdict.reasons), \
        verdict.reasons
