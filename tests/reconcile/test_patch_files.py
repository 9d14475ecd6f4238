"""The patch readers: `patch_files.file_patches` reads the files a unified diff changes from
its headers, whatever the changed lines hold: patches made by real ``git diff`` (new, deleted and
edited files, paths with spaces) and by ``difflib.unified_diff`` (GNU diff's form, a timestamp
after a tab) of files whose lines look like headers themselves (``--- x``, ``+++ y``,
``diff --git``, ``@@``), hold form feeds or other characters Python's ``str.splitlines`` would
cut at, and lack a final newline. Hypothesis draws the files; git and difflib write the patch.
A Codex patch (`hook.patch_writes`) is cut the same way.
"""

from __future__ import annotations

import difflib
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labledger.reconcile.patch_files import file_patches

_LINE_PIECES = ["x = 1", "--- a/src/x.py", "+++ b/src/x.py", "diff --git a/y b/y",
                "@@ -1,2 +1,2 @@", "-- comment", "++i;", "\\ No newline", "\x0c", "\x0b",
                "\x1c", "\u2028", "\u0085",
                "\r", "\t", " ", "", "rename from a", "new file mode 100644", "é", "# end"]
_lines = st.lists(st.lists(st.sampled_from(_LINE_PIECES), max_size=4).map("".join),
                  min_size=0, max_size=12)
_names = st.sampled_from(["src/model.py", "notes.txt", "capsules/c2/metrics.json",
                          "dir with space/a b.txt", ".labledger/config.toml", "README.md"])


def _text(lines: list[str], newline_at_end: bool) -> str:
    text = "\n".join(line.replace("\n", "") for line in lines)
    return text + "\n" if newline_at_end and lines else text


@settings(max_examples=200, deadline=None)
@given(before=_lines, after=_lines, name=_names, end=st.booleans())
def test_a_difflib_patch_names_its_one_file(before: list[str], after: list[str], name: str,
                                            end: bool) -> None:
    old, new = _text(before, end), _text(after, True)
    # lines cut at "\n" alone, as diff(1) and patch(1) cut them
    diff = "".join(difflib.unified_diff([ln + "\n" for ln in old.split("\n")],
                                        [ln + "\n" for ln in new.split("\n")],
                                        f"a/{name}\t2024-01-01 00:00:00", f"b/{name}\t2024-01-02"))
    got = file_patches(diff)
    if old == new:
        assert got == []
    else:
        assert [(p.old, p.new) for p in got] == [(f"a/{name}", f"b/{name}")], diff


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.dictionaries(_names, st.tuples(_lines, _lines, st.sampled_from(
    ["edit", "add", "delete"])), min_size=1, max_size=4))
def test_a_git_diff_names_every_file_it_changes(
        tmp_path_factory: pytest.TempPathFactory,
        files: dict[str, tuple[list[str], list[str], str]]) -> None:
    repo = tmp_path_factory.mktemp("repo")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c",
           "core.autocrlf=false"]
    subprocess.run([*git, "init", "-q"], check=True)
    for name, (before, _after, how) in files.items():
        if how != "add":
            path = repo / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_text(before, True).encode())
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "base"], check=True)
    for name, (_before, after, how) in files.items():
        path = repo / name
        if how == "delete":
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_text(after, True).encode())
    subprocess.run([*git, "add", "-A"], check=True)
    diff = subprocess.run([*git, "diff", "--cached", "--no-renames", "--text"], check=True,
                          capture_output=True).stdout.decode()
    names = subprocess.run([*git, "diff", "--cached", "--name-only", "--no-renames", "-z"],
                           check=True, capture_output=True).stdout.decode()
    changed = set(names.split("\0")) - {""}
    got = file_patches(diff)
    named = {(p.new or p.old or "")[2:] for p in got}
    assert named == changed, diff


def test_a_codex_patch_line_is_cut_at_newlines_only() -> None:
    """Codex's apply_patch parser cuts its patch at ``\\n`` (Rust's ``str::lines``): an added
    line holding a form feed is one line of the new file, never a ``*** Delete File`` header."""
    from labledger.reconcile.hook import patch_writes

    patch = ("*** Begin Patch\n*** Update File: src/model.py\n@@\n-x = 1\n"
             "+x = 2\x0c*** Delete File: capsules/c2/ckpt.pt\n*** End Patch")
    assert patch_writes(patch) == "sed -i '' src/model.py"
